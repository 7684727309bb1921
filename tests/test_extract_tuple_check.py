"""A bool helper checking a tuple of tensors: ``std::tuple_size<decltype(p)>::value`` of a parameter
declared ``std::tuple<...>`` is the count of its element types (a compile-time constant), and
``std::get<0>(p) != nullptr && std::get<1>(p) != nullptr`` of a kernel's tuple is the kernel's own
failure, no parameter check. What the reader cannot type or trace stays unread."""
from __future__ import annotations

from tests.snippet_walk import rules, walk

API = """
static bool TupleBothSet(%(ptype)s pair)
{
    if (std::tuple_size<decltype(%(sized)s)>::value != 2) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "expected two results.");
        return false;
    }
    return (std::get<0>(pair) != nullptr) && (std::get<1>(pair) != nullptr);
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    auto both = %(made)s;
    auto copy = both;
    CHECK_RET(TupleBothSet(both), ACLNN_ERR_PARAM_NULLPTR);
    *workspaceSize = 0;
    uniqueExecutor.ReleaseTo(executor);
    return ACLNN_SUCCESS;
}
"""

PAIR = "std::tuple<const aclTensor*, const aclTensor*>"
KERNEL = "l0op::SortSnip(self, -1, false, uniqueExecutor.get())"
NULL_SELF = ("check", "null", {"param": "self"}, 161001)


def _walk(ptype: str = PAIR, sized: str = "pair", made: str = KERNEL) -> list[tuple]:
    return rules(walk(API % {"ptype": ptype, "sized": sized, "made": made}, ["self", "out", "workspaceSize", "executor"]))


def test_kernel_tuple_of_two_checked_is_no_parameter_check():
    assert _walk() == [NULL_SELF]


def test_const_tuple_parameter_has_the_same_size():
    assert _walk(ptype="const " + PAIR) == [NULL_SELF]


def test_tuple_of_three_fails_every_call():
    # tuple_size is 3, so 3 != 2 holds and the helper returns false on every call
    three = "std::tuple<const aclTensor*, const aclTensor*, const aclTensor*>"
    assert _walk(ptype=three) == [NULL_SELF, ("check", "product", {}, 161001)]


def test_size_of_a_local_is_unread():
    # ``auto`` locals and references are not typed by the reader
    assert [r[0] for r in _walk(sized="copy")] == ["check", "unread"]


def test_size_of_a_reference_parameter_is_unread():
    assert [r[0] for r in _walk(ptype="const " + PAIR + "&")] == ["check", "unread"]


def test_tuple_not_from_a_kernel_is_unread():
    assert [r[0] for r in _walk(made="MakePair(self, out)")] == ["check", "unread"]
