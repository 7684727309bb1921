"""The extractor on format and optional-tensor conjunctions (snippets in the vendor's style, after ops-nn
norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.cpp:157-228): a local holding a tensor's format, a
rank test joined to the format being none of two, and ``p != nullptr && (A || B)``. Expected verdicts
are worked out by hand from the C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from snippet_walk import read_checks, violated

FORMAT_5D = """
static bool CheckFormat(const aclTensor* input)
{
    auto inputFormat = input->GetStorageFormat();
    if ((input->GetViewShape().GetDimNum() == 5) &&
        ((inputFormat != Format::FORMAT_NCDHW) && (inputFormat != Format::FORMAT_NDHWC))) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Format of input should be NCDHW or NDHWC, when input dim is 5.");
        return false;
    }
    return true;
}

static bool CheckWeight(const aclTensor* weight)
{
    if (weight != nullptr && (weight->GetViewShape().GetDimNum() != 1 || weight->GetViewShape()[0] != 4)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim of weight should be one and shape is channel num of input.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, const aclTensor* weight, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckFormat(input), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckWeight(weight), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["input", "weight", "out", "workspaceSize", "executor"]


def _call(shape: tuple[int, ...], fmt: str, weight: tuple[int, ...] | None = (4,)) -> CallView:
    tensors = {"input": TensorView("FLOAT", shape, fmt), "out": TensorView("FLOAT", shape, fmt),
               "weight": None if weight is None else TensorView("FLOAT", weight, "ND")}
    return CallView(tensors, {}, frozenset())


def test_a_5d_input_in_neither_format_is_refused_and_any_other_rank_is_not_read_for_it() -> None:
    checks = read_checks(FORMAT_5D, NAMES)
    assert [c.template for c in checks] == ["format_in", "rank_range", "dims_compare"]
    assert sorted(dict(checks[0].args)["formats"]) == ["NCDHW", "NDHWC"]
    assert violated(checks, _call((2, 4, 3, 3, 3), "NCDHW")) == []
    assert violated(checks, _call((2, 4, 3, 3, 3), "NDHWC")) == []
    assert violated(checks, _call((2, 4, 3, 3, 3), "ND")) == [0]
    assert violated(checks, _call((2, 4, 3, 3), "ND")) == []       # rank 4: the format is not checked


def test_an_optional_tensor_failing_either_part_of_an_or_is_refused() -> None:
    checks = read_checks(FORMAT_5D, NAMES)
    assert violated(checks, _call((2, 4), "ND", weight=None)) == []   # null: neither part is tested
    assert violated(checks, _call((2, 4), "ND", weight=(4, 1))) == [1]
    assert violated(checks, _call((2, 4), "ND", weight=(5,))) == [2]
