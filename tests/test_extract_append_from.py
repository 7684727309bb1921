"""An out shape built by two loops, the second appending a tensor's dims from a start read off another
tensor (``for (i = indicesLastElement; i < rankSelf; ++i) outShape.AppendDim(self dim i)``), and a loop
the reader does not follow that changes a shape by a method (``AppendDim``): the shape is unknown after
it, never the shape from before. The shape of ops-nn index/gather_nd/op_api/aclnn_gather_nd.cpp:125-144."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
static inline bool CheckOutShape(const aclTensor* self, const aclTensor* indices, const aclTensor* out)
{
    op::Shape outShape;
    int64_t rankSelf = self->GetViewShape().GetDimNum();
    int64_t rankIndices = indices->GetViewShape().GetDimNum();
    int64_t indicesLastElement = indices->GetViewShape().GetDim(rankIndices - 1);
    for (int64_t i = 0; i < rankIndices - 1; ++i) {
        outShape.AppendDim(indices->GetViewShape().GetDim(i));
    }
    for (int64_t i = indicesLastElement; i < rankSelf; %s) {
        outShape.AppendDim(self->GetViewShape().GetDim(i));
    }
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* indices, const aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_MIN_DIM(indices, 1, return ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckOutShape(self, indices, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _events(tmp_path, step: str = "++i") -> list:
    return walk(API % step, ["self", "indices", "out", "workspaceSize", "executor"])


def test_the_out_shape_takes_self_dims_from_the_last_index_on(tmp_path):
    events = _events(tmp_path)
    assert [e.text for e in events if e.kind == "unread"] == []
    check = events[-1]

    def fails(self: tuple, indices: tuple, out: tuple) -> bool:
        call = CallView({"self": TensorView("FLOAT", self, "ND"), "indices": TensorView("INT32", indices, "ND"),
                         "out": TensorView("FLOAT", out, "ND")}, {}, frozenset())
        return TEMPLATES[check.template](call, dict(check.args))
    assert not fails((2, 2), (2, 1), (2, 2)) and fails((2, 2), (2, 1), (2,))
    assert not fails((2, 2), (2, 2), (2,)) and not fails((4, 5, 6), (3, 1), (3, 5, 6))


def test_a_loop_not_followed_leaves_the_shape_unknown(tmp_path):
    events = _events(tmp_path, "i += 1")
    assert events[-1].kind == "unread" and "outShape" in events[-1].text
