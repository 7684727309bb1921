"""Mutants and controls of the layer normalizations (a value entry of kind ``layer-normalized``),
generated per operator from its entry. Each writes every output of the call (y, the mean, the
reciprocal root), recomputed in float32 as the vendor's kernels do (fp16 and bf16 cast to float32,
one cast at the end) with one thing changed, or the oracle's outputs moved:

- ``promotion``, ``dtype-missing``, ``ulp-bias`` (as the RMS norms', backends/mutants/surface_norms.py);
- ``unbiased-variance``: the squared deviations divided by n - 1 (torch.variance's default);
- ``eps-outside-root``: rstd = 1 / (sqrt(variance) + epsilon): a constant slice gives 1/epsilon;
- ``narrow-accumulation``: fp16/bf16 inputs summed and squared in their own dtype;
- ``dropped-tail``: the terms past the last whole block of 64 of a slice skipped;
- ``weight-ignored``, ``bias-ignored``: y without the weight, or without the bias;
- ``rstd-as-root``: the root sqrt(variance + epsilon) written for the reciprocal root;
- ``one-pass-variance``: variance = E[x^2] - E[x]^2 in float32 (cancels where the mean is large).

Controls, correct devices the standard must pass: the sums pairwise (``pairwise-control``), left to
right (``sequential-control``), the kernels' order (``kernel-order-control``: each term times the
rounded 1/n, block sums of 64, then their sum: layer_norm_v4_align.h:198-229), Welford's updates
(``welford-control``: layer_norm_v4_welford.h) and the reciprocal root as one Newton step from an
estimate (``newton-rstd-control``: reduce_common_regbase.h:471-514).
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_norms import (BLOCK, Float32Norm, _root32, _sum,
                                                              shared_norm_mutants)
from aclnn_conformance.spec.case import Case


def _welford(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Welford's running mean and sum of squared deviations of each row, in float32."""
    mean = np.zeros(rows.shape[0], np.float32)
    m2 = np.zeros(rows.shape[0], np.float32)
    for i in range(rows.shape[1]):
        count = np.float32(i + 1)
        delta = rows[:, i] - mean
        mean = (mean + delta / count).astype(np.float32)
        m2 = (m2 + delta * (rows[:, i] - mean)).astype(np.float32)
    return mean, m2


def _newton_rstd(v: np.ndarray) -> np.ndarray:
    """1/sqrt(v) as a root of the reciprocal refined by one Newton step, in float32."""
    one, half = np.float32(1.0), np.float32(0.5)
    y = _root32(one / v)
    return (y + y * half * (one - v * y * y)).astype(np.float32)


def float32_layer_norm(case: Case, entry: Any, order: str = "pairwise", narrow: bool = False,
                       unbiased: bool = False, eps_outside: bool = False, tail: bool = False,
                       weight_ignored: bool = False, bias_ignored: bool = False,
                       root_for_rstd: bool = False, one_pass: bool = False, newton: bool = False
                       ) -> dict[str, np.ndarray]:
    """Every output of a call computed in float32 steps (each flag a variant: a defect or another
    legal order)."""
    red = entry.reduction
    source = np.asarray(case.tensor(red["input"]).view_of(case.tensor(red["input"]).storage))
    dtype = np.dtype(source.dtype)
    accumulate = dtype if narrow and dtype != np.float32 else np.dtype(np.float32)
    x = source.astype(np.float32)
    k = len(case.attrs[red["dims"]]) if red["dims"] in case.attrs else case.tensor(red["dims"]).desc.ndim
    lead, trailing = x.shape[:x.ndim - k], x.shape[x.ndim - k:]
    rows = x.reshape(int(np.prod(lead)) if lead else 1, -1)
    n = rows.shape[1]
    kept = rows[:, :n - n % BLOCK] if tail and n > BLOCK else rows
    inv_n = np.float32(1.0) / np.float32(n)
    affine = {}
    for role, fill in (("weight", 1.0), ("bias", 0.0)):
        arg = case.tensors.get(red.get(role) or "")
        affine[role] = np.full(trailing, fill, np.float32) if arg is None else \
            np.asarray(arg.values()).astype(np.float32).reshape(trailing)
    with np.errstate(all="ignore"):
        if order == "welford":
            mean, m2 = _welford(kept)
            variance = m2 * inv_n
        else:
            terms = kept.astype(accumulate)
            if order == "blocked":    # each term times the rounded 1/n, block sums, then their sum
                mean = _sum(terms * accumulate.type(inv_n), "blocked", accumulate).astype(np.float32)
            else:
                mean = (_sum(terms, order, accumulate) * accumulate.type(inv_n)).astype(np.float32)
            if one_pass:
                mean_sq = _sum(terms * terms, order, accumulate).astype(np.float32) * inv_n
                variance = (mean_sq - mean * mean).astype(np.float32)
            else:
                dev = (kept - mean[:, None]).astype(accumulate)
                squares = dev * dev
                if order == "blocked":
                    variance = _sum(squares * accumulate.type(inv_n), "blocked", accumulate).astype(np.float32)
                else:
                    divisor = np.float32(n - 1 if unbiased else n)
                    variance = (_sum(squares, order, accumulate).astype(np.float32) / divisor).astype(np.float32)
        eps = np.float32(float(case.attrs.get(red["epsilon"], entry.defaults.get(red["epsilon"], 0.0))))
        if eps_outside:
            root = _root32(variance)
            rstd = (np.float32(1.0) / (root + eps)).astype(np.float32)
        elif newton:
            root = _root32(variance + eps)
            rstd = _newton_rstd((variance + eps).astype(np.float32))
        else:
            root = _root32(variance + eps)
            rstd = (np.float32(1.0) / root).astype(np.float32)
        y = (rows - mean[:, None]) * rstd[:, None]
        y = y.reshape(x.shape)
        if not weight_ignored:
            y = y * affine["weight"]
        if not bias_ignored:
            y = y + affine["bias"]
    found = {entry.output: y.astype(np.float32).astype(case.tensor(entry.output).storage.dtype)}
    stats = {"average": mean, "rstd": root if root_for_rstd else rstd}
    for role, name in red.get("outputs", {}).items():
        arg = case.tensors.get(name)
        if arg is not None:
            found[name] = stats[role].astype(np.float32).astype(arg.storage.dtype)
    return found


class Float32LayerNorm(Float32Norm):
    """Every output in the layer norm's float32 steps, with the class's ``variant`` flags."""

    steps = staticmethod(float32_layer_norm)


def layer_norm_mutant_set(key: str, cases: list[Case], make: Callable[..., type]) -> MutantSet:
    """The generated mutants and controls of a layer-normalized entry (``make`` names and declares each)."""
    from aclnn_conformance.spec.surface_cases import value_rule
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(key)
    red = entry.reduction
    rule = (value_rule(entry),)

    def variant(kind: str, defect: str, killed_by: tuple, **flags: Any) -> type:
        return make(Float32LayerNorm, entry, key, kind, defect, killed_by, variant=flags)

    mutants = shared_norm_mutants(entry, key, make) + [
               variant("unbiased-variance", "the squared deviations divided by n - 1", rule, unbiased=True),
               variant("eps-outside-root", "rstd = 1 / (sqrt(variance) + epsilon)", rule, eps_outside=True),
               variant("dropped-tail", f"the terms past the last whole block of {BLOCK} of a slice "
                       "skipped", rule, tail=True),
               variant("one-pass-variance", "variance = E[x^2] - E[x]^2 in float32", rule, one_pass=True)]
    if red.get("weight"):
        mutants.append(variant("weight-ignored", "y without the weight", rule, weight_ignored=True))
    if red.get("bias"):
        mutants.append(variant("bias-ignored", "y without the bias", rule, bias_ignored=True))
    if any(d in ("FLOAT16", "BF16") for d in entry.sample.get("dtypes", ())):
        mutants.append(variant("narrow-accumulation", "fp16/bf16 inputs summed and squared in their "
                               "own dtype", rule, narrow=True))
    if "rstd" in red.get("outputs", {}):
        mutants.append(variant("rstd-as-root", "the root itself written for the reciprocal root", rule,
                               root_for_rstd=True))
    controls = [variant("pairwise-control", "the sums pairwise in float32", (), order="pairwise"),
                variant("sequential-control", "the sums left to right in float32", (), order="sequential"),
                variant("kernel-order-control", "each term times the rounded 1/n, block sums of "
                        f"{BLOCK}, then their sum (the kernels' order)", (), order="blocked"),
                variant("welford-control", "Welford's running mean and sum of squared deviations in "
                        "float32", (), order="welford"),
                variant("newton-rstd-control", "the reciprocal root as one Newton step from the root "
                        "of 1/(variance + epsilon)", (), newton=True)]
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls))
