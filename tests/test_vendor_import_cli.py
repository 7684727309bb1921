"""Importing a vendor checkout whole and running what it wrote: cases that cannot collide (the main and
``experimental`` trees hold test files of one name), no part of an import left in a folder, every
dtype read or refused with a reason, and each unusable ``import --out`` or ``run --cases`` folder a
one-line error (fixtures the team wrote in tests/fixtures/vendor_trees, in the vendor's layout)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance import cli
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.tensor import TensorDesc
from aclnn_conformance.vendor import cases_dir
from aclnn_conformance.vendor.cases_dir import case_files, write_import
from aclnn_conformance.vendor.importer import import_paths
from aclnn_conformance.vendor.values import draw_storage

TREE = Path(__file__).parent / "fixtures" / "vendor_trees"
TWICE = [TREE / "math" / "twice", TREE / "experimental" / "math" / "twice"]


def _console(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": ""})


# ---- problem 4: the main and experimental trees ----

def test_the_same_test_file_in_both_trees_gives_two_cases_of_distinct_names(tmp_path):
    result = import_paths(TWICE, jobs=1)
    assert not result.problems
    ids = sorted(vc.case_id for vc in result.cases)
    # the first tree's case keeps the stem and the line of its expectation (10); the other is told apart by its folder
    assert ids == ["experimental.test_aclnn_twice.ut-twice_test.case_float.L10",
                   "test_aclnn_twice.ut-twice_test.case_float.L10"]
    target = write_import(tmp_path / "cases", result)
    assert len(list(case_files(target.parent))) == 2
    assert len(cases_dir.run_items(target.parent)) == 2


def test_an_import_that_fails_while_writing_leaves_no_folder_behind(tmp_path, monkeypatch):
    result = import_paths(TWICE, jobs=1)
    calls = []

    def failing(out_dir, vc, storages=True):
        calls.append(vc.case_id)
        if len(calls) == 2:
            raise OSError("disk full")
        return original(out_dir, vc, storages)

    original = cases_dir.write_case
    monkeypatch.setattr(cases_dir, "write_case", failing)
    with pytest.raises(OSError):
        write_import(tmp_path / "cases", result)
    assert list(tmp_path.iterdir()) == []       # neither the folder nor its staging copy


# ---- problem 6: every dtype read, UNDEFINED included ----

@pytest.mark.parametrize("dtype", list(AclDataType), ids=lambda d: d.name)
def test_every_dtype_gets_a_storage_to_describe_the_call(dtype):
    desc = TensorDesc.contiguous((2, 3), dtype)
    arg = draw_storage(desc, {"kind": "uniform", "lo": -1, "hi": 1}, seed=7, index=0)
    assert arg.storage.size >= 6 and arg.desc.dtype == dtype


# ---- problem 7: an output an integer computation casts to FLOAT16 is compared exactly ----

def test_adds_bool_plus_bool_into_float16_is_judged_not_a_harness_error():
    from aclnn_conformance.backends.registry import load_backend
    from aclnn_conformance.judging.run_case import run_case
    vc = next(c for c in import_paths([TREE / "math" / "dtypes"], jobs=1).cases if c.api == "aclnnAdds")
    done = run_case(load_backend("emulator"), vc.to_case(), "atlas-a2", "cann")
    # computed in BOOL, exactly, then cast: no rounding bound to look for, the values compared exactly
    assert done.outcome == Outcome.PASS, done.detail


# ---- problems 6 and 7 on a run: UNDEFINED refused by the spec, BOOL+BOOL->FLOAT16 judged ----

def test_undefined_and_an_integer_computed_float16_output_are_judged(tmp_path):
    cases = tmp_path / "cases"
    done = _console("import", str(TREE / "math" / "dtypes"), "--out", str(cases), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    done = _console("run", "--cases", str(cases), "--report-dir", str(tmp_path / "report"), "-q",
                    "-p", "no:randomly", cwd=tmp_path)
    records = [json.loads(line) for line in (tmp_path / "report" / "records.jsonl").read_text().splitlines()]
    outcomes = {r["case_id"]: (r["outcome"], r["vendor_agrees"]) for r in records}
    # the vendor file's own expectations: ACLNN_ERR_PARAM_INVALID for UNDEFINED, success for Adds
    assert outcomes == {"ut-dtype_test.undefined_dtype": (Outcome.PASS, True),
                        "ut-dtype_test.bool_plus_bool_into_float16": (Outcome.PASS, True)}
    assert done.returncode == 0, done.stdout[-2000:]


# ---- problem 9: import --out and the files it reads ----

def _import(capsys, *args: str) -> tuple[int, list[str], str]:
    code = cli.main(["import", *args])
    out, err = capsys.readouterr()
    return code, err.strip().splitlines(), out


def test_import_out_an_existing_file_is_one_line(tmp_path, capsys):
    (tmp_path / "taken").write_text("x")
    code, err, _ = _import(capsys, str(TWICE[0]), "--out", str(tmp_path / "taken"))
    assert (code, err) == (2, [f"error: --out {tmp_path / 'taken'} is a file, not a folder"])


def test_import_out_a_used_folder_is_refused_and_overwrite_replaces_it_whole(tmp_path, capsys):
    out = tmp_path / "cases"
    assert _import(capsys, str(TREE / "math" / "dtypes"), "--out", str(out))[0] == 0
    code, err, _ = _import(capsys, str(TWICE[0]), "--out", str(out))
    assert (code, err) == (2, [f"error: --out {out} holds an earlier import; pass --overwrite to "
                                f"replace it, or give a new folder"])
    assert _import(capsys, str(TWICE[0]), "--out", str(out), "--overwrite")[0] == 0
    listed = {c["case_id"] for c in json.loads((out / "import.json").read_text())["cases"]}
    assert listed == {p.stem for p in case_files(out)} == {"ut-twice_test.case_float"}


def test_import_out_a_folder_of_other_files_is_refused_even_with_overwrite(tmp_path, capsys):
    (tmp_path / "mine.txt").write_text("keep")
    code, err, _ = _import(capsys, str(TWICE[0]), "--out", str(tmp_path), "--overwrite")
    assert code == 2 and len(err) == 1 and "not an import" in err[0]
    assert (tmp_path / "mine.txt").read_text() == "keep"


def test_empty_and_malformed_atk_files_are_listed_with_their_reasons(tmp_path, capsys):
    out = tmp_path / "cases"
    code, err, _ = _import(capsys, str(TREE / "math" / "broken"), "--out", str(out))
    assert code == 2
    listed = {Path(p["where"]).name: p["reason"]
              for p in json.loads((out / "import.json").read_text())["not_imported"]}
    assert listed == {"atk_aclnnAdd_cut.json:3": "not valid JSON: Expecting property name enclosed "
                                                  "in double quotes",
                      "atk_aclnnAdd_empty.json:1": "the file is empty"}
    assert sorted(line.split("/")[-1] for line in err) == sorted(f"{k}: {v}" for k, v in listed.items())


def test_import_jobs_must_be_positive(tmp_path, capsys):
    code, err, _ = _import(capsys, str(TWICE[0]), "--out", str(tmp_path / "c"), "--jobs", "-3")
    assert (code, err) == (2, ["error: --jobs -3: give a positive number of processes"])
    assert not (tmp_path / "c").exists()


# ---- problem 10: run --cases on folders that hold no whole, readable import ----

@pytest.fixture
def imported(tmp_path) -> Path:
    out = tmp_path / "cases"
    write_import(out, import_paths([TREE / "math" / "dtypes"], jobs=1))
    return out


def _edit_first(folder: Path, text: str) -> None:
    next(case_files(folder)).write_text(text)


@pytest.mark.parametrize("damage, words", [
    (lambda d: [p.unlink() for p in case_files(d)] and (d / "import.json").write_text(
        json.dumps({"cases": []})), "holds no cases: its import imported none"),
    (lambda d: _edit_first(d, "{not json"), "1 case file(s) cannot be read (first: "),
    (lambda d: _edit_first(d, json.dumps({"vendor": {"api": "aclnnGelu"}})),
     "1 case file(s) cannot be read (first: "),
    (lambda d: next(case_files(d)).unlink(), "holds 1 case file(s) but its import.json lists 2"),
    (lambda d: (d / "import.json").unlink(), "has no import.json: not a whole import"),
], ids=["no-cases", "malformed", "incomplete", "a-file-missing", "no-import-json"])
def test_a_cases_folder_that_is_no_whole_readable_import_is_one_reason(imported, damage, words):
    damage(imported)
    with pytest.raises(ValueError) as caught:      # CasesDirError
        cases_dir.run_items(imported)
    assert words in str(caught.value) and "\n" not in str(caught.value)


def test_run_cases_on_an_empty_or_missing_folder_is_a_one_line_usage_error(tmp_path):
    (tmp_path / "empty").mkdir()
    for folder, words in (("empty", "holds no imported cases"), ("missing", "no such folder")):
        done = _console("run", "--cases", str(tmp_path / folder), "-q", cwd=tmp_path)
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 4 and len(lines) == 1, done.stdout + done.stderr
        assert lines[0].startswith(f"ERROR: --cases {tmp_path / folder}") and words in lines[0]


# ---- problem 5: the ATK framework's outputs in their place ----

def test_atk_outputs_take_the_dtype_and_shape_of_the_golden_result():
    cases = {vc.api: vc for vc in import_paths([TREE / "math" / "atk"], jobs=1).cases}
    add, gelu = cases["aclnnAdd"], cases["aclnnGelu"]
    # torch.add of float16 [2, 1, 3] and float32 [4, 3]: float32 (torch's promotion), [2, 4, 3]
    # (broadcast); torch.nn.GELU of bfloat16 [3, 5]: the same dtype and shape
    assert (add.tensors["out"].dtype, add.tensors["out"].shape) == (AclDataType.FLOAT, (2, 4, 3))
    assert (gelu.tensors["out"].dtype, gelu.tensors["out"].shape) == (AclDataType.BF16, (3, 5))
    assert list(add.tensors) == ["self", "other", "out"] and add.unstated == frozenset({"out"})
    from aclnn_conformance.backends.registry import load_backend
    from aclnn_conformance.judging.run_case import run_case
    for vc in (add, gelu):
        done = run_case(load_backend("emulator"), vc.to_case(), "atlas-a2", "cann")
        assert (done.outcome, done.result.status) == (Outcome.PASS, 0), done.detail


def test_a_case_whose_values_the_import_did_not_read_is_skipped_with_the_reason(tmp_path):
    """An ATK tensor drawn from a normal whose mean and std are ranges (ops-math aclnnCeil and
    1,177 more cases of ops-math) keeps its descriptor, not its values: SKIPPED, never a
    HARNESS_ERROR of a call that cannot be built."""
    atk = tmp_path / "vendor" / "atk_aclnnAbs.json"
    atk.parent.mkdir()
    atk.write_text(json.dumps([{"id": 0, "name": "torch.abs", "aclnn_name": "Abs",
                                "api_type": "function", "standard": {"acc": "default"},
                                "inputs": [{"name": None, "type": "tensor", "required": True,
                                            "dtype": "fp32", "shape": [4], "range_values": {
                                                "name": "nd", "mean": [-1, 1], "std": [1, 2]}}]}]))
    cases = tmp_path / "cases"
    assert _console("import", str(atk), "--out", str(cases), cwd=tmp_path).returncode == 0
    done = _console("run", "--cases", str(cases), "--product", "ascend950", "--report-dir",
                    str(tmp_path / "report"), "-q", "-p", "no:xdist", cwd=tmp_path)
    (record,) = [json.loads(line) for line in
                 (tmp_path / "report" / "records.jsonl").read_text().splitlines()]
    assert record["outcome"] == Outcome.SKIPPED, record["detail"]
    assert "the import did not read the values of self" in record["detail"]
    assert done.returncode == 6, done.stdout[-2000:]     # nothing judged
