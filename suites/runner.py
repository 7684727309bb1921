"""Running one case on one product: backend call, judgement, record, and the test's verdict."""
from __future__ import annotations

import shlex
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from aclnn_conformance.backends.base import Backend, BackendCrash, BackendTimeout, RunResult
from aclnn_conformance.judging.records import CERTIFIABLE, OutcomeRecord, RecordWriter
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case, save_case
from aclnn_conformance.spec.enums import status_name
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.judging.judge import judge


class QualityWarning(UserWarning):
    """Inside the error band of a precision standard, outside its warning band."""


@dataclass
class Harness:
    """What one test session runs with (built once by conftest from the command line)."""

    backend: Backend
    profile: str
    tier: str
    run_id: str
    report_dir: Path | None = None
    writer: RecordWriter | None = None
    unavailable: str = ""                      # non-empty: the backend's one-line reason
    executor: Callable[[Backend, Case, str], RunResult] | None = None   # isolation, if any
    command: list[str] = field(default_factory=list)
    backend_spec: str = ""                     # --backend as given (a name or module:attr)

    def execute(self, case: Case, product: str) -> RunResult:
        if self.unavailable:  # records the case SKIPPED with the reason, and skips the test
            check_case(self, case, product)
        if self.executor is not None:
            return self.executor(self.backend, case, product)
        return self.backend.run(case, product)

    def reproducer(self, nodeid: str, product: str, case_file: Path | None) -> str:
        backend = self.backend_spec or self.backend.name
        lines = []
        if nodeid:
            lines.append("pytest " + shlex.quote(nodeid) + f" --backend {backend} "
                         f"--product {product} --profile {self.profile} --tier {self.tier} -p no:xdist")
        if case_file is not None:
            lines.append(f"python -m reports replay {case_file} --backend {backend} "
                         f"--product {product} --profile {self.profile}")
        return "\n".join(lines)

    def write(self, record: OutcomeRecord) -> None:
        if self.writer is not None:
            self.writer.write(record)


def _case_file(harness: Harness, case: Case, product: str) -> Path | None:
    if harness.report_dir is None:
        return None
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case.case_id)
    return save_case(case, harness.report_dir / "failures" / f"{case.op}--{safe}--{product}.json")


def check_case(harness: Harness, case: Case, product: str, nodeid: str = "") -> OutcomeRecord:
    """Run, judge and record ``case`` on ``product``; fail the calling test unless certifiable."""
    spec = op_spec(case.op)
    base = dict(case_id=case.case_id, op=case.op, product=product, profile=harness.profile,
                backend=harness.backend.name, backend_version=str(harness.backend.version),
                run_id=harness.run_id, origin=case.origin, rule_ids=case.rule_ids, seed=case.seed,
                tier=harness.tier, nodeid=nodeid)
    if harness.unavailable:
        harness.write(OutcomeRecord(outcome="SKIPPED", detail=harness.unavailable, **base))
        pytest.skip(harness.unavailable)
    expected = expected_outcome(spec, case, product, harness.profile)
    start = time.perf_counter()
    result: RunResult | None = None
    try:
        result = harness.execute(case, product)
        j = judge(spec, case, product, harness.profile, result)
        outcome, detail = j.outcome, j.detail
    except BackendCrash as exc:
        j, outcome, detail = None, "CRASH", str(exc)
    except BackendTimeout as exc:
        j, outcome, detail = None, "TIMEOUT", str(exc)
    except Exception:  # a backend or harness bug: never counted as conformance
        j, outcome, detail = None, "HARNESS_ERROR", traceback.format_exc(limit=6)
    duration = time.perf_counter() - start
    waiver = None
    if outcome == "FAIL":
        rules = case.rule_ids + ((expected.rule_id,) if expected.rule_id else ())
        for w in getattr(harness.backend, "waivers", ()):
            if w.covers(rules, case.case_id, product):
                outcome, waiver = "WAIVED", f"{w.rule_id}: {w.cause}"
                break
    case_file = _case_file(harness, case, product) if outcome not in CERTIFIABLE else None
    record = OutcomeRecord(
        outcome=outcome, deciding_rule=expected.rule_id, expected=expected.describe(),
        expected_status=expected.status, phase=result.phase if result else "",
        actual_status=int(result.status) if result is not None else None,
        values_judged=bool(j and j.values_judged), standards=j.standards if j else {},
        verdicts=j.verdicts if j else {}, metrics=j.metrics if j else {}, detail=detail,
        message=result.message if result else "", waiver=waiver, duration_s=round(duration, 6),
        reproducer=harness.reproducer(nodeid, product, case_file),
        case_file=str(case_file) if case_file else None, **base)
    harness.write(record)
    if outcome == "QUALITY_WARNING":
        warnings.warn(QualityWarning(f"{case.case_id} on {product}: {detail or j.metrics}"))
    if outcome not in CERTIFIABLE:
        pytest.fail(failure_message(record, case), pytrace=False)
    return record


def failure_message(record: OutcomeRecord, case: Case) -> str:
    actual = "no status" if record.actual_status is None else status_name(record.actual_status)
    return (f"{record.outcome}: {record.op} case {record.case_id} on {record.product} "
            f"({record.profile} profile, backend {record.backend})\n"
            f"  call:      {case.summary()[:600]}\n"
            f"  rules:     {', '.join(record.rule_ids) or '-'}"
            f"{'; decided by ' + record.deciding_rule if record.deciding_rule else ''}\n"
            f"  expected:  {record.expected}\n"
            f"  actual:    {actual}\n"
            f"  detail:    {record.detail}\n"
            f"  reproduce:\n    " + record.reproducer.replace("\n", "\n    "))


def check_property(harness: Harness, case: Case, product: str, relation: str, holds: bool,
                   detail: str, rule_ids: tuple[str, ...], nodeid: str = "") -> OutcomeRecord:
    """Record a relation between calls (determinism, metamorphic, trajectory) as one outcome."""
    outcome = "PASS" if holds else "FAIL"
    case_file = _case_file(harness, case, product) if not holds else None
    record = OutcomeRecord(
        case_id=f"{relation}:{case.case_id}", op=case.op, product=product, profile=harness.profile,
        backend=harness.backend.name, backend_version=str(harness.backend.version),
        run_id=harness.run_id, origin=relation, rule_ids=rule_ids, seed=case.seed, tier=harness.tier,
        nodeid=nodeid, outcome=outcome, expected=relation, values_judged=True, detail=detail,
        reproducer=harness.reproducer(nodeid, product, case_file),
        case_file=str(case_file) if case_file else None)
    harness.write(record)
    if not holds:
        pytest.fail(failure_message(record, case), pytrace=False)
    return record
