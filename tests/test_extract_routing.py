"""A branch on a lower layer's routing predicate (after ops-nn index/scatter_elements_v2/op_api:
``l0op::SupportNoTranspose``, scatter_elements.cpp:647-710, chosen at aclnn_scatter.cpp:804-811): the
predicate's early returns on a null or empty tensor and on the NPU architecture are read, the rest
(a heuristic) is not. Expected events worked out by hand from the snippet."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api

KERNEL = """
namespace l0op {
static bool BaseCheck(const aclTensor* x)
{
    if (x == nullptr) {
        OP_LOGD("no null");
        return false;
    }
    if (x->IsEmpty()) {
        return false;
    }
    auto curArch = GetCurrentPlatformInfo().GetCurNpuArch();
    if (curArch != NpuArch::DAV_2201) {
        OP_LOGD("only 2201");
        return false;
    }
    return true;
}

bool SupportFast(const aclTensor* x, const aclTensor* y)
{
    if (!BaseCheck(x)) {
        return false;
    }
    if (FastIsSlower(x, y)) {
        return false;
    }
    return true;
}
}  // namespace l0op
"""

API = """
static bool CheckNotNull(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    OP_CHECK_NULL(out, return false);
    return true;
}

static bool CheckRank(const aclTensor* self)
{
    OP_CHECK_MAX_DIM(self, 4, return false);
    return true;
}

static aclnnStatus ExecFast(const aclTensor* self, aclTensor* out)
{
    CHECK_RET(CheckNotNull(self, out), ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}

static aclnnStatus ExecBase(const aclTensor* self, aclTensor* out)
{
    CHECK_RET(CheckNotNull(self, out), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckRank(self), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    bool supportFast = l0op::SupportFast(self, out);
    aclnnStatus ret;
    if (supportFast) {
        ret = ExecFast(self, out);
    } else {
        ret = ExecBase(self, out);
    }
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    return ACLNN_SUCCESS;
}
"""

# where the predicate is read false on the architecture it runs: a null or empty self
FALSE_WHEN = ("or", ("null", "self"), ("empty", ("self",), True))


def _events(tmp_path, product: str) -> list[tuple]:
    kernel = tmp_path / "fam" / "snip" / "op_api" / "snip.cpp"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text(KERNEL)
    src = read_source("snippet.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    index = Index(src, [], [], KernelIndex(tmp_path))
    events = walk_api(index, fn, {p: T(n) for p, n in zip(fn.params, ["self", "out", "workspaceSize", "executor"])},
                      product)
    return [(e.kind, e.template, e.args_dict(), e.status) for e in events]


def test_off_the_architecture_the_predicate_names_only_the_other_path_is_read(tmp_path) -> None:
    # Ascend 950 is DAV_3510: BaseCheck returns false there, so every call takes ExecBase
    assert _events(tmp_path, "ascend950") == [
        ("check", "null", {"param": "self"}, 161001), ("check", "null", {"param": "out"}, 161001),
        ("check", "rank_range", {"param": "self", "max": 4}, 161002)]


def test_on_it_the_shared_checks_hold_and_the_rest_is_read_where_the_predicate_is_false(tmp_path) -> None:
    events = _events(tmp_path, "atlas-a2")
    # both paths check the null pointers first: those hold for every call
    assert events[:2] == [("check", "null", {"param": "self"}, 161001), ("check", "null", {"param": "out"}, 161001)]
    # then the calls the predicate may take (self given and not empty) are not judged ...
    assert events[2][:2] == ("unread", "") and events[2][2]["when"] == ["not", FALSE_WHEN]
    # ... and the others took ExecBase: its rank check under the guard that the predicate is false
    assert events[3] == ("check", "rank_range", {"param": "self", "max": 4, "when": list(FALSE_WHEN)}, 161002)
    assert len(events) == 4


def test_a_predicate_whose_early_returns_are_not_modelled_is_left_unread(tmp_path) -> None:
    kernel = tmp_path / "fam" / "snip" / "op_api" / "snip.cpp"
    kernel.parent.mkdir(parents=True, exist_ok=True)
    kernel.write_text(KERNEL.replace("if (!BaseCheck(x)) {\n        return false;\n    }\n", ""))
    src = read_source("snippet.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    events = walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn,
                      {p: T(n) for p, n in zip(fn.params, ["self", "out", "workspaceSize", "executor"])}, "atlas-a2")
    assert [e.kind for e in events] == ["unread"] and "supportFast" in events[0].text
