"""The extractor on checks guarded by tests of the call's argument values (snippets in the vendor's
style, after ops-math math/div/op_api/aclnn_div.cpp:228-236 and 330-351): a failure on a conjunction
of a value test and a dtype test, and a check function that ends its checks early for some values.
Expected verdicts are worked out by hand from the C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from snippet_walk import read_checks, violated

MODE_DTYPE = """
static aclnnStatus CheckModeDtype(const op::DataType selfDtype, const op::DataType otherDtype, const int mode,
                                  op::DataType& promoteType)
{
    promoteType = op::PromoteType(selfDtype, otherDtype);
    if ((mode == 1 || mode == 2) &&
        (promoteType == op::DataType::DT_COMPLEX128 || promoteType == op::DataType::DT_COMPLEX64)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "promoteType do not support DT_COMPLEX128 or DT_COMPLEX64.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

static bool CheckOut(const aclTensor* self, const aclTensor* out, const int mode)
{
    if (mode == 1) {
        return true;
    }
    OP_CHECK_RESULT_DTYPE_CAST_FAILED(self->GetDataType(), out->GetDataType(), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int mode, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    op::DataType promoteType;
    auto ret = CheckModeDtype(self->GetDataType(), other->GetDataType(), mode, promoteType);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    CHECK_RET(CheckOut(self, out, mode), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "other", "mode", "out", "workspaceSize", "executor"]


def _call(self_dtype: str, other_dtype: str, mode: int, out_dtype: str = "FLOAT") -> CallView:
    return CallView({"self": TensorView(self_dtype, (2,), "ND"), "other": TensorView(other_dtype, (2,), "ND"),
                     "out": TensorView(out_dtype, (2,), "ND")}, {"mode": mode}, frozenset())


def test_a_dtype_failure_under_a_value_test_is_made_for_those_values_only() -> None:
    checks = read_checks(MODE_DTYPE, NAMES)
    complex_checks = [i for i, c in enumerate(checks) if c.template == "dtype_expr_in"]
    assert len(complex_checks) == 2          # COMPLEX128 and COMPLEX64, each a rule
    assert set(violated(checks, _call("COMPLEX64", "COMPLEX64", 1, "COMPLEX64"))) >= {complex_checks[1]}
    assert set(violated(checks, _call("COMPLEX128", "FLOAT", 2, "COMPLEX128"))) >= {complex_checks[0]}
    assert not set(violated(checks, _call("COMPLEX64", "COMPLEX64", 0, "COMPLEX64"))) & set(complex_checks)
    assert not set(violated(checks, _call("FLOAT", "FLOAT", 1))) & set(complex_checks)


def test_a_check_function_returning_true_for_some_values_skips_its_later_checks_for_them() -> None:
    checks = read_checks(MODE_DTYPE, NAMES)
    cast = [i for i, c in enumerate(checks) if c.template == "castable"]
    assert len(cast) == 1
    assert violated(checks, _call("FLOAT", "FLOAT", 0, "INT8")) == cast   # FLOAT is not cast to an integer out
    assert violated(checks, _call("FLOAT", "FLOAT", 0, "FLOAT16")) == []
    assert violated(checks, _call("FLOAT", "FLOAT", 1, "INT8")) == []       # mode 1 returns true before it
