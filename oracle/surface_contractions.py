"""The oracle of the contractions (a value entry whose ``reduction.kind`` is ``inner-product`` or
``diagonal-sum``): terms drawn from the operands, then summed into one 0-d output under the
summation model (spec/surface_models.py SUMMATION, standard surface-sum@1).

- ``inner-product``: the products x_i y_i of the two 1-d operands the reduction block names
  (``input``, ``other``); ``diagonal-sum``: the main diagonal x_ii of the 2-d ``input``, its
  min(rows, columns) elements from the top left.
- The compute dtype is the input's (the operands share it, a check of the host code's); fp16 and
  bf16 are computed in float32 and the result cast back once. A product of two float32 values is
  exact in float64 (48 bits), so the exact terms and their sum are the oracle's float64 ones.
- The bound: a float32 dot product of n terms in any order, each product rounded or fused into the
  accumulation, errs by at most gamma_n sum |x_i y_i| (Higham, *Accuracy and Stability of Numerical
  Algorithms*, eq. 3.5): the summation bound of n + 1 terms (``summation_bound``), which adds the
  oracle's own float64 error. A product below float32's normal range may lose up to itself (flushed)
  or half a subnormal step (rounded): those magnitudes are added. A diagonal's sum is the summation
  bound of its n terms.
- What is open: a sum whose magnitudes (with the bound) leave float32's range, unless it is NaN in
  any order; a DOUBLE computation (a float64 oracle is no finer than the result it would judge); an
  integer result outside the output dtype's range (whether it wraps or saturates, no document says).
  Integers are summed exactly in int64.
- An empty input gives 0 (the host code fills the output before the kernel).
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import DIAGONAL_SUM, ValueEntry, reduction_operands

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).smallest_normal)


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == _BF16


def operand_names(entry: ValueEntry) -> tuple[str, ...]:
    """The tensors the terms are drawn from: the input, and an inner product's other operand."""
    red = entry.reduction
    return (red["input"],) + ((red["other"],) if red.get("other") else ())


def terms(case: Case, entry: ValueEntry) -> tuple[np.ndarray, np.dtype]:
    """The call's terms in the compute dtype (one row: a diagonal's elements, or each operand's
    elements, stacked as rows 0 and 1 for an inner product) and the compute dtype."""
    values, _, _, _ = reduction_operands(case, entry)
    work = np.dtype(values.dtype)
    if entry.reduction["kind"] == DIAGONAL_SUM:
        return np.ascontiguousarray(np.diagonal(values)) if values.ndim == 2 else values.reshape(-1), work
    other = case.tensor(entry.reduction["other"])
    y = np.asarray(other.view_of(other.storage))
    return np.stack([values.reshape(-1), y.reshape(-1).astype(work)]) if y.size == values.size \
        else np.zeros((2, 0), work), work


def exact_terms(found: np.ndarray, entry: ValueEntry) -> np.ndarray:
    """The exact terms in float64 (a product of two float32 values is exact there)."""
    wide = found.astype(np.float64)
    if entry.reduction["kind"] == DIAGONAL_SUM:
        return wide
    with np.errstate(invalid="ignore", over="ignore"):
        return wide[0] * wide[1]


def from_case(case: Case, entry: ValueEntry) -> OracleResult:
    """The expected 0-d output of a contraction's call, its bound and whether it is open."""
    from aclnn_conformance.oracle.surface_sums import envelope
    from aclnn_conformance.spec.surface_models import gamma, summation_bound
    _, out_arg, out_dtype, out_shape = reduction_operands(case, entry)
    found, work = terms(case, entry)
    inner = entry.reduction["kind"] != DIAGONAL_SUM
    n = found.shape[-1]
    if not _is_float(work):   # integers (and BOOL) summed exactly, judged where the output holds them
        exact_int = int(np.sum(found.astype(np.int64)[0] * found.astype(np.int64)[1])) if inner \
            else int(np.sum(found.astype(np.int64)))
        info = np.iinfo(out_dtype) if np.dtype(out_dtype).kind in "iu" else None
        fits = info is not None and info.min <= exact_int <= info.max
        expected = np.asarray(exact_int if fits else 0).astype(out_dtype).reshape(out_shape)
        return OracleResult(views={entry.output: expected},
                            aux={entry.output: {"unjudged": np.full(out_shape, not fits)}})
    uncovered = work == np.dtype(np.float64) or out_dtype == np.dtype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        each = exact_terms(found, entry)
        exact = np.sum(each)
        finite = np.where(np.isfinite(each), np.absolute(each), 0.0)
        magnitudes = np.sum(finite)
    bound = summation_bound(magnitudes, n + 1 if inner else n)
    if inner:   # products below float32's normal range: flushed (all of it) or rounded (half a step)
        tiny = (finite < _F32_TINY) & (finite > 0)
        bound = bound + np.sum(finite[tiny]) + n * 2.0 ** -150
    nan = bool(np.isnan(exact))
    overflow = (magnitudes * (1 + gamma(n + 1)) + bound > _F32_MAX) and not nan
    if n == 0:   # the host code fills an empty call's output with 0
        exact, bound = np.float64(0.0), np.float64(0.0)
    return envelope(entry, np.asarray(exact, np.float64), np.asarray(bound, np.float64),
                    np.asarray(overflow or uncovered), work, out_dtype, out_shape)

