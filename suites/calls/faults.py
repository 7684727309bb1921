"""One-fault-at-a-time error cases generated from every check rule, and fault pairs that show the
order in which the checks run."""
from __future__ import annotations

from itertools import combinations
from typing import Iterator

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import PROFILES, OpSpec, Rule, expected_outcome
from aclnn_conformance.suites.calls import calls_module


def _base(spec: OpSpec, rule: Rule) -> Case:
    return calls_module(spec.key).FAULT_BASES[rule.fault_base]()


def fault_case(spec: OpSpec, rule: Rule) -> Case:
    """The base call with ``rule`` broken and nothing else."""
    case = rule.make_fault(_base(spec, rule))
    return case.with_(case_id=f"fault-{rule.id}", origin="fault", rule_ids=(rule.id,),
                      note=f"breaks {rule.id} alone")


def fault_cases(spec: OpSpec) -> Iterator[Case]:
    for rule in spec.checks():
        if rule.make_fault is not None:
            yield fault_case(spec, rule)


def _decides(spec: OpSpec, case: Case, rule: Rule) -> bool:
    """Whether ``rule`` decides ``case`` on at least one product under at least one profile."""
    return any(expected_outcome(spec, case, p, prof).rule_id == rule.id
               for p in PRODUCT_IDS for prof in PROFILES)


def fault_pair_cases(spec: OpSpec) -> Iterator[Case]:
    """Two faults from different check groups: the earlier check must decide the status.

    One representative rule per category (the first in check order), every ordered pair of categories.
    """
    firsts: dict[str, Rule] = {}
    for rule in spec.checks():
        if rule.make_fault is not None and rule.category not in firsts:
            firsts[rule.category] = rule
    for early, late in combinations(list(firsts.values()), 2):  # in check order already
        if early.fault_base != late.fault_base:
            continue
        try:
            case = early.make_fault(late.make_fault(_base(spec, early)))
        except (KeyError, AttributeError, ValueError):
            continue  # the two faults touch the same tensor in ways that do not compose
        if not _decides(spec, case, early):
            continue
        yield case.with_(case_id=f"pair-{early.id}+{late.id}", origin="fault-pair",
                         rule_ids=(early.id, late.id),
                         note=f"{early.id} (checked first) and {late.id} both broken")
