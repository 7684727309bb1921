"""The variances and standard deviations (aclnnVar, aclnnVarCorrection, aclnnStd, and aclnnVarMean
and aclnnStdMeanCorrection, which write the mean too) under the variance model: the oracle against rational arithmetic, the bound against hand computation, the
divisor n - correction <= 0, NaN and empty inputs, a correct device in other orders (two passes,
Welford's updates by a per-element loop) passing, and each generated mutant failing a single call."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.templates import reduced_shape
from aclnn_conformance.spec.tensor import TensorArg

U = 2.0 ** -24
OPS = ("var", "var_correction", "std", "var_mean", "std_mean_correction")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, dims, correction=1, keepdim=False, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.surface_values import value_entry
    red = value_entry(op).reduction
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    out = np.zeros(reduced_shape(x.shape, dims, keepdim, False), x.dtype)
    setting = bool(correction) if red.get("correction_flag") else correction
    outputs = {name: TensorArg.from_array(out.copy(), dtype) for name in value_entry(op).outputs}
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype), **outputs},
                attrs={red["dims"]: dims, red["keepdim"]: keepdim, red["correction"]: setting})


def _oracle(case: Case, name: str | None = None):
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_values import value_entry
    name = name or value_entry(case.op).output
    result = from_case(case, "cann")
    return np.asarray(result.views[name]), result.aux[name]


def _verdict(case: Case, actual, name: str | None = None) -> str:
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_models import standards_for
    from aclnn_conformance.spec.surface_values import value_entry
    name = name or value_entry(case.op).output
    want, aux = _oracle(case, name)
    got = np.asarray(actual).astype(want.dtype).reshape(want.shape)
    return compare(standards_for(case.op)[name], got, want, aux).outcome


def _variance(xs, correction) -> Fraction:
    """The document's formula in rational arithmetic: the mean, the squared deviations, the divisor."""
    xs = [Fraction(float(x)) for x in xs]
    mean = sum(xs) / len(xs)
    return sum((x - mean) ** 2 for x in xs) / (len(xs) - correction)


# ---- the oracle by hand ----

def test_variances_and_deviations_by_rational_arithmetic():
    xs = [1.0, 2.0, 3.0, 4.5, -0.25]
    for correction in (0, 1, 3):
        want, aux = _oracle(_call("var_correction", xs, [0], correction))
        assert float(aux["exact"]) == pytest.approx(float(_variance(xs, correction)), rel=1e-15)
        assert float(want) == float(np.float32(float(_variance(xs, correction))))
        want, aux = _oracle(_call("std", xs, [0], correction))
        assert float(aux["exact"]) == pytest.approx(math.sqrt(_variance(xs, correction)), rel=1e-15)
    # aclnnVar's unbiased flag: n - 1 when true, n when false
    assert float(_oracle(_call("var", xs, [0], 1))[1]["exact"]) == pytest.approx(float(_variance(xs, 1)))
    assert float(_oracle(_call("var", xs, [0], 0))[1]["exact"]) == pytest.approx(float(_variance(xs, 0)))


def test_dims_keepdim_and_every_dim():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) ** 1.5
    want, _ = _oracle(_call("var_correction", x, [0, -1], 1, keepdim=True))
    assert want.shape == (1, 3, 1)
    for j in range(3):
        assert float(want[0, j, 0]) == float(np.float32(float(_variance(x[:, j, :].ravel(), 1))))
    whole, _ = _oracle(_call("std", x, [], 1))
    assert float(whole) == float(np.float32(math.sqrt(_variance(x.ravel(), 1))))


def test_nan_infinities_empty_and_the_divisor_at_or_below_zero():
    want, aux = _oracle(_call("var_correction", [[1.0, np.nan, 2.0], [1.0, np.inf, 2.0], [1.0, 2.0, 4.0]], [1], 1))
    assert np.isnan(want[0]) and np.isnan(want[1]) and np.isfinite(want[2]) and not aux["unjudged"].any()
    empty, _ = _oracle(_call("var", np.zeros((0, 3)), [0], 1))
    assert empty.shape == (3,) and np.isnan(empty).all()
    # n = 1 with a correction of 1: 0/0, NaN (the host code's fill too)
    one, aux = _oracle(_call("var", [[5.0], [6.0]], [1], 1))
    assert np.isnan(one).all() and not aux["unjudged"].any()
    # n = 2 <= 3: infinity where the values differ; a constant slice is open (the host code fills
    # infinity, the formula gives 0 * inf, NaN)
    two, aux = _oracle(_call("std", [[1.0, 2.0], [3.0, 3.0]], [1], 3))
    assert np.isinf(two[0]) and two[0] > 0 and list(aux["unjudged"]) == [False, True]


def test_squares_that_may_overflow_are_left_open():
    big = float(np.finfo(np.float32).max) / 4
    _, aux = _oracle(_call("var_correction", [[big, -big, 0.0], [1.0, 2.0, 3.0]], [1], 1))
    assert list(aux["unjudged"]) == [True, False]


def test_both_outputs_of_var_mean_and_std_mean_correction_by_hand():
    xs = [[1.0, 2.0, 3.0, 4.5, -0.25], [7.0, 7.0, 7.0, 7.0, 7.5]]
    for op, primary, root in (("var_mean", "varOut", False), ("std_mean_correction", "stdOut", True)):
        case = _call(op, xs, [1], 1)
        for i, row in enumerate(xs):
            want = _variance(row, 1)
            assert float(_oracle(case, primary)[1]["exact"][i]) == pytest.approx(
                math.sqrt(want) if root else float(want), rel=1e-15)
            assert float(_oracle(case, "meanOut")[0][i]) == float(np.float32(float(sum(map(Fraction, row)) / 5)))
    # a slice holding an infinity: the deviation is NaN, the mean open (a sum gives inf, Welford NaN)
    case = _call("var_mean", [[1.0, np.inf, 2.0], [1.0, 2.0, 3.0]], [1], 1)
    assert np.isnan(_oracle(case, "varOut")[0][0]) and list(_oracle(case, "meanOut")[1]["unjudged"]) == [True, False]
    # n - correction <= 0 with n > 1: open (Ascend 950's kernel, not a host fill); the mean judged
    case = _call("std_mean_correction", [[1.0, 2.0], [3.0, 5.0]], [1], 2)
    assert _oracle(case, "stdOut")[1]["unjudged"].all() and not _oracle(case, "meanOut")[1]["unjudged"].any()
    empty = _call("var_mean", np.zeros((0, 3)), [0], 1)
    assert np.isnan(_oracle(empty, "varOut")[0]).all() and np.isnan(_oracle(empty, "meanOut")[0]).all()


def test_a_mean_output_one_fp16_step_off_fails():
    x = np.linspace(-3, 5, 40).astype(np.float16).reshape(2, 20)
    case = _call("var_mean", x, [1], 1, dtype=AclDataType.FLOAT16)
    want, _ = _oracle(case, "meanOut")
    assert _verdict(case, want, "meanOut") == "PASS"
    assert _verdict(case, np.nextafter(want, np.float16(np.inf)), "meanOut") == "FAIL"


# ---- the bound ----

def test_the_bound_by_hand():
    """Two terms 1 and 3, correction 0: mean 2, D = 2, V = 1. The mean's error E is mean_bound of
    the sum 4 (magnitudes 4, gamma_1 * 4 of summation error); the two-pass bound is [n E^2 +
    gamma_7 (D + n E^2)] / 2 plus the division's 3u(1+u) of the result; Welford's is larger here:
    gamma_8 * 3 running error in 2 E_W sqrt(2 n D) + n E_W^2."""
    from aclnn_conformance.oracle.surface_variance import deviation_bound
    from aclnn_conformance.spec.surface_models import gamma, mean_bound, summation_bound
    e = float(mean_bound(4.0, summation_bound(4.0, 2), 2))
    two_pass = 2 * e * e + float(gamma(7)) * (2 + 2 * e * e)
    run = float(gamma(8)) * 3
    welford = 2 * run * math.sqrt(8) + 2 * run * run
    welford += float(gamma(7)) * (2 + welford)
    assert float(deviation_bound(2.0, 2, e, 3.0)) == pytest.approx(max(two_pass, welford), rel=1e-12)
    _, aux = _oracle(_call("var_correction", [1.0, 3.0], [0], 0))
    assert float(aux["bound"]) >= max(two_pass, welford) / 2 + 3 * U * 1.0


def test_a_result_at_the_bound_passes_and_beyond_it_fails():
    rng = np.random.default_rng(3)
    x = rng.uniform(-6, 6, (4, 32)).astype(np.float32)
    case = _call("var_correction", x, [1], 1)
    want, aux = _oracle(case)
    exact, bound = np.asarray(aux["exact"]), np.asarray(aux["bound"])
    inside = (exact + 0.9 * (bound - np.absolute(want.astype(np.float64) - exact))).astype(np.float32)
    assert _verdict(case, inside) == "PASS"
    assert _verdict(case, (exact + 1.1 * bound).astype(np.float32)) == "FAIL"


def test_a_float16_result_is_the_cast_of_a_float32_one():
    x = np.linspace(-3, 5, 40).astype(np.float16)
    case = _call("std", x, [0], 1, dtype=AclDataType.FLOAT16)
    want, _ = _oracle(case)
    f32 = np.sqrt(np.float32(float(_variance(x, 1))))
    assert want.dtype == np.float16 and want == f32.astype(np.float16)
    assert _verdict(case, want) == "PASS"
    assert _verdict(case, np.nextafter(want, np.float16(np.inf))) == "FAIL"


def test_a_constant_slice_whose_mean_rounds_passes_with_its_tiny_root():
    """Ten copies of float32(0.1): their float32 sum is not 10 x 0.1, so a two-pass device's mean
    differs from each value and its variance is a tiny positive number; the root of that is far
    above 0 in relative terms and inside the bound (the root of V + B)."""
    x = np.full((1, 10), 0.1, np.float32)
    total = np.float32(0)
    for v in x[0]:
        total = np.float32(total + v)
    mean = np.float32(total / np.float32(10))
    d = np.float32(x[0, 0] - mean)
    assert d != 0
    variance = np.float32(np.float32(10) * np.float32(d * d)) / np.float32(9)
    for op in ("std", "std_mean_correction"):
        case = _call(op, x, [1], 1)
        assert float(_oracle(case)[1]["exact"][0]) == 0.0
        assert _verdict(case, np.array([np.sqrt(variance)], np.float32)) == "PASS"
        assert _verdict(case, np.array([1e-3], np.float32)) == "FAIL"


# ---- correct devices in other orders, by per-element loops ----

def _welford(xs, correction) -> np.float32:
    mean, m2 = np.float32(0), np.float32(0)
    for k, x in enumerate(xs, start=1):
        x = np.float32(x)
        delta = np.float32(x - mean)
        mean = np.float32(mean + np.float32(delta / np.float32(k)))
        m2 = np.float32(m2 + np.float32(delta * np.float32(x - mean)))
    return np.float32(m2 / np.float32(len(xs) - correction))


def _two_pass_backwards(xs, correction) -> np.float32:
    total = np.float32(0)
    for x in reversed(xs):
        total = np.float32(total + np.float32(x))
    mean = np.float32(total / np.float32(len(xs)))
    squares = np.float32(0)
    for x in reversed(xs):
        d = np.float32(np.float32(x) - mean)
        squares = np.float32(squares + np.float32(d * d))
    return np.float32(squares / np.float32(len(xs) - correction))


@pytest.mark.parametrize("offset", [0.0, 4096.0])
def test_welford_and_a_backwards_two_pass_pass(offset):
    rng = np.random.default_rng(11)
    x = (rng.uniform(-6, 6, (3, 200)) + offset).astype(np.float32)
    case = _call("var_correction", x, [1], 1)
    for device in (_welford, _two_pass_backwards):
        got = np.array([device(row, 1) for row in x], np.float32)
        assert _verdict(case, got) == "PASS", device.__name__
    root = _call("std", x, [1], 1)
    assert _verdict(root, np.sqrt(np.array([_welford(row, 1) for row in x], np.float32))) == "PASS"


def test_the_one_pass_formula_fails_where_the_mean_is_large():
    """E[x^2] - E[x]^2 in float32 on 64 values about 4096: Sigma x^2 ~ 1.1e9, whose float32 ulp is
    128, against a sum of squared deviations of about 800."""
    rng = np.random.default_rng(5)
    x = (rng.uniform(-6, 6, (4, 64)) + 4096.0).astype(np.float32)
    case = _call("var_correction", x, [1], 1)
    got = []
    for row in x:
        s, q = np.float32(0), np.float32(0)
        for v in row:
            s, q = np.float32(s + v), np.float32(q + np.float32(v * v))
        mean = np.float32(s / np.float32(64))
        got.append(np.float32((np.float32(q / np.float32(64)) - np.float32(mean * mean)) * np.float32(64 / 63)))
    assert _verdict(case, np.array(got, np.float32)) == "FAIL"


# ---- the generated mutants and controls on single calls ----

@pytest.fixture
def hand_built():
    """The hand-built records (every call valid): the values judged apart from the interface."""
    from aclnn_conformance.spec import registry
    from aclnn_conformance.spec.surface_records import hand_built_records
    before = registry.operators()
    found = dict(before)
    for key, record in hand_built_records().items():
        for other in [k for k, r in found.items() if r.api == record.api]:
            del found[other]
        found[key] = record
    registry._found = found
    yield
    registry._found = before


def _kills(mutant, case) -> bool:
    return _verdict(case, mutant().values(case)) == "FAIL"


@pytest.mark.parametrize("op", OPS)
def test_each_mutant_fails_a_single_call_and_each_control_passes_every_one(hand_built, op):
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.spec.surface_cases import value_cases
    found = mutant_set(op)
    kinds = {m.kind: m for m in found.mutants}
    assert {"biased-divisor", "correction-ignored", "mean-not-subtracted", "narrow-accumulation",
            "wrong-axis"} <= set(kinds)
    cases = {c.case_id: c for c in value_cases(op)}
    assert _kills(kinds["biased-divisor"], cases["values-FLOAT"])
    assert _kills(kinds["correction-ignored"], cases["attrs1-FLOAT"])     # another correction
    assert not _kills(kinds["correction-ignored"], cases["values-FLOAT"])
    assert _kills(kinds["mean-not-subtracted"], cases["offset-FLOAT"])
    assert _kills(kinds["mean-not-subtracted"], cases["values-FLOAT16"])
    assert _kills(kinds["narrow-accumulation"], cases["long-FLOAT16"])
    assert not _kills(kinds["narrow-accumulation"], cases["long-FLOAT"])  # a float32 call is right
    assert _kills(kinds["wrong-axis"], cases["twin-FLOAT"])
    if op in ("var_mean", "std_mean_correction"):   # the mean output: judged through the whole call
        from aclnn_conformance.judging.judge import judge
        from aclnn_conformance.spec.registry import operator
        run = lambda backend, case: judge(operator(op).spec, case, "ascend950", "cann",
                                          backend.run(case, "ascend950"))
        wrong = run(kinds["mean-n-minus-one"](), cases["values-FLOAT"])
        assert wrong.outcome == "FAIL" and wrong.verdicts["meanOut"] == "FAIL"
        right = next(c for c in found.controls if c.kind == "mean-float32-control")
        assert all(run(right(), c).outcome == "PASS" for c in cases.values())
    assert {c.kind for c in found.controls} >= {"two-pass-control", "kernel-order-control",
                                                "welford-control", "reversed-control",
                                                "narrow-mean-control"}
    for control in found.controls:
        outcomes = {cid: _verdict(c, control().values(c)) for cid, c in cases.items()}
        assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, outcomes)


def test_torch_passes_every_value_call(hand_built):
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in OPS:
        for case in value_cases(op):
            j = judge(operator(op).spec, case, "atlas-a2", "cann", TorchBackend().run(case, "atlas-a2"))
            assert j.outcome == "PASS" and j.values_judged, (op, case.case_id, j.detail)


def test_the_records_take_the_variance_model():
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.surface_values import value_entry
    from aclnn_conformance.spec.standards_surface import ROUNDED
    for op in OPS:
        record = operator(op)
        assert record.arithmetic_model.operator == op and "Welford" in record.arithmetic_model.order
        outputs = value_entry(op).outputs
        assert all(record.spec.standards["cann"][name] == ROUNDED for name in outputs), op
        assert len(outputs) == (2 if op in ("var_mean", "std_mean_correction") else 1)
