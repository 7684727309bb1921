"""Running one case on one product: backend call, judgement, record, and the test's verdict.

Inside a hypothesis test only the examples that count are recorded: every example drawn before the
first failure, and the minimal failing example hypothesis replays at the end. The examples tried
while shrinking are counted (``failing_examples`` of the minimal example's record), not recorded.
"""
from __future__ import annotations

import json
import os
import shlex
import time
import traceback
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
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
    inflight: Path | None = None               # this process's in-flight marker (see begin_case)
    current_item: str = ""                     # the test item running (its records' default nodeid)
    items: dict[str, "ItemRecords"] = field(default_factory=dict)     # nodeid -> its records
    _failures: dict[str, "HeldFailure"] = field(default_factory=dict)   # nodeid -> first failure
    _example: tuple | None = None    # the hypothesis example being run: (data, nodeid, records)

    def execute(self, case: Case, product: str) -> RunResult:
        if self.unavailable:  # records the case SKIPPED with the reason, and skips the test
            check_case(self, case, product)
        if self.executor is not None:
            result = self.executor(self.backend, case, product)
        else:
            result = self.backend.run(case, product)
        if not isinstance(result, RunResult):
            raise NotARunResult(f"the backend's run() returned {describe_returned(result)}, "
                                f"not a RunResult")
        return result

    def begin_case(self, record_base: dict, nodeid: str) -> None:
        """Note the case this process is about to run, so that the controller can record it CRASH
        if the process dies before its record is written."""
        if self.inflight is None:
            return
        tmp = self.inflight.with_suffix(".tmp")
        tmp.write_text(json.dumps({"nodeid": nodeid, "record": record_base}), encoding="utf-8")
        os.replace(tmp, self.inflight)

    def end_item(self, nodeid: str) -> "ItemRecords":
        """The test item is over: settle its last hypothesis example, write a failure that never
        got its final replay, clear the in-flight marker; returns what the item recorded."""
        self._settle_example()
        held = self._failures.pop(nodeid, None)
        if held is not None and not held.written:
            for record, case in held.records:
                self._write(record, case)
        if self.inflight is not None:
            self.inflight.unlink(missing_ok=True)
        return self.items.pop(nodeid, ItemRecords())

    def emit(self, record: OutcomeRecord, case: Case) -> OutcomeRecord:
        """Record ``record``, or, inside a hypothesis test, keep it with its example until the
        example is known to count (drawn before the first failure, or the final minimal one)."""
        context = _hypothesis_context()
        if context is None:
            return self._write(record, case)
        held = self._failures.get(record.nodeid)
        if context.is_final:  # hypothesis replays a minimal failing example: it counts
            if held is not None and record.outcome not in CERTIFIABLE:
                held.written = True
                held.failing_ids.add(record.case_id)
                record = replace(record, failing_examples=len(held.failing_ids),
                                 first_failing_example=held.first_case_id)
            return self._write(record, case)
        if self._example is None or self._example[0] is not context.data:
            self._settle_example()
            self._example = (context.data, record.nodeid, [])
        self._example[2].append((record, case))
        return record

    def _settle_example(self) -> None:
        """Decide the last hypothesis example: written when no failure came before it, held when it
        is the first failure, counted when hypothesis was shrinking."""
        if self._example is None:
            return
        _, nodeid, records = self._example
        self._example = None
        failing = {r.case_id for r, _ in records if r.outcome not in CERTIFIABLE}
        held = self._failures.get(nodeid)
        if held is not None:
            held.failing_ids |= failing
        elif failing:
            first = next(r.case_id for r, _ in records if r.outcome not in CERTIFIABLE)
            self._failures[nodeid] = HeldFailure(records, failing, first)
        else:
            for record, case in records:
                self._write(record, case)

    def _write(self, record: OutcomeRecord, case: Case) -> OutcomeRecord:
        if record.outcome not in CERTIFIABLE and self.report_dir is not None:
            case_file = _case_file(self, case, record.product, record.case_id)
            record = replace(record, case_file=str(case_file),
                             reproducer=self.reproducer(record.nodeid, record.product, case_file))
        self.write(record)
        self.items.setdefault(record.nodeid, ItemRecords()).add(record)
        if self.inflight is not None:  # the case has its record: a later death is the item's
            self.inflight.unlink(missing_ok=True)
        return record

    def reproducer(self, nodeid: str, product: str, case_file: Path | None) -> str:
        backend = self.backend_spec or self.backend.name
        lines = []
        if nodeid:
            lines.append("pytest " + shlex.quote(nodeid) + f" --backend {backend} "
                         f"--product {product} --profile {self.profile} --tier {self.tier} -p no:xdist")
        if case_file is not None:
            lines.append(f"python -m aclnn_conformance.reports replay {case_file} --backend {backend} "
                         f"--product {product} --profile {self.profile}")
        return "\n".join(lines)

    def write(self, record: OutcomeRecord) -> None:
        if self.writer is not None:
            self.writer.write(record)


class NotARunResult(TypeError):
    """A backend's run() returned something other than a RunResult."""


def describe_returned(value: object) -> str:
    """What a backend returned, in a few words (for the error that it is not a RunResult)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:80]}" if value is not None else "None"


@dataclass
class ItemRecords:
    """What one test item recorded (its JUnit properties and the run's completeness count)."""

    count: int = 0
    judged: int = 0                            # records that judged something (not skipped)
    outcomes: list[str] = field(default_factory=list)
    rule_ids: list[str] = field(default_factory=list)
    products: list[str] = field(default_factory=list)
    profile: str = ""

    def add(self, record: OutcomeRecord) -> None:
        self.count += 1
        self.judged += record.outcome not in NOT_RUN
        self.outcomes.append(record.outcome)
        for rule in (*record.rule_ids, *([record.deciding_rule] if record.deciding_rule else [])):
            if rule not in self.rule_ids:
                self.rule_ids.append(rule)
        if record.product not in self.products:
            self.products.append(record.product)
        self.profile = record.profile


@dataclass
class HeldFailure:
    """The first failing example of a hypothesis test, held while hypothesis shrinks it."""

    records: list[tuple[OutcomeRecord, Case]]
    failing_ids: set[str]                     # every failing case id seen since
    first_case_id: str
    written: bool = False                     # the final replay was recorded


# Outcomes that judged nothing: a run made only of these has not tested the backend.
NOT_RUN = frozenset({"SKIPPED", "BACKEND_UNAVAILABLE"})


def _hypothesis_context():
    """hypothesis's build context when called from inside a hypothesis test, else None."""
    try:
        from hypothesis.control import _current_build_context
    except ImportError:
        return None
    return _current_build_context.value


def _case_file(harness: Harness, case: Case, product: str, case_id: str) -> Path:
    safe = "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in case_id)
    return save_case(case, harness.report_dir / "failures" / f"{case.op}--{safe}--{product}.json")


def check_case(harness: Harness, case: Case, product: str, nodeid: str = "", *,
               defer: bool = False, annotate: dict | None = None) -> OutcomeRecord:
    """Run, judge and record ``case`` on ``product``; fail the calling test unless certifiable.

    ``defer``: return the record without failing the test (a relation test goes on to its relation
    and calls ``fail_unless_certifiable`` at its end). ``annotate``: more record fields (an
    imported vendor case's source, expectation and agreement)."""
    spec = op_spec(case.op)
    nodeid = nodeid or harness.current_item
    base = dict(case_id=case.case_id, op=case.op, product=product, profile=harness.profile,
                backend=harness.backend.name, backend_version=str(harness.backend.version),
                run_id=harness.run_id, origin=case.origin, rule_ids=case.rule_ids, seed=case.seed,
                tier=harness.tier, nodeid=nodeid, **(annotate or {}))
    if harness.unavailable:
        harness.emit(OutcomeRecord(outcome="SKIPPED", detail=harness.unavailable, **base), case)
        pytest.skip(harness.unavailable)
    expected = expected_outcome(spec, case, product, harness.profile)
    harness.begin_case({**base, "rule_ids": list(case.rule_ids), "deciding_rule": expected.rule_id,
                        "expected": expected.describe()}, nodeid)
    start = time.perf_counter()
    result: RunResult | None = None
    try:
        result = harness.execute(case, product)
        j = judge(spec, case, product, harness.profile, result)
        outcome, detail = j.outcome, j.detail
        if expected.kind == "not_judged":  # outside the contract: neither a PASS nor a FAIL
            outcome = "NOT_JUDGED"
    except BackendCrash as exc:
        j, outcome, detail = None, "CRASH", str(exc)
    except BackendTimeout as exc:
        j, outcome, detail = None, "TIMEOUT", str(exc)
    except NotARunResult as exc:
        j, result, outcome, detail = None, None, "HARNESS_ERROR", str(exc)
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
    record = OutcomeRecord(
        outcome=outcome, deciding_rule=expected.rule_id, expected=expected.describe(),
        expected_status=expected.status, phase=result.phase if result else "",
        actual_status=int(result.status) if result is not None else None,
        values_judged=bool(j and j.values_judged), standards=j.standards if j else {},
        verdicts=j.verdicts if j else {}, metrics=j.metrics if j else {}, detail=detail,
        message=result.message if result else "", waiver=waiver, duration_s=round(duration, 6),
        reproducer=harness.reproducer(nodeid, product, None), case_file=None,
        judged_by=_judged_by(outcome, expected, j), **base)
    record = harness.emit(record, case)
    if outcome == "QUALITY_WARNING":
        warnings.warn(QualityWarning(f"{case.case_id} on {product}: {detail or j.metrics}"))
    if not defer:
        fail_unless_certifiable((record, case))
    return record


def _judged_by(outcome: str, expected, j) -> str:
    """What decided the outcome: "values", "status", "not_supported", "not_judged" or "" (no
    answer from the backend)."""
    if j is None:
        return ""
    if outcome == "NOT_JUDGED":
        return "not_judged"
    if expected.kind == "not_supported":
        return "not_supported"
    return "values" if j.values_judged else "status"


def fail_unless_certifiable(*checked: tuple[OutcomeRecord, Case]) -> None:
    """Fail the calling test with the message of every record that is not certifiable."""
    bad = [failure_message(record, case) for record, case in checked
           if record.outcome not in CERTIFIABLE]
    if bad:
        pytest.fail("\n".join(bad), pytrace=False)


def ran(record: OutcomeRecord) -> bool:
    """The backend answered the call (whatever the verdict): a relation on it can be judged."""
    return record.outcome not in ("NOT_SUPPORTED", "CRASH", "TIMEOUT", "HARNESS_ERROR", *NOT_RUN)


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


def differing_storages(a: dict, b: dict) -> list[str]:
    """The names of the storages whose bytes differ between two results of the same call."""
    return [n for n in a if a[n].view(np.uint8).tobytes() != b[n].view(np.uint8).tobytes()]


def check_property(harness: Harness, case: Case, product: str, relation: str, holds: bool,
                   detail: str, rule_ids: tuple[str, ...], nodeid: str = "",
                   also: tuple[OutcomeRecord, ...] = ()) -> OutcomeRecord:
    """Record a relation between calls (determinism, metamorphic, trajectory) as one outcome, then
    fail the test if the relation or any record in ``also`` (the case's own single call) is not
    certifiable. A relation that holds carries no failure text."""
    outcome = "PASS" if holds else "FAIL"
    nodeid = nodeid or harness.current_item
    record = OutcomeRecord(
        case_id=f"{relation}:{case.case_id}", op=case.op, product=product, profile=harness.profile,
        backend=harness.backend.name, backend_version=str(harness.backend.version),
        run_id=harness.run_id, origin=relation, rule_ids=rule_ids, seed=case.seed, tier=harness.tier,
        nodeid=nodeid, outcome=outcome, expected=relation, values_judged=True,
        detail="" if holds else detail, judged_by="relation",
        reproducer=harness.reproducer(nodeid, product, None), case_file=None)
    record = harness.emit(record, case)
    fail_unless_certifiable(*((r, case) for r in also), (record, case))
    return record
