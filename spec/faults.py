"""One-fault-at-a-time error cases generated from every check rule, and fault pairs that show the
order in which the checks run.

Each operator's record names its faults (``Operator.faults``: rule id -> ``Fault``, how to break that
rule alone) and the valid calls they start from (``Operator.fault_bases``).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Iterator, Mapping

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.rules import PROFILES, OpSpec, Rule, expected_outcome


@dataclass(frozen=True)
class Fault:
    """A transformation of a valid call that breaks one check rule and nothing checked before it."""

    build: Callable[[Case], Case]
    base: str = ""      # which valid call it starts from: a key of the operator's FAULT_BASES


def faults_of(op: str) -> Mapping[str, Fault]:
    """Rule id -> Fault for operator ``op`` (its record's ``faults``; none if it declares none)."""
    record = operator(op)
    return record.piece("faults") if record.has("faults") else {}


def faulted_rules(spec: OpSpec) -> list[Rule]:
    """The check rules that have a one-fault case, in check order."""
    faults = faults_of(spec.key)
    return [r for r in spec.checks() if r.id in faults]


def base_call(spec: OpSpec, rule: Rule) -> Case:
    """The valid call that ``rule``'s fault starts from."""
    return operator(spec.key).piece("fault_bases")[faults_of(spec.key)[rule.id].base]()


def fault_case(spec: OpSpec, rule: Rule) -> Case:
    """The base call with ``rule`` broken and nothing else."""
    case = faults_of(spec.key)[rule.id].build(base_call(spec, rule))
    return case.with_(case_id=f"fault-{rule.id}", origin="fault", rule_ids=(rule.id,),
                      note=f"breaks {rule.id} alone")


def fault_cases(spec: OpSpec) -> Iterator[Case]:
    for rule in faulted_rules(spec):
        yield fault_case(spec, rule)


def _decides(spec: OpSpec, case: Case, rule: Rule) -> bool:
    """Whether ``rule`` decides ``case`` on at least one product under at least one profile."""
    return any(expected_outcome(spec, case, p, prof).rule_id == rule.id
               for p in PRODUCT_IDS for prof in PROFILES)


def fault_pair_cases(spec: OpSpec) -> Iterator[Case]:
    """Two faults from different check groups: the earlier check must decide the status.

    One representative rule per category (the first in check order), every ordered pair of categories.
    """
    faults = faults_of(spec.key)
    firsts: dict[str, Rule] = {}
    for rule in faulted_rules(spec):
        firsts.setdefault(rule.category, rule)
    for early, late in combinations(list(firsts.values()), 2):  # in check order already
        if faults[early.id].base != faults[late.id].base:
            continue
        try:
            case = faults[early.id].build(faults[late.id].build(base_call(spec, early)))
        except (KeyError, AttributeError, ValueError):
            continue  # the two faults touch the same tensor in ways that do not compose
        if not _decides(spec, case, early):
            continue
        yield case.with_(case_id=f"pair-{early.id}+{late.id}", origin="fault-pair",
                         rule_ids=(early.id, late.id),
                         note=f"{early.id} (checked first) and {late.id} both broken")
