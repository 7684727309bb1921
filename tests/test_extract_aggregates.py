"""Aggregates of the API's arguments: a struct initialised with them (``InputParams p{self, out,
keepDims}``, read through ``p.self``), an array of such structs with its length by ``sizeof``, a bool
array of flags, and loops over them of a known count, read once per index (``if (!mask[i]) continue;``
a guard on the rest), with a member in parentheses and an integer helper choosing the mask's index.
The shapes of ops-nn norm/lp_norm_v2/op_api/aclnn_linalg_vector_norm.cpp:209-230 and
norm/sync_batch_norm_backward_reduce/op_api/aclnn_batch_norm_backward_reduce.cpp:43-267."""
from __future__ import annotations

from tests.snippet_walk import walk

API = """
static const std::initializer_list<DataType> SUPPORT_LIST{DataType::DT_FLOAT, DataType::DT_FLOAT16};

typedef struct ParamS {
    const aclTensor* param;
    const char* paramName;
} ParamT;

struct InputParams {
    const aclTensor* self;
    const aclTensor* out;
    bool keepDims;
};

static inline size_t GetMaskIdx(size_t listIdx)
{
    if (listIdx < 1) {
        return 0;
    }
    return 1;
}

static bool CheckNotNullOf(const aclTensor* t)
{
    OP_CHECK_NULL(t, return false);
    return true;
}

static bool CheckInputs(ParamT* list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        CHECK_RET(CheckNotNullOf(list[i].param), false);
    }
    return true;
}

static bool CheckOutputs(ParamT* list, size_t n, const bool* mask)
{
    for (size_t i = 0; i < n; i++) {
        size_t maskIdx = GetMaskIdx(i);
        if (!mask[maskIdx]) {
            continue;
        }
        if (!CheckType((list[i].param)->GetDataType(), SUPPORT_LIST)) {
            return false;
        }
    }
    return true;
}

static bool CheckFlagged(const aclTensor* t, bool on)
{
    if (on && !CheckType(t->GetDataType(), SUPPORT_LIST)) {
        return false;
    }
    return true;
}

static aclnnStatus CheckParams(InputParams& p)
{
    OP_CHECK_NULL(p.self, return ACLNN_ERR_PARAM_NULLPTR);
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* other, const bool gradA,
                                      const bool gradB, aclTensor* outA, aclTensor* outB,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    InputParams inputParams{self, outA, gradA};
    auto ret = CheckParams(inputParams);
    CHECK_RET(ret == ACLNN_SUCCESS, ret);
    ParamT inputs[2] = {{self, "self"}, {other, "other"}};
    ParamT outputs[2] = {{outA, "outA"}, {outB, "outB"}};
    bool masks[2] = {gradA, gradB};
    size_t n = sizeof(inputs) / sizeof(struct ParamS);
    CHECK_RET(CheckInputs(inputs, n), ACLNN_ERR_PARAM_NULLPTR);
    size_t m = sizeof(outputs) / sizeof(outputs[0]);
    bool ok = CheckOutputs(outputs, m, masks);
    CHECK_RET(ok, ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckFlagged(other, gradB), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""

NAMES = ["self", "other", "gradA", "gradB", "outA", "outB", "workspaceSize", "executor"]


def _walk(api: str = API) -> list:
    return walk(api, NAMES)


def _checks(events: list) -> list[tuple]:
    return [(e.template, e.args_dict().get("param"), e.status, e.args_dict().get("when"), e.line)
            for e in events if e.kind == "check"]


def test_members_of_aggregates_read_as_the_arguments_they_hold():
    events = _walk()
    assert [e.text for e in events if e.kind == "unread"] == []
    checks = _checks(events)
    assert checks[0][:3] == ("null", "self", 161001)        # p.self
    assert [c[:3] for c in checks[1:3]] == [("null", "self", 161001), ("null", "other", 161001)]
    flagged = [c for c in checks if c[0] == "dtype_in"]
    # each output's dtype checked under its own mask's flag, the last one under gradB's
    assert [c[1] for c in flagged] == ["outA", "outB", "other"]
    assert all(c[2] == 161002 for c in flagged)
    # ``if (!mask[k]) continue;`` guards the rest by the negation of its condition
    assert [c[3] for c in flagged] == [["value", ("not", ("not", ("flag", "gradA")))],
                                       ["value", ("not", ("not", ("flag", "gradB")))], ["value", ("flag", "gradB")]]


def test_a_loop_of_unknown_count_stays_unread():
    events = _walk(API.replace("CheckOutputs(outputs, m, masks)",
                                         "CheckOutputs(outputs, outB->Size(), masks)"))
    assert any(e.kind == "unread" for e in events)
