"""The rule templates of spec/templates.py: each predicate on calls that hold and calls that break it."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.dtype_promotion import can_cast, promote_type
from aclnn_conformance.spec.templates import (CallView, TemplateError, TensorView, broadcast_shape,
                                              predicate)


def call(product: str = "atlas-a2", nulls=(), attrs=None, **tensors) -> CallView:
    views = {n: (None if t is None else TensorView(*t)) for n, t in tensors.items()}
    return CallView(views, attrs or {}, frozenset(nulls), product)


F32 = ("FLOAT", (2, 3), "ND")
F16 = ("FLOAT16", (2, 3), "ND")
I32 = ("INT32", (2, 3), "ND")


def test_null_sees_tensors_scalars_and_protocol_outputs():
    p = predicate("null", {"param": "self"})
    assert p(call(self=None)) and not p(call(self=F32))
    assert predicate("null", {"param": "alpha"})(call(attrs={"alpha": None}))
    assert not predicate("null", {"param": "alpha"})(call(attrs={"alpha": {"dtype": "FLOAT", "value": 1}}))
    ws = predicate("null", {"param": "workspaceSize"})
    assert ws(call(nulls={"workspaceSize"}, self=F32)) and not ws(call(self=F32))


def test_dtype_in_and_not_in_with_one_set_or_per_product_sets():
    p = predicate("dtype_in", {"param": "self", "dtypes": ["FLOAT", "FLOAT16"]})
    assert not p(call(self=F32)) and p(call(self=I32))
    assert not p(call(self=None))     # a null tensor is the null rule's
    per = predicate("dtype_in", {"param": "self", "sets": {"atlas-a2": ["FLOAT"], "ascend950": ["INT32"]}})
    assert per(call("atlas-a2", self=I32)) and not per(call("ascend950", self=I32))
    assert not per(call("atlas-training", self=I32))    # a product without a set does not check
    banned = predicate("dtype_not_in", {"param": "self", "dtypes": ["BF16"]})
    assert banned(call(self=("BF16", (2,), "ND"))) and not banned(call(self=F32))


def test_dtypes_equal_shapes_equal_and_broadcastable():
    eq = predicate("dtypes_equal", {"param": "out", "other": "self"})
    assert eq(call(self=F32, out=F16)) and not eq(call(self=F32, out=F32))
    same = predicate("shapes_equal", {"param": "out", "other": "self"})
    assert same(call(self=F32, out=("FLOAT", (3, 2), "ND"))) and not same(call(self=F32, out=F32))
    bc = predicate("broadcastable", {"param": "self", "other": "other"})
    assert not bc(call(self=("FLOAT", (2, 1), "ND"), other=("FLOAT", (4, 2, 3), "ND")))
    assert bc(call(self=("FLOAT", (2, 3), "ND"), other=("FLOAT", (4, 3), "ND")))
    assert broadcast_shape((2, 1), (4, 2, 3)) == (4, 2, 3) and broadcast_shape((2,), (3,)) is None


def test_promotable_and_castable_follow_opbase():
    assert promote_type("FLOAT16", "BF16") == "FLOAT"      # data_type_utils.h kPromoteTypesLookup
    assert promote_type("UINT8", "INT8") == "INT16"
    assert promote_type("UINT16", "FLOAT") is None
    assert promote_type("INT32", "FLOAT16") == "FLOAT16"
    pro = predicate("promotable", {"param": "self", "other": "other"})
    assert pro(call(self=("UINT16", (2,), "ND"), other=("FLOAT", (2,), "ND")))
    assert not pro(call(self=I32, other=F16))
    assert not can_cast("FLOAT", "INT32") and not can_cast("COMPLEX64", "FLOAT") and not can_cast("INT32", "BOOL")
    assert can_cast("BOOL", "INT8") and can_cast("INT32", "FLOAT16")
    cast = predicate("castable", {"param": "self", "to": "out"})
    assert cast(call(self=F32, out=I32)) and not cast(call(self=I32, out=F32))
    promoted = predicate("castable", {"from_promoted": ["self", "other"], "to": "out"})
    assert promoted(call(self=I32, other=F16, out=I32)) and not promoted(call(self=I32, other=F16, out=F32))
    fixed = predicate("castable", {"param": "alpha", "to_dtype": "FLOAT"})
    assert fixed(call(alpha=("COMPLEX64", (), "ND"))) and not fixed(call(alpha=I32))


def test_private_format_with_opbase_list_or_the_file_own():
    p = predicate("private_format", {"param": "self", "formats": "opbase"})
    assert p(call(self=("FLOAT", (2, 3), "FRACTAL_NZ"))) and p(call(self=("FLOAT", (2, 3), "NC1HWC0")))
    assert not p(call(self=("FLOAT", (2, 3), "NCHW"))) and not p(call(self=("FLOAT", (2, 3), "HWCN")))
    own = predicate("private_format", {"param": "self", "formats": ["NC1HWC0"]})
    assert not own(call(self=("FLOAT", (2, 3), "FRACTAL_NZ"))) and own(call(self=("FLOAT", (2, 3), "NC1HWC0")))


def test_rank_range_empty_attr_range_product_and_unread():
    r = predicate("rank_range", {"param": "self", "max": 8})
    assert r(call(self=("FLOAT", (1,) * 9, "ND"))) and not r(call(self=("FLOAT", (1,) * 8, "ND")))
    lo = predicate("rank_range", {"param": "self", "min": 2, "max": 2})
    assert lo(call(self=("FLOAT", (3,), "ND"))) and not lo(call(self=F32))
    empty = predicate("empty", {"params": ["self", "out"], "any": True})
    assert empty(call(self=("FLOAT", (0, 3), "ND"), out=F32)) and not empty(call(self=F32, out=F32))
    both = predicate("empty", {"params": ["self", "out"], "any": False})
    assert not both(call(self=("FLOAT", (0, 3), "ND"), out=F32))
    attr = predicate("attr_range", {"attr": "p", "min": 0, "max": 1})
    assert attr(call(attrs={"p": 2})) and attr(call(attrs={"p": -1})) and not attr(call(attrs={"p": 0.5}))
    # a value of another kind (a string a case gives the parameter) is not this rule's to judge
    assert not attr(call(attrs={"p": "mean"})) and not attr(call(attrs={"p": None}))
    assert predicate("product", {})(call(self=F32))
    unread = predicate("unread", {"unless_empty": ["self"]})
    assert unread(call(self=F32)) and not unread(call(self=("FLOAT", (0,), "ND")))


def test_unknown_template_or_missing_argument_is_an_error():
    with pytest.raises(TemplateError, match="unknown template"):
        predicate("no_such", {})
    with pytest.raises(TemplateError, match="needs other"):
        predicate("shapes_equal", {"param": "self"})
    with pytest.raises(TemplateError, match="sets or dtypes"):
        predicate("dtype_in", {"param": "self"})


def test_broadcastable_all_broadcast_equals_and_shapes_equal_or_single():
    allb = predicate("broadcastable_all", {"of": ["a", "b", "c"]})
    assert not allb(call(a=("FLOAT", (2, 1), "ND"), b=("FLOAT", (1, 3), "ND"), c=("FLOAT", (4, 1, 1), "ND")))
    assert allb(call(a=("FLOAT", (2, 1), "ND"), b=("FLOAT", (1, 3), "ND"), c=("FLOAT", (4, 2), "ND")))
    assert not allb(call(a=None, b=F32, c=F32))              # a null tensor is the null rule's
    eq = predicate("broadcast_equals", {"param": "out", "of": ["a", "b"]})
    assert not eq(call(a=("FLOAT", (2, 1), "ND"), b=("FLOAT", (3,), "ND"), out=F32))
    assert eq(call(a=("FLOAT", (2, 1), "ND"), b=("FLOAT", (3,), "ND"), out=("FLOAT", (3,), "ND")))
    assert not eq(call(a=("FLOAT", (2,), "ND"), b=("FLOAT", (3,), "ND"), out=F32))   # no broadcast: not this rule
    single = predicate("shapes_equal_or_single", {"param": "a", "other": "b"})
    assert not single(call(a=("FLOAT", (1, 1), "ND"), b=("FLOAT", (), "ND")))   # both hold one element
    assert single(call(a=("FLOAT", (2,), "ND"), b=("FLOAT", (1, 2), "ND"))) and not single(call(a=F32, b=F32))


def test_formats_equal_and_attr_in_rank_range():
    fmt = predicate("formats_equal", {"param": "self", "other": "out"})
    assert fmt(call(self=F32, out=("FLOAT", (2, 3), "NCHW"))) and not fmt(call(self=F32, out=F32))
    # dim in [-rank, rank - 1], [-1, 0] at rank 0 (aclnn_argmax.cpp CheckDim)
    r = predicate("attr_in_rank_range", {"attr": "dim", "tensor": "self", "min": [-1, 0], "max": [1, -1],
                                         "min_rank0": -1, "max_rank0": 0})
    assert not r(call(attrs={"dim": -2}, self=F32)) and r(call(attrs={"dim": 2}, self=F32))
    assert r(call(attrs={"dim": -3}, self=F32))
    assert not r(call(attrs={"dim": 0}, self=("FLOAT", (), "ND"))) and r(call(attrs={"dim": 1}, self=("FLOAT", (), "ND")))
    assert r(call(attrs={"dim": [0, 5]}, self=F32)) and not r(call(attrs={"dim": [0, -1]}, self=F32))
    assert not r(call(attrs={"dim": None}, self=F32)) and not r(call(attrs={"dim": 9}, self=None))


def test_attr_is_compares_value_and_type():
    flag = predicate("attr_is", {"attr": "keep", "value": True})
    assert flag(call(attrs={"keep": True})) and not flag(call(attrs={"keep": False}))
    three = predicate("attr_is", {"attr": "reduction", "value": 3})
    assert three(call(attrs={"reduction": 3})) and not three(call(attrs={"reduction": 2}))
    assert not three(call(attrs={"reduction": True})) and not three(call(attrs={}))


def test_format_in_and_format_not_in():
    nd = predicate("format_in", {"param": "self", "formats": ["ND"]})
    assert nd(call(self=("FLOAT", (2,), "NCHW"))) and not nd(call(self=F32)) and not nd(call(self=None))
    no_nz = predicate("format_not_in", {"param": "self", "formats": ["FRACTAL_NZ"]})
    assert no_nz(call(self=("FLOAT", (2, 3), "FRACTAL_NZ"))) and not no_nz(call(self=F32))


def test_combination_in_matches_whole_columns_after_the_nd_rewrite():
    columns = [[["FLOAT16", "ND"], ["INT32", "ND"]], [["BF16", "ND"], ["INT64", "ND"]]]
    c = predicate("combination_in", {"params": ["self", "out"], "combinations": columns})
    assert not c(call(self=F16, out=I32)) and not c(call(self=("BF16", (2,), "ND"), out=("INT64", (2,), "ND")))
    assert c(call(self=F16, out=("INT64", (2,), "ND")))                  # each dtype listed, the pair is not
    assert not c(call(self=("FLOAT16", (2,), "NCHW"), out=I32))         # NCHW is matched as ND
    assert c(call(self=("FLOAT16", (2,), "FRACTAL_NZ"), out=I32))
    assert not c(call(self=None, out=I32))                                # an absent optional matches any column


def test_attr_dims_unique_wraps_negative_dims_by_the_rank():
    u = predicate("attr_dims_unique", {"attr": "dim", "tensor": "self", "rank0": 1})
    assert u(call(attrs={"dim": [0, -2]}, self=F32)) and not u(call(attrs={"dim": [0, -1]}, self=F32))
    assert u(call(attrs={"dim": [1, 1]}, self=F32)) and not u(call(attrs={"dim": []}, self=F32))
    assert u(call(attrs={"dim": [0, -1]}, self=("FLOAT", (), "ND")))          # rank 0 wraps by 1
    plain = predicate("attr_dims_unique", {"attr": "dim", "tensor": "self"})
    assert not plain(call(attrs={"dim": [0, -1]}, self=("FLOAT", (), "ND")))
    assert not u(call(attrs={"dim": None}, self=F32)) and not u(call(attrs={"dim": [1, 1]}, self=None))


def test_combine_categories_follows_combine_categories_with_complex():
    """ops-math data_type_utils.h:49-67: a tensor's dtype (first) with a rank-0 tensor's (second)."""
    from aclnn_conformance.spec.templates import combine_categories
    assert combine_categories("FLOAT16", "INT64") == "FLOAT16"     # a floating tensor keeps its dtype
    assert combine_categories("INT8", "INT64") == "INT8"           # an integral one too, not promoted
    assert combine_categories("INT32", "FLOAT") == "FLOAT"         # a floating rank-0: PromoteType
    assert combine_categories("BOOL", "INT32") == "INT32"          # a bool tensor: PromoteType
    assert combine_categories("FLOAT16", "COMPLEX128") == "COMPLEX32"   # floating meets complex: its complex
    assert combine_categories("INT32", "COMPLEX64") == "COMPLEX64"
    assert combine_categories("COMPLEX64", "DOUBLE") == "COMPLEX64"


def test_ranks_equal_by_hand():
    rule = predicate("ranks_equal", {"param": "out", "other": "self"})
    assert not rule(call(self=("FLOAT", (2, 3), "ND"), out=("FLOAT", (1, 1), "ND")))
    assert rule(call(self=("FLOAT", (2, 3), "ND"), out=("FLOAT", (2, 3, 1), "ND")))
    assert rule(call(self=("FLOAT", (), "ND"), out=("FLOAT", (1,), "ND")))
    assert not rule(call(self=F32))   # out absent: nothing to compare
    counted = predicate("ranks_equal", {"param": "out", "other": "self", "other_rank0": 1})
    assert not counted(call(self=("FLOAT", (), "ND"), out=("FLOAT", (1,), "ND")))   # rank 0 counted as 1
    assert counted(call(self=("FLOAT", (), "ND"), out=("FLOAT", (), "ND")))
    assert counted(call(self=("FLOAT", (2,), "ND"), out=("FLOAT", (2, 1), "ND")))


def test_dims_compare_of_a_broadcast_element_count_by_hand():
    rule = predicate("dims_compare", {"a": ["numel", "out"], "op": "!=", "b": ["bnumel", ["self", "other"]]})
    assert not rule(call(self=("FLOAT", (2, 1), "ND"), other=("FLOAT", (3,), "ND"), out=("FLOAT", (6,), "ND")))
    assert rule(call(self=("FLOAT", (2, 1), "ND"), other=("FLOAT", (3,), "ND"), out=("FLOAT", (2, 1), "ND")))
    # tensors that do not broadcast: the broadcast rule's call, not decided here
    assert not rule(call(self=("FLOAT", (2,), "ND"), other=("FLOAT", (3,), "ND"), out=("FLOAT", (7,), "ND")))
