"""How to break each check rule of apply_adam_w alone, by rule id.

Each transformation breaks its rule and nothing checked before it; ``FAULTS`` maps the rule ids to
them. The NULL out-pointer rules have none (the vendor code crashes: never a conformance outcome),
and the product rules are exercised by running on every product.
"""
from __future__ import annotations

import math

from aclnn_conformance.spec.apply_adam_w import MAX_GRAD_NORM, REQUIRED, TENSORS
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.tensor import contiguous_strides
from aclnn_conformance.spec.faults import Fault


def _null(name: str):
    return lambda case: case.with_tensor(name, None)


def _retype(names, dtype_of):
    """Give ``names`` the dtype ``dtype_of(case)`` (values kept)."""
    def fault(case: Case) -> Case:
        dtype = dtype_of(case)
        for n in names:
            case = case.with_tensor(n, case.tensor(n).with_desc(dtype=dtype))
        return case
    return fault


def _other_float(case: Case) -> DT:
    return DT.FLOAT16 if case.desc("varRef").dtype != DT.FLOAT16 else DT.FLOAT


def _reshape(names, shape_of):
    """Give ``names`` the contiguous shape ``shape_of(case)`` (same storage, grown if needed)."""
    def fault(case: Case) -> Case:
        shape = tuple(shape_of(case))
        for n in names:
            case = case.with_tensor(n, case.tensor(n).with_desc(
                shape=shape, strides=contiguous_strides(shape), offset=0, storage_shape=shape))
        return case
    return fault


def _same_numel_other_dims(case: Case) -> tuple[int, ...]:
    shape = case.desc("varRef").shape
    return (math.prod(shape),) if len(shape) != 1 else (1, shape[0])


def _rank9(case: Case) -> tuple[int, ...]:
    return (1,) * 8 + (case.desc("varRef").numel,)


SHAPED = ("varRef", "mRef", "vRef", "grad", MAX_GRAD_NORM)

FAULTS: dict[str, Fault] = {
    **{f"AAW-NULL-{i + 1:03d}": Fault(_null(name)) for i, name in enumerate(REQUIRED)},
    "AAW-NULL-012": Fault(_null(MAX_GRAD_NORM), base="amsgrad"),
    **{f"AAW-DTYPE-{i + 1:03d}": Fault(_retype((name,), lambda c: DT.DOUBLE if c.desc("varRef").dtype
                                                != DT.DOUBLE else DT.INT32))
       for i, name in enumerate(REQUIRED)},
    "AAW-DTYPE-012": Fault(_retype(TENSORS[:-1], lambda c: DT.BF16)),
    **{f"AAW-DTYPE-{i + 13:03d}": Fault(_retype((name,), _other_float))
       for i, name in enumerate(REQUIRED[1:])},
    "AAW-DTYPE-023": Fault(_retype((MAX_GRAD_NORM,), _other_float), base="amsgrad"),
    "AAW-DTYPE-024": Fault(_retype((MAX_GRAD_NORM,), _other_float), base="mgn-unused"),
    "AAW-SHAPE-001": Fault(_reshape(("mRef",), _same_numel_other_dims)),
    "AAW-SHAPE-002": Fault(_reshape(("vRef",), _same_numel_other_dims)),
    "AAW-SHAPE-003": Fault(_reshape((MAX_GRAD_NORM,), _same_numel_other_dims), base="amsgrad"),
    "AAW-SHAPE-004": Fault(_reshape((MAX_GRAD_NORM,), _same_numel_other_dims), base="mgn-unused"),
    "AAW-SHAPE-005": Fault(_reshape(("grad",), _same_numel_other_dims)),
    "AAW-SHAPE-006": Fault(_reshape(("beta1Power",), lambda c: (2,))),
    "AAW-SHAPE-007": Fault(_reshape(("lr",), lambda c: (1, 1))),
    "AAW-FORMAT-001": Fault(lambda c: c.with_tensor("grad", c.tensor("grad").with_desc(format=F.NCHW))),
    "AAW-RANK-001": Fault(lambda c: _reshape([n for n in SHAPED if c.tensor(n) is not None],
                                             _rank9)(c)),
}
