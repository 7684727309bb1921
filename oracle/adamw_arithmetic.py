"""The float arithmetic the AdamW-family oracles share: beta^t, the final cast to the var dtype.

One place for what ApplyAdamWQuant, ApplyAdamW and ApplyAdamWV2 compute the same way, so that a
correction here reaches every operator of the family.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

__all__ = ["VAR_DTYPES", "F32", "pow_f64", "pow_f32", "round_to_dtype", "fma_f32", "round_half_away",
           "decay_factor_spread", "evaluation_labels",
           "round_to"]

VAR_DTYPES = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
F32 = np.float32


def pow_f64(beta, t) -> np.float64:
    """beta**t in double precision with the C library's pow (``math.pow``); NumPy's vectorized
    pow is avoided because it may use a faster, less accurate implementation. Domain errors and
    overflow give NumPy's IEEE results (inf, nan) instead of raising."""
    try:
        return np.float64(math.pow(float(beta), float(t)))
    except (ValueError, OverflowError):
        with np.errstate(all="ignore"):
            return np.power(np.float64(beta), np.float64(t))


def pow_f32(beta: np.float32, t: np.float32) -> np.float32:
    """beta^t in float64, rounded once to float32 (notes apply_adam_w_quant.md section 4 "Measured": float32 pow
    libraries are not correctly rounded; the oracle's choice is the correctly rounded value)."""
    return F32(pow_f64(beta, t))


def round_to_dtype(x, dtype) -> np.ndarray:
    """Round ``x`` (float32, or float64 in the ``doc`` profile) to ``dtype`` (float32, float16 or
    bfloat16) with a single round-to-nearest-even, as the kernel's final cast does
    (notes apply_adam_w_quant.md section 4 "fp16/bf16": fp16 CAST_NONE = RINT, bf16 CAST_RINT). Overflow gives +-inf
    (the host reference; saturation on the device is an open point, notes apply_adam_w_quant.md section 5.6).

    NumPy's float->float16 and ml_dtypes' float->bfloat16 conversions are both a single correctly
    rounded RNE step from the source type, so ``astype`` is exactly this rounding.
    """
    dtype = np.dtype(dtype)
    if dtype not in VAR_DTYPES:
        raise TypeError(f"unsupported target dtype {dtype}")
    x = np.asarray(x)
    if x.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise TypeError(f"round_to_dtype expects float32 or float64 input, got {x.dtype}")
    with np.errstate(over="ignore"):
        return x.astype(dtype)



def fma_f32(a, b, c, scratch: np.ndarray | None = None) -> np.ndarray:
    """a*b + c with a single rounding to float32 (a fused multiply-add), element-wise.

    a*b of two float32 values is exact in float64, and so is the float32 rounding of the float64
    sum s unless s sits exactly halfway between two float32 values (or in the float32 subnormal
    range): only there can float64's own rounding of the sum have erased the side of the tie, and
    only those few elements are settled with the sum's exact error (TwoSum). ``scratch``: a float64
    array of the result's size, overwritten, which spares an allocation in a loop over chunks."""
    a, b, c = (np.asarray(x, dtype=F32) for x in (a, b, c))
    if scratch is None and not (a.ndim or b.ndim or c.ndim):
        return fma_f32(a.reshape(1), b, c)[0]
    with np.errstate(all="ignore"):
        s = np.multiply(a, b, dtype=np.float64, out=scratch)
        np.add(s, c, out=s)
        r = s.astype(F32)
        bits = s.view(np.uint64)
        np.bitwise_and(bits, np.uint64(0x1FFFFFFF), out=bits)      # s is not needed past this point
        suspect = bits == np.uint64(0x10000000)
        magnitude = np.abs(r, out=s.reshape(-1).view(F32)[:r.size].reshape(r.shape))  # s is free now
        if suspect.any() or (r.size and np.fmin.reduce(magnitude, axis=None) < F32(2.0 ** -125)):
            suspect |= np.abs(r) < F32(2.0 ** -125)
            a, b, c = np.broadcast_arrays(a, b, c)
            idx = np.nonzero(suspect)
            r[idx] = _fma_exact(a[idx], b[idx], c[idx])
    return r


def _fma_exact(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """fma_f32 by TwoSum: the float64 sum and its exact error decide a halfway rounding."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    with np.errstate(all="ignore"):
        s = p + c
        bb = s - p
        err = (p - (s - bb)) + (c - bb)
        r = s.astype(F32)
        r64 = r.astype(np.float64)
        other = np.nextafter(r, np.where(s > r64, F32(np.inf), F32(-np.inf)).astype(F32))
        halfway = np.isfinite(s) & (s != r64) & ((r64 + other.astype(np.float64)) / 2 == s) & (err != 0)
        hi, lo = np.maximum(r, other), np.minimum(r, other)
        return np.where(halfway, np.where(err > 0, hi, lo), r).astype(F32)


def round_half_away(x, dtype) -> np.ndarray:
    """Round float32 ``x`` to float16 or bfloat16 to nearest, ties away from zero (CAST_ROUND)."""
    dtype = np.dtype(dtype)
    x = np.asarray(x, dtype=F32)
    if dtype == np.dtype(ml_dtypes.bfloat16):
        bits = x.view(np.uint32)
        mag = (bits & np.uint32(0x7FFFFFFF)).astype(np.uint64)
        rounded = ((mag + 0x8000) & 0xFFFF0000).astype(np.uint32) | (bits & np.uint32(0x80000000))
        out = (rounded >> 16).astype(np.uint16).view(ml_dtypes.bfloat16)
        return np.where(np.isnan(x), x.astype(dtype), out).astype(dtype)
    if dtype != np.dtype(np.float16):
        raise TypeError(f"round_half_away rounds to float16 or bfloat16, not {dtype}")
    even = round_to_dtype(x, dtype)
    with np.errstate(all="ignore"):
        x64, e64 = x.astype(np.float64), even.astype(np.float64)
        other = np.nextafter(even, np.where(x64 > e64, np.inf, -np.inf).astype(dtype))
        tie = (x64 != e64) & (np.abs(x64 - e64) == np.abs(other.astype(np.float64) - x64))
        away = tie & (np.abs(other.astype(np.float64)) > np.abs(e64))
    return np.where(away, other, even).astype(dtype)


def round_to(x, dtype, ties: str = "even") -> np.ndarray:
    """Round float32 ``x`` once to ``dtype``; ``ties`` "even" (RINT) or "away" (CAST_ROUND)."""
    if ties == "even" or np.dtype(dtype) == np.dtype(np.float32):
        return round_to_dtype(np.asarray(x, dtype=F32), dtype)
    if ties == "away":
        return round_half_away(x, dtype)
    raise ValueError(f"ties must be 'even' or 'away', not {ties!r}")


def decay_factor_spread(lr: np.float32, weight_decay: np.float32) -> float:
    """How far apart the values of 1 - lr*wd lie that correct implementations compute once per
    call: lr*wd rounded then subtracted, or fused into the subtraction (the only freedom there)."""
    lr, wd = F32(lr), F32(weight_decay)
    with np.errstate(all="ignore"):
        unfused = F32(1) - lr * wd
        fused = fma_f32(-lr, wd, F32(1))
        spread = abs(float(unfused) - float(fused))
    return spread if math.isfinite(spread) else math.inf


def evaluation_labels(*columns) -> np.ndarray:
    """A label per element, equal for elements whose inputs (the float32 bits of every column, None
    skipped) are equal: they compute alike and count once in a bias check (a 64-bit mix of the
    bits; a collision only merges two evaluations into one)."""
    live = [np.asarray(c, dtype=F32).reshape(-1) for c in columns if c is not None]
    n = live[0].size if live else 0
    key = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in live:
            key = (key ^ column.view(np.uint32).astype(np.uint64)) * np.uint64(0x9E3779B97F4A7C15)
    return np.unique(key, return_inverse=True)[1].reshape(-1)
