"""Mutants and controls of the gated units (a value entry whose ``reduction.kind`` is ``halves``),
generated per operator from its entry: the defects a real kernel of a gated unit would have.

- ``promotion`` (the input rounded through a narrower type), ``dtype-missing`` (an accepted dtype
  refused) and ``twice-limit`` (results off by twice the standard's limit), as every entry;
- ``halves-swapped``: the activation applied to the other half (the halves' roles exchanged);
- ``wrong-dim``: the input split along another dim of the same length than the one the call names
  (or, where the API takes no dim, than its fixed one); a call with no such dim is computed right;
  a backward's gradient then read flat in that split's layout;
- ``output-halves-swapped`` (a backward): the two halves of the output written in each other's place;
- ``interleave-ignored`` (an entry with ``reduction.interleaved``): the first and second half taken
  where the call asks for the even and odd elements;
- ``attribute-ignored`` (an entry whose ``sample.attr_variants`` set a numeric operand, a mode): every
  call computed with the sample's first setting.

Controls, correct devices the standard must pass: the entry's function in float32 in its own
order over the halves cast to float32 (``float32-steps-control``: the kernels' order), each of the
entry's ``kernel_forms`` (another formula a kernel evaluates, in float32), and zero results of the
other sign (the sign of a zero is left open).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.backends.mutants.base import MutantSet
from aclnn_conformance.backends.mutants.surface_kinds import (AttributeIgnoredMutant, PROFILE,
                                                              SurfaceBackend, TwiceLimitMutant,
                                                              promotion_or_equivalent,
                                                              sample_dtype_missing, _make)
from aclnn_conformance.backends.mutants.surface_reductions import ZeroSignControl
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry
from aclnn_conformance.spec.tensor import TensorArg


def _input(case: Case, entry) -> np.ndarray:
    arg = case.tensor(entry.reduction["input"])
    return np.asarray(arg.view_of(arg.storage))


def partner_axis(case: Case, entry) -> int | None:
    """Another axis of the input of the same (even) length as the split one, None when there is none."""
    from aclnn_conformance.spec.surface_halves import split_axis
    shape = tuple(case.tensor(entry.reduction["input"]).desc.shape)
    axis = split_axis(case, entry)
    if axis is None:
        return None
    return next((o for o in range(len(shape)) if o != axis and shape[o] == shape[axis]), None)


class HalvesBackend(SurfaceBackend):
    """The entry's function over the halves along ``axis_of`` (the call's by default), evaluated in
    ``evaluate_in`` (``function_of``: the entry's function or a kernel form)."""

    evaluate_in: Any = np.dtype(np.float64)
    form = ""          # another formula of the entry's (its ``kernel_forms``), "" for the function

    def axis_of(self, case: Case) -> int | None:
        from aclnn_conformance.spec.surface_halves import split_axis
        return split_axis(case, self.entry())

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface_halves import compute_dtype_of, environment, evaluate_halves
        from aclnn_conformance.spec.surface_halves import gradient_of
        entry = self.entry()
        out = case.tensor(entry.output)
        x = _input(case, entry)
        axis = self.axis_of(case)
        if x.size == 0 or axis is None or x.shape[axis] % 2:
            return super().values(case)
        compute = compute_dtype_of(case, entry)
        env, _ = environment(case, entry, axis, compute, np.dtype(self.evaluate_in))
        gradient = gradient_of(entry)
        half = np.shape(env[entry.reduction["halves"][0]])
        if gradient is not None and np.shape(env[gradient]) != half:
            env[gradient] = np.reshape(env[gradient], half)   # the flat gradient read in the other layout
        forms = (self.form,) if self.form else None
        result = evaluate_halves(case, entry, axis, env, x.shape if gradient else half,
                                 np.dtype(self.evaluate_in), forms)
        with np.errstate(all="ignore"):
            return np.asarray(result).astype(compute).astype(out.storage.dtype).reshape(out.desc.shape)


class WrongDimMutant(HalvesBackend):
    def axis_of(self, case: Case) -> int | None:
        other = partner_axis(case, self.entry())
        return other if other is not None else super().axis_of(case)


class SwappedHalvesMutant(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        from aclnn_conformance.spec.surface_halves import split_axis
        entry = self.entry()
        name = entry.reduction["input"]
        arg = case.tensor(name)
        axis = split_axis(case, entry)
        x = np.asarray(arg.view_of(arg.storage))
        if x.size == 0 or axis is None or x.shape[axis] % 2:
            return super().values(case)
        first, second = np.split(x, 2, axis=axis)
        swapped = np.ascontiguousarray(np.concatenate([second, first], axis=axis))
        altered = case.with_tensor(name, TensorArg.from_array(swapped, arg.desc.dtype))
        return np.asarray(from_case(altered, PROFILE).views[entry.output])


class OutputHalvesSwappedMutant(SurfaceBackend):
    """A backward writing its two halves in each other's place (the concatenation's order reversed)."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        from aclnn_conformance.spec.surface_halves import split_axis
        entry = self.entry()
        result = np.asarray(from_case(case, PROFILE).views[entry.output])
        axis = split_axis(case, entry)
        if result.size == 0 or axis is None or result.shape[axis] % 2:
            return result
        first, second = np.split(result, 2, axis=axis)
        return np.concatenate([second, first], axis=axis)


class InterleaveIgnoredMutant(SurfaceBackend):
    """Splits into the first and second half where the call asks for even and odd elements."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        name = self.entry().reduction["interleaved"]
        return np.asarray(from_case(case.with_attrs(**{name: False}), PROFILE).views[self.entry().output])


def halves_mutant_set(key: str, outputs: list[np.ndarray], cases: list[Case]) -> MutantSet:
    """The generated mutants and controls of a gated unit (by key), given its value cases and the
    oracle's outputs on them."""
    from aclnn_conformance.spec.surface_cases import value_rule
    entry = value_entry(key)
    rule = (value_rule(entry),)
    mutants, equivalent = promotion_or_equivalent(entry, key, rule, "computes on the input rounded "
                                                  "through a narrower type", "every result", cases, outputs)
    mutants += [
        sample_dtype_missing(entry, key, rule),
        _make(TwiceLimitMutant, entry, key, "twice-limit", "results off by twice the standard's limit", rule),
        _make(SwappedHalvesMutant, entry, key, "halves-swapped", "applies the activation to the other "
              "half (the halves' roles exchanged)", rule),
        _make(WrongDimMutant, entry, key, "wrong-dim", "splits another dim of the same length than the "
              "one the call names", rule)]
    if entry.reduction.get("gradient"):   # a backward: its output's halves in the wrong order
        mutants.append(_make(OutputHalvesSwappedMutant, entry, key, "output-halves-swapped", "writes the "
                             "second half's gradient first and the first half's second", rule))
    if entry.reduction.get("interleaved"):   # the even/odd split taken as the first/second half
        mutants.append(_make(InterleaveIgnoredMutant, entry, key, "interleave-ignored", "splits into "
                             "the first and second half where the call asks for even and odd elements", rule))
    numeric = [k for v in entry.sample.get("attr_variants", ()) for k in v
               if k in entry.reduction.get("operands", ()) and k not in entry.reduction.get("words", {})]
    if numeric:   # a numeric attribute another setting of which the kernel never reads (a fixed mode)
        mutants.append(_make(AttributeIgnoredMutant, entry, key, "attribute-ignored", "computes every "
                             f"call with {entry.sample['attrs']}, whatever it gives", rule))
    controls: list[type] = [
        _make(HalvesBackend, entry, key, "float32-steps-control", "the function in its own order in "
              "float32 over the halves cast to float32, one cast to the output", (),
              evaluate_in=np.dtype(np.float32)),
        _make(ZeroSignControl, entry, key, "zero-sign-control", "a zero result of the other sign", ())]
    for form in entry.reduction.get("kernel_forms", ()):
        controls.append(_make(HalvesBackend, entry, key, f"{form['name']}-control", form["why"], (),
                              evaluate_in=np.dtype(np.float32), form=form["function"]))
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls), equivalent=tuple(equivalent))
