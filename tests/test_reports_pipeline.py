"""The reporting pipeline end to end, on small real runs of the suites (pytest in a subprocess):
run record, end-of-run reports, the HTML page, diff, merge, compare and replay."""
from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.load import load, load_source
from aclnn_conformance.judging.records import read_records, read_run, write_records, write_run
from aclnn_conformance.spec import OPS, op_spec
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.reports.certify import PLAIN_ASSERTS
from tests.test_report_layout import data_blocks

ROOT = Path(__file__).resolve().parents[1]
SELECT = ["suites/test_operators.py::test_table", "suites/test_rules.py",
          "-k", "doc-example or fault-AAWQ-DTYPE", "--op", "apply_adam_w_quant"]
PRODUCTS = ("atlas-a2", "ascend950")
BROKEN = "tests.test_reports_pipeline:FlipBitBackend"


class FlipBitBackend(ReferenceBackend):
    """A deliberately broken backend: the reference, with one exponent bit of the first element of
    the first output flipped on every successful call."""

    name = "flipbit"

    def run(self, case, product):
        result = super().run(case, product)
        if result.status != 0:
            return result
        name = next(n for n in op_spec(case.op).outputs
                    if n in result.storages and result.storages[n].size)
        storages = dict(result.storages)
        broken = storages[name].copy()
        broken.view(np.uint8)[broken.itemsize - 1] ^= 0x40
        storages[name] = broken
        return replace(result, storages=storages)


def _pytest(report_dir: Path, products: str, backend: str = "reference", extra=()) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, *SELECT, "--backend", backend, "--product", products,
           "--report-dir", str(report_dir), "-q", "-p", "no:cacheprovider", "-p", "no:xdist", *extra]
    return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Four runs at once: both products, each product alone (two shards), and the broken backend
    stopped at its first failure by -x."""
    base = tmp_path_factory.mktemp("runs")
    plan = {"one": (",".join(PRODUCTS), "reference", ()),
            "shard1": (PRODUCTS[0], "reference", ()),
            "shard2": (PRODUCTS[1], "reference", ()),
            "broken": (PRODUCTS[0], BROKEN, ("-x",))}
    procs = {k: _pytest(base / k, *v) for k, v in plan.items()}
    out = {}
    for key, proc in procs.items():
        stdout, _ = proc.communicate(timeout=300)
        out[key] = (base / key, proc.returncode, stdout)
    for key in ("one", "shard1", "shard2"):
        assert out[key][1] == 0, out[key][2][-3000:]
    assert out["broken"][1] == 1, out["broken"][2][-3000:]
    return {k: v[0] for k, v in out.items()} | {"stdout": {k: v[2] for k, v in out.items()}}


def test_run_record_of_a_complete_run(runs):
    run = read_run(runs["one"] / "run.json")
    assert run.complete and not run.stopped_early and run.finished and run.exit_status == 0
    assert run.products == PRODUCTS and run.backend == "reference" and run.profile == "cann"
    assert run.tier == "ci" and run.hypothesis["profile"] == "ci"
    assert {"python", "numpy", "ml_dtypes", "pandas"} <= set(run.versions)
    assert run.suite_commit == "unknown" or len(run.suite_commit) == 40
    assert "--report-dir" in run.command
    assert {r.run_id for r in load_source(runs["one"]).records} == {run.run_id}


def test_a_run_stopped_by_x_stays_incomplete(runs):
    run = read_run(runs["broken"] / "run.json")
    assert not run.complete and run.stopped_early
    assert "stopping after 1 failures" in run.stop_reason
    assert "INCOMPLETE" in (runs["broken"] / "report.md").read_text()
    assert "INCOMPLETE" in runs["stdout"]["broken"]


def test_end_of_run_reports_and_terminal_summary(runs):
    d = runs["one"]
    for name in ("records.jsonl", "report.md", "report.csv", "report.json", "report.html",
                 "rules.csv", "run.json"):
        assert (d / name).is_file(), name
    doc = json.loads((d / "report.json").read_text())
    rows = {(c["op"], c["product"]): c for c in doc["compliance"]}
    assert set(rows) == {("apply_adam_w_quant", p) for p in PRODUCTS}
    assert all(c["compliance_pct"] == 100.0 for c in rows.values())
    assert {r["id"] for r in doc["rules"]} == {r.id for r in OPS["apply_adam_w_quant"].rules}
    assert doc["errata"] and doc["failures"] == []
    summary = runs["stdout"]["one"].split("aclnn conformance summary", 1)[1]
    assert "apply_adam_w_quant" in summary and "100.0%" in summary
    md = (d / "report.md").read_text()
    assert "## Doc errata" in md and "AAWQ-ERRATUM-1" in md and "AAWQ-DTYPE-001" in md


def test_failures_carry_their_reproducer(runs):
    doc = json.loads((runs["broken"] / "report.json").read_text())
    (fail,) = doc["failures"]
    assert fail["outcome"] == "FAIL" and fail["case_id"] == "doc-example"
    assert "python -m aclnn_conformance.reports replay" in fail["reproducer"] and fail["case_file"]
    assert Path(fail["case_file"]).is_file()
    assert fail["reproducer"] in (runs["broken"] / "report.md").read_text().replace("\n  ", "\n")


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tags, self.urls = set(), []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.urls += [v for k, v in attrs if k in ("src", "href") and v and not v.startswith("#")]


def test_html_page_holds_every_product_and_rule(runs):
    text = (runs["one"] / "report.html").read_text()
    page = _Tags()
    page.feed(text)
    rules = data_blocks(text)["rules-data"]
    assert set(rules["products"]) == set(PRODUCT_IDS)
    assert {g["op"]: {rules["strings"][r[0]] for r in g["rules"]} for g in rules["groups"]} == {
        "apply_adam_w_quant": {r.id for r in OPS["apply_adam_w_quant"].rules}}
    # self-contained: inline style and script, nothing fetched
    assert "style" in page.tags and "script" in page.tags and page.urls == []


def _inject(src: Path, dst: Path, case_id: str, product: str, outcome: str | None) -> Path:
    """A copy of a run's records with one case's outcome changed (or the case removed)."""
    recs = []
    for r in read_records(src / "records.jsonl"):
        if (r.case_id, r.product) == (case_id, product):
            if outcome is None:
                continue
            r = replace(r, outcome=outcome, detail="injected")
        recs.append(r)
    dst.mkdir(parents=True)
    write_records(dst / "records.jsonl", recs)
    # a run that never had the removed case: its run record counts the records it has
    write_run(dst / "run.json", replace(read_run(src / "run.json"), records_written=len(recs)))
    return dst


def test_diff_gates_regressions(runs, tmp_path, capsys):
    one = runs["one"]
    assert main(["diff", str(one), str(one)]) == 0
    assert "**OK**" in capsys.readouterr().out
    failed = _inject(one, tmp_path / "failed", "doc-example", "atlas-a2", "FAIL")
    assert main(["diff", str(one), str(failed)]) == 1
    out = capsys.readouterr().out
    assert "**REGRESSION**" in out and "## Pass to fail (1)" in out and "injected" in out
    assert main(["diff", str(failed), str(one)]) == 0          # fail -> pass: an improvement
    assert "## Fail to pass (1)" in capsys.readouterr().out
    removed = _inject(one, tmp_path / "removed", "doc-example", "ascend950", None)
    assert main(["diff", str(one), str(removed / "records.jsonl")]) == 1
    assert "## Removed cases (1)" in capsys.readouterr().out
    assert main(["diff", str(removed), str(one)]) == 1
    assert "## New cases (1)" in capsys.readouterr().out


def test_merging_two_shards_equals_one_run(runs, tmp_path, capsys):
    merged = tmp_path / "merged"
    assert main(["merge", str(runs["shard1"]), str(runs["shard2"]), "--out", str(merged)]) == 0

    def outcomes(d):
        return {(r.op, r.case_id, r.product, r.profile, r.backend): (r.outcome, r.actual_status)
                for r in load([d]).records}

    assert outcomes(merged) == outcomes(runs["one"]) and len(outcomes(merged)) > 0
    one = json.loads((runs["one"] / "report.json").read_text())
    both = json.loads((merged / "report.json").read_text())
    assert both["compliance"] == one["compliance"]
    assert [r["results"] for r in both["rules"]] == [r["results"] for r in one["rules"]]
    assert len(both["runs"]) == 2 and (merged / "report.html").is_file()
    assert main(["diff", str(runs["one"]), str(merged)]) == 0
    capsys.readouterr()
    # the same cases from two different runs are refused
    assert main(["merge", str(runs["one"]), str(runs["shard1"]), "--out", str(tmp_path / "x")]) == 2
    assert "duplicate case" in capsys.readouterr().err


def test_compare_puts_differences_first_with_the_rule_text(runs, capsys):
    assert main(["compare", str(runs["one"]), str(runs["broken"])]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("|  | rule"))
    assert "flipbit/atlas-a2" in header and "reference/atlas-a2" in header
    first = out.splitlines()[out.splitlines().index(header) + 2]
    assert first.startswith("| ≠ |") and "FAIL" in first
    rule = first.split("|")[2].strip()
    assert f"### {rule}" in out
    assert f"> {op_spec('apply_adam_w_quant').rule(rule).text}" in out


def test_replayed_failure_reproduces_the_outcome(runs, capsys):
    (rec,) = [r for r in read_records(runs["broken"] / "records.jsonl") if r.outcome == "FAIL"]
    proc = subprocess.run([sys.executable, "-m", "reports", "replay", rec.case_file,
                           "--backend", BROKEN], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "outcome   FAIL (recorded: FAIL; reproduced)" in proc.stdout
    assert "expected  ACLNN_SUCCESS" in proc.stdout and "varRef: FAIL" in proc.stdout
    # the same case on the reference backend is certifiable
    assert main(["replay", rec.case_file, "--backend", "reference", "--product", "atlas-a2"]) == 0
    assert "outcome   PASS (recorded: FAIL; NOT reproduced)" in capsys.readouterr().out
