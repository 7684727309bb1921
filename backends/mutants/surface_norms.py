"""Mutants and controls of the root-mean-square normalizations (a value entry of a ``NORM_KINDS``
kind), generated per operator from its entry. Each writes every output of the call (y, the
reciprocal root, an added input's sum), recomputed in float32 as the vendor's kernels do (fp16 and
bf16 cast to float32, one cast at the end) with one thing changed, or the oracle's outputs moved:

- ``promotion`` (the inputs rounded through a narrower type), ``dtype-missing`` (an accepted dtype
  refused), ``ulp-bias`` (every output one ulp up);
- ``eps-outside-root``: rstd = 1 / (sqrt(mean) + epsilon): a slice of zeros gives 1/epsilon;
- ``narrow-accumulation``: the squares of fp16/bf16 inputs summed in their own dtype (x^2 of 300
  overflows fp16; a long slice's partial sums stall);
- ``dropped-tail``: the terms past the last whole block of 64 of a slice skipped;
- ``weight-ignored``: y = x * rstd, the weight never read;
- ``rstd-as-root``: the root itself written for the reciprocal root (where the entry judges it);
- ``addend-ignored`` (an added input): the second addend never added.

Controls, correct devices the standard must pass: the squares summed left to right
(``sequential-control``), pairwise (``pairwise-control``), right to left (``reversed-control``), the
kernels' order (``kernel-order-control``: each square times the rounded 1/n, block sums of 64, then
their sum: rms_norm_split_d.h:282-287, add_rms_norm.h:171-175), and a two-pass sum of squares scaled
by a power of two of the slice's largest magnitude (``scaled-two-pass-control``); an added input's
sum held cast to the input's dtype (``held-sum-control``).
"""
from __future__ import annotations

from typing import Any, Callable

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (PROFILE, SurfaceBackend, _is_float,
                                                              _through, one_ulp_up, sample_dtype_missing)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status

_BF16 = np.dtype(ml_dtypes.bfloat16)
BLOCK = 64   # the block whose tail the dropped-tail mutant skips (a vector repeat of 64 floats)


class NormBackend(SurfaceBackend):
    """Status from the spec; on a judged success every output ``outputs(case)`` gives."""

    refused_dtype = ""

    def refuse(self, case: Case) -> int | None:
        if not self.refused_dtype:
            return None
        red = self.entry().reduction
        first = case.tensors.get((red.get("addends") or (red["input"],))[0])
        return Status.ERR_PARAM_INVALID if first is not None and first.desc.dtype.name == self.refused_dtype \
            else None

    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        from aclnn_conformance.oracle.surface import from_case
        return {n: np.asarray(v) for n, v in from_case(case, PROFILE).views.items()}

    def values(self, case: Case) -> np.ndarray:
        return self.outputs(case)[self.entry().output]


class PromotedNorm(NormBackend):
    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        from aclnn_conformance.oracle.surface import from_case
        from aclnn_conformance.spec.tensor import TensorArg
        entry = self.entry()
        red = entry.reduction
        altered = case
        for name in (*(red.get("addends") or (red["input"],)), red.get("weight", red["dims"])):
            arg = case.tensors.get(name)
            if arg is not None:
                altered = altered.with_tensor(name, TensorArg(arg.desc, _through(arg.storage, arg.storage.dtype)))
        return {n: np.asarray(v) for n, v in from_case(altered, PROFILE).views.items()}


class UlpUpNorm(NormBackend):
    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        return {n: one_ulp_up(v) if _is_float(v.dtype) else v for n, v in super().outputs(case).items()}


def _sum(terms: np.ndarray, order: str, accumulate: np.dtype) -> np.ndarray:
    """The row sums of 2-d ``terms`` in ``accumulate`` in one order."""
    t = terms.astype(accumulate)
    if t.shape[1] == 0:
        return np.zeros(t.shape[0], accumulate)
    if order == "sequential":   # NumPy's cumulative sum adds left to right
        return np.cumsum(t, axis=1, dtype=accumulate)[:, -1]
    if order == "reversed":
        return np.cumsum(t[:, ::-1], axis=1, dtype=accumulate)[:, -1]
    if order == "blocked":     # block sums of 64, then their sum
        n = t.shape[1]
        blocks = [np.sum(t[:, i:i + BLOCK], axis=1, dtype=accumulate) for i in range(0, n, BLOCK)]
        return np.cumsum(np.stack(blocks, axis=1), axis=1, dtype=accumulate)[:, -1]
    return np.sum(t, axis=1, dtype=accumulate)    # NumPy's pairwise sum


def float32_norm(case: Case, entry: Any, order: str = "pairwise", narrow: bool = False,
                 eps_outside: bool = False, tail: bool = False, weight_ignored: bool = False,
                 root_for_rstd: bool = False, pre_scale: bool = False, scaled: bool = False,
                 held_sum: bool = False, addend_ignored: bool = False) -> dict[str, np.ndarray]:
    """Every output of a call computed in float32 steps (each flag a variant: a defect or another
    legal order)."""
    red = entry.reduction
    names = tuple(red.get("addends") or (red["input"],))
    views = [np.asarray(case.tensor(n).view_of(case.tensor(n).storage)) for n in names]
    dtype = np.dtype(views[0].dtype)
    with np.errstate(all="ignore"):
        if len(views) > 1 and not addend_ignored:
            total = views[0] + views[1] if dtype == np.float16 else \
                (views[0].astype(np.float32) + views[1].astype(np.float32))   # fp16 adds in fp16
        else:
            total = views[0]
        x_out = np.asarray(total).astype(np.float32).astype(dtype)
        x = x_out.astype(np.float32) if held_sum else np.asarray(total).astype(np.float32)
        weight = np.asarray(case.tensor(red.get("weight", red["dims"])).values()).astype(np.float32)
        if red.get("weight_offset"):
            weight = weight + np.float32(red["weight_offset"])
        k = weight.ndim
        lead = x.shape[:x.ndim - k]
        rows = x.reshape(int(np.prod(lead)) if lead else 1, -1)
        n = rows.shape[1]
        inv_n = np.float32(1.0) / np.float32(n)
        top = np.ones(rows.shape[0], np.float32)
        if scaled:   # a power of two of the largest magnitude: exact scaling
            big = np.max(np.absolute(rows), axis=1) if n else top
            _, power = np.frexp(np.where((big > 0) & np.isfinite(big), big, 1.0))
            top = np.ldexp(np.float32(1.0), power).astype(np.float32)   # 2^e >= the largest magnitude
        scaled_rows = rows / top[:, None]
        squares = scaled_rows * scaled_rows
        if narrow and dtype != np.float32:
            squares = squares.astype(dtype)
        if pre_scale:
            squares = squares * inv_n
        if tail and n > BLOCK:
            squares = squares[:, :n - n % BLOCK]
        total_sq = _sum(squares, order, dtype if narrow and dtype != np.float32 else np.dtype(np.float32))
        mean = total_sq.astype(np.float32) * (top * top)
        if not pre_scale:
            mean = mean * inv_n
        eps = np.float32(float(case.attrs.get(red["epsilon"], entry.defaults.get(red["epsilon"], 0.0))))
        # a float32 root correctly rounded: the float64 root rounded once (53 >= 2 * 24 + 2)
        root = _root32(mean + eps if not eps_outside else mean)
        rstd = np.float32(1.0) / (root if not eps_outside else root + eps)
        rstd = rstd.astype(np.float32)
        y = (rows * rstd[:, None]).reshape(x.shape)
        if not weight_ignored:
            y = y * weight
    y_arg = case.tensor(entry.output)
    found = {entry.output: y.astype(np.float32).astype(y_arg.storage.dtype)}
    for role, name in red.get("outputs", {}).items():
        if role == "rstd":
            found[name] = (root if root_for_rstd else rstd).astype(np.float32)
        else:
            found[name] = x_out
    return found


def _root32(values: np.ndarray) -> np.ndarray:
    return (np.asarray(values, np.float32).astype(np.float64) ** 0.5).astype(np.float32)


class Float32Norm(NormBackend):
    """Every output in ``steps`` (float32 steps), with the class's ``variant`` flags; an empty
    call's outputs as the oracle has them."""

    variant: dict = {}
    steps: Callable[..., dict[str, np.ndarray]] = staticmethod(float32_norm)

    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        entry = self.entry()
        red = entry.reduction
        if any(np.asarray(case.tensor(n).values()).size == 0 for n in (red.get("addends") or (red["input"],))):
            return super().outputs(case)
        return self.steps(case, entry, **self.variant)


def shared_norm_mutants(entry: Any, key: str, make: Callable[..., type]) -> list[type]:
    """The mutants every normalization kind has: inputs promoted through a narrower type, the first
    accepted dtype refused, every output one ulp up."""
    from aclnn_conformance.spec.surface_cases import value_rule
    rule = (value_rule(entry),)
    return [make(PromotedNorm, entry, key, "promotion", "normalizes inputs rounded through a "
                 "narrower type", rule),
            sample_dtype_missing(entry, key, rule, NormBackend),
            make(UlpUpNorm, entry, key, "ulp-bias", "every output one ulp up", rule)]


def norm_mutant_set(key: str, cases: list[Case], make: Callable[..., type]) -> MutantSet:
    """The generated mutants and controls of a normalization entry (``make`` names and declares each)."""
    from aclnn_conformance.spec.surface_cases import value_rule
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(key)
    red = entry.reduction
    rule = (value_rule(entry),)

    def variant(kind: str, defect: str, killed_by: tuple, **flags: Any) -> type:
        return make(Float32Norm, entry, key, kind, defect, killed_by, variant=flags)

    mutants = shared_norm_mutants(entry, key, make) + [
               variant("eps-outside-root", "rstd = 1 / (sqrt(mean of squares) + epsilon)", rule,
                       eps_outside=True),
               variant("dropped-tail", f"the terms past the last whole block of {BLOCK} of a slice "
                       "skipped", rule, tail=True),
               variant("weight-ignored", "y = x * rstd: the weight never read", rule, weight_ignored=True)]
    if any(d in ("FLOAT16", "BF16") for d in entry.sample.get("dtypes", ())):
        mutants.append(variant("narrow-accumulation", "the squares of fp16/bf16 inputs summed in their "
                               "own dtype", rule, narrow=True))
    if "rstd" in red.get("outputs", {}) and "rstd" not in red.get("open_outputs", {}).get("any", ()):
        mutants.append(variant("rstd-as-root", "the root itself written for the reciprocal root", rule,
                               root_for_rstd=True))
    if red.get("addends"):
        mutants.append(variant("addend-ignored", "the second addend never added", rule,
                               addend_ignored=True))
    controls = [variant("sequential-control", "the squares summed left to right in float32", (),
                        order="sequential"),
                variant("pairwise-control", "the squares summed pairwise in float32", (), order="pairwise"),
                variant("reversed-control", "the squares summed right to left in float32", (),
                        order="reversed"),
                variant("kernel-order-control", "each square times the rounded 1/n, block sums of "
                        f"{BLOCK}, then their sum (the kernels' order)", (), order="blocked", pre_scale=True),
                variant("scaled-two-pass-control", "a first pass for the largest magnitude, the squares "
                        "of the values scaled by a power of two of it summed in float32", (), scaled=True)]
    if red.get("addends"):
        controls.append(variant("held-sum-control", "the added inputs' sum cast to their dtype before "
                                "the norm", (), held_sum=True))
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
