"""A loop over an integer array argument (its bound ``static_cast<int64_t>(index->Size())``) holding a
local computed once and a check of each element against it: the integer test "some element compares"
(``any-elem``). The shape of ops-nn index/index_fill_d/op_api/aclnn_index_fill_tensor.cpp:74-96."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView, int_holds

API = """
static bool CheckShape(const aclTensor* self, const aclIntArray* index, int64_t dim)
{
    auto selfShape = self->GetViewShape();
    auto selfDim = static_cast<int64_t>(selfShape.GetDimNum());
    if (dim >= selfDim || dim < -selfDim) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim value error.");
        return false;
    }
    int64_t transferDim = dim >= 0 ? dim : (dim + selfDim);
    for (int64_t i = 0; i < static_cast<int64_t>(index->Size()); i++) {
        auto dimSize = static_cast<int64_t>(selfShape.GetDim(transferDim));
        if ((*index)[i] >= dimSize || (*index)[i] < (-dimSize)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Index value[%ld] is out of range.", (*index)[i]);
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* index, int64_t dim,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, index, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    events = walk(API, ["self", "index", "dim", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check"][-2:]


def _fails(checks, index: list, dim: int) -> bool:
    call = CallView({"self": TensorView("FLOAT", (2, 5), "ND")}, {"index": index, "dim": dim}, frozenset())
    return any(TEMPLATES[c.template](call, dict(c.args)) for c in checks)


def test_each_element_is_checked_against_the_dim_size(tmp_path):
    checks = _checks(tmp_path)
    assert [c.template for c in checks] == ["int_test", "int_test"]
    assert not _fails(checks, [0, 4, -5], 1) and not _fails(checks, [], 1)
    assert _fails(checks, [0, 5], 1) and _fails(checks, [-6], -1) and _fails(checks, [2], 0)


def test_an_element_test_the_call_does_not_give_is_undecided():
    test = ("any-elem", "index", (">=", ("each",), ("attr", "dim")))
    assert int_holds(CallView({}, {"index": [1, 2]}, frozenset()), test) is None
    assert int_holds(CallView({}, {"index": [1, 2], "dim": 2}, frozenset()), test) is True
    assert int_holds(CallView({}, {"index": None, "dim": 2}, frozenset()), test) is None
