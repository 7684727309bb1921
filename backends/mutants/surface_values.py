"""Mutants and controls of the elementwise surface, generated per operator from its value entry and
its spec (``MUTANT_SETS.<key>``, joined to the interface mutants of backends/mutants/surface.py,
whose swapped-checks mutants cover the check order); an operator none of whose value cases is
value-judged on any product gets none.

Each backend takes its status from the spec, like the reference backend, and its values from the
oracle with one defect; a control computes correctly but otherwise than the oracle. Kinds:

- ``promotion``: the inputs rounded through a narrower type first (float32 and fp16 through
  bf16, bf16 through fp16, integers through their low byte): a wrong compute dtype;
- ``dtype-missing``: the first sample dtype refused with 161002;
- ``nan``: NaN results written as 0 (float outputs whose cases produce NaN);
- ``ulp-bias``: every non-zero finite result one ulp up (exact and rounded classes);
- ``twice-limit``: results off by twice the standard's limit (transcendental class);
- ``flush``: subnormal results flushed to zero (exact class: the model keeps every value);
- ``zero-sign``: -0 results written +0, where IEEE 754 fixes the sign (a product or quotient of the
  operands, a negation, an odd function at +-0: ``oracle.surface_functions.zero_sign_fixed``);
- controls ``faithful`` (transcendental: the other faithful neighbour for a pseudo-random half),
  ``float32-steps`` (rounded: every operation rounded in float32, one cast at the end; divisions
  and square roots the other faithful neighbour for a pseudo-random half) and ``native-steps``
  (rounded, fp16/bf16 calls: every operation rounded in the compute dtype itself; a call of an
  integer compute dtype, which no step rounding models, as float32 steps).

The backend and the defect kinds are in backends/mutants/surface_kinds.py (shared with the
reductions' sets, backends/mutants/surface_reductions.py, which a reduction's entry gets instead).
"""
from __future__ import annotations

import ast
from functools import lru_cache
from typing import Any

import numpy as np

from aclnn_conformance.backends.mutants.base import Mutant, MutantSet, MutantSetsByKey
from aclnn_conformance.backends.mutants.surface_kinds import (PROFILE, SEED, AttributeIgnoredMutant,
                                                             DtypeMissingMutant, FlushMutant, NanMutant,
                                                             PromotionMutant, SurfaceBackend,
                                                             TwiceLimitMutant, UlpBiasMutant, _equivalent,
                                                             ZeroSignMutant, _is_float, _make, _same_outputs,
                                                             has_negative_zero, has_subnormal, one_ulp_up)
from aclnn_conformance.backends.mutants.surface_reductions import reduction_mutant_set
from aclnn_conformance.backends.mutants.surface_variants import variant_classes
from aclnn_conformance.oracle.surface_functions import divides_or_roots, zero_sign_fixed
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import value_entry
from aclnn_conformance.spec.surface_values import LAYER_NORMALIZED
from aclnn_conformance.spec.outcome import Outcome

# ---- the controls ----

def _half(shape: tuple[int, ...], seed: int = SEED) -> np.ndarray:
    return np.random.default_rng(seed).random(shape) < 0.5


class FaithfulControl(SurfaceBackend):
    """The transcendental result as the other faithful neighbour of the exact value, for a
    pseudo-random half of the elements."""

    def change(self, case, expected, aux):
        from aclnn_conformance.spec.surface_compare import neighbours
        if not _is_float(expected.dtype):   # an integer output is exact whatever the algorithm
            return expected
        exact = np.asarray(aux["exact"], np.float64).reshape(expected.shape)
        low, high = neighbours(exact, expected.dtype)
        g = expected.astype(np.float64)
        other = np.where(g == low, high, low)
        return np.where(_half(expected.shape) & np.isfinite(other), other, g).astype(expected.dtype)


def flush_products() -> tuple[str, ...]:
    """The products whose special-value model leaves subnormal flushing open."""
    from aclnn_conformance.spec.special_values import EITHER, SPECIAL_VALUES
    return tuple(p for p, model in SPECIAL_VALUES.items() if model.subnormals == EITHER)


class FlushToZeroControl(SurfaceBackend):
    """A correct device that reads subnormal inputs and writes subnormal results as zero; it runs
    only on the products whose model leaves that open (elsewhere the flush mutants show it wrong)."""

    def products(self) -> tuple[str, ...]:
        return flush_products()

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import flush_subnormals, from_case
        from aclnn_conformance.spec.tensor import TensorArg
        entry = self.entry()
        altered = case
        for name in entry.inputs:
            arg = case.tensors.get(name)
            if arg is not None and (name != entry.output or entry.inplace):
                altered = altered.with_tensor(name, TensorArg(arg.desc, flush_subnormals(arg.storage)))
        return flush_subnormals(np.asarray(from_case(altered, PROFILE).views[entry.output]))


class StepsControl(SurfaceBackend):
    """The rounded class's formula with every operation rounded in ``steps`` (float32, or the
    compute dtype itself), one cast to the output; with ``faithful`` the divisions and square roots
    take the other faithful neighbour for a pseudo-random half of the elements; with ``ulps`` they
    land that many float32 steps from the correctly rounded result, either way or not at all, by
    value (exact results too)."""

    native = False
    ulps = 0

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import compute_dtype, inputs
        entry = self.entry()
        out_dtype = case.tensor(entry.output).storage.dtype
        compute = compute_dtype(case, entry)
        env, shape = inputs(case, entry, compute)
        # native steps model an fp16/bf16 device; an integer compute dtype is no rounding model, so
        # those calls are computed as the float32-steps control does (also a correct variant)
        steps = compute if self.native and np.dtype(compute).kind == "f" else np.dtype(np.float32)
        cast = {k: (v.astype(steps) if isinstance(v, np.ndarray) and v.dtype.kind == "f" else v)
                for k, v in env.items()}
        out_shape = tuple(case.tensor(entry.output).desc.shape)
        shape = np.broadcast_shapes(shape, out_shape) if out_shape else shape
        with np.errstate(all="ignore"):
            # an integer compute dtype divides exactly in the model: no ulps to move
            result = _stepwise(entry.function, cast, steps, faithful=not self.native,
                               ulps=self.ulps if not self.native and _is_float(compute) else 0)
            return np.broadcast_to(np.asarray(result).astype(out_dtype), shape)


def _other_faithful(exact: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    from aclnn_conformance.spec.surface_compare import neighbours
    low, high = neighbours(np.asarray(exact, np.float64), rounded.dtype)
    r = rounded.astype(np.float64)
    other = np.where(r == low, high, low)
    pick = _half(np.shape(r)) & np.isfinite(other) & (low != high)
    return np.where(pick, other, r).astype(rounded.dtype)


def _steps_off(result: np.ndarray, ulps: int, *operands) -> np.ndarray:
    """``result`` (float32) moved -ulps, 0 or +ulps float32 steps, chosen by the operands' values."""
    from aclnn_conformance.backends.mutants.faithful_arithmetic import steps_away, value_choice
    return steps_away(result, (value_choice(3, *operands) - 1) * ulps)


def _stepwise(expression: str, env: dict, steps: np.dtype, faithful: bool, ulps: int = 0) -> Any:
    """Evaluate with every operation in ``steps``; divisions and roots faithful when asked, or
    ``ulps`` steps from the correctly rounded result."""
    from aclnn_conformance.oracle.surface_functions import _BINARY, _COMPARE, parse, vocabulary

    def ev(node):
        if isinstance(node, ast.Constant):
            return steps.type(node.value) if isinstance(node.value, (int, float)) and not \
                isinstance(node.value, bool) else node.value
        if isinstance(node, ast.Name):
            value = env[node.id]
            return steps.type(value) if isinstance(value, float) else value
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            result = np.asarray(_BINARY[type(node.op)](a, b))
            if ulps and isinstance(node.op, ast.Div):
                return _steps_off(result, ulps, a, b)
            if faithful and isinstance(node.op, ast.Div):
                exact = np.asarray(a, np.float64) / np.asarray(b, np.float64)
                result = _other_faithful(exact, result)
            return result
        if isinstance(node, ast.Compare):
            left, result = ev(node.left), None
            for op, comparator in zip(node.ops, node.comparators):
                right = ev(comparator)
                step = _COMPARE[type(op)](left, right)
                result = step if result is None else result & step
                left = right
            return result
        if isinstance(node, ast.Call):
            word = vocabulary()[node.func.id]
            args = [ev(a) for a in node.args]
            result = word.callable()(*args)
            if ulps and word.bound == "root":
                return _steps_off(np.asarray(result), ulps, *args)
            if faithful and word.bound == "root":
                result = _other_faithful(word.callable()(np.asarray(args[0], np.float64)),
                                         np.asarray(result))
            return result
        raise ValueError(ast.unparse(node))

    return ev(parse(expression))


# ---- generation ----

def _value_outputs(key: str) -> list[np.ndarray]:
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_cases import value_cases
    entry = value_entry(key)
    return [np.asarray(from_case(c, PROFILE).views[entry.output]) for c in value_cases(key)]


def mutant_set(key: str) -> MutantSet:
    """The generated mutants and controls of one operator (by key)."""
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.surface_cases import value_cases, value_rule
    entry = value_entry(key)
    spec = operator(key).spec
    rule = (value_rule(entry),)
    dtype_rules = tuple(r.id for r in spec.rules if r.category == "dtype")
    outputs = _value_outputs(key)
    float_out = [o for o in outputs if _is_float(o.dtype)]
    cls = entry.function_class
    if not _judged_somewhere(key):
        return MutantSet()   # no call of it is value-judged (an unread check, an unsupported product)
    cases = value_cases(key)
    if entry.halves:   # a function of the input's two halves: its own set (surface_halves.py)
        from aclnn_conformance.backends.mutants.surface_halves import halves_mutant_set
        return halves_mutant_set(key, outputs, cases)
    if entry.normalized_grads:   # softmax's and log-softmax's gradients (surface_normalized_grads.py)
        from aclnn_conformance.backends.mutants.surface_normalized_grads import normalized_grad_mutant_set
        return normalized_grad_mutant_set(key, outputs, cases)
    if entry.norms and entry.reduction["kind"] == LAYER_NORMALIZED:   # surface_layer_norms.py
        from aclnn_conformance.backends.mutants.surface_layer_norms import layer_norm_mutant_set
        return layer_norm_mutant_set(key, cases, _make)
    if entry.norms:   # every output by role: their own set (backends/mutants/surface_norms.py)
        from aclnn_conformance.backends.mutants.surface_norms import norm_mutant_set
        return norm_mutant_set(key, cases, _make)
    if entry.orders:   # the positions that sort each slice: its own set (surface_order.py)
        from aclnn_conformance.backends.mutants.surface_order import order_mutant_set
        return order_mutant_set(key, cases)
    if entry.runs:   # every prefix's extreme and its position: its own set (surface_running.py)
        from aclnn_conformance.backends.mutants.surface_running import running_mutant_set
        return running_mutant_set(key, cases)
    if entry.contracts:   # a dot product, a diagonal's sum: their own set (surface_contractions.py)
        from aclnn_conformance.backends.mutants.surface_contractions import contraction_mutant_set
        return contraction_mutant_set(key, outputs, cases)
    if entry.reduction is not None:
        return reduction_mutant_set(key, outputs, cases)
    if entry.raw.get("movement"):   # data movement's own kinds (copies, axes), beside the exact ones
        from aclnn_conformance.backends.mutants.surface_movement import movement_mutant_set
        return movement_mutant_set(key, outputs, cases, FlushToZeroControl)
    if entry.raw.get("conversion"):   # a dtype conversion's own kinds (rounding mode, overflow, wrap)
        from aclnn_conformance.backends.mutants.surface_conversions import conversion_mutant_set
        return conversion_mutant_set(key, outputs, cases, FlushToZeroControl)
    equivalent: list[type] = []
    promotion = _make(PromotionMutant, entry, key, "promotion", "computes in a wrongly promoted "
                      "(narrower) dtype", rule)
    if _same_outputs(promotion, cases, outputs):
        equivalent.append(_equivalent(promotion, "rounding the inputs through a narrower type leaves "
                                      "the result unchanged on every value case (a sign test, a "
                                      "mask of the low byte)"))
    mutants: list[type] = [
        *([] if equivalent else [promotion]),
        _make(DtypeMissingMutant, entry, key, "dtype-missing",
              f"refuses {entry.sample.get('dtypes', ['FLOAT'])[0]}, an accepted dtype",
              rule + dtype_rules, refused_dtype=entry.sample.get("dtypes", ["FLOAT"])[0])]
    if any(np.isnan(o.astype(np.float64)).any() for o in float_out):
        mutants.append(_make(NanMutant, entry, key, "nan", "NaN results written as 0", rule))
    if entry.sample.get("attr_variants"):
        mutants.append(_make(AttributeIgnoredMutant, entry, key, "attribute-ignored",
                             f"computes every call with {entry.sample['attrs']}, whatever it gives", rule))
    if cls in ("exact", "rounded") and float_out:
        bias = _make(UlpBiasMutant, entry, key, "ulp-bias", "every result one ulp up", rule)
        if any(o.astype(np.float64).any() for o in float_out):
            seen = _bias_share(key, cases) if cls == "rounded" else None
            if seen is not None and seen[0] <= seen[1] and not _fails_somewhere(bias, key, cases):
                equivalent.append(_equivalent(bias, f"a one-ulp shift is {seen[0]:.2f} of the "
                                              f"per-element bound of this formula, within the bias "
                                              f"check's limit {seen[1]:.2f}"))
            else:
                mutants.append(bias)
    if cls == "transcendental" and float_out:
        mutants.append(_make(TwiceLimitMutant, entry, key, "twice-limit",
                             "results off by twice the standard's limit", rule))

    if cls == "exact" and any(has_subnormal(o) for o in float_out):
        mutants.append(_make(FlushMutant, entry, key, "flush", "subnormal results flushed to zero", rule))
    if cls != "exact" and entry.zero_sign != "either" and zero_sign_fixed(entry.function) \
            and any(has_negative_zero(o) for o in float_out):
        mutants.append(_make(ZeroSignMutant, entry, key, "zero-sign",
                             "-0 results written +0 (a sign IEEE 754 fixes)", rule))
    from aclnn_conformance.backends.mutants.surface_channels import channel_mutants
    mutants += channel_mutants(entry, key, rule)   # a per-channel operand's kinds (surface_channels.py)
    controls: list[type] = []
    if any(has_subnormal(o) for o in float_out) or any(_subnormal_inputs(c) for c in cases):
        controls.append(_make(FlushToZeroControl, entry, key, "flush-to-zero-control",
                              "subnormal inputs and results read and written as zero", ()))
    if cls == "transcendental" and float_out:
        controls.append(_make(FaithfulControl, entry, key, "faithful-control",
                              "the other faithful neighbour for half the results", ()))
    if cls == "rounded" and float_out:
        controls.append(_make(StepsControl, entry, key, "float32-steps-control",
                              "every operation in float32, faithful division and square root, "
                              "one cast at the end", ()))
        controls.append(_make(StepsControl, entry, key, "native-steps-control",
                              "every operation rounded in the compute dtype itself", (),
                              native=True))
    if cls == "rounded" and float_out and divides_or_roots(entry.function):
        controls.append(_make(StepsControl, entry, key, "one-ulp-control", ONE_ULP_DEFECT, (), ulps=1))
        two = _make(StepsControl, entry, key, "two-ulp", TWO_ULP_DEFECT, rule, ulps=2)
        if _fails_somewhere(two, key, cases):
            mutants.append(two)
        else:
            equivalent.append(_equivalent(two, "two float32 steps in a division or root stay inside "
                                          "this formula's bound on every value case"))
    variant_mutants, variant_controls = variant_classes(entry, key, rule)   # the entry's own formulas
    mutants += variant_mutants
    from aclnn_conformance.backends.mutants.surface_contractions import outer_mutants
    mutants += outer_mutants(entry, key, rule)   # an outer product's operands exchanged
    controls += variant_controls
    return MutantSet(mutants=tuple(mutants), controls=tuple(controls), equivalent=tuple(equivalent))


def _subnormal_inputs(case: Case) -> bool:
    return any(a is not None and _is_float(a.storage.dtype) and has_subnormal(a.storage)
               for a in case.tensors.values())


def _judged_somewhere(key: str) -> bool:
    """Whether some non-empty value case of the operator (its record's table cases named
    ``values*``, else the entry's own) is value-judged on some product under cann."""
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.spec.surface_cases import value_cases
    record = operator(key)
    cases = [c for c in (record.piece("table_cases")("ci") if record.has("table_cases") else [])
             if c.case_id.startswith("values")] or value_cases(key)
    entry = value_entry(key)
    cases = [c for c in cases if c.tensors.get(entry.output) is not None
             and int(np.prod(c.tensor(entry.output).desc.shape)) > 0]   # an empty call shows no value
    products = sorted(record.spec.supported.get(PROFILE, ()))
    return any(expected_outcome(record.spec, c, p, PROFILE).judge_values for c in cases for p in products)


def _fails_somewhere(cls: type, key: str, cases: list) -> bool:
    """Whether the entry's standard fails the mutant's outputs on some value case."""
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_compare import compare_class
    entry = value_entry(key)
    backend = cls()
    for case in cases:
        result = from_case(case, PROFILE)
        want = np.asarray(result.views[entry.output])
        got = np.asarray(backend.values(case)).reshape(want.shape).astype(want.dtype)
        verdict = compare_class(entry.function_class, got, want, result.aux[entry.output])
        if verdict.outcome == Outcome.FAIL:
            return True
    return False


def _bias_share(key: str, cases: list) -> tuple[float, float] | None:
    """The largest, over the cases, of the mean one-ulp shift in units of the rounded standard's
    per-element unit, and the bias limit of that case (None: no element with a unit)."""
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.oracle.surface_functions import spacing
    from aclnn_conformance.spec.precision import standard
    from aclnn_conformance.spec.standards_surface import ROUNDED
    limits = standard(ROUNDED).limits["any"]
    entry = value_entry(key)
    best = None
    for case in cases:
        result = from_case(case, PROFILE)
        e = np.asarray(result.views[entry.output]).reshape(-1)
        aux = result.aux[entry.output]
        if "bound" not in aux:   # an integer call: computed exactly, no rounding to bias
            continue
        b = np.asarray(aux["bound"], np.float64).reshape(-1)
        keep = np.isfinite(e.astype(np.float64)) & ~np.asarray(aux["unjudged"]).reshape(-1)
        if not keep.any():
            continue
        ulp = spacing(e.astype(np.float64), e.dtype)
        unit = b if e.dtype == np.dtype(np.float32) else b + ulp
        use = keep & (unit > 0)
        if not use.any():
            continue
        moved = e.astype(np.float64) != 0          # the mutant moves the non-zero results only
        share = float((np.where(moved, ulp, 0.0)[use] / unit[use]).mean())
        limit = limits["bias_share"] + limits["bias_spread"] / float(use.sum()) ** 0.5
        if best is None or share - limit > best[0] - best[1]:
            best = (share, limit)
    return best


@lru_cache(maxsize=None)
def _cached(key: str) -> MutantSet:
    return mutant_set(key)


MUTANT_SETS = MutantSetsByKey(_cached)
KINDS: tuple[str, ...] = ("promotion", "dtype-missing", "nan", "ulp-bias",
                          "twice-limit", "flush", "wrong-axis", "keepdim-ignored", "two-ulp",
                          "narrow-accumulation", "dropped-tail", "n-minus-one")
CONTROL_KINDS: tuple[str, ...] = ("faithful-control", "float32-steps-control", "native-steps-control",
                                  "nan-ignoring-control", "zero-sign-control", "one-ulp-control",
                                  "flush-to-zero-control", "sequential-control", "pairwise-control",
                                  "reversed-control")
ONE_ULP_DEFECT = ("every operation in float32, each division and square root the correctly rounded "
                  "result or a neighbour of it by value (the vendor's 1-ulp Div and Sqrt), one cast")
TWO_ULP_DEFECT = "divisions and square roots two float32 steps from the correctly rounded result"


class _ByEntry(Mutant):
    """A backend for whole runs: the generated ``kind`` class of each operator that has it (a
    rounded entry that divides or takes a root), the emulator for every other call."""

    kind = ""
    ulps = 0

    def run(self, case: Case, product: str):
        from aclnn_conformance.spec.surface_values import has_value_entry
        if not has_value_entry(case.op):
            return self.emulate(case, product)
        entry = value_entry(case.op)
        # a reduction's function is a sentence, not a formula: no division or root of its own
        if entry.reduction is not None or entry.function_class != "rounded" \
                or not divides_or_roots(entry.function):
            return self.emulate(case, product)
        return _by_entry(type(self), case.op)().run(case, product)


@lru_cache(maxsize=None)
def _by_entry(device: type, key: str) -> type:
    return _make(StepsControl, value_entry(key), key, device.kind, device.defect, (), ulps=device.ulps)


class FlushToZeroDevice(Mutant):
    """A correct device that flushes subnormal inputs and results of every elementwise API to zero
    (reductions and other operators as the emulator); for ``run --backend``."""

    name, defect = "flush-to-zero-device", "subnormal inputs and results read and written as zero"

    def products(self) -> tuple[str, ...]:
        return flush_products()

    def run(self, case: Case, product: str):
        from aclnn_conformance.spec.surface_values import has_value_entry
        if not has_value_entry(case.op) or value_entry(case.op).reduction is not None:
            return self.emulate(case, product)
        return _flushing(case.op)().run(case, product)


@lru_cache(maxsize=None)
def _flushing(key: str) -> type:
    return _make(FlushToZeroControl, value_entry(key), key, "flush-to-zero-control",
                 FlushToZeroDevice.defect, ())


class OneUlpDivisionDevice(_ByEntry):
    """A correct device whose division and square root land within one ulp of the correctly rounded
    result (``backends.mutants.surface_values:OneUlpDivisionDevice`` for ``run --backend``)."""
    name, kind, ulps, defect = "one-ulp-division-device", "one-ulp-control", 1, ONE_ULP_DEFECT


class TwoUlpDivisionDevice(_ByEntry):
    """A device whose division and square root land two float32 steps off, outside the model."""
    name, kind, ulps, defect = "two-ulp-division-device", "two-ulp", 2, TWO_ULP_DEFECT


def kind_of(cls: type) -> str:
    return getattr(cls, "kind", "")


__all__ = ["MUTANT_SETS", "mutant_set", "KINDS", "CONTROL_KINDS", "one_ulp_up"]
