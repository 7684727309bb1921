"""Mutants and controls of the running extremes (oracle/surface_running.py), generated from the entry:
each writes both outputs (the values and the positions), each mutant killed on a single call.

Mutants: ``promotion`` (the input rounded through a narrower dtype), ``dtype-missing``, ``ulp-bias``
(the values one ulp up), ``flush`` (subnormal values flushed), and the bugs a scan kernel would have:
``window-one-short`` (element i given the extreme of 0..i-1: an off-by-one running window),
``reversed-scan`` (the extreme of i..n-1: the scan run from the slice's end), ``wrong-axis`` (the scan
along another dim of the same size), ``one-based-index`` (the positions counted from 1, as the
document's formula numbers the elements), ``other-extreme`` (the minimum for a maximum).
Controls: ``last-of-ties-control`` (a tie's last position, as torch gives), ``nan-ignoring-control``
(NaN never taken as the extreme), ``zero-sign-control`` (zero values of the other sign).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (PROFILE, SurfaceBackend, has_subnormal,
                                                              one_ulp_up, sample_dtype_missing,
                                                              _is_float, _make, _through)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry

OTHER = {"prefix-max": "prefix-min", "prefix-min": "prefix-max"}


class RunningBackend(SurfaceBackend):
    """Status from the spec; on a judged success, both outputs as ``outputs(case)`` gives them."""

    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        """Every output by name: the oracle's, then ``adjust``."""
        return self.computed(case, case.tensor(self.entry().reduction["input"]).values(), None, None)

    # ---- helpers ----

    def roles(self) -> tuple[str, str]:
        """(values output, positions output)."""
        red = self.entry().reduction
        values = red["outputs"][red["kind"]]
        return values, next(n for r, n in red["outputs"].items() if r != red["kind"])

    def computed(self, case: Case, x: Any, axis: int | None, kind: str | None) -> dict[str, np.ndarray]:
        """Both outputs of the running extreme of ``x`` (the call's input by default) along ``axis``
        (the call's dim by default) with ``kind`` (the entry's by default)."""
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        from aclnn_conformance.oracle.surface_running import held, running
        red = self.entry().reduction
        src = case.tensor(red["input"])
        x = np.asarray(x).reshape(tuple(src.desc.shape))
        x = x.reshape((1,)) if x.ndim == 0 else x
        axes = reduced_axes(case, self.entry())
        axis = axis if axis is not None else (axes[0] if axes else 0)
        extreme, position, _, _ = running(held(x), axis, kind or red["kind"])
        values_name, index_name = self.roles()
        return self.adjust(case, {values_name: extreme.astype(x.dtype), index_name: position}, axis)

    def adjust(self, case: Case, found: dict[str, np.ndarray], axis: int) -> dict[str, np.ndarray]:
        return found


class PromotionRunning(RunningBackend):
    def outputs(self, case):
        x = np.asarray(case.tensor(self.entry().reduction["input"]).values())
        return self.computed(case, _through(x, x.dtype), None, None)


class UlpBiasRunning(RunningBackend):
    def adjust(self, case, found, axis):
        name = self.roles()[0]
        return {**found, name: one_ulp_up(found[name])}


class FlushRunning(RunningBackend):
    def products(self) -> tuple[str, ...]:
        from aclnn_conformance.spec.special_values import KEPT, SPECIAL_VALUES
        return tuple(p for p, model in SPECIAL_VALUES.items() if model.subnormals == KEPT)

    def adjust(self, case, found, axis):
        from aclnn_conformance.oracle.surface import flush_subnormals
        name = self.roles()[0]
        return {**found, name: flush_subnormals(found[name])}


class WindowOneShortMutant(RunningBackend):
    """Element i given the prefix 0..i-1's extreme and position (element 0 its own)."""

    def adjust(self, case, found, axis):
        out = {}
        for name, a in found.items():
            shifted = np.array(a, copy=True)
            if a.shape[axis] > 1:
                body = [slice(None)] * a.ndim
                body[axis] = slice(1, None)
                head = [slice(None)] * a.ndim
                head[axis] = slice(0, -1)
                shifted[tuple(body)] = a[tuple(head)]
            out[name] = shifted
        return out


class ReversedScanMutant(RunningBackend):
    """The extreme of i..n-1 (the scan run from the slice's end), its position counted from the start."""

    def outputs(self, case):
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        x = np.asarray(case.tensor(self.entry().reduction["input"]).values())
        axes = reduced_axes(case, self.entry())
        axis = axes[0] if axes else 0
        if x.ndim == 0:
            return self.computed(case, x, None, None)
        found = self.computed(case, np.flip(x, axis), axis, None)
        values_name, index_name = self.roles()
        n = x.shape[axis]
        return {values_name: np.flip(found[values_name], axis), index_name: n - 1 - np.flip(found[index_name], axis)}


class WrongAxisRunning(RunningBackend):
    """The scan along another dim of the same size (the first such), where there is one."""

    def outputs(self, case):
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        x = np.asarray(case.tensor(self.entry().reduction["input"]).values())
        axes = reduced_axes(case, self.entry())
        axis = axes[0] if axes else 0
        other = next((a for a in range(x.ndim) if a != axis and x.shape[a] == x.shape[axis]), axis)
        return self.computed(case, x, other, None)


class OneBasedIndexMutant(RunningBackend):
    def adjust(self, case, found, axis):
        name = self.roles()[1]
        return {**found, name: found[name] + 1}


class OtherExtremeRunning(RunningBackend):
    def outputs(self, case):
        x = case.tensor(self.entry().reduction["input"]).values()
        return self.computed(case, x, None, OTHER[self.entry().reduction["kind"]])


class LastOfTiesControl(RunningBackend):
    """A tie's last position: element i's position is i where it equals the prefix's extreme, else
    element i - 1's (the extreme changes only at an element equal to it)."""

    def adjust(self, case, found, axis):
        src = case.tensor(self.entry().reduction["input"])
        x = np.asarray(src.values()).reshape(tuple(src.desc.shape))
        x = x.reshape((1,)) if x.ndim == 0 else x
        values_name, index_name = self.roles()
        v = np.moveaxis(x.astype(np.float64), axis, -1)
        best = np.moveaxis(found[values_name].astype(np.float64), axis, -1)
        last = np.moveaxis(np.array(found[index_name], copy=True), axis, -1)
        for i in range(1, v.shape[-1]):
            last[..., i] = np.where(v[..., i] == best[..., i], i, last[..., i - 1])
        return {**found, index_name: np.moveaxis(last, -1, axis)}


class NanIgnoringControl(RunningBackend):
    """NaN never taken as the extreme (an IEEE maxNum scan): NaN read as the far side's infinity."""

    def outputs(self, case):
        x = np.asarray(case.tensor(self.entry().reduction["input"]).values())
        if not _is_float(x.dtype):
            return self.computed(case, x, None, None)
        far = -np.inf if self.entry().reduction["kind"] == "prefix-max" else np.inf
        wide = x.astype(np.float64)
        return self.computed(case, np.where(np.isnan(wide), far, wide).astype(x.dtype), None, None)


class ZeroSignRunning(RunningBackend):
    def adjust(self, case, found, axis):
        name = self.roles()[0]
        v = found[name]
        if not _is_float(v.dtype):
            return found
        wide = v.astype(np.float64)
        return {**found, name: np.where(wide == 0, -np.copysign(0.0, wide), wide).astype(v.dtype)}


def running_mutant_set(key: str, cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a running extreme."""
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    values_name = entry.reduction["outputs"][entry.reduction["kind"]]
    outputs = [np.asarray(from_case(c, PROFILE).views[values_name]) for c in cases]
    mutants = [
        _make(PromotionRunning, entry, key, "promotion", "the input rounded through a narrower dtype", rule),
        sample_dtype_missing(entry, key, rule),
        _make(WindowOneShortMutant, entry, key, "window-one-short",
              "element i given the extreme of the elements before it (an off-by-one running window)", rule),
        _make(ReversedScanMutant, entry, key, "reversed-scan", "the scan run from the slice's end", rule),
        _make(WrongAxisRunning, entry, key, "wrong-axis", "the scan along another dim of the same size", rule),
        _make(OneBasedIndexMutant, entry, key, "one-based-index", "the positions counted from 1", rule),
        _make(OtherExtremeRunning, entry, key, "other-extreme", "the other extreme's running values", rule)]
    if any(_is_float(o.dtype) for o in outputs):
        mutants.append(_make(UlpBiasRunning, entry, key, "ulp-bias", "every value one ulp up", rule))
    if any(_is_float(o.dtype) and has_subnormal(o) for o in outputs):
        mutants.append(_make(FlushRunning, entry, key, "flush", "subnormal values flushed to zero", rule))
    controls = [
        _make(LastOfTiesControl, entry, key, "last-of-ties-control", "a tie's last position", ()),
        _make(NanIgnoringControl, entry, key, "nan-ignoring-control", "NaN never taken as the extreme", ()),
        _make(ZeroSignRunning, entry, key, "zero-sign-control", "zero values of the other sign", ())]
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
