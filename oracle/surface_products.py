"""The oracle of the products (a value entry whose ``reduction.kind`` is ``product`` or
``prefix-product``): the exact product of each slice (a scan's: of every prefix) and the envelope
the product model allows around it (spec/surface_models.py PRODUCT_MODEL).

- The input is cast to the compute dtype first (the call's ``dtype`` attribute where the entry
  names one, else the input's own: oracle/surface_sums.py ``compute_dtype``); fp16 and bf16 are
  multiplied in float32 and the product cast back once.
- A product of n float32 factors in any order and association, no partial product leaving the
  normal range, is (1 + theta) P with |theta| <= gamma_{n-1} (Higham, lemma 3.1): the bound is
  gamma_{n-1}(2^-24) |P|, plus the oracle's own float64 product error gamma_n(2^-53) |P|.
- Every partial product of some order is the product of a subset of the factors, so it lies between
  the product of the finite nonzero factors below 1 in magnitude (``small``) and that of those above
  1 (``big``). Not judged, because some order leaves float32's normal range where another does not:
  a finite slice with big beyond float32's largest value or small under its smallest normal (an
  overflow gives inf, an underflow loses the relative bound or gives 0); with a zero factor, only
  the overflow (0 times inf is NaN); with an infinite factor, only the underflow (inf times 0).
- Fixed by IEEE arithmetic in every order, and judged: a NaN factor gives NaN; a zero and an
  infinity give NaN; otherwise a zero factor gives a zero and an infinite one an infinity, with the
  sign of the product of the signs. A slice holding a subnormal is not judged (a product that
  flushes reads it as a zero of either sign).
- fp16/bf16 results within two float32 steps of the dtype's overflow threshold are not judged (the
  cast of a float32 result in the envelope may round either way).
- Integer products are exact, wrapping as the compute dtype does (multiplication modulo 2^k is
  associative); a DOUBLE computation and a cast between an integer and a float dtype are not judged.
- An empty slice is 1 (the host code fills the output with 1 before the kernel, aclnn_prod.cpp).
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_sums import (_is_float, compute_dtype, envelope, prefix_lengths,
                                                   prefix_scan, scan_flags, slice_length)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_models import ORACLE_ROUNDOFF, gamma
from aclnn_conformance.spec.surface_values import ValueEntry, reduction_operands

_LN2 = float(np.log(2.0))
_LOG2_F32_MAX = float(np.log(np.finfo(np.float32).max)) / _LN2
_LOG2_F32_TINY = -126.0


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...], keepdim: bool) -> OracleResult:
    """The expected output of a product's call (a scan's: every prefix's product), its per-element
    bound and what is open."""
    values, out_arg, out_dtype, out_shape = reduction_operands(case, entry)
    work = compute_dtype(case, entry)
    exclusive, reverse = scan_flags(case, entry)
    n = prefix_lengths(values.shape, axes) if entry.scans else slice_length(values.shape, axes)
    uncovered = (work == np.dtype(np.float64) or out_dtype == np.dtype(np.float64) or work.kind == "b"
                 or _is_float(work) != _is_float(values.dtype))
    with np.errstate(over="ignore", invalid="ignore"):
        held = values.astype(work)                          # the host code's cast before the kernel
    if _is_float(values.dtype) and _is_float(work) and np.dtype(values.dtype).itemsize < np.dtype(work).itemsize:
        # an fp16/bf16 input into a wider result: one product hands it to the kernel uncast, which
        # rounds its float32 product to the input's dtype, another casts it first: held to the
        # input dtype's numbers, which admit both (the entry's note)
        work = np.dtype(values.dtype)

    def reduce(v: np.ndarray, whole: Any, scan: Any, identity: float) -> np.ndarray:
        if not axes:
            return np.array(v, copy=True)
        if entry.scans:
            return prefix_scan(v, axes[0], exclusive, reverse, scan, identity)
        return whole(v, axis=axes, keepdims=keepdim)

    if not _is_float(work):
        with np.errstate(over="ignore"):
            exact_int = reduce(held.astype(np.int64), np.prod, np.cumprod, 1)   # wraps modulo 2^64
        expected = exact_int.astype(work).astype(out_dtype).reshape(out_shape)
        return OracleResult(views={entry.output: expected},
                            aux={entry.output: {"unjudged": np.full(out_shape, uncovered)}})
    wide = held.astype(np.float64)
    count = lambda mask: reduce(mask.astype(np.float64), np.sum, np.cumsum, 0.0) > 0
    finite_nonzero = np.isfinite(wide) & (wide != 0)
    logs = np.log(np.where(finite_nonzero, np.absolute(wide), 1.0)) / _LN2     # base-2 exponents
    big = reduce(np.where(logs > 0, logs, 0.0), np.sum, np.cumsum, 0.0)
    small = reduce(np.where(logs < 0, logs, 0.0), np.sum, np.cumsum, 0.0)
    tiny = float(ml_dtypes.finfo(work).smallest_normal)
    nan, zero, inf = count(np.isnan(wide)), count(wide == 0), count(np.isinf(wide))
    subnormal = count(finite_nonzero & (np.absolute(wide) < tiny))
    if entry.scans and axes and (exclusive or reverse):
        n = prefix_scan(np.ones(values.shape), axes[0], exclusive, reverse)
    g = gamma(np.clip(np.asarray(n, np.float64) - 1, 0, None))
    margin = np.log(1.0 + g) / _LN2 + 2.0 ** -20              # each partial product's own rounding
    over, under = big + margin > _LOG2_F32_MAX, small - margin < _LOG2_F32_TINY
    open_ = ~nan & (subnormal | (~zero & ~inf & (over | under)) | (zero & ~inf & over)
                    | (inf & ~zero & under))
    with np.errstate(over="ignore", invalid="ignore"):
        exact = reduce(wide, np.prod, np.cumprod, 1.0)
    bound = np.where(np.isfinite(exact), (g + gamma(n, ORACLE_ROUNDOFF)) * np.absolute(exact), 0.0)
    if np.dtype(work).itemsize < 4:   # a narrow result near its overflow threshold rounds either way
        finfo = ml_dtypes.finfo(work)
        edge = float(finfo.max) + float(finfo.max) * 2.0 ** -(finfo.nmant + 2)   # where a cast overflows
        with np.errstate(invalid="ignore"):
            open_ = open_ | (np.absolute(np.absolute(exact) - edge) <= bound + edge * 2.0 ** -22)
    return envelope(entry, exact, bound, np.asarray(open_) | uncovered, work, out_dtype, out_shape)
