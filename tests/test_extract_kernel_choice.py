"""A kernel's result shape through the helpers of ops-nn index/repeat_interleave (op_api/
aclnn_repeat_interleave.cpp:268-286 and 549-557, op_api/repeat_interleave.cpp:30-64): an int array of
constants a helper returns (``getBaseShape``), a rank-0 tensor broadcast to it, one of two kernels
chosen on data whose results have one shape, and a kernel allocating the shape a helper of its file
infers (``Shape s = H(x, axis, n)``). The out-shape check after them is one rule; expected rules
worked out by hand, and variants that stay unread."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, shape_value

ONE_KERNEL = """
const aclTensor* %(name)s(const aclTensor* x, int64_t axis, int64_t outputSize, aclOpExecutor* executor)
{
    L0_DFX(%(name)s, x, axis, outputSize);
    op::Shape outShape = SnipInferShape(x, axis, %(size)s);
    auto out = executor->AllocTensor(outShape, x->GetDataType(), x->GetViewFormat());
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(%(name)s, OP_INPUT(x), OP_OUTPUT(out), OP_ATTR(axis));
    OP_CHECK(ret == ACLNN_SUCCESS, OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "%(name)s failed."), return nullptr);
    return out;
}
"""


def _kernels(v2_size: str = "outputSize") -> str:
    """The kernel file: an infer helper, then Snip and SnipV2 allocating the shape it infers."""
    return ("""
namespace l0op {
static op::Shape SnipInferShape(const aclTensor* x, int64_t axis, int64_t outputSize)
{
    op::Shape initialShape = x->GetViewShape();
    initialShape.SetDim(axis, outputSize);
    return initialShape;
}
""" + ONE_KERNEL % {"name": "Snip", "size": "outputSize"} + ONE_KERNEL % {"name": "SnipV2", "size": v2_size}
            + "}\n")


API = """
static inline int64_t GetTensorDimNum(const aclTensor* self) { return (int64_t)(self->GetViewShape().GetDimNum()); }

static inline int64_t WrapDim(int64_t dim, int64_t dimNum) { return (dim < 0) ? dim + dimNum : dim; }

static bool CheckDim(const aclTensor* self, int64_t dim)
{
    auto selfDim = GetTensorDimNum(self);
    auto dimMin = std::min(selfDim - 1, -selfDim);
    auto dimMax = std::max(selfDim - 1, -selfDim);
    if (dim > dimMax || dim < dimMin) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim out of range.");
        return false;
    }
    return true;
}

static bool UseV2(const aclTensor* self, int64_t outputSize)
{
    return self->GetViewShape().GetDim(0) * 2 > outputSize;
}

static aclIntArray* getBaseShape(aclOpExecutor* executor)
{
    int64_t tensorShape[1] = {};
    tensorShape[0] = 1;
    auto res = executor->AllocIntArray(tensorShape, 1);
    return res;
}

static const aclTensor* InitializeTensor(const aclTensor* x, aclOpExecutor* executor)
{
    auto xContiguous = l0op::Contiguous(x, executor);
    if (GetTensorDimNum(xContiguous) == 0) {
        auto baseShape = getBaseShape(executor);
        xContiguous = l0op::BroadcastTo(xContiguous, baseShape, executor);
    }
    return xContiguous;
}

static bool CheckOutShape(const aclTensor* res, aclTensor* out)
{
    OP_CHECK_SHAPE_NOT_EQUAL(res, out, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, int64_t outputSize, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);
    auto selfContiguous = InitializeTensor(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    int64_t selfDimNum = GetTensorDimNum(self);
    dim = WrapDim(dim, selfDimNum);
    const aclTensor* result = nullptr;
    if (UseV2(selfContiguous, outputSize)) {
        result = l0op::SnipV2(selfContiguous, dim, outputSize, uniqueExecutor.get());
    } else {
        result = l0op::Snip(selfContiguous, dim, outputSize, uniqueExecutor.get());
    }
    CHECK_RET(result != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckOutShape(result, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""

NAMES = ["self", "dim", "outputSize", "out", "workspaceSize", "executor"]


def _walk(tmp_path, kernel: str = _kernels()) -> list:
    (tmp_path / "index" / "snip" / "op_api").mkdir(parents=True)
    (tmp_path / "index" / "snip" / "op_api" / "snip.cpp").write_text(kernel)
    src = read_source("snip.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


def _call(shape: tuple, n: int, dim: int) -> CallView:
    return CallView({"self": TensorView("FLOAT", shape, "ND")}, {"outputSize": n, "dim": dim}, frozenset())


def test_the_out_shape_check_reads_the_kernels_inferred_shape(tmp_path):
    events = _walk(tmp_path)
    assert not [e for e in events if e.kind == "unread"]
    (check,) = [e for e in events if e.template == "shape_is"]
    assert check.status == 161002 and check.args_dict()["param"] == "out"
    expr = check.args_dict()["shape_expr"]
    # dim made outputSize (a negative dim wrapped); a rank-0 self is broadcast to one dim first
    assert shape_value(_call((4, 5), 7, 0), expr) == (7, 5)
    assert shape_value(_call((4, 5), 7, -1), expr) == (4, 7)
    assert shape_value(_call((), 3, 0), expr) == (3,)


def test_two_kernels_of_different_shapes_leave_the_check_unread(tmp_path):
    # SnipV2 sets dim axis to outputSize + 1: the chosen kernel's shape is not known
    other = _kernels(v2_size="outputSize + 1")
    events = _walk(tmp_path, other)
    assert not [e for e in events if e.template == "shape_is"]
    assert [e for e in events if e.kind == "unread"]


def test_the_unit_tests_doubles_are_no_kernel_definitions(tmp_path):
    # ops-nn common/stub/op_api/op_api_stub.cpp defines ops-math's kernels for its unit tests (``Cast``
    # returns its input): a kernel only defined there is unknown, never read from the double
    (tmp_path / "common" / "stub" / "op_api").mkdir(parents=True)
    (tmp_path / "common" / "stub" / "op_api" / "op_api_stub.cpp").write_text(
        "namespace l0op {\nconst aclTensor* Flip(const aclTensor* x, aclOpExecutor* executor) { return x; }\n}\n")
    (tmp_path / "index" / "snip" / "op_api").mkdir(parents=True)
    (tmp_path / "index" / "snip" / "op_api" / "snip.cpp").write_text(_kernels())
    kernels = KernelIndex(tmp_path)
    assert kernels.function("Flip", 2) is None and kernels.function("Snip", 4) is not None
