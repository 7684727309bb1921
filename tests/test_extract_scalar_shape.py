"""A shape's ``IsScalar()`` is its rank test (``GetDimNum() == 0``); a rank local set to a constant inside
such a branch is a choice on the branch's guard, not a local to forget; a SetDim at a dim argument
wrapped by that rank sets the dim where the index falls inside the shape. The shape of ops-nn
index/gather_v2/op_api/aclnn_index_select.cpp:111-147."""
from __future__ import annotations

from snippet_walk import walk
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView, guard_holds

API = """
static bool CheckShape(const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* out)
{
    int64_t selfDimSize = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    if (self->GetViewShape().IsScalar()) {
        selfDimSize = 1;
        if (!out->GetViewShape().IsScalar()) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "self is scalar, and out should also be scalar");
            return false;
        }
    }
    if (!(dim >= -selfDimSize && dim < selfDimSize)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim out of range");
        return false;
    } else if (dim < 0) {
        dim += selfDimSize;
    }
    op::Shape outShape = self->GetViewShape();
    outShape.SetDim(dim, index->GetViewShape().IsScalar() ? 1 : index->GetViewShape().GetDim(0));
    if (out->GetViewShape() != outShape) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of out is wrong.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, dim, index, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _checks(tmp_path) -> list:
    events = walk(API, ["self", "dim", "index", "out", "workspaceSize", "executor"])
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check"]


def _failing(checks, self: tuple, dim: int, index: tuple, out: tuple) -> list:
    call = CallView({"self": TensorView("FLOAT", self, "ND"), "index": TensorView("INT64", index, "ND"),
                     "out": TensorView("FLOAT", out, "ND")}, {"dim": dim}, frozenset())
    failing = []
    for c in checks:
        args = dict(c.args)
        when = args.pop("when", None)
        if (when is None or guard_holds(call, when) is True) and TEMPLATES[c.template](call, args):
            failing.append(c)
    return failing


def test_every_check_is_read(tmp_path):
    assert all(c.status == 161002 for c in _checks(tmp_path))


def test_a_scalar_self_needs_a_scalar_out(tmp_path):
    checks = _checks(tmp_path)
    assert _failing(checks, (), 0, (), (1,))
    assert not _failing(checks[:1], (), 0, (), ())


def test_the_dim_range_counts_a_scalar_as_one_dim(tmp_path):
    checks = _checks(tmp_path)
    assert not _failing(checks[:-1], (), -1, (), ())
    assert _failing(checks, (2, 3), 2, (4,), (2, 4))
    assert _failing(checks, (2, 3), -3, (4,), (4, 3))


def test_out_has_the_index_length_at_the_wrapped_dim(tmp_path):
    checks = _checks(tmp_path)
    assert not _failing(checks, (2, 3), -1, (4,), (2, 4))
    assert not _failing(checks, (2, 3), 0, (), (1, 3))
    assert _failing(checks, (2, 3), 1, (4,), (4, 3)) == [checks[-1]]
