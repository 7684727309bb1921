"""The reference backend: the spec decides the status, the oracle computes the outputs.

It is what a perfect implementation of the ``cann`` profile returns, and it is how the suite checks
itself: every suite must score it PASS or NOT_SUPPORTED.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.base import RunResult, Waiver
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import expected_outcome

PROFILE = "cann"


class ReferenceBackend:
    name = "reference"
    version = "1"
    waivers: tuple[Waiver, ...] = ()

    def available(self) -> tuple[bool, str]:
        return True, ""

    def products(self) -> tuple[str, ...]:
        return PRODUCT_IDS

    def run(self, case: Case, product: str) -> RunResult:
        expected = expected_outcome(op_spec(case.op), case, product, PROFILE)
        storages = case.copy_storages()
        if expected.kind in ("error", "not_supported"):
            status = expected.status if expected.status is not None else Status.ERR_INNER
            phase = "Execute" if expected.first_phase_succeeds else "GetWorkspaceSize"
            return RunResult(int(status), storages, phase=phase, message=f"rule {expected.rule_id}")
        if expected.kind in ("not_judged", "not_covered") or not expected.judge_values:
            return RunResult(Status.SUCCESS, storages, workspace_size=0)
        oracle = oracle_result(case, PROFILE, product)
        for name, values in oracle.views.items():
            arg = case.tensor(name)
            arg.view_of(storages[name])[...] = np.asarray(values).reshape(arg.desc.shape)
        for name, storage in oracle.storages.items():
            storages[name] = storage.copy()
        return RunResult(Status.SUCCESS, storages, workspace_size=0)
