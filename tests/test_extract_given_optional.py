"""An optional tensor refused when given (``if (noise != nullptr) { log; return false; }``): a check
failing for the calls that pass the tensor, none for those that do not (ops-math
random/drop_out_v3/op_api/aclnn_dropout_v3.cpp:61-68, 135)."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, predicate
from tests.snippet_walk import walk

API = """
static inline bool CheckIsNullptr(const aclTensor* optionalNoiseShape)
{
    if (optionalNoiseShape != nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the input of noise_shape must be nullptr.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* optionalNoiseShape, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckIsNullptr(optionalNoiseShape), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_an_optional_tensor_given_is_refused():
    events = walk(API, ["self", "optionalNoiseShape", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template, e.status) for e in events] == [("check", "int_test", 161002)]
    args = events[0].args_dict()
    t = TensorView("FLOAT", (2,), "ND")
    given = CallView({"self": t, "optionalNoiseShape": t, "out": t}, {}, frozenset())
    absent = CallView({"self": t, "optionalNoiseShape": None, "out": t}, {}, frozenset())
    fails = predicate("int_test", args)
    assert fails(given) is True
    assert fails(absent) is False
