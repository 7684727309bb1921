"""Mutants an elementwise entry asks for by name (its ``extra_mutants``), beside the generated set of
backends/mutants/surface_values.py. Nothing here names an API.

- ``input-kept``: an in-place call that never writes its result back (the tensor keeps the values
  it came with: a fill whose copy to the output is missing), the bug a constant fill would have that
  none of the generated kinds shows (a fill's result depends on no input value, so a wrong
  promotion or a flushed subnormal cannot change it).
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend, _make
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry

INPUT_KEPT = "input-kept"
EXTRA_KINDS: tuple[str, ...] = (INPUT_KEPT,)


class InputKeptMutant(SurfaceBackend):
    """The output as the call found it: an in-place result never written."""

    def values(self, case: Case) -> np.ndarray:
        return np.asarray(case.tensor(self.entry().output).values())


def extra_mutants(entry: ValueEntry, key: str, rule: tuple[str, ...]) -> list[type]:
    """The mutants the entry names in ``extra_mutants`` (an unknown name is an error of the table)."""
    wanted = list(entry.raw.get("extra_mutants", ()))
    unknown = [w for w in wanted if w not in EXTRA_KINDS]
    if unknown:
        raise ValueError(f"{entry.api}: extra_mutants {unknown} are not among {EXTRA_KINDS}")
    found: list[type] = []
    if INPUT_KEPT in wanted:
        if not entry.inplace:
            raise ValueError(f"{entry.api}: {INPUT_KEPT} is a mutant of an in-place call")
        found.append(_make(InputKeptMutant, entry, key, INPUT_KEPT,
                           "the in-place result never written: the tensor keeps its input", rule))
    return found
