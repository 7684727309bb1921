"""The aclnnApplyAdamW oracle against hand-computed values, the notes' golden figures for the
document's example, and its model bound against an independently written kernel order."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.oracle.apply_adam_w import apply_adam_w

F32, BF16 = np.float32, ml_dtypes.bfloat16


def _call(dtype=F32, var=1.0, m=0.0, v=0.0, grad=1.0, mgn=None, b1p=1.0, b2p=1.0, lr=0.5, wd=0.5,
          b1=0.5, b2=0.25, eps=0.0, **kw):
    arr = lambda x: np.asarray([x], np.float64).astype(dtype)   # noqa: E731
    return apply_adam_w(arr(var), arr(m), arr(v), arr(b1p), arr(b2p), arr(lr), arr(wd), arr(b1),
                        arr(b2), arr(eps), arr(grad), None if mgn is None else arr(mgn), **kw)


def test_one_step_by_hand():
    """m1 = 0*0.5 - (0.5-1)*1 = 0.5; v1 = 0 - ((0.25-1)*1)*1 = 0.75; var_t = 1*(1-0.25) = 0.75;
    denom = sqrt(0.75/(1-0.25)) + 0 = 1; var = 0.75 + 0.5*(0.5/(0.5-1))/1 = 0.25."""
    out = _call()
    assert (out["var"][0], out["m"][0], out["v"][0]) == (0.25, 0.5, 0.75)


def test_maximize_negates_grad():
    """g = -1: m1 = -0.5, v1 = 0.75, var = 0.75 + 0.5*(-0.5/-0.5) = 1.25."""
    out = _call(maximize=True)
    assert (out["var"][0], out["m"][0], out["v"][0]) == (1.25, -0.5, 0.75)


def test_beta_powers_are_beta_to_the_t_minus_1():
    """beta1Power = 0.5 = beta1^(t-1), t = 2: beta1^t = 0.25; with m = 0.5, m1 = 0.25 + 0.5 = 0.75,
    m1/(0.25 - 1) = -1, var = 0.75 - 0.5 = 0.25 (reading beta1Power as beta1^t would give 0)."""
    out = _call(m=0.5, b1p=0.5)
    assert (out["var"][0], out["m"][0]) == (0.25, 0.75)


def test_amsgrad_max_in_the_denominator_only():
    """maxGradNorm 3 > v1 = 0.75: denom = sqrt(3/0.75) = 2, var = 0.75 + 0.5*(-1)/2 = 0.5; vRef keeps
    v1 = 0.75 (cann); the document stores the maximum (doc)."""
    out = _call(mgn=3.0, amsgrad=True)
    assert (out["var"][0], out["v"][0]) == (0.5, 0.75)
    doc = _call(mgn=3.0, amsgrad=True, profile="doc")
    assert (doc["var"][0], doc["v"][0]) == (0.5, 3.0)


def test_max_grad_norm_ignored_without_amsgrad():
    assert _call(mgn=3.0)["var"][0] == 0.25


def test_weight_decay_before_the_step_for_every_sign():
    """wd = -0.5: var_t = 1*(1 + 0.25) = 1.25, var = 1.25 - 0.5 = 0.75; decay after the step would
    give (1 - 0.5)*1.25 = 0.625."""
    assert _call(wd=-0.5)["var"][0] == 0.75
    assert _call(wd=0.0)["var"][0] == 0.5


def test_bfloat16_output_rounded_to_nearest_even():
    """lr = -3*2^-8 (a bf16 value): var = 1 + 3*2^-8 exactly in float32, halfway between the bf16
    neighbours 1 + 2^-7 and 1 + 2^-6: to even gives 1 + 2^-6 (truncation would give 1 + 2^-7)."""
    out = _call(dtype=BF16, m=0.5, b1p=0.5, lr=-3 * 2.0 ** -8, wd=0.0)
    assert out["var"].dtype == np.dtype(BF16)
    assert float(out["var"][0]) == 1 + 2.0 ** -6
    assert (float(out["m"][0]), float(out["v"][0])) == (0.75, 0.75)


def test_hyper_parameters_keep_their_16_bit_values():
    """lr = 1e-3 is 0.00100040435791015625 in float16 (1049/1024 * 2^-10) and 0.00099945068359375 in
    bfloat16 (131/128 * 2^-10); with m1/(b1t-1) = -1 and denom 1 the step is exactly -lr, so the
    float32 result is 1 - lr rounded once."""
    for dtype, lr in ((np.float16, 0.00100040435791015625), (BF16, 0.00099945068359375)):
        assert float(np.asarray(1e-3).astype(dtype)) == lr
        arr = lambda x: np.asarray([x]).astype(dtype)   # noqa: E731
        one = arr(1.0)
        out = apply_adam_w(np.ones(1, F32), np.full(1, 0.5, F32), np.zeros(1, F32), arr(0.5), one,
                           arr(1e-3), arr(0.0), arr(0.5), arr(0.25), arr(0.0), np.ones(1, F32))
        assert out["var"][0] == F32(1) - F32(lr)


def test_document_example_matches_the_golden_figures():
    """The notes' run of the vendor golden on the document's example (fp32, inputs 0..3)."""
    x = np.arange(4.0, dtype=F32).reshape(2, 2)
    s = lambda a: np.array([a], F32)   # noqa: E731
    out = apply_adam_w(x, x, x, s(0.431), s(0.992), s(0.001), s(0.01), s(0.9), s(0.999), s(1e-8),
                       x, x, amsgrad=True, maximize=True)
    np.testing.assert_array_equal(out["var"].reshape(-1), F32([0, 0.99986607, 1.99980474, 2.99975562]))
    np.testing.assert_array_equal(out["m"].reshape(-1), F32([0, 0.79999995, 1.59999990, 2.39999962]))
    np.testing.assert_array_equal(out["v"].reshape(-1), F32([0, 1, 2.00199986, 3.00599980]))


def test_nan_propagates_and_empty_is_empty():
    out = _call(grad=np.nan)
    assert np.isnan(out["var"][0]) and np.isnan(out["m"][0]) and np.isnan(out["v"][0])
    ams = _call(mgn=np.nan, amsgrad=True)
    assert np.isnan(ams["var"][0]) and ams["v"][0] == 0.75
    e = np.zeros((0, 3), F32)
    s = np.ones(1, F32)
    out = apply_adam_w(e, e, e, s, s, s, s, s, s, s, e)
    assert all(out[k].shape == (0, 3) for k in ("var", "m", "v"))


def test_doc_profile_is_the_formula_in_float64():
    out = _call(profile="doc", m=0.5, b1p=0.5)
    assert out["var"][0] == 0.25 and out["var"].dtype == np.dtype(F32)


# ---- the model bound ----

def _kernel_950_order(var, m, v, b1p, b2p, lr, wd, b1, b2, eps, g):
    """The Ascend 950 kernel's order (notes 6.1), written here independently of the oracle."""
    one = F32(1)
    m1 = m * b1 - g * (b1 - one)
    v1 = v * b2 - (g * g) * (b2 - one)
    denom = np.sqrt((-v1) / (b2p * b2 - one)) + eps
    return var * (one - lr * wd) + ((lr / (b1p * b1 - one)) * m1) / denom, m1, v1


@pytest.mark.parametrize("seed", range(6))
def test_another_legal_order_lies_within_the_bound(seed):
    rng = np.random.default_rng(seed)
    n = 20_000
    var, m = (rng.standard_normal(n) * 0.5).astype(F32), (rng.standard_normal(n) * 1e-2).astype(F32)
    v, g = rng.uniform(0, 1e-3, n).astype(F32), (rng.standard_normal(n) * 3e-2).astype(F32)
    b1, b2 = F32(rng.uniform(0.5, 0.99)), F32(rng.uniform(0.9, 0.9999))
    t = int(rng.integers(1, 50))
    b1p, b2p = F32(float(b1) ** (t - 1)), F32(float(b2) ** (t - 1))
    lr, wd, eps = F32(10 ** rng.uniform(-4, -1)), F32(rng.uniform(-0.5, 0.5)), F32(1e-8)
    out = apply_adam_w(var, m, v, b1p, b2p, lr, wd, b1, b2, eps, g, bounds=True)
    other = _kernel_950_order(var, m, v, b1p, b2p, lr, wd, b1, b2, eps, g)
    for key, alt in zip(("var", "m", "v"), other):
        diff = np.abs(alt.astype(np.float64) - out[key].astype(np.float64))
        assert (diff <= out[f"bound_{key}"]).all(), key
    # tight where nothing cancels: about a dozen float32 ulps of var (two faithful steps per
    # operation, and the oracle's own distance from the exact value)
    ulp = np.spacing(np.abs(out["var"])).astype(np.float64)
    assert np.median(out["bound_var"] / ulp) <= 16


def test_cancellation_widens_the_bound():
    """1 - beta2^t is 1e-4 at t = 1 with beta2 = 0.9999: beta2^t's rounding is amplified 10^4 times."""
    def relative_bound(b2):
        out = _call(var=0.0, m=0.0, v=0.0, grad=1e-3, lr=1e-3, wd=0.0, b1=0.9, b2=b2, eps=1e-8,
                    bounds=True)
        return out["bound_var"][0] / abs(float(out["var"][0]))
    assert relative_bound(0.9999) > 100 * relative_bound(0.5)
