"""No Python module of the project outside tests/ is over 1,500 lines: a reader finds their room in a
module of that size, and a family of constructs that outgrows it takes a module of its own."""
from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 1500
# folders that are not the project's own code: environments, build output, caches
NOT_OURS = {".venv", "venv", "build", "dist", ".git", "__pycache__", ".eggs", "node_modules"}


def project_modules(root: Path) -> list[Path]:
    """Every Python file of the project outside tests/: the tracked ones (git), or a walk of its folders
    when the checkout is not a git one."""
    try:
        listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "*.py"], capture_output=True,
                                check=True, timeout=60).stdout.decode().split("\0")
        paths = [root / p for p in listed if p and (root / p).is_file()]
    except (OSError, subprocess.SubprocessError):
        paths = list(root.rglob("*.py"))
    return sorted(p for p in paths
                  if not ({"tests", *NOT_OURS} & set(p.relative_to(root).parts[:-1]))
                  and not any(part.endswith(".egg-info") for part in p.relative_to(root).parts))


def oversized(root: Path, limit: int = LIMIT) -> list[str]:
    out = []
    for path in project_modules(root):
        n = len(path.read_text(encoding="utf-8", errors="replace").splitlines())
        if n > limit:
            out.append(f"{path.relative_to(root)}: {n} lines")
    return out


def test_no_module_outside_tests_is_over_the_limit():
    modules = project_modules(ROOT)
    assert any(p.parts[-2:] == ("host_code", "walk.py") for p in modules)
    found = oversized(ROOT)
    assert not found, f"modules over {LIMIT} lines:\n" + "\n".join(found)


def test_an_oversized_module_is_found(tmp_path):
    """A planted module one line over the limit fails, one at the limit and one under tests/ do not."""
    (tmp_path / "extract").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "extract" / "big.py").write_text("x = 1\n" * (LIMIT + 1))
    (tmp_path / "extract" / "fits.py").write_text("x = 1\n" * LIMIT)
    (tmp_path / "tests" / "test_big.py").write_text("x = 1\n" * (LIMIT * 2))
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "vendored.py").write_text("x = 1\n" * (LIMIT * 2))
    assert oversized(tmp_path) == [f"extract/big.py: {LIMIT + 1} lines"]
