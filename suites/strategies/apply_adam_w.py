"""Hypothesis strategies of aclnnApplyAdamW calls, from its spec's rows."""
from __future__ import annotations

from hypothesis import strategies as st

from aclnn_conformance.spec.apply_adam_w import PARAMS, SPEC
from aclnn_conformance.spec.case import Case
from aclnn_conformance.suites.calls import apply_adam_w as calls
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.spec.faults import faults_of
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules, shapes

_ROWS = {p.name: p for p in PARAMS}
_DTYPE_NAMES = {v: k for k, v in calls.DTYPES.items()}


def call_params() -> st.SearchStrategy[dict]:
    """Keyword arguments of suites.calls.apply_adam_w.make_call for a valid call: shapes and dtypes
    from the varRef row, hyper-parameter tensors of any one-element shape, both flags."""
    return st.fixed_dictionaries({
        "shape": shapes(_ROWS["varRef"].ranks, 1500),
        "dtype": st.sampled_from([_DTYPE_NAMES[d] for d in _ROWS["varRef"].dtypes]),
        "seed": st.integers(0, 2 ** 32 - 1),
        "step": st.integers(1, 10 ** 6),
        "amsgrad": st.booleans(),
        "maximize": st.booleans(),
        "lr": st.floats(1e-8, 0.1),
        "weightDecay": st.floats(-0.1, 0.5),
        "beta1": st.floats(0.0, 0.999),
        "beta2": st.floats(0.0, 0.9999),
        "eps": st.floats(1e-10, 1e-2),
        "scalar_shape": st.sampled_from([(1,), (), (1, 1)]),
    })


@st.composite
def valid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    layout = draw(st.sampled_from(["contiguous", "strided", "offset", "transposed"]), label="layout")
    case = calls.make_call(drawn_case_id("valid", {**params, "layout": layout}), origin="hypothesis",
                           **params)
    if layout != "contiguous":
        names = [n for n in ("varRef", "mRef", "vRef", "grad", "maxGradNormOptional", "lr")
                 if case.tensor(n) is not None]
        case = calls.as_noncontiguous(case, names, layout)
    return case


@st.composite
def invalid_calls(draw) -> Case:
    params = draw(call_params(), label="make_call kwargs")
    rule = draw(fault_rules(SPEC), label="broken rule")
    fault = faults_of(SPEC.key)[rule.id]
    if fault.base == "amsgrad":
        params["amsgrad"] = True
    elif fault.base == "mgn-unused":
        params.update(amsgrad=False, max_grad_norm=True)
    case = fault.build(calls.make_call(drawn_case_id("invalid", {**params, "rule": rule.id}),
                                       origin="hypothesis", **params))
    return case.with_(rule_ids=(rule.id,))


deterministic_calls = drawn_calls("determinism", call_params, calls.make_call)


STRATEGIES = CallStrategies(valid={"": valid_calls}, invalid=invalid_calls,
                            deterministic=deterministic_calls)
