"""The oracle of the layer normalizations (a value entry whose ``reduction.kind`` is
``layer-normalized``): every output of the call, as the documents define them, in float64, with the
per-element envelope the layer-norm model allows (spec/surface_models.py LAYER_NORM_MODEL).

- The reduced dims are the trailing ones ``reduction.dims`` names (an integer array's length, or a
  tensor's rank); each slice over them: mean = E[x], variance = E[(x - mean)^2] (the biased divisor n),
  rstd = 1 / sqrt(variance + epsilon), y_i = (x_i - mean) * rstd * weight_i + bias_i; a null weight reads
  as ones and a null bias as zeros (the entry's ``optional``); a null mean or rstd output is not
  written.
- The model: fp16/bf16 inputs cast to float32; the mean a float32 sum in any order (times a rounded
  1/n before or after it) or Welford's running mean; the variance the squared deviations from that
  mean summed in any order and scaled by a rounded 1/n, or Welford's; + epsilon (rounded to
  float32), the reciprocal root within 2 ulp of each of a root and a division (a Newton step of a
  reciprocal square root included); y in float32 (a subtraction, two products, an addition, or fused
  multiply-adds); each output cast once. The bound (``layer_bounds``) is derived by forward error
  analysis: the mean within E = max(gamma_{n+2} sum|x_i| / n, gamma_{4n} max|x_i|) (Higham eq. 4.6;
  Welford's running error as oracle/surface_variance.py), the variance by ``deviation_bound`` (since
  the deviations from the exact mean sum to 0, a mean off by e adds n e^2 exactly).
- Not judged (``unjudged``): a slice holding NaN or an infinity (the documents do not say what a
  device gives), a slice whose squared deviations may leave float32's range, a radicand the model
  cannot bound (epsilon 0 and a constant slice), an element whose weight or bias is not finite.
- Either sign of a zero: the formula may be evaluated in another association.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_norms import _held, _judged, _view
from aclnn_conformance.oracle.surface_variance import deviation_bound
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_models import UNIT_ROUNDOFF, gamma
from aclnn_conformance.spec.surface_values import norm_reduced_rank as reduced_rank, value_entry

_F32_MAX = float(np.finfo(np.float32).max)
# float32's smallest normal: a product or an input below it may be flushed (absolute error per step)
_TINY32 = 2.0 ** -126
# the oracle's own float64 evaluation, relative (a handful of float64 roundings)
_ORACLE = 2.0 ** -48
# the reciprocal root: a root and a division each within 2 ulp of the correctly rounded result
_ROOT_STEP = 2 * (UNIT_ROUNDOFF + 2 * UNIT_ROUNDOFF * (1 + UNIT_ROUNDOFF))


def layer_bounds(x: np.ndarray, k: int, eps: float) -> dict[str, np.ndarray]:
    """The exact mean, variance and rstd of each slice over the last ``k`` dims of float64 ``x``,
    the mean's absolute envelope ``mean_err``, the rstd's relative envelope ``rho`` and the slices
    left ``open``.

    The variance: ``deviation_bound`` of the sum of squared deviations D (two-pass from a mean
    within E, or Welford's), then the product by a rounded 1/n: |v - V| <= B/n + 3u(1 + u)(V + B/n).
    Then + epsilon (rounded to float32, one rounding of the addition), the reciprocal root:
    rstd * [(1 + t)^(-1/2) (1 - e)/(1 + e), (1 - t)^(-1/2) (1 + e)/(1 - e)], t the relative error of
    the radicand, e = ``_ROOT_STEP``."""
    axes = tuple(range(x.ndim - k, x.ndim))
    n = int(np.prod([x.shape[a] for a in axes])) if axes else 1
    u = UNIT_ROUNDOFF
    with np.errstate(all="ignore"):
        finite = np.all(np.isfinite(x), axis=axes, keepdims=True)
        held = np.where(finite, x, 0.0)
        magnitudes = np.sum(np.absolute(held), axis=axes, keepdims=True)
        largest = np.max(np.absolute(held), axis=axes, keepdims=True)
        mean = np.sum(held, axis=axes, keepdims=True) / n
        squares = np.sum((held - mean) ** 2, axis=axes, keepdims=True)
        variance = squares / n
        mean_err = np.maximum(float(gamma(n + 2)) * magnitudes / n, float(gamma(4 * n)) * largest) \
            + n * _TINY32 + _ORACLE * magnitudes / n
        sq_err = deviation_bound(squares, n, mean_err, largest) + (n + 3) * _TINY32
        var_err = sq_err / n + 3 * u * (1 + u) * (variance + sq_err / n) + _ORACLE * variance
        radicand = variance + eps
        err = var_err + u * eps + u * (radicand + var_err + u * eps)
        t = err / radicand
        rstd = 1.0 / radicand ** 0.5
        upper = (1 - t) ** -0.5 * (1 + _ROOT_STEP) / (1 - _ROOT_STEP) - 1
        lower = 1 - (1 + t) ** -0.5 * (1 - _ROOT_STEP) / (1 + _ROOT_STEP)
        rho = np.where(upper > lower, upper, lower) + _ORACLE
        # the squared deviations may leave float32 (n (2 max|x|)^2 beyond its largest value)
        open_ = ~finite | ~(n * (2 * largest) ** 2 < _F32_MAX) | ~(t < 0.5)
    zero = lambda a: np.where(open_, 0.0, a)
    return {"average": zero(mean), "mean_err": zero(mean_err), "rstd": zero(rstd), "rho": zero(rho),
            "open": open_, "axes": axes, "n": n}


def _affine(case: Case, name: str | None, fill: float, shape: tuple[int, ...]) -> np.ndarray:
    """A weight or bias in float64, or ``fill`` where the call leaves it null."""
    arg = case.tensors.get(name) if name else None
    return np.full(shape, fill) if arg is None else _held(_view(case, name))


def from_case(case: Case, profile: str, product: str | None = None) -> OracleResult:
    """The expected outputs of a layer-normalized call, their envelopes and what is open."""
    entry = value_entry(case.op)
    red = entry.reduction
    outputs = {role: name for role, name in red.get("outputs", {}).items() if case.tensors.get(name) is not None}
    source = _view(case, red["input"])
    views: dict[str, np.ndarray] = {}
    aux: dict[str, Any] = {}
    if source.size == 0:    # an empty input: the outputs are left as they are, nothing judged
        for name in (entry.output, *outputs.values()):
            arg = case.tensor(name)
            views[name] = np.zeros(arg.desc.shape, arg.storage.dtype)
        return OracleResult(views=views, aux=aux)
    x = _held(source)
    k = reduced_rank(case, entry)
    eps = float(case.attrs.get(red["epsilon"], entry.defaults.get(red["epsilon"], 0.0)))
    found = layer_bounds(x, k, eps)
    mean, mean_err, rstd, rho, open_slice = found["average"], found["mean_err"], found["rstd"], found["rho"], found["open"]
    trailing = x.shape[x.ndim - k:]
    weight = _affine(case, red.get("weight"), 1.0, trailing)
    bias = _affine(case, red.get("bias"), 0.0, trailing)
    u = UNIT_ROUNDOFF
    with np.errstate(all="ignore"):
        scale = rstd * weight
        y = (x - mean) * scale + bias
        # (x - m') rounded, times rstd, times the weight (three roundings), m' within E of the mean;
        # the addition of the bias one more rounding of the whole
        rel = (1 + rho) * (1 + u) ** 3 - 1
        inner = np.absolute((x - mean) * scale) * rel + mean_err * np.absolute(scale) * (1 + rel)
        bound_y = inner * (1 + u) + u * np.absolute(y) + _TINY32 * (np.absolute(weight) + 2) \
            + _ORACLE * (np.absolute(y) + np.absolute(bias))
        open_y = np.broadcast_to(open_slice, x.shape) | ~np.isfinite(weight) | ~np.isfinite(bias)
    out_arg = case.tensor(entry.output)
    views[entry.output], aux[entry.output] = _judged(y, bound_y, open_y, out_arg.storage.dtype,
                                                     tuple(out_arg.desc.shape))
    for role, exact, bound in (("average", mean, mean_err), ("rstd", rstd, rstd * rho)):
        if role in outputs:
            arg = case.tensor(outputs[role])
            views[outputs[role]], aux[outputs[role]] = _judged(
                exact, bound, np.broadcast_to(open_slice, exact.shape), arg.storage.dtype, tuple(arg.desc.shape))
    return OracleResult(views=views, aux=aux)
