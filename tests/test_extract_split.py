"""The extractor on a split along an argument's dim (glu and its backward): the size there must be a
multiple of the parts, and an output has the input's shape with that dim divided. Each construct read
into its rule, a variant left unread (never a guess); the two templates by hand."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

SPLIT = """
constexpr int64_t SPLIT_NUM = 2;

static bool CheckShape(const aclTensor* self, int64_t dim, const aclTensor* out)
{
    %(rank)s
    int64_t selfDim = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (dim < -selfDim || dim >= selfDim) {
        return false;
    }
    int64_t positiveDim = dim;
    if (dim < 0) {
        positiveDim += selfDim;
    }
    int64_t splitShape = self->GetViewShape().GetDim(positiveDim);
    if (%(mod)s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Split dimension must be even.");
        return false;
    }
    op::Shape outShapeExpect = self->GetViewShape();
    int64_t outShapeExpectForDim = outShapeExpect.GetDim(static_cast<size_t>(positiveDim)) / SPLIT_NUM;
    outShapeExpect.SetDim(static_cast<size_t>(positiveDim), outShapeExpectForDim);
    %(extra)s
    if (outShapeExpect != out->GetViewShape()) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, dim, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "dim", "out", "workspaceSize", "executor"]
READ = {"rank": "OP_CHECK_MIN_DIM(self, 1, return false);", "mod": "splitShape % SPLIT_NUM != 0", "extra": ""}


def _walk(**changes) -> list:
    src = read_source("snippet.cpp", SPLIT % {**READ, **changes})
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


def test_a_split_dim_is_an_even_size_rule_and_the_output_its_half():
    events = _walk()
    assert [e.template for e in events][-2:] == ["attr_dim_divisible", "split_shape"]
    assert dict(events[-2].args) == {"attr": "dim", "tensor": "self", "by": 2}
    assert dict(events[-1].args) == {"param": "out", "of": "self", "attr": "dim", "by": 2}
    assert {e.status for e in events} == {161002}


def test_a_split_without_a_rank_check_is_unread():
    events = _walk(rank="")   # a rank-0 self has no dim to read
    assert events[-1].kind == "unread" and "splitShape" in events[-1].text


def _call(self_shape, out_shape, dim):
    return CallView(tensors={"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    attrs={"dim": dim}, null_outputs=frozenset())


@pytest.mark.parametrize("changes,calls", [
    # another remainder: the size at the dim must be odd
    ({"mod": "splitShape % SPLIT_NUM != 1"}, {((3, 5), (3, 2), 1): False, ((4, 6), (4, 3), 1): True,
                                              ((4, 5), (2, 5), 0): True, ((4, 5), (4, 2), -1): False}),
    # the expected shape changed again: dim 0 set to 1 after the halving
    ({"extra": "outShapeExpect.SetDim(0, 1);"}, {((4, 6), (1, 3), 1): False, ((4, 6), (4, 3), 1): True,
                                                 ((4, 6), (1, 6), 0): False, ((4, 6), (2, 6), 0): True}),
])
def test_a_split_written_otherwise_is_read_as_written(changes, calls):
    events = _walk(**changes)
    assert [e.kind for e in events] == ["check"] * len(events) and {e.status for e in events} == {161002}
    for (shape, out, dim), violated in calls.items():
        call = _call(shape, out, dim)
        assert any(predicate(e.template, dict(e.args))(call) for e in events) is violated, (shape, out, dim)


@pytest.mark.parametrize("shape,dim,violated", [
    ((4, 6), 1, False), ((4, 5), 1, True), ((4, 5), -2, False), ((3, 5), -1, True),
    ((3, 5), 2, False),   # outside the rank: the range check's call, not this rule's
    ((0, 3), 0, False),   # an empty dim halves to an empty one
])
def test_attr_dim_divisible_by_hand(shape, dim, violated):
    rule = predicate("attr_dim_divisible", {"attr": "dim", "tensor": "self", "by": 2})
    assert rule(_call(shape, shape, dim)) is violated


@pytest.mark.parametrize("shape,out,dim,violated", [
    ((4, 6), (4, 3), 1, False), ((4, 6), (4, 3), -1, False), ((4, 6), (2, 6), 0, False),
    ((4, 6), (4, 6), 1, True), ((4, 6), (2, 3), 1, True), ((4, 6), (4, 3, 1), 1, True),
])
def test_split_shape_by_hand(shape, out, dim, violated):
    rule = predicate("split_shape", {"param": "out", "of": "self", "attr": "dim", "by": 2})
    assert rule(_call(shape, out, dim)) is violated
