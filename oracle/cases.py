"""From a Case to what the oracle says its outputs must be, on one product: the operator's record
names its adapter (``Operator.oracle``, ``from_case(case, profile, product)`` in the operator's own
oracle module), which reads the Case's views and calls the plain-array oracle."""
from __future__ import annotations

import weakref
from collections import OrderedDict

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.registry import operator

# Bounded by bytes, not by count: a mutation run judges one operator's few hundred (case, product)
# pairs with every mutant in turn, and a count-bounded cache smaller than that cycle never hits.
_RECENT: OrderedDict[tuple[int, str, str], tuple[weakref.ref, OracleResult, int]] = OrderedDict()
_RECENT_BYTES = 256 * 2**20
_held_bytes = 0


def _result_bytes(result: OracleResult) -> int:
    """The bytes of the arrays ``result`` holds (its views, storages and the standards' inputs)."""
    arrays = [*result.views.values(), *result.storages.values(),
              *(v for extra in result.aux.values() for v in extra.values())]
    return sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))


def _forget(key: tuple[int, str, str]) -> None:
    global _held_bytes
    kept = _RECENT.pop(key, None)
    if kept is not None:
        _held_bytes -= kept[2]


def oracle_result(case: Case, profile: str, product: str) -> OracleResult:
    """The expected outputs of a call that must succeed with judged values on ``product``. Recent
    results are kept while their cases live, up to a memory budget: one case is judged by every
    backend of a mutation run."""
    global _held_bytes
    key = (id(case), profile, product)
    kept = _RECENT.get(key)
    if kept is not None and kept[0]() is case:
        _RECENT.move_to_end(key)
        return kept[1]
    result = operator(case.op).piece("oracle")(case, profile, product)
    size = _result_bytes(result)
    if size > _RECENT_BYTES:
        return result
    _forget(key)
    while _RECENT and _held_bytes + size > _RECENT_BYTES:
        _forget(next(iter(_RECENT)))
    # a result lives no longer than its case: results of the vendor's largest cases held after
    # their cases were gone filled the memory of a run
    _RECENT[key] = (weakref.ref(case, lambda _, key=key: _forget(key)), result, size)
    _held_bytes += size
    return result
