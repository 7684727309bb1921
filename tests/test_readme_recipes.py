"""Every recipe of README.md runs as written: its commands are read from the README's ```sh block under
each "### " heading of "## Recipes" and run in a fresh folder, one after the other, with the console
script on PATH. So does the main job at the README's top (CI runs the test command beside it), its
commands kept to one operator and one mutant. The vendor checkout a recipe names is a fixture tree
in the vendor's layout (tests/fixtures/vendor_atk_inputs, laid out as ops-math). Each recipe names
one operator (--op) or imports one operator's folder, so the whole file stays near a minute and a
half on two cores."""
from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.spec.products import PRODUCT_IDS

ROOT = Path(__file__).resolve().parents[1]
CHECKOUTS = {"ops-math": ROOT / "tests" / "fixtures" / "vendor_atk_inputs"}

# the jobs users come for, by a word of each recipe's heading
JOBS = ["certify", "baseline", "compare", "vendor", "look up"]


def _recipes() -> dict[str, list[str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Recipes\n", 1)[1].split("\n## ", 1)[0]
    recipes = {}
    for part in section.split("\n### ")[1:]:
        title, body = part.split("\n", 1)
        block = re.search(r"^```sh\n(.*?)^```$", body, re.S | re.M)
        assert block, f"recipe {title!r} has no ```sh block"
        recipes[title.strip()] = [line for line in block.group(1).splitlines()
                                  if line.strip() and not line.lstrip().startswith("#")]
    return recipes


RECIPES = _recipes()


def _job(title: str) -> str:
    return next(job for job in JOBS if job in title.lower())


def test_the_readme_has_one_recipe_per_job_and_each_stays_small():
    assert sorted(map(_job, RECIPES)) == sorted(JOBS), list(RECIPES)
    for title, commands in RECIPES.items():
        assert commands, title
        for command in commands:
            words = shlex.split(command)
            assert words[0] == "aclnn-conformance", command
            # a run of the suites is kept to one operator: by --op, or by the cases of one import
            if words[1] in ("run", "certify"):
                assert "--op" in words or "--cases" in words, f"{title}: {command} runs every operator"


def _path_with_console_script(tmp_path: Path) -> str:
    scripts = Path(sys.executable).parent
    if not (scripts / "aclnn-conformance").exists():
        # a Python without the console script (a checkout on PYTHONPATH): the same entry point
        scripts = tmp_path / "bin"
        scripts.mkdir()
        shim = scripts / "aclnn-conformance"
        shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m aclnn_conformance.cli "$@"\n')
        shim.chmod(0o755)
    return f"{scripts}{os.pathsep}{os.environ.get('PATH', '')}"


@pytest.mark.parametrize("title", list(RECIPES), ids=[_job(t).replace(" ", "-") for t in RECIPES])
def test_the_recipe_runs_as_written(tmp_path, title):
    if any("--backend torch" in command for command in RECIPES[title]):
        pytest.importorskip("torch", reason="the recipe runs the torch backend: pip install '.[torch]'")
    work = tmp_path / "work"
    work.mkdir()
    for name, tree in CHECKOUTS.items():
        (work / name).symlink_to(tree, target_is_directory=True)
    # the workload list the lookup recipe asks about: one API covered, one of a family not extracted
    (work / "my_model_ops.txt").write_text("aclnnGelu 12\naclnnIndexSelect 4\n", encoding="utf-8")
    env = {**os.environ, "PATH": _path_with_console_script(tmp_path), "PYTHONPATH": ""}
    outputs = []
    for command in RECIPES[title]:
        result = subprocess.run(["bash", "-c", command], cwd=work, env=env, capture_output=True,
                                text=True, timeout=300)
        assert result.returncode == 0, f"{command}\nexit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        outputs.append(result.stdout)
    _check_what_it_made(_job(title), work, outputs)


def _records(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "records.jsonl").read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _check_what_it_made(job: str, work: Path, outputs: list[str]) -> None:
    if job == "certify":
        assert "CONFORMANT" in outputs[-1] and "NOT CONFORMANT" not in outputs[-1]
        statement = json.loads((work / "bundle" / "statement.json").read_text(encoding="utf-8"))
        assert "gelu" in json.dumps(statement)
    elif job == "baseline":
        diff = (work / "diff.md").read_text(encoding="utf-8")
        assert "0 pass-to-fail" in diff
        assert {r["op"] for r in _records(work / "current")} == {"gelu"}
    elif job == "compare":
        compare = (work / "compare.md").read_text(encoding="utf-8")
        assert "emulator/atlas-a2" in compare and "torch/ascend950" in compare
    elif job == "vendor":
        records = _records(work / "vendor-run")
        assert records and all(r.get("vendor_source") for r in records)
        assert any(r["outcome"] == "PASS" for r in records)
    else:
        rules, status, matrix, scope = outputs
        assert re.search(r"\b[A-Z0-9]+-[A-Z]+-\d{3}\b", rules), rules[:500]
        assert "161002" in status or "PARAM_INVALID" in status
        assert "aclnnGelu" in matrix
        assert "1 of 2 APIs covered (50%), 12 of 16 calls (75%)" in scope
        assert "aclnnIndexSelect" in scope


# what the main job's commands get to stay small: one operator's suites, one mutant on one product
MAIN_JOB_NARROWED = {"run": ["--op", "gelu"], "mutate": ["--mutants", "decay-before-step",
                                                         "--products", "atlas-a2"]}


def _main_job() -> list[list[str]]:
    """The aclnn-conformance commands of the README's first command (the main job), in order."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"^```sh\n(.*?)^```$", readme, re.S | re.M).group(1)
    first = next(line for line in block.splitlines() if line.startswith("python3 -m venv "))
    commands = [shlex.split(part) for part in first.split(" && ")]
    return [["aclnn-conformance", *words[1:]] for words in commands
            if words[0].endswith("/aclnn-conformance")]


def test_the_main_job_runs_as_written_on_one_operator(tmp_path):
    commands = _main_job()
    assert [words[1] for words in commands] == ["run", "mutate", "sensitivity"], commands
    env = {**os.environ, "PATH": _path_with_console_script(tmp_path), "PYTHONPATH": ""}
    for words in commands:
        words = [*words, *MAIN_JOB_NARROWED.get(words[1], [])]
        result = subprocess.run(words, cwd=tmp_path, env=env, capture_output=True, text=True,
                                timeout=600)
        assert result.returncode == 0, f"{words}\nexit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    out = tmp_path / "out"
    assert {r["op"] for r in _records(out)} == {"gelu"}
    md = (out / "report.md").read_text(encoding="utf-8")
    html = (out / "report.html").read_text(encoding="utf-8")
    for text in (md, html):   # the run's verdicts, then what mutate and sensitivity added
        assert "aclnnGelu" in text or "gelu" in text
        assert "Precision standards" in text and "mutant-decay-before-step" in text
    assert "## Mutation analysis" in md and "### Precision standard sensitivity" in md
    assert 'class="mutation"' in html and 'class="sensitivity"' in html
    assert sorted(p.name for p in (out / "matrix").iterdir()) == sorted(
        f"matrix_{product}.{ext}" for product in PRODUCT_IDS for ext in ("csv", "html"))
