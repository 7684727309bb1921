"""Every generated case has an id of its own: records are keyed by (op, case id, product), so two
different calls under one id would collapse into one record and one of them would be lost."""
from __future__ import annotations

import collections

import pytest

from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases


@pytest.mark.parametrize("tier", ["ci", "full"])
@pytest.mark.parametrize("op", sorted(OPS))
def test_table_and_fault_case_ids_are_unique(op, tier):
    spec = OPS[op]
    ids = [c.case_id for c in operator(op).piece("table_cases")(tier)]
    ids += [c.case_id for c in fault_cases(spec)] + [c.case_id for c in fault_pair_cases(spec)]
    repeated = sorted(i for i, n in collections.Counter(ids).items() if n > 1)
    assert not repeated, f"{op} ({tier}): case ids used by more than one call: {repeated[:10]}"
