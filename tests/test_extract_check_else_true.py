"""A check whose else fails nowhere: ``if (C) { log; return false; } else { return true; }`` is the check
of C with the caller's status (ops-nn norm/renorm/op_api/aclnn_embedding_renorm.cpp:130-142), and
``if (C) { return ERR; } else if (D) { return ACLNN_SUCCESS; }`` the check, then D's success return
(norm/sync_batch_norm_gather_stats/op_api/aclnn_sync_batch_norm_gather_stats.cpp:270-278); an else
that checks more is not read so."""
from __future__ import annotations

from tests.snippet_walk import walk

API = """
static bool CheckFormatValid(const aclTensor* self)
{
    if (self->GetStorageFormat() == op::Format::FORMAT_FRACTAL_NZ) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Input format only support [ND].");
        return false;
    } else {
        %s
    }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckFormatValid(self), ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


NAMES = ["self", "out", "workspaceSize", "executor"]


def test_a_check_whose_else_returns_true_is_read():
    events = walk(API % "return true;", NAMES)
    assert [e.kind for e in events] == ["check", "check"]
    assert events[0].status == 161002 and "FRACTAL_NZ" in str(events[0].args)
    assert (events[1].template, events[1].args_dict()["param"]) == ("null", "out")


def test_an_else_doing_more_stays_unread():
    events = walk(API % "OP_CHECK_NULL(out, return false); return true;", NAMES)
    # the failure on NZ is read (the NZ test as a format rule); what the else does is not
    assert [e.kind for e in events] == ["check", "unread"]
    assert (events[0].template, events[0].args_dict()) == ("format_not_in", {"param": "self", "formats": ["FRACTAL_NZ"]})


GATHER = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    op::Shape selfShape = self->GetViewShape();
    if (selfShape.GetDim(0) == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim0 is zero");
        return ACLNN_ERR_PARAM_INVALID;
    } else if (selfShape.GetDim(1) == 0) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


def test_a_check_whose_else_if_returns_success_is_read():
    events = walk(GATHER, NAMES)
    assert [e.kind for e in events if e.kind == "unread"] == []
    checks = [(e.template, e.status, e.line) for e in events if e.kind == "check"]
    assert checks[1][1:] == (161002, 7)      # dim 0 of self zero: refused
    assert checks[-1][0] == "null" and checks[-1][2] == 14
