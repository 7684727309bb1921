"""The oracle of the sorting positions (spec/surface_values.py ``ORDER_KINDS``): along the one dim the
call names, out[..., j, ...] is the position (0-based along the dim) of the slice's j-th element in
ascending order, or descending where the attribute the block's ``descending`` names is set; the
output in the input's shape and in its integer dtype.

- The values are compared in the input's dtype (fp16 and bf16 held in float32, which keeps their
  order); -inf and +inf sort as the extremes.
- Left open (``unjudged``): a position j whose sorted value occurs more than once in the slice
  (which of the tied positions comes first depends on a sort's stability, which no document fixes:
  +0 and -0 tie too), and every position of a slice holding NaN (where NaN sorts no document says,
  and it moves every other position).
- An empty input is an empty result; a 0-d input is one slice of one element.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_running import held
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry, reduction_operands


def order(values: np.ndarray, axis: int, descending: bool) -> tuple[np.ndarray, np.ndarray]:
    """(the sorting positions of ``values`` along ``axis``, the positions left open)."""
    v = np.moveaxis(held(np.asarray(values)), axis, -1)
    positions = np.argsort(v, axis=-1, kind="stable")
    if descending:
        positions = np.flip(positions, axis=-1)
    ranked = np.take_along_axis(v, positions, axis=-1)
    tied = np.zeros(v.shape, bool)
    if v.shape[-1] > 1:
        same = ranked[..., 1:] == ranked[..., :-1]
        tied[..., 1:] |= same
        tied[..., :-1] |= same
    if v.dtype.kind == "f":
        tied |= np.isnan(v).any(axis=-1, keepdims=True)
    return np.moveaxis(positions, -1, axis), np.moveaxis(tied, -1, axis)


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...]) -> OracleResult:
    """The expected positions of a call, with those left open."""
    red = entry.reduction
    values, out_arg, _, out_shape = reduction_operands(case, entry)
    values = np.asarray(values).reshape(tuple(case.tensor(red["input"]).desc.shape))
    flat = values.reshape((1,)) if values.ndim == 0 else values
    positions, open_ = order(flat, axes[0] if axes else 0, bool(case.attrs.get(red.get("descending"))))
    expected = positions.astype(out_arg.storage.dtype).reshape(out_shape)
    return OracleResult(views={entry.output: expected},
                        aux={entry.output: {"unjudged": np.asarray(open_).reshape(out_shape)}})
