"""The extractor on the constructs of the reductions' host code: a reduced dim that must not be
empty, the shape an infer-shape helper builds, a dup mask over a wrapped local, an empty-tensor
branch that fills the output, and the parameter checks a called function makes after the empty
return. Each construct read into its rule, and a variant left unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

POS_DIM = """
static inline uint64_t GetPosDim(int64_t dim, int64_t dimNum)
{
    if (dimNum <= 0) {
        dimNum = 1;
    }
    return dim >= 0 ? dim : dim + dimNum;
}
"""

# the API of every dim-check snippet: CheckDim(self, dim) fails with 161002
CHECK_DIM_API = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""

NONZERO = POS_DIM + """
static bool CheckDim(const aclTensor* self, const aclIntArray* dim)
{
    auto selfViewShape = self->GetViewShape();
    auto selfDimNum = static_cast<int64_t>(selfViewShape.GetDimNum());
    bool isScalar = false;
    if (selfDimNum <= 0) {
        selfDimNum = 1;
        isScalar = true;
    }
    bitset<64> dimMask = bitset<64>();
    for (size_t i = 0; i < dim->Size(); i++) {
        if (dim->operator[](i) >= selfDimNum || dim->operator[](i) < (-selfDimNum)) {
            return false;
        }
        uint64_t index = GetPosDim(dim->operator[](i), selfDimNum);
        if (%s) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected reduction dim to have non-zero size.");
            return false;
        }
        if (dimMask[index]) {
            return false;
        }
        dimMask.set(index);
    }
    return true;
}
""" + CHECK_DIM_API
NAMES = ["self", "dim", "keepDim", "out", "workspaceSize", "executor"]


def _walk(body: str, names: list[str] = NAMES) -> list:
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, "atlas-a2")


def _kinds(events) -> list[tuple]:
    return [(e.kind, e.template) for e in events]


def test_a_reduced_dim_of_size_zero_outside_rank_zero_is_a_nonzero_rule():
    events = _walk(NONZERO % "!isScalar && selfViewShape.GetDim(index) == 0")
    assert _kinds(events) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"),
                              ("check", "attr_dims_nonzero"), ("check", "attr_dims_unique")]
    assert dict(events[2].args) == {"attr": "dim", "tensor": "self"}
    assert all(e.status == 161002 for e in events)


@pytest.mark.parametrize("cond", [
    "selfViewShape.GetDim(index) == 0",                 # no rank-0 guard: GetDim of a scalar
    "!isScalar && selfViewShape.GetDim(index) == 1",    # another size
    "isScalar && selfViewShape.GetDim(index) == 0",     # the guard the other way round
])
def test_a_size_test_on_the_wrapped_dim_read_otherwise_is_unread(cond):
    events = _walk(NONZERO % cond)
    assert _kinds(events)[-1] == ("unread", "")
    assert "attr_dims_nonzero" not in [e.template for e in events]


HELPER = POS_DIM + """
static void SnipInferShape(const op::Shape& selfShape, const aclIntArray* dim, bool keepDim, op::Shape& reduceShape)
{
    bitset<64> dimMask = bitset<64>();
    if (dim->Size() == 0) {
        dimMask.flip();
    }
    for (size_t i = 0; i < dim->Size(); i++) {
        int64_t index = GetPosDim(dim->operator[](i), selfShape.GetDimNum());
        dimMask.set(index);
    }
    for (size_t i = 0; i < selfShape.GetDimNum(); i++) {
        if (!dimMask[i]) {
            reduceShape.AppendDim(selfShape.GetDim(i));
        } else if (keepDim) {
            reduceShape.AppendDim(%s);
        }
    }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    op::Shape reduceShape;
    SnipInferShape(self->GetViewShape(), dim, keepDim, reduceShape);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, reduceShape, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_an_infer_shape_helper_of_a_reduction_is_the_reduced_shape_rule():
    events = _walk(HELPER % "1")
    assert _kinds(events) == [("check", "reduced_shape")]
    assert dict(events[0].args) == {"param": "out", "of": "self", "dims": "dim", "keepdim": "keepDim"}


def test_an_infer_shape_helper_building_another_shape_is_unread():
    assert _kinds(_walk(HELPER % "2")) == [("unread", "")]


ARRAY_FORM = """
static op::Shape ReduceShapeOf(const aclTensor* self, const aclIntArray* dim, bool keepdim)
{
    auto selfShape = self->GetViewShape();
    int64_t selfDimNum = selfShape.GetDimNum();
    bool reduceArray[8] = {false, false, false, false, false, false, false, false};
    int64_t axis;
    op::Shape reduceShape;
    reduceShape.SetDimNum(0);
    if (dim != nullptr && dim->Size() != 0) {
        for (int64_t i = 0; i < static_cast<int64_t>(dim->Size()); i++) {
            axis = dim->operator[](i);
            if (axis < 0) {
                axis = axis + selfDimNum;
            }
            reduceArray[axis] = true;
        }
        for (int64_t i = 0; i < selfDimNum; i++) {
            if (!reduceArray[i]) {
                reduceShape.AppendDim(selfShape.GetDim(i));
            } else if (keepdim) {
                reduceShape.AppendDim(1);
            }
        }
    } else if (keepdim) {
        for (int64_t i = 0; i < selfDimNum; i++) {
            reduceShape.AppendDim(1);
        }
    }
    return reduceShape;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    op::Shape reduceShape = ReduceShapeOf(self, dim, keepDim);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, reduceShape, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_helper_returning_the_reduced_shape_is_the_reduced_shape_rule_and_a_changed_one_unread():
    events = _walk(ARRAY_FORM)
    assert _kinds(events) == [("check", "reduced_shape")]
    assert dict(events[0].args)["keepdim"] == "keepDim"
    changed = ARRAY_FORM.replace("reduceShape.SetDimNum(0);\n    if", "reduceShape.SetDimNum(0);\n    reduceShape.AppendDim(1);\n    if")
    assert _kinds(_walk(changed)) == [("unread", "")]


WRAPPED_LOCAL = """
static bool CheckDim(const aclTensor* self, const aclIntArray* dim)
{
    auto selfDimNum = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (selfDimNum <= 0) {
        selfDimNum = 1;
    }
    uint64_t dimMask[64] = {0};
    for (size_t i = 0; i < dim->Size(); i++) {
        int64_t realDim = dim->operator[](i);
        if (realDim < 0) {
            realDim = %s;
        }
        if (dimMask[realDim] == 1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "repeated");
            return false;
        } else {
            dimMask[realDim] = 1;
        }
    }
    return true;
}
""" + CHECK_DIM_API


def test_a_mask_over_a_local_wrapped_by_the_rank_is_the_unique_rule():
    events = _walk(WRAPPED_LOCAL % "selfDimNum + realDim")
    assert _kinds(events) == [("check", "attr_dims_unique")]
    assert dict(events[0].args) == {"attr": "dim", "tensor": "self", "rank0": 1}


def test_a_local_wrapped_by_a_constant_is_unread():
    assert _kinds(_walk(WRAPPED_LOCAL % "4 + realDim")) == [("unread", "")]


FILL = """
static const std::initializer_list<op::DataType> EMPTY_LIST = {op::DataType::DT_FLOAT};

static aclnnStatus FillScalar(aclTensor* out, float val, aclOpExecutor* executor)
{
    OP_CHECK_DTYPE_NOT_SUPPORT(out, EMPTY_LIST, return ACLNN_ERR_PARAM_INVALID);
    if (out->IsEmpty()) {
        return ACLNN_SUCCESS;
    }
    auto fillOut = l0op::Fill(out, executor);
    CHECK_RET(fillOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}

static aclnnStatus Compute(const aclTensor* self, aclTensor* out, aclOpExecutor* executor)
{
    auto result = l0op::Kernel(self, executor);
    CHECK_RET(CheckShapeAndScalarSame(result, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        auto ret = FillScalar(out, 0.0f, uniqueExecutor.get());
        if (ret == ACLNN_SUCCESS) {
            *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        }
        return ret;
    }
    %s
    return ACLNN_SUCCESS;
}
"""


def test_an_empty_branch_filling_the_output_checks_it_for_the_empty_calls_only():
    events = _walk(FILL % "")
    assert _kinds(events) == [("check", "null"), ("check", "dtype_in"), ("empty", "empty")]
    args = dict(events[1].args)
    assert args["param"] == "out" and args["when"] == ("empty", ("self",), True)


def test_a_parameter_check_in_a_function_called_after_the_empty_return_is_unread():
    events = _walk(FILL % "auto ret = Compute(self, out, uniqueExecutor.get());\n    CHECK_RET(ret == ACLNN_SUCCESS, ret);")
    assert _kinds(events)[-1] == ("unread", "")
    # the reading follows the call to Compute, the first parameter check after the return, and stops at
    # the check inside it it does not read
    assert "CheckShapeAndScalarSame(result, out)" in events[-1].text


def test_a_called_function_that_only_logs_a_parameter_status_checks_nothing():
    logs_only = FILL.replace("CHECK_RET(CheckShapeAndScalarSame(result, out), ACLNN_ERR_PARAM_INVALID);",
                             'OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only a log");')
    events = _walk(logs_only % "auto ret = Compute(self, out, uniqueExecutor.get());")
    assert _kinds(events) == [("check", "null"), ("check", "dtype_in"), ("empty", "empty")]


TAIL = """
static aclnnStatus SnipCommon(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    OP_CHECK_DTYPE_NOT_MATCH(out, self->GetDataType(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    return SnipCommon(self, out, workspaceSize);
}
"""


def test_the_checks_after_an_empty_return_in_a_function_the_api_returns_into_are_read_for_the_rest():
    events = _walk(TAIL, ["self", "out", "workspaceSize", "executor"])
    assert _kinds(events) == [("check", "null"), ("empty", "empty"), ("check", "dtypes_equal")]
    assert dict(events[2].args)["when"] == ("not", ("empty", ("self",), True))


NO_DIMS = POS_DIM + """
static void SnipInferShape(const op::Shape& selfShape, const aclIntArray* dim, bool keepDim, op::Shape& reduceShape)
{
    bitset<64> dimMask = bitset<64>();
    for (size_t i = 0; i < dim->Size(); i++) {
        int64_t index = GetPosDim(dim->operator[](i), selfShape.GetDimNum());
        dimMask.set(index);
    }
    for (size_t i = 0; i < selfShape.GetDimNum(); i++) {
        if (!dimMask[i]) {
            reduceShape.AppendDim(selfShape.GetDim(i));
        } else if (keepDim) {
            reduceShape.AppendDim(1);
        }
    }
}

static bool CheckShape(const aclTensor* self, const aclIntArray* dim, bool keepDim, const aclTensor* out)
{
    if (%s) {
        return true;
    }
    op::Shape reduceShape;
    SnipInferShape(self->GetViewShape(), dim, keepDim, reduceShape);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, reduceShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepDim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, dim, keepDim, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("cond", ["dim == nullptr || dim->Size() == 0", "dim->Size() == 0"])
def test_a_return_when_no_dims_are_named_guards_the_checks_after_it(cond):
    events = _walk(NO_DIMS % cond)
    assert _kinds(events) == [("check", "reduced_shape")]
    args = dict(events[0].args)
    # a helper with no branch on an empty list reduces nothing for no dims: the no-op flag set
    assert args["noop"] is True and args["when"] == ("not", ("no-dims", "dim"))


def test_a_return_on_another_length_of_the_dims_guards_the_checks_after_it_by_that_length():
    events = _walk(NO_DIMS % "dim->Size() == 1")
    assert _kinds(events) == [("check", "reduced_shape")]
    assert dict(events[0].args)["when"] == ("not", ("attr-len", "dim", "==", 1))


def test_a_return_on_the_dims_length_equal_to_the_rank_guards_the_checks_after_it_by_that_test():
    events = _walk(NO_DIMS % "dim->Size() == self->GetViewShape().GetDimNum()")
    assert _kinds(events) == [("check", "reduced_shape")]
    assert dict(events[0].args)["when"] == ("not", ("int", ("==", ("len", "dim"), ("rank", "self"))))


def test_a_return_on_a_size_compared_with_something_else_is_unread():
    assert _kinds(_walk(NO_DIMS % "dim->Size() == self->GetStorageFormat()")) == [("unread", "")]


DIMS = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int64_t n,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto selfShape = self->GetViewShape();
    auto selfDimNum = selfShape.GetDimNum();
    auto lastDim = selfShape.GetDim(selfDimNum - 1);
    if (%s) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
DIMS_NAMES = ["self", "other", "n", "out", "workspaceSize", "executor"]


@pytest.mark.parametrize("cond, a, op, b", [
    ("selfShape.GetDim(0) != other->GetViewShape().GetDim(0)", ("self", 0, 0), "!=", ("other", 0, 0)),
    ("lastDim != 3", ("self", 1, -1), "!=", 3),
    ("2 > lastDim", ("self", 1, -1), "<", 2),
    ("out->GetViewShape().GetDim(1) != n", ("out", 0, 1), "!=", "n"),
    ("selfShape.GetShapeSize() != 3", ("numel", "self"), "!=", 3),   # the element count of a shape local
])
def test_a_comparison_of_dim_sizes_is_a_dims_compare_rule(cond, a, op, b):
    events = _walk(DIMS % cond, DIMS_NAMES)
    assert _kinds(events) == [("check", "dims_compare")]
    assert dict(events[0].args) == {"a": a, "op": op, "b": b}


@pytest.mark.parametrize("cond", ["selfShape.GetDim(GetCoreNum()) != 3",   # an index the reader cannot hold
                                  "selfShape.GetDim(0) * 0.5 != 3"])    # a float in the arithmetic
def test_a_dim_comparison_read_otherwise_is_unread(cond):
    assert _kinds(_walk(DIMS % cond, DIMS_NAMES)) == [("unread", "")]


def test_a_dim_at_an_argument_is_an_integer_test_not_judged_outside_the_shape():
    from aclnn_conformance.spec.templates import undecided_predicate
    [event] = _walk(DIMS % "selfShape.GetDim(n) != 3", DIMS_NAMES)
    assert event.template == "int_test"
    refused, open_on = predicate("int_test", event.args_dict()), undecided_predicate("int_test", event.args_dict())
    call = lambda n: CallView({"self": TensorView("FLOAT", (3, 2), "ND")}, {"n": n}, frozenset())  # noqa: E731
    assert not refused(call(0)) and refused(call(1))
    # GetDim of -1 or 2 reads outside a rank-2 shape: the call is not judged, never taken as passing
    assert open_on(call(-1)) and open_on(call(2)) and not open_on(call(0)) and not open_on(call(1))


def test_a_product_of_a_dim_and_an_argument_is_an_integer_test():
    [event] = _walk(DIMS % "selfShape.GetDim(0) * n != 3", DIMS_NAMES)
    assert event.template == "int_test"
    refused = predicate("int_test", event.args_dict())
    call = lambda d0, n: CallView({"self": TensorView("FLOAT", (d0, 2), "ND")}, {"n": n}, frozenset())  # noqa: E731
    assert not refused(call(3, 1)) and refused(call(3, 2)) and not refused(call(1, 3))


def _call(self_shape, out_shape, **attrs):
    import numpy as np
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.tensor import TensorArg
    tensors = {"self": TensorArg.from_array(np.zeros(self_shape, np.float32), AclDataType.FLOAT),
               "out": TensorArg.from_array(np.zeros(out_shape, np.float32), AclDataType.FLOAT)}
    return Case(op="x", case_id="t", tensors=tensors, attrs=attrs)


def test_dims_compare_by_hand():
    from aclnn_conformance.spec.templates import predicate, view_of_case
    last = predicate("dims_compare", {"a": ["self", 1, -1], "op": "!=", "b": ["out", 0, 0]})
    assert last(view_of_case(_call((2, 3), (4,))))
    assert not last(view_of_case(_call((2, 3), (3,))))
    by_attr = predicate("dims_compare", {"a": ["out", 0, 0], "op": "!=", "b": "n"})
    assert by_attr(view_of_case(_call((2, 3), (4,), n=3))) and not by_attr(view_of_case(_call((2, 3), (3,), n=3)))
    outside = predicate("dims_compare", {"a": ["self", 0, 5], "op": "!=", "b": 1})
    assert not outside(view_of_case(_call((2, 3), (3,))))    # a dim beyond the rank decides nothing
    # ... and leaves the call not judged, never taken as passing; an in-range one is decided
    from aclnn_conformance.spec.templates import undecided_predicate
    assert undecided_predicate("dims_compare", {"a": ["self", 0, 5], "op": "!=", "b": 1})(
        view_of_case(_call((2, 3), (3,))))
    open_last = undecided_predicate("dims_compare", {"a": ["self", 1, -1], "op": "!=", "b": ["out", 0, 0]})
    assert not open_last(view_of_case(_call((2, 3), (4,)))) and open_last(view_of_case(_call((2, 3), ())))
    assert undecided_predicate("dims_compare", {"a": ["out", 0, 0], "op": "!=", "b": "n"})(
        view_of_case(_call((2, 3), (4,), n=None)))


COMPUTED_EMPTY = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (self->IsEmpty() && other->IsEmpty()) {
        auto fill = l0op::Fill(out, uniqueExecutor.get());
        CHECK_RET(fill != nullptr, ACLNN_ERR_INNER_NULLPTR);
        %s
        *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        return ACL_SUCCESS;
    }
    OP_CHECK_DTYPE_NOT_MATCH(out, self->GetDataType(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_an_all_empty_branch_computing_a_fill_is_the_empty_return():
    events = _walk(COMPUTED_EMPTY % "", ["self", "other", "out", "workspaceSize", "executor"])
    assert _kinds(events) == [("empty", "empty"), ("check", "dtypes_equal")]
    assert dict(events[0].args) == {"any": False, "params": ("other", "self")}


def test_an_empty_branch_checking_a_parameter_is_unread():
    body = COMPUTED_EMPTY % "OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);"
    assert _kinds(_walk(body, ["self", "other", "out", "workspaceSize", "executor"]))[-1] == ("unread", "")


NPU_OUTPUT_SIZE = """
int64_t make_wrap_dim(int64_t dim, int64_t dim_post_expr)
{
    if (dim_post_expr <= 0) {
        dim_post_expr = 1;
    }
    if (dim < 0) {
        dim += dim_post_expr;
    }
    return dim;
}

static bitset<DIM_BITS_LEN> make_dim_mask(const op::FVector<int64_t, op::MAX_DIM_NUM>& dims, int64_t ndim)
{
    bitset<DIM_BITS_LEN> mask = bitset<DIM_BITS_LEN>();
    if (dims.empty()) {
        mask.flip();
    } else {
        for (int64_t dim : dims) {
            mask.set(make_wrap_dim(dim, ndim));
        }
    }
    return mask;
}

static op::FVector<int64_t, op::MAX_DIM_NUM> reduce_ops_npu_output_size(
    const aclTensor* self, const op::FVector<int64_t, op::MAX_DIM_NUM>& dim, bool keepdim)
{
    auto self_shape = self->GetViewShape();
    int64_t ndim = self->GetViewShape().GetDimNum();
    bitset<DIM_BITS_LEN> mask = make_dim_mask(dim, ndim);
    op::FVector<int64_t, op::MAX_DIM_NUM> shape;
    for (size_t i = 0; i < self_shape.GetDimNum(); i++) {
        shape.push_back(self_shape.GetDim(i));
    }
    for (int idx = shape.size() - 1; idx >= 0; idx--) {
        if (mask[idx]) {
            if (keepdim) {
                shape[idx] = %(kept)s;
            } else {
                shape.erase(shape.begin() + idx);
            }
        }
    }
    return shape;
}

static op::Shape output_shape(const aclTensor* self, const op::FVector<int64_t, op::MAX_DIM_NUM>& dim, bool keepdim)
{
    op::Shape outShape;
    auto dims = reduce_ops_npu_output_size(self, dim, keepdim);
    outShape.SetDimNum(dims.size());
    for (size_t i = 0; i < dims.size(); i++) {
        outShape.SetDim(i, dims.at(i));
    }
    return outShape;
}

static bool CheckShape(const aclTensor* self, const aclTensor* out, const aclIntArray* dim, bool keepdim)
{
    op::FVector<int64_t, op::MAX_DIM_NUM> dims;
    for (size_t idx = 0; idx < dim->Size(); idx++) {
        dims.emplace_back((*dim)[idx]);
    }
    %(extra)s
    auto outShape = output_shape(self, dims, keepdim);
    if (outShape == out->GetViewShape()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expect out shape.");
    return false;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool keepdim,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out, dim, keepdim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_the_npu_output_size_helper_and_a_true_unless_false_check_are_the_reduced_shape_rule():
    events = _walk(NPU_OUTPUT_SIZE % {"kept": "1", "extra": ""}, ["self", "dim", "keepdim", "out",
                                                                  "workspaceSize", "executor"])
    assert _kinds(events) == [("check", "reduced_shape")]
    # empty dims mark every dim: no noop flag
    assert dict(events[0].args) == {"param": "out", "of": "self", "dims": "dim", "keepdim": "keepdim"}
    assert events[0].status == 161002


@pytest.mark.parametrize("changes", [
    {"kept": "2", "extra": ""},                       # a reduced dim kept as another size
    {"kept": "1", "extra": "dims.push_back(0);"},     # the copy of the dims changed after it
])
def test_the_npu_output_size_helper_read_otherwise_is_unread(changes):
    events = _walk(NPU_OUTPUT_SIZE % changes, ["self", "dim", "keepdim", "out", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"


def test_a_parameter_list_splits_at_commas_outside_template_brackets():
    src = read_source("snippet.cpp", "static bool F(const op::FVector<int64_t, op::MAX_DIM_NUM>& dims, "
                                     "std::map<int, int> m, bool k)\n{\n    return k;\n}\n")
    fn = src.functions["F"]
    assert fn.params == ("dims", "m", "k")
    assert fn.param_types[0] == "const op::FVector<int64_t, op::MAX_DIM_NUM>&"


RAW_DIM = """
static bool CheckDimValid(const aclTensor *self, const int64_t dim, const int64_t other)
{
    auto selfViewShape = self->GetViewShape();
    if (selfViewShape.GetDim((size_t)%s) == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected reduction dim %%ld to have non-zero size.", dim);
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    int64_t other = dim + 1;
    CHECK_RET(CheckDimValid(self, dim, other), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RAW_NAMES = ["self", "dim", "keepDim", "out", "workspaceSize", "executor"]


def test_a_dim_size_read_at_the_integer_argument_as_given_is_unread_where_it_reads_outside():
    """aclnnAminmaxDim (ops-math math/reduce_min/op_api/aclnn_aminmax_dim.cpp:95-98): GetDim((size_t)dim)
    of a negative dim, or of a rank-0 tensor, reads outside the shape: those calls are not judged; the
    others get the non-empty reduced dim rule."""
    from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate
    events = _walk(RAW_DIM % "dim", RAW_NAMES)
    assert _kinds(events) == [("unread", ""), ("check", "attr_dims_nonzero")]
    when = dict(events[0].args)["when"]
    call = lambda shape, dim: CallView({"self": TensorView("FLOAT", shape, "ND")}, {"dim": dim},  # noqa: E731
                                       frozenset())
    assert guard_holds(call((2, 3), -1), when) and guard_holds(call((), 0), when)
    assert not guard_holds(call((2, 3), 1), when)
    rule = predicate(events[1].template, events[1].args_dict())
    assert rule(call((2, 0), 1)) and not rule(call((2, 3), 1))


def test_a_dim_size_read_at_a_local_is_unread():
    events = _walk(RAW_DIM % "other", RAW_NAMES)
    assert events[-1].kind == "unread" and "when" not in dict(events[-1].args)


LOGGED_DUP = POS_DIM + """
static bool CheckDim(const aclTensor* self, const aclIntArray* dim)
{
    auto selfDimNum = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (selfDimNum <= 0) {
        selfDimNum = 1;
    }
    std::bitset<64> axesMask = std::bitset<64>();
    for (size_t i = 0; i < dim->Size(); i++) {
        int64_t curDim = (*dim)[i];
        if (curDim >= selfDimNum || curDim < (-selfDimNum)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Provided axes %%ld not in the range.", curDim);
            return false;
        }
        uint64_t index = GetPosDim(curDim, selfDimNum);
        if (axesMask[index]) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Axes %%lu appears multiple times in the list of axes", index);
            %s
        }
        axesMask.set(index);
    }
    return true;
}
""" + CHECK_DIM_API


def test_a_duplicate_dim_refused_is_the_unique_rule_and_one_only_logged_checks_nothing():
    refused = _walk(LOGGED_DUP % "return false;")
    assert _kinds(refused) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range"),
                               ("check", "attr_dims_unique")]
    logged = _walk(LOGGED_DUP % "")   # the test logs and the loop goes on: duplicates pass
    assert _kinds(logged) == [("check", "attr_in_rank_range"), ("check", "attr_in_rank_range")]
    assert {e.status for e in refused + logged} == {161002}


def test_a_duplicate_test_doing_more_than_logging_is_unread():
    events = _walk(LOGGED_DUP % "axesMask.reset();")
    assert _kinds(events)[-1] == ("unread", "")
