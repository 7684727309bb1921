"""The extractor on a rank-0 input given one dim before a broadcast (snippet style, as the vendor
writes it): ``l0op::UnsqueezeNd(x, 0, executor)`` in a branch on x's rank being 0 makes a tensor of
shape [1], the branches merge into a choice of shapes, the broadcast of two such tensors is checked
(a shape of ones broadcasts as the rank-0 shape does) and the output compared with it, the branch
chosen by an ``enum`` member (``reduction == None``). Variants the reader cannot know stay unread.
Expected values are computed by hand from the C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, predicate
from snippet_walk import rules as _rules, walk as _walk

KLDIV = """
enum Reduction
{
    %(members)s
};

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    auto targetContiguous = l0op::Contiguous(target, uniqueExecutor.get());
    auto selfDimNum = self->GetViewShape().GetDimNum();
    auto targetDimNum = target->GetViewShape().GetDimNum();
    auto selfUnsqueeze = selfContiguous;
    auto targetUnsqueeze = targetContiguous;
    const int64_t dim = %(dim)s;
    if (%(cond)s) {
        selfUnsqueeze = l0op::UnsqueezeNd(selfContiguous, dim, uniqueExecutor.get());
        CHECK_RET(selfUnsqueeze != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    if (targetDimNum == 0) {
        targetUnsqueeze = l0op::UnsqueezeNd(targetContiguous, dim, uniqueExecutor.get());
        CHECK_RET(targetUnsqueeze != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    op::Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(selfUnsqueeze, targetUnsqueeze, broadcastShape,
                                       return ACLNN_ERR_PARAM_INVALID);
    if (reduction == None) {
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
    }
    op::FVector<int64_t, op::MAX_DIM_NUM> broadcastDims = op::ToShapeVector(broadcastShape);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "target", "reduction", "out", "workspaceSize", "executor"]
SELF = ["?", ["guard", ["rank-zero", "self"]], ["dims", [1]], ["of", "self"]]
TARGET = ["?", ["guard", ["rank-zero", "target"]], ["dims", [1]], ["of", "target"]]


def _kldiv(members: str = "None = 0, Mean = 1, Sum = 2, End", dim: str = "0", cond: str = "selfDimNum == 0") -> list:
    return _walk(KLDIV % {"members": members, "dim": dim, "cond": cond}, NAMES)


def _call(reduction: int, **shapes: tuple[int, ...]) -> CallView:
    return CallView({n: TensorView("FLOAT", s, "ND") for n, s in shapes.items()}, {"reduction": reduction},
                    frozenset())


def test_rank0_inputs_unsqueezed_broadcast_and_the_output_compared_with_the_broadcast():
    """aclnnKlDiv (ops-math math/kl_div_v2/op_api/aclnn_kl_div.cpp:241-268)."""
    got = _rules(_kldiv())
    assert got == [
        ("check", "broadcastable_shape", {"param": "self", "shape_expr": TARGET}, 161002),
        ("check", "shape_is", {"param": "out", "shape_expr": ["broadcast", SELF, TARGET],
                               "when": ["int", ["==", ["attr", "reduction"], 0]]}, 161002)]
    broadcastable, out_shape = (predicate(e.template, e.args_dict()) for e in _kldiv())
    # (3, 4) against (2, 4): no broadcast
    assert broadcastable(_call(0, self=(3, 4), target=(2, 4), out=(3, 4)))
    # (3, 1) with (1, 5): out must be (3, 5)
    assert not broadcastable(_call(0, self=(3, 1), target=(1, 5), out=(3, 5)))
    assert not out_shape(_call(0, self=(3, 1), target=(1, 5), out=(3, 5)))
    assert out_shape(_call(0, self=(3, 1), target=(1, 5), out=(3, 1)))
    # a rank-0 self becomes (1,): it broadcasts with any target, and out is the target's shape
    assert not broadcastable(_call(0, self=(), target=(2, 7), out=(2, 7)))
    assert not out_shape(_call(0, self=(), target=(2, 7), out=(2, 7)))
    # both rank 0: both (1,), the broadcast (1,), so out () differs from it
    assert not broadcastable(_call(0, self=(), target=(), out=(1,)))
    assert not out_shape(_call(0, self=(), target=(), out=(1,)))
    assert out_shape(_call(0, self=(), target=(), out=()))
    # reduction 1 is no None: out is not compared
    assert not out_shape(_call(1, self=(3, 1), target=(1, 5), out=()))


def test_an_enum_member_counted_from_the_one_before():
    """``Mean = 1, Sum, None, End``: Sum is 2, None 3, so the branch runs for reduction 3."""
    assert _rules(_kldiv(members="Mean = 1, Sum, None, End"))[1][2]["when"] == ["int", ["==", ["attr", "reduction"], 3]]
    assert _rules(_kldiv(members="None, Mean"))[1][2]["when"] == ["int", ["==", ["attr", "reduction"], 0]]


def test_an_enum_member_after_an_expression_and_unsqueezes_the_reader_cannot_know_stay_unread():
    # an enumerator given an expression: None's value is not read, the branch on it is unread
    assert _rules(_kldiv(members="Mean = 1 << 0, None, End"))[1][0] == "unread"
    # one dim inserted at 1 into a rank-0 tensor: out of its range (UnsqueezeNd returns null)
    assert _rules(_kldiv(dim="1"))[0][0] == "unread"
    # a branch on another tensor's rank: self's rank is not known to be 0 there
    assert _rules(_kldiv(cond="targetDimNum == 0"))[0][0] == "unread"
