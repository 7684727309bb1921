"""``if (a == nullptr && b == nullptr) { log; return false; }`` (ops-math
conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp:132): b null is refused when a is null too; a
parameter bound to a literal ``nullptr`` (aclnn_clamp.cpp:682) makes its part always hold."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds

API = """
static bool CheckNotNull(const aclTensor* self, const aclTensor* lo, const aclTensor* hi, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    if (lo == nullptr && hi == nullptr) {
        OP_LOGE(ACLNN_ERR_PARAM_NULLPTR, "At least one of 'min' or 'max' must not be None.");
        return false;
    }
    return true;
}

static aclnnStatus Common(const aclTensor* self, const aclTensor* lo, const aclTensor* hi, aclTensor* out)
{
    CHECK_RET(CheckNotNull(self, lo, hi, out), ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnBothGetWorkspaceSize(const aclTensor* self, const aclTensor* lo, const aclTensor* hi, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    return Common(self, lo, hi, out);
}

aclnnStatus aclnnHiGetWorkspaceSize(const aclTensor* self, const aclTensor* hi, aclTensor* out,
                                    uint64_t* workspaceSize, aclOpExecutor** executor)
{
    return Common(self, nullptr, hi, out);
}
"""


def _walk(tmp_path, api: str, names: list[str]) -> list:
    (tmp_path / "math").mkdir(exist_ok=True)
    src = read_source("snippet.cpp", API)
    fn = src.functions[api]
    return walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def _call(lo: bool, hi: bool) -> CallView:
    t = TensorView("FLOAT", (2,), "ND")
    return CallView({"self": t, "lo": t if lo else None, "hi": t if hi else None, "out": t}, {}, frozenset())


def test_both_null_is_refused(tmp_path):
    events = _walk(tmp_path, "aclnnBothGetWorkspaceSize", ["self", "lo", "hi", "out", "workspaceSize", "executor"])
    assert [e.kind for e in events] == ["check", "check"]
    check = events[-1]
    args = dict(check.args)
    assert (check.template, args["param"], check.status) == ("null", "hi", 161001)
    assert guard_holds(_call(False, False), args["when"]) is True
    assert guard_holds(_call(True, False), args["when"]) is False


def test_a_literal_null_part_always_holds(tmp_path):
    events = _walk(tmp_path, "aclnnHiGetWorkspaceSize", ["self", "hi", "out", "workspaceSize", "executor"])
    check = events[-1]
    assert (check.kind, check.template, dict(check.args), check.status) == ("check", "null", {"param": "hi"}, 161001)
