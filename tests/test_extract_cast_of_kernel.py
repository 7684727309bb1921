"""The dtype of a kernel's result cast to ``out``'s dtype: a kernel allocating its result in a dtype
chosen on its inputs' dtypes (Mul's mixed float types), an unsqueezed tensor, a choice between two
kernels on a dtype, kernels on both sides of a dtype branch. A source dtype bounded inside the AICPU
conversions leaves only ``out``'s dtype to the unread Cast; a variant not read stays unread."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import CAST_ALWAYS, Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds

KERNELS = """
namespace l0op {
const aclTensor* OuterSnip(const aclTensor* self, const aclTensor* vec2, aclOpExecutor* executor)
{
    auto out = executor->AllocTensor(outShape, self->GetDataType(), self->GetStorageFormat());
    CHECK_RET(out != nullptr, nullptr);
    return out;
}

const aclTensor* AndSnip(const aclTensor* self, const aclTensor* other, aclOpExecutor* executor)
{
    auto andOut = executor->AllocTensor(broadcastShape, self->GetDataType());
    return andOut;
}

static const aclTensor* MulSnipAiCore(const aclTensor* self, const aclTensor* other, const aclTensor* mulOut,
                                      aclOpExecutor* executor)
{
    ADD_TO_LAUNCHER_LIST_AICORE(MulSnip, OP_INPUT(self, other), OP_OUTPUT(mulOut));
    return mulOut;
}

const aclTensor* MulSnip(const aclTensor* self, const aclTensor* other, aclOpExecutor* executor)
{
    bool isMixDataType = (self->GetDataType() == DataType::DT_FLOAT16 && other->GetDataType() == DataType::DT_FLOAT) ||
                         (self->GetDataType() == DataType::DT_FLOAT && other->GetDataType() == DataType::DT_FLOAT16);
    %s
    auto mulOut = isMixDataType ? executor->AllocTensor(broadcastShape, DataType::DT_FLOAT) :
                                  executor->AllocTensor(broadcastShape, self->GetDataType());
    return MulSnipAiCore(self, other, mulOut, executor);
}
}
"""

API = """
static const std::initializer_list<op::DataType> SUPPORT_LIST = {%s};
static const std::initializer_list<op::DataType> FAST_LIST = {op::DataType::DT_FLOAT};

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* vec2, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_DTYPE_NOT_SUPPORT(self, SUPPORT_LIST, return ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_DTYPE_NOT_SUPPORT(vec2, SUPPORT_LIST, return ACLNN_ERR_PARAM_INVALID);
    auto promoteType = op::PromoteType(self->GetDataType(), vec2->GetDataType());
    auto selfCasted = l0op::Cast(self, promoteType, uniqueExecutor.get());
    CHECK_RET(selfCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto vec2Casted = l0op::Cast(vec2, promoteType, uniqueExecutor.get());
    CHECK_RET(vec2Casted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor* calcOut = nullptr;
    if (CheckType(selfCasted->GetDataType(), FAST_LIST)) {
        calcOut = l0op::OuterSnip(selfCasted, vec2Casted, uniqueExecutor.get());
    } else {
        auto selfNd = l0op::UnsqueezeNd(selfCasted, 1, uniqueExecutor.get());
        CHECK_RET(selfNd != nullptr, ACLNN_ERR_INNER_NULLPTR);
        calcOut = %s ? l0op::AndSnip(selfNd, vec2Casted, uniqueExecutor.get()) :
                       l0op::MulSnip(selfNd, vec2Casted, uniqueExecutor.get());
    }
    CHECK_RET(calcOut != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    auto castOut = l0op::Cast(calcOut, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(castOut != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
BOUNDED = "op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16, op::DataType::DT_INT32, op::DataType::DT_BOOL"
ON_BOOL = "selfNd->GetDataType() == op::DataType::DT_BOOL"


def _walk(tmp_path, support: str = BOUNDED, choice: str = ON_BOOL, flag_again: str = "") -> list:
    (tmp_path / "math" / "snip" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "snip" / "op_api" / "snip.cpp").write_text(KERNELS % flag_again)
    src = read_source("snippet.cpp", API % (support, choice))
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    names = ["self", "vec2", "out", "workspaceSize", "executor"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def _call(out: str, self: str = "FLOAT16", vec2: str = "FLOAT") -> CallView:
    return CallView({"self": TensorView(self, (3,), "ND"), "vec2": TensorView(vec2, (4,), "ND"),
                     "out": TensorView(out, (3, 4), "ND")}, {}, frozenset())


def test_a_cast_of_kernel_results_of_bounded_dtypes_is_unread_only_for_an_out_dtype_outside_aicpu(tmp_path):
    """self, vec2 in {FLOAT, FLOAT16, INT32, BOOL}: their promotion is one of them, the mixed Mul FLOAT;
    all AICPU conversions. Only out's dtype decides whether the Cast can fail."""
    last = _walk(tmp_path)[-1]
    assert last.kind == "unread" and "bounds only inside the AICPU conversions" in last.text
    when = dict(last.args)["when"]
    assert when == ("not", ("in", ("of", "out"), tuple(sorted(CAST_ALWAYS))))
    assert guard_holds(_call("FLOAT"), when) is False      # judged: the cast of FLOAT to FLOAT
    assert guard_holds(_call("BOOL"), when) is False       # judged: FLOAT to BOOL is an AICPU conversion
    assert guard_holds(_call("HIFLOAT8"), when) is True    # not judged


def test_a_promotion_outside_the_aicpu_conversions_leaves_the_computed_dtype_in_the_guard(tmp_path):
    """HIFLOAT8 promotes with itself to HIFLOAT8, outside the AICPU conversions: the source dtype is not bounded,
    so the guard names it beside out's."""
    when = dict(_walk(tmp_path, support=BOUNDED + ", op::DataType::DT_HIFLOAT8")[-1].args)["when"]
    assert when[0] == "not" and when[1][0] == "and" and ("in", ("of", "out"), tuple(sorted(CAST_ALWAYS))) in when[1]
    # INT32 with BOOL promotes to INT32, multiplied unmixed into INT32: judged
    assert guard_holds(_call("FLOAT", "INT32", "BOOL"), when) is False
    # HIFLOAT8 with itself stays HIFLOAT8 (no fast kernel, not BOOL, unmixed Mul): not judged
    assert guard_holds(_call("FLOAT", "HIFLOAT8", "HIFLOAT8"), when) is True


@pytest.mark.parametrize("choice,flag_again", [
    ("IsAiCoreSupport(selfNd)", ""),                        # a choice not on a dtype
    (ON_BOOL, "isMixDataType = isMixDataType || IsRegBase();"),   # the flag set twice
])
def test_a_kernel_dtype_not_read_leaves_the_cast_unread(tmp_path, choice, flag_again):
    last = _walk(tmp_path, choice=choice, flag_again=flag_again)[-1]
    assert last.kind == "unread" and last.text.startswith("a Cast whose dtypes the reader does not bound")
