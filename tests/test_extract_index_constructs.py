"""Four constructs of ops-nn ``index/``, each in a snippet written in the vendor's style, its expected
events worked out by hand: a loop comparing two shapes dim by dim but one
(index/scatter_elements_v2/op_api/aclnn_scatter.cpp:159-173 CompareTensorShape), an integer helper
setting a local on both sides of an if-else (aclnn_scatter.cpp:237-247 GetFinalDim), a string the
integer argument names (aclnn_scatter.cpp:136-157 GetReduceStr, compared at 923-924), and a chain of
accepted dtype rows (index/quant_update_scatter/op_api/aclnn_quant_scatter.cpp:53-90); and aclnnMedianDim's
expected output rank chosen by a bool argument and its dim wrapped by a remainder
(index/gather_v2/op_api/aclnn_median.cpp:191-230)."""
from __future__ import annotations

from snippet_walk import read_checks, rules, violated, walk

from aclnn_conformance.spec.templates import CallView, TensorView, int_holds, int_leaves, TEMPLATES

COMPARE = """
static inline int64_t GetFinalDim(int64_t dim, int64_t dimSize)
{
    int64_t dimFinal = dim;
    if (dim < 0) {
        dimFinal = ((dim + dimSize) >= 0) ? (dim + dimSize) : 0;
    } else {
        dimFinal = (dim < dimSize) ? dim : (dimSize - 1);
    }
    return dimFinal;
}

static bool CompareTensorShape(const aclTensor* a, const aclTensor* b, int64_t dim = -1)
{
    auto aDimSize = a->GetViewShape().GetDimNum();
    auto bDimSize = b->GetViewShape().GetDimNum();
    aDimSize = aDimSize < bDimSize ? aDimSize : bDimSize;
    for (int64_t i = 0; i < static_cast<int64_t>(aDimSize); i++) {
        if (i != dim) {
            auto aDim = (a->GetViewShape())[i];
            auto bDim = (b->GetViewShape())[i];
            if (bDim < aDim) {
                return false;
            }
        }
    }
    return true;
}

static bool CheckShape(const aclTensor* self, const aclTensor* index, int64_t dim)
{
    int64_t dimSize = static_cast<int64_t>(self->GetViewShape().GetDimNum());
    int64_t finalDim = GetFinalDim(dim, dimSize);
    if (!CompareTensorShape(index, self, finalDim)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "index shape should be smaller than self shape.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, const aclTensor* index,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckShape(self, index, dim), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _call(self: tuple, index: tuple, dim: int) -> CallView:
    return CallView({"self": TensorView("FLOAT", self, "ND"), "index": TensorView("INT64", index, "ND")},
                    {"dim": dim}, frozenset())


def test_a_dims_compare_loop_skipping_one_dim_is_one_integer_test() -> None:
    (rule,) = [r for r in rules(walk(COMPARE, ["self", "dim", "index", "workspaceSize", "executor"]))
               if r[0] == "check" and r[1] == "int_test"]
    assert rule[3] == 161002 and rule[2]["test"][0] == "any-index"
    test = rule[2]["test"]
    # index may be longer than self along the (wrapped, clamped) dim only, and only dims both hold count
    assert int_holds(_call((4, 5), (9, 5), 0), test) is False
    assert int_holds(_call((4, 5), (9, 5), -2), test) is False
    assert int_holds(_call((4, 5), (9, 5), 1), test) is True
    assert int_holds(_call((4, 5), (4, 6), 0), test) is True
    assert int_holds(_call((4, 5), (4, 6), 7), test) is False     # dim 7 clamped to the last dim, 1
    assert int_holds(_call((4, 5), (4, 6), -9), test) is True     # -9 wrapped below 0: dim 0 skipped
    assert int_holds(_call((4,), (4, 99), 0), test) is False      # dims past self's rank are not read
    assert int_holds(_call((4, 5), (3, 5), 0), test) is False


def test_the_search_for_a_breaking_call_reads_each_dim_the_loop_compares() -> None:
    (rule,) = [r for r in rules(walk(COMPARE, ["self", "dim", "index", "workspaceSize", "executor"]))
               if r[1] == "int_test"]
    leaves = int_leaves(rule[2]["test"])
    assert ("dim", "index", 0, 1) in leaves and ("dim", "self", 0, 7) in leaves and ("attr", "dim") in leaves


REDUCE = """
static const int64_t REDUCE_NONE = 0;
static const int64_t REDUCE_ADD = 1;
static const int64_t REDUCE_MUL = 2;
static const std::string REDUCTION_NONE = "none";
static const std::string REDUCTION_ADD = "add";
static const std::string REDUCTION_MUL = "mul";

static const std::string& GetReduceStr(int64_t reduce)
{
    if (reduce == REDUCE_NONE) {
        return REDUCTION_NONE;
    } else if (reduce == REDUCE_ADD) {
        return REDUCTION_ADD;
    } else if (reduce == REDUCE_MUL) {
        OP_LOGW("Multiply mode is experimental!");
        return REDUCTION_MUL;
    }
    OP_LOGW("reduce not in {0,1,2}, will use reduce=0.");
    return REDUCTION_NONE;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t reduce, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    const std::string& reduction = GetReduceStr(reduce);
    if (reduction != REDUCTION_NONE) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "only none.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_a_string_named_by_an_integer_argument_is_compared_as_that_integer() -> None:
    checks = [r for r in rules(walk(REDUCE, ["self", "reduce", "workspaceSize", "executor"])) if r[0] == "check"]
    assert not [r for r in rules(walk(REDUCE, ["self", "reduce", "workspaceSize", "executor"])) if r[0] == "unread"]
    # "none" is named by 0 and by every value no branch names: the failure is reduce 1 or 2
    failing = {v for v in range(-3, 6)
               if any(TEMPLATES[t](CallView({}, {"reduce": v}, frozenset()), dict(a)) for _, t, a, _ in checks)}
    assert failing == {1, 2}
    assert all(status == 161002 for *_, status in checks)


ROWS = """
static inline bool CheckDtypeCombineValid(const aclTensor* updates, const aclTensor* quantScales)
{
    DataType updatesDtype = updates->GetDataType();
    DataType quantScalesDtype = quantScales->GetDataType();
    if (updatesDtype == DataType::DT_FLOAT16 && quantScalesDtype == DataType::DT_FLOAT) {
        return true;
    } else if (updatesDtype == DataType::DT_BF16 && quantScalesDtype == DataType::DT_BF16) {
        return true;
    } else {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "(updates,quantScales) Dtype should be (float16, float) or (bfloat16, bfloat16).");
        return false;
    }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* updates, const aclTensor* quantScales,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDtypeCombineValid(updates, quantScales), ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_a_chain_of_accepted_dtype_rows_is_one_combination_rule() -> None:
    events = rules(walk(ROWS, ["updates", "quantScales", "workspaceSize", "executor"]))
    assert events == [("check", "combination_in", {"params": ["updates", "quantScales"], "combinations": [
        [["FLOAT16"], ["FLOAT"]], [["BF16"], ["BF16"]]], "list": "literal"}, 161002)]


def test_a_failure_on_an_empty_conjunction_is_not_read_as_dtype_rows() -> None:
    # every part decided by the product leaves no dtype row to read: no rule of rows, and no crash
    from aclnn_conformance.extract.host_code.dtypes import dtype_rows_excluded
    assert dtype_rows_excluded(None, None, 0, [], {}, 161002, "") is False


MEDIAN = """
static inline int64_t GetTensorDim(const aclTensor* self)
{
    return static_cast<int64_t>(self->GetViewShape().GetDimNum());
}

static bool CheckDim(const aclTensor* self, int64_t dim)
{
    int64_t dimSize = GetTensorDim(self);
    int64_t dimMin = std::min(-1 * dimSize, dimSize - 1);
    int64_t dimMax = std::max(-1 * dimSize, dimSize - 1);
    if ((dim > dimMax) || (dim < dimMin)) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "dim should be in range [%ld, %ld].", dimMin, dimMax);
        return false;
    }
    return true;
}

static bool CheckShapeDim(const aclTensor* self, bool keepDim, const aclTensor* valuesOut)
{
    auto expectedDimNum = keepDim ? self->GetViewShape().GetDimNum() : self->GetViewShape().GetDimNum() - 1;
    if (self->GetViewShape().GetDimNum() == 0) {
        expectedDimNum = self->GetViewShape().GetDimNum();
    }
    OP_CHECK_WRONG_DIMENSION(valuesOut, expectedDimNum, return false);
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, int64_t dim, bool keepDim, aclTensor* valuesOut,
                                      uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDim(self, dim), ACLNN_ERR_PARAM_INVALID);
    CHECK_RET(CheckShapeDim(self, keepDim, valuesOut), ACLNN_ERR_PARAM_INVALID);
    auto dimSize = self->GetViewShape().GetDimNum();
    if (dimSize != 0) {
        auto realDim = (dim + dimSize) % dimSize;
        if (self->GetDataType() == op::DataType::DT_BF16 && self->GetViewShape().GetDim(realDim) == 1) {
            OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The dim axis value is not support 1 when input type is BF16.");
            return ACLNN_ERR_PARAM_INVALID;
        }
    }
    return ACLNN_SUCCESS;
}
"""


def _median(dtype: str, self: tuple, dim: int, keep: bool, out: tuple) -> CallView:
    return CallView({"self": TensorView(dtype, self, "ND"), "valuesOut": TensorView(dtype, out, "ND")},
                    {"dim": dim, "keepDim": keep}, frozenset())


def test_a_rank_chosen_by_a_bool_argument_and_a_dim_wrapped_by_a_remainder_are_read() -> None:
    names = ["self", "dim", "keepDim", "valuesOut", "workspaceSize", "executor"]
    checks = read_checks(MEDIAN, names)
    # the reduced dim kept or dropped (rank 0 stays rank 0); a bfloat16 dim of size 1 refused, however named
    cases = {
        ("FLOAT", (2, 3), 1, True, (2, 1)): [],
        ("FLOAT", (2, 3), 1, False, (2,)): [],
        ("FLOAT", (2, 3), 1, False, (2, 1)): [161002],
        ("FLOAT", (2, 3), 1, True, (2,)): [161002],
        ("FLOAT", (), 0, False, ()): [],
        ("BF16", (2, 1), 1, True, (2, 1)): [161002],
        ("BF16", (2, 1), -1, True, (2, 1)): [161002],
        ("BF16", (1, 3), -1, True, (1, 1)): [],
        ("BF16", (1, 3), -2, True, (1, 3)): [161002],
        ("FLOAT", (2, 1), 1, True, (2, 1)): [],
    }
    for (dtype, self, dim, keep, out), want in cases.items():
        got = [checks[i].status for i in violated(checks, _median(dtype, self, dim, keep, out))]
        assert got[:1] == want, (dtype, self, dim, keep, out)


PUT = """
static const std::initializer_list<op::DataType> OLD_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_INT32};
static const std::initializer_list<op::DataType> NEW_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_INT32,
                                                             op::DataType::DT_BF16};

static const std::initializer_list<DataType>& GetDtypeSupportList(bool accumulate)
{
    if (((GetCurrentPlatformInfo().GetCurNpuArch() == NpuArch::DAV_2201) || Ops::NN::AclnnUtil::IsRegbase()) &&
        accumulate == false) {
        return NEW_LIST;
    } else {
        return OLD_LIST;
    }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, bool accumulate, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto supportList = GetDtypeSupportList(accumulate);
    OP_CHECK_DTYPE_NOT_SUPPORT(self, supportList, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def _put(dtype: str, accumulate: bool) -> CallView:
    return CallView({"self": TensorView(dtype, (2,), "ND")}, {"accumulate": accumulate}, frozenset())


def test_a_dtype_list_chosen_on_the_product_and_a_bool_argument_is_checked_per_choice() -> None:
    names = ["self", "accumulate", "workspaceSize", "executor"]
    # Atlas A2 (DAV_2201) takes the new list without accumulation; Atlas training (DAV_1001) never does
    for product, accepted in (("atlas-a2", {("BF16", False), ("FLOAT", False), ("FLOAT", True)}),
                              ("atlas-training", {("FLOAT", False), ("FLOAT", True)})):
        events = walk(PUT, names, product)
        assert [e.text for e in events if e.kind == "unread"] == []
        checks = [e for e in events if e.kind == "check"]
        got = {(d, acc) for d in ("FLOAT", "BF16", "INT8") for acc in (False, True)
               if not violated(checks, _put(d, acc))}
        assert got == accepted, product
