"""The extractor on a repeat (aclnnRepeat's host code, ops-math math/tile/op_api/aclnn_repeat.cpp): a
success return when a tensor is empty or an element of the repeats array is 0 (a ``zero-elem``
guard), the input made [1] at rank 0 and given leading dims of 1 up to the array's length, then
tiled (``l0op::Tile``) and the output compared with the tile's shape: a ``tile`` shape expression
(spec.templates ``shape_value``). The variants are left unread; the expected values by hand."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import (CallView, TensorView, guard_holds, int_leaves, predicate, shape_value,
                                              undecided_predicate)
from tests.snippet_walk import rules, walk

REPEAT = """
static inline aclnnStatus AnyZero(const aclIntArray* times)
{
    for (size_t k = 0; k < times->Size(); ++k) {
        if ((*times)[k] %(cmp)s 0) {
            return true;
        }
    }
    return false;
}

static inline bool CheckOutShape(const aclTensor* tiled, const aclTensor* y)
{
    OP_CHECK_SHAPE_NOT_EQUAL(tiled, y, return false);
    return true;
}

static inline aclIntArray* OneDim(aclOpExecutor* ex)
{
    int64_t dims[1] = {};
    dims[0] = %(one)s;
    auto arr = ex->AllocIntArray(dims, 1);
    return arr;
}

static inline const aclTensor* ToOneDim(const aclTensor* t, aclOpExecutor* ex)
{
    auto c = l0op::Contiguous(t, ex);
    if (c->GetViewShape().GetDimNum() == 0) {
        auto s = OneDim(ex);
        c = l0op::BroadcastTo(c, s, ex);
    }
    return c;
}

static const aclTensor* PadLeading(const aclTensor* t, const aclIntArray* times, aclOpExecutor* ex)
{
    auto n = (int64_t)times->Size() - (int64_t)t->GetViewShape().GetDimNum();
    std::vector<int64_t> at(n);
    for (int64_t j = 0; j < n; j++) {
        at[j] = %(at)s;
    }
    aclIntArray* dims = ex->AllocIntArray(at.data(), n);
    auto v = l0op::UnsqueezeNd(t, dims, ex);
    return v;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* times, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    if (self->IsEmpty() || out->IsEmpty() || AnyZero(times)) {
        *workspaceSize = 0;
        uniqueExecutor.ReleaseTo(executor);
        return ACLNN_SUCCESS;
    }
    auto one = ToOneDim(self, uniqueExecutor.get());
    CHECK_RET(one != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto padded = one;
    if (one->GetViewShape().GetDimNum() < times->Size()) {
        padded = PadLeading(one, times, uniqueExecutor.get());
        CHECK_RET(padded != nullptr, ACLNN_ERR_PARAM_INVALID);
    }
    auto tiled = l0op::Tile(padded, times, uniqueExecutor.get());
    CHECK_RET(tiled != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckOutShape(tiled, out), ACLNN_ERR_PARAM_INVALID);
    *workspaceSize = uniqueExecutor->GetWorkspaceSize();
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "times", "out", "workspaceSize", "executor"]
READ = {"cmp": "==", "one": "1", "at": "j"}
SKIPPED = ["or", ["empty", ["self"], True], ["empty", ["out"], True], ["zero-elem", "times"]]
TILE = ["tile", ["?", ["guard", ["rank-zero", "self"]], ["dims", [1]], ["of", "self"]], "times"]


def _walk(**changes) -> list:
    return walk(REPEAT % {**READ, **changes}, NAMES)


def _call(self: tuple, times, out: tuple) -> CallView:
    return CallView({"self": TensorView("FLOAT", self, "ND"), "out": TensorView("FLOAT", out, "ND")},
                    {"times": times}, frozenset())


def test_the_output_is_compared_with_the_tile_after_the_skipped_calls():
    assert rules(_walk()) == [
        ("unread-values", "", {"when": SKIPPED}, None),   # the kernel skipped: values not judged there
        ("check", "shape_is", {"param": "out", "shape_expr": TILE, "when": ["not", SKIPPED]}, 161002)]


@pytest.mark.parametrize("change", [
    {"cmp": "<="},      # a negative element skips the kernel too: not the zero test
    {"at": "j + 1"},    # the dims of 1 added after the first
])
def test_a_variant_is_unread(change):
    assert any(e.kind == "unread" for e in _walk(**change))


def test_a_rank_0_input_broadcast_to_another_constant_shape_is_read_so():
    # the helper's array of constants is [2]: BroadcastTo makes a rank-0 input [2], which is then tiled
    (check,) = [r for r in rules(_walk(one="2")) if r[0] == "check"]
    assert check[2]["shape_expr"] == ["tile", ["?", ["guard", ["rank-zero", "self"]], ["dims", [2]], ["of", "self"]],
                                      "times"]
    assert shape_value(_call((), [3], (6,)), check[2]["shape_expr"]) == (6,)


@pytest.mark.parametrize("self,times,out,violated", [
    ((2, 3), [3, 2, 3], (3, 4, 9), False),   # (1, 2, 3) tiled by 3, 2, 3
    ((2, 3), [3, 2, 3], (3, 2, 9), True),
    ((5,), [2, 3], (2, 15), False),          # (1, 5) tiled by 2, 3
    ((), [2, 3], (2, 3), False),             # rank 0: [1], then (1, 1) tiled by 2, 3
    ((), [4], (), True),                     # rank 0: [1] tiled by 4 is (4,)
    ((2, 3), [2, 3], (4, 9), False),         # as many elements as dims: no leading 1
])
def test_the_tile_shape_by_hand(self, times, out, violated):
    rule = _walk()[1]
    assert predicate(rule.template, rule.args_dict())(_call(self, times, out)) is violated


def test_a_tile_without_a_shape_is_not_judged():
    rule = _walk()[1]
    undecided = undecided_predicate(rule.template, rule.args_dict())
    call = _call((2, 3), [4], (8, 3))   # an array shorter than the rank: Tile's result is null
    assert not predicate(rule.template, rule.args_dict())(call) and undecided(call)
    big = _call((2 ** 40,), [2 ** 30], (1,))   # 2^70 is beyond int64
    assert shape_value(big, TILE) is None and undecided(big)
    assert not undecided(_call((2, 3), [3, 2, 3], (1,)))


@pytest.mark.parametrize("times,holds", [([3, 0, 3], True), ([1, 2], False), ([], False), ([-1], False),
                                         (None, None)])
def test_the_zero_element_guard_by_hand(times, holds):
    assert guard_holds(_call((2,), times, (2,)), ["zero-elem", "times"]) is holds


def test_a_tile_reads_the_shape_and_the_array_length():
    assert int_leaves(["same-shape", ["of", "out"], ["tile", ["of", "self"], "times"]]) == \
        [("rank", "out"), ("rank", "self"), ("len", "times")]
