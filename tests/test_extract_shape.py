"""The extractor on shape, rank, dim and attribute constructs (tests/fixtures/vendor_style/acts/shp):
each construct read into its rule, and a variant of it left unread (never a guess)."""
from __future__ import annotations

from pathlib import Path

import pytest

from aclnn_conformance.extract.build import extract_checkout, open_checkout
from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate
from snippet_walk import read_checks

FIXTURE = Path(__file__).parent / "fixtures" / "vendor_style"


@pytest.fixture(scope="module")
def records() -> dict[str, dict]:
    return {r["api"]: r for r in extract_checkout(open_checkout(FIXTURE), ("acts",))}


def _code(record: dict) -> list[tuple]:
    return [(r["template"], r["args"], r["expect"]["cann"].get("status"))
            for r in record["rules"] if r["known_by"] in ("code", "unread") and r["kind"] == "check"]


def _walk(body: str, params: str, names: list[str], product: str = "atlas-a2") -> list:
    """The events of a snippet's GetWorkspaceSize (the last function of ``body``)."""
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    assert len(fn.params) == len(names), params
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


def test_check_cond_chained_broadcast_and_the_out_shape_against_it(records):
    rules = _code(records["aclnnShpBroadcast"])
    assert [(t, a.get("param")) for t, a, _ in rules[:4]] == [("null", p) for p in ("self", "other", "end", "out")]
    assert all(s == 161001 for _, _, s in rules[:4])
    assert rules[4:] == [
        ("broadcastable", {"param": "self", "other": "other"}, 161002),
        ("broadcastable_all", {"of": ["end", "self", "other"]}, 161002),
        ("broadcast_equals", {"param": "out", "of": ["end", "self", "other"]}, 161002),   # if and macro: one rule
        ("shapes_equal_or_single", {"param": "self", "other": "out"}, 161002)]
    assert records["aclnnShpBroadcast"]["coverage"]["status"] == "covered"


def test_check_not_null_and_shape_all_equal_then_a_changed_shape_local_is_unread(records):
    rules = _code(records["aclnnShpMacro"])
    assert rules[:4] == [("null", {"param": "self"}, 161001), ("null", {"param": "out"}, 161001),
                         ("shapes_equal", {"param": "self", "other": "out"}, 161002),
                         ("rank_range", {"param": "self", "max": 8}, 161002)]
    assert rules[4][0] == "unread" and len(rules) == 5          # expected.SetDim(...): not held


SNIPPET = """
static aclnnStatus CheckParams(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    %s
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto ret = CheckParams(self, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("line", [
    "OP_CHECK_SOMETHING_NEW(self, out, return ACLNN_ERR_PARAM_INVALID);",
    "CHECK_SHAPE_SOMEHOW(self, out);",
    "SomeMacro(self, ACLNN_ERR_PARAM_INVALID);",
])
def test_an_unknown_macro_carrying_a_check_is_unread_never_skipped(line):
    events = _walk(SNIPPET % line, "", ["self", "out", "workspaceSize", "executor"])
    assert [e.kind for e in events] == ["check", "unread"]
    assert events[0].template == "null"


def test_a_compute_call_without_a_check_is_still_skipped():
    events = _walk(SNIPPET % "l0op::Contiguous(self, executor);", "", ["self", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("check", "null")]


def test_a_broadcast_shape_passed_to_an_unchecked_call_is_not_held():
    body = """
    op::Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(self, out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
    FillShape(self, broadcastShape);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);"""
    events = _walk(SNIPPET % body, "", ["self", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("check", "broadcastable"),
                                                     ("unread", "")]


def test_a_dim_range_on_the_rank_a_rank_local_a_format_equality_and_the_executor(records):
    rules = _code(records["aclnnShpDim"])
    assert rules == [
        ("null", {"param": "self"}, 161001), ("null", {"param": "out"}, 161001),
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "min": [-1, 0], "min_rank0": -1}, 161002),
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "max": [1, -1], "max_rank0": 0}, 161002),
        ("rank_range", {"param": "self", "max": 8}, 161002),
        ("formats_equal", {"param": "self", "other": "out"}, 161002)]
    assert records["aclnnShpDim"]["coverage"]["status"] == "covered"


DIM_SNIPPET = """
static bool CheckDim(const aclTensor* self, int64_t dim)
{
    int64_t rank = self->GetViewShape().GetDimNum();
    %s
    if (dim >= rank || dim < -rank) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_dim_range_read_through_std_min_max_and_a_rank0_increment():
    names = ["self", "dim", "workspaceSize", "executor"]
    events = _walk(DIM_SNIPPET % "if (rank == 0) { rank++; }", "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "max": [1, -1], "max_rank0": 0}),
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "min": [-1, 0], "min_rank0": -1})]
    first = [(e.template, e.args_dict()) for e in events]
    events = _walk(DIM_SNIPPET % "rank = std::max(rank, static_cast<int64_t>(1));", "", names)
    assert [(e.template, e.args_dict()) for e in events] == first   # reassigned in order: read in order
    events = _walk(DIM_SNIPPET % "if (dim > 0) { rank = std::max(rank, static_cast<int64_t>(1)); }", "", names)
    assert [e.kind for e in events] == ["unread"]       # reassigned in a branch: not held


def test_a_rank_local_changed_in_a_data_branch_is_not_held():
    names = ["self", "dim", "workspaceSize", "executor"]
    events = _walk(DIM_SNIPPET % "if (rank == 1) { rank = 2; }", "", names)
    assert [e.kind for e in events] == ["unread"]


ARRAY_SNIPPET = """
static bool CheckDimValid(const aclTensor* self, const aclIntArray* dim)
{
    auto selfDimNum = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    selfDimNum = selfDimNum <= 0 ? 1 : selfDimNum;
    if (dim == nullptr) {
        return true;
    }
    for (size_t i = 0; i < dim->Size(); i++) {
        %s
    }
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckDimValid(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
ELEMENT_CHECK = """if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Provided dim %ld must be in the range.", dim->operator[](i));
            return false;
        }"""


def test_a_loop_over_an_int_array_under_its_null_guard():
    names = ["self", "dim", "workspaceSize", "executor"]
    events = _walk(ARRAY_SNIPPET % (ELEMENT_CHECK, ""), "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "max": [1, -1], "max_rank0": 0}),
        ("attr_in_rank_range", {"attr": "dim", "tensor": "self", "min": [-1, 0], "min_rank0": -1})]
    local = ELEMENT_CHECK.replace("if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum))",
                                  "auto cur = (*dim)[i];\n        if (cur >= selfDimNum || cur < -selfDimNum)")
    assert len(_walk(ARRAY_SNIPPET % (local, ""), "", names)) == 2


def test_a_check_under_a_null_guard_not_naming_the_argument_is_unread():
    names = ["self", "dim", "workspaceSize", "executor"]
    extra = "OP_CHECK_MAX_DIM(self, 8, return false);"
    events = _walk(ARRAY_SNIPPET % (ELEMENT_CHECK, extra), "", names)
    assert [e.kind for e in events] == ["check", "check", "unread"]
    assert "only when dim is not null" in events[-1].text


def test_a_loop_using_the_index_otherwise_is_unread():
    names = ["self", "dim", "workspaceSize", "executor"]
    odd = "if (dim->operator[](i) > i) { return false; }"
    events = _walk(ARRAY_SNIPPET % (odd, ""), "", names)
    assert [e.kind for e in events] == ["unread"]


FLAG_SNIPPET = """
static const size_t AXIS_LIMIT = 8;

static bool CheckAttrs(const aclTensor* self, char* approximate, bool keep, int64_t reduction)
{
    auto selfShape = self->GetViewShape();
    auto selfDim = selfShape.GetDimNum();
    if (self->GetViewShape().GetDimNum() > AXIS_LIMIT || selfDim != 2) {
        return false;
    }
    if (!approximate) {
        return false;
    }
    if (keep) {
        return false;
    }
    if (reduction == 3 || reduction != 1) {
        return false;
    }
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, char* approximate, bool keep, int64_t reduction,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAttrs(self, approximate, keep, reduction), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_rank_comparisons_a_string_null_a_bool_flag_and_integer_attribute_values():
    names = ["self", "approximate", "keep", "reduction", "workspaceSize", "executor"]
    events = _walk(FLAG_SNIPPET % "", "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("rank_range", {"param": "self", "max": 8}), ("rank_range", {"param": "self", "min": 2, "max": 2}),
        ("null", {"param": "approximate"}), ("attr_is", {"attr": "keep", "value": True}),
        ("attr_is", {"attr": "reduction", "value": 3}), ("attr_range", {"attr": "reduction", "min": 1, "max": 1})]
    events = _walk(FLAG_SNIPPET % "if (reduction == selfDim) { return false; }", "", names)
    assert events[-1].template == "int_test"       # an attribute equal to a rank (2, checked above)
    refused = predicate("int_test", events[-1].args_dict())
    call = lambda r: CallView({"self": TensorView("FLOAT", (3, 3), "ND")}, {"reduction": r}, frozenset())  # noqa: E731
    assert refused(call(2)) and not refused(call(1))
    events = _walk(FLAG_SNIPPET % "if (reduction == GetReductionLimit()) { return false; }", "", names)
    assert events[-1].kind == "unread"       # a value of an unknown function


OPTIONAL_SNIPPET = """
static bool CheckOptional(const aclTensor* self, const aclScalar* betaOptional, const aclTensor* bias)
{
    if (betaOptional != nullptr && !CanCast(betaOptional->GetDataType(), DataType::DT_FLOAT)) {
        return false;
    }
    if (bias != nullptr) {
        OP_CHECK_DTYPE_NOT_SAME(bias, self, return false);
        %s
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* betaOptional, const aclTensor* bias,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOptional(self, betaOptional, bias), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_checks_of_an_optional_argument_under_its_non_null_condition():
    names = ["self", "betaOptional", "bias", "workspaceSize", "executor"]
    events = _walk(OPTIONAL_SNIPPET % "", "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("castable", {"param": "betaOptional", "to_dtype": "FLOAT"}),
        ("dtypes_equal", {"param": "bias", "other": "self"})]
    events = _walk(OPTIONAL_SNIPPET % "OP_CHECK_MAX_DIM(self, 8, return false);", "", names)
    # a check of self made only when bias is given: under that guard
    assert (events[-1].template, events[-1].args_dict()) == (
        "rank_range", {"param": "self", "max": 8, "when": ["not", ("null", "bias")]})
    ranked = predicate("rank_range", events[-1].args_dict())
    call = lambda bias: CallView({"self": TensorView("FLOAT", (1,) * 9, "ND"),  # noqa: E731
                                  "bias": bias and TensorView("FLOAT", (1,) * 9, "ND")}, {}, frozenset())
    assert ranked(call(True)) and not ranked(call(None))
    events = _walk(OPTIONAL_SNIPPET % "return true;", "", names)
    assert [e.kind for e in events] == ["check", "unread"]              # a branch that returns


BARE_POINTER = """
static bool CheckWeights(const aclTensor* self, const aclTensor* weights, bool flag)
{
    if (weights) {
        OP_CHECK_DTYPE_NOT_SUPPORT(weights, WEIGHTS_DTYPES, return false);
    }
    if (%s) {
        return true;
    }
    OP_CHECK_SHAPE_NOT_EQUAL(self, weights, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* weights, bool flag,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckWeights(self, weights, flag), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_pointer_tested_alone_guards_the_checks_of_an_optional_argument():
    """aclnnBincount's optional weights (ops-math math/bincount/op_api/aclnn_bincount.cpp:51-94)."""
    names = ["self", "weights", "flag", "workspaceSize", "executor"]
    header = "static const std::initializer_list<op::DataType> WEIGHTS_DTYPES = {op::DataType::DT_FLOAT};\n"
    events = _walk(header + BARE_POINTER % "!weights", "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("dtype_in", {"param": "weights", "dtypes": ["FLOAT"], "list": "snippet.cpp:1"}),
        ("shapes_equal", {"param": "self", "other": "weights"})]
    # ``!flag`` on a bool is no null guard but a test of its value: the check after it holds when it is true
    events = _walk(header + BARE_POINTER % "!flag", "", names)
    assert events[-1].args_dict()["when"] == ["not", ("value", ("not", ("flag", "flag")))]


def test_a_storage_or_view_format_against_a_literal_or_another_tensors():
    # aclCreateTensor gives the view and the storage its one format: the two read alike
    line = """if (self->GetStorageFormat() != Format::FORMAT_ND) { return ACLNN_ERR_PARAM_INVALID; }
    if (out->GetStorageFormat() == op::Format::FORMAT_FRACTAL_NZ) { return ACLNN_ERR_PARAM_INVALID; }
    if (out->GetViewFormat() != Format::FORMAT_NCHW) { return ACLNN_ERR_PARAM_INVALID; }
    if (self->GetViewFormat() != out->GetViewFormat()) { OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x"); return ACLNN_ERR_PARAM_INVALID; }
    if (op::IsPrivateFormat(self->GetViewFormat())) { return ACLNN_ERR_PARAM_INVALID; }
    if (self->GetViewFormat() < out->GetViewFormat()) { return ACLNN_ERR_PARAM_INVALID; }"""
    events = _walk(SNIPPET % line, "", ["self", "out", "workspaceSize", "executor"])
    assert [(e.template, e.args_dict()) for e in events] == [
        ("null", {"param": "self"}), ("format_in", {"param": "self", "formats": ["ND"]}),
        ("format_not_in", {"param": "out", "formats": ["FRACTAL_NZ"]}),
        ("format_in", {"param": "out", "formats": ["NCHW"]}),
        ("formats_equal", {"param": "self", "other": "out"}),
        ("private_format", {"param": "self", "formats": "opbase"}),
        ("", {})]   # an ordering of formats: no template, unread
    assert events[-1].kind == "unread"


BROADCAST_SNIPPET = """
static bool CheckShape(const aclTensor* self, const aclTensor* other, const aclTensor* out)
{
    %s
    op::Shape broadcastShape;
    BroadcastInferShape(self->GetViewShape(), other->GetViewShape(), broadcastShape);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, other, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_dropped_broadcast_infer_shape_is_held_only_after_a_broadcast_check_of_its_tensors():
    names = ["self", "other", "out", "workspaceSize", "executor"]
    events = _walk(BROADCAST_SNIPPET % "OP_CHECK_BROADCAST(other, self, return false);", "", names)
    assert [(e.template, e.args_dict()) for e in events] == [
        ("broadcastable", {"param": "other", "other": "self"}),
        ("broadcast_equals", {"param": "out", "of": ["self", "other"]})]
    # no earlier check refuses the calls whose tensors do not broadcast: the shape is unknown there
    for before in ("", "OP_CHECK_BROADCAST(self, out, return false);"):
        events = _walk(BROADCAST_SNIPPET % before, "", names)
        assert events[-1].kind == "unread" and "broadcastShape" in events[-1].text


def test_op_check_of_broadcast_infer_shape_is_the_broadcast_check_holding_the_shape():
    body = BROADCAST_SNIPPET.replace(
        "BroadcastInferShape(self->GetViewShape(), other->GetViewShape(), broadcastShape);",
        'OP_CHECK(BroadcastInferShape(self->GetViewShape(), other->GetViewShape(), broadcastShape),\n'
        '             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cannot broadcast"), return false);') % ""
    events = _walk(body, "", ["self", "other", "out", "workspaceSize", "executor"])
    assert [(e.template, e.args_dict(), e.status) for e in events] == [
        ("broadcastable", {"param": "self", "other": "other"}, 161002),
        ("broadcast_equals", {"param": "out", "of": ["self", "other"]}, 161002)]


FORMAT_LOCALS = """
static bool CheckFormat(const aclTensor* x, const aclTensor* y)
{
    auto fmtX = x->GetStorageFormat();
    auto fmtY = y->GetStorageFormat();
    OP_CHECK(!(IsPrivateFormat(fmtX) || IsPrivateFormat(fmtY)),
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Private format not supported."), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclTensor* y, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckFormat(x, y), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_private_format_test_of_a_local_holding_the_format_is_the_tensors():
    """ops-math math/xlog1py/op_api/aclnn_xlog1py.cpp:72-80: each format held in a local first."""
    events = read_checks(FORMAT_LOCALS, ["x", "y", "workspaceSize", "executor"])
    assert [(e.template, e.args_dict()) for e in events] == [
        ("private_format", {"param": "x", "formats": "opbase"}),
        ("private_format", {"param": "y", "formats": "opbase"})]
