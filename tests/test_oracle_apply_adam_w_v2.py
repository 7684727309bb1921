"""The ApplyAdamWV2 oracle against hand computation, the notes' golden values and a per-element
implementation with exact rational arithmetic; the shared float helpers it relies on."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.oracle.adamw_arithmetic import fma_f32, round_half_away, round_to
from aclnn_conformance.oracle.apply_adam_w_v2 import apply_adam_w_v2

F32 = np.float32
BF16 = ml_dtypes.bfloat16


def _round32(x: Fraction) -> np.float32:
    """The float32 nearest to the rational x, ties to even (by comparing the candidates exactly)."""
    f = F32(float(x))
    cands = [f, np.nextafter(f, F32(np.inf)), np.nextafter(f, F32(-np.inf))]
    return min(cands, key=lambda c: (abs(Fraction(float(c)) - x), int(np.array(c).view(np.uint32)) & 1))


def test_fma_f32_rounds_once():
    rng = np.random.default_rng(1)
    a, b, c = (rng.standard_normal(3000).astype(F32) for _ in range(3))
    got = fma_f32(a, b, c)
    want = [_round32(Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))) for x, y, z in zip(a, b, c)]
    assert np.array_equal(got, np.array(want, F32))
    # the float32 subnormal range, where float64's rounding of the sum can hide a halfway case too
    x, y = ((rng.standard_normal(600) * 2.0 ** -65).astype(F32) for _ in range(2))
    z = (rng.standard_normal(600) * 2.0 ** -130).astype(F32)
    want = [_round32(Fraction(float(p)) * Fraction(float(q)) + Fraction(float(r))) for p, q, r in zip(x, y, z)]
    assert np.array_equal(fma_f32(x, y, z), np.array(want, F32))
    # 513*2^-149 + (2^-150 - 2^-196): float64 rounds the sum to the midpoint 513.5*2^-149, whose
    # float32 rounding (ties to even) would go up; the exact sum is below it: 513*2^-149
    a, b = F32(2.0 ** -75 * (1 + 2.0 ** -23)), F32(2.0 ** -75 * (1 - 2.0 ** -23))
    c = F32(513 * 2.0 ** -149)
    x[1], y[1], z[1], want[1] = a, b, c, c
    assert fma_f32(a, b, c) == c and np.array_equal(fma_f32(x, y, z), np.array(want, F32))
    x[0] = np.nan                   # a NaN in the array does not hide the subnormal results
    got = fma_f32(x, y, z)
    assert np.isnan(got[0]) and np.array_equal(got[1:], np.array(want[1:], F32))
    # 1 + 2^-11 + 2^-24 is halfway between two float32 values; -2^-48 puts it just below: round down
    x = F32(1 + 2 ** -12)
    assert fma_f32(x, x, F32(-(2.0 ** -48))) == F32(1 + 2 ** -11)
    assert fma_f32(x, x, F32(2.0 ** -48)) == np.nextafter(F32(1 + 2 ** -11), F32(2))


def test_round_half_away_and_even_at_ties():
    ties = np.array([1 + 2 ** -8, -(1 + 2 ** -8), 1 + 3 * 2 ** -8, 1.0], F32)
    assert [float(v) for v in round_half_away(ties, BF16)] == [1 + 2 ** -7, -(1 + 2 ** -7), 1 + 2 ** -6, 1.0]
    assert [float(v) for v in round_to(ties, BF16)] == [1.0, -1.0, 1 + 2 ** -6, 1.0]
    half16 = np.array([1 + 2 ** -11, 2049.0], F32)
    assert [float(v) for v in round_half_away(half16, np.float16)] == [1 + 2 ** -10, 2050.0]
    assert [float(v) for v in round_to(half16, np.float16)] == [1.0, 2048.0]


def _call(x, step=1.0, **kw):
    args = dict(lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=1e-2, eps=1e-8, amsgrad=True, maximize=True)
    args.update(kw)
    return apply_adam_w_v2(x, x, x, x, x, np.array([step], F32), **args)


def test_document_example():
    """The document's example through the vendor golden (notes section 7): t = step + 1 = 2."""
    x = np.arange(4, dtype=F32).reshape(2, 2)
    out = _call(x)
    assert np.array_equal(out["var"].reshape(-1), np.array([0, 0.99980175, 1.99971390, 2.99964428], F32))
    assert np.array_equal(out["m"].reshape(-1), np.array([0, 0.79999995, 1.59999990, 2.39999986], F32))
    assert np.array_equal(out["v"].reshape(-1), np.array([0, 1, 2.00199986, 3.00599980], F32))
    assert np.array_equal(out["max_grad_norm"], out["v"])
    doc = _call(x, profile="doc")    # float64, rounded once: within 2 float32 ulps of the golden at t = 1
    assert np.allclose(doc["var"].reshape(-1), [0, 0.99973702, 1.99962234, 2.99953222], rtol=0, atol=5e-7)


def test_hand_computed_single_element():
    """beta1 = 0.5, beta2 = 0.75, step 0 (t = 1), lr = 0.25, wd = 0.5, eps = 0, all exact in binary:
    m' = 0.5*0.5 + 0.5*1 = 0.75, v' = 0.75*0.25 + 0.25*1 = 0.4375, bias corrections 0.5 and 0.25,
    var' = 2*(1 - 0.125) - (0.25/0.5)*0.75/(sqrt(0.4375)/0.5)."""
    one = lambda v: np.array([v], F32)
    out = apply_adam_w_v2(one(2.0), one(0.5), one(0.25), None, one(1.0), np.array([0]), lr=0.25,
                          beta1=0.5, beta2=0.75, weight_decay=0.5, eps=0.0, amsgrad=False, maximize=False)
    assert out["m"][0] == F32(0.75) and out["v"][0] == F32(0.4375) and out["max_grad_norm"] is None
    denom = F32(np.sqrt(F32(0.4375))) / F32(0.5)
    want = F32(1.75) + (F32(-0.5) * F32(0.75)) / denom
    assert out["var"][0] == want
    assert abs(float(out["var"][0]) - (1.75 - 0.5 * 0.75 / (0.4375 ** 0.5 / 0.5))) < 2e-7


def _element(var, m, v, mgn, g, step, lr, b1, b2, wd, eps, amsgrad, maximize):
    """One element, each float32 operation rounded from its exact rational value."""
    r = lambda x: _round32(Fraction(x) if not isinstance(x, Fraction) else x)
    q = lambda x: Fraction(float(x))
    lr, b1, b2, wd, eps = (F32(x) for x in (lr, b1, b2, wd, eps))
    t = r(q(F32(step)) + 1)
    g = -g if maximize else g
    p = r(q(var) * q(r(1 - q(r(q(lr) * q(wd))))))
    w = r(1 - q(b1))
    d = r(q(g) - q(m))
    m1 = r(q(w) * q(d) + q(m)) if abs(w) < 0.5 else r(q(r(q(w) - 1)) * q(d) + q(g))
    v1 = r(q(r(q(r(1 - q(b2))) * q(g))) * q(g) + q(r(q(v) * q(b2))))
    bc1 = r(1 - q(F32(float(b1) ** float(t))))
    bc2 = r(1 - q(F32(float(b2) ** float(t))))
    ss = r(q(lr) / q(bc1))
    s2 = F32(np.sqrt(np.float64(bc2)))
    vv = max(mgn, v1) if amsgrad else v1
    den = r(q(r(q(F32(np.sqrt(vv))) / q(s2))) + q(eps))
    return r(q(p) + q(r(q(r(-q(ss) * q(m1))) / q(den)))), m1, v1, vv


@pytest.mark.parametrize("beta1", [0.9, 0.3, 2.0])
@pytest.mark.parametrize("amsgrad,maximize", [(False, False), (True, True)])
def test_matches_a_per_element_implementation(beta1, amsgrad, maximize):
    rng = np.random.default_rng(7)
    n = 60
    var, m, g = (rng.standard_normal(n).astype(F32) * F32(0.1) for _ in range(3))
    v, mgn = (rng.uniform(0, 1e-2, n).astype(F32) for _ in range(2))
    hp = dict(lr=1e-3, beta1=beta1, beta2=0.99, weight_decay=0.1, eps=1e-8)
    out = apply_adam_w_v2(var, m, v, mgn, g, np.array([12]), amsgrad=amsgrad, maximize=maximize, **hp)
    for i in range(n):
        want = _element(var[i], m[i], v[i], mgn[i], g[i], 12, hp["lr"], beta1, hp["beta2"],
                        hp["weight_decay"], hp["eps"], amsgrad, maximize)
        got = (out["var"][i], out["m"][i], out["v"][i], out["max_grad_norm"][i])
        assert got[:3] == want[:3], i
        assert got[3] == (want[3] if amsgrad else mgn[i])


def test_outputs_keep_their_own_dtypes_and_amsgrad_semantics():
    rng = np.random.default_rng(3)
    var = rng.standard_normal(50).astype(BF16)
    m = rng.standard_normal(50).astype(np.float16) * np.float16(0.01)
    v = rng.uniform(0, 1e-4, 50).astype(F32)
    mgn = np.full(50, 1e-3, np.float16)
    g = (rng.standard_normal(50) * 0.01).astype(F32)
    out = apply_adam_w_v2(var, m, v, mgn, g, np.array([3]), lr=1e-3, beta1=0.9, beta2=0.999,
                          weight_decay=0.0, eps=1e-8, amsgrad=True, maximize=False, details=True)
    assert (out["var"].dtype, out["m"].dtype, out["v"].dtype, out["max_grad_norm"].dtype) == (
        np.dtype(BF16), np.dtype(np.float16), np.dtype(F32), np.dtype(np.float16))
    f32 = out["f32"]
    assert np.array_equal(out["v"], f32["v"])                       # vRef gets v', not the maximum
    assert np.array_equal(f32["max_grad_norm"], np.maximum(mgn.astype(F32), f32["v"]))
    assert np.array_equal(out["max_grad_norm"], f32["max_grad_norm"].astype(np.float16))
    off = apply_adam_w_v2(var, m, v, mgn, g, np.array([3]), lr=1e-3, beta1=0.9, beta2=0.999,
                          weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    assert np.array_equal(off["max_grad_norm"], mgn)


def test_maximize_negates_the_gradient():
    rng = np.random.default_rng(4)
    var, m, g = (rng.standard_normal(40).astype(F32) for _ in range(3))
    v = rng.uniform(0, 1, 40).astype(F32)
    hp = dict(lr=1e-2, beta1=0.9, beta2=0.999, weight_decay=0.1, eps=1e-8, amsgrad=False)
    a = apply_adam_w_v2(var, m, v, None, g, np.array([5]), maximize=True, **hp)
    b = apply_adam_w_v2(var, m, v, None, -g, np.array([5]), maximize=False, **hp)
    assert all(np.array_equal(a[k], b[k]) for k in ("var", "m", "v"))


def test_bound_is_a_few_ulps_and_widens_with_cancellation():
    one = lambda x: np.array(x, F32)
    # m close to g: the bound covers the A2 and 950 orders' roundings, a few ulps of the operands
    out = apply_adam_w_v2(one([1.0, 1.0]), one([0.5, 0.5]), one([0.0, 0.0]), None, one([0.5, 0.5 + 2 ** -20]),
                          np.array([0]), lr=0.0, beta1=0.9, beta2=0.999, weight_decay=0.0, eps=1e-8,
                          amsgrad=False, maximize=False, details=True)
    assert np.array_equal(out["var"], one([1.0, 1.0])) and np.all(out["bound"]["var"] <= 32 * 2 ** -24)
    # g = m: every order computes m' = 0.5 exactly (bound 0); g an ulp away: a few ulps
    assert out["bound"]["m"][0] == 0 and 0 < out["bound"]["m"][1] < 1e-6
    big = apply_adam_w_v2(one([1.0]), one([1000.0]), one([0.0]), None, one([-1000.0 + 1e-3]), np.array([0]),
                          lr=0.0, beta1=0.37, beta2=0.999, weight_decay=0.0, eps=1e-8, amsgrad=False,
                          maximize=False, details=True)
    # |m'| is small but the operands are 1000: the bound scales with them, not with m'
    assert big["bound"]["m"][0] > 1e3 * 2 ** -24


def test_bf16_bound_accepts_either_neighbour_at_an_exact_tie_only():
    one = lambda x: np.array(x, F32)
    ties = one([1 + 2 ** -8, 1 + 2 ** -6])        # m' = (m + g)/2 with beta1 = 0.5: exact
    out = apply_adam_w_v2(one([1, 1]).astype(BF16), one([1, 1]).astype(BF16), one([0, 0]).astype(BF16), None,
                          (2 * ties - 1).astype(BF16), np.array([0]), lr=0.0, beta1=0.5, beta2=0.5,
                          weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False, details=True)
    assert float(out["m"][0]) == 1.0 and float(out["bound"]["m"][0]) == 2 ** -7
    assert float(out["bound"]["m"][1]) == 0.0     # 1 + 2^-6 is a bfloat16 value: no tie, no slack
