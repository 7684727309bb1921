"""The oracle of a dtype conversion (an entry with a ``conversion`` block: its input, the attribute
naming the target dtype, the pairs it judges): each element of the input converted to the output's
dtype by one correctly defined conversion, with the elements the entry's model leaves open marked
``unjudged``.

- to a float: the exact value rounded once to the nearest value of the target, ties to even, beyond
  the largest finite value infinity (IEEE 754 roundTiesToEven; the products that saturate are
  served by ``device_choices``); a source whose conversion the model lets go through FLOAT first
  (``through_float`` in the entry) is open where that double rounding differs from the direct one;
- to an integer: a float truncated toward zero; NaN, +-Inf and values whose truncation lies outside
  the target's range are open; an integer wraps (two's complement, modulo 2^bits) on the products
  the entry names (``wrap_products``), open elsewhere where it leaves the target's range;
- to BOOL: 1 for every non-zero value (NaN too), 0 for +-0; BOOL is 0 or 1 in every target.

Every value is computed from the exact source value: float64 holds every float source and every
integer up to 2^53 exactly, larger INT64 values are rounded with Python integers.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry

_BF16 = np.dtype(ml_dtypes.bfloat16)
RNE, RZ, RNA = "nearest-even", "toward-zero", "nearest-away"


@dataclass(frozen=True)
class FloatFormat:
    """A binary float format: significand bits (with the hidden one), the smallest normal exponent,
    the largest finite value."""

    precision: int
    emin: int
    largest: float


def float_format(dtype: np.dtype) -> FloatFormat | None:
    """The format of a float dtype (None for integers and BOOL)."""
    dtype = np.dtype(dtype)
    if dtype == _BF16:
        info = ml_dtypes.finfo(_BF16)
    elif dtype.kind == "f":
        info = np.finfo(dtype)
    else:
        return None
    return FloatFormat(int(info.nmant) + 1, int(info.minexp), float(info.max))


def round_float(values: np.ndarray, fmt: FloatFormat, mode: str = RNE) -> np.ndarray:
    """Exact float64 values rounded once to ``fmt`` (as float64): ties to even (``RNE``), toward
    zero (``RZ``) or ties away from zero (``RNA``); past the largest finite value infinity, except
    toward zero, which stops at the largest finite value. NaN, +-Inf and +-0 pass unchanged."""
    x = np.asarray(values, np.float64)
    out = np.array(x, copy=True)
    finite = np.isfinite(x) & (x != 0)
    if not finite.any():
        return out
    v = x[finite]
    _, e = np.frexp(v)                        # |v| = m 2^e, m in [0.5, 1): the leading bit is 2^(e-1)
    quantum = np.maximum(e - 1, fmt.emin) - (fmt.precision - 1)
    scaled = np.ldexp(v, -quantum)            # exact: a power-of-two scaling of a float64 value
    if mode == RNE:
        whole = np.rint(scaled)
    elif mode == RZ:
        whole = np.trunc(scaled)
    elif mode == RNA:
        whole = np.copysign(np.floor(np.absolute(scaled) + 0.5), scaled)
    else:
        raise ValueError(f"unknown rounding {mode!r}")
    r = np.ldexp(whole, quantum)
    over = np.absolute(r) > fmt.largest
    r[over] = np.copysign(fmt.largest if mode == RZ else np.inf, r[over])
    out[finite] = r
    return out


def round_integer(n: int, fmt: FloatFormat, mode: str = RNE) -> float:
    """A Python integer rounded once to ``fmt`` (as a float), the same rules as ``round_float``."""
    if n == 0:
        return 0.0
    sign, a = (-1.0 if n < 0 else 1.0), abs(n)
    shift = a.bit_length() - fmt.precision
    if shift > 0:
        q, rem = a >> shift, a & ((1 << shift) - 1)
        half = 1 << (shift - 1)
        if mode == RNE:
            q += rem > half or (rem == half and q & 1)
        elif mode == RNA:
            q += rem >= half
        a = q << shift
    value = float(a)
    if value > fmt.largest:
        return sign * (fmt.largest if mode == RZ else np.inf)
    return sign * value


def to_float(source: np.ndarray, target: np.dtype, mode: str = RNE) -> np.ndarray:
    """The source's exact values rounded once to the float dtype ``target`` (float64 array)."""
    fmt = float_format(target)
    src = np.asarray(source)
    if src.dtype == np.bool_:
        return src.astype(np.float64)
    if src.dtype.kind in "iu" and src.dtype.itemsize == 8:
        wide = np.abs(src.astype(np.float64)) > 2.0 ** 53
        out = round_float(src.astype(np.float64), fmt, mode)
        flat, ints = out.reshape(-1), src.reshape(-1)
        for i in np.flatnonzero(wide.reshape(-1)):
            flat[i] = round_integer(int(ints[i]), fmt, mode)
        return out
    return round_float(src.astype(np.float64), fmt, mode)


def convert(source: np.ndarray, target: np.dtype, mode: str = RNE,
            through_float: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The conversion of ``source`` to ``target`` and the mask of the elements it leaves open
    (float to integer: NaN, +-Inf, out of range; integer to a narrower integer: out of range, the
    caller decides whether the wrap is judged; a double rounding through FLOAT that differs)."""
    src = np.asarray(source)
    target = np.dtype(target)
    open_ = np.zeros(src.shape, bool)
    if target == np.bool_:
        with np.errstate(invalid="ignore"):
            return (src.astype(np.float64) != 0) if src.dtype != np.bool_ else src.copy(), open_
    if float_format(target) is not None:
        value = to_float(src, target, mode)
        if through_float:
            first = to_float(src, np.dtype(np.float32))
            twice = round_float(first, float_format(target))
            open_ = ~((twice == value) | (np.isnan(twice) & np.isnan(value)))
        with np.errstate(over="ignore"):
            return value.astype(target), open_
    info = np.iinfo(target)
    if float_format(src.dtype) is not None:
        wide = src.astype(np.float64)
        with np.errstate(invalid="ignore"):
            whole = np.trunc(wide)
            beyond = 2.0 ** (8 * target.itemsize - (target.kind == "i"))   # max + 1, exact in float64
            open_ = ~np.isfinite(wide) | (whole < float(info.min)) | (whole >= beyond)
        return np.where(open_, 0, whole).astype(target), open_
    if src.dtype == np.bool_:
        return src.astype(target), open_
    # integers: the values outside the target's range, and their two's-complement wrap
    big = src.astype(object) if src.dtype.itemsize == 8 else src.astype(np.int64)
    open_ = np.asarray((big < info.min) | (big > info.max), bool)
    return src.astype(target), open_


def from_case(case: Case, product: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The expected output of a conversion call, in the output's shape, and the mask of the
    elements its model leaves open (oracle/surface.py adds the product's other special-value
    answers)."""
    entry = value_entry(case.op)
    conv = entry.raw["conversion"]
    src_arg = case.tensor(conv["input"])
    out_arg = case.tensor(entry.output)
    target = np.dtype(out_arg.storage.dtype)
    source = np.asarray(src_arg.values())
    src_name, out_name = src_arg.desc.dtype.name, out_arg.desc.dtype.name
    through = src_name in conv.get("through_float", {}).get("sources", ()) and \
        out_name in conv.get("through_float", {}).get("targets", ())
    expected, open_ = convert(source, target, through_float=through)
    integer_pair = source.dtype.kind in "iu" and target.kind in "iu"
    if integer_pair and product in conv.get("wrap_products", ()):
        open_ = np.zeros(open_.shape, bool)   # the wrap is the product's documented route
    shape = tuple(out_arg.desc.shape)
    return np.asarray(expected).reshape(shape), np.asarray(open_).reshape(shape)
