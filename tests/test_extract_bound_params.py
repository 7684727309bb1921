"""A common CheckParams taking the shape check as a function pointer and the null status as a parameter
(ops-math conversion/circular_pad_grad/op_api/circular_pad_backward_common.h:72-88, called by
aclnn_circular_pad2d_backward.cpp:58 with ``CheckShape, ACLNN_ERR_PARAM_NULLPTR``): the function passed is
inlined where the parameter is called, the status passed is the status; and a rank compared with a local
holding another tensor's rank (aclnn_circular_pad2d_backward.cpp:22-32) reads as equal ranks."""
from __future__ import annotations

from snippet_walk import walk

API = """
static bool CheckShape(const aclTensor* gradOutput, const aclTensor* self)
{
    auto selfDimnum = self->GetViewShape().GetDimNum();
    OP_CHECK(gradOutput->GetViewShape().GetDimNum() == selfDimnum,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dims should be same."), return false);
    return true;
}

typedef bool (*CheckShapeFn)(const aclTensor*, const aclTensor*);

inline static aclnnStatus CheckParams(const aclTensor* gradOutput, const aclTensor* self, CheckShapeFn checkShapeFn,
                                      aclnnStatus nullPtrErrorCode)
{
    CHECK_RET(gradOutput != nullptr, nullPtrErrorCode);
    CHECK_RET(checkShapeFn(gradOutput, self), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto ret = CheckParams(gradOutput, self, CheckShape, ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def test_the_function_and_the_status_passed_are_read():
    events = walk(API, ["gradOutput", "self", "workspaceSize", "executor"])
    assert [(e.kind, e.template, dict(e.args), e.status) for e in events] == [
        ("check", "null", {"param": "gradOutput"}, 161001),
        ("check", "ranks_equal", {"param": "gradOutput", "other": "self"}, 161002)]
