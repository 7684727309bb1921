"""The oracle of the gradients of softmax and log-softmax along one dim (a value entry whose
``reduction.kind`` is ``normalized-exp-grad`` or ``log-normalized-exp-grad``), given the output's
gradient g (``reduction.input``) and the forward output y (``reduction.forward``), in float64:

- normalized-exp-grad: out = g*y - sum(g*y)*y, the sum along the dim;
- log-normalized-exp-grad: out = g - sum(g)*exp(y).

The arithmetic model of a correct device: fp16 and bf16 loaded into float32, every operation in
float32 (products and differences fused or not), the sum along the dim in any order, one cast to
the output's dtype. The standard is the transcendental class's with the vendor's TTK numbers for
the output dtype; the part of the error a correct device's order of summation and its roundings
may add is bounded per element (Higham's gamma_n over the magnitudes' sum, a unit roundoff per
operation, the exponential within ``EXP_ERROR``) and an element where that bound exceeds the
vendor's limit is left open (``unjudged``): no order of summation can fail it. A slice holding
NaN or an infinity is open too (the documents do not say what a device gives), and so is a slice
where a float32 intermediate may overflow, and every element of a call whose forward output is
missing or of another shape, or whose dtype is no float (outside the documents' dtypes).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import fraction_bits
from aclnn_conformance.spec.surface_values import NORMALIZED_EXP_GRAD, ValueEntry, tolerance_aux

UNIT = 2.0 ** -24            # float32's unit roundoff
EXP_ERROR = 2.0 ** -21       # the relative error allowed a float32 exponential (4 ulps) in the bound
FLOAT32_SAFE = 2.0 ** 126    # past this an intermediate of the float32 evaluation may overflow


def gamma(n: np.ndarray | int) -> np.ndarray:
    """Higham's gamma_n = n u / (1 - n u) for float32."""
    n = np.asarray(n, np.float64)
    return n * UNIT / (1 - n * UNIT)


def gradient(g: np.ndarray, y: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """The gradient in the document's order over float64 ``g`` and ``y`` (finite slices)."""
    if kind == NORMALIZED_EXP_GRAD:
        return g * y - np.sum(g * y, axis=axis, keepdims=True) * y
    return g - np.sum(g, axis=axis, keepdims=True) * np.exp(y)


def model_bound(g: np.ndarray, y: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """Per element, how far a float32 evaluation in any order of the sum can be from the exact
    gradient (the inputs exact in float32)."""
    n = g.shape[axis]
    if kind == NORMALIZED_EXP_GRAD:
        magnitude = np.sum(np.absolute(g * y), axis=axis, keepdims=True)
        total = np.absolute(np.sum(g * y, axis=axis, keepdims=True))
        summed = gamma(n + 1) * magnitude          # n products rounded, n - 1 additions
        return np.absolute(y) * summed + 3 * UNIT * (np.absolute(g * y) + np.absolute(y) * (total + summed))
    magnitude = np.sum(np.absolute(g), axis=axis, keepdims=True)
    total = np.absolute(np.sum(g, axis=axis, keepdims=True))
    summed = gamma(max(n - 1, 0)) * magnitude
    e = np.exp(y)
    return e * summed + (EXP_ERROR + 3 * UNIT) * e * (total + summed) + 3 * UNIT * np.absolute(g)


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...]) -> OracleResult:
    """The expected gradient, the vendor's numbers for it and the elements left open."""
    red = entry.reduction
    grad_arg = case.tensor(red["input"])
    forward = case.tensors.get(red["forward"])
    out_arg = case.tensor(entry.output)
    out_dtype = np.dtype(out_arg.storage.dtype)
    out_shape = tuple(out_arg.desc.shape)
    compute = np.dtype(grad_arg.storage.dtype)
    if fraction_bits(compute) == 0 or forward is None or tuple(forward.desc.shape) != tuple(grad_arg.desc.shape) \
            or tuple(grad_arg.desc.shape) != out_shape:
        return OracleResult(views={entry.output: np.zeros(out_shape, out_dtype)},
                            aux={entry.output: {"unjudged": np.ones(out_shape, bool)}})
    with np.errstate(all="ignore"):
        g = np.asarray(grad_arg.view_of(grad_arg.storage)).astype(compute).astype(np.float64)
        y = np.asarray(forward.view_of(forward.storage)).astype(compute).astype(np.float64)
    if g.ndim == 0:          # rank 0: a slice of one element
        g, y, axis = g.reshape(1), y.reshape(1), 0
    else:
        axis = axes[0] if axes else 0
    narrower = fraction_bits(compute) < fraction_bits(out_dtype)   # bf16 into fp16 too
    aux: dict[str, Any] = tolerance_aux(entry, compute if narrower else out_dtype)
    if g.size == 0:
        exact, open_ = g.copy(), np.zeros(g.shape, bool)
    else:
        with np.errstate(all="ignore"):
            finite = np.all(np.isfinite(g) & np.isfinite(y), axis=axis, keepdims=True)
            gf, yf = np.where(finite, g, 0.0), np.where(finite, y, 0.0)
            exact = gradient(gf, yf, axis, red["kind"])
            bound = model_bound(gf, yf, axis, red["kind"])
            limit = float(aux.get("atol", 0.0)) + float(aux.get("rtol", 0.0)) * np.absolute(exact)
            # without TTK numbers the published standard is relative: open where the bound is not small
            reach = limit if "rtol" in aux else 2.0 ** -13 * np.absolute(exact)
            open_ = np.broadcast_to(~finite, g.shape) | ~np.isfinite(exact) | (bound > reach)
            # a float32 intermediate (a product, the sum in some order) may overflow where the exact
            # value does not: those slices are not judged, as a sum's (the summation model)
            open_ = open_ | np.broadcast_to(np.any(bound + np.absolute(exact) > FLOAT32_SAFE, axis=axis,
                                                   keepdims=True), g.shape)
            # and where a partial sum of the slice's terms (each |g| times a factor of at most 1: y or
            # e^y of a forward output) may pass float32's range in some order, though the result does not
            partial = np.sum(np.absolute(gf), axis=axis, keepdims=True) + np.max(np.absolute(gf), axis=axis,
                                                                               keepdims=True)
            open_ = open_ | np.broadcast_to(partial > FLOAT32_SAFE, g.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        expected = exact.astype(compute).astype(out_dtype).reshape(out_shape)
    if narrower:
        aux["faithful_dtype"] = compute
    aux.update({"exact": exact.reshape(out_shape), "unjudged": np.asarray(open_).reshape(out_shape),
                "either_zero_sign": True})
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
