"""A dim loop whose duplicate test wraps a negative dim with ``GetPosDim`` written without the clamp of
rank 0 (ops-math conversion/strided_slice_v3/op_api/aclnn_slice_v2.cpp:40-43 ``return dim >= 0 ? dim : dim +
dimNum;``, used at :79-106): the range checks, then a duplicate refused."""
from __future__ import annotations

from snippet_walk import rules, walk

API = """
constexpr int64_t MAX_DIM_LEN = 8;

static inline int64_t GetPosDim(int64_t dim, int64_t dimNum)
{
    return dim >= 0 ? dim : dim + dimNum;
}

static bool CheckAxesValid(const aclTensor* self, const aclIntArray* axes)
{
    auto selfViewShape = self->GetViewShape();
    auto selfDimNum = static_cast<int64_t>(selfViewShape.GetDimNum());
    bitset<MAX_DIM_LEN> dimMask = bitset<MAX_DIM_LEN>();
    for (uint64_t i = 0; i < axes->Size(); i++) {
        if (axes->operator[](i) >= selfDimNum || axes->operator[](i) < (-selfDimNum)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "axes %ld not in range %ld.", axes->operator[](i), selfDimNum);
            return false;
        }
        int64_t index = GetPosDim(axes->operator[](i), selfDimNum);
        if (dimMask[index]) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "axes %ld appears multiple times.", index);
            return false;
        }
        dimMask.set(index);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* axes, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAxesValid(self, axes), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_the_range_and_the_duplicates_are_read():
    got = rules(walk(API, ["self", "axes", "out", "workspaceSize", "executor"]))
    assert [(kind, template) for kind, template, _, _ in got] == [
        ("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"), ("check", "attr_dims_unique")]
    assert got[-1][2]["attr"] == "axes" and got[-1][3] == 161002
