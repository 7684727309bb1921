"""Certification bundles: a real (small) certification run, then verify on the bundle and on copies
of it with a FAIL, a missing case, a duplicated case and a changed file."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace

import pytest

from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.certify import (FIXED_OPTIONS, MUSTPASS, certify, is_deterministic,
                             read_mustpass, spec_data, spec_sha256, verify, write_manifest)
from aclnn_conformance.judging.records import read_records, write_records
from aclnn_conformance.spec import OPS
from tests.fault_lists import CERTIFIED_OPS, fault_list

PRODUCT = "atlas-a2"
SUITES = ("suites/test_rules.py",)      # one suite keeps the test fast; certification runs all


@pytest.fixture(scope="module")
def small_list(tmp_path_factory):
    path = tmp_path_factory.mktemp("mustpass") / "mustpass.txt"
    fault_list(path, PRODUCT, 6)
    return path


@pytest.fixture(scope="module")
def bundle(tmp_path_factory, small_list):
    out = tmp_path_factory.mktemp("cert") / "bundle"
    path, errors, warnings = certify("reference", PRODUCT, out, workers=0, mustpass=small_list,
                                     suites=SUITES, ops=CERTIFIED_OPS)
    assert errors == [], errors
    return path


def _copy(bundle, tmp_path, edit_records=None, manifest=True):
    dst = tmp_path / "copy"
    shutil.copytree(bundle, dst)
    if edit_records is not None:
        path = dst / "results" / "records.jsonl"
        write_records(path, edit_records(list(read_records(path))))
    if manifest:
        write_manifest(dst)
    return dst


def _verify(path, small_list):
    errors, _ = verify(path, small_list, SUITES)
    return errors


def test_bundle_contents_and_statement(bundle, small_list):
    for name in ("statement.json", "MANIFEST.sha256", "mustpass.txt", "pytest.log",
                 "results/run.json", "results/records.jsonl", "results/report.html"):
        assert (bundle / name).is_file(), name
    st = json.loads((bundle / "statement.json").read_text())
    assert st["product"] == PRODUCT and st["backend"] == "reference"
    assert st["options"] == list(FIXED_OPTIONS) and st["suites"] == list(SUITES)
    assert {"python", "numpy", "suite_commit", "suite_version", "cann_version", "soc_name"} <= set(st)
    assert st["mustpass_cases"] == len(read_mustpass(small_list))
    assert _verify(bundle, small_list) == []


def test_verify_rejects_a_fail(bundle, small_list, tmp_path, capsys):
    def fail_one(recs):
        return [replace(recs[0], outcome="FAIL", detail="wrong status")] + recs[1:]
    copy = _copy(bundle, tmp_path, fail_one)
    errors = _verify(copy, small_list)
    assert len(errors) == 5 and errors[0].startswith("FAIL: ")
    # the JUnit XML pytest wrote still says the test passed with a PASS record
    assert errors[1].startswith("results/junit.xml: test ") and "worst PASS" in errors[1]
    # and so do the statement, the run record and pytest's own summary line
    assert errors[2:4] == ["statement.json: pytest_exit_status 0, but the records are not "
                           "certifiable",
                           "results/run.json: exit_status 0, but the records are not certifiable"]
    assert errors[4].startswith("pytest.log: says '") and " passed" in errors[4]
    assert errors[4].endswith("', but the records are not certifiable")
    assert main(["verify", str(copy), "--mustpass", str(small_list)]) == 1
    assert "NOT CONFORMANT" in capsys.readouterr().out


def test_verify_rejects_a_missing_case(bundle, small_list, tmp_path):
    product, op, case_id = read_mustpass(small_list)[0]
    copy = _copy(bundle, tmp_path, lambda recs: [r for r in recs if r.case_id != case_id])
    errors = _verify(copy, small_list)
    assert errors[0] == f"must-pass case missing: {op} {case_id} on {product}"
    assert len(errors) == 3 and "record(s) that records.jsonl lacks" in errors[1]
    assert errors[2].startswith("results/run.json: the run wrote ") and errors[2].endswith(
        f" record(s); records.jsonl holds {len(list(read_records(copy / 'results/records.jsonl')))}")


def test_verify_rejects_a_duplicated_case(bundle, small_list, tmp_path):
    product, op, case_id = read_mustpass(small_list)[-1]
    copy = _copy(bundle, tmp_path,
                 lambda recs: recs + [r for r in recs if (r.op, r.case_id) == (op, case_id)])
    errors = _verify(copy, small_list)
    assert errors[0] == f"must-pass case duplicated: {op} {case_id} on {product} (2 records)"
    assert len(errors) == 3 and "the records say 2" in errors[1]
    assert errors[2].startswith("results/run.json: the run wrote ")


def test_verify_rejects_a_changed_or_added_file(bundle, small_list, tmp_path):
    copy = _copy(bundle, tmp_path, manifest=False)
    with open(copy / "results" / "report.md", "a") as fh:
        fh.write("\nall good\n")
    (copy / "results" / "extra.txt").write_text("x")
    errors = _verify(copy, small_list)
    assert "results/report.md: changed since the manifest (sha256 differs)" in errors
    assert any(e.startswith("results/extra.txt: not in the manifest") for e in errors)


def test_verify_rejects_a_statement_without_a_field(bundle, small_list, tmp_path):
    copy = _copy(bundle, tmp_path, manifest=False)
    st = json.loads((copy / "statement.json").read_text())
    del st["numpy"]
    (copy / "statement.json").write_text(json.dumps(st))
    write_manifest(copy)
    assert _verify(copy, small_list) == ["statement.json: missing field 'numpy'"]


def test_committed_mustpass_holds_only_deterministic_cases():
    entries = read_mustpass(MUSTPASS)
    assert entries and len(entries) == len(set(entries))
    assert not any(case.startswith("hyp-") or ":hyp-" in case for _, _, case in entries)
    assert {op for _, op, _ in entries} <= set(OPS)
    assert is_deterministic(type("R", (), {"origin": "table", "case_id": "doc-example"}))


def test_a_statement_judged_against_another_spec_is_refused(bundle, small_list, tmp_path):
    copy = _copy(bundle, tmp_path, manifest=False)
    st = json.loads((copy / "statement.json").read_text())
    assert st["spec_sha256"] == spec_sha256(spec_data(tuple(sorted(CERTIFIED_OPS))))
    assert st["ops"] == sorted(CERTIFIED_OPS) and set(st["spec"]) == set(CERTIFIED_OPS)
    assert all(st["spec"][op]["rules"] == len(OPS[op].rules) for op in CERTIFIED_OPS)
    st["spec_sha256"] = "0" * 64
    (copy / "statement.json").write_text(json.dumps(st))
    write_manifest(copy)
    errors = _verify(copy, small_list)
    assert len(errors) == 1 and errors[0].startswith("statement.json: spec_sha256 '0000")


def test_the_spec_digest_changes_with_a_rule_expectation():
    data = spec_data()
    changed = json.loads(json.dumps(data))
    op = sorted(changed)[0]
    rule = next(iter(changed[op]["rules"]))
    changed[op]["rules"][rule]["cann"] = {"kind": "status", "status": 1}
    assert spec_sha256(changed) != spec_sha256(data) == spec_sha256(spec_data())


def test_certify_one_operator(small_list, tmp_path):
    op = "weight_quant_preprocess"
    path, errors, _ = certify("reference", PRODUCT, tmp_path / "bundle", workers=0,
                              mustpass=small_list, suites=SUITES, ops=(op,))
    assert errors == [], errors
    st = json.loads((path / "statement.json").read_text())
    assert st["ops"] == [op] and list(st["spec"]) == [op]
    assert st["mustpass_cases"] == sum(1 for _, o, _ in read_mustpass(small_list) if o == op)
    records = list(read_records(path / "results" / "records.jsonl"))
    assert records and {r.op for r in records} == {op}
    assert main(["certify", "--backend", "reference", "--product", PRODUCT, "--op", "nosuch",
                 "--out", str(tmp_path / "other")]) == 2
    assert not (tmp_path / "other").exists()
