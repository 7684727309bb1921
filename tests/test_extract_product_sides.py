"""The extractor on constructs of ops-nn's norm family that mix the product with the call's data
(snippets in the vendor's style, after the files each test names): an empty-tensor return on the side
of a branch the product decides, a check led by bool locals guarding on the arguments, a dtype held
by a choice on such a local, a check function failing with an inner status, a pair of integers a
helper returns, a dim indexed by its tensor's rank. Expected verdicts are worked out by hand from the
C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from snippet_walk import read_checks, violated, walk

INVALID, TILING = 161002, 561002


def _t(*shape: int, dtype: str = "FLOAT") -> TensorView:
    return TensorView(dtype, tuple(shape), "ND")


def _call(tensors: dict, **attrs) -> CallView:
    return CallView(tensors, attrs, frozenset())


# after ops-nn norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:262-273
EMPTY_ON_A_PRODUCT_SIDE = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, const aclTensor* gamma, aclTensor* y,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    bool isRegbase = Ops::NN::AclnnUtil::IsRegbase();
    if (isRegbase && gamma->IsEmpty()) {
        // the norm axis empty on a regbase product goes through the kernel's empty template
    } else {
        if (x1->IsEmpty() || gamma->IsEmpty()) {
            *workspaceSize = 0;
            return ACLNN_SUCCESS;
        }
    }
    OP_CHECK_SHAPE_NOT_EQUAL(y, x1, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
EMPTY_NAMES = ["x1", "gamma", "y", "workspaceSize", "executor"]


def test_an_empty_return_on_the_side_a_product_takes_leaves_the_checks_after_it_read() -> None:
    events = walk(EMPTY_ON_A_PRODUCT_SIDE, EMPTY_NAMES, "atlas-a2")
    assert [(e.kind, e.template) for e in events] == [("empty", "empty"), ("check", "shapes_equal")]
    assert sorted(events[0].args_dict()["params"]) == ["gamma", "x1"]
    # the shape check holds for the calls that are not empty
    when = events[1].args_dict()["when"]
    assert guard_holds(_call({"x1": _t(2, 4), "gamma": _t(4), "y": _t(2, 4)}), when) is True
    assert guard_holds(_call({"x1": _t(2, 4), "gamma": _t(0), "y": _t(2, 4)}), when) is False


def test_the_calls_a_regbase_product_sends_past_the_empty_branch_are_not_judged() -> None:
    events = walk(EMPTY_ON_A_PRODUCT_SIDE, EMPTY_NAMES, "ascend950")
    assert [(e.kind, e.template) for e in events] == [("unread", ""), ("empty", "empty"),
                                                        ("check", "shapes_equal")]
    when = events[0].args_dict()["when"]
    assert guard_holds(_call({"x1": _t(2, 4), "gamma": _t(0), "y": _t(2, 4)}), when) is True
    assert guard_holds(_call({"x1": _t(0, 4), "gamma": _t(4), "y": _t(0, 4)}), when) is False


# after the same file, :41-113 and :151-184 (CheckNotNull, CheckShapeValid, CheckInt4Compatibility)
GUARD_LOCALS = """
static bool CheckShapeValid(const aclTensor* x1, aclTensor* y1Out, aclTensor* y2Out, bool processOut1, bool processOut2)
{
    auto x1Shape = x1->GetViewShape();
    auto y1Shape = y1Out->GetViewShape();
    auto y2Shape = y2Out->GetViewShape();
    if (processOut1) {
        if (y1Shape != x1Shape) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "y1 shape must be same as x1.");
            return false;
        }
    }
    if (processOut2) {
        if (y2Shape != x1Shape) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "y2 shape must be same as y1.");
            return false;
        }
    }
    return true;
}

static bool CheckInt4Compatibility(const aclTensor* outTensor, int64_t xLastDim)
{
    auto outShape = outTensor->GetViewShape();
    int64_t outDimNum = static_cast<int64_t>(outShape.GetDimNum());
    int64_t outLastDim = outShape.GetDim(outDimNum - 1);
    OP_CHECK(xLastDim == outLastDim * 8, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "last dim"), return false);
    return true;
}

static aclnnStatus Compute(const aclTensor* x1, aclTensor* y1Out, aclTensor* y2Out, bool processOut1,
                           bool processOut2)
{
    int32_t y1Type = processOut1 ? y1Out->GetDataType() : 0;
    int32_t y2Type = processOut2 ? y2Out->GetDataType() : 0;
    if (processOut1 && processOut2 && y1Type != y2Type) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "y1 and y2 dtype must be same when both are active.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    int32_t oriType = processOut1 ? y1Type : y2Type;
    if (oriType == op::DataType::DT_INT32) {
        int64_t xLastDim = x1->GetViewShape().GetDim(x1->GetViewShape().GetDimNum() - 1);
        if (processOut1) {
            CHECK_RET(CheckInt4Compatibility(y1Out, xLastDim), ACLNN_ERR_PARAM_INVALID);
        }
    } else {
        CHECK_RET(CheckShapeValid(x1, y1Out, y2Out, processOut1, processOut2), ACLNN_ERR_INNER_TILING_ERROR);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, const aclTensor* smooth2, const aclBoolArray* outputMask,
                                      aclTensor* y1Out, aclTensor* y2Out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_NULL(x1, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(y1Out, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(y2Out, return ACLNN_ERR_PARAM_NULLPTR);
    if (outputMask != nullptr && outputMask->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The length of outputMask must be 2.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    bool processOut1 = (outputMask == nullptr) ? true : (*outputMask)[0];
    bool processOut2 = (outputMask == nullptr) ? (smooth2 != nullptr) : (*outputMask)[1];
    auto x1Cont = l0op::Contiguous(x1, executor);
    CHECK_RET(x1Cont != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto ret = Compute(x1Cont, y1Out, y2Out, processOut1, processOut2);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""
GUARD_NAMES = ["x1", "smooth2", "outputMask", "y1Out", "y2Out", "workspaceSize", "executor"]


def test_checks_led_by_guard_locals_with_dtypes_chosen_on_them_are_read() -> None:
    checks = read_checks(GUARD_LOCALS, GUARD_NAMES)
    assert [(c.template, c.status) for c in checks] == [
        ("null", 161001), ("null", 161001), ("null", 161001), ("int_test", INVALID), ("dtypes_equal", INVALID),
        ("int_test", INVALID),
        ("shapes_equal", TILING), ("shapes_equal", TILING)]
    both = {"x1": _t(4, 64, dtype="FLOAT16"), "smooth2": _t(64, dtype="FLOAT16")}
    # no mask and a smooth2: both outputs made, of one dtype and x1's shape
    assert violated(checks, _call({**both, "y1Out": _t(4, 64, dtype="INT8"), "y2Out": _t(4, 64, dtype="INT8")},
                                  outputMask=None)) == []
    assert violated(checks, _call({**both, "y1Out": _t(4, 64, dtype="INT8"), "y2Out": _t(4, 64, dtype="FLOAT")},
                                  outputMask=None)) == [4]
    # the second output not made: its dtype and shape are free
    assert violated(checks, _call({**both, "smooth2": None, "y1Out": _t(4, 64, dtype="INT8"),
                                   "y2Out": _t(1, dtype="FLOAT")}, outputMask=None)) == []
    assert violated(checks, _call({**both, "y1Out": _t(4, 32, dtype="INT8"), "y2Out": _t(4, 64, dtype="INT8")},
                                  outputMask=(True, False))) == [6]
    # int4 packed in INT32: the last dim an eighth of x1's, no shape check
    assert violated(checks, _call({**both, "y1Out": _t(4, 8, dtype="INT32"), "y2Out": _t(4, 8, dtype="INT32")},
                                  outputMask=(True, True))) == []
    assert violated(checks, _call({**both, "y1Out": _t(4, 64, dtype="INT32"), "y2Out": _t(4, 64, dtype="INT32")},
                                  outputMask=(True, True))) == [5]


# after ops-nn norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:243-272, 361-373, 477
PAIR_HELPER = """
static std::pair<int64_t, int64_t> CalculateMN(const aclTensor* input, const aclIntArray* normalizedShape)
{
    auto inputShape = input->GetViewShape();
    int64_t inputDim = inputShape.GetDimNum();
    int64_t normDim = normalizedShape->Size();
    int64_t beginAxis = inputDim - normDim;
    int64_t M = 1, N = 1;

    for (int64_t i = 0; i < inputDim; i++) {
        (i < beginAxis ? M : N) *= inputShape.GetDim(i);
    }
    return {M, N};
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                      aclTensor* gradWeightOut, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto [M, N] = CalculateMN(input, normalizedShape);
    if (gradWeightOut->GetViewShape().GetShapeSize() != N) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "gradWeightOut");
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (M > 1024) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "M");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_pair_a_helper_returns_splits_the_dims_at_the_normalized_axes() -> None:
    checks = read_checks(PAIR_HELPER, ["input", "normalizedShape", "gradWeightOut", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID), ("int_test", INVALID)]
    # input [2, 3, 4, 5] normalized over its last two dims: M = 6, N = 20
    assert violated(checks, _call({"input": _t(2, 3, 4, 5), "gradWeightOut": _t(4, 5)},
                                  normalizedShape=(4, 5))) == []
    assert violated(checks, _call({"input": _t(2, 3, 4, 5), "gradWeightOut": _t(5)},
                                  normalizedShape=(4, 5))) == [0]
    # over the last dim only: N = 5, M = 24
    assert violated(checks, _call({"input": _t(2, 3, 4, 5), "gradWeightOut": _t(5)}, normalizedShape=(5,))) == []
    # M = 2048 > 1024
    assert violated(checks, _call({"input": _t(2048, 5), "gradWeightOut": _t(5)}, normalizedShape=(5,))) == [1]
    # more normalized dims than the input has: every dim goes to N, M stays 1
    assert violated(checks, _call({"input": _t(3, 5), "gradWeightOut": _t(15)}, normalizedShape=(1, 3, 5))) == []
