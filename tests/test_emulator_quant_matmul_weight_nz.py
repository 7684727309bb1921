"""The emulator's MX A8W4 model of aclnnQuantMatmulWeightNz: the FP4 -> E4M3 bit moves, the
descriptor it rewrites on the caller's side, and its kernel against the oracle."""
from __future__ import annotations

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.call_layer import to_raw_call
from aclnn_conformance.backends.emulator.products import chip
from aclnn_conformance.backends.emulator.quant_matmul_weight_nz import (fp4_as_e4m3_over_64,
                                                                        get_workspace_size)
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.oracle.weight_quant_preprocess import E2M1_VALUES
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.suites.calls import quant_matmul_weight_nz as calls

A950 = chip("ascend950")


def test_fp4_bit_moves_give_exactly_w_over_64():
    codes = np.arange(16, dtype=np.uint8)
    got = fp4_as_e4m3_over_64(codes).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    assert np.array_equal(got, E2M1_VALUES / 64)
    assert np.array_equal(np.signbit(got), np.signbit(E2M1_VALUES))


def test_the_caller_x2_descriptor_is_rewritten():
    """A second GetWorkspaceSize with the same x2 descriptor and transposeX2 false sees the swapped,
    contiguous view and returns 161002; a fresh descriptor of the same call is accepted."""
    case = calls.base_call()
    raw = to_raw_call(case)
    assert get_workspace_size(raw, A950).status == Status.SUCCESS
    again = get_workspace_size(raw, A950)
    assert again.status == Status.ERR_PARAM_INVALID and "transposeX2" in again.message
    assert get_workspace_size(to_raw_call(case), A950).status == Status.SUCCESS


def test_kernel_matches_the_doc_example_and_products_outside_950_are_not_modelled():
    case = calls.doc_example()
    result = EmulatorBackend().run(case, "ascend950")
    out = case.tensor("out").view_of(result.storages["out"]).astype(np.float32)
    assert result.status == 0 and np.all(out == 4096.0)
    other = EmulatorBackend().run(case, "atlas-a2")
    assert other.status == Status.ERR_INNER and "only the MX A8W4 path" in other.message
