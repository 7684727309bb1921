"""Mutants and controls of the products (a value entry whose ``reduction.kind`` is ``product`` or
``prefix-product``), beside the kinds every reduction shares (backends/mutants/surface_reductions.py:
promotion, dtype-missing, ulp-bias, wrong-axis, keepdim-ignored). Each recomputes the call from its
factors, in float32 as the product model's device does (spec/surface_models.py PRODUCT_MODEL), with
one thing changed:

- ``narrow-accumulation``: an fp16 or bf16 computation multiplied in that dtype (each partial
  product rounded to it) instead of float32; float32 and integer calls are computed right;
- ``dropped-tail``: the factors past the last whole block of 64 of a slice skipped (a tail the
  tiling forgot; slices of 64 factors or fewer, and multiples of 64, are computed right).

Controls, correct devices of other orders the standard must pass: a float32 ``sequential-control``
(left to right), a ``pairwise-control`` (pairs multiplied level by level) and a ``reversed-control``
(right to left); a scan's: left to right, and a two-level scan by blocks (``blocked-control``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_sums import BLOCK, SummingBackend, _kept


def sequential(terms: np.ndarray, acc: np.dtype = np.dtype(np.float32)) -> np.ndarray:
    """Left to right, each partial product rounded to ``acc`` (a float32 product of two fp16 or bf16
    values rounded once more to them is their correctly rounded product: 24 >= 2p + 2)."""
    total = np.ones(terms.shape[:-1], acc)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for i in range(terms.shape[-1]):
            total = (total.astype(np.float32) * terms[..., i].astype(np.float32)).astype(acc)
    return total.astype(np.float32)


def pairwise(terms: np.ndarray) -> np.ndarray:
    """Pairs of neighbours multiplied in float32, level by level (an odd last factor carried up)."""
    level = terms.astype(np.float32)
    if level.shape[-1] == 0:
        return np.ones(level.shape[:-1], np.float32)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        while level.shape[-1] > 1:
            odd = level[..., -1:] if level.shape[-1] % 2 else level[..., :0]
            even = level[..., :level.shape[-1] - level.shape[-1] % 2]
            level = np.concatenate([even[..., 0::2] * even[..., 1::2], odd], axis=-1)
    return level[..., 0]


def reversed_order(terms: np.ndarray) -> np.ndarray:
    return sequential(terms[..., ::-1])


def prefixes(terms: np.ndarray, acc: np.dtype = np.dtype(np.float32)) -> np.ndarray:
    """A scan left to right, every partial product rounded to ``acc`` and kept (float32 out)."""
    out = np.zeros(terms.shape, np.float32)
    total = np.ones(terms.shape[:-1], acc)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for i in range(terms.shape[-1]):
            total = (total.astype(np.float32) * terms[..., i].astype(np.float32)).astype(acc)
            out[..., i] = total
    return out


def blocked_prefixes(terms: np.ndarray) -> np.ndarray:
    """A two-level scan: each block of ``BLOCK`` factors scanned on its own, each block's prefixes
    multiplied by the product of the blocks before it (another association)."""
    out = np.zeros(terms.shape, np.float32)
    carry = np.ones(terms.shape[:-1], np.float32)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for start in range(0, terms.shape[-1], BLOCK):
            local = prefixes(terms[..., start:start + BLOCK])
            out[..., start:start + BLOCK] = (carry[..., None] * local).astype(np.float32)
            carry = (carry * local[..., -1]).astype(np.float32)
    return out


class MultiplyingBackend(SummingBackend):
    """A device that multiplies each slice's factors with ``multiplier`` (a scan's with ``scanner``);
    integer computations, empty slices and what the model leaves unjudged are the oracle's."""

    multiplier: Callable[[np.ndarray], np.ndarray] = staticmethod(sequential)
    scanner: Callable[[np.ndarray], np.ndarray] = staticmethod(prefixes)

    def total(self, terms: np.ndarray, work: np.dtype) -> np.ndarray:
        return self.multiplier(terms)


class NarrowAccumulationMutant(MultiplyingBackend):
    def total(self, terms, work):
        return sequential(terms, work if work.itemsize < 4 else np.dtype(np.float32))

    def scan(self, terms, work):
        return prefixes(terms, work if work.itemsize < 4 else np.dtype(np.float32))


class DroppedTailMutant(MultiplyingBackend):
    def total(self, terms, work):
        return sequential(terms[..., :_kept(terms.shape[-1])])

    def scan(self, terms, work):
        kept = terms.astype(np.float32)
        kept[..., _kept(terms.shape[-1]):] = 1     # the tail's factors never multiplied
        return prefixes(kept)


def product_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The products' own mutants and controls of an entry (``make`` names and declares each)."""
    mutants = [make(NarrowAccumulationMutant, entry, key, "narrow-accumulation",
                    "multiplies an fp16 or bf16 computation in that dtype, not float32", rule),
               make(DroppedTailMutant, entry, key, "dropped-tail",
                    f"skips the factors past the last whole block of {BLOCK} of a slice", rule)]
    if entry.scans:      # a scan's orders: left to right, and two-level by blocks
        return mutants, [make(MultiplyingBackend, entry, key, "sequential-control",
                              "a float32 scan left to right", ()),
                         make(MultiplyingBackend, entry, key, "blocked-control",
                              f"a float32 two-level scan by blocks of {BLOCK}", (),
                              scanner=staticmethod(blocked_prefixes))]
    return mutants, [make(MultiplyingBackend, entry, key, "sequential-control",
                          "a float32 product left to right", ()),
                     make(MultiplyingBackend, entry, key, "pairwise-control",
                          "a float32 pairwise product", (), multiplier=staticmethod(pairwise)),
                     make(MultiplyingBackend, entry, key, "reversed-control",
                          "a float32 product right to left", (), multiplier=staticmethod(reversed_order))]
