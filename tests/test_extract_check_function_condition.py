"""A check function returning a condition on integer arguments (``return reduce >= 0 && reduce <= 5;``)
fails where the condition does not hold. The shape of ops-nn
index/scatter_elements_v2/op_api/aclnn_scatter.cpp:116-134,821."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView

API = """
static const int64_t REDUCE_NONE = 0;
static const int64_t REDUCE_MEAN = 5;
static bool IsValidScatterReduce(int64_t reduce) { return reduce >= REDUCE_NONE && reduce <= REDUCE_MEAN; }

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t reduce, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_COND(IsValidScatterReduce(reduce), ACLNN_ERR_PARAM_INVALID, "reduce must be one of [0, 5].");
    return ACLNN_SUCCESS;
}
"""


def test_the_reduce_argument_is_kept_in_its_range(tmp_path):
    events = walk(API, ["self", "reduce", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    checks = [e for e in events if e.kind == "check"]
    assert {c.status for c in checks} == {161002}

    def fails(reduce: int) -> bool:
        return any(TEMPLATES[c.template](CallView({}, {"reduce": reduce}, frozenset()), dict(c.args)) for c in checks)
    assert [fails(r) for r in (-1, 0, 3, 5, 6)] == [True, False, False, False, True]
