"""How to break each check rule of apply_adam_w_v2 alone, by rule id.

Each transformation breaks its rule and nothing checked before it; ``FAULTS`` maps the rule ids to
them (``aclnn_conformance.suites.faults`` turns them into one-fault and fault-pair cases). The
product rules are exercised by running any call on a product without the operator.
"""
from __future__ import annotations

from aclnn_conformance.spec.apply_adam_w_v2 import FLOAT_TENSORS, MAX_GRAD_NORM
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import TensorArg, contiguous_strides
from aclnn_conformance.spec.faults import Fault


def _null(name: str):
    return lambda case: case.with_tensor(name, None)


def _retype(name: str, dtype: DT):
    return lambda case: case.with_tensor(name, case.tensor(name).with_desc(dtype=dtype))


def _reshape(name: str, shape: tuple[int, ...]):
    """Give ``name`` a contiguous ``shape`` with the same element count where possible."""
    def fault(case: Case) -> Case:
        return case.with_tensor(name, case.tensor(name).with_desc(
            shape=shape, strides=contiguous_strides(shape), offset=0, storage_shape=shape))
    return fault


def _null_out(name: str):
    return lambda case: case.with_(null_outputs=case.null_outputs | {name})


def _step_strided(case: Case) -> Case:
    step = case.tensor("step")
    return case.with_tensor("step", TensorArg.strided(step.values().reshape(1, 1), step.dtype, (2, 3), 1))


def _rank9(case: Case) -> Case:
    shape = (1,) * 8 + (case.desc("varRef").numel,)
    for name in FLOAT_TENSORS:
        if case.tensor(name) is not None:
            case = _reshape(name, shape)(case)
    return case


_OTHER_SHAPE = (33, 4)       # the base calls are [4, 33]: the same element count, other dims

FAULTS: dict[str, Fault] = {
    "AAWV2-NULL-001": Fault(_null("varRef")),
    "AAWV2-NULL-002": Fault(_null("mRef")),
    "AAWV2-NULL-003": Fault(_null("vRef")),
    "AAWV2-NULL-004": Fault(_null(MAX_GRAD_NORM)),
    "AAWV2-NULL-005": Fault(lambda c: c, base="no-amsgrad"),
    "AAWV2-NULL-006": Fault(_null("grad")),
    "AAWV2-NULL-007": Fault(_null("step")),
    **{f"AAWV2-DTYPE-{2 * i + 1:03d}": Fault(_retype(name, DT.DOUBLE)) for i, name in enumerate(FLOAT_TENSORS)},
    **{f"AAWV2-DTYPE-{2 * i + 2:03d}": Fault(_retype(name, DT.BF16)) for i, name in enumerate(FLOAT_TENSORS)},
    "AAWV2-DTYPE-011": Fault(_retype("step", DT.INT32)),
    "AAWV2-DTYPE-012": Fault(_retype("mRef", DT.FLOAT16)),
    "AAWV2-FORMAT-001": Fault(lambda c: c.with_tensor("grad", c.tensor("grad").with_desc(format=F.NCHW))),
    "AAWV2-SHAPE-001": Fault(_reshape("mRef", _OTHER_SHAPE)),
    "AAWV2-SHAPE-002": Fault(_reshape("vRef", _OTHER_SHAPE)),
    "AAWV2-SHAPE-003": Fault(_reshape(MAX_GRAD_NORM, _OTHER_SHAPE)),
    "AAWV2-SHAPE-004": Fault(lambda c: _reshape(MAX_GRAD_NORM, _OTHER_SHAPE)(c).with_attrs(amsgrad=False)),
    "AAWV2-SHAPE-005": Fault(_reshape("grad", _OTHER_SHAPE)),
    "AAWV2-SHAPE-006": Fault(lambda c: c.with_tensor("step", TensorArg.from_array([3, 3], c.desc("step").dtype))),
    "AAWV2-STRIDE-001": Fault(_step_strided),
    "AAWV2-RANK-001": Fault(_rank9),
    "AAWV2-NULL-008": Fault(_null_out("executor")),
}
