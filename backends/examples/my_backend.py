"""An example third-party backend: the smallest complete implementation of the backend contract.

Everything a backend must know (the contract, element-form storages, what must stay untouched,
phases, statuses, waivers, registration) is on backends/README.md.

It wraps the reference backend (the spec's own answer) and counts its calls, to show the shape a
plug-in takes. A real plug-in calls its own implementation in ``run``: it receives the Case exactly
as the API would (descriptors over element-form storages, None for a null pointer;
``backends.call_layer`` turns it into raw aclCreateTensor arguments and byte buffers if that is
closer to what it drives) and returns the status and the storage of every tensor after the call.
It never judges.

Run the suites against it with nothing but this package installed:

    aclnn-conformance run --backend aclnn_conformance.backends.examples.my_backend:MyBackend --product ascend950

or register it under a name through the ``aclnn_conformance.backends`` entry-point group and run
``aclnn-conformance run --backend my-backend``.
"""
from __future__ import annotations

from aclnn_conformance.backends.base import RunResult, Waiver
from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.spec.case import Case


class MyBackend:
    name = "my-backend"                       # recorded in every outcome
    version = "0.1.0"                         # recorded too: bump it when the implementation changes
    # Known, recorded deviations: failures of these rules are reported WAIVED, not FAIL.
    waivers: tuple[Waiver, ...] = (
        # Waiver("AAWQ-VAL-013", "NaN inputs are flushed to zero on this implementation",
        #        case_contains="nan", products=("atlas-a2",)),
    )

    def __init__(self) -> None:
        self._inner = ReferenceBackend()
        self.calls = 0

    def available(self) -> tuple[bool, str]:
        """(True, "") when it can run here; otherwise False and a one-line reason, and every case
        is reported SKIPPED with that reason."""
        return self._inner.available()

    def products(self) -> tuple[str, ...]:
        """The product ids (spec.products) it can run as. A backend tied to one device also defines
        ``bound_product()`` (backends/README.md, Products)."""
        return self._inner.products()

    def run(self, case: Case, product: str) -> RunResult:
        """Make the call; raise only for a failure of the backend itself (recorded HARNESS_ERROR)."""
        self.calls += 1
        result = self._inner.run(case, product)
        return RunResult(result.status, result.storages, result.workspace_size, result.phase,
                         result.message)


def make_backend() -> MyBackend:
    """A factory works as a target too:
    ``--backend aclnn_conformance.backends.examples.my_backend:make_backend``."""
    return MyBackend()
