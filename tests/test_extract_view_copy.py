"""The extractor on the copy of a kernel's result into the API's output (``l0op::ViewCopy``, null when
the two view shapes differ unless both hold one element): where the walk knows the result's shape,
``shape_is`` of the output with the one-element exemption (``scalar_same``), at the status the
CHECK_RET names; no rule where it does not. Cdist's host code builds that shape: the batch dims
broadcast in a loop (held only after the zero-batch return), the matrices' own dims appended by a
loop counting down, then on an empty last dim a Fill of the batch dims and both matrices' rows. The
templates and the shapes by hand."""
from __future__ import annotations

import json

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate, shape_value, slice_outside

CDIST = """
static const int64_t MIN_DIM_LEN = 2;

static bool CheckBatchDimNum(const aclTensor* x) {
    auto xDimNum = x->GetViewShape().GetDimNum();
    for(int64_t i = 0; i < static_cast<int64_t>(xDimNum - 1); i++) {
        if(x->GetViewShape().GetDim(i) == 0) {
            return true;
        }
    }
    return false;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    SocVersion socVersion = GetCurrentPlatformInfo().GetSocVersion();
    OP_CHECK_MIN_DIM(x1, MIN_DIM_LEN, return ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_MIN_DIM(x2, MIN_DIM_LEN, return ACLNN_ERR_PARAM_INVALID);
    const aclTensor* result = nullptr;
    auto x1DimNum = x1->GetViewShape().GetDimNum();
    auto x2DimNum = x2->GetViewShape().GetDimNum();
    %(zero_return)s
    auto x1Contiguous = l0op::Contiguous(x1, uniqueExecutor.get());
    CHECK_RET(x1Contiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto x2Contiguous = l0op::Contiguous(x2, uniqueExecutor.get());
    CHECK_RET(x2Contiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    op::Shape x1BroadcastShape;
    op::Shape x2BroadcastShape;
    int64_t x1Rank = x1Contiguous->GetViewShape().GetDimNum();
    int64_t x2Rank = x2Contiguous->GetViewShape().GetDimNum();
    int64_t minRank = std::min(x1Rank, x2Rank);
    int64_t maxRank = std::max(x1Rank, x2Rank);
    for (int64_t i = 0; i < static_cast<int64_t>(maxRank - MIN_DIM_LEN); i++) {
        int64_t dim1 = (x1Rank < maxRank) ?
                           ((i < maxRank - minRank) ? 1 : x1Contiguous->GetViewShape().GetDim(i - maxRank + minRank)) :
                           x1Contiguous->GetViewShape().GetDim(i);
        int64_t dim2 = (x2Rank < maxRank) ?
                           ((i < maxRank - minRank) ? 1 : x2Contiguous->GetViewShape().GetDim(i - maxRank + minRank)) :
                           x2Contiguous->GetViewShape().GetDim(i);
        if(dim1 != dim2) {
            if(dim1 != 1 && dim2 != 1) {
                OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cannot broadcast!");
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
        int64_t broadcastDim = std::max(dim1, dim2);
        x1BroadcastShape.AppendDim(broadcastDim);
        x2BroadcastShape.AppendDim(broadcastDim);
    }
    for (int64_t i = 1; i >= 0; i--) {
        x1BroadcastShape.AppendDim(x1Contiguous->GetViewShape().GetDim(x1DimNum - i - 1));
        x2BroadcastShape.AppendDim(x2Contiguous->GetViewShape().GetDim(x2DimNum - i - 1));
    }
    if(x1Contiguous->GetViewShape().GetDim(x1DimNum - 1) == 0) {
        aclScalar* scalar = uniqueExecutor.get()->AllocScalar(0);
        auto valueTensor = uniqueExecutor.get()->ConvertToTensor(scalar, out->GetDataType());
        op::Shape outShape;
        for(int64_t i = 0; i < static_cast<int64_t>(maxRank - 1); i++) {
            int64_t dim = x1BroadcastShape.GetDim(i);
            outShape.AppendDim(%(appended)s);
        }
        outShape.AppendDim(x2BroadcastShape.GetDim(maxRank - MIN_DIM_LEN));
        auto outputDims = op::ToShapeVector(outShape);
        aclIntArray* dimArray = uniqueExecutor.get()->AllocIntArray(outputDims.data(), outputDims.size());
        CHECK_RET(dimArray != nullptr, ACLNN_ERR_INNER_NULLPTR);
        auto dimTensor = uniqueExecutor.get()->ConvertToTensor(dimArray, op::DataType::DT_INT64);
        result = l0op::Fill(dimTensor, valueTensor, dimArray, uniqueExecutor.get());
    } else {
        op::FVector<int64_t, op::MAX_DIM_NUM> x1BroadcastDims = op::ToShapeVector(x1BroadcastShape);
        auto x1BroadcastShapeArray = uniqueExecutor.get()->AllocIntArray(x1BroadcastDims.data(), x1BroadcastDims.size());
        op::FVector<int64_t, op::MAX_DIM_NUM> x2BroadcastDims = op::ToShapeVector(x2BroadcastShape);
        auto x2BroadcastShapeArray = uniqueExecutor.get()->AllocIntArray(x2BroadcastDims.data(), x2BroadcastDims.size());
        auto x1Broadcast = l0op::BroadcastTo(x1Contiguous, x1BroadcastShapeArray, uniqueExecutor.get());
        CHECK_RET(x1Broadcast != nullptr, ACLNN_ERR_INNER_NULLPTR);
        auto x2Broadcast = l0op::BroadcastTo(x2Contiguous, x2BroadcastShapeArray, uniqueExecutor.get());
        CHECK_RET(x2Broadcast != nullptr, ACLNN_ERR_INNER_NULLPTR);
        if (socVersion == SocVersion::ASCEND910B || socVersion == SocVersion::ASCEND910_93) {
            if (x1->GetDataType() == op::DataType::DT_BF16) {
                x1Broadcast = l0op::Cast(x1Broadcast, op::DataType::DT_FLOAT, uniqueExecutor.get());
                CHECK_RET(x1Broadcast != nullptr, ACLNN_ERR_INNER_NULLPTR);
            }
            gert::Shape x1Shape = x1Broadcast->GetViewShape();
            gert::Shape x2Shape = x2Broadcast->GetViewShape();
            size_t dimNum = x1Shape.GetDimNum();
            int64_t tensorR = x2Shape.GetDim(dimNum - 2);
            int64_t tensorM = x1Shape.GetDim(dimNum - 1);
            gert::Shape x1UnsqueezedShape = x1Shape;
            gert::Shape x2UnsqueezedShape = x2Shape;
            x1UnsqueezedShape.AppendDim(tensorM);
            x2UnsqueezedShape.AppendDim(tensorM);
            x1UnsqueezedShape.SetDim(dimNum - 1, 1);
            x2UnsqueezedShape.SetDim(dimNum - 2, 1);
            x2UnsqueezedShape.SetDim(dimNum - 1, tensorR);
            auto x1Reshape = l0op::Reshape(x1Broadcast, x1UnsqueezedShape, uniqueExecutor.get());
            auto x2Reshape = l0op::Reshape(x2Broadcast, x2UnsqueezedShape, uniqueExecutor.get());
            gert::Shape finalInputShape = x1UnsqueezedShape;
            finalInputShape.SetDim(dimNum - 1, x2UnsqueezedShape[dimNum - 1]);
            FVector<int64_t, MAX_DIM_NUM> broadcastDims = ToShapeVector(finalInputShape);
            aclIntArray* inputBroadcastShapeArray =
                uniqueExecutor.get()->AllocIntArray(broadcastDims.data(), broadcastDims.size());
            CHECK_RET(inputBroadcastShapeArray != nullptr, ACLNN_ERR_INNER_NULLPTR);
            x1Broadcast = l0op::BroadcastTo(x1Reshape, inputBroadcastShapeArray, uniqueExecutor.get());
            x2Broadcast = l0op::BroadcastTo(x2Reshape, inputBroadcastShapeArray, uniqueExecutor.get());
        }
        result = l0op::SnipDist(x1Broadcast, x2Broadcast, uniqueExecutor.get());
        if (x1->GetDataType() == op::DataType::DT_BF16) {
            result = l0op::Cast(result, op::DataType::DT_BF16, uniqueExecutor.get());
            CHECK_RET(result != nullptr, ACLNN_ERR_INNER_NULLPTR);
        }
    }
    CHECK_RET(result != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto viewCopyResult = l0op::ViewCopy(result, out, uniqueExecutor.get());
    CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
# the kernel: its result's shape set per product by a helper of its file (cdist.cpp:31-53, 82-90)
KERNEL = """
namespace l0op {
OP_TYPE_REGISTER(SnipDist);
const Shape InferShapeForA2A3(const aclTensor* x1)
{
    Shape x1Shape = x1->GetViewShape();
    size_t dimNum = x1Shape.GetDimNum();
    Shape outShape;
    for (size_t i = 0; i < dimNum - 1; i++) {
        outShape.AppendDim(x1Shape.GetDim(i));
    }
    return outShape;
}

static inline const aclTensor* SnipAiCore(const aclTensor* x1, const aclTensor* x2, aclTensor* output,
                                          aclOpExecutor* executor)
{
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(SnipDist, OP_INPUT(x1, x2), OP_OUTPUT(output));
    OP_CHECK(ret == ACLNN_SUCCESS, OP_LOGE(ACLNN_ERR_INNER_NULLPTR, "failed."), return nullptr);
    return output;
}

const aclTensor* SnipDist(const aclTensor *x1, const aclTensor *x2, aclOpExecutor *executor) {
    SocVersion socVersion = GetCurrentPlatformInfo().GetSocVersion();
    Shape outShape;
    if (socVersion == SocVersion::ASCEND910B || socVersion == SocVersion::ASCEND910_93) {
        outShape = InferShapeForA2A3(x1);
    }
    auto out = executor->AllocTensor(outShape, x1->GetDataType(), op::Format::FORMAT_ND);
    CHECK_RET(out != nullptr, nullptr);
    %(infer)s
    return SnipAiCore(x1, x2, out, executor);
}
}
"""
NAMES = ["x1", "x2", "out", "workspaceSize", "executor"]
ZERO_RETURN = """if(CheckBatchDimNum(x1) || CheckBatchDimNum(x2)) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }"""
READ = {"zero_return": ZERO_RETURN, "appended": "dim"}


def _walk(root=None, product: str = "atlas-a2", infer: str = "", **changes) -> list:
    src = read_source("snippet.cpp", CDIST % {**READ, **changes})
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    kernels = None
    if root is not None:
        (root / "math" / "snip_dist" / "op_api").mkdir(parents=True, exist_ok=True)
        (root / "math" / "snip_dist" / "op_api" / "snip_dist.cpp").write_text(KERNEL % {"infer": infer})
        kernels = KernelIndex(root)
    return walk_api(Index(src, [], [], kernels), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, product)


def _copy_rule(events) -> dict | None:
    found = [e for e in events if e.kind == "check" and e.template == "shape_is"]
    assert len(found) <= 1
    return json.loads(json.dumps(found[0].args_dict())) | {"status": found[0].status} if found else None


def _call(x1, x2, out):
    return CallView(tensors={"x1": TensorView("FLOAT", x1, "ND"), "x2": TensorView("FLOAT", x2, "ND"),
                             "out": TensorView("FLOAT", out, "ND")}, attrs={}, null_outputs=frozenset())


def test_the_filled_result_is_the_batch_then_both_row_counts_and_out_must_have_it():
    rule = _copy_rule(_walk())
    assert rule is not None and rule["status"] == 561103 and rule["param"] == "out" and rule["scalar_same"]
    args = {k: v for k, v in rule.items() if k != "status"}
    copy = predicate("shape_is", args)
    # x1 (2, 0), x2 (2, 0): an empty last dim, a Fill of (2, 2) (aclnn_cdist.cpp:230-245)
    assert copy(_call((2, 0), (2, 0), (2, 0))) is True
    assert copy(_call((2, 0), (2, 0), (2, 2))) is False
    # batch dims (3, 1) and (4,) broadcast to (3, 4); rows 2 and 5: (3, 4, 2, 5)
    assert copy(_call((3, 1, 2, 0), (4, 5, 0), (3, 4, 2, 5))) is False
    assert copy(_call((3, 1, 2, 0), (4, 5, 0), (3, 4, 2, 0))) is True
    assert copy(_call((3, 1, 2, 0), (4, 5, 0), (4, 3, 2, 5))) is True
    # one row each: a result of one element, and an out of one element in another shape is accepted
    assert copy(_call((1, 0), (1, 0), (1,))) is False
    assert copy(_call((1, 0), (1, 0), ())) is False
    assert copy(_call((1, 0), (1, 0), (1, 2))) is True
    # a last dim that is not empty: the kernel's result, whose shape is not read: no rule
    assert copy(_call((2, 3), (2, 3), (7,))) is False
    # a zero batch or row dim returned success before: no rule
    assert copy(_call((0, 2, 0), (0, 2, 0), (7,))) is False


@pytest.mark.parametrize("x1,x2,out,violated", [
    ((1, 2, 3), (4, 1, 3), (4, 2, 3), True),         # batch 4, P 2, R 1: (4, 2, 1)
    ((1, 2, 3), (4, 1, 3), (4, 2, 1), False),
    ((2, 1, 1, 4), (1, 3, 1, 4), (2, 3, 1, 4), True),   # (2, 3, 1, 1)
    ((2, 1, 1, 4), (1, 3, 1, 4), (2, 3, 1, 1), False),
    ((3, 4), (2, 5, 7, 4), (2, 5, 3, 7), False),     # the shorter's batch padded: (2, 5) then 3 by 7
    ((3, 4), (2, 5, 7, 4), (2, 5, 7, 3), True),
    ((1, 4), (1, 4), (1,), False),                   # one element each
    ((2, 0), (2, 0), (2, 0), True),                  # the Fill's side as before
])
def test_the_kernels_result_on_this_product_is_the_batch_then_p_by_r(tmp_path, x1, x2, out, violated):
    rule = _copy_rule(_walk(tmp_path))
    assert rule is not None and rule["status"] == 561103
    assert predicate("shape_is", {k: v for k, v in rule.items() if k != "status"})(_call(x1, x2, out)) is violated


@pytest.mark.parametrize("product,infer", [
    ("ascend950", ""),   # no product branch sets the shape: the kernel's result is not read
    ("atlas-a2", "INFER_SHAPE(SnipDist, OP_INPUT(x1, x2), OP_OUTPUT(out));"),   # the infer sets it anew
    ("atlas-a2", "out->SetViewShape(x1->GetViewShape());"),                       # so does this
])
def test_a_kernel_shape_not_set_by_its_helper_is_not_read(tmp_path, product, infer):
    rule = _copy_rule(_walk(tmp_path, product, infer))
    copy = predicate("shape_is", {k: v for k, v in rule.items() if k != "status"})
    assert copy(_call((1, 2, 3), (4, 1, 3), (4, 2, 3))) is False   # no rule on the kernel's side
    assert copy(_call((2, 0), (2, 0), (2, 0))) is True             # the Fill's side still read


def test_without_the_zero_batch_return_the_batch_shapes_are_not_held_and_no_rule_is_made():
    # max(1, 0) is 1 where a broadcast gives 0: the loop's shapes are held only after that return
    events = _walk(zero_return="")
    assert [e.template for e in events if e.kind == "check"] == ["rank_range", "rank_range", "broadcastable"]


def test_a_dim_appended_after_arithmetic_leaves_the_result_unknown_and_no_rule():
    events = _walk(appended="dim + 1")
    assert _copy_rule(events) is None and not any(e.kind == "unread" for e in events)


@pytest.mark.parametrize("shape,expected", [
    (["concat", ["of", "x1"], ["dims", [7]]], (2, 3, 7)),
    (["concat", ["dims", []], ["slice", ["of", "x2"], 0, 1]], (4,)),
    (["concat", ["of", "x1"], ["slice", ["of", "x2"], 1, 5]], None),   # a slice outside x2
])
def test_concat_by_hand(shape, expected):
    call = _call((2, 3), (4, 5), ())
    assert shape_value(call, shape) == expected
    assert slice_outside(call, shape) is (expected is None)


@pytest.mark.parametrize("out,scalar_same,violated", [
    ((1, 1), True, False), ((), True, False), ((1, 1), False, True), ((2,), True, True), ((), False, False),
])
def test_shape_is_with_the_one_element_exemption_by_hand(out, scalar_same, violated):
    # the expected shape (): a rank-0 x1's
    rule = predicate("shape_is", {"param": "out", "shape_expr": ["of", "x1"], "scalar_same": scalar_same})
    assert rule(_call((), (2,), out)) is violated
