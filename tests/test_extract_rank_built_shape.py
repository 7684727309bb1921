"""A shape built over a tensor's rank (ops-math conversion/pad_v3/op_api/aclnn_replication_pad2d.cpp:41-52):
``SetDimNum(rank)``, the leading dims copied in a loop under ``if (rank > k)``, the last k set by
``SetDim(rank - j, dim + pad + pad)``, its padding elements inside the array the length check before
keeps: the tensor's shape with its last k dims made those sums."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static bool CheckShape(const aclTensor* self, const aclIntArray* padding, const aclTensor* out)
{
    auto selfDimnum = self->GetViewShape().GetDimNum();
    OP_CHECK_MIN_DIM(self, %d, return false);
    OP_CHECK(padding->Size() == 4, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "padding length should be 4"), return false);
    op::Shape expectShape;
    expectShape.SetDimNum(selfDimnum);
    size_t paddingDim = 2;
    if (selfDimnum > paddingDim) {
        size_t dimToCompare = selfDimnum - paddingDim;
        for (size_t i = 0; i < dimToCompare; i++) {
            expectShape.SetDim(i, self->GetViewShape().GetDim(i));
        }
    }
    expectShape.SetDim(selfDimnum - 1, self->GetViewShape().GetDim(selfDimnum - 1) + (*padding)[0] + (*padding)[1]);
    expectShape.SetDim(selfDimnum - 2, self->GetViewShape().GetDim(selfDimnum - 2) + (*padding)[2] + (*padding)[3]);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, expectShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* padding, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, padding, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _walk(min_rank: int) -> list:
    return walk(API % min_rank, ["self", "padding", "out", "workspaceSize", "executor"])


def _call(out: tuple) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2, 3, 4), "ND"), "out": TensorView("FLOAT", out, "ND")},
                    {"padding": [1, 1, 2, 0]}, frozenset())


def test_the_expected_shape_is_the_padded_one():
    check = _walk(3)[-1]
    assert (check.kind, check.template, check.status) == ("check", "shape_is", 161002)
    violated = predicate(check.template, dict(check.args))
    assert violated(_call((2, 5, 6))) is False
    assert violated(_call((2, 3, 4))) is True


def test_a_rank_below_the_padded_dims_leaves_it_unread():
    events = _walk(1)
    assert events[-1].kind == "unread" and "expectShape" in events[-1].text
