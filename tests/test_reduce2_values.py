"""The cumulative sum with flags (aclnnCumsumV2), the reductions of every element (aclnnMax,
aclnnMin), the truth reductions (aclnnAll, aclnnAny) and the products (aclnnProd, aclnnProdDim):
the oracle against hand computation (Python floats, fractions, per-element loops), the product
model's bound and what it leaves open, and each kind's mutants killed and controls clean on
single hand-made calls."""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import generated_kind as _kind, model_verdict as _verdict, oracle_output as _oracle

U = 2.0 ** -24


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _case(op: str, values, out_shape, attrs: dict, dtype=AclDataType.FLOAT,
          out_dtype: AclDataType | None = None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    out_dtype = out_dtype or dtype
    out = np.zeros(out_shape, numpy_dtype(out_dtype))
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(out, out_dtype)}, attrs=attrs)


# ---- aclnnCumsumV2: every flag setting ----

@pytest.mark.parametrize("exclusive,reverse,expected", [
    (False, False, [1, 3, 6, 10]), (True, False, [0, 1, 3, 6]),
    (False, True, [10, 9, 7, 4]), (True, True, [9, 7, 4, 0])])
def test_cumsum_v2_flags_by_hand(exclusive, reverse, expected):
    case = _case("cumsum_v2", [1, 2, 3, 4], (4,), {"dim": 0, "exclusive": exclusive, "reverse": reverse})
    want, aux = _oracle(case)
    assert want.tolist() == expected and not aux["unjudged"].any()


def test_cumsum_v2_bound_counts_the_terms_each_prefix_holds():
    # exclusive and reversed: element j sums the len - 1 - j terms after it; gamma of that count less one
    from aclnn_conformance.spec.surface_models import gamma, summation_bound
    x = [0.1, -0.2, 0.3, 0.4, -0.5]
    case = _case("cumsum_v2", x, (5,), {"dim": 0, "exclusive": True, "reverse": True})
    want, aux = _oracle(case)
    held = [float(np.float32(v)) for v in x]
    for j in range(5):
        after = held[j + 1:]
        exact = float(sum(Fraction(v) for v in after))
        assert aux["exact"][j] == pytest.approx(exact, abs=1e-15)
        hand = summation_bound(sum(abs(v) for v in after), len(after))
        assert aux["bound"][j] >= hand and aux["bound"][j] <= hand + abs(float(np.float32(exact)) - exact) + 1e-20
    assert gamma(0) == 0 and aux["bound"][4] == 0 and want[4] == 0    # the last: an empty prefix


@pytest.mark.parametrize("kind,attrs", [("exclusive-ignored", {"exclusive": True, "reverse": False}),
                                        ("reverse-ignored", {"exclusive": False, "reverse": True})])
def test_cumsum_v2_ignored_flags_are_killed_on_one_call_and_the_orders_pass(kind, attrs):
    case = _case("cumsum_v2", np.linspace(-3, 5, 24).reshape(2, 12), (2, 12), {"dim": 1, **attrs})
    assert _verdict(case, _kind("cumsum_v2", kind)().values(case)) == "FAIL"
    for control in ("sequential-control", "blocked-control"):
        assert _verdict(case, _kind("cumsum_v2", control)().values(case)) == "PASS"


# ---- aclnnMax, aclnnMin: every element ----

def test_max_and_min_of_every_element_by_hand():
    x = [[1.5, -2.0, 3.25], [0.5, -7.0, 2.0]]
    assert _oracle(_case("max", x, (), {}))[0].tolist() == 3.25
    assert _oracle(_case("min", x, (), {}))[0].tolist() == -7.0
    # NaN anywhere, or an empty input (the host code returns before the kernel): open
    assert _oracle(_case("max", [1.0, float("nan")], (), {}))[1]["unjudged"].all()
    assert _oracle(_case("min", np.zeros((0, 3)), (), {}))[1]["unjudged"].all()
    # a subnormal extreme is kept: flushing it fails on a product that keeps subnormals
    tiny = float(np.finfo(np.float32).smallest_normal) / 4
    case = _case("max", [-1.0, tiny, -3.0], (), {})
    assert _oracle(case)[0].tolist() == np.float32(tiny)
    assert _verdict(case, np.float32(0.0)) == "FAIL" and _verdict(case, np.float32(tiny)) == "PASS"


# ---- aclnnAll, aclnnAny ----

@pytest.mark.parametrize("op,expected", [("all", [False, True, True]), ("any", [True, True, False])])
def test_truths_by_hand(op, expected):
    x = [[0.0, 1.5, -2.0], [-2.0, 3.0, 0.25], [-0.0, 0.0, 0.0]]
    x[2] = [1.0, 1.0, 1.0] if op == "all" else x[2]
    want, aux = _oracle(_case(op, x, (3,), {"dim": [1], "keepdim": False}, out_dtype=AclDataType.BOOL))
    assert want.tolist() == expected and not aux["unjudged"].any()
    # every dim, kept as 1; an empty slice is true for every, false for some (the host code's fill)
    empty = _oracle(_case(op, np.zeros((2, 0)), (2,), {"dim": [1], "keepdim": False},
                          out_dtype=AclDataType.BOOL))
    assert empty[0].tolist() == [op == "all"] * 2 and not empty[1]["unjudged"].any()


@pytest.mark.parametrize("op", ["all", "any"])
def test_truths_leave_nan_and_subnormal_slices_open(op):
    tiny = float(np.finfo(np.float32).smallest_normal) / 4
    x = [[float("nan"), 1.0], [tiny, 0.0], [2.0, 0.0]]
    _, aux = _oracle(_case(op, x, (3,), {"dim": [-1], "keepdim": False}, out_dtype=AclDataType.BOOL))
    assert aux["unjudged"].tolist() == [True, True, False]


@pytest.mark.parametrize("op", ["all", "any"])
def test_truth_mutants_are_killed_on_one_call_and_the_control_passes(op):
    # a negative value read as false, and the other truth, both change a slice; NaN read as false does not
    x = [[-1.0, -2.0], [0.0, -3.0], [float("nan"), 0.0]]
    case = _case(op, x, (3,), {"dim": [1], "keepdim": False}, out_dtype=AclDataType.BOOL)
    for kind in ("positive-truth", "other-truth"):
        assert _verdict(case, _kind(op, kind)().values(case)) == "FAIL", kind
    assert _verdict(case, _kind(op, "nan-false-control")().values(case)) == "PASS"


# ---- products: the model ----

def _f32_product(values, order) -> float:
    acc = np.float32(1.0)
    for i in order:
        acc = np.float32(acc * np.float32(values[i]))
    return float(acc)


def test_product_bound_by_hand_and_every_order_inside_it():
    from aclnn_conformance.spec.surface_models import gamma
    rng = np.random.default_rng(5)
    x = (np.sign(rng.uniform(-1, 1, 300)) * np.exp2(rng.uniform(-0.2, 0.2, 300))).astype(np.float32)
    case = _case("prod", x, (), {"dtype": int(AclDataType.FLOAT)})
    want, aux = _oracle(case)
    exact = math.prod(Fraction(float(v)) for v in x)
    assert aux["exact"] == pytest.approx(float(exact), rel=1e-13)
    hand = (gamma(299) + gamma(300, 2.0 ** -53)) * abs(float(exact))
    assert aux["bound"] == pytest.approx(hand + abs(float(np.float32(float(exact))) - float(exact)), rel=1e-6)
    for order in (range(300), range(299, -1, -1), rng.permutation(300)):
        assert _verdict(case, np.float32(_f32_product(x, order))) == "PASS"
    # a product rounded to fp16 at every step is far outside it
    narrow = np.float16(1.0)
    for v in x:
        narrow = np.float16(np.float32(narrow) * np.float32(v))
    assert _verdict(case, np.float32(narrow)) == "FAIL"


@pytest.mark.parametrize("factors,expected,judged", [
    ([2.0, -0.0, 3.0], "-0", True),                  # a zero: the sign of the product of the signs
    ([float("inf"), -2.0], "-inf", True),            # an infinity: inf in every order
    ([float("inf"), 0.0], "nan", True),              # zero times infinity: NaN in every order
    ([float("nan"), 0.0, float("inf")], "nan", True),
    ([1e30, 1e30, 1e-30, 1e-30], None, False),       # some order overflows (1e30 * 1e30), another not
    ([0.0, 1e30, 1e30], None, False),                # an overflow then the zero: NaN in that order
    ([1e-30, 1e-30, 1e-30, 1e-30, 1e-30, float("inf")], None, False),   # an underflow to 0 times inf
    ([1e-30, 1e-30, 1e30, 1e30], None, False),       # some order leaves the normal range
    ([1e19, 1e19, 1e-19], "1e19", True)])            # 2^126 under float32's largest: every order fits
def test_product_special_values_and_what_is_open(factors, expected, judged):
    want, aux = _oracle(_case("prod", factors, (), {"dtype": int(AclDataType.FLOAT)}))
    assert bool(aux["unjudged"]) != judged
    if expected is not None:
        got = float(want)
        if expected == "nan":
            assert math.isnan(got)
        elif expected == "1e19":
            assert got == pytest.approx(1e19, rel=1e-6)
        else:
            assert got == float(expected) and math.copysign(1, got) == math.copysign(1, float(expected))


def test_product_along_a_dim_with_keepdim_integers_and_an_empty_input():
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
    want, aux = _oracle(_case("prod_dim", x, (1, 3), {"dim": 0, "keepDim": True, "dtype": int(AclDataType.FLOAT)}))
    assert want.tolist() == [[4.0, 10.0, 18.0]] and not aux["unjudged"].any()
    # int32 wraps as the device's int32 does: 65536 * 65536 * 3 = 3 * 2^32 = 0 (mod 2^32)
    ints = _case("prod_dim", [[65536, 65536, 3], [-7, 6, 5]], (2,),
                 {"dim": -1, "keepDim": False, "dtype": int(AclDataType.INT32)}, dtype=AclDataType.INT32)
    assert _oracle(ints)[0].tolist() == [0, -210]
    empty = _oracle(_case("prod", np.zeros((0, 4)), (), {"dtype": int(AclDataType.FLOAT)}))
    assert empty[0].tolist() == 1.0 and not empty[1]["unjudged"].any()


def test_product_fp16_is_the_cast_of_a_float32_product():
    # 1.0009765625^k products: float32 holds them, an fp16 accumulator rounds them away
    x = np.full(1000, 1.0 + 2.0 ** -10, np.float16)
    case = _case("prod", x, (), {"dtype": int(AclDataType.FLOAT16)}, dtype=AclDataType.FLOAT16)
    exact = float(Fraction(1 + Fraction(1, 1024)) ** 1000)
    want, _ = _oracle(case)
    assert float(want) == float(np.float16(np.float32(exact)))
    assert _verdict(case, np.float16(_f32_product(x, range(1000)))) == "PASS"
    assert _verdict(case, _kind("prod", "narrow-accumulation")().values(case)) == "FAIL"


@pytest.mark.parametrize("key", ["prod", "prod_dim"])
def test_product_mutants_are_killed_on_one_long_call_and_the_orders_pass(key):
    rng = np.random.default_rng(11)
    x = (np.sign(rng.uniform(-1, 1, (2, 1000))) * np.exp2(rng.uniform(-0.06, 0.06, (2, 1000))))
    attrs = {"dtype": int(AclDataType.BF16)}
    if key == "prod_dim":
        attrs.update({"dim": 1, "keepDim": False})
    case = _case(key, x, (2,) if key == "prod_dim" else (), attrs, dtype=AclDataType.BF16)
    for kind in ("narrow-accumulation", "dropped-tail"):
        assert _verdict(case, _kind(key, kind)().values(case)) == "FAIL", kind
    for kind in ("sequential-control", "pairwise-control", "reversed-control"):
        assert _verdict(case, _kind(key, kind)().values(case)) == "PASS", kind


def test_the_near_one_factors_keep_every_order_in_range():
    from aclnn_conformance.spec.surface_cases import value_cases
    for case in value_cases("prod", dtypes=("FLOAT",)):
        if case.case_id in ("finite-FLOAT", "long-FLOAT", "zeros-FLOAT"):
            _, aux = _oracle(case)
            assert not np.asarray(aux["unjudged"]).any(), case.case_id
    assert ml_dtypes.finfo(np.float16).smallest_normal == 2.0 ** -14


@pytest.mark.parametrize("key,call", [("prod_dim", "values-FLOAT16"), ("max", "subnormal-FLOAT")])
def test_a_flushed_subnormal_result_is_set_aside_where_the_product_leaves_flushing_open(key, call):
    # Ascend 950 may flush subnormals (spec/special_values.py), Atlas A2 keeps them
    from aclnn_conformance.oracle.surface import flush_subnormals, from_case
    from aclnn_conformance.spec.surface_cases import value_cases
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_models import standards_for
    case = next(c for c in value_cases(key) if c.case_id == call)
    outcomes = {}
    for product in ("ascend950", "atlas-a2"):
        result = from_case(case, "cann", product)
        want = np.asarray(result.views["out"])
        flushed = flush_subnormals(want)
        assert not np.array_equal(flushed.astype(np.float64), want.astype(np.float64))   # it has a subnormal
        outcomes[product] = compare(standards_for(key)["out"], flushed, want, result.aux["out"]).outcome
    assert outcomes == {"ascend950": "QUALITY_WARNING", "atlas-a2": "FAIL"}


@pytest.mark.parametrize("dtype", [AclDataType.FLOAT16, AclDataType.BF16])
def test_a_narrow_input_into_a_float_product_admits_the_kernels_rounding_and_the_float32_one(dtype):
    # Ascend 950 rounds the float32 product to the input's dtype before widening it, the others
    # cast the input to FLOAT first: both are correct, a product two of the input's ulps off is not
    from aclnn_conformance.spec.dtypes import numpy_dtype
    narrow = numpy_dtype(dtype)
    x = np.array([1.137, 0.77, 0.541, 0.5166, 1.313, 1.413]).astype(narrow)
    case = _case("prod", x, (), {"dtype": int(AclDataType.FLOAT)}, dtype=dtype, out_dtype=AclDataType.FLOAT)
    float32 = np.float32(_f32_product(x, range(6)))
    rounded = np.float32(float32.astype(narrow))
    assert float32 != rounded
    assert _verdict(case, float32) == "PASS" and _verdict(case, rounded) == "PASS"
    two_off = np.float32(float(rounded) * (1 + 2 * float(ml_dtypes.finfo(narrow).eps)))
    assert _verdict(case, two_off) == "FAIL"
