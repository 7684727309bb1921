"""An operator is one record: no module outside the modules a record owns names an operator in its
code. Checked with the AST over every module of the package, for every operator of the registry: its
key, its API name and its rule prefix (a data operator: its API name and rule prefix, see ``Names``),
in identifiers, imports and strings (docstrings and comments aside); and planted violations show
that the check fails."""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from aclnn_conformance.spec.registry import operators

ROOT = Path(__file__).resolve().parents[1]
PKG = "aclnn_conformance"
NOT_SHIPPED = ("tests", "benchmarks")


@dataclass(frozen=True)
class Names:
    """How one operator can be named in code.

    A hand-written record (it owns modules) is named by its key, its API name (with or without
    ``aclnn``) and its rule prefix. A data operator (an operator-data file; it owns no module, its
    ``modules`` are ``data:<path>``) is named by its API name and its rule prefix only: its key and
    its bare API name are everyday words of Python, NumPy and torch (``abs``, ``add``, ``exp``,
    ``log``, ``max``, ``Any``), so a generic module saying ``np.abs`` or ``typing.Any`` names no
    operator, whereas ``aclnnAbs`` or a rule id ``XABS-DTYPE-001`` could only mean that one."""

    key: str
    api: str
    rule_prefix: str
    data: bool = False

    def identifiers(self) -> tuple[str, ...]:
        return (self.api,) if self.data else (self.key, self.api, self.api.removeprefix("aclnn"))

    def exact_strings(self) -> tuple[str, ...]:
        return () if self.data else (self.key, self.api.removeprefix("aclnn"))


class NameIndex:
    """Every operator's names at once (hundreds of data operators): dict lookups and one regular
    expression per kind, so the check reads each node once rather than once per operator."""

    def __init__(self, names: list[Names]) -> None:
        self.identifiers = {i: n.key for n in names for i in n.identifiers()}
        self.exact = {s: n.key for n in names for s in n.exact_strings()}
        self.import_parts = {**self.identifiers, **{n.key: n.key for n in names if not n.data}}
        by_length = sorted(names, key=lambda n: -len(n.api))
        self.api_of = {n.api: n.key for n in names}
        self.api_re = re.compile("|".join(re.escape(n.api) for n in by_length))
        self.prefix_of = {n.rule_prefix: n.key for n in names}
        prefixes = sorted(self.prefix_of, key=len, reverse=True)
        self.prefix_re = re.compile(rf"(?:^|[^A-Za-z0-9])({'|'.join(map(re.escape, prefixes))})-[A-Z]+-\d")
        # a path or module named after a hand-written operator: spec/<key>.py, suites.calls.<key>
        keys = sorted((n.key for n in names if not n.data), key=len, reverse=True)
        self.path_re = re.compile(rf"(?:^|[./:])({'|'.join(map(re.escape, keys))})(?=$|[./:])")

    def in_identifier(self, name: str) -> set[str]:
        return {self.identifiers[name]} if name in self.identifiers else set()

    def in_import(self, module: str) -> set[str]:
        return {self.import_parts[p] for p in module.split(".") if p in self.import_parts}

    def in_string(self, text: str) -> set[str]:
        found = {self.exact[text]} if text in self.exact else set()
        found |= {self.api_of[m.group(0)] for m in self.api_re.finditer(text)}
        found |= {self.prefix_of[m.group(1)] for m in self.prefix_re.finditer(text)}
        found |= {m.group(1) for m in self.path_re.finditer(text)}
        return found


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def mentions(source: str, names: list[Names] | NameIndex) -> list[tuple[int, str, str]]:
    """(line, operator key, what) for every place in ``source`` that names one of the operators."""
    index = names if isinstance(names, NameIndex) else NameIndex(names)
    tree = ast.parse(source)
    docs = _docstrings(tree)
    out = []
    for node in ast.walk(tree):
        texts: list[tuple[str, str]] = []
        if isinstance(node, ast.Name):
            texts.append(("identifier", node.id))
        elif isinstance(node, ast.Attribute):
            texts.append(("identifier", node.attr))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            texts.append(("identifier", node.name))
        elif isinstance(node, ast.Import):
            texts += [("import", a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            texts += [("import", node.module or "")] + [("import", a.name) for a in node.names]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            texts.append(("string", node.value))
        for kind, text in texts:
            hits = {"identifier": index.in_identifier, "import": index.in_import,
                    "string": index.in_string}[kind](text)
            for key in sorted(hits):
                out.append((getattr(node, "lineno", 0), key, f"{kind} {text[:60]!r}"))
    return out


def names_of(records) -> list[Names]:
    return [Names(r.key, r.api, r.spec.rule_prefix, data=all(m.startswith("data:") for m in r.modules))
            for r in records]


def package_modules(root: Path) -> dict[str, Path]:
    """Module name -> file, for every module the wheel ships (setup.py's found packages)."""
    found = {}
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        top = rel.parts[0]
        if top.startswith(".") or top in NOT_SHIPPED or len(rel.parts) == 1:
            continue
        if not (root / top / "__init__.py").is_file():
            continue
        parts = rel.with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        name = ".".join(parts) if top == PKG else ".".join((PKG, *parts))
        found[name] = path
    return found


def violations(root: Path) -> list[str]:
    records = operators().values()
    index = NameIndex(names_of(records))
    owned = {m for r in records for m in r.modules}
    out = []
    for module, path in package_modules(root).items():
        if module in owned:
            continue
        for line, key, what in mentions(path.read_text(encoding="utf-8"), index):
            out.append(f"{path.relative_to(root)}:{line}: names {key} ({what})")
    return out


def test_no_generic_module_names_an_operator():
    assert len(operators()) >= 5
    found = violations(ROOT)
    assert not found, "generic modules naming an operator:\n" + "\n".join(found)


def test_every_owned_module_exists():
    """A record's module list names real modules (a typo would exempt nothing, silently)."""
    modules = package_modules(ROOT)
    missing = [f"{r.key}: {m}" for r in operators().values() for m in r.modules
               if m.startswith(PKG + ".") and m not in modules]
    assert not missing, missing


def test_a_planted_violation_is_found(tmp_path):
    """A generic module that imports an operator's spec, names its API and one of its rules fails."""
    record = next(iter(operators().values()))
    rule_id = record.spec.rules[0].id
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "__init__.py").write_text("")
    (tmp_path / "reports" / "planted.py").write_text(
        '"""A docstring may say ' + record.api + '."""\n'
        f"from aclnn_conformance.spec.{record.key} import SPEC\n"
        f"API = {record.api!r}\n"
        f"RULE = {rule_id!r}\n")
    (tmp_path / "reports" / "clean.py").write_text(
        '"""Names ' + record.api + ' only in its docstring."""\n# and ' + rule_id + " in a comment\n"
        "VALUE = 1\n")
    found = violations(tmp_path)
    assert len(found) == 3 and all(f.startswith("reports/planted.py:") for f in found), found
    assert any("import" in f for f in found) and any(record.api in f for f in found)
    assert any(rule_id in f for f in found)


def test_a_data_operator_is_named_by_its_api_and_rule_prefix(tmp_path):
    """A data operator whose key is an everyday word: ``np.<key>`` and the key as a string name
    nothing; its API name and one of its rule ids in a generic module are found."""
    data = [r for r in operators().values() if all(m.startswith("data:") for m in r.modules)]
    assert data, "the project's spec/data folder gives the registry its data operators"
    record = min(data, key=lambda r: len(r.key))    # the shortest key: the likeliest common word
    rule_id = next(r.id for r in record.spec.rules)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "__init__.py").write_text("")
    (tmp_path / "reports" / "clean.py").write_text(
        f"import numpy as np\nWORD = {record.key!r}\nf = getattr(np, WORD, None)\n")
    (tmp_path / "reports" / "planted.py").write_text(f"API = {record.api!r}\nRULE = {rule_id!r}\n")
    found = violations(tmp_path)
    assert len(found) == 2 and all(f.startswith("reports/planted.py:") for f in found), found
    assert any(record.api in f for f in found) and any(rule_id in f for f in found)
