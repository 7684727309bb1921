"""The report's Scope of the documented surface: scope counts per family of the exercised APIs, the
family's agreement against the bar, and every API not fully covered with what is missing."""
from __future__ import annotations

import json

from aclnn_conformance.reports import surface_section


def _folder(tmp_path):
    scope = {"counts": {}, "apis": [
        {"api": "aclnnFoo", "key": "foo", "family": "math", "group": "math", "status": "covered", "missing": []},
        {"api": "aclnnBar", "key": "bar", "family": "math", "group": "math", "status": "partly covered",
         "missing": ["a", "b", "c"]},
        {"api": "aclnnSum", "key": "sum", "family": "math", "group": "math/reduction",
         "status": "partly covered", "missing": ["d"]},
        {"api": "aclnnIdle", "key": "idle", "family": "math", "group": "math", "status": "not covered",
         "missing": ["e"]}]}
    agreement = {"vendor": {"hicann/ops-math": "c0ffee"}, "per_family": {
        "math": {"success": {"agree": 99, "of": 100}, "161002": {"agree": 50, "of": 50}},
        "math/reduction": {"success": {"agree": 10, "of": 20}}}}
    (tmp_path / "scope.json").write_text(json.dumps(scope))
    (tmp_path / "agreement.json").write_text(json.dumps(agreement))
    return tmp_path


def test_counts_and_agreement_per_family_of_the_exercised_apis(tmp_path):
    doc = surface_section.build(["foo", "bar", "sum", "apply_adam_w"], [_folder(tmp_path)])
    assert doc["families"]["math"]["counts"] == {"covered": 1, "partly covered": 1, "not covered": 1}
    assert doc["families"]["math"]["agreement"]["holds_bar"] is True
    assert doc["families"]["math/reduction"]["agreement"]["holds_bar"] is False
    # idle is not covered: never run, listed all the same
    assert [r["api"] for r in doc["incomplete"]] == ["aclnnBar", "aclnnIdle", "aclnnSum"]
    md = "\n".join(surface_section.markdown(doc))
    assert "| math | 1 | 1 | 1 | 149/150 (99.3%) | yes |" in md
    assert "| math/reduction | 0 | 1 | 0 | 10/20 (50.0%) | no |" in md
    assert "- `aclnnBar` (math, partly covered): a; b; and 1 more" in md
    assert "aclnnBar" in "".join(surface_section.html(doc))


def test_no_section_without_an_extracted_operator(tmp_path):
    assert surface_section.build(["apply_adam_w"], [_folder(tmp_path)]) is None
    assert surface_section.markdown(None) == [] and surface_section.html(None) == []


def test_families_not_extracted_are_one_line_each_with_every_api_and_why(tmp_path):
    folder = _folder(tmp_path)
    scope = json.loads((folder / "scope.json").read_text())
    why = "its family (loss/) is not extracted: ..."
    scope["apis"] += [{"api": api, "key": key, "family": "loss", "group": "loss", "status": "not covered",
                       "missing": [why], "family_taken": False}
                      for api, key in (("aclnnMseLoss", "mse_loss"), ("aclnnHinge", "hinge"))]
    (folder / "scope.json").write_text(json.dumps(scope))
    doc = surface_section.build(["foo"], [folder])
    assert doc["families"]["loss"]["counts"] == {"covered": 0, "partly covered": 0, "not covered": 2}
    assert doc["families"]["loss"]["agreement"] is None
    assert "aclnnHinge" not in [r["api"] for r in doc["incomplete"]]     # listed once, with its family
    assert doc["not_taken"] == {"loss": {"why": why, "apis": ["aclnnHinge", "aclnnMseLoss"]}}
    md = "\n".join(surface_section.markdown(doc))
    assert f"- loss (2 APIs): {why}: `aclnnHinge`, `aclnnMseLoss`" in md
    assert "| loss | 0 | 0 | 2 | not measured | - |" in md
    assert "2 APIs of families not extracted" in "".join(surface_section.html(doc))
