"""``aclnn-conformance import PATH... --out CASES_DIR``: files or folders, each file's format
recognised by its content (gtest unit test, CSV-driven unit-test table, ATK json, TTK csv)."""
from __future__ import annotations

import json
import os
import subprocess
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from aclnn_conformance.vendor import atk, gtest, gtest_csv, ttk
from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.vendor.soc import STUB_PLATFORMS, harness_default
from aclnn_conformance.spec.registry import RegistryError

SUFFIXES = (".cpp", ".cc", ".json", ".csv")


def vendor_root(path: Path) -> Path | None:
    """The vendor checkout a file lies in: the nearest folder above it with .git or the unit-test
    harness's stub platform."""
    for folder in path.resolve().parents:
        if (folder / ".git").exists() or any((folder / stub).exists() for stub in STUB_PLATFORMS):
            return folder
    return None


def commit_of(root: Path) -> str:
    try:
        done = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                              text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return done.stdout.strip() or "unknown"


def display_path(path: Path, root: Path | None) -> str:
    """The path cited in a case's source: <checkout name>/<path inside it>, else as given."""
    if root is None:
        return str(path)
    return f"{root.name}/{path.resolve().relative_to(root).as_posix()}"


def collect(paths: list[str | Path]) -> tuple[list[Path], list[Problem]]:
    files, problems = [], []
    for given in paths:
        p = Path(given)
        if p.is_dir():
            files += sorted(f for f in p.rglob("*") if f.suffix in SUFFIXES and f.is_file()
                            and ".git" not in f.parts)
        elif p.is_file():
            files.append(p)
        else:
            problems.append(Problem(str(given), "no such file or folder"))
    return files, problems


# the vendor's name of an ATK file (tests/st/aclnnX/atk_aclnnX.json): listed when it holds no case
ATK_FILE_PREFIX = "atk_"


def _no_format(path: Path, display: str, text: str, named: bool) -> ImportResult:
    """What a file read as no vendor format says: nothing for a file met in a folder (most of a
    checkout is no test), the reason for a file named itself or named as an ATK file."""
    if not (named or (path.suffix == ".json" and path.name.startswith(ATK_FILE_PREFIX))):
        return ImportResult()
    if not text.strip():
        why = "the file is empty"
    elif path.suffix == ".json":
        try:
            json.loads(text)
            why = "holds no ATK case (no \"aclnn_name\" and \"inputs\")"
        except json.JSONDecodeError as exc:
            return ImportResult(problems=[Problem(f"{display}:{exc.lineno}",
                                                  f"not valid JSON: {exc.msg}")])
    else:
        why = ("not a vendor case file this reader knows (a gtest op_api unit test, its CSV "
               "table, ATK json, TTK csv)")
    return ImportResult(problems=[Problem(f"{display}:1", why)])


def read_file(path: Path, named: bool = False) -> ImportResult:
    """One file, in whatever vendor format its content shows (for none, _no_format)."""
    root = vendor_root(path)
    display = display_path(path, root)
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        return ImportResult(problems=[Problem(display, f"cannot read: {exc.strerror or exc}")])
    parts = Path(display).parts
    if path.suffix in (".cpp", ".cc") and gtest.looks_like_gtest(text):
        product, source = _harness(root)
        return gtest.read_gtest(path, display, product, source, text)
    if path.suffix == ".csv" and gtest_csv.looks_like_ut_csv(text):
        product, source = _harness(root)
        return gtest_csv.read_ut_csv(path, display, product, source, text)
    if path.suffix == ".csv" and ttk.looks_like_ttk(text):
        return ttk.read_ttk(path, display, text)
    if path.suffix == ".json" and atk.looks_like_atk(text):
        if "arch35" in parts:
            product, source = "ascend950", "the arch35 folder (Ascend 950, DAV_3510)"
        elif path.name.startswith("arch22_"):
            product, source = "atlas-a2", "the arch22_ file prefix (DAV_2201: Atlas A2 and A3)"
        else:
            product, source = None, "the ATK file names no product (not under arch35)"
        return atk.read_atk(path, display, product, source, text)
    return _no_format(path, display, text, named)


_HARNESS_CACHE: dict[Path | None, tuple[str | None, str]] = {}


def _harness(root: Path | None) -> tuple[str | None, str]:
    if root not in _HARNESS_CACHE:
        _HARNESS_CACHE[root] = (harness_default(root) if root is not None else
                                (None, "the file lies in no vendor checkout with a unit-test harness"))
    return _HARNESS_CACHE[root]


def _read_many(paths: list[Path], named: frozenset[Path] = frozenset()) -> ImportResult:
    out = ImportResult()
    for path in paths:
        try:
            out.extend(read_file(path, path in named))
        except RegistryError:   # the operator records cannot be read: not one file's problem
            raise
        except Exception as exc:  # one unreadable file never stops the import: it is listed
            out.problems.append(Problem(f"{display_path(path, vendor_root(path))}:1",
                                        f"cannot read the file ({type(exc).__name__}: "
                                        f"{str(exc)[:100]})"))
    return out


def import_paths(paths: list[str | Path], jobs: int | None = None) -> ImportResult:
    """Every vendor case under ``paths``; files in ``jobs`` processes (default: the CPUs, at most 2
    per the CI budget when unset)."""
    files, problems = collect(paths)
    named = {Path(p) for p in paths if Path(p).is_file()}   # each must hold a format, or say why not
    result = ImportResult(problems=list(problems))
    jobs = jobs or min(2, os.cpu_count() or 1)
    if jobs > 1 and len(files) > 8:
        chunks = [files[k::jobs * 4] for k in range(jobs * 4)]
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(_read_many, chunks, [frozenset(named)] * len(chunks)):
                result.extend(part)
        order = {str(f): n for n, f in enumerate(files)}
        result.cases.sort(key=lambda c: (c.source.rsplit(":", 1)[0], _line(c.source)))
        del order
    else:
        result.extend(_read_many(files, frozenset(named)))
    for root in sorted({vendor_root(f) for f in files} - {None}):
        result.roots[root.name] = commit_of(root)
    _unique_ids(result)
    return result


def _line(source: str) -> int:
    tail = source.rsplit(":", 1)[-1].rsplit("#", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _unique_ids(result: ImportResult) -> None:
    """Case ids unique within each operator, and so case files that cannot collide: a repeat gets
    its source file's stem in front and its line behind; one still repeated (the same test file
    in a checkout's main and experimental trees) the folders that set its source apart; and any
    name still shared (a case-folding file system, a name cut at its length) a counter."""
    from dataclasses import replace
    from aclnn_conformance.vendor.cases_dir import case_key
    cases = result.cases
    ids = _qualified(cases, [vc.case_id for vc in cases],
                     lambda k: f"{_source_file(cases[k].source).stem}.{cases[k].case_id}."
                               f"L{_line(cases[k].source)}")
    first = list(ids)
    groups: dict[tuple[str, str], list[int]] = {}
    for k, vc in enumerate(cases):
        groups.setdefault((vc.op, first[k]), []).append(k)
    ids = _qualified(cases, first, lambda k: ".".join(
        [*_apart(k, cases, groups[(cases[k].op, first[k])]), first[k]]))
    taken: set[tuple[str, str]] = set()
    fixed = []
    for vc, case_id in zip(result.cases, ids):
        vc = replace(vc, case_id=case_id)
        n = 1
        while case_key(vc) in taken:
            n += 1
            vc = replace(vc, case_id=f"{case_id}~{n}")
        taken.add(case_key(vc))
        fixed.append(vc)
    result.cases = fixed


def _source_file(source: str) -> Path:
    return Path(source.rsplit(":", 1)[0].split("#")[0])


def _qualified(cases: list, ids: list[str], longer) -> list[str]:
    """``ids``, each replaced by ``longer(index)`` where another case of its operator has it too."""
    seen: dict[tuple[str, str], int] = {}
    for vc, case_id in zip(cases, ids):
        seen[(vc.op, case_id)] = seen.get((vc.op, case_id), 0) + 1
    return [longer(k) if seen[(vc.op, case_id)] > 1 else case_id
            for k, (vc, case_id) in enumerate(zip(cases, ids))]


def _apart(k: int, cases: list, group: list[int]) -> list[str]:
    """The folders of case ``k``'s source that the sources of the others in its ``group`` (the
    cases with its id) lack (the ``experimental`` of a file both trees of a checkout hold), in the
    order of its path."""
    mine = _source_file(cases[k].source).parent.parts
    others = [set(_source_file(cases[o].source).parent.parts) for o in group
              if cases[o].source != cases[k].source]
    common = set.intersection(*others) if others else set(mine)
    return [part for part in mine if part not in common]


def cli_import(paths: list[str], out: str, storages: bool = False, jobs: int | None = None,
               overwrite: bool = False) -> int:
    """The import command: 0 when something was imported, 2 when nothing was (or a path is
    missing, or the options or --out cannot be used: one line); what could not be read is in
    import.json and counted in the summary line."""
    import sys
    from aclnn_conformance.vendor.cases_dir import CasesDirError, check_out, write_import
    if jobs is not None and jobs < 1:
        print(f"error: --jobs {jobs}: give a positive number of processes", file=sys.stderr)
        return 2
    try:
        check_out(out, overwrite)     # before reading: a used --out is refused at once
        result = import_paths(paths, jobs)
        target = write_import(out, result, storages, overwrite)
    except (CasesDirError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for problem in result.problems[:20]:
        print(f"not imported: {problem.text()}", file=sys.stderr)
    if len(result.problems) > 20:
        print(f"... {len(result.problems) - 20} more in {target}", file=sys.stderr)
    print(result.summary() + f"; details in {target}")
    missing = [p for p in result.problems if p.reason == "no such file or folder"]
    return 2 if missing or not result.cases else 0
