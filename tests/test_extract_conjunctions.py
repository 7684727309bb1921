"""The extractor on conditions of several parts (snippet style, as the vendor writes them): a string
argument none of the words the code accepts, a pointer tested alone before dtype conditions on it,
a bool local of dtype classes passed to a helper, two pointer arguments compared (in place or not),
a count compared with a dim chosen by the rank, a helper choosing its dtype list by the product on
a cast result, and a tensor reshaped in a branch the reader does not follow. Each read into its
rule, and a variant left unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate
from snippet_walk import rules as _rules, walk as _walk


def _tensor(dtype: str = "FLOAT", shape: tuple[int, ...] = (2, 3)) -> TensorView:
    return TensorView(dtype, shape, "ND")


STRING_ARG = """
static bool CheckAttrValue(const char* approximate)
{
    std::string approximate_mode(approximate);
    if (%s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "approximate only supports to set none or tanh, but got %%s.",
                approximate_mode.c_str());
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const char* approximate, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAttrValue(approximate), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
STRING_NAMES = ["self", "approximate", "out", "workspaceSize", "executor"]


def test_a_string_argument_none_of_the_words_is_a_string_in_rule():
    for cond in ('approximate_mode != "tanh" && approximate_mode != "none"',
                 '!(approximate_mode == "tanh" || approximate_mode == "none")'):
        events = _walk(STRING_ARG % cond, STRING_NAMES)
        assert _rules(events) == [("check", "string_in", {"attr": "approximate", "values": ["tanh", "none"]},
                                   161002)], cond
    rule = predicate("string_in", {"attr": "approximate", "values": ["tanh", "none"]})
    call = lambda v: CallView({}, {"approximate": v}, frozenset())  # noqa: E731
    assert rule(call("erf")) and rule(call("")) and not rule(call("tanh")) and not rule(call("none"))
    assert not rule(call(None))     # a null string is the null rule's


def test_a_string_argument_beginning_with_none_of_the_words_is_a_prefix_rule():
    """``strncmp(s, w, strlen(w)) == 0`` is true for any s beginning with w (ops-nn
    norm/instance_norm/op_host/op_api/aclnn_instance_norm.cpp:65-66)."""
    cond = ('!(strncmp(approximate, "tanh", strlen("tanh")) == 0 || '
            'strncmp(approximate, "none", strlen("none")) == 0)')
    events = _walk(STRING_ARG % cond, STRING_NAMES)
    args = {"attr": "approximate", "values": ["tanh", "none"], "prefix": True}
    assert _rules(events) == [("check", "string_in", args, 161002)]
    rule = predicate("string_in", args)
    call = lambda v: CallView({}, {"approximate": v}, frozenset())  # noqa: E731
    assert rule(call("erf")) and rule(call("")) and rule(call("tan"))
    assert not rule(call("tanh")) and not rule(call("none2"))
    mixed = ('!(strncmp(approximate, "tanh", strlen("tanh")) == 0 || approximate_mode == "none")')
    # a prefix and a word: the word's rule for the calls not beginning with the prefix
    (event,) = _walk(STRING_ARG % mixed, STRING_NAMES)
    assert _rules([event]) == [("check", "string_in", {"attr": "approximate", "values": ["none"], "when": [
        "value", ["not", ["prefix", "approximate", ["tanh"]]]]}, 161002)]
    mixed_rule = predicate("string_in", {"attr": "approximate", "values": ["none"]})
    holds = lambda v: guard_holds(call(v), dict(event.args)["when"]) and mixed_rule(call(v))  # noqa: E731
    assert holds("erf") and holds("nonex") and holds("")
    assert not holds("none") and not holds("tanh") and not holds("tanhx")


def test_a_string_compared_with_a_sentence_or_two_strings_stays_unread():
    events = _walk(STRING_ARG % 'approximate_mode != "no such mode"', STRING_NAMES)
    assert events[-1].kind == "unread"       # only a one-word literal is kept by the reader
    events = _walk(STRING_ARG % 'approximate_mode != "tanh" && other_mode != "none"', STRING_NAMES)
    assert events[-1].kind == "unread"


BETA = """
static bool CheckBeta(const aclScalar* beta, DataType highDtype, bool allIntInputs)
{
    if (%s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Boolean beta only supported for Boolean results.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* vec1, const aclScalar* beta,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto highDtype = op::PromoteType(self->GetDataType(), vec1->GetDataType());
    bool allIntInputs = (IsIntegralType(self->GetDataType(), true) && IsIntegralType(vec1->GetDataType(), true));
    CHECK_RET(CheckBeta(beta, highDtype, allIntInputs), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
BETA_NAMES = ["self", "vec1", "beta", "out", "workspaceSize", "executor"]


def _beta_call(self_dtype: str, vec_dtype: str, beta_dtype: str | None) -> CallView:
    beta = None if beta_dtype is None else _tensor(beta_dtype, ())
    return CallView({"self": _tensor(self_dtype), "vec1": _tensor(vec_dtype), "beta": beta}, {}, frozenset())


def test_a_pointer_tested_alone_before_dtype_conditions_on_it():
    events = _walk(BETA % "beta && highDtype != DataType::DT_BOOL && beta->GetDataType() == DataType::DT_BOOL",
                   BETA_NAMES)
    assert len(events) == 1 and events[0].template == "promotable" and events[0].status == 161002
    rule = predicate(events[0].template, events[0].args_dict())
    assert rule(_beta_call("FLOAT", "FLOAT", "BOOL"))
    assert not rule(_beta_call("BOOL", "BOOL", "BOOL"))       # a bool result takes a bool beta
    assert not rule(_beta_call("FLOAT", "FLOAT", "FLOAT"))
    assert not rule(_beta_call("FLOAT", "FLOAT", None))       # no beta: nothing to check


def test_a_bool_local_of_dtype_classes_and_a_pointer_alone():
    events = _walk(BETA % "allIntInputs && beta && !IsIntegralType(beta->GetDataType(), true)", BETA_NAMES)
    # the bool local leads: beta's dtype checked under it (one dtype rule, whichever list it names)
    assert len(events) == 1 and events[0].template in ("dtype_in", "dtype_not_in")
    rule = predicate(events[0].template, events[0].args_dict())
    assert rule(_beta_call("INT32", "INT8", "FLOAT"))          # integer tensors, a float beta
    assert not rule(_beta_call("INT32", "INT8", "INT64"))
    assert not rule(_beta_call("FLOAT", "INT8", "FLOAT"))
    assert not rule(_beta_call("INT32", "INT8", None))


def test_a_pointer_alone_next_to_a_condition_not_on_it_stays_unread():
    events = _walk(BETA % "beta && highDtype != DataType::DT_BOOL && self->GetDataType() == DataType::DT_BOOL",
                   BETA_NAMES)
    assert events[-1].kind == "unread"


IN_PLACE = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* vec1, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (self == out) {
        OP_CHECK_WRONG_DIMENSION(self, 2, return ACLNN_ERR_PARAM_INVALID);
    }
    return ACLNN_SUCCESS;
}
"""


def test_two_pointer_arguments_compared_are_the_same_only_in_place():
    assert _walk(IN_PLACE, ["self", "vec1", "out", "workspaceSize", "executor"]) == []
    events = _walk(IN_PLACE, ["selfRef", "vec1", "selfRef", "workspaceSize", "executor"])
    assert _rules(events) == [("check", "rank_range", {"param": "selfRef", "min": 2, "max": 2}, 161002)]


CHANNELS = """
static bool CheckShape(const aclTensor* self, const aclTensor* weight)
{
    auto input_channels = self->GetViewShape().GetDimNum() <= 1 ? 1 : self->GetViewShape().GetDim(1);
    int64_t weightSize = weight->GetViewShape().GetShapeSize();
    if (%s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "expected weight tensor size equal input channels");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* weight, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, weight), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
CHANNEL_NAMES = ["self", "weight", "out", "workspaceSize", "executor"]


def test_a_count_against_a_dim_the_rank_chooses():
    events = _walk(CHANNELS % "weightSize != input_channels && weightSize != 1", CHANNEL_NAMES)
    assert [e.template for e in events] == ["dims_compare", "dims_compare"]
    rules = [predicate(e.template, e.args_dict()) for e in events]

    def violated(self_shape, weight_shape) -> bool:
        call = CallView({"self": _tensor("FLOAT", self_shape), "weight": _tensor("FLOAT", weight_shape)}, {},
                        frozenset())
        return any(r(call) for r in rules)
    assert not violated((2, 3, 4), (3,)) and not violated((2, 3, 4), (1,)) and not violated((2, 3), (1, 3))
    assert violated((2, 3, 4), (2,)) and violated((2, 3, 4), (6,))
    assert not violated((5,), (1,)) and violated((5,), (5,))    # rank 1: one channel
    assert not violated((), (1,)) and violated((), (2,))


def test_a_dim_chosen_by_a_test_that_is_no_rank_stays_unread():
    body = CHANNELS.replace("self->GetViewShape().GetDimNum() <= 1 ?", "self->IsEmpty() ?")
    events = _walk(body % "weightSize != input_channels && weightSize != 1", CHANNEL_NAMES)
    assert events[-1].kind == "unread"


AICORE = """
static const std::initializer_list<op::DataType> AICORE_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16};
static const std::initializer_list<op::DataType> ASCEND910B_AICORE_LIST = {
    op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16, op::DataType::DT_BF16};

static bool IsAiCoreSupport(const aclTensor* self)
{
    auto curArch = GetCurrentPlatformInfo().GetCurNpuArch();
    if (curArch == NpuArch::DAV_2201) {
        return CheckType(self->GetDataType(), ASCEND910B_AICORE_LIST);
    }
    return CheckType(self->GetDataType(), AICORE_LIST);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* weight, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto promoteType = op::PromoteType(self->GetDataType(), weight->GetDataType());
    auto selfCasted = l0op::Cast(self, promoteType, uniqueExecutor.get());
    auto weightCasted = l0op::Cast(weight, promoteType, uniqueExecutor.get());
    if (selfCasted->GetViewShape().GetDimNum() > 1) {
        for (size_t i = 0; i < selfCasted->GetViewShape().GetDimNum(); i++) {
            shape.SetDim(i, 1);
        }
        weightCasted = l0op::Reshape(weightCasted, shape, uniqueExecutor.get());
    }
    if (!IsAiCoreSupport(selfCasted) || !IsAiCoreSupport(weightCasted)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
AICORE_NAMES = ["self", "weight", "out", "workspaceSize", "executor"]


def _cast_call(a: str, b: str) -> CallView:
    return CallView({"self": _tensor(a), "weight": _tensor(b)}, {}, frozenset())


def test_a_helper_choosing_its_list_by_the_product_on_cast_results():
    for product, bf16 in (("atlas-a2", False), ("atlas-inference", True)):
        events = _walk(AICORE, AICORE_NAMES, product)
        assert [e.kind for e in events] == ["check", "check"], product
        rule = predicate(events[0].template, events[0].args_dict())
        assert rule(_cast_call("INT32", "INT32")) and not rule(_cast_call("FLOAT", "FLOAT16"))
        assert rule(_cast_call("BF16", "BF16")) == bf16, product


def test_a_tensor_a_branch_makes_by_a_kernel_of_unknown_dtype_stays_unread():
    body = AICORE.replace("l0op::Reshape(weightCasted, shape,", "l0op::Tile(weightCasted, shape,")
    events = _walk(body, AICORE_NAMES)
    assert events[-1].kind == "unread"
    # reshaped from the other cast instead: the same promoted dtype on both sides, read
    events = _walk(AICORE.replace("l0op::Reshape(weightCasted, shape,", "l0op::Reshape(selfCasted, shape,"),
                   AICORE_NAMES)
    assert [e.kind for e in events] == ["check", "check"]


FLAG_BRANCH = """
static bool CheckShape(const aclTensor* x, const aclTensor* scale, int64_t numAxes, bool scaleFromBlob)
{
    if (scaleFromBlob) {
        if (numAxes == 0 && scale->GetViewShape().GetShapeSize() != 1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "scale must hold one element when numAxes is 0.");
            return false;
        }
    } else {
        OP_CHECK_MAX_DIM(scale, 1, return false);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclTensor* scale, int64_t numAxes,
                                      bool scaleFromBlob, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(x, scale, numAxes, scaleFromBlob), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
FLAG_NAMES = ["x", "scale", "numAxes", "scaleFromBlob", "out", "workspaceSize", "executor"]


def test_a_branch_on_a_bool_argument_guards_its_checks_and_an_integer_test_beside_a_count():
    events = _walk(FLAG_BRANCH, FLAG_NAMES)
    assert [e.template for e in events] == ["dims_compare", "rank_range"]
    count, rank = (predicate(e.template, e.args_dict()) for e in events)

    def call(blob: bool, axes: int, scale_shape: tuple[int, ...]) -> CallView:
        return CallView({"x": _tensor(), "scale": _tensor("FLOAT", scale_shape)},
                        {"numAxes": axes, "scaleFromBlob": blob}, frozenset())
    assert count(call(True, 0, (2,))) and not count(call(True, 0, (1,))) and not count(call(True, 1, (2,)))
    assert not count(call(False, 0, (2,)))
    assert rank(call(False, 0, (2, 2))) and not rank(call(True, 0, (2, 2)))


def test_a_branch_on_a_bool_argument_that_returns_success_is_not_a_guard():
    body = FLAG_BRANCH.replace("OP_CHECK_MAX_DIM(scale, 1, return false);", "return true;")
    events = _walk(body, FLAG_NAMES)
    assert events[-1].kind == "unread"


CONVERTED = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* min, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    %s
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto minTensor = uniqueExecutor.get()->ConvertToTensor(min, self->GetDataType());
    CHECK_RET(minTensor != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
CONVERTED_NAMES = ["self", "min", "out", "workspaceSize", "executor"]


def test_a_scalar_made_a_tensor_after_its_null_check_is_no_check():
    events = _walk(CONVERTED % "CHECK_RET(min != nullptr, ACLNN_ERR_PARAM_NULLPTR);", CONVERTED_NAMES)
    assert _rules(events) == [("check", "null", {"param": "min"}, 161001)]
    events = _walk(CONVERTED % "", CONVERTED_NAMES)     # a null scalar would reach ConvertToTensor
    assert events[-1].kind == "unread"


RANK_LOCAL = """
static const size_t DIM_SUPPORT_ONLY = 2;

static bool CheckParamValid(const aclTensor* self, const aclTensor* out)
{
    auto dim = self->GetViewShape().GetDimNum();
    if (dim != DIM_SUPPORT_ONLY) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "trace: expected a matrix");
        return false;
    }
    %s
    if (dim != 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "expected 0D output tensor");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckParamValid(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RANK_NAMES = ["self", "out", "workspaceSize", "executor"]


def test_a_rank_local_assigned_again_is_read_in_order():
    events = _walk(RANK_LOCAL % "dim = out->GetViewShape().GetDimNum();", RANK_NAMES)
    assert _rules(events) == [("check", "rank_range", {"param": "self", "min": 2, "max": 2}, 161002),
                              ("check", "rank_range", {"param": "out", "min": 0, "max": 0}, 161002)]


def test_a_rank_local_assigned_in_a_branch_stays_unread():
    events = _walk(RANK_LOCAL % "if (out->IsEmpty()) { dim = out->GetViewShape().GetDimNum(); }", RANK_NAMES)
    assert events[-1].kind == "unread"


CASTED_CHECK = """
static const std::initializer_list<op::DataType> DTYPE_SUPPORT_LIST = {
    op::DataType::DT_FLOAT, op::DataType::DT_INT32, op::DataType::DT_FLOAT16};

static bool CheckDtypeValid(const aclTensor* self, const aclTensor* other)
{
    OP_CHECK_DTYPE_NOT_SUPPORT(self, DTYPE_SUPPORT_LIST, return false);
    OP_CHECK_DTYPE_NOT_SUPPORT(other, DTYPE_SUPPORT_LIST, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto promoteType = op::PromoteType(self->GetDataType(), other->GetDataType());
    auto selfCasted = l0op::Cast(self, %s, uniqueExecutor.get());
    CHECK_RET(selfCasted != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckDtypeValid(selfCasted, other), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
CASTED_NAMES = ["self", "other", "out", "workspaceSize", "executor"]


def test_a_cast_result_checked_against_a_list_is_its_computed_dtype():
    events = _walk(CASTED_CHECK % "promoteType", CASTED_NAMES)
    assert [e.template for e in events] == ["promotable", "dtype_in"]
    promoted = predicate(events[0].template, events[0].args_dict())
    assert not promoted(_cast_call_of("INT32", "FLOAT16"))       # promoted to FLOAT16: in the list
    assert not promoted(_cast_call_of("FLOAT", "INT32"))
    assert promoted(_cast_call_of("INT8", "INT8")) and promoted(_cast_call_of("FLOAT", "DOUBLE"))
    events = _walk(CASTED_CHECK % "GetCastType(self)", CASTED_NAMES)   # a dtype the reader does not compute
    assert events[-1].kind == "unread"


def _cast_call_of(a: str, b: str) -> CallView:
    return CallView({"self": _tensor(a), "other": _tensor(b)}, {}, frozenset())


SCALAR_TENSOR = """
static bool CheckParams(const aclTensor* self, const aclTensor* other, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    OP_CHECK_NULL(other, return false);
    OP_CHECK_MAX_DIM(other, 8, return false);
    op::DataType promoteType = op::PromoteType(self->GetDataType(), other->GetDataType());
    if (promoteType == DataType::DT_UNDEFINED) {
        return false;
    }
    op::Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(self, other, broadcastShape, return false);
    if (broadcastShape != out->GetViewShape()) {
        return false;
    }
    return true;
}

static aclnnStatus ScalarWorkspaceV35(const aclTensor* self, const aclScalar* other, aclTensor* out)
{
    if (self->IsEmpty()) {
        return ACLNN_SUCCESS;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (IsRegBase()) {
        return ScalarWorkspaceV35(self, other, out);
    }
    auto uniqueExecutor = CREATE_EXECUTOR();
    CHECK_RET(other != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto otherPromoteType = other->GetDataType();
    if (IsFloatingType(self->GetDataType())) {
        otherPromoteType = self->GetDataType();
    }
    auto otherTensor = uniqueExecutor.get()->ConvertToTensor(other, otherPromoteType);
    CHECK_RET(otherTensor != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckParams(self, otherTensor, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
SCALAR_NAMES = ["self", "other", "out", "workspaceSize", "executor"]


def test_a_scalar_made_a_tensor_is_checked_as_a_rank_0_tensor_of_its_dtype():
    events = _walk(SCALAR_TENSOR, SCALAR_NAMES)
    assert [(e.template, e.status) for e in events] == [
        ("null", 561103), ("null", 161002), ("promotable", 161002), ("shapes_equal", 161002)]
    promotable = predicate(events[2].template, events[2].args_dict())
    call = lambda a, b: CallView({"self": _tensor(a), "other": _tensor(b, ()), "out": _tensor()}, {},  # noqa: E731
                                 frozenset())
    assert not promotable(call("FLOAT", "DOUBLE"))   # a float self: the scalar takes self's dtype
    assert not promotable(call("INT32", "INT64"))
    shape = predicate(events[3].template, events[3].args_dict())
    assert shape(CallView({"self": _tensor("FLOAT", (2, 3)), "out": _tensor("BOOL", (3,))}, {}, frozenset()))
    assert not shape(CallView({"self": _tensor("FLOAT", (2, 3)), "out": _tensor("BOOL", (2, 3))}, {}, frozenset()))


def test_the_statements_after_a_return_the_walk_stopped_in_are_not_read():
    events = _walk(SCALAR_TENSOR, SCALAR_NAMES, "ascend950")
    assert [e.kind for e in events] == ["empty"]      # not the unread CheckParams the other path calls


RANK0_DIMS = """
static bool CheckDimValid(const aclTensor* self, int64_t dim)
{
    auto selfDimNum = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (selfDimNum == 0) {
        if (%s) {
            return true;
        }
    }
    if (dim >= selfDimNum || dim < (-selfDimNum)) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimValid(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RANK0_NAMES = ["self", "dim", "out", "workspaceSize", "executor"]


RANK0_IN_ONE = RANK0_DIMS.replace("    if (selfDimNum == 0) {\n        if (%s) {\n            return true;\n        }\n    }",
                                  "    if (selfDimNum == 0 && (%s)) {\n        return true;\n    }")


@pytest.mark.parametrize("snippet", [RANK0_DIMS, RANK0_IN_ONE])
def test_a_rank_0_tensor_accepting_some_dims_before_the_range_check(snippet):
    """Nested (ops-math's sort) or in one conjunction (aclnn_cummin.cpp CheckDimValid)."""
    assert (snippet is RANK0_DIMS) != ("selfDimNum == 0 && (%s)" in snippet)
    events = _walk(snippet % "dim == 0 || dim == -1", RANK0_NAMES)
    rules = [predicate(e.template, e.args_dict()) for e in events]
    assert [e.template for e in events] == ["attr_in_rank_range", "attr_in_rank_range"]

    def rejected(shape: tuple[int, ...], dim: int) -> bool:
        return any(r(CallView({"self": _tensor("FLOAT", shape)}, {"dim": dim}, frozenset())) for r in rules)
    assert not rejected((), 0) and not rejected((), -1) and rejected((), 1) and rejected((), -2)
    assert not rejected((2, 3), 1) and not rejected((2, 3), -2) and rejected((2, 3), 2) and rejected((2, 3), -3)


def test_a_rank_0_branch_returning_on_something_else_leaves_the_range_check_to_the_other_calls():
    """``if (rank 0) { if (empty) return true; }``: the range check after it holds for every call but
    the rank-0 empty ones (there are none); it is not read as accepting dims at rank 0."""
    events = _walk(RANK0_DIMS % "self->IsEmpty()", RANK0_NAMES)
    assert [e.template for e in events] == ["attr_in_rank_range", "attr_in_rank_range"]
    assert all(dict(e.args)["when"] == ("not", ("and", ("rank-zero", "self"), ("empty", ("self",), True)))
               for e in events)
    rules = [predicate(e.template, e.args_dict()) for e in events]

    def rejected(shape: tuple[int, ...], dim: int) -> bool:
        return any(r(CallView({"self": _tensor("FLOAT", shape)}, {"dim": dim}, frozenset())) for r in rules)
    assert rejected((), 0) and rejected((), -1)       # rank 0: no dim is in range
    assert not rejected((2, 3), 1) and not rejected((2, 3), -2) and rejected((2, 3), 2)


ONE_RETURN = """
static inline int64_t GetTensorDim(const aclTensor* self)
{
    %s
}

static inline bool CheckDimValue(const aclTensor* self, const int64_t dim)
{
    int64_t dimSize = GetTensorDim(self);
    int64_t dimMin = std::min(-1 * dimSize, dimSize - 1);
    int64_t dimMax = std::max(-1 * dimSize, dimSize - 1);
    if ((dim > dimMax) || (dim < dimMin)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim should be in range [%%ld, %%ld].", dimMin, dimMax);
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimValue(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
DIM_NAMES = ["self", "dim", "out", "workspaceSize", "executor"]


def test_a_helper_of_one_return_is_read_as_its_expression():
    """GetTensorDim(self) is its one return, the rank: std::max(-N, N - 1) is N - 1 for a rank N
    >= 1 and 0 at rank 0, std::min(-N, N - 1) is -N and -1 (ops-math aclnn_sort.cpp's CheckDimValue)."""
    got = _rules(_walk(ONE_RETURN % "return static_cast<int64_t>(self->GetViewShape().GetDimNum());", DIM_NAMES))
    assert got == [("check", "attr_in_rank_range", {"attr": "dim", "max": [1, -1], "max_rank0": 0,
                                                    "tensor": "self"}, 161002),
                   ("check", "attr_in_rank_range", {"attr": "dim", "min": [-1, 0], "min_rank0": -1,
                                                    "tensor": "self"}, 161002)]
    rank_range = predicate("attr_in_rank_range", got[0][2])
    assert rank_range(CallView({"self": _tensor(shape=())}, {"dim": 1}, frozenset()))
    assert not rank_range(CallView({"self": _tensor(shape=())}, {"dim": 0}, frozenset()))
    # a local of the helper holding the rank, then returned: the same value
    two = "int64_t n = self->GetViewShape().GetDimNum();\n    return n;"
    local = [e for e in _walk(ONE_RETURN % two, DIM_NAMES) if e.kind == "check"]
    assert len(local) == 2
    for rank in range(4):
        for dim in range(-5, 6):
            call = CallView({"self": _tensor(shape=(2,) * rank)}, {"dim": dim}, frozenset())
            assert [predicate(e.template, dict(e.args))(call) for e in local] == \
                [predicate(r[1], r[2])(call) for r in got], (rank, dim)
    # a helper doing more than integer arithmetic is not read as a value
    other = "int64_t n = self->GetViewShape().GetDimNum();\n    Touch(self);\n    return n;"
    assert [e.kind for e in _walk(ONE_RETURN % other, DIM_NAMES)] == ["unread"]


BINARY_PROMOTE = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto promoteType = op::BinaryOpTypePromote(self, other%s);
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "can not promote dtype.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    OP_CHECK_RESULT_DTYPE_CAST_FAILED(promoteType, out->GetDataType(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_binary_op_type_promote_is_promotion_by_rank():
    """ops-math data_type_utils.h:71-98: PromoteType when both tensors have dims or neither has, else
    the tensor with dims combined with the rank-0 one; with the flag an integral result is FLOAT."""
    names = ["self", "other", "out", "workspaceSize", "executor"]
    cast = next(a for _, t, a, _ in _rules(_walk(BINARY_PROMOTE % "", names)) if t == "castable")
    castable = predicate("castable", cast)

    def call(self_dtype, self_shape, other_dtype, other_shape, out_dtype):
        return CallView({"self": _tensor(self_dtype, self_shape), "other": _tensor(other_dtype, other_shape),
                         "out": _tensor(out_dtype)}, {}, frozenset())
    # INT8 (2, 3) with an INT64 of rank 0 is INT8, which casts to INT8; both with dims: INT64, which does too
    assert not castable(call("INT8", (2, 3), "INT64", (), "INT8"))
    # FLOAT (2, 3) with a rank-0 FLOAT16 stays FLOAT: cannot become INT32
    assert castable(call("FLOAT", (2, 3), "FLOAT16", (), "INT32"))
    # a rank-0 INT32 self with a FLOAT16 other with dims: FLOAT16; BOOL out refused (not from BOOL)
    assert castable(call("INT32", (), "FLOAT16", (2, 3), "BOOL"))
    flagged = next(a for _, t, a, _ in _rules(_walk(BINARY_PROMOTE % ", true", names)) if t == "castable")
    # the flag makes the integral INT8 result FLOAT, which cannot be cast to INT8
    assert predicate("castable", flagged)(call("INT8", (2, 3), "INT64", (), "INT8"))


MODE_HELPER = """
static const int MODE_REAL_DIV = 0;
static const int MODE_TRUNC_DIV = 1;

op::DataType PromoteIntegerInputsToFloat(const op::DataType input)
{
    if (IsIntegralType(input)) {
        return op::DataType::DT_FLOAT;
    }
    return input;
}

static op::DataType PromoteTypeScalar(const op::DataType selfDtype, const op::DataType otherDtype)
{
    return op::PromoteType(selfDtype, otherDtype);
}

static op::DataType InferModeDtype(const op::DataType selfDtype, const int mode)
{
    auto promoteType = selfDtype;
    if (mode == MODE_REAL_DIV && promoteType != op::DataType::DT_BOOL) {
        promoteType = PromoteIntegerInputsToFloat(promoteType);
    }
    if (mode == MODE_TRUNC_DIV && promoteType == op::DataType::DT_DOUBLE) {
        promoteType = op::DataType::DT_FLOAT;
    }
    return promoteType;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto promoteType = PromoteTypeScalar(self->GetDataType(), other->GetDataType());
    if (promoteType == DataType::DT_UNDEFINED) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    OP_CHECK_RESULT_DTYPE_CAST_FAILED(InferModeDtype(self->GetDataType(), MODE_REAL_DIV), out->GetDataType(),
                                      return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_helpers_promotion_and_a_mode_constant_decided_in_a_dtype_branch():
    """A helper returning PromoteType(a, b) is the promotion rule; ``mode == MODE_REAL_DIV`` with the
    mode a constant the caller passes is decided, so the dtype branch it guards is read."""
    got = _rules(_walk(MODE_HELPER, ["self", "other", "out", "workspaceSize", "executor"]))
    assert got[0] == ("check", "promotable", {"other": "other", "param": "self"}, 161002)
    template, args = got[1][1], got[1][2]
    assert template == "castable" and args["to"] == "out"
    castable = predicate(template, args)

    def call(self_dtype, out_dtype):
        return CallView({"self": _tensor(self_dtype), "other": _tensor(self_dtype), "out": _tensor(out_dtype)},
                        {}, frozenset())
    assert castable(call("INT32", "INT32"))          # made FLOAT: no cast to INT32
    assert not castable(call("BOOL", "BOOL"))        # BOOL kept by the mode's condition
    assert not castable(call("DOUBLE", "DOUBLE"))    # the other mode's branch is not taken


PAIRS = """
static const std::initializer_list<std::pair<DataType, DataType>> DTYPE_PAIR = {
    {DataType::DT_COMPLEX64, DataType::DT_FLOAT},
    {DataType::DT_FLOAT16, DataType::DT_FLOAT16}};

static bool CheckInOutDtypeMatch(const aclTensor* self, const aclTensor* out)
{
%s
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckInOutDtypeMatch(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RETURNED_LOCAL = """    auto inOutPair = std::pair<op::DataType, op::DataType>(self->GetDataType(), out->GetDataType());
    bool isSupport = std::find(DTYPE_PAIR.begin(), DTYPE_PAIR.end(), inOutPair) != DTYPE_PAIR.end();
    if (!isSupport) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Input dtype and out dtype must be paired.");
    }
    return isSupport;"""
FOUND_OR_FALSE = """    auto found = std::find(DTYPE_PAIR.begin(), DTYPE_PAIR.end(),
                           std::pair<DataType, DataType>(self->GetDataType(), out->GetDataType()));
    if (found != DTYPE_PAIR.end()) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the param is invalid.");
    return false;"""


@pytest.mark.parametrize("body", [RETURNED_LOCAL, FOUND_OR_FALSE])
def test_a_list_of_dtype_pairs_searched_for_the_calls_pair_is_a_combination_rule(body):
    """ops-math aclnn_complex.cpp (a bool local returned) and aclnn_real.cpp (found, else false)."""
    got = _rules(_walk(PAIRS % body, ["self", "out", "workspaceSize", "executor"]))
    assert [(kind, template, status) for kind, template, _, status in got] == [("check", "combination_in", 161002)]
    rule = predicate("combination_in", got[0][2])

    def call(self_dtype, out_dtype, fmt="ND"):
        return CallView({"self": TensorView(self_dtype, (2,), fmt), "out": _tensor(out_dtype)}, {}, frozenset())
    assert not rule(call("COMPLEX64", "FLOAT")) and not rule(call("FLOAT16", "FLOAT16", "NC1HWC0"))
    assert rule(call("COMPLEX64", "FLOAT16")) and rule(call("FLOAT", "FLOAT"))


SAME_OR_FAIL = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    if (self->GetDataType() != out->GetDataType()) {
        const std::string dtypeStr = std::string(op::ToString(self->GetDataType()).GetString());
        OP_LOGE_FOR_INVALID_DTYPES_WITH_REASON("aclnnSnip", "self, out", dtypeStr.c_str(), "must be the same");
        return ACLNN_ERR_PARAM_INVALID;
    }
    if (self->GetStorageFormat() != out->GetStorageFormat()) {
        const std::string formatStr = std::string(op::ToString(self->GetStorageFormat()).GetString());
        OP_LOGE_FOR_INVALID_FORMATS_WITH_REASON("aclnnSnip", "self, out", formatStr.c_str(), "must be the same");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_failure_in_a_branch_on_two_tensors_dtypes_or_formats_is_their_equality_rule():
    """ops-nn aclnn_hardsigmoid.cpp CheckParams: the branch's return fails every call taking it, the
    calls whose two dtypes (then formats) differ."""
    got = _rules(_walk(SAME_OR_FAIL, ["self", "out", "workspaceSize", "executor"]))
    assert [(t, a.get("param"), a.get("other"), status) for _, t, a, status in got] == [
        ("dtypes_equal", "self", "out", 161002), ("formats_equal", "self", "out", 161002)]
    formats = predicate("formats_equal", got[1][2])
    assert formats(CallView({"self": TensorView("FLOAT", (2,), "NCHW"), "out": _tensor()}, {}, frozenset()))
    assert not formats(CallView({"self": _tensor(), "out": _tensor()}, {}, frozenset()))


NULL_SIDES = """
static bool CheckShapeValid(const aclTensor* gradY, const aclTensor* groupIdxOptional, const aclTensor* out)
{
    auto gradYDimNum = gradY->GetViewShape().GetDimNum();
    auto groupNum = gradY->GetViewShape().GetDim(0);
    int64_t hNum = 0;
    %s
    if (%s) {
        if (gradYDimNum != 3) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "gradY should be 3D when groupIdx is null.");
            return false;
        }
        hNum = gradY->GetViewShape().GetDim(2);
    } else {
        if (gradYDimNum != 2 || groupIdxOptional->GetViewShape().GetDimNum() != 1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "gradY should be 2D and groupIdx 1D.");
            return false;
        }
        hNum = gradY->GetViewShape().GetDim(1);
        groupNum = groupIdxOptional->GetViewShape().GetDim(0);
    }
    OP_CHECK(out->GetViewShape().GetDimNum() == 2, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out 2D."), return false);
    OP_CHECK(out->GetViewShape().GetDim(0) == groupNum && out->GetViewShape().GetDim(1) == hNum,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out [groupNum, hNum]."), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradY, const aclTensor* groupIdxOptional, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShapeValid(gradY, groupIdxOptional, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NULL_SIDES_NAMES = ["gradY", "groupIdxOptional", "out", "workspaceSize", "executor"]


def _grouped(grad_y: tuple[int, ...], group_idx: tuple[int, ...] | None, out: tuple[int, ...]) -> CallView:
    tensors = {"gradY": _tensor("FLOAT", grad_y), "out": _tensor("FLOAT", out)}
    if group_idx is not None:   # a null optional tensor: given as None, or not given at all
        tensors["groupIdxOptional"] = _tensor("INT64", group_idx)
    return CallView(tensors, {}, frozenset())


@pytest.mark.parametrize("cond", ["groupIdxOptional == nullptr", "nullptr == groupIdxOptional"])
def test_a_branch_on_a_null_optional_tensor_holds_each_sides_checks_under_the_null_guard(cond):
    """ops-math aclnn_grouped_bias_add_grad.cpp CheckShapeValid: gradY [G, B, H] without groupIdx,
    else gradY [B, H] and groupIdx [G]; out [G, H] either way."""
    events = _walk(NULL_SIDES % ("", cond), NULL_SIDES_NAMES)
    assert all(e.kind == "check" for e in events) and len(events) == 6
    assert [args.get("when") for _, _, args, _ in _rules(events[:3])] == [
        ["null", "groupIdxOptional"], ["not", ["null", "groupIdxOptional"]], ["not", ["null", "groupIdxOptional"]]]

    def valid(call: CallView) -> bool:
        return not any(predicate(e.template, e.args_dict())(call) for e in events)
    assert valid(_grouped((4, 5, 6), None, (4, 6)))           # [G, B, H] -> [G, H]
    assert not valid(_grouped((4, 5, 6), None, (4, 5)))
    assert not valid(_grouped((5, 6), None, (5, 6)))          # 2-D gradY needs groupIdx
    assert valid(_grouped((5, 6), (3,), (3, 6)))              # [B, H], [G] -> [G, H]
    assert not valid(_grouped((5, 6), (3,), (5, 6)))
    assert not valid(_grouped((4, 5, 6), (4,), (4, 6)))       # 3-D gradY only without groupIdx
    assert not valid(_grouped((5, 6), (3, 1), (3, 6)))
    null = CallView({"gradY": _tensor("FLOAT", (4, 5, 6)), "groupIdxOptional": None,
                     "out": _tensor("FLOAT", (4, 6))}, {}, frozenset())
    assert guard_holds(null, ["null", "groupIdxOptional"]) is True and valid(null)


def test_a_null_test_of_a_pointer_not_an_argument_stays_unread():
    body = NULL_SIDES % ("auto idx = PickGroupIdx(groupIdxOptional);", "idx == nullptr")
    events = _walk(body, NULL_SIDES_NAMES)
    assert events[-1].kind == "unread" and "idx == nullptr" in events[-1].text
