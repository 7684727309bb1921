"""The part of the runtime's recent-error text that one call added.

``aclGetRecentErrMsg`` returns a per-thread text that reading never clears (hicann/runtime
``src/acl/aclrt_impl/acl.cpp``): a new host error is put in front of the old text with a newline,
a fault event is appended after it, and a device error message replaces the whole. A backend that
records the text with a failing status must therefore remember what it last read, per thread, and
keep only what is new.
"""
from __future__ import annotations

import threading
from typing import Callable


def added_text(before: str, after: str) -> str:
    """What ``after`` holds beyond ``before``: the lines around the old text when the old text is
    still there as whole lines, else all of ``after`` (the runtime replaced it)."""
    if not after or after == before:
        return ""
    if not before:
        return after
    end = len(after)
    found = after.rfind(before)
    while found >= 0:
        tail = found + len(before)
        if (found == 0 or after[found - 1] == "\n") and (tail == end or after[tail] == "\n"):
            parts = (after[:found].rstrip("\n"), after[tail:].lstrip("\n"))
            return "\n".join(p for p in parts if p)
        found = after.rfind(before, 0, found + len(before) - 1) if found else -1
    return after


def one_line(text: str) -> str:
    """The text's non-empty lines, stripped and joined with ' | '."""
    return " | ".join(line.strip() for line in text.splitlines() if line.strip())


class RecentErrors:
    """Reads the recent-error text and returns only what was added since this thread last read it."""

    def __init__(self, read: Callable[[], str]):
        self._read = read
        self._seen = threading.local()

    def new(self) -> str:
        """The text added since the last call on this thread, on one line ('' if nothing)."""
        text = self._read()
        before = getattr(self._seen, "text", "")
        self._seen.text = text
        return one_line(added_text(before, text))
