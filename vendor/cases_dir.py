"""The output folder of an import: one case file per vendor case (``<op>/<case id>.json`` with its
storages beside it, the vendor block inside), and ``import.json``: what was read, what was imported,
and every thing that could not be read, with file:line and the reason."""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

from aclnn_conformance.spec.case import Case, case_to_json, load_case, save_case
from aclnn_conformance.vendor.model import VendorCase

IMPORT_SCHEMA = "aclnn-conformance/vendor-import/1"
VENDOR_KEY = "vendor"


@dataclass(frozen=True)
class Problem:
    """Something the importer could not read: where, and why (one line)."""

    where: str          # path:line
    reason: str
    case_id: str = ""   # the case it belongs to; "" for a whole test or file

    def text(self) -> str:
        return f"{self.where}: {self.reason}"


@dataclass
class ImportResult:
    """Everything one import produced."""

    cases: list[VendorCase] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)       # tests and files not imported
    files: dict[str, str] = field(default_factory=dict)         # path -> format it was read as
    roots: dict[str, str] = field(default_factory=dict)         # vendor checkout -> commit

    def extend(self, other: "ImportResult") -> None:
        self.cases += other.cases
        self.problems += other.problems
        self.files.update(other.files)
        self.roots.update(other.roots)

    def summary(self) -> str:
        ops = {c.op for c in self.cases}
        unspecified = sorted({c.op for c in self.cases if not c.has_spec})
        with_problems = sum(1 for c in self.cases if c.problems)
        no_product = sum(1 for c in self.cases if c.product is None)
        return (f"imported {len(self.cases)} case(s) of {len(ops)} operator(s) from "
                f"{len(self.files)} file(s); {len(unspecified)} operator(s) without a spec; "
                f"{with_problems} case(s) with unread parts; {len(self.problems)} test(s) or "
                f"file(s) not imported; {no_product} case(s) name no product (need --product)")


def safe_name(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text)[:180]


def case_path(out_dir: Path, vc: VendorCase) -> Path:
    return out_dir / safe_name(vc.op) / f"{safe_name(vc.case_id)}.json"


def case_key(vc: VendorCase) -> tuple[str, str]:
    """What names a case's file on any file system (case-folded): two cases with one key would
    write one file."""
    return safe_name(vc.op).casefold(), safe_name(vc.case_id).casefold()


class CasesDirError(ValueError):
    """A cases folder that cannot be written or run: the one-line reason."""


def check_out(out_dir: str | Path, overwrite: bool = False) -> None:
    """Raise CasesDirError unless ``out_dir`` can take an import: a new or empty folder, or, with
    ``overwrite``, one holding an earlier import (which the new one replaces whole)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise CasesDirError(f"--out {out_dir} is a file, not a folder")
    if not out.is_dir() or not any(out.iterdir()):
        return
    if not (out / "import.json").is_file():
        raise CasesDirError(f"--out {out_dir} holds files that are not an import; give a new or "
                            f"empty folder")
    if not overwrite:
        raise CasesDirError(f"--out {out_dir} holds an earlier import; pass --overwrite to replace "
                            f"it, or give a new folder")


def write_case(out_dir: Path, vc: VendorCase, storages: bool = True) -> Path:
    """The project's case file of ``vc`` (with its storages unless ``storages`` is false: the
    vendor block's recipes and seed rebuild them), the vendor block added."""
    path = case_path(out_dir, vc)
    if storages:
        save_case(vc.to_case(), path)
        doc = json.loads(path.read_text())
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = case_to_json(vc.to_case(draw=False))
    doc[VENDOR_KEY] = vc.to_json()
    path.write_text(json.dumps(doc, indent=1))
    return path


def read_case(path: str | Path) -> tuple[Case, VendorCase]:
    """A case file written by ``write_case``: the call (its storages from the .npz beside it, else
    drawn again from the recipes) and its vendor block."""
    path = Path(path)
    doc = json.loads(path.read_text())
    if VENDOR_KEY not in doc:
        raise ValueError(f"{path}: not an imported vendor case (no {VENDOR_KEY!r} block)")
    vc = VendorCase.from_json(doc[VENDOR_KEY])
    case = load_case(path) if path.with_suffix(".npz").exists() else vc.to_case()
    return case, vc


def case_files(cases_dir: str | Path) -> Iterator[Path]:
    """Every case file under ``cases_dir``, sorted (import.json left out)."""
    root = Path(cases_dir)
    if not root.is_dir():
        raise FileNotFoundError(f"--cases {cases_dir}: no such folder")
    for path in sorted(root.rglob("*.json")):
        if path.name != "import.json":
            yield path


def run_items(cases_dir: str | Path) -> list[tuple[Path, str | None]]:
    """Each case file of an import's folder with the product its vendor block states; CasesDirError
    (one line) for a folder that is missing or empty, is not one whole import (its import.json
    absent or listing other cases than the folder holds), or holds a case file that cannot be read."""
    root = Path(cases_dir)
    if not root.is_dir():
        raise CasesDirError(f"--cases {cases_dir}: " + ("a file, not a folder" if root.exists()
                                                         else "no such folder"))
    files = list(case_files(root))
    if not (root / "import.json").is_file():
        if not files:
            raise CasesDirError(f"--cases {cases_dir} holds no imported cases (aclnn-conformance "
                                f"import PATH... --out {cases_dir} writes them)")
        raise CasesDirError(f"--cases {cases_dir} has no import.json: not a whole import; import "
                            f"again into a new folder")
    try:
        listed = load_import(root)["cases"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CasesDirError(f"--cases {cases_dir}: its import.json cannot be read ({_why(exc)})") from None
    if not files and not listed:
        raise CasesDirError(f"--cases {cases_dir} holds no cases: its import imported none (see "
                            f"{root / 'import.json'})")
    if len(files) != len(listed):
        raise CasesDirError(f"--cases {cases_dir} holds {len(files)} case file(s) but its import.json "
                            f"lists {len(listed)}: not one whole import; import again into a new folder")
    items, bad = [], []
    for path in files:
        try:
            doc = json.loads(path.read_text())
            items.append((path, VendorCase.from_json(doc[VENDOR_KEY]).product))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            bad.append(f"{path.relative_to(root)}: {_why(exc)}")
    if bad:
        raise CasesDirError(f"--cases {cases_dir}: {len(bad)} case file(s) cannot be read "
                            f"(first: {bad[0]})")
    return items


def _why(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"no or an unknown {exc.args[0]!r}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON: {exc.msg} at line {exc.lineno}"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


def write_import(out_dir: str | Path, result: ImportResult, storages: bool = False,
                 overwrite: bool = False) -> Path:
    """Every case file and import.json, written beside ``out_dir`` and moved into it when whole, so
    that no folder ever holds part of an import (nor an earlier import's cases beside a new one)."""
    out = Path(out_dir)
    check_out(out, overwrite)
    seen: dict[tuple[str, str], str] = {}
    for vc in result.cases:       # importer._unique_ids makes keys unique; checked before writing
        if case_key(vc) in seen:
            raise ValueError(f"two cases write {case_path(out, vc)}: {seen[case_key(vc)]} and "
                             f"{vc.source}")
        seen[case_key(vc)] = vc.source
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = out.parent / f".{out.name}.importing-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        staging.mkdir()
        for vc in result.cases:
            write_case(staging, vc, storages)
        (staging / "import.json").write_text(json.dumps(import_report(result), indent=1) + "\n")
        if out.is_dir():
            earlier = out.parent / f".{out.name}.replaced-{os.getpid()}"
            out.rename(earlier)
            staging.rename(out)
            shutil.rmtree(earlier, ignore_errors=True)
        else:
            staging.rename(out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "import.json"


def import_report(result: ImportResult) -> dict[str, Any]:
    by_op: dict[str, dict[str, Any]] = {}
    for vc in result.cases:
        entry = by_op.setdefault(vc.op, {"api": vc.api, "has_spec": vc.has_spec, "cases": 0,
                                         "by_format": {}, "by_expectation": {}})
        entry["cases"] += 1
        entry["by_format"][vc.format] = entry["by_format"].get(vc.format, 0) + 1
        text = vc.expected.describe().split(" (")[0]
        entry["by_expectation"][text] = entry["by_expectation"].get(text, 0) + 1
    return {
        "schema": IMPORT_SCHEMA, "summary": result.summary(), "vendor_roots": result.roots,
        "files": result.files, "operators": dict(sorted(by_op.items())),
        "cases": [{"case_id": vc.case_id, "op": vc.op, "source": vc.source, "format": vc.format,
                   "has_spec": vc.has_spec, "expected": vc.expected.describe(),
                   "product": vc.product, "product_source": vc.product_source,
                   "unread": list(vc.problems)} for vc in result.cases],
        "not_imported": [{"where": p.where, "reason": p.reason} for p in result.problems],
    }


def load_import(cases_dir: str | Path) -> dict[str, Any]:
    return json.loads((Path(cases_dir) / "import.json").read_text())


def iter_cases(cases_dir: str | Path) -> Iterable[tuple[Path, Case, VendorCase]]:
    for path in case_files(cases_dir):
        case, vc = read_case(path)
        yield path, case, vc
