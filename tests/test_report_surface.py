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
