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


def hand_case(key: str, dtype: str = "FLOAT", attrs: dict | None = None, **tensors: Any) -> Case:
    """A call of ``key``'s value entry with the given inputs (float64 values cast to ``dtype``)."""
    import numpy as np
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.surface_cases import build_case
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(key)
    values = {n: np.asarray(v, np.float64) for n, v in tensors.items()}
    return build_case(entry, entry.key, "hand", values, AclDataType[dtype], attrs=attrs)


def oracle_output(case: Case, output: str | None = None) -> tuple[Any, dict]:
    """The oracle's values and aux of one output (the entry's first by default), profile ``cann``."""
    import numpy as np
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_values import value_entry
    name = output or value_entry(case.op).output
    result = from_case(case, "cann")
    return np.asarray(result.views[name]), result.aux[name]


def open_flags(aux: dict, size: int) -> list[bool]:
    """Which elements the oracle leaves open (not judged), flat."""
    import numpy as np
    return np.asarray(aux.get("unjudged", np.zeros(size, bool))).reshape(-1).tolist()


def class_verdict(case: Case, actual: Any) -> str:
    """The outcome of ``actual`` against the oracle by the standard of the entry's function class."""
    import numpy as np
    from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_values import value_entry
    expected, aux = oracle_output(case)
    return compare(CLASS_STANDARD[value_entry(case.op).function_class], np.asarray(actual), expected,
                   aux).outcome


def model_verdict(case: Case, actual: Any) -> str:
    """The outcome of ``actual`` (cast and shaped as the output) against the oracle by the standard
    the operator's arithmetic model gives its output ``out``."""
    import numpy as np
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_models import standards_for
    want, aux = oracle_output(case, "out")
    got = np.asarray(actual).astype(want.dtype).reshape(want.shape)
    return compare(standards_for(case.op)["out"], got, want, aux).outcome


def generated_kind(op: str, kind: str) -> type:
    """The generated mutant, control or equivalent mutant of ``op`` of this kind."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, op)
    return next(m for m in (*found.mutants, *found.controls, *found.equivalent) if m.kind == kind)


def outcome_of_values(cls: type, case: Case) -> str:
    """The model standard's verdict on the output ``out`` that the backend class ``cls`` computes for
    one call (its ``values``)."""
    return str(model_verdict(case, cls().values(case)))


class WritingDevice:
    """A device that succeeds and writes the given values into the named outputs (a hand-made
    implementation for one call)."""

    def __init__(self, **written: Any) -> None:
        self.written = written

    def run(self, case: Case, product: str) -> Any:
        import numpy as np
        from aclnn_conformance.backends.base import RunResult
        from aclnn_conformance.spec.enums import Status
        storages = case.copy_storages()
        for name, values in self.written.items():
            arg = case.tensor(name)
            arg.view_of(storages[name])[...] = np.asarray(values).astype(arg.storage.dtype).reshape(arg.desc.shape)
        return RunResult(Status.SUCCESS, storages, workspace_size=0)
