"""Hypothesis strategies of every data operator, from its data: valid calls draw one of the dtype
assignments every product's code-read checks accept, a view shape within the rank rules (every
tensor the same shape, which every shape rule admits), ND or an ND-like format, contiguous or
transposed; invalid calls break one check rule through its fault."""
from __future__ import annotations

from hypothesis import strategies as st

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.suites.calls.surface import (PerOperator, _noncontiguous, base_call, build_call,
                                                    code_checks, valid_dtype_choices)
from aclnn_conformance.suites.faults.surface import faults
from aclnn_conformance.suites.strategies import CallStrategies, shapes


def _ranks(key: str) -> tuple[int, ...]:
    lo, hi = 1, 4
    for r in code_checks(key):
        if r["template"] == "rank_range":
            lo = max(lo, r["args"].get("min", 0))
            hi = min(hi, r["args"].get("max", 8))
    return tuple(range(lo, hi + 1)) or (2,)


def valid_calls(key: str) -> st.SearchStrategy[Case]:
    choices = valid_dtype_choices(key) or (tuple((n, a.desc.dtype.name) for n, a in base_call(key).tensors.items()
                                                 if a is not None),)

    @st.composite
    def draw(draw_) -> Case:
        dtypes = dict(draw_(st.sampled_from(choices)))
        shape = draw_(shapes(_ranks(key), 64))
        fmt = draw_(st.sampled_from(("ND", "NCHW") if len(shape) == 4 else ("ND",)))
        case = build_call(key, dtypes, shape, "hypothesis", fmt=fmt, origin="hypothesis")
        if len(shape) >= 2 and draw_(st.booleans()):
            transposed = _noncontiguous(case)
            case = transposed if transposed is not None else case
        seed = draw_(st.integers(0, 2 ** 16))
        return case.with_(case_id=f"hypothesis-{seed}-{'x'.join(map(str, shape))}-{fmt}", seed=seed,
                          origin="hypothesis")
    return draw()


def invalid_calls(key: str) -> st.SearchStrategy[Case]:
    table = faults(key)
    if not table:
        return valid_calls(key)

    @st.composite
    def draw(draw_) -> Case:
        rule_id = draw_(st.sampled_from(sorted(table)))
        case = draw_(valid_calls(key))
        try:
            broken = table[rule_id].build(case)
        except (KeyError, AttributeError, ValueError, TypeError):
            broken = table[rule_id].build(base_call(key))
        return broken.with_(case_id=f"{case.case_id}-breaks-{rule_id}", rule_ids=(rule_id,), origin="hypothesis")
    return draw()


def strategies(key: str) -> CallStrategies:
    data_of(key)
    return CallStrategies(valid={"": lambda: valid_calls(key)}, invalid=lambda: invalid_calls(key),
                          deterministic=lambda: valid_calls(key))


STRATEGIES = PerOperator(strategies, "strategies")
