"""The emulator's ApplyAdamWV2: the op_api's phases per product (no SoC check, the launch fails where
there is no kernel), the dtype routes, and the two chip generations' kernels (orders of operations,
bfloat16 ties half away from zero on Atlas A2/A3, to even on Ascend 950)."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.emulator.apply_adam_w_v2 import SYSTEM_WORKSPACE, in_kernel_route
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.suites.calls import apply_adam_w_v2 as calls

BACKEND = EmulatorBackend()
F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16)


def test_phases_per_product():
    case = calls.base_call()
    a2 = BACKEND.run(case, "atlas-a2")
    assert (a2.status, a2.phase, a2.workspace_size) == (0, "Execute", SYSTEM_WORKSPACE)
    other = BACKEND.run(case, "atlas-inference")
    assert (other.status, other.phase) == (Status.ERR_INNER_FIND_KERNEL_ERROR, "Execute")
    assert all(np.array_equal(other.storages[n].view(np.uint8), case.tensor(n).storage.view(np.uint8))
               for n in other.storages)                        # nothing written by a failed launch
    empty = BACKEND.run(calls.make_call("empty", (0, 8), amsgrad=True), "atlas-training")
    assert (empty.status, empty.workspace_size) == (0, 0)
    bf16 = BACKEND.run(calls.base_call_bf16(), "atlas-training")
    assert (bf16.status, bf16.phase) == (Status.ERR_PARAM_INVALID, "GetWorkspaceSize")


def test_dtype_routes():
    f32 = {n: F32 for n in ("varRef", "mRef", "vRef", "grad")}
    assert in_kernel_route({**f32, "maxGradNormOptionalRef": None})
    assert in_kernel_route({**f32, "grad": BF16, "maxGradNormOptionalRef": BF16})       # native mixed
    assert in_kernel_route({**f32, "grad": F16, "maxGradNormOptionalRef": None})
    assert not in_kernel_route({**f32, "grad": F16, "maxGradNormOptionalRef": BF16})
    assert not in_kernel_route({**f32, "varRef": BF16, "maxGradNormOptionalRef": None})


def test_bf16_ties_half_away_on_a2_and_to_even_on_950():
    case = calls.bf16_tie_call()
    exact = (case.tensor("mRef").values().astype(np.float64) * 0.5
             + case.tensor("grad").values().astype(np.float64) * 0.5)          # every one a tie
    a2 = case.tensor("mRef").view_of(BACKEND.run(case, "atlas-a2").storages["mRef"]).astype(np.float64)
    a950 = case.tensor("mRef").view_of(BACKEND.run(case, "ascend950").storages["mRef"]).astype(np.float64)
    assert np.all(np.abs(a2) > np.abs(exact)) and np.all(np.abs(a2 - exact) == 2.0 ** -8)
    assert np.array_equal(a950, exact.astype(np.float32).astype(BF16).astype(np.float64))
    # through the cast-to-float32 route (a mixed call) A2 rounds to even as well
    mixed = case.with_tensor("vRef", case.tensor("vRef").with_desc(dtype=calls.DTYPES["float32"]))
    a2_mixed = mixed.tensor("mRef").view_of(BACKEND.run(mixed, "atlas-a2").storages["mRef"]).astype(np.float64)
    assert np.array_equal(a2_mixed, a950)


def test_the_two_kernels_differ_in_order_and_agree_within_the_bound():
    """m' near cancellation (g close to m): A2's (g - m)*(1 - b1) + m and 950's m*b1 - g*(b1 - 1)
    round differently, and both stay inside the oracle's bound."""
    rng = np.random.default_rng(11)
    m = rng.uniform(0.5, 1.0, (8, 64))
    case = calls.make_call("cancel", (8, 64), "float32", m=m, grad=m * (1 + rng.uniform(-1e-3, 1e-3, m.shape)),
                           beta1=0.37)
    bound = oracle_result(case, "cann", "ascend950").aux["mRef"]["bound"]
    want = oracle_result(case, "cann", "ascend950").views["mRef"].astype(np.float64)
    got = {p: case.tensor("mRef").view_of(BACKEND.run(case, p).storages["mRef"]).astype(np.float64)
           for p in ("atlas-a2", "ascend950")}
    assert np.any(got["atlas-a2"] != got["ascend950"])
    for p, values in got.items():
        assert np.all(np.abs(values - want) <= bound), p
