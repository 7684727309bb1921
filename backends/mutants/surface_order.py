"""Mutants and controls of the sorting positions (oracle/surface_order.py), generated from the entry,
each mutant killed on a single call:

- ``promotion`` (the input rounded through a narrower dtype: a near tie collapses and the stable
  order of the tie is written), ``dtype-missing``;
- ``attribute-ignored``: every call sorted ascending, whatever the direction attribute says;
- ``ranks-written``: each element's rank written where the sorting position is due (the inverse
  permutation);
- ``wrong-axis``: the slices sorted along another dim of the same size;
- ``one-based-index``: the positions counted from 1.

Controls: ``reversed-ties-control`` (tied elements in the other order, as an unstable sort may give
them) and ``nan-first-control`` (NaN sorted before every number), which differ only where no
document fixes the answer.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (AttributeIgnoredMutant, PromotionMutant,
                                                              SurfaceBackend, sample_dtype_missing,
                                                              _is_float, _make)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry


class OrderBackend(SurfaceBackend):
    """The positions ``positions(x, axis, descending)`` of the call's input along its dim."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        red = self.entry().reduction
        src = case.tensor(red["input"])
        x = np.asarray(src.values()).reshape(tuple(src.desc.shape))
        x = x.reshape((1,)) if x.ndim == 0 else x
        axes = reduced_axes(case, self.entry())
        return self.positions(x, axes[0] if axes else 0, bool(case.attrs.get(red.get("descending"))))

    def positions(self, x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
        from aclnn_conformance.oracle.surface_order import order
        return order(x, axis, descending)[0]


class RanksWrittenMutant(OrderBackend):
    def positions(self, x, axis, descending):
        found = super().positions(x, axis, descending)
        return np.argsort(found, axis=axis, kind="stable")   # the inverse permutation: each element's rank


class WrongAxisOrder(OrderBackend):
    def positions(self, x, axis, descending):
        other = next((a for a in range(x.ndim) if a != axis and x.shape[a] == x.shape[axis]), axis)
        return super().positions(x, other, descending)


class OneBasedOrder(OrderBackend):
    def positions(self, x, axis, descending):
        return super().positions(x, axis, descending) + 1


class ReversedTiesControl(OrderBackend):
    """Ties in the other order: the stable order of the reversed slice, mapped back."""

    def positions(self, x, axis, descending):
        n = x.shape[axis]
        flipped = super().positions(np.flip(x, axis), axis, descending)
        return n - 1 - flipped


class NanFirstControl(OrderBackend):
    """NaN sorted before every number (after it for a descending call): read as -inf."""

    def positions(self, x, axis, descending):
        if not _is_float(x.dtype):
            return super().positions(x, axis, descending)
        wide = x.astype(np.float64)
        return super().positions(np.where(np.isnan(wide), -np.inf, wide), axis, descending)


def order_mutant_set(key: str, cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a sorting-positions entry."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    mutants = [
        _make(PromotionMutant, entry, key, "promotion", "sorts a wrongly promoted (narrower) input", rule),
        sample_dtype_missing(entry, key, rule),
        _make(RanksWrittenMutant, entry, key, "ranks-written", "each element's rank written where its "
              "sorting position is due", rule),
        _make(WrongAxisOrder, entry, key, "wrong-axis", "the slices sorted along another dim of the same size", rule),
        _make(OneBasedOrder, entry, key, "one-based-index", "the positions counted from 1", rule)]
    if entry.sample.get("attr_variants"):
        mutants.append(_make(AttributeIgnoredMutant, entry, key, "attribute-ignored",
                             f"sorts every call with {entry.sample['attrs']}, whatever it gives", rule))
    controls = [
        _make(ReversedTiesControl, entry, key, "reversed-ties-control", "tied elements in the other order", ()),
        _make(NanFirstControl, entry, key, "nan-first-control", "NaN sorted before every number", ())]
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
