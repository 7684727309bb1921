"""What an implementation inside the arithmetic model may return for one ApplyAdamWQuant call.

The model (``ARITHMETIC`` in spec/apply_adam_w_quant.py): the golden's order of
operations; add, subtract and multiply correctly rounded to float32; sqrt, pow and division faithful
(the exact result when it is a float32 value, else either neighbour); division also as a faithful
reciprocal times the dividend; every multiply-add of the formula fused or not.

Forward error analysis by intervals: every quantity of the formula is carried as the interval of
float32 values such implementations can compute for it, operation by operation in the golden's
order, for this very call. A correctly rounded operation maps the interval of its exact results
through round-to-nearest (monotone); a faithful one through round-down at the low end and round-up
at the high end, except where that end's exact result is itself a float32 value. So the envelope is
a single value wherever every step is exact (the dyadic tie cases), widens by the conditioning of
each step (cancellation in var + update, 1 - beta^t near 0), and nowhere else. The interval
endpoints are float32 values held in float64; the float64 arithmetic between them is exact for
products and sums of float32 values, and every other result is widened outward by one float64 ulp
before it is rounded, so the envelope contains every model result.

The bounds are for the ``cann`` profile (the golden's arithmetic); the ``doc`` profile has no
defined order and is judged by the Ascend MERE/MARE standard instead.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from aclnn_conformance.oracle.apply_adam_w_quant import _code_search, _qmap_key, _scalars

F32 = np.float32
F64 = np.float64
_INF = F64(np.inf)

__all__ = ["AawqEnvelope", "apply_adam_w_quant_envelope"]


@dataclass(frozen=True, eq=False)
class AawqEnvelope:
    """Per element of the flattened call (per block for the absmax), the model's envelope.

    ``*_bound``: the largest |r - o| between a model result r and the oracle's o (float64; inf where
    the model cannot bound it); ``var_unrounded``: the oracle's float32 var before its cast;
    ``*_code_lo`` / ``*_code_hi``: the codes of the lowest and highest quantized value x in the
    envelope. The per-call scalars (step_size, eps*c2, 1 - lr*wd) move every element the same way;
    ``var_scalar_share`` is how much of each element's bound they account for (the bound with the
    scalars free, minus the bound with them fixed at the oracle's), so that a bias check can allow
    that share to lean one way."""
    var_unrounded: np.ndarray
    var_bound: np.ndarray
    var_scalar_share: np.ndarray      # the part of var_bound the per-call scalars account for
    var_evaluation: np.ndarray        # a label per element: equal labels, equal inputs
    absmax_m_bound: np.ndarray
    absmax_v_bound: np.ndarray
    m_code_lo: np.ndarray
    m_code_hi: np.ndarray
    v_code_lo: np.ndarray
    v_code_hi: np.ndarray


# ---- intervals: (lo, hi) float64 arrays ----

_OUTWARD = 2.0 ** -51          # relative: at least one float64 ulp of any normal value
_TINY = 2.0 ** -1022           # absolute: covers subnormal float64 results


def _widen(lo, hi):
    """At least one float64 ulp outward: the exact result of a float64 operation lies inside (and a
    float32 value stays the nearest float32 to either end)."""
    with np.errstate(invalid="ignore", over="ignore"):
        return (lo - (np.abs(lo) * _OUTWARD + _TINY), hi + (np.abs(hi) * _OUTWARD + _TINY))


def _to_f32(x, direction: int) -> np.ndarray:
    """x (float64) rounded to float32 to nearest (0), down (-1) or up (+1), as float64."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = np.asarray(x, F64).astype(F32)
        if direction < 0:
            r = np.where(r.astype(F64) > x, np.nextafter(r, F32(-np.inf)), r)
        elif direction > 0:
            r = np.where(r.astype(F64) < x, np.nextafter(r, F32(np.inf)), r)
    return np.asarray(r, F32).astype(F64)


def _nearest(iv):
    """A correctly rounded operation whose exact results lie in ``iv`` (as computed in float64)."""
    lo, hi = _widen(*iv)
    return _to_f32(lo, 0), _to_f32(hi, 0)


def _hull(*ivs):
    return (np.minimum.reduce([np.asarray(i[0], F64) for i in ivs]),
            np.maximum.reduce([np.asarray(i[1], F64) for i in ivs]))


def _ends(iv):
    """The distinct ends of an interval: one where it is a single value everywhere."""
    lo, hi = iv
    return (lo,) if np.array_equal(lo, hi) else (lo, hi)


def _exact_product(x, y):
    """The exact products of the two intervals (float32 endpoints: exact in float64)."""
    with np.errstate(all="ignore"):
        vals = [a * b for a in _ends(x) for b in _ends(y)]
    if len(vals) == 1:
        return vals[0], vals[0]
    return np.minimum.reduce(vals), np.maximum.reduce(vals)


def _exact_sum(x, y):
    with np.errstate(all="ignore"):
        return x[0] + y[0], x[1] + y[1]


def _exact_difference(x, y):
    with np.errstate(all="ignore"):
        return x[0] - y[1], x[1] - y[0]


def _product(x, y):
    return _nearest(_exact_product(x, y))


def _fusable_product(x, y):
    """A product whose sum may be fused: exact (fused) or rounded (not)."""
    exact = _exact_product(x, y)
    return _hull(_widen(*exact), _nearest(exact))


def _sum(x, y):
    return _nearest(_exact_sum(x, y))


def _difference(x, y):
    return _nearest(_exact_difference(x, y))


def _faithful(values, exact):
    """Faithful results of the corner values (float64 results of one float64 operation, ``exact``
    where that result is the exact one and a float32 value): the lowest and highest float32 any
    faithful rounding of them can give."""
    downs, ups = [], []
    for v, is_exact in zip(values, exact):
        lo, hi = _widen(v, v)
        downs.append(np.where(is_exact, v, _to_f32(lo, -1)))
        ups.append(np.where(is_exact, v, _to_f32(hi, +1)))
    return np.minimum.reduce(downs), np.maximum.reduce(ups)


def _is_f32(v):
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(v, F64).astype(F32).astype(F64) == v


def _faithful_quotient(x, y):
    """x / y, faithful, for divisors that do not contain 0 (else every value)."""
    values, exact = [], []
    for a in _ends(x):
        for b in _ends(y):
            with np.errstate(all="ignore"):
                q = a / b
                exact.append(_is_f32(q) & (q * b == a))
            values.append(q)
    lo, hi = _faithful(values, exact)
    return _unbounded_where(lo, hi, _contains_zero(y))


def _faithful_reciprocal(y):
    one = (F64(1), F64(1))
    return _faithful_quotient(one, y)


def _quotient(x, y):
    """Division as the model allows it: faithful, or a faithful reciprocal times the dividend, that
    product rounded or fused into the next addition."""
    return _hull(_faithful_quotient(x, y), _fusable_product(x, _faithful_reciprocal(y)))


def _faithful_sqrt(x):
    values, exact = [], []
    for a in _ends(x):
        with np.errstate(invalid="ignore"):
            r = np.sqrt(np.maximum(a, 0.0))
        exact.append(_is_f32(r) & (r * r == np.maximum(a, 0.0)))
        values.append(r)
    lo, hi = _faithful(values, exact)
    return _unbounded_where(lo, hi, x[0] < 0)


def _contains_zero(iv):
    return (iv[0] <= 0) & (iv[1] >= 0)


def _unbounded_where(lo, hi, mask):
    return np.where(mask, -_INF, lo), np.where(mask, _INF, hi)


def _point(x):
    v = np.asarray(x, F32).astype(F64)
    return v, v


def _faithful_pow(base: np.float32, exponent: np.float32):
    """beta^t, faithful; ``math.pow`` is within one float64 ulp of the exact power."""
    try:
        p = F64(math.pow(float(base), float(exponent)))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            p = np.power(F64(base), F64(exponent))
    p = np.asarray(p, F64)
    return _faithful([p], [_is_f32(p)])


# ---- the call ----

def _bound(iv, center):
    """max |r - center| over the envelope; inf where it is not finite but the center is."""
    c = np.asarray(center, F64)
    with np.errstate(invalid="ignore"):
        b = np.maximum(iv[1] - c, c - iv[0])
    return np.where(np.isfinite(c) & ~(b >= 0), _INF, np.where(np.isfinite(c), b, 0.0))


def _block_max(iv, starts):
    return np.maximum.reduceat(iv[0], starts), np.maximum.reduceat(iv[1], starts)


def _magnitude(iv):
    lo, hi = iv
    low = np.where(_contains_zero(iv), 0.0, np.minimum(np.abs(lo), np.abs(hi)))
    return low, np.maximum(np.abs(lo), np.abs(hi))


def _codes(iv, qmap: np.ndarray, center: np.ndarray):
    """Codes of the ends of the envelope of x; a NaN end (an envelope the model cannot bound)
    opens to the whole map, an oracle NaN stays NaN (code 0 at both ends)."""
    search = _code_search(_qmap_key(qmap), sign_fix=True)
    lo = np.where(np.isnan(iv[0]), -_INF, iv[0])
    hi = np.where(np.isnan(iv[1]), _INF, iv[1])
    nan = np.isnan(center)
    lo = np.where(nan, np.nan, lo).astype(F32)
    hi = np.where(nan, np.nan, hi).astype(F32)
    return search(lo), search(hi)


def apply_adam_w_quant_envelope(var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step, *,
                                lr, beta1, beta2, weight_decay, eps, gnorm_scale,
                                oracle: dict, block_size: int = 256) -> AawqEnvelope:
    """The model's envelope of every output of one call. ``oracle``: the ``cann`` oracle's result for
    the same call with ``details=True``; the arguments are those of ``apply_adam_w_quant``."""
    var = np.asarray(var)
    n = var.size
    if n == 0:
        no_codes = np.zeros(0, np.uint8)
        return AawqEnvelope(np.zeros(0, F32), np.zeros(0), np.zeros(0), np.zeros(0, np.intp),
                            np.zeros(0), np.zeros(0), no_codes, no_codes, no_codes, no_codes)
    qm = np.asarray(qmap_m, F32).reshape(-1)
    qv = np.asarray(qmap_v, F32).reshape(-1)
    blocks = -(-n // block_size)
    block_of = np.arange(n) // block_size
    starts = np.arange(0, n, block_size)
    hp = {k: F32(x) for k, x in (("lr", lr), ("b1", beta1), ("b2", beta2), ("wd", weight_decay),
                                   ("eps", eps), ("gs", gnorm_scale))}
    one = _point(F32(1))
    lr_, b1, b2, wd, eps_, gs = (_point(hp[k]) for k in ("lr", "b1", "b2", "wd", "eps", "gs"))
    step_val = int(np.asarray(step).reshape(-1)[0])
    t = F32(np.int64(step_val)) + F32(1)
    with np.errstate(all="ignore"):
        # the per-call scalars
        c1 = _difference(one, _faithful_pow(hp["b1"], t))
        c2 = _faithful_sqrt(_difference(one, _faithful_pow(hp["b2"], t)))
        neg_lr = (-lr_[1], -lr_[0])
        free = {"step_size": _quotient(_product(neg_lr, c2), c1), "eps_c2": _product(eps_, c2),
                "wd_factor": _nearest(_exact_difference(one, _fusable_product(lr_, wd)))}
        oracle_scalars = _scalars("cann", step_val, lr, beta1, beta2, weight_decay, eps, gnorm_scale)
        pinned = {k: _point(getattr(oracle_scalars, k)) for k in free}
        # per element
        var32 = _point(var.reshape(-1).astype(F32))
        g = _product(_point(np.asarray(grad).reshape(-1).astype(F32)), gs)
        am = np.asarray(absmax_m, F32).reshape(-1)[:blocks]
        av = np.asarray(absmax_v, F32).reshape(-1)[:blocks]
        m0 = _product(_point(qm[np.asarray(m).reshape(-1)]), _point(am[block_of]))
        v0 = _product(_point(qv[np.asarray(v).reshape(-1)]), _point(av[block_of]))
        m1 = _nearest(_exact_sum(_fusable_product(m0, b1), _fusable_product(g, _difference(one, b1))))
        v1 = _nearest(_exact_sum(_fusable_product(v0, b2),
                                 _fusable_product(_product(g, g), _difference(one, b2))))
        root = _faithful_sqrt(v1)

        def new_var(sc):
            den = _sum(root, sc["eps_c2"])
            p = _sum(var32, _quotient(_product(m1, sc["step_size"]), den))
            return _product(p, sc["wd_factor"]) if hp["wd"] > 0 else p

        p, p_pinned = new_var(free), new_var(pinned)
        # quantization: absmax per block, x = state / absmax (1 where the oracle's absmax is 0)
        a_m = _block_max(_magnitude(m1), starts)
        a_v = _block_max(v1, starts)
        oracle_am = np.asarray(oracle["absmax_m"], F32).reshape(-1)
        oracle_av = np.asarray(oracle["absmax_v"], F32).reshape(-1)

        def divisor(iv, center):
            zero = center == 0
            return np.where(zero, 1.0, iv[0])[block_of], np.where(zero, 1.0, iv[1])[block_of]

        xm = _quotient(m1, divisor(a_m, oracle_am))
        xv = _quotient(v1, divisor(a_v, oracle_av))
    # elements with equal inputs compute alike: one evaluation, however often it is repeated (a
    # 64-bit mix of the inputs' bits; a collision only merges two evaluations into one)
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in (var32[0], g[0], m0[0], v0[0]):
            bits = column.astype(F32).view(np.uint32).astype(np.uint64)
            key = (key ^ bits) * np.uint64(0x9E3779B97F4A7C15)
    _, evaluation = np.unique(key, return_inverse=True)
    center = np.asarray(oracle["var_unrounded"], F32).reshape(-1)
    m_lo, m_hi = _codes(xm, qm, np.asarray(oracle["m_normalized"]).reshape(-1))
    v_lo, v_hi = _codes(xv, qv, np.asarray(oracle["v_normalized"]).reshape(-1))
    var_bound = _bound(p, center)
    return AawqEnvelope(var_unrounded=center, var_bound=var_bound,
                        var_scalar_share=np.maximum(var_bound - _bound(p_pinned, center), 0.0),
                        var_evaluation=evaluation.reshape(-1),
                        absmax_m_bound=_bound(a_m, oracle_am), absmax_v_bound=_bound(a_v, oracle_av),
                        m_code_lo=m_lo, m_code_hi=m_hi, v_code_lo=v_lo, v_code_hi=v_hi)
