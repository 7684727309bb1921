"""Fault injection: a backend or an input that goes wrong ends in an honest record or a one-line error
with a distinct exit status, never in a report that says more than was judged.

Each situation runs the harness as a user would, in a pytest or ``python -m reports`` subprocess on a
handful of cases: a worker that dies under pytest-xdist, a native-code backend that crashes with
isolation left at its default, a hang, a run() that returns None, corrupted records and case files,
an interrupted run, a reused report folder, bad options, a failing hypothesis property, a forged
certification bundle, and each probe of certification (repeated hypothesis draws, reproducers of
crashes, a backend that kills an in-process run, outputs that must not be overwritten, records that
disagree with their run record, unknown names in the reports' commands, skipped torch relations,
the seed in the ci tier, out-of-domain families).
"""
from __future__ import annotations

import ctypes
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.judging.records import OutcomeRecord, read_records, read_run, write_records
from aclnn_conformance.reports.certify import (MUSTPASS_FORMAT, certify, verify, write_manifest,
                                               sign_manifest)
from aclnn_conformance.reports.load import RunSet
from aclnn_conformance.reports.tables import applicable_rules, compliance, compliance_text
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.faults import fault_cases
from aclnn_conformance.reports.certify import PLAIN_ASSERTS
from tests.fault_lists import CERTIFIED_OPS, fault_list

REPO = Path(__file__).resolve().parent.parent
HERE = "tests.test_fault_injection"
AAWQ = "suites/test_operators.py::test_table"
ONE_OP = ("--op", "apply_adam_w_quant")   # the run builds no other operator's cases
VICTIM = "doc-example"                      # the case each faulty backend trips on
VICTIM_SELECT = f"apply_adam_w_quant and {VICTIM}"
# 4 table cases (doc-example-zero-qmaps)
SELECTION = "apply_adam_w_quant and (doc-example or n1-float32 or n255-float32)"
EXIT_USAGE, EXIT_NOTHING_JUDGED = 4, 6


# ---- faulty backends (each the emulator, wrong on VICTIM only) ----

class ExitingBackend(EmulatorBackend):
    """Its process leaves (os._exit) in the middle of VICTIM, as a native library calling exit()."""

    name = "exiting-emulator"

    def run(self, case, product):
        if case.case_id == VICTIM:
            os._exit(3)
        return super().run(case, product)


class SegfaultingBackend(EmulatorBackend):
    """Dereferences a null pointer on VICTIM: the process dies with SIGSEGV."""

    name = "segfaulting-emulator"

    def run(self, case, product):
        if case.case_id == VICTIM:
            ctypes.string_at(0)
        return super().run(case, product)


class NativeSegfaultingBackend(SegfaultingBackend):
    """Says it runs native code: isolation is on by default for it."""

    name = "native-segfaulting-emulator"
    native_code = True


class ReturnsNoneBackend(EmulatorBackend):
    name = "returns-none-emulator"

    def run(self, case, product):
        return None if case.case_id == VICTIM else super().run(case, product)


class InterruptingBackend(EmulatorBackend):
    """The user presses Ctrl-C during VICTIM."""

    name = "interrupting-emulator"

    def run(self, case, product):
        if case.case_id == VICTIM:
            # a run started by a thread that blocks SIGINT (an xdist worker's, at times) inherits the
            # mask, and one started where SIGINT is ignored has no handler: the key press reaches neither
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.kill(os.getpid(), signal.SIGINT)
        return super().run(case, product)


FORGED_CASE = "fault-AAWQ-NULL-001"


class AcceptsANullBackend(ReferenceBackend):
    """Returns success for a null varRef: one must-pass fault case FAILs."""

    name = "accepts-a-null"

    def run(self, case, product):
        if case.case_id == FORGED_CASE:
            return RunResult(status=0)
        return super().run(case, product)


# ---- helpers ----

def _pytest(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, *args, "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def _reports(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def _table_run(report: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    return _pytest(AAWQ, "-k", SELECTION, *ONE_OP, "--backend", backend, "--product", "atlas-a2",
                   "--report-dir", str(report), *extra)


def _outcomes(report: Path) -> dict[str, OutcomeRecord]:
    return {r.case_id: r for r in read_records(report / "records.jsonl")}


def _one_line_error(proc: subprocess.CompletedProcess) -> str:
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0] and "INTERNALERROR" not in lines[0]
    return lines[0]


# ---- 1. every collected case ends with exactly one record ----

@pytest.mark.parametrize("backend,signal_text", [("ExitingBackend", "crashed"),
                                                 ("SegfaultingBackend", "crashed")])
def test_a_dying_xdist_worker_records_its_case_crash(tmp_path, backend, signal_text):
    report = tmp_path / "report"
    proc = _table_run(report, f"{HERE}:{backend}", "-n", "2")
    assert proc.returncode == 1, proc.stdout[-3000:]
    records = _outcomes(report)
    assert records.pop(VICTIM).outcome == "CRASH"
    assert {r.outcome for r in records.values()} == {"PASS"} and len(records) == 3
    run = read_run(report / "run.json")
    assert run.collected == run.items_finished == 4 and run.unrecorded == ()
    assert run.complete
    crash = _outcomes(report)[VICTIM]
    assert "died while running this case" in crash.detail and crash.nodeid.endswith(
        f"[atlas-a2-apply_adam_w_quant:{VICTIM}]")
    assert signal_text in proc.stdout
    report_md = (report / "report.md").read_text()
    assert "| 75.00% |" in report_md and "CRASH" in report_md


def test_a_native_code_backend_is_isolated_by_default(tmp_path):
    report = tmp_path / "report"
    proc = _table_run(report, f"{HERE}:NativeSegfaultingBackend", "-p", "no:xdist")
    assert proc.returncode == 1, proc.stdout[-3000:]
    records = _outcomes(report)
    assert records[VICTIM].outcome == "CRASH" and "SIGSEGV" in records[VICTIM].detail
    assert sum(r.outcome == "PASS" for r in records.values()) == 3
    assert read_run(report / "run.json").complete


def test_a_test_that_ends_without_a_record_makes_the_run_incomplete(tmp_path):
    """A conformance test (one that uses the harness) that records nothing: exit 7, one line, and
    run.json names it."""
    suite = tmp_path / "test_silent.py"
    suite.write_text("def test_records_nothing(harness):\n    pass\n\n"
                     "def test_records_one(harness, product):\n"
                     "    from aclnn_conformance.suites.calls import apply_adam_w_quant as calls\n"
                     "    from aclnn_conformance.suites.runner import check_case\n"
                     "    check_case(harness, calls.make_call('one', (1, 256)), product)\n")
    report = tmp_path / "report"
    proc = _pytest(str(suite), "-p", "aclnn_conformance.plugin", "--backend", "reference",
                   "--product", "atlas-a2", "--report-dir", str(report), "-p", "no:xdist",
                   "--rootdir", str(tmp_path))
    assert proc.returncode == 7, proc.stdout[-2000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("aclnn-conformance: incomplete")]
    assert len(line) == 1 and "1 test(s) ended without a record" in line[0]
    run = read_run(report / "run.json")
    assert not run.complete and run.unrecorded == (f"{suite.name}::test_records_nothing",)
    assert run.collected == run.items_finished == 2


def test_isolation_off_cannot_take_a_case_timeout():
    proc = _pytest(AAWQ, "-k", VICTIM_SELECT, *ONE_OP, "--isolation", "off", "--case-timeout", "5")
    assert proc.returncode == EXIT_USAGE
    assert "--case-timeout needs process isolation" in _one_line_error(proc)


HANG_LIMIT_S = 30   # ends the hang; healthy cases share it, far below it even at 10x load


def test_a_hang_is_recorded_timeout(tmp_path):
    report = tmp_path / "report"
    # a hang never ends; the limit only has to exceed a healthy case, the isolated worker's start included
    # (it reads every operator record: 2 s was seen exceeded on a loaded 2-core machine), ten times over
    proc = _table_run(report, "tests.test_isolation:HangingBackend", "--case-timeout",
                      str(HANG_LIMIT_S), "-p", "no:xdist")
    assert proc.returncode == 1, proc.stdout[-3000:]
    records = _outcomes(report)
    assert records.pop("n1-float32").outcome == "TIMEOUT"
    assert {r.outcome for r in records.values()} == {"PASS"}


def test_run_returning_none_is_a_harness_error_saying_so(tmp_path):
    report = tmp_path / "report"
    proc = _table_run(report, f"{HERE}:ReturnsNoneBackend", "-p", "no:xdist")
    assert proc.returncode == 1
    record = _outcomes(report)[VICTIM]
    assert record.outcome == "HARNESS_ERROR"
    assert record.detail == "backend returns-none-emulator's run() returned None, not a RunResult"


def test_an_interrupted_run_stays_incomplete(tmp_path):
    report = tmp_path / "report"
    proc = _table_run(report, f"{HERE}:InterruptingBackend", "-p", "no:xdist")
    assert proc.returncode == 2, proc.stdout[-2000:]
    run = read_run(report / "run.json")
    assert not run.complete and run.stop_reason == "interrupted"
    assert "INCOMPLETE" in (report / "report.md").read_text()


# ---- 2. nothing judged is not green; 4. one-line errors ----

def test_a_run_with_nothing_judged_exits_6_with_one_line(tmp_path):
    proc = _table_run(tmp_path / "report", "aclnn", "-p", "no:xdist")
    assert proc.returncode == EXIT_NOTHING_JUDGED, proc.stdout[-2000:]
    line = [x for x in proc.stdout.splitlines() if x.startswith("aclnn-conformance: nothing judged")]
    assert len(line) == 1 and "backend aclnn unavailable" in line[0]
    assert {r.outcome for r in _outcomes(tmp_path / "report").values()} == {"SKIPPED"}
    run = read_run(tmp_path / "report" / "run.json")
    assert run.complete and run.exit_status == EXIT_NOTHING_JUDGED   # it ran to its end


# pytest.main called in one process for each option set (a process each would mostly cost start-up)
USAGE_DRIVER = """
import contextlib, io, json, sys
import pytest
results = []
for args in json.loads(sys.argv[1]):
    text = io.StringIO()
    with contextlib.redirect_stdout(text), contextlib.redirect_stderr(text):
        status = pytest.main(args)
    results.append([int(status), text.getvalue()])
print(json.dumps(results))
"""


def test_bad_options_are_one_line_usage_errors(tmp_path):
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    cases = [(("--product=",), "names no product"),
             (("--product=", "--report-dir", str(tmp_path / "r")), "names no product"),
             (("--product", "atlas-a2,ascend950,atlas-a2"), "lists atlas-a2 more than once"),
             (("--case-timeout", "0"), "--case-timeout must be a positive number"),
             (("--case-timeout", "-1"), "--case-timeout must be a positive number"),
             (("--report-dir", str(a_file)), "is a file, not a folder"),
             (("--report-dir", str(a_file / "sub")), "is not writable"),
             (("--case-timeout", "inf"), "--case-timeout must be at most"),
             (("--case-timeout", "1e12"), "--case-timeout must be at most"),
             (("--case-timeout", "nan"), "--case-timeout must be a positive number"),
             (("--profile", "strict"), "--profile 'strict' is not one of cann, doc"),
             (("--tier", "nightly"), "--tier 'nightly' is not one of ci, full"),
             (("--isolation", "sometimes"), "--isolation 'sometimes' is not one of"),
             (("--op", "nosuch"), "--op nosuch: not an operator key")]
    runs = [[AAWQ, "-k", VICTIM_SELECT, *args, "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
            for args, _ in cases]
    proc = subprocess.run([sys.executable, "-c", USAGE_DRIVER, json.dumps(runs)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    for (args, text), (status, output) in zip(cases, json.loads(proc.stdout)):
        assert status == EXIT_USAGE, (args, output[-1000:])
        assert text in _one_line_error(subprocess.CompletedProcess(args, status, output, "")), args
    assert not (tmp_path / "r").exists()


# ---- 3. no silent loss ----

def test_a_reused_report_folder_is_refused_unless_overwrite(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    first = read_run(report / "run.json").run_id
    assert _reports("mutate", "--mutants", "decay-before-step", "--products", "atlas-a2",
                    "--out", str(report)).returncode == 0
    assert json.loads((report / "mutation.json").read_text())["run_id"] == first
    again = _table_run(report, "reference", "-p", "no:xdist")
    assert again.returncode == EXIT_USAGE
    assert f"holds an earlier run (run {first}); pass --overwrite" in _one_line_error(again)
    assert read_run(report / "run.json").run_id == first        # nothing was touched

    over = _table_run(report, "reference", "-p", "no:xdist", "--overwrite")
    assert over.returncode == 0, over.stdout[-2000:]
    assert read_run(report / "run.json").run_id != first
    assert not (report / "mutation.json").exists()
    assert "Mutation analysis" not in (report / "report.md").read_text()


def test_a_table_of_another_run_never_joins_the_report(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    (report / "mutation.json").write_text(json.dumps({"run_id": "another-run", "mutants": []}))
    assert _reports("report", str(report)).returncode == 0
    assert "Mutation analysis" not in (report / "report.md").read_text()


# ---- corrupted inputs ----

def test_corrupted_records_are_a_one_line_error_with_status_2(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    lines = (report / "records.jsonl").read_text().splitlines()
    (report / "records.jsonl").write_text("\n".join([lines[0], lines[1][:40], *lines[2:]]) + "\n")
    proc = _reports("report", str(report))
    assert proc.returncode == 2
    assert "records.jsonl:2:" in _one_line_error(proc)


def test_a_corrupted_case_file_makes_replay_exit_2(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, f"{HERE}:ReturnsNoneBackend", "-p", "no:xdist").returncode == 1
    case_file = Path(_outcomes(report)[VICTIM].case_file)
    npz = case_file.with_suffix(".npz")
    npz.write_bytes(npz.read_bytes()[:64])
    proc = _reports("replay", str(case_file), "--backend", "emulator")
    assert proc.returncode == 2
    assert "unreadable case file" in _one_line_error(proc)
    case_file.write_text("{not json")
    proc = _reports("replay", str(case_file), "--backend", "emulator")
    assert proc.returncode == 2 and "unreadable case file" in _one_line_error(proc)


# ---- 5. one defect, one count ----

def test_a_failing_property_records_its_minimal_example_once(tmp_path):
    report = tmp_path / "report"
    # one ulp on every var element: every drawn call with judged values fails it
    mutant = "aclnn_conformance.backends.mutants.apply_adam_w_quant:OneUlpUp"
    proc = _pytest("suites/test_operators.py::test_deterministic", *ONE_OP,
                   "--backend", mutant,
                   "--product", "atlas-a2", "--report-dir", str(report), "-p", "no:xdist")
    assert proc.returncode == 1
    records = list(read_records(report / "records.jsonl"))
    failing = [r for r in records if r.outcome == "FAIL"]
    assert len(failing) == 1, [r.case_id for r in failing]
    assert failing[0].failing_examples >= 1 and failing[0].first_failing_example
    # the relation ran on the failing call and held: recorded PASS, with no failure text
    relation = next(r for r in records if r.case_id == f"determinism:{failing[0].case_id}")
    assert relation.outcome == "PASS" and relation.detail == ""
    assert "AAWQ-VAL-016" not in failing[0].rule_ids and relation.rule_ids == ("AAWQ-VAL-016",)
    assert len(list((report / "failures").glob("*.json"))) == 1
    assert "distinct failing examples were tried" in (report / "report.md").read_text()
    assert len(records) <= 2 * 25 + 2     # the drawn examples and the final one, no shrink steps


# ---- 6. compliance that says what was judged ----

def _record(case_id: str, outcome: str, judged_by: str, product: str = "atlas-a2",
            rule_ids: tuple[str, ...] = ()) -> OutcomeRecord:
    return OutcomeRecord(case_id=case_id, op="apply_adam_w_quant", product=product,
                         profile="cann", backend="b", outcome=outcome, judged_by=judged_by,
                         values_judged=judged_by in ("values", "relation"), rule_ids=rule_ids)


def test_compliance_counts_only_what_was_judged():
    value_rules = [r.id for r in OPS["apply_adam_w_quant"].rules if r.kind == "value"
                   and (not r.expect or "cann" in r.expect)]
    records = [_record("a", "PASS", "values", rule_ids=(value_rules[0],)),
               _record("b", "FAIL", "status"),
               _record("c", "NOT_JUDGED", "not_judged"),
               _record("crashed", "CRASH", ""),
               _record("d", "NOT_SUPPORTED", "not_supported", product="ascend950"),
               _record("e", "NOT_SUPPORTED", "not_supported", product="ascend950")]
    rows = {r["product"]: r for r in compliance(RunSet(records).frame())}
    a2 = rows["atlas-a2"]
    assert (a2["value_judged"], a2["status_only"], a2["not_judged"], a2["unanswered"],
            a2["judged"]) == (1, 1, 1, 1, 3)
    assert a2["compliance_pct"] == 33.33      # NOT_JUDGED is not a PASS; a CRASH counts against
    assert (a2["value_rules_exercised"], a2["value_rules"]) == (1, len(value_rules))
    refuses = rows["ascend950"]
    assert refuses["compliance_pct"] is None and refuses["not_supported"] == 2
    assert refuses["label"].startswith("refuses the operator")


# ---- JUnit XML ----

def test_junit_xml_carries_outcome_rules_product_and_profile(tmp_path):
    junit = tmp_path / "junit.xml"
    proc = _pytest(AAWQ, "-k", VICTIM_SELECT, *ONE_OP, "--backend", "reference", "--product", "atlas-a2",
                   "--junitxml", str(junit), "-p", "no:xdist")
    assert proc.returncode == 0, proc.stdout[-2000:]
    cases = list(ET.parse(junit).getroot().iter("testcase"))
    assert len(cases) == 2
    for case in cases:
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        assert props["outcome"] == "PASS" and props["product"] == "atlas-a2"
        assert props["profile"] == "cann" and props["records"] == "1"
        assert "AAWQ-VAL-001" in props["rule_ids"].split()


# ---- 7. a forged bundle ----

@pytest.fixture(scope="module")
def signing_key(tmp_path_factory):
    if shutil.which("ssh-keygen") is None:
        pytest.skip("ssh-keygen (OpenSSH) is not installed: bundles cannot be signed here")
    folder = tmp_path_factory.mktemp("key")
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "lab@example.org",
                    "-f", str(folder / "key")], check=True, capture_output=True)
    public = (folder / "key.pub").read_text().split()
    (folder / "allowed_signers").write_text(f"lab@example.org {public[0]} {public[1]}\n")
    return folder / "key", folder / "allowed_signers"


def _forge(bundle: Path, dst: Path) -> Path:
    """The failing record edited to PASS, the JUnit XML made to agree, the manifest recomputed."""
    shutil.copytree(bundle, dst)
    records_path = dst / "results" / "records.jsonl"
    records = [replace(r, outcome="PASS", detail="", case_file=None)
               if r.outcome == "FAIL" else r for r in read_records(records_path)]
    write_records(records_path, records)
    junit = dst / "results" / "junit.xml"
    tree = ET.parse(junit)
    for case in tree.getroot().iter("testcase"):
        failures = [c for c in case if c.tag == "failure"]
        for child in failures:
            case.remove(child)
        for prop in case.iter("property"):
            if failures and prop.get("name") == "outcome":
                prop.set("value", "PASS")
    tree.write(junit)
    shutil.rmtree(dst / "results" / "failures", ignore_errors=True)
    write_manifest(dst)
    return dst


def test_a_forged_bundle_fails_verify_on_its_own_statements_when_signed_or_rerun(tmp_path,
                                                                                  signing_key):
    key, allowed = signing_key
    mustpass = tmp_path / "mustpass.txt"
    entries = fault_list(mustpass, "atlas-a2", 3)
    assert any(FORGED_CASE in e for e in entries)
    suites = ("suites/test_rules.py::test_one_fault",)
    bundle, errors, _ = certify(f"{HERE}:AcceptsANullBackend", "atlas-a2", tmp_path / "bundle",
                               workers=0, mustpass=mustpass, suites=suites, sign_key=key,
                               ops=CERTIFIED_OPS)
    assert any(e.startswith(f"FAIL: apply_adam_w_quant {FORGED_CASE}") for e in errors), errors
    assert verify(bundle, mustpass, suites, allowed_signers=allowed)[0] == errors  # signed well

    forged = _forge(bundle, tmp_path / "forged")
    errors, warnings = verify(forged, mustpass, suites)
    # records and JUnit agree, the manifest is whole: the bundle's other statements still fail it
    assert "statement.json: pytest_exit_status 1, but the records are all certifiable" in errors
    assert "results/run.json: exit_status 1, but the records are all certifiable" in errors
    assert any(e.startswith("pytest.log: says '") and "failed" in e for e in errors), errors
    assert not any(e.startswith(("FAIL", "must-pass", f"{'results/junit.xml'}: test"))
                   for e in errors), errors
    assert any("detects accidental change, not forgery" in w for w in warnings)
    signed_errors, _ = verify(forged, mustpass, suites, allowed_signers=allowed)
    assert [e for e in signed_errors if e not in errors] == [
        e for e in signed_errors if "does not verify" in e] and len(signed_errors) == len(errors) + 1
    rerun_errors, _ = verify(forged, mustpass, suites, rerun=len(entries),
                             backend=f"{HERE}:AcceptsANullBackend")
    assert [e for e in rerun_errors if e not in errors] == [
        f"re-run of apply_adam_w_quant {FORGED_CASE} on atlas-a2 "
        f"({HERE}:AcceptsANullBackend): FAIL, the bundle records PASS"]

    resigned = tmp_path / "resigned"       # signed again by a key the verifier does not allow
    shutil.copytree(forged, resigned)
    other = tmp_path / "other-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True,
                   capture_output=True)
    sign_manifest(resigned, other)
    errors, _ = verify(resigned, mustpass, suites, allowed_signers=allowed)
    assert any("not made by a key in" in e for e in errors)


def test_a_signed_bundle_with_one_edited_record_is_refused(tmp_path, signing_key):
    key, allowed = signing_key
    mustpass = tmp_path / "mustpass.txt"
    fault_list(mustpass, "atlas-a2", 2)
    suites = ("suites/test_rules.py::test_one_fault",)
    bundle, errors, _ = certify("reference", "atlas-a2", tmp_path / "bundle", workers=0,
                                mustpass=mustpass, suites=suites, sign_key=key, ops=CERTIFIED_OPS)
    assert errors == [] and verify(bundle, mustpass, suites, allowed_signers=allowed)[0] == []
    path = bundle / "results" / "records.jsonl"
    records = list(read_records(path))
    write_records(path, [replace(records[0], detail="edited")] + records[1:])
    errors, _ = verify(bundle, mustpass, suites, allowed_signers=allowed)
    assert "results/records.jsonl: changed since the manifest (sha256 differs)" in errors
    write_manifest(bundle)
    errors, _ = verify(bundle, mustpass, suites, allowed_signers=allowed)
    assert len(errors) == 1 and "does not verify" in errors[0]


# ---- 8. certification every time; no silent overwrite; one-line errors ----

QMM_HYPOTHESIS = "suites/test_quant_matmul_weight_nz.py::test_the_unused_scale_slot_is_not_read"


@pytest.mark.parametrize("workers", [2, 0])
def test_certify_of_a_correct_backend_verifies_with_repeated_draws(tmp_path, workers):
    """A hypothesis test that draws one case several times: one record each, its draws counted,
    and JUnit agreeing, under xdist and in process; re-running must-pass cases agrees."""
    from aclnn_conformance.suites.calls.quant_matmul_weight_nz import table_cases
    mustpass = tmp_path / "mustpass.txt"
    chosen = [c.case_id for c in list(table_cases("ci"))[:4]]
    entries = [f"ascend950 quant_matmul_weight_nz {case_id}" for case_id in chosen]
    mustpass.write_text(f"# {MUSTPASS_FORMAT}\n" + "\n".join(entries) + "\n")
    suites = (*(f"suites/test_operators.py::test_table[ascend950-quant_matmul_weight_nz:{case_id}]"
                for case_id in chosen), QMM_HYPOTHESIS)
    bundle, errors, _ = certify("emulator", "ascend950", tmp_path / "bundle", workers=workers,
                                mustpass=mustpass, suites=suites, ops=("quant_matmul_weight_nz",))
    assert errors == [], errors
    records = list(read_records(bundle / "results" / "records.jsonl"))
    drawn = [r for r in records if r.nodeid.endswith("test_the_unused_scale_slot_is_not_read[ascend950]")]
    assert len({r.case_id for r in drawn}) == len(drawn)           # one record per case
    # each of the 25 examples is counted once in each kind of record it makes (its two calls and
    # their relation): the case id without the example's digest
    kinds = {re.sub(r"-[0-9a-f]{10}$", "", r.case_id) for r in drawn}
    assert kinds == {"hyp-tail", "hyp-tail2", "tail-slot-unread:hyp-tail"}
    for kind in kinds:
        assert sum(r.draws for r in drawn if re.sub(r"-[0-9a-f]{10}$", "", r.case_id) == kind) == 25
    assert any(r.draws > 1 for r in drawn)
    assert verify(bundle, mustpass, suites, rerun=4, backend="emulator")[0] == []


def test_a_crash_record_carries_a_reproducer_that_crashes_again(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, f"{HERE}:ExitingBackend", "-n", "2").returncode == 1
    crash = _outcomes(report)[VICTIM]
    assert crash.outcome == "CRASH"
    (command,) = crash.reproducer.splitlines()
    assert command.startswith("python -m pytest --pyargs ")
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")])}
    # pasted where the run started (the checkout: the test module naming the backend is there)
    again = subprocess.run(command, shell=True, cwd=REPO, env=env, capture_output=True,
                           text=True, timeout=600)
    assert again.returncode == 3, (command, again.stdout[-2000:])   # ExitingBackend's os._exit(3)


def test_a_backend_that_kills_the_process_leaves_its_case_named(tmp_path):
    """In process, without isolation: the run dies; its in-flight marker names the case, and the
    report of the folder records it CRASH."""
    report = tmp_path / "report"
    proc = _table_run(report, f"{HERE}:SegfaultingBackend", "-p", "no:xdist")
    assert proc.returncode == -signal.SIGSEGV
    assert not read_run(report / "run.json").complete
    reported = _reports("report", str(report))
    assert reported.returncode == 0, reported.stderr
    md = (report / "report.md").read_text()
    assert "INCOMPLETE" in md and f"`{VICTIM}`" in md and "**CRASH**" in md
    crash = json.loads((report / "report.json").read_text())["failures"][0]
    assert (crash["outcome"], crash["case_id"]) == ("CRASH", VICTIM)
    assert "in-flight marker" in crash["detail"] and crash["reproducer"].startswith("python -m pytest")


def test_no_command_overwrites_what_it_did_not_write(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    mutate = ("mutate", "--mutants", "decay-before-step", "--products", "atlas-a2", "--out",
              str(report))
    assert _reports(*mutate).returncode == 0
    table = (report / "mutation.json").read_text()
    again = _reports(*mutate)
    assert again.returncode == 2 and "--overwrite" in _one_line_error(again)
    assert (report / "mutation.json").read_text() == table
    assert _reports(*mutate, "--overwrite").returncode == 0

    records = (report / "records.jsonl").read_text()
    merged = _reports("merge", str(report), "--out", str(report))
    assert merged.returncode == 2 and "one of the folders being merged" in _one_line_error(merged)
    assert (report / "records.jsonl").read_text() == records

    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "report.md").write_text("my own notes\n")
    run = _table_run(mine, "reference", "-p", "no:xdist")
    assert run.returncode == EXIT_USAGE and "report.md" in _one_line_error(run)
    written = _reports("report", str(report), "--out", str(mine))
    assert written.returncode == 2 and "--overwrite" in _one_line_error(written)
    assert (mine / "report.md").read_text() == "my own notes\n"


def test_report_and_diff_say_when_records_and_run_json_disagree(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    baseline = tmp_path / "baseline"
    shutil.copytree(report, baseline)
    lines = (report / "records.jsonl").read_text().splitlines()
    (report / "records.jsonl").write_text("\n".join(lines[:-1]) + "\n")
    proc = _reports("report", str(report))
    assert proc.returncode == 2
    assert f"run.json says the run wrote {len(lines)} record(s); {len(lines) - 1} are here" \
        in proc.stderr
    (report / "records.jsonl").write_text("")
    proc = _reports("report", str(report))
    assert proc.returncode == 2 and f"{len(lines)} record(s); 0 are here" in proc.stderr
    assert _reports("diff", str(baseline), str(baseline)).returncode == 0
    assert _reports("diff", str(baseline), str(report)).returncode == 2


def test_garbage_records_name_their_file(tmp_path):
    report = tmp_path / "report"
    assert _table_run(report, "reference", "-p", "no:xdist").returncode == 0
    (report / "records.jsonl").write_bytes(b"\xff\xfe\x00garbage\n")
    proc = _reports("report", str(report))
    assert proc.returncode == 2
    assert f"{report / 'records.jsonl'}:1: not UTF-8 text" in _one_line_error(proc)


def test_report_commands_refuse_bad_input_in_one_line(tmp_path):
    proc = _reports("certify", "--backend", "nosuch", "--product", "ascend950", "--out",
                    str(tmp_path / "b"))
    assert proc.returncode == 2 and "nosuch" in _one_line_error(proc)
    assert not (tmp_path / "b").exists()          # nothing half-written blocks the retry
    proc = _reports("verify", str(tmp_path / "missing"))
    assert proc.returncode == 2 and "no such bundle" in _one_line_error(proc)
    report = tmp_path / "report"
    assert _table_run(report, f"{HERE}:ReturnsNoneBackend", "-p", "no:xdist").returncode == 1
    case_file = _outcomes(report)[VICTIM].case_file
    proc = _reports("replay", case_file, "--backend", "emulator", "--product", "atlas-a9")
    assert proc.returncode == 2 and "atlas-a9" in _one_line_error(proc)
    proc = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "doctor", "--timeout",
                           "-5"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--timeout must be a positive" in _one_line_error(proc)


def test_torch_relations_skipped_without_torch_are_reported(tmp_path):
    hidden = tmp_path / "no-torch"
    hidden.mkdir()
    (hidden / "torch.py").write_text("raise ModuleNotFoundError('torch hidden by the test', "
                                     "name='torch')\n")
    report = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_apply_adam_w_v2.py::test_torch_adamw_relation",
         "--product", "ascend950", "--report-dir", str(report), "-q", "-p", "no:cacheprovider",
         "-p", "no:xdist"], cwd=REPO, capture_output=True, text=True, timeout=600,
        env={**os.environ, "PYTHONPATH": str(hidden)})
    assert proc.returncode == 0, proc.stdout[-2000:]
    # recorded, not lost: each relation SKIPPED with what it needs and how to install it
    run = read_run(report / "run.json")
    assert not run.skipped
    skipped = [r for r in read_records(report / "records.jsonl") if r.outcome == "SKIPPED"]
    assert len(skipped) == 4 and all(r.needs == ("torch",) for r in skipped)
    assert all("pip install 'aclnn-conformance[torch]'" in r.detail for r in skipped)
    line = "4 case(s) skipped for want of torch"
    assert line in (report / "report.md").read_text() and line in proc.stdout
    assert line in (report / "report.html").read_text()


def test_the_seed_draws_the_ci_tier(tmp_path):
    """--hypothesis-seed in the ci tier: other seeds draw other cases, and run.json says so."""
    drawn = []
    for seed in ("1", "2"):
        report = tmp_path / seed
        proc = _pytest("suites/test_operators.py::test_deterministic", *ONE_OP, "--product",
                       "atlas-a2", "--report-dir", str(report), "-p", "no:xdist",
                       "--hypothesis-seed", seed)
        assert proc.returncode == 0, proc.stdout[-2000:]
        run = read_run(report / "run.json")
        assert run.hypothesis["seed"] == seed and run.hypothesis["derandomize"] is False
        drawn.append({r.case_id for r in read_records(report / "records.jsonl")})
    assert drawn[0] != drawn[1]


def test_out_of_domain_calls_are_counted_as_families(tmp_path):
    """A scoped operator on a product outside its domain: one NOT_COVERED record per test, whose
    stands_for counts the calls; the report never says 100% for it."""
    from aclnn_conformance.spec.faults import fault_pair_cases
    report = tmp_path / "report"
    spec = OPS["quant_matmul_weight_nz"]
    proc = _pytest("suites/test_rules.py", "--op", spec.key, "--product", "atlas-a2",
                   "--report-dir", str(report), "-p", "no:xdist")
    assert proc.returncode == 0, proc.stdout[-2000:]
    records = {r.case_id: r for r in read_records(report / "records.jsonl")}
    assert set(records) == {"not-covered:test_rules::test_one_fault",
                            "not-covered:test_rules::test_fault_pair"}
    assert records["not-covered:test_rules::test_one_fault"].stands_for == len(list(fault_cases(spec)))
    assert records["not-covered:test_rules::test_fault_pair"].stands_for == len(
        list(fault_pair_cases(spec)))
    assert {r.outcome for r in records.values()} == {"NOT_COVERED"}
    assert {r.deciding_rule for r in records.values()} == {"QMMNZ-DOMAIN-001"}
    md = (report / "report.md").read_text()
    assert "100.00%" not in md and "outside the declared domain" in md
    total = sum(r.stands_for for r in records.values())
    assert f"| 2 ({total} calls) |" in md


def test_a_value_domain_rule_counts_as_exercised_by_a_value_judged_case():
    """An extracted operator's value rule expects "not judged" only of the calls outside its domain:
    a value-judged case naming it exercises it, where the product supports the operator."""
    from aclnn_conformance.spec import OPS
    rule = next(r.id for r in OPS["abs"].rules if r.kind == "value" and r.id.endswith("-VALUE-001"))
    assert rule in applicable_rules("abs", "cann", "atlas-a2")
    records = [OutcomeRecord(case_id="values", op="abs", product="atlas-a2", profile="cann", backend="b",
                             outcome="PASS", judged_by="values", values_judged=True, rule_ids=(rule,))]
    (row,) = compliance(RunSet(records).frame())
    assert row["value_rules_exercised"] == 1 <= row["value_rules"]
    status_only = [replace(records[0], judged_by="status", values_judged=False)]
    (row,) = compliance(RunSet(status_only).frame())
    assert row["value_rules_exercised"] == 0


def test_no_compliance_share_without_value_rules_exercised():
    rules = [r for r in applicable_rules("weight_quant_preprocess", "cann", "ascend950")
             if OPS["weight_quant_preprocess"].rule(r).kind == "value"]
    records = [OutcomeRecord(case_id=f"s{i}", op="weight_quant_preprocess", product="ascend950",
                             profile="cann", backend="b", outcome="PASS", judged_by="status")
               for i in range(3)]
    (row,) = compliance(RunSet(records).frame())
    assert row["compliance_pct"] == 100.0 and row["value_rules"] == len(rules) > 0
    assert compliance_text(row) == "3/3 certified, no value rule exercised"
