"""A tensor local declared without a value (``const aclTensor* out;``) and set on every path of an
unread branch by a kernel or by a compute helper of the file (kernels only, a null passed on): a null
check of it with a parameter status is the kernels' own failure, no parameter check (ops-math
random/stateless_sample_multinomial/op_api/aclnn_multinomial.cpp:465-513). A path leaving it unset
keeps the check unread."""
from __future__ import annotations

from tests.snippet_walk import walk

API = """
static bool UseAicpuPath(const aclTensor* self, int64_t selfSize)
{
    return selfSize <= 5000;
}

const aclTensor* RunSnip(const aclTensor* self, aclOpExecutor* executor)
{
    auto sumSelf = l0op::ReduceSum(self, executor);
    CHECK_RET(sumSelf != nullptr, nullptr);
    auto out = l0op::Div(self, sumSelf, executor);
    CHECK_RET(out != nullptr, nullptr);
    return out;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t selfSize, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    const aclTensor* snipOut;
    if (UseAicpuPath(self, selfSize)) {
        snipOut = l0op::SnipAicpu(self, uniqueExecutor.get());
    } %s
    CHECK_RET(snipOut != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "selfSize", "out", "workspaceSize", "executor"]


def test_a_local_set_by_kernels_on_every_path_is_a_kernel_result():
    events = walk(API % "else {\n        snipOut = RunSnip(self, uniqueExecutor.get());\n    }", NAMES)
    assert [(e.kind, e.template) for e in events] == [("check", "null")]
    assert events[0].args_dict()["param"] == "out"


def test_a_path_leaving_it_unset_keeps_the_check_unread():
    events = walk(API % "", NAMES)
    assert events[0].kind == "unread" and "snipOut" in events[0].text
