"""The oracle of the variances and standard deviations (a value entry whose ``reduction.kind`` is
``variance`` or ``standard-deviation``): each slice's sum of squared deviations from its mean over
the divisor n - correction (its square root for a standard deviation), as the documents define it,
and the envelope the variance model allows around it (spec/surface_models.py VARIANCE).

- The compute dtype is the input's: the kernel's result is allocated in ``self``'s dtype and cast to
  ``out``'s after (reduce_var.cpp:37-41, aclnn_var.cpp:151); fp16 and bf16 are computed in float32
  registers and cast back once (reduce_var_twopass.h:36-44, Load/StoreOneElementForDtypeT).
- The correction: the attribute the entry's reduction block names (``correction_flag``: a bool,
  true meaning 1), else the entry's default.
- The exact value is computed in float64 (the mean, then the squared deviations); the oracle's own
  rounding is bounded by the same analysis with u = 2^-53 and added to the bound.
- The bound (``deviation_bound``): a device's mean m' errs by at most E (the summation model's mean
  bound, plus one ulp of the input's dtype where the mean is rounded to it first); since the
  deviations from the exact mean sum to 0, sum (x_i - m')^2 = D + n (m' - m)^2 exactly, so the mean's
  error enters only as n E^2; each term (x_i - m')^2 carries at most five roundings (the difference
  twice, the scaling, the product) and their float32 sum gamma_{n-1} of their sum, the division by
  n - correction within 1 ulp: |v - V| <= [n E^2 + gamma_{n+5} (D + n E^2)] / (n - correction).
  Welford's updates (the kernel's long slices) err by the mean's running error E_W <= gamma_{4n}
  max |x_i| in each factor of each term: 2 E_W sqrt(2 n D) + n E_W^2 more. The bound is the larger.
- A standard deviation: sqrt of a variance in [V - B, V + B], within 1 ulp of the correctly rounded
  root (DIVISION_AND_ROOT): the larger of sqrt(V) - sqrt(max(V - B, 0)) and sqrt(V + B) - sqrt(V)
  (the latter where V < B: a constant slice's variance 0 computed as a tiny positive one), plus
  3u(1 + u) of the result.
- Open and fixed: a slice holding NaN or an infinity is NaN (its mean is NaN or infinite, and
  x - mean NaN); a slice whose squares may overflow float32 (n (2 max |x|)^2 beyond its largest
  value) is not judged. A divisor n - correction <= 0 is the document's 1/max(0, N - dN) (aclnnVar.md
  line 32): infinity where the deviations are not all 0, NaN for n = 1 (the host code fills the same:
  aclnn_var.cpp:304-319); where n > 1 and the slice is constant or not finite the host code fills
  infinity and the formula gives NaN: not judged. An empty input gives NaN (aclnn_var.cpp:178-180).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_functions import P, spacing
from aclnn_conformance.oracle.surface_sums import slice_length
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import fraction_bits
from aclnn_conformance.spec.surface_models import (ORACLE_ROUNDOFF, SMALLEST_SUBNORMAL32, UNIT_ROUNDOFF,
                                                   gamma, mean_bound, summation_bound)
from aclnn_conformance.spec.surface_values import STANDARD_DEVIATION, ValueEntry, reduction_operands

_F32_MAX = float(np.finfo(np.float32).max)


def correction_of(case: Case, entry: ValueEntry) -> int:
    """The call's correction (the attribute the reduction block names, else the entry's default)."""
    red = entry.reduction
    name = red["correction"]
    value = case.attrs.get(name, entry.defaults.get(name))
    if red.get("correction_flag"):
        return 1 if value else 0
    return int(value)


def deviation_bound(squares: np.ndarray, n: int, mean_error: np.ndarray, largest: np.ndarray,
                    u: float = UNIT_ROUNDOFF) -> np.ndarray:
    """The largest |computed - exact| of a sum of n squared deviations whose exact value is
    ``squares`` (D), computed two-pass from a mean within ``mean_error`` of the exact one, or by
    Welford's updates of values at most ``largest`` in magnitude; unit roundoff ``u``."""
    d = np.asarray(squares, np.float64)
    two_pass = n * mean_error ** 2
    two_pass = two_pass + gamma(n + 5, u) * (d + two_pass)
    running = gamma(4 * n, u) * np.asarray(largest, np.float64)
    welford = 2 * running * P.square_root(2 * n * d) + n * running ** 2
    welford = welford + gamma(n + 5, u) * (d + welford)
    return P.larger(two_pass, welford)


def _widened(bound: np.ndarray, exact: np.ndarray, rounded: np.ndarray, work: np.dtype,
             out_dtype: np.dtype) -> np.ndarray:
    """The bound against the expected value in the output's dtype (as oracle/surface_sums.py)."""
    if fraction_bits(work) < fraction_bits(out_dtype):
        # a result rounded to the narrower input dtype, then cast: half an ulp of each (and float32's)
        return bound + spacing(exact, work) + spacing(exact, np.dtype(np.float32))
    if out_dtype == np.dtype(np.float32):
        # the float32 branch compares against the expected value itself: add its distance from exact
        return bound + np.where(np.isfinite(exact), np.absolute(rounded.astype(np.float64) - exact), 0.0)
    return bound


def from_case(case: Case, entry: ValueEntry, axes: tuple[int, ...], keepdim: bool) -> OracleResult:
    """The expected output of a variance or standard deviation call, its bound and what is open."""
    values, _, out_dtype, out_shape = reduction_operands(case, entry)
    work = np.dtype(values.dtype)
    correction = correction_of(case, entry)
    root = entry.reduction["kind"] == STANDARD_DEVIATION
    if values.size == 0:     # the host code fills every output with NaN before the kernel
        views, auxes = {}, {}
        for name in entry.outputs:
            arg = case.tensor(name)
            views[name] = np.full(tuple(arg.desc.shape), np.nan).astype(arg.storage.dtype)
            auxes[name] = {"bound": np.zeros(arg.desc.shape), "unrounded": np.full(arg.desc.shape, np.nan),
                           "exact": np.full(arg.desc.shape, np.nan), "unjudged": np.zeros(arg.desc.shape, bool)}
        return OracleResult(views=views, aux=auxes)
    n = slice_length(values.shape, axes)
    divisor = n - correction
    wide = values.astype(np.float64)
    finite = np.all(np.isfinite(wide), axis=axes, keepdims=True)
    held = np.where(finite, wide, 0.0)
    magnitudes = np.sum(np.absolute(held), axis=axes, keepdims=True)
    largest = np.max(np.absolute(held), axis=axes, keepdims=True)
    mean = np.sum(held, axis=axes, keepdims=True) / n
    squares = np.sum((held - mean) ** 2, axis=axes, keepdims=True)
    # the device's mean: the summation model's mean, rounded to the input's dtype on the products
    # whose host code takes ReduceMean in self's dtype first (aclnn_var.cpp:206)
    mean_error32 = mean_bound(np.absolute(mean) * n, summation_bound(magnitudes, n), n)
    mean_error = mean_error32
    if fraction_bits(work) < fraction_bits(np.dtype(np.float32)):
        mean_error = mean_error + spacing(np.absolute(mean) + mean_error, work)
    oracle_mean_error = gamma(n + 2, ORACLE_ROUNDOFF) * (magnitudes / n)
    oracle_error = deviation_bound(squares, n, oracle_mean_error, largest, ORACLE_ROUNDOFF)
    squares_bound = deviation_bound(squares, n, mean_error, largest) + oracle_error \
        + (n + 3) * SMALLEST_SUBNORMAL32
    overflow = n * (2 * largest) ** 2 > _F32_MAX
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if divisor > 0:
            exact = squares / divisor
            # the division by n - correction (or its rounded reciprocal) within 1 ulp: 3u(1 + u)
            bound = squares_bound / divisor + 3 * UNIT_ROUNDOFF * (1 + UNIT_ROUNDOFF) * (exact + squares_bound / divisor)
            open_ = overflow & finite
        else:    # 1/max(0, N - dN): infinity, or NaN where no deviation differs from 0
            exact = np.where(squares > 0, np.inf, np.nan)
            bound = np.zeros(exact.shape)
            # the host code fills before the kernel; where it does not (``open_without_divisor``),
            # the kernel's infinite 1/(n - correction) gives NaN where a deviation is 0
            open_ = (n > 1) & ((squares == 0) | ~finite | bool(entry.reduction.get("open_without_divisor")))
        if root:   # the farther of the roots of V - B (or 0) and V + B: above V + B where V < B
            low = P.square_root(P.larger(exact - bound, 0.0))
            result = P.square_root(exact)
            bound = P.larger(result - low, P.square_root(exact + bound) - result)
            bound = np.where(np.isfinite(result), bound, 0.0)
            bound = bound + 3 * UNIT_ROUNDOFF * (1 + UNIT_ROUNDOFF) * (result + bound) + SMALLEST_SUBNORMAL32
            exact = result
        exact = np.where(finite | (divisor <= 0), exact, np.nan)
        bound = np.where(np.isfinite(exact), bound + 3 * SMALLEST_SUBNORMAL32, 0.0)
        rounded = exact.astype(np.float32).astype(work)
        expected = rounded.astype(out_dtype).reshape(out_shape)
    with np.errstate(invalid="ignore"):
        bound = _widened(bound, exact, rounded, work, out_dtype)
    aux: dict[str, Any] = {"bound": np.asarray(bound, np.float64).reshape(out_shape),
                           "unrounded": np.asarray(exact, np.float64).reshape(out_shape),
                           "exact": np.asarray(exact, np.float64).reshape(out_shape),
                           "unjudged": np.broadcast_to(open_, exact.shape).reshape(out_shape)}
    views, auxes = {entry.output: expected}, {entry.output: aux}
    mean_out = (entry.reduction.get("outputs") or {}).get("average")
    if mean_out:   # the slice's mean, judged as the summation model's mean or Welford's
        views[mean_out], auxes[mean_out] = _mean_output(case.tensor(mean_out), wide, axes, n, work,
                                                        mean_error32, gamma(4 * n) * largest, magnitudes)
    return OracleResult(views=views, aux=auxes)


def _mean_output(arg: Any, wide: np.ndarray, axes: tuple[int, ...], n: int, work: np.dtype,
                 mean_error: np.ndarray, running_error: np.ndarray, magnitudes: np.ndarray) -> tuple:
    """The expected mean output, its bound and what is open: the float32 mean (a sum in any order
    over n, or Welford's running mean) rounded to the input's dtype and cast to the output's. A
    slice holding NaN gives NaN; one holding an infinity (and no NaN) is open: a sum gives the
    infinity, Welford's update inf - inf NaN; one whose magnitudes leave float32's range is open."""
    out_dtype, shape = np.dtype(arg.storage.dtype), tuple(arg.desc.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        exact = np.sum(wide, axis=axes, keepdims=True) / n
        infinite = np.any(np.isinf(wide), axis=axes, keepdims=True) & ~np.isnan(exact)
        exact = np.where(infinite, 0.0, exact)
        bound = P.larger(mean_error, running_error) + gamma(n + 2, ORACLE_ROUNDOFF) * magnitudes / n
        bound = np.where(np.isfinite(exact), bound, 0.0)
        rounded = exact.astype(np.float32).astype(work)
        expected = rounded.astype(out_dtype).reshape(shape)
        bound = _widened(bound, exact, rounded, work, out_dtype)
    open_ = infinite | (magnitudes * 2 > _F32_MAX)
    return expected, {"bound": np.asarray(bound, np.float64).reshape(shape),
                      "unrounded": np.asarray(exact, np.float64).reshape(shape),
                      "exact": np.asarray(exact, np.float64).reshape(shape),
                      "unjudged": np.asarray(open_).reshape(shape)}
