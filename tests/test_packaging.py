"""The installed tool: the wheel holds one import package and its metadata; installed into a fresh
environment, the console script runs the suites from an empty directory, writes the report there
and nothing into the installation."""
from __future__ import annotations

import os
import runpy
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from tests.representative import INSTALLED_SAMPLE_OPS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "aclnn_conformance"
# What must never land at the top of site-packages: the repository's own folders.
REPOSITORY_FOLDERS = ("spec", "oracle", "backends", "judging", "suites", "reports", "benchmarks",
                      "tests")
# Local state of a checkout that a build must not see (a stale build/ leaks deleted files).
NOT_SOURCE = shutil.ignore_patterns(".git", ".venv", ".ci-venv", "build", "dist", "*.egg-info",
                                    "__pycache__", ".pytest_cache", ".hypothesis", "out", "report")


def _build_options() -> list[str]:
    """Build with this environment's setuptools when it meets pyproject's build requirement (no
    index needed); else in pip's isolated build environment (a venv's bundled setuptools is older)."""
    try:
        from importlib.metadata import version
        major = int(version("setuptools").split(".")[0])
    except (ImportError, ValueError, LookupError):
        return []
    return ["--no-build-isolation", "--no-index"] if major >= 68 else []


def _pip(python: Path | str, *args: str, cwd: Path) -> None:
    run = subprocess.run([str(python), "-m", "pip", *args, "-q", "--no-deps", *_build_options()],
                         cwd=cwd, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Path:
    """A copy of the checkout's sources, so that building leaves the checkout as it was."""
    dst = tmp_path_factory.mktemp("source") / "aclnn-conformance"
    shutil.copytree(ROOT, dst, ignore=NOT_SOURCE)
    return dst


@pytest.fixture(scope="module")
def wheel(source: Path, tmp_path_factory) -> zipfile.ZipFile:
    dist = tmp_path_factory.mktemp("dist")
    _pip(sys.executable, "wheel", "-w", str(dist), str(source), cwd=dist)
    (path,) = dist.glob("*.whl")
    return zipfile.ZipFile(path)


def _mapped_folders() -> dict[str, str]:
    """setup.py's found packages: import package -> folder in the repository."""
    return runpy.run_path(str(ROOT / "setup.py"), run_name="found_packages")["found_packages"](ROOT)


def test_wheel_holds_only_the_package_and_its_metadata(wheel):
    tops = {name.split("/", 1)[0] for name in wheel.namelist()}
    dist_info = {t for t in tops if t.endswith(".dist-info")}
    assert tops - dist_info == {PACKAGE}
    assert len(dist_info) == 1 and dist_info.pop().startswith(f"{PACKAGE}-")


def test_the_package_list_is_found_not_kept():
    """Every folder of the checkout that holds Python modules is either a package of the wheel or
    one of the folders that are not shipped (tests, benchmarks, the manual's build hooks, the CI
    scripts): a new package
    cannot be left out, and pyproject.toml lists none by hand."""
    folders = set(_mapped_folders().values())
    shipped_or_not = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT)
        if rel.parts[0].startswith(".") or rel.parts[0] in ("build", "dist", "out"):
            continue
        shipped_or_not.add(rel.parent.as_posix())
    unshipped = {f for f in shipped_or_not - folders
                 if f != "." and f.split("/")[0] not in ("tests", "benchmarks", "docs")}
    assert not unshipped, f"folders with modules that no package maps: {sorted(unshipped)}"
    config = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "packages =" not in config and "package-dir" not in config


def test_wheel_holds_every_module_of_every_mapped_folder(wheel):
    """A new subpackage folder missing from the found packages fails here."""
    names = set(wheel.namelist())
    missing = []
    for package, folder in _mapped_folders().items():
        if package == PACKAGE:
            continue
        for path in (ROOT / folder).rglob("*.py"):
            inside = path.relative_to(ROOT / folder).as_posix()
            if f"{package.replace('.', '/')}/{inside}" not in names:
                missing.append(f"{folder}/{inside}")
    assert not missing, missing
    assert f"{PACKAGE}/reports/mustpass.txt" in names


def test_wheel_metadata_names_the_script_the_plugin_and_the_torch_pin(wheel):
    info = next(n.split("/")[0] for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
    entry_points = wheel.read(f"{info}/entry_points.txt").decode()
    assert "[console_scripts]\naclnn-conformance = aclnn_conformance.cli:main" in entry_points
    assert "[pytest11]" not in entry_points    # named where used: unrelated pytest runs skip it
    metadata = wheel.read(f"{info}/METADATA").decode()
    assert "Provides-Extra: torch" in metadata
    assert 'Requires-Dist: torch==2.13.0; extra == "torch"' in metadata


@pytest.fixture(scope="module")
def installed(source: Path, tmp_path_factory) -> Path:
    """A fresh venv with the project installed from the copied checkout. Its dependencies come from
    this interpreter's site-packages through a .pth file (no network); the checkout is not on its
    path."""
    venv = tmp_path_factory.mktemp("venv") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True,
                   timeout=300)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"], capture_output=True,
                               text=True, check=True).stdout.strip())
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    _pip(python, "install", str(source), cwd=venv)
    return venv


def _clean_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = os.pathsep.join([str(venv / "bin"), env.get("PATH", "")])
    return env


def _installed_files(package_dir: Path) -> set[str]:
    return {p.relative_to(package_dir).as_posix() for p in package_dir.rglob("*")
            if "__pycache__" not in p.parts}


@pytest.mark.slow
def test_installed_site_packages_hold_no_repository_folder(installed):
    site = next(installed.glob("lib/python*/site-packages"))
    tops = {p.name for p in site.iterdir()}
    assert PACKAGE in tops
    assert not tops & set(REPOSITORY_FOLDERS), sorted(tops)


@pytest.mark.slow
def test_console_script_runs_the_suites_from_an_empty_directory(installed, tmp_path):
    """Acceptance: from an empty directory, `aclnn-conformance run --backend reference --product
    atlas-a2 --report-dir out` writes a report there and nothing into the installation (on the
    operators an installation needs to run at all: the whole run is the main job's)."""
    env = _clean_env(installed)
    where = subprocess.run(["python", "-c", "import aclnn_conformance.spec as s, aclnn_conformance "
                            "as p; print(s.__file__); print(len(p.__path__))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    spec_file, path_entries = where.stdout.split()
    assert Path(spec_file).is_relative_to(installed) and path_entries == "1", where.stdout
    package_dir = Path(spec_file).parents[1]
    before = _installed_files(package_dir)
    run = subprocess.run(["aclnn-conformance", "run", "--backend", "reference", "--product",
                          "atlas-a2", "--op", ",".join(INSTALLED_SAMPLE_OPS), "--report-dir", "out", "-x",
                          "-q"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    report = tmp_path / "out" / "report.md"
    assert report.is_file() and "atlas-a2" in report.read_text(encoding="utf-8")
    assert (tmp_path / "out" / "records.jsonl").stat().st_size > 0
    assert f"reports: {tmp_path / 'out' / 'report.md'}" in run.stdout
    assert "PytestAssertRewriteWarning" not in run.stdout + run.stderr
    assert _installed_files(package_dir) == before


@pytest.mark.slow
def test_installed_reproducers_run_verbatim_from_the_folder_of_the_run(installed, tmp_path):
    """A mutant's first failure, run by the console script from an empty folder: its pytest and
    replay reproducers, pasted there, both run and fail again."""
    env = _clean_env(installed)
    run = subprocess.run(["aclnn-conformance", "run", "-k", "weight-decay--0.5 and test_table", "--op", "apply_adam_w_quant",
                          "--backend", "aclnn_conformance.backends.mutants:DecayWhenWdNonpositive",
                          "--product", "atlas-a2", "--report-dir", "out", "-q", "-p", "no:xdist"],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]
    block = run.stdout.split("  reproduce:\n", 1)[1].splitlines()
    commands = [line.strip() for line in block[:2]]
    assert commands[0].startswith("python -m pytest --pyargs 'aclnn_conformance.suites.")
    for command in commands:
        again = subprocess.run(command, shell=True, cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=600)
        assert again.returncode == 1, (command, again.stdout[-3000:], again.stderr[-2000:])
        assert "weight-decay--0.5" in again.stdout and "FAIL" in again.stdout


@pytest.mark.slow
def test_an_unrelated_pytest_run_does_not_load_the_plugin(installed, tmp_path):
    (tmp_path / "test_other.py").write_text("def test_other():\n    assert True\n")
    env = _clean_env(installed)
    run = subprocess.run(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "-c",
                          os.devnull, "--help"], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and "--backend" not in run.stdout and "--report-dir" not in run.stdout
    probe = ("import sys, pytest; status = pytest.main(['-q', '-p', 'no:cacheprovider']); "
             "print('loaded' if 'aclnn_conformance' in sys.modules else 'not loaded'); "
             "sys.exit(status)")
    run = subprocess.run(["python", "-c", probe], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.splitlines()[-1] == "not loaded", run.stdout


@pytest.mark.slow
def test_installed_commands_write_where_told(installed, tmp_path):
    env = _clean_env(installed)
    run = subprocess.run(["aclnn-conformance", "sensitivity", "--out", "sens"], cwd=tmp_path,
                         env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert sorted(p.name for p in (tmp_path / "sens").iterdir()) == ["sensitivity.json",
                                                                       "sensitivity.md"]
    listed = subprocess.run(["aclnn-conformance", "list", "rules", "weight_quant_preprocess"],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0 and "WQP-NULL-001" in listed.stdout
