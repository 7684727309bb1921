"""What every operator's spec record must hold, whatever the operator: one parametrized test over
the registry instead of a copy per operator (the per-operator files test what is particular)."""
from __future__ import annotations

import re

import pytest

from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.faults import faults_of


@pytest.mark.parametrize("op", sorted(OPS))
def test_rule_ids_are_unique_cited_and_listed_in_check_order(op):
    spec = OPS[op]
    ids = [r.id for r in spec.rules]
    assert len(ids) == len(set(ids)), [i for i in ids if ids.count(i) > 1]
    prefix = ids[0].split("-")[0]
    assert all(re.fullmatch(rf"{prefix}-[A-Z]+-\d{{3}}", i) for i in ids), ids
    assert all(r.text and r.source and r.expect for r in spec.rules)
    assert [r for r in spec.rules if r.kind == "check"] == list(spec.checks())  # the vendor's order


@pytest.mark.parametrize("op", sorted(OPS))
def test_every_fault_starts_from_a_base_call_of_its_operator(op):
    bases = operator(op).piece("fault_bases")
    assert all(f.base in bases for f in faults_of(op).values())
