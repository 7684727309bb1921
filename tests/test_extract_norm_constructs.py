"""The extractor on the constructs of ops-nn's norm family (snippets in the vendor's style, after the
files each test names): an integer helper multiplying a tensor's dims, a format held in a local, a
bool local holding a string prefix test that chooses a dim, an array element past the length the
checks keep, a bool local holding a mask element, a loop over a normalized shape from an offset, a
dropped check result, a channel dim chosen by product and format. Expected verdicts are worked out
by hand from the C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from snippet_walk import read_checks, rules, violated, walk

INVALID, NULLPTR = 161002, 161001


def _t(*shape: int, fmt: str = "ND") -> TensorView:
    return TensorView("FLOAT", tuple(shape), fmt)


def _call(tensors: dict, **attrs) -> CallView:
    return CallView(tensors, attrs, frozenset())


# after ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.cpp:89-97, 143 and
# norm/group_norm_grad/op_host/op_api/aclnn_group_norm_backward.cpp:236
NUMEL = """
static int64_t GetTensorNumel(const aclTensor* x, size_t startIdx)
{
    size_t xShapeDim = x->GetViewShape().GetDimNum();
    int64_t xShapeSize = 1;
    for (size_t i = startIdx; i < xShapeDim; i++) {
        xShapeSize *= x->GetViewShape().GetDim(i);
    }
    return xShapeSize;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* gamma, int64_t HxW, int64_t C,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK(GetTensorNumel(self, 2) == HxW, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "HxW"), return ACLNN_ERR_PARAM_INVALID);
    if (gamma != nullptr && (GetTensorNumel(gamma, 0) != C)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "gamma");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
NUMEL_NAMES = ["self", "gamma", "HxW", "C", "workspaceSize", "executor"]


def test_an_integer_helper_multiplying_dims_is_their_product() -> None:
    checks = read_checks(NUMEL, NUMEL_NAMES)
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID), ("int_test", INVALID)]
    assert violated(checks, _call({"self": _t(2, 3, 4, 5), "gamma": _t(3)}, HxW=20, C=3)) == []
    assert violated(checks, _call({"self": _t(2, 3, 4, 5), "gamma": _t(3)}, HxW=21, C=3)) == [0]
    assert violated(checks, _call({"self": _t(2, 3), "gamma": None}, HxW=1, C=9)) == []   # no dim from 2: 1
    assert violated(checks, _call({"self": _t(2, 3), "gamma": _t(2, 2)}, HxW=1, C=3)) == [1]   # 4 elements
    assert violated(checks, _call({"self": _t(2, 3), "gamma": None}, HxW=0, C=3)) == [0]


# after ops-nn norm/group_norm/op_host/op_api/aclnn_group_norm.cpp:183-189
FORMAT_LOCAL = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto selfFormat = self->GetStorageFormat();
    if (op::IsPrivateFormat(selfFormat) || selfFormat == Format::FORMAT_NHWC || selfFormat == Format::FORMAT_NDHWC) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Format only support ND, NCHW.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_format_held_in_a_local_is_tested_against_each_format() -> None:
    checks = read_checks(FORMAT_LOCAL, ["self", "workspaceSize", "executor"])
    assert [c.template for c in checks] == ["private_format", "format_not_in", "format_not_in"]
    assert violated(checks, _call({"self": _t(1, 2, 3, 4, fmt="NCHW")})) == []
    assert violated(checks, _call({"self": _t(1, 2, 3, 4, fmt="NHWC")})) == [1]
    assert violated(checks, _call({"self": _t(1, 2, 3, 4, 5, fmt="NDHWC")})) == [2]


# after ops-nn norm/instance_norm_v3/op_host/op_api/aclnn_instance_norm.cpp:97-112, 153
PREFIX_CHOICE = """
static aclnnStatus CheckChannel(const aclTensor* x, const aclTensor* gamma, bool needTranspose)
{
    int64_t gammaDimValue = gamma->GetViewShape().GetDim(0);
    int64_t xCAxisValue = (needTranspose) ? x->GetViewShape().GetDim(3) : x->GetViewShape().GetDim(1);
    OP_CHECK(xCAxisValue == gammaDimValue, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "C"), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclTensor* gamma, const char* dataFormat,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    bool needTranspose = (strncmp(dataFormat, "NHWC", strlen("NHWC")) == 0);
    auto ret = CheckChannel(x, gamma, needTranspose);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def test_a_bool_local_holding_a_string_prefix_test_chooses_the_channel_dim() -> None:
    checks = read_checks(PREFIX_CHOICE, ["x", "gamma", "dataFormat", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID)]
    x = _t(1, 2, 3, 4)
    assert violated(checks, _call({"x": x, "gamma": _t(4)}, dataFormat="NHWC")) == []
    assert violated(checks, _call({"x": x, "gamma": _t(2)}, dataFormat="NHWC")) == [0]
    assert violated(checks, _call({"x": x, "gamma": _t(2)}, dataFormat="NCHW")) == []
    assert violated(checks, _call({"x": x, "gamma": _t(4)}, dataFormat="NCHW")) == [0]
    assert violated(checks, _call({"x": x, "gamma": _t(4)}, dataFormat="NHWCX")) == []   # a prefix, as strncmp


# after ops-nn norm/batch_norm_grad_v3/op_host/op_api/aclnn_fast_batch_norm_backward.cpp:88-107
SHORT_MASK = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradInput, const aclTensor* gradWeight,
                                      const aclBoolArray* outputMask, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_NULL(outputMask, return ACLNN_ERR_PARAM_NULLPTR);
    if (outputMask->Size() < 1) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "outputMask size should not less than 1.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    if ((*outputMask)[0]) {
        OP_CHECK_NULL(gradInput, return ACLNN_ERR_PARAM_NULLPTR);
    }
    if ((*outputMask)[1]) {
        OP_CHECK_NULL(gradWeight, return ACLNN_ERR_PARAM_NULLPTR);
    }
    return ACLNN_SUCCESS;
}
"""


def test_an_element_past_the_checked_length_is_unread_only_for_the_short_arrays() -> None:
    events = walk(SHORT_MASK, ["gradInput", "gradWeight", "outputMask", "workspaceSize", "executor"])
    unread = [e for e in events if e.kind == "unread"]
    assert len(unread) == 1 and "(*outputMask)[1] read past the end" in unread[0].text
    short = unread[0].args_dict()["when"]
    one, two = (_call({"gradInput": _t(2), "gradWeight": None}, outputMask=m) for m in ([True], [True, True]))
    assert guard_holds(one, short) is True and guard_holds(two, short) is False
    checks = [e for e in events if e.kind == "check"]
    assert [(c.template, c.status) for c in checks] == [("null", NULLPTR), ("int_test", INVALID),
                                                          ("null", NULLPTR), ("null", NULLPTR)]
    assert violated(checks, two) == [3]             # asked for and null
    assert violated(checks, _call({"gradInput": _t(2), "gradWeight": None}, outputMask=[True, False])) == []
    assert violated(checks, one) == []              # the element is not read: the unread decides
    assert violated(checks, _call({"gradInput": _t(2), "gradWeight": None}, outputMask=[])) == [1]


# after ops-nn norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:41-75
MASK_LOCALS = """
static bool CheckFlag(const aclTensor* smooth1, const aclBoolArray* outputMask)
{
    if (outputMask != nullptr && outputMask->Size() == 2) {
        bool outquant1 = (*outputMask)[0];
        bool outquant2 = (*outputMask)[1];
        if (smooth1 != nullptr && !outquant1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "smooth1 given but outputMask[0] is False.");
            return false;
        }
        if (!outquant1 && !outquant2) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "both False.");
            return false;
        }
    } else if (outputMask != nullptr && outputMask->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The length of outputMask must be 2.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* smooth1, const aclBoolArray* outputMask,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckFlag(smooth1, outputMask), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_bool_locals_holding_mask_elements_and_a_length_failure_on_the_guards_alone() -> None:
    checks = read_checks(MASK_LOCALS, ["smooth1", "outputMask", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID)] * 3
    s = {"smooth1": _t(4)}
    assert violated(checks, _call(s, outputMask=[True, False])) == []
    assert violated(checks, _call(s, outputMask=[False, True])) == [0]          # smooth1 given, mask[0] off
    assert violated(checks, _call({"smooth1": None}, outputMask=[False, True])) == []
    assert violated(checks, _call({"smooth1": None}, outputMask=[False, False])) == [1]
    assert violated(checks, _call(s, outputMask=[True, True, True])) == [2]     # the else-if: another length
    assert violated(checks, _call(s, outputMask=None)) == []                    # no mask: nothing checked


# after ops-nn norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.cpp:108-124 (from axis)
# and norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:140-158 (``continue``)
OFFSET_LOOP = """
static bool CheckShapeEqual(const aclTensor* input, const aclIntArray* normalizedShape)
{
    auto inputShape = input->GetViewShape();
    size_t inputLen = inputShape.GetDimNum();
    size_t normLen = normalizedShape->Size();
    size_t axis = inputLen - normLen;
    for (size_t i = axis; i < normLen; i++) {
        int64_t normDim = *(normalizedShape->GetData() + i);
        int64_t inputDim = inputShape.GetDim(i + axis);
        if (normDim != inputDim) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected normalized index shape be equal to tensor index shape.");
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclIntArray* normalizedShape,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (input->GetViewShape().GetDimNum() < normalizedShape->Size()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "rank");
        return ACLNN_ERR_PARAM_INVALID;
    }
    CHECK_RET(CheckShapeEqual(input, normalizedShape), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
CONTINUE_LOOP = OFFSET_LOOP.replace("""    for (size_t i = axis; i < normLen; i++) {
        int64_t normDim = *(normalizedShape->GetData() + i);
        int64_t inputDim = inputShape.GetDim(i + axis);
        if (normDim != inputDim) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected normalized index shape be equal to tensor index shape.");
            return false;
        }
    }""", """    for (size_t i = 0; i < normLen; i++) {
        int64_t normDim = *(normalizedShape->GetData() + i);
        int64_t inputDim = inputShape.GetDim(i + axis);
        if (normDim == inputDim)
            continue;

        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected normalized index shape be equal to tensor index shape.");
        return false;
    }""")


def test_a_loop_from_an_offset_compares_what_the_code_compares() -> None:
    """From i = axis, the element i against dim i + axis: for rank 3 and two elements only the
    second is compared (the first is not), and for rank 4 nothing is."""
    assert CONTINUE_LOOP != OFFSET_LOOP
    checks = read_checks(OFFSET_LOOP, ["input", "normalizedShape", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID), ("int_test", INVALID)]
    x3, x4 = {"input": _t(2, 3, 4)}, {"input": _t(1, 2, 3, 4)}
    assert violated(checks, _call(x3, normalizedShape=[3, 4])) == []
    assert violated(checks, _call(x3, normalizedShape=[9, 4])) == []      # element 0 is never compared
    assert violated(checks, _call(x3, normalizedShape=[3, 5])) == [1]
    assert violated(checks, _call(x4, normalizedShape=[7, 7])) == []      # axis 2: the loop does not run
    assert violated(checks, _call(x3, normalizedShape=[2, 3, 4, 5])) == [0]
    assert violated(checks, _call({"input": _t(4)}, normalizedShape=[5])) == [1]   # axis 0: every element


def test_a_loop_continuing_on_equal_elements_fails_on_the_first_unequal() -> None:
    checks = read_checks(CONTINUE_LOOP, ["input", "normalizedShape", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID), ("int_test", INVALID)]
    x3 = {"input": _t(2, 3, 4)}
    assert violated(checks, _call(x3, normalizedShape=[3, 4])) == []
    assert violated(checks, _call(x3, normalizedShape=[9, 4])) == [1]     # every element compared
    assert violated(checks, _call(x3, normalizedShape=[3, 5])) == [1]


DROPPED = """
static bool CheckPositive(const aclTensor* input, int64_t n)
{
    if (input->GetViewShape().GetDim(0) != n) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim 0");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, int64_t n, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CheckPositive(input, n);
    OP_CHECK_MAX_DIM(input, 8, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_dropped_result_of_a_read_only_check_checks_nothing() -> None:
    """after ops-nn norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:307;
    a check function that could write through a pointer stays unread."""
    checks = read_checks(DROPPED, ["input", "n", "workspaceSize", "executor"])
    assert [c.template for c in checks] == ["rank_range"]
    assert violated(checks, _call({"input": _t(2, 3)}, n=5)) == []
    writer = DROPPED.replace("CheckPositive(const aclTensor* input", "CheckPositive(aclTensor* input")
    assert [e.kind for e in walk(writer, ["input", "n", "workspaceSize", "executor"])] == ["unread"]


# after ops-nn norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.cpp:209-255
DIM_C = """
static int64_t GetBatchNormDimC(const aclTensor* input)
{
    auto viewShape = input->GetViewShape();
    if (Ops::NN::AclnnUtil::IsRegbase()) {
        if (input->GetStorageFormat() == Format::FORMAT_NDHWC || input->GetStorageFormat() == Format::FORMAT_NHWC) {
            return viewShape[viewShape.GetDimNum() - 1];
        }
    }
    return viewShape[1];
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* weight, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    int64_t dimC = GetBatchNormDimC(input);
    if (weight->GetViewShape()[0] != dimC) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "weight");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_channel_dim_chosen_by_product_and_format() -> None:
    names = ["input", "weight", "workspaceSize", "executor"]
    on_950 = [e for e in walk(DIM_C, names, "ascend950") if e.kind == "check"]
    on_a2 = [e for e in walk(DIM_C, names, "atlas-a2") if e.kind == "check"]
    assert [e.kind for e in walk(DIM_C, names, "ascend950")] == ["check"]
    nhwc, nchw = _t(2, 3, 4, 5, fmt="NHWC"), _t(2, 3, 4, 5, fmt="NCHW")
    assert violated(on_950, _call({"input": nhwc, "weight": _t(5)})) == []
    assert violated(on_950, _call({"input": nhwc, "weight": _t(3)})) == [0]
    assert violated(on_950, _call({"input": nchw, "weight": _t(3)})) == []
    assert violated(on_a2, _call({"input": nhwc, "weight": _t(3)})) == []      # off regbase: always dim 1
    assert violated(on_a2, _call({"input": nhwc, "weight": _t(5)})) == [0]
    assert rules(on_a2)[0][2]["test"] == ["!=", ["dim", "weight", 0, 0], ["dim", "input", 0, 1]]


# after ops-nn norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:44-90, 253-255
MASK_CHOICE = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* s1, const aclTensor* s2, const aclBoolArray* outputMask,
                                      const aclTensor* y1, const aclTensor* y2, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    if (outputMask != nullptr && outputMask->Size() == 2) {
        bool out1 = (*outputMask)[0];
    } else if (outputMask != nullptr && outputMask->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The length of outputMask must be 2.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    bool processOut1 = (outputMask == nullptr) ? true : (*outputMask)[0];
    bool processOut2 = (outputMask == nullptr) ? (s1 != nullptr && s2 != nullptr) : (*outputMask)[1];
    if (processOut1) {
        OP_CHECK_NULL(y1, return ACLNN_ERR_PARAM_NULLPTR);
    }
    if (processOut2) {
        OP_CHECK_NULL(y2, return ACLNN_ERR_PARAM_NULLPTR);
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_bool_chosen_on_a_null_mask_guards_the_checks_after_it() -> None:
    checks = read_checks(MASK_CHOICE, ["s1", "s2", "outputMask", "y1", "y2", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID), ("null", NULLPTR), ("null", NULLPTR)]
    given = {"s1": _t(4), "s2": _t(4), "y1": _t(4), "y2": _t(4)}
    assert violated(checks, _call({**given, "y1": None}, outputMask=None)) == [1]      # no mask: y1 wanted
    assert violated(checks, _call({**given, "y2": None}, outputMask=None)) == [2]      # both smooth scales: y2 too
    assert violated(checks, _call({**given, "s2": None, "y2": None}, outputMask=None)) == []
    assert violated(checks, _call({**given, "y1": None}, outputMask=[False, True])) == []
    assert violated(checks, _call({**given, "y2": None}, outputMask=[False, True])) == [2]
    assert violated(checks, _call({**given, "y2": None}, outputMask=[True, False])) == []
    assert violated(checks, _call(given, outputMask=[True])) == [0]


# after ops-nn common/stub/op_api/aclnn_kernels/common/op_error_check.h:83-93 CheckDims
DIMS_LIMIT = """
static inline bool CheckDims(const aclTensor* tensor)
{
    const auto& xShape = tensor->GetViewShape();
    for (size_t i = 0; i < xShape.GetDimNum(); i++) {
        if (xShape.GetDim(i) > INT32_MAX) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The tensor's shape cannot be larger than %d.", INT32_MAX);
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDims(x), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_every_dim_against_a_named_limit() -> None:
    checks = read_checks(DIMS_LIMIT, ["x", "workspaceSize", "executor"])
    assert [(c.template, c.status) for c in checks] == [("int_test", INVALID)]
    assert violated(checks, _call({"x": _t(2, 2**31 - 1)})) == []
    assert violated(checks, _call({"x": _t(2**31, 3)})) == [0]
    assert violated(checks, _call({"x": _t()})) == []          # rank 0: no dim to check


# after ops-nn norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:176-208 and 316-323
SCALE_SHIFT = """
static bool ValidateScaleShiftShapes(const aclTensor* input, const aclTensor* scale, const aclTensor* shift)
{
    auto inputShape = input->GetViewShape();
    int64_t inputDim = inputShape.GetDimNum();
    int64_t B = 1, S = inputShape[inputDim - 2], H = inputShape[inputDim - 1];

    op::Shape expectShape1, expectShape2;
    for (int64_t i = 0; i < inputDim - 2; i++) {
        expectShape1.AppendDim(inputShape[i]);
        expectShape2.AppendDim(inputShape[i]);
        B *= inputShape[i];
    }
    expectShape1.AppendDim(1).AppendDim(H);
    expectShape2.AppendDim(H);

    if (B <= 0 || S <= 0 || H <= 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "input sizes should greater than 0.");
        return false;
    }
    auto scaleShape = scale->GetViewShape();
    auto shiftShape = shift->GetViewShape();
    auto isShapeValid = [&](const op::Shape& shape) { return shape == expectShape1 || shape == expectShape2; };
    if (!isShapeValid(scaleShape) || !isShapeValid(shiftShape)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected scale/shape shape.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* scale, const aclTensor* shift,
                                      const aclTensor* mean, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_MIN_DIM(input, 2, return ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(ValidateScaleShiftShapes(input, scale, shift), ACLNN_ERR_PARAM_INVALID);
    auto inputShape = input->GetViewShape();
    int64_t inputDim = inputShape.GetDimNum();
    inputShape[inputDim - 1] = 1;
    if (mean->GetViewShape() != inputShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "mean");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_shapes_built_in_a_loop_compared_through_a_lambda() -> None:
    # several names in one declaration, a loop body of independent statements, a chained AppendDim, a
    # lambda of one return called in a condition, and a dim set through operator[]
    checks = read_checks(SCALE_SHIFT, ["input", "scale", "shift", "mean", "workspaceSize", "executor"])
    assert [c.template for c in checks] == ["rank_range", "int_test", "dims_compare", "dims_compare", "int_test",
                                            "int_test", "shape_is"]
    x, mean = _t(2, 6, 5, 6), _t(2, 6, 5, 1)
    # expected [2, 6, 1, 6] or [2, 6, 6] for scale and shift; mean [2, 6, 5, 1]
    assert violated(checks, _call({"input": x, "scale": _t(2, 6, 6), "shift": _t(2, 6, 1, 6), "mean": mean})) == []
    assert violated(checks, _call({"input": x, "scale": _t(2, 1, 6), "shift": _t(2, 6, 6), "mean": mean})) == [4]
    assert violated(checks, _call({"input": x, "scale": _t(2, 6, 6), "shift": _t(6, 6), "mean": mean})) == [5]
    assert violated(checks, _call({"input": x, "scale": _t(2, 6, 6), "shift": _t(2, 6, 6),
                                   "mean": _t(2, 6, 5, 6)})) == [6]
    # B is the product of the leading dims: 0 there fails; S and H are the last two
    assert violated(checks, _call({"input": _t(0, 2, 7, 6), "scale": _t(0, 2, 6), "shift": _t(0, 2, 6),
                                   "mean": _t(0, 2, 7, 1)})) == [1]
    assert violated(checks, _call({"input": _t(3, 0), "scale": _t(0,), "shift": _t(0,), "mean": _t(3, 1)})) == [3]
    # rank 2: no leading dim, B stays 1, the expected shapes are [1, H] and [H]
    assert violated(checks, _call({"input": _t(3, 4), "scale": _t(1, 4), "shift": _t(4), "mean": _t(3, 1)})) == []


# after ops-nn norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:243-271
OUTPUT_CHECKS = """
static bool CheckOutputShapes(const aclTensor* gradInputOut, const aclTensor* input, const aclTensor* gradScaleOut,
                              const aclTensor* scale)
{
    struct OutputCheck {
        const aclTensor* out;
        const aclTensor* ref;
        const char* name;
    };
    OutputCheck checks[] = {{gradInputOut, input, "gradInputOut"}, {gradScaleOut, scale, "gradScaleOut"}};
    for (const auto& check : checks) {
        if (check.out == nullptr)
            continue;
        OP_CHECK_SHAPE_NOT_EQUAL(check.out, check.ref, return false);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* scale, aclTensor* gradInputOut,
                                      aclTensor* gradScaleOut, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOutputShapes(gradInputOut, input, gradScaleOut, scale), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_range_for_over_an_array_of_structs_reads_each_element() -> None:
    checks = read_checks(OUTPUT_CHECKS, ["input", "scale", "gradInputOut", "gradScaleOut", "workspaceSize",
                                         "executor"])
    assert [(c.template, c.status) for c in checks] == [("shapes_equal", INVALID), ("shapes_equal", INVALID)]
    x, s = _t(2, 3), _t(3)
    assert violated(checks, _call({"input": x, "scale": s, "gradInputOut": _t(2, 3), "gradScaleOut": _t(3)})) == []
    assert violated(checks, _call({"input": x, "scale": s, "gradInputOut": _t(3, 2), "gradScaleOut": _t(3)})) == [0]
    assert violated(checks, _call({"input": x, "scale": s, "gradInputOut": None, "gradScaleOut": _t(2)})) == [1]
    assert violated(checks, _call({"input": x, "scale": s, "gradInputOut": None, "gradScaleOut": None})) == []


# after ops-nn norm/quantized_batch_norm/op_host/op_api/aclnn_quantized_batch_norm.cpp:253-262, 304 and 318-330
ALWAYS_GIVEN = """
static aclnnStatus Proc(const aclTensor* input, const aclTensor* mean)
{
    CHECK_RET(mean != nullptr, ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(input != nullptr, ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* mean, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(input, return ACLNN_ERR_PARAM_NULLPTR);
    const aclTensor* inputContiguous = nullptr;
    if (input != nullptr) {
        inputContiguous = l0op::Contiguous(input, uniqueExecutor.get());
        CHECK_RET(inputContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    auto ret = Proc(inputContiguous, mean);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def test_a_branch_on_an_argument_checked_not_null_is_always_taken() -> None:
    checks = read_checks(ALWAYS_GIVEN, ["input", "mean", "workspaceSize", "executor"])
    # the contiguous copy of an input every call gives is never null: its check is no rule
    assert [(c.template, c.status) for c in checks] == [("null", NULLPTR), ("null", INVALID)]
    assert violated(checks, _call({"input": _t(1, 2, 3, 4), "mean": _t(2)})) == []
    assert violated(checks, _call({"input": _t(1, 2, 3, 4), "mean": None})) == [1]
    assert violated(checks, _call({"input": None, "mean": _t(2)})) == [0]
