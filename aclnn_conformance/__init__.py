"""aclnn-conformance: a conformance suite and validation harness for Huawei CANN aclnn operators.

Installed, the subpackages (spec, oracle, backends, suites, reports) sit inside this package. In a
checkout they sit beside this folder at the repository's top, as the project's layout keeps them, and
this package's search path reaches them there.
"""
from __future__ import annotations

from pathlib import Path

_checkout = Path(__file__).resolve().parent.parent
if (_checkout / "pyproject.toml").is_file() and (_checkout / "spec" / "__init__.py").is_file():
    __path__.append(str(_checkout))  # type: ignore[name-defined]  # a package's __path__ is a list
