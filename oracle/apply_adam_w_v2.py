"""aclnnApplyAdamWV2 in NumPy: the vendor golden's float32 arithmetic, and the bound of a correct device.

``cann`` (notes apply_adam_w.md section 6.2): the vendor golden follows torch's single-tensor AdamW
in float32. Per element, every input up-cast exactly to float32:

    t     = float32(step) + 1
    g     = -grad if maximize else grad
    p     = var*(1 - lr*wd)
    m1    = fma(w, g - m, m) if |w| < 0.5 else fma(w - 1, g - m, g),   w = 1 - beta1 (torch lerp)
    v1    = fma((1 - beta2)*g, g, v*beta2)                             (torch addcmul)
    ss    = lr/(1 - beta1^t);  s2 = sqrt(1 - beta2^t)
    vv    = max(maxGradNorm, v1) if amsgrad else v1                    (NaN propagates)
    var'  = p + ((-ss)*m1)/(sqrt(vv)/s2 + eps)

with correctly rounded sqrt and beta^t (the golden's torch sqrt and NumPy float32 power are not
correctly rounded; the reproducible choice is). Each output is rounded once to its own tensor's
dtype, to nearest even; maxGradNorm is written (vv) only with amsgrad, else returned unchanged.

``doc``: the document's formula in float64 with t = step, rounded to each output's dtype.

The bound (``model_bound``): what a correct implementation may differ from this result by, per
element, under the arithmetic model (spec/precision.py): faithfully rounded sqrt, pow and division,
fused or unfused multiply-adds, the vendor's orders of operations (the golden's above, the A2/A3
kernels' ``(g - m)*(1 - b1) + m`` and ``var*(1-lr*wd) - (m1/denom)*ss``, the 950 kernel's
``m*b1 - g*(b1 - 1)``), and the final cast in either tie direction. It is a running error bound:
each quantity carries an absolute bound on its distance from the exact value, every rounding adds
``k*u*|value|`` (u = 2^-24, k = 2 for a faithful result), and cancellation widens it through the
magnitudes of the operands (|g| + |m| for m', 1 - beta^t near 0). The oracle's own result is one
such evaluation, so a correct result lies within twice the bound of it.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.adamw_arithmetic import (F32, decay_factor_spread, evaluation_labels, fma_f32,
                                                      pow_f32, round_half_away, round_to_dtype)
from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case

__all__ = ["apply_adam_w_v2", "model_bound", "cast_bound", "from_case"]

U = 2.0 ** -24            # float32 unit roundoff
_BF16 = np.dtype(ml_dtypes.bfloat16)


CHUNK = 1 << 14          # elements per pass: the temporaries of one chunk stay in the cache


def _f32(x) -> np.ndarray:
    return np.asarray(x, dtype=F32)


def _scalars(lr, beta1, beta2, weight_decay, eps, step) -> dict:
    """The hyper-parameters as the C floats the API receives, and what is computed from them once."""
    lr, b1, b2, wd, eps = (F32(x) for x in (lr, beta1, beta2, weight_decay, eps))
    one = F32(1)
    t = F32(np.asarray(step).reshape(-1)[0]) + one
    with np.errstate(all="ignore"):
        bc1 = one - pow_f32(b1, t)
        bc2 = one - pow_f32(b2, t)
        return dict(lr=lr, b1=b1, b2=b2, wd=wd, eps=eps, t=t, w=one - b1, one_b2=one - b2,
                    decay=one - lr * wd, neg_ss=-(lr / bc1),
                    s2=F32(math.sqrt(bc2)) if bc2 >= 0 else F32(np.nan))


def _elementwise(var, m, v, mgn, grad, sc: dict, amsgrad: bool, maximize: bool, scratch=None):
    """The golden's per-element float32 arithmetic on flat arrays: (var', m', v', max used).
    ``scratch``: a float64 array of the inputs' size, reused by both multiply-adds."""
    one = F32(1)
    g = np.negative(grad, dtype=F32) if maximize else _f32(grad)
    m32 = _f32(m)
    with np.errstate(all="ignore"):
        d = g - m32
        w = sc["w"]
        m1 = fma_f32(w, d, m32, scratch=scratch) if abs(w) < 0.5 else fma_f32(w - one, d, g, scratch=scratch)
        np.multiply(g, sc["one_b2"], out=d)
        vb2 = np.multiply(v, sc["b2"], dtype=F32)
        v1 = fma_f32(d, g, vb2, scratch=scratch)
        vv = np.maximum(_f32(mgn), v1) if amsgrad else v1
        # var' = var*(1 - lr*wd) + ((-ss)*m1)/(sqrt(vv)/s2 + eps), each operation rounded
        np.sqrt(vv, out=vb2)
        np.divide(vb2, sc["s2"], out=vb2)
        np.add(vb2, sc["eps"], out=vb2)
        np.multiply(m1, sc["neg_ss"], out=d)
        np.divide(d, vb2, out=d)
        var1 = np.multiply(var, sc["decay"], dtype=F32)
        np.add(var1, d, out=var1)
    return var1, m1, v1, vv


def apply_adam_w_v2(var, m, v, max_grad_norm, grad, step, *, lr: float, beta1: float, beta2: float,
                    weight_decay: float, eps: float, amsgrad: bool, maximize: bool,
                    profile: str = "cann", details: bool = False) -> dict:
    """One step. Arrays of one shape (``max_grad_norm`` may be None); ``step`` one element (INT64 or
    FLOAT32). Returns var, m, v and max_grad_norm (None when not given) in their own dtypes; with
    ``details`` also the float32 results before the casts and the model's per-output bounds."""
    if profile == "doc":
        return _doc(var, m, v, max_grad_norm, grad, step, lr, beta1, beta2, weight_decay, eps, amsgrad,
                    maximize)
    shape = np.shape(var)
    inputs = {"var": var, "m": m, "v": v, "max_grad_norm": max_grad_norm, "grad": grad}
    flat = {k: (None if x is None else np.asarray(x).reshape(-1)) for k, x in inputs.items()}
    sc = _scalars(lr, beta1, beta2, weight_decay, eps, step)
    names = ("var", "m", "v") + (("max_grad_norm",) if amsgrad and max_grad_norm is not None else ())
    out = {k: np.empty(flat[k].size, flat[k].dtype) for k in names}
    f32 = {k: np.empty(flat[k].size, F32) for k in names} if details else None
    n = flat["var"].size
    scratch = np.empty(min(n, CHUNK), np.float64)
    for start in range(0, n, CHUNK):
        part = slice(start, start + CHUNK)
        size = min(CHUNK, n - start)
        results = _elementwise(*(None if flat[k] is None else flat[k][part]
                                 for k in ("var", "m", "v", "max_grad_norm", "grad")), sc, amsgrad, maximize,
                               scratch[:size])
        for k, x in zip(("var", "m", "v", "max_grad_norm"), results):
            if k in out:
                out[k][part] = x if out[k].dtype == F32 else round_to_dtype(x, out[k].dtype)
                if details:
                    f32[k][part] = x
    result = {k: x.reshape(shape) for k, x in out.items()}
    result["max_grad_norm"] = (None if max_grad_norm is None else result["max_grad_norm"] if amsgrad
                               else np.array(max_grad_norm, copy=True))
    if details:
        f32 = {k: x.reshape(shape) for k, x in f32.items()}
        f32.setdefault("max_grad_norm", None)
        errors = model_bound(_f32(var), _f32(m), _f32(v), None if max_grad_norm is None else _f32(max_grad_norm),
                             -_f32(grad) if maximize else _f32(grad), sc["t"], sc["lr"], sc["b1"], sc["b2"],
                             sc["wd"], sc["eps"], amsgrad)
        result["f32"] = f32
        result["float32_bound"] = {k: np.nan_to_num(np.asarray(errors[k], np.float64), nan=np.inf)
                                   for k in ("var", "m", "v", "max_grad_norm") if errors[k] is not None}
        result["lean"] = {"var": errors["lean_var"]}
        result["bound"] = {name: (cast_bound(f32[name], result[name], errors[name], result[name].dtype)
                                  if errors[name] is not None else np.zeros(np.shape(result[name])))
                           for name in ("var", "m", "v", "max_grad_norm") if result[name] is not None}
    return result


# ---- the model's bound ----

def _sqrt_bound(x: np.ndarray, ex: np.ndarray) -> np.ndarray:
    """|sqrt(x') - sqrt(x)| for |x' - x| <= ex, plus a faithful sqrt's rounding."""
    x = np.maximum(x, 0.0)
    root = np.sqrt(x)
    lower = np.sqrt(np.maximum(x - ex, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        moved = np.where(ex > 0, ex / np.maximum(root + lower, np.sqrt(ex)), 0.0)
    return moved + 2 * U * root


def _scalar_rel(one_minus_pow: float, power: float) -> float:
    """Relative bound of 1 - beta^t: a faithful pow (2u of beta^t) and the subtraction's rounding."""
    if one_minus_pow == 0 or not math.isfinite(one_minus_pow):
        return math.inf
    return (2 * U * abs(power)) / abs(one_minus_pow) + 2 * U


def model_bound(var, m, v, mgn, g, t, lr, b1, b2, wd, eps, amsgrad) -> dict:
    """Per output, the largest |correct - oracle| of the float32 results under the arithmetic model
    (float64, output-shaped; None for maxGradNorm without amsgrad).

    Magnitudes are taken from the exact operands in float64; ``k`` counts the roundings an order of
    the vendor's can apply to one term, with a faithful operation worth two unit roundoffs."""
    f = np.float64
    m_exact = _moment_exact(m, g, F32(b1))
    var, m, v, g = (np.asarray(a, dtype=f) for a in (var, m, v, g))
    lr, b1, b2, wd, eps = (float(x) for x in (lr, b1, b2, wd, eps))
    t = float(t)
    w, w2 = 1.0 - b1, 1.0 - b2
    with np.errstate(all="ignore"):
        m1 = b1 * m + w * g
        v1 = b2 * v + w2 * g * g
        decay = 1.0 - lr * wd
        p = var * decay
        # every order of the vendor's for each quantity, every operand's rounding counted
        e_m1 = 4 * U * (np.abs(g - m) * (abs(w) + abs(b1)) + np.abs(m * b1) + np.abs(g * w) + np.abs(m1))
        e_v1 = 4 * U * (np.abs(v * b2) + g * g * abs(w2) + np.abs(v1))
        e_p = 4 * U * (np.abs(var) * (abs(lr * wd) + abs(decay)) + np.abs(p))
        try:
            p1 = math.pow(b1, t)
            p2 = math.pow(b2, t)
        except (ValueError, OverflowError):
            p1 = p2 = math.nan
        bc1, bc2 = 1.0 - p1, 1.0 - p2
        rel_ss = _scalar_rel(bc1, p1) + 2 * U
        rel_s2 = 0.5 * _scalar_rel(bc2, p2) + 4 * U          # sqrt, and 1/sqrt where the kernel inverts
        ss = lr / bc1 if bc1 else math.inf
        s2 = math.sqrt(bc2) if bc2 >= 0 else math.nan
        if amsgrad:
            vv = np.maximum(np.asarray(mgn, dtype=f), v1)
            e_vv = np.where(v1 >= np.asarray(mgn, dtype=f) - e_v1, e_v1, 0.0)
        else:
            vv, e_vv = v1, e_v1
        sq = np.sqrt(np.maximum(vv, 0.0))
        e_sq = _sqrt_bound(vv, e_vv)
        q = sq / s2
        e_q = e_sq / s2 + np.abs(q) * (rel_s2 + 4 * U)
        den = q + eps
        e_den = e_q + 2 * U * np.abs(den)
        upd = ss * m1 / den
        room = np.maximum(np.abs(den) - e_den, np.abs(den) * 0.5)
        e_upd = abs(ss) * e_m1 / room + np.abs(upd) * (rel_ss + e_den / room + 6 * U)
        e_var = e_p + e_upd + 4 * U * (np.abs(p) + np.abs(upd))
        # what may lean one way on every element: the per-call scalars (the oracle's and another
        # implementation's, each within its relative bound of the exact one), every faithful
        # operation of the update (sqrt, the divisions; a reciprocal's and its product's rounding)
        # choosing one neighbour, and the two values of 1 - lr*wd; the moments lean no way
        lean_var = (2 * np.abs(upd) * (rel_ss + rel_s2 + 16 * U)
                    + np.abs(var) * decay_factor_spread(F32(lr), F32(wd)))
    # the oracle is one evaluation of the model: a correct one lies within twice the bound of it
    return {"var": 2 * e_var, "m": np.where(m_exact, 0.0, 2 * e_m1), "v": 2 * e_v1,
            "max_grad_norm": 2 * e_vv if amsgrad else None, "lean_var": lean_var}


def _moment_exact(m, g, b1: np.float32) -> np.ndarray:
    """Where every vendor order of m' = m + (1 - b1)*(g - m) (the golden's lerp, both branches;
    A2/A3's (g - m)*(1 - b1) + m; 950's m*b1 - g*(b1 - 1)) rounds no step: there m' is the exact
    value in every order, and a correct implementation returns it (the tie cases are built so)."""
    m32, g32 = np.asarray(m, F32).reshape(-1), np.asarray(g, F32).reshape(-1)
    m64, g64 = m32.astype(np.float64), g32.astype(np.float64)
    one = F32(1)
    with np.errstate(all="ignore"):
        w, b1m1, wm1 = np.float64(one - b1), np.float64(b1 - one), np.float64((one - b1) - one)
        # the per-call factors themselves exact in float32 (else an order's m' is not the exact one)
        if not (w == 1.0 - np.float64(b1) and b1m1 == np.float64(b1) - 1.0 and wm1 == w - 1.0):
            return np.zeros(np.shape(m), bool)
        d = g64 - m64
        steps = [d, d * w, d * w + m64, d * wm1, d * wm1 + g64, m64 * np.float64(b1),
                 g64 * b1m1, m64 * np.float64(b1) - g64 * b1m1]
        exact = np.isfinite(m64) & np.isfinite(g64)
        for x in steps:
            exact &= np.isfinite(x) & (x.astype(F32).astype(np.float64) == x)
        # the float64 sums above are exact themselves only where their TwoSum error is zero
        for a, b in ((d * w, m64), (d * wm1, g64), (m64 * np.float64(b1), -(g64 * b1m1))):
            total = a + b
            back = total - a
            exact &= ((a - (total - back)) + (b - back)) == 0
    return exact.reshape(np.shape(m))


def cast_bound(x32: np.ndarray, expected: np.ndarray, err: np.ndarray, dtype) -> np.ndarray:
    """The bound after the cast to ``dtype``: any float32 result within ``err`` of the oracle's
    ``x32``, rounded to nearest with ties either way, is at most this far from ``expected``."""
    err = np.nan_to_num(np.asarray(err, dtype=np.float64), nan=np.inf)
    if np.dtype(dtype) == np.dtype(np.float32):
        return err
    x = np.asarray(x32, dtype=np.float64)
    with np.errstate(all="ignore"):
        lo, hi = _f32_outward(x - err, -1), _f32_outward(x + err, +1)
        e = np.asarray(expected).astype(np.float64)
        worst = np.zeros_like(x)
        for end in (lo, hi):
            for rounded in (round_to_dtype(end, dtype), round_half_away(end, dtype)):
                worst = np.maximum(worst, np.abs(rounded.astype(np.float64) - e))
    return np.where(np.isfinite(x), worst, 0.0)


def _f32_outward(x: np.ndarray, direction: int) -> np.ndarray:
    """float64 ``x`` to float32, rounded outward (down for -1, up for +1)."""
    with np.errstate(all="ignore"):
        y = x.astype(F32)
        past = (y.astype(np.float64) > x) if direction < 0 else (y.astype(np.float64) < x)
        return np.where(past, np.nextafter(y, F32(direction * np.inf)), y).astype(F32)


# ---- the document's formula ----

def _doc(var, m, v, mgn, grad, step, lr, b1, b2, wd, eps, amsgrad, maximize) -> dict:
    """The document's formula in float64, t = step, each output rounded to its dtype."""
    f = np.float64
    t = float(np.asarray(step).reshape(-1)[0])
    g = np.asarray(grad, dtype=f) * (-1.0 if maximize else 1.0)
    theta = np.asarray(var, dtype=f)
    with np.errstate(all="ignore"):
        m1 = b1 * np.asarray(m, dtype=f) + (1 - b1) * g
        v1 = b2 * np.asarray(v, dtype=f) + (1 - b2) * g * g
        vv = np.maximum(np.asarray(mgn, dtype=f), v1) if amsgrad and mgn is not None else v1
        m_hat, v_hat = m1 / (1 - b1 ** t), vv / (1 - b2 ** t)
        var1 = theta - lr * m_hat / (np.sqrt(v_hat) + eps) - lr * wd * theta

    def cast(x, like):
        return np.asarray(x).astype(F32).astype(np.asarray(like).dtype)

    return {"var": cast(var1, var), "m": cast(m1, m), "v": cast(v1, v),
            "max_grad_norm": None if mgn is None else (cast(vv, mgn) if amsgrad else np.array(mgn, copy=True))}


# ---- from a Case ----

def from_case(case: Case, profile: str, product: str) -> OracleResult:
    """The expected outputs of one ApplyAdamWV2 call on ``product``: per output its view, and for
    the cann profile the inputs of the model-derived standards (``bound`` for model-bound@1;
    ``envelope`` for model-bound@3: the float32 bound, the oracle's float32 result, the lean, the
    evaluations and the product's tie rule of the output's cast)."""
    from aclnn_conformance.spec.apply_adam_w_v2 import ARITHMETIC, MAX_GRAD_NORM
    from aclnn_conformance.spec.precision import cast_ties, dtype_name
    vals = {n: (None if a is None else a.values()) for n, a in case.tensors.items()}
    a = case.attrs
    out = apply_adam_w_v2(vals["varRef"], vals["mRef"], vals["vRef"], vals[MAX_GRAD_NORM], vals["grad"],
                          vals["step"], lr=a["lr"], beta1=a["beta1"], beta2=a["beta2"],
                          weight_decay=a["weightDecay"], eps=a["eps"], amsgrad=bool(a["amsgrad"]),
                          maximize=bool(a["maximize"]), profile=profile, details=profile == "cann")
    names = {"varRef": "var", "mRef": "m", "vRef": "v", MAX_GRAD_NORM: "max_grad_norm"}
    views = {n: out[k] for n, k in names.items() if out[k] is not None}
    aux: dict = {}
    if "bound" not in out:
        return OracleResult(views=views, aux=aux)
    evaluation = evaluation_labels(*(vals[n] for n in ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad")))
    for name, key in names.items():
        if key not in out["bound"]:
            continue
        unrounded = out["f32"].get(key)
        if unrounded is None:                       # maxGradNorm without amsgrad: the input itself
            unrounded = np.asarray(vals[name]).astype(F32)
        bound32 = out["float32_bound"].get(key, np.zeros(np.shape(views[name])))
        lean = out["lean"].get(key, np.zeros(np.shape(views[name])))
        # a product without the kernel computes nothing (only an empty call succeeds there)
        ties = (cast_ties(ARITHMETIC, product, dtype_name(np.asarray(views[name]).dtype))
                if product in ARITHMETIC.final_cast else "even")
        aux[name] = {"bound": out["bound"][key],
                     "envelope": {"bound": bound32, "unrounded": unrounded,
                                  "scalar_share": _lean_with_ties(lean, unrounded, bound32, views[name], ties),
                                  "evaluation": evaluation, "ties": ties}}
    return OracleResult(views=views, aux=aux)


def _lean_with_ties(lean: np.ndarray, unrounded: np.ndarray, bound32: np.ndarray, expected: np.ndarray,
                    ties: str) -> np.ndarray:
    """The lean in the unit of the fp16/bf16 comparison: where the tie direction is open, an
    element whose float32 result may be an exact tie may round up one output ulp on every element."""
    dtype = np.asarray(expected).dtype
    lean = np.asarray(lean, np.float64)
    if dtype == np.dtype(F32) or ties != "either":
        return lean
    u = np.asarray(unrounded, F32)
    with np.errstate(all="ignore"):
        lo = round_to_dtype(_f32_outward(u.astype(np.float64) - bound32, -1), dtype)
        hi = round_to_dtype(_f32_outward(u.astype(np.float64) + bound32, +1), dtype)
        at_tie = (round_half_away(u, dtype).astype(np.float64) != round_to_dtype(u, dtype).astype(np.float64))
        spans = lo.astype(np.float64) != hi.astype(np.float64)
        ulp = np.abs(np.nextafter(np.asarray(expected), np.asarray(np.inf, dtype)).astype(np.float64)
                     - np.asarray(expected).astype(np.float64))
    return lean + np.where(at_tie | spans, np.nan_to_num(ulp, nan=0.0, posinf=0.0), 0.0)
