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


@pytest.mark.parametrize("changes,unread", [
    ({"rank": ""}, "splitShape"),                       # a rank-0 self has no dim to read
    ({"mod": "splitShape % SPLIT_NUM != 1"}, "splitShape"),   # another remainder
    ({"extra": "outShapeExpect.SetDim(0, 1);"}, "outShapeExpect"),   # the expected shape changed again
])
def test_a_split_read_otherwise_is_unread(changes, unread):
    events = _walk(**changes)
    assert events[-1].kind == "unread" and unread in events[-1].text


def _call(self_shape, out_shape, dim):
    return CallView(tensors={"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    attrs={"dim": dim}, null_outputs=frozenset())


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
