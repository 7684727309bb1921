"""What every mutant shares: an emulator that breaks one thing of one operator.

A mutant is an EmulatorBackend with one small, realistic defect. It says which operator it breaks
(``op``), the defect in one line (``defect``) and the rule ids that name it (``killed_by``: a
conformance run must fail it on a case that exercises one of these rules, or whose status one of
them decides). Calls of any other operator go to the emulator unchanged.

Three ways to break the emulator, all from outside it:

- transform the call before the emulator sees it (a check that is missing, a status that is wrong);
- transform what the emulator returned (a layout written wrongly, an output left unwritten);
- recompute the outputs with a variant of the emulator's arithmetic in which one step is swapped
  (``backends.mutants.apply_adam_w_quant_kernel``).

A mutant whose defect is a family's own (a kernel step swapped, an attribute value let through) is
declared in one statement, ``Family.declare("ClassName", name=..., defect=..., killed_by=...,
steps={...})``, as is one that refuses what the source accepts (``refuses=lambda case, product: ...,
refusal=(status, message)``); one whose defect is its own code is a class.
"""
from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.tensor import TensorArg, contiguous_strides


@dataclass(frozen=True)
class MutantSet:
    """An operator's detection-power backends (its record's ``mutants`` piece): ``mutants`` that the
    CI tier must kill, ``controls`` (correct variants) it must never fail, ``equivalent`` and ``gaps``
    (defects no case can kill today, each class saying why)."""

    mutants: tuple[type, ...] = ()
    controls: tuple[type, ...] = ()
    equivalent: tuple[type, ...] = ()
    gaps: tuple[type, ...] = ()


class MutantSetsByKey:
    """``SETS.<key>``: an operator's MutantSet, made by ``make`` when first asked for (an operator
    record names its generated set by reference, ``module:SETS.<key>``)."""

    def __init__(self, make: Callable[[str], MutantSet]) -> None:
        self._make = make

    def __getattr__(self, key: str) -> MutantSet:
        if key.startswith("_"):
            raise AttributeError(key)
        return self._make(key)


class Mutant(EmulatorBackend):
    """An emulator with one defect. Subclasses set the attributes and override ``mutate``."""

    name = "mutant"
    version = "1"
    op = ""                               # the operator whose calls it breaks
    defect = ""                           # one line: what a kernel author got wrong
    killed_by: tuple[str, ...] = ()       # the rule ids that name the defect
    # how many distinct single-call cases, on how many products, must fail it naming its defect
    killing_cases_wanted = 1
    killing_products_wanted = 1
    # a check added where the source has none: (case, product) -> whether GetWorkspaceSize ends
    # with ``refusal``'s (status, message) instead of running the call as the emulator does
    refuses: Callable[[Case, str], bool] | None = None
    refusal: tuple[int, str] = (0, "")

    @classmethod
    def declare(cls, class_name: str, *, name: str, defect: str, killed_by: tuple[str, ...] = (),
                steps: Mapping[str, Callable[..., Any]] | None = None, **attributes: Any) -> type[Mutant]:
        """One mutant (or control) of this family in one statement: the subclass ``class_name`` of the
        calling module, with its identity, ``steps`` (functions of the kernel that replace its steps
        of the same names, as the family's ``with_steps`` puts them in) and other class ``attributes``."""
        # the module that assigns the class, as namedtuple finds it: where it is imported and reported from
        module = sys._getframe(1).f_globals.get("__name__", cls.__module__)
        body = {"__module__": module, "__qualname__": class_name, "name": name,
                "defect": defect, "killed_by": tuple(killed_by), **attributes}
        if body.get("refuses") is not None:   # a plain function, not a method of the mutant
            body["refuses"] = staticmethod(body["refuses"])
        if steps:
            body.update(cls.with_steps(class_name, steps))
        return type(class_name, (cls,), body)

    @classmethod
    def with_steps(cls, class_name: str, steps: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
        """The class attributes with which this family computes with ``steps`` in place of its own."""
        raise TypeError(f"{cls.__name__} has no arithmetic whose steps can be replaced")

    def run(self, case: Case, product: str) -> RunResult:
        if case.op != self.op:
            return self.emulate(case, product)
        return self.mutate(case, product)

    def mutate(self, case: Case, product: str) -> RunResult:
        if self.refuses is not None and self.refuses(case, product):
            return self.reject(case, *self.refusal)
        return self.emulate(case, product)

    def emulate(self, case: Case, product: str) -> RunResult:
        """The unmodified emulator."""
        return EmulatorBackend.run(self, case, product)

    # ---- helpers for the subclasses ----

    def run_as(self, case: Case, altered: Case, product: str) -> RunResult:
        """Run ``altered`` (the call as the defective code sees it) and return storages in the form of
        ``case``'s: a tensor whose altered form no longer matches the original's storage (another
        dtype or size, or absent) is returned as it was in ``case`` (inputs are not written)."""
        result = self.emulate(altered, product)
        storages = {}
        for name, arg in case.tensors.items():
            if arg is None:
                continue
            got = result.storages.get(name)
            if got is None or got.shape != arg.storage.shape or got.dtype != arg.storage.dtype:
                got = arg.storage.copy()
            storages[name] = got
        return replace_result(result, storages=storages)

    def reject(self, case: Case, status: int, message: str) -> RunResult:
        """End GetWorkspaceSize with ``status``: nothing written."""
        return RunResult(int(status), case.copy_storages(), None, "GetWorkspaceSize",
                         f"{self.name}: {message}")


class KernelVariantMutant(Mutant):
    """Outputs recomputed by ``kernel``, a variant of the emulator's step-by-step kernel whose steps
    ``declare(steps=...)`` replaces, from a successful emulator call; statuses are the emulator's."""

    kernel: Any = None

    @classmethod
    def with_steps(cls, class_name: str, steps: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
        return {"kernel": replaced_steps(class_name, type(cls.kernel), steps)()}

    def mutate(self, case: Case, product: str) -> RunResult:
        return self.recompute(case, self.emulate(case, product), self.kernel)

    @staticmethod
    def recompute(case: Case, result: RunResult, kernel: Any) -> RunResult:
        """``result`` with the outputs ``kernel`` computes, read and written as the operator's are."""
        raise NotImplementedError


def replaced_steps(class_name: str, base: type, steps: Mapping[str, Callable[..., Any]],
                   of: tuple[type, ...] = ()) -> type:
    """``base`` (an arithmetic, or ``object`` for a mixin) with ``steps`` as its methods. Each step
    must be a method of ``base`` or of every class in ``of``: a misspelt one would change nothing."""
    for arithmetic in of or (base,):
        unknown = sorted(s for s in steps if not callable(getattr(arithmetic, s, None)))
        if unknown:
            raise TypeError(f"{class_name}: {arithmetic.__name__} has no step {', '.join(unknown)}")
    return type(f"{class_name}Steps", (base,), dict(steps))


def replace_result(result: RunResult, **changes) -> RunResult:
    fields = dict(status=result.status, storages=result.storages,
                  workspace_size=result.workspace_size, phase=result.phase, message=result.message)
    fields.update(changes)
    return RunResult(**fields)


def copied(result: RunResult) -> dict[str, np.ndarray]:
    """Writable copies of a result's storages."""
    return {k: np.array(v, copy=True) for k, v in result.storages.items()}


def write_view_flat(arg, storage: np.ndarray, values: np.ndarray, count: int | None = None) -> None:
    """Write the first ``count`` (default: all) elements, in row-major view order, of ``arg``'s view
    over ``storage``."""
    view = arg.view_of(storage)
    flat = np.array(view).reshape(-1)
    k = flat.size if count is None else min(count, flat.size, values.size)
    flat[:k] = np.asarray(values).reshape(-1)[:k].astype(flat.dtype)
    view[...] = flat.reshape(view.shape)


class StridesIgnoredMutant(Mutant):
    """The defect shared by every operator's strides mutant: each tensor read and written as
    contiguous from element 0, whatever its strides and offset."""

    defect = "tensors read and written as contiguous from element 0 whatever their strides and offset"

    def mutate(self, case: Case, product: str) -> RunResult:
        altered = case
        for name, arg in case.tensors.items():
            if arg is None:
                continue
            d = arg.desc
            flat = d.with_(strides=contiguous_strides(d.shape), offset=0)
            if flat != d and d.numel <= arg.storage.size:
                altered = altered.with_tensor(name, TensorArg(flat, arg.storage))
        if altered is case:
            return self.emulate(case, product)
        return self.run_as(case, altered, product)


class RejectedValueAccepted(Mutant):
    """The defect of an attribute check missing: ``value`` of ``attribute``, which the operator
    rejects, accepted and run as ``runs_as``."""

    attribute = ""
    value: Any = None
    runs_as: Any = None

    def mutate(self, case: Case, product: str) -> RunResult:
        if case.attrs.get(self.attribute) != self.value:
            return self.emulate(case, product)
        return self.run_as(case, case.with_attrs(**{self.attribute: self.runs_as}), product)


class AnotherProductsPath(Mutant):
    """The defect of code registered for the wrong chip: a call on ``product`` computed as on
    ``runs_as`` (its checks, tiling and kernel)."""

    product = ""
    runs_as = ""

    def mutate(self, case: Case, product: str) -> RunResult:
        return self.emulate(case, self.runs_as if product == self.product else product)


class OutputsRewritten(Mutant):
    """A defect in what a successful call writes: ``rewrite`` changes, in place, copies of the
    storages the emulator wrote; a failed call is returned as the emulator's."""

    def mutate(self, case: Case, product: str) -> RunResult:
        result = self.emulate(case, product)
        if result.status != 0:
            return result
        storages = copied(result)
        self.rewrite(case, storages)
        return replace_result(result, storages=storages)

    def rewrite(self, case: Case, storages: dict[str, np.ndarray]) -> None:
        """Change ``storages`` (writable copies of the emulator's) as the defective code writes them."""


class VarTwoUlpsUpMutant(OutputsRewritten):
    """The defect shared by the Adam operators' bias mutants: every float32 var element two ulps
    high, each within its bound, their mean not."""

    defect = "float32 var two ulps high on every element (a systematic bias), other dtypes untouched"

    def rewrite(self, case: Case, storages: dict[str, np.ndarray]) -> None:
        var = case.tensor("varRef")
        if var.desc.is_empty() or var.storage.dtype != np.float32:
            return
        view = var.view_of(storages["varRef"])
        view[...] = np.nextafter(np.nextafter(view, np.float32(np.inf)), np.float32(np.inf))
