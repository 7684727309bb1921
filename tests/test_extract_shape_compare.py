"""The extractor on shape comparisons: an output's element count against a broadcast's, one tensor's
rank against another's counted as 1 at rank 0, and a broadcast shape compared inside a product
block that returns (what follows the block cannot change it). Each read into its rule, a variant left
unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api

COUNT = """
static bool CheckShape(const aclTensor* input, const aclTensor* values, const aclTensor* out)
{
    Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(input, values, broadcastShape, return false);
    if (out->GetViewShape().GetShapeSize() != %s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The out shape size is not same with broadcastShapeSize.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* values, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(input, values, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["input", "values", "out", "workspaceSize", "executor"]


def _walk(text: str, names: list[str], product: str = "atlas-a2") -> list:
    src = read_source("snippet.cpp", text)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


def test_an_element_count_against_a_broadcasts_is_a_dims_comparison():
    events = _walk(COUNT % "broadcastShape.GetShapeSize()", NAMES)
    assert [e.template for e in events] == ["broadcastable", "dims_compare"]
    assert dict(events[1].args) == {"a": ("numel", "out"), "op": "!=", "b": ("bnumel", ("input", "values"))}


def test_an_element_count_against_an_unknown_shape_is_unread():
    events = _walk(COUNT.replace("Shape broadcastShape;", "Shape broadcastShape; Shape otherShape;")
                   % "otherShape.GetShapeSize()", NAMES)
    assert events[-1].kind == "unread"


RANKS = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto selfDimNum = self->GetViewShape().GetDimNum();
    if (selfDimNum == 0) {
        selfDimNum = %s;
    }
    auto gradOutputDimNum = gradOutput->GetViewShape().GetDimNum();
    if (gradOutputDimNum != selfDimNum) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "gradOutput and self must have same dimensions");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("at_rank0,extra", [("1", {"other_rank0": 1}), ("0", {})])
def test_ranks_compared_with_a_rank_counted_at_rank_zero_are_ranks_equal(at_rank0, extra):
    events = _walk(RANKS % at_rank0, ["gradOutput", "self", "workspaceSize", "executor"])
    assert [(e.template, dict(e.args)) for e in events] == [
        ("ranks_equal", {"param": "gradOutput", "other": "self", **extra})]


PRODUCT_BLOCK = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    op::Shape broadcastShape;
    if (IsRegBase()) {
        OP_CHECK_BROADCAST_AND_INFER_SHAPE(self, other, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
        %s
    }
    BroadcastInferShape(self->GetViewShape(), other->GetViewShape(), broadcastShape);
    return ACLNN_SUCCESS;
}
"""
PB_NAMES = ["self", "other", "out", "workspaceSize", "executor"]


def test_a_broadcast_shape_compared_in_a_block_that_returns_is_held_there():
    events = _walk(PRODUCT_BLOCK % "return ACLNN_SUCCESS;", PB_NAMES, product="ascend950")
    assert [e.template for e in events] == ["broadcastable", "broadcast_equals"]


def test_a_broadcast_shape_changed_after_a_block_that_falls_through_is_unread():
    events = _walk(PRODUCT_BLOCK % "", PB_NAMES, product="ascend950")
    assert events[-1].kind == "unread" and "broadcastShape" in events[-1].text
