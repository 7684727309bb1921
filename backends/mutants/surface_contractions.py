"""Mutants and controls of the contractions (a value entry whose ``reduction.kind`` is
``inner-product`` or ``diagonal-sum``), generated per operator from its entry. Each device draws the
call's terms (each product rounded to float32, or the diagonal's elements in float32) and sums them
as the summation model's device does (backends/mutants/surface_sums.py), with one thing changed:

- ``narrow-accumulation``: an fp16 or bf16 call accumulated in that dtype, not float32;
- ``dropped-tail``: the terms past the last whole block of 64 skipped;
- ``one-operand`` (inner products): the input multiplied by itself, the other operand never read;
- ``anti-diagonal`` (diagonals): the diagonal from the top right; ``row-stride``: the diagonal read
  with a step of the row count + 1 instead of the column count + 1 (the same on a square matrix,
  another element on a rectangular one);
- beside them the kinds every reduction shares: promotion, dtype-missing, ulp-bias (equivalent where
  one ulp stays inside the bound on every value case).

Controls, correct devices of other orders: float32 ``sequential-control``, ``pairwise-control``,
``reversed-control``, for inner products ``fused-control`` (each product added to the accumulator
with one rounding, a fused multiply-add), and ``zero-sign-control`` (a zero sum of the other sign).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (SurfaceBackend, UlpBiasMutant,
                                                              promotion_or_equivalent,
                                                              sample_dtype_missing, _equivalent,
                                                              _is_float, _make)
from aclnn_conformance.backends.mutants.surface_reductions import ZeroSignControl, fails_somewhere
from aclnn_conformance.backends.mutants.surface_sums import (BLOCK, SummingBackend, pairwise,
                                                             reversed_order, sequential)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import DIAGONAL_SUM, value_entry


def fused(row: np.ndarray, products: np.ndarray) -> np.ndarray:
    """Left to right, each exact product added to the float32 accumulator with one rounding."""
    total = np.float32(0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        for p in products:
            total = np.float32(np.float64(total) + p)
    return np.asarray(total, np.float32)


class ContractionBackend(SummingBackend):
    """A device that draws the call's terms in float32 and sums them with ``summer``; integer calls
    and empty ones are the oracle's."""

    diagonal = "main"        # main | anti | row-stride
    one_operand = False      # an inner product of the input with itself
    fused_products = False   # each exact product fused into the accumulation

    def drawn(self, case: Case) -> tuple[np.ndarray, np.ndarray, np.dtype]:
        """The terms in float32 (a row), the exact float64 ones, and the compute dtype."""
        from aclnn_conformance.oracle.surface_contractions import terms
        entry = self.entry()
        found, work = terms(case, entry)
        if entry.reduction["kind"] == DIAGONAL_SUM:
            arg = case.tensor(entry.reduction["input"])
            matrix = np.asarray(arg.view_of(arg.storage))
            rows, cols = matrix.shape
            if self.diagonal == "anti":
                found = np.ascontiguousarray(np.diagonal(np.fliplr(matrix)))
            elif self.diagonal == "row-stride":
                found = matrix.reshape(-1)[np.arange(min(rows, cols)) * (rows + 1)]
            row = found.astype(np.float32)
            return row, row.astype(np.float64), work
        x, y = found[0], found[0] if self.one_operand else found[1]
        with np.errstate(over="ignore", invalid="ignore"):
            exact = x.astype(np.float64) * y.astype(np.float64)
            return (x.astype(np.float32) * y.astype(np.float32)).astype(np.float32), exact, work

    def values(self, case: Case) -> np.ndarray:
        entry = self.entry()
        row, exact, work = self.drawn(case)
        out = case.tensor(entry.output)
        if not _is_float(work) or row.size == 0:
            return SurfaceBackend.values(self, case)
        total = fused(row, exact) if self.fused_products else self.total(row[None], work)[0]
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(total).astype(work).astype(out.storage.dtype).reshape(out.desc.shape)


class ContractionNarrow(ContractionBackend):
    def total(self, terms, work):
        return sequential(terms, work if work.itemsize < 4 else np.dtype(np.float32))


class ContractionDroppedTail(ContractionBackend):
    def total(self, terms, work):
        n = terms.shape[-1]
        return sequential(terms[..., :n - n % BLOCK if n > BLOCK else n])


def contraction_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a contraction (by key), given its value cases and the
    oracle's outputs on them."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    diagonal = entry.reduction["kind"] == DIAGONAL_SUM
    mutants, equivalent = promotion_or_equivalent(entry, key, rule, "sums terms rounded through a narrower "
                                                  "type", "every sum", cases, outputs)
    mutants.append(sample_dtype_missing(entry, key, rule))
    bias = _make(UlpBiasMutant, entry, key, "ulp-bias", "every result one ulp up", rule)
    if fails_somewhere(bias, cases):
        mutants.append(bias)
    else:
        equivalent.append(_equivalent(bias, "one ulp is inside the summation model's bound on every "
                                      "value case"))
    mutants += [_make(ContractionNarrow, entry, key, "narrow-accumulation",
                      "accumulates an fp16 or bf16 call in that dtype, not float32", rule),
                _make(ContractionDroppedTail, entry, key, "dropped-tail",
                      f"skips the terms past the last whole block of {BLOCK}", rule)]
    if diagonal:
        mutants += [_make(ContractionBackend, entry, key, "anti-diagonal",
                          "sums the diagonal from the top right", rule, diagonal="anti"),
                    _make(ContractionBackend, entry, key, "row-stride", "steps along the diagonal by "
                          "the row count + 1 instead of the column count + 1", rule, diagonal="row-stride")]
    else:
        mutants.append(_make(ContractionBackend, entry, key, "one-operand",
                             "multiplies the input by itself, never reading the other operand", rule,
                             one_operand=True))
    orders: list[tuple[str, str, Callable]] = [
        ("sequential-control", "a float32 sum left to right", sequential),
        ("pairwise-control", "a float32 pairwise sum", pairwise),
        ("reversed-control", "a float32 sum right to left", reversed_order)]
    controls = [_make(ContractionBackend, entry, key, kind, defect, (), summer=staticmethod(summer))
                for kind, defect, summer in orders]
    if not diagonal:
        controls.append(_make(ContractionBackend, entry, key, "fused-control", "each exact product "
                              "added to a float32 accumulator with one rounding (a fused multiply-add)",
                              (), fused_products=True))
    controls.append(_make(ZeroSignControl, entry, key, "zero-sign-control", "a zero sum of the other sign", ()))
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls), equivalent=tuple(equivalent))


# ---- outer products (an elementwise entry whose ``columns`` name the operands read as columns) ----

class OperandsSwappedMutant(SurfaceBackend):
    """The column and the row exchanged: out[i, j] = self[j] * vec2[i] (the result transposed where
    it is square; a rectangular call, which the shape checks tie to the operands, computed right)."""

    def change(self, case, expected, aux):
        return expected.T if expected.ndim == 2 and expected.shape[0] == expected.shape[1] else expected


def outer_mutants(entry, key: str, rule: tuple[str, ...]) -> list[type]:
    """An outer product's own mutant: its operands' roles exchanged."""
    if not entry.raw.get("columns"):
        return []
    return [_make(OperandsSwappedMutant, entry, key, "operands-swapped", "reads the column operand as "
                  "the row and the row operand as the column (the result transposed)", rule)]

