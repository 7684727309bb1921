"""Mutants and controls of the index reductions (a value entry whose ``reduction.kind`` is ``argmax``
or ``argmin``), generated per operator beside the kinds every reduction shares
(backends/mutants/surface_reductions.py: promotion, dtype-missing, wrong-axis, keepdim-ignored):

- ``index-from-end``: the position counted from the slice's end (a traversal in reverse that forgets
  to turn the index back);
- ``other-extreme``: the position of the other extreme (the minimum for argmax);
- controls the standard leaves open: ``last-of-ties-control`` (a tie gives its last position, not
  its first, as a reverse traversal does) and ``nan-skipping-control`` (a slice holding NaN gives the
  position of the extreme of its other values, as an IEEE maxNum/minNum comparison does).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import PROFILE, SurfaceBackend
from aclnn_conformance.spec.case import Case

OTHER = {"argmax": np.argmin, "argmin": np.argmax}
SKIPPING = {"argmax": np.nanargmax, "argmin": np.nanargmin}
SAME = {"argmax": np.argmax, "argmin": np.argmin}


class IndexBackend(SurfaceBackend):
    """A device that finds each slice's position with ``locate(values, axis)``; rank 0 and empty
    inputs are the oracle's."""

    def locate(self, values: np.ndarray, axis: int, kind: str) -> np.ndarray:
        return SAME[kind](values, axis=axis)

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        entry = self.entry()
        red = entry.reduction
        arg = case.tensor(red["input"])
        x = np.asarray(arg.view_of(arg.storage))
        x = x.astype(np.float32) if x.dtype.itemsize < 4 and x.dtype.kind not in "iub" else x
        axes = reduced_axes(case, entry)
        # an extreme's positions beside its values (``paired_index``): that output and its kind
        kind, name = entry.paired_index or (red["kind"], entry.output)
        out = case.tensor(name)
        if not axes or x.size == 0:
            from aclnn_conformance.oracle.surface import from_case
            return np.asarray(from_case(case, PROFILE).views[name])
        found = self.locate(x, axes[0], kind)
        return np.asarray(found).astype(out.storage.dtype).reshape(out.desc.shape)


class IndexFromEndMutant(IndexBackend):
    def locate(self, values, axis, kind):
        return values.shape[axis] - 1 - SAME[kind](values, axis=axis)


class OtherExtremeMutant(IndexBackend):
    def locate(self, values, axis, kind):
        return OTHER[kind](values, axis=axis)


class LastOfTiesControl(IndexBackend):
    def locate(self, values, axis, kind):
        n = values.shape[axis]
        return n - 1 - SAME[kind](np.flip(values, axis=axis), axis=axis)


class NanSkippingControl(IndexBackend):
    def locate(self, values, axis, kind):
        if values.dtype.kind != "f":
            return SAME[kind](values, axis=axis)
        every_nan = np.all(np.isnan(values), axis=axis)
        filled = np.where(np.isnan(values), -np.inf if kind == "argmax" else np.inf, values)
        # an all-NaN slice has no other value: its first position, like the oracle's
        return np.where(every_nan, 0, SAME[kind](filled, axis=axis))


def index_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The index reductions' own mutants and controls of an entry (``make`` names and declares each);
    an extreme's positions beside its values (``paired_index``) carry the defect in that output."""
    at = {"defect_output": entry.paired_index[1]} if not entry.indexes and entry.paired_index else {}
    mutants = [make(IndexFromEndMutant, entry, key, "index-from-end",
                    "counts the position from the slice's end", rule, **at),
               make(OtherExtremeMutant, entry, key, "other-extreme",
                    "gives the position of the other extreme", rule, **at)]
    controls = [make(LastOfTiesControl, entry, key, "last-of-ties-control",
                     "a tie gives its last position", (), **at),
                make(NanSkippingControl, entry, key, "nan-skipping-control",
                     "a slice holding NaN gives the position of its other values' extreme", (), **at)]
    return mutants, controls
