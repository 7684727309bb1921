"""The oracle of the root-mean-square normalizations (a value entry whose ``reduction.kind`` is
``rms-normalized``): every output of the call, as the documents define them, in float64, with the
per-element envelope the norm model allows (spec/surface_models.py NORM_MODEL).

- The reduced dims are the trailing dims the weight (``reduction.dims``, the tensor named there)
  covers; each slice over them is normalized: rstd = 1 / sqrt(mean(x^2) + epsilon), y_i = x_i *
  rstd * (weight_i + ``weight_offset``). An entry whose block names ``addends`` normalizes their
  sum x = x1 + x2, itself an output (role ``sum``).
- The model: x^2 products, their sum in any order, the mean (a multiplication by a rounded 1/n
  before or after the sum), + epsilon, sqrt and a division (each within 1 ulp of the correctly
  rounded result) in float32; fp16/bf16 operands cast to float32 and the result cast once. An
  added input's sum is held either as its float32 sum or as that sum cast to the input's dtype.
  The bound is derived by forward error analysis (``norm_bounds``), so it holds for any order.
- Not judged (``unjudged``): a slice holding NaN or an infinity (the documents do not say what a
  device gives; 1/sqrt(inf) and inf * 0 are a kernel's choice), a slice whose squares' sum may
  leave float32's range, an element whose weight is not finite, and an output the entry's
  ``open_outputs`` names for the product (a document that says it is not written there).
- Either sign of a zero: the formula may be evaluated as (x * rstd) * w or x * (rstd * w).
"""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_models import UNIT_ROUNDOFF, gamma
from aclnn_conformance.spec.surface_values import (ValueEntry, norm_sources as _sources,
                                                   norm_reduced_rank as reduced_rank, value_entry)

_BF16 = np.dtype(ml_dtypes.bfloat16)
_F32_MAX = float(np.finfo(np.float32).max)
# float32's smallest normal: a product or an input below it may be flushed (absolute error per step)
_TINY32 = 2.0 ** -126
# the oracle's own float64 evaluation, relative (a handful of float64 roundings)
_ORACLE = 2.0 ** -48
# a division or square root within 1 ulp of the correctly rounded result: relative u + 2u(1 + u)
_ONE_ULP = UNIT_ROUNDOFF + 2 * UNIT_ROUNDOFF * (1 + UNIT_ROUNDOFF)
# the unit roundoff of each dtype an added input's sum may be held in
_UNIT = {np.dtype(np.float16): 2.0 ** -11, _BF16: 2.0 ** -8, np.dtype(np.float32): 2.0 ** -24}
# half the smallest subnormal spacing of each dtype (an absolute rounding error of the held sum)
_HALF_STEP = {np.dtype(np.float16): 2.0 ** -25, _BF16: 2.0 ** -134, np.dtype(np.float32): 2.0 ** -150}


def _view(case: Case, name: str) -> np.ndarray:
    arg = case.tensor(name)
    return np.asarray(arg.view_of(arg.storage))


def _held(values: np.ndarray) -> np.ndarray:
    """fp16/bf16/float32 values in float64 (exactly)."""
    with np.errstate(all="ignore"):
        return values.astype(np.float32).astype(np.float64)


def norm_bounds(x: np.ndarray, k: int, eps: float, unit_x: float, abs_x: float) -> dict[str, np.ndarray]:
    """The exact rstd of each slice over the last ``k`` dims of float64 ``x`` and its relative
    envelope ``rho`` under the model, given that the device may hold each x_i with a relative error
    ``unit_x`` and an absolute one ``abs_x`` (an added input's sum; 0 for an input read as it is).

    The mean of squares: each x_i^2 perturbed by (2 unit_x + unit_x^2) x_i^2 + 2|x_i| abs_x + abs_x^2
    (E in all); the float32 products, an optional product by a rounded 1/n before the sum, the sum
    in any order and the product by the rounded 1/n after it: gamma_{n+3} of (S + E)/n (Higham
    eq. 3.4, 4.6), plus 4 times float32's smallest normal for products that underflow or flush.
    Then + epsilon (rounded to float32, then one rounding of the addition), a square root and a
    division each within 1 ulp: rstd * [(1 + t)^(-1/2) (1 - e)/(1 + e), (1 - t)^(-1/2) (1 + e)/(1 - e)],
    t the relative error of the sum's radicand, e = u + 2u(1 + u)."""
    axes = tuple(range(x.ndim - k, x.ndim))
    n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    u = UNIT_ROUNDOFF
    with np.errstate(all="ignore"):
        squares = x * x
        s = np.sum(squares, axis=axes, keepdims=True)
        perturb = np.sum((2 * unit_x + unit_x ** 2) * squares + 2 * np.absolute(x) * abs_x + abs_x ** 2,
                         axis=axes, keepdims=True)
        mean = s / n
        mean_err = perturb / n + float(gamma(n + 3)) * (s + perturb) / n + 4 * _TINY32
        radicand = mean + eps
        err = mean_err + u * eps + u * (radicand + mean_err + u * eps)
        t = err / radicand
        rstd = 1.0 / radicand ** 0.5
        upper = (1 - t) ** -0.5 * (1 + _ONE_ULP) / (1 - _ONE_ULP) - 1
        lower = 1 - (1 + t) ** -0.5 * (1 - _ONE_ULP) / (1 + _ONE_ULP)
        rho = np.where(upper > lower, upper, lower) + _ORACLE
        # a slice not judged: a non-finite value, squares whose sum may leave float32, or a radicand
        # the model cannot bound (t near 1: epsilon 0 and a slice of zeros or underflowing squares)
        finite = np.all(np.isfinite(x), axis=axes, keepdims=True)
        open_ = ~finite | ~(s * (1 + float(gamma(n + 3))) + perturb < _F32_MAX) | ~(t < 0.5)
    return {"rstd": np.where(open_, 0.0, rstd), "rho": np.where(open_, 0.0, rho), "open": open_,
            "axes": axes}


def _cast(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        return values.astype(np.float32).astype(dtype) if np.dtype(dtype) != np.float32 \
            else values.astype(np.float32)


def _judged(exact: np.ndarray, bound: np.ndarray, open_: np.ndarray, dtype: np.dtype,
            shape: tuple[int, ...]) -> tuple[np.ndarray, dict[str, Any]]:
    """The expected output (the exact value rounded to float32, then to ``dtype``) and the aux of
    the envelope comparison (a float32 output: the bound plus the expected value's own distance)."""
    exact = np.where(open_, 0.0, exact)
    expected = _cast(exact, dtype)
    with np.errstate(all="ignore"):
        if np.dtype(dtype) == np.float32:
            bound = bound + np.absolute(expected.astype(np.float64) - exact)
    aux = {"bound": np.asarray(bound, np.float64).reshape(shape),
           "unrounded": np.asarray(exact, np.float64).reshape(shape),
           "exact": np.asarray(exact, np.float64).reshape(shape),
           "unjudged": np.asarray(open_, bool).reshape(shape), "either_zero_sign": True}
    return expected.reshape(shape), aux


def from_case(case: Case, profile: str, product: str | None = None) -> OracleResult:
    """The expected outputs of an rms-normalized call, their envelopes and what is open."""
    entry = value_entry(case.op)
    red = entry.reduction
    outputs = dict(red.get("outputs", {}))
    sources = [_view(case, n) for n in _sources(entry)]
    dtype = np.dtype(sources[0].dtype)
    views: dict[str, np.ndarray] = {}
    aux: dict[str, Any] = {}
    if any(v.size == 0 for v in sources):    # an empty input: empty outputs, nothing to judge
        for name in entry.outputs:
            arg = case.tensor(name)
            views[name] = np.zeros(arg.desc.shape, arg.storage.dtype)
        return OracleResult(views=views, aux=aux)
    with np.errstate(all="ignore"):
        x = sum(_held(v) for v in sources)                  # the exact sum of the addends
    added = len(sources) > 1
    # an added sum is held as float32 (one rounding) or cast to the input's dtype (one more)
    unit_x = (_UNIT[dtype] + UNIT_ROUNDOFF + _UNIT[dtype] * UNIT_ROUNDOFF) if added else 0.0
    abs_x = (_HALF_STEP[dtype] + 2.0 ** -150) if added else 0.0
    k = reduced_rank(case, entry)
    eps = float(case.attrs.get(red["epsilon"], entry.defaults.get(red["epsilon"], 0.0)))
    found = norm_bounds(x, k, eps, unit_x, abs_x)
    rstd, rho, open_slice = found["rstd"], found["rho"], found["open"]
    weight = _held(_view(case, red.get("weight", red["dims"]))) + float(red.get("weight_offset", 0.0))
    u = UNIT_ROUNDOFF
    # a weight plus an offset is one float32 rounding more
    steps = 3 if red.get("weight_offset") else 2
    with np.errstate(all="ignore"):
        y = x * rstd * weight
        rel = (1 + unit_x) * (1 + rho) * (1 + u) ** steps - 1
        magnitude = np.absolute(rstd * weight) * (1 + rho) * (1 + u) ** steps
        bound_y = np.absolute(y) * rel + (abs_x + _TINY32) * magnitude + _TINY32 * (np.absolute(weight) + 1)
        open_y = np.broadcast_to(open_slice, x.shape) | ~np.isfinite(weight)
    out_arg = case.tensor(entry.output)
    views[entry.output], aux[entry.output] = _judged(y, bound_y, open_y, out_arg.storage.dtype,
                                                     tuple(out_arg.desc.shape))
    open_outputs = red.get("open_outputs", {})   # by product, or "any": on every product
    closed = set(open_outputs.get(product or "", ())) | set(open_outputs.get("any", ()))
    if "rstd" in outputs:
        arg = case.tensor(outputs["rstd"])
        bound_r = rstd * rho
        open_r = open_slice | ("rstd" in closed)
        views[outputs["rstd"]], aux[outputs["rstd"]] = _judged(
            rstd, bound_r, np.broadcast_to(open_r, rstd.shape), arg.storage.dtype, tuple(arg.desc.shape))
    if "sum" in outputs:
        arg = case.tensor(outputs["sum"])
        with np.errstate(all="ignore"):
            # one float32 addition rounded, then the cast: the cast of a float32 result within u|x|
            bound_s = np.where(np.isfinite(x), np.absolute(x) * u + 2.0 ** -150, 0.0)
        expected = _cast(x, arg.storage.dtype).reshape(arg.desc.shape)
        views[outputs["sum"]] = expected
        aux[outputs["sum"]] = {"bound": bound_s.reshape(arg.desc.shape), "unrounded": x.reshape(arg.desc.shape),
                               "exact": x.reshape(arg.desc.shape),
                               "unjudged": np.full(arg.desc.shape, "sum" in closed), "either_zero_sign": True}
    return OracleResult(views=views, aux=aux)
