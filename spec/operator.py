"""One operator, declared once: the record of everything the harness needs of it.

An operator's spec (its Param rows, rules, check steps and errata) and its arithmetic model are data
of this layer and sit in the record itself. Every other piece lives in a higher layer (the oracle,
the call builders and strategies of the suites, the emulator model, the torch implementation, the
mutants) and is named by reference, ``"package.module:attribute"``, resolved only when a layer asks
for it (``Operator.piece``). So the record stays at the bottom of the layers, and the doctor in
``backends/`` gets its tiny call through the registry without importing ``suites/``.

A piece an operator does not have is ``Absent("why")``: asking for it raises ``MissingPiece`` with
that reason, and the generic suites say so instead of skipping it in silence. A record that leaves a
piece out altogether fails when it is built, naming the piece.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field, fields
from typing import Any

from aclnn_conformance.spec.kernel_mapping import KernelMapping
from aclnn_conformance.spec.precision import ArithmeticModel
from aclnn_conformance.spec.rules import OpSpec


@dataclass(frozen=True)
class Absent:
    """A piece the operator does not have, and why (``Absent("no torch equivalent")``)."""

    reason: str

    def __post_init__(self) -> None:
        if not self.reason.strip():
            raise ValueError("Absent needs its reason")


class MissingPiece(LookupError):
    """A piece that is declared absent, or whose reference does not resolve."""


class IncompleteOperator(TypeError):
    """An Operator record built without one of its pieces."""


_MISSING: Any = object()

# field -> what the piece is, for the completeness message and the README's table of fields
PIECES: dict[str, str] = {
    "oracle": "(case, profile, product) -> OracleResult: the expected outputs of a call that succeeds",
    "base_call": "() -> Case: the smallest valid call (fault bases, declared-support probes, doctor)",
    "table_cases": "(tier) -> iterable of Case: the table-driven cases",
    "fault_bases": "mapping name -> () -> Case: the valid calls the faults start from",
    "faults": "mapping rule id -> Fault: how to break each check rule alone",
    "strategies": "CallStrategies: hypothesis strategies of valid and invalid calls",
    "emulator": "(RawCall, ChipGeneration) -> FirstPhase: the emulator's GetWorkspaceSize",
    "torch": "(Case, product) -> RunResult: the independent torch implementation",
    "mutants": "module with MUTANTS and CONTROLS (and EQUIVALENT, GAPS): detection power",
    "relations": "pytest module of the operator's own tests (metamorphic relations, trajectories)",
    "sensitivity": "() -> list of SensitivityTarget: realistic outputs for the sensitivity tables",
}


@dataclass(frozen=True, kw_only=True)
class Operator:
    """Everything the harness needs of one aclnn operator. See ``PIECES`` for each reference."""

    spec: OpSpec
    arithmetic_model: ArithmeticModel | Absent
    oracle: str | Absent = _MISSING
    base_call: str | Absent = _MISSING
    table_cases: str | Absent = _MISSING
    fault_bases: str | Absent = _MISSING
    faults: str | Absent = _MISSING
    strategies: str | Absent = _MISSING
    emulator: str | Absent = _MISSING
    torch: str | Absent = _MISSING
    mutants: str | Absent = _MISSING
    relations: str | Absent = _MISSING
    sensitivity: str | Absent = _MISSING
    modules: tuple[str, ...] = _MISSING      # every module the operator owns (the only ones naming it)
    determinism_rules: tuple[str, ...] = ()  # value rules the determinism relation exercises
    # how the vendor's kernel-level test rows (TTK) map onto the parameters; None: none are read
    kernel_inputs: KernelMapping | None = None
    source: str = field(default="", compare=False)   # where the registry found the record

    def __post_init__(self) -> None:
        missing = [f.name for f in fields(self) if getattr(self, f.name) is _MISSING]
        key = getattr(self.spec, "key", "?")
        if missing:
            raise IncompleteOperator(
                f"operator {key}: missing piece(s) {', '.join(missing)}; give each a "
                f"'package.module:attribute' reference or Absent('why it has none')")
        if not isinstance(self.spec, OpSpec):
            raise IncompleteOperator(f"operator {key}: spec must be an OpSpec, not "
                                     f"{type(self.spec).__name__}")
        for name in PIECES:
            value = getattr(self, name)
            if isinstance(value, Absent):
                continue
            module, _, attr = value.partition(":") if isinstance(value, str) else ("", "", "")
            if not module or not attr:
                raise IncompleteOperator(f"operator {key}: piece {name} = {value!r} is not a "
                                         f"'package.module:attribute' reference or Absent(...)")
        if not self.modules:
            raise IncompleteOperator(f"operator {key}: modules must list the modules it owns")
        if isinstance(self.arithmetic_model, ArithmeticModel) and self.arithmetic_model.operator != key:
            raise IncompleteOperator(f"operator {key}: its arithmetic model is "
                                     f"{self.arithmetic_model.operator}'s")

    @property
    def key(self) -> str:
        return self.spec.key

    @property
    def api(self) -> str:
        return self.spec.api

    def has(self, name: str) -> bool:
        return not isinstance(getattr(self, name), Absent)

    def absent_reason(self, name: str) -> str:
        value = getattr(self, name)
        return value.reason if isinstance(value, Absent) else ""

    def piece(self, name: str) -> Any:
        """The object a piece refers to (imported on first use)."""
        if name not in PIECES:
            raise KeyError(f"an operator has no piece {name!r}; pieces: {', '.join(PIECES)}")
        ref = getattr(self, name)
        if isinstance(ref, Absent):
            raise MissingPiece(f"{self.key} has no {name}: {ref.reason}")
        return resolve(ref, f"{self.key}.{name}")


def resolve(ref: str, what: str = "") -> Any:
    """The object named by ``package.module:attribute`` (the attribute may be dotted)."""
    module_name, _, attr = ref.partition(":")
    try:
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as exc:
        raise MissingPiece(f"{what or ref}: {ref} does not resolve ({type(exc).__name__}: {exc})") \
            from None
    return obj
