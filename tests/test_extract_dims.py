"""The extractor on dim-list, single-dimension and scalar-value constructs: each construct read into
its rule, and a variant of it left unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

NAMES = ["self", "out", "workspaceSize", "executor"]


def _walk(body: str, names: list[str], product: str = "atlas-a2", headers: tuple[str, ...] = ()) -> list:
    """The events of a snippet's GetWorkspaceSize (the last function of ``body``)."""
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    assert len(fn.params) == len(names)
    own = [read_source(f"snippet{i}.h", h) for i, h in enumerate(headers)]
    return walk_api(Index(src, [], own), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


SNIPPET = """
%s
static bool CheckParams(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckParams(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _kinds(events) -> list[tuple]:
    return [(e.kind, e.template) for e in events]


def test_a_rank_bound_defined_in_the_ops_own_header():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    events = _walk(SNIPPET % ("", line), NAMES, headers=("#define ACLNN_MAX_SHAPE_RANK 8\n",))
    assert _kinds(events) == [("check", "null"), ("check", "rank_range")]
    assert dict(events[1].args)["max"] == 8


def test_a_rank_bound_defined_in_the_file_itself():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    events = _walk(SNIPPET % ("#define ACLNN_MAX_SHAPE_RANK 8", line), NAMES)
    assert dict(events[1].args)["max"] == 8


def test_a_rank_bound_defined_nowhere_or_as_an_expression_is_unread():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    assert _kinds(_walk(SNIPPET % ("", line), NAMES))[1] == ("unread", "")
    events = _walk(SNIPPET % ("#define ACLNN_MAX_SHAPE_RANK (4 + 4)", line), NAMES)
    assert _kinds(events)[1] == ("unread", "")


DIM_SNIPPET = """
static inline uint64_t GetPosDim(int64_t dim, int64_t dimNum)
{
    if (dimNum <= 0) {
        dimNum = 1;
    }
    return dim >= 0 ? dim : dim + dimNum;
}

static bool CheckDim(const aclTensor* self, const aclIntArray* dim)
{
    auto selfDimNum = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (selfDimNum == 0) {
        selfDimNum = 1;
    }
    uint64_t dimMask[64] = {0};
    for (size_t i = 0; i < dim->Size(); i++) {
        if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out of range");
            return false;
        }
        %s
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
DIM_NAMES = ["self", "dim", "out", "workspaceSize", "executor"]

MASK_ELSE = """
        if (dim->operator[](i) < 0) {
            if (dimMask[selfDimNum + dim->operator[](i)] == 1) {
                OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim appears multiple times.");
                return false;
            } else {
                dimMask[selfDimNum + dim->operator[](i)] = 1;
            }
            continue;
        }
        if (dimMask[dim->operator[](i)] == 1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim appears multiple times.");
            return false;
        } else {
            dimMask[dim->operator[](i)] = 1;
        }"""
MASK_NO_ELSE = """
        if (dim->operator[](i) < 0) {
            if (dimMask[selfDimNum + dim->operator[](i)] == 1) {
                return false;
            }
            dimMask[selfDimNum + dim->operator[](i)] = 1;
            continue;
        }
        if (dimMask[dim->operator[](i)] == 1) {
            return false;
        }
        dimMask[dim->operator[](i)] = 1;"""
MASK_POS_DIM = """
        uint64_t index = GetPosDim(dim->operator[](i), selfDimNum);
        if (dimMask[index]) {
            return false;
        }
        dimMask.set(index);"""


def _ptypes_walk(body: str) -> list:
    src = read_source("snippet.cpp", body)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, DIM_NAMES)}, "atlas-a2")


@pytest.mark.parametrize("tail", [MASK_ELSE, MASK_NO_ELSE, MASK_POS_DIM])
def test_a_dim_loop_with_a_mask_of_dims_seen_is_a_range_and_a_unique_rule(tail):
    events = _ptypes_walk(DIM_SNIPPET % tail)
    assert _kinds(events) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"),
                              ("check", "attr_dims_unique")]
    assert dict(events[2].args) == {"attr": "dim", "tensor": "self", "rank0": 1}
    assert all(e.status == 161002 for e in events)


@pytest.mark.parametrize("tail", [
    MASK_ELSE.replace("dimMask[dim->operator[](i)] = 1;", "dimMask[0] = 1;"),        # marks another dim
    MASK_NO_ELSE.replace("selfDimNum + dim", "2 + dim"),                             # wraps by a constant
    MASK_POS_DIM.replace("dimMask.set(index);", ""),                                 # never marks
    MASK_POS_DIM.replace("GetPosDim(", "GetOtherPosDim("),                           # an unknown wrap
])
def test_a_mask_of_dims_seen_read_otherwise_is_unread(tail):
    events = _ptypes_walk(DIM_SNIPPET % tail)
    assert _kinds(events)[-1] == ("unread", "")
    assert "attr_dims_unique" not in [e.template for e in events]


ALIASED = DIM_SNIPPET.replace("if (selfDimNum == 0) {", "if (selfDimNum <= 0) {").replace(
    "        if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum)) {",
    "        int64_t curDim = dim->operator[](i);\n"
    "        if (curDim >= selfDimNum || curDim < (-selfDimNum)) {") % MASK_POS_DIM.replace(
    "GetPosDim(dim->operator[](i), selfDimNum)", "GetPosDim(curDim, selfDimNum)")


def test_a_rank_at_most_zero_and_a_local_holding_the_element_read_as_the_rank_and_the_element():
    events = _ptypes_walk(ALIASED)
    assert _kinds(events) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"),
                              ("check", "attr_dims_unique")]
    assert dict(events[2].args) == {"attr": "dim", "tensor": "self", "rank0": 1}


def test_a_local_of_the_element_assigned_again_in_the_loop_is_unread():
    body = ALIASED.replace("        uint64_t index = GetPosDim(curDim, selfDimNum);",
                           "        curDim = curDim + 1;\n        uint64_t index = GetPosDim(curDim, selfDimNum);")
    assert _kinds(_ptypes_walk(body))[-1] == ("unread", "")


WRAPPED_IN_PLACE = DIM_SNIPPET.replace(
    "        if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum)) {",
    "        auto currentDim = dim->operator[](i);\n"
    "        if (currentDim >= selfDimNum || currentDim < (-selfDimNum)) {") % """
        if (currentDim < 0) {
            currentDim = currentDim + selfDimNum;
        }
        if (dimMask[currentDim]) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim appears multiple times.");
            return false;
        }
        dimMask[currentDim] = true;"""


def test_a_local_of_the_element_wrapped_in_place_before_the_mask_is_a_range_and_a_unique_rule():
    """ops-math aclnn_std_mean_correction.cpp CheckDimValid: the local is checked as the element,
    then wrapped by the rank (1 at rank 0) and marked."""
    events = _ptypes_walk(WRAPPED_IN_PLACE)
    assert _kinds(events) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"),
                              ("check", "attr_dims_unique")]
    assert dict(events[2].args) == {"attr": "dim", "tensor": "self", "rank0": 1}
    # wrapped by something other than the rank, or marked elsewhere: unread
    for changed in (WRAPPED_IN_PLACE.replace("currentDim + selfDimNum;", "currentDim + 2;"),
                    WRAPPED_IN_PLACE.replace("dimMask[currentDim] = true;", "dimMask[0] = true;")):
        assert _kinds(_ptypes_walk(changed))[-1] == ("unread", "")


RANK_ZERO = """
static bool CheckDimValid(const aclTensor* self, const int64_t dim)
{
    const int64_t dimNum = self->GetViewShape().GetDimNum();
    if (dimNum == %s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension specified as %%ld but tensor has not dimensions.", dim);
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimValid(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_rank_refused_at_zero_is_a_rank_of_at_least_one():
    """ops-math aclnn_cummax.cpp CheckDimValid: ``dimNum == 0`` fails; a rank equal to another number
    is no range: an integer test refusing that one rank."""
    events = _ptypes_walk(RANK_ZERO % "0")
    assert [(e.template, dict(e.args), e.status) for e in events] == [
        ("rank_range", {"param": "self", "min": 1}, 161002)]
    [event] = _ptypes_walk(RANK_ZERO % "2")
    assert (event.template, event.args_dict()["test"]) == ("int_test", ["==", ("rank", "self"), 2])
    refused = predicate("int_test", event.args_dict())
    assert [refused(CallView({"self": TensorView("FLOAT", (3,) * r, "ND")}, {}, frozenset()))
            for r in range(4)] == [False, False, True, False]
