"""Hypothesis strategies built from the spec tables (dtypes, ranks, attribute ranges, rules)."""
from __future__ import annotations

import math

from hypothesis import strategies as st

from aclnn_conformance.spec.apply_adam_w_quant import ATTR_RANGES, PARAMS, SPEC as AAWQ
from aclnn_conformance.suites.calls import apply_adam_w_quant as aawq_calls
from aclnn_conformance.suites.faults import faulted_rules

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
    return st.sampled_from(faulted_rules(spec))


# ---- WeightQuantPreprocess ----

from aclnn_conformance.spec.weight_quant_preprocess import PARAMS as WQP_PARAMS  # noqa: E402
from aclnn_conformance.spec.weight_quant_preprocess import SPEC as WQP  # noqa: E402
from aclnn_conformance.suites.calls import weight_quant_preprocess as wqp_calls  # noqa: E402

_WQP_PARAM = {p.name: p for p in WQP_PARAMS}
_WQP_BIAS_DTYPE_NAMES = {v: k for k, v in wqp_calls.BIAS_DTYPES.items()}


@st.composite
def wqp_dims(draw, gmm: bool | None = None, max_elements: int = 48 * 1024) -> dict:
    """G (None for MM), K and N of a valid call: the weight's documented ranks, K even (a multiple
    of 32 most of the time, else zero-padded), N free; at most ``max_elements`` weight elements."""
    ranks = _WQP_PARAM["weight"].ranks
    rank = draw(st.sampled_from(ranks), label="weight rank") if gmm is None else (3 if gmm else 2)
    g = draw(st.integers(1, 4), label="G") if rank == 3 else None
    k = draw(st.one_of(st.integers(1, 8).map(lambda b: 32 * b),
                       st.integers(1, 160).map(lambda h: 2 * h)), label="K")
    room = max(1, max_elements // (k * (g or 1)))
    n = draw(st.integers(1, min(room, 300)), label="N")
    return {"g": g, "k": k, "n": n}


@st.composite
def wqp_call_params(draw, gmm: bool | None = None) -> dict:
    """Keyword arguments of suites.calls.weight_quant_preprocess.make_call for a valid call (cann):
    shapes, bias shape and dtype (from the spec's bias row), and the layouts the code accepts."""
    params = draw(wqp_dims(gmm))
    bias_kinds = [None, "n", "1n"] if params["g"] is None else [None, "gn"]
    params["bias"] = draw(st.sampled_from(bias_kinds), label="bias shape")
    params["bias_dtype"] = draw(st.sampled_from(
        [_WQP_BIAS_DTYPE_NAMES[d] for d in _WQP_PARAM["biasOptional"].dtypes]), label="bias dtype")
    params["out_bias"] = (params["bias"] is not None
                          or draw(st.booleans(), label="outBias without bias"))
    params["out_weight_strides"] = draw(st.sampled_from(["contiguous", "transposed"]),
                                        label="outWeight strides")
    params["scale_layout"] = draw(st.sampled_from(["doc", "spread"]), label="weightScale strides")
    params["out_scale_layout"] = draw(st.sampled_from(["doc", "spread"]),
                                      label="outWeightScale strides")
    params["seed"] = draw(st.integers(0, 2 ** 32 - 1), label="seed")
    return params


def wqp_fault_rules() -> st.SearchStrategy:
    """A WeightQuantPreprocess check rule that has a fault to inject."""
    return fault_rules(WQP)


# ---- QuantMatmulWeightNz (MX A8W4) ----

from aclnn_conformance.spec.quant_matmul_weight_nz import SPEC as QMM  # noqa: E402


@st.composite
def qmm_call_params(draw, regime: str = "exact", max_elements: int = 64 * 1024) -> dict:
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


def qmm_fault_rules() -> st.SearchStrategy:
    """A QuantMatmulWeightNz check rule that has a fault to inject."""
    return fault_rules(QMM)
