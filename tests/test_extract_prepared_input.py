"""A tensor prepared by a helper of the file (``PrepareInput``: a contiguous copy and a cast, each
null-checked and the null passed on to the caller) keeps the API tensor's view shape, so a check
on its element count reads as a rule on that tensor; the same helper with a kernel the reader does
not know in it leaves the check unread. The shape of ops-nn
activation/log_sigmoid/op_api/aclnn_binary_cross_entropy_with_logits_target_backward.cpp:256-304."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds

API = """
static const aclTensor* PrepareInput(const aclTensor* input, op::DataType promoteType, aclOpExecutor* exec)
{
    auto contiguous = %s(input, exec);
    CHECK_RET(contiguous != nullptr, nullptr);
    auto casted = l0op::Cast(contiguous, promoteType, exec);
    CHECK_RET(casted != nullptr, nullptr);
    return casted;
}

static aclnnStatus Compute(const aclTensor* targetCasted, int64_t reduction, aclOpExecutor* exec)
{
    if (reduction == 1) {
        int64_t size = targetCasted->GetViewShape().GetShapeSize();
        CHECK_RET(size != 0, ACLNN_ERR_PARAM_INVALID);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* target, int64_t reduction,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(target, return ACLNN_ERR_PARAM_NULLPTR);
    auto targetCasted = PrepareInput(target, op::DataType::DT_FLOAT, uniqueExecutor.get());
    CHECK_RET(targetCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto ret = Compute(targetCasted, reduction, uniqueExecutor.get());
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def _walk(tmp_path, copy: str = "l0op::Contiguous") -> list:
    (tmp_path / "math").mkdir()
    src = read_source("snippet.cpp", API % copy)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    names = ["self", "target", "reduction", "out", "workspaceSize", "executor"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def _call(target_shape: tuple, reduction: int) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2,), "ND"), "target": TensorView("FLOAT16", target_shape, "ND"),
                     "out": TensorView("FLOAT", (2,), "ND")}, {"reduction": reduction}, frozenset())


def test_the_element_count_of_a_prepared_input_is_the_api_tensors(tmp_path):
    events = _walk(tmp_path)
    assert [e.kind for e in events if e.kind == "unread"] == []
    check = events[-1]
    args = dict(check.args)
    assert (check.template, check.status) == ("dims_compare", 161002)
    assert (args["a"], args["op"], args["b"]) == (("numel", "target"), "==", 0)
    when = args["when"]
    assert guard_holds(_call((0, 3), 1), when) is True      # mean over an empty target: refused
    assert guard_holds(_call((0, 3), 0), when) is False     # no reduction: the check is not reached


def test_a_copy_the_reader_does_not_know_leaves_the_check_unread(tmp_path):
    events = _walk(tmp_path, copy="l0op::SomethingElse")
    assert events[-1].kind == "unread" and "size != 0" in events[-1].text
