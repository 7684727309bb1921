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


def test_a_header_of_another_operators_folder_named_by_a_relative_path_is_read(tmp_path) -> None:
    """ops-math conversion/pad_v4_grad/op_host/op_api/aclnn_reflection_pad1d_backward.cpp:12 includes
    ``../../../pad_v3_grad_replicate/op_host/op_api/pad1d_backward_common.h``, where the helper its
    GetWorkspaceSize returns is defined; a header outside the checkout or not there is not read."""
    from aclnn_conformance.extract.build import Checkout, _own_headers
    root = tmp_path / "ops-x"
    host = root / "conversion" / "pad_b" / "op_host" / "op_api" / "aclnn_pad_b.cpp"
    shared = root / "conversion" / "pad_a" / "op_host" / "op_api" / "pad_common.h"
    for path in (host, shared):
        path.parent.mkdir(parents=True, exist_ok=True)
    shared.write_text(HEADER)
    (tmp_path / "outside.h").write_text(HEADER)
    host.write_text('#include "../../../pad_a/op_host/op_api/pad_common.h"\n#include "../../../../../outside.h"\n'
                    '#include "opdev/op_dfx.h"\n#include "missing.h"\n')
    found = _own_headers(Checkout(root, "hicann/ops-x", "0" * 40, "9.1.0"), host, {})
    assert [s.path for s in found] == ["conversion/pad_a/op_host/op_api/pad_common.h"]
    assert "CheckNotNull" in found[0].functions
