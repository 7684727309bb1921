"""Mutants and controls of the gradients of softmax and log-softmax along one dim (a value entry
whose ``reduction.kind`` is ``normalized-exp-grad`` or ``log-normalized-exp-grad``), generated per
operator from its entry:

- ``promotion`` (equivalent where the rounding stays inside the vendor's tolerance), ``dtype-missing``, ``twice-limit`` (results off by twice the standard's limit) and
  ``wrong-axis`` (the sum taken along another dim of the same length), as the reductions' kinds;
- ``unweighted-sum`` (softmax's gradient): sum(g) in place of sum(g*y);
- ``exp-dropped`` (log-softmax's gradient): the forward output itself in place of exp(y), as if it
  were the probabilities.

Controls, correct devices the standard must pass, each in float32 from the compute dtype's values
with one cast at the end: the kernel's order with NumPy's pairwise float32 sum
(``float32-steps-control``), a sequential float32 sum (``sequential-control``), a sequential sum
from the slice's end (``reversed-control``), and zero results of the other sign.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (SurfaceBackend, TwiceLimitMutant,
                                                              promotion_or_equivalent,
                                                              sample_dtype_missing, _equivalent, _make)
from aclnn_conformance.backends.mutants.surface_reductions import WrongAxisMutant, ZeroSignControl, fails_somewhere
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import NORMALIZED_EXP_GRAD, value_entry


def pairwise(v: np.ndarray, axis: int) -> np.ndarray:
    return np.sum(v, axis=axis, keepdims=True, dtype=np.float32)


def sequential(v: np.ndarray, axis: int) -> np.ndarray:
    return np.take(np.cumsum(v, axis=axis, dtype=np.float32), [-1], axis=axis)


def reversed_order(v: np.ndarray, axis: int) -> np.ndarray:
    return sequential(np.flip(v, axis=axis), axis)


def kernel_order(g: np.ndarray, y: np.ndarray, axis: int, kind: str,
                 total: Callable[[np.ndarray, int], np.ndarray] = pairwise) -> np.ndarray:
    """The kernels' order in float32: softmax's g*y - y*sum(g*y) (the product and the fused
    multiply-subtract of softmax_grad_ar_full_load.h:171-179), log-softmax's g - sum(g)*exp(y)."""
    if kind == NORMALIZED_EXP_GRAD:
        return g * y - y * total(g * y, axis)
    return g - total(g, axis) * np.exp(y)


class GradBackend(SurfaceBackend):
    """The gradient in float32 by ``evaluate`` (g, y, axis, kind) from the compute dtype's values."""

    evaluate: Callable[..., np.ndarray] = staticmethod(kernel_order)

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        entry = self.entry()
        red = entry.reduction
        out = case.tensor(entry.output)
        g_arg, y_arg = case.tensor(red["input"]), case.tensors.get(red["forward"])
        g = np.asarray(g_arg.view_of(g_arg.storage))
        if g.size == 0 or g.ndim == 0 or y_arg is None:
            return super().values(case)
        y = np.asarray(y_arg.view_of(y_arg.storage))
        axes = reduced_axes(case, entry)
        with np.errstate(all="ignore"):
            result = self.evaluate(g.astype(np.float32), y.astype(np.float32), axes[0] if axes else 0,
                                   red["kind"])
            return np.asarray(result).astype(out.storage.dtype).reshape(out.desc.shape)


def unweighted_sum(g: np.ndarray, y: np.ndarray, axis: int, kind: str) -> np.ndarray:
    return g * y - y * pairwise(g, axis)


def exp_dropped(g: np.ndarray, y: np.ndarray, axis: int, kind: str) -> np.ndarray:
    return g - pairwise(g, axis) * y


def normalized_grad_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a softmax or log-softmax gradient (by key)."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    mutants, equivalent = promotion_or_equivalent(entry, key, rule, "computes on the gradient rounded "
                                                  "through a narrower type", "every result", cases, outputs)
    if mutants and not fails_somewhere(mutants[0], cases):   # the vendor's limits (0.05, 0.005) are wider
        promotion = mutants.pop()
        equivalent.append(_equivalent(promotion, "rounding the gradient through a narrower type stays "
                                      "inside the vendor's tolerance on every value case"))
    weighted = entry.reduction["kind"] == NORMALIZED_EXP_GRAD   # the sum of g*y, not of g
    mutants += [
        sample_dtype_missing(entry, key, rule),
        _make(TwiceLimitMutant, entry, key, "twice-limit", "results off by twice the standard's limit", rule),
        _make(WrongAxisMutant, entry, key, "wrong-axis", "sums along another dim of the same length "
              "than the one named", rule),
        _make(GradBackend, entry, key, "unweighted-sum" if weighted else "exp-dropped",
              "sums g, not g*y" if weighted else "takes the forward output for exp of it", rule,
              evaluate=staticmethod(unweighted_sum if weighted else exp_dropped))]
    controls = [
        _make(GradBackend, entry, key, "float32-steps-control", "the kernel's order in float32, a "
              "pairwise sum", (), evaluate=staticmethod(kernel_order)),
        _make(GradBackend, entry, key, "sequential-control", "the kernel's order in float32, a "
              "sequential sum", (), evaluate=staticmethod(
                  lambda g, y, axis, kind: kernel_order(g, y, axis, kind, sequential))),
        _make(GradBackend, entry, key, "reversed-control", "the kernel's order in float32, a "
              "sequential sum from the slice's end", (), evaluate=staticmethod(
                  lambda g, y, axis, kind: kernel_order(g, y, axis, kind, reversed_order))),
        _make(ZeroSignControl, entry, key, "zero-sign-control", "a zero result of the other sign", ())]
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls), equivalent=tuple(equivalent))
