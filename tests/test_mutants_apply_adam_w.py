"""aclnnApplyAdamW's mutants and controls: the kernel variant with nothing swapped is the emulator bit
for bit, and every other control really computes differently (so that its passing means something)."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.mutants import CONTROLS, MUTANTS
from aclnn_conformance.backends.mutants.apply_adam_w import V1_CONTROLS, V1_MUTANTS, V1UnmutatedKernel
from aclnn_conformance.suites.calls import apply_adam_w as calls

CASES = [c for c in calls.table_cases("ci") if c.case_id.startswith("vendor-")]


def _outputs(backend, case):
    r = backend.run(case, "ascend950")
    assert r.status == 0
    return b"".join(r.storages[n].view(np.uint8).tobytes() for n in ("varRef", "mRef", "vRef"))


def test_registered():
    assert set(V1_CONTROLS) <= set(CONTROLS) and set(V1_MUTANTS) <= set(MUTANTS)
    assert len(V1_MUTANTS) >= 10


def test_unmutated_kernel_is_the_emulator():
    for case in CASES:
        assert _outputs(V1UnmutatedKernel(), case) == _outputs(EmulatorBackend(), case), case.case_id


@pytest.mark.parametrize("control", [c for c in V1_CONTROLS if c is not V1UnmutatedKernel],
                         ids=lambda c: c.__name__)
def test_each_legal_variant_differs_from_the_emulator_somewhere(control):
    assert any(_outputs(control(), case) != _outputs(EmulatorBackend(), case) for case in CASES)
