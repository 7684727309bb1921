"""The precision standards judge what they say they judge."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.precision import (compare_bit_exact, compare_float_ulp, compare_mere_mare,
                            compare_quant_codes, standard)


def test_bit_exact_sees_one_bit_and_names_it():
    a = np.arange(10, dtype=np.float32)
    b = a.copy()
    b.view(np.uint32)[3] ^= 1
    v = compare_bit_exact(b, a)
    assert v.outcome == "FAIL" and v.metrics["mismatched"] == 1 and "[3]" in v.detail
    assert compare_bit_exact(a, a.copy()).outcome == "PASS"
    # -0.0 and +0.0 are different bits
    assert compare_bit_exact(np.array([-0.0], np.float32), np.array([0.0], np.float32)).outcome == "FAIL"


def test_float_ulp_bands_per_dtype():
    std = standard("float-ulp")
    x = np.array([1.0, 3.0, -0.5], np.float32)
    up = lambda v, k: (v.view(np.int32) + k).view(np.float32)  # k ulps away (positive values)
    assert compare_float_ulp(x, x, std).outcome == "PASS"
    y = x.copy(); y[:2] = up(x[:2], 1)
    assert compare_float_ulp(y, x, std).outcome == "PASS"            # 1 ulp: fp32 warning band
    y[:2] = up(x[:2], 3)
    assert compare_float_ulp(y, x, std).outcome == "QUALITY_WARNING"  # 3 ulps: inside the error band
    y[:2] = up(x[:2], 5)
    assert compare_float_ulp(y, x, std).outcome == "FAIL"             # 5 ulps
    h = np.array([1.0, 2.0], np.float16)
    h1 = (h.view(np.int16) + 1).view(np.float16)
    assert compare_float_ulp(h1, h, std).outcome == "QUALITY_WARNING"
    b = np.array([1.0], ml_dtypes.bfloat16)
    b2 = (b.view(np.int16) + 2).view(ml_dtypes.bfloat16)
    assert compare_float_ulp(b2, b, std).outcome == "FAIL"


def test_float_ulp_nan_and_inf_must_sit_where_the_golden_has_them():
    std = standard("float-ulp")
    g = np.array([np.nan, np.inf, 1.0], np.float32)
    assert compare_float_ulp(g.copy(), g, std).outcome == "PASS"
    assert compare_float_ulp(np.array([0.0, np.inf, 1.0], np.float32), g, std).outcome == "FAIL"
    assert compare_float_ulp(np.array([np.nan, -np.inf, 1.0], np.float32), g, std).outcome == "FAIL"


def test_mere_mare_limits():
    std = standard("mere-mare")
    t = std.limit("float32", "T")
    g = np.linspace(1, 2, 1000).astype(np.float32)
    assert compare_mere_mare(g * np.float32(1 + t / 4), g, std).outcome == "PASS"
    assert compare_mere_mare(g * np.float32(1 + t * 0.75), g, std).outcome == "QUALITY_WARNING"
    assert compare_mere_mare(g * np.float32(1 + 2 * t), g, std).outcome == "FAIL"


def test_quant_codes_accept_only_near_ties_and_zero_blocks():
    std = standard("quant-code@2")
    q = (np.arange(256) / 128 - 1).astype(np.float32)      # exact steps of 1/128
    mid = np.float32((q[20] + q[21]) / 2)
    above_mid = np.nextafter(mid, np.float32(1))            # one ulp past the midpoint: 21 is nearest
    x = np.array([q[10], mid, above_mid, q[30] + np.float32(1e-3)], np.float32)
    expected = np.array([10, 20, 21, 31], np.uint8)
    zero = np.zeros(4, bool)
    assert compare_quant_codes(expected, expected, x, q, zero, std).outcome == "PASS"
    # a near tie may go either way: x itself may differ by an ulp in another implementation
    near = np.array([10, 20, 20, 31], np.uint8)
    v = compare_quant_codes(near, expected, x, q, zero, std)
    assert v.outcome == "PASS" and v.metrics["near_ties_accepted"] == 1
    # an exact tie belongs to the lower index
    assert compare_quant_codes(np.array([10, 21, 21, 31], np.uint8), expected, x, q, zero,
                               std).outcome == "FAIL"
    # a clear miss, in either direction (a code nearer than the oracle's is no excuse: the sign fix
    # may move the code away from the nearest entry)
    assert compare_quant_codes(np.array([11, 20, 21, 31], np.uint8), expected, x, q, zero,
                               std).outcome == "FAIL"
    assert compare_quant_codes(np.array([10, 20, 21, 30], np.uint8), expected, x, q, zero,
                               std).outcome == "FAIL"
    # equal map entries are interchangeable
    dup = q.copy(); dup[11] = dup[10]
    assert compare_quant_codes(np.array([11, 20, 21, 31], np.uint8), expected, x, dup, zero,
                               std).outcome == "PASS"
    # in a block whose absmax is 0 every code dequantizes to 0
    assert compare_quant_codes(np.array([11, 20, 21, 31], np.uint8), expected, x, q,
                               np.array([True, False, False, False]), std).outcome == "PASS"


def test_model_bound_judges_each_element_against_its_own_bound():
    from aclnn_conformance.spec.precision import compare_model_bound
    std = standard("model-bound@1")
    expected = np.array([1.0, 2.0, 3.0, np.inf, np.nan], np.float32)
    bound = np.array([0.0, 0.5, 1e-3, 0.0, 0.0])
    ok = compare_model_bound(np.array([1.0, 2.5, 3.0, np.inf, np.nan], np.float32), expected, bound, std)
    assert ok.outcome == "PASS" and ok.metrics["max_bound_fraction"] == 1.0
    over = compare_model_bound(np.array([1.0, 2.5, 3.01, np.inf, np.nan], np.float32), expected, bound, std)
    assert over.outcome == "FAIL" and over.metrics["beyond_bound"] == 1
    exact_only = compare_model_bound(np.array([np.nextafter(np.float32(1), np.float32(2)), 2, 3, np.inf,
                                               np.nan], np.float32), expected, bound, std)
    assert exact_only.outcome == "FAIL"  # a zero bound demands the oracle's value
    sign = compare_model_bound(np.array([1.0, 2.0, 3.0, -np.inf, np.nan], np.float32), expected, bound, std)
    assert sign.outcome == "FAIL" and sign.metrics["nan_inf_mismatched"] == 1


# ---- the arithmetic model and the standards derived from it ----

def test_registry_keeps_every_version_and_names_the_newest():
    from aclnn_conformance.spec.precision import LATEST, STANDARDS
    assert all(key == f"{s.name}@{s.version}" for key, s in STANDARDS.items())
    assert standard("quant-code@2").kind == "quant_code" and standard("model-bound@1").kind == "model_bound"
    assert standard("quant-code").version == "3" and standard("model-bound").version == "3"
    assert standard("model-bound@2").limits["any"]["bias_share"] == 0.25
    assert LATEST["float-ulp"] == "float-ulp@1"
    for name in ("model-bound@2", "quant-code@3"):
        assert "arithmetic model" in standard(name).description + standard(name).source


def test_arithmetic_model_names_the_freedoms_and_the_cast_per_product():
    from aclnn_conformance.spec.registry import operator
    model = operator("apply_adam_w_quant").arithmetic_model
    assert set(model.faithful) == {"sqrt", "pow", "divide"}
    assert model.reciprocal_division and model.fused_multiply_add
    for product in ("ascend950", "atlas-a3", "atlas-a2"):
        assert model.cast_mode(product, "float16") == "round-to-nearest-even"
        assert model.cast_mode(product, "bfloat16") == "round-to-nearest-even"
    import pytest
    with pytest.raises(KeyError):
        model.cast_mode("atlas-inference", "float16")     # no kernel there, no cast to speak of
    assert any("bias" in text for text in model.may_not)
    assert operator("weight_quant_preprocess").arithmetic_model.faithful == ()


def _up(x: np.ndarray, k: int) -> np.ndarray:
    return (x.view(np.int32) + k).view(np.float32)       # k ulps away (positive values)


def test_model_bound_2_float32_per_element_and_bias():
    from aclnn_conformance.spec.precision import compare_model_envelope
    std = standard("model-bound@2")
    e = np.linspace(1.0, 1.9, 4096).astype(np.float32)
    ulp = np.spacing(e).astype(np.float64)
    bound = 2 * ulp                                      # two ulps of room on every element
    assert compare_model_envelope(e.copy(), e, bound, None, std).outcome == "PASS"
    rng = np.random.default_rng(0)
    noisy = _up(e.copy(), 0) + rng.choice([-1, 0, 1], e.size).astype(np.float32) * np.spacing(e)
    assert compare_model_envelope(noisy, e, bound, None, std).outcome == "PASS"
    shifted = _up(e.copy(), 1)                           # one ulp on every element: within each bound
    v = compare_model_envelope(shifted, e, bound, None, std)
    assert v.outcome == "FAIL" and v.metrics["beyond_bound"] == 0 and "systematic" in v.detail
    assert v.metrics["mean_signed_error"] == 0.5
    # the same shift is what one per-call scalar may cause: allowed when the bound says so
    assert compare_model_envelope(shifted, e, bound, None, std, scalar_share=ulp).outcome == "PASS"
    # ... and so is it where all elements are one evaluation repeated
    assert compare_model_envelope(shifted, e, bound, None, std,
                                  evaluation=np.zeros(e.size, int)).outcome == "PASS"
    over = _up(e.copy(), 0)
    over[7] = _up(e[7:8].copy(), 3)[0]
    v = compare_model_envelope(over, e, bound, None, std)
    assert v.outcome == "FAIL" and v.metrics["beyond_bound"] == 1 and "[7]" in v.detail
    exact = np.zeros(e.size)                             # bound 0: the oracle's value exactly
    assert compare_model_envelope(_up(e.copy(), 1), e, exact, None, std).outcome == "FAIL"


def test_model_bound_2_casts_round_to_nearest_even_unless_a_midpoint_is_within_reach():
    from aclnn_conformance.spec.precision import compare_model_envelope
    std = standard("model-bound@2")
    spacing = 2.0 ** -10                                  # float16 spacing in [1, 2)
    for dtype in (np.float16, ml_dtypes.bfloat16):
        s = spacing if dtype == np.float16 else 2.0 ** -7
        tie = np.array([1 + s / 2], np.float32)           # exactly between 1 and 1 + s
        even, odd = np.array([1.0], dtype), np.array([1 + s], dtype)
        assert compare_model_envelope(even, even, np.zeros(1), tie, std).outcome == "PASS"
        assert compare_model_envelope(odd, even, np.zeros(1), tie, std).outcome == "FAIL"
        near = np.array([1 + s / 2 - s / 16], np.float32)  # s/16 below the midpoint
        assert compare_model_envelope(odd, even, np.array([s / 8]), near, std).outcome == "PASS"
        assert compare_model_envelope(odd, even, np.array([s / 32]), near, std).outcome == "FAIL"
        two_away = np.array([1 + 2 * s], dtype)
        assert compare_model_envelope(two_away, even, np.array([s / 8]), near, std).outcome == "FAIL"


def test_quant_code_3_accepts_the_codes_of_the_envelope_only():
    from aclnn_conformance.spec.precision import compare_quant_code_envelope
    std = standard("quant-code@3")
    q = (np.arange(256) / 128 - 1).astype(np.float32)
    expected = np.array([10, 20, 30, 127], np.uint8)
    lo = np.array([10, 19, 30, 127], np.uint8)             # element 1: x may lie on either side
    hi = np.array([11, 20, 30, 127], np.uint8)             # element 2: x exact (a tie judged)
    zero = np.array([False, False, False, True])
    ok = compare_quant_code_envelope(np.array([11, 19, 30, 3], np.uint8), expected, q, zero, lo, hi, std)
    assert ok.outcome == "PASS" and ok.metrics["envelope_codes_accepted"] == 2
    assert ok.metrics["zero_block_codes_accepted"] == 1
    bad = compare_quant_code_envelope(np.array([10, 20, 31, 127], np.uint8), expected, q, zero, lo, hi, std)
    assert bad.outcome == "FAIL" and bad.metrics["mismatched"] == 1 and "[2]" in bad.detail
    two_off = compare_quant_code_envelope(np.array([12, 20, 30, 127], np.uint8), expected, q, zero, lo, hi, std)
    assert two_off.outcome == "FAIL"


def test_every_operator_states_its_arithmetic_model():
    """The model-derived standards cite the operator's arithmetic model, so every operator's record
    states one (a status-only record, whose values are not judged, says why it has none), and a
    product named in it is one of the suite's products."""
    from aclnn_conformance.spec.precision import ArithmeticModel
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.operator import Absent
    from aclnn_conformance.spec.registry import operators
    judged = 0
    for op, record in operators().items():
        model = record.arithmetic_model
        if isinstance(model, Absent) and not record.spec.values_judged:
            assert model.reason, op   # a status-only record says why it has no model
            continue
        assert isinstance(model, ArithmeticModel), op
        judged += 1
        assert model.operator == op and model.order and model.source
        assert set(model.final_cast) <= set(PRODUCT_IDS)
    assert judged >= 5


def test_model_bound_3_cast_rule_per_product_and_the_lean():
    """model-bound@3 takes the tie rule of the product's cast: at an exact tie (bound 0) "even"
    accepts only the even neighbour, "either" both; the lean the oracle derives may move every
    element alike, the rest of the bound may not."""
    from aclnn_conformance.spec.precision import cast_ties, compare_model_envelope
    from aclnn_conformance.spec.registry import operator
    v2, v1 = operator("apply_adam_w_v2").arithmetic_model, operator("apply_adam_w").arithmetic_model
    std = standard("model-bound@3")
    assert std.kind == "model_envelope" and std.limits["any"]["bias_share"] == 0
    assert cast_ties(v2, "atlas-a2", "bfloat16") == "either"
    assert cast_ties(v2, "ascend950", "bfloat16") == "even"
    assert cast_ties(v2, "atlas-a3", "float16") == "even"
    assert cast_ties(v1, "ascend950", "bfloat16") == "even"
    s = 2.0 ** -7
    tie = np.array([1 + s / 2, -(1 + s / 2)], np.float32)
    even = np.array([1.0, -1.0], ml_dtypes.bfloat16)
    away = np.array([1 + s, -(1 + s)], ml_dtypes.bfloat16)
    zero = np.zeros(2)
    assert compare_model_envelope(away, even, zero, tie, std, ties="even").outcome == "FAIL"
    assert compare_model_envelope(away, even, zero, tie, std, ties="either").outcome == "PASS"
    e = np.linspace(1.0, 1.9, 4096).astype(np.float32)
    ulp = np.spacing(e).astype(np.float64)
    shifted = _up(e.copy(), 1)
    v = compare_model_envelope(shifted, e, 4 * ulp, None, std)
    assert v.outcome == "FAIL" and v.metrics["beyond_bound"] == 0 and v.metrics["bias_limit"] < 0.05
    assert compare_model_envelope(shifted, e, 4 * ulp, None, std, scalar_share=ulp).outcome == "PASS"


def test_model_bound_3_fails_a_two_ulp_float32_var_bias_in_one_call():
    """A shift of two float32 ulps on every var element stays inside each element's bound, and one
    call of ApplyAdamWV2 (on every product) and of ApplyAdamW fails it by the bias check."""
    from aclnn_conformance.oracle.cases import oracle_result
    from aclnn_conformance.spec.precision import compare_model_envelope
    from aclnn_conformance.suites.calls import apply_adam_w as v1_calls
    from aclnn_conformance.suites.calls import apply_adam_w_v2 as v2_calls
    std = standard("model-bound@3")
    checks = [(v2_calls._vendor_st_call((1000,), "float32", 500, False, False), p)
              for p in ("atlas-a2", "atlas-a3", "ascend950")]
    checks.append((v1_calls._vendor_golden_call("float32", False, False, 1000, 101), "ascend950"))
    for case, product in checks:
        o = oracle_result(case, "cann", product)
        env = o.aux["varRef"]["envelope"]
        want = np.asarray(o.views["varRef"])
        assert compare_model_envelope(want.copy(), want, env["bound"], env["unrounded"], std,
                                      env["scalar_share"], env["evaluation"]).outcome == "PASS"
        two_up = np.nextafter(np.nextafter(want, np.float32(np.inf)), np.float32(np.inf))
        v = compare_model_envelope(two_up, want, env["bound"], env["unrounded"], std,
                                   env["scalar_share"], env["evaluation"])
        assert v.outcome == "FAIL" and v.metrics["beyond_bound"] == 0, (case.case_id, product, v.metrics)
        assert "systematic" in v.detail
