"""hicann/opbase beside a vendor checkout: the functions a checkout only declares (``OPBASE_API`` in its
common headers) are defined there, and the checkout names the opbase commit it builds with
(``cmake/third_party/opbase.cmake``: ``set(OPBASE_TAG_ID <commit>)``).

An opbase checkout is recognised by its ``src/op_common`` and ``src/nnopbase`` folders; its commit is
git's (``HEAD`` of a git checkout whose top folder it is), else unknown. Each vendor checkout reads the
opbase given at the commit it names, else the first given, with a notice saying the two commits."""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from aclnn_conformance.extract.cpp import Function, SourceFile, read_source

OPBASE_REPOSITORY = "hicann/opbase"
NAMED_AT = "cmake/third_party/opbase.cmake"
_LAYOUT = ("src/op_common", "src/nnopbase")


class OpbaseError(ValueError):
    """A folder that is not an opbase checkout."""


@dataclass(frozen=True)
class Citation:
    """A line of a repository at a commit (a rule's citation)."""
    repository: str
    commit: str
    path: str
    line: int

    def as_dict(self) -> dict[str, str | int]:
        return {"repository": self.repository, "commit": self.commit, "path": self.path, "line": self.line}


@dataclass(frozen=True)
class NamedCommit:
    """The opbase commit a vendor checkout builds with, and where it says so."""
    commit: str
    path: str
    line: int


@dataclass(frozen=True)
class Opbase:
    root: Path
    commit: str   # "" when the folder is no git checkout of its own


@dataclass(frozen=True)
class OpbaseChoice:
    """The opbase a vendor checkout reads, what it names, and the notice when the two differ."""
    opbase: Opbase
    named: NamedCommit | None
    notice: str | None

    def provenance(self) -> dict[str, str]:
        out = {"repository": OPBASE_REPOSITORY, "commit": self.opbase.commit}
        if self.named is not None:
            out["named"] = self.named.commit
        if self.notice is not None:
            out["notice"] = self.notice
        return out


def git_head(root: Path) -> str:
    """``HEAD`` of the git checkout whose top folder is ``root``; "" otherwise (an unpacked archive
    inside another repository must not take that repository's commit)."""
    try:
        run = subprocess.run(["git", "-C", str(root), "rev-parse", "--show-toplevel", "HEAD"],
                             capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = run.stdout.split()
    if run.returncode != 0 or len(lines) != 2 or Path(lines[0]).resolve() != root.resolve():
        return ""
    return lines[1]


def open_opbase(path: str | Path) -> Opbase:
    root = Path(path)
    if not all((root / folder).is_dir() for folder in _LAYOUT):
        raise OpbaseError(f"{path}: no {' and '.join(_LAYOUT)} folders: not an opbase checkout")
    return Opbase(root, git_head(root))


def named_commit(checkout_root: Path) -> NamedCommit | None:
    """The ``OPBASE_TAG_ID`` the checkout's cmake sets, or None when it names none."""
    path = checkout_root / NAMED_AT
    if not path.is_file():
        return None
    for n, text in enumerate(path.read_text(errors="replace").splitlines(), 1):
        m = re.match(r"\s*set\s*\(\s*OPBASE_TAG_ID\s+([0-9a-fA-F]{7,40})\s*\)", text)
        if m:
            return NamedCommit(m.group(1).lower(), NAMED_AT, n)
    return None


def choose_opbase(checkout_root: Path, repository: str, given: list[Opbase]) -> OpbaseChoice | None:
    """The opbase at the commit the checkout names, else the first given (with a notice); None when
    none is given."""
    if not given:
        return None
    named = named_commit(checkout_root)
    if named is None:
        return OpbaseChoice(given[0], None, None)
    for opbase in given:
        if opbase.commit and opbase.commit.startswith(named.commit):
            return OpbaseChoice(opbase, named, None)
    chosen = given[0]
    notice = (f"{repository} names opbase {named.commit[:12]} ({named.path}:{named.line}); the opbase read "
              f"is at {chosen.commit[:12] or 'an unknown commit'}")
    return OpbaseChoice(chosen, named, notice)


@lru_cache(maxsize=16)
def opbase_declarations(checkout_root: Path) -> frozenset[str]:
    """The functions the checkout's common headers declare ``OPBASE_API`` (opbase defines them)."""
    declaration = re.compile(r"\bOPBASE_API\b[^;{}()]*?\b(\w+)\s*\([^;{}]*\)\s*;")
    headers = sorted((checkout_root / "common").rglob("*.h")) if (checkout_root / "common").is_dir() else []
    return frozenset(m.group(1) for h in headers for m in declaration.finditer(h.read_text(errors="replace")))


class OpbaseSource:
    """The function definitions of an opbase checkout's ``src/`` (tests aside), found by name on first
    use; every line read is cited in hicann/opbase at its commit."""

    def __init__(self, opbase: Opbase):
        self.opbase = opbase
        self._found: dict[str, tuple[SourceFile, Function] | None] = {}

    def definition(self, name: str) -> tuple[SourceFile, Function] | None:
        """The one definition of ``name`` (None when there is none, or two)."""
        if name not in self._found:
            found = []
            called = re.compile(rf"\b{re.escape(name)}\s*\(")
            for path in sorted((self.opbase.root / "src").rglob("*.cpp")):
                rel = path.relative_to(self.opbase.root)
                if "tests" in rel.parts:
                    continue
                text = path.read_text(errors="replace")
                if not called.search(text):
                    continue
                src = read_source(str(rel), text)
                if name in src.functions:
                    found.append((src, src.functions[name]))
            self._found[name] = found[0] if len(found) == 1 else None
        return self._found[name]

    def cite(self, path: str, line: int) -> Citation:
        return Citation(OPBASE_REPOSITORY, self.opbase.commit, path, line)
