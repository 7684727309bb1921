"""Hypothesis strategies of every data operator, from its data: valid calls draw one of the dtype
assignments every product's code-read checks accept, a view shape within the rank rules (every
tensor the same shape, which every shape rule admits), ND or an ND-like format, contiguous or
transposed; invalid calls break one check rule through its fault. Valid and deterministic calls are
``drawn_calls`` of the drawn parameters, so a draw's case id is the one every operator's draws get."""
from __future__ import annotations

from functools import partial

from hypothesis import strategies as st

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.faults import faulted_rules, faults_of
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls.surface import (PerOperator, _noncontiguous, base_call, build_call,
                                                    code_checks, valid_dtype_choices)
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules, shapes


def _ranks(key: str) -> tuple[int, ...]:
    lo, hi = 1, 4
    for r in code_checks(key):
        if r["template"] == "rank_range":
            lo = max(lo, r["args"].get("min", 0))
            hi = min(hi, r["args"].get("max", 8))
    return tuple(range(lo, hi + 1)) or (2,)


def call_params(key: str) -> st.SearchStrategy[dict]:
    """Keyword arguments of ``make_call`` for a valid call of ``key``."""
    choices = valid_dtype_choices(key) or (tuple((n, a.desc.dtype.name) for n, a in base_call(key).tensors.items()
                                                 if a is not None),)

    @st.composite
    def draw(draw_) -> dict:
        shape = draw_(shapes(_ranks(key), 64))
        return {"dtypes": draw_(st.sampled_from(choices)), "shape": shape,
                "fmt": draw_(st.sampled_from(("ND", "NCHW") if len(shape) == 4 else ("ND",))),
                "transposed": len(shape) >= 2 and draw_(st.booleans()),
                "seed": draw_(st.integers(0, 2 ** 16))}
    return draw()


def make_call(key: str, case_id: str, origin: str = "hypothesis", *, dtypes, shape, fmt, transposed,
              seed) -> Case:
    case = build_call(key, dict(dtypes), shape, case_id, fmt=fmt, origin=origin)
    if transposed:
        case = _noncontiguous(case) or case
    return case.with_(case_id=case_id, seed=seed, origin=origin)


def valid_calls(key: str) -> st.SearchStrategy[Case]:
    return drawn_calls("valid", partial(call_params, key), partial(make_call, key))()


def invalid_calls(key: str) -> st.SearchStrategy[Case]:
    spec = operator(key).spec
    if not faulted_rules(spec):
        return valid_calls(key)

    @st.composite
    def draw(draw_) -> Case:
        params = draw_(call_params(key), label="make_call kwargs")
        rule = draw_(fault_rules(spec), label="broken rule")
        fault = faults_of(key)[rule.id]
        case = make_call(key, drawn_case_id("invalid", {**params, "rule": rule.id}), **params)
        try:
            broken = fault.build(case)
        except (KeyError, AttributeError, ValueError, TypeError):   # the fault needs the base call's shape
            broken = fault.build(base_call(key))
        return broken.with_(case_id=case.case_id, rule_ids=(rule.id,), origin="hypothesis")
    return draw()


def strategies(key: str) -> CallStrategies:
    data_of(key)
    return CallStrategies(valid={"": lambda: valid_calls(key)}, invalid=lambda: invalid_calls(key),
                          deterministic=drawn_calls("determinism", partial(call_params, key),
                                                    partial(make_call, key)))


STRATEGIES = PerOperator(strategies, "strategies")
