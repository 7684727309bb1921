"""Value cases of the layer normalizations (a value entry of kind ``layer-normalized``): calls built
from the entry's roles (the input, the normalized shape, the optional weight and bias, epsilon, the
mean and reciprocal-root outputs), whose every output the oracle judges (oracle/surface_layer_norms.py).

Per sample dtype: ``values`` (16 slices of 64: the RMS cases' edge slices, spec/surface_norm_cases.py:
zeros, where rstd = 1/sqrt(epsilon); squares past fp16's range; subnormals; NaN, infinities, the
largest value; a spread near epsilon; and a slice of values 300 +- 1, whose mean is large against
its spread), ``weight2`` (a normalized shape of the last two dims), ``long`` (slices of 1000, not a
multiple of any power-of-two block; the second of one sign), ``noaffine`` (weight and bias null),
``nobias`` (bias null), ``nostats`` (the mean and rstd outputs null) and ``empty``.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_norm_cases import SEED, _edge_rows, _tensor
from aclnn_conformance.spec.surface_values import ValueEntry

# (kind, input shape, normalized rank, the null roles)
LAYER_NORM_CALLS = (("values", (16, 64), 1, ()), ("weight2", (4, 6, 10), 2, ()), ("long", (2, 1000), 1, ()),
                    ("noaffine", (4, 64), 1, ("weight", "bias")), ("nobias", (4, 64), 1, ("bias",)),
                    ("nostats", (4, 64), 1, ("average", "rstd")), ("empty", (0, 8), 1, ()))


def _values(shape: tuple[int, ...], kind: str, entry: ValueEntry, dtype: np.dtype,
            rng: np.random.Generator) -> np.ndarray:
    lo, hi = entry.sample.get("range", [-6.0, 6.0])
    x = rng.uniform(lo, hi, size=shape)
    if kind == "values":
        x = _edge_rows(x, dtype, rng, True)
        # a mean large against the spread: E[x^2] - E[x]^2 cancels there, two passes do not
        x[8] = 300.0 + rng.uniform(-1.0, 1.0, size=shape[1])
    if kind == "long":
        x[1] = np.absolute(x[1])
    with np.errstate(over="ignore"):
        return x.astype(np.float32).astype(dtype)


def layer_norm_value_cases(entry: ValueEntry, key: str, rule: str, count: int = 1024,
                           dtypes: tuple[str, ...] | None = None) -> list[Case]:
    """The value cases of a layer-normalized entry per sample dtype (``LAYER_NORM_CALLS``), each
    naming ``rule`` (the operator's value rule)."""
    red = entry.reduction
    rng = np.random.default_rng(SEED)
    outputs = dict(red.get("outputs", {}))
    roles = {"weight": red.get("weight"), "bias": red.get("bias"), **outputs}
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, k, null in LAYER_NORM_CALLS:
            scale = max(1, count // 1024) if kind == "values" else 1
            shape = (shape[0] * scale,) + shape[1:]
            trailing = shape[len(shape) - k:]
            lead = shape[:len(shape) - k]
            tensors: dict[str, object] = {red["input"]: _tensor(_values(shape, kind, entry, dt, rng), acl)}
            w_lo, w_hi = entry.sample.get("weight_range", [-2.0, 2.0])
            for role in ("weight", "bias"):
                if roles[role]:
                    tensors[roles[role]] = None if role in null else \
                        _tensor(rng.uniform(w_lo, w_hi, size=trailing).astype(np.float32).astype(dt), acl)
            tensors[entry.output] = _tensor(np.zeros(shape, dt), acl)
            for role, name in outputs.items():
                tensors[name] = None if role in null else _tensor(np.zeros(lead + (1,) * k, dt), acl)
            attrs = {n: v for n, v in entry.sample.get("attrs", {}).items() if n in entry.inputs}
            attrs[red["dims"]] = [int(d) for d in trailing]
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                              rule_ids=(rule,), origin="table"))
    return cases
