"""The shared tensor model: ABI enum values, status codes, the descriptor's predicates, products."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.spec.dtypes import pack_nibbles, storage_nbytes, unpack_nibbles
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status, status_name
from aclnn_conformance.spec.products import PRODUCT_IDS, parse_products
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc, contiguous_strides


def test_enum_values_are_the_headers():
    # values as the runtime header acl_base_rt.h and op_errno.h give them
    assert (DT.FLOAT, DT.FLOAT16, DT.UINT8, DT.INT64, DT.BF16) == (0, 1, 4, 9, 27)
    assert (DT.FLOAT8_E4M3FN, DT.FLOAT8_E8M0, DT.FLOAT4_E2M1, DT.UNDEFINED) == (36, 37, 40, -1)
    assert (F.NCHW, F.ND, F.FRACTAL_NZ, F.NCL, F.FRACTAL_NZ_C0_16, F.FRACTAL_NZ_C0_32) == (0, 2, 29, 47, 50, 51)
    assert (Status.ERR_PARAM_NULLPTR, Status.ERR_PARAM_INVALID, Status.ERR_RUNTIME_ERROR) == (161001, 161002, 361001)
    assert (Status.ERR_INNER_TILING_ERROR, Status.ERR_INNER_NULLPTR, Status.ERR_INNER_STATIC_BLOCK_DIM_INVALID) == (561002, 561103, 561119)
    assert len([s for s in Status if 561000 <= s < 562000]) == 23
    assert status_name(161002) == "ACLNN_ERR_PARAM_INVALID (161002)" and status_name(7) == "7"


def test_contiguous_strides_and_predicates():
    assert contiguous_strides((2, 3, 4)) == (12, 4, 1)
    d = TensorDesc.contiguous((2, 3, 4), DT.FLOAT)
    assert d.is_contiguous() and not d.is_empty() and d.numel == 24 and d.extent() == 24
    assert TensorDesc.contiguous((0, 256), DT.FLOAT).is_empty()
    # dims of size 1 may carry any stride
    assert d.with_(shape=(1, 3, 4), strides=(999, 4, 1)).is_contiguous()
    assert not d.with_(strides=(12, 1, 3)).is_contiguous()
    # private formats count as contiguous whatever the strides
    assert d.with_(strides=(1, 1, 1), format=F.FRACTAL_NZ_C0_32).is_contiguous()


def test_last_two_transposed_is_the_create_tensor_example():
    # aclCreateTensor's own example: view {4,2}, strides {1,4}, storage {2,4} is the transpose of {2,4}
    t = TensorDesc(DT.FLOAT, (4, 2), (1, 4), 0, F.ND, (2, 4))
    assert t.is_last_two_transposed() and not t.is_contiguous()
    assert not TensorDesc.contiguous((4, 2), DT.FLOAT).is_last_two_transposed()
    values = np.arange(8, dtype=np.float32).reshape(4, 2)
    arg = TensorArg.strided(values, DT.FLOAT, (1, 4), 0, (2, 4))
    assert np.array_equal(arg.values(), values)
    assert np.array_equal(arg.storage.reshape(2, 4), values.T)


def test_views_with_offset_write_only_their_elements():
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    arg = TensorArg.strided(values, DT.FLOAT, (6, 2), offset=1, fill=-1)
    assert np.array_equal(arg.values(), values)
    mask = arg.view_mask()
    assert mask.sum() == 6 and np.all(arg.storage[~mask] == -1)
    with pytest.raises(ValueError):
        TensorArg(arg.desc.with_(offset=100), arg.storage).values()


def test_fp4_packing_low_nibble_first():
    codes = np.array([1, 2, 3, 4, 15], np.uint8)
    packed = pack_nibbles(codes)
    assert packed.tolist() == [0x21, 0x43, 0x0F]
    assert unpack_nibbles(packed, 5).tolist() == codes.tolist()
    assert storage_nbytes(DT.FLOAT4_E2M1, 5) == 3 and storage_nbytes(DT.FLOAT, 5) == 20


def test_products():
    assert PRODUCT_IDS == ("ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2",
                           "atlas-inference", "atlas-training")
    assert parse_products("all") == PRODUCT_IDS and parse_products("atlas-a2, ascend950") == ("atlas-a2", "ascend950")
    with pytest.raises(ValueError, match="valid: ascend950"):
        parse_products("atlas-a9")
