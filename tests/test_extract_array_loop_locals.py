"""A loop over an integer array whose bound is a local holding the array's length and whose body
declares locals from values the loop does not change (ops-math conversion/roll/op_api/aclnn_roll.cpp:110-124
``CheckDimsRange``: ``dimSize = dims->Size()``, ``dimMax = std::max(-1 * rank, rank - 1)``): each
element's checks read as checks of the array, the locals as their values."""
from __future__ import annotations

from snippet_walk import walk

API = """
static bool CheckDimsRange(const aclTensor* x, const aclIntArray* dims)
{
    auto tensorDimSize = static_cast<int64_t>(x->GetViewShape().GetDimNum());
    int64_t dimSize = static_cast<int64_t>(dims->Size());
    for (int64_t i = 0; i < dimSize; i++) {
        int64_t curDim = (*dims)[i];
        auto dimMax = std::max(-1 * tensorDimSize, tensorDimSize - 1);
        auto dimMin = std::min(-1 * tensorDimSize, tensorDimSize - 1);
        if ((curDim > dimMax) || (curDim < dimMin)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The values of dims should be in range [%ld, %ld].", dimMin, dimMax);
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclIntArray* dims, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimsRange(x, dims), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_each_element_in_the_rank_range():
    events = walk(API, ["x", "dims", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template, e.status) for e in events] == [("check", "attr_in_rank_range", 161002)] * 2
    # dims in [min(-r, r - 1), max(-r, r - 1)]: [-r, r - 1], and [-1, 0] at rank 0
    assert dict(events[0].args) == {"attr": "dims", "tensor": "x", "max": (1, -1), "max_rank0": 0}
    assert dict(events[1].args) == {"attr": "dims", "tensor": "x", "min": (-1, 0), "min_rank0": -1}
