"""The arg reductions' host code (ops-math math/arg_max_v2, math/arg_min): an inference that never
keeps the dim and an l0op keepdim block after it, a dim wrapped by max(rank, 1) in a helper, and a
branch that reshapes the kernel's result on rank-8 inputs. The kernel's shape is read for the calls
taking the other side; the reshaping side is read where a helper pushes the reduced dims of the rank
the branch fixes, and stays unread (never a guess) otherwise; each construct read otherwise is not
read."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.extract.infershape import kernel_reduce_shape
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate
from snippet_walk import CHECK_HEADER

INFER = """
namespace ops {
static ge::graphStatus SnipInfer(const gert::InferShapeContext* context, const gert::Shape* x_shape,
                                 gert::Shape* out_shape) {
  OP_LOGD(context->GetNodeName(), "begin");
  int64_t x_dim = x_shape->GetDimNum();
  if (x_dim <= %s) {
    out_shape->SetDimNum(0);
    return GRAPH_SUCCESS;
  }
  auto dtype = context->GetInputTensor(1)->GetDataType();
  if (dtype == ge::DT_INT32) {
    auto* data = context->GetInputTensor(1)->GetData<int32_t>();
    return Ops::Base::ReduceDimsWithoutKeepDims<int32_t>(x_shape, data, 1, out_shape);
  }
  auto* data = context->GetInputTensor(1)->GetData<int64_t>();
  return Ops::Base::ReduceDimsWithoutKeepDims<int64_t>(x_shape, data, 1, out_shape);
}

ge::graphStatus InferShapeForSnip(gert::InferShapeContext* context) {
  OP_LOGD(context->GetNodeName(), "begin");
  auto x_shape = context->GetInputShape(0);
  OP_CHECK_NULL_WITH_CONTEXT(context, x_shape);
  auto dimension_tensor = context->GetInputTensor(1);
  OP_CHECK_NULL_WITH_CONTEXT(context, dimension_tensor);
  auto out_shape = context->GetOutputShape(0);
  OP_CHECK_NULL_WITH_CONTEXT(context, out_shape);
  out_shape->SetDimNum(0);
  return SnipInfer(context, x_shape, out_shape);
}
IMPL_OP_INFERSHAPE(ArgSnip).InferShape(InferShapeForSnip).InputsDataDependency({1});
}
"""

AS_GIVEN = """if (keepdim) {
    op::Shape inputShape = x->GetViewShape();
    inputShape.SetDim(dim, %s);
    out->SetViewShape(inputShape);
    out->SetStorageShape(inputShape);
  }"""

WRAPPED = """if (keepdim) {
    op::Shape inputShape = x->GetViewShape();
    size_t realDim = dim;
    if (dim < 0) {
      realDim = inputShape.GetDimNum() + dim;
    }
    inputShape.SetDim(realDim, 1);
    out->SetViewShape(inputShape);
    out->SetStorageShape(inputShape);
    out->SetOriginalShape(inputShape);
  }"""

KERNEL = """
namespace l0op {
OP_TYPE_REGISTER(ArgSnip);
static const aclTensor* ArgSnipAiCore(const aclTensor* x, const aclTensor* dim, aclTensor* out,
                                      aclOpExecutor* executor)
{
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(ArgSnip, OP_INPUT(x, dim), OP_OUTPUT(out));
    OP_CHECK(ret == ACL_SUCCESS, OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "failed."), return nullptr);
    return out;
}

const aclTensor* ArgSnip(const aclTensor* x, const int64_t dim, const bool keepdim, op::DataType outDataType,
                         aclOpExecutor* executor)
{
  auto dimTensor = executor->ConvertToTensor(executor->AllocScalar(dim), op::DataType::DT_INT64);
  aclTensor* out = executor->AllocTensor(outDataType, op::Format::FORMAT_ND, op::Format::FORMAT_ND);
  auto ret = INFER_SHAPE(ArgSnip, OP_INPUT(x, dimTensor), OP_OUTPUT(out), OP_EMPTY_ARG);
  if (ret != ACLNN_SUCCESS) {
    return nullptr;
  }
  %s
  return ArgSnipAiCore(x, dimTensor, out, executor);
}
}
"""

API = """
static const int64_t MAX_SUPPORT_DIMS_NUMS = 8;

int64_t DimWrap(int64_t dim, int64_t dimNum)
{
    if (dimNum <= 0) {
        dimNum = %s;
    }
    if (dim < 0) {
        dim += dimNum;
    }
    return dim;
}

static bool NeedsReshape(const aclTensor* self)
{
    auto selfShape = self->GetViewShape();
    return selfShape.GetDimNum() == MAX_SUPPORT_DIMS_NUMS && self->GetDataType() == op::DataType::DT_DOUBLE;
}

aclnnStatus aclnnArgSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                         uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    int64_t dimNum = self->GetViewShape().GetDimNum();
    if (self->IsEmpty() || dimNum == 0) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    int64_t realDim = %s;
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    const aclTensor* snipOut = nullptr;
    if (NeedsReshape(self)) {
        FVector<int64_t> outShapeVector;
        ComputeShape(self, outShapeVector, realDim, keepdim);
        snipOut = l0op::ArgSnip(selfContiguous, realDim, keepdim, out->GetDataType(), uniqueExecutor.get());
        aclIntArray* outShapeArray = uniqueExecutor.get()->AllocIntArray(outShapeVector.data(), outShapeVector.size());
        snipOut = l0op::Reshape(snipOut, outShapeArray, uniqueExecutor.get());
    } else {
        snipOut = l0op::ArgSnip(selfContiguous, realDim, keepdim, out->GetDataType(), uniqueExecutor.get());
    }
    CHECK_RET(snipOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckShapeAndScalarSame(snipOut, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "dim", "keepdim", "out", "workspaceSize", "executor"]
WRAP = "DimWrap(dim, self->GetViewShape().GetDimNum())"


def _checkout(tmp_path, block: str = AS_GIVEN % "1", scalar_rank: str = "1"):
    (tmp_path / "math" / "arg_snip" / "op_host").mkdir(parents=True)
    (tmp_path / "math" / "arg_snip" / "op_host" / "arg_snip_infershape.cpp").write_text(INFER % scalar_rank)
    (tmp_path / "math" / "arg_snip" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "arg_snip" / "op_api" / "arg_snip.cpp").write_text(KERNEL % block)
    return tmp_path


def _kernel_shape(root):
    kernels = KernelIndex(root)
    return kernel_reduce_shape(kernels.function("ArgSnip", 5), kernels.source_of("ArgSnip"), kernels.infers)


def _walk(root, dim: str = WRAP, rank0_as: str = "1") -> list:
    src = read_source("snippet.cpp", API % (rank0_as, dim))
    fn = src.functions["aclnnArgSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


# ---- the kernel ----

@pytest.mark.parametrize("block,as_given", [(AS_GIVEN % "1", True), (WRAPPED, False)])
def test_an_inference_that_never_keeps_and_a_keepdim_block_are_the_reduction_over_the_dim(tmp_path, block, as_given):
    ks = _kernel_shape(_checkout(tmp_path, block))
    assert (ks.data, ks.axes, ks.keepdim, ks.noop) == (0, 1, 2, False)
    # a rank-0 input: the block indexes a dim it lacks, so the result is known only up to one element
    assert ks.one_element is True and ks.wrapped_dim is as_given


@pytest.mark.parametrize("block,scalar_rank", [
    (AS_GIVEN % "2", "1"),   # the kept dim set to another size
    ("", "1"),               # no keepdim block: the inference never keeps, whatever keepdim says
    (AS_GIVEN % "1", "2"),   # rank 2 made rank 0 too: no reduction of one dim
])
def test_a_kernel_or_inference_read_otherwise_is_not_read(tmp_path, block, scalar_rank):
    assert _kernel_shape(_checkout(tmp_path, block, scalar_rank)) is None


# ---- the API ----

def _call(rank: int, dtype: str = "FLOAT") -> CallView:
    shape = (2,) * rank
    return CallView(tensors={"self": TensorView(dtype, shape, "ND"), "out": TensorView("INT64", shape[1:], "ND")},
                    attrs={"dim": 0, "keepdim": False}, null_outputs=frozenset())


def test_the_side_that_reshapes_the_result_is_unread_and_the_other_side_is_the_reduced_shape_rule(tmp_path):
    events = _walk(_checkout(tmp_path))
    kinds = [(e.kind, e.template) for e in events]
    assert kinds == [("unread-values", ""), ("unread", ""), ("check", "reduced_shape")]
    rule = dict(events[2].args)
    assert (rule["param"], rule["of"], rule["dims"], rule["keepdim"], rule["scalar_same"]) == \
        ("out", "self", "dim", "keepdim", True)
    unread_when = dict(events[1].args)["when"]
    # unread exactly for the calls the reshaping side takes: rank 8 and DOUBLE
    assert guard_holds(_call(8, "DOUBLE"), unread_when) is True
    assert guard_holds(_call(8, "FLOAT"), unread_when) is False
    assert guard_holds(_call(3, "DOUBLE"), unread_when) is False
    # the empty and rank-0 calls return success before the kernel: their values are not judged
    assert guard_holds(_call(0), dict(events[0].args)["when"]) is True
    assert guard_holds(_call(2), dict(events[0].args)["when"]) is False


@pytest.mark.parametrize("dim,rank0_as", [
    ("dim", "1"),    # the API's dim as given, to a kernel that indexes the shape by it unwrapped
    (WRAP, "2"),     # a wrap counting a rank of 0 as 2: not max(rank, 1)
])
def test_a_dim_the_kernel_would_index_unwrapped_leaves_the_check_unread(tmp_path, dim, rank0_as):
    events = _walk(_checkout(tmp_path), dim=dim, rank0_as=rank0_as)
    assert not any(e.template == "reduced_shape" for e in events)
    assert events[-1].kind == "unread" and "CheckShapeAndScalarSame" in events[-1].text


def test_a_kernel_that_wraps_the_dim_itself_takes_the_apis_dim_as_given(tmp_path):
    events = _walk(_checkout(tmp_path, WRAPPED), dim="dim")
    assert [e.template for e in events][-1] == "reduced_shape"


# ---- the reshaping side: the result reshaped to the dims a helper pushes ----

DIM_CHECK = """
static bool CheckDim(const aclTensor* self, int64_t dim)
{
    int64_t rank = self->GetViewShape().GetDimNum();
    int64_t low = rank * (-1);
    int64_t high = rank - 1;
    if (rank == 0) {
        low = -1;
        high = 0;
    }
    if (dim < low || dim > high) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim out of range.");
        return false;
    }
    return true;
}
"""

# the dim as given (the caller wraps it), kept as 1 on keepdim
FILL_AS_GIVEN = """
static bool ComputeShape(const aclTensor* self, FVector<int64_t>& outShapeVector, int64_t& dim, const bool keepdim)
{
    auto selfShape = self->GetViewShape();
    for (int64_t i = 0; i <= %s; i++) {
        if (i == dim && keepdim) {
            outShapeVector.push_back(1);
        } else if (i != dim) {
            outShapeVector.push_back(selfShape[i]);
        }
    }
    dim = (dim >= 1 ? dim - 1 : dim);
    return true;
}
"""

# the dim wrapped by the rank inside the helper
FILL_WRAPPING = """
static bool ComputeShape(const aclTensor* self, FVector<int64_t>& outShapeVector, const int64_t dim,
                         const bool keepdim)
{
    auto selfShape = self->GetViewShape();
    int64_t realDim = dim;
    if (realDim < 0) {
        realDim = selfShape.GetDimNum() + dim;
    }
    for (size_t i = 0; i < %s; i++) {
        if (i != (size_t)realDim) {
            outShapeVector.push_back(selfShape[i]);
        } else if (keepdim) {
            outShapeVector.push_back(1);
        }
    }
    return realDim;
}
"""


def _walk_filled(root, fill: str, dim: str, checked: bool = True) -> list:
    api = API % ("1", dim)
    if checked:
        api = api.replace("    auto uniqueExecutor = CREATE_EXECUTOR();\n",
                          "    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);\n"
                          "    auto uniqueExecutor = CREATE_EXECUTOR();\n")
    src = read_source("snippet.cpp", DIM_CHECK + fill + api)
    fn = src.functions["aclnnArgSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


def _rank8(out: tuple[int, ...], dim: int, keepdim: bool, dtype: str = "DOUBLE") -> CallView:
    return CallView(tensors={"self": TensorView(dtype, (2, 3, 1, 1, 1, 1, 4, 5), "ND"),
                             "out": TensorView("INT64", out, "ND")},
                    attrs={"dim": dim, "keepdim": keepdim}, null_outputs=frozenset())


@pytest.mark.parametrize("fill,block,dim", [
    (FILL_AS_GIVEN % "7", AS_GIVEN % "1", WRAP),    # the caller wraps by max(rank, 1): 8 here
    (FILL_WRAPPING % "MAX_SUPPORT_DIMS_NUMS", WRAPPED, "dim"),
])
def test_the_reshaping_side_is_the_reduction_over_the_dim_when_the_helper_pushes_the_other_dims(
        tmp_path, fill, block, dim):
    events = _walk_filled(_checkout(tmp_path, block), fill, dim)
    assert not any(e.kind == "unread" for e in events)   # only the empty calls' values stay unjudged
    shapes = [e for e in events if e.template == "reduced_shape"]
    assert shapes and all(dict(e.args)["dims"] == "dim" and dict(e.args)["keepdim"] == "keepdim" for e in shapes)

    def refused(call: CallView) -> bool:
        return any(predicate(e.template, dict(e.args))(call) for e in shapes)
    # self (2, 3, 1, 1, 1, 1, 4, 5) reduced over dim 6 (or -2): (2, 3, 1, 1, 1, 1, 5), 4 kept as 1 on keepdim
    assert not refused(_rank8((2, 3, 1, 1, 1, 1, 5), 6, False))
    assert not refused(_rank8((2, 3, 1, 1, 1, 1, 5), -2, False))
    assert not refused(_rank8((2, 3, 1, 1, 1, 1, 1, 5), -2, True))
    assert refused(_rank8((2, 3, 1, 1, 1, 1, 4), 6, False))
    # dim 0: (3, 1, 1, 1, 1, 4, 5); the same on the other side (FLOAT takes the kernel's own shape)
    assert not refused(_rank8((3, 1, 1, 1, 1, 4, 5), 0, False))
    assert refused(_rank8((2, 1, 1, 1, 1, 4, 5), 0, False, "FLOAT"))


@pytest.mark.parametrize("fill,checked", [
    (FILL_AS_GIVEN % "6", True),     # the loop pushes 7 dims of a rank-8 tensor: not its reduction
    (FILL_AS_GIVEN % "7", False),    # no range check before: a dim past the rank pushes every dim
    (FILL_AS_GIVEN.replace("outShapeVector.push_back(1);", "outShapeVector.push_back(2);") % "7", True),
])
def test_a_helper_read_otherwise_leaves_the_reshaping_side_unread(tmp_path, fill, checked):
    events = _walk_filled(_checkout(tmp_path), fill, WRAP, checked)
    assert any(e.kind == "unread" and "reshapes it" in e.text for e in events)
