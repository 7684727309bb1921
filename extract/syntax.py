"""The C++ syntax tree every reader of the vendor's code starts from: ``tree-sitter`` with its C++
grammar (both maintained, from PyPI). A reader interprets the tree; nothing in the project tokenizes C++
or matches brackets by hand.

The vendor's macros that take a statement as an argument (``OP_CHECK_NULL(self, return false)``,
``CHECK_RET(cond, return ACLNN_ERR_PARAM_NULLPTR)``) are not C++ the grammar knows: the parser recovers
locally and leaves one ``ERROR`` node per such statement, whose text is still the macro's name and its
arguments. ``macro_call`` reads them back, here and nowhere else."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

import tree_sitter
import tree_sitter_cpp

Node = tree_sitter.Node


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(tree_sitter.Language(tree_sitter_cpp.language()))


def parse_cpp(text: str) -> tree_sitter.Tree:
    """The syntax tree of ``text`` (byte offsets index its UTF-8 encoding; ``text_of`` decodes)."""
    return _parser().parse(text.encode("utf-8"))


def text_of(node: Node) -> str:
    """The source text a node spans."""
    return node.text.decode("utf-8") if node.text is not None else ""


def line_of(node: Node) -> int:
    """The 1-based line a node starts on (the citations' line numbers)."""
    return node.start_point[0] + 1


def walk(node: Node) -> Iterator[Node]:
    """Every node under ``node`` (itself first), in source order."""
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


@dataclass(frozen=True)
class MacroCall:
    """A macro statement read from its tokens: ``NAME(arg, arg, ...)`` with each argument's text."""
    name: str
    args: tuple[str, ...]
    line: int


def leaves(node: Node) -> Iterator[Node]:
    """The tokens under ``node``, in source order (an error node's tokens included)."""
    return (n for n in walk(node) if n.child_count == 0)


_OPEN, _CLOSE = frozenset("([{"), frozenset(")]}")


def macro_call(text: str, line: int = 1) -> MacroCall | None:
    """``NAME(a, b, ...)`` read as a name and its top-level arguments from the parser's tokens (the
    form the parser leaves as an error node): an argument ends at a comma outside every bracket token
    of the call, as the preprocessor splits a macro's arguments (``a < b`` and a ``return x`` argument
    stay whole; a template's comma splits, as it does for the preprocessor)."""
    source = f"void _f() {{ {text}; }}"
    tree = parse_cpp(source)
    body = tree.root_node.children[0].child_by_field_name("body") if tree.root_node.children else None
    if body is None:
        return None
    data = source.encode("utf-8")
    tokens = [t for t in leaves(body) if t.end_byte > t.start_byte][1:]   # past the body's "{"
    if len(tokens) < 3 or tokens[0].type != "identifier" or tokens[1].type != "(":
        return None
    args, depth, start = [], 0, tokens[1].end_byte
    for tok in tokens[1:]:
        if tok.type in _OPEN:
            depth += 1
        elif tok.type in _CLOSE:
            depth -= 1
            if depth == 0:
                args.append(data[start:tok.start_byte].decode("utf-8").strip())
                return MacroCall(text_of(tokens[0]), tuple(a for a in args if a) if args != [""] else (), line)
        elif tok.type == "," and depth == 1:
            args.append(data[start:tok.start_byte].decode("utf-8").strip())
            start = tok.end_byte
    return None
