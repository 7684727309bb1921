"""contract-diff between two extractions, on fixtures made from the committed aclnnAbs record: a check
added, one removed, a dtype list changed, a status changed and two checks swapped are each reported
with both citations; identical extractions give no change."""
from __future__ import annotations

import copy
import json
from pathlib import Path

from aclnn_conformance import cli
from aclnn_conformance.extract.contract_diff import contract_diff, load_contract

ABS = Path(__file__).resolve().parent.parent / "spec" / "data" / "math" / "abs.json"


def _write(folder: Path, doc: dict) -> Path:
    (folder / "math").mkdir(parents=True)
    (folder / "math" / "abs.json").write_text(json.dumps(doc), encoding="utf-8")
    return folder


def _rule(doc: dict, template: str, param: str) -> dict:
    return next(r for r in doc["rules"] if r.get("template") == template
                and (r.get("args") or {}).get("param") == param)


def test_each_kind_of_change_is_reported_with_both_citations(tmp_path):
    old = json.loads(ABS.read_text())
    new = copy.deepcopy(old)
    dtype = next(r for r in new["rules"] if r.get("template") == "dtype_in"
                 and "ascend950" in r["expect"]["cann"]["products"])
    dtype["args"]["dtypes"] = dtype["args"]["dtypes"][:-1]             # one dtype dropped
    dtype["citations"][0]["line"] += 10
    fmt = next(r for r in new["rules"] if r.get("template") == "private_format")
    fmt["expect"]["cann"]["status"] = 561002                           # another status
    gone = _rule(new, "null", "out")
    new["rules"].remove(gone)                                         # a check dropped
    added = copy.deepcopy(_rule(new, "null", "self"))
    added["args"] = {"param": "workspaceSize"}
    added["id"] = "XABS-NULL-099"
    new["rules"].append(added)                                        # a check added
    steps = new["check_steps"]
    first, second = steps.index(dtype["step"]), steps.index(_rule(new, "formats_equal", "self")["step"])
    steps[first], steps[second] = steps[second], steps[first]         # two checks swapped
    changes = [c for c in contract_diff(load_contract(_write(tmp_path / "old", old)),
                                        load_contract(_write(tmp_path / "new", new)))
               if c.product == "ascend950"]
    kinds = {c.kind: c for c in changes}
    assert set(kinds) == {"added", "removed", "changed", "reordered"}, changes
    assert kinds["added"].check == 'null {"param": "workspaceSize"}' and kinds["added"].new_citation
    assert kinds["removed"].check == 'null {"param": "out"}' and kinds["removed"].old_citation
    changed = {c.check: c for c in changes if c.kind == "changed"}
    dtype_change = changed[f'dtype_in {json.dumps({"param": dtype["args"]["param"]})}']
    assert dtype_change.old != dtype_change.new
    assert dtype_change.old_citation != dtype_change.new_citation      # both lines cited
    assert any("561002" in c.new and "161002" in c.old for c in changed.values())
    assert "formats_equal" in kinds["reordered"].old and kinds["reordered"].old != kinds["reordered"].new


def test_the_command_writes_markdown_and_json_and_same_data_has_no_change(tmp_path, capsys):
    doc = json.loads(ABS.read_text())
    old, new = _write(tmp_path / "old", doc), _write(tmp_path / "new", doc)
    assert contract_diff(load_contract(old), load_contract(new)) == []
    assert cli.main(["contract-diff", str(old), str(new), "--out", str(tmp_path / "out")]) == 0
    assert "0 API(s) changed" in capsys.readouterr().out
    written = json.loads((tmp_path / "out" / "contract_diff.json").read_text())
    assert written["counts"]["apis"] == 0 and written["changes"] == []
    assert (tmp_path / "out" / "contract_diff.md").read_text().startswith("# Contract diff")
    assert cli.main(["contract-diff", str(tmp_path / "nowhere"), str(new)]) == 2
