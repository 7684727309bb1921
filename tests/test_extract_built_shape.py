"""The extractor on an expected shape built of computed integers: elements of an integer array the
code keeps inside it, and arithmetic over a dim held in a local, each read into a ``shape_is`` rule
over a shape expression; a local assigned again before the comparison, and a shape declared in a
block closed before it, left unread (never a guess)."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, predicate
from tests.snippet_walk import rules, walk

GRID = """
static bool CheckShape(const aclTensor* theta, const aclIntArray* size, const aclTensor* out)
{
    if (size->Size() == 4) {
        op::Shape outShape;
        outShape.AppendDim((*size)[0]);
        outShape.AppendDim((*size)[2]);
        outShape.AppendDim((*size)[3]);
        outShape.AppendDim(2);
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
    } else if (size->Size() == 5) {
        op::Shape outShape;
        outShape.AppendDim((*size)[0]);
        outShape.AppendDim((*size)[%s]);
        outShape.AppendDim(3);
        OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, outShape, return false);
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* theta, const aclIntArray* size, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(theta, size, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
GRID_NAMES = ["theta", "size", "out", "workspaceSize", "executor"]

PAIRS = """
static bool CheckShape(const aclTensor* self, const aclTensor* out)
{
    int64_t N = self->GetViewShape().GetDim(0);
    op::Shape expectOutShape = {N * (N - 1) / 2};
    %s
    OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, expectOutShape, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
PAIR_NAMES = ["self", "out", "workspaceSize", "executor"]


def _call(**shapes_and_attrs) -> CallView:
    tensors = {k: TensorView("FLOAT", v, "ND") for k, v in shapes_and_attrs.items() if k != "size"}
    attrs = {k: v for k, v in shapes_and_attrs.items() if k == "size"}
    return CallView(tensors, attrs, frozenset())


def test_array_elements_kept_inside_the_array_build_the_expected_shape():
    events = walk(GRID % "4", GRID_NAMES)
    shape_rules = [r for r in rules(events) if r[1] == "shape_is"]
    assert shape_rules == [
        ("check", "shape_is", {"param": "out", "when": ["attr-len", "size", "==", 4],
                               "shape_expr": ["dims", [["elem", "size", 0], ["elem", "size", 2],
                                                       ["elem", "size", 3], 2]]}, 161002),
        ("check", "shape_is", {"param": "out",
                               "when": ["and", ["not", ["attr-len", "size", "==", 4]],
                                        ["attr-len", "size", "==", 5]],
                               "shape_expr": ["dims", [["elem", "size", 0], ["elem", "size", 4], 3]]}, 161002)]
    violated = predicate("shape_is", dict(events[[e.template for e in events].index("shape_is")].args))
    # size [2, 1, 5, 7]: out must be (2, 5, 7, 2)
    assert not violated(_call(theta=(2, 2, 3), out=(2, 5, 7, 2), size=[2, 1, 5, 7]))
    assert violated(_call(theta=(2, 2, 3), out=(2, 5, 7, 3), size=[2, 1, 5, 7]))
    assert violated(_call(theta=(2, 2, 3), out=(2, 1, 5, 7), size=[2, 1, 5, 7]))


def test_an_element_the_guards_do_not_keep_inside_the_array_is_unread():
    events = walk(GRID % "5", GRID_NAMES)   # element 5 of a 5-element array: past its end
    assert [e.kind for e in events][-1] == "unread"
    assert sum(e.template == "shape_is" for e in events) == 1


def test_arithmetic_over_a_dim_held_in_a_local_builds_the_expected_shape():
    events = walk(PAIRS % "", PAIR_NAMES)
    assert rules(events) == [("check", "shape_is", {
        "param": "out", "shape_expr": ["dims", [["/", ["*", ["dim", "self", 0, 0], ["-", ["dim", "self", 0, 0], 1]],
                                                2]]]}, 161002)]
    violated = predicate("shape_is", dict(events[0].args))
    assert not violated(_call(self=(5, 3), out=(10,)))      # 5 * 4 / 2
    assert not violated(_call(self=(0, 3), out=(0,)))       # 0 * -1 / 2
    assert not violated(_call(self=(1, 3), out=(0,)))
    assert violated(_call(self=(5, 3), out=(20,)))
    assert violated(_call(self=(4, 3), out=(6, 1)))


def test_a_local_assigned_again_before_the_comparison_is_unread():
    events = walk(PAIRS % "N = 3;", PAIR_NAMES)   # the shape keeps the dim, the walk would hold 3
    assert [e.kind for e in events] == ["unread"]


def test_a_shape_declared_in_a_block_closed_before_the_comparison_is_unread():
    closed = PAIRS.replace("op::Shape expectOutShape = {N * (N - 1) / 2};",
                           "op::Shape expectOutShape;\n    if (N > 1) { op::Shape expectOutShape = {N}; }")
    events = walk(closed % "", PAIR_NAMES)
    assert [e.kind for e in events][-1] == "unread"


def test_a_failure_on_an_array_length_the_code_does_not_take_is_an_integer_test():
    events = walk(GRID.replace("    }\n    return true;", "    } else {\n        return false;\n    }\n    return true;")
                  % "4", GRID_NAMES)
    assert rules(events)[-1] == ("check", "int_test", {"test": ["guard", [
        "and", ["not", ["attr-len", "size", "==", 4]], ["not", ["attr-len", "size", "==", 5]]]]}, 161002)
    violated = predicate("int_test", dict(events[-1].args))
    assert [violated(_call(out=(1,), size=[1] * n)) for n in (3, 4, 5, 6)] == [True, False, False, True]


def test_a_failure_on_an_array_length_against_a_dim_is_unread():
    events = walk(GRID.replace("} else if (size->Size() == 5) {",
                               "} else if (size->Size() == theta->GetViewShape().GetDim(0)) {")
                  .replace("    }\n    return true;", "    } else {\n        return false;\n    }\n    return true;")
                  % "4", GRID_NAMES)
    assert events[-1].kind == "unread"
