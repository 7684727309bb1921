"""Outcome records: one JSON line per judged case, in a versioned schema checked on write and read."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from aclnn_conformance.spec.outcome import Outcome

OUTCOME_SCHEMA = "aclnn-conformance/outcome/1"

# NOT_JUDGED: a call outside the contract of the profile (the spec names no expectation); it
# neither passes nor fails, so it does not stop a certification and never counts as compliance.
# NOT_COVERED (a call outside the domain a scoped spec declares) is decided by the spec alone, never
# by what the backend returned: it is no finding against the backend, so it must not fail a run, kill
# a mutant, block a certification or count as a regression. It is not conformance either: the
# compliance share leaves it out of both sides and every report shows its count.
OUTCOMES = tuple(o.value for o in Outcome)
CERTIFIABLE = frozenset({Outcome.PASS, Outcome.NOT_SUPPORTED, Outcome.NOT_JUDGED,
                         Outcome.NOT_COVERED, Outcome.QUALITY_WARNING, Outcome.WAIVED})
# Outcomes that judged nothing: a run made only of these has not tested the backend.
NOT_RUN = frozenset({Outcome.SKIPPED, Outcome.BACKEND_UNAVAILABLE})
JUDGED_BY = ("values", "status", "relation", "not_supported", "not_judged", "not_covered", "")


OPERATOR_NEED = "op:"
MEMORY_NEED = "memory"   # a case over the run's memory budget (--max-case-bytes): never attempted


def wanting(outcome: str, needs: tuple[str, ...]) -> tuple[str, ...]:
    """What a record was SKIPPED for want of (an optional package such as torch, or memory past the
    budget), or () for any other record: such a skip is named, never failed and never certified."""
    if outcome != Outcome.SKIPPED:
        return ()
    return tuple(n for n in needs if not n.startswith(OPERATOR_NEED))


class RecordError(ValueError):
    """A record that does not follow its schema."""


@dataclass(frozen=True)
class OutcomeRecord:
    case_id: str
    op: str
    product: str
    profile: str
    backend: str
    outcome: str
    backend_version: str = ""
    run_id: str = ""
    origin: str = ""
    rule_ids: tuple[str, ...] = ()        # the rules the case exercises
    deciding_rule: str | None = None      # the check rule that decides the expected status
    expected: str = ""                    # the expectation, in words
    expected_status: int | None = None
    actual_status: int | None = None
    phase: str = ""
    values_judged: bool = False
    standards: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, str] = field(default_factory=dict)
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    detail: str = ""
    message: str = ""                     # the backend's own error text
    waiver: str | None = None
    seed: int | None = None
    tier: str = ""
    nodeid: str = ""
    reproducer: str = ""
    case_file: str | None = None
    duration_s: float = 0.0
    judged_by: str = ""                   # one of JUDGED_BY: what decided the outcome
    failing_examples: int = 0             # hypothesis: distinct failing examples tried while shrinking
    first_failing_example: str = ""       # hypothesis: the case id of the first failure found
    vendor_source: str = ""               # an imported vendor case: its file and line (or #id)
    vendor_expected: str = ""             # an imported vendor case: what the vendor's file expects
    vendor_agrees: bool | None = None     # the spec's expectation equals the vendor's (None: no exact one)
    draws: int = 1                        # hypothesis: how often its test drew this case (one record)
    call: str = ""                        # not certifiable: the call in words (tensors, attributes)
    stands_for: int = 1                   # NOT_COVERED: how many calls of its case family it counts
    # what the case needs beyond the backend: optional packages or memory past the budget (SKIPPED
    # without them) and, for a test chaining several operators, the others it calls (OPERATOR_NEED)
    needs: tuple[str, ...] = ()
    schema: str = OUTCOME_SCHEMA

    def __post_init__(self) -> None:
        # an Outcome member is kept as its plain value: records cross process boundaries
        object.__setattr__(self, "outcome", str(self.outcome))

    def to_json(self) -> dict[str, Any]:
        # a shallow copy: the nested dicts are plain JSON data already (asdict would deep-copy them)
        doc = {name: getattr(self, name) for name in _OUTCOME_FIELDS}
        doc["rule_ids"] = list(self.rule_ids)
        doc["needs"] = list(self.needs)
        validate_outcome(doc)
        return doc

    @staticmethod
    def from_json(doc: dict[str, Any]) -> "OutcomeRecord":
        validate_outcome(doc)
        doc = dict(doc)
        doc["rule_ids"] = tuple(doc.get("rule_ids", ()))
        doc["needs"] = tuple(doc.get("needs", ()))
        return OutcomeRecord(**doc)


_OUTCOME_FIELDS = tuple(OutcomeRecord.__dataclass_fields__)
_REQUIRED = {"schema": str, "case_id": str, "op": str, "product": str, "profile": str,
             "backend": str, "outcome": str}
_TYPED = {"rule_ids": list, "standards": dict, "verdicts": dict, "metrics": dict,
          "values_judged": bool, "duration_s": (int, float), "detail": str, "reproducer": str,
          "judged_by": str, "failing_examples": int, "first_failing_example": str,
          "vendor_source": str, "vendor_expected": str,
          "draws": int, "stands_for": int, "call": str, "needs": list}
_OPTIONAL_INT = ("expected_status", "actual_status", "seed")


def validate_outcome(doc: dict[str, Any]) -> None:
    """Raise RecordError naming the first field that breaks the outcome schema."""
    if not isinstance(doc, dict):
        raise RecordError(f"a record must be a JSON object, not {type(doc).__name__}")
    where = f"record {doc.get('case_id', '?')!r}"
    for key, typ in _REQUIRED.items():
        if key not in doc:
            raise RecordError(f"{where}: missing field {key!r}")
        if not isinstance(doc[key], typ) or not doc[key]:
            raise RecordError(f"{where}: field {key!r} must be a non-empty {typ.__name__}")
    if doc["schema"] != OUTCOME_SCHEMA:
        raise RecordError(f"{where}: schema {doc['schema']!r}, this reader knows {OUTCOME_SCHEMA!r}")
    if doc["outcome"] not in OUTCOMES:
        raise RecordError(f"{where}: outcome {doc['outcome']!r} is not one of {', '.join(OUTCOMES)}")
    for key, typ in _TYPED.items():
        if key in doc and not isinstance(doc[key], typ):
            raise RecordError(f"{where}: field {key!r} has type {type(doc[key]).__name__}")
    if doc.get("judged_by", "") not in JUDGED_BY:
        raise RecordError(f"{where}: judged_by {doc['judged_by']!r} is not one of "
                          f"{', '.join(map(repr, JUDGED_BY))}")
    if doc.get("vendor_agrees") is not None and not isinstance(doc["vendor_agrees"], bool):
        raise RecordError(f"{where}: field 'vendor_agrees' must be true, false or null")
    for key in _OPTIONAL_INT:
        if doc.get(key) is not None and (not isinstance(doc[key], int) or isinstance(doc[key], bool)):
            raise RecordError(f"{where}: field {key!r} must be an integer or null")
    unknown = set(doc).difference(_OUTCOME_FIELDS)
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")


class RecordWriter:
    """Appends records to one JSON-lines file (one writer per process).

    Each record is flushed to the operating system as it is written, so a process that dies
    (a crashing backend, a killed worker) loses none of the records before it; the file is synced
    to disk once, on close (a sync per record costs milliseconds per case and protects only
    against the machine itself going down).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, record: OutcomeRecord) -> None:
        self._fh.write(json.dumps(record.to_json(), sort_keys=True) + "\n")
        self._fh.flush()

    def close(self) -> None:
        if self._fh.closed:
            return
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._fh.close()


def read_records(path: str | Path, partial_tail: bool = False) -> Iterator[OutcomeRecord]:
    """Records of a JSON-lines file; a malformed line raises RecordError with its line number.

    ``partial_tail``: a last line without its newline that does not parse is skipped (a shard
    whose writer was killed mid-record); anywhere else it is an error like any other."""
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                if partial_tail and not raw.endswith(b"\n"):
                    return
                raise RecordError(f"{path}:{lineno}: not UTF-8 text") from None
            if not line.strip():
                continue
            try:
                yield OutcomeRecord.from_json(json.loads(line))
            except (json.JSONDecodeError, TypeError, RecordError) as exc:
                if partial_tail and not line.endswith("\n"):
                    return
                raise RecordError(f"{path}:{lineno}: {exc}") from None


def write_records(path: str | Path, records: Iterable[OutcomeRecord]) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec.to_json(), sort_keys=True) + "\n")
            count += 1
    return count


# ---- the run record: one per run, <report-dir>/run.json ----

RUN_SCHEMA = "aclnn-conformance/run/1"


@dataclass(frozen=True)
class RunRecord:
    """What one run was: suite, backend, options, environment, and whether it ran to the end.

    It is written when the run starts with ``complete`` false and rewritten when it ends; a run that
    was interrupted, stopped by -x/--maxfail or killed keeps ``complete`` false (``stopped_early``
    and ``stop_reason`` say why when the session could still tell).
    """

    run_id: str
    suite_version: str
    suite_commit: str                     # 40-hex commit, or "unknown"
    backend: str
    backend_version: str
    products: tuple[str, ...]
    profile: str
    tier: str
    started: str                          # ISO 8601, UTC
    suite_dirty: bool | None = None       # uncommitted changes in the suite's checkout
    hypothesis: dict[str, Any] = field(default_factory=dict)   # profile, max_examples, derandomize, seed
    versions: dict[str, str] = field(default_factory=dict)     # python, numpy, ml_dtypes, pandas, ...
    cann_version: str | None = None       # from the backend's environment(), where it exposes one
    soc_name: str | None = None
    backend_environment: dict[str, Any] = field(default_factory=dict)  # everything environment() said
    platform: str = ""
    workers: int = 0                      # pytest-xdist workers (0: in process)
    command: tuple[str, ...] = ()
    cwd: str = ""
    finished: str | None = None
    complete: bool = False
    stopped_early: bool = False
    stop_reason: str = ""
    exit_status: int | None = None
    collected: int | None = None          # test items collected (after -k/-m selection)
    items_finished: int | None = None     # test items that ran to their end (or crashed)
    unrecorded: tuple[str, ...] = ()      # conformance items that ended without any record
    records_written: int | None = None    # the records the run wrote (records.jsonl's line count)
    skipped: tuple[str, ...] = ()         # "nodeid: reason" of tests pytest skipped with no record
    # one shard of a run split across machines: {"plugin", "group" (1-based), "splits", "algorithm"}
    shard: dict[str, Any] | None = None
    schema: str = RUN_SCHEMA

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["products"] = list(self.products)
        doc["command"] = list(self.command)
        doc["unrecorded"] = list(self.unrecorded)
        doc["skipped"] = list(self.skipped)
        validate_run(doc)
        return doc

    @staticmethod
    def from_json(doc: dict[str, Any]) -> "RunRecord":
        validate_run(doc)
        doc = dict(doc)
        doc["products"] = tuple(doc["products"])
        doc["command"] = tuple(doc.get("command", ()))
        doc["unrecorded"] = tuple(doc.get("unrecorded", ()))
        doc["skipped"] = tuple(doc.get("skipped", ()))
        return RunRecord(**doc)


_RUN_REQUIRED = {"schema": str, "run_id": str, "suite_version": str, "suite_commit": str,
                 "backend": str, "backend_version": str, "products": list, "profile": str,
                 "tier": str, "started": str, "complete": bool}
_RUN_TYPED = {"hypothesis": dict, "versions": dict, "backend_environment": dict, "platform": str,
              "workers": int, "command": list, "cwd": str, "stopped_early": bool,
              "stop_reason": str, "suite_dirty": (bool, type(None)),
              "cann_version": (str, type(None)), "soc_name": (str, type(None)),
              "finished": (str, type(None)), "exit_status": (int, type(None)),
              "collected": (int, type(None)), "items_finished": (int, type(None)),
              "unrecorded": list, "records_written": (int, type(None)), "skipped": list,
              "shard": (dict, type(None))}


def _type_name(typ) -> str:
    names = [t.__name__ for t in (typ if isinstance(typ, tuple) else (typ,))]
    return " or ".join("null" if n == "NoneType" else n for n in names)


def validate_run(doc: dict[str, Any]) -> None:
    """Raise RecordError naming the first field that breaks the run schema."""
    if not isinstance(doc, dict):
        raise RecordError(f"a run record must be a JSON object, not {type(doc).__name__}")
    where = f"run record {doc.get('run_id', '?')!r}"
    for key, typ in _RUN_REQUIRED.items():
        if key not in doc:
            raise RecordError(f"{where}: missing field {key!r}")
        value = doc[key]
        if not isinstance(value, typ) or (typ is str and not value):
            raise RecordError(f"{where}: field {key!r} must be a non-empty {typ.__name__}")
    if doc["schema"] != RUN_SCHEMA:
        raise RecordError(f"{where}: schema {doc['schema']!r}, this reader knows {RUN_SCHEMA!r}")
    for key, typ in _RUN_TYPED.items():
        if key in doc and (not isinstance(doc[key], typ) or isinstance(doc[key], bool)
                           and typ is int):
            raise RecordError(f"{where}: field {key!r} must be {_type_name(typ)}, "
                              f"not {type(doc[key]).__name__}")
    if not doc["products"] or not all(isinstance(p, str) and p for p in doc["products"]):
        raise RecordError(f"{where}: field 'products' must list product ids")
    if not all(isinstance(a, str) for a in doc.get("command", [])):
        raise RecordError(f"{where}: field 'command' must list strings")
    if doc["complete"] and (doc.get("finished") is None or doc.get("stopped_early")):
        raise RecordError(f"{where}: field 'complete' is true but the run has no 'finished' time "
                          f"or stopped early")
    known = set(RunRecord.__dataclass_fields__)
    unknown = set(doc) - known
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")


def write_run(path: str | Path, run: RunRecord) -> Path:
    """Write (or rewrite) a run record atomically: readers never see half a file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(run.to_json(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def read_run(path: str | Path) -> RunRecord:
    try:
        doc = json.loads(Path(path).read_text(encoding="utf-8"))
        return RunRecord.from_json(doc)
    except (json.JSONDecodeError, UnicodeDecodeError, TypeError, RecordError) as exc:
        raise RecordError(f"{path}: {exc}") from None
