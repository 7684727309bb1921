"""The extractor on a bool array argument (snippet in the vendor's style, after ops-nn
norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.cpp:262-277): its length compared
with a constant is an ``int_test`` rule, and an element of it guards the checks of the output it
asks for. Expected verdicts are worked out by hand from the C code."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView
from aclnn_conformance.suites.calls.surface import _resized_array
from snippet_walk import read_checks, violated

MASKED = """
aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* gradOut, const aclBoolArray* outputMask,
                                      aclTensor* gradInputOut, aclTensor* gradWeightOut,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    OP_CHECK_NULL(outputMask, return ACLNN_ERR_PARAM_NULLPTR);
    if (outputMask->Size() != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Expected outputMask len to be 2, but got %zu.", outputMask->Size());
        return ACLNN_ERR_PARAM_INVALID;
    }
    if ((*outputMask)[0]) {
        OP_CHECK_NULL(gradInputOut, return ACLNN_ERR_PARAM_NULLPTR);
    }
    if ((*outputMask)[1]) {
        OP_CHECK_NULL(gradWeightOut, return ACLNN_ERR_PARAM_NULLPTR);
    }
    return ACLNN_SUCCESS;
}
"""
NAMES = ["gradOut", "outputMask", "gradInputOut", "gradWeightOut", "workspaceSize", "executor"]


def _call(mask: list | None, null: tuple[str, ...] = ()) -> CallView:
    outs = {n: None if n in null else TensorView("FLOAT", (2, 3), "ND") for n in ("gradInputOut", "gradWeightOut")}
    return CallView({"gradOut": TensorView("FLOAT", (2, 3), "ND"), **outs}, {"outputMask": mask},
                    null_outputs=frozenset(null))


def test_the_length_and_each_element_are_read() -> None:
    checks = read_checks(MASKED, NAMES)
    assert [(c.template, c.status) for c in checks] == [("null", 161001), ("int_test", 161002),
                                                          ("null", 161001), ("null", 161001)]
    assert violated(checks, _call([True, True])) == []
    assert violated(checks, _call([True, True, True])) == [1]          # three elements, two expected
    assert violated(checks, _call([True, False], ("gradWeightOut",))) == []   # not asked for: may be null
    assert violated(checks, _call([False, True], ("gradWeightOut",))) == [3]
    assert violated(checks, _call([True, True], ("gradInputOut",))) == [2]


def test_a_bool_array_resized_for_a_fault_stays_a_bool_array() -> None:
    """The fault that changes its length pads with its own last element, never with an integer."""
    assert _resized_array([True, False], 4) == [True, False, False, False]
    assert _resized_array([True, False], 1) == [True]
    assert _resized_array([3, 4], 3) == [3, 4, 2]       # an integer array: padded with 2s as before
    assert _resized_array(None, 2) == [2, 2]
