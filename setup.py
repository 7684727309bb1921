"""The wheel's packages, found rather than listed: the repository keeps the subpackages of the one
import package ``aclnn_conformance`` at its top (spec/, oracle/, backends/, ...), so every folder
there that holds an ``__init__.py`` (tests/ and benchmarks/ hold none) is mapped into it, with every
package folder below it. Everything else about the project is in pyproject.toml."""
from __future__ import annotations

from pathlib import Path

PACKAGE = "aclnn_conformance"
# data files shipped beside the modules (the stand-in library's C source, the spec's data folders)
PACKAGE_DATA = ["*.c", "*.json", "*.txt", "data/**/*.json", "data/**/*.csv", "data/*.tsv"]


def found_packages(root: Path) -> dict[str, str]:
    """Import package -> its folder, relative to ``root``, for every package of the wheel."""
    packages = {PACKAGE: PACKAGE}
    for top in sorted(p for p in root.iterdir() if p.is_dir() and p.name != PACKAGE):
        if not (top / "__init__.py").is_file():
            continue
        for init in sorted(top.rglob("__init__.py")):
            folder = init.parent.relative_to(root)
            packages[".".join((PACKAGE, *folder.parts))] = folder.as_posix()
    return packages


if __name__ == "__main__":
    from setuptools import setup

    here = Path(__file__).resolve().parent
    mapping = found_packages(here)
    setup(packages=list(mapping), package_dir=mapping,
          package_data={package: PACKAGE_DATA for package in mapping})
