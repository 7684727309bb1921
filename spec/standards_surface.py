"""Precision standards and arithmetic models of the documented surface's elementwise APIs, one per
function class (spec/surface_values.py), registered into spec/precision.py's STANDARDS.

- ``surface-exact@1`` (exact class: comparisons, bitwise, selections, rounding to integers, casts of
  exactly representable values): every element equal in value; NaN where the oracle has NaN (any
  payload); the sign of a zero judged unless the entry says an IEEE max/min or select may give
  either. Exactness leaves no room for a bias: a shifted element is a failed element.
- ``surface-rounded@1`` (rounded class: add, subtract, multiply, divide, square root and their
  compositions): the ``model_envelope`` comparison of model-bound@2, with the per-element bound the
  oracle derives from the class's model (oracle/surface_functions.py ``evaluate_bound``) and its
  bias check.
- ``surface-tolerance@1`` (transcendental class): the vendor's own accuracy standard for the API and
  output dtype. Where TTK cases of the API give ``precision_tolerances`` for that dtype (the
  smallest over them), an element is right if |a - g| <= atol + rtol*|g|, g the oracle's result in
  the output dtype; every element must be right. Where no TTK number exists, the published
  experimental standard (MERE < T, MARE < 10T, T = fp16 2^-10, bf16 2^-7, fp32 2^-13). In both, a
  faithful result (either output-dtype neighbour of the exact value) is always right: no rounding
  of a correct value can do better. NaN and infinities must sit where the oracle has them.
"""
from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from aclnn_conformance.spec.precision import ArithmeticModel, Standard

EXACT, ROUNDED, TOLERANCE = "surface-exact@1", "surface-rounded@1", "surface-tolerance@1"
CLASS_STANDARD = {"exact": EXACT, "rounded": ROUNDED, "transcendental": TOLERANCE}
# the published experimental standard (notes conformance_anchors.md 4.6), per output dtype
PUBLISHED_T = {"float32": 2.0 ** -13, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
PUBLISHED_SOURCE = ("hicann/opbase docs/zh/ops_precision_standard/experimental_standard.md "
                    "(notes conformance_anchors.md 4.6)")

SURFACE_STANDARDS: tuple[Standard, ...] = (
    Standard("surface-exact", "1", "surface_exact",
             "Exact functions (comparisons, bitwise, selections, integer rounding, exact casts): "
             "every element equal in value, NaN where the oracle has NaN, the sign of zero judged "
             "unless the API's entry says an IEEE max/min or select may give either.",
             source="issue 21 item 2; spec/standards_surface.py"),
    Standard("surface-rounded", "1", "surface_rounded",
             "Basic arithmetic correctly rounded in the compute dtype the host code chooses, or in "
             "float32 with one cast at the end; multiply-adds fused or not; division and square root "
             "faithful. Per element within the bound the oracle derives for the call by forward "
             "error analysis of the API's formula in its order (0 for a single correctly rounded "
             "operation: the correctly rounded result itself); fp16/bf16 equal to the cast of the "
             "float32 result, the other neighbour only where the bound reaches its midpoint; the "
             "mean signed error in units of the bound within `bias_share` + `bias_spread`/sqrt(n). "
             "Not judged: elements whose intermediates leave the compute dtype's range (a native "
             "evaluation overflows, a float32 one need not); where the exact result lies beyond the "
             "largest finite value, that value is as faithful as the infinity.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "ARITHMETIC_MODEL of the rounded class (spec/standards_surface.py)"),
    Standard("surface-tolerance", "1", "surface_tolerance",
             "Transcendental functions within the vendor's accuracy standard for the API and output "
             "dtype: TTK's precision_tolerances (rtol, atol; the smallest over the API's cases of that "
             "dtype) on every element, else the published experimental standard (MERE < T, MARE < "
             "10T); a faithful rounding of the exact value always accepted; NaN and Inf where the "
             "oracle has them.",
             {dt: {"T": t} for dt, t in PUBLISHED_T.items()},
             "TTK tests/st/arch35/ttk_*.csv of each API; " + PUBLISHED_SOURCE),
)


def _model(function_class: str, order: str, correctly_rounded: tuple[str, ...],
           faithful: tuple[str, ...], may: tuple[str, ...], may_not: tuple[str, ...]) -> ArithmeticModel:
    return ArithmeticModel(
        function_class, "1", order=order, correctly_rounded=correctly_rounded, faithful=faithful,
        reciprocal_division=function_class == "rounded", fused_multiply_add=function_class == "rounded",
        final_cast={}, may=may, may_not=may_not,
        source="issue 21 item 2; the API's document (value table entry); spec/standards_surface.py")


# one model per function class (the ``operator`` field names the class); an operator's record takes
# its class's model through ``arithmetic_model_for``
CLASS_MODELS: dict[str, ArithmeticModel] = {m.operator: m for m in (
    _model("exact", "the document's function, element by element after broadcasting",
           ("none: every result is exactly representable",), (),
           ("any order of evaluation; either zero where the entry says an IEEE max/min or select "
            "may give either",),
           ("any difference in value", "a NaN not propagated", "a subnormal flushed to zero",
            "another output dtype than the host code's")),
    _model("rounded", "the document's formula in its order, operands cast to the compute dtype "
                      "the host code chooses, one cast to the output dtype",
           ("addition", "subtraction", "multiplication", "the final cast (round to nearest even)"),
           ("divide", "square root"),
           ("compute fp16/bf16 in float32 and cast once at the end",
            "round each operation in the compute dtype instead",
            "fuse any multiply-add of the formula (one rounding), or not",
            "divide as a faithful reciprocal times the dividend, take square roots faithfully",
            "hold a scalar or literal in the compute dtype or in float32"),
           ("another formula or order that changes the mathematics", "round twice at the end",
            "a systematic bias (every element leaning one way)",
            "another promotion or output dtype than the host code's")),
    _model("transcendental", "the document's function; any algorithm",
           (), ("every function: within the vendor's standard for the API and dtype",),
           ("any algorithm whose results meet the vendor's standard for the API and output dtype",
            "compute fp16/bf16 in float32 and cast once"),
           ("errors beyond the vendor's standard", "a NaN or Inf where the function has none, or "
            "none where it has one", "another promotion or output dtype than the host code's")),
)}


def arithmetic_model_for(key: str, function_class: str) -> ArithmeticModel:
    """The class's model under an operator's key (an Operator record checks that its model is its own)."""
    from dataclasses import replace
    return replace(CLASS_MODELS[function_class], operator=key)


def standards_for(api_or_key: str) -> dict[str, str]:
    """{output: standard} of an API with a value entry (the ``standards`` of its OpSpec)."""
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(api_or_key)
    return {entry.output: CLASS_STANDARD[entry.function_class]}


# ---- the comparisons ----

def _dtype_name(dtype: np.dtype) -> str:
    from aclnn_conformance.spec.precision import dtype_name
    return dtype_name(dtype)


def compare_surface_exact(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any] | None):
    from aclnn_conformance.spec.precision import Verdict, _first
    a = np.asarray(actual).reshape(-1)
    e = np.asarray(expected).reshape(-1)
    if e.dtype.kind in "fV" or e.dtype.name == "bfloat16":
        af, ef = a.astype(np.float64), e.astype(np.float64)
        both_nan = np.isnan(af) & np.isnan(ef)
        bad = ~((af == ef) | both_nan)
        if not (aux or {}).get("either_zero_sign", False):
            zero = (af == 0) & (ef == 0)
            bad |= zero & ((np.copysign(1.0, af) < 0) != (np.copysign(1.0, ef) < 0))
        finite = np.isfinite(af) & np.isfinite(ef)
        mean = float((af[finite] - ef[finite]).mean()) if finite.any() else 0.0
    else:
        bad = a != e
        mean = 0.0
    idx = np.flatnonzero(bad)
    metrics = {"mismatched": int(idx.size), "mean_signed_error": mean}
    if idx.size:
        return Verdict("FAIL", metrics, "not exact: " + _first(idx, a, e))
    return Verdict("PASS", metrics)


def neighbours(exact: np.ndarray, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    """The two values of ``dtype`` around each float64 ``exact`` (equal where it is representable),
    as float64; beyond the largest finite value the upper one is infinity."""
    x = np.asarray(exact, dtype=np.float64)
    if np.dtype(dtype).itemsize == 8:
        return x, x
    with np.errstate(over="ignore", invalid="ignore"):
        nearest = x.astype(dtype)
    width = np.dtype(dtype).itemsize * 8
    bits = np.ascontiguousarray(nearest).view(np.dtype(f"u{width // 8}")).astype(np.int64)
    negative = bits >> (width - 1)
    magnitude = bits & ((1 << (width - 1)) - 1)
    ordered = np.where(negative == 1, -magnitude, magnitude)      # monotone in the value
    n64 = nearest.astype(np.float64)
    step = np.where(n64 > x, -1, np.where(n64 < x, 1, 0))
    other = ordered + step
    other_bits = np.where(other < 0, (1 << (width - 1)) | (-other), other)
    other_value = other_bits.astype(np.dtype(f"u{width // 8}")).view(dtype).astype(np.float64)
    low = np.where(step >= 0, n64, other_value)
    high = np.where(step >= 0, np.where(step > 0, other_value, n64), n64)
    return low, high


def compare_surface_tolerance(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any],
                              std: Standard):
    """``aux``: ``exact`` (float64 values of the function), and ``rtol``/``atol`` (TTK numbers) or
    none of them (the published standard by dtype)."""
    from aclnn_conformance.spec.precision import Verdict, _first
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    g = np.asarray(expected).astype(np.float64).reshape(-1)
    x = np.asarray(aux["exact"], dtype=np.float64).reshape(-1)
    low, high = neighbours(x, dt)
    special = ~np.isfinite(a) | ~np.isfinite(g)
    faithful = (a >= low) & (a <= high) & np.isfinite(a)
    special_ok = (a == g) | (np.isnan(a) & np.isnan(g)) | faithful
    special_bad = special & ~special_ok
    finite = ~special
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.absolute(a - g), 0.0)
        rel = np.where(finite & ~faithful, err / (np.absolute(g) + 1e-7), 0.0)
    metrics: dict[str, Any] = {"nan_inf_mismatched": int(special_bad.sum()),
                               "faithful": int((faithful & finite).sum())}
    if "rtol" in aux:
        rtol, atol = float(aux["rtol"]), float(aux["atol"])
        limit = atol + rtol * np.absolute(g)
        over = finite & ~faithful & (err > limit)
        metrics.update({"rtol": rtol, "atol": atol, "beyond_tolerance": int(over.sum()),
                        "max_limit_fraction": float((err[finite] / limit[finite]).max())
                        if finite.any() else 0.0})
        bad = np.flatnonzero(over | special_bad)
        if bad.size:
            return Verdict("FAIL", metrics, f"beyond rtol {rtol:g}, atol {atol:g} "
                                            f"({aux.get('source', '')}): " + _first(
                bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
        return Verdict("PASS", metrics)
    t = std.limit(_dtype_name(dt), "T")
    mere = float(rel[finite].mean()) if finite.any() else 0.0
    mare = float(rel[finite].max()) if finite.any() else 0.0
    metrics.update({"mere": mere, "mare": mare, "T": t})
    if special_bad.any() or not (mere < t and mare < 10 * t):
        idx = np.flatnonzero(special_bad) if special_bad.any() else np.argsort(-rel)[:5]
        return Verdict("FAIL", metrics, f"MERE {mere:.3g} (limit {t:.3g}), MARE {mare:.3g} (limit "
                                        f"{10 * t:.3g}): " + _first(
            idx, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict("PASS", metrics)


def compare_surface_rounded(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any],
                            std: Standard):
    """model-bound@2's envelope comparison and bias check over the judged elements."""
    from aclnn_conformance.spec.precision import compare_model_envelope, Verdict
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).reshape(-1)
    e = np.asarray(expected).reshape(-1)
    skip = np.asarray(aux.get("unjudged", np.zeros(e.shape, bool)), bool).reshape(-1)
    if "exact" in aux:
        from aclnn_conformance.spec.precision import dtype_name
        import ml_dtypes as _ml
        top = float(_ml.finfo(dt).max if dtype_name(dt) == "bfloat16" else np.finfo(dt).max)
        x = np.asarray(aux["exact"], np.float64).reshape(-1)
        wide = a.astype(np.float64)
        beyond = np.isfinite(x) & (np.absolute(x) > top)
        skip = skip | (beyond & ((np.absolute(wide) == top) | np.isinf(wide)) & ((wide > 0) == (x > 0)))
    keep = ~skip
    verdict = compare_model_envelope(a[keep], e[keep], np.asarray(aux["bound"]).reshape(-1)[keep],
                                     np.asarray(aux["unrounded"]).reshape(-1)[keep], std)
    return Verdict(verdict.outcome, {**verdict.metrics, "not_judged": int(skip.sum())},
                   verdict.detail)


def _exact(actual, expected, aux, std):
    return compare_surface_exact(actual, expected, aux)


COMPARERS: dict[str, Callable[..., Any]] = {"surface_exact": _exact,
                                            "surface_rounded": compare_surface_rounded,
                                            "surface_tolerance": compare_surface_tolerance}


def register(standards: dict[str, Standard]) -> None:
    """Add the surface's standards to a STANDARDS registry (spec/precision.py calls this once)."""
    for std in SURFACE_STANDARDS:
        standards.setdefault(f"{std.name}@{std.version}", std)
