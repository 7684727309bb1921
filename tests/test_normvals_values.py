"""aclnnRmsNorm, aclnnGemmaRmsNorm, aclnnAddRmsNorm and aclnnInplaceAddRmsNorm: every output by hand (Python's math
module), the envelope against float32 sums computed element by element in a Python loop (inside
for float32 in any order, outside for an fp16 accumulator), the slices left open, torch on every
value case, and the generated mutants killed with the controls clean through ``mutate``."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import assert_gated_through_mutate, judged

PRODUCTS = ("atlas-a2", "ascend950")
KEYS = ("rms_norm", "gemma_rms_norm", "add_rms_norm", "inplace_add_rms_norm")
ADDING = ("add_rms_norm", "inplace_add_rms_norm")   # the entries whose input is a sum of two addends


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _t(values, dtype=AclDataType.FLOAT) -> TensorArg:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    return TensorArg.from_array(np.asarray(values, numpy_dtype(dtype)), dtype)


def _rms_call(op: str, x, gamma, eps: float = 1e-6, dtype=AclDataType.FLOAT) -> Case:
    x = np.asarray(x, np.float64)
    lead = x.shape[:x.ndim - np.ndim(gamma)]
    return Case(op=op, case_id="hand", tensors={
        "x": _t(x, dtype), "gamma": _t(gamma, dtype), "yOut": _t(np.zeros(x.shape), dtype),
        "rstdOut": _t(np.zeros(lead + (1,) * np.ndim(gamma)))}, attrs={"epsilon": eps})


def _oracle(case: Case, product: str = "atlas-a2"):
    from aclnn_conformance.oracle.surface import from_case
    return from_case(case, "cann", product)


def _rstd(row, eps):
    return 1.0 / math.sqrt(sum(v * v for v in row) / len(row) + eps)


def test_rms_norm_and_gemma_by_hand():
    rows = [[1.0, 2.0, 3.0, 4.0], [0.0, 0.0, 0.0, 0.0], [-0.5, 0.25, 8.0, 1.0]]
    gamma = [1.0, 0.5, 2.0, -1.0]
    for op, offset in (("rms_norm", 0.0), ("gemma_rms_norm", 1.0)):
        result = _oracle(_rms_call(op, rows, gamma))
        for i, row in enumerate(rows):
            r = _rstd(row, 1e-6)
            assert math.isclose(float(result.views["rstdOut"][i, 0]), r, rel_tol=2 ** -23)
            for j, v in enumerate(row):
                want = v * r * (gamma[j] + offset)
                assert math.isclose(float(result.views["yOut"][i, j]), want, rel_tol=2 ** -23, abs_tol=1e-30)
    # a slice of zeros: rstd = 1/sqrt(epsilon)
    assert math.isclose(float(_oracle(_rms_call("rms_norm", rows, gamma)).views["rstdOut"][1, 0]), 1000.0,
                        rel_tol=2 ** -23)


def test_a_weight_over_two_dims_reduces_both():
    x = np.arange(24, dtype=np.float64).reshape(2, 3, 4) - 11.5
    gamma = np.ones((3, 4))
    result = _oracle(_rms_call("rms_norm", x, gamma))
    assert result.views["rstdOut"].shape == (2, 1, 1)
    for b in range(2):
        assert math.isclose(float(result.views["rstdOut"][b, 0, 0]), _rstd(list(x[b].ravel()), 1e-6),
                            rel_tol=2 ** -23)


def test_inplace_add_writes_the_norm_into_x1_and_the_sum_into_x2():
    x1 = np.array([[1.0, 2.0, -3.0, 0.5]])
    x2 = np.array([[0.5, -1.0, 1.0, 0.25]])
    gamma = [2.0, 1.0, 1.0, 4.0]
    case = Case(op="inplace_add_rms_norm", case_id="hand", tensors={
        "x1Ref": _t(x1), "x2Ref": _t(x2), "gamma": _t(gamma), "rstdOut": _t(np.zeros((1, 1)))},
        attrs={"epsilon": 1e-6})
    result = _oracle(case)
    total = [a + b for a, b in zip(x1[0], x2[0])]
    r = _rstd(total, 1e-6)
    assert result.views["x2Ref"][0].tolist() == total
    for j, v in enumerate(total):
        assert math.isclose(float(result.views["x1Ref"][0, j]), v * r * gamma[j], rel_tol=2 ** -23)
    # its document says Rms(x), its kernel writes 1/Rms(x): open on every product
    assert result.aux["rstdOut"]["unjudged"].all()


def test_add_writes_the_norm_the_reciprocal_root_and_the_sum_to_their_outputs():
    x1 = np.array([[1.0, 2.0, -3.0, 0.5], [0.0, 4.0, 1.0, -2.0]])
    x2 = np.array([[0.5, -1.0, 1.0, 0.25], [1.0, -1.0, 0.5, 0.0]])
    gamma = [2.0, 1.0, 1.0, 4.0]
    case = Case(op="add_rms_norm", case_id="hand", tensors={
        "x1": _t(x1), "x2": _t(x2), "gamma": _t(gamma), "yOut": _t(np.zeros((2, 4))),
        "rstdOut": _t(np.zeros((2, 1))), "xOut": _t(np.zeros((2, 4)))}, attrs={"epsilon": 1e-6})
    result = _oracle(case)
    for i in range(2):
        total = [a + b for a, b in zip(x1[i], x2[i])]
        r = _rstd(total, 1e-6)
        assert result.views["xOut"][i].tolist() == total
        assert math.isclose(float(result.views["rstdOut"][i, 0]), r, rel_tol=2 ** -23)
        for j, v in enumerate(total):
            assert math.isclose(float(result.views["yOut"][i, j]), v * r * gamma[j], rel_tol=2 ** -23)
    assert not result.aux["rstdOut"]["unjudged"].any()
    # its document says rstdOut is not valid on Atlas inference products (aclnnAddRmsNorm.md:186)
    assert _oracle(case, "atlas-inference").aux["rstdOut"]["unjudged"].all()


def _loop_rstd(row, eps: float, accumulate) -> float:
    """rstd by a per-element loop: each square, each partial sum and the rest rounded to
    ``accumulate`` (numpy scalars), as a sequential kernel would."""
    total = accumulate(0.0)
    for v in row:
        total = accumulate(total + accumulate(np.float32(v) * np.float32(v)))
    mean = np.float32(np.float32(total) * (np.float32(1.0) / np.float32(len(row))))
    return float(np.float32(1.0) / np.float32(math.sqrt(float(np.float32(mean + np.float32(eps))))))


def test_a_float32_loop_is_inside_the_envelope_and_an_fp16_accumulator_is_not():
    from aclnn_conformance.oracle.surface_norms import norm_bounds
    rng = np.random.default_rng(5)
    row = np.abs(rng.uniform(-6.0, 6.0, 1000)).astype(np.float16).astype(np.float64)
    found = norm_bounds(row.reshape(1, -1), 1, 1e-6, 0.0, 0.0)
    exact, rho = float(found["rstd"][0, 0]), float(found["rho"][0, 0])
    assert exact == pytest.approx(_rstd(list(row), 1e-6), rel=1e-14)
    for order in (row, row[::-1]):
        assert abs(_loop_rstd(order, 1e-6, np.float32) - exact) <= rho * exact
    with np.errstate(over="ignore"):
        assert abs(_loop_rstd(row, 1e-6, np.float16) - exact) > 10 * rho * exact
    # squares of fp16 values above 256 overflow fp16 but not float32: judged, finite
    big = np.full((1, 64), 300.0)
    found = norm_bounds(big, 1, 1e-6, 0.0, 0.0)
    assert not found["open"].any() and math.isclose(float(found["rstd"][0, 0]), 1 / 300.0, rel_tol=1e-9)
    with np.errstate(over="ignore"):
        assert math.isinf(float(np.float16(300.0) * np.float16(300.0)))


def test_slices_with_nan_or_infinity_are_open():
    result = _oracle(_rms_call("rms_norm", [[1.0, np.nan], [np.inf, 0.0], [1.0, 2.0]], [1.0, 1.0]))
    assert result.aux["yOut"]["unjudged"].tolist() == [[True, True], [True, True], [False, False]]
    assert result.aux["rstdOut"]["unjudged"][:, 0].tolist() == [True, True, False]


def test_a_one_ulp_and_a_two_ulp_rstd_on_hand_values():
    """A float32 rstd within the envelope passes, one far outside fails (by the judge)."""
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.backends.base import RunResult
    from aclnn_conformance.spec.registry import operator
    case = _rms_call("rms_norm", [[1.0, 2.0, 3.0, 4.0]], [1.0, 1.0, 1.0, 1.0])
    spec = operator("rms_norm").spec
    result = _oracle(case)
    for steps, outcome in ((1, "PASS"), (64, "FAIL")):
        storages = case.copy_storages()
        storages["yOut"][...] = result.views["yOut"]
        rstd = np.float32(result.views["rstdOut"][0, 0])
        for _ in range(steps):
            rstd = np.nextafter(rstd, np.float32(np.inf))
        storages["rstdOut"][...] = rstd
        assert judge(spec, case, "atlas-a2", "cann", RunResult(0, storages, workspace_size=0)).outcome == outcome


def test_torch_passes_every_value_case():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in KEYS:
        for case in value_cases(op):
            for product in PRODUCTS:
                assert judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED"), (op, case.case_id)


def test_each_mutant_is_killed_in_a_single_call_and_each_control_is_clean():
    """Each mutant fails some single value case, each control none (by the judge, call by call)."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in KEYS:
        found = getattr(MUTANT_SETS, op)
        kinds = {m.kind for m in found.mutants}
        assert {"eps-outside-root", "narrow-accumulation", "dropped-tail", "weight-ignored"} <= kinds, op
        assert ("rstd-as-root" in kinds) == (op != "inplace_add_rms_norm")
        assert ("addend-ignored" in kinds) == (op in ADDING)
        cases = value_cases(op)
        for mutant in found.mutants:
            assert any(judged(mutant(), c, "atlas-a2") == "FAIL" for c in cases), (op, mutant.kind)
        for control in found.controls:
            for c in cases:
                assert judged(control(), c, "atlas-a2") in ("PASS", "NOT_JUDGED"), (op, control.kind, c.case_id)


@pytest.mark.parametrize("op", KEYS)
def test_each_mutant_is_killed_and_each_control_clean_through_mutate(op):
    assert_gated_through_mutate(op, "ci", PRODUCTS)
