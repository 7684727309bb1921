"""aclnnWeightQuantPreprocess: table cases (the vendor's unit-test calls, the document's example,
boundaries of K, N, G and bias), property-based valid and invalid calls, and metamorphic relations on
the backend's own outputs (the NZ layout unpacks to the weight, its padding is zero, nothing past it
is written, and an MX A8W4 matmul means the same from the ND weight and from the NZ one)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from aclnn_conformance.oracle.weight_quant_preprocess import (dequantize_mx, from_fractal_nz_c0_32, mx_a8w4_matmul,
                                            nz_padding_mask)
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import codes_of
from aclnn_conformance.spec.mx_a8w4_layout import nz_storage_shape
from aclnn_conformance.spec.weight_quant_preprocess import OP, dims
from aclnn_conformance.suites.calls import drawn_case_id
from aclnn_conformance.suites.calls import weight_quant_preprocess as calls
from aclnn_conformance.suites.runner import (check_case, check_property,
                                             fail_unless_certifiable, ran)
from aclnn_conformance.suites.strategies.weight_quant_preprocess import call_params

SPEC = op_spec(OP)

# The value rules each metamorphic relation exercises.
RELATION_RULES = {
    "nz-unpack": ("WQP-VAL-001", "WQP-VAL-002"),
    "nz-padding-zero": ("WQP-VAL-003", "WQP-VAL-004"),
    "nz-guard-untouched": ("WQP-VAL-007",),
    "mx-matmul-nd-nz": ("WQP-VAL-001", "WQP-VAL-005"),
}








# ---- metamorphic relations on the backend's outputs ----

def _run_valid(harness, product, case: Case, nodeid: str):
    """Judge the call first, then run it again for the relation: (the result, the single call's
    record). The relation is judged even when the single call failed; it has nothing to relate
    when the backend gave no answer (the result is None, and the test fails or returns here)."""
    first = check_case(harness, case, product, nodeid, defer=True)
    if not ran(first):
        fail_unless_certifiable((first, case))
        return None, first
    return harness.execute(case, product), first


def _nz_codes(case: Case, storage: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(the NZ storage as element codes [G,] K1, N1, 16, 32; the storage array past it)."""
    g, k, n = dims(case)
    shape = nz_storage_shape(k, n, g)
    codes = codes_of(storage)
    size = int(np.prod(shape))
    return codes[:size].reshape(shape), codes[size:]


def _valid_case(data, kind: str) -> Case:
    """A drawn valid call; the relation's rules go on the relation's record only."""
    params = data.draw(call_params(), label="make_call kwargs")
    return calls.make_call(drawn_case_id(kind, params), origin="hypothesis", **params)


@pytest.mark.conformance
@given(data=st.data())
def test_nz_unpacks_to_weight(harness, product, data, request):
    """Reading the FRACTAL_NZ_C0_32 storage back gives the weight's logical {[G,] K, N} codes."""
    rules = RELATION_RULES["nz-unpack"]
    case = _valid_case(data, "unpack")
    result, first = _run_valid(harness, product, case, request.node.nodeid)
    if result is None:
        return
    g, k, n = dims(case)
    holds, detail = result.status == 0, f"status {result.status}"
    if holds:
        nz, _ = _nz_codes(case, result.storages["outWeight"])
        got = from_fractal_nz_c0_32(nz, k, n)
        want = codes_of(case.tensor("weight").values())
        bad = np.argwhere(got != want)
        holds = bad.size == 0
        detail = f"{len(bad)} weight elements differ after unpacking; first at {bad[:3].tolist()}"
    check_property(harness, case, product, "nz-unpack", holds, detail, rules, request.node.nodeid,
                   also=(first,))


@pytest.mark.conformance
@given(data=st.data())
def test_nz_padding_is_zero(harness, product, data, request):
    """Every padding element of the NZ storage (k >= K or n >= N) holds FP4 code 0."""
    rules = RELATION_RULES["nz-padding-zero"]
    case = _valid_case(data, "padding")
    result, first = _run_valid(harness, product, case, request.node.nodeid)
    if result is None:
        return
    g, k, n = dims(case)
    holds, detail = result.status == 0, f"status {result.status}"
    if holds:
        nz, _ = _nz_codes(case, result.storages["outWeight"])
        pad = nz[nz_padding_mask(k, n, g)]
        nonzero = int(np.count_nonzero(pad))
        holds = nonzero == 0
        detail = f"{nonzero} of {pad.size} padding elements are not code 0: {np.unique(pad).tolist()}"
    check_property(harness, case, product, "nz-padding-zero", holds, detail, rules,
                   request.node.nodeid, also=(first,))


@pytest.mark.conformance
@given(data=st.data())
def test_nothing_written_beyond_nz_storage(harness, product, data, request):
    """The elements of outWeight's storage array past its FRACTAL_NZ_C0_32 storage are untouched."""
    rules = RELATION_RULES["nz-guard-untouched"]
    case = _valid_case(data, "guard")
    result, first = _run_valid(harness, product, case, request.node.nodeid)
    if result is None:
        return
    holds, detail = result.status == 0, f"status {result.status}"
    if holds:
        _, after = _nz_codes(case, result.storages["outWeight"])
        _, before = _nz_codes(case, case.tensor("outWeight").storage)
        changed = np.flatnonzero(after != before)
        holds = after.shape == before.shape and changed.size == 0
        detail = (f"{changed.size} guard elements past the NZ storage written "
                  f"(first {changed[:5].tolist()})")
    check_property(harness, case, product, "nz-guard-untouched", holds, detail, rules,
                   request.node.nodeid, also=(first,))


def _activation(rng: np.random.Generator, lead: tuple[int, ...], m: int, k: int):
    """FP8 E4M3FN codes {lead, M, K} without NaN, and E8M0 scales {lead, M, ceil(K/32)}."""
    codes = rng.integers(0, 0x7F, lead + (m, k), dtype=np.uint8)
    codes |= (rng.integers(0, 2, codes.shape, dtype=np.uint8) << 7)
    x = codes.view(ml_dtypes.float8_e4m3fn)
    x_scale = rng.integers(120, 135, lead + (m, -(-k // 32)), dtype=np.uint8)
    return x, x_scale.view(ml_dtypes.float8_e8m0fnu)


@pytest.mark.conformance
@given(data=st.data())
def test_mx_matmul_same_from_nd_and_nz(harness, product, data, request):
    """x @ dequant(W, S) from the ND weight and weightScale equals x @ dequant(W', S') from the
    backend's NZ outWeight (unpacked) and its outWeightScale."""
    rules = RELATION_RULES["mx-matmul-nd-nz"]
    case = _valid_case(data, "matmul")
    m = data.draw(st.integers(1, 4), label="M")
    result, first = _run_valid(harness, product, case, request.node.nodeid)
    if result is None:
        return
    g, k, n = dims(case)
    holds, detail = result.status == 0, f"status {result.status}"
    if holds:
        x, x_scale = _activation(np.random.default_rng(case.seed), () if g is None else (g,), m, k)
        w_nd = dequantize_mx(case.tensor("weight").values(), case.tensor("weightScale").values(),
                             np.float64)
        nz, _ = _nz_codes(case, result.storages["outWeight"])
        out_scale = case.tensor("outWeightScale")
        w_nz = dequantize_mx(from_fractal_nz_c0_32(nz, k, n),
                             np.array(out_scale.view_of(result.storages["outWeightScale"])),
                             np.float64)
        y_nd = mx_a8w4_matmul(x, x_scale, w_nd)
        y_nz = mx_a8w4_matmul(x, x_scale, w_nz)
        differ = ~((y_nd == y_nz) | (np.isnan(y_nd) & np.isnan(y_nz)))
        holds = not differ.any()
        detail = f"{int(differ.sum())} of {y_nd.size} matmul outputs differ"
    check_property(harness, case, product, "mx-matmul-nd-nz", holds, detail, rules,
                   request.node.nodeid, also=(first,))
