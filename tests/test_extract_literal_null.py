"""A parameter bound to a literal ``nullptr`` (ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp:682
``aclnnClampTensorCommon(self, nullptr, max, ...)``) is null on every call: ``if (p != nullptr) {...}`` is never
taken (:489-491), so the dtype the helper computes is the one of the other tensors."""
from __future__ import annotations

from snippet_walk import rules, walk

API = """
static bool PromoteCheck(const aclTensor* self, const aclTensor* lo, const aclTensor* hi, op::DataType& promoteType)
{
    promoteType = self->GetDataType();
    if (lo != nullptr) {
        promoteType = op::PromoteType(promoteType, lo->GetDataType());
    }
    if (hi != nullptr) {
        promoteType = op::PromoteType(promoteType, hi->GetDataType());
    }
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "promote type fail.");
        return false;
    }
    return true;
}

static aclnnStatus Common(const aclTensor* self, const aclTensor* lo, const aclTensor* hi)
{
    op::DataType promoteType;
    CHECK_RET(PromoteCheck(self, lo, hi, promoteType), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* hi, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_NULL(hi, return ACLNN_ERR_PARAM_NULLPTR);
    return Common(self, nullptr, hi);
}
"""


def test_the_null_branch_is_decided():
    got = rules(walk(API, ["self", "hi", "workspaceSize", "executor"]))
    assert [(kind, template) for kind, template, _, _ in got] == [("check", "null"), ("check", "promotable")]
    assert "lo" not in str(got[-1][2])   # the dtype is self's promoted with hi's: lo never enters it
