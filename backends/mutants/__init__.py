"""Deliberately broken backends: each is the emulator with one small, realistic defect.

They prove the suite's detection power: every mutant in ``MUTANTS`` must be failed by the CI tier,
on a case that exercises (or whose status is decided by) one of the rules in its ``killed_by``
(``python -m reports mutate``; tests/test_mutants.py). Each class is importable on its own, so a
mutant runs through the suites like any backend::

    pytest suites --backend backends.mutants:DecayBeforeStep --product atlas-a2

Two lists hold mutants no case can kill today, each with the reason in an attribute:
``EQUIVALENT`` (``equivalent``): the standards accept the defect by design;
``GAPS`` (``gap``): a precision standard that should see the defect does not.
Both are run and reported, and must stay unkilled: once a change kills one, it moves to
``MUTANTS``. ``CONTROLS`` are defect-free variants that must never be killed: the emulator's kernel
as it is, and implementations that are correct under the arithmetic model but compute otherwise
than the oracle (faithful sqrt and pow, fused multiply-adds, reciprocal division, torch's sqrt).
"""
from __future__ import annotations

from aclnn_conformance.backends.mutants.apply_adam_w import *  # noqa: F401,F403  (every mutant class)
from aclnn_conformance.backends.mutants.apply_adam_w import V1_CONTROLS, V1_MUTANTS
from aclnn_conformance.backends.mutants.apply_adam_w_quant import *  # noqa: F401,F403  (every mutant class)
from aclnn_conformance.backends.mutants.apply_adam_w_quant import (AAWQ_CONTROLS, AAWQ_EQUIVALENT, AAWQ_GAPS,
                                                AAWQ_MUTANTS, UnmutatedKernel)
from aclnn_conformance.backends.mutants.apply_adam_w_v2 import *  # noqa: F401,F403  (every mutant class)
from aclnn_conformance.backends.mutants.apply_adam_w_v2 import V2_CONTROLS, V2_EQUIVALENT, V2_GAPS, V2_MUTANTS
from aclnn_conformance.backends.mutants.base import Mutant
from aclnn_conformance.backends.mutants.weight_quant_preprocess import *  # noqa: F401,F403  (every mutant class)
from aclnn_conformance.backends.mutants.weight_quant_preprocess import WQP_MUTANTS
from aclnn_conformance.backends.mutants.quant_matmul_weight_nz import *  # noqa: F401,F403  (every mutant class)
from aclnn_conformance.backends.mutants.quant_matmul_weight_nz import QMM_CONTROLS, QMM_MUTANTS

MUTANTS: tuple[type[Mutant], ...] = AAWQ_MUTANTS + WQP_MUTANTS + QMM_MUTANTS + V2_MUTANTS + V1_MUTANTS
EQUIVALENT: tuple[type[Mutant], ...] = AAWQ_EQUIVALENT + V2_EQUIVALENT
GAPS: tuple[type[Mutant], ...] = AAWQ_GAPS + V2_GAPS
CONTROLS: tuple[type[Mutant], ...] = ((UnmutatedKernel,) + AAWQ_CONTROLS + QMM_CONTROLS + V2_CONTROLS
                                      + V1_CONTROLS)


def by_name(name: str) -> type[Mutant]:
    """A mutant class by its ``name`` (``mutant-<slug>``), its slug or its class name."""
    for cls in MUTANTS + EQUIVALENT + GAPS + CONTROLS:
        if name in (cls.name, cls.name.removeprefix("mutant-"), cls.__name__):
            return cls
    known = ", ".join(c.name for c in MUTANTS + EQUIVALENT + GAPS)
    raise ValueError(f"unknown mutant {name!r}; known: {known}")


__all__ = ["MUTANTS", "EQUIVALENT", "GAPS", "CONTROLS", "Mutant", "by_name",
           *(c.__name__ for c in MUTANTS + EQUIVALENT + GAPS + CONTROLS)]
