"""How to break each check rule of apply_adam_w_quant alone, by rule id.

Each transformation breaks its rule and nothing checked before it; ``FAULTS`` maps the rule ids to
them (``aclnn_conformance.suites.faults`` turns them into one-fault and fault-pair cases).
"""
from __future__ import annotations

import math

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.apply_adam_w_quant import (
    FIXED_DTYPE, STATE, TENSORS, _numel, _shape, absmax_count)
from aclnn_conformance.spec.faults import Fault


def _null(name: str):
    return lambda case: case.with_tensor(name, None)


def _retype(names: tuple[str, ...], dtype: DT):
    def fault(case: Case) -> Case:
        for n in names:
            case = case.with_tensor(n, case.tensor(n).with_desc(dtype=dtype))
        return case
    return fault


def _reformat(name: str, fmt: F):
    return lambda case: case.with_tensor(name, case.tensor(name).with_desc(format=fmt))


def _reshape(names: tuple[str, ...], shape_of):
    """Give ``names`` the contiguous shape ``shape_of(case)`` (same storage, grown if needed)."""
    def fault(case: Case) -> Case:
        from aclnn_conformance.spec.tensor import contiguous_strides
        shape = tuple(shape_of(case))
        for n in names:
            case = case.with_tensor(n, case.tensor(n).with_desc(
                shape=shape, strides=contiguous_strides(shape), offset=0, storage_shape=shape))
        return case
    return fault


def _same_numel_other_dims(case: Case) -> tuple[int, ...]:
    shape = _shape(case, "varRef")
    return (math.prod(shape),) if len(shape) != 1 else (1, shape[0])


def _null_out(name: str):
    return lambda case: case.with_(null_outputs=case.null_outputs | {name})


FAULTS: dict[str, Fault] = {
    **{f"AAWQ-NULL-{i + 1:03d}": Fault(_null(name)) for i, name in enumerate(TENSORS)},
    "AAWQ-NULL-010": Fault(_null_out("executor")),
    "AAWQ-NULL-011": Fault(_null_out("workspaceSize")),
    "AAWQ-DTYPE-001": Fault(_retype(("varRef", "grad"), DT.DOUBLE)),
    "AAWQ-DTYPE-002": Fault(lambda c: _retype(("grad",), DT.FLOAT16 if c.desc("varRef").dtype != DT.FLOAT16
                                  else DT.FLOAT)(c)),
    **{f"AAWQ-DTYPE-{i + 3:03d}": Fault(_retype((name,), DT.INT32 if dt != DT.INT32 else DT.INT64)) for i, (name, dt) in enumerate(FIXED_DTYPE.items())},
    # HWCN is neither ND nor one of the ND-like formats the runtime rewrites to ND
    **{f"AAWQ-FORMAT-{i + 10:03d}": Fault(_reformat(name, F.HWCN)) for i, name in enumerate(TENSORS)},
    # NCHW is ND-like: the document rejects it, the runtime accepts it
    **{f"AAWQ-FORMAT-{i + 1:03d}": Fault(_reformat(name, F.NCHW)) for i, name in enumerate(TENSORS)},
    "AAWQ-RANK-001": Fault(_reshape(STATE, lambda c: (1,) * 8 + (_numel(c, "varRef"),))),
    "AAWQ-SHAPE-001": Fault(lambda c: c.with_attrs(blockSize=128)),
    **{f"AAWQ-SHAPE-{i + 2:03d}": Fault(_reshape((name,), _same_numel_other_dims)) for i, name in enumerate(("grad", "mRef", "vRef"))},
    "AAWQ-SHAPE-005": Fault(_reshape(("qmapM", "qmapV"), lambda c: (255,))),
    "AAWQ-SHAPE-006": Fault(_reshape(("qmapV",), lambda c: (1, 256))),
    "AAWQ-SHAPE-007": Fault(_reshape(("step",), lambda c: (1, 1))),
    "AAWQ-SHAPE-008": Fault(_reshape(("absmaxMRef",), lambda c: (absmax_count(_numel(c, "varRef")) + 1,))),
    "AAWQ-SHAPE-009": Fault(_reshape(("absmaxVRef",), lambda c: (absmax_count(_numel(c, "varRef")) + 1,))),
    "AAWQ-SHAPE-010": Fault(_reshape(("qmapM", "qmapV"), lambda c: (1, 256))),
    # var, grad, m, v empty, the absmax entries kept
    "AAWQ-EMPTY-001": Fault(_reshape(STATE, lambda c: (0,) + _shape(c, "varRef")[1:])),
    "AAWQ-EMPTY-002": Fault(_reshape(("absmaxMRef",), lambda c: (0,))),
}
