"""The outcomes a case can come to (the taxonomy of judging/records.py). In the bottom layer, so
that the precision standards' verdicts and everything above name them alike."""
from __future__ import annotations

from enum import Enum


class Outcome(str, Enum):
    """What a case came to. A str, so that records read back from JSON compare equal to it."""

    PASS = "PASS"
    FAIL = "FAIL"
    QUALITY_WARNING = "QUALITY_WARNING"
    NOT_SUPPORTED = "NOT_SUPPORTED"
    NOT_JUDGED = "NOT_JUDGED"
    NOT_COVERED = "NOT_COVERED"
    WAIVED = "WAIVED"
    SKIPPED = "SKIPPED"
    BACKEND_UNAVAILABLE = "BACKEND_UNAVAILABLE"
    HARNESS_ERROR = "HARNESS_ERROR"
    CRASH = "CRASH"
    TIMEOUT = "TIMEOUT"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)
