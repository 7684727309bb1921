"""``OP_CHECK(op::IsContiguous(out), ...)`` fails for a non-contiguous out (the integer test of the guard
``not contiguous``), and ``OP_CHECK(r == 4 || r == 5, ...)`` fails when neither holds (``!(a || b)`` read
as ``!a && !b``). The shape of ops-nn index/gather_elements/op_api/aclnn_max_unpool3d_backward.cpp:55-70."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
static bool CheckShape(const aclTensor* self, aclTensor* out)
{
    OP_CHECK(op::IsContiguous(out), OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out must be contiguous"), return false);
    size_t selfDimNum = self->GetViewShape().GetDimNum();
    OP_CHECK(selfDimNum == 4 || selfDimNum == 5, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "4D or 5D"), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    events = walk(API, ["self", "out", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check"]


def _call(rank: int, contiguous: bool) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2,) * rank, "ND"),
                     "out": TensorView("FLOAT", (2,), "ND", contiguous=contiguous)}, {}, frozenset())


def test_a_non_contiguous_out_fails(tmp_path):
    check = _checks(tmp_path)[0]
    assert check.status == 161002
    assert TEMPLATES[check.template](_call(4, False), dict(check.args))
    assert not TEMPLATES[check.template](_call(4, True), dict(check.args))


def test_a_rank_neither_of_two_fails(tmp_path):
    check = _checks(tmp_path)[1]
    assert [TEMPLATES[check.template](_call(r, True), dict(check.args)) for r in (3, 4, 5, 6)] == \
        [True, False, False, True]
