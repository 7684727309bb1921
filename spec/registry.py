"""The one registry of operators: every layer finds an operator's pieces here.

Three sources, read once, in this order:

1. **Convention**: every module of this package (``aclnn_conformance.spec.<name>``) that defines
   ``OPERATOR``, an ``Operator`` record.
2. **Data folders**: every ``*.json`` operator-data file (``spec.operator_data``), one folder down
   (``<family>/<key>.json``; ``values/`` holds value tables and the top level the scope, not operators), in the folders named
   by ``ACLNN_CONFORMANCE_SPEC_DATA`` (``os.pathsep``-separated) and added with ``add_data_folder``
   (the command line's ``--spec-data``), after the project's own ``spec/data/``.
3. **Entry points** of the group ``aclnn_conformance.operators``: each names an ``Operator`` (or a
   callable returning one or several), so that a third party's package registers its operators
   without editing this project.

A key or API name claimed twice is an error naming both sources. A data file is named by its
operator's key, so the keys are known from the file names and each file is read when its record is
first asked for: a run of one operator reads one file, whatever the count of the others.
"""
from __future__ import annotations

import importlib
import os
import pkgutil
from importlib.metadata import entry_points
from pathlib import Path
from typing import Iterable, Iterator, Mapping

from aclnn_conformance.spec.operator import Operator

ENTRY_POINT_GROUP = "aclnn_conformance.operators"
SPEC_DATA_ENV = "ACLNN_CONFORMANCE_SPEC_DATA"
PROJECT_DATA = Path(__file__).resolve().parent / "data"

_found: Mapping[str, Operator] | None = None
_extra_folders: list[Path] = []
_project_data: Path = PROJECT_DATA    # replaced by ``use_project_data`` (an extraction measured alone)


class RegistryError(ValueError):
    """Two operators claim one key, or a source cannot be read."""


class UnknownOperator(ValueError, KeyError):
    """No operator of that key or API name; the message says what the scope knows of the name and
    which operators are near it."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


NEAR_SHOWN = 5   # close names an unknown operator's message offers (the full list is one command away)


def add_data_folder(folder: str | Path) -> None:
    """Add a folder of operator-data files (``--spec-data``); the registry is read anew."""
    global _found
    path = Path(folder)
    if not path.is_dir():
        raise RegistryError(f"--spec-data {folder}: not a folder")
    if path.resolve() not in [p.resolve() for p in _extra_folders]:
        _extra_folders.append(path)
    _found = None


def use_project_data(folder: str | Path) -> None:
    """Read ``folder`` in place of the project's own ``spec/data/`` (``aclnn-conformance agreement``
    measuring a fresh extraction); the registry is read anew."""
    global _found, _project_data
    path = Path(folder)
    if not path.is_dir():
        raise RegistryError(f"{folder}: not a folder of operator-data files")
    _project_data = path
    _found = None
    from aclnn_conformance.spec.surface_values import use_value_folder
    use_value_folder(path / "values")   # its value tables, not the project's as well


def data_folders() -> list[Path]:
    env = [Path(p) for p in os.environ.get(SPEC_DATA_ENV, "").split(os.pathsep) if p]
    seen, out = set(), []
    for f in (_project_data, *env, *_extra_folders):
        if f.is_dir() and f.resolve() not in seen:
            seen.add(f.resolve())
            out.append(f)
    return out


def _by_convention() -> Iterator[Operator]:
    package = importlib.import_module("aclnn_conformance.spec")
    for info in sorted(pkgutil.iter_modules(package.__path__), key=lambda i: i.name):
        if info.ispkg:
            continue
        module = importlib.import_module(f"aclnn_conformance.spec.{info.name}")
        record = getattr(module, "OPERATOR", None)
        if isinstance(record, Operator):
            yield _sourced(record, f"module {module.__name__}")


def hand_specified_apis() -> set[str]:
    """The APIs a spec module of this package declares (the deep, hand-written specs): an extraction
    leaves them to it."""
    return {record.api for record in _by_convention()}


def _data_files() -> Iterator[Path]:
    """Every operator-data file of the data folders, in order: ``<folder>/<family>/<key>.json``."""
    for folder in data_folders():
        yield from sorted(p for p in folder.glob("*/*.json") if p.parent.name != "values")


def _read_data_file(path: Path) -> Operator:
    """The record of one operator-data file, which must be named by its key, the key of its API."""
    try:
        from aclnn_conformance.spec.operator_data import api_key, load_operator_file
    except ImportError:
        raise RegistryError(f"{path}: this version has no reader of operator-data files yet") from None
    record = load_operator_file(path)
    if not path.stem == record.key == api_key(record.api):
        raise RegistryError(f"data file {path}: holds {record.api} (key {record.key}); an operator-data "
                            f"file is named by its API's key: {api_key(record.api)}.json")
    return _sourced(record, f"data file {path}")


def _from_entry_points() -> Iterator[Operator]:
    for ep in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        try:
            obj = ep.load()
        except Exception as exc:  # a broken plug-in is named, never silently dropped
            raise RegistryError(f"entry point {ep.name} = {ep.value} ({ENTRY_POINT_GROUP}) does not "
                                f"load: {type(exc).__name__}: {exc}") from None
        records = obj() if callable(obj) and not isinstance(obj, Operator) else obj
        for record in [records] if isinstance(records, Operator) else list(records):
            if not isinstance(record, Operator):
                raise RegistryError(f"entry point {ep.name} = {ep.value} gives "
                                    f"{type(record).__name__}, not an Operator")
            yield _sourced(record, f"entry point {ep.name} = {ep.value}")


def _sourced(record: Operator, source: str) -> Operator:
    from dataclasses import replace
    return replace(record, source=source) if record.source != source else record


class _Found(Mapping[str, Operator]):
    """key -> record, every source, in the order found. A data file is named by its operator's key,
    so its record is read when first asked for: a run of a few operators reads their files alone,
    and iterating the keys reads none."""

    def __init__(self, records: Iterable[Operator], files: Iterable[Path],
                 later: Iterable[Operator] = ()) -> None:
        self._records: dict[str, Operator | None] = {}
        self._files: dict[str, Path] = {}
        self._sources: dict[str, str] = {}
        self._apis: dict[str, Operator] = {}   # the API of every record read
        for record in records:
            self._claim(record.key, record.source, record)
        for path in files:
            self._claim(path.stem, f"data file {path}", None)
            self._files[path.stem] = path
        for record in later:
            self._claim(record.key, record.source, record)
        for record in (r for r in self._records.values() if r is not None):
            self._claim_api(record)

    def _claim(self, key: str, source: str, record: Operator | None) -> None:
        if key in self._records:
            raise RegistryError(f"operator {key!r} is declared twice: by {self._sources[key]} and by "
                                f"{source}")
        self._records[key], self._sources[key] = record, source

    def _claim_api(self, record: Operator) -> None:
        other = self._apis.get(record.api)
        if other is not None and other is not record:
            raise RegistryError(f"operator {record.api!r} is declared twice: by {other.source} and by "
                                f"{record.source}")
        self._apis[record.api] = record

    def __getitem__(self, key: str) -> Operator:
        record = self._records[key]
        if record is None:
            record = _read_data_file(self._files[key])
            self._claim_api(record)
            self._records[key] = record
        return record

    def __contains__(self, key: object) -> bool:   # Mapping's own would read the file
        return key in self._records

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def is_data(self, key: str) -> bool:
        return key in self._files

    def files_read(self) -> tuple[int, int]:
        """(data files read so far, data files known)."""
        return sum(self._records[k] is not None for k in self._files), len(self._files)


def operators() -> Mapping[str, Operator]:
    """key -> record, every source, in the order found (a data file is read on first access)."""
    global _found
    if _found is None:
        _found = _Found(_by_convention(), _data_files(), _from_entry_points())
    return _found


def operator(name: str) -> Operator:
    """The record of an operator, by key (``apply_adam_w``) or API name (``aclnnApplyAdamW``): the
    one lookup of every command that takes an operator. An unknown name raises ``UnknownOperator``
    saying why the scope leaves a documented API uncovered, and the operators near the name."""
    found = operators()
    if name in found:
        return found[name]
    from aclnn_conformance.spec.operator_data import api_key
    key = api_key(name)   # a data file is named by its API's key: read that one file alone
    if key in found and found[key].api == name:
        return found[key]
    for record in found.values():
        if record.api == name:
            return record
    raise UnknownOperator(unknown_operator_message(name))


def operator_keys(names: str) -> tuple[str, ...]:
    """The keys of a comma-separated list of operator keys or API names (``--op``), in its order and
    once each; every unknown name is in the one ``UnknownOperator`` raised."""
    keys: list[str] = []
    problems: list[str] = []
    for name in (n.strip() for n in names.split(",")):
        if not name:
            continue
        try:
            key = operator(name).key
        except UnknownOperator as exc:
            problems.append(str(exc))
            continue
        if key not in keys:
            keys.append(key)
    if problems:
        raise UnknownOperator("; ".join(problems))
    return tuple(keys)


def scope_entry(name: str) -> dict | None:
    """The row of the data folders' ``scope.json`` (every documented API an extraction read, with
    its coverage and what is missing) whose API name or key is ``name``, if any."""
    import json
    for folder in data_folders():
        path = folder / "scope.json"
        if not path.is_file():
            continue
        for row in json.loads(path.read_text(encoding="utf-8")).get("apis", ()):
            if name in (row.get("api"), row.get("key")):
                return row
    return None


def _folded(name: str) -> str:
    """A name without case, underscores and the ``aclnn`` prefix: ``aclnnAddRelu`` and
    ``add_relu`` fold alike."""
    return name.lower().removeprefix("aclnn").replace("_", "")


def near_operators(name: str, n: int = NEAR_SHOWN) -> list[Operator]:
    """The operators whose key or API name is closest to ``name``: the same folded name first, then
    names containing it or contained in it, then the closest by spelling."""
    import difflib
    want = _folded(name)
    by_folded: dict[str, Operator] = {}
    for record in operators().values():
        for form in (record.key, record.api):
            by_folded.setdefault(_folded(form), record)
    same = [by_folded[want]] if want in by_folded else []
    inside = sorted((f for f in by_folded if want and f != want and (want in f or f in want)
                     and min(len(f), len(want)) >= 3), key=lambda f: abs(len(f) - len(want)))
    spelled = difflib.get_close_matches(want, list(by_folded), n=n, cutoff=0.75)
    out: list[Operator] = []
    for record in [*same, *(by_folded[f] for f in (*inside, *spelled))]:
        if record not in out:
            out.append(record)
    return out[:n]


def unknown_operator_message(name: str) -> str:
    """One line: ``name`` is no operator, what the scope says of it (a documented API the suite does
    not cover, and why), the operators near it and where the full list is."""
    row = scope_entry(name)
    where = "" if row is None else " ".join(p for p in (row.get("repository"), row.get("document")) if p)
    if row is None:
        what = "not an operator key or API name"
    elif row.get("status") == "not covered":
        what = (f"{row.get('api')} is documented ({where}) but this suite does not cover it: "
                + ("; ".join(row.get("missing") or ()) or "no reason recorded"))
    else:   # the scope counts it, yet no folder of the registry holds its operator-data file
        what = (f"{row.get('api')} is documented ({where}) and {row.get('status')} by an extraction, "
                f"but its operator-data file is not in the registry's folders (--spec-data)")
    near = near_operators(name)
    hint = ("; near: " + ", ".join(f"{r.key} ({r.api})" for r in near)) if near else ""
    return f"{name}: {what}{hint}; aclnn-conformance list operators lists every operator"


def is_data_operator(name: str) -> bool:
    """The operator was read from an operator-data file (the extracted surface), not a spec module."""
    found = operators()
    if isinstance(found, _Found) and name in found:   # known without reading the file
        return found.is_data(name)
    return operator(name).modules[0].startswith("data:")


def operator_of_kernel(kernel_op: str) -> Operator | None:
    """The operator whose record maps the kernel op ``kernel_op`` (a kernel-level vendor test's
    ``op_name``) onto its parameters, if any."""
    for record in operators().values():
        if record.kernel_inputs is not None and record.kernel_inputs.kernel_op == kernel_op:
            return record
    return None


def reset() -> None:
    """Read the sources again on next use (tests that install or remove a source)."""
    global _found
    _found = None
