"""A record's large repeated expressions stored once (spec/shared_expressions.py): written once with a
reference at each use, inner expressions before the outer ones that use them, read back equal to the
record written out in full; the committed DivMods record, the case that needed it, stays small and
loads to the same contract as its full form."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from aclnn_conformance.extract.contract_diff import contract_diff, load_contract
from aclnn_conformance.spec.operator_data import OperatorDataError, read_data
from aclnn_conformance.spec.shared_expressions import (SHARE_FROM, SharedExpressionError, resolve,
                                                       share)

DATA = Path(__file__).resolve().parent.parent / "spec" / "data"


def _chain(name: str, links: int) -> list:
    """A dtype choice ``links`` deep on ``name``'s dtype (about 80 characters a link)."""
    out: list = ["of", name]
    for i in range(links):
        out = ["if", ["in", ["of", name], [f"DT{i}"]], ["dtype", "FLOAT"], out]
    return out


def _record(*rules_args: dict) -> dict:
    return {"key": "k", "rules": [{"id": f"R{i}", "args": a} for i, a in enumerate(rules_args)],
            "params": [{"name": "self"}]}


def _refs(x) -> list[str]:
    if isinstance(x, dict):
        return [x["$ref"]] if set(x) == {"$ref"} else [r for v in x.values() for r in _refs(v)]
    return [r for v in x for r in _refs(v)] if isinstance(x, list) else []


def test_a_large_expression_used_three_times_is_written_once():
    big = _chain("self", 40)
    assert len(json.dumps(big, separators=(",", ":"))) >= SHARE_FROM
    rec = _record({"expr": big}, {"from_expr": big}, {"to_expr": ["promote", big, ["of", "other"]]})
    out = share(rec)
    assert out["shared"] == [big]
    assert _refs(out["rules"]) == ["#/shared/0"] * 3
    assert out["params"] is rec["params"]                       # only the rules are shared
    assert resolve(json.loads(json.dumps(out))) == rec


def test_once_or_small_stays_inline():
    big, small = _chain("self", 40), _chain("self", 2)
    assert share(_record({"expr": big})) == _record({"expr": big})                 # met once
    assert share(_record({"expr": small}, {"expr": small})) == _record({"expr": small}, {"expr": small})
    assert "shared" not in resolve(_record({"expr": big}))


def test_inner_expressions_come_first_and_one_met_only_in_a_single_body_stays_inline():
    inner = _chain("self", 30)
    only_inside = _chain("other", 30)
    outer = ["if", ["in", inner, ["FLOAT"]], only_inside, ["promote", inner, ["dtype", "INT8"]]]
    rec = _record({"expr": outer}, {"expr": outer}, {"expr": inner})
    out = share(rec)
    assert out["shared"][0] == inner                            # used inside the outer one: before it
    assert _refs(out["shared"][1]) == ["#/shared/0", "#/shared/0"]
    assert only_inside in out["shared"][1]                      # within the one outer body: inline
    assert len(out["shared"]) == 2
    assert resolve(json.loads(json.dumps(out))) == rec


def test_tuples_as_the_reader_holds_them_are_shared_like_lists():
    def tup(x):
        return tuple(tup(c) for c in x) if isinstance(x, list) else x
    big = _chain("self", 40)
    out = share(_record({"expr": tup(big)}, {"expr": tup(big)}))
    assert out["shared"] == [big] and _refs(out["rules"]) == ["#/shared/0"] * 2


def test_the_same_rules_give_the_same_file():
    big = _chain("self", 40)
    rec = _record({"expr": big}, {"expr": ["not", big]}, {"expr": ["not", big]})
    assert json.dumps(share(rec)) == json.dumps(share(json.loads(json.dumps(rec))))


@pytest.mark.parametrize("shared, refs, words", [
    ([["of", "self"]], {"$ref": "#/shared/1"}, "no shared expression written before its use"),
    ([{"$ref": "#/shared/0"}], {"$ref": "#/shared/0"}, "no shared expression written before its use"),
    ({"a": 1}, {"$ref": "#/shared/0"}, "expected a list"),
])
def test_a_bad_reference_is_an_error_naming_it(tmp_path, shared, refs, words):
    with pytest.raises(SharedExpressionError, match=words):
        resolve({"rules": [{"args": {"expr": refs}}], "shared": shared})
    path = tmp_path / "math" / "bad.json"
    path.parent.mkdir()
    good = json.loads((DATA / "math" / "abs.json").read_text())
    path.write_text(json.dumps({**good, "shared": shared, "rules": good["rules"] + [{"args": {"e": refs}}]}))
    with pytest.raises(OperatorDataError, match=f"{path}: .*{words}"):
        read_data(path)


def test_the_divmods_record_is_small_and_reads_to_the_contract_of_its_full_form(tmp_path):
    path = DATA / "math" / "div_mods.json"
    assert path.stat().st_size < 200_000          # 13.9 MB written in full
    data = read_data(path)
    assert "shared" not in data and not _refs(data["rules"])
    cast = next(r for r in data["rules"] if r["id"] == "XDIVMODS-DTYPE-015")
    assert cast["args"]["from_expr"][0] == "if"
    full, compact = tmp_path / "full", tmp_path / "compact"
    for folder, doc in ((full, data), (compact, json.loads(path.read_text()))):
        (folder / "math").mkdir(parents=True)
        (folder / "math" / "div_mods.json").write_text(json.dumps(doc))
    assert (full / "math" / "div_mods.json").stat().st_size > 10 * path.stat().st_size
    assert load_contract(full) == load_contract(compact)
    assert contract_diff(load_contract(full), load_contract(compact)) == []
