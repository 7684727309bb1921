"""A bool helper looping over a shape's dims and refusing a dim that differs from another shape's except
at one (IsSliceShapeSame): refused where the shapes differ outside that dim, a rank-0 shape running no
pass, and a call whose other shape has fewer dims (read outside it) left undecided. The shape of ops-nn
index/scatter_update/op_api/aclnn_index_copy.cpp:140-153,196-199."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, int_holds

API = """
static inline bool IsSliceShapeSame(const aclTensor* self, const aclTensor* source, int64_t dim)
{
    auto selfShape = self->GetViewShape();
    auto sourceShape = source->GetViewShape();
    size_t dimNum = selfShape.GetDimNum();
    int64_t posDim = dim < 0 ? dim + static_cast<int64_t>(dimNum) : dim;
    for (size_t idx = 0; idx < dimNum; idx++) {
        if (selfShape.GetDim(idx) != sourceShape.GetDim(idx) && idx != static_cast<uint64_t>(posDim)) {
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* source,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (!IsSliceShapeSame(self, source, dim)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Self and source must have same slice shapes");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def _check(tmp_path):
    events = walk(API, ["self", "dim", "source", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    (check,) = [e for e in events if e.kind == "check"]
    assert (check.template, check.status) == ("int_test", 161002)
    return dict(check.args)["test"]


def _fails(test, self: tuple, source: tuple, dim: int):
    call = CallView({"self": TensorView("FLOAT", self, "ND"), "source": TensorView("FLOAT", source, "ND")},
                    {"dim": dim}, frozenset())
    return int_holds(call, test)


def test_the_shapes_may_differ_at_the_dim_only(tmp_path):
    test = _check(tmp_path)
    assert _fails(test, (2, 3, 4), (2, 7, 4), 1) is False
    assert _fails(test, (2, 3, 4), (2, 7, 4), -2) is False
    assert _fails(test, (2, 3, 4), (2, 7, 5), 1) is True
    assert _fails(test, (2, 3), (2, 3, 9), 0) is False   # the source's first dims only


def test_a_scalar_self_passes_and_a_shorter_source_is_undecided(tmp_path):
    test = _check(tmp_path)
    assert _fails(test, (), (5,), 0) is False
    assert _fails(test, (2, 3), (), 0) is None
