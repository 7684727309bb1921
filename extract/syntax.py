"""The C++ syntax tree every reader of the vendor's code starts from: ``tree-sitter`` with its C++
grammar (both maintained, from PyPI). A reader interprets the tree; nothing in the project tokenizes C++
or matches brackets by hand.

The vendor's macros that take a statement as an argument (``OP_CHECK_NULL(self, return false)``,
``CHECK_RET(cond, return ACLNN_ERR_PARAM_NULLPTR)``) are not C++ the grammar knows: the parser recovers
locally and leaves one ``ERROR`` node per such statement, whose text is still the macro's name and its
arguments. ``macro_call`` reads them back, here and nowhere else; ``bracket_end`` and ``arguments``
fall back on the same reading of tokens where the parser left an error node.

A reader that holds a part of a file (a body, a statement, a call's arguments) asks ``parsed`` for it:
the part is parsed once (in the wrapper that makes it C++ the grammar accepts) and answered from its
tree, in character offsets of the part."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Iterable, Iterator

import numpy as np
import tree_sitter
import tree_sitter_cpp

Node = tree_sitter.Node


@lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_cpp.language())


@lru_cache(maxsize=1)
def _parser() -> tree_sitter.Parser:
    return tree_sitter.Parser(_language())


@lru_cache(maxsize=None)
def _query(pattern: str) -> tree_sitter.Query:
    return tree_sitter.Query(_language(), pattern)


def captures(root: Node, pattern: str) -> list[Node]:
    """The nodes under ``root`` that the tree-sitter query ``pattern`` captures, in source order (an
    enclosing node before the nodes it holds)."""
    found = [n for nodes in tree_sitter.QueryCursor(_query(pattern)).captures(root).values() for n in nodes]
    return sorted(found, key=lambda n: (n.start_byte, -n.end_byte))


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
_CLOSING = {"(": ")", "[": "]", "{": "}"}


def _split_at_commas(data: bytes, tokens: Iterable[Node]) -> tuple[list[str], Node] | None:
    """The arguments of the bracket token the first of ``tokens`` is, split at its commas outside every
    bracket token within (as the preprocessor splits a macro's arguments), and its closing token; None
    when it does not close."""
    args, depth, start = [], 0, -1
    for tok in tokens:
        if start < 0:
            start = tok.end_byte
        if tok.type in _OPEN:
            depth += 1
        elif tok.type in _CLOSE:
            depth -= 1
            if depth == 0:
                args.append(data[start:tok.start_byte].decode("utf-8").strip())
                return args, tok
        elif tok.type == "," and depth == 1:
            args.append(data[start:tok.start_byte].decode("utf-8").strip())
            start = tok.end_byte
    return None


@lru_cache(maxsize=8192)
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
    split = _split_at_commas(data, tokens[1:])
    if split is None:
        return None
    args = split[0]
    return MacroCall(text_of(tokens[0]), tuple(a for a in args if a) if args != [""] else (), line)


@dataclass(frozen=True, eq=False)   # compared by identity: it holds an array
class Parsed:
    """A text and its syntax tree, parsed inside ``prefix`` and ``suffix`` (the wrapper that makes a
    part of a file C++ the grammar accepts); offsets are characters of ``text``."""
    text: str
    tree: tree_sitter.Tree
    data: bytes                          # the parsed source: prefix, text and suffix in UTF-8
    prefix_bytes: int
    text_bytes: int
    char_bytes: np.ndarray | None        # the byte offset of each character; None when the text is ASCII

    @property
    def root(self) -> Node:
        return self.tree.root_node

    def offset(self, byte: int) -> int:
        """The character offset in ``text`` of a byte offset of the parsed source."""
        byte -= self.prefix_bytes
        if self.char_bytes is None or byte < 0:
            return byte
        if byte >= self.text_bytes:   # in the suffix
            return len(self.text) + byte - self.text_bytes
        return int(np.searchsorted(self.char_bytes, byte, side="right")) - 1

    def byte(self, offset: int) -> int:
        """The byte offset in the parsed source of a character offset of ``text``."""
        if self.char_bytes is None:
            return self.prefix_bytes + offset
        if offset >= len(self.text):
            return self.prefix_bytes + self.text_bytes + offset - len(self.text)
        return self.prefix_bytes + int(self.char_bytes[offset])

    def start(self, node: Node) -> int:
        return self.offset(node.start_byte)

    def end(self, node: Node) -> int:
        return self.offset(node.end_byte)

    def source(self, node: Node) -> str:
        """The part of ``text`` a node spans."""
        return self.text[self.start(node):self.end(node)]

    def token_at(self, offset: int) -> Node | None:
        """The token starting at character ``offset``; None when none does (inside a literal, a comment)."""
        b = self.byte(offset)
        node = self.root.descendant_for_byte_range(b, b + 1)
        return node if node is not None and node.child_count == 0 and node.start_byte == b else None


@lru_cache(maxsize=8192)
def parsed(text: str, prefix: str = "", suffix: str = "") -> Parsed:
    """``text`` parsed once inside ``prefix`` and ``suffix`` (each ASCII), kept for the next reader."""
    char_bytes = None
    encoded = text.encode("utf-8")
    if len(encoded) != len(text):   # each character's UTF-8 width from its code point, summed
        points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        widths = 1 + (points >= 0x80).astype(np.int64) + (points >= 0x800) + (points >= 0x10000)
        char_bytes = np.concatenate(([0], np.cumsum(widths)[:-1]))
    data = prefix.encode("ascii") + encoded + suffix.encode("ascii")
    return Parsed(text, _parser().parse(data), data, len(prefix), len(encoded), char_bytes)


def _tokens_from(first: Node) -> Iterator[Node]:
    """The tokens of the tree from ``first`` on, in source order (a missing token, of no width, left out)."""
    node: Node | None = first
    while node is not None:
        yield from (t for t in leaves(node) if t.end_byte > t.start_byte)
        while node is not None and node.next_sibling is None:
            node = node.parent
        node = node.next_sibling if node is not None else None


def bracket_end(text: str, start: int) -> int:
    """The offset of the bracket closing the one at ``start`` in ``text`` (parsed as it stands): the
    closing token of the node the bracket opens, or, where the parser left an error node, the token
    the preprocessor would pair it with; -1 when the bracket is no token or does not close."""
    src = parsed(text)
    tok = src.token_at(start)
    if tok is None or tok.type not in _CLOSING:
        return -1
    parent = tok.parent
    if parent is not None and not parent.has_error:   # an error inside may have paired brackets anew
        sibling = tok.next_sibling
        while sibling is not None and sibling.type != _CLOSING[tok.type]:
            sibling = sibling.next_sibling
        if sibling is not None and not sibling.is_missing:
            return src.start(sibling)
    split = _split_at_commas(src.data, (t for t in _tokens_from(tok) if t.type in (tok.type, _CLOSING[tok.type])))
    return src.start(split[1]) if split is not None else -1


_CALL_PREFIX, _CALL_SUFFIX = "void _f() { _f(", "); }"


def arguments(text: str) -> list[str]:
    """The arguments of a call whose argument text is ``text``: the argument list's nodes, or, where
    the parser left an error node in it, the text between its top-level comma tokens."""
    src = parsed(text, _CALL_PREFIX, _CALL_SUFFIX)
    opening = src.root.descendant_for_byte_range(src.prefix_bytes - 1, src.prefix_bytes)
    arglist = opening.parent if opening is not None and opening.type == "(" else None
    if arglist is not None and arglist.type == "argument_list" and \
            src.offset(arglist.end_byte) == len(text) + 1 and not arglist.has_error:
        return [src.source(c) for c in arglist.named_children if c.type != "comment"]
    split = _split_at_commas(src.data, _tokens_from(opening)) if opening is not None else None
    if split is None:
        return [text.strip()] if text.strip() else []
    args = split[0]
    return [] if args == [""] else args


@dataclass(frozen=True)
class Token:
    """A token of an expression: its type (``"&&"``, ``"?"``, ``"identifier"``), where it stands in
    characters of the text, how many bracket tokens enclose it and the type of its parent node
    (``binary_expression`` for a binary operator, ``unary_expression`` for a sign)."""
    type: str
    start: int
    end: int
    depth: int
    parent: str


_TEMPLATE_BRACKETS = ("template_argument_list", "template_parameter_list")


@lru_cache(maxsize=8192)
def tokens(text: str) -> tuple[Token, ...]:
    """The tokens of ``text`` parsed as an expression (a call's argument), each with the number of
    bracket tokens around it; a template's angle brackets count as brackets, a comparison's do not."""
    src = parsed(text, _CALL_PREFIX, _CALL_SUFFIX)
    opening = src.root.descendant_for_byte_range(src.prefix_bytes - 1, src.prefix_bytes)
    out, depth = [], 0
    for tok in _tokens_from(opening) if opening is not None else ():
        if tok.start_byte < src.prefix_bytes:
            continue
        if tok.start_byte >= src.prefix_bytes + src.text_bytes:
            break
        parent = tok.parent.type if tok.parent is not None else ""
        angle = tok.type in ("<", ">") and parent in _TEMPLATE_BRACKETS
        if tok.type in _CLOSE or angle and tok.type == ">":
            depth -= 1
        out.append(Token(tok.type, src.start(tok), src.end(tok), depth, parent))
        if tok.type in _OPEN or angle and tok.type == "<":
            depth += 1
    return tuple(out)


def split_top(text: str, operator: str) -> list[str]:
    """The parts of ``text`` between its ``operator`` tokens outside every bracket, stripped (one part,
    the text, when there is none)."""
    parts, start = [], 0
    for tok in tokens(text):
        if tok.depth == 0 and tok.type == operator and tok.parent not in _TEMPLATE_BRACKETS:
            parts.append(text[start:tok.start].strip())
            start = tok.end
    return parts + [text[start:].strip()]


def ternary_branches(text: str) -> list[str]:
    """The two branches of a ternary's ``a : b``, split at the top-level ``:`` token that closes no
    nested ``?``; the text alone when there is no such ``:``."""
    nested = 0
    for tok in tokens(text):
        if tok.depth == 0 and tok.type == "?":
            nested += 1
        elif tok.depth == 0 and tok.type == ":":
            if nested:
                nested -= 1
                continue
            return [text[:tok.start].strip(), text[tok.end:].strip()]
    return [text.strip()]


def closes_no_unopened_block(text: str) -> bool:
    """No ``}`` of ``text`` (statements) closes a block it did not open: parsed as a function's body,
    the body runs to the end."""
    src = parsed(text, "void _f() {;", "\n}")
    definition = next((c for c in src.root.children if c.type == "function_definition"), None)
    body = definition.child_by_field_name("body") if definition is not None else None
    return body is not None and body.end_byte == len(src.data)


def open_braces(text: str, end: int | None = None) -> int:
    """The ``{`` tokens of ``text`` before ``end`` less its ``}`` tokens: 0 where a statement stands at
    the level the text starts at (braces in literals and comments are no tokens)."""
    src = parsed(text)
    limit = src.byte(len(text) if end is None else end)
    return sum(1 if t.type == "{" else -1 for t in leaves(src.root)
               if t.type in ("{", "}") and t.end_byte > t.start_byte and t.start_byte < limit)
