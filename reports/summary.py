"""The end of a pytest run with --report-dir: merge the shards, write the reports, return the summary."""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

from aclnn_conformance.reports.load import RunSet, inflight_crashes, marker_alive, merge
from aclnn_conformance.judging.records import read_records, read_run, write_records, write_run
from aclnn_conformance.reports.report import terminal_summary, write_reports
from aclnn_conformance.reports.run import RUN_FILE
from aclnn_conformance.reports.tables import MIN_EXERCISED
from aclnn_conformance.spec.products import PRODUCT_IDS


def merge_shards(report_dir: Path) -> RunSet:
    """records/*.jsonl (one per xdist worker, or "main") -> records.jsonl, then the shards are
    removed: the folder holds its records once. Returns the run's set; a folder already merged is
    read as it is (records.jsonl is written whole before any shard goes, so it is complete)."""
    shard_dir, merged = report_dir / "records", report_dir / "records.jsonl"
    if merged.is_file():
        runset = RunSet(list(read_records(merged)), sources=[str(merged)])
        written = len(runset.records)
        shutil.rmtree(shard_dir, ignore_errors=True)   # left by a merge cut short
    else:
        shards = sorted(shard_dir.glob("*.jsonl"))
        runset = merge(RunSet(list(read_records(p, partial_tail=True)), sources=[str(p)])
                       for p in shards)
        # written whole before the shards go: a process killed in between leaves both
        partial = merged.with_name(merged.name + ".partial")
        written = write_records(partial, runset.records)
        os.replace(partial, merged)
        shutil.rmtree(shard_dir, ignore_errors=True)
    if (report_dir / RUN_FILE).exists():  # the count a report checks records.jsonl against
        run = replace(read_run(report_dir / RUN_FILE), records_written=written)
        write_run(report_dir / RUN_FILE, run)
        runset.runs[run.run_id] = run
    runset.sources = [str(report_dir)]
    return runset


def settle_unfinished_run(report_dir: Path) -> str:
    """A run folder whose run never ended (its process killed from outside, by SIGKILL or the
    kernel's OOM killer, which leave no time to merge): merge its shards and the CRASH records of
    its in-flight markers into records.jsonl, and say in run.json why the run is incomplete and
    which case was running. Returns that line; "" for a folder that needs nothing (a finished run,
    one already settled, or one whose marked process still runs on this machine)."""
    report_dir = Path(report_dir)
    run_file = report_dir / RUN_FILE
    if not run_file.is_file() or (report_dir / "records.jsonl").exists() \
            or not (report_dir / "records").is_dir():
        return ""
    run = read_run(run_file)
    markers = sorted((report_dir / "inflight").glob("*.json"))
    if run.finished or run.complete or any(marker_alive(m) for m in markers):
        return ""
    runset = merge_shards(report_dir)      # records.jsonl from the shards, as the run's end would
    crashes = inflight_crashes(report_dir, runset.runs)
    records = runset.records + crashes
    written = write_records(report_dir / "records.jsonl", records)
    running = "; ".join(f"{c.op} case {c.case_id} on {c.product} ({c.nodeid})" for c in crashes)
    reason = ("the run never finished: its process died " +
              (f"while running {running}, recorded CRASH" if running else "between two cases") +
              " (killed from outside, e.g. SIGKILL or the kernel's OOM killer, or crashed); "
              f"the {written} records written until then were merged by `report`")
    write_run(run_file, replace(read_run(run_file), records_written=written,
                                stop_reason=run.stop_reason or reason))
    for marker in markers:   # its CRASH record is in records.jsonl now
        marker.unlink()
    return reason


def _note_skew(report_dir: Path) -> None:
    """Say in report.md when the run's CANN is not the release the extracted spec was read from."""
    from aclnn_conformance.spec.skew import skew_line
    run = report_dir / "run.json"
    release = json.loads(run.read_text()).get("cann_version") if run.is_file() else None
    line = skew_line(release)
    report = report_dir / "report.md"
    if line and report.is_file():
        text = report.read_text(encoding="utf-8")
        head, _, rest = text.partition("\n")
        report.write_text(f"{head}\n\n**{line}**\n{rest}", encoding="utf-8")


def finish_report_dir(report_dir: Path, min_exercised: float = MIN_EXERCISED) -> str:
    """Merge the shards into records.jsonl, write report.md/.csv/.json/.html (and the declared
    support tables when the run probed them); return the table printed in the terminal."""
    report_dir = Path(report_dir)
    runset = merge_shards(report_dir)
    doc, paths = write_reports(runset, report_dir, min_exercised)
    from aclnn_conformance.reports.matrix import data_operators, write_matrix
    # the support matrix of the extracted operators the run covers, on the products it ran
    ran = {r.op for r in runset.records}
    keys = [k for k in data_operators() if k in ran]
    if keys:
        products = [p for p in PRODUCT_IDS if p in {r.product for r in runset.records}]
        write_matrix(report_dir / "matrix", products, keys)
    _note_skew(report_dir)
    return terminal_summary(doc, [p for p in paths if p.name in ("report.md", "report.html")])
