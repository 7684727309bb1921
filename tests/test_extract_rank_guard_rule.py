"""A helper's failure branch on a tensor's rank or on integers (``if (rank > 8) { log; return false; }``,
the caller's status deciding) runs as a data-dependent branch: every call taking it fails, and the rule
is the one violated exactly when its guard holds: a rank range, or the integer test of the guard's
comparisons; two tensors' ranks compared (``data rank != updates rank``) are read as integers, not as a
constant bound. The shapes of ops-nn index/masked_scatter/op_api/aclnn_masked_scatter.cpp:137-143,
index/gather_v2/op_api/aclnn_kthvalue.cpp:90-97, index/gather_v2/op_api/aclnn_gather_v2.cpp:160-176
and index/scatter/op_api/aclnn_scatter_update.cpp:99."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView, guard_holds

API = """
static const int64_t MAX_DIM_LEN = 8;

static bool CheckShape(const aclTensor* self)
{
    if (self->GetViewShape().GetDimNum() > MAX_DIM_LEN) {
        OP_LOGE_FOR_INVALID_SHAPEDIM_WITH_REASON(kOpName, "self",
                                                 std::to_string(self->GetViewShape().GetDimNum()).c_str(),
                                                 "The shape dim of self must be <= 8D");
        return false;
    }
    return true;
}

static bool CheckDim(const aclTensor* self, int64_t dim, const aclTensor* out)
{
    auto inputShape = self->GetViewShape();
    int64_t tmpDim = static_cast<int64_t>(inputShape.GetDimNum());
    if (tmpDim == 0 && dim != 0 && dim != -1) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The shape of input is invalid");
        return false;
    }
    if (self->GetViewShape().GetDimNum() != out->GetViewShape().GetDimNum()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension of self and out should equal");
        return false;
    }
    int64_t selfDimSize = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (selfDimSize == 0) {
        selfDimSize = 1;
    }
    if (!(dim >= -selfDimSize && dim < selfDimSize)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim %ld not in valid range", dim);
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    CHECK_RET(CheckShape(self), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckDim(self, dim, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    events = walk(API, ["self", "dim", "out", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check" and e.template != "null"]


def _fails(check, shape: tuple, dim: int) -> bool:
    call = CallView({"self": TensorView("FLOAT", shape, "ND"), "out": TensorView("FLOAT", shape, "ND")},
                    {"dim": dim}, frozenset())
    when = dict(check.args).get("when")
    if when is not None and guard_holds(call, when) is not True:
        return False
    return TEMPLATES[check.template](call, {k: v for k, v in check.args if k != "when"})


def test_a_rank_bound_in_a_helper_is_a_rank_range(tmp_path):
    rank = _checks(tmp_path)[0]
    assert (rank.template, rank.status, dict(rank.args)) == ("rank_range", 161002, {"param": "self", "max": 8})


def test_rank_zero_with_a_test_of_dim_fails_only_for_both(tmp_path):
    zero = _checks(tmp_path)[1]
    assert zero.template in ("rank_range", "int_test") and zero.status == 161002
    assert _fails(zero, (), 1) and not _fails(zero, (), -1) and not _fails(zero, (3,), 1)


def test_two_tensors_ranks_compared_are_read(tmp_path):
    ranks = _checks(tmp_path)[2]
    assert (ranks.template, dict(ranks.args)) == ("ranks_equal", {"param": "self", "other": "out"})


def test_a_dim_range_on_a_rank_made_one_is_read(tmp_path):
    dims = _checks(tmp_path)[3:]
    assert dims and all(c.template in ("int_test", "attr_in_rank_range") for c in dims)
    assert any(_fails(c, (2, 3), 2) for c in dims) and any(_fails(c, (2, 3), -3) for c in dims)
    assert not any(_fails(c, (2, 3), -2) or _fails(c, (2, 3), 1) for c in dims)
    assert not any(_fails(c, (), 0) for c in dims)
