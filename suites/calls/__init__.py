"""Builders of calls, one module per operator, and the generic fault generator."""
from __future__ import annotations

import importlib
from types import ModuleType


def calls_module(op: str) -> ModuleType:
    """The call builders of operator ``op`` (suites.calls.<op>)."""
    return importlib.import_module(f"suites.calls.{op}")
