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
from aclnn_conformance.spec.surface_values import ValueEntry

# (kind of call, the input's shape for 1024 values, dim)
RUNNING_CALLS = (("values", (8, 16, 8), 1), ("twin", (6, 6, 4), 1), ("first", (4, 6, 5), 0),
                 ("negative", (4, 6, 5), -1), ("long", (2, 1000), -1), ("empty", (0, 5), 1))


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
    """The value cases per sample dtype (``RUNNING_CALLS``; the values call's first dim times
    ``count // 1024``)."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.tensor import TensorArg
    red = entry.reduction
    rng = np.random.default_rng(helpers["seed"])
    index = AclDataType[red["index_dtype"]]
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, dim in RUNNING_CALLS:
            if kind == "values":
                shape = (shape[0] * max(1, count // 1024),) + shape[1:]
            size = int(np.prod(shape))
            x = helpers["sample_values"](entry, dt, max(size, 1), rng, with_specials=kind == "values")
            x = x[:size].reshape(shape)
            if kind == "values" and dt.kind not in "iub":
                x = _ties(x, red["kind"], dt)
            tensors = {red["input"]: TensorArg.from_array(x, acl)}
            for role, name in red["outputs"].items():
                out = acl if role == red["kind"] else index
                tensors[name] = TensorArg.from_array(np.zeros(shape, numpy_dtype(out)), out)
            attrs = {**entry.sample.get("attrs", {}), red["dims"]: dim}
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                              rule_ids=(helpers["rule"],), origin="table"))
    return cases
