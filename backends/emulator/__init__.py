"""The emulator backend: a Python model of the aclnn two-phase call, per chip generation.

A Case becomes the arguments the real API receives (``backends.call_layer.to_raw_call``: descriptors
over raw byte buffers, null pointers, scalars in parameter order). The emulator runs
GetWorkspaceSize (the vendor's checks, in the vendor's order, for the product's chip generation),
then, if it succeeded, the second phase on a workspace of the size it asked for; the results are read
back from the buffers.

The emulator is built from the vendor's behaviour as the notes describe it, independently of the
spec's rule predicates and of the NumPy oracles, so that their agreement means something: the
suites judge the emulator against the spec and the oracles.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aclnn_conformance.backends.base import RunResult, Waiver
from aclnn_conformance.backends.call_layer import RawCall, read_back, to_raw_call
from aclnn_conformance.backends.emulator.products import PRODUCTS, chip
from aclnn_conformance.backends.emulator.models import call_first_phase
from aclnn_conformance.backends.emulator.protocol import execute
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status

__all__ = ["EmulatorBackend", "run_phases"]

SECOND_PHASE = "Execute"


class EmulatorBackend:
    name = "emulator"
    version = "1"
    waivers: tuple[Waiver, ...] = ()

    def available(self) -> tuple[bool, str]:
        return True, ""

    def products(self) -> tuple[str, ...]:
        return PRODUCTS

    def run(self, case: Case, product: str) -> RunResult:
        gen = chip(product)
        return run_phases(case, lambda raw: call_first_phase(raw, gen))


def run_phases(case: Case, first_phase: Callable[[RawCall], Any]) -> RunResult:
    """``case`` through both phases: ``first_phase`` (the raw call -> GetWorkspaceSize's result, an
    operator's own or a variant of it), then the executor it built, with the workspace it asked for."""
    raw = to_raw_call(case)
    first = first_phase(raw)
    if first.status != Status.SUCCESS:
        return RunResult(int(first.status), read_back(raw), None, "GetWorkspaceSize", first.message)
    workspace = bytearray(first.workspace_size)
    status, message = execute(workspace, first.workspace_size, first.executor)
    return RunResult(int(status), read_back(raw), first.workspace_size, SECOND_PHASE, message)


