"""Mutants and controls of the variances and standard deviations (a value entry whose
``reduction.kind`` is ``variance`` or ``standard-deviation``), generated per operator beside the kinds
every reduction shares (promotion, dtype-missing, one ulp up, wrong-axis, keepdim-ignored). Each
device computes the call from the input's values as a kernel would (fp16 and bf16 in float32, the
result rounded to the input's dtype and cast to the output's), the host code's fills kept (an empty
input NaN; n - correction <= 0: NaN for n = 1, else infinity), with one thing changed:

- ``biased-divisor``: the sum of squared deviations divided by n, not n - correction;
- ``correction-ignored``: every call computed with the entry's first setting of the correction
  (its sample attribute), whatever the call gives;
- ``mean-not-subtracted``: E[x^2] - E[x]^2 in the input's dtype (cancels where the mean is large
  against the spread; fp16 sums of squares round coarsely);
- ``narrow-accumulation``: the squared deviations of fp16 and bf16 inputs summed in their own dtype;
- ``mean-n-minus-one`` (an API that writes the mean too): the mean output divided by n - 1.

Controls, correct devices the standard must pass: two passes in float32 (``two-pass-control``), the
kernel's order (the mean as a sum of x/2^k times a rounded 2^k/n, each deviation scaled by a rounded
1/(n - correction) before squaring; ``kernel-order-control``), Welford's updates in float32 left to
right (``welford-control``), two passes summed right to left (``reversed-control``) and two passes
from a mean rounded to the input's dtype (``narrow-mean-control``, the host code's ReduceMean first);
where the API writes the mean too, that mean as a float32 sum left to right over n (``mean-float32-control``).
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.mutants.surface_kinds import AttributeIgnoredMutant, SurfaceBackend
from aclnn_conformance.oracle.surface_functions import P
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import STANDARD_DEVIATION

F32 = np.float32


def _rows(x: np.ndarray, axes: tuple[int, ...]) -> tuple[np.ndarray, tuple[int, ...]]:
    """The slices as rows: the reduced axes moved last and flattened, with the kept shape."""
    kept = [a for a in range(x.ndim) if a not in axes]
    moved = np.transpose(x, kept + list(axes))
    return moved.reshape(int(np.prod([x.shape[a] for a in kept], dtype=np.int64)), -1), \
        tuple(x.shape[a] for a in kept)


def _sequential(rows: np.ndarray, dtype: type = F32, backwards: bool = False) -> np.ndarray:
    """Each row summed one term after another in ``dtype`` (right to left when ``backwards``)."""
    total = np.zeros(rows.shape[0], dtype)
    for j in (range(rows.shape[1] - 1, -1, -1) if backwards else range(rows.shape[1])):
        total = (total + rows[:, j].astype(dtype)).astype(dtype)
    return total


def two_pass(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    n = rows.shape[1]
    mean = np.sum(rows, axis=1, dtype=F32) / F32(n)
    d = rows - mean[:, None]
    return np.sum(d * d, axis=1, dtype=F32) / F32(divisor)


def kernel_order(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    n = rows.shape[1]
    power = F32(1 << (n - 1).bit_length())    # the next power of two (FindNextPower2)
    mean = np.sum(rows * (F32(1) / power), axis=1, dtype=F32) * F32(power / n)
    d = rows - mean[:, None]
    return np.sum((d * F32(1.0 / divisor)) * d, axis=1, dtype=F32)


def welford(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    mean = np.zeros(rows.shape[0], F32)
    m2 = np.zeros(rows.shape[0], F32)
    for k in range(rows.shape[1]):
        x = rows[:, k]
        delta = x - mean
        mean = mean + delta / F32(k + 1)
        m2 = m2 + delta * (x - mean)
    return m2 / F32(divisor)


def reversed_two_pass(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    mean = _sequential(rows, backwards=True) / F32(rows.shape[1])
    d = rows - mean[:, None]
    return _sequential(d * d, backwards=True) / F32(divisor)


def narrow_mean(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    mean = (np.sum(rows, axis=1, dtype=F32) / F32(rows.shape[1])).astype(narrow).astype(F32)
    d = rows - mean[:, None]
    return np.sum(d * d, axis=1, dtype=F32) / F32(divisor)


def biased(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    return two_pass(rows, rows.shape[1], narrow)


def one_pass(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    n = rows.shape[1]
    held = rows.astype(narrow)
    first = _sequential(held, narrow) / narrow.type(n)
    second = _sequential(held * held, narrow) / narrow.type(n)
    return ((second - first * first) * narrow.type(n / divisor)).astype(F32)


def narrow_accumulation(rows: np.ndarray, divisor: int, narrow: np.dtype) -> np.ndarray:
    mean = np.sum(rows, axis=1, dtype=F32) / F32(rows.shape[1])
    d = rows - mean[:, None]
    return _sequential((d * d).astype(narrow), narrow).astype(F32) / F32(divisor)


class DeviationBackend(SurfaceBackend):
    """A variance or standard deviation by ``evaluate`` (rows, divisor, the input's dtype) in float32."""

    evaluate: Callable[[np.ndarray, int, np.dtype], np.ndarray] = staticmethod(two_pass)

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        from aclnn_conformance.oracle.surface_variance import correction_of
        entry = self.entry()
        out = case.tensor(entry.output)
        arg = case.tensor(entry.reduction["input"])
        x = np.asarray(arg.view_of(arg.storage))
        work = np.dtype(x.dtype)
        shape = tuple(out.desc.shape)
        if x.size == 0:
            return np.full(shape, np.nan).astype(out.storage.dtype)
        rows, _ = _rows(x.astype(F32), reduced_axes(case, entry))
        divisor = rows.shape[1] - correction_of(case, entry)
        with np.errstate(all="ignore"):
            if divisor <= 0:   # the host code's fills
                result = np.full(rows.shape[0], np.nan if rows.shape[1] == 1 else np.inf, F32)
            else:
                result = np.asarray(self.evaluate(rows, divisor, work), F32)
            if entry.reduction["kind"] == STANDARD_DEVIATION:
                result = P.square_root(result)
            return result.astype(work).astype(out.storage.dtype).reshape(shape)


def float32_mean(rows: np.ndarray) -> np.ndarray:
    """The mean as a float32 sum left to right divided by n (a correct device)."""
    return _sequential(rows) / F32(rows.shape[1])


def mean_over_n_minus_one(rows: np.ndarray) -> np.ndarray:
    """The mean divided by n - 1 (a defect: a variance's divisor reused for the mean)."""
    return _sequential(rows) / F32(max(rows.shape[1] - 1, 1))


class MeanOutputBackend(SurfaceBackend):
    """The deviation as the oracle has it; the mean output (the reduction block's ``outputs.average``)
    by ``evaluate_mean`` (rows) in float32, rounded to the input's dtype and cast to its own."""

    evaluate_mean: Callable[[np.ndarray], np.ndarray] = staticmethod(float32_mean)

    def mutate(self, case: Case, product: str):
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        found = super().mutate(case, product)
        entry = self.entry()
        name = entry.reduction["outputs"]["average"]
        arg, source = case.tensors.get(name), case.tensors.get(entry.reduction["input"])
        if found.status != 0 or arg is None or source is None or not arg.desc.numel or source.desc.numel == 0:
            return found     # a refused or empty call: nothing of its own to write
        x = np.asarray(source.values())
        rows, _ = _rows(x.astype(F32), reduced_axes(case, entry))
        with np.errstate(all="ignore"):
            mean = np.asarray(self.evaluate_mean(rows), F32).astype(x.dtype).astype(arg.storage.dtype)
        arg.view_of(found.storages[name])[...] = mean.reshape(arg.desc.shape)
        return found


def variance_kinds(entry, key: str, rule: tuple[str, ...], make: Callable[..., type]) -> tuple[list[type], list[type]]:
    """The own mutants and controls of a variance or standard deviation entry (``make`` names and
    declares each)."""
    narrow_inputs = {"FLOAT16", "BF16"} & set(entry.sample.get("dtypes", ()))
    mutants = [make(DeviationBackend, entry, key, "biased-divisor", "divides the squared deviations' "
                    "sum by n, not n - correction", rule, evaluate=staticmethod(biased)),
               make(AttributeIgnoredMutant, entry, key, "correction-ignored", "computes every call with "
                    "the first correction setting, whatever the call gives", rule),
               make(DeviationBackend, entry, key, "mean-not-subtracted", "E[x^2] - E[x]^2 in the "
                    "input's dtype", rule, evaluate=staticmethod(one_pass))]
    if narrow_inputs:
        mutants.append(make(DeviationBackend, entry, key, "narrow-accumulation", "sums fp16 and bf16 "
                            "squared deviations in their own dtype", rule,
                            evaluate=staticmethod(narrow_accumulation)))
    controls = [make(DeviationBackend, entry, key, "two-pass-control", "two passes in float32", (),
                     evaluate=staticmethod(two_pass)),
                make(DeviationBackend, entry, key, "kernel-order-control", "the kernel's order: the "
                     "mean from x/2^k, each deviation scaled by a rounded 1/(n - correction)", (),
                     evaluate=staticmethod(kernel_order)),
                make(DeviationBackend, entry, key, "welford-control", "Welford's updates in float32",
                     (), evaluate=staticmethod(welford)),
                make(DeviationBackend, entry, key, "reversed-control", "two passes summed right to "
                     "left in float32", (), evaluate=staticmethod(reversed_two_pass)),
                make(DeviationBackend, entry, key, "narrow-mean-control", "two passes from a mean "
                     "rounded to the input's dtype", (), evaluate=staticmethod(narrow_mean))]
    if "average" in (entry.reduction.get("outputs") or {}):   # the second output, judged as well
        mutants.append(make(MeanOutputBackend, entry, key, "mean-n-minus-one", "writes the mean "
                            "divided by n - 1", rule, evaluate_mean=staticmethod(mean_over_n_minus_one)))
        controls.append(make(MeanOutputBackend, entry, key, "mean-float32-control", "writes the mean "
                             "as a float32 sum left to right over n", (),
                             evaluate_mean=staticmethod(float32_mean)))
    return mutants, controls
