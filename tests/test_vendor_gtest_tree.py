"""The gtest reader on the C++ forms it reads from the syntax tree (vendor/gtest.py): each fixture is
a small unit test written for one form, read as the importer reads a file."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.vendor.gtest import first_api, read_gtest
from aclnn_conformance.vendor.soc import default_soc_version

HEAD = "#include \"op_api_ut_common/op_api_ut.h\"\n"


def _read(body: str):
    text = HEAD + body
    result = read_gtest(Path("test_aclnn_tree.cpp"), "ops/test_aclnn_tree.cpp", "atlas-a2",
                        "the harness default", text)
    return result, {c.case_id: c for c in result.cases}


def _problems(result) -> list[str]:
    return [p.text() for p in result.problems]


def test_a_test_name_starting_with_a_digit_is_read_whole():
    # the grammar reads `001_dtype` as a literal with a suffix: the name comes from the macro's tokens
    result, cases = _read("""
TEST_F(l2ErfinvTest, 008_self_out)
{
    auto self = TensorDesc({2, 3}, ACL_FLOAT, ACL_FORMAT_ND);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT(self));
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_ERR_PARAM_INVALID);
}
TEST_F(l2ErfinvTest, 001_dtype)
{
    auto self = TensorDesc({4}, ACL_INT32, ACL_FORMAT_ND);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT(self));
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    assert set(cases) == {"ut-l2ErfinvTest.008_self_out", "ut-l2ErfinvTest.001_dtype"}
    assert cases["ut-l2ErfinvTest.008_self_out"].expected.status == Status.ERR_PARAM_INVALID
    assert cases["ut-l2ErfinvTest.001_dtype"].tensors["input0"].dtype == DT.INT32
    assert cases["ut-l2ErfinvTest.001_dtype"].source == "ops/test_aclnn_tree.cpp:15"
    assert result.problems == []


def test_numeric_limits_subscripts_sizes_and_brace_initialised_locals():
    result, cases = _read("""
TEST_F(tree_test, values)
{
    vector<vector<int64_t>> dims{{2, 3}, {4}};
    vector<int64_t> index{0, 1, 2};
    int64_t n = 2, m = -1;
    auto self = TensorDesc(dims[0], ACL_FLOAT, ACL_FORMAT_ND).ValueRange(-std::numeric_limits<float>::infinity(), 1);
    auto other = TensorDesc({static_cast<int64_t>(index.size())}, ACL_INT64, ACL_FORMAT_ND);
    auto low = ScalarDesc(std::numeric_limits<float>::quiet_NaN());
    auto high = ScalarDesc(std::numeric_limits<int32_t>::max());
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self, other, low, high, n, m), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS) << "a message after the expectation";
}
""")
    vc = cases["ut-tree_test.values"]
    assert vc.tensors["input0"].shape == (2, 3)
    assert vc.tensors["input0"].values == {"kind": "uniform", "lo": -math.inf, "hi": 1}
    assert vc.tensors["input1"].shape == (3,)
    assert math.isnan(vc.attrs["input2"]) and vc.attrs["input2.dtype"] == "ACL_FLOAT"
    assert vc.attrs["input3"] == 2**31 - 1 and vc.attrs["input3.dtype"] == "ACL_INT64"
    assert (vc.attrs["input4"], vc.attrs["input5"]) == (2, -1)       # `-1` is an integer literal
    assert isinstance(vc.attrs["input5"], int)
    assert result.problems == []


def test_a_constructor_the_grammar_reads_as_a_function_declaration():
    # `TensorDesc x(shape, ACL_FLOAT, ACL_FORMAT_ND)` with names only parses as a declaration of a
    # function: its parameters are read back as the constructor's arguments
    result, cases = _read("""
TEST_F(tree_test, vexing)
{
    vector<int64_t> shape = {5, 6};
    TensorDesc self(shape, ACL_FLOAT16, ACL_FORMAT_ND);
    TensorDesc bad(missing, ACL_FLOAT16, ACL_FORMAT_ND);
    float alpha = 0.1;
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self, alpha), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    auto ut2 = OP_API_UT(aclnnTreeOnly, INPUT(bad, alpha), OUTPUT());
    EXPECT_EQ(ut2.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    vc = cases["ut-tree_test.vexing"]
    assert (vc.tensors["input0"].shape, vc.tensors["input0"].dtype) == ((5, 6), DT.FLOAT16)
    assert vc.attrs["input1"] == float(np.float32(0.1))
    # the error in the re-parsed text cites the declaration's own line
    assert _problems(result) == ["ops/test_aclnn_tree.cpp:7: test tree_test.vexing: `missing` is not "
                                 "a value this test defines"]


def test_what_the_reader_does_not_follow_is_listed_not_guessed():
    result, cases = _read("""
TEST_F(tree_test, not_followed)
{
    vector<int64_t> dims = {2, 3};
    dims[1] = 4;
    int64_t k = 1;
    k += 2;
    auto self = TensorDesc(dims, ACL_FLOAT, ACL_FORMAT_ND);
    auto other = TensorDesc({k}, ACL_FLOAT, ACL_FORMAT_ND);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT());
    auto ut2 = OP_API_UT(aclnnTreeOnly, INPUT(other), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    EXPECT_EQ(ut2.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    for (auto dtype : SupportedDtypes()) {
        EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    }
    if (IsRegBase()) EXPECT_NE(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    assert cases == {}
    assert _problems(result) == [
        "ops/test_aclnn_tree.cpp:6: test tree_test.not_followed: cannot read `dims (a part set by "
        "`dims[1]`, which this reader does not follow)`",
        "ops/test_aclnn_tree.cpp:8: test tree_test.not_followed: cannot read `k (changed by `+=`, "
        "which this reader does not follow)`",
        "ops/test_aclnn_tree.cpp:17: test tree_test.not_followed: the expectation sits inside `for`: "
        "its call varies at run time",
        "ops/test_aclnn_tree.cpp:19: test tree_test.not_followed: the expectation sits inside `if`: "
        "its call varies at run time"]


def test_the_soc_of_a_fixture_a_scope_and_a_parametrized_test():
    result, cases = _read("""
class tree_fixture : public testing::Test {
protected:
    void SetUp() override { op::SetPlatformSocVersion(op::SocVersion::ASCEND950); }
};
TEST_P(tree_fixture, from_table) { auto ut = OP_API_UT(aclnnTreeOnly, INPUT(), OUTPUT()); }
TEST_F(tree_fixture, scoped)
{
    auto self = TensorDesc({2}, ACL_FLOAT, ACL_FORMAT_ND);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    {
        op::NpuArchManager archManager(NpuArch::DAV_2002);
        aclnnStatus ret = ut.TestGetWorkspaceSize(&ws);
        EXPECT_EQ(ret, ACLNN_ERR_PARAM_NULLPTR);
    }
}
""")
    first, scoped = cases["ut-tree_fixture.scoped"], cases["ut-tree_fixture.scoped#2"]
    assert first.product == "ascend950" and first.product_source.startswith("the fixture's SetUp sets")
    assert first.product_source.endswith("(ops/test_aclnn_tree.cpp:5)")
    assert scoped.product == "atlas-inference" and "DAV_2002 (ops/test_aclnn_tree.cpp:15)" in scoped.product_source
    assert _problems(result) == ["ops/test_aclnn_tree.cpp:7: parametrized test (TEST_P): its calls are "
                                 "built in C++ from a parameter table, which this reader does not "
                                 "evaluate"]


def test_the_api_of_a_csv_table_and_the_harness_default_come_from_the_tree():
    assert first_api("// OP_API_UT(aclnnInAComment, INPUT(x))\n"
                     "TEST_P(t, c) { auto ut = OP_API_UT(aclnnFromCode, INPUT(x), OUTPUT()); }") == "aclnnFromCode"
    assert first_api("TEST_P(t, c) { }") is None
    assert default_soc_version("// g_socVersion = SocVersion::ASCEND310;\n"
                               "thread_local SocVersion g_socVersion = op::SocVersion::ASCEND910B;\n") == ("ASCEND910B", 2)
    assert default_soc_version("void Reset() {\n  g_socVersion = SocVersion::ASCEND950;\n}\n") == ("ASCEND950", 2)
    assert default_soc_version("SocVersion other = SocVersion::ASCEND950;\n") is None


def test_file_constants_enums_macros_and_the_constants_of_an_included_header(tmp_path):
    header = tmp_path / "ops" / "common" / "inc" / "op_api" / "op_api_def_nn.h"
    header.parent.mkdir(parents=True)
    header.write_text("namespace op {\nconstexpr int8_t KEEP_DTYPE = 0;\nconstexpr int8_t USE_HF32 = 3;\n}\n"
                      "aclnnStatus aclnnTreeOnly(const aclTensor* self);\n")
    source = tmp_path / "ops" / "tree" / "tests" / "ut" / "op_api" / "test_aclnn_tree.cpp"
    source.parent.mkdir(parents=True)
    source.write_text(HEAD + """#include "op_api/op_api_def_nn.h"
#define HALF_WIDTH 4 / 2
enum Reduction { None, Mean, Sum = 5, END };
const int8_t cubeMathType = op::USE_HF32;
TEST_F(tree_test, file_scope)
{
    auto self = TensorDesc({HALF_WIDTH, 3}, ACL_FLOAT, ACL_FORMAT_ND).ValueRange(-INFINITY, NAN);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self, Mean, END, cubeMathType, KEEP_DTYPE), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    result = read_gtest(source, "ops/tree/test_aclnn_tree.cpp", None, "no default", None)
    vc = result.cases[0]
    assert vc.tensors["input0"].shape == (2, 3)
    assert vc.tensors["input0"].values["lo"] == -math.inf and math.isnan(vc.tensors["input0"].values["hi"])
    assert [vc.attrs[f"input{k}"] for k in range(1, 5)] == [1, 6, 3, 0]
    assert result.problems == []


def test_a_vector_a_test_fills_and_a_braced_copy_of_a_shape():
    result, cases = _read("""
TEST_F(tree_test, filled)
{
    vector<float> values;
    values.resize(4, 1.5);
    values.push_back(2);
    vector<int64_t> shape = {5};
    auto self = TensorDesc({shape}, ACL_FLOAT, ACL_FORMAT_ND).Value(values);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    values.clear();
    auto ut2 = OP_API_UT(aclnnTreeOnly, INPUT(TensorDesc({shape}, ACL_FLOAT, ACL_FORMAT_ND).Value(values)), OUTPUT());
    EXPECT_EQ(ut2.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    assert cases["ut-tree_test.filled"].tensors["input0"].shape == (5,)
    assert cases["ut-tree_test.filled"].tensors["input0"].values == {"kind": "values",
                                                                      "values": [1.5, 1.5, 1.5, 1.5, 2.0]}
    assert cases["ut-tree_test.filled#2"].tensors["input0"].values == {"kind": "values", "values": []}
    assert result.problems == []


def test_a_loop_over_a_stated_list_is_read_once_a_pass_and_a_stated_condition_takes_one_branch():
    result, cases = _read("""
TEST_F(tree_test, every_dtype)
{
    vector<aclDataType> dtypes{ACL_FLOAT, ACL_INT8, ACL_COMPLEX128};
    for (auto dtype : dtypes) {
        auto self = TensorDesc({2}, dtype, ACL_FORMAT_ND);
        auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT());
        uint64_t ws = 0;
        aclnnStatus ret = ut.TestGetWorkspaceSize(&ws);
        if (dtype == ACL_COMPLEX128 || dtype == ACL_INT8 && false) {
            EXPECT_EQ(ret, ACLNN_ERR_PARAM_INVALID);
        } else {
            EXPECT_EQ(ret, ACLNN_SUCCESS);
        }
    }
    for (const auto& shape : vector<vector<int64_t>>{{1}, {2, 3}}) {
        auto ut = OP_API_UT(aclnnTreeOnly, INPUT(TensorDesc(shape, ACL_FLOAT, ACL_FORMAT_ND)), OUTPUT());
        uint64_t ws = 0;
        EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), shape.size() > 1 ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID);
    }
}
""")
    read = [(c.tensors["input0"].dtype, c.expected.status, c.source.rsplit(":", 1)[1]) for c in cases.values()]
    assert read == [(DT.FLOAT, 0, "14"), (DT.INT8, 0, "14"), (DT.COMPLEX128, Status.ERR_PARAM_INVALID, "12")]
    assert list(cases) == ["ut-tree_test.every_dtype", "ut-tree_test.every_dtype#2", "ut-tree_test.every_dtype#3"]
    # the second loop is read a pass at a time too: its status, a conditional expression, is listed once a pass
    assert _problems(result) == ["ops/test_aclnn_tree.cpp:20: test tree_test.every_dtype: the expected status "
                                 "`shape.size()>1?ACLNN_SUCCESS:ACLNN_ERR_PARAM_INVALID` is not a status name"] * 2


def test_a_continue_a_stated_branch_takes_skips_its_pass_and_one_decided_at_run_time_undoes_the_passes():
    result, cases = _read("""
TEST_F(tree_test, skipped)
{
    vector<aclDataType> dtypes{ACL_FLOAT, ACL_COMPLEX64, ACL_INT32, ACL_BOOL};
    for (auto dtype : dtypes) {
        if (dtype == ACL_COMPLEX64) {
            continue;
        }
        if (dtype == ACL_BOOL) break;
        auto ut = OP_API_UT(aclnnTreeOnly, INPUT(TensorDesc({2}, dtype, ACL_FORMAT_ND)), OUTPUT());
        uint64_t ws = 0;
        EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    }
}
TEST_F(tree_test, run_time)
{
    vector<aclDataType> dtypes{ACL_FLOAT, ACL_INT32};
    for (auto dtype : dtypes) {
        auto ut = OP_API_UT(aclnnTreeOnly, INPUT(TensorDesc({2}, dtype, ACL_FORMAT_ND)), OUTPUT());
        uint64_t ws = 0;
        EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
        if (IsRegBase()) {
            continue;
        }
    }
}
""")
    assert [c.tensors["input0"].dtype for c in cases.values()] == [DT.FLOAT, DT.INT32]
    assert list(cases) == ["ut-tree_test.skipped", "ut-tree_test.skipped#2"]
    assert _problems(result) == ["ops/test_aclnn_tree.cpp:22: test tree_test.run_time: the expectation sits "
                                 "inside `for`: its call varies at run time"]


def test_a_statement_the_grammar_cannot_read_is_listed_when_it_may_hold_the_call():
    result, cases = _read("""
TEST_F(tree_test, unreadable)
{
    auto self = TensorDesc({2}, ACL_FLOAT, ACL_FORMAT_ND);
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws) ACLNN_SUCCESS, return);
    CHECK_RET(OP_API_UT(aclnnTreeOnly, INPUT(self), OUTPUT()), return ACLNN_ERR_PARAM_NULLPTR);
}
""")
    assert list(cases) == ["ut-tree_test.unreadable"]
    assert [(p.where, p.reason.split(": ", 2)[1]) for p in result.problems] == [
        ("ops/test_aclnn_tree.cpp:9", "a statement the C++ grammar cannot read"),
        ("ops/test_aclnn_tree.cpp:10", "a statement the C++ grammar cannot read")]


def test_a_scalar_of_a_cast_value_takes_that_types_constructor():
    # scalar_desc.h: ScalarDesc(int32_t) is ACL_INT32, ScalarDesc(uint8_t) ACL_UINT8, ScalarDesc(double)
    # ACL_DOUBLE (ops-nn norm/quantized_batch_norm/tests/ut/op_host/op_api/test_aclnn_quantized_batch_norm.cpp:34)
    result, cases = _read("""
TEST_F(tree_test, typed_scalars)
{
    auto zero = ScalarDesc(static_cast<int32_t>(2));
    auto small = ScalarDesc(static_cast<uint8_t>(7));
    auto wide = ScalarDesc(double(0.5));
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(zero, small, wide), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    vc = cases["ut-tree_test.typed_scalars"]
    assert (vc.attrs["input0"], vc.attrs["input0.dtype"]) == (2, "ACL_INT32")
    assert (vc.attrs["input1"], vc.attrs["input1.dtype"]) == (7, "ACL_UINT8")
    assert (vc.attrs["input2"], vc.attrs["input2.dtype"]) == (0.5, "ACL_DOUBLE")
    assert result.problems == []


def test_a_scalar_of_a_literal_or_a_declared_name_takes_its_c_types_constructor():
    # C++ overload resolution over scalar_desc.h's constructors (LP64: int is int32_t, long int64_t):
    # 3 is an int, 3L a long, 2.5 a double, 2.5f a float, a name its declared type's
    result, cases = _read("""
TEST_F(tree_test, literal_scalars)
{
    float alpha = 1.5;
    int64_t count = 4;
    auto beta = 0.25f;
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(ScalarDesc(3), ScalarDesc(-3L), ScalarDesc(2.5), ScalarDesc(2.5f),
                                            ScalarDesc(alpha), ScalarDesc(count), ScalarDesc(beta),
                                            ScalarDesc(3000000000)), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    vc = cases["ut-tree_test.literal_scalars"]
    assert [(vc.attrs[f"input{i}"], vc.attrs[f"input{i}.dtype"]) for i in range(8)] == [
        (3, "ACL_INT32"), (-3, "ACL_INT64"), (2.5, "ACL_DOUBLE"), (2.5, "ACL_FLOAT"), (1.5, "ACL_FLOAT"),
        (4, "ACL_INT64"), (0.25, "ACL_FLOAT"), (3000000000, "ACL_INT64")]
    assert result.problems == []


def test_the_harness_default_is_read_where_each_repository_keeps_its_stub(tmp_path):
    from aclnn_conformance.vendor.soc import harness_default
    for place in ("tests/ut/op_api/stub/opdev", "tests/ut/framework_normal/op_api/stub/opdev"):   # ops-nn, ops-transformer
        root = tmp_path / place.replace("/", "_") / "ops-x"
        (root / place).mkdir(parents=True)
        (root / place / "platform.cpp").write_text("namespace op {\nSocVersion g_socVersion = SocVersion::ASCEND910_93;\n}\n")
        assert harness_default(root) == ("atlas-a3", f"the harness default SocVersion::ASCEND910_93 (ops-x/{place}/platform.cpp:2)")
    product, why = harness_default(tmp_path)
    assert product is None and "no unit-test harness stub platform" in why


def test_an_array_made_by_the_runtimes_constructor_holds_the_counted_elements():
    # ops-transformer's tests build an aclIntArray as `aclCreateIntArray(v.data(), v.size())`
    result, cases = _read("""
TEST_F(tree_test, runtime_array)
{
    vector<int64_t> config = {0, 7, 9};
    aclIntArray* all = aclCreateIntArray(config.data(), config.size());
    aclIntArray* two = aclCreateIntArray(config.data(), 2);
    vector<bool> flags = {1, 0};
    aclBoolArray* mask = aclCreateBoolArray(flags.data(), flags.size());
    auto ut = OP_API_UT(aclnnTreeOnly, INPUT(all, two, mask), OUTPUT());
    uint64_t ws = 0;
    EXPECT_EQ(ut.TestGetWorkspaceSize(&ws), ACLNN_SUCCESS);
}
""")
    vc = cases["ut-tree_test.runtime_array"]
    assert (vc.attrs["input0"], vc.attrs["input1"], vc.attrs["input2"]) == ([0, 7, 9], [0, 7], [True, False])
    assert result.problems == []
