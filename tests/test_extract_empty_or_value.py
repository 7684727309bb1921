"""``(int64_t)(x->GetViewShape().GetDimNum())`` is the rank; a success return on ``self->IsEmpty() ||
outputSize == 0`` (an empty tensor or an integer argument) leaves the checks after it to the other calls.
The shape of ops-nn index/repeat_interleave/op_api/aclnn_repeat_interleave.cpp:122,166-173,525-534."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from snippet_walk import read_checks, violated

API = """
static inline int64_t GetTensorDimNum(const aclTensor* self) { return (int64_t)(self->GetViewShape().GetDimNum()); }

static bool CheckDimRange(const aclTensor* self, int64_t dim)
{
    auto selfDim = GetTensorDimNum(self);
    if (selfDim == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "tensor has no dimensions.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* repeats, int64_t dim,
                                      int64_t outputSize, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimRange(self, dim), ACLNN_ERR_PARAM_INVALID);
    if (self->IsEmpty() || outputSize == 0) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    if (repeats->IsEmpty()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "repeats must have the same size as input along dim.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_the_checks_after_an_empty_or_zero_return(tmp_path):
    checks = read_checks(API, ["self", "repeats", "dim", "outputSize", "workspaceSize", "executor"])

    def fails(self: tuple, repeats: tuple, size: int) -> bool:
        call = CallView({"self": TensorView("FLOAT", self, "ND"), "repeats": TensorView("INT64", repeats, "ND")},
                        {"dim": 0, "outputSize": size}, frozenset())
        return bool(violated(checks, call))
    assert fails((), (1,), 1) and not fails((2,), (1,), 1)
    assert fails((2,), (0,), 1) and not fails((2,), (0,), 0) and not fails((0,), (0,), 1)
