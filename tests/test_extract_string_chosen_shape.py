"""A kernel whose result is allocated on each side of a branch on a string parameter, the string
given by a helper of the op_api file choosing it on an integer argument, its input broadcast by
``l0op::BroadcastTo`` to the inputs' broadcast shape; the result compared with ``out`` by
CheckReduceOutShape (equal shapes, or one element each). Read into one shape rule per side of the
choice, each with the one-element exemption; variants stay unread (never a guess)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

# ops-math common/inc/external/aclnn_kernels/common/op_error_check.h:58-71, in the vendor's words
CHECK_REDUCE = """
static inline bool CheckReduceOutShape(const aclTensor* inferOut, const aclTensor* out)
{
    auto const& xShape = inferOut->GetViewShape();
    auto const& yShape = out->GetViewShape();
    if (xShape != yShape) {
        if (!(xShape.GetShapeSize() == 1 && yShape.GetShapeSize() == 1)) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The out tensor's shape is not equal with inferOut shape.");
            return false;
        }
    }
    return true;
}
"""

KERNEL = """
namespace l0op {
OP_TYPE_REGISTER(Snip);
const aclTensor* Snip(const aclTensor* self, const std::string &mode, aclOpExecutor* executor)
{
    aclTensor* result = nullptr;
    if (mode == "none") {
        result = executor->AllocTensor(self->GetViewShape(), self->GetDataType());
    } else {
        result = executor->AllocTensor({}, self->GetDataType());
    }
    CHECK_RET(result != nullptr, nullptr);
    %s
    ADD_TO_LAUNCHER_LIST_AICORE(Snip, OP_INPUT(self), OP_OUTPUT(result), OP_ATTR(mode));
    return result;
}
}
"""

API = """
enum Mode { None = 0, Mean = 1, Sum = 2 };
static std::string MODE_NONE = "none";
static std::string MODE_MEAN = "mean";
static std::string MODE_SUM = "sum";

static std::string &GetModeStr(int64_t mode) {
    if (mode == Mean) {
        return MODE_MEAN;
    } else if (mode == Sum) {
        return MODE_SUM;
    }
    return MODE_NONE;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* target, int64_t mode, aclTensor* out,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    OP_CHECK_NULL(target, return ACLNN_ERR_PARAM_NULLPTR);
    auto selfDimNum = self->GetViewShape().GetDimNum();
    auto selfUnsqueeze = self;
    if (selfDimNum == 0) {
        selfUnsqueeze = l0op::UnsqueezeNd(self, 0, uniqueExecutor.get());
        CHECK_RET(selfUnsqueeze != nullptr, ACLNN_ERR_INNER_NULLPTR);
    }
    op::Shape broadcastShape;
    OP_CHECK_BROADCAST_AND_INFER_SHAPE(selfUnsqueeze, target, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
    %s
    op::FVector<int64_t, op::MAX_DIM_NUM> broadcastDims = op::ToShapeVector(%s);
    auto broadcastShapeArray = uniqueExecutor.get()->AllocIntArray(broadcastDims.data(), broadcastDims.size());
    auto selfBroadcast = l0op::BroadcastTo(selfUnsqueeze, broadcastShapeArray, uniqueExecutor.get());
    CHECK_RET(selfBroadcast != nullptr, ACLNN_ERR_INNER_NULLPTR);
    auto res = l0op::Snip(selfBroadcast, GetModeStr(mode), uniqueExecutor.get());
    CHECK_RET(res != nullptr, ACLNN_ERR_INNER_NULLPTR);
    CHECK_RET(CheckReduceOutShape(res, out), ACLNN_ERR_PARAM_INVALID);
    %s
    return ACLNN_SUCCESS;
}
"""
NAMES = ["self", "target", "mode", "out", "workspaceSize", "executor"]


def _walk(tmp_path, kernel_after: str = "", shape: str = "broadcastShape", api_after: str = "",
          api_before: str = "") -> list:
    (tmp_path / "math" / "snip" / "op_api").mkdir(parents=True)
    (tmp_path / "math" / "snip" / "op_api" / "snip.cpp").write_text(KERNEL % kernel_after)
    src = read_source("snippet.cpp", API % (api_before, shape, api_after))
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    check = read_source("op_error_check.h", CHECK_REDUCE)
    return walk_api(Index(src, [check], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, NAMES)},
                    "atlas-a2")


def _call(self_shape, target_shape, out_shape, mode) -> CallView:
    return CallView({"self": TensorView("FLOAT", self_shape, "ND"), "target": TensorView("FLOAT", target_shape, "ND"),
                     "out": TensorView("FLOAT", out_shape, "ND")}, {"mode": mode}, frozenset())


def test_a_result_chosen_by_a_string_helper_is_checked_with_the_one_element_exemption(tmp_path):
    events = _walk(tmp_path)
    assert [(e.kind, e.template) for e in events] == [
        ("check", "null"), ("check", "null"), ("check", "broadcastable_shape"), ("check", "shape_is")]
    assert events[3].args_dict()["scalar_same"] is True     # one rule, the choice inside its shape
    rules = [predicate(e.template, e.args_dict()) for e in events[3:]]

    def refused(*call) -> bool:
        return any(rule(_call(*call)) for rule in rules)

    # mode 0 gives "none": the result has the broadcast shape of self (rank 0 made [1]) and target
    assert not refused((2, 3), (3,), (2, 3), 0)
    assert refused((2, 3), (3,), (3,), 0)
    assert not refused((), (), (), 0)            # [1] against []: one element each
    assert not refused((), (1, 1), (1,), 0)      # [1, 1] against [1]: one element each
    assert refused((), (2,), (), 0)              # [2] against []
    # 1 and 2 give "mean" and "sum": the result has rank 0, out any shape of one element
    assert not refused((2, 3), (2, 3), (), 1)
    assert not refused((2, 3), (2, 3), (1, 1), 2)
    assert refused((2, 3), (2, 3), (2,), 2)
    assert refused((2, 3), (2, 3), (0,), 1)
    # any other integer falls through the chain to "none"
    assert refused((2, 3), (2, 3), (), 5) and not refused((2, 3), (2, 3), (2, 3), -1)


@pytest.mark.parametrize("kernel_after,shape,api_after", [
    ("result->SetViewShape(self->GetViewShape());", "broadcastShape", ""),   # the kernel reshapes its result
    ("", "MaxShape(self, target)", ""),                 # broadcast to dims of a helper the reader does not know
    ("", "broadcastShape", 'MODE_NONE = "sum";'),      # the file's string changed elsewhere
])
def test_a_shape_the_reader_cannot_follow_leaves_the_check_unread(tmp_path, kernel_after, shape, api_after):
    events = _walk(tmp_path, kernel_after, shape, api_after)
    assert events[-1].kind == "unread" and "CheckReduceOutShape(res, out)" in events[-1].text
    assert not any(e.template == "shape_is" for e in events)


# out checked against the broadcast shape on both sides of a branch that sets no tensor (aclnn_kl_div.cpp:262-268)
BOTH_SIDES = """if (mode == None) {
        if (selfDimNum == 0) {
            OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
        } else {
            OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE(out, broadcastShape, return ACLNN_ERR_PARAM_INVALID);
        }
    }"""


def test_a_tensor_neither_side_of_a_branch_sets_keeps_its_shape_after_it(tmp_path):
    plain = _walk(tmp_path / "plain")
    events = _walk(tmp_path / "branch", api_before=BOTH_SIDES)
    assert [(e.template, e.args) for e in events[-1:]] == [(e.template, e.args) for e in plain[-1:]]
