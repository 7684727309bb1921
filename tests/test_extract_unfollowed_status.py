"""An API whose GetWorkspaceSize returns the status of a call the reader does not follow is read as
unread there, never as a success: a function template called with template arguments (after ops-math
conversion/circular_pad/op_host/op_api/aclnn_circular_pad2d.cpp:26, ``CircularPadGetWorkspaceSizeImpl<3,
4, 4>``) and a helper of a header the reader does not find (after
conversion/pad_v4_grad/op_host/op_api/aclnn_reflection_pad1d_backward.cpp:29, ``Pad1dBackwardCompute``
from ``../../../pad_v3_grad_replicate/...``). Both were read as calls that succeed, so the scope
called their APIs covered with no parameter check read."""
from __future__ import annotations

from snippet_walk import walk

NAMES = ["self", "padding", "out", "workspaceSize", "executor"]

# a status helper checking self, and an API returning what a call of it (or of a name not defined) returns
HELPER = """
{head}aclnnStatus {name}(const aclTensor* self, const aclIntArray* padding, aclTensor* out,
                      uint64_t* workspaceSize, aclOpExecutor** executor)
{{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}}
"""
API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* padding, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{{
    OP_CHECK_COMM_INPUT(workspaceSize, executor);
    return {call};
}}
"""

TEMPLATE_CALL = HELPER.format(head="template <size_t MinDim, size_t MaxDim, size_t PaddingSize>\ninline static ",
                              name="PadImpl") + \
    API.format(call="PadImpl<3, 4, 4>(self, padding, out, workspaceSize, executor)")
UNKNOWN_HELPER = API.format(call="PadCompute(self, padding, out, workspaceSize, executor, REFLECTION_MODE)")
FOLLOWED_HELPER = HELPER.format(head="static ", name="PadCompute") + \
    API.format(call="PadCompute(self, padding, out, workspaceSize, executor)")


def _unread(events) -> list[str]:
    return [e.text for e in events if e.kind == "unread"]


def test_a_function_template_called_with_template_arguments_is_unread_not_a_success() -> None:
    events = walk(TEMPLATE_CALL, NAMES)
    unread = _unread(events)
    assert len(unread) == 1 and unread[0].startswith("the status of a call the reader does not follow (PadImpl)")
    # the checks before it stay read: the two OP_CHECK_COMM_INPUT nulls
    assert [(e.template, e.status) for e in events if e.kind == "check"] == [("null", 161001), ("null", 161001)]


def test_a_helper_the_reader_does_not_find_is_unread_not_a_success() -> None:
    unread = _unread(walk(UNKNOWN_HELPER, NAMES))
    assert len(unread) == 1 and unread[0].startswith("the status of a call the reader does not follow (PadCompute)")


def test_a_helper_of_the_file_is_still_followed() -> None:
    events = walk(FOLLOWED_HELPER, NAMES)
    assert _unread(events) == []
    assert [(e.template, e.args_dict().get("param"), e.status) for e in events if e.kind == "check"] == \
        [("null", "workspaceSize", 161001), ("null", "executor", 161001), ("null", "self", 161001)]
