"""NumPy reference for aclnnApplyAdamWQuant (8-bit blockwise AdamW).

What a correct implementation returns, in two profiles (design brief section 3):

``cann`` (default)
    Bit-faithful to the vendor's float32 golden (notes ``apply_adam_w_quant.md`` sections 4 and 9):
    t = step + 1, decoupled weight decay applied after the Adam step and skipped when wd <= 0,
    gradient scaled by gnormScale, every operation rounded to float32 in the golden's order, var
    rounded once to its dtype at the end.
``doc``
    The vendor document's formula read literally (t = step, subtractive decay on the input weight,
    always applied), computed in float64.

Both profiles share the quantization: per block of ``block_size`` consecutive elements of the
flattened tensors the new absmax is the block's maximum (|m| for m, v itself for v), the state is
divided by it (by 1 when it is 0) and stored as the index of the nearest qmap entry, the lowest
index on an exact tie.

The nearest-code search (``nearest_code``) is exact with respect to its definition
``argmin_j float32(|x - qmap[j]|)`` (first index on ties, NaN -> 0) for every float32 x. For a
strictly ascending finite qmap it runs from a precomputed table indexed by the upper 16 bits of x's
float32 bit pattern; everything the table cannot decide exactly goes through a slower exact path.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from aclnn_conformance.oracle.adamw_arithmetic import VAR_DTYPES, pow_f32, pow_f64, round_to_dtype

__all__ = [
    "apply_adam_w_quant",
    "nearest_code",
    "block_absmax",
    "dequantize",
    "round_to_dtype",
    "PROFILES",
    "VAR_DTYPES",
]

PROFILES = ("cann", "doc")
QMAP_SIZE = 256

F32 = np.float32
# Elements handled per step of the chunked loops: large enough that NumPy's per-call overhead is
# small, small enough that the temporaries stay in the CPU caches.
_CHUNK = 1 << 16


# --------------------------------------------------------------------------------------------------
# Small helpers the suite reuses
# --------------------------------------------------------------------------------------------------


def block_absmax(values, block_size: int = 256, *, absolute: bool = True) -> np.ndarray:
    """Per block of ``block_size`` consecutive elements of ``values`` (flattened), the maximum of
    ``|values|`` (``absolute=True``, the new absmax of m) or of ``values`` itself
    (``absolute=False``, the new absmax of v in the golden: ``max(v)``). The last block may be
    partial and uses only its valid elements. NaN propagates. Returns float32, ceil(n/block_size)
    elements.
    """
    v = np.asarray(values, dtype=F32).reshape(-1)
    if absolute:
        v = np.abs(v)
    n = v.size
    full = n // block_size
    out = np.empty(-(-n // block_size), dtype=F32)
    if full:
        out[:full] = v[: full * block_size].reshape(full, block_size).max(axis=1)
    if n % block_size:
        out[full] = v[full * block_size:].max()
    return out


def dequantize(codes, qmap, absmax, block_size: int = 256) -> np.ndarray:
    """``qmap[code] * absmax[block]`` per element, in float32 (the dequantization of notes
    section 4: ``m0 = qmap_m[m_code] * absmax_m[k]``). Same shape as ``codes``."""
    c = np.asarray(codes)
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    a = np.asarray(absmax, dtype=F32).reshape(-1)
    flat = c.reshape(-1)
    blocks = np.arange(flat.size) // block_size
    return (q[flat] * a[blocks]).reshape(c.shape)


def nearest_code(x, qmap) -> np.ndarray:
    """Index of the qmap entry nearest to each ``x``: ``argmin_j float32(|x - qmap[j]|)``, the lowest
    index on an exact tie, NaN -> 0 (notes section 4 "nearest(x, qmap)", the golden's definition;
    the kernel's bisection gives the same codes for strictly ascending qmaps).

    ``x``: float32, any shape; ``qmap``: 256 float32 values (any shape). Returns uint8 codes with the
    shape of ``x``. Exact for every float32 x, +-0, subnormals, +-inf and values beyond the ends
    included. Note that the definition is taken literally in float32: for |x| so large that the
    distances to several entries round to the same float32, the lowest of those indices wins.

    Precondition for speed (not for correctness): a strictly ascending finite qmap, as the vendor
    document requires. A non-decreasing finite qmap uses a slower exact search, any other qmap the
    literal argmin.
    """
    xa = np.asarray(x, dtype=F32)
    search = _code_search(_qmap_key(qmap), sign_fix=False)
    flat = np.ascontiguousarray(xa).reshape(-1)
    out = np.empty(flat.size, dtype=np.uint8)
    for s in range(0, flat.size, _CHUNK):
        out[s:s + _CHUNK] = search(flat[s:s + _CHUNK])
    return out.reshape(xa.shape)


# --------------------------------------------------------------------------------------------------
# Nearest-code search
# --------------------------------------------------------------------------------------------------

def _qmap_key(qmap) -> bytes:
    q = np.ascontiguousarray(np.asarray(qmap, dtype=F32).reshape(-1))
    if q.size != QMAP_SIZE:
        raise ValueError(f"qmap must have {QMAP_SIZE} elements, got {q.size}")
    return q.tobytes()


@functools.lru_cache(maxsize=32)
def _code_search(qmap_bytes: bytes, sign_fix: bool) -> "_CodeSearch":
    return _CodeSearch(np.frombuffer(qmap_bytes, dtype=F32).copy(), sign_fix)


def _argmin_codes(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """The definition itself: first index of the smallest float32 distance, NaN -> 0."""
    out = np.empty(x.size, dtype=np.uint8)
    step = 1 << 12
    for s in range(0, x.size, step):
        xs = x[s:s + step]
        out[s:s + step] = np.argmin(np.abs(xs[:, None] - q[None, :]), axis=1)
    out[np.isnan(x)] = 0
    return out


def _sorted_codes(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Exact ``argmin`` semantics for a non-decreasing finite qmap, without the 256-wide argmin.

    With K = #{j : q[j] <= x}, the float32 distances d_j = |x - q[j]| are non-increasing for
    j < K and non-decreasing for j >= K (rounding is monotone). So the minimum is at lo = K-1 or
    hi = K; if hi is strictly nearer it is also the first index with that distance. Otherwise the
    answer is the first j <= lo with d_j == d_lo: usually lo itself, but rounding can make several
    left-hand distances equal (huge |x|, duplicated entries); a bisection over j finds the first.
    """
    x = np.asarray(x, dtype=F32)
    last = q.size - 1
    k = np.searchsorted(q, x, side="right")               # NaN sorts after everything: K = 256
    lo = np.maximum(k - 1, 0)
    hi = np.minimum(k, last)
    d_lo = np.abs(x - q[lo])
    d_hi = np.abs(x - q[hi])
    code = np.where(d_hi < d_lo, hi, lo)
    prev = np.maximum(lo - 1, 0)
    collapse = (code == lo) & (lo > 0) & (np.abs(x - q[prev]) == d_lo)
    idx = np.flatnonzero(collapse)
    if idx.size:
        xs, target = x[idx], d_lo[idx]
        bad = np.full(idx.size, -1, dtype=np.intp)        # d_bad > target (sentinel -1)
        good = lo[idx].astype(np.intp)                    # d_good == target
        while True:
            open_ = good - bad > 1
            if not open_.any():
                break
            mid = (bad + good) // 2
            hit = np.abs(xs - q[np.maximum(mid, 0)]) <= target
            good = np.where(open_ & hit, mid, good)
            bad = np.where(open_ & ~hit, mid, bad)
        code[idx] = good
    code[np.isnan(x)] = 0
    return code.astype(np.uint8)


def _apply_sign_fix(x: np.ndarray, code: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Golden's sign preservation (notes section 4 "Sign fix"): if x and qmap[code] have strictly
    opposite signs (float32 product < 0), move one code towards x's sign, clipped to [0, 255]."""
    flip = (x * q[code]) < 0
    if flip.any():
        step = np.where(x > 0, 1, -1)
        moved = np.clip(code.astype(np.int16) + step, 0, q.size - 1).astype(np.uint8)
        code = np.where(flip, moved, code)
    return code


def _f32_order_key(x: np.ndarray) -> np.ndarray:
    """int64 key, monotone in the float32 value (-0 and +0 share key 0)."""
    s = np.asarray(x, dtype=F32).view(np.int32).astype(np.int64)
    return np.where(s < 0, -(s & 0x7FFFFFFF), s)


def _f32_from_key(k: np.ndarray) -> np.ndarray:
    bits = np.where(k < 0, (-k) | 0x80000000, k).astype(np.uint32)
    return bits.view(F32)


class _CodeSearch:
    """Nearest-code search for one qmap (and, with ``sign_fix``, the golden's sign preservation).

    Fast path, strictly ascending finite qmap:
      * For each neighbour pair (q[j], q[j+1]) the choice between j and j+1 is monotone in x, so
        there is one float32 threshold U[j]: the largest x in [q[j], q[j+1]) for which the definition
        picks j. It is found once, by bisection over float32 bit patterns, evaluating the definition
        ``|x - q[j]| <= |x - q[j+1]|`` in float32, so ties to the lower index are exact (no
        midpoint approximation). Then code(x) = #{j : U[j] < x}.
      * The float32 values sharing the upper 16 bits of their bit pattern (sign, exponent, 7 mantissa
        bits) form an interval, a "bucket". Two 65536-entry tables give, per bucket, the number of
        thresholds below it (``first``) and the one threshold inside it (``threshold``; +inf when
        there is none), so code(x) = first[b] + (threshold[b] < x): two gathers and a compare.
      * Buckets the tables cannot settle exactly get threshold NaN ("special") and their elements
        take the exact path ``_sorted_codes``: NaN/inf buckets, buckets holding more than one
        threshold, buckets where float32 rounding could make two left-hand distances equal (then the
        lowest index wins, which the threshold count does not model), and, with ``sign_fix``,
        buckets where a code of the opposite sign to x is possible.
    """

    _BUCKET_SHIFT = 16

    def __init__(self, q: np.ndarray, sign_fix: bool):
        self.q = q
        finite = bool(np.isfinite(q).all())
        self.sign_fix = bool(sign_fix) and bool((q < 0).any())
        if finite and bool((np.diff(q) > 0).all()):
            self.mode = "table"
            self._build_tables()
        elif finite and bool((np.diff(q) >= 0).all()):
            self.mode = "sorted"
        else:
            self.mode = "argmin"

    # -- table construction ------------------------------------------------------------------------
    def _thresholds(self) -> np.ndarray:
        """U[j], j = 0..254, by bisection on the order keys of float32 values in [q[j], q[j+1]]."""
        qa, qb = self.q[:-1], self.q[1:]
        lo_k, hi_k = _f32_order_key(qa), _f32_order_key(qb)   # x = q[j] picks j, x = q[j+1] not
        while True:
            open_ = hi_k - lo_k > 1
            if not open_.any():
                return _f32_from_key(lo_k)
            mid = (lo_k + hi_k) // 2
            xm = _f32_from_key(mid)
            with np.errstate(over="ignore", invalid="ignore"):
                picks_lo = np.abs(xm - qa) <= np.abs(xm - qb)
            lo_k = np.where(open_ & picks_lo, mid, lo_k)
            hi_k = np.where(open_ & ~picks_lo, mid, hi_k)

    def _build_tables(self) -> None:
        q = self.q
        last = q.size - 1
        u = self._thresholds()

        n_buckets = 1 << (32 - self._BUCKET_SHIFT)
        b = np.arange(n_buckets, dtype=np.uint32)
        low_bits = (b << self._BUCKET_SHIFT).view(F32)
        high_bits = ((b << self._BUCKET_SHIFT) | np.uint32((1 << self._BUCKET_SHIFT) - 1)).view(F32)
        negative = b >= (n_buckets >> 1)
        x_lo = np.where(negative, high_bits, low_bits)        # smallest value in the bucket
        x_hi = np.where(negative, low_bits, high_bits)        # largest value in the bucket
        with np.errstate(invalid="ignore"):
            special = ~(np.isfinite(x_lo) & np.isfinite(x_hi))
        x_lo = np.where(special, F32(0), x_lo)
        x_hi = np.where(special, F32(0), x_hi)

        c_min = np.searchsorted(u, x_lo, side="left")           # #{U < x}, x = x_lo and x_hi
        c_max = np.searchsorted(u, x_hi, side="left")
        k_min = np.searchsorted(q, x_lo, side="right")          # #{q <= x}
        k_max = np.searchsorted(q, x_hi, side="right")
        special |= (c_max - c_min > 1) | (k_max - k_min > 1)

        # A pick c >= 1 with x >= q[c] is the first argmin only if |x - q[c-1]| rounds to a larger
        # float32 than |x - q[c]|. Equal roundings need q[c] - q[c-1] <= ulp(x - q[c-1]), which is
        # below 2^-22 * (x - q[c-1]) (or 2^-149 for subnormal distances): rule them out per bucket
        # for every candidate c in [k_min-1, k_max-1], using x <= x_hi.
        q64 = q.astype(np.float64)
        xh64 = x_hi.astype(np.float64)
        for c in (k_min - 1, k_min):
            valid = (c >= 1) & (c <= k_max - 1)
            cc = np.clip(c, 1, last)
            gap = q64[cc] - q64[cc - 1]
            reach = xh64 - q64[cc - 1]
            special |= valid & ~(gap > reach * 2.0 ** -22 + 2.0 ** -148)

        if self.sign_fix:
            # A code whose entry has the opposite sign to x is possible only if one of the bucket's
            # candidate codes c_min..c_max has such an entry (a bucket never straddles a sign).
            special |= np.where(negative, q[np.minimum(c_max, last)] > 0, q[c_min] < 0)

        inside = np.where(c_min < last, u[np.minimum(c_min, last - 1)], F32(np.inf))
        self.first = c_min.astype(np.uint8)
        self.threshold = np.where(special, F32(np.nan), inside).astype(F32)

    # -- lookup ------------------------------------------------------------------------------------
    def _exact(self, x: np.ndarray) -> np.ndarray:
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            if self.mode == "argmin":
                code = _argmin_codes(x, self.q)
            else:
                code = _sorted_codes(x, self.q)
            if self.sign_fix:
                code = _apply_sign_fix(x, code, self.q)
        return code

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """Codes for a 1-D float32 array (one chunk)."""
        x = np.ascontiguousarray(x, dtype=F32)
        if self.mode != "table":
            return self._exact(x)
        # Upper 16 bits as a signed index: negative floats give negative indices, which NumPy
        # indexing wraps to the same unsigned bucket number.
        bucket = np.right_shift(x.view(np.int32), self._BUCKET_SHIFT, dtype=np.intp)
        code = self.first[bucket]
        threshold = self.threshold[bucket]
        with np.errstate(invalid="ignore"):
            code += (threshold < x).view(np.uint8)
        special = np.flatnonzero(np.isnan(threshold))
        if special.size:
            code[special] = self._exact(x[special])
        return code


# --------------------------------------------------------------------------------------------------
# The operator
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Scalars:
    """Per-call scalars. ``cann``: float32 values computed in the golden's order; ``doc``: float64."""
    lr: object
    b1: object
    b2: object
    wd: object
    eps: object
    gs: object
    one_minus_b1: object
    one_minus_b2: object
    c1: object            # bias correction 1 - beta1^t
    c2: object            # cann: sqrt(1 - beta2^t); doc: 1 - beta2^t
    step_size: object     # cann only: (-lr * c2) / c1
    eps_c2: object        # cann only: eps * c2
    wd_factor: object     # cann only: 1 - lr * wd



def _scalars(profile: str, step: int, lr, beta1, beta2, weight_decay, eps, gnorm_scale) -> _Scalars:
    # Attributes arrive as double and are rounded to float32 first in both profiles (aclnn
    # generated code: static_cast<float>, notes section 2).
    lr, b1, b2, wd, eps, gs = (F32(a) for a in (lr, beta1, beta2, weight_decay, eps, gnorm_scale))
    with np.errstate(all="ignore"):
        if profile == "cann":
            one = F32(1)
            t = F32(np.int64(step)) + one                        # kernel/golden: step + 1
            c1 = one - pow_f32(b1, t)
            c2 = np.sqrt(one - pow_f32(b2, t))
            return _Scalars(lr, b1, b2, wd, eps, gs, one - b1, one - b2, c1, c2,
                            step_size=(-lr * c2) / c1, eps_c2=eps * c2, wd_factor=one - lr * wd)
        # doc: float64 from the float32-rounded attributes, t = step as written.
        lr, b1, b2, wd, eps, gs = (np.float64(a) for a in (lr, b1, b2, wd, eps, gs))
        t = np.float64(step)
        return _Scalars(lr, b1, b2, wd, eps, gs, 1.0 - b1, 1.0 - b2,
                        c1=1.0 - pow_f64(b1, t), c2=1.0 - pow_f64(b2, t),
                        step_size=None, eps_c2=None, wd_factor=None)


def _adam_cann(var32, grad32, m0, v0, s: _Scalars):
    """One chunk, float32, in the golden's order (notes section 4); each line rounds to float32."""
    g = grad32 * s.gs                                  # grad scaled by gnormScale
    m1 = (m0 * s.b1) + (g * s.one_minus_b1)            # m = m*beta1 + g*(1-beta1)
    v1 = (v0 * s.b2) + ((g * g) * s.one_minus_b2)      # v = v*beta2 + (g*g)*(1-beta2)
    den = np.sqrt(v1) + s.eps_c2                       # sqrt(v) + eps*sqrt(1-beta2^t)
    p = var32 + (m1 * s.step_size) / den               # theta + (m*step_size)/den
    if s.wd > 0:                                       # decoupled decay after the step, wd > 0 only
        p *= s.wd_factor
    return p, m1, v1


def _adam_doc(var32, grad32, m0, v0, s: _Scalars):
    """One chunk, the document's formula in float64; the new states are stored as float32."""
    theta = var32.astype(np.float64)
    g = grad32.astype(np.float64) * s.gs
    m1 = s.b1 * m0.astype(np.float64) + s.one_minus_b1 * g
    v1 = s.b2 * v0.astype(np.float64) + s.one_minus_b2 * g * g
    m_hat = m1 / s.c1
    v_hat = v1 / s.c2
    p = theta - s.lr * m_hat / (np.sqrt(v_hat) + s.eps) - s.lr * s.wd * theta
    return p, m1.astype(F32), v1.astype(F32)


def _as_array(name, a, dtype=None) -> np.ndarray:
    arr = np.asarray(a)
    if dtype is not None and arr.dtype != np.dtype(dtype):
        raise TypeError(f"{name} must be {np.dtype(dtype)}, got {arr.dtype}")
    return arr


def apply_adam_w_quant(var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step, *,
                       lr, beta1, beta2, weight_decay, eps, gnorm_scale,
                       block_size: int = 256, profile: str = "cann", details: bool = False) -> dict:
    """Expected outputs of aclnnApplyAdamWQuant. Inputs are never modified.

    Inputs
        var, grad: float32, float16 or bfloat16, same dtype and shape (any shape).
        m, v: uint8 codes, same shape as var.
        qmap_m, qmap_v: float32, 256 elements (any shape). Precondition (vendor doc, design brief
            section 3): strictly ascending, qmap_v >= 0. Other qmaps still give the exact argmin
            codes, only slower; their values are not judged by the suite.
        absmax_m, absmax_v: float32, ceil(n / block_size) elements (any shape).
        step: int64 array with one element, or an int.
        lr, beta1, beta2, weight_decay, eps, gnorm_scale: Python floats (the API's doubles); rounded
            to float32 first in both profiles.
        block_size: elements per quantization block (the operator requires 256).
        profile: "cann" or "doc" (see below).
        details: also return the intermediate values the judge needs.

    Returns a dict of new arrays: "var" (dtype and shape of var), "m", "v" (uint8, shape of m),
    "absmax_m", "absmax_v" (float32, shapes of the inputs). With ``details``: "m_new", "v_new" (flat
    float32 states before quantization), "m_normalized", "v_normalized" (flat float32 values that
    were quantized, state / block absmax) and "var_unrounded" (flat, the new var before its cast:
    float32 in "cann", float64 in "doc").

    Profile "cann" (notes sections 4 and 9, the vendor golden), all float32, one rounding per step:
        1. t = float32(step) + 1; c1 = 1 - beta1^t; c2 = sqrt(1 - beta2^t), with beta^t correctly
           rounded (float64 pow rounded once); step_size = (-lr*c2)/c1; eps_c2 = eps*c2;
           wd_factor = 1 - lr*wd.
        2. Per element, with k its block: g = float32(grad)*gnorm_scale;
           m0 = qmap_m[m]*absmax_m[k]; v0 = qmap_v[v]*absmax_v[k];
           m1 = (m0*beta1) + (g*(1-beta1)); v1 = (v0*beta2) + ((g*g)*(1-beta2));
           p = float32(var) + (m1*step_size)/(sqrt(v1) + eps_c2); if wd > 0: p = p*wd_factor.
        3. var_out = p rounded once (RNE) to var's dtype.
        4. Per block (the last one partial, valid elements only): absmax_m = max|m1|,
           absmax_v = max v1; x = state / (absmax if absmax != 0 else 1); code = nearest qmap
           entry (``nearest_code``). Sign fix (golden): for m when qmap_m has a negative entry,
           and for v when qmap_v has one, if x*qmap[code] < 0 the code moves one step towards
           x's sign, clipped to [0, 255].
        NaN and Inf propagate with no special handling (a NaN block absmax makes every x of the
        block NaN, hence code 0).

    Profile "doc" (the vendor document read literally; design brief section 3), float64 arithmetic
    from the float32-rounded attributes and inputs:
        t = step (not step + 1); m1 = beta1*m0 + (1-beta1)*g, v1 = beta2*v0 + (1-beta2)*g^2 with
        g = grad*gnorm_scale (the parameter table scales grad; the formula omits it);
        m_hat = m1/(1-beta1^t), v_hat = v1/(1-beta2^t);
        theta_new = theta - lr*m_hat/(sqrt(v_hat)+eps) - lr*wd*theta.
        Differences from "cann": t is one lower; the decay is subtracted from the input weight
        instead of multiplying the updated weight (cann = doc + lr*wd*update when both use the
        same t, update = lr*m_hat/(sqrt(v_hat)+eps)); the decay applies for every wd, including
        wd <= 0; float64 instead of float32 arithmetic. The Adam step itself is the same
        expression: lr*m_hat/(sqrt(v_hat)+eps) = -step_size*m1/(sqrt(v1)+eps*c2) (notes
        section 4). var is rounded once from float64 to its dtype; m1 and v1 are rounded to
        float32 and then quantized exactly as in "cann" (absmax, nearest, sign fix).
        step = 0 gives a zero bias correction (division by zero) as the formula does.

    Empty var (0 elements): copies of the inputs, absmax unchanged.
    """
    if profile not in PROFILES:
        raise ValueError(f"profile must be one of {PROFILES}, got {profile!r}")
    var = np.asarray(var)
    grad = np.asarray(grad)
    if var.dtype not in VAR_DTYPES:
        raise TypeError(f"var must be float32, float16 or bfloat16, got {var.dtype}")
    if grad.dtype != var.dtype:
        raise TypeError(f"grad dtype {grad.dtype} differs from var dtype {var.dtype}")
    m = _as_array("m", m, np.uint8)
    v = _as_array("v", v, np.uint8)
    for name, a in (("grad", grad), ("m", m), ("v", v)):
        if a.shape != var.shape:
            raise ValueError(f"{name} shape {a.shape} differs from var shape {var.shape}")
    qm = np.frombuffer(_qmap_key(qmap_m), dtype=F32)
    qv = np.frombuffer(_qmap_key(qmap_v), dtype=F32)
    absmax_m = _as_array("absmax_m", absmax_m, F32)
    absmax_v = _as_array("absmax_v", absmax_v, F32)
    block_size = int(block_size)
    if block_size <= 0:
        raise ValueError("block_size must be positive")
    n = var.size
    n_blocks = -(-n // block_size)
    for name, a in (("absmax_m", absmax_m), ("absmax_v", absmax_v)):
        if a.size != n_blocks:
            raise ValueError(f"{name} has {a.size} elements, expected ceil({n}/{block_size}) = {n_blocks}")
    step_arr = np.asarray(step).reshape(-1)
    if step_arr.size != 1:
        raise ValueError("step must hold exactly one value")
    step_val = int(step_arr[0])

    if n == 0:
        result = {"var": var.copy(), "m": m.copy(), "v": v.copy(),
                  "absmax_m": absmax_m.copy(), "absmax_v": absmax_v.copy()}
        if details:
            result.update({key: np.empty(0, dtype=F32) for key in (
                "m_new", "v_new", "m_normalized", "v_normalized", "var_unrounded")})
        return result
    # Every element of the outputs is written below; C-ordered so that the flat views alias them.
    result = {"var": np.empty(var.shape, var.dtype), "m": np.empty(m.shape, np.uint8),
              "v": np.empty(v.shape, np.uint8), "absmax_m": np.empty(absmax_m.shape, F32),
              "absmax_v": np.empty(absmax_v.shape, F32)}
    if details:
        for key in ("m_new", "v_new", "m_normalized", "v_normalized"):
            result[key] = np.empty(n, dtype=F32)
        result["var_unrounded"] = np.empty(n, dtype=F32 if profile == "cann" else np.float64)

    s = _scalars(profile, step_val, lr, beta1, beta2, weight_decay, eps, gnorm_scale)
    adam = _adam_cann if profile == "cann" else _adam_doc
    search_m = _code_search(qm.tobytes(), sign_fix=True)
    search_v = _code_search(qv.tobytes(), sign_fix=True)

    var_in = var.reshape(-1)
    grad_in = grad.reshape(-1)
    m_in, v_in = m.reshape(-1), v.reshape(-1)
    am_in, av_in = absmax_m.reshape(-1), absmax_v.reshape(-1)
    var_out = result["var"].reshape(-1)
    m_out, v_out = result["m"].reshape(-1), result["v"].reshape(-1)
    am_out, av_out = result["absmax_m"].reshape(-1), result["absmax_v"].reshape(-1)

    # Chunks of whole blocks, then the partial last block on its own.
    full = n // block_size
    per_chunk = max(1, _CHUNK // block_size)
    spans = [(b0, min(b0 + per_chunk, full), block_size) for b0 in range(0, full, per_chunk)]
    if n % block_size:
        spans.append((full, full + 1, n % block_size))

    with np.errstate(all="ignore"):
        for b0, b1, width in spans:
            e0 = b0 * block_size
            e1 = e0 + (b1 - b0) * width
            shape2d = (b1 - b0, width)
            var32 = var_in[e0:e1].astype(F32, copy=False).reshape(shape2d)
            grad32 = grad_in[e0:e1].astype(F32, copy=False).reshape(shape2d)
            m0 = np.take(qm, m_in[e0:e1]).reshape(shape2d) * am_in[b0:b1, None]   # dequantize
            v0 = np.take(qv, v_in[e0:e1]).reshape(shape2d) * av_in[b0:b1, None]

            p, m1, v1 = adam(var32, grad32, m0, v0, s)
            var_out[e0:e1] = round_to_dtype(p.reshape(-1), var.dtype)

            a_m = np.abs(m1).max(axis=1)                # new absmax_m: max |m1| per block
            a_v = v1.max(axis=1)                        # new absmax_v: max v1 per block (golden)
            am_out[b0:b1] = a_m
            av_out[b0:b1] = a_v
            xm = (m1 / np.where(a_m == 0, F32(1), a_m)[:, None]).reshape(-1)
            xv = (v1 / np.where(a_v == 0, F32(1), a_v)[:, None]).reshape(-1)
            m_out[e0:e1] = search_m(xm)
            v_out[e0:e1] = search_v(xv)
            if details:
                result["m_new"][e0:e1] = m1.reshape(-1)
                result["v_new"][e0:e1] = v1.reshape(-1)
                result["m_normalized"][e0:e1] = xm
                result["v_normalized"][e0:e1] = xv
                result["var_unrounded"][e0:e1] = p.reshape(-1)
    return result
