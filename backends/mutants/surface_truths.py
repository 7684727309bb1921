"""Mutants and controls of the truth reductions (a value entry whose ``reduction.kind`` is
``all-true`` or ``any-true``), beside the kinds every reduction shares
(backends/mutants/surface_reductions.py: promotion, dtype-missing, wrong-axis, keepdim-ignored):

- ``other-truth``: every computed as some, some as every (the other reduce instruction);
- ``positive-truth``: an element taken as true only where it is above 0 (a kernel reducing by the
  slice's maximum or minimum against 0, which reads a negative value as false).

Controls, what the standard leaves open: ``nan-false-control`` (NaN read as false, subnormals as
zero: a cast to BOOL or a product that flushes; the slices holding them are not judged).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend
from aclnn_conformance.spec.case import Case


class TruthBackend(SurfaceBackend):
    """A device that reads each element as true by ``truth`` and reduces the slice by ``every``
    (np.all) or not (np.any)."""

    swapped = False          # every and some exchanged
    positive_only = False    # only elements above 0 read as true
    nan_false = False        # NaN read as false and subnormals as zero

    def values(self, case: Case) -> np.ndarray:
        import ml_dtypes

        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        entry = self.entry()
        red = entry.reduction
        arg = case.tensor(red["input"])
        x = np.asarray(arg.view_of(arg.storage)).astype(np.float64)
        out = case.tensor(entry.output)
        every = (red["kind"] == "all-true") != self.swapped
        if self.nan_false:
            src = np.dtype(arg.storage.dtype)
            floating = src.kind == "f" or src == np.dtype(ml_dtypes.bfloat16)
            tiny = float(ml_dtypes.finfo(src).smallest_normal) if floating else 0.0
            x = np.where(np.isnan(x) | (np.absolute(x) < tiny), 0.0, x)
        truth = x > 0 if self.positive_only else x != 0
        axes = reduced_axes(case, entry)
        keepdim = bool(case.attrs.get(red["keepdim"]))
        result = (np.all if every else np.any)(truth, axis=axes, keepdims=keepdim) if axes else truth
        return np.asarray(result).astype(out.storage.dtype).reshape(out.desc.shape)


def truth_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The truth reductions' own mutants and controls of an entry (``make`` names and declares each)."""
    mutants = [make(TruthBackend, entry, key, "other-truth",
                    "reduces by the other truth (every for some, some for every)", rule, swapped=True),
               make(TruthBackend, entry, key, "positive-truth",
                    "reads only elements above 0 as true (a negative value as false)", rule,
                    positive_only=True)]
    controls = [make(TruthBackend, entry, key, "nan-false-control",
                     "reads NaN as false and subnormals as zero (slices the standard leaves open)", (),
                     nan_false=True)]
    return mutants, controls
