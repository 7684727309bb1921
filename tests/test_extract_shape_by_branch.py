"""An out shape declared empty and built on each side of a rank-0 branch: a tensor's shape on one side,
dims appended by loops on the other (from 0 to a wrapped dim argument, an inner choice on the index's
rank, from ``dim + 1`` on). Each side reads the shape as the calls taking it leave it (the other side's
statements are not on their way). The shape of ops-nn index/gather_v2/op_api/aclnn_gather_v2.cpp:132-158."""
from __future__ import annotations

from snippet_walk import read_checks, violated
from aclnn_conformance.spec.templates import CallView, TensorView

API = """
static inline bool CheckOutShape(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* out)
{
    Shape outShape;
    if (self->GetViewShape().GetDimNum() == 0) {
        outShape = self->GetViewShape();
    } else {
        for (int64_t i = 0; i < dim; i++) {
            outShape.AppendDim(self->GetViewShape().GetDim(i));
        }
        if (index->GetViewShape().GetDimNum() == 0) {
            outShape.AppendDim(1);
        } else {
            for (size_t i = 0; i < index->GetViewShape().GetDimNum(); i++) {
                outShape.AppendDim(index->GetViewShape().GetDim(i));
            }
        }
        for (size_t i = dim + 1; i < self->GetViewShape().GetDimNum(); i++) {
            outShape.AppendDim(self->GetViewShape().GetDim(i));
        }
    }
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOutShape(self, dim, index, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _fails(self: tuple, dim: int, index: tuple, out: tuple) -> bool:
    checks = read_checks(API, ["self", "dim", "index", "out", "workspaceSize", "executor"])
    call = CallView({"self": TensorView("FLOAT", self, "ND"), "index": TensorView("INT64", index, "ND"),
                     "out": TensorView("FLOAT", out, "ND")}, {"dim": dim}, frozenset())
    return bool(violated(checks, call))


def test_out_is_self_with_the_index_shape_at_dim():
    assert not _fails((2, 3, 4), 1, (5,), (2, 5, 4)) and _fails((2, 3, 4), 1, (5,), (2, 3, 4))
    assert not _fails((2, 3, 4), 2, (5, 6), (2, 3, 5, 6)) and not _fails((2, 3), 0, (), (1, 3))


def test_a_rank_0_self_keeps_its_shape():
    assert not _fails((), 0, (3,), ()) and _fails((), 0, (3,), (3,))
