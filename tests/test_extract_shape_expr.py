"""The extractor on shapes computed from the call's shapes: a copy of a tensor's view shape with one
dim set (``s.SetDim(rank - 1, d)``), broadcast with another tensor's shape, and outputs compared with
the result (``shape_expr`` of ``broadcastable_shape`` and ``shape_is``); a check under a null guard of
the output; a status returned by a callee's check after the empty-tensor return; a local assigned in
a null-guarded branch. Each read into its rule, the variants left unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import CallView, TemplateError, TensorView, predicate, shape_value
from tests.snippet_walk import rules, walk

# batches of square matrices A (*, m, m) and right sides b (*, m, n), their batch dims broadcast
SOLVE = """
static bool CheckShape(const aclTensor* self, const aclTensor* A, const aclTensor* xOut, const aclTensor* mOut)
{
    %(ranks)s
    auto aShape = A->GetViewShape();
    size_t aDimNum = aShape.GetDimNum();
    auto bShape = self->GetViewShape();
    size_t bDimNum = bShape.GetDimNum();
    auto bHDim = bShape.GetDim(bDimNum - 2);
    auto bWDim = bShape.GetDim(bDimNum - 1);
    %(copy)s tempShape = bShape;
    tempShape.SetDim(%(index)s, bHDim);
    op::Shape broadcastShape;
    OP_CHECK(BroadcastInferShape(aShape, tempShape, broadcastShape),
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Broadcast fail."), return false);
    auto xShape = broadcastShape;
    xShape.SetDim(xShape.GetDimNum() - 1, bWDim);
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(xOut, xShape, return false);
    if (mOut != nullptr) {
        auto mShape = broadcastShape;
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(mOut, mShape, return false);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* A, aclTensor* xOut, aclTensor* mOut,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, A, xOut, mOut), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RANKS = "OP_CHECK_MIN_DIM(self, 2, return false); OP_CHECK_MIN_DIM(A, 2, return false);"
NAMES = ["self", "A", "xOut", "mOut", "workspaceSize", "executor"]
TEMP = ["set-dim", ["of", "self"], -1, ["dim", "self", 1, -2]]   # b's shape with its last dim made m
BROADCAST = ["broadcast", ["of", "A"], TEMP]


def _solve(ranks: str = RANKS, copy: str = "auto", index: str = "bDimNum - 1") -> list:
    return walk(SOLVE % {"ranks": ranks, "copy": copy, "index": index}, NAMES)


def _call(**shapes: tuple[int, ...] | None) -> CallView:
    return CallView({n: None if s is None else TensorView("FLOAT", s, "ND") for n, s in shapes.items()},
                    {}, frozenset())


def test_a_shape_with_its_last_dim_set_broadcast_with_a_tensor_and_outputs_compared_with_it():
    """aclnnTriangularSolve's CheckShape (ops-math math/triangular_solve/op_host/op_api/
    aclnn_triangular_solve.cpp:100-117)."""
    got = rules(_solve())
    assert got[2:] == [
        ("check", "broadcastable_shape", {"param": "A", "shape_expr": TEMP}, 161002),
        ("check", "shape_is", {"param": "xOut", "shape_expr": ["set-dim", BROADCAST, -1, ["dim", "self", 1, -1]]}, 161002),
        ("check", "shape_is", {"param": "mOut", "shape_expr": BROADCAST}, 161002)]
    events = _solve()
    broadcastable, x_shape, m_shape = (predicate(e.template, e.args_dict()) for e in events[2:])
    # A (3, 3) and b (2, 1, 3, 4): b's shape made (2, 1, 3, 3) broadcasts with A to (2, 1, 3, 3)
    ok = _call(self=(2, 1, 3, 4), A=(3, 3), xOut=(2, 1, 3, 4), mOut=(2, 1, 3, 3))
    assert not any(rule(ok) for rule in (broadcastable, x_shape, m_shape))
    # batch dims 5 against 2: no broadcast; the output rules do not decide there
    clash = _call(self=(2, 3, 4), A=(5, 3, 3), xOut=(2, 3, 4), mOut=(5, 3, 3))
    assert broadcastable(clash) and not x_shape(clash) and not m_shape(clash)
    # A (4, 3, 3) and b (1, 3, 2): x must be (4, 3, 2), m (4, 3, 3); b's own shape for x is wrong
    call = _call(self=(1, 3, 2), A=(4, 3, 3), xOut=(1, 3, 2), mOut=(3, 3))
    assert not broadcastable(call) and x_shape(call) and m_shape(call)
    assert not m_shape(_call(self=(1, 3, 2), A=(4, 3, 3), xOut=(4, 3, 2), mOut=None))   # no mOut: nothing to hold
    assert not x_shape(_call(self=(1, 3, 2), A=(4, 3, 3), xOut=(4, 3, 2), mOut=(4, 3, 3)))


@pytest.mark.parametrize("ranks,copy,index", [
    ("OP_CHECK_MIN_DIM(A, 2, return false);", "auto", "bDimNum - 1"),   # b's rank unbounded: rank - 1 may wrap
    (RANKS, "auto&", "bDimNum - 1"),            # a reference: SetDim changes b's shape itself
    (RANKS, "auto", "aDimNum - 1"),             # a dim counted on another tensor's rank
])
def test_a_set_dim_read_otherwise_is_unread(ranks, copy, index):
    events = _solve(ranks, copy, index)
    assert events[-1].kind == "unread" and "tempShape" in events[-1].text
    assert not any(e.template in ("broadcastable_shape", "shape_is") for e in events)


def test_shape_value_counts_a_negative_index_from_the_end_and_gives_none_where_undecided():
    call = _call(a=(2, 3, 4), b=(3, 1))
    assert shape_value(call, ["set-dim", ["of", "a"], -1, ["dim", "a", 0, 0]]) == (2, 3, 2)
    assert shape_value(call, ["set-dim", ["of", "a"], 0, 7]) == (7, 3, 4)
    assert shape_value(call, ["broadcast", ["of", "a"], ["of", "b"]]) == (2, 3, 4)
    assert shape_value(call, ["set-dim", ["of", "b"], -3, 1]) is None        # outside b's rank
    assert shape_value(call, ["broadcast", ["of", "a"], ["set-dim", ["of", "b"], -1, 5]]) is None   # 5 vs 4
    assert shape_value(call, ["of", "c"]) is None
    with pytest.raises(TemplateError):
        predicate("shape_is", {"param": "a"})


NOT_FLOAT = """
static aclnnStatus Unitriangular(const aclTensor* a, aclOpExecutor* executor)
{
    OP_CHECK(a->GetDataType() == op::DataType::DT_FLOAT,
             OP_LOGE(ACLNN_ERR_PARAM_INVALID, "unitriangular mode only support float."),
             %s);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, bool unitriangular, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor* a = selfContiguous;
    if (out != nullptr) {
        a = l0op::Contiguous(out, uniqueExecutor.get());
    }
    if (unitriangular) {
        auto ret = Unitriangular(a, uniqueExecutor.get());
        CHECK_RET(ret == ACLNN_SUCCESS, ret);
    }
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}
"""


def test_a_callee_failing_with_a_parameter_status_after_its_log_is_a_check_after_the_empty_return():
    """The log inside the check's arguments names the status too; the return after it still fails."""
    events = walk(NOT_FLOAT % "return ACLNN_ERR_PARAM_INVALID", ["self", "unitriangular", "out", "workspaceSize",
                                                                 "executor"])
    assert [e.kind for e in events] == ["check", "empty", "unread"]


def test_a_callee_whose_check_fails_with_an_inner_status_is_no_parameter_check():
    events = walk(NOT_FLOAT % "return ACLNN_ERR_INNER_NULLPTR", ["self", "unitriangular", "out", "workspaceSize",
                                                                 "executor"])
    assert [e.kind for e in events] == ["check", "empty"]


NULL_GUARDED_LOCAL = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    const aclTensor* checked = self;
    if (out != nullptr) {
        OP_CHECK_DTYPE_NOT_SAME(self, out, return ACLNN_ERR_PARAM_INVALID);
        %s
    }
    OP_CHECK_DTYPE_NOT_SUPPORT(checked, DTYPE_SUPPORT_LIST, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_local_assigned_in_a_null_guarded_branch_is_unknown_after_it():
    src = "static const std::initializer_list<op::DataType> DTYPE_SUPPORT_LIST = {op::DataType::DT_FLOAT};\n"
    kept = rules(walk(src + NULL_GUARDED_LOCAL % "", ["self", "out", "workspaceSize", "executor"]))
    assert kept[-1] == ("check", "dtype_in", {"dtypes": ["FLOAT"], "list": "snippet.cpp:1", "param": "self"}, 161002)
    events = walk(src + NULL_GUARDED_LOCAL % "checked = out;", ["self", "out", "workspaceSize", "executor"])
    assert events[0].template == "dtypes_equal" and events[-1].kind == "unread"


# aclnnLinalgQr's CheckShape (ops-math math/qr/op_api/aclnn_linalg_qr.cpp:58-98): Q's shape by mode
QR = """
static bool CheckShape(const aclTensor* self, int64_t mode, const aclTensor* Q)
{
    op::Shape selfShape = self->GetViewShape();
    auto dimNum = selfShape.GetDimNum();
    OP_CHECK_MIN_DIM(self, %(min_rank)s, return false);
    auto m = selfShape.GetDim(dimNum - 2);
    auto n = selfShape.GetDim(dimNum - 1);
    auto k = std::min(m, n);
    auto emptyShape = op::Shape{0};
    auto qShape = selfShape;
    if (mode == 2) {
        qShape = emptyShape;
    } else if (mode == 1) {
        qShape.SetDim(dimNum - 1, m);
    } else {
        %(reduced)s
    }
    OP_CHECK(Q->GetViewShape() == qShape, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Q's shape is wrong."), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t mode, aclTensor* Q,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, mode, Q), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
QR_NAMES = ["self", "mode", "Q", "workspaceSize", "executor"]


def _qr(min_rank: str = "2", reduced: str = "qShape.SetDim(dimNum - 1, k);") -> list:
    return walk(QR % {"min_rank": min_rank, "reduced": reduced}, QR_NAMES)


def test_a_shape_set_differently_by_the_branches_on_an_argument_is_a_choice_of_shapes():
    events = _qr()
    assert [e.template for e in events] == ["rank_range", "shape_is"]
    q_wrong = predicate("shape_is", events[1].args_dict())

    def call(self_shape, mode, q_shape):
        return CallView({"self": TensorView("FLOAT", self_shape, "ND"), "Q": TensorView("FLOAT", q_shape, "ND")},
                        {"mode": mode}, frozenset())
    # self (4, 5, 3): m = 5, n = 3, k = 3; reduced Q (4, 5, 3), complete Q (4, 5, 5), r-mode Q (0,)
    for mode, right in ((0, (4, 5, 3)), (1, (4, 5, 5)), (2, (0,))):
        assert not q_wrong(call((4, 5, 3), mode, right)), mode
        assert all(q_wrong(call((4, 5, 3), mode, other)) for other in {(4, 5, 3), (4, 5, 5), (0,)} - {right}), mode
    # a wide matrix: m = 2, n = 6, k = 2, so the reduced Q is (2, 2)
    assert not q_wrong(call((2, 6), 0, (2, 2))) and q_wrong(call((2, 6), 0, (2, 6)))


@pytest.mark.parametrize("min_rank,reduced", [
    ("2", "qShape.SetDim(dimNum - 3, k);"),                      # rank 2 passes: dim rank - 3 may not exist
    ("2", "for (size_t i = 0; i < dimNum; i++) { qShape.SetDim(i, k); }"),   # set in a loop
    ("2", "qShape.SetDim(dimNum - 1, GetBlockSize(k));"),        # a size the reader does not know
])
def test_a_shape_set_where_the_reader_cannot_follow_stays_unread(min_rank, reduced):
    events = _qr(min_rank, reduced)
    assert events[-1].kind == "unread"
    assert not any(e.template == "shape_is" for e in events)


LIMIT = """
static bool CheckSize(int64_t mode, int64_t size)
{
    int64_t limit = 4;
    if (mode == 1) {
        limit += 4;
    }
    if (size > limit) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "size is too large.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t mode, int64_t size,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckSize(mode, size), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_an_integer_a_branch_adds_to_is_a_choice_on_the_branch():
    [event] = walk(LIMIT, ["self", "mode", "size", "workspaceSize", "executor"])
    too_large = predicate(event.template, event.args_dict())
    call = lambda mode, size: CallView({}, {"mode": mode, "size": size}, frozenset())   # noqa: E731
    # the limit is 8 for mode 1, 4 otherwise
    assert not too_large(call(1, 8)) and too_large(call(1, 9))
    assert not too_large(call(0, 4)) and too_large(call(0, 5)) and too_large(call(2, 6))


# aclnnLinalgCross's dim check (ops-math math/cross/op_api/aclnn_linalg_cross.cpp:123-191): the dim of
# self, or of self broadcast to out's shape when the shapes differ, must have size 3
CROSS = """
inline static aclTensor* BroadcastTensor(const op::Shape dstShape, const aclTensor* src, aclOpExecutor* executor)
{
    auto dstTensor = executor->AllocTensor(dstShape, src->GetDataType());
    op::FVector<int64_t, op::MAX_DIM_NUM> broadcastDims = op::ToShapeVector(dstShape);
    auto shape = executor->ConvertToTensor(broadcastDims.data(), broadcastDims.size(), op::DataType::DT_INT64);
    auto result = l0op::%(kernel)s(src, dstTensor, shape, executor);
    return const_cast<aclTensor*>(result);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, int64_t dim, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    auto selfContiguous = l0op::Contiguous(self, uniqueExecutor.get());
    CHECK_RET(selfContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto otherContiguous = l0op::Contiguous(other, uniqueExecutor.get());
    CHECK_RET(otherContiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    const aclTensor* selfBroadCast = selfContiguous;
    auto dimInner = dim;
    if (selfContiguous->GetViewShape() != otherContiguous->GetViewShape()) {
        selfBroadCast = BroadcastTensor(out->GetViewShape(), selfContiguous, uniqueExecutor.get());
        CHECK_RET(selfBroadCast != nullptr, ACLNN_ERR_INNER_NULLPTR);
        if (dimInner >= 0 && self->GetViewShape().GetDimNum() < other->GetViewShape().GetDimNum()) {
            dimInner += (other->GetViewShape().GetDimNum() - self->GetViewShape().GetDimNum());
        }
    }
    if (dimInner < 0) {
        dimInner += selfBroadCast->GetViewShape().GetDimNum();
    }
    if (selfBroadCast->GetViewShape().GetDim(dimInner) != 3) {
        if (dim < 0) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension %%ld does not have size 3.", dim);
        } else {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dimension %%ld does not have size 3.", dimInner);
        }
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""
CROSS_NAMES = ["self", "other", "dim", "out", "workspaceSize", "executor"]


def test_a_dim_of_a_tensor_broadcast_on_a_shape_branch_at_an_index_the_branches_move():
    [event] = walk(CROSS % {"kernel": "BroadcastTo"}, CROSS_NAMES)
    assert (event.template, event.status) == ("int_test", 161002)
    not_three = predicate("int_test", event.args_dict())

    def call(self_shape, other_shape, out_shape, dim):
        return CallView({n: TensorView("FLOAT", s, "ND") for n, s in
                         (("self", self_shape), ("other", other_shape), ("out", out_shape))}, {"dim": dim}, frozenset())
    # equal shapes: self's own dim, a negative one wrapped by its rank
    assert not not_three(call((2, 3), (2, 3), (2, 3), 1)) and not not_three(call((2, 3), (2, 3), (2, 3), -1))
    assert not_three(call((2, 3), (2, 3), (2, 3), 0))
    # self (3,) against other (2, 3): self broadcast to out (2, 3), dim 0 moved past other's extra dim
    assert not not_three(call((3,), (2, 3), (2, 3), 0)) and not not_three(call((3,), (2, 3), (2, 3), -1))
    # self (2, 3) against other (3,): no move, out's dim 0 is 2
    assert not_three(call((2, 3), (3,), (2, 3), 0)) and not not_three(call((2, 3), (3,), (2, 3), 1))


def test_a_helper_allocating_its_result_for_another_kernel_leaves_the_dim_unread():
    events = walk(CROSS % {"kernel": "Tile"}, CROSS_NAMES)
    assert events[-1].kind == "unread" and not any(e.template == "int_test" for e in events)
