"""Hypothesis strategies of aclnnApplyAdamWV2 calls, from its spec's rows."""
from __future__ import annotations

from hypothesis import strategies as st

from aclnn_conformance.spec.apply_adam_w_v2 import FLOAT_TENSORS, MAX_GRAD_NORM, PARAMS, SPEC
from aclnn_conformance.spec.case import Case
from aclnn_conformance.suites.calls import apply_adam_w_v2 as calls
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.spec.faults import faults_of
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules, shapes

ROWS = {p.name: p for p in PARAMS}
_DTYPE_NAMES = {v: k for k, v in calls.DTYPES.items()}
_STEP_NAMES = {v: k for k, v in calls.STEP_DTYPES.items()}


@st.composite
def call_params(draw) -> dict:
    """Keyword arguments of suites.calls.apply_adam_w_v2.make_call for a valid call (cann): each
    float tensor's dtype from its row (any mixture), the step's dtype from its row, the documented
    ranks, amsgrad and maximize either way."""
    dtype = {n: draw(st.sampled_from([_DTYPE_NAMES[d] for d in ROWS[n].dtypes]), label=f"{n} dtype")
             for n in FLOAT_TENSORS}
    amsgrad = draw(st.booleans(), label="amsgrad")
    return {
        "shape": draw(shapes(ROWS["varRef"].ranks, 1200), label="shape"),
        "dtype": dtype,
        "amsgrad": amsgrad,
        "max_grad_norm": amsgrad or draw(st.booleans(), label="maxGradNorm without amsgrad"),
        "maximize": draw(st.booleans(), label="maximize"),
        "step_dtype": draw(st.sampled_from([_STEP_NAMES[d] for d in ROWS["step"].dtypes]), label="step dtype"),
        "step": draw(st.integers(0, 10 ** 6), label="step"),
        "seed": draw(st.integers(0, 2 ** 32 - 1), label="seed"),
        "lr": draw(st.floats(1e-8, 0.1), label="lr"),
        "beta1": draw(st.floats(0.0, 0.999), label="beta1"),
        "beta2": draw(st.floats(0.0, 0.9999), label="beta2"),
        "weightDecay": draw(st.floats(-0.1, 1.0), label="weightDecay"),
        "eps": draw(st.floats(1e-10, 1e-2), label="eps"),
    }


@st.composite
def valid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    layout = draw(st.sampled_from(["contiguous", "strided", "offset"]), label="layout")
    case = calls.make_call(drawn_case_id("valid", {**params, "layout": layout}), origin="hypothesis",
                           **params)
    if layout != "contiguous":
        case = calls.as_noncontiguous(case, ("varRef", "mRef", "grad"), layout)
    return case


@st.composite
def invalid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    rule = draw(fault_rules(SPEC), label="broken rule")
    base = calls.FAULT_BASES[faults_of(SPEC.key)[rule.id].base]()
    drawn = calls.make_call(drawn_case_id("invalid", {**params, "rule": rule.id}), origin="hypothesis",
                            **{**params, "shape": (4, 33), "dtype": "float32",
                               "amsgrad": bool(base.attrs["amsgrad"]),
                               "max_grad_norm": base.tensor(MAX_GRAD_NORM) is not None})
    case = faults_of(SPEC.key)[rule.id].build(drawn)
    return case.with_(rule_ids=(rule.id,))


deterministic_calls = drawn_calls("determinism", call_params, calls.make_call)


STRATEGIES = CallStrategies(valid={"": valid_calls}, invalid=invalid_calls,
                            deterministic=deterministic_calls)
