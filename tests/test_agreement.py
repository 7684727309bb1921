"""``aclnn-conformance agreement`` on a vendor-style checkout (tests/fixtures/agreement/ops-math):
the extraction in --out is what is measured, the importer's readings of ACL_DT_UNDEFINED, C++ float
arithmetic and a tensor a helper creates, and the ATK/TTK validity measure."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from aclnn_conformance.cli import main
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.registry import PROJECT_DATA, operators, use_project_data
from aclnn_conformance.vendor.gtest import _arith
from aclnn_conformance.vendor.importer import read_file

CHECKOUT = Path(__file__).parent / "fixtures" / "agreement" / "ops-math"
UT = CHECKOUT / "math" / "foo" / "tests" / "ut" / "op_api" / "test_aclnn_foo.cpp"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    out = tmp_path_factory.mktemp("agreement")
    try:
        assert main(["extract", str(CHECKOUT), "--out", str(out)]) == 0
        assert main(["agreement", str(CHECKOUT), "--out", str(out)]) == 0
        yield json.loads((out / "agreement.json").read_text()), (out / "agreement.md").read_text(), out
    finally:
        use_project_data(PROJECT_DATA)     # the other tests see the project's own data again


def test_the_extraction_in_out_is_measured(measured):
    doc, md, out = measured
    assert doc["data"] == str(out) and f"Operator data: {out}" in md
    assert {r["api"] for r in doc["rows"]} == {"aclnnFoo"}
    assert str(out) in operators()["foo"].source    # the fixture's operator, from --out


def test_every_read_expectation_of_the_files_the_vendor_builds_agrees(measured):
    doc, _, _ = measured
    assert doc["per_status_built"] == {"161002": {"agree": 1, "of": 1}, "success": {"agree": 2, "of": 2}}
    # test_foo_legacy.cpp adds one agreeing success and one 161002 its code contradicts
    assert doc["per_status"] == {"161002": {"agree": 1, "of": 2}, "success": {"agree": 3, "of": 3}}
    assert doc["files_not_read"] == []


def test_a_file_the_vendor_does_not_build_is_marked_and_its_disagreement_classified(measured):
    """The vendor's CMake compiles only test_aclnn_*.cpp (ops-math cmake/ut.cmake:342): the rows of
    test_foo_legacy.cpp are marked, counted beside the built files' figure, never instead of it."""
    doc, md, _ = measured
    legacy = [r for r in doc["rows"] if "test_foo_legacy.cpp" in r["source"]]
    assert len(legacy) == 2 and not any(r["built"] for r in legacy)
    assert all(r["built"] for r in doc["rows"] if "test_aclnn_foo.cpp" in r["source"])
    wrong = [r for r in doc["rows"] if not r["agree"]]
    assert [r["source"].rsplit(":", 1)[0].rsplit("/", 1)[-1] for r in wrong] == ["test_foo_legacy.cpp"]
    assert wrong[0]["cause"].startswith("a vendor test the vendor does not run")
    assert "| a vendor test the vendor does not run: not yet investigated | 1 |" in md
    assert "| all | 4 | 5 | 80.0% | 3/3 (100.0%) |" in md


def test_acl_dt_undefined_is_the_dtype_minus_one(measured):
    vc = next(c for c in read_file(UT).cases if c.case_id.endswith("case_dtype_undefined"))
    assert vc.problems == () and vc.tensors["self"].dtype == DT.UNDEFINED == -1
    assert vc.tensors["out"].dtype == DT.UNDEFINED


def test_cpp_arithmetic(measured):
    assert _arith("/", 1.0, 0.0, 0) == float("inf") and _arith("/", -1.0, 0.0, 0) == float("-inf")
    assert _arith("/", 0.0, 0.0, 0) != _arith("/", 0.0, 0.0, 0)          # nan
    assert (_arith("/", -7, 2, 0), _arith("%", -7, 2, 0)) == (-3, -1)   # truncation toward zero
    from aclnn_conformance.vendor.gtest import ReadError
    with pytest.raises(ReadError):
        _arith("/", 1, 0, 0)
    vc = next(c for c in read_file(UT).cases if c.case_id.endswith("case_float_division_by_zero"))
    assert vc.problems == () and vc.tensors["self"].values["hi"] == float("inf")


def test_cpp_octal_literal():
    from aclnn_conformance.vendor.gtest import _number
    assert (_number("016"), _number("0"), _number("0x1F"), _number("10"), _number("0.5f")) == (14, 0, 31, 10, 0.5)


def test_a_tensor_a_helper_creates_is_not_read_as_null(measured):
    result = read_file(UT)
    assert not any(c.case_id.endswith("case_scalar_tensor_made_by_a_helper") for c in result.cases)
    assert any("set through &self by CreateAclScalarTensor" in p.text() for p in result.problems)
    doc, md, _ = measured
    assert any("CreateAclScalarTensor" in x for x in doc["not_read"]) and "could not read (1)" in md


def test_atk_validity(measured):
    doc, md, _ = measured
    st = doc["st_validity"]
    assert (st["cases"], st["valid"], st["invalid"], st["not_judged"]) == (4, 2, 2, 0)
    by = {c["source"].rsplit("/", 1)[-1]: c for c in st["exceptions"]}
    # int32 is outside aclnnFoo's A2 list: the vendor's own ATK case rejected, with the rule cited
    assert by["arch22_atk_aclnnFoo.json#1"]["verdict"] == "invalid"
    assert by["arch22_atk_aclnnFoo.json#1"]["product"] == "atlas-a2"
    assert "OP_CHECK_DTYPE_NOT_SUPPORT" in by["arch22_atk_aclnnFoo.json#1"]["cause"]
    # no arch prefix or folder: judged on every documented product cann supports, valid on all
    assert "atk_aclnnFoo.json#0" not in by
    # the torch name of the one input (x) is the API's one input (self): int8 is on no list
    assert by["atk_aclnnFoo.json#1"]["verdict"] == "invalid"
    assert by["atk_aclnnFoo.json#1"]["cause"].startswith("rejected on every product")
    assert "2 of 4 cases of the covered APIs are valid calls" in md


def test_atk_unnamed_single_input_and_unstated_output(measured):
    path = CHECKOUT / "math" / "foo" / "tests" / "st" / "aclnnFoo" / "arch22_atk_aclnnFoo.json"
    vc = read_file(path).cases[0]
    assert vc.tensors["self"].dtype == DT.FLOAT and vc.tensors["self"].shape == (9,)
    assert vc.unstated == frozenset({"out"})
    assert vc.problems and all("its values are not read" in p for p in vc.problems)


def test_causes_of_rows_no_rule_covers():
    """A cause investigated by hand (spec/data/agreement_causes.json) is named on its rows; any
    other row no rule covers says it is not yet investigated."""
    from aclnn_conformance.extract.agreement import _cause_key, cause
    row = {"problems": [], "rule": None, "ours": 0, "vendor": 161002, "api": "aclnnLog"}
    text = cause(row, None)
    assert "aclnn_log.cpp:64-66" in text and "ASCEND910B" in text
    other = cause({**row, "api": "aclnnNoSuchApi"}, None)
    assert _cause_key(other) == "a check no rule covers: not yet investigated"
    # a rule refusing what the vendor's test accepts: its investigated cause, else the two readings
    accepted = {"problems": [], "rule": "XMAXIMUM-DTYPE-013", "ours": 161002, "vendor": 0, "api": "aclnnMaximum"}
    assert "test_Maximum.cpp:752-782" in cause(accepted, None) and "CanCast" in cause(accepted, None)
    assert cause({**accepted, "api": "aclnnNoSuchApi"}, None).endswith(
        "a construct misread, or a vendor test contradicting its code")


def test_a_copy_of_the_project_data_read_in_its_place_brings_its_own_value_tables(tmp_path):
    """``agreement --data COPY``: the copy's value tables replace the project's (read both, every
    entry would be there twice)."""
    import shutil

    from aclnn_conformance.spec import registry
    from aclnn_conformance.spec.surface_values import value_entries
    before = registry._project_data        # another test's fixture may have put its own folder there
    use_project_data(PROJECT_DATA)
    project = set(value_entries())
    assert project
    copy = tmp_path / "data"
    shutil.copytree(PROJECT_DATA / "values", copy / "values")
    table = next(p for p in sorted((copy / "values").glob("*.json"))
                 if isinstance(json.loads(p.read_text(encoding="utf-8")), list))
    entries = json.loads(table.read_text(encoding="utf-8"))
    dropped = entries.pop()["api"]
    table.write_text(json.dumps(entries), encoding="utf-8")
    try:
        use_project_data(copy)
        assert set(value_entries()) == project - {dropped}
        use_project_data(PROJECT_DATA)
        assert set(value_entries()) == project
    finally:
        use_project_data(before)


def test_agreement_per_family(measured):
    doc, md, _ = measured
    assert doc["per_family"] == {"math": doc["per_status"]}
    assert "## Per family" in md
    # the family's ATK/TTK cases: 2 of the 4 valid (test_atk_validity)
    assert doc["st_validity"]["per_family"] == {"math": {"cases": 4, "valid": 2, "invalid": 2, "not_judged": 0}}
    assert "| math | - | 1/2 (50.0%) | - | - | 3/3 (100.0%) | 4/5 (80.0%) | 5 | 1 | 3/3 (100.0%) | " \
           "2/4 (50.0%) | no |" in md


def test_a_family_holds_the_bar_only_with_every_status_at_it():
    from aclnn_conformance.extract.agreement import holds_bar
    assert holds_bar({"success": {"agree": 97, "of": 100}, "161002": {"agree": 100, "of": 100}})
    assert not holds_bar({"success": {"agree": 96, "of": 100}, "161002": {"agree": 900, "of": 900}})
    assert not holds_bar({})


def test_reductions_are_the_apis_of_the_reduction_kernels_folders():
    from aclnn_conformance.extract.scope import family_group

    def record(path: str, family: str = "math") -> dict:
        return {"family": family, "document": {"path": path}}
    assert family_group(record("math/reduce_sum/docs/aclnnReduceSum.md")) == "math/reduction"
    assert family_group(record("math/arg_min_with_value/docs/aclnnMinDim.md")) == "math/reduction"
    assert family_group(record("math/cumsum/docs/aclnnCumsum.md")) == "math"
    assert family_group(record("activation/gelu/docs/aclnnGelu.md", "activation")) == "activation"


def test_the_agreement_counts_the_apis_per_lower_layer_route(measured):
    """The APIs with a rule of each lower-layer route, as the committed data files hold them (read here
    from the files themselves: l0op::Cast's template, ViewCopy's route argument, a promotion in a dtype
    expression), and the section of agreement.md that lists them."""
    from aclnn_conformance.extract.agreement import ROUTES, lower_layer_routes
    use_project_data(PROJECT_DATA)   # the project's data, then the module's fixture data again
    try:
        routes = lower_layer_routes()
    finally:
        use_project_data(measured[2])
    in_files = {"cast": set(), "view_copy": set(), "promote": set()}
    for path in (Path(__file__).resolve().parent.parent / "spec" / "data").glob("*/*.json"):
        record = json.loads(path.read_text(encoding="utf-8"))
        for rule in record.get("rules", ()) if isinstance(record, dict) else ():
            text = json.dumps(rule["args"])
            if rule["template"] == "cast_routed":
                in_files["cast"].add(record["api"])
            if '"route": "l0op::ViewCopy"' in text:
                in_files["view_copy"].add(record["api"])
            if rule["template"] == "promotable" or '["promote",' in text or '["combine",' in text:
                in_files["promote"].add(record["api"])
    assert "aclnnGer" in in_files["cast"] and in_files["view_copy"] and "aclnnAdd" in in_files["promote"]
    md = (Path(__file__).resolve().parent.parent / "spec" / "data" / "agreement.md").read_text(encoding="utf-8")
    for key, apis in in_files.items():
        assert set(routes[ROUTES[key]]) == apis, key
        assert f"| {ROUTES[key]} | {len(apis)} | " in md


def test_a_rule_names_the_routes_it_reads():
    from aclnn_conformance.extract.agreement import routes_of_rule
    assert routes_of_rule({"template": "cast_routed", "args": {}}) == {"cast"}
    assert routes_of_rule({"template": "shape_is", "args": {"param": "out", "route": "l0op::ViewCopy"}}) == \
        {"view_copy"}
    promoted = {"template": "dtype_expr_in", "args": {"expr": ["restrict", ["promote", ["of", "self"], ["of", "other"]],
                                                               ["FLOAT"]], "dtypes": ["FLOAT"]}}
    assert routes_of_rule(promoted) == {"promote"}
    assert routes_of_rule({"template": "promotable", "args": {"params": ["self", "other"]}}) == {"promote"}
    assert routes_of_rule({"template": "shape_is", "args": {"param": "out", "shape_expr": ["promote"]}}) == \
        {"promote"}   # the name of a dtype expression, wherever it stands
    assert routes_of_rule({"template": "dtype_in", "args": {"param": "self", "dtypes": ["FLOAT"]}}) == set()


def test_the_unit_tests_beside_an_op_host_op_api_are_measured(tmp_path):
    """ops-nn keeps some op_api unit tests in ``<op>/tests/ut/op_host/op_api`` (norm/add_rms_norm,
    whose CMake compiles them: ops-nn cmake/ut.cmake:366-372); both layouts are measured."""
    from aclnn_conformance.extract.agreement import unit_test_folders
    for layout in ("a/tests/ut/op_api", "b/tests/ut/op_host/op_api", "c/tests/ut/op_kernel"):
        (tmp_path / "fam" / layout).mkdir(parents=True)
    found = [p.relative_to(tmp_path).as_posix() for p in unit_test_folders(tmp_path, ("fam",))]
    assert found == ["fam/a/tests/ut/op_api", "fam/b/tests/ut/op_host/op_api"]


def test_an_op_host_unit_test_folder_without_its_cmake_file_is_not_built(tmp_path):
    """ops-math's op_host/CMakeLists.txt adds only the subfolders holding a CMakeLists.txt
    (math/logical_or/tests/ut/op_host/CMakeLists.txt:11-16): a stale op_api copy there never runs."""
    from aclnn_conformance.extract.agreement import unbuilt_test_folders, unit_test_folders, vendor_builds
    root = tmp_path / "ops-x"
    for layout in ("a/tests/ut/op_api", "b/tests/ut/op_host/op_api", "c/tests/ut/op_host/op_api"):
        (root / "fam" / layout).mkdir(parents=True)
    (root / "fam" / "c/tests/ut/op_host/op_api/CMakeLists.txt").write_text("")
    unbuilt = unbuilt_test_folders(root, unit_test_folders(root, ("fam",)))
    assert unbuilt == {"ops-x/fam/b/tests/ut/op_host/op_api"}
    assert not vendor_builds("ops-x/fam/b/tests/ut/op_host/op_api/test_aclnn_b.cpp:9", unbuilt)
    assert vendor_builds("ops-x/fam/c/tests/ut/op_host/op_api/test_aclnn_c.cpp:9", unbuilt)
    assert vendor_builds("ops-x/fam/a/tests/ut/op_api/test_aclnn_a.cpp:9", unbuilt)
    assert not vendor_builds("ops-x/fam/a/tests/ut/op_api/test_a.cpp:9", unbuilt)


def test_an_api_held_out_is_listed_with_its_expectations_and_counted_in_no_share(tmp_path, monkeypatch):
    """extract/held_out.json: a read API its family leaves out of the data is named in the agreement
    with its vendor expectations per status and its reason, and no share counts them."""
    from aclnn_conformance.extract.build import HELD_OUT   # the one dict extract and agreement read
    why = "held out of its family: a reason"
    monkeypatch.setitem(HELD_OUT, "aclnnFoo", why)
    try:
        assert main(["extract", str(CHECKOUT), "--out", str(tmp_path)]) == 0
        assert main(["agreement", str(CHECKOUT), "--out", str(tmp_path)]) == 0
    finally:
        use_project_data(PROJECT_DATA)
    doc = json.loads((tmp_path / "agreement.json").read_text())
    # the fixture's five expectations (test_every_read_expectation_...): two 161002, three successes
    assert doc["rows"] == [] and doc["per_status"] == {}
    assert doc["held_out"] == [{"api": "aclnnFoo", "why": why, "expectations": {"161002": 2, "success": 3}}]
    md = (tmp_path / "agreement.md").read_text()
    assert "held out: 5 expectations of 1 APIs" in md
    assert f"| aclnnFoo | 161002: 2, success: 3 | {why} |" in md
    scope = json.loads((tmp_path / "scope.json").read_text())
    assert [(a["status"], a["missing"]) for a in scope["apis"] if a["api"] == "aclnnFoo"] == \
        [("not covered", [why])]


def test_a_vendor_test_expecting_any_error_agrees_with_every_failure_the_spec_predicts():
    """``EXPECT_NE(ret, ACLNN_SUCCESS)`` (ops-nn index/gather_v2/tests/ut/op_api/test_aclnn_kthvalue.cpp:38,
    a null self) asserts only that the call fails: a named status or any error status meets it, success or
    "not judged" does not; it is counted under its own class, not under ``other``."""
    from aclnn_conformance.extract.agreement import ANY_ERROR, _class, agrees
    assert _class(None) == ANY_ERROR and _class(561103) == "other" and _class(0) == "success"
    assert agrees(True, None, "error", 161001) and agrees(True, None, "error", None)   # None: any error
    assert agrees(True, None, "not_supported", 161002)
    assert not agrees(True, None, "success", 0) and not agrees(True, None, "not_judged", None)
    # a named status is met by that status only
    assert agrees(False, 161001, "error", 161001) and not agrees(False, 161001, "error", 161002)
    assert not agrees(False, 161002, "error", None)
