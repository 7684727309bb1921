"""Two constructs of ops-transformer's grouped matmul, each in a snippet written in the vendor's style,
its expected checks worked out by hand (gmm/grouped_matmul_finalize_routing/op_host/op_api/
aclnn_grouped_matmul_finalize_routing.cpp:1095-1112): a bool local holding null tests of the arguments,
failed when it does not hold, and a chain of failures written as if / else if."""
from __future__ import annotations

from snippet_walk import read_checks, violated

from aclnn_conformance.spec.templates import CallView, TensorView

SCENE = """
constexpr int64_t MIN_DIM_NUM_ND = 2;

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor *x1, const aclTensor *x2, const aclTensor *bias,
    int64_t dtype, bool transposeX1, bool transposeX2, aclTensor *out, uint64_t *workspaceSize,
    aclOpExecutor **executor)
{
    auto scene1 = x1 != nullptr && x2 != nullptr && bias != nullptr;
    if (!(scene1)) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "do not support input nullptr.");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    int64_t viewDimNum = x2->GetViewShape().GetDimNum();
    if (dtype != 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dtype must be 0, but is %ld.", dtype);
        return ACLNN_ERR_PARAM_INVALID;
    } else if (viewDimNum < MIN_DIM_NUM_ND) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "x2's view dimNum should greater than 1, but is %ld.", viewDimNum);
        return ACLNN_ERR_PARAM_INVALID;
    } else if (!(transposeX1 == false && transposeX2 == false)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "transpose should be false");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
NAMES = ["x1", "x2", "bias", "dtype", "transposeX1", "transposeX2", "out", "workspaceSize", "executor"]


def _call(nulls: tuple[str, ...] = (), x2_shape: tuple = (4, 8), dtype: int = 0, t1: bool = False,
          t2: bool = False) -> CallView:
    tensors = {name: TensorView("INT8", x2_shape if name == "x2" else (4, 8), "ND")
               for name in ("x1", "x2", "bias") if name not in nulls}
    return CallView(tensors, {"dtype": dtype, "transposeX1": t1, "transposeX2": t2}, frozenset(nulls))


def test_a_local_of_null_tests_and_a_chain_of_failures_are_read_as_written() -> None:
    checks = read_checks(SCENE, NAMES)

    def first_status(call: CallView) -> int:
        hit = violated(checks, call)
        return checks[hit[0]].status if hit else 0

    assert first_status(_call()) == 0
    for name in ("x1", "x2", "bias"):
        assert first_status(_call(nulls=(name,))) == 161001, name
    assert first_status(_call(dtype=1)) == 161002
    assert first_status(_call(x2_shape=(8,))) == 161002
    assert first_status(_call(t1=True)) == 161002 and first_status(_call(t2=True)) == 161002
    assert first_status(_call(nulls=("bias",), dtype=1)) == 161001   # the null test comes first


SCENES = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor *x, const aclTensor *w, const aclTensor *shared,
    const aclTensor *logit, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor)
{
    auto scene1 = x != nullptr && w != nullptr && shared != nullptr && logit != nullptr;
    auto scene2 = x != nullptr && w != nullptr && shared == nullptr && logit == nullptr;
    if (!(scene1 || scene2)) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "do not support input nullptr.");
        return ACLNN_ERR_PARAM_NULLPTR;
    }
    return ACLNN_SUCCESS;
}
"""


def test_two_locals_of_null_tests_either_holding_are_one_test_of_which_arguments_are_given() -> None:
    checks = read_checks(SCENES, ["x", "w", "shared", "logit", "out", "workspaceSize", "executor"])
    assert {c.status for c in checks} == {161001}
    names = ("x", "w", "shared", "logit")
    # (x, w) always, and shared and logit both given or both null (aclnn_grouped_matmul_finalize_routing.cpp:915-921)
    for given in range(16):
        nulls = tuple(n for i, n in enumerate(names) if not given >> i & 1)
        call = CallView({n: TensorView("INT8", (2, 2), "ND") for n in names if n not in nulls}, {}, frozenset(nulls))
        accepted = "x" not in nulls and "w" not in nulls and (("shared" in nulls) == ("logit" in nulls))
        assert (violated(checks, call) == []) is accepted, nulls
