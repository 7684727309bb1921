"""The extractor on a slice of a shape: a shape local given n dims (``SetDimNum``) and filled in a
loop with a tensor's dims from a start on, then compared with another tensor's shape; and a loop
comparing a run of dims of two shapes. Each read as a ``slice`` shape expression (spec.templates
``shape_value``), a call whose slice reaches outside its shape not judged; the variants left unread."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.templates import (CallView, TensorView, predicate, shape_value, slice_outside,
                                              undecided_predicate)
from tests.snippet_walk import rules, walk

# the scale's shape must be x's dims from a start (axis, wrapped) on, ``count`` of them
BUILT = """
static bool CheckScaleShape(const aclTensor* x, const aclTensor* scale, int64_t axis, int64_t count)
{
    op::Shape xShape = x->GetViewShape();
    int64_t rank = static_cast<int64_t>(xShape.GetDimNum());
    int64_t start = axis < 0 ? rank + axis : axis;
    op::Shape wanted;
    wanted.SetDimNum(count);
    %(between)s
    for (int64_t k = 0; k < %(bound)s; k++) {
        wanted.SetDim(k, xShape.GetDim(%(index)s));
    }
    if (wanted != scale->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the scale's shape is wrong.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclTensor* scale, int64_t axis, int64_t count,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckScaleShape(x, scale, axis, count), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["x", "scale", "axis", "count", "workspaceSize", "executor"]
START = ["?", ["<", ["attr", "axis"], 0], ["+", ["rank", "x"], ["attr", "axis"]], ["attr", "axis"]]


def _call(axis: int = 1, count: int = 2, **shapes: tuple[int, ...]) -> CallView:
    return CallView({n: TensorView("FLOAT", s, "ND") for n, s in shapes.items()},
                    {"axis": axis, "count": count}, frozenset())


def _built(between: str = "", bound: str = "count", index: str = "start + k") -> list:
    return walk(BUILT % {"between": between, "bound": bound, "index": index}, NAMES)


def test_a_shape_filled_with_a_run_of_dims_is_a_slice_compared_with_the_tensor():
    """aclnnScale's CheckShapeFromBlob (ops-math math/scale/op_api/aclnn_scale.cpp:90-102)."""
    got = rules(_built())
    assert got == [("check", "shape_is", {"param": "scale",
                                          "shape_expr": ["slice", ["of", "x"], START, ["attr", "count"]]}, 161002)]
    event = _built()[0]
    refused, open_on = predicate(event.template, event.args_dict()), undecided_predicate(event.template,
                                                                                        event.args_dict())
    x = (2, 3, 4)
    assert not refused(_call(1, 2, x=x, scale=(3, 4))) and refused(_call(1, 2, x=x, scale=(3,)))
    assert not refused(_call(-2, 2, x=x, scale=(3, 4)))          # axis -2 of rank 3: dim 1
    assert not refused(_call(0, 1, x=x, scale=(2,))) and refused(_call(0, 1, x=x, scale=(1,)))
    assert not refused(_call(2, 0, x=x, scale=())) and refused(_call(2, 0, x=x, scale=(1,)))   # no dim: rank 0
    for axis, count in ((2, 2), (1, -1), (-4, 1), (3, 1)):   # dims 2..3, a negative length, dim -1, dim 3
        call = _call(axis, count, x=x, scale=(4,))
        assert open_on(call) and not refused(call)
    assert not open_on(_call(1, 2, x=x, scale=(3, 4)))


@pytest.mark.parametrize("between,bound,index", [
    ("wanted.AppendDim(1);", "count", "start + k"),   # a dim appended before the loop
    ("", "count + 1", "start + k"),                   # a loop over more dims than the shape was given
    ("", "count", "start - k"),                       # the dims taken backwards
    ("", "count", "k * 2"),                           # every other dim
])
def test_a_shape_filled_otherwise_is_unread(between, bound, index):
    events = _built(between, bound, index)
    assert [e.kind for e in events] == ["unread"] and "wanted" in events[0].text


COMPARED = """
static bool CheckRun(const aclTensor* x, const aclTensor* scale, int64_t axis)
{
    op::Shape xShape = x->GetViewShape();
    op::Shape scaleShape = scale->GetViewShape();
    int64_t rank = static_cast<int64_t>(xShape.GetDimNum());
    int64_t start = axis < 0 ? rank + axis : axis;
    int64_t len = static_cast<int64_t>(scaleShape.GetDimNum());
    for (int64_t k = 0; k < %(bound)s; k++) {
        if (xShape.GetDim(%(index)s) != scaleShape.GetDim(%(other)s)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the dims differ.");
            return false;
        }
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclTensor* scale, int64_t axis,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckRun(x, scale, axis), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
RUN_NAMES = ["x", "scale", "axis", "workspaceSize", "executor"]


def _compared(bound: str = "len", index: str = "start + k", other: str = "k") -> list:
    return walk(COMPARED % {"bound": bound, "index": index, "other": other}, RUN_NAMES)


def test_a_loop_comparing_a_run_of_dims_with_a_whole_shape_is_that_tensor_s_shape_rule():
    """aclnnScale's CheckShapeNoFromBlob (ops-math math/scale/op_api/aclnn_scale.cpp:125-131)."""
    events = _compared()
    assert rules(events) == [("check", "shape_is", {"param": "scale", "shape_expr": [
        "slice", ["of", "x"], START, ["rank", "scale"]]}, 161002)]
    refused = predicate(events[0].template, events[0].args_dict())
    open_on = undecided_predicate(events[0].template, events[0].args_dict())
    x = (2, 3, 4)
    assert not refused(_call(1, x=x, scale=(3, 4))) and not refused(_call(1, x=x, scale=(3,)))
    assert refused(_call(1, x=x, scale=(4,))) and refused(_call(-1, x=x, scale=(3,)))
    assert not refused(_call(2, x=x, scale=()))                   # no dim compared
    assert open_on(_call(2, x=x, scale=(4, 1))) and not refused(_call(2, x=x, scale=(4, 1)))


def test_a_loop_comparing_two_runs_of_dims_is_an_integer_test_on_two_slices():
    events = _compared(bound="len - 1", index="k", other="k + 1")
    assert rules(events) == [("check", "int_test", {"test": ["not", ["same-shape", [
        "slice", ["of", "x"], 0, ["+", ["rank", "scale"], -1]], [
        "slice", ["of", "scale"], 1, ["+", ["rank", "scale"], -1]]]]}, 161002)]
    refused = predicate(events[0].template, events[0].args_dict())
    open_on = undecided_predicate(events[0].template, events[0].args_dict())
    assert not refused(_call(x=(2, 3, 9), scale=(7, 2, 3))) and refused(_call(x=(2, 3, 9), scale=(7, 2, 4)))
    assert open_on(_call(x=(2,), scale=(7, 2, 3)))               # x has no dim 1
    assert open_on(_call(x=(2,), scale=()))                       # a run of -1 dims


@pytest.mark.parametrize("bound,index,other", [
    ("len", "start - k", "k"),      # x's dims backwards
    ("len", "start + k", "k * 2"),  # every other dim of the scale
])
def test_a_loop_comparing_dims_otherwise_is_unread(bound, index, other):
    events = _compared(bound, index, other)
    assert [e.kind for e in events] == ["unread"] and "a loop" in events[0].text


def test_shape_value_of_a_slice_and_where_it_reaches_outside():
    call = _call(x=(2, 3, 4, 5))
    assert shape_value(call, ["slice", ["of", "x"], 1, 2]) == (3, 4)
    assert shape_value(call, ["slice", ["of", "x"], 0, 4]) == (2, 3, 4, 5)
    assert shape_value(call, ["slice", ["of", "x"], 9, 0]) == ()      # no dim read
    for start, n in ((3, 2), (-1, 1), (0, -1), (4, 1)):
        e = ["slice", ["of", "x"], start, n]
        assert shape_value(call, e) is None and slice_outside(call, e)
    assert not slice_outside(call, ["slice", ["of", "y"], 0, 1])        # no such tensor: nothing is read
    assert slice_outside(call, ["broadcast", ["of", "x"], ["slice", ["of", "x"], 3, 2]])
