"""The extractor on two constructs of ops-math (snippets in the vendor's style): a status function whose
checks all ``return false`` (an aclnnStatus holds false as 0, ACLNN_SUCCESS, so none of them fails a
call; after math/sub/op_api/aclnn_sub.cpp:525-543), and an emptiness test of a local that is the
input or a reshape of it (after math/reduce_std_v2/op_api/aclnn_std.cpp:235-264). Expected events are
worked out by hand from the C code."""
from __future__ import annotations

from snippet_walk import rules, walk

CHECKS = """
static aclnnStatus CheckParams(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""

ONLY_FALSE = CHECKS + """
static inline aclnnStatus CheckInplace(const aclTensor* selfRef, const aclTensor* other)
{
    OP_CHECK_NULL(selfRef, return false);
    op::Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(selfRef, other, broadcastShape, return false);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto ret = CheckInplace(self, other);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    ret = CheckParams(self, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "other", "out", "workspaceSize", "executor"]


def test_a_status_function_returning_only_false_fails_no_call() -> None:
    """CheckInplace's two checks end it with 0: the caller goes on, and only CheckParams's checks hold."""
    got = rules(walk(ONLY_FALSE, NAMES))
    assert got == [("check", "null", {"param": "self"}, 161001), ("check", "null", {"param": "out"}, 161001)]


def test_a_real_error_code_keeps_the_function_read() -> None:
    """One check returning a parameter status: the function can fail, so its checks are read as before."""
    body = ONLY_FALSE.replace("OP_CHECK_NULL(selfRef, return false);",
                              "OP_CHECK_NULL(selfRef, return ACLNN_ERR_PARAM_NULLPTR);")
    events = walk(body, NAMES)
    assert ("check", "null", {"param": "self"}, 161001) == rules(events)[0]
    assert [e.kind for e in events if e.kind == "unread"]   # its ``return false`` is the caller's again


def test_a_check_ret_of_its_own_keeps_the_function_read() -> None:
    """``CHECK_RET(C, code)`` returns a status of its own: the function is not success-only."""
    body = ONLY_FALSE.replace("    return ACLNN_SUCCESS;\n}\n\naclnnStatus aclnnSnip",
                              "    CHECK_RET(other != nullptr, ACLNN_ERR_PARAM_NULLPTR);\n"
                              "    return ACLNN_SUCCESS;\n}\n\naclnnStatus aclnnSnip")
    assert any(e.kind == "unread" for e in walk(body, NAMES))


RESHAPED = CHECKS + """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto selfReshape = self;
    auto ret = CheckParams(selfReshape, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    if (self->GetViewShape().GetDimNum() == 0) {
        int64_t selfShapeValue[1] = {1};
        aclIntArray* selfShape = uniqueExecutor.get()->AllocIntArray(selfShapeValue, 1);
        auto selfReshapeI = l0op::Reshape(self, selfShape, uniqueExecutor.get());
        CHECK_RET(selfReshapeI != nullptr, ACLNN_ERR_INNER_NULLPTR);
        selfReshape = selfReshapeI;
    }
    if (selfReshape->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    OP_CHECK_MAX_DIM(out, 8, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RESHAPED_NAMES = ["self", "out", "workspaceSize", "executor"]


def test_a_local_holding_the_input_or_its_reshape_is_empty_when_the_input_is() -> None:
    """A reshape keeps the element count: ``selfReshape->IsEmpty()`` is ``self->IsEmpty()``, and the
    check after it holds for the non-empty calls."""
    got = rules(walk(RESHAPED, RESHAPED_NAMES))
    assert ("empty", "empty", {"params": ["self"], "any": True}, 0) in got
    assert ("check", "rank_range", {"max": 8, "param": "out", "when": ["not", ["empty", ["self"], True]]},
            161002) == got[-1]


def test_a_local_set_from_another_tensor_is_not_the_input() -> None:
    """``selfReshape = out`` on one path: it is not ``self`` on every path, so its emptiness is not read."""
    body = RESHAPED.replace("selfReshape = selfReshapeI;", "selfReshape = out;")
    events = walk(body, RESHAPED_NAMES)
    assert not any(e.kind == "empty" for e in events)


def test_a_local_passed_by_address_is_not_the_input() -> None:
    """A call may change a local passed by its address: its emptiness is not read."""
    body = RESHAPED.replace("CHECK_RET(selfReshapeI != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                            "CHECK_RET(selfReshapeI != nullptr, ACLNN_ERR_INNER_NULLPTR); Swap(&selfReshape);")
    assert not any(e.kind == "empty" for e in walk(body, RESHAPED_NAMES))
