"""Mutants and controls of the data-movement entries (spec/surface_movement.py), generated from the
entry: beside the exact class's kinds (promotion, dtype-missing, NaN as 0, one ulp up, subnormals
flushed), the bugs a real copy kernel would have, each killed on a single call:

- ``first-copy-only``: each input element written once, at its first place; the other copies left
  as the output was (a missing loop over the copies);
- ``swapped-axes``: two output dims of one size exchanged (a kernel mixing up their strides);
- ``interleaved-copies`` (``tile`` only): each element's copies side by side (a, a, b, b), the
  repeat order of an element-wise repeat where whole copies are due.

Control: ``index-map-control``, every output element gathered by its index map (the broadcast
kind's floor(i_k / m_k) as the document writes it, the tile's i_k mod s_k), and the surface's
flush-to-zero control.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (FlushMutant, NanMutant, PromotionMutant,
                                                              SurfaceBackend, UlpBiasMutant,
                                                              has_subnormal, sample_dtype_missing,
                                                              _is_float, _make)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_movement import ATTRIBUTE_ROLE, BROADCAST_TO, TILE, _int_list, movement_of
from aclnn_conformance.spec.surface_values import value_entry


def _call(case: Case, entry) -> tuple[np.ndarray, str, list[int]]:
    from aclnn_conformance.oracle.surface_movement import input_values
    block = movement_of(entry)
    return input_values(case, entry), block["kind"], _int_list(case.attrs.get(block[ATTRIBUTE_ROLE[block["kind"]]]))


def _padded(values: np.ndarray, rank: int) -> np.ndarray:
    """The input with leading dims of 1 up to ``rank`` (the broadcast's and the tile's alignment)."""
    return values.reshape((1,) * (rank - values.ndim) + values.shape)


def index_map(values: np.ndarray, kind: str, attribute: list[int], out_shape: tuple[int, ...],
              interleaved: bool = False) -> np.ndarray:
    """Each output element gathered from the input by its index along every dim: for a broadcast
    floor(i / m) with m the dim's expansion multiple (out / in), for a tile i mod s (whole copies) or,
    ``interleaved``, i // r (each element's copies side by side)."""
    held = _padded(values.reshape((1,)) if values.ndim == 0 and kind == TILE else values, len(out_shape))
    index = np.indices(out_shape)
    source = []
    for k, size in enumerate(held.shape):
        i = index[k]
        if kind == BROADCAST_TO:
            source.append(i // (out_shape[k] // size))
        else:
            source.append(i // attribute[k] if interleaved else i % size)
    return held[tuple(source)]


class FirstCopyOnlyMutant(SurfaceBackend):
    """Each input element written once, at its first place; the rest of the output as it came."""

    def change(self, case, expected, aux):
        values, kind, attribute = _call(case, self.entry())
        out = np.array(np.asarray(case.tensor(self.entry().output).values()), copy=True).reshape(expected.shape)
        if not out.size or not values.size:
            return expected
        held = _padded(values.reshape((1,)) if values.ndim == 0 else values, out.ndim)
        first = tuple(slice(0, s) for s in held.shape)
        out[first] = expected[first]
        return out


class SwappedAxesMutant(SurfaceBackend):
    """The result with the first pair of output dims of one size exchanged where that moves a value."""

    def change(self, case, expected, aux):
        for a in range(expected.ndim):
            for b in range(a + 1, expected.ndim):
                if expected.shape[a] == expected.shape[b] > 1:
                    swapped = np.ascontiguousarray(np.swapaxes(expected, a, b))
                    if not np.array_equal(swapped.view(np.uint8), np.ascontiguousarray(expected).view(np.uint8)):
                        return swapped
        return expected


class InterleavedCopiesMutant(SurfaceBackend):
    """A tile with each element's copies side by side (a, a, b, b) where whole copies are due."""

    def change(self, case, expected, aux):
        values, kind, attribute = _call(case, self.entry())
        if not expected.size or not values.size:
            return expected
        return index_map(values, kind, attribute, expected.shape, interleaved=True).astype(expected.dtype)


class IndexMapControl(SurfaceBackend):
    """Every output element gathered by its index map (the document's floor(i_k / m), a tile's i_k mod s_k)."""

    def change(self, case, expected, aux):
        values, kind, attribute = _call(case, self.entry())
        if not expected.size or not values.size:
            return expected
        return index_map(values, kind, attribute, expected.shape).astype(expected.dtype)


def movement_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case],
                        flush_control: type) -> MutantSet:
    """The generated mutants and controls of a movement entry (``flush_control``: the surface's
    flush-to-zero control class)."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    float_out = [o for o in outputs if _is_float(o.dtype)]
    mutants = [
        _make(PromotionMutant, entry, key, "promotion", "copies through a narrower dtype", rule),
        sample_dtype_missing(entry, key, rule),
        _make(FirstCopyOnlyMutant, entry, key, "first-copy-only", "each input element written once, "
              "the other copies left as the output was", rule),
        _make(SwappedAxesMutant, entry, key, "swapped-axes", "two output dims of one size exchanged", rule)]
    if movement_of(entry)["kind"] == TILE:
        mutants.append(_make(InterleavedCopiesMutant, entry, key, "interleaved-copies",
                             "each element's copies side by side (a, a, b, b) where whole copies are due", rule))
    if float_out:
        mutants.append(_make(UlpBiasMutant, entry, key, "ulp-bias", "every result one ulp up", rule))
    if any(np.isnan(o.astype(np.float64)).any() for o in float_out):
        mutants.append(_make(NanMutant, entry, key, "nan", "NaN results written as 0", rule))
    if any(has_subnormal(o) for o in float_out):
        mutants.append(_make(FlushMutant, entry, key, "flush", "subnormal results flushed to zero", rule))
    controls = [_make(IndexMapControl, entry, key, "index-map-control", "every output element gathered "
                      "by its index map", ())]
    if any(has_subnormal(o) for o in float_out):
        controls.append(_make(flush_control, entry, key, "flush-to-zero-control",
                              "subnormal inputs and results read and written as zero", ()))
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
