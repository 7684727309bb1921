"""A rank compared with another tensor's rank (``self->GetViewShape().GetDimNum() !=
out->GetViewShape().GetDimNum()``) and a constant written ``1 << 24``: the ranks-equal check and a
bound the reader knows (ops-math random/stateless_sample_multinomial/op_api/aclnn_multinomial.cpp:51,
151, 186)."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from tests.snippet_walk import walk

API = """
constexpr int64_t MAX_CONSECUTIVE = 1 << 24;

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    if (self->GetViewShape().GetDimNum() != out->GetViewShape().GetDimNum()) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    auto last = self->GetViewShape().GetDim(0);
    if (last > MAX_CONSECUTIVE) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_rank_against_another_and_a_shifted_constant():
    assert read_source("snippet.cpp", API).constants["MAX_CONSECUTIVE"] == 1 << 24
    events = walk(API, ["self", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "ranks_equal"), ("check", "dims_compare")]
    assert events[1].args_dict()["b"] == 1 << 24
