"""The status a check is read with when the host code maps it: a checker's failures returned as the
status its CHECK_RET names (``F(...) == ACLNN_SUCCESS``), and an API argument checked against
nullptr with an inner status."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api

NAMES = ["self", "out", "workspaceSize", "executor"]


def _walk(body: str) -> list:
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


CHECKER = """
static aclnnStatus CheckNotNullPair(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_INNER_NULLPTR);
    OP_CHECK_NULL(out, return ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    %s
    return ACLNN_SUCCESS;
}
"""


def test_a_checkers_failures_take_the_status_its_check_ret_names():
    events = _walk(CHECKER % "CHECK_RET(CheckNotNullPair(self, out) == ACLNN_SUCCESS, ACLNN_ERR_PARAM_NULLPTR);")
    assert [(e.template, dict(e.args)["param"], e.status) for e in events] == [
        ("null", "self", 161001), ("null", "out", 161001)]


def test_a_checker_whose_status_is_passed_on_keeps_its_own():
    events = _walk(CHECKER % "auto ret = CheckNotNullPair(self, out);\n    CHECK_RET(ret == ACLNN_SUCCESS, ret);")
    assert [(e.template, e.status) for e in events] == [("null", 561103), ("null", 561103)]


def test_an_argument_checked_with_an_inner_status_is_a_null_rule_with_it():
    events = _walk(CHECKER % "CHECK_RET(self != nullptr, ACLNN_ERR_INNER_NULLPTR);")
    assert [(e.template, dict(e.args)["param"], e.status) for e in events] == [("null", "self", 561103)]


def test_an_inner_check_of_a_compute_local_is_no_rule():
    events = _walk(CHECKER % "auto c = l0op::Contiguous(self, nullptr);\n    CHECK_RET(c != nullptr, ACLNN_ERR_INNER_NULLPTR);")
    assert events == []
