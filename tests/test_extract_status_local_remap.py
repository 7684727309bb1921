"""The checks of ops-math conversion/trans_data/op_api/aclnn_trans_convolution_weight.cpp:30-105: a
``static`` integer the file never writes is a constant (:30 ``g_dimNum``), ``b == true`` on a bool argument
(:51), a status local checked right after the call with another status (:182-183 ``CHECK_RET(ret ==
ACLNN_SUCCESS, ACLNN_ERR_PARAM_INVALID)``: every failure of the call returns that status), a dtype none of
two (:74) and a tensor not contiguous (:102)."""
from __future__ import annotations

from snippet_walk import rules, walk
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

API = """
static uint64_t g_dimNum = 4;

static aclnnStatus CheckParams(uint64_t tensorDim, bool transposed) {
  if (tensorDim != g_dimNum) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only support 4 dim tensorShape, but got dim %lu.", tensorDim);
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  if (transposed == true) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only support nontranspose convolution.");
    return ACLNN_ERR_PARAM_NULLPTR;
  }
  return ACLNN_SUCCESS;
}

static aclnnStatus CheckTensor(const aclTensor *weightIn, const aclTensor *weightOut) {
  if (weightIn->GetDataType() != op::DataType::DT_FLOAT16 && weightIn->GetDataType() != op::DataType::DT_FLOAT) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only support float16/float32.");
    return ACLNN_ERR_PARAM_INVALID;
  }
  if (!op::IsContiguous(weightOut)) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only support weightOut tensor is contiguous.");
    return ACLNN_ERR_PARAM_INVALID;
  }
  return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor *weightIn, bool transposed, aclTensor *weightOut,
                                      uint64_t *workspaceSize, aclOpExecutor **executor) {
  OP_CHECK_NULL(weightIn, return ACLNN_ERR_PARAM_NULLPTR);
  uint64_t tensorDim = static_cast<uint64_t>(weightIn->GetViewShape().GetDimNum());
  auto ret = CheckParams(tensorDim, transposed);
  CHECK_RET(ret == ACLNN_SUCCESS, ACLNN_ERR_PARAM_INVALID);
  ret = CheckTensor(weightIn, weightOut);
  CHECK_RET(ret == ACLNN_SUCCESS, ACLNN_ERR_PARAM_INVALID);
  return ACLNN_SUCCESS;
}
"""


def test_the_checks_and_their_statuses():
    events = walk(API, ["weightIn", "transposed", "weightOut", "workspaceSize", "executor"])
    got = rules(events)
    assert [(kind, template, status) for kind, template, _, status in got] == [
        ("check", "null", 161001), ("check", "rank_range", 161002), ("check", "attr_is", 161002),
        ("check", "dtype_in", 161002), ("check", "int_test", 161002)]
    assert got[1][2] == {"param": "weightIn", "min": 4, "max": 4}
    assert got[2][2] == {"attr": "transposed", "value": True}
    assert got[3][2]["dtypes"] == ["FLOAT16", "FLOAT"]
    strided = CallView({"weightIn": TensorView("FLOAT", (2, 2, 2, 2), "NCHW"),
                        "weightOut": TensorView("FLOAT16", (2, 2, 2, 2), "NCHW", False)}, {}, frozenset())
    assert predicate("int_test", dict(events[-1].args))(strided) is True
