"""``if (self->Size() > 0) { OP_CHECK_MIN_DIM(...) }`` (ops-math conversion/triu/op_api/aclnn_triu.cpp:95):
opbase ``aclTensor::Size()`` is the storage shape's element count (common_types.cpp
``GetStorageShape().GetShapeSize()``), so the rank check binds only tensors whose storage holds an
element, whatever their view."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds

API = """
static inline bool CheckShape(const aclTensor* self, const aclTensor* out)
{
    if (self->Size() > 0) {
        OP_CHECK_MIN_DIM(self, 2, return false);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _call(shape: tuple, storage: tuple | None) -> CallView:
    return CallView({"self": TensorView("FLOAT", shape, "ND", True, storage),
                     "out": TensorView("FLOAT", shape, "ND")}, {}, frozenset())


def test_the_rank_check_holds_where_the_storage_has_elements():
    events = walk(API, ["self", "out", "workspaceSize", "executor"])
    assert [e.kind for e in events] == ["check"]
    args = dict(events[0].args)
    assert (events[0].template, args["min"], args["param"]) == ("rank_range", 2, "self")
    assert guard_holds(_call((3,), None), args["when"]) is True
    assert guard_holds(_call((0,), None), args["when"]) is False
    assert guard_holds(_call((0,), (4,)), args["when"]) is True      # an empty view on a storage of 4
