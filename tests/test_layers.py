"""The project's layers: each package imports only the ones below it, and no modules import each other
in a circle (imports inside functions count: they are cycles deferred, not removed). ``reports/``
reaches the suites' cases only through the operator records, never by importing ``suites/``; and no
generic module of ``backends/`` imports an operator's own module (it gets every piece through the
registry)."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = "aclnn_conformance"
# bottom to top: a package may import itself and those before it, except as NOT_BELOW says
LAYERS = ("spec", "oracle", "backends", "judging", "vendor", "extract", "suites", "reports", "plugin",
          "cli")
# layers that sit above another without importing it
NOT_BELOW = {"reports": {"suites"}}
# modules every layer may import: they import no module of the project, so they sit below all of it
# (extract/syntax.py, the C++ syntax tree, is read by the vendor's unit-test importer too)
BELOW_EVERY_LAYER = {f"{PKG}.extract.syntax"}


def _modules() -> dict[str, Path]:
    found = {f"{PKG}.{p.stem}": p for p in (ROOT / PKG).glob("*.py") if p.stem != "__init__"}
    for layer in LAYERS:
        folder = ROOT / layer
        if not folder.is_dir():
            continue
        for path in folder.rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join((PKG, *parts[:-1])) if parts[-1] == "__init__" else ".".join((PKG, *parts))
            found[name] = path
    return found


def _imports(path: Path, name: str) -> set[str]:
    out = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in out if m.startswith(PKG + ".")}


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    return {name: {m for m in _imports(path, name) if m in mods and m != name}
            for name, path in mods.items()}


def _layer(module: str) -> str:
    return module.split(".")[1]


def _reaches_up(a: str, b: str) -> bool:
    if b in BELOW_EVERY_LAYER:
        return False
    return (LAYERS.index(_layer(b)) > LAYERS.index(_layer(a))
            or _layer(b) in NOT_BELOW.get(_layer(a), ()))


def test_each_package_imports_only_the_layers_below_it():
    wrong = sorted(f"{a} -> {b}" for a, deps in _graph().items() for b in deps if _reaches_up(a, b))
    assert not wrong, "imports that reach up a layer:\n" + "\n".join(wrong)


def test_reports_never_import_the_suites():
    """The permission is gone, and a planted import would be caught."""
    assert _reaches_up(f"{PKG}.reports.mutate", f"{PKG}.suites.calls")
    wrong = sorted(f"{a} -> {b}" for a, deps in _graph().items() for b in deps
                   if _layer(a) == "reports" and _layer(b) == "suites")
    assert not wrong, "reports import the suites:\n" + "\n".join(wrong)


def _owned_modules() -> dict[str, str]:
    from aclnn_conformance.spec.registry import operators
    return {module: key for key, record in operators().items() for module in record.modules}


def test_generic_backends_import_no_operator_module():
    """A generic module of backends/ (the emulator's protocol, the call layer, the aclnn backend,
    the doctor, the registry of mutants) gets an operator's pieces through the registry only; an
    operator's own backend modules import only their own operator's modules."""
    owned = _owned_modules()
    wrong = []
    for module, deps in _graph().items():
        if _layer(module) != "backends":
            continue
        for dep in deps:
            if dep in owned and owned.get(module) != owned[dep]:
                wrong.append(f"{module} -> {dep} ({owned[dep]})")
    assert not wrong, "backends modules importing another operator's module:\n" + "\n".join(wrong)


def test_no_import_cycle_between_modules():
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append(stack[stack.index(dep):] + [dep] if dep in stack else [node, dep])
            elif dep not in state:
                visit(dep, stack + [dep])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    # a package's __init__ importing its own submodules is how a package exposes them, not a cycle
    cycles = [c for c in cycles
              if not any(a.rpartition(".")[0] == b or b.rpartition(".")[0] == a
                         for a, b in zip(c, c[1:]))]
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_layers_are_all_there():
    assert {_layer(m) for m in _modules()} == set(LAYERS)


def test_the_modules_below_every_layer_import_no_module_of_the_project():
    graph = _graph()
    assert BELOW_EVERY_LAYER <= set(graph)
    assert {m: graph[m] for m in BELOW_EVERY_LAYER if graph[m]} == {}
    assert not _reaches_up(f"{PKG}.vendor.gtest", f"{PKG}.extract.syntax")
    assert _reaches_up(f"{PKG}.vendor.gtest", f"{PKG}.extract.cpp")
