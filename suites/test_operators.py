"""The generic suites of every operator record (the OpInfo ``test_ops`` idea, over the registry):
table cases, valid and invalid calls drawn by hypothesis from the record's strategies, and
determinism. One-fault cases and fault pairs are in test_rules.py, declared support in
test_declared_support.py; an operator's own relations are in its own module.

A record that declares a piece absent gets its tests skipped with the record's reason, never dropped.
"""
from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclnn_conformance.spec.registry import operator, operators
from aclnn_conformance.suites.sampling import keep, selected
from aclnn_conformance.suites.runner import (check_case, check_property, differing_storages,
                                             fail_unless_certifiable, ran)

KEYS = [k for k in operators() if selected(k) and keep(k, "hypothesis")]
VALID_FAMILIES = []
for _key, _record in ((k, operator(k)) for k in KEYS):
    _families = _record.piece("strategies").valid if _record.has("strategies") else {"": None}
    VALID_FAMILIES += [(_key, family) for family in _families]


def _strategies(op: str):
    record = operator(op)
    if not record.has("strategies"):
        pytest.skip(f"{op} declares no hypothesis strategies: {record.absent_reason('strategies')}")
    return record.piece("strategies")


@pytest.mark.conformance
def test_table(harness, product, table_case, request):
    check_case(harness, table_case, product, request.node.nodeid)


@pytest.mark.conformance
@pytest.mark.parametrize("op,family", VALID_FAMILIES,
                         ids=[f"{o}:{f}" if f else o for o, f in VALID_FAMILIES])
@given(data=st.data())
def test_valid_calls(harness, product, op, family, data, request):
    case = data.draw(_strategies(op).valid[family](), label="valid call")
    check_case(harness, case, product, request.node.nodeid)


@pytest.mark.conformance
@pytest.mark.parametrize("op", KEYS)
@given(data=st.data())
def test_invalid_calls(harness, product, op, data, request):
    case = data.draw(_strategies(op).invalid(), label="invalid call")
    check_case(harness, case, product, request.node.nodeid)


@pytest.mark.conformance
@pytest.mark.parametrize("op", KEYS)
@given(data=st.data())
def test_deterministic(harness, product, op, data, request):
    """The same call twice gives the same status and the same bytes in every buffer."""
    case = data.draw(_strategies(op).deterministic(), label="call")
    first = check_case(harness, case, product, request.node.nodeid, defer=True)
    if not ran(first):  # no answer to relate (or not supported): the single call's record says why
        fail_unless_certifiable((first, case))
        return
    a, b = harness.execute(case, product), harness.execute(case, product)
    differ = differing_storages(a.storages, b.storages)
    check_property(harness, case, product, "determinism", a.status == b.status and not differ,
                   f"two runs differ in {differ or 'status'}", operator(op).determinism_rules,
                   request.node.nodeid, also=(first,))
