"""The extractor on fixtures written in the vendor's style (tests/fixtures/vendor_style): each
recognised construct, each kind of product branch, a CheckParams it cannot read (unread), a
generated layer, and a checkout it cannot read at all."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from aclnn_conformance.extract.build import CheckoutError, extract_checkout, open_checkout
from aclnn_conformance.extract.documents import parse_dtypes, parse_rank
from aclnn_conformance.spec.operator_data import api_key, load_operator_file, rule_prefix_of

FIXTURE = Path(__file__).parent / "fixtures" / "vendor_style"
ALL = ["ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference", "atlas-training"]
NEW_ARCH = ["ascend950", "atlas-a3", "atlas-a2"]          # DAV_2201 or IsRegBase
OLD_ARCH = ["atlas-200i-500-a2", "atlas-inference", "atlas-training"]


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {r["api"]: r for r in extract_checkout(open_checkout(FIXTURE), ("acts",))}


def _code(record: dict) -> list[tuple]:
    return [(r["template"], r["args"].get("param"), r["expect"]["cann"].get("status"),
             tuple(r["expect"]["cann"].get("products", ALL)))
            for r in record["rules"] if r["known_by"] == "code" and r["kind"] == "check"]


def test_check_order_macros_and_an_arch_branch(records):
    foo = records["aclnnFoo"]
    assert foo["coverage"]["status"] == "covered" and foo["host_code"]["kind"] == "op_api"
    assert _code(foo) == [
        ("null", "workspaceSize", 161001, tuple(ALL)), ("null", "executor", 161001, tuple(ALL)),
        ("null", "self", 161001, tuple(ALL)), ("null", "out", 161001, tuple(ALL)),
        ("dtype_in", "self", 161002, tuple(OLD_ARCH)), ("dtype_in", "self", 161002, tuple(NEW_ARCH)),
        ("dtypes_equal", "out", 161002, tuple(ALL)),
        ("private_format", "self", 161002, tuple(ALL)), ("private_format", "out", 161002, tuple(ALL)),
        ("rank_range", "self", 161002, tuple(ALL)), ("shapes_equal", "out", 161002, tuple(ALL))]
    lists = {tuple(r["expect"]["cann"]["products"]): r["args"]["dtypes"] for r in foo["rules"]
             if r["template"] == "dtype_in" and r["known_by"] == "code"}
    assert lists[tuple(NEW_ARCH)] == ["FLOAT", "FLOAT16", "BF16"] and lists[tuple(OLD_ARCH)] == ["FLOAT", "FLOAT16"]
    rank = next(r for r in foo["rules"] if r["template"] == "rank_range" and r["known_by"] == "code")
    assert rank["args"]["max"] == 8      # MAX_SUPPORT_DIMS_NUMS read from the common header
    assert foo["values"]["empty_return"]["params"] == ["self"]
    assert foo["values"]["output_dtype"]["out"]["rule"] == "same_as"


def test_every_rule_cites_repository_path_and_line(records):
    for record in records.values():
        for rule in record["rules"]:
            for c in rule["citations"]:
                assert c["path"] and c["line"] > 0 and "repository" in c and "commit" in c, rule["id"]
    first = records["aclnnFoo"]["rules"][2]
    cited = (FIXTURE / first["citations"][0]["path"]).read_text().splitlines()[first["citations"][0]["line"] - 1]
    assert "OP_CHECK_NULL(self" in cited


def test_soc_range_ternary_common_helper_promotion_and_a_product_failure(records):
    bar = _code(records["aclnnBar"])
    assert bar[:3] == [("null", p, 161001, tuple(ALL)) for p in ("self", "other", "out")]
    assert ("product", None, 161002, ("atlas-inference",)) in bar        # SocVersion == ASCEND310P
    templates = [t for t, *_ in bar]
    assert templates.index("promotable") < templates.index("castable") < templates.index("broadcastable")
    out_lists = {p: r["args"]["dtypes"] for r in records["aclnnBar"]["rules"]
                 if r["template"] == "dtype_in" and r["args"]["param"] == "out" and r["known_by"] == "code"
                 for p in r["expect"]["cann"]["products"]}
    assert out_lists["atlas-a2"] == ["FLOAT", "FLOAT16"]                 # GetDtypeSupportListV2's first list
    assert out_lists["atlas-training"] == ["FLOAT", "FLOAT16", "INT32"]
    self_lists = {tuple(r["expect"]["cann"]["products"]): r["args"]["dtypes"] for r in records["aclnnBar"]["rules"]
                  if r["template"] == "dtype_in" and r["args"]["param"] == "self" and r["known_by"] == "code"}
    assert self_lists[tuple(NEW_ARCH)][-1] == "BF16"                     # 910B <= soc <= 910E, and 950
    empty = records["aclnnBar"]["values"]["empty_return"]
    assert sorted(empty["params"]) == ["other", "self"] and empty["any"]


def test_an_inplace_api_forwarding_to_another_reads_through_it(records):
    inplace = records["aclnnInplaceBar"]
    nulls = [r["args"]["param"] for r in inplace["rules"] if r["template"] == "null" and r["known_by"] == "code"]
    assert nulls == ["selfRef", "other"]          # self and out are both selfRef: one check
    assert all(r["args"].get("param") != "out" for r in inplace["rules"])


def test_a_check_params_it_cannot_read_is_unread_after_what_it_read(records):
    baz = records["aclnnBaz"]
    assert baz["coverage"]["status"] == "partly covered"
    kinds = [(r["template"], r["known_by"]) for r in baz["rules"] if r["kind"] == "check" and r["known_by"] != "doc"]
    assert kinds == [("null", "code"), ("null", "code"), ("unread", "unread")]
    assert baz["unread"] and "loop" in baz["unread"][0]["what"]
    assert not any(r["template"] == "dtypes_equal" for r in baz["rules"])   # after the unread: never guessed


def test_a_generated_layer_is_unread_and_documented(records):
    qux = records["aclnnQux"]
    assert qux["host_code"]["kind"] == "generated" and qux["coverage"]["status"] == "partly covered"
    assert qux["rules"][0]["template"] == "unread" and qux["rules"][0]["expect"]["cann"] == {"not_judged": True}


def test_the_document_gives_doc_rules_products_and_errata(records):
    foo = records["aclnnFoo"]
    doc = [r for r in foo["rules"] if r["known_by"] == "doc"]
    assert doc[0]["template"] == "product" and doc[0]["expect"]["doc"]["products"] == ["atlas-200i-500-a2"]
    per = {tuple(r["expect"]["doc"]["products"]): r["args"]["dtypes"] for r in doc
           if r["template"] == "dtype_in" and r["args"]["param"] == "self"}
    assert per[("atlas-inference", "atlas-training")] == ["FLOAT", "FLOAT16"]     # the prose override
    assert per[("ascend950", "atlas-a2", "atlas-a3")] == ["FLOAT", "FLOAT16", "BF16"]
    assert any(e["doc_says"] == ["ND"] for e in foo["errata"])
    assert parse_dtypes("FLOAT、FLOAT16、BFLOAT16") == ("FLOAT", "FLOAT16", "BF16")
    assert parse_rank("0-8") == (0, 8) and parse_rank("不超过8维") == (0, 8) and parse_rank("与self一致") is None


def test_the_data_file_loads_as_an_operator_record(records, tmp_path, monkeypatch):
    rec = records["aclnnFoo"]
    path = tmp_path / rec["family"] / f"{rec['key']}.json"
    path.parent.mkdir()
    path.write_text(json.dumps(rec))
    record = load_operator_file(path)
    assert record.key == "foo" and record.spec.rule_prefix == "XFOO" and not record.spec.values_judged
    assert not record.has("oracle") and "status-only" in record.absent_reason("oracle")
    assert [r.id for r in record.spec.checks()][:2] == ["XFOO-NULL-001", "XFOO-NULL-002"]
    (tmp_path / "values").mkdir()
    from aclnn_conformance.spec import surface_values
    from aclnn_conformance.spec.surface_values import VALUES_FOLDER
    monkeypatch.setattr(surface_values, "_ADDED_FOLDERS", [])   # the folder is this test's alone
    abs_entry = next(e for e in json.loads((VALUES_FOLDER / "math.json").read_text(encoding="utf-8"))
                     if e["api"] == "aclnnAbs")
    (tmp_path / "values" / "acts.json").write_text(json.dumps([{**abs_entry, "api": "aclnnFoo",
                                                                  "key": "foo"}]))
    from aclnn_conformance.spec import operator_data
    operator_data._values_apis.cache_clear()
    judged = load_operator_file(path)
    assert judged.spec.values_judged and judged.oracle == "aclnn_conformance.oracle.surface:from_case"
    assert surface_values.value_entry("aclnnFoo").function == "absolute(self)"
    monkeypatch.undo()
    surface_values.value_entries.cache_clear()
    surface_values._by_key.cache_clear()
    operator_data._values_apis.cache_clear()


def test_keys_and_prefixes():
    assert api_key("aclnnGelu") == "gelu" and api_key("aclnnGeluBackward") == "gelu_backward"
    assert api_key("aclnnAddV3") == "add_v3" and api_key("aclnnInplaceXLogYTensor") == "inplace_x_log_y_tensor"
    assert rule_prefix_of("gelu_backward") == "XGELUBACKWARD"


def test_a_folder_that_is_no_checkout_is_a_one_line_error(tmp_path):
    with pytest.raises(CheckoutError, match="not an operator checkout"):
        open_checkout(tmp_path)
    from aclnn_conformance.cli import main
    assert main(["extract", str(tmp_path), "--out", str(tmp_path / "out")]) == 2


def test_an_api_with_a_hand_written_spec_is_left_to_it_and_named(tmp_path, capsys):
    import shutil
    from aclnn_conformance.cli import main
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    foo = root / "acts" / "foo"
    for path in (foo / "docs" / "aclnnFoo.md", foo / "op_api" / "aclnn_foo.cpp"):
        path.write_text(path.read_text().replace("aclnnFoo", "aclnnApplyAdamW"))
    (foo / "docs" / "aclnnFoo.md").rename(foo / "docs" / "aclnnApplyAdamW.md")
    out = tmp_path / "out"
    assert main(["extract", str(root), "--family", "acts", "--out", str(out)]) == 0
    scope = json.loads((out / "scope.json").read_text())
    assert scope["hand_specified"] == ["aclnnApplyAdamW"]
    assert "aclnnApplyAdamW" not in {row["api"] for row in scope["apis"]}
    assert not list(out.glob("*/apply_adam_w.json"))   # the one record stays the spec module's
    assert "left to their hand-written spec: aclnnApplyAdamW" in capsys.readouterr().out


def test_the_scope_names_every_documented_api_of_the_families_not_extracted(tmp_path, capsys):
    """A family folder not taken (here `losses/`, and `matmul/`, which stays specified by hand) adds
    its APIs to scope.json as not covered with the reason, writes no data file, and is not measured."""
    import shutil
    from aclnn_conformance.cli import main
    from aclnn_conformance.extract.agreement import measured_families
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    for family, doc in (("losses", "aclnnHinge&aclnnInplaceHinge.md"), ("matmul", "aclnnMm.md"),
                        ("experimental", "aclnnTrial.md")):
        (root / family / "op" / "docs").mkdir(parents=True)
        (root / family / "op" / "docs" / doc).write_text("# doc\n")
    out = tmp_path / "out"
    assert main(["extract", str(root), "--family", "acts", "--out", str(out)]) == 0
    scope = json.loads((out / "scope.json").read_text())
    others = {row["api"]: row for row in scope["apis"] if not row.get("family_taken", True)}
    documented = {api for path in root.glob("*/*/docs/aclnn*.md") if path.parts[-4] not in ("acts", "experimental")
                  for api in path.name[:-3].split("&")}
    assert {"aclnnHinge", "aclnnInplaceHinge", "aclnnMm"} <= set(others)
    assert set(others) == documented and "aclnnTrial" not in others   # experimental/ is no main tree
    assert {row["status"] for row in others.values()} == {"not covered"}
    assert "its family (losses/) is not extracted" in others["aclnnHinge"]["missing"][0]
    assert "stays specified by hand" in others["aclnnMm"]["missing"][0]
    assert scope["counts"]["not covered"] == sum(row["status"] == "not covered" for row in scope["apis"])
    assert not list(out.glob("losses/*.json")) and not list(out.glob("matmul/*.json"))
    assert measured_families(scope["apis"][0]["repository"], root.name, out) == ("acts",)
    printed = capsys.readouterr().out
    assert f"{len(scope['apis'])} documented APIs" in printed


def test_a_private_checkout_without_family_reads_every_family_folder(tmp_path, capsys):
    """A repository laid out like the vendor's (not named ops-*) is read whole when no --family is
    given: every folder holding <op>/docs/aclnn*.md but experimental/; the out folder is made."""
    import shutil
    from aclnn_conformance.cli import main
    root = tmp_path / "my-ops"
    shutil.copytree(FIXTURE, root)
    (root / "experimental" / "trial" / "docs").mkdir(parents=True)
    (root / "experimental" / "trial" / "docs" / "aclnnTrial.md").write_text("# doc\n")
    out = tmp_path / "new" / "out"
    assert main(["extract", str(root), "--out", str(out)]) == 0
    scope = json.loads((out / "scope.json").read_text())
    assert {row["family"] for row in scope["apis"]} == {"acts", "dtypes"}
    assert all(row.get("family_taken", True) for row in scope["apis"])
    assert {p.parent.name for p in out.glob("*/*.json")} == {"acts", "dtypes"}   # a data file in each


def test_a_document_without_a_prototype_is_listed_not_dropped(tmp_path):
    """A page of an extracted family that names its API but states no prototype (the vendor's pointer
    to its community site) is a scope row, not covered and why: the scope names every documented API."""
    import shutil
    from aclnn_conformance.cli import main
    root = tmp_path / "checkout"
    shutil.copytree(FIXTURE, root)
    (root / "acts" / "stub" / "docs").mkdir(parents=True)
    (root / "acts" / "stub" / "docs" / "aclnnStub.md").write_text(
        "# aclnnStub\n\nThis page is being reworked; see the community site.\n")
    (root / "acts" / "stub" / "docs" / "aclnnHeadless.md").write_text(   # its section headed without the suffix
        "# aclnnHeadless\n\n## 函数原型\n\n```Cpp\naclnnStatus aclnnHeadlessGetWorkspaceSize(\n"
        "  const aclTensor* self, uint64_t* workspaceSize, aclOpExecutor** executor)\n```\n\n## aclnnHeadless\n")
    out = tmp_path / "out"
    assert main(["extract", str(root), "--family", "acts", "--out", str(out)]) == 0
    scope = json.loads((out / "scope.json").read_text())
    (row,) = [r for r in scope["apis"] if r["api"] == "aclnnStub"]
    assert row["status"] == "not covered" and row["family"] == "acts"
    assert "states no prototype (aclnnStubGetWorkspaceSize)" in row["missing"][0]
    (headless,) = [r for r in scope["apis"] if r["api"] == "aclnnHeadless"]
    assert "states the prototype (aclnnHeadlessGetWorkspaceSize, line 6) but no section headed so" in \
        headless["missing"][0]
    assert scope["counts"]["not covered"] == sum(r["status"] == "not covered" for r in scope["apis"])
    assert not list(out.glob("acts/stub.json"))


def test_ops_transformer_is_read_for_the_census_only_and_mc2_says_why(tmp_path):
    """No ops-transformer family holds the bar yet: without --family its checkout gives the scope a row
    per documented API (mc2's with its own reason) and the commit read, and writes no data file."""
    import shutil
    from aclnn_conformance.cli import main
    root = tmp_path / "ops-transformer"
    shutil.copytree(FIXTURE, root)
    (root / "mc2" / "matmul_all_reduce" / "docs").mkdir(parents=True)
    (root / "mc2" / "matmul_all_reduce" / "docs" / "aclnnMatmulAllReduce.md").write_text("# doc\n")
    out = tmp_path / "out"
    assert main(["extract", str(root), "--out", str(out)]) == 0
    scope = json.loads((out / "scope.json").read_text())
    rows = {r["api"]: r for r in scope["apis"]}
    assert {r["status"] for r in rows.values()} == {"not covered"} and not list(out.glob("*/*.json"))
    assert "is not extracted: a family joins the operator data only when" in rows["aclnnFoo"]["missing"][0]
    assert "collective communication across devices" in rows["aclnnMatmulAllReduce"]["missing"][0]
    assert scope["read"] == {"hicann/ops-transformer": ""}   # the fixture is no git checkout: no commit
