"""aclnnQuantMatmulWeightNz on its MX A8W4 path: table cases (the document's example, the vendor's
shapes and unit-test rows, K and N at their alignment limits, bias fp16/bf16, odd ceil(K/32), calls
outside the exact regime and outside the spec's domain), property-based valid and invalid calls, and
relations on the backend's own outputs (the two x2 layouts agree; a block's scales act on that block
only; the unused scale slot is not read)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.quant_matmul_weight_nz import OP
from aclnn_conformance.spec.tensor import ceil_div
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls import quant_matmul_weight_nz as calls
from aclnn_conformance.suites.runner import check_case, check_property
from aclnn_conformance.suites.strategies.quant_matmul_weight_nz import call_params
from aclnn_conformance.spec.outcome import Outcome

SPEC = op_spec(OP)

# The value rules each relation exercises.
RELATION_RULES = {
    "layouts-agree": ("QMMNZ-VAL-006", "QMMNZ-VAL-007"),
    "scale-per-block": ("QMMNZ-VAL-004",),
    "tail-slot-unread": ("QMMNZ-VAL-004",),
}










# ---- relations on the backend's outputs ----

def _out(harness, product, case: Case, nodeid: str) -> np.ndarray | None:
    """Judge the call, then run it again: its out view (None where the product is not covered)."""
    record = check_case(harness, case, product, nodeid)
    if record.outcome in (Outcome.NOT_SUPPORTED, Outcome.NOT_COVERED):
        return None
    result = harness.execute(case, product)
    if result.status != 0:
        return None
    arg = case.tensor("out")
    return np.array(arg.view_of(result.storages["out"]))


def _same(a: np.ndarray, b: np.ndarray) -> tuple[bool, str]:
    differ = np.flatnonzero(a.reshape(-1).view(np.uint16) != b.reshape(-1).view(np.uint16))
    return differ.size == 0, f"{differ.size} of {a.size} outputs differ (first {differ[:5].tolist()})"


@pytest.mark.conformance
@given(data=st.data())
def test_the_two_x2_layouts_agree(harness, product, data, request):
    """x2 (k, n) strides (1, k) with transposeX2 false and x2 (n, k) with transposeX2 true, and the
    two x2Scale views, give the same bits."""
    rules = RELATION_RULES["layouts-agree"]
    params = data.draw(call_params(), label="make_call kwargs")
    params.update(x2_layout="wqp", scale_layout="wqp")
    wqp = calls.make_call(drawn_case_id("layout", params), origin="hypothesis", **params)
    nk = calls.make_call(drawn_case_id("layout-nk", params), origin="hypothesis",
                         **{**params, "x2_layout": "nk", "scale_layout": "nk"})
    a = _out(harness, product, wqp, request.node.nodeid)
    b = _out(harness, product, nk, request.node.nodeid)
    if a is None or b is None:
        return
    holds, detail = _same(a, b)
    check_property(harness, wqp, product, "layouts-agree", holds, detail, rules, request.node.nodeid)


@pytest.mark.conformance
@given(data=st.data(), block=st.integers(0, 15))
def test_block_scales_act_on_their_block_only(harness, product, data, block, request):
    """With the weight of one K block zeroed, that block's x2Scale values do not change the result."""
    rules = RELATION_RULES["scale-per-block"]
    params = data.draw(call_params(), label="make_call kwargs")
    k, n = params["k"], params["n"]
    blocks = ceil_div(k, 32)
    j = block % blocks
    rng = np.random.default_rng(params["seed"])
    weight = rng.integers(0, 16, (k, n), dtype=np.uint8)
    weight[32 * j: 32 * (j + 1)] = 0
    w_scale = rng.integers(*calls.EXACT_SCALES, (n, ceil_div(k, 64), 2), dtype=np.uint8)
    changed = w_scale.copy()
    changed[:, j // 2, j % 2] = 127 + 7
    first = calls.make_call(drawn_case_id("block", {**params, "j": j}), origin="hypothesis",
                            weight=weight, w_scale=w_scale, **params)
    second = calls.make_call(drawn_case_id("block2", {**params, "j": j}), origin="hypothesis",
                             weight=weight, w_scale=changed, **params)
    a = _out(harness, product, first, request.node.nodeid)
    b = _out(harness, product, second, request.node.nodeid)
    if a is None or b is None:
        return
    holds, detail = _same(a, b)
    check_property(harness, first, product, "scale-per-block", holds, f"block {j}: {detail}", rules,
                   request.node.nodeid)


@pytest.mark.conformance
@given(data=st.data())
def test_the_unused_scale_slot_is_not_read(harness, product, data, request):
    """When ceil(K/32) is odd, the last slot of each scale pair row does not change the result."""
    rules = RELATION_RULES["tail-slot-unread"]
    params = data.draw(call_params(), label="make_call kwargs")
    k = data.draw(st.integers(0, 7).map(lambda e: 64 * e + 32 + 8 * (e % 3)), label="K, odd blocks")
    params["k"] = k
    assume(ceil_div(k, 32) % 2 == 1)
    rng = np.random.default_rng(params["seed"])
    scales = {name: rng.integers(*calls.EXACT_SCALES, (rows, ceil_div(k, 64), 2), dtype=np.uint8)
              for name, rows in (("x_scale", params["m"]), ("w_scale", params["n"]))}
    other = {name: s.copy() for name, s in scales.items()}
    for s in other.values():
        s[:, -1, 1] = 127 + 9
    first = calls.make_call(drawn_case_id("tail", params), origin="hypothesis", **scales, **params)
    second = calls.make_call(drawn_case_id("tail2", params), origin="hypothesis", **other, **params)
    a = _out(harness, product, first, request.node.nodeid)
    b = _out(harness, product, second, request.node.nodeid)
    if a is None or b is None:
        return
    holds, detail = _same(a, b)
    check_property(harness, first, product, "tail-slot-unread", holds, detail, rules,
                   request.node.nodeid)
