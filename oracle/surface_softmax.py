"""The oracle of softmax and log-softmax along one dim (a value entry whose ``reduction.kind`` is
``normalized-exp`` or ``log-normalized-exp``): each element against the exponentials of its slice, as the
documents define them (aclnnSoftmax.md line 33, aclnnLogSoftmax.md line 33), in float64.

- The values are cast to the compute dtype first: the input's for softmax (the host code casts the
  kernel's result to ``out``'s dtype, aclnn_softmax.cpp:140-144), ``out``'s for log-softmax (the
  host code casts ``self`` to it before the kernel, aclnn_log_softmax.cpp:147-151).
- softmax(x)_i = exp(x_i - m) / sum_j exp(x_j - m) and log-softmax(x)_i = (x_i - m) - log(sum_j
  exp(x_j - m)), m the slice's maximum (the documents' formulas; subtracting m changes nothing
  exactly and is what the documents say the kernel does against overflow).
- A slice holding NaN or an infinity is not judged (``unjudged``): x - m is NaN there (inf - inf),
  and the documents do not say what a device gives. An empty slice gives an empty output.
- The standard is the transcendental class's (``surface-tolerance@1``): the vendor's TTK rtol and
  atol for the output dtype, where they exist; those of the compute dtype where it is narrower
  (a float16 softmax written to a float32 ``out`` is as fine as float16, a bf16 one written to
  float16 as bf16).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import fraction_bits
from aclnn_conformance.spec.surface_values import (NORMALIZED_EXP, ValueEntry, reduction_operands,
                                                   tolerance_aux)


def compute_dtype(case: Case, entry: ValueEntry) -> np.dtype:
    """The dtype the values are held in before the kernel (the entry's ``computes_in``: the input's,
    or ``output``'s)."""
    red = entry.reduction
    name = entry.output if red.get("computes_in") == "output" else red["input"]
    return np.dtype(case.tensor(name).storage.dtype)


def normalized(wide: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """softmax or log-softmax of float64 ``wide`` along ``axis`` (finite slices)."""
    with np.errstate(all="ignore"):
        shifted = wide - np.max(wide, axis=axis, keepdims=True)
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return np.exp(shifted) / total if kind == NORMALIZED_EXP else shifted - np.log(total)


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...]) -> OracleResult:
    """The expected output of a softmax or log-softmax call, the vendor's numbers for it and the
    slices left open."""
    red = entry.reduction
    values, _, out_dtype, out_shape = reduction_operands(case, entry)
    with np.errstate(over="ignore", invalid="ignore"):
        wide = values.astype(compute_dtype(case, entry)).astype(np.float64)
    if wide.ndim == 0:          # rank 0: a slice of one element
        wide, axis = wide.reshape(1), 0
    else:
        axis = axes[0] if axes else 0
    if wide.size == 0:
        exact = wide.copy()
        open_ = np.zeros(wide.shape, bool)
    else:
        finite = np.all(np.isfinite(wide), axis=axis, keepdims=True)
        exact = normalized(np.where(finite, wide, 0.0), axis, red["kind"])
        open_ = np.broadcast_to(~finite, wide.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = exact.astype(out_dtype).reshape(out_shape)
    work = compute_dtype(case, entry)
    narrower = fraction_bits(work) < fraction_bits(out_dtype)   # bf16 into fp16 too
    # a result computed in a narrower dtype is held to that dtype's numbers, never the output's
    aux: dict[str, Any] = tolerance_aux(entry, work if narrower else out_dtype)
    if narrower:
        aux["faithful_dtype"] = work
    aux.update({"exact": exact.reshape(out_shape), "unjudged": np.asarray(open_).reshape(out_shape),
                "either_zero_sign": True})
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
