"""The extractor on control-flow and call-structure constructs (snippet style): each construct read
into its events, and a variant of it left unread (never a guess)."""
from __future__ import annotations

import json

import pytest

from aclnn_conformance.extract.cpp import read_source
from snippet_walk import walk as _walk


EMPTY = """
%s

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (%s) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "other", "out", "workspaceSize", "executor"]
HELPER_IF = """static bool HasEmptyTensor(const aclTensor* x, const aclTensor* y)
{
    if (x->IsEmpty() || y->IsEmpty()) {
        return true;
    }
    return false;
}"""
HELPER_RETURN = """static bool HasEmptyTensor(const aclTensor* x, const aclTensor* y)
{
    return x->IsEmpty() || y->IsEmpty();
}"""


@pytest.mark.parametrize("helper", [HELPER_IF, HELPER_RETURN])
def test_an_empty_tensor_helper_is_the_empty_return_on_its_arguments(helper):
    events = _walk(EMPTY % (helper, "HasEmptyTensor(other, self)"), NAMES)
    assert [e.kind for e in events] == ["check", "empty", "check"]     # out's null check: non-empty calls
    assert dict(events[1].args) == {"any": True, "params": ("other", "self")}


def test_an_empty_tensor_helper_testing_both_is_the_all_empty_return():
    events = _walk(EMPTY % (HELPER_IF.replace("||", "&&"), "HasEmptyTensor(other, self)"), NAMES)
    assert [e.kind for e in events] == ["check", "empty", "check"]
    assert dict(events[1].args) == {"any": False, "params": ("other", "self")}


@pytest.mark.parametrize("helper", [
    HELPER_IF.replace("return false;", "return x->GetViewShape().GetDimNum() == 0;"),
    HELPER_IF.replace("if (x->IsEmpty()", "OP_LOGD(\"x\");\n    if (x->IsEmpty()"),
])
def test_an_empty_tensor_helper_of_another_shape_stays_unread(helper):
    events = _walk(EMPTY % (helper, "HasEmptyTensor(other, self)"), NAMES)
    assert [e.kind for e in events][:1] == ["check"] and "empty" not in [e.kind for e in events]
    assert events[-1].kind == "unread"


def test_an_empty_tensor_helper_on_a_local_stays_unread():
    events = _walk(EMPTY % (HELPER_IF, "HasEmptyTensor(selfCopy, self)"), NAMES)
    assert "empty" not in [e.kind for e in events] and events[-1].kind == "unread"


AFTER = """
static bool CheckShape(const aclTensor* self, const aclTensor* other)
{
    OP_CHECK_BROADCAST(self, other, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty() || other->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    %s
    CHECK_RET(CheckShape(self, other), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_check_after_the_empty_return_applies_to_the_calls_not_empty():
    events = _walk(AFTER % "auto x = l0op::Contiguous(self, uniqueExecutor.get());", NAMES)
    assert [e.kind for e in events] == ["check", "empty", "check"]
    when = dict(events[2].args)["when"]
    assert when == ("not", ("empty", ("other", "self"), True))


def test_a_construct_unread_before_the_check_after_the_empty_return_keeps_the_scan():
    events = _walk(AFTER % "if (self->GetViewShape().GetDim(0) > GetCoreNum()) { return ACLNN_SUCCESS; }", NAMES)
    assert [e.kind for e in events] == ["check", "empty", "unread"]
    assert "a parameter check after the checks the reader follows" in events[2].text


NEUTRAL = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    if (CalcShapeProd(self) == 1) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto r = l0op::Mul(self, other, uniqueExecutor.get());
    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    %s
    return ACLNN_SUCCESS;
}
"""


def test_a_success_return_on_an_unread_condition_after_the_empty_return_leaves_the_values_unjudged():
    """The calls not empty: those taking the branch succeed, the others go on to nothing the reader
    finds a check in (a kernel's result named with a parameter status is none): the statuses are
    read, the values not judged; a check after it keeps the branch unread."""
    assert [e.kind for e in _walk(NEUTRAL % "", NAMES)] == ["check", "empty", "unread-values"]
    checked = NEUTRAL % "OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);"
    assert [e.kind for e in _walk(checked, NAMES)] == ["check", "empty", "unread"]


def test_a_branch_on_contiguity_that_returns_leaves_the_checks_after_it_to_the_other_calls():
    events = _walk(AFTER % "if (IsContiguous(self) && IsContiguous(out)) { return ACLNN_SUCCESS; }", NAMES)
    # the calls returning without a kernel: statuses read, values not judged
    assert [e.kind for e in events] == ["check", "empty", "unread-values", "check"]
    assert events[3].template == "broadcastable"
    assert dict(events[3].args)["when"] == (
        "and", ("not", ("empty", ("other", "self"), True)),
        ("not", ("and", ("contiguous", ("self",)), ("contiguous", ("out",)))))
    # a local's contiguity is no guard the templates can evaluate: unread
    events = _walk(AFTER % "auto c = l0op::Contiguous(self, uniqueExecutor.get());\n"
                           "    if (IsContiguous(c)) { return ACLNN_SUCCESS; }", NAMES)
    assert [e.kind for e in events] == ["check", "empty", "unread"]


def test_the_contiguous_guard_follows_opbase_is_contiguous():
    from aclnn_conformance.spec.templates import guard_holds, view_of_case
    from aclnn_conformance.spec.case import Case, TensorArg
    from aclnn_conformance.spec.enums import AclDataType, AclFormat
    from aclnn_conformance.spec.tensor import TensorDesc
    import numpy as np

    def arg(shape, strides, fmt=AclFormat.ND):
        desc = TensorDesc(AclDataType.FLOAT, shape, strides, 0, fmt, (6,))
        return TensorArg(desc, np.zeros(6, np.float32))
    case = Case(op="snip", case_id="c", tensors={
        "row_major": arg((2, 3), (3, 1)), "transposed": arg((2, 3), (1, 2)),
        "size_one_dims": arg((1, 3, 1), (7, 1, 5)),          # a size-1 dim may carry any stride
        "one_element": arg((1, 1), (9, 9)), "private": arg((2, 3), (1, 2), AclFormat.FRACTAL_NZ),
        "absent": None}, attrs={})
    call = view_of_case(case)
    held = {n: guard_holds(call, ("contiguous", (n,))) for n in case.tensors}
    assert held == {"row_major": True, "transposed": False, "size_one_dims": True, "one_element": True,
                    "private": True, "absent": True}   # opbase: IsContiguous(nullptr) is true
    assert guard_holds(call, ("contiguous", ("row_major", "transposed"))) is False


def test_the_empty_guard_holds_on_the_empty_tensors():
    from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
    call = CallView({"self": TensorView("FLOAT", (2, 0), "ND"), "other": TensorView("FLOAT", (2,), "ND")},
                    {}, frozenset())
    assert guard_holds(call, ["empty", ["self", "other"], True]) is True
    assert guard_holds(call, ["empty", ["self", "other"], False]) is False
    assert guard_holds(call, ["not", ["empty", ["other"], True]]) is True


@pytest.mark.parametrize("line, kinds", [
    ("auto c = l0op::Contiguous(self, uniqueExecutor.get());\n    CHECK_RET(c != nullptr, ACLNN_ERR_PARAM_NULLPTR);",
     ["check", "empty", "check"]),
    # a cast of a dtype no check bounds, checked with a parameter status: not judged where self's dtype
    # is outside the conversions AICPU makes (an unread rule under that guard), read on for the rest
    ("auto c = l0op::Cast(self, DataType::DT_FLOAT, uniqueExecutor.get());\n    CHECK_RET(c != nullptr, ACLNN_ERR_PARAM_NULLPTR);",
     ["check", "empty", "unread", "check"]),
    # a kernel's result, whatever status the op_api names: the kernel's own failure, read for no API
    ("auto r = l0op::Ger(self, other, uniqueExecutor.get());\n    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);",
     ["check", "empty", "check"]),
    # a kernel's result on both paths of a dtype branch (one a choice between two kernels)
    ("const aclTensor* r = nullptr;\n    if (self->GetDataType() == DataType::DT_FLOAT) {\n"
     "        r = l0op::Ger(self, other, uniqueExecutor.get());\n    } else {\n"
     "        r = other->GetDataType() == DataType::DT_BOOL ? l0op::LogicalAnd(self, other, uniqueExecutor.get()) :\n"
     "            l0op::Mul(self, other, uniqueExecutor.get());\n    }\n"
     "    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);", ["check", "empty", "check"]),
    # an else-if chain on scalar values, a kernel's result on every path (one checked in its branch)
    ("const aclTensor* r = nullptr;\n    if (IsScalarOne(alpha)) {\n"
     "        r = l0op::Sub(self, other, uniqueExecutor.get());\n    } else if (UseAxpy(alpha)) {\n"
     "        r = l0op::Axpy(self, other, 1.0f, uniqueExecutor.get());\n    } else {\n"
     "        auto m = l0op::Mul(self, other, uniqueExecutor.get());\n"
     "        CHECK_RET(m != nullptr, ACLNN_ERR_PARAM_NULLPTR);\n"
     "        r = l0op::Sub(other, m, uniqueExecutor.get());\n    }\n"
     "    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);", ["check", "empty", "check"]),
    # the chain without its last else: null on the calls taking none of its branches
    ("const aclTensor* r = nullptr;\n    if (IsScalarOne(alpha)) {\n"
     "        r = l0op::Sub(self, other, uniqueExecutor.get());\n    } else if (UseAxpy(alpha)) {\n"
     "        r = l0op::Axpy(self, other, 1.0f, uniqueExecutor.get());\n    }\n"
     "    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);", ["check", "empty", "unread"]),
    # on one path only: null on the other, where the check fails
    ("const aclTensor* r = nullptr;\n    if (self->GetDataType() == DataType::DT_FLOAT) {\n"
     "        r = l0op::Ger(self, other, uniqueExecutor.get());\n    }\n"
     "    CHECK_RET(r != nullptr, ACLNN_ERR_PARAM_NULLPTR);", ["check", "empty", "unread"]),
])
def test_a_contiguous_copy_or_a_kernels_result_checked_against_nullptr_is_no_parameter_check(line, kinds):
    assert [e.kind for e in _walk(AFTER % line, NAMES)] == kinds


WARN = """
static void CheckFormat(const aclTensor* self)
{
    %s
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CheckFormat(self);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("body, kinds", [
    ('OP_CHECK_NO_RETURN(self->GetStorageFormat() != Format::FORMAT_FRACTAL_NZ, OP_LOGW("nz"));', ["check"]),
    ('OP_CHECK_NO_RETURN(self->GetStorageFormat() != Format::FORMAT_FRACTAL_NZ, return);', ["unread"]),
    ('OP_CHECK_NULL(self, return);', ["unread"]),
])
def test_a_dropped_call_that_only_warns_is_no_check(body, kinds):
    assert [e.kind for e in _walk(WARN % body, NAMES)] == kinds


FALSE = """
static bool CheckOpt(const aclTensor* x)
{
    OP_CHECK_NULL(x, return false);
    return true;
}

static bool CheckAll(const aclTensor* self, const aclTensor* other)
{
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAll(self, other), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("body", ["auto ok = CheckOpt(other);\n    CHECK_RET(ok, false);",
                                  "CHECK_RET(CheckOpt(other), false);"])
def test_check_ret_false_reads_the_call_with_the_callers_status(body):
    events = _walk(FALSE % body, NAMES)
    assert [(e.kind, e.template, dict(e.args).get("param"), e.status) for e in events] == [
        ("check", "null", "other", 161002)]


def test_check_ret_false_on_a_condition_reads_it_as_a_failure_with_the_callers_status():
    body = ("const op::Shape& selfShape = self->GetViewShape();\n    op::Shape broadcastShape;\n"
            "    OP_CHECK_BROADCAST_AND_INFER_SHAPE(other, self, broadcastShape, return false);\n"
            "    CHECK_RET(selfShape == broadcastShape, false);")
    events = _walk(FALSE % body, NAMES)
    assert [(e.kind, e.template, e.args_dict(), e.status) for e in events] == [
        ("check", "broadcastable", {"param": "other", "other": "self"}, 161002),
        ("check", "broadcast_equals", {"param": "self", "of": ["other", "self"]}, 161002)]


def test_check_ret_false_on_a_value_that_is_no_check_call_stays_unread():
    events = _walk(FALSE % "auto ok = other->GetViewShape().GetDimNum() > 2;\n    CHECK_RET(ok, false);", NAMES)
    assert [e.kind for e in events] == ["unread"]


def test_a_string_literal_continued_by_a_backslash_newline_keeps_the_functions_after_it():
    body = ('static bool CheckShape(const aclTensor* self)\n{\n    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "a \\\n'
            '        b %ld", 1);\n    return true;\n}\n\n'
            'static aclnnStatus CheckParams(const aclTensor* self)\n{\n'
            '    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);\n    return ACLNN_SUCCESS;\n}\n')
    src = read_source("snippet.cpp", body)
    assert set(src.functions) == {"CheckShape", "CheckParams"}
    assert src.line_of(src.functions["CheckParams"].body_offset) == 9


INPLACE = """
static aclnnStatus CheckInplace(const aclTensor* selfRef, const aclTensor* other)
{
    OP_CHECK_NULL(selfRef, return false);
    %s
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto ret = CheckInplace(self, other);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


def test_return_false_in_a_status_function_is_success_a_null_guard_for_the_rest():
    events = _walk(INPLACE % "OP_CHECK_SHAPE_NOT_EQUAL(selfRef, other, return ACLNN_ERR_PARAM_INVALID);", NAMES)
    assert [(e.kind, e.template, e.status) for e in events] == [
        ("check", "shapes_equal", 161002), ("check", "null", 161001)]


def test_a_check_after_it_that_a_null_tensor_fails_stays_unread():
    events = _walk(INPLACE % "OP_CHECK_NULL(other, return ACLNN_ERR_PARAM_NULLPTR);", NAMES)
    assert [e.kind for e in events] == ["unread"]


UNDEFINED = """
static bool CheckPromoteType(const aclTensor* self, op::DataType promoteType)
{
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cannot promote");
        return false;
    }
    if (promoteType == DataType::DT_FLOAT) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckPromoteType(self, out->GetDataType()), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_tensors_own_dtype_against_undefined_is_a_dtype_rule_and_makes_no_fault_case():
    events = _walk(UNDEFINED, NAMES)
    assert [(e.template, e.args_dict(), e.status) for e in events] == [
        ("dtype_not_in", {"param": "out", "dtypes": ["UNDEFINED"], "list": "literal"}, 161002),
        ("dtype_not_in", {"param": "out", "dtypes": ["FLOAT"], "list": "literal"}, 161002)]
    from aclnn_conformance.suites.faults.surface import _candidates
    rule = {"template": "dtype_not_in", "args": {"param": "out", "dtypes": ["UNDEFINED", "FLOAT"]}}
    assert len(_candidates(rule)) == 1     # a tensor of no storage type cannot be built: FLOAT alone


SCALAR = """
static bool CheckAttr(const aclScalar* alpha, bool isResult)
{
    if (!(alpha->ToFloat() > 0 || alpha->ToFloat() < 0)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "alpha must not be 0");
        return false;
    }
    if (isResult && (0.5 <= alpha->ToDouble())) {
        return false;
    }
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclScalar* alpha, bool isResult,
                                      aclTensor* out, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAttr(alpha, isResult), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
SCALAR_NAMES = ["self", "alpha", "isResult", "out", "workspaceSize", "executor"]


def test_conditions_on_scalar_values_and_bool_flags_are_one_value_test_each():
    events = _walk(SCALAR % "", SCALAR_NAMES)
    assert [(e.template, json.loads(json.dumps(e.args_dict())), e.status) for e in events] == [
        ("scalar_test", {"test": ["not", ["or", ["cmp", "alpha", "float", ">", 0.0],
                                                ["cmp", "alpha", "float", "<", 0.0]]]}, 161002),
        ("scalar_test", {"test": ["and", ["flag", "isResult"], ["cmp", "alpha", "double", ">=", 0.5]]},
         161002)]
    # a scalar against anything but a number (another scalar, a call) stays unread
    events = _walk(SCALAR % "if (alpha->ToFloat() < self->GetViewShape().GetDim(0)) { return false; }",
                   SCALAR_NAMES)
    assert events[-1].kind == "unread"


def test_the_value_test_follows_to_float_and_ieee_comparisons():
    from aclnn_conformance.spec.templates import CallView, predicate
    zero = predicate("scalar_test", {"test": ["not", ["or", ["cmp", "alpha", "float", ">", 0.0],
                                                            ["cmp", "alpha", "float", "<", 0.0]]]})
    call = lambda value, flag=False: CallView(  # noqa: E731
        {}, {"alpha": {"dtype": "DOUBLE", "value": value}, "isResult": flag}, frozenset())
    assert zero(call(0.0)) and zero(call(-0.0)) and zero(call(float("nan")))
    assert zero(call(1e-50))          # ToFloat rounds the double to float32: 0, rejected
    # a FLOAT scalar carries float32 bytes: ToDouble of 1e-50 held there is 0 too
    tiny = predicate("scalar_test", {"test": ["cmp", "alpha", "double", "==", 0.0]})
    assert tiny(CallView({}, {"alpha": {"dtype": "FLOAT", "value": 1e-50}}, frozenset()))
    assert not tiny(CallView({}, {"alpha": {"dtype": "DOUBLE", "value": 1e-50}}, frozenset()))
    assert not zero(call(1e-30)) and not zero(call(-2.0))
    assert not zero(CallView({}, {"alpha": None}, frozenset()))   # a null scalar is the null rule's
    flagged = predicate("scalar_test", {"test": ["and", ["flag", "isResult"],
                                                 ["cmp", "alpha", "double", "<", 0.0]]})
    assert flagged(call(-1.0, True)) and not flagged(call(-1.0, False)) and not flagged(call(1.0, True))


PROMOTED = """
static const std::initializer_list<op::DataType> UNSUPPORTED = {op::DataType::DT_INT8, op::DataType::DT_BOOL};

static bool CheckPromote(const aclTensor* self, const aclTensor* other, const aclTensor* out)
{
    op::DataType promoteType = op::PromoteType(self->GetDataType(), other->GetDataType());
    if (CheckType(promoteType, UNSUPPORTED)) {
        return false;
    }
    if (promoteType != out->GetDataType()) {
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckPromote(self, other, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_computed_dtype_in_a_refused_list_and_against_a_tensors_dtype():
    from aclnn_conformance.spec.templates import CallView, TensorView, predicate
    events = _walk(PROMOTED, NAMES)
    got = [(e.template, json.loads(json.dumps(e.args_dict()))) for e in events]
    promoted = ["promote", ["of", "self"], ["of", "other"]]
    assert [t for t, _ in got] == ["dtype_expr_in", "dtypes_equal_expr"]
    assert got[0][1]["expr"] == promoted and got[0][1]["dtypes"] == ["INT8", "BOOL"]
    assert got[1][1] == {"param": "out", "expr": promoted}
    call = lambda a, b, o: CallView({"self": TensorView(a, (2,), "ND"), "other": TensorView(b, (2,), "ND"),  # noqa: E731
                                     "out": TensorView(o, (2,), "ND")}, {}, frozenset())
    refused, equal = (predicate(t, a) for t, a in got)
    assert refused(call("INT8", "BOOL", "INT8")) and not refused(call("INT8", "INT32", "INT32"))
    assert equal(call("FLOAT16", "FLOAT", "FLOAT16")) and not equal(call("FLOAT16", "FLOAT", "FLOAT"))


CONTIGUOUS_COPY = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_PARAM_NULLPTR);
    auto selfDtype = selfContiguous->GetDataType();
    if (selfDtype == op::DataType::DT_COMPLEX64) {
        OP_CHECK_MAX_DIM(self, 7, return ACLNN_ERR_PARAM_INVALID);
    }
    %s
    return ACLNN_SUCCESS;
}
"""


def test_a_contiguous_copy_keeps_its_arguments_dtype_and_is_no_tensor_of_the_api():
    events = _walk(CONTIGUOUS_COPY % "", NAMES)
    assert [(e.kind, e.template) for e in events] == [("check", "rank_range")]   # the copy's null check: none
    assert dict(events[0].args)["when"] == ("in", ("of", "self"), ("COMPLEX64",))
    # a check made on the copy itself is not read as a check of the argument
    events = _walk(CONTIGUOUS_COPY % "OP_CHECK_MAX_DIM(selfContiguous, 4, return ACLNN_ERR_PARAM_INVALID);", NAMES)
    assert events[-1].kind == "unread"


PRODUCT_INSIDE = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (op::IsPrivateFormat(self->GetStorageFormat())) {
        if (IsRegBase()) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Format only support ND.");
            return ACLNN_ERR_PARAM_INVALID;
        } else {
            %s
        }
    }
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("product,first", [("ascend950", "private_format"), ("atlas-a2", "null")])
def test_a_data_branch_holding_a_product_branch_fails_on_the_products_that_fail(product, first):
    events = _walk(PRODUCT_INSIDE % 'OP_LOGW("this format may lose precision.");', NAMES, product)
    assert [e.template for e in events][0] == first and events[-1].template == "null"


def test_a_product_branch_whose_other_side_checks_a_parameter_stays_unread_there():
    events = _walk(PRODUCT_INSIDE % "OP_CHECK_NULL(other, return ACLNN_ERR_PARAM_NULLPTR);", NAMES, "atlas-a2")
    assert events[0].kind == "unread"


FORMAT_LIST = """
static const std::initializer_list<op::Format> FORMAT_SUPPORT_LIST = {
    op::Format::FORMAT_ND, op::Format::FORMAT_NCHW, op::Format::FORMAT_NCDHW};

static bool CheckFormatValid(const aclTensor* self, const aclTensor* out)
{
    op::Format selfFormat = self->GetStorageFormat();
    op::Format outFormat = out->GetStorageFormat();
    auto findSelfFormat = std::find(FORMAT_SUPPORT_LIST.begin(), FORMAT_SUPPORT_LIST.end(), selfFormat);
    auto findOutFormat = std::find(FORMAT_SUPPORT_LIST.begin(), FORMAT_SUPPORT_LIST.end(), outFormat);
    if (findSelfFormat != FORMAT_SUPPORT_LIST.end() && findOutFormat != FORMAT_SUPPORT_LIST.end()) {
        return true;
    } else {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Format only support ND, NCHW and NCDHW.");
        %s
    }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckFormatValid(self, out), ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_WRONG_DIMENSION(out, self->GetViewShape().GetDimNum(), return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_formats_found_in_a_list_and_a_rank_equal_to_another_tensors_are_read():
    events = _walk(FORMAT_LIST % "return false;", NAMES)
    assert [(e.template, dict(e.args)) for e in events] == [
        ("format_in", {"param": "self", "formats": ("ND", "NCHW", "NCDHW")}),
        ("format_in", {"param": "out", "formats": ("ND", "NCHW", "NCDHW")}),
        ("ranks_equal", {"param": "out", "other": "self"})]
    assert {e.status for e in events} == {161002}


def test_a_true_branch_whose_else_does_more_than_fail_stays_unread():
    events = _walk(FORMAT_LIST % "CHECK_RET(other != nullptr, false);\n        return false;", NAMES)
    assert events[0].kind == "unread"


FORMAT_LOCAL = """
static const std::initializer_list<op::Format> FORMAT_SUPPORT_LIST = {
    op::Format::FORMAT_ND, op::Format::FORMAT_NCHW, op::Format::FORMAT_NCDHW};

static bool CheckFormatValid(const aclTensor* self, const aclTensor* out)
{
    op::Format selfFormat = self->GetStorageFormat();
    op::Format outFormat = out->GetStorageFormat();
    auto findSelfFormat = std::find(FORMAT_SUPPORT_LIST.begin(), FORMAT_SUPPORT_LIST.end(), selfFormat);
    auto findOutFormat = std::find(FORMAT_SUPPORT_LIST.begin(), FORMAT_SUPPORT_LIST.end(), outFormat);
    bool formatValid = findSelfFormat != FORMAT_SUPPORT_LIST.end() && findOutFormat != FORMAT_SUPPORT_LIST.end();
    %s
    if (!formatValid) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "format invalid.");
    }
    return formatValid;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckFormatValid(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_check_returning_a_condition_held_in_a_local_fails_where_it_does_not_hold():
    # the branch that only logs is no check; the returned local's conjuncts are the checks
    events = _walk(FORMAT_LOCAL % "", NAMES)
    assert [(e.template, dict(e.args), e.status) for e in events] == [
        ("format_in", {"param": "self", "formats": ("ND", "NCHW", "NCDHW")}, 161002),
        ("format_in", {"param": "out", "formats": ("ND", "NCHW", "NCDHW")}, 161002)]


def test_a_check_returning_a_local_set_twice_is_unread():
    events = _walk(FORMAT_LOCAL % "formatValid = formatValid && self->GetViewShape().GetDim(0) > 2;", NAMES)
    assert events[-1].kind == "unread"


def test_a_check_returning_a_local_false_on_the_product_fails_every_call():
    # ``valid && IsRegBase()`` is false where the product is no regbase one
    events = _walk(FORMAT_LOCAL % "formatValid = formatValid && IsRegBase();", NAMES)
    assert [(e.template, e.status) for e in events] == [("product", 161002)]


BOTH_SIDES = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (IsNonContiguousSupport(self)) {
        auto selfView = l0op::Contiguous(self, uniqueExecutor.get());
        CHECK_RET(selfView != nullptr, ACLNN_ERR_INNER_NULLPTR);
        OP_CHECK_SHAPE_NOT_EQUAL(out, self, return ACLNN_ERR_PARAM_INVALID);
    } else {
        auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
        CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
        OP_CHECK_SHAPE_NOT_EQUAL(out, %s, return ACLNN_ERR_PARAM_INVALID);
    }
    return ACLNN_SUCCESS;
}
"""


@pytest.mark.parametrize("other,read", [("self", True), ("other", False)])
def test_a_branch_whose_sides_make_the_same_checks_holds_them_for_every_call(other, read):
    events = _walk(BOTH_SIDES % other, NAMES)
    if read:   # the condition unread, but either side checks the same: one unguarded rule
        assert [(e.template, dict(e.args)) for e in events] == [("shapes_equal", {"param": "out", "other": "self"})]
    else:
        assert events[-1].kind == "unread" and "holding checks" in events[-1].text


ALWAYS_FALSE = """
static bool IsNonContiguousSupport(const aclTensor* self)
{
    if (!IsRegBase()) {
        return false;
    }
    if (!CheckType(self->GetDataType(), NON_CONTIGUOUS_DTYPE_LIST)) {
        return false;
    }
    %s
}
"""


@pytest.mark.parametrize("product", ["ascend950", "atlas-a2"])
def test_a_helper_returning_false_on_every_path_takes_the_other_side_on_every_product(product):
    events = _walk(ALWAYS_FALSE % "return false;" + BOTH_SIDES % "other", NAMES, product)
    assert [(e.template, dict(e.args)) for e in events] == [("shapes_equal", {"param": "out", "other": "other"})]


@pytest.mark.parametrize("tail", [
    "return true;",                                       # true where its tests pass: decided by the data
    "CHECK_RET(self->GetViewShape().GetDimNum() > 0, true);\n    return false;",   # a macro returning true
])
def test_a_helper_that_may_return_another_value_leaves_the_branch_unread_where_its_tests_decide(tail):
    events = _walk(ALWAYS_FALSE % tail + BOTH_SIDES % "other", NAMES, "ascend950")
    assert events[-1].kind == "unread" and "holding checks" in events[-1].text
