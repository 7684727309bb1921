"""Generic error-code conformance for every operator: one fault at a time, then fault pairs.

The cases are generated from the spec's check rules; nothing here is specific to an operator.
"""
from __future__ import annotations

import pytest

from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.faults import fault_pair_cases
from aclnn_conformance.suites.runner import check_case
from aclnn_conformance.suites.sampling import keep, selected

SPECS = [OPS[key] for key in OPS if selected(key)]
PAIRS = [c for spec in SPECS for c in fault_pair_cases(spec) if keep(c.op, "pair", c.case_id)]


@pytest.mark.conformance
def test_one_fault(harness, product, fault_case, request):
    # parametrized by the plugin: the ci tier runs each case on one product (suites.sampling)
    check_case(harness, fault_case, product, request.node.nodeid)


@pytest.mark.conformance
@pytest.mark.parametrize("case", PAIRS, ids=lambda c: f"{c.op}:{c.case_id}")
def test_fault_pair(harness, product, case, request):
    check_case(harness, case, product, request.node.nodeid)
