"""The oracle of the summing reductions (a value entry whose ``reduction.kind`` is ``sum``,
``nan-sum``, ``average`` or ``prefix-sum``): the exact sum or mean of each slice over the dims the call names, and the envelope the
summation model allows around it (spec/surface_models.py SUMMATION).

- The input is cast to the compute dtype first: the dtype the call's ``dtype`` attribute names when
  the entry's reduction block names one (the host code casts ``self`` to it before the kernel:
  aclnn_reduce_sum.cpp:290, aclnn_mean.cpp:284), else the input's own.
- The exact sum S is computed in float64 (plain NumPy); its own error, at most gamma_n(2^-53) times
  the magnitudes' sum, is added to the bound, which therefore holds for any order a device chooses.
- A float compute dtype (fp16, bf16, float32) is accumulated in float32: the bound is
  gamma_{n-1}(2^-24) sum |x_i| (Higham eq. 4.6); a mean's adds its division by n (``mean_bound``).
  The expected value is S (or S/n) rounded to float32, then to the compute dtype, then to the
  output's; an fp16/bf16 output is judged as the cast of a float32 result inside the envelope
  (spec/precision.py ``compare_model_envelope``).
- An integer compute dtype sums exactly (wrapping as its dtype does); an integer mean, a DOUBLE
  computation (a float64 oracle is no finer than the result it would judge) and a cast between an
  integer and a float dtype before the kernel are not judged.
- A slice whose magnitudes' sum (with the bound) exceeds float32's largest value is not judged: an
  intermediate sum may overflow in one order and not in another. A slice holding NaN, or
  infinities of both signs, is NaN in any order; one holding infinities of one sign is that infinity.
- A ``nan-sum`` takes each NaN term as 0 after the cast (aclnnReduceNansum: "NaN treated as 0",
  its kernel's float compute of the cast input, reduce_nansum_dag.h:16); infinities stay.
- A scan may run from the last element (``reverse``) and leave each element out of its own prefix
  (``exclusive``: the first prefix is empty, 0), the roles its reduction block names.
- An empty slice (a reduced dim of size 0: the host code returns before the kernel) is 0 for a sum
  (aclnn_reduce_sum.cpp:219, FillScalar(out, 0.0f)) and NaN for a mean (aclnn_mean.cpp:258-260).
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_models import mean_bound, summation_bound, gamma
from aclnn_conformance.spec.surface_values import ValueEntry, reduction_operands

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F32_MAX = float(np.finfo(np.float32).max)


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == _BF16


def compute_dtype(case: Case, entry: ValueEntry) -> np.dtype:
    """The dtype the host code casts the input to before the kernel (the ``dtype`` attribute the
    entry's reduction block names, else the input's own)."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    red = entry.reduction
    given = case.attrs.get(red["dtype"]) if red.get("dtype") else None
    if given is None:
        return np.dtype(case.tensor(red["input"]).storage.dtype)
    acl = AclDataType[given] if isinstance(given, str) else AclDataType(int(given))
    return np.dtype(numpy_dtype(acl))


def slice_length(shape: tuple[int, ...], axes: tuple[int, ...]) -> int:
    """The number of terms in each slice (1 where no dim is reduced)."""
    return int(np.prod([shape[a] for a in axes])) if axes else 1


def prefix_lengths(shape: tuple[int, ...], axes: tuple[int, ...]) -> np.ndarray | int:
    """A scan's number of terms at each element: its position along the one dim, plus one."""
    if not axes:
        return 1
    k = np.arange(1, shape[axes[0]] + 1, dtype=np.float64)
    return k.reshape([-1 if i == axes[0] else 1 for i in range(len(shape))])


def scan_flags(case: Case, entry: ValueEntry) -> tuple[bool, bool]:
    """A scan's ``exclusive`` and ``reverse`` settings (the roles its reduction block names; absent:
    an inclusive scan from the first element)."""
    red = entry.reduction
    flag = lambda role: bool(case.attrs.get(red[role])) if red.get(role) else False
    return flag("exclusive"), flag("reverse")


def prefix_scan(values: np.ndarray, axis: int, exclusive: bool = False, reverse: bool = False,
                step: Any = np.cumsum, identity: float = 0.0) -> np.ndarray:
    """Every prefix of ``values`` along ``axis`` combined by ``step`` (np.cumsum): from the last
    element with ``reverse``; with ``exclusive`` each element's prefix stops before it (the first
    prefix is empty: ``identity``)."""
    v = np.flip(values, axis) if reverse else values
    out = step(v, axis=axis)
    if exclusive and out.shape[axis]:
        first = np.full(np.take(out, [0], axis).shape, identity, out.dtype)
        out = np.concatenate([first, np.take(out, np.arange(out.shape[axis] - 1), axis)], axis)
    return np.flip(out, axis) if reverse else out


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...], keepdim: bool) -> OracleResult:
    """The expected output of a summing reduction's call (a scan's: every prefix's sum), its
    per-element bound and what is open."""
    red = entry.reduction
    values, out_arg, out_dtype, out_shape = reduction_operands(case, entry)
    work = compute_dtype(case, entry)
    mean = red["kind"] == "average"
    # a scan's element k of a slice sums its first k + 1 terms: the same model, prefix by prefix
    exclusive, reverse = scan_flags(case, entry)
    n = prefix_lengths(values.shape, axes) if entry.scans else slice_length(values.shape, axes)
    if entry.scans and axes and (exclusive or reverse):   # the terms each prefix holds, counted
        n = prefix_scan(np.ones(values.shape), axes[0], exclusive, reverse)
    # cases the model does not cover: a float64 computation, integer means, int <-> float casts
    uncovered = (work == np.dtype(np.float64) or out_dtype == np.dtype(np.float64)
                 or work.kind == "b" or (mean and not _is_float(work))
                 or _is_float(work) != _is_float(values.dtype))
    with np.errstate(over="ignore", invalid="ignore"):
        held = values.astype(work)                          # the host code's cast before the kernel
    if red["kind"] == "nan-sum" and _is_float(work):
        held = np.where(np.isnan(held), np.zeros((), work), held)
    reduce = lambda v: (prefix_scan(v, axes[0], exclusive, reverse) if entry.scans
                        else np.sum(v, axis=axes, keepdims=keepdim)) if axes else np.array(v, copy=True)
    if not _is_float(work):
        exact_int = reduce(held.astype(np.int64))           # wraps where the compute dtype wraps
        expected = exact_int.astype(work).astype(out_dtype).reshape(out_shape)
        aux: dict[str, Any] = {"unjudged": np.full(out_shape, uncovered)}
        return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
    wide = held.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        exact = reduce(wide)
        magnitudes = reduce(np.where(np.isfinite(wide), np.absolute(wide), 0.0))
    bound = summation_bound(magnitudes, n)
    nan = np.isnan(exact)
    # an intermediate sum may overflow in some order: not judged unless the result is NaN anyway
    overflow = (magnitudes * (1 + gamma(n)) + bound > _F32_MAX) & ~nan
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if mean:
            bound = mean_bound(exact, bound, n)
            exact = exact / n if n else np.full(exact.shape, np.nan)
        if np.size(n) == 1 and int(np.max(n, initial=0)) == 0:   # the host code fills before the kernel
            exact, bound = (np.full(exact.shape, np.nan) if mean else np.zeros(exact.shape)), \
                np.zeros(exact.shape)
    return envelope(entry, exact, bound, np.asarray(overflow) | uncovered, work, out_dtype, out_shape)


def envelope(entry: ValueEntry, exact: np.ndarray, bound: np.ndarray, open_: np.ndarray, work: np.dtype,
             out_dtype: np.dtype, out_shape: tuple[int, ...]) -> OracleResult:
    """The expected output of a float reduction computed in float32 (fp16/bf16 cast from it once):
    the exact result rounded to float32, to the compute dtype and to the output's, and the bound
    the comparison holds it to, widened by those roundings; ``open_`` the elements not judged."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        rounded = exact.astype(np.float32).astype(work)
        expected = rounded.astype(out_dtype).reshape(out_shape)
    if _is_float(out_dtype) and np.dtype(out_dtype).itemsize >= 4 and np.dtype(work).itemsize < 4:
        # a float32 output of a narrower compute dtype holds that dtype's rounding of the result
        from aclnn_conformance.oracle.surface_functions import spacing
        # half an ulp of the device's rounding and of the expected value's, and float32's step
        bound = bound + spacing(exact, work) + spacing(exact, np.dtype(np.float32))
    elif out_dtype == np.dtype(np.float32):
        # the float32 branch compares against the expected value itself: add its distance from the
        # exact result (no more: a float32 result is within the bound of the exact one, not of e)
        with np.errstate(invalid="ignore"):
            bound = bound + np.where(np.isfinite(exact), np.absolute(rounded.astype(np.float64) - exact), 0.0)
    aux = {"bound": np.asarray(bound, np.float64).reshape(out_shape),
           "unrounded": np.asarray(exact, np.float64).reshape(out_shape),
           "exact": np.asarray(exact, np.float64).reshape(out_shape),
           "unjudged": np.broadcast_to(np.asarray(open_), np.shape(exact)).reshape(out_shape)}
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
