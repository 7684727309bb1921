"""The example plug-in backend, through the console script's `run`, passes every suite on a product
that supports both operators, as the backends/README.md says a correct backend does."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.representative import REPRESENTATIVE_OPS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "aclnn_conformance.backends.examples.my_backend:MyBackend"


@pytest.mark.slow
def test_example_backend_passes_every_suite(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run(
        [sys.executable, "-m", "aclnn_conformance.cli", "run", "--backend", EXAMPLE, "--product",
         "ascend950", "--op", ",".join(REPRESENTATIVE_OPS), "--report-dir", "out", "-q"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    records = [json.loads(line) for line in
               (tmp_path / "out" / "records.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["op"] for r in records} == set(REPRESENTATIVE_OPS)   # the main job runs every operator
    assert {(r["backend"], r["product"]) for r in records} == {("my-backend", "ascend950")}
    assert {r["outcome"] for r in records} <= {"PASS", "NOT_SUPPORTED", "NOT_JUDGED", "NOT_COVERED"}
    assert any(r["outcome"] == "PASS" and r["op"] == "weight_quant_preprocess" for r in records)


def test_example_points_to_the_backend_authors_page():
    from aclnn_conformance.backends.examples import my_backend
    assert "backends/README.md" in my_backend.__doc__
    assert (ROOT / "backends" / "README.md").is_file()
    assert EXAMPLE in (ROOT / "backends" / "README.md").read_text(encoding="utf-8")
