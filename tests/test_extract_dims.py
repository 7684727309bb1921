"""The extractor on dim-list, single-dimension and scalar-value constructs: each construct read into
its rule, and a variant of it left unread (never a guess)."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api

NAMES = ["self", "out", "workspaceSize", "executor"]


def _walk(body: str, names: list[str], product: str = "atlas-a2", headers: tuple[str, ...] = ()) -> list:
    """The events of a snippet's GetWorkspaceSize (the last function of ``body``)."""
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    assert len(fn.params) == len(names)
    own = [read_source(f"snippet{i}.h", h) for i, h in enumerate(headers)]
    return walk_api(Index(src, [], own), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


SNIPPET = """
%s
static bool CheckParams(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_NULL(self, return false);
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckParams(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _kinds(events) -> list[tuple]:
    return [(e.kind, e.template) for e in events]


def test_a_rank_bound_defined_in_the_ops_own_header():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    events = _walk(SNIPPET % ("", line), NAMES, headers=("#define ACLNN_MAX_SHAPE_RANK 8\n",))
    assert _kinds(events) == [("check", "null"), ("check", "rank_range")]
    assert dict(events[1].args)["max"] == 8


def test_a_rank_bound_defined_in_the_file_itself():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    events = _walk(SNIPPET % ("#define ACLNN_MAX_SHAPE_RANK 8", line), NAMES)
    assert dict(events[1].args)["max"] == 8


def test_a_rank_bound_defined_nowhere_or_as_an_expression_is_unread():
    line = "OP_CHECK_MAX_DIM(self, ACLNN_MAX_SHAPE_RANK, return false);"
    assert _kinds(_walk(SNIPPET % ("", line), NAMES))[1] == ("unread", "")
    events = _walk(SNIPPET % ("#define ACLNN_MAX_SHAPE_RANK (4 + 4)", line), NAMES)
    assert _kinds(events)[1] == ("unread", "")
