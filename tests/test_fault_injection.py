"""Fault injection: a backend or an input that goes wrong ends in an honest record or a one-line error
with a distinct exit status, never in a report that says more than was judged.

Each situation runs the harness as a user would, in a pytest or ``python -m reports`` subprocess on a
handful of cases: a worker that dies under pytest-xdist, a native-code backend that crashes with
isolation left at its default, a hang, a run() that returns None, corrupted records and case files,
an interrupted run, a reused report folder, bad options, a failing hypothesis property, and a forged
certification bundle.
"""
from __future__ import annotations

import ctypes
import json
import os
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
from aclnn_conformance.reports.tables import compliance
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.faults import fault_cases

REPO = Path(__file__).resolve().parent.parent
HERE = "tests.test_fault_injection"
AAWQ = "suites/test_operators.py::test_table"
VICTIM = "doc-example"                      # the case each faulty backend trips on
SELECTION = "doc-example or n1-float32 or n255-float32"   # 4 table cases (doc-example-zero-qmaps)
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
    return subprocess.run([sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider"],
                          cwd=REPO, capture_output=True, text=True, timeout=timeout)


def _reports(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "reports", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def _table_run(report: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    return _pytest(AAWQ, "-k", SELECTION, "--backend", backend, "--product", "atlas-a2",
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
        f"[atlas-a2-{VICTIM}]")
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
    proc = _pytest(AAWQ, "-k", VICTIM, "--isolation", "off", "--case-timeout", "5")
    assert proc.returncode == EXIT_USAGE
    assert "--case-timeout needs process isolation" in _one_line_error(proc)


def test_a_hang_is_recorded_timeout(tmp_path):
    report = tmp_path / "report"
    proc = _table_run(report, "tests.test_isolation:HangingBackend", "--case-timeout", "2",
                      "-p", "no:xdist")
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
    assert record.detail == "the backend's run() returned None, not a RunResult"


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
             (("--report-dir", str(a_file / "sub")), "is not writable")]
    runs = [[AAWQ, "-k", VICTIM, *args, "-q", "-p", "no:xdist", "-p", "no:cacheprovider"]
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
    mutant = "aclnn_conformance.backends.mutants.apply_adam_w_quant:NoBiasCorrection"
    proc = _pytest("suites/test_operators.py::test_deterministic", "-k", "apply_adam_w_quant", "--backend", mutant,
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
    proc = _pytest(AAWQ, "-k", VICTIM, "--backend", "reference", "--product", "atlas-a2",
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


def test_a_forged_bundle_fails_verify_when_signed_or_rerun(tmp_path, signing_key):
    key, allowed = signing_key
    mustpass = tmp_path / "mustpass.txt"
    entries = [f"atlas-a2 {spec.key} {case.case_id}" for spec in OPS.values()
               for case in list(fault_cases(spec))[:3]]
    assert any(FORGED_CASE in e for e in entries)
    mustpass.write_text(f"# {MUSTPASS_FORMAT}\n" + "\n".join(entries) + "\n")
    suites = ("suites/test_rules.py::test_one_fault",)
    bundle, errors, _ = certify(f"{HERE}:AcceptsANullBackend", "atlas-a2", tmp_path / "bundle",
                               workers=0, mustpass=mustpass, suites=suites, sign_key=key)
    assert any(e.startswith(f"FAIL: apply_adam_w_quant {FORGED_CASE}") for e in errors), errors
    assert verify(bundle, mustpass, suites, allowed_signers=allowed)[0] == errors  # signed well

    forged = _forge(bundle, tmp_path / "forged")
    errors, warnings = verify(forged, mustpass, suites)
    assert errors == []         # the manifest alone cannot tell: the output says so
    assert any("detects accidental change, not forgery" in w for w in warnings)
    errors, _ = verify(forged, mustpass, suites, allowed_signers=allowed)
    assert len(errors) == 1 and "does not verify" in errors[0]
    errors, _ = verify(forged, mustpass, suites, rerun=len(entries),
                       backend=f"{HERE}:AcceptsANullBackend")
    assert errors == [f"re-run of apply_adam_w_quant {FORGED_CASE} on atlas-a2 "
                      f"({HERE}:AcceptsANullBackend): FAIL, the bundle records PASS"]

    resigned = tmp_path / "resigned"       # signed again by a key the verifier does not allow
    shutil.copytree(forged, resigned)
    other = tmp_path / "other-key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(other)], check=True,
                   capture_output=True)
    sign_manifest(resigned, other)
    errors, _ = verify(resigned, mustpass, suites, allowed_signers=allowed)
    assert len(errors) == 1 and "not made by a key in" in errors[0]
