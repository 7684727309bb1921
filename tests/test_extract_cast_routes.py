"""l0op::Cast's routes read from a cast.cpp laid out like ops-math's (math/cast/op_api/cast.cpp:28-394
at c41933244c31): the pair lists each architecture's IsAiCoreSupport reaches, the AICPU list, and
the rule a null check of a Cast's result makes of the pairs without a route, with its status; a
dispatch of another shape is not read."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api
from aclnn_conformance.extract.host_code.cast_routes import read_cast_routes
from aclnn_conformance.spec.templates import CallView, TensorView, predicate

ARCHS = ("DAV_3510", "DAV_2201", "DAV_2002", "DAV_1001")

CAST_CPP = """
namespace l0op {
static const std::initializer_list<std::pair<op::DataType, op::DataType>> OLD_LIST = {
    {op::DataType::DT_FLOAT16, op::DataType::DT_FLOAT}, {op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16}};
static const std::initializer_list<std::pair<op::DataType, op::DataType>> B_LIST = {
    {op::DataType::DT_FLOAT, op::DataType::DT_HIFLOAT8}};
static const std::initializer_list<std::pair<op::DataType, op::DataType>> REGBASE_LIST = {
    {op::DataType::DT_FLOAT, op::DataType::DT_HIFLOAT8}, {op::DataType::DT_HIFLOAT8, op::DataType::DT_FLOAT},
    {op::DataType::DT_FLOAT16, op::DataType::DT_FLOAT8_E4M3FN}};
static const std::initializer_list<std::pair<op::DataType, op::DataType>> P_LIST = {
    {op::DataType::DT_FLOAT, op::DataType::DT_INT16}};
static const std::initializer_list<op::DataType> CPU_LIST = {
    op::DataType::DT_BOOL, op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16, op::DataType::DT_INT32};

static bool IsAiCoreSupport(const aclTensor* self, op::DataType dstDtype)
{
    auto curArch = GetCurrentPlatformInfo().GetCurNpuArch();
    bool isP = std::find(P_LIST.begin(), P_LIST.end(),
                         std::pair<op::DataType, op::DataType>(self->GetDataType(), dstDtype)) != P_LIST.end();
    if (curArch == NpuArch::DAV_2002 && isP) {
        return true;
    }
    if (curArch == NpuArch::DAV_2201) {
        return std::find(B_LIST.begin(), B_LIST.end(),
                         std::pair<op::DataType, op::DataType>(self->GetDataType(), dstDtype)) != B_LIST.end();
    }
    if (%s) {
        return std::find(REGBASE_LIST.begin(), REGBASE_LIST.end(),
                         std::pair<op::DataType, op::DataType>(self->GetDataType(), dstDtype)) != REGBASE_LIST.end();
    }
    return std::find(OLD_LIST.begin(), OLD_LIST.end(),
                     std::pair<op::DataType, op::DataType>(self->GetDataType(), dstDtype)) != OLD_LIST.end();
}

static bool IsAiCpuSupport(const aclTensor* self, op::DataType dstDtype)
{
    if (std::find(CPU_LIST.begin(), CPU_LIST.end(), self->GetDataType()) == CPU_LIST.end()) {
        return false;
    }
    return std::find(CPU_LIST.begin(), CPU_LIST.end(), dstDtype) != CPU_LIST.end();
}

const aclTensor* Cast(const aclTensor* self, op::DataType dstDtype, aclOpExecutor* executor)
{
    if (self->GetDataType() == dstDtype) {
        return self;
    }
    auto outTensor = executor->AllocTensor(self->GetViewShape(), dstDtype, self->GetStorageFormat());
    CHECK_RET(outTensor != nullptr, nullptr);
    if (IsAiCoreSupport(self, dstDtype)) {
        return CastAiCore(self, dstDtype, outTensor, executor);
    } else {
        CHECK_RET(IsAiCpuSupport(self, dstDtype), nullptr);
        return CastAiCpu(self, dstDtype, outTensor, executor);
    }
    return outTensor;
}
}
"""

API = """
static const std::initializer_list<op::DataType> SELF_LIST = {op::DataType::DT_FLOAT, op::DataType::DT_FLOAT16};

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, aclTensor* out, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    auto uniqueExecutor = CREATE_EXECUTOR();
    OP_CHECK_DTYPE_NOT_SUPPORT(self, SELF_LIST, return ACLNN_ERR_PARAM_INVALID);
    auto castOut = l0op::Cast(self, out->GetDataType(), uniqueExecutor.get());
    CHECK_RET(castOut != nullptr, ACLNN_ERR_INNER_NULLPTR);
    return ACLNN_SUCCESS;
}
"""


def _checkout(tmp_path, regbase_test: str = "IsRegBase(curArch)"):
    folder = tmp_path / "math" / "cast" / "op_api"
    folder.mkdir(parents=True)
    (folder / "cast.cpp").write_text(CAST_CPP % regbase_test)
    return read_cast_routes(tmp_path, "hicann/ops-math", "c0ffee", ARCHS)


def test_each_arch_reaches_the_lists_its_dispatch_names(tmp_path):
    routes = _checkout(tmp_path)
    assert routes.routed("DAV_2201", "FLOAT", "HIFLOAT8")           # its own list
    assert not routes.routed("DAV_1001", "FLOAT", "HIFLOAT8")       # the last return's list only
    assert routes.routed("DAV_3510", "FLOAT16", "FLOAT8_E4M3FN")
    assert routes.routed("DAV_2002", "FLOAT", "INT16")              # its flag, then on to the last list
    assert routes.routed("DAV_2002", "FLOAT16", "FLOAT") and not routes.routed("DAV_1001", "FLOAT", "INT16")
    assert routes.routed("DAV_1001", "BOOL", "INT32")               # two AICPU dtypes
    assert routes.routed("DAV_1001", "HIFLOAT8", "HIFLOAT8")        # its own dtype: the input itself
    assert routes.aicore_lines["DAV_2002"] == (10, 3)               # P_LIST, then OLD_LIST
    assert [c.line for c in routes.citations("DAV_2201")] == [43, 5, 12]   # Cast, B_LIST, CPU_LIST


def test_a_dispatch_of_another_shape_is_not_read(tmp_path):
    assert _checkout(tmp_path, "IsRegBase(curArch) || IsOther()") is None


def test_a_null_check_of_a_cast_names_the_pairs_without_a_route(tmp_path):
    routes = _checkout(tmp_path)
    src = read_source("snippet.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    binds = {p: T(n) for p, n in zip(fn.params, ["self", "out", "workspaceSize", "executor"])}
    events = walk_api(Index(src, [], [], None, routes), fn, binds, "atlas-a2")
    rule = events[-1]
    assert (rule.template, rule.status) == ("cast_routed", 561103)
    args = rule.args_dict()
    refused = {tuple(p) for p in args["refused"]}
    # FLOAT and FLOAT16 (the checked list) to every dtype: only the routed pairs are left out
    assert ("FLOAT", "HIFLOAT8") not in refused and ("FLOAT16", "HIFLOAT8") in refused
    assert ("FLOAT", "INT32") not in refused and ("FLOAT16", "FLOAT16") not in refused
    assert ("FLOAT", "FLOAT8_E5M2") in refused

    def call(out: str) -> CallView:
        return CallView({"self": TensorView("FLOAT16", (2,), "ND"), "out": TensorView(out, (2,), "ND")}, {},
                        frozenset())
    violated = predicate("cast_routed", args)
    assert violated(call("HIFLOAT8")) and not violated(call("FLOAT")) and not violated(call("FLOAT16"))
    # without the routes the null check stays what it was: no rule
    assert [e.template for e in walk_api(Index(src, [], [], None), fn, binds, "atlas-a2")] == ["dtype_in"]
