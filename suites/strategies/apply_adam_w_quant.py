"""Hypothesis strategies of aclnnApplyAdamWQuant calls, from its spec's rows and attribute ranges."""
from __future__ import annotations

from hypothesis import strategies as st

from aclnn_conformance.spec.apply_adam_w_quant import ATTR_RANGES, PARAMS, SPEC
from aclnn_conformance.spec.case import Case
from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.spec.faults import faults_of
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules, shapes

_VAR_PARAM = next(p for p in PARAMS if p.name == "varRef")
_DTYPE_NAMES = {v: k for k, v in calls.DTYPES.items()}


def call_params() -> st.SearchStrategy[dict]:
    """Keyword arguments of suites.calls.apply_adam_w_quant.make_call for a valid call."""
    lo_hi = ATTR_RANGES
    return st.fixed_dictionaries({
        "shape": shapes(_VAR_PARAM.ranks, 1500),
        "dtype": st.sampled_from([_DTYPE_NAMES[d] for d in _VAR_PARAM.dtypes]),
        "qmaps": st.sampled_from(sorted(calls.QMAPS)),
        "seed": st.integers(0, 2 ** 32 - 1),
        "step": st.integers(0, 10 ** 6),
        "lr": st.floats(1e-8, lo_hi["lr"][1] / 10),
        "beta1": st.floats(lo_hi["beta1"][0], 0.999),
        "beta2": st.floats(lo_hi["beta2"][0], 0.9999),
        "weightDecay": st.floats(-0.1, lo_hi["weightDecay"][1]),
        "eps": st.floats(1e-10, 1e-2),
        "gnormScale": st.floats(0.05, 2.0),
    })


@st.composite
def valid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    layout = draw(st.sampled_from(["contiguous", "strided", "offset"]), label="layout")
    case = calls.make_call(drawn_case_id("valid", {**params, "layout": layout}), origin="hypothesis",
                           **params)
    if layout != "contiguous":
        case = calls.as_noncontiguous(case, ("varRef", "grad", "mRef", "vRef"), layout)
    return case


@st.composite
def invalid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    rule = draw(fault_rules(SPEC), label="broken rule")
    case = faults_of(SPEC.key)[rule.id].build(calls.make_call(
        drawn_case_id("invalid", {**params, "rule": rule.id}), origin="hypothesis", **params))
    return case.with_(rule_ids=(rule.id,))


deterministic_calls = drawn_calls("determinism", call_params, calls.make_call)


STRATEGIES = CallStrategies(valid={"": valid_calls}, invalid=invalid_calls,
                            deterministic=deterministic_calls)
