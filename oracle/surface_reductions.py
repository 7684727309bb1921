"""The oracle of every reduction with a value entry (spec/surface_values.py, ``reduction``): the
entry's reducer over the dims the call names, as its document defines it (the summing kinds, sum and
mean, through oracle/surface_sums.py; below, the maximum and minimum).

- The dims: each wrapped by the input's rank (by 1 at rank 0, as the host code's GetPosDim); no
  dims reduce every dim, or none when the entry's ``noop`` flag is set; ``keepdim`` keeps each
  reduced dim as 1 (the shape ``spec.templates.reduced_shape`` gives, which the host code checks).
- The compute dtype is the input's: a maximum or minimum is one of its operands, so the result is
  exact in any dtype that holds them and is cast to the output's dtype unchanged.
- A slice holding NaN is not judged (``unjudged``): the documents do not say whether NaN propagates.
- An empty output is an empty result; an empty slice (a reduced dim of size 0, which the host code
  refuses for these reductions) is not judged.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Any, Callable

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry, fixed_call, reduction_operands, value_entry
from aclnn_conformance.spec.surface_values import LAYER_NORMALIZED

# the reducer of each kind: NumPy's, over a tuple of axes (the index kinds over one axis)
REDUCERS: dict[str, Callable[..., np.ndarray]] = {"max": np.max, "min": np.min,
                                                  "argmax": np.argmax, "argmin": np.argmin}
EXTREMES = {"argmax": np.max, "argmin": np.min}


def reduced_axes(case: Case, entry: ValueEntry) -> tuple[int, ...]:
    """The axes of the input the call reduces."""
    red = entry.reduction
    rank = case.tensor(red["input"]).desc.ndim
    case = fixed_call(case, entry)   # the dims an API fixes (``fixed_dims``), as a call's
    dims = case.attrs.get(red["dims"])
    dims = [] if dims is None else ([dims] if isinstance(dims, int) else list(dims))
    if not dims:
        return () if red.get("noop") and case.attrs.get(red["noop"]) else tuple(range(rank))
    n = rank if rank else 1
    return tuple(sorted({d + n if d < 0 else d for d in dims} & set(range(rank))))


def reduce_values(values: np.ndarray, kind: str, axes: tuple[int, ...], keepdim: bool) -> np.ndarray:
    """The reduction of ``values`` (in their own dtype) over ``axes``; an empty slice gives 0."""
    if any(values.shape[a] == 0 for a in axes):
        shape = tuple(1 if i in axes else d for i, d in enumerate(values.shape) if keepdim or i not in axes)
        return np.zeros(shape, values.dtype)
    return REDUCERS[kind](values, axis=axes, keepdims=keepdim)


def from_case(case: Case, profile: str, product: str | None = None) -> OracleResult:
    """The expected output of a reduction's call, with the slices its standard leaves open."""
    entry = value_entry(case.op)
    red = entry.reduction
    case = fixed_call(case, entry)   # the dims and keepdim an API fixes (``fixed_dims``), as a call's
    if entry.orders:   # the positions that sort each slice (oracle/surface_order.py)
        from aclnn_conformance.oracle import surface_order
        return surface_order.from_case(case, entry, reduced_axes(case, entry))
    if entry.runs:   # every prefix's extreme and its position (oracle/surface_running.py)
        from aclnn_conformance.oracle import surface_running
        return surface_running.from_case(case, entry, reduced_axes(case, entry))
    if entry.halves:   # a function of the input's two halves along one dim (oracle/surface_halves.py)
        from aclnn_conformance.oracle import surface_halves
        return surface_halves.from_case(case, entry, product)
    if entry.normalized_grads:   # softmax's and log-softmax's gradients (oracle/surface_normalized_grads.py)
        from aclnn_conformance.oracle import surface_normalized_grads
        return surface_normalized_grads.from_case(case, entry, reduced_axes(case, entry))
    if entry.norms and red["kind"] == LAYER_NORMALIZED:   # every output (oracle/surface_layer_norms.py)
        from aclnn_conformance.oracle import surface_layer_norms
        return surface_layer_norms.from_case(case, profile, product)
    if entry.norms:   # root-mean-square normalizations, every output (oracle/surface_norms.py)
        from aclnn_conformance.oracle import surface_norms
        return surface_norms.from_case(case, profile, product)
    if entry.contracts:   # a dot product, a diagonal's sum: their terms summed (oracle/surface_contractions.py)
        from aclnn_conformance.oracle import surface_contractions
        return surface_contractions.from_case(case, entry)
    if entry.sums:   # sums and means: the summation model's envelope (oracle/surface_sums.py)
        from aclnn_conformance.oracle import surface_sums
        return surface_sums.from_case(case, entry, reduced_axes(case, entry),
                                      bool(case.attrs.get(red["keepdim"])) if red.get("keepdim") else False)
    if entry.indexes:
        return index_from_case(case, entry)
    if entry.truths:
        return truth_from_case(case, entry)
    if entry.multiplies:   # products: the product model's envelope (oracle/surface_products.py)
        from aclnn_conformance.oracle import surface_products
        return surface_products.from_case(case, entry, reduced_axes(case, entry),
                                          bool(case.attrs.get(red["keepdim"])) if red.get("keepdim") else False)
    if entry.deviates:   # variances and standard deviations (oracle/surface_variance.py)
        from aclnn_conformance.oracle import surface_variance
        return surface_variance.from_case(case, entry, reduced_axes(case, entry),
                                          bool(case.attrs.get(red["keepdim"])))
    if entry.normalizes:   # softmax and log-softmax along one dim (oracle/surface_softmax.py)
        from aclnn_conformance.oracle import surface_softmax
        return surface_softmax.from_case(case, entry, reduced_axes(case, entry))
    if red.get("outputs"):   # an extreme with other outputs by role: each role's kind on its output
        return _by_role(case, entry)
    return extreme_from_case(case, entry)


def _by_role(case: Case, entry: ValueEntry) -> OracleResult:
    """Every output of an extreme that writes several, each as the entry its role's kind would be
    (the values as a max or min, the positions as an argmax or argmin)."""
    red = entry.reduction
    views: dict[str, Any] = {}
    aux: dict[str, Any] = {}
    for role, name in red["outputs"].items():
        one = replace(entry, output=name, reduction={**red, "kind": role, "outputs": {}})
        result = index_from_case(case, one) if role in EXTREMES else extreme_from_case(case, one)
        views.update(result.views)
        aux.update(result.aux)
    return OracleResult(views=views, aux=aux)


def extreme_from_case(case: Case, entry: ValueEntry) -> OracleResult:
    """The expected output of a maximum or minimum, a slice holding NaN left open."""
    red = entry.reduction
    values, held, out_arg, out_shape, axes, keepdim = _operands(case, entry)
    result = np.asarray(reduce_values(held, red["kind"], axes, keepdim))
    # a maximum or minimum is NaN exactly where its slice holds a NaN: those are left open
    open_: Any = np.isnan(result) if result.dtype.kind == "f" else np.zeros(result.shape, bool)
    if any(values.shape[a] == 0 for a in axes):
        open_ = np.ones(result.shape, bool)
    with np.errstate(all="ignore"):
        expected = np.asarray(result).astype(values.dtype).astype(out_arg.storage.dtype).reshape(out_shape)
    aux: dict[str, Any] = {"either_zero_sign": entry.zero_sign == "either",
                           "unjudged": np.asarray(open_).reshape(out_shape)}
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})


def _operands(case: Case, entry: ValueEntry) -> tuple:
    """The input's view (a reduction reads it once), the same held for reducing (fp16 and bf16 in
    float32, which holds them exactly and keeps their order; the others in their own dtype), the
    output argument and shape, the reduced axes and keepdim."""
    red = entry.reduction
    values, out_arg, _, _ = reduction_operands(case, entry)
    held = values.astype(np.float32) if values.dtype.itemsize < 4 and values.dtype.kind not in "iub" \
        else values
    return (values, held, out_arg, tuple(out_arg.desc.shape), reduced_axes(case, entry),
            bool(case.attrs.get(red["keepdim"])))


def index_from_case(case: Case, entry: ValueEntry) -> OracleResult:
    """The expected output of an index reduction: the position of each slice's extreme along the one
    dim the call names (rank 0: the scalar itself, position 0). Left open (``unjudged``): a slice
    holding NaN (the documents do not say whether NaN counts as the extreme, as torch takes it) and a
    slice whose extreme occurs more than once (the documents do not say which position a tie gives)."""
    values, held, out_arg, out_shape, axes, keepdim = _operands(case, entry)
    if not axes or held.size == 0:
        expected = np.zeros(out_shape, out_arg.storage.dtype)
        return OracleResult(views={entry.output: expected},
                            aux={entry.output: {"unjudged": np.full(out_shape, held.size == 0)}})
    axis = axes[0]
    index = REDUCERS[entry.reduction["kind"]](held, axis=axis, keepdims=keepdim)
    extreme = EXTREMES[entry.reduction["kind"]](held, axis=axis, keepdims=True)
    ties = np.sum(held == extreme, axis=axis, keepdims=keepdim) > 1
    nan = np.any(np.isnan(held), axis=axis, keepdims=keepdim) if held.dtype.kind == "f" \
        else np.zeros(index.shape, bool)
    expected = np.asarray(index).astype(out_arg.storage.dtype).reshape(out_shape)
    return OracleResult(views={entry.output: expected},
                        aux={entry.output: {"unjudged": np.asarray(ties | nan).reshape(out_shape)}})


def truth_from_case(case: Case, entry: ValueEntry) -> OracleResult:
    """The expected output of a truth reduction: whether every (``all-true``) or some (``any-true``)
    element of each slice is nonzero, in the output's dtype (BOOL, or 0 and 1). An empty slice is
    true for every and false for some (the host code fills the output so before the kernel). Left
    open (``unjudged``): a slice holding NaN (whether the kernel, or the cast to BOOL some products
    make first, reads NaN as true, no document says) or a subnormal (a product that flushes
    subnormals reads it as zero)."""
    values, out_arg, _, out_shape = reduction_operands(case, entry)
    axes, keepdim = reduced_axes(case, entry), bool(case.attrs.get(entry.reduction["keepdim"]))
    wide = values.astype(np.float64)
    reduce = np.all if entry.reduction["kind"] == "all-true" else np.any
    result = reduce(wide != 0, axis=axes, keepdims=keepdim) if axes else wide != 0
    floating = values.dtype.kind == "f" or values.dtype == np.dtype(ml_dtypes.bfloat16)
    tiny = float(ml_dtypes.finfo(values.dtype).smallest_normal) if floating else 0.0
    doubtful = np.isnan(wide) | ((np.absolute(wide) < tiny) & (wide != 0))
    open_ = np.any(doubtful, axis=axes, keepdims=keepdim) if axes else doubtful
    expected = np.asarray(result).astype(out_arg.storage.dtype).reshape(out_shape)
    return OracleResult(views={entry.output: expected},
                        aux={entry.output: {"unjudged": np.asarray(open_).reshape(out_shape)}})
