"""A correct backend certifies: the emulator is CONFORMANT on every product against the committed
must-pass list, with and without torch (a torch-only case is SKIPPED with what to install, never an
error), for a handful of operators and for an extracted one alone; and the committed list is what a
reference run of the suite gives today, never hand-kept names."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import read_records
from aclnn_conformance.reports.certify import (MUSTPASS, _mustpass_lines, certify,
                                               generate_mustpass, mustpass_needs)
from aclnn_conformance.spec.products import PRODUCT_IDS

REPO = Path(__file__).resolve().parent.parent
WITHOUT_TORCH = REPO / "tests" / "fixtures" / "without_torch"
# the hand-written operators whose must-pass names went stale or need torch, and a chained pair
HANDFUL = ("apply_adam_w_v2", "quant_matmul_weight_nz", "weight_quant_preprocess")


def _without_torch_env() -> dict[str, str]:
    path = os.pathsep.join(filter(None, [str(WITHOUT_TORCH), os.environ.get("PYTHONPATH", "")]))
    return {**os.environ, "PYTHONPATH": path}


@pytest.mark.slow
@pytest.mark.parametrize("product", PRODUCT_IDS)
def test_the_emulator_certifies_and_verifies_without_torch(product, tmp_path):
    env = _without_torch_env()
    probe = subprocess.run([sys.executable, "-c", "import torch"], env=env, capture_output=True)
    assert probe.returncode != 0   # the run below cannot import torch
    bundle = tmp_path / "bundle"
    cert = subprocess.run([sys.executable, "-m", "reports", "certify", "--backend", "emulator",
                           "--product", product, "--op", ",".join(HANDFUL), "--out", str(bundle),
                           "--workers", "0"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=900)
    assert cert.returncode == 0, cert.stdout[-3000:] + cert.stderr[-2000:]
    assert cert.stdout.startswith(f"bundle {bundle}: CONFORMANT")
    check = subprocess.run([sys.executable, "-m", "reports", "verify", str(bundle)], cwd=REPO,
                           env=env, capture_output=True, text=True, timeout=300)
    assert check.returncode == 0 and f"bundle {bundle}: CONFORMANT" in check.stdout, check.stdout
    assert "rests on: " in check.stdout
    # the torch relations the list marks are SKIPPED with what to install, and named as such
    needs_torch = [case for (p, op, case), needs in mustpass_needs().items()
                   if p == product and op in HANDFUL and "torch" in needs]
    records = {r.case_id: r for r in read_records(bundle / "results" / "records.jsonl")}
    for case in needs_torch:
        assert records[case].outcome == "SKIPPED" and records[case].needs == ("torch",)
        assert "pip install 'aclnn-conformance[torch]'" in records[case].detail
    if needs_torch:
        assert f"{len(needs_torch)} must-pass case(s) SKIPPED for want of torch" in check.stdout
    statement = json.loads((bundle / "statement.json").read_text())
    assert statement["mustpass_cases"] > 0 and statement["ops"] == sorted(HANDFUL)


def test_the_torch_cases_are_marked_in_the_committed_list():
    marked = {(op, case) for (_, op, case), needs in mustpass_needs().items() if "torch" in needs}
    assert marked and all(case.startswith("torch-adamw:") for _, case in marked)


@pytest.mark.slow
def test_an_extracted_operator_certifies_alone(tmp_path):
    bundle, errors, warnings = certify("emulator", "atlas-a2", tmp_path / "bundle", workers=0,
                                       ops=("add",))
    assert errors == [], errors
    statement = json.loads((bundle / "statement.json").read_text())
    assert statement["ops"] == ["add"] and statement["mustpass_cases"] > 0


@pytest.mark.slow
def test_the_committed_list_is_what_a_reference_run_gives(tmp_path):
    ops = ("abs", "quant_matmul_weight_nz", "weight_quant_preprocess")
    fresh = tmp_path / "mustpass.txt"
    assert generate_mustpass(fresh, workers=0, ops=ops) > 0
    committed = {(e, n) for e, n in _mustpass_lines(MUSTPASS) if e[1] in ops}
    assert set(_mustpass_lines(fresh)) == committed, (
        "reports/mustpass.txt is stale: regenerate it with "
        "python -m reports mustpass --out reports/mustpass.txt")
