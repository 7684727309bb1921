"""Locals chosen by a rank test (``int64_t c = rank == 3 ? dim0 : dim1``) are the side a branch on that
test decides inside it, and a dim read at such a local is a choice of dims; an element of an integer
array read after a check of its length (``OP_CHECK(a->Size() == 2, ...)``) is inside it. The shape of
ops-nn index/gather_elements/op_api/aclnn_max_unpool2d_backward.cpp:70-123."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from snippet_walk import read_checks, violated

API = """
static bool CheckShape(const aclTensor* gradOutput, const aclTensor* self, const aclIntArray* outputSize)
{
    size_t selfDimNum = self->GetViewShape().GetDimNum();
    OP_CHECK(selfDimNum == 3 || selfDimNum == 4, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "3d or 4d"), return false);
    OP_CHECK(selfDimNum == gradOutput->GetViewShape().GetDimNum(), OP_LOGE(ACLNN_ERR_PARAM_INVALID, "d"),
             return false);
    int64_t c = selfDimNum == 3 ? self->GetViewShape().GetDim(0) : self->GetViewShape().GetDim(1);
    int64_t gradc = selfDimNum == 3 ? gradOutput->GetViewShape().GetDim(0) : gradOutput->GetViewShape().GetDim(1);
    if (selfDimNum == 3) {
        OP_CHECK(c == gradc, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "c"), return false);
    } else {
        OP_CHECK(c == gradc, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "n c"), return false);
    }
    OP_CHECK(outputSize->Size() == 2, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "2"), return false);
    int64_t dimh = selfDimNum == 3 ? 1 : 2;
    int64_t oheight = (*outputSize)[0];
    int64_t gradh = gradOutput->GetViewShape().GetDim(dimh);
    OP_CHECK(oheight == gradh, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "h"), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self,
                                      const aclIntArray* outputSize, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(gradOutput, self, outputSize), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    return read_checks(API, ["gradOutput", "self", "outputSize", "workspaceSize", "executor"])


def _fails(checks, self: tuple, grad: tuple, size: list) -> bool:
    call = CallView({"self": TensorView("FLOAT", self, "ND"), "gradOutput": TensorView("FLOAT", grad, "ND")},
                    {"outputSize": size}, frozenset())
    return bool(violated(checks, call))


def test_the_channel_is_the_dim_the_rank_chooses(tmp_path):
    checks = _checks(tmp_path)
    assert not _fails(checks, (2, 5, 6), (2, 7, 8), [7, 8])
    assert _fails(checks, (2, 5, 6), (3, 7, 8), [7, 8])
    assert not _fails(checks, (1, 2, 5, 6), (1, 2, 7, 8), [7, 8])
    assert _fails(checks, (1, 2, 5, 6), (1, 3, 7, 8), [7, 8])


def test_the_height_is_read_at_the_dim_the_rank_chooses(tmp_path):
    checks = _checks(tmp_path)
    assert _fails(checks, (2, 5, 6), (2, 7, 8), [8, 8])
    assert not _fails(checks, (1, 2, 5, 6), (1, 2, 7, 8), [7, 9])
    assert _fails(checks, (1, 2, 5, 6), (1, 2, 7, 8), [2, 8])
