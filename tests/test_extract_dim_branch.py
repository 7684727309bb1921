"""The extractor on a success return taken on a dim's size at a wrapped dim argument (snippet style,
as the vendor writes it: ``if (selfShape[dimPositive] == 1) { copy; return ACLNN_SUCCESS; }``), and
on an unread construct reached only by the calls that did not return before it: its rule carries
the guard of the calls that reach it. Variants the reader cannot know stay unread for every call.
Expected values are computed by hand from the C code."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from snippet_walk import walk as _walk

SORTED = """
static inline int64_t wrapDim(int64_t dim, int64_t dimSize) { return (dim < 0) ? dim + dimSize : dim; }

static inline bool CheckDimValue(const aclTensor* self, const int64_t dim)
{
    int64_t dimSize = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    int64_t dimMin = std::min(-1 * dimSize, dimSize - 1);
    int64_t dimMax = std::max(-1 * dimSize, dimSize - 1);
    if ((dim > dimMax) || (dim < dimMin)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim should be in range [min, max].", dimMin, dimMax);
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    CHECK_RET(CheckDimValue(self, dim), ACLNN_ERR_PARAM_INVALID);
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    if (self->GetViewShape().GetDimNum() == 0) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    int64_t dimSize = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    int64_t dimPositive = wrapDim(dim, dimSize);
    auto selfShape = self->GetViewShape();
%s
    if (selfShape[dimPositive] == 1) {
        auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
        CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
        auto viewCopyResult = l0op::ViewCopy(selfContiguous, out, uniqueExecutor.get());
        CHECK_RET(viewCopyResult != nullptr, ACLNN_ERR_PARAM_NULLPTR);
        *workspaceSize = uniqueExecutor->GetWorkspaceSize();
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    CHECK_RET(UnknownCheck(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "dim", "out", "workspaceSize", "executor"]


def _call(shape: tuple[int, ...], dim: int) -> CallView:
    tensors = {n: TensorView("FLOAT", shape, "ND") for n in ("self", "out")}
    return CallView(tensors=tensors, attrs={"dim": dim}, null_outputs=frozenset(), product="atlas-a2")


def _last_unread(events):
    unread = [e for e in events if e.kind == "unread"]
    assert unread, events
    return unread[-1]


@pytest.mark.parametrize("shape,dim,reaches", [
    ((2, 1, 3), 1, False),    # dim 1 has size 1: the copy returns before the unread check
    ((2, 1, 3), -2, False),   # -2 + 3 = 1: the same dim
    ((2, 1, 3), 0, True),     # size 2
    ((2, 1, 3), -1, True),    # -1 + 3 = 2: size 3
    ((1,), -1, False),        # -1 + 1 = 0: size 1
    ((4,), 0, True),
    ((), 0, False),           # rank 0: returned before
])
def test_unread_after_a_size_one_dim_return_is_reached_by_the_others(shape, dim, reaches):
    unread = _last_unread(_walk(SORTED % "", NAMES))
    assert "UnknownCheck" in unread.text
    when = unread.args_dict()["when"]
    assert guard_holds(_call(shape, dim), when) is reaches


def test_shape_subscript_assigned_before_the_branch_stays_unread():
    # selfShape[0] = 4 changes the shape local: the test of its dim is not the call's, not read
    unread = _last_unread(_walk(SORTED % "    selfShape[0] = 4;", NAMES))
    assert "selfShape[dimPositive] == 1" in unread.text
    when = unread.args_dict()["when"]   # every call of rank 1 and more reaches it, size 1 or not
    assert [guard_holds(_call(shape, 1), when) for shape in ((2, 1, 3), (2, 2, 3), ())] == [True, True, False]


def test_dim_not_kept_in_range_by_a_check_before_stays_unread():
    # without CheckDimValue a dim outside the rank reads no size: the branch is not read
    text = (SORTED % "").replace("    CHECK_RET(CheckDimValue(self, dim), ACLNN_ERR_PARAM_INVALID);\n", "")
    unread = _last_unread(_walk(text, NAMES))
    assert "selfShape[dimPositive] == 1" in unread.text


def test_unread_rule_whose_guard_does_not_decide_is_reached():
    from aclnn_conformance.spec.templates import predicate
    when = ["not", ["int", ["==", ["sdim", ["of", "self"], ["attr", "dim"]], 1]]]
    reached = predicate("unread", {"when": when})
    assert reached(_call((3, 2), 0)) is True      # size 3: not the return
    assert reached(_call((3, 2), 5)) is True      # dim 5 outside the rank: undecided, not judged
    assert reached(_call((1, 2), 0)) is False     # size 1: returned before


def test_dim_index_not_known_stays_unread():
    text = (SORTED % "").replace("selfShape[dimPositive] == 1", "selfShape[Pick(dimPositive)] == 1")
    unread = _last_unread(_walk(text, NAMES))
    assert "selfShape[Pick(dimPositive)] == 1" in unread.text


UNREAD_IN_BRANCH = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (self->GetViewShape().GetDimNum() == 0) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    if (self->GetDataType() == op::DataType::DT_FLOAT) {
        CHECK_RET(UnknownCheck(self, out), ACLNN_ERR_PARAM_INVALID);
    }
    return ACLNN_SUCCESS;
}
"""


def test_unread_inside_a_branch_carries_only_the_returns_before_it():
    # the calls not taking the dtype branch go on past it, unwalked: the rule is theirs too; only the
    # rank-0 calls, returned before the branch, are left out
    unread = _last_unread(_walk(UNREAD_IN_BRANCH, ["self", "out", "workspaceSize", "executor"]))
    when = unread.args_dict()["when"]
    assert [guard_holds(_call(shape, 0), when) for shape in ((2, 3), (5,), ())] == [True, True, False]


def test_int_guard_holds_as_its_test():
    test = ("==", ("sdim", ("of", "self"), ("attr", "dim")), 1)
    assert guard_holds(_call((3, 1), 1), ("int", test)) is True
    assert guard_holds(_call((3, 1), 0), ("int", test)) is False
    assert guard_holds(_call((3, 1), 5), ("int", test)) is None   # a dim outside the rank decides nothing
