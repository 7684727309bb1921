"""The command line: unknown names, and records of several xdist workers in one file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import read_records, read_run
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

ROOT = Path(__file__).resolve().parents[1]


def _pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, *args, "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("option,value,valid", [
    ("--backend", "no-such-backend", "valid: aclnn, emulator, reference, torch"),
    ("--product", "atlas-a9", "valid: ascend950, atlas-a3, atlas-a2, atlas-200i-500-a2"),
])
def test_unknown_names_get_one_line_listing_the_valid_ones(option, value, valid):
    run = _pytest("suites/test_rules.py", option, value, "-q")
    assert run.returncode != 0
    err = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(err) == 1 and valid in err[0], err
    assert "Traceback" not in run.stdout + run.stderr


def test_two_workers_write_one_records_file(tmp_path):
    run = _pytest("suites/test_operators.py::test_table", "-k", "n256-", "--op", "apply_adam_w_quant", "-n", "2",
                  "--backend", "reference", "--product", "atlas-a2,ascend950",
                  "--report-dir", str(tmp_path), "-q")
    assert run.returncode == 0, run.stdout[-2000:]
    assert read_run(tmp_path / "run.json").workers == 2
    assert not (tmp_path / "records").exists()   # the workers' shards, merged and removed
    records = list(read_records(tmp_path / "records.jsonl"))
    assert len(records) == 6  # n256-{float32,float16,bfloat16} on two products
    assert len({r.run_id for r in records}) == 1
    assert (tmp_path / "report.md").read_text().count("atlas-a2") >= 1
