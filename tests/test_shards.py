"""A run split across machines with pytest-split (``--splits N --group G``): each shard's run record
names its group, ``merge`` of every shard equals the unsharded run, and a merge with a shard missing
or given twice is refused. One shard also runs under xdist, as a multi-core machine would. Each
finished run holds its records once (records.jsonl; the workers' shards removed)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import OutcomeRecord, read_records, read_run, write_records
from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.load import load
from aclnn_conformance.reports.summary import merge_shards
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.reports.certify import PLAIN_ASSERTS


ROOT = Path(__file__).resolve().parents[1]
SELECT = ["suites/test_operators.py::test_table", "suites/test_rules.py",
          "-k", "doc-example or fault-AAWQ-DTYPE", "--op", "apply_adam_w_quant"]
SPLITS = 3


def _pytest(report_dir: Path, *extra: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, *SELECT, "--backend", "reference", "--product", "atlas-a2",
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


def test_a_finished_run_holds_its_records_once(split_runs):
    """records.jsonl only: the workers' shards are removed once merged into it."""
    for name, folder in split_runs.items():
        assert (folder / "records.jsonl").is_file(), name
        assert not (folder / "records").exists(), f"{name}: {sorted(folder.iterdir())}"
        assert len(load([folder]).records) == read_run(folder / "run.json").records_written


def _shard_folder(folder: Path, outcomes: dict[str, str]) -> list[OutcomeRecord]:
    records = [OutcomeRecord(case_id=case_id, op="op", product="atlas-a2", profile="cann",
                             backend="b", outcome=outcome, run_id="r1")
               for case_id, outcome in outcomes.items()]
    (folder / "records").mkdir(parents=True)
    write_records(folder / "records" / "gw0.jsonl", records[:1])
    write_records(folder / "records" / "gw1.jsonl", records[1:])
    return records


def test_merging_the_shards_again_keeps_the_records(tmp_path):
    """A folder merged once (its shards gone) merges again to the same records, and a merge cut
    short after records.jsonl was written (shards left) keeps records.jsonl."""
    records = _shard_folder(tmp_path, {"a": Outcome.PASS, "b": Outcome.FAIL, "c": Outcome.PASS})
    assert sorted(merge_shards(tmp_path).records, key=lambda r: r.case_id) == records
    assert not (tmp_path / "records").exists()
    assert sorted(merge_shards(tmp_path).records, key=lambda r: r.case_id) == records
    (tmp_path / "records").mkdir()
    write_records(tmp_path / "records" / "gw0.jsonl", records[:1])   # what rmtree left
    assert sorted(merge_shards(tmp_path).records, key=lambda r: r.case_id) == records
    assert list(read_records(tmp_path / "records.jsonl")) == records
    assert not (tmp_path / "records").exists()
