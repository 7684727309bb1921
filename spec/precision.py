"""Precision standards: named, versioned data, and the comparison each one defines.

Every outcome record names the standard and version it was judged by. A standard returns PASS inside
its warning band, QUALITY_WARNING between the warning and the error band, FAIL beyond.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import ml_dtypes
import numpy as np


@dataclass(frozen=True)
class Standard:
    name: str
    version: str
    kind: str                     # bit_exact | quant_code | float_ulp | mere_mare | trajectory
    description: str
    limits: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # dtype -> limit name -> value
    source: str = ""

    def limit(self, dtype_name: str, key: str) -> float:
        try:
            return self.limits[dtype_name][key]
        except KeyError:
            raise KeyError(f"standard {self.name} v{self.version} has no {key!r} for {dtype_name}") from None


STANDARDS: dict[str, Standard] = {s.name: s for s in (
    Standard("bit-exact", "1", "bit_exact",
             "Every storage element identical bit for bit (integer, copy and layout outputs, and "
             "bytes an operator must not touch)."),
    Standard("quant-code", "2", "quant_code",
             "8-bit state codes: equal to the oracle's code, or a near tie: its distance to the "
             "quantized value within `tie_ulps` float32 ulps of the oracle code's, on either side "
             "(at an exact tie between different values only the lower index); equal map entries "
             "are interchangeable; in a block whose absmax is 0 any code is accepted (it "
             "dequantizes to 0).",
             {"float32": {"tie_ulps": 4}}),
    Standard("float-ulp", "1", "float_ulp",
             "Floating outputs judged in units in the last place of the output dtype against a "
             "bit-faithful golden; NaN and Inf must sit where the golden has them.",
             {"float32": {"warn_ulps": 1, "error_ulps": 4},
              "float16": {"warn_ulps": 0, "error_ulps": 1},
              "bfloat16": {"warn_ulps": 0, "error_ulps": 1}},
             "error band: the last-ulp spread of beta**t and sqrt between correctly rounded "
             "results and vendor or library pow/sqrt (the torch CPU sqrt is not correctly rounded)"),
    Standard("model-bound", "1", "model_bound",
             "Floating outputs within a per-element bound that the oracle derives for this very call "
             "from the arithmetic model (spec/precision.py, ARITHMETIC_MODEL): |actual - expected| "
             "<= bound element by element, where expected is the oracle's result in the output "
             "dtype; NaN and Inf must sit where the oracle has them, with the same sign."),
    Standard("mere-mare", "2026.1", "mere_mare",
             "Ascend experimental standard: MERE = mean(|a-g|/(|g|+1e-7)), MARE = max(...); "
             "error band MERE < T and MARE < 10T; warning band half of both.",
             {"float32": {"T": 2.0 ** -13}, "float16": {"T": 2.0 ** -10},
              "bfloat16": {"T": 2.0 ** -7}},
             "opbase docs/zh/ops_precision_standard/experimental_standard.md"),
    Standard("bnb-8bit-adamw-trajectory", "1", "trajectory",
             "Multi-step parameter error against float64 AdamW: mean absolute and mean relative "
             "error per step, the limits of the 8-bit AdamW optimizer's own test.",
             {"float32": {"mean_abs": 6e-5, "mean_rel": 6e-4},
              "float16": {"mean_abs": 6e-5, "mean_rel": 6e-4},
              "bfloat16": {"mean_abs": 1.7e-4, "mean_rel": 1.6e-3}},
             "bitsandbytes tests/test_optim.py test_optimizer8bit"),
)}


def standard(name: str) -> Standard:
    try:
        return STANDARDS[name]
    except KeyError:
        raise KeyError(f"unknown precision standard {name!r}; known: {', '.join(STANDARDS)}") from None


@dataclass(frozen=True)
class Verdict:
    outcome: str                 # PASS | QUALITY_WARNING | FAIL
    metrics: Mapping[str, Any]
    detail: str = ""             # first mismatches, for the failure message


def dtype_name(dtype: np.dtype) -> str:
    return "bfloat16" if dtype == np.dtype(ml_dtypes.bfloat16) else np.dtype(dtype).name


def _first(idx: np.ndarray, actual: np.ndarray, expected: np.ndarray, n: int = 5) -> str:
    shown = ", ".join(f"[{int(i)}] {actual[i]!r} != {expected[i]!r}" for i in idx[:n])
    more = f" (+{idx.size - n} more)" if idx.size > n else ""
    return shown + more


def compare_bit_exact(actual: np.ndarray, expected: np.ndarray) -> Verdict:
    a = np.ascontiguousarray(actual).reshape(-1).view(np.uint8)
    e = np.ascontiguousarray(expected).reshape(-1).view(np.uint8)
    if a.size != e.size:
        return Verdict("FAIL", {"size": int(a.size), "expected_size": int(e.size)},
                       f"size {a.size} bytes, expected {e.size}")
    bad = np.flatnonzero(a != e)
    item = max(np.asarray(actual).dtype.itemsize, 1)
    elems = np.unique(bad // item)
    flat_a, flat_e = np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)
    return Verdict("FAIL" if bad.size else "PASS", {"mismatched": int(elems.size)},
                   _first(elems, flat_a, flat_e) if bad.size else "")


def _ulp(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Spacing of ``dtype`` at |x| (computed in float64, exact for these small formats)."""
    finfo = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    ax = np.abs(x.astype(np.float64))
    exp = np.floor(np.log2(np.maximum(ax, float(finfo.smallest_normal))))
    return np.exp2(exp - finfo.nmant)


def compare_float_ulp(actual: np.ndarray, expected: np.ndarray, std: Standard) -> Verdict:
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    e = np.asarray(expected).astype(np.float64).reshape(-1)
    nan_bad = np.isnan(a) != np.isnan(e)
    inf_bad = (np.isinf(a) | np.isinf(e)) & ~((a == e) | (np.isnan(a) & np.isnan(e)))
    finite = np.isfinite(a) & np.isfinite(e)
    ulps = np.zeros_like(e)
    ulps[finite] = np.abs(a[finite] - e[finite]) / _ulp(e[finite], dt)
    rel = np.abs(a[finite] - e[finite]) / (np.abs(e[finite]) + 1e-7)
    max_ulp = float(ulps.max()) if ulps.size else 0.0
    metrics = {"max_ulp": max_ulp, "mean_ulp": float(ulps.mean()) if ulps.size else 0.0,
               "mere": float(rel.mean()) if rel.size else 0.0,
               "mare": float(rel.max()) if rel.size else 0.0,
               "nan_inf_mismatched": int((nan_bad | inf_bad).sum())}
    name = dtype_name(dt)
    warn, err = std.limit(name, "warn_ulps"), std.limit(name, "error_ulps")
    bad = np.flatnonzero(nan_bad | inf_bad | (ulps > err))
    if bad.size:
        return Verdict("FAIL", metrics, f"beyond {err:g} ulp: " + _first(
            bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict("PASS" if max_ulp <= warn else "QUALITY_WARNING", metrics)


def compare_model_bound(actual: np.ndarray, expected: np.ndarray, bound: np.ndarray,
                        std: Standard) -> Verdict:
    """``bound``: per element, the largest |actual - expected| a correct implementation can show
    under the arithmetic model (float64, the shape of ``expected``)."""
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    e = np.asarray(expected).astype(np.float64).reshape(-1)
    b = np.asarray(bound, dtype=np.float64).reshape(-1)
    special = ~np.isfinite(a) | ~np.isfinite(e)
    special_bad = special & ~((a == e) | (np.isnan(a) & np.isnan(e)))
    finite = ~special
    err = np.zeros_like(e)
    err[finite] = np.abs(a[finite] - e[finite])
    over = finite & (err > b)
    with np.errstate(divide="ignore", invalid="ignore"):
        used = np.where(b[finite] > 0, err[finite] / b[finite], np.where(err[finite] > 0, np.inf, 0.0))
    metrics = {"max_bound_fraction": float(used.max()) if used.size else 0.0,
               "beyond_bound": int(over.sum()), "nan_inf_mismatched": int(special_bad.sum())}
    bad = np.flatnonzero(over | special_bad)
    if bad.size:
        return Verdict("FAIL", metrics, "beyond the model's bound: " + _first(
            bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict("PASS", metrics)


def compare_mere_mare(actual: np.ndarray, expected: np.ndarray, std: Standard) -> Verdict:
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    e = np.asarray(expected).astype(np.float64).reshape(-1)
    special = ~np.isfinite(e) | ~np.isfinite(a)
    special_bad = special & ~((a == e) | (np.isnan(a) & np.isnan(e)))
    rel = np.abs(a[~special] - e[~special]) / (np.abs(e[~special]) + 1e-7)
    mere = float(rel.mean()) if rel.size else 0.0
    mare = float(rel.max()) if rel.size else 0.0
    t = std.limit(dtype_name(dt), "T")
    metrics = {"mere": mere, "mare": mare, "T": t, "nan_inf_mismatched": int(special_bad.sum())}
    if special_bad.any() or not (mere < t and mare < 10 * t):
        return Verdict("FAIL", metrics, f"MERE {mere:.3g} (limit {t:.3g}), MARE {mare:.3g} "
                                        f"(limit {10 * t:.3g})")
    warn = mere < t / 2 and mare < 5 * t
    return Verdict("PASS" if warn else "QUALITY_WARNING", metrics)


def compare_quant_codes(actual: np.ndarray, expected: np.ndarray, x: np.ndarray, qmap: np.ndarray,
                        zero_block: np.ndarray, std: Standard) -> Verdict:
    """``x``: the value the oracle quantized (flat float32); ``zero_block``: per element, whether its
    block's expected absmax is 0."""
    a = np.asarray(actual, dtype=np.uint8).reshape(-1).astype(np.intp)
    e = np.asarray(expected, dtype=np.uint8).reshape(-1).astype(np.intp)
    q = np.asarray(qmap, dtype=np.float32).reshape(-1).astype(np.float64)
    xf = np.asarray(x, dtype=np.float32).reshape(-1)
    diff = a != e
    window = std.limit("float32", "tie_ulps") * _ulp(np.maximum(np.abs(xf), np.abs(q[e]).astype(np.float32)),
                                                     np.dtype(np.float32))
    with np.errstate(invalid="ignore"):
        gap = np.abs(xf - q[a]) - np.abs(xf - q[e])    # > 0: the actual code is farther from x
    same_value = q[a] == q[e]                          # equal map entries dequantize alike
    # An exact tie between different values belongs to the lower index; a near tie (within the
    # window, on either side) may go either way, since x itself may differ by an ulp.
    upper_of_exact_tie = (gap == 0) & (a > e) & ~same_value
    near_tie = (np.abs(gap) <= window) & ~upper_of_exact_tie & ~np.isnan(xf)
    zero_ok = zero_block & np.isfinite(q[a])
    accepted = diff & (near_tie | same_value | zero_ok)
    bad = np.flatnonzero(diff & ~accepted)
    metrics = {"mismatched": int(bad.size), "near_ties_accepted": int((accepted & ~zero_ok).sum()),
               "zero_block_codes_accepted": int((diff & zero_ok).sum())}
    if bad.size:
        return Verdict("FAIL", metrics, "codes " + _first(bad, a, e))
    return Verdict("PASS", metrics)
