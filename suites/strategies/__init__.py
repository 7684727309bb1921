"""Hypothesis strategies built from the spec tables: the generic pieces, and ``CallStrategies``, the
record piece through which the generic suites draw an operator's valid and invalid calls.

Each operator's strategies are a module of this package named after it (``strategies.<op>``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from hypothesis import strategies as st

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.rules import OpSpec
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.spec.faults import faulted_rules


@dataclass(frozen=True)
class CallStrategies:
    """An operator's hypothesis strategies, each a factory of ``SearchStrategy[Case]``.

    ``valid``: family -> valid calls (``""`` for the main family; others, such as values outside an
    exact regime, are their own test ids); ``invalid``: calls breaking one check rule, the rule in
    ``rule_ids``; ``deterministic``: the valid calls the determinism relation runs twice."""

    valid: Mapping[str, Callable[[], st.SearchStrategy[Case]]]
    invalid: Callable[[], st.SearchStrategy[Case]]
    deterministic: Callable[[], st.SearchStrategy[Case]]

    def __post_init__(self) -> None:
        if "" not in self.valid:
            raise ValueError("CallStrategies.valid needs its main family, keyed ''")


@st.composite
def shapes(draw, ranks: tuple[int, ...], max_numel: int) -> tuple[int, ...]:
    rank = draw(st.sampled_from(ranks))
    dims = []
    for i in range(rank):
        room = max_numel // max(math.prod(dims), 1)
        limit = max(1, room if i == rank - 1 else min(room, 8))
        dims.append(draw(st.integers(1, limit)))
    return tuple(dims)


def drawn_calls(kind: str, params: Callable[[], st.SearchStrategy[dict]],
                make_call: Callable[..., Case]) -> Callable[[], st.SearchStrategy[Case]]:
    """A factory of the strategy that draws ``params()`` and builds the call with ``make_call``,
    its case id from ``kind`` and the draw (the same draw always gets the same id)."""
    @st.composite
    def drawn(draw) -> Case:
        values = draw(params(), label="make_call kwargs")
        return make_call(drawn_case_id(kind, values), origin="hypothesis", **values)
    return drawn


def fault_rules(spec: OpSpec) -> st.SearchStrategy:
    """A check rule of ``spec`` that has a fault to inject."""
    return st.sampled_from(faulted_rules(spec))
