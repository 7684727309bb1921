"""The record schemas: outcome and run records are checked on write and on read, and a malformed
record is rejected with a message that names the field."""
from __future__ import annotations

import json

import pytest

from aclnn_conformance.reports.load import MergeError, RunSet, merge
from aclnn_conformance.judging.records import (OUTCOME_SCHEMA, RUN_SCHEMA, OutcomeRecord, RecordError, RecordWriter,
                             RunRecord, read_records, read_run, validate_outcome, validate_run,
                             write_run)
from aclnn_conformance.reports.run import backend_environment, finished_run_record


def _record(**changes) -> OutcomeRecord:
    base = dict(case_id="doc-example", op="apply_adam_w_quant", product="atlas-a2", profile="cann",
                backend="reference", outcome="PASS", run_id="r1", rule_ids=("AAWQ-VAL-001",))
    return OutcomeRecord(**{**base, **changes})


def _run(**changes) -> RunRecord:
    base = dict(run_id="r1", suite_version="0.1.0", suite_commit="unknown", backend="reference",
                backend_version="1", products=("atlas-a2",), profile="cann", tier="ci",
                started="2026-01-01T00:00:00+00:00")
    return RunRecord(**{**base, **changes})


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("outcome"), "outcome"),
    (lambda d: d.update(outcome="GREAT"), "outcome"),
    (lambda d: d.update(product=""), "product"),
    (lambda d: d.update(rule_ids="AAWQ-VAL-001"), "rule_ids"),
    (lambda d: d.update(actual_status="0"), "actual_status"),
    (lambda d: d.update(expected_status=True), "expected_status"),
    (lambda d: d.update(duration_s="fast"), "duration_s"),
    (lambda d: d.update(schema="aclnn-conformance/outcome/0"), "schema"),
    (lambda d: d.update(colour="red"), "colour"),
])
def test_malformed_outcome_record_is_rejected_naming_the_field(mutate, field):
    doc = _record().to_json()
    mutate(doc)
    with pytest.raises(RecordError, match=field):
        validate_outcome(doc)
    with pytest.raises(RecordError, match=field):
        OutcomeRecord.from_json(doc)


def test_records_are_checked_on_write(tmp_path):
    writer = RecordWriter(tmp_path / "w.jsonl")
    with pytest.raises(RecordError, match="outcome"):
        writer.write(_record(outcome="MAYBE"))
    writer.close()


def test_reading_names_file_line_and_field(tmp_path):
    path = tmp_path / "records.jsonl"
    good = json.dumps(_record().to_json())
    bad = _record(case_id="second").to_json()
    bad["verdicts"] = ["PASS"]
    path.write_text(good + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(RecordError, match=r"records\.jsonl:2: record 'second': field 'verdicts'"):
        list(read_records(path))
    path.write_text(good + "\n{not json\n")
    with pytest.raises(RecordError, match=r"records\.jsonl:2"):
        list(read_records(path))


def test_round_trip_keeps_every_field(tmp_path):
    rec = _record(metrics={"varRef": {"max_ulp": 1.0}}, verdicts={"varRef": "PASS"},
                  actual_status=0, seed=3)
    writer = RecordWriter(tmp_path / "r.jsonl")
    writer.write(rec)
    writer.close()
    assert list(read_records(tmp_path / "r.jsonl")) == [rec]
    assert rec.to_json()["schema"] == OUTCOME_SCHEMA


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("suite_commit"), "suite_commit"),
    (lambda d: d.update(products=[]), "products"),
    (lambda d: d.update(workers="2"), "workers"),
    (lambda d: d.update(complete="yes"), "complete"),
    (lambda d: d.update(complete=True, finished=None), "complete"),
    (lambda d: d.update(cann_version=8), "cann_version"),
    (lambda d: d.update(schema="aclnn-conformance/run/2"), "schema"),
    (lambda d: d.update(gpu="none"), "gpu"),
])
def test_malformed_run_record_is_rejected_naming_the_field(mutate, field, tmp_path):
    doc = _run().to_json()
    assert doc["schema"] == RUN_SCHEMA
    mutate(doc)
    with pytest.raises(RecordError, match=field):
        validate_run(doc)
    (tmp_path / "run.json").write_text(json.dumps(doc))
    with pytest.raises(RecordError, match=field):
        read_run(tmp_path / "run.json")


def test_run_record_completion():
    run = _run()
    assert not run.complete
    done = finished_run_record(run, 1)            # tests failed, but the run went to the end
    assert done.complete and not done.stopped_early and done.finished
    stopped = finished_run_record(run, 1, "stopping after 1 failures")
    assert not stopped.complete and stopped.stopped_early
    assert stopped.stop_reason == "stopping after 1 failures"
    interrupted = finished_run_record(run, 2)     # KeyboardInterrupt, xdist -x / --maxfail
    assert not interrupted.complete and interrupted.stop_reason == "interrupted"
    for r in (done, stopped, interrupted):
        validate_run(r.to_json())


def test_run_record_is_rewritten_atomically(tmp_path):
    path = write_run(tmp_path / "run.json", _run())
    write_run(path, finished_run_record(read_run(path), 0))
    assert read_run(path).complete
    assert [p.name for p in tmp_path.iterdir()] == ["run.json"]


def test_backend_environment_hook_is_optional():
    class Plain:
        pass

    class Device:
        def environment(self):
            return {"cann_version": "8.5.0", "soc_name": "Ascend910B3", "devices": 8}

    class Broken:
        def environment(self):
            raise RuntimeError("no driver")

    assert backend_environment(Plain()) == {}
    assert backend_environment(Device())["soc_name"] == "Ascend910B3"
    assert "no driver" in backend_environment(Broken())["error"]


def test_merge_refuses_one_case_from_two_runs_and_collapses_repeats():
    a, b = _record(run_id="run-a"), _record(run_id="run-b")
    with pytest.raises(MergeError, match="doc-example.*run-a.*run-b"):
        merge([RunSet([a], sources=["A"]), RunSet([b], sources=["B"])])
    again = _record(run_id="run-a", outcome="FAIL", duration_s=1.0)
    merged = merge([RunSet([a, again], sources=["A"])])
    assert [r.outcome for r in merged.records] == ["FAIL"] and merged.repeats == 1


def test_a_shard_cut_mid_record_keeps_its_whole_records(tmp_path):
    path = tmp_path / "gw0.jsonl"
    whole = json.dumps(_record().to_json())
    path.write_text(whole + "\n" + whole[:40])
    assert len(list(read_records(path, partial_tail=True))) == 1
    with pytest.raises(RecordError, match=r"gw0\.jsonl:2"):
        list(read_records(path))
