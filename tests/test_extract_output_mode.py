"""The extractor on a mode chosen by which outputs are given (written in the style of ops-nn
norm/add_rms_norm/op_host/op_api/aclnn_add_rms_norm.cpp): an integer passed by reference and set in an
else-if chain of null tests, null checks and a dtype list chosen on it, and an empty-tensor return on a
bool local. Each call's verdict worked out by hand from the snippet; a variant the reader must not take
is left unread."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TensorView
from tests.snippet_walk import read_checks, violated, walk

MODE = """
static const std::initializer_list<op::DataType> NORMAL_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16};
static const std::initializer_list<op::DataType> EXTEND_LIST = {op::DataType::DT_FLOAT16};
namespace SnipMode {
constexpr int ADD_MODE = 0;
constexpr int PRE_MODE = 1;
constexpr int POST_MODE = 2;
}

static bool CheckNotNull(const aclTensor* x, const aclTensor* rstd, const aclTensor* xOut, int64_t mode)
{
    OP_CHECK_NULL(x, return false);
    if (mode == SnipMode::ADD_MODE) {
        OP_CHECK_NULL(rstd, return false);
        OP_CHECK_NULL(xOut, return false);
    } else if (mode == SnipMode::PRE_MODE) {
        OP_CHECK_NULL(xOut, return false);
    }
    return true;
}

static bool CheckDtype(const aclTensor* x, int64_t mode)
{
    std::initializer_list<op::DataType> LIST = NORMAL_LIST;
    if (mode == SnipMode::PRE_MODE || mode == SnipMode::POST_MODE) {
        LIST = EXTEND_LIST;
    }
    OP_CHECK_DTYPE_NOT_SUPPORT(x, LIST, return false);
    return true;
}

static aclnnStatus CheckParams(const aclTensor* x, const aclTensor* rstd, const aclTensor* xOut, int64_t& mode)
{
    if (xOut != nullptr && rstd == nullptr) {
        mode = SnipMode::PRE_MODE;
    } else if (%(post)s) {
        mode = SnipMode::POST_MODE;
    }
    CHECK_RET(CheckNotNull(x, rstd, xOut, mode), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckDtype(x, mode), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, aclTensor* rstd, aclTensor* xOut, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    int64_t mode = SnipMode::ADD_MODE;
    auto ret = CheckParams(x, rstd, xOut, mode);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    bool anyEmpty = x->IsEmpty();
    if (anyEmpty) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto y = l0op::SnipNorm(x, uniqueExecutor.get());
    CHECK_RET(y != nullptr, ACLNN_ERR_INNER_NULLPTR);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["x", "rstd", "xOut", "workspaceSize", "executor"]
READ = {"post": "xOut == nullptr && rstd == nullptr"}


def _call(dtype: str, rstd: bool, x_out: bool, shape: tuple = (2, 3)) -> CallView:
    tensors = {"x": TensorView(dtype, shape, "ND")}
    tensors.update({name: TensorView(dtype, shape, "ND") for name, given in (("rstd", rstd), ("xOut", x_out))
                    if given})
    return CallView(tensors, {}, frozenset())


@pytest.mark.parametrize("dtype,rstd,x_out,refused", [
    ("FLOAT", True, True, False),       # both outputs: the add mode, float32 in its list
    ("FLOAT", True, False, True),       # rstd without xOut is the add mode too: xOut refused as null
    ("FLOAT", False, True, True),       # xOut alone: the pre mode, float16 only
    ("FLOAT16", False, True, False),
    ("FLOAT", False, False, True),      # neither: the post mode, float16 only, no null check of either
    ("FLOAT16", False, False, False),
])
def test_each_call_is_refused_or_not_as_the_mode_decides(dtype, rstd, x_out, refused):
    checks = read_checks(MODE % READ, NAMES)
    got = violated(checks, _call(dtype, rstd, x_out))
    assert bool(got) is refused
    if (rstd, x_out) == (True, False):   # by the null check of xOut alone (float32 is in the add mode's list)
        assert [(checks[i].template, checks[i].args_dict()["param"]) for i in got] == [("null", "xOut")]


def test_the_empty_return_on_a_bool_local_is_read_as_the_tensor_being_empty():
    events = walk(MODE % READ, NAMES)
    empty = [e for e in events if e.kind == "empty"]
    assert [e.args_dict()["params"] for e in empty] == [["x"]]
    assert not [e for e in events if e.kind in ("unread", "unread-values")]


def test_a_chain_on_a_test_the_reader_does_not_know_is_unread():
    assert any(e.kind == "unread" for e in walk(MODE % {"post": "SnipUnknownTest(xOut)"}, NAMES))
