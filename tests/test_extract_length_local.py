"""A local holding an integer array's length used in arithmetic (ops-math
conversion/pad_v3/op_api/aclnn_constant_pad_nd.cpp:86-108 ``size_t padLen = pad->Size(); size_t padCover =
padLen / SIZE_T_TWICE;``, then ``padLen % SIZE_T_TWICE != 0`` and ``padCover > selfDim``): tests of the length."""
from __future__ import annotations

from snippet_walk import rules, walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static const size_t SIZE_T_TWICE = 2;

static bool CheckShape(const aclTensor* self, const aclIntArray* pad)
{
    size_t selfDim = self->GetViewShape().GetDimNum();
    size_t padLen = pad->Size();
    size_t padCover = padLen / SIZE_T_TWICE;
    if (padLen % SIZE_T_TWICE != 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Pad len must be divisible by 2");
        return false;
    }
    if (padCover > selfDim) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "pad too long");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* pad, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, pad), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _call(pad: list) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2, 3), "ND")}, {"pad": pad}, frozenset())


def test_the_length_tests():
    events = walk(API, ["self", "pad", "workspaceSize", "executor"])
    assert [(kind, template) for kind, template, _, _ in rules(events)] == [("check", "int_test")] * 2
    odd, long_ = (predicate("int_test", dict(e.args)) for e in events)
    assert odd(_call([1, 1, 1])) is True and odd(_call([1, 1])) is False
    assert long_(_call([0] * 6)) is True and long_(_call([0] * 4)) is False
