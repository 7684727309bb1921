"""Outcome records: one JSON line per judged case, in a versioned schema checked on write and read."""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

OUTCOME_SCHEMA = "aclnn-conformance/outcome/1"

OUTCOMES = ("PASS", "FAIL", "QUALITY_WARNING", "NOT_SUPPORTED", "WAIVED", "SKIPPED",
            "BACKEND_UNAVAILABLE", "HARNESS_ERROR", "CRASH", "TIMEOUT")
CERTIFIABLE = frozenset({"PASS", "NOT_SUPPORTED", "QUALITY_WARNING", "WAIVED"})


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
    schema: str = OUTCOME_SCHEMA

    def to_json(self) -> dict[str, Any]:
        doc = asdict(self)
        doc["rule_ids"] = list(self.rule_ids)
        validate_outcome(doc)
        return doc

    @staticmethod
    def from_json(doc: dict[str, Any]) -> "OutcomeRecord":
        validate_outcome(doc)
        doc = dict(doc)
        doc["rule_ids"] = tuple(doc.get("rule_ids", ()))
        return OutcomeRecord(**doc)


_REQUIRED = {"schema": str, "case_id": str, "op": str, "product": str, "profile": str,
             "backend": str, "outcome": str}
_TYPED = {"rule_ids": list, "standards": dict, "verdicts": dict, "metrics": dict,
          "values_judged": bool, "duration_s": (int, float), "detail": str, "reproducer": str}
_OPTIONAL_INT = ("expected_status", "actual_status", "seed")


def validate_outcome(doc: dict[str, Any]) -> None:
    """Raise RecordError naming the first field that breaks the outcome schema."""
    where = f"record {doc.get('case_id', '?')!r}"
    if not isinstance(doc, dict):
        raise RecordError(f"a record must be a JSON object, not {type(doc).__name__}")
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
    for key in _OPTIONAL_INT:
        if doc.get(key) is not None and not isinstance(doc[key], int):
            raise RecordError(f"{where}: field {key!r} must be an integer or null")
    known = set(OutcomeRecord.__dataclass_fields__)
    unknown = set(doc) - known
    if unknown:
        raise RecordError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")


class RecordWriter:
    """Appends records to one JSON-lines file (one writer per process)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = open(self.path, "a", encoding="utf-8")

    def write(self, record: OutcomeRecord) -> None:
        self._fh.write(json.dumps(record.to_json(), sort_keys=True) + "\n")
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def close(self) -> None:
        self._fh.close()


def read_records(path: str | Path) -> Iterator[OutcomeRecord]:
    """Records of a JSON-lines file; a malformed line raises RecordError with its line number."""
    with open(path, encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                yield OutcomeRecord.from_json(json.loads(line))
            except (json.JSONDecodeError, TypeError, RecordError) as exc:
                raise RecordError(f"{path}:{lineno}: {exc}") from None


def write_records(path: str | Path, records: Iterable[OutcomeRecord]) -> int:
    count = 0
    with open(path, "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec.to_json(), sort_keys=True) + "\n")
            count += 1
    return count
