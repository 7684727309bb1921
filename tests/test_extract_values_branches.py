"""The extractor on value tests, early returns and the compute path (snippet style, as the vendor
writes them): float arguments and scalar locals compared, NaN and infinity tests, a narrow interval,
one value against another; a success return on a value test, a bool flag or a rank of 0 guarding the
rest of its function; an empty return inside CheckParams or behind a product test; a bool helper on
dtypes through ``std::find``; a success return on an unread condition with no check after it; an
element count against an integer argument; a wrapped dim of size 0; inner-status check functions;
a kernel result's dtype and the l0op::Cast null check; a tensor a branch on an optional output
reassigns keeping its dtype; the direction of writable result tensors.
Each read into its rule, and a variant left unread (never a guess)."""
from __future__ import annotations

import json
import math

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate
from snippet_walk import CHECK_HEADER, rules as _rules, walk as _walk


FLOAT_ARG = """
static bool CheckParamsLogic(float& p, const int64_t computeMode)
{
    if (%s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cdist only supports non-negative p values.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, float p, int64_t computeMode, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_COND(CheckParamsLogic(p, computeMode), ACLNN_ERR_PARAM_INVALID, "CheckParamsLogic failed!");
    return ACLNN_SUCCESS;
}
"""
FLOAT_NAMES = ["x1", "p", "computeMode", "out", "workspaceSize", "executor"]


def test_a_float_argument_against_a_number_or_nan_is_a_value_test():
    events = _walk(FLOAT_ARG % "p < 0 || std::isnan(p)", FLOAT_NAMES)
    assert _rules(events) == [("check", "scalar_test", {"test": [
        "or", ["cmp", "p", "float", "<", 0.0], ["nan", "p", "float"]]}, 161002)]
    rule = predicate("scalar_test", events[0].args_dict())
    call = lambda v: CallView({}, {"p": v, "computeMode": 0}, frozenset())  # noqa: E731
    assert rule(call(-1.0)) and rule(call(float("nan")))
    assert not rule(call(0.0)) and not rule(call(2.0)) and not rule(call(float("inf")))
    assert not rule(call(-1e-50))   # held in a C float it is -0.0, not below 0


def test_a_narrow_interval_with_an_integer_argument_is_one_value_test():
    events = _walk(FLOAT_ARG % "std::fabs(p - 2.0) < 1e-6 && computeMode != 2", FLOAT_NAMES)
    assert _rules(events) == [("check", "scalar_test", {"test": [
        "and", ["and", ["cmp", "p", "float", ">", 2.0 - 1e-6], ["cmp", "p", "float", "<", 2.0 + 1e-6]],
        ["cmp", "computeMode", "int", "!=", 2.0]]}, 161002)]
    rule = predicate("scalar_test", events[0].args_dict())
    call = lambda v, mode: CallView({}, {"p": v, "computeMode": mode}, frozenset())  # noqa: E731
    assert rule(call(2.0, 0)) and not rule(call(2.0, 2)) and not rule(call(1.0, 0))
    # the float argument is held in float32: 2 + 1e-7 rounds inside the interval
    assert rule(call(2.0000001, 0)) and not rule(call(2.01, 0))


def test_an_integer_comparison_alone_stays_an_attribute_rule_and_a_call_in_it_stays_unread():
    events = _walk(FLOAT_ARG % "computeMode < 0", FLOAT_NAMES)
    assert [e.template for e in events] == ["attr_range"]
    events = _walk(FLOAT_ARG % "std::fabs(Norm(p) - 2.0) < 1e-6", FLOAT_NAMES)
    assert events[-1].kind == "unread"


RANGE = """
static bool CheckMinMaxInfEqual(float minValue, float maxValue)
{
    if ((std::isinf(minValue) && minValue > 0 && std::isinf(maxValue) && maxValue > 0) ||
        (std::isinf(minValue) && minValue < 0 && std::isinf(maxValue) && maxValue < 0)) {
        return true;
    }
    return false;
}

static bool CheckMinMaxIsInfNan(float minValue, float maxValue)
{
    if (CheckMinMaxInfEqual(minValue, maxValue)) {
        return true;
    }
    if (std::isinf(minValue) || std::isinf(maxValue) || std::isnan(minValue) || std::isnan(maxValue)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "range of [%f, %f] is not finite", minValue, maxValue);
        return false;
    }
    return true;
}

static bool CheckValueRange(const aclScalar* min, const aclScalar* max)
{
    float minValue = min->ToFloat();
    float maxValue = max->ToFloat();
    if (COND) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* min, const aclScalar* max,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    float minValue = min->ToFloat();
    float maxValue = max->ToFloat();
    CHECK_RET(CheckMinMaxIsInfNan(minValue, maxValue), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckValueRange(min, max), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RANGE_NAMES = ["self", "min", "max", "out", "workspaceSize", "executor"]


def _scalars(lo: float, hi: float) -> CallView:
    return CallView({}, {"min": {"dtype": "FLOAT", "value": lo}, "max": {"dtype": "FLOAT", "value": hi}},
                    frozenset())


def test_a_success_return_on_a_value_test_guards_the_rest_of_its_function():
    events = _walk(RANGE.replace("COND", "minValue > maxValue"), RANGE_NAMES)
    assert [e.template for e in events] == ["scalar_test", "scalar_test"]
    finite = json.loads(json.dumps(events[0].args_dict()))
    assert finite["test"] == ["or", ["inf", "min", "float"], ["inf", "max", "float"],
                              ["nan", "min", "float"], ["nan", "max", "float"]]
    assert finite["when"][0] == "not" and finite["when"][1][0] == "value"
    assert "when" not in events[1].args_dict()      # the guard ends with the function that took it
    assert json.loads(json.dumps(events[1].args_dict()["test"])) == [
        "cmp", "min", "float", ">", ["arg", "max", "float"]]
    rule = predicate("scalar_test", json.loads(json.dumps(finite)))
    inf = float("inf")
    assert rule(_scalars(-inf, 1.0)) and rule(_scalars(0.0, float("nan"))) and rule(_scalars(-inf, inf))
    assert not rule(_scalars(inf, inf)) and not rule(_scalars(-inf, -inf))   # the equal infinities pass
    assert not rule(_scalars(0.0, 1.0))
    order = predicate("scalar_test", json.loads(json.dumps(events[1].args_dict())))
    assert order(_scalars(2.0, 1.0)) and not order(_scalars(1.0, 1.0)) and not order(_scalars(1.0, 2.0))


def test_a_value_against_a_value_read_otherwise_stays_unread():
    events = _walk(RANGE.replace("COND", "minValue > max->ToDouble()"), RANGE_NAMES)
    assert events[-1].kind == "unread"


def test_to_int32_truncates_and_has_no_reading_for_nan():
    rule = predicate("scalar_test", {"test": ["cmp", "min", "int32", ">", ["arg", "max", "int32"]]})
    assert not rule(_scalars(1.9, 1.2))                 # both truncate to 1
    assert rule(_scalars(2.5, 1.9))
    assert not rule(_scalars(float("nan"), 0.0))        # undefined in C++: not judged as a violation


def test_the_value_guard_is_a_guard_of_the_call():
    g = ["not", ["value", ["cmp", "min", "float", ">", 0.0]]]
    assert guard_holds(_scalars(-1.0, 0.0), g) is True
    assert guard_holds(_scalars(1.0, 0.0), g) is False
    assert guard_holds(CallView({}, {"min": None}, frozenset()), g) is None


SOFTMAX = """
static aclnnStatus CheckParams(const aclTensor* gradOutput, const aclTensor* output, aclTensor* out)
{
    OP_CHECK_NULL(gradOutput, return ACLNN_ERR_PARAM_NULLPTR);
    if (%s && ((gradOutput->IsEmpty()) || (output->IsEmpty()))) {
        return ACLNN_SUCCESS;
    }
    OP_CHECK_SHAPE_NOT_EQUAL(gradOutput, out, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOutput, const aclTensor* output, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto ret = CheckParams(gradOutput, output, out);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if ((gradOutput->IsEmpty()) || (output->IsEmpty())) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    return ACLNN_SUCCESS;
}
"""
SOFTMAX_NAMES = ["gradOutput", "output", "out", "workspaceSize", "executor"]


def test_an_empty_return_in_check_params_behind_a_product_test_guards_the_checks_after_it():
    events = _walk(SOFTMAX % "!Ops::NN::AclnnUtil::IsRegbase()", SOFTMAX_NAMES, "atlas-a2")
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("empty", "empty"),
                                                      ("check", "shapes_equal"), ("empty", "empty")]
    assert events[2].args_dict()["when"] == ["not", ("empty", ("gradOutput", "output"), True)]
    # on the regbase product the empty branch of CheckParams is not taken: the check holds for all
    events = _walk(SOFTMAX % "!Ops::NN::AclnnUtil::IsRegbase()", SOFTMAX_NAMES, "ascend950")
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("check", "shapes_equal"),
                                                      ("empty", "empty")]
    assert "when" not in events[1].args_dict()


def test_an_empty_test_anded_with_a_condition_not_read_stays_unread():
    events = _walk(SOFTMAX % "out->GetViewFormat() == 2", SOFTMAX_NAMES)
    assert events[-1].kind == "unread"


def test_an_empty_test_anded_with_a_rank_test_guards_the_check_after_it():
    """CheckParams returning success for the empty calls whose out has rank 2: the shape check holds
    for every other call."""
    events = _walk(SOFTMAX % "out->GetViewShape().GetDimNum() == 2", SOFTMAX_NAMES)
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("check", "shapes_equal"),
                                                      ("empty", "empty")]
    shape = predicate(events[1].template, events[1].args_dict())

    def call(grad: tuple[int, ...], out: tuple[int, ...]) -> CallView:
        return CallView({"gradOutput": TensorView("FLOAT", grad, "ND"), "output": TensorView("FLOAT", (2, 3), "ND"),
                         "out": TensorView("FLOAT", out, "ND")}, {}, frozenset())
    assert not shape(call((0, 3), (4, 5)))         # empty, out of rank 2: returned before the check
    assert shape(call((0, 3, 1), (4, 5, 6)))       # empty, out of rank 3: checked
    assert shape(call((2, 3), (4, 5)))             # not empty: checked


DTYPE_HELPER = """
static const std::initializer_list<op::DataType> DTYPE_INT_LIST = {op::DataType::DT_INT64, op::DataType::DT_INT32};

static bool SelfDTypeInt(op::DataType selfDType)
{
    auto it = std::find(DTYPE_INT_LIST.begin(), DTYPE_INT_LIST.end(), selfDType);
    if (it != DTYPE_INT_LIST.end()) {
        return true;
    }
    return false;
}

static bool CheckValueRange(const aclScalar* min, const aclScalar* max, op::DataType selfDType)
{
    if (SelfDTypeInt(selfDType)) {
        int32_t minValue = min->ToInt32();
        int32_t maxValue = max->ToInt32();
        if (minValue > maxValue) {
            return false;
        }
    } else {
        float minValue = min->ToFloat();
        float maxValue = max->ToFloat();
        if (minValue > maxValue) {
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* min, const aclScalar* max,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckValueRange(min, max, self->GetDataType()), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_bool_helper_finding_the_dtype_in_a_list_is_a_dtype_guard_never_a_product_fact():
    events = _walk(DTYPE_HELPER, RANGE_NAMES)
    assert [e.args_dict()["test"][2] for e in events] == ["int32", "float"]
    assert json.loads(json.dumps(events[0].args_dict()["when"])) == [
        "in", ["of", "self"], ["INT64", "INT32"], "snippet.cpp:2"]
    assert json.loads(json.dumps(events[1].args_dict()["when"])) == [
        "not", ["in", ["of", "self"], ["INT64", "INT32"], "snippet.cpp:2"]]


NEUTRAL = """
static bool CheckBatchDimNum(const aclTensor* x)
{
    auto xDimNum = x->GetViewShape().GetDimNum();
    for (int64_t i = 0; i < static_cast<int64_t>(xDimNum - 1); i++) {
        if (x->GetViewShape().GetDim(i) == %(size)s) {
            return true;
        }
    }
    return false;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(x1, return ACLNN_ERR_PARAM_NULLPTR);
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (CheckBatchDimNum(x1) || CheckBatchDimNum(x2)) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto x1Contiguous = l0op::Contiguous(x1, uniqueExecutor.get());
    CHECK_RET(x1Contiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    %(after)s
    return ACLNN_SUCCESS;
}
"""
NEUTRAL_NAMES = ["x1", "x2", "out", "workspaceSize", "executor"]
UNREAD_SIZE = "7"   # a batch dim of 7: a condition the reader does not read
CHECK_AFTER = "OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);"


def test_a_success_return_on_an_unread_condition_with_no_check_after_it_leaves_values_unjudged():
    events = _walk(NEUTRAL % {"size": UNREAD_SIZE, "after": ""}, NEUTRAL_NAMES)
    assert [e.kind for e in events] == ["check", "unread-values"]


def test_a_success_return_on_an_unread_condition_before_a_parameter_check_stays_unread():
    events = _walk(NEUTRAL % {"size": UNREAD_SIZE, "after": CHECK_AFTER}, NEUTRAL_NAMES)
    assert [e.kind for e in events] == ["check", "unread"]


def test_a_success_return_on_a_read_condition_guards_the_checks_after_it_and_leaves_its_values_unjudged():
    events = _walk(NEUTRAL % {"size": "0", "after": CHECK_AFTER}, NEUTRAL_NAMES)
    zero_batch = ["or", ["zero-dim", "x1", -1], ["zero-dim", "x2", -1]]
    assert [(e.kind, json.loads(json.dumps(e.args_dict().get("when")))) for e in events] == [
        ("check", None), ("unread-values", zero_batch), ("check", ["not", zero_batch])]


def test_a_values_unread_rule_keeps_statuses_and_drops_value_judging(tmp_path):
    from aclnn_conformance.extract.build import _code_rules
    from aclnn_conformance.spec.products import PRODUCT_IDS
    events = _walk(NEUTRAL % {"size": UNREAD_SIZE, "after": ""}, NEUTRAL_NAMES)
    cite = lambda path, line: {"repository": "r", "commit": "c" * 40, "path": path, "line": line}  # noqa: E731
    rules, _ = _code_rules("XSNIP", {p: events for p in PRODUCT_IDS}, cite, [])
    assert [(r["kind"], r["template"]) for r in rules] == [("check", "null"), ("value", "unread")]
    assert rules[1]["expect"]["cann"]["not_judged"] is True


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_an_infinite_float_argument_is_read_as_infinite(value):
    rule = predicate("scalar_test", {"test": ["inf", "p", "float"]})
    assert rule(CallView({}, {"p": value}, frozenset()))
    assert not rule(CallView({}, {"p": 3.0e38}, frozenset()))
    assert rule(CallView({}, {"p": 3.5e38}, frozenset()))   # beyond float32: the float argument is inf


NUMEL = """
static aclnnStatus CheckParamsLogic(const aclTensor* out, int64_t steps)
{
    int64_t outSize = 1;
    op::Shape outShape = out->GetViewShape();
    size_t outDimNum = outShape.GetDimNum();
    for (size_t idx = 0; idx < outDimNum; idx++) {
        outSize *= %s;
    }
    if (outSize != steps) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "size of out must equal to steps");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclScalar* start, int64_t steps, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckNotNull(start, out), ACLNN_ERR_INNER_NULLPTR);
    auto ret = CheckParamsLogic(out, steps);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    if (steps == 0) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    } else if (steps == 1) {
        ret = FillScalar(out, start, uniqueExecutor.get());
        CHECK_RET(ret == ACLNN_SUCCESS, ACLNN_ERR_INNER_NULLPTR);
        return ACLNN_SUCCESS;
    }
    return ACLNN_SUCCESS;
}

static bool CheckNotNull(const aclScalar* start, const aclTensor* out)
{
    OP_CHECK_NULL(start, return false);
    OP_CHECK_NULL(out, return false);
    return true;
}

static aclnnStatus FillScalar(const aclTensor* out, const aclScalar* start, aclOpExecutor* executor)
{
    auto fillOut = l0op::Fill(out, start, executor);
    CHECK_RET(fillOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
NUMEL_NAMES = ["start", "steps", "out", "workspaceSize", "executor"]


def _shape(*dims: int) -> CallView:
    from aclnn_conformance.spec.templates import TensorView
    return CallView({"out": TensorView(dtype="FLOAT", shape=tuple(dims), format="ND", contiguous=True)},
                    {"steps": 6}, frozenset())


def test_an_element_count_loop_against_an_integer_argument_is_a_dims_compare():
    events = _walk(NUMEL % "outShape.GetDim(idx)", NUMEL_NAMES)
    assert [(e.kind, e.template, e.status) for e in events] == [
        ("check", "null", 561103), ("check", "null", 561103),         # the inner status CheckNotNull returns
        ("check", "dims_compare", 161002), ("unread-values", "", None), ("unread-values", "", None)]
    # the success returns on steps 0 and 1 leave those calls' values unjudged, each under its test
    assert [dict(e.args)["when"] for e in events[3:]] == [
        ("value", ("cmp", "steps", "int", "==", 0.0)),
        ("and", ("not", ("value", ("cmp", "steps", "int", "==", 0.0))), ("value", ("cmp", "steps", "int", "==", 1.0)))]
    args = json.loads(json.dumps(events[2].args_dict()))
    assert args == {"a": ["numel", "out"], "op": "!=", "b": "steps"}
    rule = predicate("dims_compare", args)
    assert rule(_shape(2, 2)) and not rule(_shape(2, 3)) and not rule(_shape(6)) and rule(_shape())


def test_a_loop_multiplying_something_else_stays_unread():
    events = _walk(NUMEL % "outShape.GetDim(0)", NUMEL_NAMES)
    assert events[2].kind == "unread"


VAR_MEAN = """
static aclnnStatus CheckFill(aclTensor* out, float val, aclOpExecutor* executor)
{
    auto fillOut = l0op::Fill(out, val, executor);
    CHECK_RET(fillOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* varOut, aclTensor* meanOut,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    aclnnStatus ret = ACLNN_SUCCESS;
    if (self->IsEmpty()) {
        ret = CheckFill(varOut, NAN, uniqueExecutor.get());
        ret = CheckFill(meanOut, NAN, uniqueExecutor.get());
        *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        return ret;
    }
    OP_CHECK_NULL(varOut, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


def test_an_empty_branch_returning_the_status_of_its_fills_is_the_empty_return():
    events = _walk(VAR_MEAN, ["self", "varOut", "meanOut", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "null"), ("empty", "empty"), ("check", "null")]
    # a fill that checks a parameter makes the branch one the reader does not take as the empty return
    checked = VAR_MEAN.replace("CHECK_RET(fillOut != nullptr, ACLNN_ERR_INNER_NULLPTR);",
                               "CHECK_RET(fillOut != nullptr, ACLNN_ERR_PARAM_NULLPTR);")
    events = _walk(checked, ["self", "varOut", "meanOut", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"


FLAG = """
static bool CheckShapeValid(const aclTensor* self, const aclTensor* out, bool training)
{
    if (training == false) {
        return true;
    }
    OP_CHECK_SHAPE_NOT_EQUAL(self, out, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, bool training, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShapeValid(self, out, training), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_return_on_a_bool_argument_guards_the_checks_after_it():
    events = _walk(FLAG, ["self", "training", "out", "workspaceSize", "executor"])
    assert [e.template for e in events] == ["shapes_equal"]
    when = json.loads(json.dumps(events[0].args_dict()["when"]))
    assert when == ["not", ["value", ["not", ["flag", "training"]]]]
    call = lambda flag: CallView({}, {"training": flag}, frozenset())  # noqa: E731
    assert guard_holds(call(True), when) is True and guard_holds(call(False), when) is False


@pytest.mark.parametrize("name,c_type,cell,direction", [
    ("selfRef", "aclTensor*", "输入", "input/output"),      # an in-place tensor its row calls input
    ("out", "aclTensor *", "输入", "output"),              # aclnnTrace.md: out 输入, "表示输出张量"
    ("minOut", "aclTensor*", "输入", "output"),
    ("other", "aclTensor*", "输入", "input"),              # writable in the prototype, named as an input
    ("out", "const aclTensor*", "输入", "input"),          # const: the row stands
    ("selfRef", "aclTensor*", "输入|输出", "input/output"),
])
def test_a_writable_result_tensor_its_row_calls_an_input_is_written(name, c_type, cell, direction):
    from aclnn_conformance.extract.build import _params
    from aclnn_conformance.extract.documents import ApiDoc, ProtoParam, TableRow, _direction
    row = TableRow(name, _direction(cell), "", ("FLOAT",), "FLOAT", ("ND",), (0, 8), "0-8", "-", 10)
    doc = ApiDoc("aclnnSnip", "snip.md", prototype=(ProtoParam(name, c_type, "tensor"),), rows={name: row})
    cite = lambda path, line: {"path": path, "line": line}  # noqa: E731
    assert _params(doc, cite)[0]["direction"] == direction


CAST = """
static const std::initializer_list<op::DataType> DTYPE_SUPPORT_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_BOOL};
static const std::initializer_list<op::DataType> DTYPE_CAST_LIST = {op::DataType::DT_BOOL};

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    OP_CHECK_DTYPE_NOT_SUPPORT(self, DTYPE_SUPPORT_LIST, return ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_DTYPE_NOT_SUPPORT(out, %s, return ACLNN_ERR_PARAM_INVALID);
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    if (CheckType(self->GetDataType(), DTYPE_CAST_LIST)) {
        selfContiguous = l0op::Cast(selfContiguous, op::DataType::DT_FLOAT, uniqueExecutor.get());
    }
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto tanhOut = l0op::Tanh(selfContiguous, uniqueExecutor.get());
    CHECK_RET(tanhOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto castOut = l0op::Cast(tanhOut, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(castOut != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
KERNEL = """
namespace l0op {
const aclTensor *Tanh(const aclTensor *self, aclOpExecutor *executor) {
  auto tanhOut = executor->AllocTensor(self->GetStorageShape(), %s, self->GetStorageFormat());
  CHECK_RET(tanhOut != nullptr, nullptr);
  return tanhOut;
}
}
"""


def _walk_with_kernel(tmp_path, body: str, kernel: str) -> list:
    (tmp_path / "math" / "tanh" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "tanh" / "op_api" / "tanh.cpp").write_text(kernel)
    src = read_source("snippet.cpp", body)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    names = ["self", "out", "workspaceSize", "executor"]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def test_a_cast_of_dtypes_aicpu_converts_is_no_parameter_check(tmp_path):
    # the kernel's result has its input's dtype: FLOAT (after the cast of BOOL) or self's; out FLOAT/BOOL
    events = _walk_with_kernel(tmp_path, CAST % "DTYPE_SUPPORT_LIST", KERNEL % "self->GetDataType()")
    assert [e.template for e in events] == ["dtype_in", "dtype_in"]


@pytest.mark.parametrize("out_list,kernel_dtype", [
    ("{op::DataType::DT_FLOAT8_E4M3FN}", "self->GetDataType()"),   # a dtype only AICORE pairs may convert
    ("DTYPE_SUPPORT_LIST", "op::DataType::DT_FLOAT4_E2M1"),          # a kernel result outside the AICPU list
    ("DTYPE_SUPPORT_LIST", "PickDtype(self)"),                       # a result dtype the reader does not read
])
def test_a_cast_the_reader_cannot_bound_stays_unread(tmp_path, out_list, kernel_dtype):
    body = CAST % out_list
    if out_list.startswith("{"):
        body = body.replace("OP_CHECK_DTYPE_NOT_SUPPORT(out, " + out_list,
                            "OP_CHECK_DTYPE_NOT_SUPPORT(out, OUT_LIST")
        body = "static const std::initializer_list<op::DataType> OUT_LIST = " + out_list + ";\n" + body
    events = _walk_with_kernel(tmp_path, body, KERNEL % kernel_dtype)
    assert events[-1].kind == "unread" and "Cast" in events[-1].text


OVERLOADED = """
namespace l0op {
static const aclTensor* TanhAiCore(const aclTensor* self, const aclTensor* tanhOut, aclOpExecutor* executor)
{
    auto ret = ADD_TO_LAUNCHER_LIST_AICORE(Tanh, OP_INPUT(self), OP_OUTPUT(tanhOut));
    OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE(ret != ACLNN_SUCCESS, return nullptr, "failed.");
    return tanhOut;
}

const aclTensor* Tanh(const aclTensor* self, aclOpExecutor* executor)
{
    if (self->GetViewShape().GetDimNum() == 0) {
        return self;
    }
    auto tanhOut = executor->AllocTensor(self->GetViewShape(), %s);
    return TanhAiCore(self, tanhOut, executor);
}

const aclTensor* Tanh(const aclTensor* self, bool approximate, aclOpExecutor* executor)
{
    auto tanhOut = executor->AllocTensor(self->GetViewShape(), op::DataType::DT_FLOAT4_E2M1);
    return TanhAiCore(self, tanhOut, executor);
}

const aclTensor* ReFormat(const aclTensor* x, const op::Format& format, aclOpExecutor* executor)
{
    auto view = executor == nullptr ? const_cast<aclTensor*>(x) : executor->CreateView(x, x->GetViewShape(), 0);
    return view;
}
}
"""


@pytest.mark.parametrize("kernel_dtype, kinds", [
    # every return of the two-argument overload gives self's dtype: the rank-0 input itself, or the
    # AICORE helper's output parameter allocated with it; the other overload is told apart by its count
    ("self->GetDataType()", ["check", "check"]),
    ("op::DataType::DT_FLOAT4_E2M1", ["check", "check", "unread"]),
])
def test_a_kernel_result_through_overloads_helpers_and_a_view(tmp_path, kernel_dtype, kinds):
    body = CAST % "DTYPE_SUPPORT_LIST"
    body = body.replace("auto tanhOut = l0op::Tanh(selfContiguous, uniqueExecutor.get());",
                        "auto viewed = l0op::ReFormat(selfContiguous, Format::FORMAT_ND);\n"
                        "    auto tanhOut = l0op::Tanh(viewed, uniqueExecutor.get());")
    events = _walk_with_kernel(tmp_path, body, OVERLOADED % kernel_dtype)
    assert [e.kind for e in events] == kinds

ARG_DIM = """
static bool CheckSelfDimSizeNonZero(const aclTensor* self, const int64_t dim) {
  int64_t dimNum = self->GetViewShape().GetDimNum();
  %s
  int64_t realDim = dim;
  if (realDim < 0) {
    realDim = realDim + dimNum;
  }
  if (self->GetViewShape().GetDim(realDim) == 0) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Excepted reduction dim to have non-zero size.");
    return false;
  }
  return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckSelfDimSizeNonZero(self, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_wrapped_dim_of_size_zero_after_a_rank_zero_return_is_a_nonzero_rule():
    events = _walk(ARG_DIM % "if (dimNum == 0) {\n    return true;\n  }", ["self", "dim", "out", "workspaceSize",
                                                                           "executor"])
    assert [(e.template, e.status) for e in events] == [("attr_dims_nonzero", 161002)]
    args = json.loads(json.dumps(events[0].args_dict()))
    assert args == {"attr": "dim", "tensor": "self", "when": ["not", ["rank-zero", "self"]]}
    from aclnn_conformance.spec.templates import TensorView
    call = lambda shape, d: CallView(  # noqa: E731
        {"self": TensorView("FLOAT", shape, "ND")}, {"dim": d}, frozenset())
    assert guard_holds(call((), 0), args["when"]) is False and guard_holds(call((2,), 0), args["when"]) is True
    rule = predicate("attr_dims_nonzero", {"attr": "dim", "tensor": "self"})
    assert rule(call((2, 0), -1)) and rule(call((0, 3), 0)) and not rule(call((2, 3), -1))


def test_a_wrapped_dim_read_at_rank_zero_stays_unread():
    # without the rank-0 return, GetDim of a rank-0 tensor is outside its shape
    events = _walk(ARG_DIM % "", ["self", "dim", "out", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"


FIND_RETURN = """
static const std::initializer_list<op::DataType> LOGSPACE_DTYPE_SUPPORT_LIST = {op::DataType::DT_FLOAT,
                                                                                  op::DataType::DT_BF16};

static bool CheckDtypeValid(const aclTensor* result)
{
    DataType result_dtype = result->GetDataType();
    return std::find(LOGSPACE_DTYPE_SUPPORT_LIST.begin(), LOGSPACE_DTYPE_SUPPORT_LIST.end(), %s) !=
           LOGSPACE_DTYPE_SUPPORT_LIST.end();
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* result, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDtypeValid(result), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_check_function_returning_a_dtype_found_in_a_list_is_a_dtype_rule():
    events = _walk(FIND_RETURN % "result_dtype", ["result", "workspaceSize", "executor"])
    assert [(e.template, e.status) for e in events] == [("dtype_in", 161002)]
    assert events[0].args_dict()["dtypes"] == ["FLOAT", "BF16"] and events[0].args_dict()["param"] == "result"
    events = _walk(FIND_RETURN % "PickDtype(result)", ["result", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"


FORMAT_LOCALS = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto selfFormat = self->GetStorageFormat();
    auto outFormat = %s;
    if (selfFormat != outFormat) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "format of self and out must be the same");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_locals_holding_two_formats_compared_are_a_formats_rule():
    events = _walk(FORMAT_LOCALS % "out->GetStorageFormat()", ["self", "out", "workspaceSize", "executor"])
    assert [(e.template, e.args_dict()) for e in events] == [("formats_equal", {"param": "self", "other": "out"})]
    events = _walk(FORMAT_LOCALS % "PickFormat(out)", ["self", "out", "workspaceSize", "executor"])
    assert events[-1].kind == "unread"


COUNTS = """
static bool CheckShapeValid(const aclTensor* self, const aclTensor* noise, int64_t selfSize, int64_t noiseSize)
{
    if (selfSize > noiseSize) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "tensor size of self larger than noise");
        return false;
    }
    return true;
}

static aclnnStatus CheckParams(const aclTensor* self, const aclTensor* noise, int64_t selfSize, int64_t noiseSize)
{
    %s
    CHECK_RET(CheckShapeValid(self, noise, selfSize, noiseSize), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* noise, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    int64_t selfSize = 0;
    int64_t noiseSize = 0;
    if (self != nullptr) {
        selfSize = self->Numel();
    }
    if (noise != nullptr) {
        noiseSize = noise->Numel();
    }
    auto ret = CheckParams(self, noise, selfSize, noiseSize);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""


def test_an_element_count_taken_when_not_null_is_read_after_the_null_checks():
    nulls = "OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);\n    OP_CHECK_NULL(noise, return ACLNN_ERR_PARAM_NULLPTR);"
    events = _walk(COUNTS % nulls, ["self", "noise", "workspaceSize", "executor"])
    assert [e.template for e in events] == ["null", "null", "dims_compare"]
    assert json.loads(json.dumps(events[2].args_dict())) == {"a": ["numel", "self"], "op": ">",
                                                             "b": ["numel", "noise"]}
    # before noise's null check a null noise would count 0: not read
    events = _walk(COUNTS % "OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);",
                   ["self", "noise", "workspaceSize", "executor"])
    assert [e.kind for e in events] == ["check", "unread"]


INT32_RANGE = """
static DataType GetPromoteDType(const aclTensor *self, const aclScalar *other) {
  auto promoteType = DataType::DT_UNDEFINED;
  if (other->GetDataType() == DataType::DT_INT64) {
    int64_t v = other->ToInt64();
    if (v >= %s && v <= INT32_MAX) {
      promoteType = PromoteType(self->GetDataType(), DataType::DT_INT32);
    } else {
      promoteType = PromoteType(self->GetDataType(), DataType::DT_INT64);
    }
  } else {
    promoteType = PromoteType(self->GetDataType(), other->GetDataType());
  }
  return promoteType;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
  auto promoteType = GetPromoteDType(self, other);
  OP_CHECK_RESULT_DTYPE_CAST_FAILED(promoteType, out->GetDataType(), return ACLNN_ERR_PARAM_INVALID);
  return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("low,read", [("INT32_MIN", True), ("SOME_LIMIT", False)])
def test_a_scalar_compared_with_a_standard_integer_limit_is_a_value_test(low, read):
    events = _walk(INT32_RANGE % low, ["self", "other", "out", "workspaceSize", "executor"])
    if not read:   # a name neither the checkout nor <cstdint> defines: unread
        assert events[-1].kind == "unread"
        return
    text = json.dumps(events[-1].args_dict())
    assert events[-1].template == "castable" and '["cmp", "other", "int64", ">=", -2147483648.0]' in text
    assert '["cmp", "other", "int64", "<=", 2147483647.0]' in text


NOOP_COPY = CHECK_HEADER + """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, bool noopWithEmptyAxes,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    uint64_t dimSize = dim->Size();
    if (dimSize == 0 && %s) {
        CHECK_RET(CheckShapeAndScalarSame(self, out), ACLNN_ERR_PARAM_INVALID);
        auto result = l0op::ViewCopy(self, out, uniqueExecutor.get());
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    OP_CHECK_DTYPE_NOT_SAME(self, out, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NOOP_NAMES = ["self", "dim", "noopWithEmptyAxes", "out", "workspaceSize", "executor"]


def test_a_conjunction_of_no_dims_and_a_flag_guards_its_copy_and_the_checks_after():
    """aclnnMeanV2 (ops-math math/reduce_mean/op_api/aclnn_mean.cpp:339-347): no dims with the noop flag
    check self against out (shapes, or one element each), copy and return; the rest check the others."""
    events = _walk(NOOP_COPY % "noopWithEmptyAxes == true", NOOP_NAMES)
    assert [(e.kind, e.template) for e in events] == [("check", "shapes_equal_or_single"), ("unread-values", ""),
                                                      ("check", "dtypes_equal")]
    g = ("and", ("no-dims", "dim"), ("value", ("flag", "noopWithEmptyAxes")))
    assert dict(events[0].args)["when"] == g and dict(events[1].args)["when"] == g
    assert dict(events[2].args)["when"] == ("not", g)

    def call(dims, noop):
        return CallView({"self": TensorView("FLOAT", (2, 3), "ND"), "out": TensorView("FLOAT16", (3,), "ND")},
                        {"dim": dims, "noopWithEmptyAxes": noop}, frozenset())
    shape_rule, dtype_rule = (predicate(e.template, e.args_dict()) for e in (events[0], events[2]))
    assert shape_rule(call([], True)) and not dtype_rule(call([], True))      # copied: shapes checked only
    assert not shape_rule(call([], False)) and dtype_rule(call([], False))
    assert not shape_rule(call([0], True)) and dtype_rule(call([0], True))


def test_a_conjunction_with_a_part_not_read_stays_unread():
    events = _walk(NOOP_COPY % "IsSpecial(self)", NOOP_NAMES)
    assert events[-1].kind == "unread"


LEN_EMPTY = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (dim->Size() %s 1 && self->IsEmpty()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected self to be not empty tensor.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("op", ["!=", ">"])
def test_an_empty_tensor_refused_for_some_lengths_of_an_integer_array(op):
    """aclnnAminmax (ops-math math/reduce_min/op_api/aclnn_aminmax.cpp:89-92): with no one dim named,
    self must not be empty: the ``empty`` rule under the array's length."""
    events = _walk(LEN_EMPTY % op, ["self", "dim", "out", "workspaceSize", "executor"])
    assert [(e.kind, e.template) for e in events] == [("check", "empty")]
    assert dict(events[0].args) == {"params": ("self",), "any": True, "when": ("attr-len", "dim", op, 1)}
    rule = predicate("empty", events[0].args_dict())

    def call(dims, shape):
        return CallView({"self": TensorView("FLOAT", shape, "ND")}, {"dim": dims}, frozenset())
    assert rule(call([0, 1], (0, 3))) and not rule(call([0, 1], (2, 3)))
    assert rule(call([], (0, 3))) is (op == "!=") and not rule(call([1], (0, 3)))


VALUE_CHOSEN = """
static inline bool IsDoubleEqual(double a, double b)
{
    if (std::abs(a - b) <= std::numeric_limits<float>::epsilon()) {
        return true;
    }
    return false;
}

static bool CheckPromoteType(const aclTensor* self, const aclScalar* other, const aclTensor* out,
                             DataType& promoteType)
{
    promoteType = PromoteType(self->GetDataType(), other->GetDataType());
    if (%s) {
        double afterCast = static_cast<double>(other->ToFloat());
        promoteType = IsDoubleEqual(afterCast, other->ToDouble()) ? self->GetDataType() : promoteType;
    }
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Self dtype %%s and other dtype %%s can not promote dtype.",
                ToString(self->GetDataType()).GetString(), ToString(other->GetDataType()).GetString());
        return false;
    }
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    DataType promoteType;
    CHECK_RET(CheckPromoteType(self, other, out, promoteType), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
VALUE_NAMES = ["self", "other", "out", "workspaceSize", "executor"]
DOUBLE_OTHER = "other->GetDataType() == DataType::DT_DOUBLE"


def _dtypes(**dtypes) -> CallView:
    return CallView({n: TensorView(d, (2,), "ND") for n, d in dtypes.items()}, {}, frozenset())


def test_a_dtype_chosen_on_a_scalar_value_is_checked_where_both_choices_answer_alike():
    # promoteType is self's dtype or PromoteType(self, other), as other's value says: the check fails
    # when both are undefined; self's dtype is floating there, so neither is, and no call is left unread
    double_floating = ["and", ["in", ["of", "other"], ["DOUBLE"]], ["in", ["of", "self"], ["floating"]]]
    events = _walk(VALUE_CHOSEN % (f"{DOUBLE_OTHER} && IsFloatingType(self->GetDataType())", ""), VALUE_NAMES)
    promoted = ["promote", ["of", "self"], ["of", "other"]]
    chose_self = ["in", ["if", double_floating, ["of", "self"], promoted], ["UNDEFINED"]]
    chose_promoted = ["in", promoted, ["UNDEFINED"]]
    assert _rules(events) == [
        ("unread", "", {"when": ["or", ["and", chose_self, ["not", chose_promoted]],
                                 ["and", ["not", chose_self], chose_promoted]]}, None),
        ("check", "promotable", {"expr": ["if", double_floating, ["of", "self"], promoted], "other": "self",
                                 "param": "other", "when": chose_promoted}, 161002)]
    differ, rule = events[0].args_dict()["when"], predicate("promotable", events[1].args_dict())
    for self_dtype, other_dtype, fails in (("FLOAT", "UINT32", True), ("INT8", "UINT64", True),
                                           ("FLOAT", "DOUBLE", False), ("BF16", "DOUBLE", False),
                                           ("INT32", "DOUBLE", False), ("UINT32", "DOUBLE", True)):
        call = _dtypes(self=self_dtype, other=other_dtype)
        assert guard_holds(call, differ) is False and rule(call) is fails


def test_a_dtype_chosen_on_a_scalar_value_leaves_unread_the_calls_whose_choices_answer_differently():
    # with any self dtype taking the choice, UINT32 self and a DOUBLE scalar: UINT32 is defined, its
    # promotion with DOUBLE is not: whether the call fails depends on the value, not judged
    events = _walk(VALUE_CHOSEN % (DOUBLE_OTHER, ""), VALUE_NAMES)
    differ, rule = events[0].args_dict()["when"], predicate("promotable", events[1].args_dict())
    assert events[0].kind == "unread"
    assert guard_holds(_dtypes(self="UINT32", other="DOUBLE"), differ) is True
    assert guard_holds(_dtypes(self="FLOAT", other="DOUBLE"), differ) is False
    assert rule(_dtypes(self="FLOAT", other="UINT64")) and not rule(_dtypes(self="UINT32", other="DOUBLE"))
    # a check carrying the chosen dtype itself (no rule reads the undecided choice) stays unread
    events = _walk(VALUE_CHOSEN % (DOUBLE_OTHER, "OP_CHECK_RESULT_DTYPE_CAST_FAILED(promoteType, "
                                   "out->GetDataType(), return false);"), VALUE_NAMES)
    assert events[-1].kind == "unread" and "IsDoubleEqual" in events[-1].text


KEPT_DTYPE = """
static aclnnStatus CheckUnit(const aclTensor *&a, aclOpExecutor *executor)
{
    OP_CHECK(a->GetDataType() == op::DataType::DT_FLOAT,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "unit mode only supports float."),
             return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor *self, bool unit, aclTensor *mOut,
                                      uint64_t *workspaceSize, aclOpExecutor **executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor *held = selfContiguous;
    if (mOut != nullptr) {
        if (selfContiguous->GetViewShape() != mOut->GetViewShape()) {
            held = l0op::Cast(selfContiguous, %s, uniqueExecutor.get());
            CHECK_RET(held != nullptr, ACLNN_ERR_INNER_NULLPTR);
        }
    }
    if (unit) {
        auto ret = CheckUnit(held, uniqueExecutor.get());
        CHECK_RET(ret == ACLNN_SUCCESS, ret);
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_tensor_reassigned_under_a_non_null_branch_keeps_the_dtype_it_has_on_every_path():
    # held is self's contiguous copy, or (mOut given, shapes differing) a cast of it to self's own
    # dtype: self's dtype either way, so CheckUnit refuses a non-FLOAT self when unit is true
    names = ["self", "unit", "mOut", "workspaceSize", "executor"]
    assert _rules(_walk(KEPT_DTYPE % "self->GetDataType()", names)) == [
        ("check", "null", {"param": "self"}, 161001),
        ("check", "dtype_in", {"param": "self", "dtypes": ["FLOAT"], "list": "literal",
                               "when": ["value", ["flag", "unit"]]}, 161002)]
    # a cast to FLOAT16 on one path: held's dtype depends on mOut and the shapes, the check is unread
    assert [e.kind for e in _walk(KEPT_DTYPE % "op::DataType::DT_FLOAT16", names)] == ["check", "unread"]
