"""A failure on ``x->Size() && y->Size() && C`` (after ops-nn index/gather_v2/op_api/aclnn_index_select.cpp:
141-147): aclTensor::Size() counts the storage's elements, which no call view holds, but a view holding an
element needs a storage holding it; so where neither view is empty the failure is C's, and where one is
empty the calls are not judged from there. Expected events worked out by hand from the snippet."""
from __future__ import annotations

from snippet_walk import walk

NAMES = ["self", "index", "out", "workspaceSize", "executor"]

SNIPPET = """
static bool CheckShape(const aclTensor* self, const aclTensor* index, const aclTensor* out)
{
    if (self->Size() && index->Size() && out->GetViewShape() != self->GetViewShape()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Shape of out should be self's.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* index, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, index, out), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""

EMPTY = ("empty", ("index", "self"), True)


def test_the_storage_size_of_a_view_with_elements_is_not_zero() -> None:
    events = [(e.kind, e.template, e.args_dict(), e.status) for e in walk(SNIPPET, NAMES)]
    assert events[0] == ("unread", "", {"when": list(EMPTY)}, None)
    # out's view shape against self's, made only where neither view is empty
    assert events[1] == ("check", "shapes_equal", {"param": "out", "other": "self", "when": ["not", EMPTY]}, 161002)
    assert len(events) == 2


def test_a_size_of_an_integer_array_or_a_tensor_list_is_not_read_so() -> None:
    # ``index->Size()`` of an array or a tensor list is its length, read elsewhere: this reading declines
    for kind in ("const aclIntArray* index", "const aclTensorList* index"):
        events = walk(SNIPPET.replace("const aclTensor* index", kind), NAMES)
        assert not any("storage size" in e.text for e in events), kind
