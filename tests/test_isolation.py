"""Isolation: a backend that crashes or hangs on one case costs that case, not the run.

The backends below are the emulator with one deliberate fault each. The main tests run a small
selection of the ApplyAdamWQuant suite in a real pytest subprocess with ``--case-timeout`` and
read the records it wrote: the faulty case is CRASH or TIMEOUT, every other case still PASSes.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aclnn_conformance.backends.base import BackendCrash, BackendTimeout, OperatorNotImplemented
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.isolation import BackendWorkerError, backend_reference, isolated_executor
from aclnn_conformance.judging.records import read_records
from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

REPO = Path(__file__).resolve().parent.parent
CRASH_CASE = "doc-example"
HANG_CASE = "n1-float32"
SELECTION = "doc-example or n1-float32 or n255-float32"
# Limits that only end a hang, never race a healthy case: a healthy case's first call in a fresh
# worker took 1.3 s on a 2-core machine at load average 10, so 13 s at ten times that slowdown.
CASE_LIMIT_S = 120       # where nothing hangs, or the hang is ended by its own shorter limit
HANG_LIMIT_S = 30        # a suite run with a hang: every healthy case runs under it too
SHORT_HANG_LIMIT_S = 3   # the executor's hang alone, its healthy calls under CASE_LIMIT_S
SLOWED_S = 4.0           # a healthy call slowed past the old 3-second limit, as under load


class _FaultyEmulator(EmulatorBackend):
    """The emulator with one fault; ``delay_s`` (an instance attribute, pickled into the worker)
    slows its healthy calls, as a loaded machine would."""

    delay_s = 0.0

    def healthy(self, case, product):
        time.sleep(self.delay_s)
        return EmulatorBackend.run(self, case, product)


class CrashingBackend(_FaultyEmulator):
    """Aborts its process (SIGABRT) on the case ``doc-example``."""

    name = "crashing-emulator"

    def run(self, case, product):
        if case.case_id == CRASH_CASE:
            os.abort()
        return self.healthy(case, product)


class HangingBackend(_FaultyEmulator):
    """Never returns from the case ``n1-float32``."""

    name = "hanging-emulator"

    def run(self, case, product):
        if case.case_id == HANG_CASE:
            while True:
                time.sleep(60)
        return self.healthy(case, product)


class ExitingBackend(_FaultyEmulator):
    """Leaves with exit status 3 on the case ``doc-example``."""

    name = "exiting-emulator"

    def run(self, case, product):
        if case.case_id == CRASH_CASE:
            os._exit(3)
        return self.healthy(case, product)


class RaisingBackend(_FaultyEmulator):
    """Raises an ordinary exception on the case ``doc-example``."""

    name = "raising-emulator"

    def run(self, case, product):
        if case.case_id == CRASH_CASE:
            raise ValueError("deliberate failure")
        return self.healthy(case, product)


class PartialBackend(EmulatorBackend):
    """Implements every operator but ApplyAdamWQuant."""

    name = "partial-emulator"

    def run(self, case, product):
        if case.op == "apply_adam_w_quant":
            raise OperatorNotImplemented("no apply_adam_w_quant here")
        return super().run(case, product)


class UnpicklableBackend(EmulatorBackend):
    """Holds an attribute that does not pickle: it reaches the worker by its class path."""

    name = "unpicklable-emulator"

    def __init__(self):
        self.handle = lambda: None


def _cases():
    return {c.case_id: c for c in calls.table_cases("ci")}


def _suite_run(tmp_path: Path, backend: str, limit_s: float = CASE_LIMIT_S):
    """Run the selection with ``backend`` isolated: (case_id -> outcome, the records, the process)."""
    report = tmp_path / "report"
    cmd = [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_operators.py",
           "-k", SELECTION, "--op", "apply_adam_w_quant",
           "--backend", backend, "--case-timeout", str(limit_s), "--report-dir", str(report),
           "--product", "atlas-a2", "-p", "no:cacheprovider", "-p", "no:xdist", "-q"]
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert (report / "records.jsonl").exists(), proc.stdout[-3000:] + proc.stderr[-3000:]
    records = list(read_records(report / "records.jsonl"))
    assert records, proc.stdout[-3000:]
    return {r.case_id: r.outcome for r in records}, records, proc


def test_tests_dir_is_importable_as_a_backend_path():
    """``--backend tests.test_isolation:CrashingBackend`` resolves from the repository root."""
    proc = subprocess.run(
        [sys.executable, "-c", "from backends.registry import load_backend; "
         "print(load_backend('tests.test_isolation:CrashingBackend').name)"],
        cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == CrashingBackend.name


def test_crash_is_recorded_and_the_run_goes_on(tmp_path):
    outcomes, records, proc = _suite_run(tmp_path, "tests.test_isolation:CrashingBackend")
    assert outcomes.pop(CRASH_CASE) == "CRASH", proc.stdout[-3000:]
    crash = next(r for r in records if r.case_id == CRASH_CASE)
    assert "SIGABRT" in crash.detail
    assert {"doc-example-zero-qmaps", HANG_CASE, "n255-float32"} <= set(outcomes)
    assert set(outcomes.values()) == {"PASS"}, outcomes
    assert proc.returncode == 1   # the crashed case fails its test; the others ran after it


def test_hang_is_recorded_as_timeout_and_the_run_goes_on(tmp_path):
    outcomes, records, proc = _suite_run(tmp_path, "tests.test_isolation:HangingBackend",
                                         HANG_LIMIT_S)
    assert outcomes.pop(HANG_CASE) == "TIMEOUT", proc.stdout[-3000:]
    hang = next(r for r in records if r.case_id == HANG_CASE)
    assert f"{HANG_LIMIT_S} s" in hang.detail and hang.duration_s >= HANG_LIMIT_S * 0.9
    assert {CRASH_CASE, "doc-example-zero-qmaps", "n255-float32"} <= set(outcomes)
    assert set(outcomes.values()) == {"PASS"}, outcomes


# ---- the executor in process (faster, finer checks) ----

@pytest.fixture(scope="module")
def cases():
    return _cases()


def test_executor_returns_what_the_backend_returns(cases):
    run = isolated_executor(30)
    backend = EmulatorBackend()
    try:
        case = cases["n257-float32"]
        got, want = run(backend, case, "ascend950"), backend.run(case, "ascend950")
        assert got.status == want.status == 0
        assert got.phase == want.phase and got.workspace_size == want.workspace_size
        for name, storage in want.storages.items():
            assert got.storages[name].tobytes() == storage.tobytes(), name
        worker = run.worker(backend)
        pid = worker.proc.pid
        run(backend, cases["doc-example"], "atlas-a2")
        assert worker.proc.pid == pid, "the worker is persistent"
    finally:
        run.close()


@pytest.mark.parametrize("delay_s", [0.0, SLOWED_S], ids=["quiet", "loaded"])
def test_exit_status_crash_timeout_and_restart(cases, delay_s):
    """Only the hang meets the short limit: healthy calls, slowed as on a loaded machine
    (``delay_s``), run under a generous one and still pass."""
    run = isolated_executor(CASE_LIMIT_S)
    try:
        exiting, hanging, raising = ExitingBackend(), HangingBackend(), RaisingBackend()
        for backend in (exiting, hanging, raising):
            backend.delay_s = delay_s
        with pytest.raises(BackendCrash, match="exited with status 3"):
            run(exiting, cases[CRASH_CASE], "atlas-a2")
        assert run(exiting, cases[HANG_CASE], "atlas-a2").status == 0     # a fresh worker
        start = time.perf_counter()
        with pytest.raises(BackendTimeout, match=f"no result within {SHORT_HANG_LIMIT_S} s"):
            run.worker(hanging).run(cases[HANG_CASE], "atlas-a2", SHORT_HANG_LIMIT_S)
        assert time.perf_counter() - start >= SHORT_HANG_LIMIT_S * 0.9
        assert run(hanging, cases[CRASH_CASE], "atlas-a2").status == 0   # restarted after it
        with pytest.raises(BackendWorkerError, match="deliberate failure"):
            run(raising, cases[CRASH_CASE], "atlas-a2")
        worker = run.worker(raising)
        assert worker.alive(), "an exception in the backend does not cost the worker"
    finally:
        run.close()


def test_an_operator_the_backend_does_not_implement_is_backend_unavailable_with_its_reason(cases):
    from aclnn_conformance.judging.run_case import run_case
    from aclnn_conformance.spec.outcome import Outcome
    run = isolated_executor(30)
    try:
        backend = PartialBackend()
        for execute in (None, lambda case, product: run(backend, case, product)):   # in process, in the worker
            got = run_case(backend, cases[CRASH_CASE], "atlas-a2", "cann", execute=execute)
            assert got.outcome == Outcome.BACKEND_UNAVAILABLE
            assert "no apply_adam_w_quant here" in got.detail
    finally:
        run.close()


def test_unpicklable_backend_goes_by_class_path(cases):
    backend = UnpicklableBackend()
    kind, value = backend_reference(backend)
    assert kind == "class" and value.endswith(":UnpicklableBackend")
    run = isolated_executor(30)
    try:
        assert run(backend, cases["doc-example"], "atlas-a2").status == 0
    finally:
        run.close()


def test_timeout_must_be_positive():
    with pytest.raises(ValueError):
        isolated_executor(0)
