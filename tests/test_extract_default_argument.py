"""A call giving fewer arguments than its callee's parameters: the definition's default values fill the
rest (``bool includeSelf = true``), so the callee is inlined. The shape of ops-nn
index/scatter_elements_v2/op_api/aclnn_scatter.cpp:799-802."""
from __future__ import annotations

from snippet_walk import read_checks

API = """
static aclnnStatus ExecSnip(const aclTensor* self, int64_t reduce, uint64_t* workspaceSize, aclOpExecutor** executor,
                            bool includeSelf = true)
{
    if (reduce > 5) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "reduce out of range");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t reduce, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    return ExecSnip(self, reduce, workspaceSize, executor);
}
"""


def test_the_callee_is_read_with_its_default_argument():
    checks = read_checks(API, ["self", "reduce", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("attr_range", 161002)]
