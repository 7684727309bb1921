"""A case's memory and a run that dies: an over-budget case is SKIPPED with its bytes, never
attempted (``--max-case-bytes``, default a quarter of the machine's memory); a run killed from
outside (SIGKILL, the kernel's OOM killer) is merged by ``report``, its last case named CRASH.

Each run is a small real sub-run of the suites in a subprocess on aclnnAbs's table cases.
"""
from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import weakref
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.judging.memory import (OVER_BUDGET, case_memory, memory_budget,
                                              over_budget, parse_bytes)
from aclnn_conformance.judging.records import read_records, read_run
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.single_calls import table_cases
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

REPO = Path(__file__).resolve().parent.parent
HERE = "tests.test_case_memory"
TABLE = "suites/test_operators.py::test_table"
ABS = ("--op", "abs", "--product", "ascend950")
VICTIM = "values"      # the abs table case the killing backend dies on (after "base")


class KillingBackend(ReferenceBackend):
    """Kills its own process with SIGKILL in the middle of VICTIM, as the OOM killer would."""

    name = "killed-reference"

    def run(self, case, product):
        if case.case_id == VICTIM:
            os.kill(os.getpid(), signal.SIGKILL)
        return super().run(case, product)


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, TABLE, *ABS, *args, "-q",
                           "-p", "no:xdist", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)


def _hand_bytes(case: Case) -> int:
    """The model of judging/memory.py computed again by hand: each storage twice (bytes of its
    NumPy elements), and 64 bytes per element of every tensor."""
    total = 0
    for arg in case.tensors.values():
        if arg is not None:
            n = int(np.prod(arg.desc.storage_shape))
            total += 2 * n * arg.storage.dtype.itemsize + 64 * n
    return total


def test_the_estimate_reads_the_descriptors_alone():
    # FLOAT[1000] and FLOAT16[10, 10], a null tensor: storages 4000 + 200 bytes, 1100 elements
    desc_a = TensorDesc.contiguous((1000,), AclDataType.FLOAT)
    desc_b = TensorDesc.contiguous((10, 10), AclDataType.FLOAT16)
    full = Case(op="abs", case_id="x", tensors={
        "a": TensorArg(desc_a, np.zeros(1000, np.float32)),
        "b": TensorArg(desc_b, np.zeros(100, np.float16)), "c": None})
    empty = Case(op="abs", case_id="x", tensors={"a": TensorArg(desc_a, np.empty(0)),
                                                 "b": TensorArg(desc_b, np.empty(0)), "c": None})
    assert case_memory(full) == case_memory(empty)
    assert (case_memory(full).storage_bytes, case_memory(full).elements) == (4200, 1100)
    assert case_memory(full).total == 2 * 4200 + 64 * 1100 == 78800
    # a view reaching past its storage shape counts what it reaches: FLOAT[4] at stride 3 -> 10
    strided = Case(op="abs", case_id="y", tensors={"a": TensorArg(TensorDesc(
        AclDataType.FLOAT, (4,), (3,), 0, desc_a.format, (4,)), np.empty(0))})
    assert case_memory(strided).storage_bytes == 40
    budget = memory_budget("78799")
    assert over_budget(full, budget).startswith(f"{OVER_BUDGET}: needs an estimated 78800 bytes")
    assert "the budget is 78799 bytes" in over_budget(full, budget)
    assert over_budget(full, memory_budget("78800")) == "" and over_budget(full, None) == ""


def test_an_oracle_result_lives_no_longer_than_its_case():
    """The oracle keeps its last results for the backends judging one case (mutate), never after
    the case is gone: held, they filled the memory of a run of the vendor's largest cases."""
    case = next(c for c in table_cases("abs", "ci") if c.case_id == VICTIM)
    first = oracle_result(case, "cann", "ascend950")
    assert oracle_result(case, "cann", "ascend950") is first
    released = weakref.ref(first)
    del case, first
    gc.collect()
    assert released() is None


def test_the_oracle_keeps_a_mutation_runs_cycle_and_no_more_than_its_byte_budget(monkeypatch):
    """A mutation run judges one operator's (case, product) pairs with each mutant in turn: a second
    pass over more pairs than a count-bounded cache held must find every result kept; a budget of
    a few results' bytes keeps only the newest that fit."""
    from aclnn_conformance.oracle import cases as oracle_cases
    from aclnn_conformance.spec.products import PRODUCT_IDS
    pairs = [(c, p) for op in ("abs", "exp", "neg", "sqrt", "sin", "cos", "tanh", "sigmoid")
             for c in table_cases(op, "ci") for p in PRODUCT_IDS
             if expected_outcome(op_spec(op), c, p, "cann").judge_values]
    assert len(pairs) > 64
    first = [oracle_result(c, "cann", p) for c, p in pairs]
    assert all(oracle_result(c, "cann", p) is r for (c, p), r in zip(pairs, first))
    monkeypatch.setattr(oracle_cases, "_RECENT_BYTES", 3 * oracle_cases._result_bytes(first[-1]))
    oracle_cases._RECENT.clear()
    monkeypatch.setattr(oracle_cases, "_held_bytes", 0)
    for c, p in pairs:
        oracle_result(c, "cann", p)
        assert oracle_cases._held_bytes <= oracle_cases._RECENT_BYTES
    assert oracle_cases._held_bytes == sum(size for _, _, size in oracle_cases._RECENT.values())


@pytest.mark.parametrize("text,count", [("4096", 4096), ("1K", 1024), ("4G", 4 << 30),
                                        ("512m", 512 << 20), ("2GiB", 2 << 30), ("3 GB", 3 << 30),
                                        ("1T", 1 << 40)])
def test_budgets_are_bytes_with_binary_suffixes(text, count):
    assert parse_bytes(text) == count
    assert memory_budget(text).limit == count


@pytest.mark.parametrize("text", ["", "abc", "-1", "1.5G", "0", "4X", "G"])
def test_a_bad_budget_is_refused(text):
    with pytest.raises(ValueError, match="bytes"):
        parse_bytes(text)


def test_the_default_budget_is_a_quarter_of_the_machine():
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    budget = memory_budget(None)
    assert 0 < budget.limit <= total // 4 and "a quarter" in budget.source
    assert memory_budget("none") is None


def test_a_bad_budget_on_the_command_line_is_one_line_and_exit_4():
    script = Path(sys.executable).parent / "aclnn-conformance"
    proc = subprocess.run([str(script), "run", *ABS, "--max-case-bytes", "4X", "-p", "no:xdist"],
                          capture_output=True, text=True, timeout=300)
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert proc.returncode == 4, lines
    assert len(lines) == 1 and "--max-case-bytes '4X' is not a count of bytes" in lines[0], lines


def test_an_over_budget_case_is_skipped_with_its_bytes(tmp_path):
    """abs's "base" case fits in 1 KiB, its "values" case does not: SKIPPED with the bytes it
    needs and the budget, no case file written; a skip is no failure, so the run exits 0."""
    report = tmp_path / "report"
    proc = _run("--max-case-bytes", "1K", "--report-dir", str(report))
    assert proc.returncode == 0, proc.stdout[-3000:]
    records = {r.case_id: r for r in read_records(report / "records.jsonl")}
    big = next(c for c in table_cases("abs", "ci") if c.case_id == VICTIM)
    need = _hand_bytes(big)
    assert need > 1024
    skipped = records[VICTIM]
    assert skipped.outcome == "SKIPPED" and skipped.actual_status is None
    assert f"needs an estimated {need} bytes" in skipped.detail
    assert "the budget is 1024 bytes" in skipped.detail and "--max-case-bytes 1K" in skipped.detail
    assert skipped.case_file is None and not (report / "failures").exists()
    assert records["base"].outcome == "PASS" and _hand_bytes(
        next(c for c in table_cases("abs", "ci") if c.case_id == "base")) <= 1024
    assert read_run(report / "run.json").skipped == ()   # its record says why: not "unrecorded"
    # every case over the budget: nothing judged, exit 6 as the README says
    assert _run("--max-case-bytes", "1").returncode == 6


def test_a_killed_run_is_merged_by_report_with_its_case_named(tmp_path):
    report = tmp_path / "report"
    proc = _run("--backend", f"{HERE}:KillingBackend", "--report-dir", str(report))
    assert proc.returncode == -signal.SIGKILL, proc.stdout[-2000:]
    marker = report / "inflight" / "main.json"
    assert not (report / "records.jsonl").exists() and marker.exists()
    # while the marked process lives (here: this one) the run is still going: nothing is settled
    dead = json.loads(marker.read_text())
    marker.write_text(json.dumps({**dead, "pid": os.getpid()}))
    live = subprocess.run([sys.executable, "-m", "reports", "report", str(report)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert live.returncode == 0 and "CRASH" not in (report / "report.md").read_text()
    assert not (report / "records.jsonl").exists() and marker.exists()
    marker.write_text(json.dumps(dead))
    reported = subprocess.run([sys.executable, "-m", "reports", "report", str(report)], cwd=REPO,
                              capture_output=True, text=True, timeout=300)
    assert reported.returncode == 0, reported.stderr
    assert f"INCOMPLETE: the run never finished: its process died while running abs case {VICTIM}" \
        in reported.stdout
    records = {r.case_id: r for r in read_records(report / "records.jsonl")}
    assert records["base"].outcome == "PASS"
    assert records[VICTIM].outcome == "CRASH" and "in-flight marker" in records[VICTIM].detail
    run = read_run(report / "run.json")
    assert not run.complete and run.records_written == 2
    assert f"abs case {VICTIM} on ascend950" in run.stop_reason and "OOM" in run.stop_reason
    md = (report / "report.md").read_text()
    assert "INCOMPLETE" in md and f"abs case {VICTIM}" in md
    assert not list((report / "inflight").glob("*.json"))
    # a second report reads the merged records: the same two, the CRASH once
    again = subprocess.run([sys.executable, "-m", "reports", "report", str(report)], cwd=REPO,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and f"{report}: INCOMPLETE" not in again.stdout
    assert "is INCOMPLETE: the run never finished" in again.stdout
    assert len(list(read_records(report / "records.jsonl"))) == 2
