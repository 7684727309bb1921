"""A loop over a tensor's dims from a start chosen on the rank up to the rank, each dim refused when not
positive (ops-math conversion/im2col/op_api/aclnn_im2col.cpp:79-100, after :82 allows ranks 3 and 4): one
integer test over the dims the loop reads at each allowed rank; with the ranks unbounded it stays unread."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static constexpr size_t NEED_SQUEEZE = 3;
static constexpr size_t NO_NEED_SQUEEZE = 4;

static bool CheckInputDims(const aclTensor* self)
{
    auto selfDimNum = self->GetViewShape().GetDimNum();
    %s
    const op::Shape selfShape = self->GetViewShape();
    size_t index = selfDimNum == NO_NEED_SQUEEZE ? 1 : 0;
    for (size_t i = index; i < selfDimNum; i++) {
        if (selfShape.GetDim(i) <= 0) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self'dims is invalid.");
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckInputDims(self), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RANKS = """if (selfDimNum != NEED_SQUEEZE && selfDimNum != NO_NEED_SQUEEZE) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected self dim to be 3 or 4.");
        return false;
    }"""


def _violated(events, shape: tuple) -> bool:
    return predicate("int_test", dict(events[-1].args))(CallView({"self": TensorView("FLOAT", shape, "ND")}, {},
                                                                 frozenset()))


def test_the_dims_read_at_each_allowed_rank():
    events = walk(API % RANKS, ["self", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "int_test")] * 2
    assert _violated(events, (0, 2, 2, 2)) is False    # rank 4: dim 0 is not read
    assert _violated(events, (1, 2, 0, 2)) is True
    assert _violated(events, (0, 2, 2)) is True        # rank 3: every dim


def test_unbounded_ranks_stay_unread():
    events = walk(API % "", ["self", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"
