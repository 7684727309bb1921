"""The extractor on a local assigned inside ``if (p) {...}`` / ``if (p != nullptr) {...}`` on an optional
tensor p (snippet style, as aclnn_binary_cross_entropy_with_logits_target_backward.cpp:80-125 writes
it): after the branch the local holds the choice of its value there and its value before, on p's
null-ness, so a later check reading it is exact whether p is given or not; a check inside the branch
that a null p would not skip holds only where p is given."""
from __future__ import annotations

from aclnn_conformance.spec.templates import CallView, TensorView, dtype_value, predicate
from snippet_walk import rules as _rules, walk as _walk


PROMOTED_WHEN_GIVEN = """
static bool CheckPromoteType(const aclTensor* self, const aclTensor* target, const aclTensor* weightOptional,
                             const aclTensor* out, op::DataType& promoteType)
{
    promoteType = op::PromoteType(self->GetDataType(), target->GetDataType());
    if (promoteType == DataType::DT_UNDEFINED) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Self and target can not promote dtype.");
        return false;
    }
    op::DataType savedPromoteType = promoteType;
    if (%s) {
        savedPromoteType = promoteType;
        promoteType = op::PromoteType(promoteType, weightOptional->GetDataType());
        if (promoteType == DataType::DT_UNDEFINED) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Weight and %%s can not promote dtype.",
                    op::ToString(savedPromoteType).GetString());
            return false;
        }
    }
    if (promoteType == DataType::DT_BF16 || promoteType == DataType::DT_FLOAT16) {
        promoteType = DataType::DT_FLOAT;
    }
    OP_CHECK_RESULT_DTYPE_CAST_FAILED(promoteType, out->GetDataType(), return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* target,
                                      const aclTensor* weightOptional, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    op::DataType promoteType;
    CHECK_RET(CheckPromoteType(self, target, weightOptional, out, promoteType), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""
PROMOTED_NAMES = ["self", "target", "weightOptional", "out", "workspaceSize", "executor"]
SELF_TARGET = ["promote", ["of", "self"], ["of", "target"]]
WITH_WEIGHT = ["promote", SELF_TARGET, ["of", "weightOptional"]]
GIVEN = ["not", ["null", "weightOptional"]]


def _call(weight: str | None, out: str = "FLOAT", self: str = "FLOAT16") -> CallView:
    view = lambda d: None if d is None else TensorView(d, (2,), "ND")  # noqa: E731
    return CallView({"self": view(self), "target": view("FLOAT16"), "weightOptional": view(weight),
                     "out": view(out)}, {}, frozenset(), "atlas-a2")


def test_a_dtype_promoted_only_when_an_optional_is_given_is_a_choice_on_its_null_ness():
    for cond in ("weightOptional", "weightOptional != nullptr"):
        events = _walk(PROMOTED_WHEN_GIVEN % cond, PROMOTED_NAMES)
        assert [(kind, template) for kind, template, _, _ in _rules(events)] == [
            ("check", "promotable"), ("check", "promotable"), ("check", "castable")]
        promoted = ["if", GIVEN, WITH_WEIGHT, SELF_TARGET]
        assert _rules(events)[1][2] == {"expr": WITH_WEIGHT, "other": "target", "param": "self", "when": GIVEN}
        assert _rules(events)[2][2] == {"from_expr": [
            "if", ["or", ["in", promoted, ["BF16"]], ["in", promoted, ["FLOAT16"]]], ["dtype", "FLOAT"], promoted],
            "to": "out"}


def test_the_promotion_inside_the_branch_is_checked_only_for_a_given_optional():
    events = _walk(PROMOTED_WHEN_GIVEN % "weightOptional", PROMOTED_NAMES)
    inside = predicate("promotable", events[1].args_dict())
    assert inside(_call("UINT64"))   # FLOAT16 and UINT64: no promotion
    assert not inside(_call(None)) and not inside(_call("FLOAT"))


def test_the_check_after_the_branch_reads_the_promoted_dtype_on_both_paths():
    events = _walk(PROMOTED_WHEN_GIVEN % "weightOptional", PROMOTED_NAMES)
    cast = predicate("castable", events[2].args_dict())
    promoted = events[2].args_dict()["from_expr"]
    # not given: FLOAT16 of self and target, made FLOAT
    assert dtype_value(_call(None), promoted) == "FLOAT"
    # given: the weight's DOUBLE promotes it past FLOAT16
    assert dtype_value(_call("DOUBLE"), promoted) == "DOUBLE"
    assert not cast(_call(None, out="FLOAT")) and cast(_call(None, out="INT32"))
    assert cast(_call("DOUBLE", out="INT32")) and not cast(_call("DOUBLE", out="DOUBLE"))


RANK_WHEN_GIVEN = """
static bool CheckRank(const aclTensor* self, const aclTensor* weightOptional)
{
    int64_t rank = 0;
    if (weightOptional != nullptr) {
        rank = weightOptional->GetViewShape().GetDimNum();
    }
    if (rank > 4) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "weightOptional has too many dims.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* weightOptional,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckRank(self, weightOptional), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_an_integer_set_only_when_an_optional_is_given_keeps_its_value_before_otherwise():
    events = _walk(RANK_WHEN_GIVEN, ["self", "weightOptional", "workspaceSize", "executor"])
    assert _rules(events) == [("check", "int_test", {
        "test": [">", ["?", ["guard", GIVEN], ["rank", "weightOptional"], 0], 4]}, 161002)]
    rule = predicate("int_test", events[0].args_dict())
    call = lambda rank: CallView(  # noqa: E731
        {"self": TensorView("FLOAT", (2,), "ND"),
         "weightOptional": None if rank is None else TensorView("FLOAT", (1,) * rank, "ND")}, {}, frozenset())
    assert rule(call(5)) and not rule(call(4)) and not rule(call(None))
