"""The oracle of the data-movement entries (spec/surface_movement.py): the input's values placed where
the entry's kind puts them, unchanged (exact class, ``surface-exact@1``: every element equal, NaN
where NaN, the sign of a zero judged, since a copy keeps it), in the input's dtype (the host code
checks that the output's is the same).

- ``broadcast-to``: NumPy's broadcast of the input to the attribute's shape (dims aligned right, a
  dim of 1 read at index 0 whatever the output index: Y[..., i_k, ...] = X[..., floor(i_k / m), ...]
  with m the dim's expansion multiple, which is the output's size there).
- ``tile``: NumPy's tile by the attribute (one whole copy after another along each dim; a longer
  attribute adds leading dims of 1, a 0-d input is read as [1] first).

The product's special-value choices (a device that flushes subnormals) are added by oracle/surface.py
as for every elementwise entry.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_movement import ATTRIBUTE_ROLE, BROADCAST_TO, TILE, _int_list, movement_of
from aclnn_conformance.spec.surface_values import ValueEntry


def moved(values: np.ndarray, kind: str, attribute: Any) -> np.ndarray:
    """``values`` rearranged by ``kind`` with its attribute (a list of ints)."""
    dims = _int_list(attribute)
    if kind == BROADCAST_TO:
        return np.array(np.broadcast_to(values, tuple(dims)), copy=True)
    if kind == TILE:
        held = values.reshape((1,)) if values.ndim == 0 and dims else values
        return np.tile(held, tuple(dims)) if dims else np.array(values, copy=True)
    raise ValueError(f"no movement kind {kind!r}")


def input_values(case: Case, entry: ValueEntry) -> np.ndarray:
    """The input's view values in its view's shape."""
    arg = case.tensor(movement_of(entry)["input"])
    return np.asarray(arg.values()).reshape(tuple(arg.desc.shape))


def from_case(case: Case, entry: ValueEntry) -> OracleResult:
    """The expected output of a movement call (oracle/surface.py adds the product's special-value
    choices)."""
    block = movement_of(entry)
    out_arg = case.tensor(entry.output)
    out_shape = tuple(out_arg.desc.shape)
    values = input_values(case, entry)
    if values.size == 0 or int(np.prod(out_shape)) == 0:
        expected = np.zeros(out_shape, out_arg.storage.dtype)
    else:
        expected = moved(values, block["kind"], case.attrs.get(block[ATTRIBUTE_ROLE[block["kind"]]]))
        expected = expected.astype(out_arg.storage.dtype).reshape(out_shape)
    aux: dict[str, Any] = {"either_zero_sign": entry.zero_sign == "either"}
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
