"""Mutants and controls of the summing reductions (a value entry whose ``reduction.kind`` is ``sum``,
``nan-sum``, ``average`` or ``prefix-sum``), generated per operator beside the kinds every reduction shares
(backends/mutants/surface_reductions.py: promotion, dtype-missing, ulp-bias, wrong-axis,
keepdim-ignored). Each recomputes the call from its terms, in float32 as the summation model's
device does (spec/surface_models.py SUMMATION), with one thing changed:

- ``narrow-accumulation``: an fp16 or bf16 computation accumulated in that dtype (each partial sum
  rounded to it) instead of float32; float32 and integer calls are computed right;
- ``dropped-tail``: the terms past the last whole block of 64 of a slice skipped (a tail the tiling
  forgot; slices of 64 terms or fewer, and multiples of 64, are computed right);
- ``n-minus-one`` (means): the sum divided by n - 1 instead of n;
- ``nan-propagated`` (nan-sums): NaN terms summed as they are, as a plain sum's kernel would.

A scan (cumsum) keeps every prefix: the narrow accumulator and the dropped tail apply to it, and
where its block names them, ``exclusive-ignored`` and ``reverse-ignored`` (the flag read as false); its
controls are a float32 scan left to right and a two-level scan by blocks (``blocked-control``).
Controls, correct devices of other orders the standard must pass: a float32 ``sequential-control``
(left to right; a mean as the sum times a rounded 1/n, as the vendor's kernel does), a
``pairwise-control`` (pairs summed level by level; a mean divided by n) and a ``reversed-control``
(right to left; a mean times the rounded 1/n).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend
from aclnn_conformance.spec.case import Case

BLOCK = 64     # the tail block the dropped-tail mutant forgets, in terms


def slice_terms(case: Case, nan_propagated: bool = False) -> tuple[np.ndarray, np.dtype, tuple[int, ...]]:
    """The call's terms in the compute dtype, one slice per row (the reduced dims moved last and
    flattened), with the compute dtype and the shape of the rows; a nan-sum's NaN terms as 0 unless
    ``nan_propagated`` (the mutant that sums them as they are)."""
    from aclnn_conformance.oracle.surface_reductions import reduced_axes
    from aclnn_conformance.oracle.surface_sums import compute_dtype
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(case.op)
    arg = case.tensor(entry.reduction["input"])
    work = compute_dtype(case, entry)
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.asarray(arg.view_of(arg.storage)).astype(work)
    if entry.reduction["kind"] == "nan-sum" and not nan_propagated and x.dtype.kind != "i":
        x = np.where(np.isnan(x), np.zeros((), x.dtype), x)     # a NaN term counts as 0
    axes = reduced_axes(case, entry)
    moved = np.moveaxis(x, axes, tuple(range(x.ndim - len(axes), x.ndim))) if axes else x[..., None]
    rows = moved.shape[:moved.ndim - max(len(axes), 1)] if axes else x.shape
    n = int(np.prod(moved.shape[len(rows):]))
    return moved.reshape(rows + (n,)), work, rows


def sequential(terms: np.ndarray, acc: np.dtype = np.dtype(np.float32)) -> np.ndarray:
    """Left to right, each partial sum rounded to ``acc`` (a float32 sum of two fp16 or bf16 values
    rounded once more to them is their correctly rounded sum: 24 >= 2p + 2)."""
    total = np.zeros(terms.shape[:-1], acc)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(terms.shape[-1]):
            total = (total.astype(np.float32) + terms[..., i].astype(np.float32)).astype(acc)
    return total.astype(np.float32)


def pairwise(terms: np.ndarray) -> np.ndarray:
    """Pairs of neighbours summed in float32, level by level (an odd last term carried up)."""
    level = terms.astype(np.float32)
    if level.shape[-1] == 0:
        return np.zeros(level.shape[:-1], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        while level.shape[-1] > 1:
            odd = level[..., -1:] if level.shape[-1] % 2 else level[..., :0]
            even = level[..., :level.shape[-1] - level.shape[-1] % 2]
            level = np.concatenate([even[..., 0::2] + even[..., 1::2], odd], axis=-1)
    return level[..., 0]


def reversed_order(terms: np.ndarray) -> np.ndarray:
    return sequential(terms[..., ::-1])


def prefixes(terms: np.ndarray, acc: np.dtype = np.dtype(np.float32)) -> np.ndarray:
    """A scan left to right, every partial sum rounded to ``acc`` and kept (float32 out)."""
    out = np.zeros(terms.shape, np.float32)
    total = np.zeros(terms.shape[:-1], acc)
    with np.errstate(over="ignore", invalid="ignore"):
        for i in range(terms.shape[-1]):
            total = (total.astype(np.float32) + terms[..., i].astype(np.float32)).astype(acc)
            out[..., i] = total
    return out


def blocked_prefixes(terms: np.ndarray) -> np.ndarray:
    """A two-level scan: each block of ``BLOCK`` terms scanned on its own, the blocks' totals
    scanned, each block's prefixes offset by the total before it (another association)."""
    n = terms.shape[-1]
    out = np.zeros(terms.shape, np.float32)
    carry = np.zeros(terms.shape[:-1], np.float32)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, n, BLOCK):
            local = prefixes(terms[..., start:start + BLOCK])
            out[..., start:start + BLOCK] = (carry[..., None] + local).astype(np.float32)
            carry = (carry + local[..., -1]).astype(np.float32)
    return out


def times_reciprocal(total: np.ndarray, n: int) -> np.ndarray:
    """The vendor kernel's mean: the float32 sum times 1/n rounded to float32 (reduce_mean_dag.h)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return (total * np.float32(1.0 / n)).astype(np.float32)


def divided(total: np.ndarray, n: int) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return (total / np.float32(n)).astype(np.float32)


class SummingBackend(SurfaceBackend):
    """A device that sums each slice with ``summer`` and divides a mean with ``divider``; integer
    computations, empty slices and what the model leaves unjudged are the oracle's."""

    summer: Callable[[np.ndarray], np.ndarray] = staticmethod(sequential)
    divider: Callable[[np.ndarray, int], np.ndarray] = staticmethod(times_reciprocal)

    scanner: Callable[[np.ndarray], np.ndarray] = staticmethod(prefixes)

    def total(self, terms: np.ndarray, work: np.dtype) -> np.ndarray:
        return self.summer(terms)

    def scan(self, terms: np.ndarray, work: np.dtype) -> np.ndarray:
        return self.scanner(terms)

    nan_propagated = False     # a nan-sum's NaN terms summed as they are (a plain sum's kernel)

    def values(self, case: Case) -> np.ndarray:
        entry = self.entry()
        terms, work, rows = slice_terms(case, self.nan_propagated)
        n = terms.shape[-1]
        out = case.tensor(entry.output)
        if not np.issubdtype(work, np.floating) and work.name != "bfloat16" or n == 0:
            return super().values(case)
        if entry.scans:      # every prefix, moved back to the scanned dim
            from aclnn_conformance.oracle.surface_reductions import reduced_axes
            axes = reduced_axes(case, entry)
            found = self.flagged_scan(case, terms, work)
            found = np.moveaxis(found, -1, axes[0]) if axes else found.reshape(rows)
            with np.errstate(over="ignore", invalid="ignore"):
                return found.astype(work).astype(out.storage.dtype).reshape(out.desc.shape)
        total = self.total(terms, work)
        if entry.reduction["kind"] == "average":
            total = self.divide(total, n)
        with np.errstate(over="ignore", invalid="ignore"):
            return total.astype(work).astype(out.storage.dtype).reshape(out.desc.shape)

    def divide(self, total: np.ndarray, n: int) -> np.ndarray:
        return self.divider(total, n)

    exclusive_ignored = False    # a scan's exclusive flag read as false (each element in its own prefix)
    reverse_ignored = False      # a scan's reverse flag read as false (scanned from the first element)

    def flagged_scan(self, case: Case, terms: np.ndarray, work: np.dtype) -> np.ndarray:
        """The scan of each row under the call's ``exclusive`` and ``reverse`` settings (float32 out)."""
        from aclnn_conformance.oracle.surface_sums import scan_flags
        exclusive, reverse = scan_flags(case, self.entry())
        exclusive, reverse = exclusive and not self.exclusive_ignored, reverse and not self.reverse_ignored
        found = self.scan(terms[..., ::-1] if reverse else terms, work)
        if exclusive and found.shape[-1]:    # each prefix stops before its element: the first is empty
            found = np.concatenate([np.zeros(found.shape[:-1] + (1,), np.float32), found[..., :-1]], -1)
        return found[..., ::-1] if reverse else found


class NarrowAccumulationMutant(SummingBackend):
    def total(self, terms, work):
        return sequential(terms, work if work.itemsize < 4 else np.dtype(np.float32))

    def scan(self, terms, work):
        return prefixes(terms, work if work.itemsize < 4 else np.dtype(np.float32))


def _kept(n: int) -> int:
    return n - n % BLOCK if n > BLOCK else n


class DroppedTailMutant(SummingBackend):
    def total(self, terms, work):
        return sequential(terms[..., :_kept(terms.shape[-1])])

    def scan(self, terms, work):
        kept = terms.astype(np.float32)
        kept[..., _kept(terms.shape[-1]):] = 0     # the tail's terms never added
        return prefixes(kept)


class CountMinusOneMutant(SummingBackend):
    def divide(self, total, n):
        return divided(total, n - 1)


def sum_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The sums' own mutants and controls of an entry (``make`` names and declares each)."""
    mutants = [make(NarrowAccumulationMutant, entry, key, "narrow-accumulation",
                    "accumulates an fp16 or bf16 computation in that dtype, not float32", rule),
               make(DroppedTailMutant, entry, key, "dropped-tail",
                    f"skips the terms past the last whole block of {BLOCK} of a slice", rule)]
    if entry.reduction["kind"] == "average":
        mutants.append(make(CountMinusOneMutant, entry, key, "n-minus-one",
                            "divides the mean by n - 1", rule))
    if entry.reduction["kind"] == "nan-sum":
        mutants.append(make(SummingBackend, entry, key, "nan-propagated",
                            "sums NaN terms as they are (a plain sum), not as 0", rule,
                            nan_propagated=True))
    for role, flag in (("exclusive", "exclusive_ignored"), ("reverse", "reverse_ignored")):
        if entry.reduction.get(role):    # a scan's flag the kernel would not read
            mutants.append(make(SummingBackend, entry, key, f"{role}-ignored",
                                f"scans every call as if {role} were false", rule, **{flag: True}))
    if entry.scans:      # a scan's orders: left to right, and two-level by blocks
        return mutants, [make(SummingBackend, entry, key, "sequential-control",
                              "a float32 scan left to right", ()),
                         make(SummingBackend, entry, key, "blocked-control",
                              f"a float32 two-level scan by blocks of {BLOCK}", (),
                              scanner=staticmethod(blocked_prefixes))]
    controls = [make(SummingBackend, entry, key, "sequential-control",
                     "a float32 sum left to right (a mean times a rounded 1/n)", ()),
                make(SummingBackend, entry, key, "pairwise-control",
                     "a float32 pairwise sum (a mean divided by n)", (),
                     summer=staticmethod(pairwise), divider=staticmethod(divided)),
                make(SummingBackend, entry, key, "reversed-control",
                     "a float32 sum right to left (a mean times a rounded 1/n)", (),
                     summer=staticmethod(reversed_order))]
    return mutants, controls
