"""The MX A8W4 pipeline: aclnnWeightQuantPreprocess, then aclnnQuantMatmulWeightNz on its outputs.

Each case draws an FP4 weight W (K, N), its E8M0 scales and an optional bias, runs
WeightQuantPreprocess on the backend (judged as its own call), feeds outWeight, outWeightScale and
outBias exactly as returned (bytes and descriptors) to QuantMatmulWeightNz on the same backend with
FP8 activations and their scales (judged as its own call), and compares the matmul's output with the
oracle of x @ dequant(W) computed from the ND weight. A failing call is reported against its own
operator and the rule it broke (the test stops there); only a chain whose calls both pass and whose
result still differs from the ND computation is reported as the pipeline relation.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclnn_conformance.oracle.quant_matmul_weight_nz import quant_matmul_mx
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.precision import compare_model_bound, standard
from aclnn_conformance.spec.tensor import TensorArg, ceil_div
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls import quant_matmul_weight_nz as qmm_calls
from aclnn_conformance.suites.calls import weight_quant_preprocess as wqp_calls
from aclnn_conformance.spec.quant_matmul_weight_nz import OP as QMM_OP
from aclnn_conformance.spec.weight_quant_preprocess import OP as WQP_OP
from aclnn_conformance.suites.runner import check_case, check_property
from aclnn_conformance.spec.outcome import Outcome

OPERATORS = (WQP_OP, QMM_OP)   # every test here chains the two: --op keeps it when both are selected

RELATION_RULES = {
    "pipeline-equals-nd": ("QMMNZ-VAL-001", "QMMNZ-VAL-003", "QMMNZ-VAL-006", "QMMNZ-VAL-007",
                           "WQP-VAL-001", "WQP-VAL-002", "WQP-VAL-005"),
    "pipeline-scale-per-block": ("QMMNZ-VAL-004", "WQP-VAL-005"),
}


@dataclass(frozen=True)
class Chain:
    """One pipeline: the ND inputs of both operators."""

    case_id: str
    m: int
    k: int
    n: int
    weight: np.ndarray          # (K, N) FP4 codes
    w_scale: np.ndarray         # (ceil(K/64), N, 2) E8M0 codes, WeightQuantPreprocess's view
    x: np.ndarray               # (M, K) E4M3 codes
    x_scale: np.ndarray         # (M, ceil(K/64), 2) E8M0 codes
    bias: str | None = None     # bias dtype name (equal to the out dtype) or None
    out_dtype: str = "bfloat16"
    seed: int = 0
    origin: str = "table"


def draw_chain(case_id: str, m: int, k: int, n: int, seed: int = 0, bias: str | None = None,
               out_dtype: str = "bfloat16", regime: str = "exact", origin: str = "table",
               weight=None, w_scale=None, x=None, x_scale=None) -> Chain:
    """Random inputs (``qmm_calls`` draws: ``exact`` stays in the exact regime, ``wide`` leaves it)."""
    rng = np.random.default_rng(seed)
    weight = rng.integers(0, 16, (k, n), dtype=np.uint8) if weight is None else weight
    if w_scale is None:
        w_scale = qmm_calls._scale_pairs(rng, n, k, regime).transpose(1, 0, 2)
    x = qmm_calls._draw_x(rng, m, k, regime) if x is None else x
    x_scale = qmm_calls._scale_pairs(rng, m, k, regime) if x_scale is None else x_scale
    return Chain(case_id, m, k, n, np.asarray(weight, np.uint8), np.ascontiguousarray(w_scale, np.uint8),
                 np.asarray(x, np.uint8), np.asarray(x_scale, np.uint8), bias, out_dtype, seed, origin)


def wqp_case(chain: Chain) -> Case:
    """WeightQuantPreprocess of the chain's weight, laid out as the document's example (outWeight
    keeps the weight's transposed strides so that the matmul recognises the layout)."""
    return wqp_calls.make_call(f"pipeline-{chain.case_id}", k=chain.k, n=chain.n, seed=chain.seed,
                               bias=None if chain.bias is None else "1n",
                               bias_dtype=chain.bias or "float16", weight=chain.weight,
                               scale=chain.w_scale, out_weight_strides="transposed",
                               origin=chain.origin, note="first call of an MX A8W4 pipeline")


def qmm_case(chain: Chain, wqp: Case, storages: dict[str, np.ndarray]) -> Case:
    """QuantMatmulWeightNz with WeightQuantPreprocess's outputs as returned."""
    base = qmm_calls.make_call(f"pipeline-{chain.case_id}", m=chain.m, k=chain.k, n=chain.n,
                               out_dtype=chain.out_dtype, x=chain.x, x_scale=chain.x_scale,
                               weight=np.zeros((chain.k, chain.n), np.uint8),
                               w_scale=np.zeros((chain.n, ceil_div(chain.k, 64), 2), np.uint8),
                               bias=chain.bias, bias_values=np.zeros(chain.n), seed=chain.seed,
                               origin=chain.origin, note="second call of an MX A8W4 pipeline")
    fed = {"x2": "outWeight", "x2Scale": "outWeightScale", "bias": "outBiasOptional"}
    for name, source in fed.items():
        if base.tensor(name) is not None:
            base = base.with_tensor(name, TensorArg(wqp.desc(source), storages[source].copy()))
    return base


def nd_expectation(chain: Chain, wqp: Case, profile: str):
    """The oracle of x @ dequant(W) + bias from the ND weight and the ND inputs of both calls."""
    bias = wqp.tensor("biasOptional")
    return quant_matmul_mx(chain.x.view(numpy_dtype(qmm_calls.DT.FLOAT8_E4M3FN)), chain.x_scale,
                           chain.weight, chain.w_scale.transpose(1, 0, 2),
                           None if bias is None else bias.values().reshape(-1),
                           numpy_dtype(qmm_calls.OUT_DTYPES[chain.out_dtype]), profile)


def run_chain(harness, product: str, chain: Chain, nodeid: str) -> tuple[Case, np.ndarray] | None:
    """Both calls, each judged as its own case; the matmul's out view, or None where the product
    does not run the pipeline."""
    wqp = wqp_case(chain)
    if check_case(harness, wqp, product, nodeid).outcome != Outcome.PASS:
        return None                                     # NOT_SUPPORTED: Ascend 950 only
    first = harness.execute(wqp, product)
    qmm = qmm_case(chain, wqp, first.storages)
    record = check_case(harness, qmm, product, nodeid)
    if record.outcome != Outcome.PASS or not record.values_judged:
        return None                                     # values outside the contract (overflow)
    second = harness.execute(qmm, product)
    return qmm, np.array(qmm.tensor("out").view_of(second.storages["out"]))


def check_chain(harness, product: str, chain: Chain, nodeid: str) -> None:
    ran = run_chain(harness, product, chain, nodeid)
    if ran is None:
        return
    qmm, out = ran
    want = nd_expectation(chain, wqp_case(chain), harness.profile)
    verdict = compare_model_bound(out, want.out, want.bound, standard("model-bound@1"))
    exact = int(want.exact.sum())
    detail = (f"{verdict.detail}; {exact} of {want.exact.size} elements in the exact regime"
              if verdict.detail else "")
    check_property(harness, qmm, product, "pipeline-equals-nd", verdict.outcome == Outcome.PASS, detail,
                   RELATION_RULES["pipeline-equals-nd"], nodeid)


def table_chains(tier: str = "ci"):
    m, k, n = 5, 64, 128
    yield draw_chain("doc-example", m, k, n, weight=np.full((k, n), 2, np.uint8),
                     w_scale=np.full((1, n, 2), 0x85, np.uint8), x=np.full((m, k), 0x38, np.uint8),
                     x_scale=np.full((m, 1, 2), 0x7F, np.uint8))
    for name, (m, n, k, bias) in qmm_calls.VENDOR_SHAPES.items():
        if tier == "ci" and name not in qmm_calls.CI_VENDOR:
            continue
        yield draw_chain(f"vendor-{name}", m, k, n, seed=len(name), bias=bias)
    for k, n in ((8, 8), (16, 24), (40, 8), (96, 32), (160, 48)):
        yield draw_chain(f"k{k}-n{n}", 3, k, n, seed=k + n)
    for dtype in ("bfloat16", "float16"):
        yield draw_chain(f"bias-{dtype}", 4, 96, 16, seed=5, bias=dtype, out_dtype=dtype)
    yield draw_chain("wide-k512", 4, 512, 16, seed=6, regime="wide")


TABLE = list(table_chains("ci"))


@pytest.mark.conformance
@pytest.mark.parametrize("chain", TABLE, ids=[c.case_id for c in TABLE])
def test_pipeline_table(harness, product, chain, request):
    check_chain(harness, product, chain, request.node.nodeid)


@st.composite
def chain_params(draw, regime: str = "exact") -> dict:
    k = draw(st.integers(1, 40).map(lambda e: 8 * e), label="K")
    n = draw(st.integers(1, 24).map(lambda e: 8 * e), label="N")
    out_dtype = draw(st.sampled_from(["bfloat16", "float16"]), label="out dtype")
    return {"m": draw(st.integers(1, 16), label="M"), "k": k, "n": n, "out_dtype": out_dtype,
            "bias": draw(st.sampled_from([None, out_dtype]), label="bias"), "regime": regime,
            "seed": draw(st.integers(0, 2 ** 32 - 1), label="seed")}


@pytest.mark.conformance
@given(data=st.data())
def test_pipeline_in_the_exact_regime(harness, product, data, request):
    params = data.draw(chain_params(), label="chain")
    chain = draw_chain(drawn_case_id("pipeline", params), origin="hypothesis", **params)
    check_chain(harness, product, chain, request.node.nodeid)


@pytest.mark.conformance
@given(data=st.data())
def test_pipeline_outside_the_exact_regime(harness, product, data, request):
    params = data.draw(chain_params(regime="wide"), label="chain")
    chain = draw_chain(drawn_case_id("pipeline-wide", params), origin="hypothesis", **params)
    check_chain(harness, product, chain, request.node.nodeid)


@pytest.mark.conformance
@given(data=st.data(), block=st.integers(0, 15))
def test_pipeline_block_scales_act_on_their_block(harness, product, data, block, request):
    """With one K block of W zeroed, changing that block's weight scales changes no output bit."""
    params = data.draw(chain_params(), label="chain")
    k = params["k"]
    j = block % ceil_div(k, 32)
    first = draw_chain(drawn_case_id("pipeline-block", {**params, "j": j}), origin="hypothesis",
                       **params)
    weight = first.weight.copy()
    weight[32 * j: 32 * (j + 1)] = 0
    first = draw_chain(first.case_id, origin="hypothesis", weight=weight, **params)
    changed = first.w_scale.copy()
    changed[j // 2, :, j % 2] = 127 + 7
    second = draw_chain(drawn_case_id("pipeline-block2", {**params, "j": j}), origin="hypothesis",
                        weight=weight, w_scale=changed, x=first.x, x_scale=first.x_scale, **params)
    a = run_chain(harness, product, first, request.node.nodeid)
    b = run_chain(harness, product, second, request.node.nodeid)
    if a is None or b is None:
        return
    differ = np.flatnonzero(a[1].reshape(-1).view(np.uint16) != b[1].reshape(-1).view(np.uint16))
    check_property(harness, a[0], product, "pipeline-scale-per-block", differ.size == 0,
                   f"block {j}: {differ.size} outputs differ", RELATION_RULES["pipeline-scale-per-block"],
                   request.node.nodeid)
