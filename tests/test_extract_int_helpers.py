"""The extractor on an integer helper the host code calls (snippet in the vendor's style, after ops-math
conversion/im2col/op_api/aclnn_im2col.cpp:47-60 and 103-126): ``div_rtn``, a quotient rounded toward
minus infinity with a 32-bit local, inlined into the output size a check compares with 1. Expected
verdicts are worked out by hand from the C code."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TensorView, int_holds, int_value
from snippet_walk import read_checks, violated, walk

DIV_RTN = """
template <typename T>
static inline auto div_rtn(T x, T y) -> T
{
    if (y == 0) {
        OP_LOGE(ACL_ERROR_INVALID_PARAM, "Division by zero!");
        return -1;
    }
    int q = x / y;
    int r = x % y;
    if ((r != 0) && ((r < 0) != (y < 0))) {
        --q;
    };
    return q;
}

static bool CheckOutputDims(const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* padding,
                            const aclIntArray* stride)
{
    if (kernelSize->Size() != 2 || padding->Size() != 2 || stride->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "It is expected two of each.");
        return false;
    }
    int64_t inputHeight = self->GetViewShape().GetDim(1);
    int64_t outputHeight =
        div_rtn<int64_t>((inputHeight + 2 * (*padding)[0] - (*kernelSize)[0]), (*stride)[0]) + 1;
    if (outputHeight < 1) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The shape must be at least one.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelSize,
                                      const aclIntArray* padding, const aclIntArray* stride, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOutputDims(self, kernelSize, padding, stride), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "kernelSize", "padding", "stride", "out", "workspaceSize", "executor"]


def _call(height: int, kernel: int, pad: int, stride: int) -> CallView:
    return CallView(tensors={"self": TensorView("FLOAT", (1, height, 4), "ND")},
                    attrs={"kernelSize": [kernel, kernel], "padding": [pad, pad], "stride": [stride, stride]}, null_outputs=frozenset())


@pytest.mark.parametrize("height,kernel,pad,stride,violates", [
    (5, 3, 0, 1, False),    # (5 - 3) / 1 + 1 = 3
    (3, 3, 0, 2, False),    # 0 / 2 + 1 = 1
    (2, 3, 0, 1, True),     # -1 / 1 + 1 = 0
    (2, 3, 0, 2, True),     # div_rtn(-1, 2) = -1 (C's -1 / 2 is 0): -1 + 1 = 0 < 1
    (1, 3, 0, 2, True),     # div_rtn(-2, 2) = -1: 0
    (1, 4, 0, 3, True),     # div_rtn(-3, 3) = -1: 0
    (2, 4, 0, 3, True),     # div_rtn(-2, 3) = -1 (C's -2 / 3 is 0): 0
    (1, 3, 1, 2, False),    # (1 + 2 - 3) = 0: 0 / 2 + 1 = 1
])
def test_a_quotient_rounded_toward_minus_infinity_is_read_with_its_sign_cases(height, kernel, pad, stride, violates):
    checks = read_checks(DIV_RTN, NAMES)
    check = [c for c in checks if c.template == "int_test"][-1]   # after the arrays' lengths
    assert (violated([check], _call(height, kernel, pad, stride)) == [0]) == violates


def test_a_zero_divisor_returns_minus_one():
    checks = read_checks(DIV_RTN, NAMES)
    check = [c for c in checks if c.template == "int_test"][-1]
    # stride 0: div_rtn returns -1, so the size is 0 and the check fails whatever the height
    assert violated([check], _call(9, 3, 0, 0)) == [0]


def test_an_int_local_holds_the_value_narrowed_to_32_bits():
    call = CallView(tensors={}, attrs={"big": 2 ** 31 + 5}, null_outputs=frozenset())
    assert int_value(call, ["i32", ["attr", "big"]]) == -(2 ** 31) + 5
    assert int_value(call, ["i32", -7]) == -7
    assert int_holds(call, ["<", ["i32", ["attr", "big"]], 0]) is True


@pytest.mark.parametrize("body", [
    "    q = q << 1;\n",                 # a shift: not among the statements read
    "    while (q > 0) { --q; }\n",      # a loop
])
def test_a_helper_statement_outside_the_subset_leaves_the_check_unread(body):
    text = DIV_RTN.replace("    return q;\n}", body + "    return q;\n}", 1)
    events = walk(text, NAMES)
    assert any(e.kind == "unread" for e in events)
    assert not [e for e in events if e.kind == "check" and e.template == "int_test" and "i32" in str(e.args_dict())]


SHAPES = """
static bool CheckOut(const aclTensor* self, const aclIntArray* kernelSize, const aclTensor* out)
{
    if (kernelSize->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "It is expected two.");
        return false;
    }
    bool isNeedSqueeze = (self->GetViewShape().GetDimNum() == 3);
    int64_t width = isNeedSqueeze ? self->GetViewShape().GetDim(2) : self->GetViewShape().GetDim(3);
    const op::Shape outShape =
        isNeedSqueeze ?
            op::Shape({self->GetViewShape().GetDim(0) * (*kernelSize)[0] * (*kernelSize)[1], width}) :
            op::Shape({self->GetViewShape().GetDim(0), self->GetViewShape().GetDim(1) * (*kernelSize)[0], width});
    if (outShape != out->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expect another out shape.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* kernelSize, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOut(self, kernelSize, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
SHAPE_NAMES = ["self", "kernelSize", "out", "workspaceSize", "executor"]


@pytest.mark.parametrize("self_shape,out_shape,violates", [
    ((2, 5, 7), (2 * 3 * 4, 7), False),        # rank 3: (C k0 k1, W)
    ((2, 5, 7), (2 * 3, 7), True),
    ((1, 2, 5, 7), (1, 2 * 3, 7), False),      # rank 4: (N, C k0, W)
    ((1, 2, 5, 7), (2 * 3 * 4, 7), True),      # the rank-3 shape for a rank-4 input
    ((1, 2, 5, 7), (1, 2 * 3, 5), True),
])
def test_an_output_shape_chosen_between_two_constructed_shapes(self_shape, out_shape, violates):
    events = walk(SHAPES, SHAPE_NAMES)
    assert [e.text for e in events if e.kind == "unread"] == []
    (check,) = [e for e in events if e.kind == "check" and "out" in str(e.args_dict().get("param", ""))]
    call = CallView(tensors={"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    attrs={"kernelSize": [3, 4]}, null_outputs=frozenset())
    assert (violated([check], call) == [0]) == violates


MASK = """
static bool CheckMask(int64_t ellipsisMask)
{
    if ((ellipsisMask != 0) && ((ellipsisMask & (ellipsisMask - 1)) != 0)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Multiple ellipses in slice spec not allowed.");
        return false;
    }
    if (((ellipsisMask >> 8) & 1) != 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "No ellipsis past dim 7.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t ellipsisMask, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckMask(ellipsisMask), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("mask,violated_checks", [
    (0, []), (1, []), (4, []), (128, []),
    (3, [0]), (6, [0]),            # two bits set (ops-math conversion/strided_slice/op_api/aclnn_strided_slice.cpp:104)
    (256, [1]),                    # one bit, past dim 7
    (-1, [0, 1]),                  # every bit of the two's complement set
    (-4, [0, 1]),                  # ...11100: & ...11011 is ...11000, and bit 8 is set
])
def test_a_mask_with_one_bit_set_and_a_bit_shifted_down(mask, violated_checks):
    checks = read_checks(MASK, ["self", "ellipsisMask", "out", "workspaceSize", "executor"])
    call = CallView(tensors={"self": TensorView("FLOAT", (2,), "ND")}, attrs={"ellipsisMask": mask},
                    null_outputs=frozenset())
    assert violated(checks, call) == violated_checks


def test_a_shift_by_a_negative_count_or_past_the_width_is_not_decided():
    call = CallView(tensors={}, attrs={"n": -1, "m": 64}, null_outputs=frozenset())
    assert int_value(call, [">>", 8, ["attr", "n"]]) is None and int_value(call, [">>", 8, ["attr", "m"]]) is None
    assert int_value(call, [">>", -8, 1]) == -4      # arithmetic: the sign kept
    assert int_value(call, ["&", -1, 255]) == 255
