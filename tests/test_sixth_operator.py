"""A sixth operator from its own package: tests/fixtures/example_relu declares every piece of the
record (a spec with rules, an oracle, an emulator model, a torch function, a mutant and a control)
and registers through the real ``aclnn_conformance.operators`` entry point. Installed beside the
built project in a fresh environment, every generic suite and ``mutate`` run it, with nothing in the
project edited."""
from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from test_packaging import _clean_env, _pip, installed, source  # noqa: F401  (module fixtures)

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "example_relu"
CERTIFIABLE = {"PASS", "NOT_SUPPORTED", "NOT_JUDGED", "NOT_COVERED", "QUALITY_WARNING", "WAIVED"}


@pytest.fixture(scope="module")
def with_sixth(installed, tmp_path_factory):  # noqa: F811
    """The installed environment with the fixture operator's package installed beside it."""
    copy = tmp_path_factory.mktemp("fixture") / "example_relu"
    subprocess.run(["cp", "-r", str(FIXTURE), str(copy)], check=True)
    _pip(installed / "bin" / "python", "install", str(copy), cwd=copy)
    return installed


def _run(env_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["aclnn-conformance", *args], cwd=cwd, env=_clean_env(env_dir),
                          capture_output=True, text=True, timeout=900)


@pytest.mark.slow
def test_the_entry_point_registers_it(with_sixth, tmp_path):
    listed = _run(with_sixth, tmp_path, "list", "operators")
    assert listed.returncode == 0, listed.stderr
    assert "example_relu" in listed.stdout and "aclnnExampleRelu" in listed.stdout
    rules = _run(with_sixth, tmp_path, "list", "rules", "aclnnExampleRelu")
    assert rules.returncode == 0 and "EXRELU-SHAPE-001" in rules.stdout, rules.stderr


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["reference", "emulator"])
def test_every_generic_suite_runs_it(with_sixth, tmp_path, backend):
    run = _run(with_sixth, tmp_path, "run", "--backend", backend, "--product", "atlas-a2,ascend950",
               "--report-dir", "out", "--op", "example_relu", "-q", "-p", "no:cacheprovider")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    records = [json.loads(line) for line in (tmp_path / "out" / "records.jsonl").open()]
    mine = [r for r in records if r["op"] == "example_relu"]
    assert mine and len(mine) == len(records)
    assert {r["outcome"] for r in mine} <= CERTIFIABLE
    origins = Counter(r["origin"] for r in mine)
    for origin in ("table", "fault", "fault-pair", "hypothesis", "determinism", "declared-support"):
        assert origins[origin] > 0, (origin, origins)
    nodes = {r["nodeid"].split("::")[1].split("[")[0] for r in mine}
    assert {"test_table", "test_valid_calls", "test_invalid_calls", "test_deterministic",
            "test_one_fault", "test_fault_pair", "test_declared_support"} <= nodes
    assert any(r["judged_by"] == "values" for r in mine)


@pytest.mark.slow
def test_mutate_kills_its_mutant_and_passes_its_control(with_sixth, tmp_path):
    run = _run(with_sixth, tmp_path, "mutate", "--mutants",
               "mutant-example-relu-negative-zero-kept,control-example-relu-native-dtype",
               "--products", "atlas-a2,ascend950", "--out", "mut")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    doc = json.loads((tmp_path / "mut" / "mutation.json").read_text())
    status = {m["name"]: (m["status"], m["named"]) for m in doc["mutants"]}
    assert status["mutant-example-relu-negative-zero-kept"] == ("killed", True)
    assert status["control-example-relu-native-dtype"] == ("control", False)
