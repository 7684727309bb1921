"""An operator is one record: no module outside the modules a record owns names an operator in its
code. Checked with the AST over every module of the package, for every operator of the registry: its
key, its API name and its rule prefix, in identifiers, imports and strings (docstrings and comments
aside); and a planted violation shows that the check fails."""
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
    """How one operator can be named in code."""

    key: str
    api: str
    rule_prefix: str

    def in_identifier(self, name: str) -> bool:
        return name == self.key or name == self.api or name == self.api.removeprefix("aclnn")

    def in_import(self, module: str) -> bool:
        return self.key in module.split(".") or any(self.in_identifier(p) for p in module.split("."))

    def in_string(self, text: str) -> bool:
        if self.api in text or text == self.key or text == self.api.removeprefix("aclnn"):
            return True
        if re.search(rf"(^|[^A-Za-z0-9]){re.escape(self.rule_prefix)}-[A-Z]+-\d", text):
            return True
        # a path or module named after the operator: spec/<key>.py, suites.calls.<key>
        return re.search(rf"(^|[./:]){re.escape(self.key)}($|[./:])", text) is not None


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = getattr(node, "body", [])
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def mentions(source: str, names: list[Names]) -> list[tuple[int, str, str]]:
    """(line, operator key, what) for every place in ``source`` that names one of the operators."""
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
            for n in names:
                hit = {"identifier": n.in_identifier, "import": n.in_import,
                       "string": n.in_string}[kind](text)
                if hit:
                    out.append((getattr(node, "lineno", 0), n.key, f"{kind} {text[:60]!r}"))
    return out


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
    names = [Names(r.key, r.api, r.spec.rule_prefix) for r in records]
    owned = {m for r in records for m in r.modules}
    out = []
    for module, path in package_modules(root).items():
        if module in owned:
            continue
        for line, key, what in mentions(path.read_text(encoding="utf-8"), names):
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
