"""Shape checks beyond single statements: an expand's check of its size array read whole
(extract/shape_helpers.py) into its two rules, a variant left to the statement walk (which leaves it
unread); an output compared with a shape local built of constants (``shape_is``); the templates by
hand."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

EXPAND = """
static bool CheckShape(const aclTensor* self, const aclIntArray* size, const aclTensor* out)
{
    op::Shape sizeShape;
    for (int64_t i = 0; i < static_cast<int64_t>(size->Size()); i++) {
        sizeShape.AppendDim((*size)[i]);
    }
    const auto& outShape = out->GetViewShape();
    const auto& selfShape = self->GetViewShape();
    if (selfShape == sizeShape && outShape == sizeShape) {
        return true;
    }
    auto sizeDimNum = sizeShape.GetDimNum();
    auto selfDimNum = selfShape.GetDimNum();
    if (sizeDimNum < selfDimNum) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "size %%zu shorter than self %%zu.", sizeDimNum, selfDimNum);
        return false;
    }
    auto offset = sizeDimNum - selfDimNum;
    op::Shape expectShape;
    expectShape.SetDimNum(sizeDimNum);
    for (size_t i = 0; i < selfDimNum; i++) {
        if (sizeShape.GetDim(offset + i) == -1) {
            expectShape.SetDim(offset + i, selfShape.GetDim(i));
        }
        if ((selfShape.GetDim(i) != sizeShape.GetDim(offset + i)) && (selfShape.GetDim(i) != %(one)s)) {
            OP_LOGE(ACL_ERROR_INVALID_PARAM, "the self shape does not match size.");
            return false;
        }
        expectShape.SetDim(offset + i, sizeShape.GetDim(offset + i));
    }
    for (size_t i = 0; i < offset; i++) {
        expectShape.SetDim(i, sizeShape.GetDim(i));
    }
    if (outShape != expectShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "expect out shape to be same as expectShape.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* size, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, size, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "size", "out", "workspaceSize", "executor"]


def _walk(one: str = "1") -> list:
    src = read_source("snippet.cpp", EXPAND % {"one": one})
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


def test_an_expand_shape_check_is_the_size_broadcast_and_the_output_shape():
    events = _walk()
    assert [(e.template, dict(e.args), e.status) for e in events] == [
        ("attr_shape_broadcast", {"param": "self", "attr": "size"}, 161002),
        ("shape_is_attr", {"param": "out", "attr": "size"}, 161002)]


def test_a_variant_of_the_expand_check_is_left_to_the_walk_and_unread():
    events = _walk(one="2")   # a dim of 2 would expand: not the form read
    assert events[-1].kind == "unread"


def _call(self_shape, size, out_shape):
    return CallView(tensors={"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    attrs={"size": size}, null_outputs=frozenset())


@pytest.mark.parametrize("self_shape,size,violated", [
    ((3, 1), [3, 4], False),
    ((3, 1), [2, 3, 4], False),   # a leading dim added
    ((1,), [5, 4], False),
    ((3, 2), [3, 4], True),       # 2 is neither 4 nor 1
    ((3, 1), [4], True),          # shorter than the rank
    ((3, 1), [3, -1], False),     # -1 against a dim of 1 passes here, the output rule then fails
    ((3, 2), [3, -1], True),
    ((), [], False),
])
def test_attr_shape_broadcast_by_hand(self_shape, size, violated):
    assert predicate("attr_shape_broadcast", {"param": "self", "attr": "size"})(_call(self_shape, size, (1,))) \
        is violated


@pytest.mark.parametrize("out_shape,size,violated", [((3, 4), [3, 4], False), ((3, 4), [3, -1], True),
                                                    ((3,), [3, 4], True), ((), [], False)])
def test_shape_is_attr_by_hand(out_shape, size, violated):
    assert predicate("shape_is_attr", {"param": "out", "attr": "size"})(_call((1,), size, out_shape)) is violated


LITERAL = """
static bool CheckOutShape(const aclTensor *out) {
  op::Shape outShape;
  outShape.SetDimNum(1);
  outShape.SetDim(0, %s);
  OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
  return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckOutShape(out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("dim,shape", [("1", [1]), ("ONE", [1]), ("other->GetViewShape().GetDim(0)", None)])
def test_an_output_compared_with_a_shape_of_constants_is_shape_is(dim, shape):
    src = read_source("snippet.cpp", "static const int64_t ONE = 1;\n" + LITERAL % dim)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    events = walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, ["out", "ws", "ex"])}, "atlas-a2")
    if shape is None:   # a dim of another tensor: not a constant shape, left unread
        assert events[-1].kind == "unread"
    else:
        assert [(e.template, dict(e.args), e.status) for e in events] == [
            ("shape_is", {"param": "out", "shape": tuple(shape)}, 161002)]


def test_shape_is_by_hand():
    rule = predicate("shape_is", {"param": "out", "shape": [1]})
    assert not rule(_call((1,), [], (1,))) and rule(_call((1,), [], ())) and rule(_call((1,), [], (1, 1)))


GLOBAL = """
static bool CheckShape(const aclTensor* self, const aclTensor* out)
{
    auto selfShape = self->GetViewShape();
    op::Shape outShape;
    outShape.AppendDim(selfShape.GetDim(0));
    outShape.AppendDim(selfShape.GetDim(1));
    for (size_t i = %s; i < selfShape.GetDimNum(); i++) {
        outShape.AppendDim(1);
    }
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("start,read", [("2", True), ("3", False)])   # the fill starting past the dims built
def test_a_shape_of_two_dims_filled_with_ones_to_the_rank_is_shape_is(start, read):
    src = read_source("snippet.cpp", GLOBAL % start)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    events = walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, ["self", "out", "ws", "ex"])},
                      "atlas-a2")
    if not read:
        assert events[-1].kind == "unread"
        return
    assert [(e.template, dict(e.args)) for e in events] == [
        ("shape_is", {"param": "out", "shape": (("self", 0, 0), ("self", 0, 1)), "fill": (1, "self")})]
    rule = predicate("shape_is", dict(events[0].args))
    assert not rule(_call((2, 3, 4, 5), [], (2, 3, 1, 1))) and rule(_call((2, 3, 4, 5), [], (2, 3, 4, 5)))
    assert rule(_call((2, 3, 4, 5), [], (2, 3, 1)))


HALVES = """
static const int64_t MAX_SUPPORT_DIMS_NUMS = 8;

static bool CheckSliceDimSizes(const aclTensor* self, const aclTensor* out, const aclTensor* outGelu, int64_t sliceDim)
{
    auto selfSliceDimSize = self->GetViewShape().GetDim(sliceDim);
    auto outSliceDimSize = out->GetViewShape().GetDim(sliceDim);
    auto outGeluSliceDimSize = outGelu->GetViewShape().GetDim(sliceDim);
    const int64_t SLICE_NUM = 2;
    OP_CHECK(selfSliceDimSize %% SLICE_NUM == 0,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "selfSliceDimSize[%%ld] must be even.", selfSliceDimSize),
             return false);
    if (outSliceDimSize != selfSliceDimSize / SLICE_NUM) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out slice dim size check failed.");
        return false;
    }
    if (outGeluSliceDimSize != selfSliceDimSize / SLICE_NUM) {
        return false;
    }
    return true;
}

static bool CheckOtherDimsMatch(const aclTensor* self, const aclTensor* out, const aclTensor* outGelu, int64_t dimNum,
                                int64_t sliceDim, int64_t dim)
{
    for (int64_t idx = 0; idx < dimNum; idx++) {
        if (idx == %(skip)s) {
            continue;
        }
        OP_CHECK(
            self->GetViewShape().GetDim(idx) == out->GetViewShape().GetDim(idx) &&
                out->GetViewShape().GetDim(idx) == outGelu->GetViewShape().GetDim(idx),
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "shape: %%s", op::ToString(self->GetViewShape()).GetString()),
            return false);
    }
    return true;
}

static bool CheckShape(const aclTensor* self, int64_t dim, const aclTensor* out, const aclTensor* outGelu)
{
    OP_CHECK_MAX_DIM(self, MAX_SUPPORT_DIMS_NUMS, return false);
    OP_CHECK_MAX_DIM(out, MAX_SUPPORT_DIMS_NUMS, return false);
    OP_CHECK_MAX_DIM(outGelu, MAX_SUPPORT_DIMS_NUMS, return false);
    int64_t dimNum = self->GetViewShape().GetDimNum();
    if (dimNum == 0) {
        dimNum = 1;
    }
    if ((-dimNum > dim) || ((dimNum - 1) < dim)) {
        return false;
    }
    auto sliceDim = dim < 0 ? dimNum + dim : dim;
    if (!CheckSliceDimSizes(self, out, outGelu, sliceDim)) {
        return false;
    }
    int64_t outDimNum = out->GetViewShape().GetDimNum();
    int64_t outGeluDimNum = outGelu->GetViewShape().GetDimNum();
    OP_CHECK(outDimNum == outGeluDimNum && outDimNum == dimNum,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "ranks differ."), return false);
    return CheckOtherDimsMatch(self, out, outGelu, dimNum, sliceDim, dim);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out, aclTensor* outGelu,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, dim, out, outGelu), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
HALVES_NAMES = ["self", "dim", "out", "outGelu", "workspaceSize", "executor"]


def _walk_text(text: str, names: list[str]) -> list:
    src = read_source("snippet.cpp", text)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, "atlas-a2")


def test_an_input_split_in_two_along_a_wrapped_dim_is_read_whole():
    events = _walk_text(HALVES % {"skip": "sliceDim"}, HALVES_NAMES)
    assert [(e.kind, e.template) for e in events] == [
        ("check", "rank_range")] * 3 + [("check", "attr_in_rank_range")] * 2 + [
        ("unread", ""), ("check", "attr_dim_divisible"), ("check", "split_shape"), ("check", "split_shape")]
    assert dict(events[5].args) == {"when": ("rank-zero", "self")}   # a dim read past a rank-0 input's rank
    assert dict(events[7].args) == {"param": "out", "of": "self", "attr": "dim", "by": 2}
    assert {e.status for e in events if e.kind == "check"} == {161002}


def test_a_split_check_skipping_another_dim_is_not_read_whole():
    events = _walk_text(HALVES % {"skip": "dim"}, HALVES_NAMES)
    assert events[-1].kind == "unread"


HALF_OF = """
static const int64_t SPLIT_FACTOR = %(factor)s;

static inline bool CheckGradOutputDims(const aclTensor* gradOutput, const aclTensor* self, size_t splitDim,
                                       size_t selfDimNum)
{
    for (size_t i = 0; i < splitDim; ++i) {
        if (gradOutput->GetViewShape().GetDim(i) != self->GetViewShape().GetDim(i)) {
            return false;
        }
    }
    if (gradOutput->GetViewShape().GetDim(splitDim) * SPLIT_FACTOR != self->GetViewShape().GetDim(splitDim)) {
        return false;
    }
    for (size_t i = splitDim + 1; i < selfDimNum; ++i) {
        if (gradOutput->GetViewShape().GetDim(i) != self->GetViewShape().GetDim(i)) {
            return false;
        }
    }
    return true;
}

static inline bool CheckShape(const aclTensor* gradOutput, const aclTensor* self, int64_t dim)
{
    auto selfDimNum = self->GetViewShape().GetDimNum();
    if (selfDimNum == 0) {
        selfDimNum = 1;
    }
    int64_t selfDimNum2 = static_cast<int64_t>(selfDimNum);
    auto newDim = dim < 0 ? selfDimNum2 + dim : %(positive)s;
    size_t newDim2 = static_cast<size_t>(newDim);
    return CheckGradOutputDims(gradOutput, self, newDim2, selfDimNum);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* self, int64_t dim,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(gradOutput, self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
HALF_NAMES = ["gradOutput", "self", "dim", "workspaceSize", "executor"]


@pytest.mark.parametrize("factor,positive,read", [("2", "dim", True), ("3", "dim", False), ("2", "0", False)])
def test_a_gradient_half_of_its_input_along_a_wrapped_dim_is_read_whole(factor, positive, read):
    events = _walk_text(HALF_OF % {"factor": factor, "positive": positive}, HALF_NAMES)
    if not read:   # another factor, or a dim that is no wrapped argument: unread
        assert events[-1].kind == "unread"
        return
    assert [(e.kind, e.template) for e in events] == [
        ("unread", ""), ("check", "attr_dim_divisible"), ("check", "split_shape")]
    assert dict(events[2].args) == {"param": "gradOutput", "of": "self", "attr": "dim", "by": 2}


CHANNELS = """
static bool CheckShape(const aclTensor* input, aclTensor* mean, aclTensor* invstd)
{
    if (input->GetViewShape()[1] == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Channel size of input should not be zero.");
        return false;
    }
    op::Shape expectShape = {input->GetViewShape()[1]};
    %s
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(mean, expectShape, return false);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(invstd, expectShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* input, aclTensor* mean, aclTensor* invstd,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(input, mean, invstd), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("between,read", [("", True), ("expectShape.AppendDim(Unknown(input));", False)])
def test_a_shape_initialised_with_a_dim_and_only_compared_is_shape_is(between, read):
    events = _walk_text(CHANNELS % between, ["input", "mean", "invstd", "workspaceSize", "executor"])
    assert (events[0].template, dict(events[0].args)) == ("dims_compare", {"a": ("input", 0, 1), "op": "==", "b": 0})
    if read:
        assert [(e.template, dict(e.args)) for e in events[1:]] == [
            ("shape_is", {"param": p, "shape": (("input", 0, 1),)}) for p in ("mean", "invstd")]
    else:   # changed after its initialisation by a dim the reader does not know: unread
        assert events[-1].kind == "unread"


def test_a_dim_appended_after_the_initialisation_is_part_of_the_shape():
    events = _walk_text(CHANNELS % "expectShape.AppendDim(1);", ["input", "mean", "invstd", "workspaceSize",
                                                                   "executor"])
    built = ("concat", ("dims", (("dim", "input", 0, 1),)), ("dims", (1,)))   # (C, 1)
    assert [(e.template, dict(e.args)) for e in events[1:]] == [
        ("shape_is", {"param": p, "shape_expr": built}) for p in ("mean", "invstd")]
