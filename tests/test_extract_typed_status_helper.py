"""The extractor on a status helper of scalar values chosen by a switch on the output's dtype (snippet
style, as the vendor writes them): case labels stacked over one braced body ending in ``break``, a
function template ``Helper<float>(a, b, c)`` given locals of ``x->ToFloat()``, ``static_cast<T>(0)``
as 0, the caller failing on ``Helper(...) != ACLNN_SUCCESS`` or on ``Helper(...) == <its one error>``,
and the default case as the output's dtype one of the labels. Each read into its rules, with values
computed by hand from the C++ conversions, and variants left unread."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, predicate, undecided_predicate
from snippet_walk import rules as _rules, walk as _walk

SNIPPET = """
template <typename T>
static aclnnStatus CheckOrder(T lo, T hi, T delta)
{
    if (!(delta > static_cast<T>(0) || delta < static_cast<T>(0))) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "delta is zero.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    if ((delta > static_cast<T>(0) && lo > hi) || (delta < static_cast<T>(0) && lo < hi)) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus CheckValues(const aclScalar* lo, const aclScalar* hi, const aclScalar* delta,
                               const aclTensor* y)
{
    DataType yType = y->GetDataType();
    switch (yType) {
        case DataType::DT_FLOAT16:
        case DataType::DT_FLOAT: {
            float loF = lo->ToFloat();
            float hiF = hi->ToFloat();
            %(float_decl)s deltaF = delta->%(float_read)s();
            if (CheckOrder<float>(loF, hiF, deltaF) != ACLNN_SUCCESS) {
                OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bad order.");
                return ACLNN_ERR_PARAM_INVALID;
            }
            break;
        }
        case DataType::DT_INT64: {
            int64_t loI = lo->ToInt64();
            int64_t hiI = hi->ToInt64();
            int64_t deltaI = delta->ToInt64();
            if (CheckOrder<int64_t>(loI, hiI, deltaI) != ACLNN_SUCCESS) {
                return %(inner)s;
            }
            break;
        }
        default: {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bad dtype.");
            return ACLNN_ERR_PARAM_INVALID;
            break;
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclScalar* lo, const aclScalar* hi, const aclScalar* delta,
                                      aclTensor* y, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    if (CheckValues(lo, hi, delta, y) == %(outer)s) {
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
NAMES = ["lo", "hi", "delta", "y", "workspaceSize", "executor"]
READ = {"inner": "ACLNN_ERR_PARAM_INVALID", "outer": "ACLNN_ERR_PARAM_INVALID", "float_decl": "float",
        "float_read": "ToFloat"}
FLOATS = ["or", ["in", ["of", "y"], ["FLOAT16"]], ["in", ["of", "y"], ["FLOAT"]]]


def _call(y: str, lo, hi, delta, dtype: str = "DOUBLE") -> CallView:
    scalar = lambda v: {"dtype": dtype, "value": v}  # noqa: E731
    return CallView({"y": TensorView(y, (4,), "ND")}, {"lo": scalar(lo), "hi": scalar(hi), "delta": scalar(delta)},
                    frozenset())


def _fails(events, call: CallView) -> bool:
    return any(predicate(e.template, e.args_dict())(call) for e in events if e.kind == "check")


def test_a_typed_status_helper_under_a_dtype_switch_is_one_value_test_per_case():
    events = _walk(SNIPPET % READ, NAMES)
    zero_f = ["not", ["or", ["cmp", "delta", "float", ">", 0.0], ["cmp", "delta", "float", "<", 0.0]]]
    order_i = ["or", ["and", ["cmp", "delta", "int64", ">", 0.0], ["cmp", "lo", "int64", ">", ["arg", "hi", "int64"]]],
               ["and", ["cmp", "delta", "int64", "<", 0.0], ["cmp", "lo", "int64", "<", ["arg", "hi", "int64"]]]]
    int64 = ["in", ["of", "y"], ["INT64"]]
    found = _rules(events)
    assert ("check", "scalar_test", {"test": zero_f, "when": FLOATS}, 161002) in found
    assert ("check", "scalar_test", {"test": order_i, "when": int64}, 161002) in found
    assert found[-1] == ("check", "dtype_in", {"dtypes": ["FLOAT16", "FLOAT", "INT64"], "list": "literal",
                                                "param": "y"}, 161002)
    assert [e.kind for e in events] == ["check"] * 5
    # a double step of 1e-50 is 0 as a C float, not as a double-less int64 read (0 too: truncated)
    assert _fails(events, _call("FLOAT", 0.0, 1.0, 1e-50))
    assert _fails(events, _call("INT64", 0.0, 1.0, 0.5))        # ToInt64(0.5) is 0
    assert not _fails(events, _call("INT64", 0.0, 1.0, 1.5))    # ToInt64(1.5) is 1
    assert not _fails(events, _call("FLOAT", 0.0, 1.0, 0.5))
    assert _fails(events, _call("FLOAT", 2.0, 1.0, 0.5)) and not _fails(events, _call("FLOAT", 1.0, 2.0, 0.5))
    assert not _fails(events, _call("FLOAT", 1.0, 1.0, -0.5))   # equal bounds pass either sign
    # bounds 1 + 2**-30 and 1 differ as doubles, not as C floats: no failure under a FLOAT output
    assert not _fails(events, _call("FLOAT", 1.0 + 2.0 ** -30, 1.0, 1.0))
    # INT64 scalars beyond 2**53 compared exactly (as doubles they would be equal)
    big = 2 ** 53
    assert _fails(events, _call("INT64", big + 1, big, 1, dtype="INT64"))
    assert not _fails(events, _call("INT64", big, big + 1, 1, dtype="INT64"))
    assert _fails(events, _call("INT32", 0.0, 1.0, 1.0))       # the default case
    # a NaN step is neither above nor below 0 as a float; as an int64 it has no reading (undefined)
    nan = float("nan")
    assert _fails(events, _call("FLOAT", 0.0, 1.0, nan))
    open_on = [undecided_predicate(e.template, e.args_dict()) for e in events]
    assert [u(_call("INT64", 0.0, 1.0, nan)) for u in open_on if u] == [False, False, True, True]
    assert not any(u(_call("INT64", 0.0, 1.0, 1.0)) or u(_call("FLOAT", 0.0, 1.0, nan)) for u in open_on if u)


def test_a_helper_failing_with_a_status_the_caller_does_not_test_stays_unread():
    events = _walk(SNIPPET % {**READ, "inner": "ACLNN_ERR_PARAM_NULLPTR"}, NAMES)
    assert events[-1].kind == "unread" and "other than the one its caller tests" in events[-1].text


def test_the_caller_testing_success_reads_every_failure_of_the_helper():
    text = SNIPPET % {**READ, "inner": "ACLNN_ERR_PARAM_NULLPTR", "outer": "ACLNN_SUCCESS"}
    events = _walk(text.replace("y) == ACLNN_SUCCESS)", "y) != ACLNN_SUCCESS)"), NAMES)
    assert [e.kind for e in events] == ["check"] * 5 and {e.status for e in events} == {161002}


def test_a_template_given_a_value_of_another_type_stays_unread():
    # a double local passed as float: the C++ converts it once more, not read here
    events = _walk(SNIPPET % {**READ, "float_decl": "double", "float_read": "ToDouble"}, NAMES)
    assert events[-1].kind == "unread" and "passed as float to CheckOrder" in events[-1].text


def test_a_braced_case_body_without_break_falls_through_and_stays_unread():
    text = SNIPPET % READ
    cut = text.index("            break;\n        }\n        case DataType::DT_INT64")
    events = _walk(text[:cut] + text[cut + len("            break;\n"):], NAMES)
    assert events[-1].kind == "unread" and "falling through" in events[-1].text
