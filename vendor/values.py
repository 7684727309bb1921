"""Value recipes: how the vendor's files describe a tensor's values (a range, a number, inf, nan, a
distribution, an exact list), and the seeded draw that turns one into a storage.

A recipe is plain JSON, kept in the case file, so a case file without its storages still rebuilds
the same values: the draw of tensor ``index`` of a case uses ``default_rng([seed, index])``.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

import numpy as np

from aclnn_conformance.spec.dtypes import NUMPY_DTYPE, numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc

INTEGER_TYPES = frozenset({AclDataType.INT8, AclDataType.UINT8, AclDataType.INT16, AclDataType.UINT16,
                           AclDataType.INT32, AclDataType.UINT32, AclDataType.INT64,
                           AclDataType.UINT64, AclDataType.INT4})
SPECIAL_NUMBERS = {"inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "nan": math.nan,
                   "-nan": math.nan}


class RecipeError(ValueError):
    """A value description the draw cannot use (the message is one line)."""


def seed_of(source: str) -> int:
    """A stable 32-bit seed for a case, from its vendor source."""
    return zlib.crc32(source.encode("utf-8"))


def uniform(lo: float, hi: float) -> dict[str, Any]:
    return {"kind": "uniform", "lo": lo, "hi": hi}


def constant(value: Any) -> dict[str, Any]:
    return {"kind": "constant", "value": value}


def exact(values: list) -> dict[str, Any]:
    return {"kind": "values", "values": list(values)}


def number(value: Any) -> float:
    """A recipe number: a JSON number, or 'inf', '-inf', 'nan' as the vendor's files write them."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str) and value.strip().lower() in SPECIAL_NUMBERS:
        return SPECIAL_NUMBERS[value.strip().lower()]
    raise RecipeError(f"not a number: {value!r}")


def _draw_flat(recipe: Mapping[str, Any], count: int, dtype: AclDataType,
               rng: np.random.Generator) -> np.ndarray:
    kind = recipe.get("kind")
    if kind == "uniform":
        lo, hi = number(recipe["lo"]), number(recipe["hi"])
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RecipeError(f"a range needs finite ends, not [{recipe['lo']}, {recipe['hi']}]")
        lo, hi = min(lo, hi), max(lo, hi)
        if dtype == AclDataType.BOOL:
            return rng.integers(0, 2, count).astype(bool)
        if dtype in INTEGER_TYPES:   # ends clipped to int64's (a range may reach 2^63 as a float)
            low, high = max(math.ceil(lo), -2 ** 63), min(math.floor(hi), 2 ** 63 - 1)
            return rng.integers(low, high, count, dtype=np.int64, endpoint=True)
        return rng.uniform(lo, hi, count)
    if kind == "constant":
        return np.full(count, number(recipe["value"]))
    if kind == "normal":
        mean, std = (_parameter(recipe[k], rng) for k in ("mean", "std"))
        return rng.normal(mean, std, count)
    if kind == "values":
        values = np.asarray([number(v) for v in recipe["values"]], dtype=np.float64)
        if values.size == 0:
            return np.zeros(count)
        return np.resize(values, count)
    if kind == "choice":
        values = np.asarray([number(v) for v in recipe["values"]], dtype=np.float64)
        return rng.choice(values, count)
    raise RecipeError(f"unknown value recipe {recipe!r}")


def _parameter(value: Any, rng: np.random.Generator) -> float:
    """A distribution's parameter: a number, or a ``[lo, hi]`` range it is drawn from first."""
    if isinstance(value, (list, tuple)) and len(value) == 2:
        lo, hi = sorted(number(v) for v in value)
        return float(rng.uniform(lo, hi))
    return number(value)


def draw_storage(desc: TensorDesc, recipe: Mapping[str, Any], seed: int, index: int) -> TensorArg:
    """A tensor of ``desc`` whose whole storage is drawn from ``recipe`` (reproducible)."""
    count = max(desc.extent(), desc.storage_numel, 0)
    rng = np.random.default_rng([seed & 0xFFFFFFFF, index])
    if desc.dtype not in NUMPY_DTYPE:     # UNDEFINED, STRING, UINT1, COMPLEX32: no element to draw
        return TensorArg(desc, np.zeros(count, np.uint8))   # raw codes, as the call layer carries them
    raw = _draw_flat(recipe, count, desc.dtype, rng)
    target = numpy_dtype(desc.dtype)
    with np.errstate(all="ignore"):
        if desc.dtype in INTEGER_TYPES:
            info = np.iinfo(np.int8 if desc.dtype == AclDataType.INT4 else target)
            lo, hi = (-8, 7) if desc.dtype == AclDataType.INT4 else (info.min, info.max)
            raw = np.clip(np.nan_to_num(np.asarray(raw, dtype=np.float64)), lo, hi)
        storage = np.asarray(raw).astype(target)
    return TensorArg(desc, storage)


def draw_scalar(recipe: Mapping[str, Any], kind: str, seed: int, index: int) -> Any:
    """One attribute value drawn from ``recipe``: ``kind`` is float32, float64, int or bool."""
    rng = np.random.default_rng([seed & 0xFFFFFFFF, index])
    if recipe.get("kind") == "constant" and isinstance(recipe["value"], bool):
        return bool(recipe["value"])
    if kind == "bool":
        if recipe.get("kind") == "uniform":
            return bool(rng.integers(0, 2))
        return bool(number(recipe.get("value", recipe.get("values", [0])[0] if recipe.get("values") else 0)))
    value = float(_draw_flat(recipe, 1, AclDataType.INT64 if kind == "int" else AclDataType.DOUBLE,
                             rng)[0])
    if kind == "int":
        return int(value)
    if kind == "float32":
        return float(np.float32(value))
    return value


@dataclass(frozen=True)
class Span:
    """The values a draw from a recipe can give: every value of the closed interval [lo, hi] (an
    end may be infinite: a normal draw's support is the whole line, and its cast to a narrow type
    may overflow), or exactly ``points`` when there are some."""

    lo: float = -math.inf
    hi: float = math.inf
    points: tuple[Any, ...] = ()

    def describe(self) -> str:
        if self.points:
            return "{" + ", ".join(str(v) for v in self.points) + "}"
        return f"[{self.lo:g}, {self.hi:g}]"


def span_of(recipe: Mapping[str, Any], kind: str) -> Span:
    """What ``draw_scalar(recipe, kind, ...)`` can give, whatever the seed."""
    name = recipe.get("kind")
    if name == "constant":
        return Span(points=(recipe["value"],))
    if kind == "bool" and name == "uniform":
        return Span(points=(False, True))
    if name in ("choice", "values"):
        return Span(points=tuple(number(v) for v in recipe["values"]))
    if name == "uniform":
        lo, hi = sorted((number(recipe["lo"]), number(recipe["hi"])))
        return Span(math.ceil(lo), math.floor(hi)) if kind == "int" else Span(lo, hi)
    if name == "normal":
        return Span()
    raise RecipeError(f"unknown value recipe {recipe!r}")


def span_points(span: Span, constants: Iterable[float]) -> list[Any]:
    """Values of ``span`` at which a comparison with any of ``constants`` takes every answer it can
    take over the span: its ends (the values below or above a constant, when there are some),
    each constant inside, and a finite value inside (an infinite end is not the span's only value).
    A conversion the argument goes through first (a float32 or float16 rounding, an integer
    truncation) keeps the order, so the held values of the ends bound the held values of the span."""
    if span.points:
        return list(span.points)
    inside = [c for c in constants if span.lo <= c <= span.hi]
    if span.lo == span.hi:
        middle = []
    elif math.isfinite(span.lo) and math.isfinite(span.hi):
        middle = [(span.lo + span.hi) / 2]
    elif math.isfinite(span.lo) or math.isfinite(span.hi):
        middle = [span.lo + 1 if math.isfinite(span.lo) else span.hi - 1]
    else:
        middle = [0.0]
    return list(dict.fromkeys([span.lo, span.hi, *inside, *middle]))
