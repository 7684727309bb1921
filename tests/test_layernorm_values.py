"""aclnnLayerNorm: every output by hand (Python's math module), the envelope against float32 sums
computed element by element in a Python loop (inside for float32 two-pass sums in either order,
outside for an fp16 accumulator and for the divisor n - 1), the slices left open, null weight, bias
and statistics, torch on every value case, and the generated mutants killed in single calls with
the controls clean."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg

PRODUCTS = ("atlas-a2", "ascend950")
KEY = "layer_norm"


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _t(values, dtype=AclDataType.FLOAT) -> TensorArg:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    return TensorArg.from_array(np.asarray(values, numpy_dtype(dtype)), dtype)


def _call(x, weight=None, bias=None, eps: float = 1e-5, k: int = 1, stats: bool = True,
          dtype=AclDataType.FLOAT) -> Case:
    x = np.asarray(x, np.float64)
    lead, trailing = x.shape[:x.ndim - k], x.shape[x.ndim - k:]
    return Case(op=KEY, case_id="hand", tensors={
        "input": _t(x, dtype), "weightOptional": None if weight is None else _t(weight, dtype),
        "biasOptional": None if bias is None else _t(bias, dtype), "out": _t(np.zeros(x.shape), dtype),
        "meanOutOptional": _t(np.zeros(lead + (1,) * k), dtype) if stats else None,
        "rstdOutOptional": _t(np.zeros(lead + (1,) * k), dtype) if stats else None},
        attrs={"normalizedShape": list(trailing), "eps": eps})


def _oracle(case: Case, product: str = "atlas-a2"):
    from aclnn_conformance.oracle.surface import from_case
    return from_case(case, "cann", product)


def _by_hand(row, eps):
    mean = math.fsum(row) / len(row)
    var = math.fsum((v - mean) ** 2 for v in row) / len(row)
    return mean, 1.0 / math.sqrt(var + eps)


def test_every_output_by_hand():
    rows = [[1.0, 2.0, 3.0, 4.0], [5.0, 5.0, 5.0, 5.0], [-0.5, 0.25, 8.0, 1.0]]
    weight, bias = [1.0, 0.5, 2.0, -1.0], [0.0, 1.0, -2.0, 0.25]
    result = _oracle(_call(rows, weight, bias))
    for i, row in enumerate(rows):
        mean, rstd = _by_hand(row, 1e-5)
        assert math.isclose(float(result.views["meanOutOptional"][i, 0]), mean, rel_tol=2 ** -23)
        assert math.isclose(float(result.views["rstdOutOptional"][i, 0]), rstd, rel_tol=2 ** -23)
        for j, v in enumerate(row):
            want = (v - mean) * rstd * weight[j] + bias[j]
            assert math.isclose(float(result.views["out"][i, j]), want, rel_tol=2 ** -23, abs_tol=1e-30)
    # a constant slice: its variance 0, rstd = 1/sqrt(eps), y the bias
    assert math.isclose(float(result.views["rstdOutOptional"][1, 0]), 1 / math.sqrt(1e-5), rel_tol=2 ** -23)
    assert result.views["out"][1].tolist() == [float(np.float32(b)) for b in bias]


def test_null_weight_and_bias_are_ones_and_zeros_and_null_statistics_are_not_written():
    row = [1.0, -2.0, 4.0, 0.5, 3.0]
    result = _oracle(_call([row], stats=False))
    assert set(result.views) == {"out"}
    mean, rstd = _by_hand(row, 1e-5)
    for j, v in enumerate(row):
        assert math.isclose(float(result.views["out"][0, j]), (v - mean) * rstd, rel_tol=2 ** -23)


def test_a_normalized_shape_of_two_dims_reduces_both():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) ** 1.5
    result = _oracle(_call(x, np.ones((3, 4)), np.zeros((3, 4)), k=2))
    assert result.views["rstdOutOptional"].shape == (2, 1, 1)
    for b in range(2):
        mean, rstd = _by_hand(list(x[b].ravel()), 1e-5)
        assert math.isclose(float(result.views["meanOutOptional"][b, 0, 0]), mean, rel_tol=2 ** -23)
        assert math.isclose(float(result.views["rstdOutOptional"][b, 0, 0]), rstd, rel_tol=2 ** -23)


def _loop_stats(row, eps: float, accumulate, divisor: int | None = None) -> tuple[float, float]:
    """The mean and rstd by a per-element loop: each partial sum, deviation and square rounded to
    ``accumulate`` (numpy scalars), as a sequential two-pass kernel would."""
    total = accumulate(0.0)
    for v in row:
        total = accumulate(total + accumulate(v))
    mean = np.float32(np.float32(total) * (np.float32(1.0) / np.float32(len(row))))
    squares = accumulate(0.0)
    for v in row:
        d = accumulate(accumulate(v) - accumulate(mean))
        squares = accumulate(squares + accumulate(d * d))
    var = np.float32(np.float32(squares) / np.float32(divisor or len(row)))
    return float(mean), float(np.float32(1.0) / np.float32(math.sqrt(float(np.float32(var + np.float32(eps))))))


def test_a_float32_loop_is_inside_the_envelope_and_an_fp16_accumulator_or_n_minus_1_is_not():
    from aclnn_conformance.oracle.surface_layer_norms import layer_bounds
    rng = np.random.default_rng(5)
    row = np.abs(rng.uniform(-6.0, 6.0, 1000)).astype(np.float16).astype(np.float64)
    found = layer_bounds(row.reshape(1, -1), 1, 1e-5)
    exact, rho = float(found["rstd"][0, 0]), float(found["rho"][0, 0])
    mean, mean_err = float(found["average"][0, 0]), float(found["mean_err"][0, 0])
    assert (mean, exact) == pytest.approx(_by_hand(list(row), 1e-5), rel=1e-14)
    for order in (row, row[::-1]):
        got_mean, got_rstd = _loop_stats(order, 1e-5, np.float32)
        assert abs(got_mean - mean) <= mean_err and abs(got_rstd - exact) <= rho * exact
    with np.errstate(over="ignore"):
        assert abs(_loop_stats(row, 1e-5, np.float16)[1] - exact) > rho * exact
    # the divisor n - 1 on a slice of 64 (the bound's Welford term grows with n: see docs/values.md)
    short = row[:64]
    found = layer_bounds(short.reshape(1, -1), 1, 1e-5)
    exact, rho = float(found["rstd"][0, 0]), float(found["rho"][0, 0])
    assert abs(_loop_stats(short, 1e-5, np.float32)[1] - exact) <= rho * exact
    assert abs(_loop_stats(short, 1e-5, np.float32, divisor=63)[1] - exact) > 10 * rho * exact


def test_slices_with_nan_or_infinity_are_open():
    result = _oracle(_call([[1.0, np.nan], [np.inf, 0.0], [1.0, 2.0]], [1.0, 1.0], [0.0, 0.0]))
    assert result.aux["out"]["unjudged"].tolist() == [[True, True], [True, True], [False, False]]
    for name in ("meanOutOptional", "rstdOutOptional"):
        assert result.aux[name]["unjudged"][:, 0].tolist() == [True, True, False]


def _judged(backend, case: Case, product: str) -> str:
    from aclnn_conformance.judging.run_case import run_case
    return run_case(backend, case, product, "cann").outcome


def test_a_one_ulp_rstd_passes_and_a_far_one_fails():
    from aclnn_conformance.backends.base import RunResult
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    case = _call([[1.0, 2.0, 3.0, 4.0]], [1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])
    spec = operator(KEY).spec
    result = _oracle(case)
    # far: twice the derived bound away, in float32 steps
    far = int(2 * float(result.aux["rstdOutOptional"]["bound"][0, 0])
              / float(np.spacing(np.float32(result.views["rstdOutOptional"][0, 0])))) + 2
    assert far > 8
    for steps, outcome in ((1, "PASS"), (far, "FAIL")):
        storages = case.copy_storages()
        for name in ("out", "meanOutOptional"):
            storages[name][...] = result.views[name]
        rstd = np.float32(result.views["rstdOutOptional"][0, 0])
        for _ in range(steps):
            rstd = np.nextafter(rstd, np.float32(np.inf))
        storages["rstdOutOptional"][...] = rstd
        assert judge(spec, case, "atlas-a2", "cann", RunResult(0, storages, workspace_size=0)).outcome == outcome


def test_torch_passes_every_value_case():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for case in value_cases(KEY):
        for product in PRODUCTS:
            assert _judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED"), case.case_id


def test_each_mutant_is_killed_in_a_single_call_and_each_control_is_clean():
    """Each mutant fails some single value case, each control none (by the judge, call by call)."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, KEY)
    kinds = {m.kind for m in found.mutants}
    assert {"unbiased-variance", "eps-outside-root", "narrow-accumulation", "dropped-tail", "weight-ignored",
            "bias-ignored", "rstd-as-root", "one-pass-variance"} <= kinds
    assert {"pairwise-control", "welford-control", "kernel-order-control"} <= {c.kind for c in found.controls}
    cases = value_cases(KEY)
    for mutant in found.mutants:
        assert any(_judged(mutant(), c, "atlas-a2") == "FAIL" for c in cases), mutant.kind
    for control in found.controls:
        for c in cases:
            assert _judged(control(), c, "atlas-a2") in ("PASS", "NOT_JUDGED"), (control.kind, c.case_id)
