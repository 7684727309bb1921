"""The host-code reader's package: every module is named in the package docstring (the list of
constructs per module lives beside the code), and every call back up through ``reenter`` is bound to
the function of the module its declaration names."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

import aclnn_conformance.extract.host_code as host_code
import aclnn_conformance.extract.host_code.reenter as reenter

PACKAGE = Path(host_code.__file__).resolve().parent


def test_the_package_docstring_lists_every_module():
    listed = set(re.findall(r"^- ``(\w+)``: ", host_code.__doc__, re.M))
    modules = {p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    assert listed == modules


def test_every_entry_of_reenter_is_bound_to_its_module_function():
    declared = re.findall(r"^(\w+): Callable\[\.\.\., Any\]\s+# (\w+)\.(\w+)$",
                          (PACKAGE / "reenter.py").read_text(), re.M)
    assert declared and len(declared) == len(reenter.__annotations__)
    for name, module, function in declared:
        bound = getattr(reenter, name)
        assert bound.__module__ == f"{host_code.__name__}.{module}" and bound.__name__ == function, name


def test_the_manual_renders_the_construct_list_from_the_docstring():
    import importlib.util
    pytest.importorskip("mkdocs", reason="the manual's generator (the docs extra) is not installed")
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("operator_pages", root / "docs" / "hooks" /
                                                  "operator_pages.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    page = hooks.constructs_page()
    modules = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
    assert all(f"- `{m}`:" in page for m in modules), page[:500]
    assert "``" not in page   # the docstring's literals became Markdown's
