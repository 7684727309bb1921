"""Hypothesis strategies of aclnnWeightQuantPreprocess calls, from its spec's rows."""
from __future__ import annotations

from hypothesis import assume, reject
from hypothesis import strategies as st

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.spec.weight_quant_preprocess import PARAMS, SPEC
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls import weight_quant_preprocess as calls
from aclnn_conformance.spec.faults import faults_of
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules

_PARAM = {p.name: p for p in PARAMS}
_BIAS_DTYPE_NAMES = {v: k for k, v in calls.BIAS_DTYPES.items()}


@st.composite
def dims(draw, gmm: bool | None = None, max_elements: int = 48 * 1024) -> dict:
    """G (None for MM), K and N of a valid call: the weight's documented ranks, K even (a multiple
    of 32 most of the time, else zero-padded), N free; at most ``max_elements`` weight elements."""
    ranks = _PARAM["weight"].ranks
    rank = draw(st.sampled_from(ranks), label="weight rank") if gmm is None else (3 if gmm else 2)
    g = draw(st.integers(1, 4), label="G") if rank == 3 else None
    k = draw(st.one_of(st.integers(1, 8).map(lambda b: 32 * b),
                       st.integers(1, 160).map(lambda h: 2 * h)), label="K")
    room = max(1, max_elements // (k * (g or 1)))
    n = draw(st.integers(1, min(room, 300)), label="N")
    return {"g": g, "k": k, "n": n}


@st.composite
def call_params(draw, gmm: bool | None = None) -> dict:
    """Keyword arguments of suites.calls.weight_quant_preprocess.make_call for a valid call (cann):
    shapes, bias shape and dtype (from the spec's bias row), and the layouts the code accepts."""
    params = draw(dims(gmm))
    bias_kinds = [None, "n", "1n"] if params["g"] is None else [None, "gn"]
    params["bias"] = draw(st.sampled_from(bias_kinds), label="bias shape")
    params["bias_dtype"] = draw(st.sampled_from(
        [_BIAS_DTYPE_NAMES[d] for d in _PARAM["biasOptional"].dtypes]), label="bias dtype")
    params["out_bias"] = (params["bias"] is not None
                          or draw(st.booleans(), label="outBias without bias"))
    params["out_weight_strides"] = draw(st.sampled_from(["contiguous", "transposed"]),
                                        label="outWeight strides")
    params["scale_layout"] = draw(st.sampled_from(["doc", "spread"]), label="weightScale strides")
    params["out_scale_layout"] = draw(st.sampled_from(["doc", "spread"]),
                                      label="outWeightScale strides")
    params["seed"] = draw(st.integers(0, 2 ** 32 - 1), label="seed")
    return params


valid_calls = drawn_calls("valid", call_params, calls.make_call)


@st.composite
def invalid_calls(draw) -> Case:
    rule = draw(fault_rules(SPEC), label="broken rule")
    fault = faults_of(SPEC.key)[rule.id]
    params = draw(call_params(gmm=True if fault.base == "gmm" else None), label="make_call kwargs")
    base = calls.make_call(drawn_case_id("invalid", {**params, "rule": rule.id}), origin="hypothesis",
                           **params)
    try:
        case = fault.build(base)
    except ValueError:
        reject()  # this base cannot carry the fault (e.g. a one-element bias is always contiguous)
    # The drawn bases are valid under cann; one may already break a documented-only rule, or not be
    # of the data flow a rule is about: keep the draws where the broken rule decides the call.
    assume(any(expected_outcome(SPEC, case, "ascend950", p).rule_id == rule.id for p in PROFILES))
    return case.with_(rule_ids=(rule.id,))


deterministic_calls = drawn_calls("determinism", call_params, calls.make_call)


STRATEGIES = CallStrategies(valid={"": valid_calls}, invalid=invalid_calls,
                            deterministic=deterministic_calls)
