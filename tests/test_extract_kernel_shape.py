"""The shape of a reduction kernel's result (its l0op's INFER_SHAPE and the op_host infer function
registered for the op type), compared with the API's ``out`` by a shape-or-one-element check; and the
results of compute helpers (a tuple of two kernels' results) checked against null. Each construct is
read into its rule or into no rule, and a variant of it stays unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.extract.infershape import InferShapeIndex, kernel_reduce_shape
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate
from snippet_walk import CHECK_HEADER

COMMON_INFER = """
namespace Ops { namespace Math {
inline ge::graphStatus InferShape4ReduceCommon(gert::InferShapeContext* context, const char* opName,
                                               bool hasNoopAttr = true)
{
    const bool* keepDims = attrs->GetAttrPointer<bool>(0);
    if (hasNoopAttr) {
        const bool* noopWithEmptyAxes = attrs->GetAttrPointer<bool>(1);
    }
    auto ret = ProcessEmptyAxesWithNoopWithEmptyAxes(context, inShape, outShape, keepDims, noopWithEmptyAxes);
}
} }
"""

COMMON_FORM = """
namespace ops {
static ge::graphStatus InferShape4Snip(gert::InferShapeContext* context)
{
    return InferShape4ReduceCommon(context, "InferShape4Snip"%s);
}
IMPL_OP_INFERSHAPE(ReduceSnip).InferShape(InferShape4Snip).InputsDataDependency({1});
}
"""

OWN_FORM = """
namespace ops {
static ge::graphStatus InferShape4Own(gert::InferShapeContext* context)
{
    auto inShape = context->GetInputShape(0);
    auto axesTensor = context->GetInputTensor(1);
    auto outShape = context->GetOutputShape(0);
    auto attrs = context->GetAttrs();
    const bool* keepDims = attrs->GetAttrPointer<bool>(0);
    auto axesSize = static_cast<int32_t>(axesTensor->GetShapeSize());
    OP_CHECK_IF(axesSize < 0, OP_LOGE(context->GetNodeName(), "axes num cannot be less than 0!"),
                return ge::GRAPH_FAILED);
    if (axesSize == %s) {
        *outShape = *inShape;
        return ge::GRAPH_SUCCESS;
    }
    auto dtype = axesTensor->GetDataType();
    if (dtype == ge::DT_INT32) {
        return ReduceDims<int32_t>(inShape, axesTensor, axesSize, *keepDims, outShape);
    }
    return ReduceDims<int64_t>(inShape, axesTensor, axesSize, *keepDims, outShape);
}
IMPL_OP_INFERSHAPE(ReduceSnip).InferShape(InferShape4Own).InputsDataDependency({1});
}
"""

KERNEL = """
namespace l0op {
OP_TYPE_REGISTER(ReduceSnip);
static const aclTensor* ReduceSnipAiCore(const aclTensor* self, const aclTensor* dimList, bool keepDim,
    bool noop, const aclTensor* snipOut, aclOpExecutor* executor)
{
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(ReduceSnip, OP_INPUT(self, dimList), OP_OUTPUT(snipOut));
    OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE(ret != ACLNN_SUCCESS, return nullptr, "failed.");
    return snipOut;
}

const aclTensor* ReduceSnip(const aclTensor* self, const aclIntArray* dim, bool keepDim, aclOpExecutor* executor)
{
    if (self->GetViewShape().GetDimNum() == 0) {
        return self;
    }
    auto dimList = executor->ConvertToTensor(dim, op::DataType::DT_INT64);
    auto snipOut = executor->AllocTensor(self->GetViewShape(), self->GetDataType());
    bool noopWithEmptyAxes = true;
    auto ret = INFER_SHAPE(ReduceSnip, OP_INPUT(self, dimList), OP_OUTPUT(snipOut), OP_ATTR(keepDim, noopWithEmptyAxes));
    if (ret != ACLNN_SUCCESS) {
        return nullptr;
    }
    %s
    return ReduceSnipAiCore(self, dimList, keepDim, noopWithEmptyAxes, snipOut, executor);
}
}
"""

API = """
static aclIntArray* AllDims(const aclTensor* self, aclOpExecutor* executor)
{
    uint64_t dimNum = self->GetViewShape().GetDimNum();
    int64_t dimList[dimNum];
    for (size_t i = 0; i < dimNum; i++) {
        dimList[i] = i;
    }
    aclIntArray* dim = executor->AllocIntArray(dimList, dimNum);
    return dim;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    %s
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto selfCast = [&selfContiguous, &out]() -> const aclTensor* {
        if (IsRegBase()) {
            return selfContiguous;
        }
        return l0op::Cast(selfContiguous, out->GetDataType(), uniqueExecutor.get());
    }();
    auto snipResult = l0op::ReduceSnip(selfCast, reduceDims, %s, uniqueExecutor.get());
    CHECK_RET(snipResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckShapeAndScalarSame(snipResult, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "dims", "keepDim", "out", "workspaceSize", "executor"]


def _checkout(tmp_path, infer: str = COMMON_FORM % "", kernel: str = KERNEL % "", common: str = COMMON_INFER):
    (tmp_path / "common" / "inc" / "op_host").mkdir(parents=True)
    (tmp_path / "common" / "inc" / "op_host" / "infershape_reduce_util.h").write_text(common)
    (tmp_path / "math" / "reduce_snip" / "op_host").mkdir(parents=True)
    (tmp_path / "math" / "reduce_snip" / "op_host" / "reduce_snip_infershape.cpp").write_text(infer)
    (tmp_path / "math" / "reduce_snip" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "reduce_snip" / "op_api" / "reduce_snip.cpp").write_text(kernel)
    return tmp_path


def _kernel_shape(root):
    kernels = KernelIndex(root)
    fn = kernels.function("ReduceSnip", 4)
    return kernel_reduce_shape(fn, kernels.source_of("ReduceSnip"), InferShapeIndex(root))


def _walk(root, dims: str = "auto reduceDims = dims;", flags: str = "keepDim") -> list:
    src = read_source("snippet.cpp", API % (dims, flags))
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


# ---- the infer function and the kernel ----

@pytest.mark.parametrize("third,noop", [("", "attr"), (", true", "attr"), (", false", False)])
def test_the_common_reduce_infer_reads_its_noop_from_the_attribute_or_the_call(tmp_path, third, noop):
    root = _checkout(tmp_path, infer=COMMON_FORM % third)
    assert InferShapeIndex(root).reduce_infer("ReduceSnip").noop == noop


def test_the_common_reduce_infer_of_another_helper_is_not_read(tmp_path):
    root = _checkout(tmp_path, common=COMMON_INFER.replace("GetAttrPointer<bool>(1)", "GetAttrPointer<bool>(2)"))
    assert InferShapeIndex(root).reduce_infer("ReduceSnip") is None


def test_an_own_reduce_infer_keeps_the_shape_on_empty_dims(tmp_path):
    root = _checkout(tmp_path, infer=OWN_FORM % "0")
    got = InferShapeIndex(root).reduce_infer("ReduceSnip")
    assert got.noop is True and got.path == "math/reduce_snip/op_host/reduce_snip_infershape.cpp"


def test_an_own_infer_doing_something_else_on_empty_dims_is_not_read(tmp_path):
    root = _checkout(tmp_path, infer=OWN_FORM % "1")
    assert InferShapeIndex(root).reduce_infer("ReduceSnip") is None


def test_a_kernel_returning_its_inferred_output_is_a_reduction_of_its_input(tmp_path):
    ks = _kernel_shape(_checkout(tmp_path))
    # self (0) over dim (1, converted to a tensor in the kernel), keepDim (2), the local noop true
    assert (ks.data, ks.axes, ks.keepdim, ks.noop) == (0, 1, 2, True)


@pytest.mark.parametrize("after", [
    "snipOut->SetViewShape(self->GetViewShape());",                      # reshaped after the inference
    "snipOut = executor->AllocTensor(op::Shape({}), self->GetDataType());",   # replaced
])
def test_a_kernel_changing_its_output_after_the_inference_is_not_read(tmp_path, after):
    assert _kernel_shape(_checkout(tmp_path, kernel=KERNEL % after)) is None


KEEP_AXES = """op::Shape outShape = self->GetViewShape();
    auto count = dim->Size();
    size_t dimNum = outShape.GetDimNum();
    if (keepDim) {
        for (uint64_t i = 0; i < count; i++) {
            int64_t dimIndex = static_cast<int64_t>((*dim)[i]);
            int64_t dimNew = dimIndex >= 0 ? dimIndex : dimIndex + dimNum;
            outShape.SetDim(dimNew, %s);
        }
        snipOut->SetViewShape(outShape);
    }"""


def test_a_keepdim_block_setting_the_inferred_shape_again_is_read_through(tmp_path):
    # every named dim set to 1 under keepdim: what the inference gave, empty dims keeping the shape
    ks = _kernel_shape(_checkout(tmp_path, kernel=KERNEL % (KEEP_AXES % "1")))
    assert (ks.data, ks.axes, ks.keepdim, ks.noop) == (0, 1, 2, True)


@pytest.mark.parametrize("infer,block", [
    (COMMON_FORM % "", KEEP_AXES % "2"),        # another shape than the inference's
    (COMMON_FORM % ", false", KEEP_AXES % "1"),  # empty dims reduce every dim there, not here
])
def test_a_keepdim_block_giving_another_shape_is_not_read(tmp_path, infer, block):
    assert _kernel_shape(_checkout(tmp_path, infer=infer, kernel=KERNEL % block)) is None


DIMS_HELPER = """
static const aclTensor* GenerateDimTensor(const aclTensor* self, const aclIntArray* dim, aclOpExecutor* executor)
{
    if (dim->Size() == 0) {
        FVector<int64_t> dimVector;
        for (size_t i = 0; i < self->GetViewShape().GetDimNum(); i%s) {
            dimVector.emplace_back(i);
        }
        return executor->ConvertToTensor(dimVector.data(), dimVector.size(), DataType::DT_INT64);
    }
    return executor->ConvertToTensor(dim, DataType::DT_INT64);
}
"""


@pytest.mark.parametrize("step,read", [("++", True), ("+= 2", False)])
def test_dims_made_every_dim_when_empty_by_a_helper_never_keep_the_shape(tmp_path, step, read):
    kernel = KERNEL.replace("namespace l0op {", "namespace l0op {" + DIMS_HELPER % step).replace(
        "auto dimList = executor->ConvertToTensor(dim, op::DataType::DT_INT64);",
        "auto dimList = GenerateDimTensor(self, dim, executor);") % ""
    ks = _kernel_shape(_checkout(tmp_path, kernel=kernel))
    assert (ks is not None and (ks.axes, ks.noop) == (1, False)) if read else ks is None


EVERY_IF_EMPTY = """if (dims->Size() == 0) {
        op::Shape shape = self->GetViewShape();
        size_t dimCount = shape.GetDimNum();
        int64_t appendDim[dimCount];
        for (uint64_t i = 0; i < dimCount; i++) {
            appendDim[i] = %s;
        }
        dims = uniqueExecutor.get()->AllocIntArray(appendDim, dimCount);
    }
    auto reduceDims = dims;"""


def test_empty_dims_replaced_by_every_dim_reduce_every_dim(tmp_path):
    events = _walk(_checkout(tmp_path), dims=EVERY_IF_EMPTY % "i")
    # the kernel keeps the shape of empty dims, but its dims are never empty here: no noop exemption
    assert dict(events[-1].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                     "scalar_same": True}


@pytest.mark.parametrize("dims", [
    EVERY_IF_EMPTY % "0",                                            # other dims than every dim
    EVERY_IF_EMPTY.replace("int64_t appendDim", "CHECK_RET(out != nullptr, ACLNN_ERR_PARAM_NULLPTR);\n"
                           "        int64_t appendDim") % "i",        # a check inside the branch
])
def test_empty_dims_replaced_otherwise_leave_the_check_unread(tmp_path, dims):
    events = _walk(_checkout(tmp_path), dims=dims)
    assert events[-1].kind == "unread"


@pytest.mark.parametrize("other,read", [("selfCast", True), ("out", False)])
def test_kernels_on_both_sides_of_a_dtype_branch_are_checked_per_side(tmp_path, other, read):
    """One shape on both sides: one rule; another shape on each side: one rule per side, under the
    branch's dtype guard."""
    one = "auto snipResult = l0op::ReduceSnip(selfCast, reduceDims, %s, uniqueExecutor.get());"
    both = ("const aclTensor* snipResult = nullptr;\n    if (out->GetDataType() == op::DataType::DT_BOOL) {\n"
            "        snipResult = l0op::ReduceSnip(selfCast, reduceDims, keepDim, uniqueExecutor.get());\n"
            "    } else {\n"
            f"        snipResult = l0op::ReduceSnip({other}, reduceDims, keepDim, uniqueExecutor.get());\n    }}")
    src = read_source("snippet.cpp", API.replace(one, both) % "auto reduceDims = dims;")
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    events = walk_api(Index(src, [check], [], KernelIndex(_checkout(tmp_path))), fn,
                      {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")
    if read:
        assert events[-1].template == "reduced_shape" and "when" not in dict(events[-1].args)
        return
    sides = [dict(e.args) for e in events if e.template == "reduced_shape"]
    assert [(a["of"], a["when"][0]) for a in sides] == [("self", "in"), ("out", "not")]


# ---- the walk: the reduced-shape rule, with the one-element exemption ----

def test_the_shape_or_scalar_check_of_a_reduction_kernel_is_the_reduced_shape_rule(tmp_path):
    events = _walk(_checkout(tmp_path))
    assert [(e.kind, e.template) for e in events] == [("check", "reduced_shape")]
    assert dict(events[0].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                    "noop": True, "scalar_same": True}
    assert events[0].status == 161002


def test_every_dim_of_a_helper_built_list_reduces_all(tmp_path):
    events = _walk(_checkout(tmp_path), dims="auto reduceDims = AllDims(self, uniqueExecutor.get());",
                   flags="false")
    assert dict(events[0].args) == {"param": "out", "of": "self", "dims": None, "keepdim": False,
                                    "scalar_same": True}


@pytest.mark.parametrize("dims", [
    "auto reduceDims = SomeDims(self, dims);",   # dims the reader does not know
])
def test_a_shape_or_scalar_check_of_a_result_whose_shape_is_unknown_is_unread(tmp_path, dims):
    events = _walk(_checkout(tmp_path), dims=dims)
    assert events[-1].kind == "unread" and "CheckShapeAndScalarSame" in events[-1].text


def test_a_kernel_whose_infer_function_is_not_read_leaves_the_check_unread(tmp_path):
    events = _walk(_checkout(tmp_path, infer=OWN_FORM % "1"))
    assert events[-1].kind == "unread"


def _call(self_shape, out_shape, dims, keepdim=False):
    return CallView(tensors={"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    attrs={"dims": dims, "keepDim": keepdim}, null_outputs=frozenset())


@pytest.mark.parametrize("self_shape,out_shape,dims,keepdim,violated", [
    ((2, 3), (3,), [0], False, False),
    ((2, 3), (2, 3), [0], False, True),
    ((2, 3), (1, 3), [0], True, False),
    ((2, 3), (), None, False, False),      # every dim
    ((2, 3), (1,), None, False, False),    # one element for one element: accepted
    ((2, 3), (1, 1), None, False, False),
    ((2, 3), (2,), None, False, True),
    ((3, 1), (1, 1), [0], False, False),   # (1,) expected: one element each
    ((3, 2), (1, 1), [0], False, True),    # (2,) expected
    ((2, 3), (3,), [0, 0], False, False),  # a dim named twice reduces once
])
def test_reduced_shape_with_the_one_element_exemption_by_hand(self_shape, out_shape, dims, keepdim, violated):
    rule = predicate("reduced_shape", {"param": "out", "of": "self", "dims": "dims" if dims is not None else None,
                                       "keepdim": "keepDim", "scalar_same": True})
    assert rule(_call(self_shape, out_shape, dims, keepdim)) is violated


# ---- compute helpers: a tuple of kernel results checked against null ----

HELPER_API = """
static std::tuple<const aclTensor*, const aclTensor*> BothEnds(const aclTensor* self, aclOpExecutor* executor)
{
    %s
    const aclTensor* low = l0op::ReduceMin(self, executor);
    const aclTensor* high = l0op::ReduceMax(self, executor);
    return std::tuple<const aclTensor*, const aclTensor*>(low, high);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto lowTensor = self;
    auto highTensor = self;
    if (NeedBothEnds(self)) {
        auto ends = BothEnds(self, uniqueExecutor.get());
        lowTensor = std::get<0>(ends);
        highTensor = std::get<1>(ends);
        CHECK_RET(lowTensor != nullptr && highTensor != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    }
    OP_CHECK_DTYPE_NOT_SAME(self, out, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _walk_helper(check: str) -> list:
    src = read_source("snippet.cpp", HELPER_API % check)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


def test_a_null_tuple_element_of_a_compute_helper_is_no_parameter_check():
    events = _walk_helper("")
    assert [(e.kind, e.template) for e in events] == [("check", "dtypes_equal")]


def test_a_helper_checking_a_parameter_makes_its_branch_unread():
    events = _walk_helper("OP_CHECK_NULL(self, return {});")
    assert events[0].kind == "unread" and "NeedBothEnds" in events[0].text


# ---- an arg kernel: a tuple of two results, the dim an int attribute, reset after the inference ----

ARG_COMMON = """
namespace ops {
static ge::graphStatus SnipWithValueInfer(const gert::InferShapeContext* context, const gert::Shape* x_shape,
                                          gert::Shape* indice_shape, gert::Shape* value_shape) {
  OP_LOGD(context->GetNodeName(), "begin");
  if (x_shape->IsScalar()) {
    *indice_shape = *x_shape;
    *value_shape = *x_shape;
    return GRAPH_SUCCESS;
  }
  auto attrs = context->GetAttrs();
  const auto* attr_dimension = attrs->GetAttrPointer<int64_t>(0);
  const auto* attr_keep_dims = attrs->GetAttrPointer<bool>(1);
  bool keep_dims = *attr_keep_dims;
  if (keep_dims) {
    *value_shape = *x_shape;
    OP_CHECK_IF(Ops::Base::ReduceDimsWithKeepDims<int64_t>(x_shape, attr_dimension, 1, value_shape) != GRAPH_SUCCESS,
                OP_LOGE(context->GetNodeName(), "infershape failed"), return ge::GRAPH_FAILED);
  } else {
    value_shape->SetDimNum(0);
    OP_CHECK_IF(Ops::Base::ReduceDimsWithoutKeepDims<int64_t>(x_shape, attr_dimension, 1, value_shape) != GRAPH_SUCCESS,
                OP_LOGE(context->GetNodeName(), "infershape failed"), return ge::GRAPH_FAILED);
    }
  *indice_shape = *value_shape;
  return GRAPH_SUCCESS;
}

ge::graphStatus InferShapeForSnipWithValue(gert::InferShapeContext* context) {
  auto x_shape = context->GetInputShape(0);
  auto indice_shape = context->GetOutputShape(0);
  auto value_shape = context->GetOutputShape(1);
  return SnipWithValueInfer(context, x_shape, indice_shape, value_shape);
}
}
"""
ARG_REGISTER = "namespace ops { IMPL_OP_INFERSHAPE(SnipWithValue).InferShape(InferShapeForSnipWithValue); }"

ARG_KERNEL = """
namespace l0op {
std::tuple<aclTensor*, aclTensor*> Snip2AiCore(const aclTensor *self, const int64_t dim, const bool keepdim,
    aclTensor *indices, aclTensor *out, aclOpExecutor *executor) {
  auto ret = ADD_TO_LAUNCHER_LIST_AICORE(SnipWithValue, OP_INPUT(self), OP_OUTPUT(indices, out), OP_ATTR(dim, keepdim));
  if (ret != ACL_SUCCESS) {
    return std::tuple<aclTensor*, aclTensor*>(nullptr, nullptr);
  }
  return std::tuple<aclTensor*, aclTensor*>(indices, out);
}

std::tuple<aclTensor*, aclTensor*> SnipWithValue(const aclTensor *self, const int64_t dim,
    const bool keepdim, const op::DataType indicesDtype, aclOpExecutor *executor) {
  auto out = executor->AllocTensor(self->GetDataType(), op::Format::FORMAT_ND, op::Format::FORMAT_ND);
  auto indices = executor->AllocTensor(indicesDtype, op::Format::FORMAT_ND, op::Format::FORMAT_ND);
  auto ret = INFER_SHAPE(SnipWithValue, OP_INPUT(self), OP_OUTPUT(indices, out), OP_ATTR(dim, keepdim));
  if (ret != ACLNN_SUCCESS) {
    return {};
  }
  if (self->GetViewShape().GetDimNum() == 1 && indices->GetViewShape().GetDimNum() == 1) {
    out = executor->AllocTensor(op::Shape({}), self->GetDataType(), op::Format::FORMAT_ND);
    indices = executor->AllocTensor(op::Shape({}), indicesDtype, op::Format::FORMAT_ND);
  }
  int64_t dimPos = 0;
  if (keepdim) {
    op::Shape inputShape = self->GetViewShape();
    if (dim < 0) {
      dimPos = self->GetViewShape().GetDimNum() + dim;
    } else {
      dimPos = dim;
    }
    inputShape.SetDim(dimPos, %s);
    out->SetViewShape(inputShape);
    indices->SetViewShape(inputShape);
  }
  return Snip2AiCore(self, dim, keepdim, indices, out, executor);
}
}
"""

ARG_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out,
                                      aclTensor* indices, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_DTYPE_NOT_SUPPORT(self, SELF_LIST, return ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_DTYPE_NOT_SAME(self, out, return ACLNN_ERR_PARAM_INVALID);
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    const aclTensor *selfCast;
    if (self->GetDataType() == op::DataType::DT_BOOL) {
        selfCast = l0op::Cast(selfContiguous, op::DataType::DT_FLOAT, uniqueExecutor.get());
    } else {
        selfCast = selfContiguous;
    }
    std::tuple<aclTensor*, aclTensor*> result;
    result = l0op::SnipWithValue(selfCast, dim, keepdim, op::DataType::DT_INT32, uniqueExecutor.get());
    CHECK_RET(std::get<0>(result) != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    auto snipIndices = std::get<0>(result);
    auto snipOut = std::get<1>(result);
    CHECK_RET(CheckShapeAndScalarSame(snipIndices, indices), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckShapeAndScalarSame(snipOut, out), ACLNN_ERR_PARAM_INVALID);
    auto indicesRes = l0op::Cast(snipIndices, indices->GetDataType(), uniqueExecutor.get());
    CHECK_RET(indicesRes != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    auto outRes = l0op::Cast(snipOut, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(outRes != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
ARG_LIST = "static const std::initializer_list<op::DataType> SELF_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_BOOL};\n"
ARG_NAMES = ["self", "dim", "keepdim", "out", "indices", "workspaceSize", "executor"]


def _arg_checkout(tmp_path, kept: str = "1"):
    (tmp_path / "math" / "snip_common" / "op_host").mkdir(parents=True)
    (tmp_path / "math" / "snip_common" / "op_host" / "snip_common_infershape.cpp").write_text(ARG_COMMON)
    (tmp_path / "math" / "snip_with_value" / "op_host").mkdir(parents=True)
    (tmp_path / "math" / "snip_with_value" / "op_host" / "snip_with_value_infershape.cpp").write_text(ARG_REGISTER)
    (tmp_path / "math" / "snip_with_value" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "snip_with_value" / "op_api" / "snip_with_value.cpp").write_text(ARG_KERNEL % kept)
    return tmp_path


def _arg_walk(root) -> list:
    src = read_source("snippet.cpp", ARG_LIST + ARG_API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn,
                    {p: T(n) for p, n in zip(fn.params, ARG_NAMES)}, "atlas-a2")


def test_an_arg_kernel_resetting_its_shapes_as_inferred_is_known_up_to_one_element(tmp_path):
    root = _arg_checkout(tmp_path)
    kernels = KernelIndex(root)
    ks = kernel_reduce_shape(kernels.function("SnipWithValue", 5), kernels.source_of("SnipWithValue"), kernels.infers)
    assert (ks.data, ks.axes, ks.keepdim, ks.noop, ks.one_element) == (0, 1, 2, False, True)


def test_an_arg_kernel_setting_another_size_after_the_inference_is_not_read(tmp_path):
    root = _arg_checkout(tmp_path, kept="2")
    kernels = KernelIndex(root)
    assert kernel_reduce_shape(kernels.function("SnipWithValue", 5), kernels.source_of("SnipWithValue"),
                               kernels.infers) is None


def test_both_results_of_an_arg_kernel_are_reduced_shapes_and_their_casts_guarded(tmp_path):
    events = _arg_walk(_arg_checkout(tmp_path))
    assert [(e.kind, e.template) for e in events] == [
        ("check", "dtype_in"), ("check", "dtypes_equal"), ("check", "reduced_shape"), ("check", "reduced_shape"),
        ("unread", ""), ("unread", "")]
    assert [dict(e.args)["param"] for e in events[2:4]] == ["indices", "out"]
    assert dict(events[2].args)["dims"] == "dim" and dict(events[2].args)["scalar_same"] is True
    # the indices (INT32) cast to the indices' own dtype: not judged only where that dtype is outside
    # the conversions AICPU makes; the values (self's dtype or FLOAT) to out's likewise
    when = dict(events[4].args)["when"]
    assert when[0] == "not" and when[1][:2] == ("in", ("of", "indices"))


def test_an_arg_kernel_whose_shape_is_not_read_leaves_its_check_unread(tmp_path):
    events = _arg_walk(_arg_checkout(tmp_path, kept="2"))
    assert events[-1].kind == "unread" and "CheckShapeAndScalarSame" in events[-1].text


@pytest.mark.parametrize("dtype,unread", [("INT64", False), ("INT32", False), ("FLOAT8_E4M3FN", True)])
def test_a_guarded_cast_leaves_unjudged_only_the_dtypes_outside_the_aicpu_conversions(tmp_path, dtype, unread):
    when = dict(_arg_walk(_arg_checkout(tmp_path))[4].args)["when"]
    rule = predicate("unread", {"unless_empty": [], "when": when})
    call = CallView(tensors={"self": TensorView("FLOAT", (2, 3), "ND"), "out": TensorView("FLOAT", (2,), "ND"),
                             "indices": TensorView(dtype, (2,), "ND")}, attrs={"dim": 1}, null_outputs=frozenset())
    assert rule(call) is unread


KERNEL_AXES_TENSOR = """
namespace l0op {
const aclTensor* ReduceSnip(const aclTensor* self, const aclTensor* axes, const bool keepDims, aclOpExecutor* executor)
{
    if (self->GetViewShape().GetDimNum() == 0) {
        return self;
    }
    auto out = executor->AllocTensor(self->GetDataType(), op::Format::FORMAT_ND, op::Format::FORMAT_ND);
    bool noopWithEmptyAxes = true;
    INFER_SHAPE(ReduceSnip, OP_INPUT(self, axes), OP_OUTPUT(out), OP_ATTR(keepDims, noopWithEmptyAxes));
    return out;
}
}
"""

ONE_DIM_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto axes = uniqueExecutor.get()->ConvertToTensor(&dim, 1, op::DataType::DT_INT64);
    CHECK_RET(axes != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto result = l0op::ReduceSnip(self, axes, keepDim, uniqueExecutor.get());
    CHECK_RET(result != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckShapeAndScalarSame(result, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_one_int_made_a_tensor_of_dims_is_the_reduction_over_that_dim(tmp_path):
    root = _checkout(tmp_path, kernel=KERNEL_AXES_TENSOR)
    src = read_source("snippet.cpp", ONE_DIM_API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    events = walk_api(Index(src, [read_source("aclnn_check.h", CHECK_HEADER)], [], KernelIndex(root)), fn,
                      {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")
    assert [(e.kind, e.template) for e in events] == [("check", "reduced_shape")]
    assert dict(events[0].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                    "noop": True, "scalar_same": True}


NOOP_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, bool keepDim,
                                      bool noopWithEmptyAxes, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    op::Shape shape = self->GetViewShape();
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    const aclTensor* snipOut = nullptr;
    if (dims->Size() == 0) {
        if (noopWithEmptyAxes == false) {
            size_t dimNum = shape.GetDimNum();
            std::vector<int64_t> appendDim(dimNum);
            for (size_t i = 0; i < dimNum; i++) {
                appendDim[i] = i;
            }
            dims = uniqueExecutor.get()->AllocIntArray(appendDim.data(), dimNum);
            snipOut = %s;
        } else {
            auto viewCopyResult = l0op::ViewCopy(selfContiguous, out, uniqueExecutor.get());
            *workspaceSize = uniqueExecutor->GetWorkspaceSize();
            uniqueExecutor.ReleaseTo(executor);
            return ACLNN_SUCCESS;
        }
    } else {
        snipOut = l0op::ReduceSnip(selfContiguous, dims, keepDim, uniqueExecutor.get());
    }
    CHECK_RET(snipOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckShapeAndScalarSame(snipOut, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NOOP_NAMES = ["self", "dims", "keepDim", "noopWithEmptyAxes", "out", "workspaceSize", "executor"]
EVERY_DIM_KERNEL = "l0op::ReduceSnip(selfContiguous, dims, keepDim, uniqueExecutor.get())"


def _noop_walk(root, every_dim_kernel: str = EVERY_DIM_KERNEL) -> list:
    src = read_source("snippet.cpp", NOOP_API % every_dim_kernel)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn,
                    {p: T(n) for p, n in zip(fn.params, NOOP_NAMES)}, "atlas-a2")


def test_each_side_of_a_no_dims_branch_checks_its_own_kernels_shape(tmp_path):
    """ReduceLogSum's form (ops-math math/reduce_log_sum/op_api/aclnn_reduce_log_sum.cpp:182-205): no
    dims and no noop reduce every dim; no dims and noop copy the input and return (values not
    judged); dims named reduce them. One reduced_shape rule per side, under its guard."""
    events = _noop_walk(_checkout(tmp_path))
    assert [(e.kind, e.template) for e in events] == [("unread-values", ""), ("check", "reduced_shape"),
                                                      ("check", "reduced_shape")]
    assert [dict(e.args)["dims"] for e in events[1:]] == [None, "dims"]
    rules = [predicate(e.template, e.args_dict()) for e in events[1:]]

    def violated(dims, noop: bool, out: tuple[int, ...]) -> bool:
        call = CallView({"self": TensorView("FLOAT", (2, 3), "ND"), "out": TensorView("FLOAT", out, "ND")},
                        {"dims": dims, "keepDim": False, "noopWithEmptyAxes": noop}, frozenset())
        return any(r(call) for r in rules)
    assert not violated([], False, ()) and violated([], False, (2, 3))      # every dim reduced
    assert not violated([], True, (2, 3)) and not violated([], True, (5,))  # returned before the check
    assert not violated([1], False, (2,)) and violated([1], False, (3,))    # the named dim reduced
    values_when = dict(events[0].args)["when"]
    base = {"self": TensorView("FLOAT", (2, 3), "ND"), "out": TensorView("FLOAT", (2, 3), "ND")}
    assert guard_holds(CallView(base, {"dims": [], "noopWithEmptyAxes": True}, frozenset()), values_when)
    assert not guard_holds(CallView(base, {"dims": [], "noopWithEmptyAxes": False}, frozenset()), values_when)


def test_a_side_whose_kernel_is_not_read_leaves_its_calls_unread(tmp_path):
    events = _noop_walk(_checkout(tmp_path), every_dim_kernel="SomethingElse(selfContiguous, dims)")
    assert not any(e.template == "reduced_shape" and dict(e.args)["dims"] is None for e in events)
    assert any(e.kind == "unread" for e in events)


VIEW_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    op::DataType promoteType = PickType(self);
    if (SupportsViews(self, promoteType, dims)) {
        auto selfView = uniqueExecutor.get()->CreateView(self, self->%s(), self->GetStorageShape(),
                                                         self->GetViewStrides(), self->GetViewOffset());
        auto snipOut = l0op::ReduceSnip(selfView, dims, keepDim, uniqueExecutor.get());
        CHECK_RET(CheckShapeAndScalarSame(snipOut, out), ACLNN_ERR_PARAM_INVALID);
    } else {
        auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
        auto selfCast = l0op::Cast(selfContiguous, promoteType, uniqueExecutor.get());
        auto snipOut = l0op::ReduceSnip(selfCast, dims, keepDim, uniqueExecutor.get());
        CHECK_RET(CheckShapeAndScalarSame(snipOut, out), ACLNN_ERR_PARAM_INVALID);
    }
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("view_shape,read", [("GetViewShape", True), ("GetStorageShape", False)])
def test_a_view_of_the_same_shape_and_a_cast_to_an_unread_dtype_keep_the_tensors_shape(tmp_path, view_shape, read):
    """aclnnReduceSum's two sides (ops-math math/reduce_sum/op_api/aclnn_reduce_sum.cpp:270-301): a view
    made with the tensor's own view shape, or a contiguous copy cast to a dtype the reader does not
    know; both reduce the same shape, so one rule holds on either side of the unread condition."""
    src = read_source("snippet.cpp", VIEW_API % view_shape)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    events = walk_api(Index(src, [check], [], KernelIndex(_checkout(tmp_path))), fn,
                      {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")
    if read:
        assert [(e.kind, e.template) for e in events] == [("check", "reduced_shape")]
        assert dict(events[0].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                        "noop": True, "scalar_same": True}
    else:
        assert events[-1].kind == "unread"


OWN_INFER_KERNEL = """
namespace l0op {
OP_TYPE_REGISTER(SnipMean);
static int64_t WrapDim(int64_t dim, int64_t rank)
{
    if (rank <= 0) {
        rank = %s;
    }
    if (dim < 0) {
        dim += rank;
    }
    return dim;
}

constexpr size_t MAX_MASK_LEN = 64;

bool SnipMeanInferShape(const op::Shape& self_shape, const aclIntArray* dim, bool keep_dims, op::Shape& reduce_shape)
{
    uint64_t mask[MAX_MASK_LEN] = {0};
    if (dim->Size() == 0) {
        for (size_t i = 0; i < MAX_MASK_LEN; i++) {
            mask[i] = 1;
        }
    } else {
        for (size_t i = 0; i < dim->Size(); i++) {
            int64_t index = WrapDim(dim->operator[](i), self_shape.GetDimNum());
            if (mask[index] == 1) {
                OP_LOGE(ACL_ERROR_INVALID_PARAM, "dim value[%%ld] repeat", dim->operator[](i));
                return false;
            }
            mask[index] = 1;
        }
    }
    for (size_t i = 0; i < self_shape.GetDimNum(); i++) {
        if (keep_dims) {
            if (mask[i] == 0) {
                reduce_shape.AppendDim(self_shape.GetDim(i));
            } else {
                reduce_shape.AppendDim(%s);
            }
        } else {
            if (mask[i] == 0) {
                reduce_shape.AppendDim(self_shape.GetDim(i));
            }
        }
    }
    return true;
}

static const aclTensor* SnipMeanAiCore(const aclTensor* self, const aclIntArray* dim, const aclTensor* meanOut,
                                       aclOpExecutor* executor)
{
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(SnipMean, OP_INPUT(self), OP_OUTPUT(meanOut));
    OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE(ret != ACLNN_SUCCESS, return nullptr, "failed.");
    return meanOut;
}

const aclTensor* SnipMean(const aclTensor* self, const aclIntArray* dim, bool keepDim, bool noopWithEmptyAxes,
                          aclOpExecutor* executor)
{
    op::Shape reduceShape;
    if (!SnipMeanInferShape(self->GetViewShape(), dim, keepDim, reduceShape)) {
        return nullptr;
    }
    if (self->GetViewShape().GetDimNum() == 0) {
        return self;
    }
    if (dim->Size() == 0 && noopWithEmptyAxes) {
        return self;
    }
    auto meanOut = executor->AllocTensor(reduceShape, self->GetDataType());
    return SnipMeanAiCore(self, dim, meanOut, executor);
}
}
"""


def _own_infer_shape(tmp_path, rank0: str = "1", kept: str = "1"):
    (tmp_path / "math" / "snip_mean" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "snip_mean" / "op_api" / "snip_mean.cpp").write_text(OWN_INFER_KERNEL % (rank0, kept))
    kernels = KernelIndex(tmp_path)
    return kernel_reduce_shape(kernels.function("SnipMean", 5), kernels.source_of("SnipMean"), kernels.infers)


def test_a_kernel_inferring_its_shape_itself_is_a_reduction_with_its_noop_return(tmp_path):
    """ReduceMean's own inference (ops-math math/reduce_mean/op_api/reduce_mean.cpp:41-72, 165-186):
    empty dims reduce every dim, or with the noop flag return the input."""
    ks = _own_infer_shape(tmp_path)
    assert (ks.data, ks.axes, ks.keepdim, ks.noop, ks.one_element) == (0, 1, 2, 3, False)


@pytest.mark.parametrize("rank0,kept", [("2", "1"), ("1", "2")])
def test_an_own_inference_read_otherwise_is_not_read(tmp_path, rank0, kept):
    """A dim wrap counting rank 0 as 2, or a reduced dim kept as 2: no reduction read."""
    assert _own_infer_shape(tmp_path, rank0, kept) is None


POOL_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    std::vector<int64_t> dimVector = {};
    int64_t dimNum = self->GetViewShape().GetDimNum();
    for (int64_t i = %s; i < dimNum; i++) {
        dimVector.push_back(i);
    }
    const aclIntArray* dims = aclCreateIntArray(dimVector.data(), dimNum - 2);
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    auto meanOut = l0op::SnipMean(selfContiguous, dims, true, false, uniqueExecutor.get());
    CHECK_RET(CheckShapeAndScalarSame(meanOut, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("start,read", [("2", True), ("1", False)])
def test_the_dims_from_two_on_pushed_in_a_loop_are_the_reduction_over_them(tmp_path, start, read):
    """aclnnGlobalAveragePool (ops-math math/reduce_mean/op_api/aclnn_global_average_pool.cpp:153-167):
    the mean over dims 2 .. rank-1, kept."""
    _own_infer_shape(tmp_path)
    src = read_source("snippet.cpp", POOL_API % start)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    events = walk_api(Index(src, [check], [], KernelIndex(tmp_path)), fn,
                      {p: T(n) for p, n in zip(fn.params, ["self", "out", "workspaceSize", "executor"])}, "atlas-a2")
    if not read:   # a loop from 1 with a count of rank - 2: not the dims it names
        assert events[-1].kind == "unread"
        return
    assert [e.template for e in events] == ["reduced_shape"]
    rule = predicate("reduced_shape", events[0].args_dict())
    call = lambda out: CallView({"self": TensorView("FLOAT", (2, 3, 4, 5), "ND"),   # noqa: E731
                                 "out": TensorView("FLOAT", out, "ND")}, {}, frozenset())
    assert not rule(call((2, 3, 1, 1))) and rule(call((2, 1, 1, 1))) and rule(call((2, 3)))


ALL_DIMS_HELPER = """
static const aclIntArray* AllDimsOf(const aclTensor* self, aclOpExecutor* executor)
{
    auto input_shape = self->GetViewShape();
    const size_t input_dim_num = input_shape.GetDimNum();
    std::vector<int64_t> dims(input_dim_num);
    for (size_t idx = 0; idx < input_dim_num; idx++) {
        dims[idx] = idx;
    }
    return executor->AllocIntArray(dims.data(), input_dim_num);
}
"""
ALL_DIMS_IF_EMPTY = """if (dims->Size() == 0) {
        dims = AllDimsOf(self, uniqueExecutor.get());
        CHECK_RET(dims != nullptr, ACLNN_ERR_%s);
    }
    auto reduceDims = dims;"""
LAMBDA_CAST = API[API.index("    auto selfCast = [&"):API.index("    }();") + len("    }();")]


def _walk_with(root, api: str) -> list:
    src = read_source("snippet.cpp", ALL_DIMS_HELPER + api)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    return walk_api(Index(src, [check], [], KernelIndex(root)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


@pytest.mark.parametrize("status,read", [("INNER_NULLPTR", True), ("PARAM_NULLPTR", False)])
def test_every_dim_from_a_helper_returning_the_array_it_makes(tmp_path, status, read):
    """aclnnAny (ops-math math/reduce_any/op_api/aclnn_any.cpp:53-62, 165-168): empty dims replaced by a
    helper's array of every dim, its null result an inner status (a parameter status is a check)."""
    events = _walk_with(_checkout(tmp_path), API % (ALL_DIMS_IF_EMPTY % status, "keepDim"))
    if read:
        assert dict(events[-1].args) == {"param": "out", "of": "self", "dims": "dims", "keepdim": "keepDim",
                                         "scalar_same": True}
    else:
        assert not any(e.template == "reduced_shape" for e in events)


@pytest.mark.parametrize("other,read", [("selfContiguous", True), ("out", False)])
def test_a_choice_between_a_cast_and_its_source_keeps_the_sources_shape(tmp_path, other, read):
    """aclnnAminmaxAll (ops-math math/reduce_min/op_api/aclnn_aminmax_all.cpp:137-138): a bool input
    cast to UINT8, else the input itself."""
    choice = ("    auto selfCast = self->GetDataType() == op::DataType::DT_BOOL ?\n"
              "        l0op::Cast(selfContiguous, op::DataType::DT_UINT8, uniqueExecutor.get()) : " + other + ";")
    events = _walk_with(_checkout(tmp_path), API.replace(LAMBDA_CAST, choice) % ("auto reduceDims = dims;", "keepDim"))
    assert (events[-1].template == "reduced_shape") if read else (events[-1].kind == "unread")


ONE_INT_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    int64_t appendDim[1] = {dim};
    %s
    auto dimArray = uniqueExecutor.get()->AllocIntArray(appendDim, 1);
    auto snipResult = l0op::ReduceSnip(selfContiguous, dimArray, keepDim, uniqueExecutor.get());
    CHECK_RET(CheckShapeAndScalarSame(snipResult, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("between,read", [("", True), ("appendDim[0] = 0;", False)])
def test_an_array_of_the_apis_one_int_is_the_reduction_over_that_dim(tmp_path, between, read):
    """aclnnAminmaxDim (ops-math math/reduce_min/op_api/aclnn_aminmax_dim.cpp:160-165); the array
    written again before the kernel is not read."""
    src = read_source("snippet.cpp", ONE_INT_API % between)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("aclnn_check.h", CHECK_HEADER)
    events = walk_api(Index(src, [check], [], KernelIndex(_checkout(tmp_path))), fn,
                      {p: T(n) for p, n in zip(fn.params, ["self", "dim", "keepDim", "out", "workspaceSize",
                                                            "executor"])}, "atlas-a2")
    if read:
        assert dict(events[-1].args) == {"param": "out", "of": "self", "dims": "dim", "keepdim": "keepDim",
                                         "noop": True, "scalar_same": True}
    else:
        assert events[-1].kind == "unread"
