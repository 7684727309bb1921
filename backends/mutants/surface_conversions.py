"""Mutants and controls of a dtype conversion (an entry with a ``conversion`` block), each the bug a
real conversion kernel would have, killed on single calls:

- ``truncating``: float targets rounded toward zero instead of to the nearest, ties to even;
- ``half-away``: float targets rounded to the nearest with ties away from zero;
- ``saturating-overflow``: a finite value beyond the target's range written as its largest finite
  value where infinity is due (killed on the products whose model gives infinity);
- ``double-rounding``: a FLOAT source rounded to FLOAT16 first and then to a BF16 target (a route
  through an intermediate type where one rounding is due);
- ``integer-saturation``: an integer beyond a narrower integer target clamped to its bounds where
  the two's-complement wrap is due (killed on the products the entry's ``wrap_products`` name);
- the surface's own: ``dtype-missing``, ``nan`` (NaN results written as 0), ``ulp-bias``,
  ``flush`` (subnormal results flushed, on the products whose model keeps subnormals).

Controls (correct conversions computed another way, clean): ``fractions-control`` (each element
rounded with Python's ``fractions``, integers wrapped by Python's modulo, the open elements given
the other answer a device may give: a float beyond an integer's range saturated, NaN as 0, a
double rounding through FLOAT), and
``library-control`` (NumPy's and ml_dtypes' own casts, where they round once), and the surface's
``flush-to-zero-control``.
"""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (FlushMutant, NanMutant, SurfaceBackend,
                                                              UlpBiasMutant, has_subnormal,
                                                              sample_dtype_missing, _is_float, _make)
from aclnn_conformance.oracle.surface_conversions import RNA, RZ, float_format, round_float, to_float
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry

_BF16 = np.dtype(ml_dtypes.bfloat16)


def _source(case: Case, entry) -> np.ndarray:
    return np.asarray(case.tensor(entry.raw["conversion"]["input"]).values())


class RoundingMutant(SurfaceBackend):
    """Float targets rounded in another mode than to the nearest, ties to even."""

    mode = RZ

    def change(self, case, expected, aux):
        src = _source(case, self.entry())
        if not _is_float(expected.dtype) or src.dtype == np.bool_:
            return expected
        with np.errstate(over="ignore"):
            return to_float(src, expected.dtype, self.mode).astype(expected.dtype).reshape(expected.shape)


class SaturatingOverflowMutant(SurfaceBackend):
    """A finite source beyond a float target's range written as the largest finite value."""

    def change(self, case, expected, aux):
        src = _source(case, self.entry())
        if not _is_float(expected.dtype) or src.dtype == np.bool_:
            return expected
        wide, top = expected.astype(np.float64), float_format(expected.dtype).largest
        finite_source = np.isfinite(src.astype(np.float64)).reshape(wide.shape)
        over = np.isinf(wide) & finite_source
        return np.where(over, np.copysign(top, wide), wide).astype(expected.dtype)


class DoubleRoundingMutant(SurfaceBackend):
    """A FLOAT source rounded to FLOAT16 and then to a BF16 target."""

    def change(self, case, expected, aux):
        src = _source(case, self.entry())
        if src.dtype != np.float32 or expected.dtype != _BF16:
            return expected
        with np.errstate(over="ignore"):
            first = round_float(src.astype(np.float64), float_format(np.dtype(np.float16)))
            return round_float(first, float_format(_BF16)).astype(_BF16).reshape(expected.shape)


class IntegerSaturationMutant(SurfaceBackend):
    """An integer beyond a narrower integer target clamped to the target's bounds."""

    def change(self, case, expected, aux):
        src = _source(case, self.entry())
        if src.dtype.kind not in "iu" or expected.dtype.kind not in "iu":
            return expected
        info = np.iinfo(expected.dtype)
        big = src.astype(object).reshape(expected.shape)
        clamped = [min(max(int(v), int(info.min)), int(info.max)) for v in big.reshape(-1)]
        return np.array(clamped, dtype=object).astype(expected.dtype).reshape(expected.shape)


def _fraction_round(value: Fraction, precision: int, emin: int, largest: float) -> float:
    """``value`` rounded to nearest, ties to even, to a format of ``precision`` bits."""
    if value == 0:
        return 0.0
    sign, a = (-1 if value < 0 else 1), abs(value)
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if Fraction(2) ** e > a:
        e -= 1
    if Fraction(2) ** (e + 1) <= a:
        e += 1
    quantum = Fraction(2) ** (max(e, emin) - (precision - 1))
    q, rem = divmod(a, quantum)
    if rem * 2 > quantum or (rem * 2 == quantum and q % 2 == 1):
        q += 1
    r = float(q * quantum)
    return sign * (r if r <= largest else float("inf"))


class FractionsControl(SurfaceBackend):
    """Each element converted with Python's fractions and integers; an element the model leaves
    open given another answer a correct device may give."""

    def change(self, case, expected, aux):
        entry = self.entry()
        src = _source(case, entry).reshape(-1)
        target = expected.dtype
        open_ = np.asarray(aux.get("unjudged", np.zeros(expected.shape, bool))).reshape(-1)
        fmt = float_format(target)
        out = []
        for v, is_open in zip(src.tolist(), open_):
            if target == np.bool_:
                out.append(bool(v != 0))
            elif fmt is not None:
                if isinstance(v, float) and not np.isfinite(v):
                    out.append(v)
                    continue
                exact = Fraction(v)
                got = _fraction_round(exact, fmt.precision, fmt.emin, fmt.largest)
                if is_open:    # the double rounding through FLOAT a route may take
                    f32 = float_format(np.dtype(np.float32))
                    got = _fraction_round(Fraction(_fraction_round(exact, f32.precision, f32.emin,
                                                                   f32.largest)),
                                          fmt.precision, fmt.emin, fmt.largest)
                out.append(-0.0 if got == 0 and isinstance(v, float) and np.copysign(1, v) < 0 else got)
            else:
                info = np.iinfo(target)
                if isinstance(v, float):
                    n = 0 if v != v else (int(info.max) if v > 0 else int(info.min)) if is_open \
                        else int(v)    # int() truncates toward zero
                    n = min(max(n, int(info.min)), int(info.max))
                else:
                    n = int(v) % (1 << (8 * target.itemsize))   # two's complement
                    n = n - (1 << (8 * target.itemsize)) if info.min < 0 and n > info.max else n
                out.append(n)
        with np.errstate(over="ignore"):
            return np.array(out, dtype=object if fmt is None else np.float64).astype(target) \
                .reshape(expected.shape)


class LibraryControl(SurfaceBackend):
    """NumPy's and ml_dtypes' casts where they round once: float sources to float targets through
    NumPy's float64 casts (fp16 and float32 directly; bf16 from a source of at most 16 significant
    bits), integers as NumPy wraps them, floats truncated by NumPy; the rest as the oracle gives."""

    def change(self, case, expected, aux):
        src = _source(case, self.entry())
        target = expected.dtype
        open_ = np.asarray(aux.get("unjudged", np.zeros(expected.shape, bool)))
        with np.errstate(all="ignore"):
            if target in (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)) \
                    and src.dtype.kind == "f":
                got = src.astype(np.float64).astype(target)
            elif target == _BF16 and src.dtype in (np.dtype(np.float16), _BF16, np.dtype(np.float32)):
                got = src.astype(target)     # ml_dtypes rounds a float32 value once
            elif target.kind in "iu" and src.dtype.kind in "iu":
                got = src.astype(target)
            else:
                return expected
        got = got.reshape(expected.shape)
        return np.where(open_.reshape(expected.shape), expected, got).astype(target)


def conversion_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case],
                          flush_control: type) -> MutantSet:
    """The generated mutants and controls of a conversion entry (``flush_control``: the surface's
    flush-to-zero control class)."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    float_out = [o for o in outputs if _is_float(o.dtype)]
    mutants = [
        sample_dtype_missing(entry, key, rule),
        _make(RoundingMutant, entry, key, "truncating", "float targets rounded toward zero", rule, mode=RZ),
        _make(RoundingMutant, entry, key, "half-away", "float targets rounded to nearest, ties away "
              "from zero", rule, mode=RNA),
        _make(SaturatingOverflowMutant, entry, key, "saturating-overflow", "a finite value beyond a "
              "float target's range written as the largest finite value where infinity is due", rule),
        _make(DoubleRoundingMutant, entry, key, "double-rounding", "FLOAT to BF16 rounded through "
              "FLOAT16", rule),
        _make(IntegerSaturationMutant, entry, key, "integer-saturation", "integers beyond a narrower "
              "integer target clamped where the wrap is due", rule),
        _make(UlpBiasMutant, entry, key, "ulp-bias", "every float result one ulp up", rule)]
    if any(np.isnan(o.astype(np.float64)).any() for o in float_out):
        mutants.append(_make(NanMutant, entry, key, "nan", "NaN results written as 0", rule))
    if any(has_subnormal(o) for o in float_out):
        mutants.append(_make(FlushMutant, entry, key, "flush", "subnormal results flushed to zero", rule))
    controls = [
        _make(FractionsControl, entry, key, "fractions-control", "each element converted with "
              "Python's fractions, the open elements given another correct device's answer", ()),
        _make(LibraryControl, entry, key, "library-control", "NumPy's and ml_dtypes' own casts "
              "where they round once", ()),
        _make(flush_control, entry, key, "flush-to-zero-control",
              "subnormal inputs and results read and written as zero", ())]
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
