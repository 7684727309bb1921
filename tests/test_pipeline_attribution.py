"""A failure inside the MX A8W4 pipeline is reported against the call and rule that failed: a broken
WeightQuantPreprocess stops the chain at its own call, a broken matmul at the matmul's call, and only
a chain of two passing calls can fail the pipeline relation."""
from __future__ import annotations

import pytest

from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.mutants import NibbleOrder, NibblesSwapped
from aclnn_conformance.judging.records import RecordWriter, read_records
from aclnn_conformance.suites.runner import Harness
from aclnn_conformance.suites.test_mx_a8w4_pipeline import TABLE, check_chain

CHAIN = next(c for c in TABLE if c.case_id == "k96-n32")


def _records(tmp_path, backend):
    path = tmp_path / f"{backend.name}.jsonl"
    writer = RecordWriter(path)
    harness = Harness(backend=backend, profile="cann", tier="ci", run_id="t", writer=writer)
    failed = None
    try:
        check_chain(harness, "ascend950", CHAIN, "")
    except pytest.fail.Exception as exc:
        failed = str(exc)
    writer.close()
    return list(read_records(path)), failed


def test_a_sound_chain_records_both_calls_and_the_relation(tmp_path):
    records, failed = _records(tmp_path, EmulatorBackend())
    assert failed is None
    assert [(r.op, r.outcome) for r in records] == [("weight_quant_preprocess", "PASS"),
                                                    ("quant_matmul_weight_nz", "PASS"),
                                                    ("quant_matmul_weight_nz", "PASS")]
    assert records[-1].case_id.startswith("pipeline-equals-nd:")


def test_a_broken_preprocess_is_reported_against_weight_quant_preprocess(tmp_path):
    records, failed = _records(tmp_path, NibblesSwapped())
    assert failed and len(records) == 1
    (only,) = records
    assert (only.op, only.outcome) == ("weight_quant_preprocess", "FAIL")
    assert "WQP-VAL-002" in only.rule_ids


def test_a_broken_matmul_is_reported_against_quant_matmul_weight_nz(tmp_path):
    records, failed = _records(tmp_path, NibbleOrder())
    assert failed and [(r.op, r.outcome) for r in records] == [("weight_quant_preprocess", "PASS"),
                                                              ("quant_matmul_weight_nz", "FAIL")]
    assert "QMMNZ-VAL-003" in records[-1].rule_ids
    assert not records[-1].case_id.startswith("pipeline-equals-nd:")
