"""The extractor on a variadic check template (snippet style, as ops-nn's
aclnn_binary_cross_entropy_with_logits_target_backward.cpp writes it): a parameter pack binding the
remaining arguments, ``if constexpr (sizeof...(args) > 0)`` decided by the pack's length, the recursive
call on the expanded pack, and ``std::is_same_v<std::remove_const_t<T>, aclTensor*>`` decided by each
argument's declared type: T deduced from ``const T&`` for a ``const aclTensor*`` argument is a pointer to
const, which ``remove_const_t`` leaves as it is, so only the non-const tensors get the rank check."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.host_code.templates import CppType, declared_type
from snippet_walk import rules as _rules, walk as _walk

SNIPPET = """
static const int64_t MAX_DIMS = 8;

template <typename T, typename... Ts>
static bool CheckDimension(const T& t, const Ts&... args)
{
    if constexpr (std::is_same_v<std::remove_const_t<T>, aclTensor*>) {
        if (t) {
            OP_CHECK_MAX_DIM(t, MAX_DIMS, return false);
        }
    }
    if constexpr (sizeof...(args) > 0) {
        return CheckDimension(args...);
    }
    return true;
}

static aclnnStatus CheckParams(const aclTensor* self, const aclTensor* weightOptional, aclTensor* out,
                               aclTensor* grad)
{
    CHECK_RET(CheckDimension(%(args)s), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* weightOptional, aclTensor* out,
                                      aclTensor* grad, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto ret = CheckParams(self, weightOptional, out, grad);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "weightOptional", "out", "grad", "workspaceSize", "executor"]


def _checks(args: str) -> list[tuple]:
    return [r for r in _rules(_walk(SNIPPET % {"args": args}, NAMES)) if r[0] != "empty"]


def _rank(param: str) -> tuple:
    return ("check", "rank_range", {"param": param, "max": 8}, 161002)


def test_the_pack_is_read_argument_by_argument_and_only_non_const_tensors_are_checked():
    # self and weightOptional are ``const aclTensor*``: is_same_v is false for them
    assert _checks("self, weightOptional, out, grad") == [_rank("out"), _rank("grad")]
    assert _checks("grad, self, out") == [_rank("grad"), _rank("out")]


def test_only_const_tensors_check_nothing():
    assert _checks("self, weightOptional") == []


def test_a_pack_of_one_argument_is_the_first_parameter_alone():
    assert _checks("out") == [_rank("out")]
    assert _checks("self") == []


def test_a_parameter_of_a_deduced_type_passed_on_keeps_that_type():
    # t is ``const T&`` of T = aclTensor*, so aclTensor* const, from which CheckDimension deduces aclTensor*
    forwarding = SNIPPET.replace("static aclnnStatus CheckParams", """template <typename T, typename... Ts>
static bool Forward(const T& t, const Ts&... args)
{
    return CheckDimension(t, args...);
}

static aclnnStatus CheckParams""").replace("CheckDimension(%(args)s)", "Forward(%(args)s)")
    assert [r for r in _rules(_walk(forwarding % {"args": "out, self"}, NAMES)) if r[0] != "empty"] == [
        _rank("out")]


def test_a_condition_the_instantiation_does_not_decide_is_unread():
    text = SNIPPET.replace("sizeof...(args) > 0", "sizeof...(args) > MAX_DIMS") % {"args": "out, grad"}
    events = [e for e in _walk(text, NAMES) if e.kind != "empty"]
    # the first argument's check runs before the condition that decides whether the rest are read
    assert [(e.kind, e.template) for e in events] == [("check", "rank_range"), ("unread", "")]
    assert "compile-time condition" in events[1].text


@pytest.mark.parametrize("text, expected", [
    ("const aclTensor*", CppType("aclTensor", True, (False,))),
    ("aclTensor* const", CppType("aclTensor", False, (True,))),
    ("aclTensor const *", CppType("aclTensor", True, (False,))),
    ("const int64_t", CppType("int64_t", True, ())),
])
def test_declared_types(text, expected):
    assert declared_type(text).type == expected


def test_remove_const_drops_only_the_top_level_const():
    assert declared_type("const aclTensor*").type.without_top_const() == CppType("aclTensor", True, (False,))
    assert declared_type("aclTensor* const").type.without_top_const() == CppType("aclTensor", False, (False,))
    assert declared_type("const Ts&...").pack and declared_type("const T&").reference
