"""Running one case on one product: backend call, judgement, record, and the test's verdict.

Inside a hypothesis test only the examples that count are recorded: every example drawn before the
first failure, and the minimal failing example hypothesis replays at the end. The examples tried
while shrinking are counted (``failing_examples`` of the minimal example's record), not recorded.
A case hypothesis draws more than once in one test is one record, written when the test ends, whose
``draws`` says how often it was drawn: the records and the JUnit XML count the same cases.
"""
from __future__ import annotations

import importlib

import json
import os
import shlex
import socket
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from aclnn_conformance.backends.base import Backend, RunResult
from aclnn_conformance.judging.records import (CERTIFIABLE, MEMORY_NEED, NOT_RUN, OPERATOR_NEED,
                                               OutcomeRecord, RecordWriter, wanting)
from aclnn_conformance.judging.memory import MemoryBudget, over_budget
from aclnn_conformance.judging.run_case import run_case
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case, save_case
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.enums import status_name
from aclnn_conformance.spec.rules import expected_outcome


SUITES_DIR = Path(__file__).resolve().parent      # the suites' folder, installed or in a checkout
SUITES_PACKAGE = "aclnn_conformance.suites"
CALL_TEXT = 600                                    # characters of a failing call's summary kept


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
    _drawn: dict[str, dict[tuple[str, str], "DrawnCase"]] = field(default_factory=dict)
    rootdir: Path | None = None                # pytest's rootdir: where a nodeid's path starts
    item_paths: dict[str, Path] = field(default_factory=dict)   # nodeid -> its test file
    # nodeid -> the operators the item names: its reproducer selects them (--op), so that a rerun
    # builds no other operator's cases
    item_ops: dict[str, tuple[str, ...]] = field(default_factory=dict)
    memory_budget: MemoryBudget | None = None  # a case needing more is SKIPPED, never attempted

    def execute(self, case: Case, product: str) -> RunResult:
        if self.unavailable:  # records the case SKIPPED with the reason, and skips the test
            check_case(self, case, product)
        if self.executor is not None:
            return self.executor(self.backend, case, product)
        return self.backend.run(case, product)

    def begin_case(self, record_base: dict, nodeid: str) -> None:
        """Note the case this process is about to run, so that the controller can record it CRASH
        if the process dies before its record is written."""
        if self.inflight is None:
            return
        tmp = self.inflight.with_suffix(".tmp")
        reproducer = self.reproducer(nodeid, record_base["product"], None)
        # the process and machine: a report on the folder tells a dead run from one still running
        tmp.write_text(json.dumps({"nodeid": nodeid, "record": record_base,
                                   "reproducer": reproducer, "pid": os.getpid(),
                                   "host": socket.gethostname()}), encoding="utf-8")
        os.replace(tmp, self.inflight)

    def end_item(self, nodeid: str) -> "ItemRecords":
        """The test item is over: settle its last hypothesis example, write a failure that never
        got its final replay, clear the in-flight marker; returns what the item recorded."""
        self._settle_example()
        for drawn in self._drawn.pop(nodeid, {}).values():
            self._keep(replace(drawn.record, draws=drawn.draws), drawn.case)
        held = self._failures.pop(nodeid, None)
        if held is not None and not held.written:
            for record, case in held.records:
                self._keep(record, case)
        if self.inflight is not None:
            self.inflight.unlink(missing_ok=True)
        return self.items.pop(nodeid, ItemRecords())

    def emit(self, record: OutcomeRecord, case: Case) -> OutcomeRecord:
        """Record ``record``, or, inside a hypothesis test, keep it with its example until the
        example is known to count (drawn before the first failure, or the final minimal one)."""
        context = _hypothesis_context()
        if context is None:
            return self._keep(record, case)
        held = self._failures.get(record.nodeid)
        if context.is_final:  # hypothesis replays a minimal failing example: it counts
            if held is not None and record.outcome not in CERTIFIABLE:
                held.written = True
                held.failing_ids.add(record.case_id)
                record = replace(record, failing_examples=len(held.failing_ids),
                                 first_failing_example=held.first_case_id)
            return self._keep(record, case)
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
                self._hold_draw(record, case)

    def _hold_draw(self, record: OutcomeRecord, case: Case) -> None:
        """Keep a passing example's record until its test ends; a case drawn again adds a draw
        (a record that is not certifiable wins over one that is)."""
        drawn = self._drawn.setdefault(record.nodeid, {})
        key = (record.case_id, record.product)
        prior = drawn.get(key)
        if prior is None:
            drawn[key] = DrawnCase(record, case)
            return
        prior.draws += 1
        if prior.record.outcome in CERTIFIABLE and record.outcome not in CERTIFIABLE:
            prior.record, prior.case = record, case

    def _keep(self, record: OutcomeRecord, case: Case) -> OutcomeRecord:
        """Complete a counted record (a failure gets its case file and reproducers; a case of a
        test chaining operators names the others it needs), append it and count it for its item."""
        chained = tuple(f"{OPERATOR_NEED}{op}" for op in self.item_ops.get(record.nodeid, ())
                        if op != record.op and f"{OPERATOR_NEED}{op}" not in record.needs)
        if chained:
            record = replace(record, needs=record.needs + chained)
        # an over-budget case gets no case file: writing its storages would allocate them
        if record.outcome not in CERTIFIABLE and self.report_dir is not None \
                and not wanting(record.outcome, record.needs) \
                and not over_budget(case, self.memory_budget):
            case_file = _case_file(self, case, record.product, record.case_id)
            record = replace(record, case_file=str(case_file), call=case.summary()[:CALL_TEXT],
                             reproducer=self.reproducer(record.nodeid, record.product, case_file))
        self.append(record)
        self.items.setdefault(record.nodeid, ItemRecords()).add(record)
        if self.inflight is not None:  # the case has its record: a later death is the item's
            self.inflight.unlink(missing_ok=True)
        return record

    def reproducer(self, nodeid: str, product: str, case_file: Path | None) -> str:
        """The commands that run the failing test, and replay its saved case, again: each pasted
        as printed into the folder the run started in (installed or in a checkout) works."""
        backend = shlex.quote(self.backend_spec or self.backend.name)
        lines = []
        if nodeid:
            ops = self.item_ops.get(nodeid)
            lines.append(f"python -m pytest {self.test_argument(nodeid)} -p aclnn_conformance.plugin "
                         f"--backend {backend} --product {product} --profile {self.profile} "
                         f"--tier {self.tier}" + (f" --op {','.join(ops)}" if ops else "")
                         + " -p no:xdist -p no:cacheprovider")
        if case_file is not None:
            lines.append(f"python -m aclnn_conformance.reports replay {shlex.quote(str(case_file))} "
                         f"--backend {backend} --product {product} --profile {self.profile}")
        return "\n".join(lines)

    def test_argument(self, nodeid: str) -> str:
        """A nodeid as pytest takes it from any folder: a suite's test by its module in the
        installed package (--pyargs), any other test by its file's absolute path."""
        path, sep, rest = nodeid.partition("::")
        file = self.item_paths.get(nodeid)
        if file is None:
            beside_suites = SUITES_DIR / Path(path).name
            file = beside_suites if beside_suites.is_file() else (self.rootdir or Path()) / path
        if file.resolve().parent == SUITES_DIR and file.suffix == ".py":
            return "--pyargs " + shlex.quote(f"{SUITES_PACKAGE}.{file.stem}{sep}{rest}")
        return shlex.quote(f"{file.resolve()}{sep}{rest}")

    def append(self, record: OutcomeRecord) -> None:
        """Append one record to the records file, as it is."""
        if self.writer is not None:
            self.writer.write(record)


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
class DrawnCase:
    """A passing hypothesis example's record, held until its test ends, and how often it was drawn."""

    record: OutcomeRecord
    case: Case
    draws: int = 1


@dataclass
class HeldFailure:
    """The first failing example of a hypothesis test, held while hypothesis shrinks it."""

    records: list[tuple[OutcomeRecord, Case]]
    failing_ids: set[str]                     # every failing case id seen since
    first_case_id: str
    written: bool = False                     # the final replay was recorded


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
    """Run, judge and record ``case`` on ``product`` (judging.run_case); fail the calling test
    unless certifiable.

    ``defer``: return the record without failing the test (a relation test goes on to its relation
    and calls ``fail_unless_certifiable`` at its end). ``annotate``: more record fields (an
    imported vendor case's source, expectation and agreement)."""
    nodeid = nodeid or harness.current_item
    base = _record_base(harness, case, product, nodeid, annotate)
    if harness.unavailable:
        harness.emit(OutcomeRecord(outcome=Outcome.SKIPPED, detail=harness.unavailable, **base), case)
        skip_unavailable(harness)
    skip_over_budget(harness, case, product, nodeid, annotate)
    expected = expected_outcome(op_spec(case.op), case, product, harness.profile)
    harness.begin_case({**base, "rule_ids": list(case.rule_ids), "deciding_rule": expected.rule_id,
                        "expected": expected.describe()}, nodeid)
    ran_case = run_case(harness.backend, case, product, harness.profile, execute=harness.execute)
    record = harness.emit(ran_case.record(reproducer=harness.reproducer(nodeid, product, None),
                                          case_file=None, **base), case)
    if record.outcome == Outcome.QUALITY_WARNING:
        warnings.warn(QualityWarning(f"{case.case_id} on {product}: "
                                     f"{record.detail or record.metrics}"))
    if not defer:
        fail_unless_certifiable((record, case))
    return record


def _record_base(harness: Harness, case: Case, product: str, nodeid: str,
                 annotate: dict | None) -> dict:
    """The identity fields of ``case``'s record on ``product``."""
    return dict(case_id=case.case_id, op=case.op, product=product, profile=harness.profile,
                backend=harness.backend.name, backend_version=str(harness.backend.version),
                run_id=harness.run_id, origin=case.origin, rule_ids=case.rule_ids, seed=case.seed,
                tier=harness.tier, nodeid=nodeid, **(annotate or {}))


def skip_over_budget(harness: Harness, case: Case, product: str, nodeid: str = "",
                     annotate: dict | None = None) -> None:
    """Record ``case`` SKIPPED, with the bytes it needs and the budget, and skip the calling test
    when its estimate exceeds the run's memory budget. The estimate reads the descriptors alone:
    call it before the storages exist (an imported case's are read or drawn after it)."""
    detail = over_budget(case, harness.memory_budget)
    if not detail:
        return
    nodeid = nodeid or harness.current_item
    harness.emit(OutcomeRecord(outcome=Outcome.SKIPPED, detail=detail, needs=(MEMORY_NEED,),
                               reproducer=harness.reproducer(nodeid, product, None),
                               call=case.summary()[:CALL_TEXT],
                               **_record_base(harness, case, product, nodeid, annotate)), case)
    pytest.skip(detail)


def skip_unavailable(harness: Harness) -> None:
    """Skip the calling test because the backend is unavailable (one place, so that pytest's
    summary gives the reason in one line)."""
    pytest.skip(harness.unavailable)


def fail_unless_certifiable(*checked: tuple[OutcomeRecord, Case]) -> None:
    """Fail the calling test with the message of every record that is not certifiable; skip it with
    the backend's reason when it only lacks the operator (the records say BACKEND_UNAVAILABLE)."""
    unjudged = [(record, case) for record, case in checked if record.outcome not in CERTIFIABLE]
    if unjudged and all(r.outcome == Outcome.BACKEND_UNAVAILABLE for r, _ in unjudged):
        pytest.skip(unjudged[0][0].detail)
    if unjudged:
        pytest.fail("\n".join(failure_message(record, case) for record, case in unjudged), pytrace=False)


def ran(record: OutcomeRecord) -> bool:
    """The backend answered the call (whatever the verdict): a relation on it can be judged."""
    return record.outcome not in (Outcome.NOT_SUPPORTED, Outcome.CRASH, Outcome.TIMEOUT,
                                  Outcome.HARNESS_ERROR, *NOT_RUN)


def failure_message(record: OutcomeRecord, case: Case) -> str:
    actual = "no status" if record.actual_status is None else status_name(record.actual_status)
    return (f"{record.outcome}: {record.op} case {record.case_id} on {record.product} "
            f"({record.profile} profile, backend {record.backend})\n"
            f"  call:      {case.summary()[:CALL_TEXT]}\n"
            f"  rules:     {', '.join(record.rule_ids) or '-'}"
            f"{'; decided by ' + record.deciding_rule if record.deciding_rule else ''}\n"
            f"  expected:  {record.expected}\n"
            f"  actual:    {actual}\n"
            f"  detail:    {record.detail}\n"
            f"  reproduce:\n    " + record.reproducer.replace("\n", "\n    "))


def differing_storages(a: dict, b: dict) -> list[str]:
    """The names of the storages whose bytes differ between two results of the same call."""
    return [n for n in a if a[n].view(np.uint8).tobytes() != b[n].view(np.uint8).tobytes()]


def record_not_covered_family(harness: Harness, op: str, product: str, family: str,
                              stands_for: int, rule_id: str | None, nodeid: str) -> OutcomeRecord:
    """One NOT_COVERED record for a family of calls (a test's cases) that all lie outside the
    operator's declared domain on ``product``: counted, not run one by one."""
    spec = op_spec(op)
    record = OutcomeRecord(
        case_id=f"not-covered:{family}", op=op, product=product, profile=harness.profile,
        backend=harness.backend.name, backend_version=str(harness.backend.version),
        run_id=harness.run_id, origin="not_covered", rule_ids=(), tier=harness.tier,
        nodeid=nodeid, outcome=Outcome.NOT_COVERED, deciding_rule=rule_id, expected="not covered",
        judged_by="not_covered", stands_for=int(stands_for),
        detail=f"{stands_for} call(s) of {family} not run: {product} lies outside the declared "
               f"domain of the {spec.api} spec ({spec.domain})")
    if harness.unavailable:  # as check_case: an unavailable backend skips every case
        record = replace(record, outcome=Outcome.SKIPPED, judged_by="", detail=harness.unavailable)
    harness.append(record)
    harness.items.setdefault(nodeid, ItemRecords()).add(record)
    if harness.unavailable:
        skip_unavailable(harness)
    return record


# The optional packages a suite may need, and how to install each (the project's extras).
OPTIONAL_PACKAGES = {"torch": "pip install 'aclnn-conformance[torch]' (torch==2.13.0)"}
NEEDS_PACKAGE = "needs "   # how the skip of a case wanting one begins (its record says the rest)


def import_optional(harness: Harness, case: Case, product: str, relation: str, package: str,
                    rule_ids: tuple[str, ...], nodeid: str = ""):
    """``package`` imported, or the relation recorded SKIPPED with what to install and the test
    skipped: a certification without it names the cases it could not run instead of missing them."""
    try:
        return importlib.import_module(package)
    except ImportError as exc:
        nodeid = nodeid or harness.current_item
        detail = (f"{NEEDS_PACKAGE}{package}, which cannot be imported here ({exc}): "
                  f"{OPTIONAL_PACKAGES.get(package, 'pip install ' + package)}")
        harness.emit(OutcomeRecord(
            case_id=f"{relation}:{case.case_id}", op=case.op, product=product,
            profile=harness.profile, backend=harness.backend.name,
            backend_version=str(harness.backend.version), run_id=harness.run_id, origin=relation,
            rule_ids=rule_ids, seed=case.seed, tier=harness.tier, nodeid=nodeid,
            outcome=Outcome.SKIPPED, expected=relation, detail=detail, needs=(package,),
            reproducer=harness.reproducer(nodeid, product, None)), case)
        pytest.skip(detail)


def check_property(harness: Harness, case: Case, product: str, relation: str, holds: bool,
                   detail: str, rule_ids: tuple[str, ...], nodeid: str = "",
                   also: tuple[OutcomeRecord, ...] = (),
                   needs: tuple[str, ...] = ()) -> OutcomeRecord:
    """Record a relation between calls (determinism, metamorphic, trajectory) as one outcome, then
    fail the test if the relation or any record in ``also`` (the case's own single call) is not
    certifiable. A relation that holds carries no failure text."""
    outcome = Outcome.PASS if holds else Outcome.FAIL
    nodeid = nodeid or harness.current_item
    record = OutcomeRecord(
        case_id=f"{relation}:{case.case_id}", op=case.op, product=product, profile=harness.profile,
        backend=harness.backend.name, backend_version=str(harness.backend.version),
        run_id=harness.run_id, origin=relation, rule_ids=rule_ids, seed=case.seed, tier=harness.tier,
        nodeid=nodeid, outcome=outcome, expected=relation, values_judged=True,
        detail="" if holds else detail, judged_by="relation", needs=needs,
        reproducer=harness.reproducer(nodeid, product, None), case_file=None)
    record = harness.emit(record, case)
    fail_unless_certifiable(*((r, case) for r in also), (record, case))
    return record
