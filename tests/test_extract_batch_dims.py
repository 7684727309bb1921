"""The extractor on two matrices with batch dims (cdist's host code): a success return when a batch
dim is 0 leaves the checks after it to the other calls (a ``zero-dim`` guard), the batch dims checked
broadcastable right-aligned in a loop (``broadcastable`` with ``drop_last``), and a loop rejecting a
negative dim (``dims_nonnegative``). Each construct read into its rule, a variant left unread (never a
guess); the templates and the guard by hand."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds, predicate

BATCH = """
static const int64_t MIN_DIM_LEN = 2;

static bool CheckBatchDimNum(const aclTensor* x) {
    auto xDimNum = x->GetViewShape().GetDimNum();
    for(int64_t i = 0; i < static_cast<int64_t>(xDimNum%(last)s); i++) {
        if(x->GetViewShape().GetDim(i) == 0) {
            return true;
        }
    }
    return false;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x1, const aclTensor* x2, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    for (size_t i = 0; i < out->GetViewShape().GetDimNum(); i++) {
        if (out->GetViewShape().GetDim(i) %(negative)s 0) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Dim Value of out is negative.");
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    if(CheckBatchDimNum(x1) || CheckBatchDimNum(x2)) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto x1Contiguous = l0op::Contiguous(x1, uniqueExecutor.get());
    CHECK_RET(x1Contiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto x2Contiguous = l0op::Contiguous(x2, uniqueExecutor.get());
    CHECK_RET(x2Contiguous != nullptr, ACLNN_ERR_INNER_NULLPTR);
    int64_t x1Rank = x1Contiguous->GetViewShape().GetDimNum();
    int64_t x2Rank = x2Contiguous->GetViewShape().GetDimNum();
    int64_t minRank = std::min(x1Rank, x2Rank);
    int64_t maxRank = std::max(x1Rank, x2Rank);
    for (int64_t i = 0; i < static_cast<int64_t>(maxRank - MIN_DIM_LEN); i++) {
        int64_t dim1 = (x1Rank < maxRank) ?
                           ((i < maxRank - minRank) ? 1 : x1Contiguous->GetViewShape().GetDim(i - maxRank + minRank)) :
                           x1Contiguous->GetViewShape().GetDim(i);
        int64_t dim2 = (x2Rank < maxRank) ?
                           ((i < maxRank - minRank) ? 1 : x2Contiguous->GetViewShape().GetDim(i - maxRank + minRank)) :
                           x2Contiguous->GetViewShape().GetDim(%(index)s);
        if(dim1 != dim2) {
            if(dim1 != 1 && dim2 != 1) {
                OP_LOGE(ACLNN_ERR_PARAM_INVALID, "cannot broadcast!");
                return ACLNN_ERR_PARAM_INVALID;
            }
        }
        int64_t broadcastDim = std::max(dim1, dim2);
    }
    return ACLNN_SUCCESS;
}
"""
NAMES = ["x1", "x2", "out", "workspaceSize", "executor"]
READ = {"last": " - 1", "negative": "<", "index": "i"}


def _walk(**changes) -> list:
    src = read_source("snippet.cpp", BATCH % {**READ, **changes})
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, NAMES)}, "atlas-a2")


def test_the_batch_loop_is_a_broadcast_of_the_batch_dims_after_the_zero_batch_return():
    events = _walk()
    assert [(e.kind, e.template) for e in events] == [("check", "dims_nonnegative"), ("unread-values", ""),
                                                      ("check", "broadcastable")]
    assert dict(events[0].args) == {"param": "out"} and events[0].status == 161002
    zero_batch = ("or", ("zero-dim", "x1", -1), ("zero-dim", "x2", -1))
    assert dict(events[1].args) == {"when": zero_batch}   # the kernel skipped: values not judged there
    assert dict(events[2].args) == {"param": "x1", "other": "x2", "drop_last": 2, "when": ("not", zero_batch)}
    assert events[2].status == 161002


def test_a_zero_check_over_every_dim_is_the_guard_over_every_dim():
    events = _walk(last="")
    assert dict(events[2].args)["when"] == ("not", ("or", ("zero-dim", "x1", 0), ("zero-dim", "x2", 0)))


@pytest.mark.parametrize("change,unread", [
    ({"index": "i + 1"}, "a loop or switch with checks"),   # another dim than the aligned one
    ({"negative": "<="}, "a loop or switch with checks"),   # a zero dim rejected too
    ({"last": " - 2"}, "a branch on"),                      # a helper the reader does not know
])
def test_a_variant_of_each_loop_is_unread(change, unread):
    events = _walk(**change)
    assert events[-1].kind == "unread" and unread in events[-1].text


def _call(x1, x2, out=(2, 2)):
    return CallView(tensors={"x1": TensorView("FLOAT", x1, "ND"), "x2": TensorView("FLOAT", x2, "ND"),
                             "out": TensorView("FLOAT", out, "ND")}, attrs={}, null_outputs=frozenset())


@pytest.mark.parametrize("x1,x2,violated", [
    ((2, 3), (4, 3), False),            # no batch dims: the matrices' own dims are not compared
    ((5, 2, 3), (4, 3), False),         # a batch against none
    ((5, 2, 3), (1, 4, 3), False),      # 5 against 1
    ((5, 2, 3), (6, 4, 3), True),       # 5 against 6
    ((2, 5, 2, 3), (6, 4, 3), True),    # right-aligned: 5 against 6
    ((6, 1, 2, 3), (5, 4, 3), False),   # right-aligned: 1 against 5, 6 against nothing
])
def test_broadcastable_batch_dims_by_hand(x1, x2, violated):
    rule = predicate("broadcastable", {"param": "x1", "other": "x2", "drop_last": 2})
    assert rule(_call(x1, x2)) is violated


@pytest.mark.parametrize("shape,stop,holds", [
    ((0, 2, 3), -1, True), ((2, 0, 3), -1, True), ((2, 3, 0), -1, False), ((2, 3, 0), 0, True),
    ((0,), -1, False), ((), 0, False),
])
def test_the_zero_dim_guard_by_hand(shape, stop, holds):
    assert guard_holds(_call(shape, (2, 2)), ["zero-dim", "x1", stop]) is holds


def test_dims_nonnegative_by_hand():
    rule = predicate("dims_nonnegative", {"param": "out"})
    assert rule(_call((2, 2), (2, 2), out=(2, -1))) is True
    assert rule(_call((2, 2), (2, 2), out=(2, 0))) is False
