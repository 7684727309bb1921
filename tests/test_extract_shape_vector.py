"""The extractor on a shape built through a vector of its dims (snippet in the vendor's style, after
ops-math math/logdet/op_api/aclnn_logdet.cpp:71-80): ``ToShapeVector``, ``pop_back`` twice, then
``ToShape`` into the shape an output is compared with. Expected verdicts are worked out by hand."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from snippet_walk import read_checks, violated, walk

BATCH = """
static bool CheckShape(const aclTensor* self, const aclTensor* out)
{
    OP_CHECK_MIN_DIM(self, 2, return false);
    auto batchVec = ToShapeVector(self->GetViewShape());
    batchVec.pop_back();
    batchVec.pop_back();
    op::Shape batchShape;
    ToShape(batchVec, batchShape);
    OP_CHECK(out->GetViewShape() == batchShape, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bad out."), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "out", "workspaceSize", "executor"]


def _call(self_shape: tuple[int, ...], out_shape: tuple[int, ...]) -> CallView:
    return CallView({"self": TensorView("FLOAT", self_shape, "ND"), "out": TensorView("FLOAT", out_shape, "ND")},
                    {}, frozenset())


def test_the_output_is_the_input_without_its_last_two_dims() -> None:
    checks = read_checks(BATCH, NAMES)
    assert [c.template for c in checks] == ["rank_range", "shape_is"]
    assert violated(checks, _call((3, 5, 4, 4), (3, 5))) == []
    assert violated(checks, _call((4, 4), ())) == []
    assert violated(checks, _call((3, 4, 4), (3, 4))) == [1]
    assert violated(checks, _call((3, 4, 4), ())) == [1]


def test_a_vector_changed_in_a_loop_is_not_held() -> None:
    """A pop_back the walk cannot place (inside a loop) leaves the vector, and the check, unread."""
    body = BATCH.replace("    batchVec.pop_back();\n    batchVec.pop_back();\n",
                         "    for (int i = 0; i < 2; i++) {\n        batchVec.pop_back();\n    }\n")
    assert any(e.kind == "unread" for e in walk(body, NAMES))
