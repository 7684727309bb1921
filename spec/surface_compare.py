"""The comparisons of the elementwise surface's standards (spec/standards_surface.py), by kind."""
from __future__ import annotations

from typing import Any, Callable, Mapping

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.precision import (Standard, Verdict, _first, compare_model_envelope,
                                              dtype_name, standard)
from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
from aclnn_conformance.spec.outcome import Outcome


def _dtype_name(dtype: np.dtype) -> str:
    return dtype_name(dtype)


def compare_surface_exact(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any] | None):
    a = np.asarray(actual).reshape(-1)
    e = np.asarray(expected).reshape(-1)
    skip = (aux or {}).get("unjudged")   # elements the function leaves open (a slice holding NaN)
    keep = ~np.asarray(skip, bool).reshape(-1) if skip is not None else np.ones(e.shape, bool)
    if e.dtype.kind in "fV" or e.dtype.name == "bfloat16":
        af, ef = a.astype(np.float64), e.astype(np.float64)
        both_nan = np.isnan(af) & np.isnan(ef)
        bad = ~((af == ef) | both_nan)
        if not (aux or {}).get("either_zero_sign", False):
            zero = (af == 0) & (ef == 0)
            bad |= zero & ((np.copysign(1.0, af) < 0) != (np.copysign(1.0, ef) < 0))
        finite = np.isfinite(af) & np.isfinite(ef) & keep
        mean = float((af[finite] - ef[finite]).mean()) if finite.any() else 0.0
    else:
        bad = a != e
        mean = 0.0
    idx = np.flatnonzero(bad & keep)
    metrics = {"mismatched": int(idx.size), "mean_signed_error": mean}
    if idx.size:
        return Verdict(Outcome.FAIL, metrics, "not exact: " + _first(idx, a, e))
    return Verdict(Outcome.PASS, metrics)


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


def zero_sign_lost(actual: np.ndarray, aux: Mapping[str, Any]) -> np.ndarray:
    """Elements whose exact value is a zero whose sign IEEE 754 fixes (``zero_sign_fixed``) and whose
    result is a zero of the other sign (flat; all False where the sign is left open)."""
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    if not aux.get("zero_sign_fixed") or "exact" not in aux:
        return np.zeros(a.shape, bool)
    x = np.asarray(aux["exact"], np.float64).reshape(-1)
    return (x == 0) & (a == 0) & ((np.copysign(1.0, x) < 0) != (np.copysign(1.0, a) < 0))


def _sign_verdict(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any],
                  metrics: dict[str, Any], keep: np.ndarray | None = None) -> Verdict | None:
    """A FAIL naming the zeros of the wrong sign, or None."""
    lost = zero_sign_lost(actual, aux)
    if keep is not None:
        lost &= keep
    if not lost.any():
        return None
    idx = np.flatnonzero(lost)
    return Verdict(Outcome.FAIL, {**metrics, "zero_sign_lost": int(idx.size)},
                   "the sign of a zero that IEEE 754 fixes: " + _first(
                       idx, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))


def _integral(expected: np.ndarray) -> bool:
    """An integer or BOOL output (a float computation cast to it): judged exactly."""
    return np.asarray(expected).dtype.kind in "iub"


def compare_surface_tolerance(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any],
                              std: Standard):
    """``aux``: ``exact`` (float64 values of the function), and ``rtol``/``atol`` (TTK numbers) or
    none of them (the published standard by dtype)."""
    if _integral(expected) or "exact" not in aux:   # computed exactly in an integer or BOOL dtype
        return compare_surface_exact(actual, expected, aux)
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    g = np.asarray(expected).astype(np.float64).reshape(-1)
    x = np.asarray(aux["exact"], dtype=np.float64).reshape(-1)
    low, high = neighbours(x, np.dtype(aux.get("faithful_dtype", dt)))
    # elements the entry's model leaves open (oracle/surface.py: the entry's open_where)
    judged = ~np.asarray(aux.get("unjudged", np.zeros(g.shape, bool)), bool).reshape(-1)
    special = (~np.isfinite(a) | ~np.isfinite(g)) & judged
    faithful = ((a >= low) & (a <= high) & np.isfinite(a)) | ~judged
    special_ok = (a == g) | (np.isnan(a) & np.isnan(g)) | faithful
    special_bad = special & ~special_ok
    finite = ~special & judged
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(finite, np.absolute(a - g), 0.0)
        rel = np.where(finite & ~faithful, err / (np.absolute(g) + 1e-7), 0.0)
    metrics: dict[str, Any] = {"nan_inf_mismatched": int(special_bad.sum()),
                               "faithful": int((faithful & finite).sum())}
    signed = _sign_verdict(actual, expected, aux, metrics)
    if signed is not None:
        return signed
    if "rtol" in aux:
        rtol, atol = float(aux["rtol"]), float(aux["atol"])
        limit = atol + rtol * np.absolute(g)
        over = finite & ~faithful & (err > limit)
        with np.errstate(divide="ignore", invalid="ignore"):
            used = np.where(limit > 0, err / np.where(limit > 0, limit, 1.0), np.where(err > 0, np.inf, 0.0))
        metrics.update({"rtol": rtol, "atol": atol, "beyond_tolerance": int(over.sum()),
                        "max_limit_fraction": float(used[finite].max()) if finite.any() else 0.0})
        bad = np.flatnonzero(over | special_bad)
        if bad.size:
            return Verdict(Outcome.FAIL, metrics, f"beyond rtol {rtol:g}, atol {atol:g} "
                                            f"({aux.get('source', '')}): " + _first(
                bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
        return Verdict(Outcome.PASS, metrics)
    # a wider output holds a result computed in the compute dtype: that dtype's number applies
    t = std.limit(_dtype_name(np.dtype(aux.get("faithful_dtype", dt))), "T")
    mere = float(rel[finite].mean()) if finite.any() else 0.0
    mare = float(rel[finite].max()) if finite.any() else 0.0
    metrics.update({"mere": mere, "mare": mare, "T": t})
    if special_bad.any() or not (mere < t and mare < 10 * t):
        idx = np.flatnonzero(special_bad) if special_bad.any() else np.argsort(-rel)[:5]
        return Verdict(Outcome.FAIL, metrics, f"MERE {mere:.3g} (limit {t:.3g}), MARE {mare:.3g} (limit "
                                        f"{10 * t:.3g}): " + _first(
            idx, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict(Outcome.PASS, metrics)


def compare_surface_rounded(actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any],
                            std: Standard):
    """model-bound@2's envelope comparison and bias check over the judged elements."""
    # no bound: the oracle computed in an integer or BOOL dtype, exactly, and cast to the output
    if _integral(expected) or "bound" not in aux:
        return compare_surface_exact(actual, expected, aux)
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).reshape(-1)
    e = np.asarray(expected).reshape(-1)
    skip = np.asarray(aux.get("unjudged", np.zeros(e.shape, bool)), bool).reshape(-1)
    if "exact" in aux:
        from aclnn_conformance.spec.precision import dtype_name
        top = float(ml_dtypes.finfo(dt).max if dtype_name(dt) == "bfloat16" else np.finfo(dt).max)
        x = np.asarray(aux["exact"], np.float64).reshape(-1)
        wide = a.astype(np.float64)
        beyond = np.isfinite(x) & (np.absolute(x) > top)
        skip = skip | (beyond & ((np.absolute(wide) == top) | np.isinf(wide)) & ((wide > 0) == (x > 0)))
    keep = ~skip
    signed = _sign_verdict(actual, expected, aux, {"not_judged": int(skip.sum())}, keep)
    if signed is not None:
        return signed
    verdict = compare_model_envelope(a[keep], e[keep], np.asarray(aux["bound"]).reshape(-1)[keep],
                                     np.asarray(aux["unrounded"]).reshape(-1)[keep], std)
    return Verdict(verdict.outcome, {**verdict.metrics, "not_judged": int(skip.sum())},
                   verdict.detail)


def _exact(actual, expected, aux, std):
    return compare_surface_exact(actual, expected, aux)


# the other answers a product's special-value model leaves open (oracle/surface.py device_choices)
CHOICES = {"flushed": "subnormal inputs or results read or written as zero",
           "saturated": "an infinite result saturated to the largest finite value, a NaN written as 0"}


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Equal in value, either zero for a zero, NaN for NaN (flat float64)."""
    return (a == b) | (np.isnan(a) & np.isnan(b))


def with_device_choices(compare_kind: Callable[..., Verdict]) -> Callable[..., Verdict]:
    """A comparison that sets aside the elements where the result is another answer the product's
    model leaves open (``aux['flushed']``, ``aux['saturated']``) and not the oracle's: judged as the
    oracle's, counted, named in a quality warning, and the device's choice recorded; a FAIL
    elsewhere stays a FAIL."""
    def compare_kind_with_choices(actual, expected, aux, std) -> Verdict:
        open_choices = [k for k in CHOICES if k in (aux or {})]
        if not open_choices:
            return compare_kind(actual, expected, aux, std)
        a = np.asarray(actual).astype(np.float64).reshape(-1)
        e = np.asarray(expected).astype(np.float64).reshape(-1)
        aside = np.zeros(a.shape, bool)
        made: dict[str, str] = {}
        counted: dict[str, int] = {}
        for choice in open_choices:
            other = np.asarray(aux[choice]).astype(np.float64).reshape(-1)
            differs = ~_same(other, e)
            taken = differs & _same(a, other) & ~_same(a, e) & ~aside   # each element to one choice
            counted[choice] = int(taken.sum())
            if differs.any():
                made[choice] = "taken" if taken.any() else "not taken"
            aside |= taken
        plain = compare_kind(actual, expected, aux, std)
        if plain.outcome == Outcome.PASS or not aside.any():   # nothing the choice alone decides
            return Verdict(plain.outcome, {**plain.metrics, "set_aside": {c: 0 for c in counted},
                                           "device_choice": made}, plain.detail)
        judged = np.where(aside, e, a).astype(np.asarray(actual).dtype).reshape(np.shape(actual))
        verdict = compare_kind(judged, expected, aux, std)
        metrics = {**verdict.metrics, "set_aside": counted, "device_choice": made}
        if verdict.outcome != Outcome.PASS:
            return Verdict(verdict.outcome, metrics, verdict.detail)
        named = "; ".join(f"{counted[c]} element(s): {CHOICES[c]}" for c in open_choices if counted[c])
        return Verdict(Outcome.QUALITY_WARNING, metrics,
                       "set aside, a choice the product's special-value model leaves open "
                       "(spec/special_values.py): " + named + " (first: " +
                       _first(np.flatnonzero(aside), np.asarray(actual).reshape(-1),
                              np.asarray(expected).reshape(-1)) + ")")
    return compare_kind_with_choices


COMPARERS: dict[str, Callable[..., Any]] = {
    "surface_exact": with_device_choices(_exact),
    "surface_rounded": with_device_choices(compare_surface_rounded),
    "surface_tolerance": with_device_choices(compare_surface_tolerance)}


def compare(std_name: str, actual: np.ndarray, expected: np.ndarray, aux: Mapping[str, Any]) -> Verdict:
    """The verdict of one of the surface's standards (by ``name@version``)."""
    std = standard(std_name)
    return COMPARERS[std.kind](actual, expected, aux or {}, std)


def compare_class(function_class: str, actual: np.ndarray, expected: np.ndarray,
                  aux: Mapping[str, Any]) -> Verdict:
    return compare(CLASS_STANDARD[function_class], actual, expected, aux)
