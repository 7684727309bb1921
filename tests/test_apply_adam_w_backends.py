"""aclnnApplyAdamW in the emulator, the torch backend and the aclnn call layer: the phases and
statuses per product the notes describe (sections 4, 5.1, 5.3), and the arithmetic against the
oracle's model bound."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

from aclnn_conformance.backends.call_layer import to_raw_call
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.suites.calls import apply_adam_w as calls

EMULATOR = EmulatorBackend()


def test_valid_call_fails_at_launch_off_ascend_950():
    """No SoC check in the op_api: phase 1 succeeds everywhere; without a kernel the launcher's
    tiling fails in phase 2 (561103)."""
    case = calls.base_call()
    ok = EMULATOR.run(case, "ascend950")
    assert (ok.status, ok.phase, ok.workspace_size) == (0, "Execute", 0)
    for product in set(PRODUCT_IDS) - {"ascend950"}:
        r = EMULATOR.run(case, product)
        assert (r.status, r.phase) == (Status.ERR_INNER_NULLPTR, "Execute"), product
        assert all(np.array_equal(r.storages[n].view(np.uint8), a.storage.view(np.uint8))
                   for n, a in case.tensors.items() if a is not None)


def test_empty_var_succeeds_everywhere_with_no_workspace():
    case = calls.make_call("empty", (0, 5), amsgrad=True)
    for product in PRODUCT_IDS:
        r = EMULATOR.run(case, product)
        assert (r.status, r.workspace_size) == (0, 0), product


def test_bfloat16_rejected_in_phase_one_on_atlas_training_only():
    case = calls.make_call("bf16", dtype="bfloat16", beta2=0.99)
    r = EMULATOR.run(case, "atlas-training")
    assert (r.status, r.phase) == (Status.ERR_PARAM_INVALID, "GetWorkspaceSize")
    assert EMULATOR.run(case, "ascend950").status == 0


def test_max_grad_norm_written_never_and_v_unmaxed():
    case = calls.make_call("ams", (4, 8), amsgrad=True, mgn=np.full((4, 8), 0.5))
    r = EMULATOR.run(case, "ascend950")
    mgn = case.tensor("maxGradNormOptional")
    assert np.array_equal(r.storages["maxGradNormOptional"], mgn.storage)
    assert (r.storages["vRef"] < 0.5).all()


@pytest.mark.parametrize("backend_name", ["emulator", "torch"])
@pytest.mark.parametrize("dtype", list(calls.DTYPES))
def test_arithmetic_within_the_model_bound(backend_name, dtype):
    """An evaluation order other than the golden's (the 950 kernel's, torch AdamW's) differs from
    the oracle, but never by more than the bound the oracle derives."""
    if backend_name == "torch":
        pytest.importorskip("torch")
    from aclnn_conformance.backends.registry import load_backend
    backend = load_backend(backend_name)
    case = calls.make_call("bound", (64, 64), dtype, seed=5, amsgrad=True, maximize=True,
                           beta2=0.99, lr=0.01, weightDecay=0.1)
    r = backend.run(case, "ascend950")
    oracle = oracle_result(case, "cann", "ascend950")
    for name in ("varRef", "mRef", "vRef"):
        got = r.storages[name].astype(np.float64)
        want = oracle.views[name].reshape(-1).astype(np.float64)
        assert (np.abs(got - want) <= oracle.aux[name]["bound"].reshape(-1)).all(), name


def test_raw_call_passes_the_flags_as_bool_after_the_tensors():
    from aclnn_conformance.backends.aclnn.bindings import KIND_CTYPES
    from aclnn_conformance.backends.aclnn.backend import _scalar
    raw = to_raw_call(calls.make_call("flags", amsgrad=True, maximize=False))
    kinds = [(n, k) for n, k, _ in raw.params]
    assert kinds[-2:] == [("amsgrad", "bool"), ("maximize", "bool")]
    assert [k for _, k in kinds[:12]] == ["tensor"] * 12 and raw.api == "aclnnApplyAdamW"
    assert KIND_CTYPES["bool"] is ctypes.c_bool
    assert _scalar("amsgrad", "bool", 1) is True
    assert raw.tensors()["maxGradNormOptional"].dtype == int(DT.FLOAT)


def test_the_doctors_call_is_valid_on_ascend950():
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.rules import expected_outcome
    case = operator("apply_adam_w").piece("base_call")()
    exp = expected_outcome(op_spec("apply_adam_w"), case, "ascend950", "cann")
    assert (exp.kind, exp.judge_values) == ("success", True)
    assert EMULATOR.run(case, "ascend950").status == 0
