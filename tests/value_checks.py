"""Checks every value family's tests make the same way: one call judged by the harness, and a generated
mutant set run through ``mutate`` (each mutant killed naming its rule, each control clean)."""
from __future__ import annotations

from typing import Any

from aclnn_conformance.spec.case import Case


def judged(backend: Any, case: Case, product: str = "atlas-a2") -> str:
    """The outcome the harness gives ``backend`` on ``case`` (profile ``cann``)."""
    from aclnn_conformance.judging.run_case import run_case
    return run_case(backend, case, product, "cann").outcome


def assert_gated_through_mutate(op: str, tier: str, products: tuple[str, ...]) -> Any:
    """Run ``op``'s generated mutants and controls through ``mutate``: every mutant killed by a case
    naming its rule, every control without a killing case, the gate passed; the mutant set."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.reports.mutate import mutate
    found = getattr(MUTANT_SETS, op)
    doc = mutate(tier, mutants=list(found.mutants) + list(found.controls), products=products)
    by = {m["name"]: m for m in doc["mutants"]}
    for mutant in found.mutants:
        assert by[mutant.name]["status"] == "killed" and by[mutant.name]["named"], (op, mutant.kind)
    for control in found.controls:
        assert by[control.name]["status"] == "control" and by[control.name]["killing_cases"] == 0, \
            (op, control.kind)
    assert doc["passed"]
    return found
