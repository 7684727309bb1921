"""An integer array argument searched with ``std::find_if`` over a vector copy of it and checked not
found: the lambda's test is a check of each element (ops-nn norm/lp_norm_v2/op_api/
aclnn_linalg_vector_norm.cpp:116-132). A lambda taking ``int`` leaves the calls with an element past
32 bits unread."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, guard_holds
from tests.snippet_walk import walk

API = """
static inline bool CheckDimsValue(const aclTensor* self, const aclIntArray* dims)
{
    int64_t tmpDim = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    auto dimsData = dims->GetData();
    vector<int64_t> dimsVector(dimsData, dimsData + dims->Size());
    auto it = std::find_if(dimsVector.cbegin(), dimsVector.cend(),
                           [tmpDim](%s dim) { return dim < -tmpDim || dim >= tmpDim; });
    OP_CHECK(it == dimsVector.cend(), OP_LOGE(ACLNN_ERR_PARAM_INVALID, "out of range %%ld", *it), return false);
    %s
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclIntArray* dims, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimsValue(self, dims), ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_NULL(out, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


SET_LOOP = """std::set<int64_t> dimSet;
    for (uint64_t i = 0; i < dims->Size(); i++) {
        int64_t dim = dimsVector[i];
        dim = (dim < 0) ? (dim + tmpDim) : dim;
        OP_CHECK(dimSet.find(dim) == dimSet.end(), OP_LOGE(ACLNN_ERR_PARAM_INVALID, "twice"), return false);
        dimSet.insert(dim);
    }"""


def _walk(ctype: str, tail: str = "") -> list:
    return walk(API % (ctype, tail), ["self", "dims", "out", "workspaceSize", "executor"])


def test_a_search_of_the_array_checks_each_element():
    events = _walk("int64_t")
    assert [(e.template, e.status, e.line) for e in events] == [("attr_in_rank_range", 161002, 9)] * 2 + \
        [("null", 161001, 18)]
    assert {dict(e.args).get("min", dict(e.args).get("max")) for e in events[:2]} == {(-1, 0), (1, -1)}


def _call(dims: list[int]) -> CallView:
    return CallView({"self": TensorView("FLOAT", (2, 3), "ND"), "out": TensorView("FLOAT", (2, 3), "ND")},
                    {"dims": dims}, frozenset())


def test_a_lambda_taking_int_leaves_wide_elements_unread():
    events = _walk("int")
    assert [e.kind for e in events] == ["unread", "check", "check", "check"]
    when = events[0].args_dict()["when"]
    assert guard_holds(_call([0, 1 << 32]), when) is True     # converted to int: 0, in range
    assert guard_holds(_call([0, -1]), when) is False
    assert guard_holds(_call([]), when) is False


def test_a_set_of_the_wrapped_dims_seen_makes_them_unique():
    events = _walk("int64_t", SET_LOOP)
    assert [(e.template, e.status) for e in events][2:] == [("attr_dims_unique", 161002), ("null", 161001)]
    assert events[2].args_dict() == {"attr": "dims", "tensor": "self"}


def test_a_set_used_elsewhere_leaves_the_loop_unread():
    events = _walk("int64_t", SET_LOOP + "\n    dimSet.clear();")
    assert "unread" in [e.kind for e in events]
