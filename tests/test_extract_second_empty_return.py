"""Two empty-tensor returns one after the other (``if (self->IsEmpty()) {...} if (mask->IsEmpty())
{...}``) before the parameter checks: the checks after them are read for the calls taking neither
(ops-math random/drop_out_do_mask/op_api/aclnn_dropout_do_mask.cpp:145-159)."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from tests.snippet_walk import walk

API = """
static aclnnStatus CheckParams(const aclTensor* self, aclTensor* out)
{
    OP_CHECK_SHAPE_NOT_EQUAL(self, out, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* mask, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    if (mask->IsEmpty()) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    auto ret = CheckParams(self, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def _call(mask_shape: tuple) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2,), "ND"), "mask": TensorView("UINT8", mask_shape, "ND"),
                     "out": TensorView("FLOAT", (3,), "ND")}, {}, frozenset())


def test_the_checks_after_two_empty_returns_are_read():
    events = walk(API, ["self", "mask", "out", "workspaceSize", "executor"])
    assert [e.kind for e in events] == ["check", "empty", "empty", "check"]
    shape = events[-1]
    assert (shape.template, shape.status) == ("shapes_equal", 161002)
    when = shape.args_dict()["when"]
    assert guard_holds(_call((4,)), when) is True      # neither empty: checked
    assert guard_holds(_call((0,)), when) is False     # an empty mask returned before
