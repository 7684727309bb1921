"""Mutants and controls of softmax and log-softmax (a value entry whose ``reduction.kind`` is
``normalized-exp`` or ``log-normalized-exp``), generated per operator beside the kinds every reduction shares
(promotion, dtype-missing, wrong-axis). Each recomputes the call in float32 from the compute dtype's
values, as the kernel does (fp16 and bf16 in float32, one cast at the end), with one thing changed:

- ``no-max-subtraction``: exp(x) of the values themselves, not of x - max: a slice with an element
  past float32's exp range (88.7) overflows to inf, and inf / inf is NaN;
- ``log-of-softmax`` (log-softmax): log of the float32 softmax, which is -inf where the softmax
  underflows to 0 (an element more than 103 below its slice's maximum) instead of x - m - log(sum).

Controls, correct devices the standard must pass: the kernel's order in float32 (maximum, subtract,
exponentials, their sum, divide or take the log; ``float32-steps-control``) and the softmax as the
exponentials times the float32 reciprocal of their sum (``reciprocal-control``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import SurfaceBackend
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import LOG_NORMALIZED_EXP, NORMALIZED_EXP


class NormalizingBackend(SurfaceBackend):
    """softmax or log-softmax along the call's dim in float32 by ``evaluate`` (values, axis, kind)."""

    evaluate: Callable[[np.ndarray, int, str], np.ndarray] = staticmethod(lambda x, axis, kind: x)

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        from aclnn_conformance.oracle.surface_softmax import compute_dtype
        entry = self.entry()
        red = entry.reduction
        out = case.tensor(entry.output)
        arg = case.tensor(red["input"])
        x = np.asarray(arg.view_of(arg.storage))
        if x.size == 0 or x.ndim == 0:
            return super().values(case)
        axes = reduced_axes(case, entry)
        with np.errstate(all="ignore"):
            held = x.astype(compute_dtype(case, entry)).astype(np.float32)
            result = self.evaluate(held, axes[0] if axes else 0, red["kind"])
            return np.asarray(result).astype(out.storage.dtype).reshape(out.desc.shape)


def kernel_order(x: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """The kernel's order in float32: maximum, subtract, exponentials, their sum, divide or log."""
    shifted = x - np.max(x, axis=axis, keepdims=True)
    total = np.sum(np.exp(shifted), axis=axis, keepdims=True, dtype=np.float32)
    return np.exp(shifted) / total if kind == NORMALIZED_EXP else shifted - np.log(total)


def times_reciprocal(x: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """The softmax as the exponentials times the float32 reciprocal of their sum."""
    if kind != NORMALIZED_EXP:
        return kernel_order(x, axis, kind)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e * (np.float32(1.0) / np.sum(e, axis=axis, keepdims=True, dtype=np.float32))


def without_max(x: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """No subtraction of the maximum: exp(x) overflows past 88.7."""
    total = np.sum(np.exp(x), axis=axis, keepdims=True, dtype=np.float32)
    return np.exp(x) / total if kind == NORMALIZED_EXP else x - np.log(total)


def log_of_softmax(x: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """log(softmax(x)) in float32: -inf where the softmax underflows."""
    return np.log(kernel_order(x, axis, NORMALIZED_EXP))


def normalizing_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The own mutants and controls of a softmax or log-softmax entry (``make`` names and declares each)."""
    mutants = [make(NormalizingBackend, entry, key, "no-max-subtraction",
                    "exponentials of the values themselves, not of x - max (overflow past 88.7)", rule,
                    evaluate=staticmethod(without_max))]
    if entry.reduction["kind"] == LOG_NORMALIZED_EXP:
        mutants.append(make(NormalizingBackend, entry, key, "log-of-softmax",
                            "log of the float32 softmax (-inf where it underflows)", rule,
                            evaluate=staticmethod(log_of_softmax)))
    controls = [make(NormalizingBackend, entry, key, "float32-steps-control",
                     "the kernel's order in float32: maximum, subtract, exponentials, sum, divide or log",
                     (), evaluate=staticmethod(kernel_order)),
                make(NormalizingBackend, entry, key, "reciprocal-control",
                     "the exponentials times the float32 reciprocal of their sum", (),
                     evaluate=staticmethod(times_reciprocal))]
    return mutants, controls
