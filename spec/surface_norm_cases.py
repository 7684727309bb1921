"""Value cases of the normalizations over trailing dims (a value entry of a ``NORM_KINDS`` kind): calls
built from the entry's roles (the input or the addends, the weight, epsilon, the outputs by role),
whose every output the oracle judges (oracle/surface_norms.py).

Per sample dtype: ``values`` (16 slices of 64: random values in the entry's range; a slice of zeros,
where rstd = 1/sqrt(epsilon); a slice of large values whose squares overflow fp16 but not float32; a
slice of subnormals, zeros of both signs and ones; slices holding NaN, +Inf, -Inf and the dtype's
largest value; a slice whose mean of squares is near epsilon), ``weight2`` (a weight over the last two dims), ``long`` (slices of 1000, not a multiple
of any power-of-two block; the second of one sign, so that a partial sum grows) and ``empty``.
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import ValueEntry
from aclnn_conformance.spec.tensor import TensorArg

SEED = 20261206
# (kind, input shape, weight rank)
NORM_CALLS = (("values", (16, 64), 1), ("weight2", (4, 6, 10), 2), ("long", (2, 1000), 1),
              ("empty", (0, 8), 1))


def _finfo(dtype: np.dtype) -> Any:
    return ml_dtypes.finfo(dtype) if np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)


def _edge_rows(x: np.ndarray, dtype: np.dtype, rng: np.random.Generator, first: bool) -> np.ndarray:
    """The values call's edge slices (rows 0-7 of a (16, 64) input; the other addend's rows are
    small values, zeros in the zero slice and the slice near epsilon, so that the sum keeps each
    edge)."""
    x = np.array(x, copy=True)
    n = x.shape[1]
    tiny = float(_finfo(dtype).smallest_normal)
    x[0] = 0.0
    x[7] = 0.0
    if not first:
        x[1:7] = rng.uniform(-1.0, 1.0, size=(6, n))
        return x
    # a mean of squares near epsilon (1e-6): where epsilon inside or outside the root differs in y
    x[7] = rng.choice([-1.0, 1.0], size=n) * rng.uniform(5e-4, 2e-3, size=n)
    # squares of 300 .. 60000 overflow fp16 (65504) but not float32
    x[1] = rng.choice([-1.0, 1.0], size=n) * rng.uniform(300.0, 60000.0, size=n)
    x[2] = np.resize([tiny / 4, -tiny / 4, 0.0, -0.0, 1.0, -1.0, tiny, 3 * tiny], n)
    x[3, 5] = np.nan
    x[4, 7] = np.inf
    x[5, 9] = -np.inf
    x[6, 11] = float(_finfo(dtype).max)
    return x


def _values(shape: tuple[int, ...], kind: str, entry: ValueEntry, dtype: np.dtype,
            rng: np.random.Generator, first: bool) -> np.ndarray:
    lo, hi = entry.sample.get("range", [-6.0, 6.0])
    x = rng.uniform(lo, hi, size=shape)
    if kind == "values":
        x = _edge_rows(x, dtype, rng, first)
    if kind == "long":
        x[1] = np.absolute(x[1])
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(dtype)


def _tensor(values: np.ndarray, acl: AclDataType) -> TensorArg:
    return TensorArg.from_array(np.asarray(values), acl)


def norm_value_cases(entry: ValueEntry, key: str, rule: str, count: int = 1024,
                     dtypes: tuple[str, ...] | None = None) -> list[Case]:
    """The value cases of a normalization entry per sample dtype (``NORM_CALLS``), each naming
    ``rule`` (the operator's value rule)."""
    red = entry.reduction
    rng = np.random.default_rng(SEED)
    sources = tuple(red.get("addends") or (red["input"],))
    outputs = dict(red.get("outputs", {}))
    weight = red.get("weight", red["dims"])
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, k in NORM_CALLS:
            scale = max(1, count // 1024) if kind == "values" else 1
            shape = (shape[0] * scale,) + shape[1:]
            tensors: dict[str, TensorArg] = {}
            for i, name in enumerate(sources):
                tensors[name] = _tensor(_values(shape, kind, entry, dt, rng, i == 0), acl)
            w_lo, w_hi = entry.sample.get("weight_range", [-2.0, 2.0])
            tensors[weight] = _tensor(rng.uniform(w_lo, w_hi, size=shape[len(shape) - k:])
                                      .astype(np.float32).astype(dt), acl)
            if not entry.inplace:
                tensors[entry.output] = _tensor(np.zeros(shape, dt), acl)
            lead = shape[:len(shape) - k]
            for role, name in outputs.items():
                if name in tensors:
                    continue
                if role == "rstd":
                    tensors[name] = _tensor(np.zeros(lead + (1,) * k, np.float32), AclDataType.FLOAT)
                else:
                    tensors[name] = _tensor(np.zeros(shape, dt), acl)
            attrs = {n: v for n, v in entry.sample.get("attrs", {}).items() if n in entry.inputs}
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                              rule_ids=(rule,), origin="table"))
    return cases
