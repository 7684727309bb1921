"""The extractor on shape comparisons: an output's element count against a broadcast's, one tensor's
rank against another's counted as 1 at rank 0, and a broadcast shape compared inside a product
block that returns (what follows the block cannot change it). Each read into its rule, a variant left
unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

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


OUTER = """
static bool CheckShape(const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2, aclTensor* out)
{
    op::Shape outerShape = {%s, (vec2->GetViewShape())[0]};
    op::Shape broadcastShape = self->GetViewShape();
    if (self != out && !BroadcastInferShape(self->GetViewShape(), outerShape, broadcastShape)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the size of tensor self must match the size of tensor outer.");
        return false;
    }
    %s
    if (broadcastShape != outerShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "size mismatch");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, vec1, vec2, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnInplaceSnipGetWorkspaceSize(aclTensor* selfRef, const aclTensor* vec1, const aclTensor* vec2,
                                             uint64_t* workspaceSize, aclOpExecutor** executor)
{
    return aclnnSnipGetWorkspaceSize(selfRef, vec1, vec2, selfRef, workspaceSize, executor);
}
"""
OUTER_NAMES = ["self", "vec1", "vec2", "out", "workspaceSize", "executor"]
VEC1_LEN = "(vec1->GetViewShape())[0]"


def _outer_walk(first: str = VEC1_LEN, between: str = "", inplace: bool = False) -> list:
    src = read_source("snippet.cpp", OUTER % (first, between))
    name = "aclnnInplaceSnipGetWorkspaceSize" if inplace else "aclnnSnipGetWorkspaceSize"
    fn = src.functions[name]
    names = ["selfRef", "vec1", "vec2", "workspaceSize", "executor"] if inplace else OUTER_NAMES
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, "atlas-a2")


def _outer_call(self_shape: tuple[int, ...], n: int = 3, m: int = 4, self_name: str = "self") -> CallView:
    return CallView({self_name: TensorView("FLOAT", self_shape, "ND"), "vec1": TensorView("FLOAT", (n,), "ND"),
                     "vec2": TensorView("FLOAT", (m,), "ND")}, {}, frozenset())


def test_a_tensor_broadcast_with_a_shape_built_of_dims_must_expand_to_it():
    """aclnnAddr's CheckShape (ops-math math/addr/op_api/aclnn_addr.cpp:169-183): self broadcast with
    [len(vec1), len(vec2)] must give that shape."""
    events = _outer_walk()
    assert [e.template for e in events] == ["broadcastable_shape", "expands_to_shape"]
    shape = (("vec1", 0, 0), ("vec2", 0, 0))
    assert all(dict(e.args) == {"param": "self", "shape": shape} for e in events)
    broadcastable, expands = (predicate(e.template, e.args_dict()) for e in events)
    # (self's shape, violates broadcastable_shape, violates expands_to_shape) against [3, 4]
    for self_shape, not_broadcastable, not_expanding in [
            ((3, 4), False, False), ((4,), False, False), ((3, 1), False, False), ((), False, False),
            ((1, 1), False, False), ((2, 4), True, False), ((5,), True, False), ((2, 3, 4), False, True)]:
        call = _outer_call(self_shape)
        assert (broadcastable(call), expands(call)) == (not_broadcastable, not_expanding), self_shape
    # against [3, 1]: a 1 of the built shape does not take self's 5 (the broadcast would be [3, 5])
    assert expands(_outer_call((3, 1), n=3, m=1)) is False and expands(_outer_call((3, 5), m=1)) is True


def test_the_in_place_form_passing_self_as_out_skips_the_broadcast_and_needs_the_shape_itself():
    events = _outer_walk(inplace=True)
    assert [e.template for e in events] == ["shape_is"]
    rule = predicate(events[0].template, events[0].args_dict())
    assert not rule(_outer_call((3, 4), self_name="selfRef")) and rule(_outer_call((4,), self_name="selfRef"))


@pytest.mark.parametrize("first,between", [
    ("vec1->GetViewShape().GetDimNum()", ""),     # a dim that is no tensor's dim: not a shape read
    (VEC1_LEN, "outerShape.SetDim(0, 1);"),        # the built shape changed before the comparison
])
def test_a_built_shape_read_otherwise_is_unread(first, between):
    events = _outer_walk(first, between)
    assert events[-1].kind == "unread"
    assert not any(e.template == "expands_to_shape" for e in events)
