"""Loops of a known count: ``for (i = 1; i < rank; ++i) { if (shape.GetDim(i) <= 0) return false; }``
refuses a tensor with a dim from 1 on of 0 or less (the integer test ``any-dim``); ``for (i = 0; i <
EXPECT_SIZE; ++i) { ... }`` with a constant count runs its passes in order, an array's element read in
each inside the length an earlier check gave it. The shapes of ops-nn
index/scatter_elements/op_api/aclnn_max_unpool2d.cpp:86-100 and common/inc/op_api/level2_base.h:407-442."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
static bool CheckInputNullTensor(const aclTensor* self)
{
    auto inputShape = self->GetViewShape();
    size_t dimNum = inputShape.GetDimNum();
    for (size_t i = 1; i < dimNum; ++i) {
        if (inputShape.GetDim(i) <= 0) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension %zu being empty.", i);
            return false;
        }
    }
    return true;
}

static inline bool CheckStride(const aclIntArray* stride)
{
    constexpr int64_t EXPECT_SIZE = 3;
    OP_CHECK(stride->Size() == EXPECT_SIZE, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "three"), return false);
    for (size_t i = 0; i < EXPECT_SIZE; ++i) {
        if ((*stride)[i] <= 0) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "strides[%zu] should be greater than zero.", i);
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* stride, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckInputNullTensor(self), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckStride(stride), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    events = walk(API, ["self", "stride", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check"]


def _failing(checks, shape: tuple, stride: list) -> list:
    call = CallView({"self": TensorView("FLOAT", shape, "ND")}, {"stride": stride}, frozenset())
    return [i for i, c in enumerate(checks) if TEMPLATES[c.template](call, dict(c.args))]


def test_a_dim_from_the_second_on_of_zero_fails(tmp_path):
    checks = _checks(tmp_path)
    assert _failing(checks, (0, 2, 3), [1, 1, 1]) == []
    assert _failing(checks, (2, 0, 3), [1, 1, 1]) == [0]
    assert _failing(checks, (), [1, 1, 1]) == [] and _failing(checks, (0,), [1, 1, 1]) == []


def test_each_of_the_three_strides_is_checked(tmp_path):
    checks = _checks(tmp_path)
    assert len(checks) == 5   # the dims, the length, one per stride
    assert _failing(checks, (1, 2), [1, 2, 3]) == []
    assert _failing(checks, (1, 2), [1, 0, 3]) == [3] and _failing(checks, (1, 2), [1, 2, -1]) == [4]
    assert _failing(checks, (1, 2), [1, 2]) == [1]
