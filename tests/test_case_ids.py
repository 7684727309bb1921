"""Every generated case has an id of its own: records are keyed by (op, case id, product), so two
different calls under one id would collapse into one record and one of them would be lost. Here on
the representative operators (table, fault and pair ids together); every run's collection refuses a
repeated table or one-fault id of any operator it collects (the plugin's ``_refuse_repeated_ids``)."""
from __future__ import annotations

import collections

import pytest

from aclnn_conformance.plugin import _refuse_repeated_ids
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases
from tests.representative import REPRESENTATIVE_OPS


@pytest.mark.parametrize("tier", ["ci", "full"])
@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)
def test_table_and_fault_case_ids_are_unique(op, tier):
    spec = OPS[op]
    ids = [c.case_id for c in operator(op).piece("table_cases")(tier)]
    ids += [c.case_id for c in fault_cases(spec)] + [c.case_id for c in fault_pair_cases(spec)]
    repeated = sorted(i for i, n in collections.Counter(ids).items() if n > 1)
    assert not repeated, f"{op} ({tier}): case ids used by more than one call: {repeated[:10]}"


def test_a_run_refuses_a_repeated_case_id_naming_it():
    _refuse_repeated_ids(["add:base", "add:values"], "table cases")
    with pytest.raises(pytest.UsageError, match="table cases: case ids used by more than one "
                                                 "call: add:base$"):
        _refuse_repeated_ids(["add:base", "add:values", "add:base"], "table cases")
