"""Value cases of the running extremes (``RUNNING_KINDS``: every prefix's maximum or minimum along one
dim and its position; oracle/surface_running.py): a middle dim with the special values, a tied
extreme and a near tie (one fp16 step apart, which bf16 rounds to a tie), a subnormal extreme and
zeros of both signs as the extreme, a dim of the size of
another, the first dim, a negative dim, a long dim and an empty input; the values in the input's
dtype, the positions in the entry's ``index_dtype``."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_dim_calls import dim_call_inputs
from aclnn_conformance.spec.surface_values import ValueEntry



def _ties(x: np.ndarray, kind: str, dtype: np.dtype) -> np.ndarray:
    """Along dim 1: the slice x[0, :, 0] whose extreme 7 occurs at 3 and 7 (the positions from 7 on are
    open), and x[1, :, 0] whose extreme 6.5 + 2^-8 at 5 is one fp16 step beyond 6.5 at 2 (bf16 rounds
    both to 6.5: an input rounded through it makes a tie and keeps the position 2)."""
    import ml_dtypes
    x = np.array(x, copy=True)
    toward = 1.0 if kind == "prefix-max" else -1.0
    x[0, 3, 0] = x[0, 7, 0] = dtype.type(toward * 7.0)
    x[1, 2, 0], x[1, 5, 0] = dtype.type(toward * 6.5), dtype.type(toward * (6.5 + 2.0 ** -8))
    # x[2, :, 0]: a subnormal extreme first, every other value on the far side (a flushed copy shows);
    # x[3, :, 0]: -0 then +0 as the extreme (the position from 1 on is a tie, either zero is right)
    far = (-toward * (1.0 + np.arange(x.shape[1], dtype=np.float64))).astype(dtype)
    x[2, :, 0], x[3, :, 0] = far, far
    x[2, 0, 0] = dtype.type(toward * float(ml_dtypes.finfo(dtype).smallest_normal) / 4)
    x[3, 0, 0], x[3, 1, 0] = dtype.type(-0.0), dtype.type(0.0)
    return x


def running_value_cases(entry: ValueEntry, key: str, count: int, dtypes: tuple[str, ...] | None,
                        helpers: Mapping[str, Any]) -> list[Case]:
    """The value cases per sample dtype (``DIM_CALLS``, spec/surface_dim_calls.py)."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.tensor import TensorArg
    red = entry.reduction
    index = AclDataType[red["index_dtype"]]
    cases = []
    for dtype_name, acl, kind, shape, dim, x in dim_call_inputs(
            entry, count, dtypes, helpers, lambda x, dt: _ties(x, red["kind"], dt)):
        tensors = {red["input"]: TensorArg.from_array(x, acl)}
        for role, name in red["outputs"].items():
            out = acl if role == red["kind"] else index
            tensors[name] = TensorArg.from_array(np.zeros(shape, numpy_dtype(out)), out)
        attrs = {**entry.sample.get("attrs", {}), red["dims"]: dim}
        cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                          rule_ids=(helpers["rule"],), origin="table"))
    return cases
