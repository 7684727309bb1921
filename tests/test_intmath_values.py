"""Floor division, remainder, integer shifts and AddV3 (spec/data/values/intmath.json): the oracle
against values worked by hand (Python integers and ``fractions``), the open elements where the
documents or the kernel's arithmetic leave a result free, and each entry's formula mutants killed and
controls clean on single calls."""
from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from aclnn_conformance.backends.mutants.surface_values import mutant_set
from aclnn_conformance.oracle.surface import from_case
from aclnn_conformance.oracle.surface_quotients import (floor_quotient_open, remainder_open,
                                                       shift_count_at_least_width)
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.surface_cases import build_case
from aclnn_conformance.spec.surface_compare import compare_class
from aclnn_conformance.spec.surface_values import value_entry

PRODUCT = "ascend950"    # where every entry here is value-judged (AddV3 and RemainderTensorTensor only there)


def _call(key: str, dtype: str, attrs: dict | None = None, **arrays):
    entry = value_entry(key)
    np_dtype = {"FLOAT": np.float32, "FLOAT16": np.float16, "INT8": np.int8, "INT32": np.int32,
                "UINT8": np.uint8, "INT64": np.int64, "INT16": np.int16}[dtype]
    tensors = {name: np.asarray(values, dtype=np_dtype) for name, values in arrays.items()}
    case = build_case(entry, key, "hand", tensors, AclDataType[dtype], attrs=attrs)
    result = from_case(case, "cann", PRODUCT)
    aux = result.aux[entry.output]
    unjudged = np.asarray(aux.get("unjudged", np.zeros(np.shape(result.views[entry.output]), bool)))
    return case, np.asarray(result.views[entry.output]), aux, unjudged


def _floor_fraction(a: float, b: float) -> int:
    return math.floor(Fraction(a) / Fraction(b))


def test_floor_division_of_floats_is_the_floor_of_the_quotient_and_ieee_at_a_zero_divisor():
    a = [-7.0, 7.25, 5.5, -5.5, 1.0, -1.0, 0.0, 1.0, 3.75]
    b = [2.0, -0.5, 2.0, 2.0, 0.0, 0.0, 0.0, -0.0, -1.5]
    _, out, _, unjudged = _call("floor_divide", "FLOAT", self=a, other=b)
    for i in (0, 1, 2, 3, 8):   # finite quotients away from an integer: judged, by Fraction
        assert not unjudged[i]
        assert out[i] == _floor_fraction(a[i], b[i])
    assert out[4] == np.inf and out[5] == -np.inf and np.isnan(out[6]) and out[7] == -np.inf
    assert not unjudged[4:8].any()    # IEEE: +-x/0 is +-inf, 0/0 NaN, floor of them themselves


def test_floor_division_opens_exact_and_near_integer_quotients_and_infinite_operands():
    a = np.array([6.0, 1.0, np.inf, -0.5, 7.25, 2.0 ** 24], np.float32)
    b = np.array([2.0, 0.1, 2.0, np.inf, -0.5, 3.0], np.float32)
    # 6/2 exact (a division one ulp low floors to 2); 1/0.1f = 9.99999985 rounds to 10 in float32;
    # inf/2: the formula's inf against torch's NaN; -0.5/inf: -0 against -1; 7.25/-0.5 = -14.5: judged;
    # 2^24/3: every float32 there is an integer
    assert floor_quotient_open(a, b).tolist() == [True, True, True, True, False, True]
    ints_a, ints_b = np.array([-7, 5, -128, 0], np.int8), np.array([2, 0, -1, 5], np.int8)
    assert floor_quotient_open(ints_a, ints_b).tolist() == [False, True, True, False]


def test_floor_division_of_integers_floors_and_fp16_goes_through_float32():
    a, b = [-7, 7, -7, 7, 0, 127, -100], [2, -2, -2, 2, 5, 3, -7]
    _, out, _, unjudged = _call("floor_divide", "INT8", self=a, other=b)
    assert out.tolist() == [x // y for x, y in zip(a, b)]      # Python's // is the floor
    assert not unjudged.any()
    _, out16, _, _ = _call("floor_divides", "FLOAT16", attrs={"other": -3}, self=[7.0, -7.0, 100.5])
    assert out16.tolist() == [_floor_fraction(7.0, -3), _floor_fraction(-7.0, -3), _floor_fraction(100.5, -3)]


def test_remainder_follows_the_divisors_sign():
    a = [5.5, -5.5, 5.5, -5.5, -0.5, 0.5, 2.5, -1.0]
    b = [2.0, 2.0, -2.0, -2.0, np.inf, -np.inf, 0.75, 3.0]
    _, out, aux, unjudged = _call("remainder_tensor_tensor", "FLOAT", self=a, other=b)
    for i in (0, 1, 2, 3, 6, 7):
        fa, fb = Fraction(a[i]), Fraction(b[i])
        want = fa - math.floor(fa / fb) * fb
        assert out[i] == float(want) and (want == 0 or (want > 0) == (fb > 0))
    assert out[4] == np.inf and out[5] == -np.inf     # -0.5 + inf: the divisor added, as torch does
    assert not unjudged[[0, 1, 2, 3, 4, 5, 6, 7]].any()
    assert aux["rtol"] == 0.001                        # the vendor's TTK number for float32


def test_remainder_opens_zero_divisors_and_multiples_and_integers_are_exact():
    assert remainder_open(np.array([6.0, 1.0, 5.5, 1e-4, 2.0 ** 24]), np.array([2.0, 0.0, 2.0, 3.0, 5.0])).tolist() == \
        [True, True, False, True, True]
    a, b = [-7, 7, -7, 7, 5, -1], [3, -3, -3, 3, 0, 3]
    _, out, _, unjudged = _call("remainder_tensor_tensor", "INT32", self=a, other=b)
    assert [int(v) for v, u in zip(out, unjudged) if not u] == [x % y for x, y in zip(a, b) if y != 0]
    assert unjudged.tolist() == [False, False, False, False, True, False]


def test_shifts_wrap_and_open_counts_beyond_the_width():
    x, s = [100, -100, 127, -128, 64, 1, 3], [1, 1, 1, 1, 2, 7, 8]
    _, out, _, unjudged = _call("left_shift", "INT8", self=x, shiftBits=s)
    wrapped = [((v << c) + 128) % 256 - 128 for v, c in zip(x, s)]   # two's complement by hand
    assert out[:6].tolist() == wrapped[:6]
    assert unjudged.tolist() == [False] * 6 + [True]
    _, out, _, unjudged = _call("left_shift", "INT8", self=[5], shiftBits=[-1])
    assert unjudged.all()                         # a negative count: no document says
    assert shift_count_at_least_width(np.array([31, 32], np.int32)).tolist() == [False, True]


def test_a_negative_right_shift_count_is_zero_and_signed_shifts_are_arithmetic():
    x, s = [-100, -1, 100, -7, 50], [2, 3, 2, -3, 9]
    _, out, _, unjudged = _call("right_shift", "INT8", input=x, shiftBits=s)
    assert out[:4].tolist() == [-25, -1, 25, -7]     # floor(-100 / 4); -1 stays; a count of -3 is 0
    assert unjudged.tolist() == [False, False, False, False, True]


def test_add_v3_is_the_scalar_plus_alpha_times_the_tensor_and_wraps_in_int8():
    _, out, _, _ = _call("add_v3", "INT8", attrs={"self": 3, "alpha": 2}, other=[100, 127, -128, 5])
    assert out.tolist() == [((3 + 2 * v) + 128) % 256 - 128 for v in [100, 127, -128, 5]]
    _, out, aux, _ = _call("add_v3", "FLOAT", attrs={"self": 3, "alpha": 2}, other=[0.25, -1.5])
    assert out.tolist() == [3.5, 0.0]
    assert float(np.max(aux["bound"])) == 0.0      # exact results: held exactly


# the entries' formula mutants on one call each, and their controls on the same call
SINGLE_CALLS = {
    "floor_divide": ("FLOAT", {}, {"self": [-7.0, 7.25, 5.5, -3.5], "other": [2.0, -0.5, 2.0, 2.0]}),
    "floor_divides": ("INT32", {"other": -3}, {"self": [7, -7, 8, 100]}),
    "remainder_tensor_tensor": ("FLOAT", {}, {"self": [5.5, -5.5, -1.0, 2.5], "other": [-2.0, 2.0, 3.0, 0.75]}),
    "remainder_scalar_tensor": ("INT32", {"self": 5}, {"other": [-3, 3, -2, 7]}),
    "left_shift": ("INT8", {}, {"self": [100, 3, -5, 1], "shiftBits": [1, 2, 3, 4]}),
    "right_shift": ("INT16", {}, {"input": [-100, -7, 33, -1], "shiftBits": [2, 1, 3, -2]}),
    "add_v3": ("FLOAT", {"self": 3, "alpha": 2}, {"other": [0.5, -1.25, 4.0, 7.0]}),
}


@pytest.mark.parametrize("key", sorted(SINGLE_CALLS))
def test_formula_mutants_die_and_controls_stay_clean_on_one_call(key):
    dtype, attrs, arrays = SINGLE_CALLS[key]
    case, expected, aux, _ = _call(key, dtype, attrs=attrs, **arrays)
    entry = value_entry(key)
    variants = {v["kind"]: v["role"] for v in entry.raw["variants"]}
    found = {cls.kind: cls for cls in (*mutant_set(key).mutants, *mutant_set(key).controls)
             if cls.kind in variants}
    assert set(found) == set(variants)
    for kind, cls in found.items():
        verdict = compare_class(entry.function_class, np.asarray(cls().values(case)), expected, aux)
        want = Outcome.FAIL if variants[kind] == "mutant" else Outcome.PASS
        assert verdict.outcome == want, (kind, verdict.detail)
