"""What every operator's spec record must hold, whatever the operator: the rule ids of every record
at once (a data check), the faults' bases on the representative operators (building faults is the
main job's work, which runs every operator's faults); the per-operator files test what is
particular."""
from __future__ import annotations

import re

import pytest

from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.faults import faults_of
from tests.representative import REPRESENTATIVE_OPS


def test_rule_ids_are_unique_cited_and_listed_in_check_order():
    for op, spec in OPS.items():
        ids = [r.id for r in spec.rules]
        assert len(ids) == len(set(ids)), (op, [i for i in ids if ids.count(i) > 1])
        prefix = ids[0].split("-")[0]
        assert all(re.fullmatch(rf"{prefix}-[A-Z]+-\d{{3}}", i) for i in ids), (op, ids)
        assert all(r.text and r.source and r.expect for r in spec.rules), op
        assert [r for r in spec.rules if r.kind == "check"] == list(spec.checks()), op  # vendor order


@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)
def test_every_fault_starts_from_a_base_call_of_its_operator(op):
    bases = operator(op).piece("fault_bases")
    assert all(f.base in bases for f in faults_of(op).values())
