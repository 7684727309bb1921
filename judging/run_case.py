"""The one way to run a case: execute it on a backend, judge it, and decide its outcome.

The suites' runner (which then records the outcome and fails the test), ``replay``, ``mutate`` and
``sensitivity`` all call ``run_case``, so that a case has the same outcome wherever it is run: the
spec's expectation, the backend's answer judged by the oracle and the precision standards, a call
outside the contract NOT_JUDGED, a dead or hung backend CRASH or TIMEOUT, anything else the backend or
the harness raised HARNESS_ERROR, and a FAIL that one of the backend's waivers covers WAIVED.
"""
from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Callable, Mapping

from aclnn_conformance.backends.base import (Backend, BackendCrash, BackendTimeout, OperatorNotImplemented,
                                             RunResult)
from aclnn_conformance.judging.judge import Judgement, judge
from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.rules import Expected, expected_outcome


class NotARunResult(TypeError):
    """A backend's run() returned something other than a RunResult."""


def describe_returned(value: object) -> str:
    """What a backend returned, in a few words (for the error that it is not a RunResult)."""
    text = repr(value)
    return f"{type(value).__name__} {text[:80]}" if value is not None else "None"


def run_result_problem(result: RunResult) -> str:
    """What makes a RunResult unusable (a field of the wrong type), or "" for a well-formed one:
    checked before judging, so that a backend's mistake is its recorded error, not a crash."""
    import numpy as np
    if not isinstance(result.status, int) or isinstance(result.status, bool):
        return f"status {describe_returned(result.status)} is not an int"
    if not isinstance(result.storages, Mapping):
        return f"storages {describe_returned(result.storages)} is not a mapping"
    wrong = [name for name, value in result.storages.items()
             if not isinstance(name, str) or not isinstance(value, np.ndarray)]
    if wrong:
        return f"storages {wrong[:3]} are not NumPy arrays named by their parameter"
    if result.workspace_size is not None and (not isinstance(result.workspace_size, int)
                                              or isinstance(result.workspace_size, bool)):
        return f"workspace_size {describe_returned(result.workspace_size)} is not an int or None"
    for name in ("phase", "message"):
        if not isinstance(getattr(result, name), str):
            return f"{name} {describe_returned(getattr(result, name))} is not a str"
    return ""


@dataclass(frozen=True)
class CaseOutcome:
    """One case run on one product: what was expected, what came back, and the outcome."""

    outcome: Outcome
    expected: Expected
    judgement: Judgement | None    # None when the backend gave no answer
    result: RunResult | None
    detail: str
    waiver: str | None
    duration_s: float

    @property
    def judged_by(self) -> str:
        """What decided the outcome: "values", "status", "not_supported", "not_judged" or "" (no
        answer from the backend)."""
        if self.judgement is None:
            return ""
        if self.outcome == Outcome.NOT_JUDGED:
            return "not_judged"
        if self.expected.kind == "not_supported":
            return "not_supported"
        return "values" if self.judgement.values_judged else "status"

    def record(self, **base) -> OutcomeRecord:
        """The outcome record of this run; ``base`` holds the identity fields (case id, op,
        product, profile, backend, run id, origin, rule ids, seed, tier, node id, reproducer)."""
        j, result = self.judgement, self.result
        return OutcomeRecord(
            outcome=self.outcome, deciding_rule=self.expected.rule_id,
            expected=self.expected.describe(), expected_status=self.expected.status,
            phase=result.phase if result else "",
            actual_status=int(result.status) if result is not None else None,
            values_judged=bool(j and j.values_judged), standards=j.standards if j else {},
            verdicts=j.verdicts if j else {}, metrics=j.metrics if j else {}, detail=self.detail,
            message=result.message if result else "", waiver=self.waiver,
            duration_s=round(self.duration_s, 6), judged_by=self.judged_by, **base)


Execute = Callable[[Case, str], RunResult]


def run_case(backend: Backend, case: Case, product: str, profile: str,
             execute: Execute | None = None) -> CaseOutcome:
    """Run ``case`` on ``product`` and decide its outcome under ``profile``. ``execute`` replaces
    ``backend.run`` (the runner's isolation in a worker process); it is called exactly once."""
    spec = operator(case.op).spec
    expected = expected_outcome(spec, case, product, profile)
    start = time.perf_counter()
    result: RunResult | None = None
    j: Judgement | None = None
    try:
        result = (execute or backend.run)(case, product)
        if not isinstance(result, RunResult):
            raise NotARunResult(f"backend {backend.name}'s run() returned "
                                f"{describe_returned(result)}, not a RunResult")
        problem = run_result_problem(result)
        if problem:
            raise NotARunResult(f"backend {backend.name}'s run() returned a RunResult whose "
                                f"{problem}")
        j = judge(spec, case, product, profile, result)
        outcome, detail = Outcome(j.outcome), j.detail
        if expected.kind == "not_judged":  # outside the contract: neither a PASS nor a FAIL
            outcome = Outcome.NOT_JUDGED
    except BackendCrash as exc:
        outcome, detail = Outcome.CRASH, str(exc)
    except BackendTimeout as exc:
        outcome, detail = Outcome.TIMEOUT, str(exc)
    except OperatorNotImplemented as exc:
        outcome, detail = Outcome.BACKEND_UNAVAILABLE, str(exc)
    except NotARunResult as exc:
        result, outcome, detail = None, Outcome.HARNESS_ERROR, str(exc)
    except Exception:  # a backend or harness bug: never counted as conformance
        j, outcome, detail = None, Outcome.HARNESS_ERROR, traceback.format_exc(limit=6)
    duration = time.perf_counter() - start
    waiver = None
    if outcome == Outcome.FAIL:
        rules = case.rule_ids + ((expected.rule_id,) if expected.rule_id else ())
        for w in getattr(backend, "waivers", ()):
            if w.covers(rules, case.case_id, product):
                outcome, waiver = Outcome.WAIVED, f"{w.rule_id}: {w.cause}"
                break
    return CaseOutcome(outcome, expected, j, result, detail, waiver, duration)
