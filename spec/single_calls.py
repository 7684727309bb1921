"""The deterministic single-call cases of an operator, through its record: its table cases, its
one-fault cases and its fault pairs. The suites parametrize from these; mutation analysis and the
sensitivity tables run them without the suites."""
from __future__ import annotations

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases
from aclnn_conformance.spec.registry import operator, operators


def table_cases(op: str, tier: str = "ci") -> list[Case]:
    """An operator's table cases for ``tier`` (none when its record declares no table)."""
    record = operator(op)
    return list(record.piece("table_cases")(tier)) if record.has("table_cases") else []


def single_call_cases(op: str, tier: str = "ci") -> list[Case]:
    """Table cases, one-fault cases and fault pairs of one operator, in that order."""
    spec = operator(op).spec
    return [*table_cases(op, tier), *fault_cases(spec), *fault_pair_cases(spec)]
