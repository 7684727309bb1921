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
