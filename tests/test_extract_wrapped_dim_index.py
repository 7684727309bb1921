"""A dim read at a dim argument wrapped by the rank (counted 1 at rank 0: ``dim = DimMakeWrap(dim, rank)``
or ``dim < 0 ? dim + rank : dim``) is the dim at that integer expression. The shape of ops-nn
index/gather_v2/op_api/aclnn_kthvalue.cpp:78-111."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
int64_t DimMakeWrap(int64_t dim, int64_t dimPostExpr)
{
    if (dimPostExpr <= 0) {
        dimPostExpr = 1;
    }
    if (dim < 0) {
        dim += dimPostExpr;
    }
    return dim;
}

static bool CheckParamValid(const aclTensor* self, int64_t k, int64_t dim)
{
    auto inputShape = self->GetViewShape();
    int64_t tmpDim = static_cast<int64_t>(inputShape.GetDimNum());
    if (tmpDim > 0 && (dim < -tmpDim || dim >= tmpDim)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dimension out of range");
        return false;
    }
    dim = DimMakeWrap(dim, tmpDim);
    int64_t tmpK = (tmpDim > 0) ? inputShape.GetDim(dim) : 1;
    if (k <= 0 || k > tmpK) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Selected index k out of range");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t k, int64_t dim, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckParamValid(self, k, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_k_is_bounded_by_the_dim_at_the_wrapped_argument(tmp_path):
    events = walk(API, ["self", "k", "dim", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    checks = [e for e in events if e.kind == "check"]

    def fails(shape: tuple, k: int, dim: int) -> bool:
        call = CallView({"self": TensorView("FLOAT", shape, "ND")}, {"k": k, "dim": dim}, frozenset())
        return any(TEMPLATES[c.template](call, dict(c.args)) for c in checks)
    assert not fails((3, 5), 5, -1) and fails((3, 5), 6, -1) and fails((3, 5), 4, 0) and not fails((3, 5), 3, 0)
    assert not fails((), 1, 0) and fails((), 2, 0) and fails((3, 5), 0, 1)
