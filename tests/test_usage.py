"""Coverage weighted by use (reports/usage.py, `aclnn-conformance scope`): the shipped table as the
note gave it, a user's list read or refused line by line, the scope's covering rule, and the shares
by APIs and by call sites, computed here by hand on fixture data folders."""
from __future__ import annotations

import csv
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.reports.usage import (COVERED, NOT_COVERED, PARTLY, SHIPPED_USAGE, Used, coverage,
                                             headline, is_usage_table, read_usage_list, shipped_usage,
                                             usage_report)

ROOT = Path(__file__).resolve().parent.parent
NOTE = ROOT.parent / "shared" / "notes" / "aclnn_usage.tsv"
# the note's digest when the table was shipped: the copy is the note's file, byte for byte
NOTE_SHA256 = "47fe4062a53c6eb0d01c30055168a10f55ef1529e08ad01d09d5bbf123bcf27b"


def test_the_shipped_table_is_the_notes_file_unchanged():
    data = SHIPPED_USAGE.read_bytes()
    assert hashlib.sha256(data).hexdigest() == NOTE_SHA256
    if NOTE.is_file():     # beside a checkout of the notes, the two files themselves
        assert NOTE.read_bytes() == data


def test_the_shipped_table_reads_as_its_columns_say():
    with SHIPPED_USAGE.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    assert len(rows) == 1188
    used = shipped_usage(2)
    assert len(used) == sum(1 for r in rows if int(r["n_consumers"]) >= 2)
    cast = next(u for u in used if u.api == "aclnnCast")
    assert (cast.weight, cast.consumers, cast.repository) == (44, 11, "ops-math")
    assert len(shipped_usage(0)) == 1188


def test_a_users_list_takes_counts_comments_and_repeats(tmp_path):
    f = tmp_path / "ops.txt"
    f.write_text("# my model\naclnnAdd 10\naclnnMul,3\n\naclnnAdd   # again\naclnnSoftmax: 2\n")
    assert read_usage_list(f) == [Used("aclnnAdd", 11), Used("aclnnMul", 3), Used("aclnnSoftmax", 2)]


@pytest.mark.parametrize("text, said", [
    ("aclnnAdd 1\nAdd 2\n", ":2: 'Add 2' is no aclnn API name"),
    ("# nothing\n\n", "names no aclnn API"),
    ("aclnnAdd ten\n", ":1: 'aclnnAdd ten' is no aclnn API name"),
])
def test_a_users_list_is_refused_with_the_line(tmp_path, text, said):
    f = tmp_path / "ops.txt"
    f.write_text(text)
    with pytest.raises(ValueError, match=said):
        read_usage_list(f)


def _folder(tmp_path: Path) -> Path:
    """Two families: fam holds the bar, low does not; aclnnShort agrees on 4 of its own 6 rows."""
    folder = tmp_path / "data"
    folder.mkdir()
    apis = [("aclnnGood", "fam", "covered"), ("aclnnShort", "fam", "covered"), ("aclnnLow", "low", "covered"),
            ("aclnnPart", "fam", "partly covered")]
    (folder / "scope.json").write_text(json.dumps({"apis": [
        {"api": a, "key": a.lower(), "family": fam, "group": fam, "status": st,
         "missing": ["an unread check"] if st != "covered" else []} for a, fam, st in apis]}))
    rows = [{"api": "aclnnShort", "agree": k < 4} for k in range(6)]
    rows += [{"api": "aclnnGood", "agree": True} for _ in range(100)]
    rows += [{"api": "aclnnGood", "agree": None}]          # not judged: counts neither way
    (folder / "agreement.json").write_text(json.dumps({"rows": rows, "per_family": {
        "fam": {"success": {"agree": 98, "of": 100}, "161002": {"agree": 50, "of": 50}},
        "low": {"success": {"agree": 90, "of": 100}}}}))
    return folder


def test_the_covering_rule(tmp_path):
    found = coverage(["aclnnGood", "aclnnShort", "aclnnLow", "aclnnPart", "aclnnElsewhere", "aclnnHand",
                      "aclnnScoped"], [_folder(tmp_path)], {"aclnnHand": "", "aclnnScoped": "one path"})
    assert {a: c.status for a, c in found.items()} == {
        "aclnnGood": COVERED, "aclnnShort": PARTLY, "aclnnLow": PARTLY, "aclnnPart": PARTLY,
        "aclnnElsewhere": NOT_COVERED, "aclnnHand": COVERED, "aclnnScoped": PARTLY}
    assert "under 90%" in found["aclnnShort"].why
    assert "low does not hold" in found["aclnnLow"].why
    assert found["aclnnScoped"].why == "its record covers one path only"


def test_an_api_no_scope_row_names_says_which_snapshot_lacks_it(tmp_path):
    folder = _folder(tmp_path)
    scope = json.loads((folder / "scope.json").read_text())
    scope["read"] = {"hicann/ops-transformer": "c29bc1069d3252c641e2aa059ec88f392d3f05ac"}
    (folder / "scope.json").write_text(json.dumps(scope))
    used = [Used("aclnnNewer", 9, 2, "ops-transformer"), Used("aclnnCv", 4, 2, "ops-cv"), Used("aclnnMine", 1)]
    why = {r["api"]: r["why"] for r in usage_report(used, [folder], {})["not_covered"]}
    assert why["aclnnNewer"] == ("no document of hicann/ops-transformer at c29bc1069d32 (the snapshot read) "
                                 "names it: newer than that commit")
    assert why["aclnnCv"] == "its repository (ops-cv) is not read"
    assert why["aclnnMine"] == "no document of the repositories read names it (hicann/ops-transformer)"


def test_shares_by_apis_and_by_weight_and_the_rest_in_order_of_use(tmp_path):
    used = [Used("aclnnGood", 30), Used("aclnnLow", 50), Used("aclnnElsewhere", 15), Used("aclnnHand", 5)]
    doc = usage_report(used, [_folder(tmp_path)], {"aclnnHand": ""})
    # covered: Good (30) and Hand (5): 2 of 4 APIs, 35 of 100
    assert (doc["covered_apis"], doc["apis"], doc["covered_weight"], doc["weight"]) == (2, 4, 35, 100)
    assert [r["api"] for r in doc["not_covered"]] == ["aclnnLow", "aclnnElsewhere"]
    assert headline(doc, "calls") == "2 of 4 APIs covered (50%), 35 of 100 calls (35%)"


@pytest.mark.slow
def test_the_scope_command_answers_for_a_workload(tmp_path):
    f = tmp_path / "ops.txt"
    f.write_text("aclnnGelu 7\naclnnNoSuchApi 3\n")   # aclnnGelu: activation, a family at the bar
    out = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "scope", "--usage", str(f),
                          "--json", str(tmp_path / "s.json")], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "1 of 2 APIs covered (50%), 7 of 10 calls (70%)" in out.stdout
    assert "aclnnNoSuchApi" in out.stdout
    doc = json.loads((tmp_path / "s.json").read_text())
    assert [r["api"] for r in doc["not_covered"]] == ["aclnnNoSuchApi"]
    bad = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "scope", "--usage",
                          str(tmp_path / "missing.txt")], capture_output=True, text=True, cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error:") and len(bad.stderr.splitlines()) == 1


def test_a_usage_table_of_the_shipped_kind_is_read_as_a_table(tmp_path):
    f = tmp_path / "usage.tsv"   # a newer count, laid out like the shipped one: weighted by call sites
    f.write_text("api\tn_consumers\tcall_sites\tvendor_repo\n"
                 "aclnnGelu\t3\t30\tops-nn\naclnnNoSuchApi\t2\t10\tops-nn\naclnnRare\t1\t99\tops-nn\n")
    assert is_usage_table(f) and not is_usage_table(_plain(tmp_path))
    out = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "scope", "--usage", str(f)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    # aclnnRare is called by one project only: below the default --min-consumers 2
    assert out.stdout.startswith(f"{f}: 1 of 2 APIs covered (50%), 30 of 40 call sites (75%)")


def _plain(tmp_path: Path) -> Path:
    f = tmp_path / "plain.txt"
    f.write_text("aclnnAdd 2\n")
    return f
