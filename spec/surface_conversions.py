"""Value cases of a dtype conversion (an entry with a ``conversion`` block): one call per (source,
target) pair the entry lists, the target named by the attribute and by the output's dtype.

Each call's input holds, in the source dtype, the values where a conversion's rules show: the
rounding midpoints of every float target (ties to even both ways, a hair above and below), the
largest finite values and the overflow threshold, the subnormals of each target and their
midpoints, NaN, +-Inf, +-0, the bounds of every integer target and one past them, negative values
for UINT8, halves for truncation; then random values of the source's own range.
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
_FLOAT_TARGETS = ("FLOAT16", "BF16", "FLOAT")
_INT_TARGETS = ("INT8", "UINT8", "INT16", "INT32", "INT64")


def pairs(entry: ValueEntry, tier: str = "full") -> list[tuple[str, str]]:
    """The (source, target) pairs of the entry's calls: every listed pair in the full tier, the
    ``ci_pairs`` in the ci tier."""
    conv = entry.raw["conversion"]
    listed = conv["ci_pairs"] if tier == "ci" else conv["pairs"]
    return [(s, t) for s, t in listed]


def _float_edges(name: str) -> list[float]:
    """Where a conversion to the float dtype ``name`` shows its rounding: midpoints between
    neighbours (an even and an odd lower one), the largest finite value, the overflow threshold,
    the smallest subnormal, its half and one and a half of it, the smallest normal."""
    dtype = numpy_dtype(AclDataType[name])
    info = ml_dtypes.finfo(dtype) if np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    ulp1 = float(info.eps)                       # the spacing just above 1
    top, tiny = float(info.max), float(info.smallest_subnormal)
    top_ulp = top * ulp1 / (2.0 - ulp1)          # the spacing at the largest binade
    values = [1.0 + ulp1 / 2, 1.0 + 1.5 * ulp1,  # ties: to the even 1, and up to the even 1 + 2 ulp
              1.0 + ulp1 / 2 + ulp1 / 16, 1.0 + ulp1 / 2 - ulp1 / 16,
              3.0 + ulp1, 3.0 + 3 * ulp1,        # ties a binade up (the spacing there is 2 ulp1)
              top, top + top_ulp / 2, top + top_ulp / 4, top + 3 * top_ulp / 4,
              tiny, tiny / 2, 1.5 * tiny, 2.5 * tiny, tiny / 4, float(info.smallest_normal)]
    return values + [-v for v in values]


def _int_edges(name: str) -> list[float]:
    info = np.iinfo(numpy_dtype(AclDataType[name]))
    return [float(info.min), float(info.min) - 1, float(info.max), float(info.max) + 1,
            float(info.max) + 2, -1.0]


def edge_values(source: str) -> np.ndarray:
    """The source dtype's values at every target's edges (float sources: the float64 edges rounded
    to the source; integer sources: the integer edges and the float targets' integer ties)."""
    dtype = np.dtype(numpy_dtype(AclDataType[source]))
    if dtype == np.bool_:
        return np.array([False, True, True, False])
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.7, -0.7,
                2.9, -2.9, 300.7, -300.7, 65504.0, 65519.0, 65520.0, 1e5, -1e5, 3e38, 2.0 ** 31,
                -2.0 ** 31 - 1.0, 2.0 ** 63, -2.0 ** 64]
    floats = [v for name in _FLOAT_TARGETS for v in _float_edges(name)] + \
        [v for name in _INT_TARGETS for v in _int_edges(name)]
    if dtype.kind == "f" or dtype == np.dtype(ml_dtypes.bfloat16):
        with np.errstate(over="ignore"):
            return np.array(specials + floats, np.float64).astype(dtype)
    info = np.iinfo(dtype)
    ints: list[int] = [int(info.min), int(info.max), int(info.min) + 1, int(info.max) - 1, 0, 1, -1]
    for p in (8, 11, 24, 53):        # integers at the float targets' rounding midpoints
        for k in (1, 3, 5):
            ints += [2 ** p + k, -(2 ** p + k), 2 ** (p + 7) + k * 2 ** 7]
    ints += [65504, 65519, 65520, 65535, 2 ** 40 + 2 ** 29 + 1, 2 ** 62 + 2 ** 38 + 1]
    ints += [int(v) for v in floats + specials if np.isfinite(v)]
    # each value as the source holds it: those beyond its range wrap into it
    return np.array([n % (1 << (8 * dtype.itemsize)) for n in ints], np.uint64) \
        .astype(np.dtype(f"u{dtype.itemsize}")).view(dtype)


def sample(source: str, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` values of ``source``: random ones of its range, the edge values last."""
    dtype = np.dtype(numpy_dtype(AclDataType[source]))
    edges = edge_values(source)
    if dtype == np.bool_:
        values = rng.integers(0, 2, size=count).astype(bool)
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        values = rng.integers(int(info.min), int(info.max), size=count, endpoint=True, dtype=dtype)
        values[: count // 2] = rng.integers(-300 if info.min < 0 else 0, 300, size=count // 2)
    else:
        wide = rng.uniform(-300.0, 300.0, size=count)
        wide[: count // 4] = np.ldexp(rng.uniform(-1, 1, size=count // 4), rng.integers(-30, 30, count // 4))
        with np.errstate(over="ignore"):
            values = wide.astype(dtype)
    n = min(edges.size, count)
    values[-n:] = edges[:n]
    return values


def conversion_case(entry: ValueEntry, key: str, source: str, target: str, count: int = 512,
                    shape: tuple[int, ...] | None = None) -> Case:
    """The call converting ``count`` values of ``source`` to ``target`` (an empty one for shape
    (0, 3)), naming the operator's value rule."""
    from aclnn_conformance.spec.operator_data import rule_prefix_of
    conv = entry.raw["conversion"]
    rng = np.random.default_rng(SEED + 97 * int(AclDataType[source]) + int(AclDataType[target]))
    shape = shape if shape is not None else (count,)
    values = sample(source, int(np.prod(shape)), rng).reshape(shape) if np.prod(shape) else \
        np.zeros(shape, numpy_dtype(AclDataType[source]))
    src_acl, out_acl = AclDataType[source], AclDataType[target]
    tensors = {conv["input"]: TensorArg.from_array(values, src_acl),
               entry.output: TensorArg.from_array(np.zeros(shape, numpy_dtype(out_acl)), out_acl)}
    kind = "empty" if not np.prod(shape) else "values"
    return Case(op=key, case_id=f"{kind}-{source}-{target}", tensors=tensors,
                attrs={conv["attr"]: int(out_acl)}, rule_ids=(f"{rule_prefix_of(entry.key)}-VALUE-001",), origin="table",
                note=f"{source} converted to {target}")


def conversion_value_cases(entry: ValueEntry, key: str, tier: str = "full",
                           count: int = 512) -> list[Case]:
    """Every pair's call of the tier, and one empty call (the first pair's)."""
    listed = pairs(entry, tier)
    cases = [conversion_case(entry, key, s, t, count) for s, t in listed]
    if listed:
        cases.append(conversion_case(entry, key, *listed[0], shape=(0, 3)))
    return cases


def conversion_data_cases(entry: ValueEntry, key: str, base: Case, tier: str = "ci") -> list[Case]:
    """The value cases an extracted operator's table adds: every pair of the tier, completed with
    the base call's other parameters, named ``values-<source>-<target>`` and ``values-empty``, the
    tier's first pair ``values`` (the case id the ci tier always keeps)."""
    out = []
    for i, case in enumerate(conversion_value_cases(entry, key, tier)):
        tensors = {n: case.tensors.get(n, base.tensors.get(n)) for n in {*base.tensors, *case.tensors}}
        attrs: dict[str, Any] = {**base.attrs, **case.attrs}
        case_id = "values-empty" if case.case_id.startswith("empty") else \
            "values" if i == 0 else f"values-{case.case_id[7:]}"
        out.append(case.with_(tensors=tensors, attrs=attrs, case_id=case_id,
                              note="the value cases of the entry: " + case.note))
    return out

