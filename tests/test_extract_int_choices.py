"""Integers chosen by branches in a helper that changes its arguments by reference (ops-math
conversion/slice/op_api/aclnn_slice.cpp:59-84 the wrap and clamps of a slice's dim, start and end, called at
:123-124), then the view shape with the wrapped dim set (:126-135): the out shape a slice makes."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static void Upper(const aclTensor* self, int64_t& dim, int64_t& start, int64_t& end)
{
    if (dim < 0) {
        dim = dim + self->GetViewShape().GetDimNum();
    }
    if (start < 0) {
        start = start + self->GetViewShape().GetDim(dim);
    }
    if (end < 0) {
        end = end + self->GetViewShape().GetDim(dim);
    }
}

static void Lower(const aclTensor* self, int64_t& dim, int64_t& start, int64_t& end)
{
    if (start < 0) {
        start = 0;
    } else if (start >= self->GetViewShape().GetDim(dim)) {
        start = self->GetViewShape().GetDim(dim);
    }
    if (end < start) {
        end = start;
    } else if (end >= self->GetViewShape().GetDim(dim)) {
        end = self->GetViewShape().GetDim(dim);
    }
}

static bool CheckShape(const aclTensor* self, int64_t dim, int64_t start, int64_t end, int64_t step,
                       const aclTensor* out)
{
    int64_t dimNum = self->GetViewShape().GetDimNum();
    if (dimNum <= 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "rank 0");
        return false;
    }
    if ((-dimNum > dim) || ((dimNum - 1) < dim)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim out of range");
        return false;
    }
    if (step <= 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "step must be positive.");
        return false;
    }
    Upper(self, dim, start, end);
    Lower(self, dim, start, end);
    int64_t sliceNum = (end - start + step - 1) / step;
    auto sliceShape = self->GetViewShape();
    sliceShape.SetDim(dim, sliceNum);
    auto outShape = out->GetViewShape();
    if (sliceShape != outShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of out is wrong.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, int64_t start, int64_t end, int64_t step,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, dim, start, end, step, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _call(dim: int, start: int, end: int, step: int, out: tuple) -> CallView:
    return CallView({"self": TensorView("FLOAT", (4, 6), "ND"), "out": TensorView("FLOAT", out, "ND")},
                    {"dim": dim, "start": start, "end": end, "step": step}, frozenset())


def test_the_out_shape_of_a_slice():
    events = walk(API, ["self", "dim", "start", "end", "step", "out", "workspaceSize", "executor"])
    check = events[-1]
    assert (check.kind, check.template, check.status) == ("check", "shape_is", 161002)
    violated = predicate(check.template, dict(check.args))
    assert violated(_call(1, 1, 10, 2, (4, 3))) is False      # end clamped to 6: dims 1, 3, 5
    assert violated(_call(1, 1, 10, 2, (4, 4))) is True
    assert violated(_call(-1, -2, -1, 1, (4, 1))) is False    # dim 1, start 4, end 5
    assert violated(_call(0, 3, 1, 1, (0, 6))) is False       # end below start: empty
