"""Hypothesis strategies of aclnnQuantMatmulWeightNz calls on its MX A8W4 path."""
from __future__ import annotations

from hypothesis import assume, reject
from hypothesis import strategies as st

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.quant_matmul_weight_nz import SPEC
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls import quant_matmul_weight_nz as calls
from aclnn_conformance.spec.faults import faults_of
from aclnn_conformance.suites.strategies import CallStrategies, drawn_calls, fault_rules


@st.composite
def call_params(draw, regime: str = "exact", max_elements: int = 64 * 1024) -> dict:
    """Keyword arguments of suites.calls.quant_matmul_weight_nz.make_call for a valid call: K and N
    multiples of 8 (K often not of 32, ceil(K/32) odd or even), M free, bias none/bf16/fp16 of the
    out dtype, both x2 layouts and both x2Scale layouts; ``regime`` ``exact`` keeps the values in
    the exact regime, ``wide`` leaves it."""
    k = draw(st.integers(1, 64).map(lambda e: 8 * e), label="K")
    n = draw(st.integers(1, max(1, min(40, max_elements // (8 * k)))).map(lambda e: 8 * e), label="N")
    m = draw(st.integers(1, 24), label="M")
    out_dtype = draw(st.sampled_from(["bfloat16", "float16"]), label="out dtype")
    return {"m": m, "k": k, "n": n, "out_dtype": out_dtype,
            "bias": draw(st.sampled_from([None, out_dtype]), label="bias"),
            "x2_layout": draw(st.sampled_from(["wqp", "nk"]), label="x2 layout"),
            "scale_layout": draw(st.sampled_from(["wqp", "nk"]), label="x2Scale layout"),
            "regime": regime, "seed": draw(st.integers(0, 2 ** 32 - 1), label="seed")}


def _valid(kind: str, regime: str):
    return drawn_calls(kind, lambda: call_params(regime=regime), calls.make_call)


@st.composite
def invalid_calls(draw) -> Case:
    rule = draw(fault_rules(SPEC), label="broken rule")
    base = calls.base_call().with_(case_id=drawn_case_id("invalid", {"rule": rule.id}),
                                   origin="hypothesis")
    try:
        case = faults_of(SPEC.key)[rule.id].build(base)
    except ValueError:
        reject()
    assume(any(expected_outcome(SPEC, case, "ascend950", p).rule_id == rule.id for p in PROFILES))
    return case.with_(rule_ids=(rule.id,))


STRATEGIES = CallStrategies(
    valid={"": _valid("valid", "exact"), "outside-the-exact-regime": _valid("wide", "wide")},
    invalid=invalid_calls, deterministic=_valid("determinism", "exact"))
