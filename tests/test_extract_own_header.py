"""A helper defined in the op's own header beside the op_api file (ops-math
conversion/pad_v3/op_api/op_replication_pad.h:40 ``CheckNotNull``, called by
aclnn_replication_pad1d.cpp:58) is inlined like one of the file's own; and a rank local handed to
``Shape::SetDimNum`` (aclnn_replication_pad1d.cpp:27-40) is still the rank after it."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api

HEADER = """
inline static bool CheckNotNull(const aclTensor* self, const aclIntArray* padding, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    OP_CHECK_NULL(padding, return false);
    OP_CHECK_NULL(out, return false);
    return true;
}
"""

API = """
static bool CheckShape(const aclTensor* self, const aclTensor* out)
{
    auto selfDimnum = self->GetViewShape().GetDimNum();
    OP_CHECK(selfDimnum == out->GetViewShape().GetDimNum(),
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self, out dim should be same."), return false);
    op::Shape expectShape;
    expectShape.SetDimNum(selfDimnum);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* padding, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckNotNull(self, padding, out), ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _walk(tmp_path, headers: list[str]) -> list:
    (tmp_path / "math").mkdir()
    src = read_source("snippet.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    names = ["self", "padding", "out", "workspaceSize", "executor"]
    own = [read_source(f"h{i}.h", h) for i, h in enumerate(headers)]
    return walk_api(Index(src, [], own, KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                    "atlas-a2")


def test_a_helper_of_the_own_header_is_inlined(tmp_path):
    events = _walk(tmp_path, [HEADER])
    assert [e.kind for e in events] == ["check"] * 4
    assert [(e.template, dict(e.args).get("param"), e.status) for e in events[:3]] == [
        ("null", "self", 161001), ("null", "padding", 161001), ("null", "out", 161001)]


def test_a_rank_given_to_set_dim_num_is_still_the_rank(tmp_path):
    check = _walk(tmp_path, [HEADER])[-1]
    assert (check.template, dict(check.args), check.status) == ("ranks_equal", {"param": "self", "other": "out"},
                                                                 161002)


def test_without_the_header_the_helper_is_not_read(tmp_path):
    events = _walk(tmp_path, [])
    assert events[0].kind == "unread"
