"""Lookups that never dead-end, and options checked before any work.

Every command that takes an operator takes its key or its API name; a name the suite does not know
gets one line saying what the scope knows of it (a documented API not covered, and why) and the
operators near it, never the whole list. ``matrix`` answers in one line where it raised; ``list rules``
filters by product and expected status; a bad count, seed, folder or output is one line before
anything runs, and a run leaves no ``.hypothesis/`` in the folder it started in."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.plugin import hypothesis_home, selected_ops
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import scope_entry
from test_cli import _main   # cli.main in process: (exit status, stdout, stderr)

ROOT = Path(__file__).resolve().parents[1]
EXIT_USAGE = 4   # run's usage error (pytest's)
LONGEST_LINE = 1000   # an unknown operator's line stays short: no list of every name


def _one_line(text: str) -> str:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return lines[0]


class Options:
    """The options of a run, as the plugin reads them from pytest's config."""

    def __init__(self, **given):
        self.given = {"--profile": "cann", "--tier": "ci", "--isolation": "auto", "--op": None,
                      **given}

    def getoption(self, name: str, default=None):
        return self.given.get(name, default)


# ---- 15. an operator by key or API name; an uncovered API says why and what is near ----

@pytest.mark.parametrize("api", ["aclnnMatmul", "aclnnRmsNormGradQuant"])
@pytest.mark.parametrize("command", [["list", "rules"], ["run", "-p", "no:cacheprovider", "--op"],
                                     ["export", "--format", "ttk", "--out", "unused", "--op"],
                                     ["certify", "--backend", "emulator", "--product", "atlas-a2",
                                      "--out", "unused", "--op"]])
def test_an_uncovered_api_says_why_from_the_scope(command, api, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = _main([*command, api], capsys)
    assert status == (EXIT_USAGE if command[0] == "run" else 2)
    line = _one_line(out + err)
    row = scope_entry(api)
    assert row["status"] == "not covered" and row["missing"][0] in line
    assert row["document"] in line
    assert len(line) < len(row["missing"][0]) + LONGEST_LINE and "xlog1py" not in line
    assert not (tmp_path / "unused").exists()


def test_an_unknown_name_gets_the_names_near_it_not_all(capsys):
    status, out, err = _main(["list", "rules", "aclnnadd"], capsys)
    assert status == 2 and out == ""
    line = _one_line(err)
    assert "near: add (aclnnAdd)" in line and "list operators" in line
    assert len(line) < LONGEST_LINE and "xlog1py" not in line
    status, _, err = _main(["list", "rules", "aclnnApplyAdamw"], capsys)
    assert "near: apply_adam_w (aclnnApplyAdamW)" in _one_line(err)


def test_run_takes_api_names_as_keys():
    assert selected_ops(Options(**{"--op": "aclnnAdd, add,aclnnApplyAdamWQuant"})) == (
        "add", "apply_adam_w_quant")
    assert selected_ops(Options()) == ()


def test_certify_takes_api_names(monkeypatch, capsys, tmp_path):
    seen = {}

    def certify(backend, product, out, workers, mustpass, sign_key=None, ops=()):
        seen["ops"] = ops
        return Path(out), [], []

    monkeypatch.setattr("aclnn_conformance.reports.certify.certify", certify)
    monkeypatch.setattr("aclnn_conformance.reports.certify.render_verify", lambda *a: "certified")
    status, _, err = _main(["certify", "--backend", "emulator", "--product", "atlas-a2", "--out",
                            str(tmp_path / "b"), "--op", "aclnnWeightQuantPreprocess,aclnnAdd"],
                           capsys)
    assert status == 0, err
    assert seen["ops"] == ("weight_quant_preprocess", "add")


# ---- 16. matrix in one line; list rules by product and status ----

@pytest.mark.parametrize("op,says", [
    ("aclnnMatmul", "stays specified by hand"),
    ("apply_adam_w_quant", "is specified by hand, not extracted"),
    ("no_such_op", "not an operator key or API name")])
def test_matrix_of_an_operator_it_has_no_rows_for_is_one_line(op, says, capsys):
    status, out, err = _main(["matrix", "--product", "atlas-a2", "--op", op], capsys)
    assert status == 2 and says in _one_line(out + err)


def test_matrix_out_writes_the_product_asked(tmp_path, capsys):
    status, out, err = _main(["matrix", "--product", "atlas-a2", "--op", "aclnnAbs", "--out",
                              str(tmp_path)], capsys)
    assert status == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["matrix_atlas-a2.csv",
                                                          "matrix_atlas-a2.html"]
    rows = (tmp_path / "matrix_atlas-a2.csv").read_text().splitlines()[1:]
    assert rows and all(row.startswith("aclnnAbs,") for row in rows)
    status, _, err = _main(["matrix", "--product", "atlas-a2", "--out",
                            str(tmp_path / "matrix_atlas-a2.csv")], capsys)
    assert status == 2 and "is a file, not a folder" in _one_line(err)


def _listed(out: str) -> list[str]:
    """The rule ids ``list rules`` printed, in order (an erratum's too)."""
    return [line.split()[0] for line in out.splitlines()
            if re.match(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+ ", line)]


@pytest.mark.parametrize("op,product", [("apply_adam_w", "atlas-a2"), ("add", "atlas-a2"),
                                        ("add", "atlas-training")])
def test_list_rules_by_product(op, product, capsys):
    spec = OPS[op]
    status, out, err = _main(["list", "rules", spec.api, "--product", product], capsys)
    assert status == 0, err
    enforced = [r.id for r in spec.rules
                if any(r.expect_for(p, product).kind != "unchecked" for p in r.expect)]
    assert [h for h in _listed(out) if h in {r.id for r in spec.rules}] == enforced
    assert 0 < len(enforced) < len(spec.rules)
    assert f"{len(enforced)} of {len(spec.rules)} rules are enforced on {product}" in out
    assert "else unchecked" not in out   # what each profile expects there, not per product


@pytest.mark.parametrize("status_text,code", [("161002", 161002), ("ACLNN_ERR_PARAM_NULLPTR", 161001),
                                              ("err_param_invalid", 161002)])
def test_list_rules_by_status(status_text, code, capsys):
    spec = OPS["add"]
    status, out, err = _main(["list", "rules", "add", "--status", status_text, "--product",
                              "atlas-a2"], capsys)
    assert status == 0, err
    wanted = [r.id for r in spec.rules if any(
        r.expect_for(p, "atlas-a2").kind == "status" and r.expect_for(p, "atlas-a2").status == code
        for p in r.expect)]
    assert wanted and [h for h in _listed(out) if h in {r.id for r in spec.rules}] == wanted


def test_list_rules_refuses_an_unknown_status_or_product(capsys):
    status, _, err = _main(["list", "rules", "add", "--status", "sometimes"], capsys)
    assert status == 2 and "--status sometimes: give a status name" in _one_line(err)
    status, _, err = _main(["list", "rules", "add", "--product", "atlas-a9"], capsys)
    assert status == 2 and "unknown product 'atlas-a9'" in _one_line(err)
    status, _, err = _main(["list", "operators", "--status", "161002"], capsys)
    assert status == 2 and "filter list rules" in _one_line(err)


# ---- 17. every option checked in one line before any work ----

@pytest.mark.parametrize("args,says", [
    (["-n", "-1"], "-n -1: give a number of workers"),
    (["--hypothesis-seed", "abc"], "--hypothesis-seed abc: give a whole number"),
    (["--hypothesis-seed", "-1"], "--hypothesis-seed -1: give a whole number"),
    (["--hypothesis-seed", str(10 ** 30)], "give a whole number from 0 to"),
    (["--spec-data", "/nonexistent"], "--spec-data /nonexistent: not a folder"),
    (["--spec-data"], "--spec-data needs a folder")])
def test_run_refuses_a_bad_option_as_a_usage_error(args, says, capsys):
    status, out, err = _main(["run", *args, "-p", "no:cacheprovider"], capsys)
    assert status == EXIT_USAGE
    assert says in _one_line(out + err)


def test_other_commands_refuse_a_bad_count_before_any_work(capsys, tmp_path, monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("ran before its options were checked")

    monkeypatch.setattr("aclnn_conformance.reports.certify.certify", must_not_run)
    monkeypatch.setattr("aclnn_conformance.reports.mutate.mutate", must_not_run)
    monkeypatch.setattr("aclnn_conformance.reports.sensitivity.run", must_not_run)
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    for argv, says in [
            (["certify", "--backend", "emulator", "--product", "atlas-a2", "--out",
              str(tmp_path / "b"), "--workers", "-1"], "--workers: -1 is negative"),
            (["mustpass", "--out", str(tmp_path / "m.txt"), "--workers", "x"],
             "--workers: 'x' is not a whole number"),
            (["verify", str(tmp_path), "--rerun", "-2"], "--rerun: -2 is negative"),
            (["mutate", "--out", str(a_file)], "is a file, not a folder"),
            (["mutate", "--out", str(a_file / "sub")], "cannot be made"),
            (["sensitivity", "--out", str(a_file)], "is a file, not a folder"),
            (["list", "rules", "add", "--spec-data", "/nonexistent"], "not a folder")]:
        status, out, err = _main(argv, capsys)
        assert status == 2, argv
        assert says in _one_line(out + err), argv
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_hypothesis_keeps_its_files_out_of_the_current_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert hypothesis_home() == tmp_path / "cache" / "aclnn-conformance" / "hypothesis"
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "mine"))
    assert hypothesis_home() == tmp_path / "mine"


def test_a_run_leaves_no_hypothesis_folder_where_it_started(tmp_path):
    """One hypothesis test, run by the console script's code from an unrelated folder, with an
    operator named by its API."""
    started = tmp_path / "started-here"
    started.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env.update(PYTHONPATH=str(ROOT), XDG_CACHE_HOME=str(tmp_path / "cache"))
    run = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "run", "--op",
                          "aclnnApplyAdamWQuant", "--product", "atlas-a2", "-k",
                          "test_invalid_calls", "-p", "no:xdist", "-q"],
                         cwd=started, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "1 passed" in run.stdout
    assert list(started.iterdir()) == []
    # hypothesis was pointed there (the run's profiles keep no database, so it may write nothing)
    assert (tmp_path / "cache" / "aclnn-conformance" / "hypothesis").is_dir()
