"""Hypothesis strategies built from the spec tables (dtypes, ranks, attribute ranges, rules)."""
from __future__ import annotations

import math

from hypothesis import strategies as st

from spec.apply_adam_w_quant import ATTR_RANGES, PARAMS, SPEC as AAWQ
from suites.calls import apply_adam_w_quant as aawq_calls

_VAR_PARAM = next(p for p in PARAMS if p.name == "varRef")
_DTYPE_NAMES = {v: k for k, v in aawq_calls.DTYPES.items()}


@st.composite
def shapes(draw, ranks: tuple[int, ...], max_numel: int) -> tuple[int, ...]:
    rank = draw(st.sampled_from(ranks))
    dims = []
    for i in range(rank):
        room = max_numel // max(math.prod(dims), 1)
        limit = max(1, room if i == rank - 1 else min(room, 8))
        dims.append(draw(st.integers(1, limit)))
    return tuple(dims)


def aawq_call_params() -> st.SearchStrategy[dict]:
    """Keyword arguments of suites.calls.apply_adam_w_quant.make_call for a valid call."""
    lo_hi = ATTR_RANGES
    return st.fixed_dictionaries({
        "shape": shapes(_VAR_PARAM.ranks, 1500),
        "dtype": st.sampled_from([_DTYPE_NAMES[d] for d in _VAR_PARAM.dtypes]),
        "qmaps": st.sampled_from(sorted(aawq_calls.QMAPS)),
        "seed": st.integers(0, 2 ** 32 - 1),
        "step": st.integers(0, 10 ** 6),
        "lr": st.floats(1e-8, lo_hi["lr"][1] / 10),
        "beta1": st.floats(lo_hi["beta1"][0], 0.999),
        "beta2": st.floats(lo_hi["beta2"][0], 0.9999),
        "weightDecay": st.floats(-0.1, lo_hi["weightDecay"][1]),
        "eps": st.floats(1e-10, 1e-2),
        "gnormScale": st.floats(0.05, 2.0),
    })


def fault_rules(spec=AAWQ) -> st.SearchStrategy:
    """A check rule of ``spec`` that has a fault to inject."""
    return st.sampled_from([r for r in spec.checks() if r.make_fault is not None])
