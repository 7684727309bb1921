"""How to break each check rule of quant_matmul_weight_nz alone, by rule id.

All start from the base call (m 5, k 64, n 128, bf16 bias and out, x2 and x2Scale as
WeightQuantPreprocess returns them). The product rule (DOMAIN-001) has no fault: every product but
Ascend 950 breaks it. Four checks are not reachable from the arguments (INNER-001, PRODUCT-001,
FORMAT-011, INNER-002).
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.quant_matmul_weight_nz import GROUP_SIZE, MANDATORY
from aclnn_conformance.spec.tensor import TensorArg, contiguous_strides
from aclnn_conformance.suites.calls.quant_matmul_weight_nz import recast
from aclnn_conformance.spec.faults import Fault

UNREACHABLE = ("QMMNZ-INNER-001", "QMMNZ-PRODUCT-001", "QMMNZ-FORMAT-011", "QMMNZ-INNER-002")


def _null(name: str):
    return lambda case: case.with_tensor(name, None)


def _null_out(name: str):
    return lambda case: case.with_(null_outputs=case.null_outputs | {name})


def _retype(name: str, dtype: DT):
    return lambda case: case.with_tensor(name, recast(case.tensor(name), dtype))


def _redesc(name: str, **changes):
    return lambda case: case.with_tensor(name, case.tensor(name).with_desc(**changes))


def _set(name: str, values, dtype: DT):
    return lambda case: case.with_tensor(name, TensorArg.from_array(np.asarray(values), dtype))


def _set_attr(**attrs):
    return lambda case: case.with_attrs(**attrs)


def _chain(*steps):
    def fault(case):
        for step in steps:
            case = step(case)
        return case
    return fault


def _contiguous(name: str, shape):
    return _redesc(name, shape=tuple(shape), strides=contiguous_strides(shape))


FAULTS: dict[str, Fault] = {
    "QMMNZ-NULL-001": Fault(_null_out("workspaceSize")),
    "QMMNZ-NULL-002": Fault(_null_out("executor")),
    **{f"QMMNZ-NULL-{i + 3:03d}": Fault(_null(name)) for i, name in enumerate(MANDATORY)},
    "QMMNZ-OFFSET-001": Fault(_set("x1Offset", [1.0], DT.FLOAT)),
    "QMMNZ-OFFSET-002": Fault(_set("yOffset", [1.0], DT.FLOAT)),
    "QMMNZ-PATH-001": Fault(_retype("x1", DT.FLOAT8_E5M2)),
    "QMMNZ-DOMAIN-002": Fault(_chain(_retype("x1", DT.INT8), _retype("x2", DT.INT8))),
    "QMMNZ-DOMAIN-003": Fault(_chain(_null("x1Scale"), _set("x2Scale", np.ones((2, 128)), DT.BF16))),
    "QMMNZ-FORMAT-001": Fault(_redesc("x2", format=F.ND)),
    "QMMNZ-DTYPE-001": Fault(_redesc("out", dtype=DT.FLOAT)),
    "QMMNZ-RANK-001": Fault(_redesc("x2", shape=(64 * 128,), strides=(1,))),
    "QMMNZ-SHAPE-001": Fault(_redesc("x2", storage_shape=(3, 8, 16, 32))),
    "QMMNZ-SHAPE-002": Fault(_redesc("x2", storage_shape=(16, 16, 32))),
    "QMMNZ-ATTR-001": Fault(_set_attr(groupSize=(2 << 32) | (2 << 16) | GROUP_SIZE)),
    "QMMNZ-QTYPE-001": Fault(_null("x1Scale")),
    "QMMNZ-ATTR-002": Fault(_set_attr(transposeX1=True)),
    "QMMNZ-ATTR-003": Fault(_set_attr(transposeX2=True)),
    "QMMNZ-ATTR-004": Fault(_set_attr(groupSize=64)),
    "QMMNZ-RANK-002": Fault(_contiguous("x1", (1, 5, 64))),
    "QMMNZ-RANK-003": Fault(_redesc("x2", shape=(1, 64, 128), strides=(64 * 128, 1, 64))),
    "QMMNZ-RANK-004": Fault(_contiguous("bias", (128,))),
    "QMMNZ-RANK-005": Fault(_contiguous("out", (1, 5, 128))),
    "QMMNZ-RANK-006": Fault(_contiguous("x1Scale", (5, 2))),
    "QMMNZ-RANK-007": Fault(_contiguous("x2Scale", (128, 2))),
    "QMMNZ-RANK-008": Fault(_set("yScale", np.ones(128), DT.INT64)),
    "QMMNZ-DTYPE-002": Fault(_set("bias", np.ones((1, 128)), DT.FLOAT16)),
    "QMMNZ-NULL-007": Fault(_set("yScale", np.ones((1, 128)), DT.INT64)),
    **{f"QMMNZ-FORMAT-{i + 2:03d}": Fault(_redesc(name, format=F.FRACTAL_NZ))
       for i, name in enumerate(("x1", "x2Scale", "x1Scale", "bias"))},
    "QMMNZ-FORMAT-006": Fault(_redesc("out", format=F.NCHW)),
    **{f"QMMNZ-FORMAT-{i + 7:03d}": Fault(_redesc(name, format=F.NCL))
       for i, name in enumerate(("x1", "x2Scale", "x1Scale", "bias"))},
    "QMMNZ-SHAPE-003": Fault(_redesc("x1", shape=(0, 64))),
    "QMMNZ-SHAPE-004": Fault(_redesc("x1", shape=(5, 0))),
    "QMMNZ-SHAPE-005": Fault(_redesc("x2", shape=(64, 0), storage_shape=(2, 0, 16, 32))),
    "QMMNZ-SHAPE-006": Fault(_redesc("x1", shape=(5, 32), strides=(32, 1))),
    "QMMNZ-SHAPE-007": Fault(_chain(_redesc("x1", shape=(5, 60), strides=(60, 1)),
                                    _redesc("x2", shape=(60, 128), strides=(1, 60)))),
    "QMMNZ-SHAPE-008": Fault(_redesc("x2", shape=(64, 124), strides=(1, 64))),
    "QMMNZ-SHAPE-009": Fault(_contiguous("x1Scale", (5, 2, 2))),
    "QMMNZ-SHAPE-010": Fault(_redesc("x2Scale", strides=(256, 2, 1))),
    "QMMNZ-SHAPE-011": Fault(_set("bias", np.ones((2, 128)), DT.BF16)),
    "QMMNZ-SHAPE-012": Fault(_contiguous("out", (5, 136))),
    "QMMNZ-OFFSET-003": Fault(_set("x2Offset", np.ones(128), DT.FLOAT)),
}
