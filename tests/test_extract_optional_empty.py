"""The empty-tensor return on ``self->IsEmpty() || (lo != nullptr && lo->IsEmpty()) || (hi != nullptr &&
hi->IsEmpty())`` (ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp:524): any of the named tensors
empty, a null optional one never; one passed as a literal nullptr (aclnn_clamp.cpp:682) drops out."""
from __future__ import annotations

from snippet_walk import walk

API = """
static aclnnStatus Common(const aclTensor* self, const aclTensor* lo, const aclTensor* hi, aclTensor* out,
                          uint64_t* workspaceSize)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty() || (lo != nullptr && lo->IsEmpty()) ||
        (hi != nullptr && hi->IsEmpty())) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* %s, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    return Common(self, %s, out, workspaceSize);
}
"""


def _empty(params: str, args: str, names: list[str]) -> dict:
    events = walk(API % (params, args), names)
    assert [e.kind for e in events] == ["check", "empty"]
    return dict(events[-1].args)


def test_optional_tensors_empty():
    got = _empty("lo, const aclTensor* hi", "lo, hi", ["self", "lo", "hi", "out", "workspaceSize", "executor"])
    assert got == {"params": ("hi", "lo", "self"), "any": True}


def test_a_literal_null_drops_out():
    got = _empty("hi", "nullptr, hi", ["self", "hi", "out", "workspaceSize", "executor"])
    assert got == {"params": ("hi", "self"), "any": True}
