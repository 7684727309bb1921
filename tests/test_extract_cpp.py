"""The host-code reader on the syntax tree (extract/cpp.py): definitions, lists and statements."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import match_close, read_source, split_args, statements, strip_comments

SOURCE = '''// a header comment (
#include "aclnn_x.h"
#ifdef __cplusplus
extern "C" {
#endif
static const std::initializer_list<op::DataType> LIST = {
    op::DataType::DT_FLOAT, /* no DT_INT8 */ op::DataType::DT_FLOAT16};
static const std::initializer_list<std::pair<DataType, DataType>> PAIRS = {{DT_FLOAT, DT_INT32}};
static constexpr size_t MAX_DIM = 8;

template <typename T>
static aclnnStatus CheckStep(T start, T end)
{
    return start < end ? ACLNN_SUCCESS : ACLNN_ERR_PARAM_INVALID;
}

ACLNN_API aclnnStatus aclnnXGetWorkspaceSize(const aclTensor* self, const gert::Shape* const shape,
                                             int64_t pads[3], aclOpExecutor** executor)
{
    OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR);
    if (self->IsEmpty()) {
        return ACLNN_SUCCESS;
    } else if (MAX_DIM > 2) {
        { }
    }
    for (int i = 0; i < 2; i++) {
        Run(i);
    }
    auto out = l0op::X(self, executor);
    return ACLNN_SUCCESS;
}

extern "C" aclnnStatus aclnnX(void* workspace) { return ACLNN_SUCCESS; }
#ifdef __cplusplus
}
#endif
'''


def test_definitions_lists_and_constants_come_from_the_tree() -> None:
    src = read_source("x/op_api/aclnn_x.cpp", SOURCE)
    assert src.lists["LIST"] == (("FLOAT", "FLOAT16"), 6)
    assert src.pair_lists["PAIRS"] == ((("FLOAT", "INT32"),), 8)
    assert src.constants == {"MAX_DIM": 8}
    assert sorted(src.functions) == ["CheckStep", "aclnnX", "aclnnXGetWorkspaceSize"]
    api = src.functions["aclnnXGetWorkspaceSize"]
    assert (api.line, api.returns) == (17, "ACLNN_API aclnnStatus")
    assert api.params == ("self", "shape", "pads", "executor")
    assert api.param_types == ("const aclTensor*", "const gert::Shape* const", "int64_t", "aclOpExecutor**")
    assert src.text[api.body_offset - 1] == "{" and api.body.rstrip().endswith("return ACLNN_SUCCESS;")
    step = src.functions["CheckStep"]
    assert step.line == 11 and step.returns.startswith("template <typename T>")
    assert src.functions["aclnnX"].params == ("workspace",)


def test_comments_and_strings_are_blanked_in_place() -> None:
    text = 'a = f("x, y", "tanh"); // c(\n/* d\n e */ g();\n#define M "q, s" // r\n'
    clean = strip_comments(text)
    assert clean == 'a = f("    ", "tanh");      \n    \n      g();\n#define M "    "     \n'


def test_statements_follow_the_compound_statement() -> None:
    src = read_source("x/op_api/aclnn_x.cpp", SOURCE)
    api = src.functions["aclnnXGetWorkspaceSize"]
    stmts = statements(api.body, api.body_offset)
    assert [s.kind for s in stmts] == ["call", "if", "other", "decl", "return"]
    check, branch, loop, decl, ret = stmts
    assert check.text == "OP_CHECK_NULL(self, return ACLNN_ERR_PARAM_NULLPTR)"
    assert src.text[check.offset:].startswith("OP_CHECK_NULL")
    assert (branch.text, branch.cond) == ("if (self->IsEmpty())", "self->IsEmpty()")
    assert [s.kind for s in branch.then] == ["return"]
    assert [s.kind for s in branch.orelse] == ["if"] and branch.orelse[0].then[0].kind == "block"
    assert loop.text.startswith("for (") and loop.text.endswith("}")
    assert (decl.text, ret.text) == ("auto out = l0op::X(self, executor)", "return ACLNN_SUCCESS")


def test_match_close_and_split_args_on_text_slices() -> None:
    assert match_close("CheckType(a, LIST)", 9) == 17
    assert match_close("{ a; }", 0, "{", "}") == 5
    assert match_close("x(", 0) == -1   # the character at start is not the bracket asked for
    assert split_args("a, g(b, c)") == ["a", "g(b, c)"]


STATEMENT_MACROS = '''namespace ops {
static graphStatus GetN(gert::InferShapeContext* context, int64_t& n)
{
    auto attrs = context->GetAttrs();
    OP_CHECK_NULL_WITH_CONTEXT(context, attrs);
    OP_CHECK_IF(
        n < 1,
        OP_LOGE(context->GetNodeName(), "bad"),
        return GRAPH_FAILED);
    bool isInvalid = (static_cast<size_t>(n) != 2 ||
                      static_cast<size_t>(n) != 3);
    OP_CHECK_IF(
        isInvalid,
        OP_LOGE(context->GetNodeName(), "bad"),
        return GRAPH_FAILED);
    return GRAPH_SUCCESS;
}

static bool CheckSize(const gert::Shape* a, int32_t& zeros)
{
    const int64_t size = a->GetShapeSize();
    return size > 0;
}

static graphStatus InferShape(gert::InferShapeContext* context)
{
    return GRAPH_SUCCESS;
}
}  // namespace ops
'''


def test_definitions_after_a_recovery_that_ran_past_a_body_are_read() -> None:
    from aclnn_conformance.extract.syntax import parse_cpp, walk
    plain = [n for n in walk(parse_cpp(STATEMENT_MACROS).root_node) if n.type == "function_definition"]
    assert len(plain) == 1   # the parser's recovery from the macros swallows the next two definitions
    src = read_source("x/op_host/x_infershape.cpp", STATEMENT_MACROS)
    assert [(f.name, f.line) for f in src.functions.values()] == [("GetN", 2), ("CheckSize", 19), ("InferShape", 25)]
    assert src.functions["GetN"].body.rstrip().endswith("return GRAPH_SUCCESS;")
    assert src.functions["CheckSize"].params == ("a", "zeros")


def test_block_end_and_switch_cases_come_from_the_tree() -> None:
    from aclnn_conformance.extract.cpp import block_end, switch_cases
    body = "\n    if (a) {\n        x = 1;\n        return true;\n    }\n    y = 2;\n"
    assert block_end(body, body.index("x = 1")) == body.index("}")
    assert block_end(body, body.index("y = 2")) == -1
    text = "switch (dtype) {\n    case op::DataType::DT_FLOAT:\n    case 3:\n        return a;\n    default: {\n        break;\n    }\n}"
    found = switch_cases(text)
    assert found is not None
    inner, cases, opening = found
    assert opening == text.index("{") and inner == text[opening + 1:text.rindex("}")]
    assert [c.value for c in cases] == ["op::DataType::DT_FLOAT", None]   # a number label is not read as a name
    assert inner[cases[0].start:cases[0].end] == "case op::DataType::DT_FLOAT:"
    assert switch_cases("x = 1") is None
