"""The backend contract: what every implementation under test provides.

A backend receives a Case exactly as the API would (descriptors over storages, null pointers) and
returns the status of the call and the storage of every tensor after it. It never judges.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Protocol, runtime_checkable

import numpy as np

from aclnn_conformance.spec.case import Case


@dataclass(frozen=True, eq=False)
class RunResult:
    status: int                                   # the first non-zero status of the two phases, or 0
    storages: Mapping[str, np.ndarray] = field(default_factory=dict)  # every non-null tensor, after
    workspace_size: int | None = None
    phase: str = "GetWorkspaceSize"               # the phase that returned ``status``
    message: str = ""                             # the implementation's own error text, if any


class BackendCrash(RuntimeError):
    """The backend's process died while running a case (recorded CRASH)."""


class BackendTimeout(RuntimeError):
    """The backend did not return within the time limit (recorded TIMEOUT)."""


class OperatorNotImplemented(RuntimeError):
    """The backend has no implementation of the case's operator (recorded BACKEND_UNAVAILABLE with
    this reason: nothing was judged, and it is no harness error)."""


class ProductUnknown(RuntimeError):
    """A backend tied to one device cannot tell which product that device is (no device reachable,
    an SoC of no known product line): the run must name the product."""


@dataclass(frozen=True)
class Waiver:
    """A known, recorded deviation of one backend: failures of ``rule_id`` (on cases whose id contains
    ``case_contains``) are reported WAIVED with ``cause`` instead of FAIL."""

    rule_id: str
    cause: str
    case_contains: str = ""
    products: tuple[str, ...] = ()

    def covers(self, rule_ids: tuple[str, ...], case_id: str, product: str) -> bool:
        return (self.rule_id in rule_ids and self.case_contains in case_id
                and (not self.products or product in self.products))


@runtime_checkable
class Backend(Protocol):
    name: str
    version: str
    waivers: tuple[Waiver, ...]

    def available(self) -> tuple[bool, str]:
        """(True, "") when it can run here, else (False, a one-line reason)."""

    def products(self) -> tuple[str, ...]:
        """The product ids it can run as (a real device: the one it has)."""

    def run(self, case: Case, product: str) -> RunResult:
        """Make the call on ``product``; raise only on a harness-level failure."""

    # Optional: ``bound_product() -> str | None``, see bound_product below.


def bound_product(backend: Backend) -> str | None:
    """The product a device-bound backend is tied to, through its optional ``bound_product()``
    method: a product id, or None for a backend that runs as any product (a model, a library on
    the host). A backend tied to a device it cannot identify raises ProductUnknown there."""
    hook = getattr(backend, "bound_product", None)
    return hook() if callable(hook) else None
