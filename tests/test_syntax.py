"""The C++ syntax tree and the one reader of macro statements (extract/syntax.py)."""
from __future__ import annotations

import pytest

from aclnn_conformance.extract.syntax import MacroCall, line_of, macro_call, parse_cpp, text_of, walk


@pytest.mark.parametrize("text, expected", [
    ("OP_CHECK_NULL(self, return false)", MacroCall("OP_CHECK_NULL", ("self", "return false"), 1)),
    ("CHECK_RET(a < b && f(x, y), return ACLNN_ERR_PARAM_NULLPTR)",
     MacroCall("CHECK_RET", ("a < b && f(x, y)", "return ACLNN_ERR_PARAM_NULLPTR"), 1)),
    ('OP_CHECK(n == 3, OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bad %d, %d", a, b), return ACLNN_ERR_PARAM_INVALID)',
     MacroCall("OP_CHECK", ("n == 3", 'OP_LOGE(ACLNN_ERR_PARAM_INVALID, "bad %d, %d", a, b)',
                            "return ACLNN_ERR_PARAM_INVALID"), 1)),
    # the preprocessor splits a template's comma too
    ("M(std::pair<int, int>{}, return 1)", MacroCall("M", ("std::pair<int", "int>{}", "return 1"), 1)),
    ("CHECK_RET(c == ',', return 1)", MacroCall("CHECK_RET", ("c == ','", "return 1"), 1)),
    ("F()", MacroCall("F", (), 1)),
])
def test_macro_call_reads_name_and_arguments(text: str, expected: MacroCall) -> None:
    assert macro_call(text) == expected


def test_macro_call_refuses_what_is_not_a_call() -> None:
    assert macro_call("return x") is None
    assert macro_call("a = b") is None


def test_the_parser_leaves_a_statement_macro_as_an_error_node_and_keeps_the_rest() -> None:
    src = "bool F(const aclTensor* self) {\n  OP_CHECK_NULL(self, return false);\n  return true;\n}\n"
    tree = parse_cpp(src)
    errors = [n for n in walk(tree.root_node) if n.type == "ERROR"]
    assert [text_of(e) for e in errors] == ["OP_CHECK_NULL(self, return false)"]
    assert line_of(errors[0]) == 2
    returns = [n for n in walk(tree.root_node) if n.type == "return_statement"]
    assert [text_of(r) for r in returns] == ["return true;"]


# ---- brackets and arguments answered from the tree ----

from aclnn_conformance.extract.syntax import arguments, bracket_end, parsed  # noqa: E402


@pytest.mark.parametrize("text, start, expected", [
    ("f(a, g(b), c) + 1", 1, 12),
    ("f(a, g(b), c) + 1", 6, 8),
    ("if (x) { y = {1, 2}; } z;", 7, 21),
    ('f(")", a)', 1, 8),                           # a bracket in a string literal is no bracket
    ("OP_CHECK(a, (b), return false);", 8, 29),     # an error node: paired from its tokens
    ("f(a", 1, -1),
    ("a + b", 2, -1),
])
def test_bracket_end_pairs_what_the_parser_pairs(text: str, start: int, expected: int) -> None:
    assert bracket_end(text, start) == expected


def test_bracket_end_counts_characters_not_bytes() -> None:
    text = "/* 检查 */ f(a, \"形状\")"
    start = text.index("(")
    assert bracket_end(text, start) == len(text) - 1
    assert parsed(text).offset(parsed(text).byte(start)) == start


@pytest.mark.parametrize("text, expected", [
    ("a, b(c, d), e[1]", ["a", "b(c, d)", "e[1]"]),
    ("std::pair<DataType, DataType>(x, y), z", ["std::pair<DataType, DataType>(x, y)", "z"]),
    ('"x, y", z', ['"x, y"', "z"]),
    ("self, return false", ["self", "return false"]),   # a macro's statement argument: split at its tokens
    ("", []),
])
def test_arguments_are_the_argument_nodes(text: str, expected: list[str]) -> None:
    assert arguments(text) == expected


# ---- expressions split at the parser's operator tokens ----

from aclnn_conformance.extract.syntax import closes_no_unopened_block, split_top, ternary_branches, tokens  # noqa: E402


@pytest.mark.parametrize("text, operator, expected", [
    ("a && f(b && c) && d", "&&", ["a", "f(b && c)", "d"]),
    ("self->IsEmpty()", ">", ["self->IsEmpty()"]),                      # "->" is no ">"
    ("dim >= size", ">", ["dim >= size"]),                              # nor is ">="
    ("step > static_cast<T>(0)", ">", ["step", "static_cast<T>(0)"]),   # a template's ">" is a bracket
    ("c ? x : y", "?", ["c", "x : y"]),
])
def test_split_top_splits_at_operator_tokens(text: str, operator: str, expected: list[str]) -> None:
    assert split_top(text, operator) == expected


def test_ternary_branches_skip_nested_choices_and_scopes() -> None:
    assert ternary_branches("a ? b : c : op::d") == ["a ? b : c", "op::d"]
    assert ternary_branches("op::x") == ["op::x"]


def test_tokens_tell_a_sign_from_a_binary_operator() -> None:
    minus = [t for t in tokens("a - -b") if t.type == "-"]
    assert [t.parent for t in minus] == ["binary_expression", "unary_expression"]
    assert [t.depth for t in tokens("f(a)") if t.type == "identifier"] == [0, 1]


def test_closes_no_unopened_block() -> None:
    assert closes_no_unopened_block("int a = 1; if (a) { b(); }")
    assert not closes_no_unopened_block("int a = 1; } return a;")


def test_open_braces_counts_brace_tokens_before_an_offset() -> None:
    from aclnn_conformance.extract.syntax import open_braces
    text = 'if (a) { x = "{"; } y = 1; } z = 2;'
    assert open_braces(text, text.index("y")) == 0
    assert open_braces(text, text.index("x")) == 1
    assert open_braces(text) == -1   # a block the text did not open closes in it
