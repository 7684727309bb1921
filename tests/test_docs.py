"""The manual in docs/: it builds with MkDocs in strict mode (a broken link, a missing page or a missing
include fails), it has a page per topic, and the README stays a front page that links into it."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"

# one page per topic of the manual; each must be in mkdocs.yml's nav and open with its title
TOPICS = {
    "concepts.md": "Concepts and outcomes",
    "cli.md": "The command line",
    "backends.md": "Writing a backend",
    "aclnn.md": "The aclnn backend and a device",
    "surface.md": "The documented surface and the extractor",
    "values.md": "Values, arithmetic models and standards",
    "vendor-cases.md": "The vendor's case formats",
    "reports.md": "Reports, baselines and certification",
    "operators.md": "Adding an operator",
    "exit-statuses.md": "Exit statuses and what a run guarantees",
    "detection.md": "Detection power",
    "benchmarks.md": "Benchmarks",
}


def _mkdocs():
    pytest.importorskip("mkdocs", reason="mkdocs is not installed: pip install '.[docs]' (the test "
                                          "command at the top of README.md installs it)")


def _build(root: Path, site: Path) -> subprocess.CompletedProcess:
    # the snippets' base path is the folder the build runs in, so it runs from the checkout's root
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site),
                           "--config-file", str(root / "mkdocs.yml")],
                          cwd=root, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})


def _first_sh_block(text: str) -> str:
    match = re.search(r"^```sh\n(.*?)^```$", text, re.S | re.M)
    assert match, "no ```sh block"
    return match.group(1)


def _copy_tree(tmp_path: Path) -> Path:
    """The manual with everything its build reads, in a folder of its own to break."""
    root = tmp_path / "checkout"
    shutil.copytree(DOCS, root / "docs")
    shutil.copy(ROOT / "mkdocs.yml", root)
    for included in ("backends/README.md", "benchmarks/README.md"):
        (root / included).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / included, root / included)
    return root


def test_the_manual_builds_in_strict_mode_with_every_page(tmp_path):
    _mkdocs()
    result = _build(ROOT, tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    for page in ["index.md", *TOPICS]:
        html = tmp_path / "site" / ("index.html" if page == "index.md" else page[:-3] + "/index.html")
        assert html.is_file(), f"{page} was not built"
    # a generated page per hand-specified operator, with every rule of its record
    from aclnn_conformance.spec import registry
    for record in registry.operators().values():
        if record.modules[0].startswith("data:"):
            continue
        html = (tmp_path / "site" / "rules" / record.spec.key / "index.html").read_text(encoding="utf-8")
        assert all(rule.id in html for rule in record.spec.rules), record.spec.key
    assert "aclnnGelu" in (tmp_path / "site" / "rules" / "index.html").read_text(encoding="utf-8")
    # the included pages arrive whole: their first and last sections are in the built page
    backends = (tmp_path / "site" / "backends" / "index.html").read_text(encoding="utf-8")
    assert "The contract" in backends and "Checking it" in backends
    benchmarks = (tmp_path / "site" / "benchmarks" / "index.html").read_text(encoding="utf-8")
    last = re.findall(r"^## (.+)$", (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8"), re.M)[-1]
    assert last.split(" (")[0] in benchmarks


def test_a_broken_link_anchor_or_page_fails_the_build_naming_each(tmp_path):
    _mkdocs()
    root = _copy_tree(tmp_path)
    page = root / "docs" / "detection.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [nowhere](no-such-page.md) and "
                    "[a section](cli.md#no-such-section).\n", encoding="utf-8")
    (root / "docs" / "exit-statuses.md").unlink()
    result = _build(root, tmp_path / "site")
    assert result.returncode != 0, "a broken manual built"
    for named in ("no-such-page.md", "no-such-section", "exit-statuses.md"):
        assert named in result.stdout + result.stderr, named


def test_a_missing_include_fails_the_build(tmp_path):
    _mkdocs()
    root = _copy_tree(tmp_path)
    (root / "benchmarks" / "README.md").unlink()
    result = _build(root, tmp_path / "site")
    assert result.returncode != 0, "the manual built without benchmarks/README.md"
    assert "benchmarks/README.md" in result.stdout + result.stderr


def test_every_topic_has_a_page_in_the_nav_with_its_title():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert re.search(r"^strict: true$", nav, re.M)
    for page, title in TOPICS.items():
        text = (DOCS / page).read_text(encoding="utf-8")
        assert text.startswith(f"# {title}\n"), page
        assert f": {page}\n" in nav, f"{page} is not in mkdocs.yml's nav"


def test_the_readme_is_a_front_page_that_links_into_the_manual():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    assert len(readme.encode("utf-8")) <= 30 * 1024
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", readme)
    for page in TOPICS:
        assert f"docs/{page}" in links, f"the README does not link to docs/{page}"
    for link in links:
        assert (ROOT / link).is_file(), f"the README links to {link}, which does not exist"


def test_the_two_commands_come_first_and_the_test_command_installs_the_generator():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = _first_sh_block(readme)
    # what .ci/run takes: the lines of the first ```sh block that start a venv
    commands = [line for line in block.splitlines() if line.startswith("python3 -m venv ")]
    assert len(commands) == 2
    main_job, tests = commands
    assert "aclnn-conformance run" in main_job and "--report-dir out" in main_job
    assert "pytest" in tests and '".[torch,docs]"' in tests
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~ \[]", req)[0] for req in extras["docs"]}
    assert {"mkdocs", "mkdocs-material"} <= names
    # the manual shows the same two commands, so they cannot drift apart
    assert _first_sh_block((DOCS / "cli.md").read_text(encoding="utf-8")) == block


def test_the_exit_statuses_page_has_every_status_of_a_run():
    text = (DOCS / "exit-statuses.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d) \|", text, re.M)
    assert rows == [str(n) for n in range(9)]


def test_every_suite_option_of_run_is_in_the_command_line_page():
    result = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "run", "--help"],
                            capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    suite = result.stdout.split("suite options:")[1].split("exit status:")[0]
    options = set(re.findall(r"^\s+(--[a-z][a-z-]*)", suite, re.M))
    assert options
    page = (DOCS / "cli.md").read_text(encoding="utf-8")
    missing = sorted(option for option in options if option not in page)
    assert not missing, f"run's options not in docs/cli.md: {missing}"
