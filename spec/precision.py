"""Precision standards: named, versioned data, and the comparison each one defines; and the
arithmetic model the model-derived standards come from.

Every outcome record names the standard and version it was judged by (``name@version``). A standard
returns PASS inside its warning band, QUALITY_WARNING between the warning and the error band, FAIL
beyond. Every version stays in the registry, so that old records can still be read against the
standard they name; ``standard(name)`` without a version is the newest.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.outcome import Outcome


@dataclass(frozen=True)
class Standard:
    name: str
    version: str
    kind: str                     # bit_exact | quant_code(_envelope) | float_ulp | model_bound | model_envelope | mere_mare | trajectory
    description: str
    limits: Mapping[str, Mapping[str, float]] = field(default_factory=dict)  # dtype -> limit name -> value
    source: str = ""

    def limit(self, dtype_name: str, key: str) -> float:
        try:
            return self.limits[dtype_name][key]
        except KeyError:
            raise KeyError(f"standard {self.name} v{self.version} has no {key!r} for {dtype_name}") from None


# ---- the arithmetic model ----

@dataclass(frozen=True)
class ArithmeticModel:
    """What a correct implementation of one operator may and may not do to its arithmetic.

    The model-derived standards (``model-bound@2``, ``quant-code@3``) accept exactly the results of
    implementations inside it: the oracle derives, for each call, the envelope of every result such
    an implementation can return (the operator's own oracle module says how).
    """
    operator: str
    version: str
    order: str                                # the evaluation order every implementation keeps
    correctly_rounded: tuple[str, ...]        # float32 operations rounded to nearest even
    faithful: tuple[str, ...]                 # operations that may return either neighbour of the exact result
    reciprocal_division: bool                 # a / b may be computed as a * (1 / b), 1 / b faithful
    fused_multiply_add: bool                  # a * b + c may be fused (one rounding) or not
    final_cast: Mapping[str, Mapping[str, str]]   # product -> var dtype -> the one cast's rounding mode
    may: tuple[str, ...]
    may_not: tuple[str, ...]
    source: str = ""
    # operations that may return the correctly rounded result or either of its neighbours, also
    # where the exact result is representable (the vendor's documented error of 1 ulp)
    within_one_ulp: tuple[str, ...] = ()

    def cast_mode(self, product: str, dtype_name: str) -> str:
        try:
            return self.final_cast[product][dtype_name]
        except KeyError:
            raise KeyError(f"arithmetic model of {self.operator} has no final cast for {dtype_name} "
                           f"on {product}") from None


ROUND_NEAREST_EVEN = "round-to-nearest-even"
ROUND_EITHER_TIE = "round-to-nearest, either neighbour at an exact tie"
# the final casts of a kernel that rounds fp16 and bf16 to nearest even (float32: no cast)
RNE_CASTS = {"float32": "none", "float16": ROUND_NEAREST_EVEN, "bfloat16": ROUND_NEAREST_EVEN}



def cast_ties(model: ArithmeticModel, product: str, dtype_name: str) -> str:
    """The tie rule of an operator's final cast to ``dtype_name`` on ``product`` under its
    arithmetic ``model``: "even", or "either" where the model leaves the tie direction open."""
    mode = model.cast_mode(product, dtype_name)
    return "either" if mode == ROUND_EITHER_TIE else "even"


STANDARDS: dict[str, Standard] = {f"{s.name}@{s.version}": s for s in (
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
             "from the operator's arithmetic model (its record's arithmetic_model): |actual - expected| "
             "<= bound element by element, where expected is the oracle's result in the output "
             "dtype; NaN and Inf must sit where the oracle has them, with the same sign."),
    Standard("model-bound", "2", "model_envelope",
             "Floating outputs judged against the operator's arithmetic model (its record's "
             "arithmetic_model): the oracle derives, for this very call, the interval of float32 results "
             "that any implementation inside the model can return, by interval forward error "
             "analysis of the formula in its order (correctly rounded add/multiply, faithful "
             "sqrt/pow/divide, reciprocal division, fused or unfused multiply-adds), so that "
             "cancellation and 1 - beta^t near 0 widen it exactly where they occur. Per element: "
             "float32 outputs within `bound` of the oracle; fp16/bf16 outputs equal to the "
             "model's cast (round-to-nearest-even) of the oracle's float32 result, the other "
             "neighbour accepted only where that float32 result lies within its bound of a "
             "rounding midpoint. Bias: the mean signed error in units of the per-element bound "
             "(elements with a non-zero bound) stays within c + (1 - c)*`bias_share` + "
             "`bias_spread`/sqrt(n), c the mean share of the bound that the per-call scalars "
             "(beta^t, step_size, eps*c2) account for, which one choice of theirs moves alike on "
             "every element, n the number of distinct evaluations (elements with equal inputs "
             "count once): rounding directions that depend on the data spread around 0, a "
             "systematic one-ulp shift does not. NaN and Inf must sit where the oracle has them, "
             "with the same sign.",
             {"any": {"bias_share": 0.25, "bias_spread": 2.5}},
             "the operator's arithmetic model; the notes on the 8-bit AdamW step, section 11 "
             "(code ties)"),
    Standard("model-bound", "3", "model_envelope",
             "Floating outputs judged against the arithmetic model of the operator on the product "
             "(the operator's arithmetic model: its order, faithful sqrt/pow/divide, reciprocal division, fused or "
             "unfused multiply-adds, and the final cast's rounding mode per product). The oracle "
             "derives for this very call, per element, the bound of the float32 result u' any "
             "implementation inside the model can compute around the oracle's float32 result u, "
             "and the part of that bound that can lean one way on every element (`lean`: the per-call "
             "scalars' sets of model values, a faithful operation's choice of neighbour, the tie "
             "direction the model leaves open). Per element: float32 outputs within the bound of "
             "u; fp16/bf16 outputs equal to the model's cast of u on the product (round-to-nearest-"
             "even, or either neighbour at an exact tie where the model leaves the tie open), or "
             "the cast of some value within the bound of u. Bias: the mean signed error in units "
             "of the per-element bound (float32; plus one output ulp for fp16/bf16) over elements "
             "with a non-zero unit stays within L + `bias_spread`/sqrt(n), L the mean share of "
             "the unit that `lean` accounts for and n the number of distinct evaluations "
             "(elements with equal inputs count once): every other error of a correct "
             "implementation comes from round-to-nearest steps whose sign follows the data, so "
             "their mean, each term within +-1 unit, stays within `bias_spread`/sqrt(n) "
             "(Hoeffding). A shift of two float32 ulps on every var element fails it. NaN and "
             "Inf must sit where the oracle has them, with the same sign.",
             {"any": {"bias_share": 0.0, "bias_spread": 2.5}},
             "the operator's arithmetic model; the envelope its oracle adapter (from_case) derives"),
    Standard("quant-code", "3", "quant_code_envelope",
             "8-bit state codes judged against the arithmetic model: a code is right if it is "
             "the nearest qmap entry (lower index on an exact tie, sign fix as the golden) of "
             "some x within the model's envelope of the quantized value x = state/absmax that "
             "the oracle derives for this call; where the envelope shows x exact (a single "
             "value), the tie direction is judged. Equal map entries are interchangeable; in a "
             "block whose absmax is 0 any code is accepted (it dequantizes to 0).",
             source="the operator's arithmetic model"),
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

from aclnn_conformance.spec.standards_surface import register as _register_surface  # noqa: E402
_register_surface(STANDARDS, Standard)  # the elementwise surface's standards, one per function class


def _version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


LATEST: dict[str, str] = {}
for _std in STANDARDS.values():
    if _std.name not in LATEST or (_version_key(_std.version)
                                   > _version_key(STANDARDS[LATEST[_std.name]].version)):
        LATEST[_std.name] = f"{_std.name}@{_std.version}"


def standard(name: str) -> Standard:
    """A standard by ``name@version``, or by ``name`` alone: its newest version."""
    key = name if "@" in name else LATEST.get(name, name)
    try:
        return STANDARDS[key]
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
        return Verdict(Outcome.FAIL, {"size": int(a.size), "expected_size": int(e.size)},
                       f"size {a.size} bytes, expected {e.size}")
    bad = np.flatnonzero(a != e)
    item = max(np.asarray(actual).dtype.itemsize, 1)
    elems = np.unique(bad // item)
    flat_a, flat_e = np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)
    return Verdict(Outcome.FAIL if bad.size else Outcome.PASS, {"mismatched": int(elems.size)},
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
        return Verdict(Outcome.FAIL, metrics, f"beyond {err:g} ulp: " + _first(
            bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict(Outcome.PASS if max_ulp <= warn else Outcome.QUALITY_WARNING, metrics)


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
        return Verdict(Outcome.FAIL, metrics, "beyond the model's bound: " + _first(
            bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    return Verdict(Outcome.PASS, metrics)


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
        return Verdict(Outcome.FAIL, metrics, f"MERE {mere:.3g} (limit {t:.3g}), MARE {mare:.3g} "
                                        f"(limit {10 * t:.3g})")
    warn = mere < t / 2 and mare < 5 * t
    return Verdict(Outcome.PASS if warn else Outcome.QUALITY_WARNING, metrics)


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
        return Verdict(Outcome.FAIL, metrics, "codes " + _first(bad, a, e))
    return Verdict(Outcome.PASS, metrics)


def _step_toward_zero(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Distance from each value of ``dtype`` (as float64) to its neighbour nearer to zero (the
    spacing halves below a power of two; zero itself: the smallest subnormal)."""
    finfo = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    spacing = _ulp(x, dtype)
    ax = np.abs(x)
    power_of_two = (ax > float(finfo.smallest_normal)) & (np.exp2(np.floor(np.log2(
        np.where(ax > 0, ax, 1.0)))) == ax)
    return np.where(power_of_two, spacing / 2, spacing)


def _signed_bias(err: np.ndarray, unit: np.ndarray, shared: np.ndarray, evaluation: np.ndarray,
                 std: Standard) -> tuple[float, float, int]:
    """(mean of err/unit over elements with a non-zero unit, its limit, the number of independent
    evaluations among them). ``shared``: per element the part of the unit that one per-call choice
    (a scalar) moves alike on every element, allowed to lean one way in full; ``evaluation``: equal
    labels for elements computed from equal inputs (they lean alike and count once)."""
    use = unit > 0
    if not use.any():
        return 0.0, 0.0, 0
    n = int(np.unique(evaluation[use]).size)
    mean = float((err[use] / unit[use]).mean())
    common = float((shared[use] / unit[use]).mean())
    share, spread = std.limits["any"]["bias_share"], std.limits["any"]["bias_spread"]
    return mean, common + (1.0 - common) * share + spread / np.sqrt(n), n


def _cast_ties_away(u: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """float64 values of float32 ``u`` rounded to ``dtype`` to nearest, ties away from zero."""
    with np.errstate(all="ignore"):
        x = u.astype(np.float32).astype(np.float64)
        even = x.astype(np.float32).astype(dtype)
        e64 = even.astype(np.float64)
        other = np.nextafter(even, np.where(x > e64, np.inf, -np.inf).astype(dtype)).astype(np.float64)
        tie = (x != e64) & (np.abs(x - e64) == np.abs(other - x)) & (np.abs(other) > np.abs(e64))
        return np.where(tie, other, e64)


def compare_model_envelope(actual: np.ndarray, expected: np.ndarray, bound: np.ndarray,
                           unrounded: np.ndarray | None, std: Standard,
                           scalar_share: np.ndarray | None = None,
                           evaluation: np.ndarray | None = None, ties: str = "even") -> Verdict:
    """``bound``: per element, the largest |r - u| of a float32 result r that an implementation
    inside the arithmetic model can compute, u the oracle's float32 result (``unrounded``; for a
    float32 output ``expected`` itself) before the cast to the output dtype. float64, the shape of
    ``expected``. ``scalar_share``: the part of each bound that per-call scalars account for (0
    when absent); ``evaluation``: equal labels for elements computed from equal inputs (every
    element its own when absent); ``ties``: the final cast's tie rule, "even" (round-to-nearest-
    even) or "either" (a tie the model leaves open: both neighbours of an exact tie accepted)."""
    dt = np.asarray(expected).dtype
    a = np.asarray(actual).astype(np.float64).reshape(-1)
    e = np.asarray(expected).astype(np.float64).reshape(-1)
    b = np.asarray(bound, dtype=np.float64).reshape(-1)
    u = e if unrounded is None else np.asarray(unrounded).astype(np.float64).reshape(-1)
    special = ~np.isfinite(a) | ~np.isfinite(e)
    special_bad = special & ~((a == e) | (np.isnan(a) & np.isnan(e)))
    f = ~special
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.where(f, a - e, 0.0)
        if dt == np.dtype(np.float32):
            inside = np.abs(err) <= b
            unit = np.where(f, b, 0.0)
        else:
            # a is the RNE cast of every y in [a - below/2, a + above/2]; accepted when that meets
            # [u - b, u + b], b > 0 (b = 0: the cast of u itself, ties to even included)
            toward_zero = _step_toward_zero(a, dt)
            away = _ulp(a, dt)
            below = np.where(a > 0, toward_zero, away)
            above = np.where(a > 0, away, toward_zero)
            reach = (b > 0) & (u + b >= a - below / 2) & (u - b <= a + above / 2)
            inside = (a == e) | reach
            if ties == "either":
                inside |= (b == 0) & (a == _cast_ties_away(u, dt))
            unit = np.where(f, b + _ulp(e, dt), 0.0)
    over = f & ~inside
    with np.errstate(divide="ignore", invalid="ignore"):
        used = np.where(unit[f] > 0, np.abs(err[f]) / unit[f], np.where(err[f] != 0, np.inf, 0.0))
    shared = np.zeros_like(b) if scalar_share is None else np.asarray(scalar_share, np.float64).reshape(-1)
    labels = (np.arange(b.size) if evaluation is None else np.asarray(evaluation).reshape(-1))
    mean, limit, n = _signed_bias(err[f], unit[f], np.minimum(shared[f], unit[f]), labels[f], std)
    metrics = {"max_bound_fraction": float(used.max()) if used.size else 0.0,
               "beyond_bound": int(over.sum()), "nan_inf_mismatched": int(special_bad.sum()),
               "mean_signed_error": mean, "bias_limit": float(limit), "bias_elements": n}
    bad = np.flatnonzero(over | special_bad)
    if bad.size:
        return Verdict(Outcome.FAIL, metrics, "beyond the model's envelope: " + _first(
            bad, np.asarray(actual).reshape(-1), np.asarray(expected).reshape(-1)))
    if abs(mean) > limit:
        return Verdict(Outcome.FAIL, metrics, f"systematic error: mean signed error {mean:+.3g} of the "
                                        f"per-element bound over {n} elements (limit {limit:.3g})")
    return Verdict(Outcome.PASS, metrics)


def compare_quant_code_envelope(actual: np.ndarray, expected: np.ndarray, qmap: np.ndarray,
                                zero_block: np.ndarray, code_lo: np.ndarray, code_hi: np.ndarray,
                                std: Standard) -> Verdict:
    """``code_lo``/``code_hi``: per element, the codes of the lowest and the highest x in the model's
    envelope of the quantized value (equal to the expected code where x is exact); for a strictly
    ascending map every code between them is the nearest code of some x in the envelope."""
    a = np.asarray(actual, dtype=np.uint8).reshape(-1).astype(np.intp)
    e = np.asarray(expected, dtype=np.uint8).reshape(-1).astype(np.intp)
    lo = np.asarray(code_lo, dtype=np.uint8).reshape(-1).astype(np.intp)
    hi = np.asarray(code_hi, dtype=np.uint8).reshape(-1).astype(np.intp)
    q = np.asarray(qmap, dtype=np.float32).reshape(-1).astype(np.float64)
    diff = a != e
    ascending = bool(np.isfinite(q).all() and (np.diff(q) > 0).all())
    in_envelope = ((lo <= a) & (a <= hi)) if ascending else ((a == lo) | (a == hi))
    same_value = q[a] == q[e]
    zero_ok = zero_block & np.isfinite(q[a])
    accepted = diff & (in_envelope | same_value | zero_ok)
    bad = np.flatnonzero(diff & ~accepted)
    metrics = {"mismatched": int(bad.size),
               "envelope_codes_accepted": int((accepted & ~zero_ok).sum()),
               "zero_block_codes_accepted": int((diff & zero_ok).sum()),
               "exact_x": int((lo == hi).sum())}
    if bad.size:
        return Verdict(Outcome.FAIL, metrics, "codes " + _first(bad, a, e))
    return Verdict(Outcome.PASS, metrics)
