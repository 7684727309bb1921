"""A product of an integer array's elements (``(*a)[0] * (*a)[1] * (*a)[2]``) reads as the product of
three elements, each inside the length an earlier check gave the array, not as one element at an index
reaching across the product. The shape of ops-nn common/inc/op_api/level2_base.h:412-459."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView

API = """
static inline bool CheckOutputSize(const aclTensor* self, const aclIntArray* outputSize)
{
    OP_CHECK(outputSize->Size() == 3, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "three"), return false);
    int64_t dimD = self->GetViewShape().GetDim(0);
    OP_CHECK(((*outputSize)[0] * (*outputSize)[1] * (*outputSize)[2]) >= (dimD * 2),
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "too small"), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* outputSize, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_MIN_DIM(self, 1, return ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckOutputSize(self, outputSize), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_the_product_of_the_output_size_is_compared(tmp_path):
    events = walk(API, ["self", "outputSize", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    check = [e for e in events if e.kind == "check"][-1]

    def fails(d: int, size: list) -> bool:
        call = CallView({"self": TensorView("FLOAT", (d,), "ND")}, {"outputSize": size}, frozenset())
        return TEMPLATES[check.template](call, dict(check.args))
    assert not fails(4, [2, 2, 2]) and fails(5, [1, 3, 3]) and not fails(4, [1, 1, 8])
