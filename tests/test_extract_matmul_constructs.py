"""The constructs of ops-nn ``matmul/`` aclnnAddmv's checks reach (op_host/op_api/aclnn_addmv.cpp and
matmul/common/op_host/op_api/cube_util.cpp), each in a snippet written in the vendor's style: a scalar
compared with 0 or 1 within float's epsilon, alone or among integer tests; a check returning another bool
function's answer; an int8_t helper routing one cubeMathType to another on one architecture; a switch on
that integer; a bool local holding a format test. The expected rules are worked out by hand and checked
on calls through the templates."""
from __future__ import annotations

from snippet_walk import rules, walk

from aclnn_conformance.spec.templates import CallView, TensorView, predicate

EPS = 2.0 ** -23   # std::numeric_limits<float>::epsilon()

SNIPPET = """
constexpr int8_t KEEP_DTYPE = 0;
constexpr int8_t ALLOW_FP32_DOWN_PRECISION = 1;
constexpr int8_t USE_FP32_ADD = 4;

static int8_t RouteFp32Add(int8_t cubeMathType)
{
    if (GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch::DAV_2201 && cubeMathType == USE_FP32_ADD) {
        OP_LOGD("routed.");
        return KEEP_DTYPE;
    }
    return cubeMathType;
}

static bool CheckMathType(int8_t cubeMathType)
{
    switch (cubeMathType) {
        case KEEP_DTYPE:
            OP_LOGD("keep.");
            return true;
        case ALLOW_FP32_DOWN_PRECISION:
            return true;
        default:
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cubeMathType %d.", cubeMathType);
            return false;
    }
}

static bool CheckMathTypeForMm(int8_t cubeMathType)
{
    return CheckMathType(cubeMathType);
}

static bool CheckShape(const aclTensor* self, const aclTensor* mat, const aclScalar* alpha)
{
    if (self->GetViewShape().GetDim(0) != mat->GetViewShape().GetDim(0) &&
        (self->GetViewShape().GetDim(0) != 1 || std::abs(alpha->ToFloat() - 0.0f) <= std::numeric_limits<float>::epsilon())) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "shape.");
        return false;
    }
    return true;
}

static bool CheckFormat(const aclTensor* self, const aclTensor* mat)
{
    auto selfFormat = self->GetStorageFormat();
    auto matFormat = mat->GetStorageFormat();
    bool noSupportFormat = ((selfFormat == Format::FORMAT_FRACTAL_NZ) || (matFormat == Format::FORMAT_FRACTAL_NZ));
    if (noSupportFormat) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "NZ.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* mat, const aclScalar* alpha,
                                      int8_t cubeMathType, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (std::abs(alpha->ToFloat() - 1.0f) > std::numeric_limits<float>::epsilon()) {
        OP_CHECK(self->GetDataType() != op::DataType::DT_BOOL, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bool."),
                 return ACLNN_ERR_PARAM_INVALID);
    }
    CHECK_RET(CheckShape(self, mat, alpha), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckFormat(self, mat), ACLNN_ERR_PARAM_INVALID);
    cubeMathType = RouteFp32Add(cubeMathType);
    CHECK_RET(CheckMathTypeForMm(cubeMathType), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "mat", "alpha", "cubeMathType", "workspaceSize", "executor"]


def _call(alpha: float = 1.0, math_type: int = 0, self_dim: int = 4, dtype: str = "FLOAT",
          fmt: str = "ND") -> CallView:
    return CallView({"self": TensorView(dtype, (self_dim, 3), fmt), "mat": TensorView("FLOAT", (4, 5), "ND")},
                    {"alpha": {"dtype": "FLOAT", "value": alpha}, "cubeMathType": math_type}, frozenset())


def _failing(events, call: CallView) -> list[str]:
    return [t for k, t, a, _ in events if k == "check" and predicate(t, a)(call)]   # its `when` too


def test_every_check_is_read():
    events = rules(walk(SNIPPET, NAMES, product="atlas-a2"))
    assert not [e for e in events if e[0] == "unread"]
    assert {s for *_, s in events if s is not None} == {161002}


def test_a_scalar_within_floats_epsilon_of_one_skips_the_check():
    events = rules(walk(SNIPPET, NAMES, product="atlas-a2"))
    assert _failing(events, _call(dtype="BOOL")) == []                      # alpha 1: the dtype is not checked
    assert _failing(events, _call(alpha=1.0 + EPS, dtype="BOOL")) == []     # |1+eps - 1| is not above eps
    assert _failing(events, _call(alpha=1.0 + 2 * EPS, dtype="BOOL")) != []
    assert _failing(events, _call(alpha=1.0 - EPS, dtype="BOOL")) == []     # 1 - 2**-23 is a float: exactly eps away
    assert _failing(events, _call(alpha=0.5, dtype="BOOL")) != []


def test_an_integer_test_joined_with_a_scalars_value():
    events = rules(walk(SNIPPET, NAMES, product="atlas-a2"))
    # self's dim 0 of 1 broadcasts unless alpha is 0 (within epsilon)
    assert _failing(events, _call(self_dim=1, alpha=1.0)) == []
    assert _failing(events, _call(self_dim=1, alpha=0.0)) == ["int_test"]
    assert _failing(events, _call(self_dim=1, alpha=EPS)) == ["int_test"]
    assert _failing(events, _call(self_dim=2, alpha=1.0)) == ["int_test"]


def test_the_cube_math_type_switch_after_its_routing():
    events = rules(walk(SNIPPET, NAMES, product="atlas-a2"))
    failing = {m for m in range(-2, 7) if _failing(events, _call(math_type=m))}
    assert failing == {-2, -1, 2, 3, 5, 6}           # 4 is routed to 0 on DAV_2201 (Atlas A2)
    events_950 = rules(walk(SNIPPET, NAMES, product="ascend950"))
    assert {m for m in range(-2, 7) if _failing(events_950, _call(math_type=m))} == {-2, -1, 2, 3, 4, 5, 6}


def test_a_bool_local_of_formats_is_one_check_per_tensor():
    events = rules(walk(SNIPPET, NAMES, product="atlas-a2"))
    assert [(t, a) for k, t, a, _ in events if t == "format_not_in"] == [
        ("format_not_in", {"param": "self", "formats": ["FRACTAL_NZ"]}),
        ("format_not_in", {"param": "mat", "formats": ["FRACTAL_NZ"]})]
    assert _failing(events, _call(fmt="FRACTAL_NZ")) == ["format_not_in"]


GEMM = """
static inline bool CheckShape(const aclTensor* A, const aclTensor* B, const aclTensor* C, int64_t transA,
                              int64_t transB, const aclTensor* out)
{
    OP_CHECK_WRONG_DIMENSION(A, 2, return false);
    OP_CHECK_WRONG_DIMENSION(B, 2, return false);
    auto kDimA = static_cast<bool>(transA) ? (A->GetViewShape())[0] : (A->GetViewShape())[1];
    auto kDimB = static_cast<bool>(transB) ? (B->GetViewShape())[1] : (B->GetViewShape())[0];
    if (kDimA != kDimB) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The k-axis of the two inputs are different.");
        return false;
    }
    auto mDim = static_cast<bool>(transA) ? (A->GetViewShape())[1] : (A->GetViewShape())[0];
    auto nDim = static_cast<bool>(transB) ? (B->GetViewShape())[0] : (B->GetViewShape())[1];
    op::Shape matmulShape = {mDim, nDim};
    OP_CHECK_BROADCAST_WITH_SHAPE(C, matmulShape, return false);
    return true;
}

static aclnnStatus CheckParams(const aclTensor* A, const aclTensor* B, const aclTensor* C, int64_t transA,
                               int64_t transB, const aclTensor* out)
{
    CHECK_RET(CheckShape(A, B, C, transA, transB, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* A, const aclTensor* B, const aclTensor* C, int64_t transA,
                                      int64_t transB, aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto ret = CheckParams(A, B, C, transA, transB, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def _gemm(a: tuple, b: tuple, trans_a: int, trans_b: int, c: tuple = (1,), out: tuple = (2, 2)) -> CallView:
    return CallView({"A": TensorView("FLOAT", a, "ND"), "B": TensorView("FLOAT", b, "ND"),
                     "C": TensorView("FLOAT", c, "ND"), "out": TensorView("FLOAT", out, "ND")},
                    {"transA": trans_a, "transB": trans_b}, frozenset())


def test_transposed_operands_chosen_by_an_integer_as_a_truth_value():
    events = rules(walk(GEMM, ["A", "B", "C", "transA", "transB", "out", "workspaceSize", "executor"]))
    assert not [e for e in events if e[0] == "unread"]
    assert _failing(events, _gemm((2, 3), (3, 4), 0, 0)) == []
    assert _failing(events, _gemm((3, 2), (3, 4), 1, 0)) == []          # A transposed: k is its dim 0
    assert _failing(events, _gemm((3, 2), (4, 3), 1, 7)) == []          # any nonzero transB transposes B
    assert _failing(events, _gemm((2, 3), (3, 4), 1, 0)) == ["int_test"]
    # C broadcasts to (m, n) = (2, 4); (3,) does not
    assert _failing(events, _gemm((2, 3), (3, 4), 0, 0, c=(3,))) == ["broadcastable_shape"]
