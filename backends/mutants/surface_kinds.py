"""The shared pieces of the surface's generated value mutants (backends/mutants/surface_values.py for
the elementwise APIs, backends/mutants/surface_reductions.py for the reductions): the backend that
takes its status from the spec and its values from the oracle with one defect, the defects both
kinds of API share, and the helpers that name and check the generated classes."""
from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.mutants.base import Mutant
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.surface_values import ValueEntry, value_entry

PROFILE = "cann"
_BF16 = np.dtype(ml_dtypes.bfloat16)
_NARROWER = {np.dtype(np.float32): _BF16, np.dtype(np.float16): _BF16,
             _BF16: np.dtype(np.float16), np.dtype(np.float64): np.dtype(np.float32)}
SEED = 7


def _is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == _BF16


class SurfaceBackend(Mutant):
    """Status from the spec; on a judged success, the outputs ``values(case)`` gives."""

    entry_api = ""
    defect_output = ""   # the output holding the defect where not ``output`` (an extreme's positions)

    def entry(self) -> ValueEntry:
        return value_entry(self.entry_api)

    def mutate(self, case: Case, product: str) -> RunResult:
        from aclnn_conformance.spec.registry import operator
        from aclnn_conformance.spec.rules import expected_outcome
        expected = expected_outcome(self.spec_for(operator(case.op).spec), case, product, PROFILE)
        storages = case.copy_storages()
        if expected.kind in ("error", "not_supported"):
            status = expected.status if expected.status is not None else Status.ERR_INNER
            return RunResult(int(status), storages, message=f"{self.name}: rule {expected.rule_id}")
        refused = self.refuse(case)
        if refused is not None:
            return self.reject(case, refused, "refused a valid call")
        if expected.kind in ("not_judged", "not_covered") or not expected.judge_values:
            return RunResult(Status.SUCCESS, storages, workspace_size=0)
        for name, values in self.outputs(case).items():
            arg = case.tensor(name)
            if arg.desc.numel:
                arg.view_of(storages[name])[...] = np.asarray(values).reshape(arg.desc.shape) \
                    .astype(arg.storage.dtype)
        return RunResult(Status.SUCCESS, storages, workspace_size=0)

    def outputs(self, case: Case) -> dict[str, np.ndarray]:
        """Every output by name: ``values(case)`` in the output holding the defect, the others as
        the oracle has them (a kind with several computed outputs overrides this)."""
        entry = self.entry()
        target = self.defect_output or entry.output
        found = {target: np.asarray(self.values(case))}
        if len(entry.outputs) > 1:
            from aclnn_conformance.oracle.surface import from_case
            views = from_case(case, PROFILE).views
            found.update({name: np.asarray(views[name]) for name in entry.outputs if name != target})
        return found

    # ---- what a kind changes ----

    def spec_for(self, spec):
        return spec

    def refuse(self, case: Case) -> int | None:
        return None

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        result = from_case(case, PROFILE)
        return self.change(case, np.asarray(result.views[self.entry().output]),
                           result.aux.get(self.entry().output, {}))

    def change(self, case: Case, expected: np.ndarray, aux: dict) -> np.ndarray:
        return expected


# ---- the defects ----

def _through(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if _is_float(dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            return values.astype(_NARROWER.get(np.dtype(dtype), np.dtype(np.float16))).astype(dtype)
    if np.dtype(dtype).kind in "iu" and np.dtype(dtype).itemsize > 1:
        return values.astype(np.uint8).astype(dtype)
    return values


class PromotionMutant(SurfaceBackend):
    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        from aclnn_conformance.spec.tensor import TensorArg
        altered = case
        for name in self.entry().inputs:
            arg = case.tensors.get(name)
            if arg is not None and name != self.entry().output or (arg is not None and self.entry().inplace):
                storage = _through(arg.storage, arg.storage.dtype)
                altered = altered.with_tensor(name, TensorArg(arg.desc, storage))
        return np.asarray(from_case(altered, PROFILE).views[self.entry().output])


class AttributeIgnoredMutant(SurfaceBackend):
    """Computes every call with the entry's sample attributes (its first setting), whatever the call
    gives: an attribute the kernel never reads."""

    def values(self, case: Case) -> np.ndarray:
        from aclnn_conformance.oracle.surface import from_case
        fixed = {k: v for k, v in self.entry().sample.get("attrs", {}).items() if k in case.attrs}
        return np.asarray(from_case(case.with_attrs(**fixed), PROFILE).views[self.entry().output])


class DtypeMissingMutant(SurfaceBackend):
    refused_dtype = ""

    def refuse(self, case: Case) -> int | None:
        boolean = self.entry().sample.get("boolean_inputs", [])
        for name in self.entry().inputs:
            arg = case.tensors.get(name)
            if arg is not None and name not in boolean:
                return Status.ERR_PARAM_INVALID if arg.desc.dtype.name == self.refused_dtype else None
        return None


class NanMutant(SurfaceBackend):
    def change(self, case, expected, aux):
        out = np.array(expected, copy=True)
        out[np.isnan(out.astype(np.float64))] = 0
        return out


def one_ulp_up(values: np.ndarray) -> np.ndarray:
    """Every non-zero finite value moved to its neighbour toward +inf."""
    from aclnn_conformance.spec.surface_compare import neighbours
    v = np.asarray(values)
    wide = v.astype(np.float64)
    bump = np.isfinite(wide) & (wide != 0)
    # a float64 point just above each value: its upper neighbour in the dtype is the next value
    _, up = neighbours(np.nextafter(wide, np.inf), v.dtype)
    return np.where(bump, up, wide).astype(v.dtype)


class UlpBiasMutant(SurfaceBackend):
    def change(self, case, expected, aux):
        return one_ulp_up(expected)


class TwiceLimitMutant(SurfaceBackend):
    def change(self, case, expected, aux):
        from aclnn_conformance.spec.precision import dtype_name
        from aclnn_conformance.spec.standards_surface import PUBLISHED_T
        g = expected.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            if "rtol" in aux:
                moved = g + 2.0 * (aux["atol"] + aux["rtol"] * np.absolute(g))
            else:
                moved = g * (1.0 + 20.0 * PUBLISHED_T[dtype_name(expected.dtype)]) + \
                    np.where(g == 0, 1e-6, 0)
            return np.where(np.isfinite(g), moved, g).astype(expected.dtype)


class FlushMutant(SurfaceBackend):
    def products(self) -> tuple[str, ...]:
        """Where the model keeps subnormals (elsewhere flushing is a choice set aside, not a defect)."""
        from aclnn_conformance.spec.special_values import KEPT, SPECIAL_VALUES
        return tuple(p for p, model in SPECIAL_VALUES.items() if model.subnormals == KEPT)

    def change(self, case, expected, aux):
        finfo = ml_dtypes.finfo(expected.dtype) if expected.dtype == _BF16 else np.finfo(expected.dtype)
        wide = expected.astype(np.float64)
        tiny = (wide != 0) & (np.absolute(wide) < float(finfo.smallest_normal))
        return np.where(tiny, np.copysign(0.0, wide), wide).astype(expected.dtype)


class ZeroSignMutant(SurfaceBackend):
    def change(self, case, expected, aux):
        wide = expected.astype(np.float64)
        return np.where(wide == 0, 0.0, wide).astype(expected.dtype)   # every zero written +0


def has_negative_zero(o: np.ndarray) -> bool:
    """Some value of the float array ``o`` is -0."""
    w = o.astype(np.float64)
    return bool(((w == 0) & (np.copysign(1.0, w) < 0)).any())


def _slug(api: str) -> str:
    return api[len("aclnn"):] if api.startswith("aclnn") else api


def _make(base: type, entry: ValueEntry, key: str, kind: str, defect: str,
          killed_by: tuple[str, ...], **attrs: Any) -> type:
    name = f"{_slug(entry.api)}_{kind.replace('-', '_')}"
    return base.declare(name, name=f"mutant-{key}-{kind}", defect=defect, killed_by=killed_by, op=key,
                        entry_api=entry.api, kind=kind, **attrs)


def sample_dtype_missing(entry: ValueEntry, key: str, rule: tuple[str, ...],
                         base: type | None = None) -> type:
    """The mutant that refuses the entry's first sample dtype, an accepted one: killed by the value
    rule or by a dtype rule of the operator (``base``: a kind's backend with a ``refused_dtype``)."""
    from aclnn_conformance.spec.registry import operator
    dtype_rules = tuple(r.id for r in operator(key).spec.rules if r.category == "dtype")
    first = entry.sample.get("dtypes", ["FLOAT"])[0]
    return _make(base or DtypeMissingMutant, entry, key, "dtype-missing",
                 f"refuses {first}, an accepted dtype", rule + dtype_rules, refused_dtype=first)


def has_subnormal(o: np.ndarray) -> bool:
    """Some value of the float array ``o`` is subnormal."""
    finfo = ml_dtypes.finfo(o.dtype) if o.dtype == _BF16 else np.finfo(o.dtype)
    w = np.absolute(o.astype(np.float64))
    return bool(((w > 0) & (w < float(finfo.smallest_normal))).any())


def promotion_or_equivalent(entry: ValueEntry, key: str, rule: tuple[str, ...], defect: str,
                            unchanged: str, cases: list, outputs: list[np.ndarray]) -> tuple[list[type], list[type]]:
    """([the promotion mutant], []), or ([], [it]) declared equivalent where rounding the inputs
    through a narrower type leaves every output of the value cases bit for bit (``unchanged``: what
    stays, in the reason)."""
    promotion = _make(PromotionMutant, entry, key, "promotion", defect, rule)
    if _same_outputs(promotion, cases, outputs):
        return [], [_equivalent(promotion, "rounding the inputs through a narrower type leaves "
                                f"{unchanged} unchanged on the value cases")]
    return [promotion], []


def _equivalent(cls: type, reason: str) -> type:
    cls.equivalent = reason
    return cls


def _same_outputs(cls: type, cases: list, outputs: list[np.ndarray]) -> bool:
    """Whether a mutant's outputs equal the oracle's on every case (bit for bit, NaN alike)."""
    backend = cls()
    for case, want in zip(cases, outputs):
        got = np.asarray(backend.values(case)).reshape(want.shape)
        got, want = np.atleast_1d(got), np.atleast_1d(want)     # a 0-d output (every element reduced)
        if got.dtype != want.dtype or not np.array_equal(got.view(np.uint8), want.view(np.uint8)):
            return False
    return True
