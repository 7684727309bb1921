"""Tests of the ApplyAdamWQuant oracle: hand-computed cases, a plain per-element reference written
here independently, the exactness of the nearest-code search, and edge cases."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aclnn_conformance.oracle.apply_adam_w_quant import (apply_adam_w_quant, block_absmax, dequantize, nearest_code,
                                       round_to_dtype)

F32 = np.float32
BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = (np.dtype(np.float32), np.dtype(np.float16), BF16)


# --------------------------------------------------------------------------------------------------
# qmaps used by the tests
# --------------------------------------------------------------------------------------------------

def linspace_f32(start: float, end: float, steps: int) -> np.ndarray:
    """float32 linspace computed the way torch does it: start + i*step for the first half,
    end - (steps-1-i)*step for the second (notes section 6)."""
    a, b = F32(start), F32(end)
    step = (b - a) / F32(steps - 1)
    i = np.arange(steps)
    first = a + i.astype(F32) * step
    second = b - (steps - 1 - i).astype(F32) * step
    return np.where(i < steps // 2, first, second).astype(F32)


def dynamic_map(signed: bool) -> np.ndarray:
    """An 8-bit dynamic quantization map in the style of the 8-bit optimizers (notes section 6):
    for i in 0..6, 2^i (signed, as +- pairs) or 2^(i+1) (unsigned) values 10^(i-6) * the means of
    neighbouring points of linspace(0.1, 1, n), plus 0 and 1."""
    values = [F32(0), F32(1)]
    for i in range(7):
        n = 2 ** i + 1 if signed else 2 ** (i + 1) + 1
        points = linspace_f32(0.1, 1.0, n)
        means = (points[:-1] + points[1:]) / F32(2)
        scaled = F32(10.0 ** (i - 6)) * means
        values.extend(scaled)
        if signed:
            values.extend(-scaled)
    q = np.sort(np.array(values, dtype=F32))
    assert q.size == 256 and np.all(np.diff(q) > 0)
    return q


def asymmetric_map() -> np.ndarray:
    """q[j] = (4j - 511)/512: signed, no zero entry, q[127] = -3/512, q[128] = +1/512."""
    return ((4 * np.arange(256) - 511) / 512).astype(F32)


def random_sorted_map(rng, low: float, high: float) -> np.ndarray:
    while True:
        q = np.unique(rng.uniform(low, high, 400).astype(F32))
        if q.size >= 256:
            return np.sort(rng.choice(q, 256, replace=False))


SIGNED = dynamic_map(True)
UNSIGNED = dynamic_map(False)
LIN_SIGNED = linspace_f32(-1.0, 1.0, 256)
LIN_UNSIGNED = linspace_f32(0.0, 1.0, 256)
EXACT_SIGNED = ((np.arange(256) - 128) / 128).astype(F32)       # (j-128)/128, exact
EXACT_UNSIGNED = (np.arange(256) / 256).astype(F32)             # j/256, exact


# --------------------------------------------------------------------------------------------------
# Independent references: the definitions, element by element
# --------------------------------------------------------------------------------------------------

def argmin_codes(x, q) -> np.ndarray:
    """nearest code by definition: first index of the smallest float32 |x - q[j]|, NaN -> 0."""
    x = np.asarray(x, dtype=F32).reshape(-1)
    q = np.asarray(q, dtype=F32).reshape(-1)
    out = np.empty(x.size, dtype=np.uint8)
    with np.errstate(all="ignore"):
        for s in range(0, x.size, 2048):
            out[s:s + 2048] = np.argmin(np.abs(x[s:s + 2048, None] - q[None, :]), axis=1)
    out[np.isnan(x)] = 0
    return out


def loop_max(values):
    """Maximum by a loop; a NaN anywhere makes the result NaN (as a NaN-propagating max does)."""
    best = F32(-np.inf)
    for val in values:
        if np.isnan(val):
            return F32(np.nan)
        if val > best:
            best = val
    return best


def reference_loop(var, grad, m, v, qm, qv, am, av, step, *, lr, beta1, beta2, weight_decay, eps,
                   gnorm_scale, block_size=256, profile="cann"):
    """Per-element implementation with a Python loop: the golden's float32 formula ("cann") or the
    document's float64 formula ("doc"); per-block maxima by loops; np.argmin over all 256 entries."""
    f = F32
    lr, b1, b2, wd, eps, gs = (f(a) for a in (lr, beta1, beta2, weight_decay, eps, gnorm_scale))
    qm = np.asarray(qm, F32).reshape(-1)
    qv = np.asarray(qv, F32).reshape(-1)
    var_f = np.asarray(var).reshape(-1).astype(F32)
    grad_f = np.asarray(grad).reshape(-1).astype(F32)
    m_c = np.asarray(m).reshape(-1)
    v_c = np.asarray(v).reshape(-1)
    am_shape, av_shape = np.shape(am), np.shape(av)
    am = np.asarray(am, F32).reshape(-1)
    av = np.asarray(av, F32).reshape(-1)
    n = var_f.size
    step = int(np.asarray(step).reshape(-1)[0])
    if profile == "cann":
        t = f(step) + f(1)
        c1 = f(1) - f(math.pow(float(b1), float(t)))
        c2 = np.sqrt(f(1) - f(math.pow(float(b2), float(t))))
        step_size = (-lr * c2) / c1
        eps_c2 = eps * c2
        wd_factor = f(1) - lr * wd
    else:
        t = float(step)
        c1_64 = 1.0 - math.pow(float(b1), t)
        c2_64 = 1.0 - math.pow(float(b2), t)
    p_out = np.empty(n, dtype=np.float64 if profile == "doc" else F32)
    m1s = np.empty(n, F32)
    v1s = np.empty(n, F32)
    with np.errstate(all="ignore"):
        for i in range(n):
            k = i // block_size
            m0 = qm[m_c[i]] * am[k]
            v0 = qv[v_c[i]] * av[k]
            if profile == "cann":
                g = grad_f[i] * gs
                m1 = (m0 * b1) + (g * (f(1) - b1))
                v1 = (v0 * b2) + ((g * g) * (f(1) - b2))
                p = var_f[i] + (m1 * step_size) / (np.sqrt(v1) + eps_c2)
                if wd > 0:
                    p = p * wd_factor
                m1s[i], v1s[i], p_out[i] = m1, v1, p
            else:
                g = float(grad_f[i]) * float(gs)
                m1 = float(b1) * float(m0) + (1.0 - float(b1)) * g
                v1 = float(b2) * float(v0) + (1.0 - float(b2)) * g * g
                m_hat, v_hat = m1 / c1_64, v1 / c2_64
                theta = float(var_f[i])
                p_out[i] = theta - float(lr) * m_hat / (math.sqrt(v_hat) + float(eps)) \
                    - float(lr) * float(wd) * theta
                m1s[i], v1s[i] = f(m1), f(v1)
        var_out = np.array([np.array([p]).astype(np.asarray(var).dtype)[0] for p in p_out],
                           dtype=np.asarray(var).dtype)
        n_blocks = -(-n // block_size)
        new_am = np.empty(n_blocks, F32)
        new_av = np.empty(n_blocks, F32)
        for k in range(n_blocks):
            block = range(k * block_size, min(n, (k + 1) * block_size))
            new_am[k] = loop_max(abs(m1s[i]) for i in block)
            new_av[k] = loop_max(v1s[i] for i in block)
        m_codes = np.empty(n, np.uint8)
        v_codes = np.empty(n, np.uint8)
        for i in range(n):
            k = i // block_size
            for state, amax, q, out in ((m1s[i], new_am[k], qm, m_codes),
                                        (v1s[i], new_av[k], qv, v_codes)):
                x = state / (amax if amax != 0 else f(1))
                code = 0 if np.isnan(x) else int(np.argmin(np.abs(x - q)))
                if np.any(q < 0) and x * q[code] < 0:
                    code = min(255, max(0, code + (1 if x > 0 else -1)))
                out[i] = code
    shape = np.asarray(var).shape
    return {"var": var_out.reshape(shape), "m": m_codes.reshape(shape), "v": v_codes.reshape(shape),
            "absmax_m": new_am.reshape(am_shape), "absmax_v": new_av.reshape(av_shape)}


def float_bits(a) -> np.ndarray:
    """Bit patterns, with every NaN mapped to one pattern (NaN payloads are not specified)."""
    a = np.asarray(a)
    bits = a.view(np.uint32 if a.dtype.itemsize == 4 else np.uint16).copy()
    bits[np.isnan(a.astype(F32))] = 0xFFFF if a.dtype.itemsize == 2 else 0xFFFFFFFF
    return bits


def assert_same_outputs(got, want):
    assert got["var"].dtype == want["var"].dtype and got["var"].shape == want["var"].shape
    np.testing.assert_array_equal(float_bits(got["var"]), float_bits(want["var"]))
    for key in ("m", "v"):
        assert got[key].dtype == np.uint8
        np.testing.assert_array_equal(got[key], want[key], err_msg=key)
    for key in ("absmax_m", "absmax_v"):
        assert got[key].dtype == F32 and got[key].shape == want[key].shape
        np.testing.assert_array_equal(float_bits(got[key]), float_bits(want[key]), err_msg=key)


def call(var, grad, m, v, qm, qv, am, av, step, **kw):
    return apply_adam_w_quant(var, grad, m, v, qm, qv, am, av, step, **kw)


# --------------------------------------------------------------------------------------------------
# Hand-computed cases
# --------------------------------------------------------------------------------------------------

def test_doc_example():
    # The vendor document's example: 1x256 fp32 zeros, codes 0, both qmaps all zeros, absmax 5 and 3,
    # step 0, lr = beta1 = beta2 = weightDecay = gnormScale = 0.1, eps = 0.01.
    # t = 0 + 1 = 1; m0 = qmap[0]*5 = 0, v0 = 0; g = 0*0.1 = 0; m1 = 0*0.1 + 0*0.9 = 0; v1 = 0.
    # den = sqrt(0) + 0.01*sqrt(1 - 0.1) > 0; p = 0 + (0*step_size)/den = 0; wd > 0: p = 0*(1-0.01) = 0.
    # New absmax = max|0| = 0 for both; x = 0/1 = 0; every qmap entry is at distance 0, the
    # lowest index wins: code 0.
    z = np.zeros((1, 256), F32)
    codes = np.zeros((1, 256), np.uint8)
    qmap = np.zeros(256, F32)
    out = call(z, z.copy(), codes, codes.copy(), qmap, qmap.copy(), np.array([5], F32),
               np.array([3], F32), np.array([0], np.int64), lr=0.1, beta1=0.1, beta2=0.1,
               weight_decay=0.1, eps=0.01, gnorm_scale=0.1)
    assert out["var"].dtype == F32 and out["var"].shape == (1, 256)
    assert np.all(float_bits(out["var"]) == 0)                   # +0.0 exactly
    assert np.all(out["m"] == 0) and np.all(out["v"] == 0)
    assert out["absmax_m"].tolist() == [0.0] and out["absmax_v"].tolist() == [0.0]


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_hand_case_full_update(dtype):
    # qmap_m[j] = (j-128)/128, qmap_v[j] = j/256 (exact). One partial block of 4 elements.
    # lr = 0.25, beta1 = 0.5, beta2 = 0.75, wd = 0.5, eps = 0.5, gnormScale = 2, step = 0 -> t = 1.
    # c1 = 1 - 0.5 = 0.5; c2 = sqrt(1 - 0.75) = 0.5; step_size = (-0.25*0.5)/0.5 = -0.25;
    # eps_c2 = 0.5*0.5 = 0.25; wd_factor = 1 - 0.25*0.5 = 0.875.
    var = np.array([1.0, 2.0, -1.0, 0.5], dtype=dtype)
    grad = np.array([0.5, -0.25, 0.0, 1.0], dtype=dtype)             # g = 2*grad = [1, -0.5, 0, 2]
    m = np.array([192, 64, 128, 160], np.uint8)   # q = [0.5, -0.5, 0, 0.25]; *absmax 2 -> m0 = [1, -1, 0, 0.5]
    v = np.array([240, 0, 48, 176], np.uint8)     # q = [0.9375, 0, 0.1875, 0.6875]; *4 -> v0 = [3.75, 0, 0.75, 2.75]
    # m1 = m0*0.5 + g*0.5 = [0.5+0.5, -0.5-0.25, 0+0, 0.25+1] = [1, -0.75, 0, 1.25]
    # v1 = v0*0.75 + g*g*0.25 = [2.8125+0.25, 0+0.0625, 0.5625+0, 2.0625+1] = [3.0625, 0.0625, 0.5625, 3.0625]
    # den = sqrt(v1) + 0.25 = [1.75+0.25, 0.25+0.25, 0.75+0.25, 1.75+0.25] = [2, 0.5, 1, 2]
    # (m1*step_size)/den = [-0.25/2, 0.1875/0.5, 0/1, -0.3125/2] = [-0.125, 0.375, 0, -0.15625]
    # p = var + that = [0.875, 2.375, -1, 0.34375]; *0.875 = [0.765625, 2.078125, -0.875, 0.30078125]
    # (all exact in fp32, fp16 and bf16: at most 8 significant bits).
    out = call(var, grad, m, v, EXACT_SIGNED, EXACT_UNSIGNED, np.array([2.0], F32),
               np.array([4.0], F32), np.array([0], np.int64), lr=0.25, beta1=0.5, beta2=0.75,
               weight_decay=0.5, eps=0.5, gnorm_scale=2.0, details=True)
    assert out["var"].dtype == np.dtype(dtype)
    np.testing.assert_array_equal(out["var"].astype(F32), [0.765625, 2.078125, -0.875, 0.30078125])
    # absmax_m = max|m1| = 1.25; x_m = m1/1.25 = [0.8, -0.6, 0, 1.0].
    # nearest (j-128)/128: 0.8*128 = 102.4 -> j = 230; -0.6*128 = -76.8 -> j = 51; 0 -> 128;
    # 1.0 lies beyond the last entry 127/128 -> 255.
    assert out["absmax_m"].tolist() == [1.25]
    assert out["m"].tolist() == [230, 51, 128, 255]
    # absmax_v = max v1 = 3.0625; x_v = v1/3.0625 = [1, 1/49, 9/49, 1];
    # nearest j/256: 256/49 = 5.22 -> 5; 2304/49 = 47.02 -> 47; 1 -> 255.
    assert out["absmax_v"].tolist() == [3.0625]
    assert out["v"].tolist() == [255, 5, 47, 255]
    np.testing.assert_array_equal(out["m_new"], [1.0, -0.75, 0.0, 1.25])
    np.testing.assert_array_equal(out["v_new"], [3.0625, 0.0625, 0.5625, 3.0625])
    np.testing.assert_array_equal(out["m_normalized"], F32([1.0, -0.75, 0.0, 1.25]) / F32(1.25))


def test_hand_case_sign_fix_asymmetric_map():
    # qmap_m[j] = (4j-511)/512: no zero entry; q[127] = -3/512, q[128] = 1/512, q[255] = 509/512.
    # qmap_v[j] = j/256. absmax_m = absmax_v = 1, codes: m = [255, 128], v = [0, 0].
    # beta1 = 0.5, beta2 = 0.75, lr = 0 (var unchanged), wd = 0 (decay skipped), step 0.
    # m0 = [509/512, 1/512]; g = [515/512, -5/2048];
    # m1 = m0*0.5 + g*0.5 = [509/1024 + 515/1024, 1/1024 - 5/4096] = [1, -1/4096].
    # absmax_m = 1; x = [1, -1/4096]. 1 -> beyond the end -> 255.
    # -1/4096: |x - 1/512| = 9/4096 < |x + 3/512| = 23/4096, nearest is code 128 (q = +1/512),
    # but x*q < 0 -> the sign fix moves it one step down to 127 (q = -3/512).
    # v1 = 0*0.75 + g*g*0.25 = [(515/512)^2/4, (5/2048)^2/4]; absmax_v = 265225/1048576;
    # x_v = [1, 25/(16*265225) = 5.9e-6] -> codes [255, 0]; qmap_v has no negatives: no sign fix.
    qm = ((4 * np.arange(256) - 511) / 512).astype(F32)
    var = np.array([0.5, -2.0], F32)
    grad = np.array([515 / 512, -5 / 2048], F32)
    out = call(var, grad, np.array([255, 128], np.uint8), np.array([0, 0], np.uint8), qm,
               EXACT_UNSIGNED, np.array([1.0], F32), np.array([1.0], F32), 0, lr=0.0, beta1=0.5,
               beta2=0.75, weight_decay=0.0, eps=1e-8, gnorm_scale=1.0, details=True)
    assert out["m"].tolist() == [255, 127]
    assert nearest_code(F32(-1 / 4096), qm) == 128                 # without the sign fix
    assert out["absmax_m"].tolist() == [1.0]
    assert out["v"].tolist() == [255, 0]
    assert out["absmax_v"].tolist() == [265225 / 1048576]
    np.testing.assert_array_equal(out["var"], var)                 # lr = 0: var + (+-0) = var


def test_hand_case_doc_profile_differs_from_cann():
    # One element, var = 1, grad = 1, state codes pointing at 0 (m0 = v0 = 0), beta1 = 0.5,
    # beta2 = 0.75, lr = 0.25, wd = 0.5, eps = 0, gnormScale = 1: m1 = 0.5, v1 = 0.25.
    kw = dict(lr=0.25, beta1=0.5, beta2=0.75, eps=0.0, gnorm_scale=1.0)
    args = (np.array([1.0], F32), np.array([1.0], F32), np.array([128], np.uint8),
            np.array([0], np.uint8), EXACT_SIGNED, EXACT_UNSIGNED, np.array([1.0], F32),
            np.array([1.0], F32))
    # doc, step 1 -> t = 1: m_hat = 0.5/0.5 = 1, v_hat = 0.25/0.25 = 1;
    # theta = 1 - 0.25*1/(1+0) - 0.25*0.5*1 = 0.625.
    doc = call(*args, 1, weight_decay=0.5, profile="doc", **kw)
    assert doc["var"].tolist() == [0.625]
    # cann, step 1 -> t = 2: c1 = 0.75, c2 = sqrt(0.4375); update u = lr*(m1/c1)/sqrt(v1/c2^2)
    # = 0.25*(2/3)/sqrt(4/7) = 0.220479...; theta = (1 - u)*(1 - 0.125) = 0.682081...
    u = 0.25 * (0.5 / 0.75) / math.sqrt(0.25 / 0.4375)
    cann = call(*args, 1, weight_decay=0.5, **kw)
    assert cann["var"][0] == pytest.approx((1 - u) * 0.875, rel=1e-6)
    assert cann["var"][0] > doc["var"][0]              # one step later: smaller bias correction
    # Same t (doc step 2, cann step 1): doc = 1 - u - lr*wd*1; cann = (1 - u)(1 - lr*wd)
    # = doc + lr*wd*u (the decay also shrinks the update).
    doc_t2 = call(*args, 2, weight_decay=0.5, profile="doc", **kw)
    assert doc_t2["var"][0] == pytest.approx(1 - u - 0.125, rel=1e-6)
    assert cann["var"][0] - doc_t2["var"][0] == pytest.approx(0.125 * u, rel=1e-4)
    # wd < 0: cann skips the decay (1 - u); doc applies it, adding lr*|wd|*theta = 0.125.
    cann_neg = call(*args, 1, weight_decay=-0.5, **kw)
    doc_neg = call(*args, 2, weight_decay=-0.5, profile="doc", **kw)
    assert cann_neg["var"][0] == pytest.approx(1 - u, rel=1e-6)
    assert doc_neg["var"][0] == pytest.approx(1 - u + 0.125, rel=1e-6)
    # The states and their codes are the same in both profiles here (m1 = 0.5, v1 = 0.25).
    for key in ("m", "v", "absmax_m", "absmax_v"):
        np.testing.assert_array_equal(cann[key], doc[key])


# --------------------------------------------------------------------------------------------------
# Against the per-element reference
# --------------------------------------------------------------------------------------------------

MAP_PAIRS = {
    "dynamic": (SIGNED, UNSIGNED),
    "linspace": (LIN_SIGNED, LIN_UNSIGNED),
}


def random_case(rng, dtype, n, maps, wd_sign, shape=None):
    qm, qv = maps
    n_blocks = -(-n // 256)
    shape = shape or (n,)
    var = rng.uniform(-2, 2, n).reshape(shape).astype(dtype)
    grad = (rng.standard_normal(n) * rng.choice([0.01, 0.5])).reshape(shape).astype(dtype)
    m = rng.integers(0, 256, n, dtype=np.uint8).reshape(shape)
    v = rng.integers(0, 256, n, dtype=np.uint8).reshape(shape)
    am = rng.uniform(0.05, 2.0, n_blocks).astype(F32)
    av = rng.uniform(1e-4, 1.0, n_blocks).astype(F32)
    kw = dict(lr=float(rng.choice([1e-3, 0.05, 0.3])), beta1=float(rng.uniform(0.5, 0.99)),
              beta2=float(rng.uniform(0.9, 0.9999)), eps=float(rng.choice([1e-8, 1e-6, 1e-3])),
              weight_decay=wd_sign * float(rng.uniform(0.01, 0.9)),
              gnorm_scale=float(rng.uniform(0.3, 1.7)))
    # Small steps make the bias corrections matter; large ones as in the vendor's tests (1..10000).
    step = np.array([int(rng.choice([0, 1, 2, 3, 7, 20, 150, int(rng.integers(0, 10000))]))], np.int64)
    return (var, grad, m, v, qm, qv, am, av, step), kw


@pytest.mark.parametrize("maps", sorted(MAP_PAIRS))
@pytest.mark.parametrize("n", [1, 255, 256, 257, 1000, 4097])
@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_matches_per_element_reference(dtype, n, maps):
    rng = np.random.default_rng([n, DTYPES.index(dtype), len(maps)])
    wd_sign = (1, 0, -1)[(n + DTYPES.index(dtype) + len(maps)) % 3]
    args, kw = random_case(rng, dtype, n, MAP_PAIRS[maps], wd_sign)
    got = apply_adam_w_quant(*args, **kw)
    want = reference_loop(*args, **kw)
    assert_same_outputs(got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_matches_reference_random_maps_and_shapes(dtype):
    # Asymmetric and random maps (sign fix possible for m, and for v when qmap_v has negatives),
    # a 2-D shape and 2-element absmax of shape (2, 1).
    rng = np.random.default_rng(7 + DTYPES.index(dtype))
    for maps in ((asymmetric_map(), random_sorted_map(rng, 0, 1)),
                 (random_sorted_map(rng, -1, 1), asymmetric_map())):
        args, kw = random_case(rng, dtype, 300, maps, 1, shape=(3, 100))
        args = args[:6] + (args[6].reshape(2, 1), args[7].reshape(2, 1), args[8])
        got = apply_adam_w_quant(*args, **kw)
        want = reference_loop(*args, **kw)
        assert got["var"].shape == (3, 100) and got["absmax_m"].shape == (2, 1)
        assert_same_outputs(got, want)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_doc_profile_matches_per_element_reference(dtype):
    rng = np.random.default_rng(11 + DTYPES.index(dtype))
    for wd_sign in (1, -1):
        args, kw = random_case(rng, dtype, 513, MAP_PAIRS["dynamic"], wd_sign)
        args = args[:8] + (np.array([int(rng.integers(1, 100))], np.int64),)
        got = apply_adam_w_quant(*args, profile="doc", **kw)
        want = reference_loop(*args, profile="doc", **kw)
        assert_same_outputs(got, want)


# --------------------------------------------------------------------------------------------------
# nearest_code
# --------------------------------------------------------------------------------------------------

def probe_values(q: np.ndarray, rng) -> np.ndarray:
    """Every qmap value, the float32 values around every midpoint of neighbours (the exact midpoint
    when it is a float32, and 8 ulps either side), specials, values beyond the ends, random
    values and random bit patterns."""
    q = np.asarray(q, F32)
    mid = ((q[1:].astype(np.float64) + q[:-1].astype(np.float64)) / 2).astype(F32)
    around = [mid]
    up, down = mid.copy(), mid.copy()
    for _ in range(8):
        up = np.nextafter(up, F32(np.inf))
        down = np.nextafter(down, F32(-np.inf))
        around += [up, down]
    specials = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1e-45, -1e-45, 1e-40, -1e-40,
                         1.17549435e-38, 2.0, -2.0, 1e5, -1e5, 1e10, -1e10, 3.4028235e38,
                         -3.4028235e38], F32)
    lo, hi = float(q.min()), float(q.max())
    width = max(hi - lo, 1e-30)
    rand = np.clip(rng.uniform(lo - 0.1 * width, hi + 0.1 * width, 20000), -3e38, 3e38).astype(F32)
    bits = rng.integers(0, 2 ** 32, 20000, dtype=np.uint64).astype(np.uint32).view(F32)
    return np.concatenate([q, np.nextafter(q, F32(np.inf)), np.nextafter(q, F32(-np.inf))]
                          + around + [specials, rand, bits])


def extreme_map(rng) -> np.ndarray:
    """256 distinct finite float32 values drawn from all bit patterns: spans every magnitude."""
    bits = rng.integers(0, 2 ** 32, 2000, dtype=np.uint64).astype(np.uint32).view(F32)
    vals = np.unique(bits[np.isfinite(bits)])
    return np.sort(rng.choice(vals, 256, replace=False)).astype(F32)


NEAREST_MAPS = {
    "dynamic_signed": lambda rng: SIGNED,
    "dynamic_unsigned": lambda rng: UNSIGNED,
    "linspace_signed": lambda rng: LIN_SIGNED,
    "linspace_unsigned": lambda rng: LIN_UNSIGNED,
    "asymmetric": lambda rng: asymmetric_map(),
    "random": lambda rng: random_sorted_map(rng, -3, 5),
    "extreme": extreme_map,
    "dense_offset": lambda rng: (F32(1e6) + np.arange(256, dtype=F32) * F32(0.125)),
    "duplicates": lambda rng: np.repeat(linspace_f32(-1, 1, 128), 2),
    "all_zero": lambda rng: np.zeros(256, F32),
    "unsorted": lambda rng: rng.permutation(SIGNED),
}


@pytest.mark.parametrize("name", sorted(NEAREST_MAPS))
def test_nearest_code_matches_argmin_definition(name):
    rng = np.random.default_rng(sorted(NEAREST_MAPS).index(name))
    q = NEAREST_MAPS[name](rng)
    x = probe_values(q, rng)
    got = nearest_code(x, q)
    want = argmin_codes(x, q)
    assert got.dtype == np.uint8 and got.shape == x.shape
    bad = np.flatnonzero(got != want)
    assert bad.size == 0, f"{bad.size} mismatches, e.g. x={x[bad[:5]]} got={got[bad[:5]]} want={want[bad[:5]]}"


def test_nearest_code_ties_and_specials_on_exact_map():
    q = EXACT_UNSIGNED                              # j/256
    # Exact midpoints (j + 0.5)/256 are float32: ties go to the lower index j.
    mids = ((np.arange(255) + 0.5) / 256).astype(F32)
    np.testing.assert_array_equal(nearest_code(mids, q), np.arange(255))
    np.testing.assert_array_equal(nearest_code(q, q), np.arange(256))
    x = np.array([np.nan, -np.inf, -1.0, -0.0, 0.0, 2.0, 1e10, np.inf], F32)
    # +inf: every distance is inf, all tie -> 0; 1e10: every distance rounds to 1e10 -> 0.
    assert nearest_code(x, q).tolist() == [0, 0, 0, 0, 0, 255, 0, 0]
    # Shapes are kept.
    assert nearest_code(np.zeros((2, 3), F32), q).shape == (2, 3)


@settings(max_examples=60, deadline=None, database=None)
@given(st.lists(st.floats(width=32, allow_nan=True, allow_infinity=True), min_size=1, max_size=64))
def test_nearest_code_property(values):
    x = np.array(values, dtype=F32)
    for q in (SIGNED, UNSIGNED, LIN_SIGNED):
        np.testing.assert_array_equal(nearest_code(x, q), argmin_codes(x, q))


# --------------------------------------------------------------------------------------------------
# Edge cases and helpers
# --------------------------------------------------------------------------------------------------

def test_inputs_untouched_and_outputs_new():
    rng = np.random.default_rng(3)
    args, kw = random_case(rng, np.dtype(np.float16), 600, MAP_PAIRS["dynamic"], 1)
    before = [np.array(a, copy=True) for a in args]
    out = apply_adam_w_quant(*args, details=True, **kw)
    for a, b in zip(args, before):
        np.testing.assert_array_equal(np.asarray(a).view(np.uint8), np.asarray(b).view(np.uint8))
    for key, src in (("var", 0), ("m", 2), ("v", 3), ("absmax_m", 6), ("absmax_v", 7)):
        assert not np.shares_memory(out[key], args[src])
    assert set(out) == {"var", "m", "v", "absmax_m", "absmax_v", "m_new", "v_new",
                        "m_normalized", "v_normalized", "var_unrounded"}
    # the new var is its float32 value before the one cast
    np.testing.assert_array_equal(out["var_unrounded"].astype(np.float16), out["var"].reshape(-1))


def test_non_contiguous_inputs_give_the_same_outputs():
    # Flat order is the logical (row-major) order of the tensor, whatever its memory layout.
    rng = np.random.default_rng(4)
    args, kw = random_case(rng, np.dtype(np.float32), 512, MAP_PAIRS["dynamic"], 1, shape=(16, 32))
    views = tuple(np.asfortranarray(a) for a in args[:4])
    assert not views[0].flags.c_contiguous
    got = apply_adam_w_quant(*views, *args[4:], **kw)
    assert got["var"].flags.c_contiguous
    assert_same_outputs(got, apply_adam_w_quant(*args, **kw))


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_empty_input(dtype):
    e = np.zeros((0, 256), dtype)
    c = np.zeros((0, 256), np.uint8)
    a = np.zeros(0, F32)
    out = apply_adam_w_quant(e, e.copy(), c, c.copy(), SIGNED, UNSIGNED, a, a.copy(), 0, lr=1e-3,
                             beta1=0.9, beta2=0.999, weight_decay=1.0, eps=1e-8, gnorm_scale=1.0)
    assert out["var"].shape == (0, 256) and out["var"].dtype == np.dtype(dtype)
    assert out["m"].shape == (0, 256) and out["absmax_m"].shape == (0,)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_nan_grad_propagates(dtype):
    rng = np.random.default_rng(5)
    args, kw = random_case(rng, dtype, 512, MAP_PAIRS["dynamic"], 1)
    grad = args[1].copy()
    grad[300] = np.nan
    args = (args[0], grad) + args[2:]
    out = apply_adam_w_quant(*args, **kw)
    assert np.isnan(out["var"].astype(F32)[300])
    assert out["m"][300] == 0 and out["v"][300] == 0
    # The NaN reaches the block maximum, so every x of block 1 is NaN and codes 0; block 0 is clean.
    assert np.isnan(out["absmax_m"][1]) and np.isnan(out["absmax_v"][1])
    assert np.all(out["m"][256:] == 0) and np.all(out["v"][256:] == 0)
    assert np.all(np.isfinite(out["var"].astype(F32)[:256]))
    assert_same_outputs(out, reference_loop(*args, **kw))


def test_partial_last_block_uses_only_valid_elements():
    rng = np.random.default_rng(9)
    for n in (257, 300, 511):
        args, kw = random_case(rng, np.dtype(np.float32), n, MAP_PAIRS["dynamic"], 1)
        out = apply_adam_w_quant(*args, details=True, **kw)
        tail = slice(256, n)
        assert out["absmax_m"].shape == (2,)
        assert out["absmax_m"][1] == np.abs(out["m_new"][tail]).max()
        assert out["absmax_v"][1] == out["v_new"][tail].max()
        np.testing.assert_array_equal(out["m_normalized"][tail],
                                      out["m_new"][tail] / out["absmax_m"][1])
        # The full block does not depend on the tail and vice versa.
        head = apply_adam_w_quant(*(a[:256] for a in args[:4]), *args[4:6], args[6][:1],
                                  args[7][:1], args[8], **kw)
        np.testing.assert_array_equal(head["m"], out["m"][:256])
        np.testing.assert_array_equal(head["var"], out["var"][:256])


def test_zero_absmax_block_divides_by_one():
    # grad 0 and states 0: m1 = v1 = 0 in the block, absmax 0, x = 0/1 = 0 -> nearest(0).
    z = np.zeros(256, F32)
    out = apply_adam_w_quant(z, z, np.full(256, 127, np.uint8), np.zeros(256, np.uint8), SIGNED,
                             UNSIGNED, np.array([1.0], F32), np.array([1.0], F32), 4, lr=1e-3,
                             beta1=0.9, beta2=0.999, weight_decay=0.1, eps=1e-8, gnorm_scale=1.0)
    assert SIGNED[127] == 0
    assert np.all(out["m"] == 127) and np.all(out["v"] == 0)
    assert out["absmax_m"].tolist() == [0.0] and out["absmax_v"].tolist() == [0.0]


def test_attributes_rounded_to_float32_first():
    # lr = 0.1 + 1e-12 rounds to the same float32 as 0.1: identical outputs.
    rng = np.random.default_rng(13)
    args, kw = random_case(rng, np.dtype(np.float32), 256, MAP_PAIRS["dynamic"], 1)
    a = apply_adam_w_quant(*args, **{**kw, "lr": 0.1})
    b = apply_adam_w_quant(*args, **{**kw, "lr": 0.1 + 1e-12})
    assert_same_outputs(a, b)


def test_rejects_bad_inputs():
    z = np.zeros(256, F32)
    c = np.zeros(256, np.uint8)
    a = np.ones(1, F32)
    kw = dict(lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8, gnorm_scale=1.0)
    with pytest.raises(TypeError):
        apply_adam_w_quant(z, z.astype(np.float16), c, c, SIGNED, UNSIGNED, a, a, 0, **kw)
    with pytest.raises(ValueError):
        apply_adam_w_quant(z, z, c, c, SIGNED, UNSIGNED, np.ones(2, F32), a, 0, **kw)
    with pytest.raises(ValueError):
        apply_adam_w_quant(z, z, c, c, SIGNED[:255], UNSIGNED, a, a, 0, **kw)
    with pytest.raises(ValueError):
        apply_adam_w_quant(z, z, c, c, SIGNED, UNSIGNED, a, a, 0, profile="other", **kw)


def test_helpers():
    vals = np.array([1.0, -3.0, 2.0, 0.5, -0.25], F32)
    np.testing.assert_array_equal(block_absmax(vals, 2), [3.0, 2.0, 0.25])
    np.testing.assert_array_equal(block_absmax(vals, 2, absolute=False), [1.0, 2.0, -0.25])
    codes = np.array([[0, 255], [128, 1]], np.uint8)
    deq = dequantize(codes, EXACT_UNSIGNED, np.array([2.0, 4.0], F32), block_size=3)
    np.testing.assert_array_equal(deq, [[0.0, 255 / 128], [1.0, 4 / 256]])
    # One rounding: 1 + 2^-8 + 2^-30 is just above a bf16 midpoint and rounds up; the exact
    # midpoint 1 + 2^-8 rounds to even (1.0); fp16 keeps 1 + 2^-8.
    x64 = np.array([1 + 2.0 ** -8 + 2.0 ** -30, 1 + 2.0 ** -8], np.float64)
    assert round_to_dtype(x64, BF16).astype(F32).tolist() == [1 + 2.0 ** -7, 1.0]
    assert round_to_dtype(x64.astype(F32), np.float16).astype(F32).tolist() == [1 + 2.0 ** -8] * 2
    assert round_to_dtype(np.array([70000.0], F32), np.float16)[0] == np.inf
