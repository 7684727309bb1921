"""From a Case to what the oracle says its outputs must be, on one product: the operator's record
names its adapter (``Operator.oracle``, ``from_case(case, profile, product)`` in the operator's own
oracle module), which reads the Case's views and calls the plain-array oracle."""
from __future__ import annotations

import weakref

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.registry import operator

_RECENT: dict[tuple[int, str, str], tuple[weakref.ref, OracleResult]] = {}
_RECENT_SIZE = 64


def oracle_result(case: Case, profile: str, product: str) -> OracleResult:
    """The expected outputs of a call that must succeed with judged values on ``product``. The
    last few results are kept while their cases live: one case is judged by every backend of a
    mutation run."""
    key = (id(case), profile, product)
    kept = _RECENT.get(key)
    if kept is not None and kept[0]() is case:
        return kept[1]
    result = operator(case.op).piece("oracle")(case, profile, product)
    if len(_RECENT) >= _RECENT_SIZE:
        _RECENT.pop(next(iter(_RECENT)))
    # a result lives no longer than its case: 64 results of the vendor's largest cases held after
    # their cases were gone filled the memory of a run
    _RECENT[key] = (weakref.ref(case, lambda _, key=key: _RECENT.pop(key, None)), result)
    return result
