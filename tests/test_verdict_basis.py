"""A verdict says what it rests on, and no more than the run showed: the share of the applicable rules
a run exercised beside CONFORMANT (partial below --min-exercised), no verdict for a run that did not
finish, a backend's malformed RunResult recorded as its error, a backend with no products refused,
an in-process backend that hangs stopped by a default time limit, and hypothesis draws that depend on
the test and the seed, not on the backend's name or the run."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aclnn_conformance.backends.base import BackendTimeout, RunResult
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.isolation import in_process_executor
from aclnn_conformance.reports.certify import PLAIN_ASSERTS
from aclnn_conformance.judging.records import OutcomeRecord, read_records
from aclnn_conformance.reports.load import records_frame
from aclnn_conformance.reports.tables import (NO_VERDICT, applicable_rules, compliance,
                                              product_verdicts, verdict_text)
from aclnn_conformance.spec import OPS

REPO = Path(__file__).resolve().parent.parent
HERE = "tests.test_verdict_basis"
TABLE = "suites/test_operators.py::test_table"
ONE_OP = ("--op", "apply_adam_w_quant")
VICTIM = "doc-example"
SELECTION = "apply_adam_w_quant and (doc-example or n1-float32)"


class ZeroStringBackend(EmulatorBackend):
    """Returns a RunResult whose status is a word on VICTIM."""

    name = "zero-string-emulator"

    def run(self, case, product):
        return RunResult(status="zero") if case.case_id == VICTIM else super().run(case, product)


class NoProductsBackend(EmulatorBackend):
    name = "no-products-emulator"

    def products(self):
        return ()


class HangingBackend(EmulatorBackend):
    name = "hanging-emulator"

    def run(self, case, product):
        while True:
            time.sleep(0.05)


def _run(report: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, TABLE, "-k", SELECTION, *ONE_OP,
                           "--backend", backend, "--product", "atlas-a2", "--report-dir",
                           str(report), "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *extra],
                          cwd=REPO, capture_output=True, text=True, timeout=600)


def _record(op: str, product: str, case_id: str, rule_ids: tuple[str, ...], judged_by: str,
            **fields) -> OutcomeRecord:
    return OutcomeRecord(case_id=case_id, op=op, product=product, profile="cann", backend="b",
                         outcome=fields.pop("outcome", "PASS"), rule_ids=rule_ids,
                         judged_by=judged_by, values_judged=judged_by == "values", **fields)


# ---- what a verdict rests on ----

def test_applicable_rules_follow_the_profile_and_the_product():
    spec = OPS["abs"]
    on_950 = applicable_rules("abs", "cann", "ascend950")
    # doc-only rules and rules the cann profile leaves unjudged (not_judged) do not apply, but a value
    # rule (its not_judged is for the calls outside its domain; value-judged cases exercise it)
    doc_only = {r.id for r in spec.rules if not r.in_profile("cann")}
    assert doc_only and not doc_only & set(on_950)
    unjudged = {r.id for r in spec.rules if r.in_profile("cann") and r.kind != "value"
                and r.expect_for("cann", "ascend950").kind in ("not_judged", "unchecked")}
    assert unjudged and not unjudged & set(on_950)
    assert set(on_950) == {r.id for r in spec.rules if r.in_profile("cann")} - unjudged


def test_a_verdict_on_few_exercised_rules_is_partial():
    op, product = "abs", "ascend950"
    rules = applicable_rules(op, "cann", product)
    assert len(rules) >= 5
    few = [_record(op, product, "base", (rules[0],), "status")]
    verdict = product_verdicts(compliance(records_frame(few)))[0]
    assert verdict["rules"] == len(rules) and verdict["rules_exercised"] == 1
    assert verdict["verdict"] == f"CONFORMANT (partial: 1 of {len(rules)} rules exercised)"
    assert f"1 of {len(rules)} ({100 / len(rules):.0f}%) applicable rules" in verdict_text(verdict)
    # every applicable rule exercised: a full verdict; a lower bar makes the few enough too
    every = [_record(op, product, f"c{i}", (r,), "values") for i, r in enumerate(rules)]
    assert product_verdicts(compliance(records_frame(every)))[0]["verdict"] == "CONFORMANT"
    assert product_verdicts(compliance(records_frame(few)), 0.0)[0]["verdict"] == "CONFORMANT"


def test_rules_of_an_operator_the_product_refuses_do_not_count():
    refused = [(key, p) for key, spec in sorted(OPS.items()) for p in
               ("atlas-200i-500-a2", "atlas-inference", "atlas-training", "atlas-a2")
               if p not in spec.supported.get("cann", ()) and spec.domain_products == ()]
    key, product = refused[0]
    assert all(OPS[key].rule(r).category == "product"
               for r in applicable_rules(key, "cann", product))


def test_min_exercised_is_a_share(tmp_path):
    proc = _run(tmp_path / "r", "emulator", "--min-exercised", "1.5")
    assert proc.returncode == 4 and "--min-exercised '1.5' is not a share from 0 to 1" in proc.stderr


def test_the_run_prints_what_its_verdict_rests_on(tmp_path):
    report = tmp_path / "r"
    proc = _run(report, "emulator")
    assert proc.returncode == 0, proc.stdout[-2000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("atlas-a2 (emulator, cann): "))
    assert "CONFORMANT (partial: " in line and " applicable rules and " in line
    again = _run(tmp_path / "r0", "emulator", "--min-exercised", "0")
    assert "atlas-a2 (emulator, cann): CONFORMANT: 0 case(s)" in again.stdout


# ---- an interrupted run ----

def test_an_incomplete_run_gives_no_verdict():
    records = [_record("abs", "ascend950", "base", (), "status")]
    verdict = product_verdicts(compliance(records_frame(records)), 0.0, {("b", "cann")})[0]
    assert verdict["verdict"] == NO_VERDICT
    assert product_verdicts(compliance(records_frame(records)), 0.0)[0]["verdict"] == "CONFORMANT"


class InterruptingBackend(EmulatorBackend):
    """The user presses Ctrl-C on the second case."""

    name = "interrupting-emulator"

    def run(self, case, product):
        if case.case_id == "n1-float32":
            raise KeyboardInterrupt
        return super().run(case, product)


def test_an_interrupted_run_prints_no_verdict(tmp_path):
    report = tmp_path / "r"
    proc = _run(report, f"{HERE}:InterruptingBackend")
    assert proc.returncode == 2, proc.stdout[-2000:]
    lines = [x for x in proc.stdout.splitlines() if x.startswith("atlas-a2 (interrupting")]
    assert lines and all(NO_VERDICT in x and ": CONFORMANT" not in x for x in lines)
    doc = json.loads((report / "report.json").read_text())
    assert [v["verdict"] for v in doc["verdicts"]] == [NO_VERDICT]


# ---- the backend's answers ----

def test_a_malformed_run_result_is_the_backends_recorded_error(tmp_path):
    report = tmp_path / "r"
    proc = _run(report, f"{HERE}:ZeroStringBackend")
    assert proc.returncode == 1, proc.stdout[-2000:]
    records = {r.case_id: r for r in read_records(report / "records.jsonl")}
    assert records[VICTIM].outcome == "HARNESS_ERROR"
    assert records[VICTIM].detail == ("backend zero-string-emulator's run() returned a RunResult "
                                      "whose status str 'zero' is not an int")
    assert records["n1-float32"].outcome == "PASS"


def test_a_backend_with_no_products_is_refused(tmp_path):
    proc = _run(tmp_path / "r", f"{HERE}:NoProductsBackend")
    assert proc.returncode == 4
    assert ("backend no-products-emulator lists no products (its products() is empty): it cannot "
            "be run") in proc.stderr
    assert not (tmp_path / "r" / "records.jsonl").exists()


def test_a_hang_in_process_ends_at_the_time_limit():
    execute = in_process_executor(0.3)
    start = time.monotonic()
    with pytest.raises(BackendTimeout, match="did not return within 0.3 s"):
        execute(HangingBackend(), None, "atlas-a2")
    assert time.monotonic() - start < 60   # the limit, not the hang, ended it
    # the alarm is gone after the call: a later healthy call is not interrupted
    assert execute(EmulatorBackend(), _base_case(), "atlas-a2").status == 0


def _base_case():
    from aclnn_conformance.spec.registry import operator
    return operator("abs").piece("base_call")()


def test_a_python_backend_runs_in_process_with_a_default_time_limit():
    from aclnn_conformance.plugin import IN_PROCESS_CASE_TIMEOUT, _executor

    class Options:
        def getoption(self, name):
            return {"--case-timeout": None, "--isolation": "auto"}[name]
    execute = _executor(Options(), EmulatorBackend())
    assert execute is not None and execute.__qualname__.startswith("in_process_executor")
    assert 0 < IN_PROCESS_CASE_TIMEOUT <= 3600


# ---- hypothesis draws ----

class RenamedEmulator(EmulatorBackend):
    """The emulator under another name: it behaves alike, so it must be given the same cases."""

    name = "renamed-emulator"


def test_full_tier_draws_do_not_depend_on_the_backends_name_or_the_run(tmp_path):
    """The second backend's module (this one) imports modules the first run never loads: hypothesis,
    which draws literals mined from the local modules loaded, would draw other cases for it."""
    drawn = []
    for name, backend in (("a", "emulator"), ("b", f"{HERE}:RenamedEmulator")):
        report = tmp_path / name
        proc = subprocess.run(
            [sys.executable, "-m", "pytest", "suites/test_operators.py", "-k",
             "test_valid_calls and abs", "--op", "abs", "--tier", "full", "--backend", backend,
             "--product", "atlas-a2", "--report-dir", str(report), "-q", "-p", "no:cacheprovider",
             "-p", "no:xdist"], cwd=REPO, capture_output=True, text=True, timeout=600)
        assert proc.returncode == 0, proc.stdout[-2000:]
        drawn.append(sorted(r.case_id for r in read_records(report / "records.jsonl")))
    assert len(drawn[0]) > 100 and drawn[0] == drawn[1]


def _drawn(case_id: str, outcome: str = "PASS") -> OutcomeRecord:
    return OutcomeRecord(case_id=case_id, op="abs", product="atlas-a2", profile="cann",
                         backend="b", outcome=outcome, origin="hypothesis",
                         nodeid="suites/test_operators.py::test_valid_calls[atlas-a2-abs]")


def test_diff_compares_hypothesis_tests_not_their_draws():
    from aclnn_conformance.reports.diff import diff, render
    from aclnn_conformance.reports.load import RunSet
    table = OutcomeRecord(case_id="base", op="abs", product="atlas-a2", profile="cann",
                          backend="b", outcome="PASS", origin="table")
    base = RunSet([table, _drawn("hyp-valid-1"), _drawn("hyp-valid-2")])
    other_draws = RunSet([table, _drawn("hyp-valid-3"), _drawn("hyp-valid-4")])
    d = diff(base, other_draws)
    assert not d.failed and d.redrawn == 1 and d.unchanged == 2
    assert "**OK**" in render(d, "a", "b") and "1 hypothesis test(s) drew other examples" in \
        render(d, "a", "b")
    failing = diff(base, RunSet([table, _drawn("hyp-valid-3"), _drawn("hyp-valid-5", "FAIL")]))
    assert failing.failed and [c.case_id for _, c in failing.regressions] == ["hyp-valid-5"]
    gone = diff(base, RunSet([table]))
    assert gone.failed and len(gone.removed) == 1
