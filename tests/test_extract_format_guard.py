"""``if (a->GetStorageFormat() != b->GetStorageFormat() && a->GetStorageFormat() !=
static_cast<op::Format>(ACL_FORMAT_ND))`` (ops-math conversion/pad_v3/op_api/aclnn_constant_pad_nd.cpp:155-161):
the formats must be equal unless a's storage format is ND."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static bool Checkformat(const aclTensor* self, const aclTensor* out)
{
    if (self->GetStorageFormat() != out->GetStorageFormat() &&
        self->GetStorageFormat() != static_cast<op::Format>(ACL_FORMAT_ND)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "formats differ");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(Checkformat(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _call(a: str, b: str) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2,), a), "out": TensorView("FLOAT", (2,), b)}, {}, frozenset())


def test_formats_equal_unless_nd():
    events = walk(API, ["self", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template, e.status) for e in events] == [("check", "formats_equal", 161002)]
    violated = predicate(events[0].template, dict(events[0].args))
    assert violated(_call("NCHW", "ND")) is True
    assert violated(_call("ND", "NCHW")) is False
    assert violated(_call("NCHW", "NCHW")) is False
