"""A broadcast shape passed by pointer to a helper that only reads it (``&broadcastShape`` to
``op::Shape*``), and compared there dim by dim with a tensor's shape before an OP_LOGE_FOR_INVALID_*
report: refused where the broadcast shape's first dims are not the tensor's (the mask does not expand to
self). The shape of ops-nn index/masked_scatter/op_api/aclnn_masked_scatter.cpp:119-166."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
static bool isMaskCanExpandToSelfRef(const aclTensor* selfRef, const aclTensor* mask, op::Shape* broadcastShape)
{
    op::Shape selfRefShape = selfRef->GetViewShape();
    size_t selfRefShapeLen = selfRefShape.GetDimNum();
    for (size_t i = 0; i < selfRefShapeLen; i++) {
        if (broadcastShape->GetDim(i) != selfRefShape.GetDim(i)) {
            OP_LOGE_FOR_INVALID_SHAPES_WITH_REASON(kOpName, "self, mask",
                                                   (op::ToString(selfRef->GetViewShape()).GetString()).c_str(),
                                                   "The shape of mask must be broadcastable to the shape of self");
            return false;
        }
    }
    return true;
}

static bool CheckShape(const aclTensor* selfRef, const aclTensor* mask)
{
    Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(selfRef, mask, broadcastShape, return false);
    if (!isMaskCanExpandToSelfRef(selfRef, mask, &broadcastShape)) {
        OP_LOGE_FOR_INVALID_VALUE_WITH_REASON(kOpName, "self, mask", "shape mismatch", "dims");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* selfRef, const aclTensor* mask, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(selfRef, mask), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_the_mask_must_expand_to_self(tmp_path):
    events = walk(API, ["selfRef", "mask", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    check = [e for e in events if e.kind == "check"][-1]
    assert check.status == 161002

    def fails(self: tuple, mask: tuple) -> bool:
        call = CallView({"selfRef": TensorView("FLOAT", self, "ND"), "mask": TensorView("BOOL", mask, "ND")}, {},
                        frozenset())
        return TEMPLATES[check.template](call, dict(check.args))
    assert not fails((2, 3), (3,)) and not fails((2, 3), (1, 3)) and not fails((2, 3), ())
    assert fails((1, 3), (2, 3)) and fails((3,), (2, 3))
