"""Builders of calls, one module per operator, and the generic fault generator."""
from __future__ import annotations

import hashlib
import importlib
from types import ModuleType


def calls_module(op: str) -> ModuleType:
    """The call builders of operator ``op`` (suites.calls.<op>)."""
    return importlib.import_module(f"aclnn_conformance.suites.calls.{op}")


def drawn_case_id(kind: str, params: dict) -> str:
    """A stable id for a hypothesis-drawn call: the same draw always gets the same id."""
    return f"hyp-{kind}-" + hashlib.sha1(repr(sorted(params.items())).encode()).hexdigest()[:10]
