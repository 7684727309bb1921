"""The extractor on an integer array's length (``a->Size()``, or a local holding it) compared with a
tensor's rank or with a constant cast to a signed integer: an ``int_test`` over ("len", a); the
length of a list of tensors is left unread."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, int_value, predicate, undecided_predicate
from tests.snippet_walk import rules, walk

LENGTH = """
static bool CheckRepeats(const aclTensor* self, const %(array)s* repeats)
{
    if (self->GetViewShape().GetDimNum() > repeats->Size()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "fewer repeats than dims.");
        return false;
    }
    int64_t count = repeats->Size();
    if (count > static_cast<int64_t>(8)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "more than 8 repeats.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const %(array)s* repeats,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckRepeats(self, repeats), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "repeats", "workspaceSize", "executor"]


def _call(shape: tuple[int, ...], repeats) -> CallView:
    return CallView({"self": TensorView("FLOAT", shape, "ND")}, {"repeats": repeats}, frozenset())


def test_an_array_length_compared_with_a_rank_and_with_a_cast_constant():
    """aclnnRepeat's CheckRepeatsSize and CheckTensorDimSize (ops-math math/tile/op_api/aclnn_repeat.cpp:88-108)."""
    events = walk(LENGTH % {"array": "aclIntArray"}, NAMES)
    assert rules(events) == [("check", "int_test", {"test": [">", ["rank", "self"], ["len", "repeats"]]}, 161002),
                             ("check", "int_test", {"test": [">", ["len", "repeats"], 8]}, 161002)]
    fewer, more = (predicate(e.template, e.args_dict()) for e in events)
    assert fewer(_call((2, 3), [4])) and not fewer(_call((2, 3), [4, 1])) and not fewer(_call((2, 3), [1, 2, 3]))
    assert not fewer(_call((), []))                                        # rank 0, no repeats
    assert more(_call((2,), [1] * 9)) and not more(_call((2,), [1] * 8))
    open_on = undecided_predicate(events[0].template, events[0].args_dict())
    assert open_on(_call((2,), None)) and int_value(_call((2,), None), ["len", "repeats"]) is None   # a null array


def test_the_length_of_a_tensor_list_is_unread():
    events = walk(LENGTH % {"array": "aclTensorList"}, NAMES)
    assert [e.kind for e in events] == ["unread"] and "repeats->Size()" in events[0].text
