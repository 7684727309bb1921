"""A run split across machines with pytest-split (``--splits N --group G``): each shard's run record
names its group, ``merge`` of every shard equals the unsharded run, and a merge with a shard missing
or given twice is refused. One shard also runs under xdist, as a multi-core machine would."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import read_run
from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.load import load


ROOT = Path(__file__).resolve().parents[1]
SELECT = ["suites/test_operators.py::test_table", "suites/test_rules.py",
          "-k", "doc-example or fault-AAWQ-DTYPE", "--op", "apply_adam_w_quant"]
SPLITS = 3


def _pytest(report_dir: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pytest", *SELECT, "--backend", "reference", "--product", "atlas-a2",
           "--report-dir", str(report_dir), "-q", "-p", "no:cacheprovider", *extra]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture(scope="module")
def split_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("split")
    plan = {"whole": ("-p", "no:xdist")}
    for group in range(1, SPLITS + 1):
        workers = ("-n", "2") if group == 1 else ("-p", "no:xdist")
        plan[f"shard{group}"] = ("--splits", str(SPLITS), "--group", str(group), *workers)
    procs = {k: _pytest(base / k, *v) for k, v in plan.items()}
    for key, proc in procs.items():
        out, _ = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{key}: {out[-3000:]}"
    return {k: base / k for k in plan}


def _outcomes(folder: Path) -> dict:
    return {(r.op, r.case_id, r.product, r.profile, r.backend): (r.outcome, r.actual_status, r.message)
            for r in load([folder]).records}


def test_each_shard_records_its_group(split_runs):
    for group in range(1, SPLITS + 1):
        shard = read_run(split_runs[f"shard{group}"] / "run.json").shard
        assert shard["plugin"] == "pytest-split"
        assert (shard["group"], shard["splits"]) == (group, SPLITS)
    assert read_run(split_runs["whole"] / "run.json").shard is None


def test_merge_of_every_shard_equals_the_unsharded_run(split_runs, tmp_path, capsys):
    shards = [str(split_runs[f"shard{g}"]) for g in range(1, SPLITS + 1)]
    sizes = [len(_outcomes(Path(s))) for s in shards]
    assert all(n > 0 for n in sizes), sizes       # the split really divided the cases
    merged = tmp_path / "merged"
    assert main(["merge", *shards, "--out", str(merged)]) == 0
    whole = _outcomes(split_runs["whole"])
    assert _outcomes(merged) == whole and sum(sizes) == len(whole)
    assert main(["diff", str(split_runs["whole"]), str(merged)]) == 0
    capsys.readouterr()


def test_merge_refuses_a_missing_shard(split_runs, tmp_path, capsys):
    some = [str(split_runs["shard1"]), str(split_runs["shard3"])]
    assert main(["merge", *some, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err
    assert "shard(s) 2 of 3 missing" in err
    assert not (tmp_path / "m" / "records.jsonl").exists()


def test_merge_refuses_a_doubled_shard(split_runs, tmp_path, capsys):
    twice = [str(split_runs[f"shard{g}"]) for g in (1, 2, 2, 3)]
    assert main(["merge", *twice, "--out", str(tmp_path / "m")]) == 2
    assert "shard 2 of 3 given 2 times" in capsys.readouterr().err
