"""A branch on ``!(A && B)`` holding a check, A read (``out->IsEmpty()``) and B not modelled (a call
of a function the reader does not know, in place of the vendor's ``std->Size() == 1``): the check
under ``!A``, the calls where A holds not judged from there (the shape of ops-math
random/stateless_random_normal_v2/op_api/aclnn_normal_out.cpp:94-99).
A branch neither of whose terms is read stays unread whole."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from tests.snippet_walk import walk

API = """
static bool CheckShapeOfStd(const aclTensor* std, aclTensor* out)
{
    if (!(%s && IsOneElementSomehow(std))) {
        if (out->GetViewShape() != std->GetViewShape()) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of std should be match with out.");
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* std, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShapeOfStd(std, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["std", "out", "workspaceSize", "executor"]


def _call(out_shape: tuple) -> CallView:
    return CallView({"std": TensorView("FLOAT", (1,), "ND"), "out": TensorView("FLOAT", out_shape, "ND")}, {},
                    frozenset())


def test_the_read_term_decides_the_check_and_the_rest_is_unread():
    events = walk(API % "out->IsEmpty()", NAMES)
    assert [(e.kind, e.template) for e in events] == [("unread", ""), ("check", "shapes_equal")]
    unread, check = (e.args_dict()["when"] for e in events)
    assert guard_holds(_call((0, 2)), unread) is True and guard_holds(_call((2,)), unread) is False
    assert guard_holds(_call((2,)), check) is True and guard_holds(_call((0, 2)), check) is False


def test_no_read_term_leaves_the_branch_unread():
    events = walk(API % "IsTinySomehow(out)", NAMES)
    assert [e.kind for e in events] == ["unread"] and "holding checks" in events[0].text
