"""The extractor on a layer norm's checks (written in the style of ops-nn
norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp): a rank bound that is an integer array's length,
a branch on two optional tensors given together, the array compared with the input's trailing dims and
with each given weight's, the mean's leading dims compared and its trailing ones required 1 after a
null-or-empty return, and the empty-tensor return on a product of the leading dims. Each rule's verdict
on calls worked out by hand; a variant the reader must not take is left unread."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, int_value
from tests.snippet_walk import read_checks, violated, walk

NORM = """
static bool CheckMean(const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* mean)
{
    if (mean == nullptr || mean->IsEmpty()) {
        return true;
    }
    auto inputShape = input->GetViewShape();
    auto meanShape = mean->GetViewShape();
    const size_t inputDimNum = inputShape.GetDimNum();
    const size_t meanDimNum = meanShape.GetDimNum();
    const size_t j = normalizedShape->Size();
    const size_t i = inputDimNum - j;
    for (size_t index = 0; index < i; index++) {
        int64_t meanDim = meanShape.GetDim(index);
        int64_t inputDim = inputShape.GetDim(index);
        if (meanDim != inputDim) {
            return false;
        }
    }
    for (size_t index = i; index < meanDimNum; index++) {
        int64_t meanDim = meanShape.GetDim(index);
        if (meanDim != %(trailing)s) {
            return false;
        }
    }
    return true;
}

static bool CheckShape(const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weight,
                       const aclTensor* bias)
{
    OP_CHECK_MIN_DIM(input, normalizedShape->Size(), return false);
    if (weight %(both)s bias) {
        OP_CHECK_DTYPE_NOT_SAME(weight, bias, return false);
    }
    auto inputShape = input->GetViewShape();
    const size_t beginAxis = inputShape.GetDimNum() - normalizedShape->Size();
    for (size_t index = 0; index < normalizedShape->Size(); index++) {
        int64_t normDim = *(normalizedShape->GetData() + index);
        int64_t inputDim = inputShape.GetDim(index + %(axis)s);
        if (normDim != inputDim) {
            return false;
        }
        if (weight) {
            int64_t weightDim = weight->GetViewShape().GetDim(index);
            if (normDim != weightDim) {
                return false;
            }
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                      const aclTensor* weight, const aclTensor* bias, aclTensor* mean,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    CHECK_RET(CheckShape(input, normalizedShape, weight, bias), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckMean(input, normalizedShape, mean), ACLNN_ERR_PARAM_INVALID);
    auto inputShape = input->GetViewShape();
    const size_t beginAxis = inputShape.GetDimNum() - normalizedShape->Size();
    int64_t M = 1;
    for (size_t index = 0; index < beginAxis; index++) {
        M *= inputShape.GetDim(index);
    }
    if (M == 0) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto out = l0op::LayerNormV4(input, normalizedShape, weight, bias, mean, uniqueExecutor.get());
    CHECK_RET(out != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["input", "normalizedShape", "weight", "bias", "mean", "workspaceSize", "executor"]
READ = {"trailing": "1", "both": "&&", "axis": "beginAxis"}


def _events(**changes) -> list:
    return walk(NORM % {**READ, **changes}, NAMES)


def _call(x: tuple, norm: list, weight=None, bias=None, mean=None, weight_dtype="FLOAT") -> CallView:
    tensors = {"input": TensorView("FLOAT", x, "ND")}
    for name, shape, dtype in (("weight", weight, weight_dtype), ("bias", bias, "FLOAT"), ("mean", mean, "FLOAT")):
        if shape is not None:
            tensors[name] = TensorView(dtype, shape, "ND")
    return CallView(tensors, {"normalizedShape": norm}, frozenset())


def _checks() -> list:
    return read_checks(NORM % READ, NAMES)


@pytest.mark.parametrize("call,refused", [
    (_call((2, 3, 4), [3, 4], weight=(3, 4), bias=(3, 4), mean=(2, 1, 1)), False),
    (_call((2, 3, 4), [4]), False),                                  # the last dim alone, no optional tensor
    (_call((4,), [3, 4]), True),                                     # a rank below the array's length
    (_call((2, 3, 4), [3, 5]), True),                                # the trailing dims are not the array
    (_call((2, 3, 4), [2, 3]), True),                                # the leading dims are not trailing
    (_call((2, 3, 4), [3, 4], weight=(4, 3)), True),                 # a weight of the array's dims transposed
    (_call((2, 3, 4), [3, 4], bias=(4, 3)), False),                  # a bias is not compared in the loop
    (_call((2, 3, 4), [3, 4], weight=(3, 4), bias=(3, 4), weight_dtype="FLOAT16"), True),  # dtypes differ
    (_call((2, 3, 4), [3, 4], weight=(3, 4), weight_dtype="FLOAT16"), False),  # no bias: dtypes not compared
    (_call((2, 3, 4), [3, 4], mean=(3, 1, 1)), True),                # the mean's leading dim is not the input's
    (_call((2, 3, 4), [3, 4], mean=(2, 3, 1)), True),                # a trailing dim of the mean is not 1
    (_call((2, 3, 4), [3, 4], mean=(2, 0, 1)), False),               # an empty mean returns before its checks
])
def test_each_call_is_refused_or_not_as_the_code_decides(call, refused):
    assert bool(violated(_checks(), call)) is refused


def test_the_empty_return_takes_the_product_of_the_leading_dims():
    [skip] = [e for e in _events() if e.kind == "unread-values"]
    when = skip.args_dict()["when"]
    assert guard_holds(_call((2, 0, 4), [4]), when) is True        # 2 * 0 leading elements
    assert guard_holds(_call((2, 3, 0), [4]), when) is False       # the empty dim is normalized, not leading
    assert guard_holds(_call((2, 3, 4), [4]), when) is False
    assert int_value(_call((2, 3, 5), [5]), ["prod", ["slice", ["of", "input"], 0, 2]]) == 6


@pytest.mark.parametrize("change", [
    {"trailing": "inputDim"},     # a trailing dim compared with an undeclared local
    {"both": "||"},               # either optional tensor: not a branch on both given
    {"axis": "beginAxis + 1"},    # an index of three terms: not a slice the reader knows
])
def test_a_variant_is_unread(change):
    assert any(e.kind == "unread" for e in _events(**change))
