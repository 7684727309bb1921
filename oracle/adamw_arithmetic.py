"""The float arithmetic the AdamW-family oracles share: beta^t, the final cast to the var dtype.

One place for what ApplyAdamWQuant, ApplyAdamW and ApplyAdamWV2 compute the same way, so that a
correction here reaches every operator of the family.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

__all__ = ["VAR_DTYPES", "F32", "pow_f64", "pow_f32", "round_to_dtype"]

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
