"""Mutants and controls an entry names by formula (its ``variants``): another function of the same
operands computed through the oracle's own steps (the compute dtype, the evaluation in float64 or in
the integer dtype, one cast to the output). A mutant's formula is the bug a real kernel would have
(a quotient truncated instead of floored, the remainder's sign taken from the dividend, a signed
right shift rounding toward zero, alpha applied to the other operand); a control's is a correct
computation in another order (the document's formula where the kernel takes another route), which
the standard must leave clean on the elements it judges.

Nothing here names an API: the formulas are data of the entries.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend, _make
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry

MUTANT, CONTROL = "mutant", "control"


def variant_values(case: Case, entry: ValueEntry, function: str) -> np.ndarray:
    """``function`` of the call's operands as the oracle evaluates the entry's own (oracle/surface.py):
    in the compute dtype's evaluation type, cast to the compute dtype and then to the output's."""
    from aclnn_conformance.oracle.surface import compute_dtype, inputs, is_float
    from aclnn_conformance.oracle.surface_functions import evaluate_values
    compute = compute_dtype(case, entry)
    env, shape = inputs(case, entry, compute)
    out_arg = case.tensor(entry.output)
    out_shape = tuple(out_arg.desc.shape)
    shape = np.broadcast_shapes(shape, out_shape) if out_shape else shape
    like = np.dtype(np.float64) if is_float(compute) else np.dtype(compute)
    with np.errstate(all="ignore"):
        result = np.asarray(evaluate_values(function, env, shape, like))
        if result.dtype != np.bool_:
            result = result.astype(compute)
        return np.broadcast_to(result.astype(out_arg.storage.dtype), out_shape)


class FormulaVariant(SurfaceBackend):
    """The entry's call computed with another formula (``function``)."""

    function = ""

    def values(self, case: Case) -> np.ndarray:
        return variant_values(case, self.entry(), self.function)


def variant_classes(entry: ValueEntry, key: str,
                    rule: tuple[str, ...]) -> tuple[list[type], list[type]]:
    """The entry's ``variants`` as generated mutant and control classes (mutants killed by the value
    rule, controls by nothing)."""
    mutants: list[type] = []
    controls: list[type] = []
    for variant in entry.raw.get("variants", ()):
        role: Any = variant.get("role", MUTANT)
        made = _make(FormulaVariant, entry, key, variant["kind"], variant["what"],
                     rule if role == MUTANT else (), function=variant["function"])
        (mutants if role == MUTANT else controls).append(made)
    return mutants, controls

