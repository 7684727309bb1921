"""The oracle of the running extremes (spec/surface_values.py ``RUNNING_KINDS``): along the one dim the
call names, each element's prefix maximum (``prefix-max``) or minimum (``prefix-min``) and its
position in the prefix, the outputs in the input's shape and named by role (``reduction.outputs``:
the kind for the values, ``prefix-argmax``/``prefix-argmin`` for the positions).

- The values are exact: an extreme is one of its operands, held in the input's dtype (fp16 and bf16
  in float32, which holds them and keeps their order; BOOL as 0 and 1) and cast to the output's dtype;
  +0 and -0 compare equal (either sign is accepted where the entry says ``zero_sign`` either).
- The position of element i is the index (0-based along the dim) of the prefix's extreme; it is left
  open (``unjudged``) where the extreme occurs more than once in the prefix (which of the tied
  positions is given, no document says), and both outputs are open from the first NaN of a slice on
  (whether NaN counts as the extreme, no document says) and, for an integer input, from the first
  element beyond the entry's ``reduction.exact_within`` (the range its document says stays exact).
- An empty input is an empty result; a 0-d input is one slice of one element.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry, reduction_operands

GREATER = {"prefix-max": np.greater, "prefix-min": np.less}


def held(values: np.ndarray) -> np.ndarray:
    """The values as the extremes are taken: fp16 and bf16 in float32, BOOL as uint8, others as they are."""
    if values.dtype == np.bool_:
        return values.astype(np.uint8)
    return values.astype(np.float32) if values.dtype.itemsize < 4 and values.dtype.kind not in "iub" else values


def running(values: np.ndarray, axis: int, kind: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(prefix extremes, their first positions, tied, after-NaN) of ``values`` along ``axis``: each
    element i against its prefix 0..i, element by element (a strict comparison keeps the first)."""
    v = np.moveaxis(np.asarray(values), axis, -1)
    extreme = np.array(v, copy=True)
    position = np.zeros(v.shape, np.int64)
    tied = np.zeros(v.shape, bool)
    nan = np.isnan(v) if v.dtype.kind == "f" else np.zeros(v.shape, bool)
    after_nan = np.cumsum(nan, axis=-1) > 0 if v.shape[-1] else nan
    better = GREATER[kind]
    if v.shape[-1]:
        best, at, count = v[..., 0], np.zeros(v.shape[:-1], np.int64), np.ones(v.shape[:-1], np.int64)
        for i in range(1, v.shape[-1]):
            x = v[..., i]
            with np.errstate(invalid="ignore"):
                new, same = better(x, best), x == best
            best = np.where(new, x, best)
            at = np.where(new, i, at)
            count = np.where(new, 1, count + same)
            extreme[..., i], position[..., i], tied[..., i] = best, at, count > 1
    back = lambda a: np.moveaxis(a, -1, axis)
    return back(extreme), back(position), back(tied), back(after_nan)


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...]) -> OracleResult:
    """The expected outputs of a running extreme's call, with the elements left open."""
    red = entry.reduction
    values, _, _, _ = reduction_operands(case, entry)
    values = np.asarray(values).reshape(tuple(case.tensor(red["input"]).desc.shape))
    flat = values.reshape((1,)) if values.ndim == 0 else values
    axis = axes[0] if axes else 0
    extreme, position, tied, after_nan = running(held(flat), axis, red["kind"])
    if red.get("exact_within") and flat.dtype.kind in "iu":   # beyond it the kernel's compare is not exact
        beyond = np.absolute(flat.astype(np.float64)) > float(red["exact_within"])
        after_nan = after_nan | (np.cumsum(beyond, axis=axis) > 0 if flat.size else beyond)
    views: dict[str, Any] = {}
    aux: dict[str, Any] = {}
    for role, name in red["outputs"].items():
        out = case.tensor(name)
        shape = tuple(out.desc.shape)
        found = extreme if role == red["kind"] else position
        with np.errstate(all="ignore"):
            wanted = found.astype(values.dtype) if role == red["kind"] else found
            views[name] = np.asarray(wanted).astype(out.storage.dtype).reshape(shape)
        open_ = after_nan | tied if role != red["kind"] else after_nan
        aux[name] = {"either_zero_sign": entry.zero_sign == "either", "unjudged": np.asarray(open_).reshape(shape)}
    return OracleResult(views=views, aux=aux)
