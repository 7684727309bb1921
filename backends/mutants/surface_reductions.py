"""Mutants and controls of the surface's reductions, generated per operator from its value entry
(``reduction``), beside the elementwise kinds they share (backends/mutants/surface_values.py:
promotion, dtype-missing, ulp-bias, flush). Kinds of their own:

- ``wrong-axis``: each reduced dim replaced by another dim of the same size (the result keeps its
  shape; a call whose reduced dims have no such partner is computed right);
- ``keepdim-ignored``: the output shape inferred without ``keepdim``, so that a valid call keeping
  its reduced dims is refused with 161002;
- the summing reductions' own kinds (backends/mutants/surface_sums.py: narrow-accumulation,
  dropped-tail, n-minus-one and three float32 orders as controls); their ulp-bias is equivalent
  where one ulp stays inside the summation bound on every value case;
- controls ``nan-ignoring-control`` (a slice holding NaN gives the extreme of its other values, as
  an IEEE maxNum/minNum does) and ``zero-sign-control`` (a zero result of the other sign): the
  standard leaves both open.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (FlushMutant, PROFILE, SurfaceBackend,
                                                              TwiceLimitMutant, UlpBiasMutant,
                                                              has_subnormal, promotion_or_equivalent,
                                                              sample_dtype_missing, _equivalent,
                                                              _is_float, _make)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.surface_values import reduction_shape, value_entry


def _partner_dims(case: Case, dims: list[int], rank: int) -> list[int]:
    """Each reduced dim moved to the next dim of the same size that is not reduced (kept when none)."""
    shape = case.tensor(value_entry(case.op).reduction["input"]).desc.shape
    n = rank if rank else 1
    wrapped = [d + n if d < 0 else d for d in dims]
    out = []
    for d in wrapped:
        others = [(d + k) % rank for k in range(1, rank)] if rank else []
        partner = next((o for o in others if shape[o] == shape[d] and o not in wrapped and o not in out), d)
        out.append(partner)
    return out


class WrongAxisMutant(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        red = self.entry().reduction
        dims = case.attrs.get(red["dims"])
        rank = case.tensor(red["input"]).desc.ndim
        if isinstance(dims, int):       # an index reduction's one dim
            return np.asarray(from_case(case.with_attrs(**{red["dims"]: _partner_dims(case, [dims], rank)[0]}),
                                        PROFILE).views[self.entry().output])
        dims = dims or []
        altered = case.with_attrs(**{red["dims"]: _partner_dims(case, list(dims), rank)}) if dims else case
        return np.asarray(from_case(altered, PROFILE).views[self.entry().output])


class KeepdimIgnoredMutant(SurfaceBackend):
    def refuse(self, case: Case) -> int | None:
        red = self.entry().reduction
        if not case.attrs.get(red["keepdim"]):
            return None
        inferred = reduction_shape(case.with_attrs(**{red["keepdim"]: False}), self.entry())
        out = case.tensors.get(self.entry().output)
        return Status.ERR_PARAM_INVALID if out is not None and inferred != tuple(out.desc.shape) else None


class SwappedOutputsMutant(SurfaceBackend):
    """The other output (``defect_output``) holds the first output's extreme: outputs written in the
    wrong order, or one reducer run twice."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        return np.asarray(from_case(case, PROFILE).views[self.entry().output])


class NanIgnoringControl(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_reductions import reduced_axes
        entry = self.entry()
        red = entry.reduction
        x = np.asarray(case.tensor(red["input"]).values())
        out = case.tensor(entry.output)
        if not _is_float(x.dtype) or x.size == 0 or out.desc.numel == 0:
            return super().values(case)
        wide = x.astype(np.float64)
        axes = reduced_axes(case, entry)
        reducer = np.fmax.reduce if red["kind"] == "max" else np.fmin.reduce
        result = reducer(wide, axis=axes, keepdims=bool(case.attrs.get(red["keepdim"]))) if axes else wide
        return np.asarray(result).astype(x.dtype).astype(out.storage.dtype).reshape(out.desc.shape)


class ZeroSignControl(SurfaceBackend):
    def change(self, case, expected, aux):
        if not _is_float(expected.dtype):
            return expected
        wide = expected.astype(np.float64)
        return np.where(wide == 0, -np.copysign(0.0, wide), wide).astype(expected.dtype)


def red_keepdim(entry) -> bool:
    # (a keepdim the API fixes, ``fixed_dims``, is no attribute a call could set)
    return bool(entry.reduction.get("keepdim")) and not entry.reduction.get("fixed_dims")


def fails_somewhere(cls: type, cases: list[Case]) -> bool:
    """Whether the entry's standard (spec/surface_models.py ``standards_for``) fails the outputs of
    ``cls`` on some value case."""
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_models import standards_for
    backend = cls()
    for case in cases:
        entry = value_entry(case.op)
        result = from_case(case, PROFILE)
        want = np.asarray(result.views[entry.output])
        got = np.asarray(backend.values(case)).reshape(want.shape).astype(want.dtype)
        if compare(standards_for(case.op)[entry.output], got, want,
                   result.aux[entry.output]).outcome == Outcome.FAIL:
            return True
    return False


def reduction_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a reduction (by key), given its value cases and the
    oracle's outputs on them."""
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    shape_rules = tuple(r.id for r in operator(key).spec.rules if r.category == "shape")
    float_out = [o for o in outputs if _is_float(o.dtype)]
    mutants, equivalent = promotion_or_equivalent(entry, key, rule, "reduces values rounded through a "
                                                  "narrower type", "every extreme", cases, outputs)
    mutants.append(sample_dtype_missing(entry, key, rule))
    if float_out and entry.normalizes:   # judged by the vendor's tolerance, as the transcendental class
        mutants.append(_make(TwiceLimitMutant, entry, key, "twice-limit",
                             "results off by twice the standard's limit", rule))
    elif float_out and any(o.astype(np.float64).any() for o in float_out):
        bias = _make(UlpBiasMutant, entry, key, "ulp-bias", "every result one ulp up", rule)
        if (entry.sums or entry.multiplies or entry.deviates) and not fails_somewhere(bias, cases):
            model = "product" if entry.multiplies else "variance" if entry.deviates else "summation"
            equivalent.append(_equivalent(bias, f"one ulp is inside the {model} model's bound on "
                                          "every value case"))
        else:
            mutants.append(bias)
    if any(has_subnormal(o) for o in float_out) and not entry.normalizes:   # (inside a tolerance's atol)
        mutants.append(_make(FlushMutant, entry, key, "flush", "subnormal results flushed to zero", rule))
    if entry.reduction.get("fixed_dims"):   # dims the API fixes: some of them left out (surface_fixed_dims.py)
        from aclnn_conformance.backends.mutants.surface_fixed_dims import fixed_dims_mutants
        mutants += fixed_dims_mutants(entry, key, rule)
    elif entry.reduction.get("dims"):    # a reduction of every element has no dim to mistake
        mutants.append(_make(WrongAxisMutant, entry, key, "wrong-axis", "reduces another dim of the same "
                             "size than the one named", rule))
    if red_keepdim(entry):    # a scan has no keepdim: its output is the input's shape
        mutants.append(_make(KeepdimIgnoredMutant, entry, key, "keepdim-ignored", "infers the output "
                             "shape without keepdim and refuses a valid call keeping its dims",
                             rule + shape_rules))
    # a product's zero has the sign of the product of the signs in every order: judged, no control
    controls: list[type] = [] if entry.multiplies else [
        _make(ZeroSignControl, entry, key, "zero-sign-control", "a zero result of the other sign", ())]
    if entry.indexes:   # positions: no zero sign; their own kinds
        from aclnn_conformance.backends.mutants.surface_indices import index_kinds
        own, controls = index_kinds(entry, key, rule, _make)
        mutants += own
    elif entry.sums:   # a NaN in a sum is NaN in any order: judged, no control; the sums' own kinds
        from aclnn_conformance.backends.mutants.surface_sums import sum_kinds
        own, own_controls = sum_kinds(entry, key, rule, _make)
        mutants += own
        controls += own_controls
    elif entry.multiplies:   # products: their own kinds (NaN, zeros and infinities judged by IEEE)
        from aclnn_conformance.backends.mutants.surface_products import product_kinds
        own, own_controls = product_kinds(entry, key, rule, _make)
        mutants += own
        controls += own_controls
    elif entry.truths:   # every and some: their own kinds (slices with NaN or subnormals are open)
        from aclnn_conformance.backends.mutants.surface_truths import truth_kinds
        own, own_controls = truth_kinds(entry, key, rule, _make)
        mutants += own
        controls += own_controls
    elif entry.deviates:   # variances, standard deviations: their own kinds (a NaN slice is NaN)
        from aclnn_conformance.backends.mutants.surface_variance import variance_kinds
        own, own_controls = variance_kinds(entry, key, rule, _make)
        mutants += own
        controls += own_controls
    elif entry.normalizes:   # softmax, log-softmax: their own kinds (slices with NaN or inf are open)
        from aclnn_conformance.backends.mutants.surface_softmax import normalizing_kinds
        own, own_controls = normalizing_kinds(entry, key, rule, _make)
        mutants += own
        controls += own_controls
    else:
        controls.insert(0, _make(NanIgnoringControl, entry, key, "nan-ignoring-control", "a slice "
                                 "holding NaN gives the extreme of its other values", ()))
        if len(entry.outputs) > 1 and not entry.paired_index:   # a minimum beside a maximum
            mutants.append(_make(SwappedOutputsMutant, entry, key, "swapped-outputs", "writes the "
                                 "first output's extreme into the second output", rule,
                                 defect_output=entry.outputs[1]))
        if entry.paired_index:   # the extreme's positions beside its values: the index kinds there
            from aclnn_conformance.backends.mutants.surface_indices import index_kinds
            own, own_controls = index_kinds(entry, key, rule, _make)
            mutants += own
            controls += own_controls
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls), equivalent=tuple(equivalent))
