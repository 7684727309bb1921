"""The mutant of the reductions over dims their API fixes (a reduction block's ``fixed_dims``: every
dim from k on, a global pooling's), beside the kinds every reduction shares
(backends/mutants/surface_reductions.py), where wrong-axis and keepdim-ignored, which change a call's
attribute, have nothing to change:

- ``fewer-dims``: only the last of the fixed dims reduced, the others read at their first index (a
  kernel pooling one spatial dim).
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend, _make
from aclnn_conformance.spec.case import Case


class FewerDimsMutant(SurfaceBackend):
    """Reduces only the last of the dims the API fixes (a kernel pooling one spatial dim): the other
    fixed dims are read at their first index."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        from aclnn_conformance.spec.tensor import TensorArg
        entry = self.entry()
        red = entry.reduction
        arg = case.tensor(red["input"])
        x = np.asarray(arg.view_of(arg.storage))
        start = int(red["fixed_dims"]["from"])
        index = tuple(slice(None) if d < start or d == x.ndim - 1 else slice(0, 1) for d in range(x.ndim))
        altered = case.with_tensor(red["input"], TensorArg.from_array(np.ascontiguousarray(x[index]),
                                                                      arg.desc.dtype))
        return np.asarray(from_case(altered, "cann").views[entry.output])


def fixed_dims_mutants(entry, key: str, rule: tuple[str, ...]) -> list[type]:
    """A reduction over fixed dims: its own mutant, only the last of them reduced."""
    return [_make(FewerDimsMutant, entry, key, "fewer-dims", "reduces only the last of the dims the "
                  "API fixes, the others read at their first index", rule)]
