"""The extractor on integer arithmetic the narrower atoms do not read (snippet style, as the vendor
writes it): a dim's size rounded up to bytes and taken modulo an integer argument, an axis wrapped by
a ternary and added to a count, a count chosen by a ternary. Each is read into an ``int_test`` rule
whose expression keeps C's int64 arithmetic (division truncated toward zero, the remainder taking
the dividend's sign); variants the reader cannot know stay unread. Expected values are computed by
hand from the C code."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.templates import (CallView, TensorView, guard_holds, int_holds, int_value, predicate,
                                              undecided_predicate, view_of_case)
from aclnn_conformance.suites.calls.surface import int_test_changes, tensor_arg
from snippet_walk import rules as _rules, walk as _walk

PACKED = """
static bool CheckValue(const aclTensor* self, int64_t size, const aclTensor* out)
{
    int64_t selfDim = self->GetViewShape().GetDim(0);
    int64_t ysize = (selfDim + 7) / 8;
    if (%s) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The number of packed bytes cannot be divided by size.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t size, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckValue(self, size, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
PACKED_NAMES = ["self", "size", "out", "workspaceSize", "executor"]

AXES = """
static bool CheckAxes(const aclTensor* x, int64_t axis, int64_t numAxes)
{
    int64_t xRank = static_cast<int64_t>(x->GetViewShape().GetDimNum());
    int64_t newAxis = axis >= 0 ? axis : xRank + axis;
    int64_t scaleLen = numAxes == -1L ? xRank - newAxis : numAxes;
    if ((scaleLen + newAxis) > xRank || scaleLen <= 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the axes do not fit the rank.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, int64_t axis, int64_t numAxes, aclTensor* y,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAxes(x, axis, numAxes), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
AXES_NAMES = ["x", "axis", "numAxes", "y", "workspaceSize", "executor"]


def _call(shape: tuple[int, ...], name: str = "self", **attrs) -> CallView:
    return CallView({name: TensorView("FLOAT", shape, "ND")}, attrs, frozenset())


def test_packed_bytes_modulo_an_argument_is_an_int_test():
    events = _walk(PACKED % "ysize % size != 0", PACKED_NAMES)
    [(kind, template, args, status)] = _rules(events)
    assert (kind, template, status) == ("check", "int_test", 161002)
    assert args["test"] == ["!=", ["%", ["/", ["+", ["dim", "self", 0, 0], 7], 8], ["attr", "size"]], 0]
    rule = predicate("int_test", args)
    # 17 elements: (17 + 7) / 8 = 3 bytes; 3 % 2 = 1 refused, 3 % 3 = 0 and 3 % 1 = 0 accepted
    assert rule(_call((17,), size=2))
    assert not rule(_call((17,), size=3)) and not rule(_call((17,), size=1))
    # 9 elements: 2 bytes, 2 % 2 = 0; 8 elements: 1 byte, 1 % 2 = 1
    assert not rule(_call((9,), size=2)) and rule(_call((8,), size=2))
    # a rank-0 self has no dim 0, a size of 0 divides nothing: the test does not decide either
    assert not rule(_call((), size=2)) and not rule(_call((17,), size=0))


def test_c_division_truncates_toward_zero_and_the_remainder_takes_the_dividends_sign():
    call = _call((3,))
    assert int_value(call, ["/", -7, 2]) == -3 and int_value(call, ["%", -7, 2]) == -1
    assert int_value(call, ["/", 7, -2]) == -3 and int_value(call, ["%", 7, -2]) == 1
    assert int_value(call, ["/", 7, 0]) is None and int_value(call, ["attr", "absent"]) is None
    assert int_value(call, ["?", [">", ["rank", "self"], 0], ["dim", "self", 1, -1], 0]) == 3
    # C's && and || decide on a known operand whatever the other
    unknown = ["==", ["dim", "self", 0, 5], 1]
    assert int_holds(call, ["and", ["==", 1, 2], unknown]) is False
    assert int_holds(call, ["or", ["==", 1, 1], unknown]) is True
    assert int_holds(call, ["and", ["==", 1, 1], unknown]) is None


def test_an_axis_wrapped_by_a_ternary_and_a_count_chosen_by_one_are_read():
    events = _walk(AXES, AXES_NAMES)
    assert [e.template for e in events] == ["int_test", "int_test"]
    over, empty = (predicate("int_test", a) for _, _, a, _ in _rules(events))
    call = lambda rank, axis, n: _call((2,) * rank, "x", axis=axis, numAxes=n)   # noqa: E731
    # rank 3, axis -1 -> 2; numAxes 2: 2 + 2 > 3 refused; numAxes 1: 3 > 3 no
    assert over(call(3, -1, 2)) and not over(call(3, -1, 1))
    # numAxes -1: the count is rank - newAxis, never past the rank
    assert not over(call(3, -3, -1)) and not over(call(3, 1, -1))
    # axis 3 at rank 3 with numAxes -1: a count of 0 is refused by the second part
    assert empty(call(3, 3, -1)) and not empty(call(3, 2, -1))
    assert empty(call(2, 0, 0)) and empty(call(2, 0, -2))


@pytest.mark.parametrize("cond", ["ysize % GetBlockSize() != 0", "ysize * 0.5 != size"])
def test_an_unknown_call_or_a_float_in_the_arithmetic_stays_unread(cond):
    events = _walk(PACKED % cond, PACKED_NAMES)
    assert [e.kind for e in events] == ["unread"]


def test_each_int_test_change_is_tried_and_one_breaks_a_valid_call():
    args = {"test": ["!=", ["%", ["/", ["+", ["dim", "self", 0, 0], 7], 8], ["attr", "size"]], 0]}
    rule = predicate("int_test", args)
    base = Case(op="snip", case_id="base", tensors={"self": tensor_arg("FLOAT", (16,))}, attrs={"size": 2})
    assert not rule(view_of_case(base))
    made = [change(base) for change in int_test_changes(args["test"])]
    broken = [c for c in made if rule(view_of_case(c))]
    # size 3 against 2 bytes, and 17 elements (3 bytes) against size 2, are among them
    assert any(c.attrs["size"] == 3 for c in broken)
    assert any(c.tensors["self"].desc.shape == (17,) for c in broken)


def test_a_call_the_integer_test_cannot_decide_is_not_judged():
    """aclnnSignBitsPack reads self's dim 0 before it checks self's rank (aclnn_sign_bits_pack.cpp:130-137,
    then :103): a rank-0 self reaches the reads of dim 0 with no dim 0, and is not judged at the first
    (`selfDim < 0`); with that rule gone, the packed-bytes test leaves it not judged too."""
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.suites.calls.surface import base_call
    spec, base = op_spec("sign_bits_pack"), base_call("sign_bits_pack")
    assert expected_outcome(spec, base, "atlas-a2", "cann").kind == "success"
    rank0 = base.with_tensor("self", tensor_arg("FLOAT", ()))
    got = expected_outcome(spec, rank0, "atlas-a2", "cann")
    assert got.kind == "not_judged" and spec.rule(got.rule_id).note.startswith("template dims_compare")
    from dataclasses import replace
    without = replace(spec, rules=tuple(r for r in spec.rules if r.id != got.rule_id))
    got = expected_outcome(without, rank0, "atlas-a2", "cann")
    assert got.kind == "not_judged" and without.rule(got.rule_id).note.startswith("template int_test")


ONE_AXIS = """
static bool CheckAxis(const aclTensor* x, const aclIntArray* axes)
{
    auto shape = x->GetViewShape();
    auto rank = static_cast<int64_t>(shape.GetDimNum());
%s
    auto axis = (*axes)[0];
    if (rank == 0 && axis != 0 && axis != -1) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "axis out of range for a scalar.");
        return false;
    }
    if (rank == 0) {
        return true;
    }
    if (axis >= rank || axis < (-rank)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "axis out of range.");
        return false;
    }
    if (shape.GetDim(axis) == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "the axis is empty.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* x, const aclIntArray* axes, aclTensor* y,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckAxis(x, axes), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
ONE_AXIS_NAMES = ["x", "axes", "y", "workspaceSize", "executor"]
LENGTH_ONE = """    if (axes->Size() != 1) {
        return true;
    }"""


def _judge(events, call: CallView) -> str:
    """What the first event that applies says of the call: ``unread`` (an unread rule, or a check
    that cannot decide it), ``refused`` or ``passes``."""
    for kind, template, args, _ in _rules(events):
        if kind == "unread" and ("when" not in args or guard_holds(call, args["when"])):
            return "unread"
        open_on = undecided_predicate(template, args) if kind == "check" else None
        if open_on is not None and open_on(call):
            return "unread"
        if kind == "check" and predicate(template, args)(call):
            return "refused"
    return "passes"


def test_an_element_of_an_integer_array_is_read_where_its_length_is_checked():
    events = _walk(ONE_AXIS % LENGTH_ONE, ONE_AXIS_NAMES)
    kinds = [(kind, template) for kind, template, _, _ in _rules(events)]
    assert kinds == [("check", "int_test")] * 4
    judge = lambda shape, axes: _judge(events, _call(shape, "x", axes=axes))   # noqa: E731
    # rank 0: only 0 and -1 name its one dim; the rest of the function is not reached
    assert judge((), [0]) == judge((), [-1]) == "passes"
    assert judge((), [1]) == judge((), [-2]) == "refused"
    # rank 2: axes in [-2, 1]
    assert judge((2, 4), [2]) == judge((2, 4), [-3]) == "refused"
    assert judge((2, 4), [1]) == judge((2, 0), [0]) == "passes"
    # the dim named empty: refused; a negative axis reads GetDim at a converted index: not judged
    assert judge((2, 0), [1]) == "refused"
    assert judge((2, 0), [-1]) == judge((2, 4), [-2]) == "unread"
    # any other length returns true before the element is read: none of the checks applies
    assert judge((), [5, 7]) == judge((2, 0), []) == "passes"


@pytest.mark.parametrize("guard", ["", "    if (axes->Size() > 1) {\n        return true;\n    }"])
def test_an_element_the_code_does_not_keep_inside_the_array_stays_unread(guard):
    # no length check, or one that lets an empty array through: (*axes)[0] may read past its end
    events = _walk(ONE_AXIS % guard, ONE_AXIS_NAMES)
    assert [e.kind for e in events] == ["unread"]


def test_an_element_is_none_outside_the_array_and_an_integer_test_is_a_guard():
    call = _call((3,), axes=[4, -1])
    assert int_value(call, ["elem", "axes", 1]) == -1
    assert int_value(call, ["elem", "axes", 2]) is None
    assert int_value(_call((3,), axes=None), ["elem", "axes", 0]) is None
    assert int_value(_call((3,), axes=5), ["elem", "axes", 0]) is None   # no array
    assert guard_holds(call, ["int", [">", ["elem", "axes", 0], ["rank", "self"]]]) is True
    assert guard_holds(call, ["int", ["<", ["elem", "axes", 3], 0]]) is None


def test_an_element_change_is_tried_and_breaks_a_valid_call():
    test = [">=", ["elem", "axes", 0], ["rank", "self"]]
    rule = predicate("int_test", {"test": test})
    base = Case(op="snip", case_id="base", tensors={"self": tensor_arg("FLOAT", (2, 4))}, attrs={"axes": [1]})
    assert not rule(view_of_case(base))
    made = [c for c in _changed_cases(base, int_test_changes(test))]
    assert any(c.attrs["axes"] == [2] and rule(view_of_case(c)) for c in made)
    # an array too short for the element: no change made of it
    short = Case(op="snip", case_id="short", tensors={"self": tensor_arg("FLOAT", (2, 4))}, attrs={"axes": []})
    assert not [c for c in _changed_cases(short, int_test_changes(test)) if c.attrs["axes"] != []]


def _changed_cases(case: Case, changes):
    for change in changes:
        try:
            yield change(case)
        except (KeyError, TypeError, ValueError):
            continue
