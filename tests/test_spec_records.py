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


@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)
def test_the_checks_on_a_product_are_its_checks_in_order_that_check_there(op):
    """What ``expected_outcome`` walks for every case: computed once per (profile, product), and a
    spec made from another with other rules has its own."""
    from dataclasses import replace
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.rules import PROFILES
    spec = OPS[op]
    for profile in PROFILES:
        for product in PRODUCT_IDS:
            want = [(r, r.expect_for(profile, product)) for r in spec.checks()
                    if r.expect_for(profile, product).kind != "unchecked"]
            assert list(spec.checks_on(profile, product)) == want, (op, profile, product)
            assert spec.checks_on(profile, product) is spec.checks_on(profile, product)
    fewer = replace(spec, rules=tuple(r for r in spec.rules if r.id != spec.checks()[0].id))
    assert [r.id for r in fewer.checks()] == [r.id for r in spec.checks()[1:]]
    assert len(fewer.checks_on("cann", "atlas-a2")) <= len(spec.checks_on("cann", "atlas-a2"))
