"""Dtype, promotion and product-list constructs of the host-code reader (tests/fixtures/vendor_style/
dtypes): a dtype list chosen by a switch on the NPU architecture, a ternary whose branches name
``op::`` functions, promoted dtypes computed and chained (``dtype_value`` expressions), checks on them,
branches on the call's dtypes (a rule's ``when`` guard), and a dtype assigned in such a branch (unread)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from aclnn_conformance.extract.build import extract_checkout, open_checkout
from aclnn_conformance.spec.templates import CallView, TensorView, dtype_value, guard_holds, predicate

FIXTURE = Path(__file__).parent / "fixtures" / "vendor_style"
ALL = ["ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference", "atlas-training"]
NEW_ARCH = ["ascend950", "atlas-a3", "atlas-a2"]
OLD_ARCH = ["atlas-200i-500-a2", "atlas-inference", "atlas-training"]
NOT_950 = ALL[1:]


def call(**dtypes) -> CallView:
    return CallView({n: None if d is None else TensorView(d, (2,), "ND") for n, d in dtypes.items()}, {},
                    frozenset(), "atlas-a2")


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {r["api"]: r for r in extract_checkout(open_checkout(FIXTURE), ("dtypes",))}


def _code(record: dict) -> list[tuple]:
    return [(r["template"], json.loads(json.dumps(r["args"])), r["expect"]["cann"].get("status"), r["expect"]["cann"].get("products"))
            for r in record["rules"] if r["known_by"] == "code" and r["kind"] == "check"]


P = ["promote", ["promote", ["of", "self"], ["of", "other"]], ["of", "out"]]
P950 = ["promote", ["promote", ["of", "other"], ["of", "self"]], ["of", "out"]]


def test_dtype_value_and_guards_follow_opbase():
    c = call(self="INT32", other="FLOAT16", out="BOOL", x="UINT16", y="INT8")
    assert dtype_value(c, ["promote", ["of", "self"], ["of", "other"]]) == "FLOAT16"
    assert dtype_value(c, ["promote", ["of", "x"], ["of", "y"]]) == "UNDEFINED"
    assert dtype_value(c, ["promote", ["dtype", "UNDEFINED"], ["of", "self"]]) == "UNDEFINED"
    assert dtype_value(c, ["if", ["in", ["of", "self"], ["integral_bool"]], ["dtype", "FLOAT"], ["of", "self"]]) \
        == "FLOAT"
    assert dtype_value(c, ["restrict", ["of", "self"], ["FLOAT"]]) == "UNDEFINED"
    assert dtype_value(call(self=None), ["of", "self"]) is None
    assert guard_holds(c, ["in", ["of", "out"], ["integral_bool"]]) is True
    assert guard_holds(c, ["cast", ["of", "other"], ["of", "self"]]) is False      # floating to integral
    assert guard_holds(c, ["and", ["in", ["of", "self"], ["complex"]], ["in", ["of", "zz"], ["BOOL"]]]) is False
    assert guard_holds(c, ["or", ["in", ["of", "zz"], ["BOOL"]], ["in", ["of", "self"], ["INT32"]]]) is True
    assert guard_holds(c, ["not", ["in", ["of", "zz"], ["BOOL"]]]) is None


def test_expression_arguments_and_the_when_guard():
    undefined = predicate("promotable", {"param": "self", "other": "other", "expr": P})
    assert undefined(call(self="UINT16", other="UINT16", out="INT8"))
    assert not undefined(call(self="INT32", other="INT32", out="INT8"))
    cast = predicate("castable", {"from_expr": ["of", "alpha"], "to_expr": P})
    assert cast(call(alpha="FLOAT", self="INT32", other="INT32", out="INT32"))
    assert not cast(call(alpha="INT32", self="FLOAT", other="INT32", out="INT32"))
    guarded = predicate("dtypes_equal", {"param": "self", "other": "out", "when": ["in", ["of", "self"], ["complex"]]})
    assert guarded(call(self="COMPLEX64", out="FLOAT"))
    assert not guarded(call(self="FLOAT", out="INT32"))        # the branch is not taken: the rule is silent


def test_switch_lists_ternaries_and_promoted_checks(records):
    pro = records["aclnnPro"]
    assert pro["coverage"]["status"] == "covered"
    rules = _code(pro)
    lists = {tuple(p): a["dtypes"] for t, a, s, p in rules if t == "dtype_in" and a["param"] == "self"
             and "when" not in a}
    assert lists == {tuple(OLD_ARCH): ["FLOAT", "INT32"],
                     tuple(NEW_ARCH): ["FLOAT", "FLOAT16", "INT32", "BOOL", "COMPLEX64"]}
    # IsRegBase() ? op::PromoteType(other, self) : op::PromoteType(self, other), then chained with out
    assert ("promotable", {"expr": P, "other": "other", "param": "self"}, 161002, NOT_950) in rules
    assert ("promotable", {"expr": P950, "other": "self", "param": "other"}, 161002, ["ascend950"]) in rules
    integral_bool = ["BOOL", "INT16", "INT32", "INT64", "INT8", "UINT16", "UINT32", "UINT64", "UINT8"]
    # if (promoteType == DT_BOOL) OP_CHECK(IsIntegralType(alpha, true)) else if (!CanCast(alpha, promoteType))
    assert ("dtype_in", {"dtypes": integral_bool, "list": "literal", "param": "alpha",
                         "when": ["in", P, ["BOOL"]]}, 161002, NOT_950) in rules
    assert ("castable", {"from_expr": ["of", "alpha"], "to_expr": P, "when": ["not", ["in", P, ["BOOL"]]]},
            161002, NOT_950) in rules
    compute = ["if", ["in", P, ["integral_bool"]], ["dtype", "FLOAT"], P]
    assert ("promotable", {"expr": ["restrict", compute, ["FLOAT", "INT32", "COMPLEX64"]], "other": "other",
                           "param": "self"}, 161002, NOT_950) in rules
    assert ("castable", {"from_expr": compute, "to": "out"}, 161002, NOT_950) in rules


def test_a_branch_on_self_dtype_guards_its_checks_and_the_path_after_its_return(records):
    rules = _code(records["aclnnPro"])
    complex_self = ["in", ["of", "self"], ["complex"]]
    assert ("dtypes_equal", {"other": "out", "param": "self", "when": complex_self}, 161002, ALL) in rules
    assert ("castable", {"from_expr": ["dtype", "BOOL"], "to": "out", "when": ["not", complex_self]},
            161002, ALL) in rules


def test_a_dtype_assigned_in_a_dtype_branch_or_returned_from_one_is_a_choice(records):
    rules = _code(records["aclnnLef"])
    compute = ["if", ["in", ["of", "self"], ["integral_bool"]], ["dtype", "FLOAT"], ["of", "self"]]
    assert rules[2] == ("promotable", {"expr": ["restrict", compute, ["FLOAT", "COMPLEX64"]], "other": "self",
                                       "param": "self"}, 161001, ALL)
    complex_out = ["in", ["of", "out"], ["complex"]]
    scalar = ["if", complex_out, ["dtype", "COMPLEX64"],
              ["if", ["and", ["not", complex_out], ["in", ["of", "out"], ["floating"]]], ["dtype", "FLOAT"],
               ["of", "out"]]]
    assert rules[3] == ("castable", {"from_expr": compute, "to_expr": scalar}, 161001, ALL)


def test_a_dtype_assigned_in_a_branch_the_reader_does_not_follow_is_left_unread(records):
    lef = records["aclnnLef"]
    assert lef["coverage"]["status"] == "partly covered"
    assert [r["template"] for r in lef["rules"] if r["known_by"] in ("code", "unread")][-1] == "unread"
    assert "!CheckType(computeType, LIST)" in lef["coverage"]["missing"][0]


def test_a_switch_on_a_dtype_and_a_branch_on_two_dtypes_differing(records):
    sw = records["aclnnSw"]
    rules = _code(sw)
    assert rules[2] == ("castable", {"param": "self", "to": "out",
                                     "when": ["not", ["same", ["of", "self"], ["of", "out"]]]}, 161002, ALL)
    f16 = ["in", ["of", "self"], ["FLOAT16"]]
    bf16_or_f32 = ["or", ["in", ["of", "self"], ["BF16"]], ["in", ["of", "self"], ["FLOAT"]]]
    to_complex = ["if", f16, ["dtype", "COMPLEX32"],
                  ["if", ["and", ["not", f16], bf16_or_f32], ["dtype", "COMPLEX64"], ["dtype", "UNDEFINED"]]]
    assert rules[3] == ("promotable", {"expr": to_complex, "other": "self", "param": "self"}, 161002, ALL)
    undefined = predicate("promotable", rules[3][1])
    assert undefined(call(self="INT32")) and not undefined(call(self="BF16"))
    # a case falling through into the next is left unread
    assert sw["rules"][4]["template"] == "unread" and "falling through" in sw["coverage"]["missing"][0]


def test_check_type_on_a_local_and_a_conjunction_of_dtype_conditions(records):
    rules = _code(records["aclnnCj"])
    assert rules == [
        ("dtype_in", {"dtypes": ["FLOAT", "BOOL"], "list": "dtypes/cj/op_api/aclnn_cj.cpp:6", "param": "self"},
         161002, ALL),
        ("dtype_not_in", {"dtypes": ["BOOL"], "list": "literal", "param": "self",
                          "when": ["in", ["of", "out"], ["BOOL"]]}, 161002, ALL),
        ("castable", {"param": "out", "to_dtype": "FLOAT"}, 161002, ALL)]   # out != nullptr && !CanCast(...)
    both = predicate("dtype_not_in", rules[1][1])
    assert both(call(self="BOOL", out="BOOL")) and not both(call(self="BOOL", out="FLOAT"))


def test_a_bool_local_holding_check_type_and_an_acl_data_type_argument(records):
    at = records["aclnnAt"]
    assert at["coverage"]["status"] == "covered"
    rules = _code(at)
    assert rules[:2] == [
        ("dtype_in", {"dtypes": ["FLOAT"], "list": "dtypes/at/op_api/aclnn_at.cpp:7", "param": "self"}, 161002,
         ["atlas-a3", "atlas-200i-500-a2", "atlas-inference", "atlas-training"]),
        ("dtype_in", {"dtypes": ["FLOAT", "BF16"], "list": "dtypes/at/op_api/aclnn_at.cpp:6", "param": "self"},
         161002, ["ascend950", "atlas-a2"])]
    assert rules[2] == ("promotable", {"expr": ["restrict", ["attr_dtype", "dtype"], ["FLOAT", "BF16"]],
                                       "other": "dtype", "param": "dtype"}, 161002, ALL)
    from aclnn_conformance.spec.enums import AclDataType
    p = predicate("promotable", rules[2][1])
    view = lambda v: CallView({}, {"dtype": v}, frozenset(), "atlas-a2")   # noqa: E731
    assert p(view(int(AclDataType.INT32))) and not p(view(int(AclDataType.BF16))) and not p(view(None))
    # OP_CHECK_DTYPE_NOT_MATCH(out, op::ToOpDataType(dtype)): out's dtype when it is dtype's, else undefined
    match = ["if", ["same", ["of", "out"], ["attr_dtype", "dtype"]], ["of", "out"], ["dtype", "UNDEFINED"]]
    assert rules[3] == ("promotable", {"expr": match, "other": "dtype", "param": "out"}, 161002, ALL)
    m = predicate("promotable", rules[3][1])
    with_out = lambda d, v: CallView({"out": TensorView(d, (2,), "ND")}, {"dtype": v}, frozenset(), "")  # noqa: E731
    assert m(with_out("FLOAT", int(AclDataType.BF16))) and not m(with_out("BF16", int(AclDataType.BF16)))


def test_an_empty_product_list_and_a_list_written_in_place(records):
    rules = _code(records["aclnnLs"])
    assert rules == [
        ("product", {}, 161002, OLD_ARCH),
        ("dtype_in", {"dtypes": ["FLOAT", "BF16"], "list": "dtypes/ls/op_api/aclnn_ls.cpp:6", "param": "self"},
         161002, NEW_ARCH),
        ("dtype_in", {"dtypes": ["FLOAT"], "list": "literal", "param": "out"}, 161002, NEW_ARCH)]
    assert records["aclnnLs"]["supported"]["cann"] == NEW_ARCH


def test_a_bool_helper_of_one_return_is_inlined_in_a_dtype_choice(records):
    rules = _code(records["aclnnBh"])
    double_out = ["in", ["of", "out"], ["DOUBLE"]]
    float_self = ["or", ["in", ["of", "self"], ["FLOAT"]], ["in", ["of", "self"], ["FLOAT16"]]]
    infer = ["if", double_out, ["dtype", "DOUBLE"],
             ["if", float_self, ["of", "self"], ["dtype", "FLOAT"]]]
    assert rules == [
        ("dtype_in", {"dtypes": ["FLOAT", "DOUBLE"], "list": "dtypes/bh/op_api/aclnn_bh.cpp:19", "param": "out"},
         161002, ALL),     # if (!CheckOut(out)) { return ACLNN_ERR_PARAM_INVALID; }: CheckOut inlined
        ("castable", {"from_expr": infer, "to": "out"}, 161002, ALL)]


def test_maps_keyed_by_the_architecture_or_by_a_dtype(records):
    rules = _code(records["aclnnMp"])
    assert [(t, a["dtypes"], p) for t, a, s, p in rules[:2]] == [
        ("dtype_in", ["FLOAT"], OLD_ARCH), ("dtype_in", ["FLOAT", "COMPLEX64"], NEW_ARCH)]
    template, args, status, products = rules[2]
    self_is = lambda d: ["in", ["of", "self"], [d]]   # noqa: E731
    real = ["if", self_is("COMPLEX64"), ["dtype", "FLOAT"], ["if", self_is("COMPLEX128"), ["dtype", "DOUBLE"],
                                                              ["dtype", "UNDEFINED"]]]
    assert template == "promotable" and products == ALL
    assert args["expr"] == ["if", ["same", ["of", "out"], real], ["of", "out"], ["dtype", "UNDEFINED"]]
    assert args["when"] == ["and", ["in", ["of", "self"], ["complex"]],
                            ["in", ["of", "self"], ["COMPLEX64", "COMPLEX128"]]]
    p = predicate(template, args)
    assert p(call(self="COMPLEX64", out="DOUBLE")) and not p(call(self="COMPLEX64", out="FLOAT"))
    assert not p(call(self="FLOAT", out="DOUBLE"))


def test_a_dtype_assigned_in_a_loop_is_left_unread(records):
    lp = records["aclnnLp"]
    assert [r["template"] for r in lp["rules"] if r["known_by"] in ("code", "unread")] == ["unread"]
    assert "!CheckType(computeType, LIST)" in lp["coverage"]["missing"][0]
