"""A branch on a string parameter bound to a string constant of the file (ops-math
conversion/pad_v3_grad_replication/op_api/aclnn_pad3d_backward.cpp:26-27 ``static const string
REFLECTION_PAD_MODE = "reflect";``, passed at :286 and :304, tested at :113 ``if (mode == "reflect")``):
decided for each API, the checks inside made only where the constant takes the branch."""
from __future__ import annotations

from snippet_walk import walk

API = """
static const string REFLECTION_PAD_MODE = "reflect";
static const string REPLICATION_PAD_MODE = "edge";

inline static bool CheckShape(const aclTensor* self, const aclIntArray* padding, const string& mode)
{
    if (mode == "reflect") {
        OP_CHECK((*padding)[0] < 3, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "padding too large."), return false);
    }
    return true;
}

static aclnnStatus Common(const aclTensor* self, const aclIntArray* padding, const string& mode)
{
    OP_CHECK_NULL(padding, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK(padding->Size() == 1, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "one padding."), return ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckShape(self, padding, mode), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* padding, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    return Common(self, padding, %s);
}
"""
NAMES = ["self", "padding", "workspaceSize", "executor"]


def test_the_reflect_branch_is_taken_for_the_reflect_constant():
    events = walk(API % "REFLECTION_PAD_MODE", NAMES)
    assert [e.kind for e in events] == ["check"] * 3 and events[-1].template == "int_test"


def test_the_reflect_branch_is_not_taken_for_another_constant():
    events = walk(API % "REPLICATION_PAD_MODE", NAMES)
    assert [e.kind for e in events] == ["check"] * 2
