"""An outer product built on the compute path: two vectors given a dim of 1 by a helper of the file
(``l0op::UnsqueezeNd`` with a one-element int array), one scaled by a scalar made a tensor in a branch
on the scalar's value, then multiplied by a kernel that allocates its result with the broadcast
shape of its inputs; ``out`` compared with that result's shape. A bool helper true only on RegBase
decides its branch off RegBase. Read into shape rules whose expected shape is the C++'s; variants
stay unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

# a kernel allocating its result with the broadcast shape of its two inputs (the macro form)
MUL = """
namespace l0op {
OP_TYPE_REGISTER(Mul);
const aclTensor* Mul(const aclTensor* self, const aclTensor* other, aclOpExecutor* executor)
{
    Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(self, other, broadcastShape, return nullptr);
    auto mulOut = executor->AllocTensor(broadcastShape, self->GetDataType());
    %s
    ADD_TO_LAUNCHER_LIST_AICORE(Mul, OP_INPUT(self, other), OP_OUTPUT(mulOut));
    return mulOut;
}
}
"""

API = """
static const std::initializer_list<DataType> FUSED_LIST = {DataType::DT_FLOAT};

static bool UseFused(op::DataType dtype)
{
    if (IsRegBase()) {
        return CheckType(dtype, FUSED_LIST);
    }
    return %s;
}

static const aclTensor* WithDim(const aclTensor* x, int64_t dim, aclOpExecutor* executor)
{
    const int64_t dims[] = {dim};
    auto arr = executor->AllocIntArray(dims, %s);
    auto r = l0op::UnsqueezeNd(x, arr, executor);
    CHECK_RET(r != nullptr, nullptr);
    return r;
}

aclnnStatus aclnnOuterGetWorkspaceSize(const aclTensor* v1, const aclTensor* v2, const aclScalar* alpha,
                                       aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(v1, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(v2, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    auto dtype = v1->GetDataType();
    if (UseFused(dtype)) {
        OP_CHECK_SHAPE_NOT_EQUAL(out, v1, return ACLNN_ERR_PARAM_INVALID);
    }
    auto a = WithDim(v1, 1, uniqueExecutor.get());
    CHECK_RET(a != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto b = WithDim(v2, %s, uniqueExecutor.get());
    CHECK_RET(b != nullptr, ACLNN_ERR_INNER_NULLPTR);
    if (alpha != nullptr && alpha->ToFloat() != 1) {
        auto alphaTensor = uniqueExecutor.get()->ConvertToTensor(alpha, dtype);
        a = l0op::Mul(alphaTensor, a, uniqueExecutor.get());
        CHECK_RET(a != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    auto outer = l0op::Mul(a, b, uniqueExecutor.get());
    CHECK_RET(outer != nullptr, ACLNN_ERR_INNER_NULLPTR);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outer->GetViewShape(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["v1", "v2", "alpha", "out", "workspaceSize", "executor"]


def _walk(tmp_path, product: str = "atlas-a2", off_regbase: str = "false", count: str = "1",
          second_dim: str = "0", kernel_after: str = "") -> list:
    (tmp_path / "math" / "mul" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "mul" / "op_api" / "mul.cpp").write_text(MUL % kernel_after)
    src = read_source("snippet.cpp", API % (off_regbase, count, second_dim))
    fn = src.functions["aclnnOuterGetWorkspaceSize"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    product)


def _call(v1, v2, out, alpha=None) -> CallView:
    tensors = {"v1": TensorView("FLOAT", v1, "ND"), "v2": TensorView("FLOAT", v2, "ND"),
               "out": TensorView("FLOAT", out, "ND"),
               "alpha": None if alpha is None else TensorView("FLOAT", (), "ND")}
    attrs = {"alpha": None if alpha is None else {"dtype": "FLOAT", "value": alpha}}
    return CallView(tensors, attrs, frozenset())


def _refused(events, *call, **kw) -> bool:
    return any(predicate(e.template, e.args_dict())(_call(*call, **kw)) for e in events if e.kind == "check"
               and e.template == "shape_is")


@pytest.mark.parametrize("second_dim", ["0", "-2"])   # -2 wraps by rank 1 + 1 to 0
def test_out_is_checked_against_the_outer_product_shape(tmp_path, second_dim):
    events = _walk(tmp_path, second_dim=second_dim)
    assert [(e.kind, e.template) for e in events] == [("check", "null")] * 3 + [("check", "shape_is")]
    # v1 [3] made [3, 1], v2 [4] made [1, 4]: the product [3, 4], alpha's rank-0 tensor changing nothing
    for alpha in (None, 1.0, 2.0):
        assert not _refused(events, (3,), (4,), (3, 4), alpha=alpha)
        assert _refused(events, (3,), (4,), (4, 3), alpha=alpha)
        assert _refused(events, (3,), (4,), (12,), alpha=alpha)
    # v1 [3, 5] made [3, 1, 5] (the dim inserted at 1), v2 [5] made [1, 5]: [3, 1, 5]
    assert not _refused(events, (3, 5), (5,), (3, 1, 5), alpha=2.0)
    assert _refused(events, (3, 5), (5,), (3, 5), alpha=2.0)
    # [3, 1, 5] and [1, 4] do not broadcast: Mul returns null (its own failure), no rule judges
    assert not _refused(events, (3, 5), (4,), (9, 9))


def test_a_dim_outside_the_rank_leaves_the_kernel_s_null_result_unjudged(tmp_path):
    events = _walk(tmp_path, second_dim="-3")   # -3 + 2 < 0: UnsqueezeNd returns null
    assert [(e.kind, e.template) for e in events][-1] == ("check", "shape_is")
    assert not any(_refused(events, (3,), (4,), out) for out in ((3, 4), (4, 3), (), (1,)))


def test_a_bool_helper_true_only_on_regbase_is_false_elsewhere_and_a_dtype_guard_on_regbase(tmp_path):
    events = _walk(tmp_path / "a2")
    assert not any(e.template == "shapes_equal" for e in events)   # its branch never taken off RegBase
    on_950 = _walk(tmp_path / "950", product="ascend950")   # there a test of v1's dtype
    same = [e for e in on_950 if e.template == "shapes_equal"]
    assert len(same) == 1 and tuple(same[0].args_dict()["when"][:3]) == ("in", ("of", "v1"), ("FLOAT",))
    # a helper whose value off RegBase tests the dtype too is no product fact there: a guard again
    data = _walk(tmp_path / "data", off_regbase="dtype == DataType::DT_FLOAT")
    same = [e for e in data if e.template == "shapes_equal"]
    assert len(same) == 1 and tuple(same[0].args_dict()["when"][:3]) == ("in", ("of", "v1"), ("FLOAT",))


@pytest.mark.parametrize("off_regbase,count,kernel_after", [
    ("false", "2", ""),                          # an int array of two elements read from one
    ("false", "1", "mulOut->SetViewShape(self->GetViewShape());"),   # the kernel reshapes its result
])
def test_a_construct_the_reader_cannot_follow_stays_unread(tmp_path, off_regbase, count, kernel_after):
    events = _walk(tmp_path, off_regbase=off_regbase, count=count, kernel_after=kernel_after)
    assert events[-1].kind == "unread"
    assert not any(e.template == "shape_is" for e in events)


# a mode set by branches on a scalar's value and nullness; the side of one mode returns after its check
SCALED = """
aclnnStatus aclnnScaledGetWorkspaceSize(const aclTensor* self, const aclTensor* other, const aclScalar* beta,
                                        aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(other, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    %s
    if (mode == 1) {
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, other->GetViewShape(), return ACLNN_ERR_PARAM_INVALID);
        return ACLNN_SUCCESS;
    }
    auto scaled = self;
    if (mode == 0) {
        auto betaTensor = uniqueExecutor.get()->ConvertToTensor(beta, DataType::DT_FLOAT);
        scaled = l0op::Mul(self, betaTensor, uniqueExecutor.get());
        CHECK_RET(scaled != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    auto sum = l0op::Mul(scaled, other, uniqueExecutor.get());
    CHECK_RET(sum != nullptr, ACLNN_ERR_INNER_NULLPTR);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, sum->GetViewShape(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
BY_VALUE = """int mode = 0;
    if (beta != nullptr) {
        if (beta->ToFloat() == 0) {
            mode = 1;
        }
    } else {
        mode = 2;
    }"""


def _walk_scaled(tmp_path, mode: str = BY_VALUE) -> list:
    (tmp_path / "math" / "mul" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "mul" / "op_api" / "mul.cpp").write_text(MUL % "")
    src = read_source("snippet.cpp", SCALED % mode)
    fn = src.functions["aclnnScaledGetWorkspaceSize"]
    names = ["self", "other", "beta", "out", "workspaceSize", "executor"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def _scaled_refused(events, self, other, out, beta) -> bool:
    call = CallView({"self": TensorView("FLOAT", self, "ND"), "other": TensorView("FLOAT", other, "ND"),
                     "out": TensorView("FLOAT", out, "ND"), "beta": None if beta is None else
                     TensorView("FLOAT", (), "ND")},
                    {"beta": None if beta is None else {"dtype": "FLOAT", "value": beta}}, frozenset())
    return any(predicate(e.template, e.args_dict())(call) for e in events if e.kind == "check"
               and e.template in ("shape_is", "shapes_equal"))


def test_each_side_of_a_mode_set_by_scalar_values_checks_its_own_shape(tmp_path):
    events = _walk_scaled(tmp_path)
    assert [(e.kind, e.template) for e in events] == [("check", "null")] * 3 + [
        ("check", "shapes_equal"), ("unread-values", ""), ("check", "shape_is")]
    # beta 0: mode 1, out compared with other's shape only (the success after it runs no kernel)
    assert not _scaled_refused(events, (2, 1), (1, 3), (1, 3), 0.0)
    assert _scaled_refused(events, (2, 1), (1, 3), (2, 3), 0.0)
    # beta null (mode 2) or 2 (mode 0, self times a rank-0 tensor): out has the broadcast shape [2, 3]
    for beta in (None, 2.0):
        assert not _scaled_refused(events, (2, 1), (1, 3), (2, 3), beta)
        assert _scaled_refused(events, (2, 1), (1, 3), (1, 3), beta)


def test_a_mode_the_reader_does_not_know_leaves_its_branch_unread(tmp_path):
    events = _walk_scaled(tmp_path, mode="int mode = ModeOf(beta);")
    assert events[-1].kind == "unread" and "mode == 1" in events[-1].text
    assert not any(e.template == "shape_is" for e in events)
