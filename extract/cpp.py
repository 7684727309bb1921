"""The vendor's host C++ read from its syntax tree (``extract.syntax``): comments and string literals
blanked (line numbers kept), the function definitions and the ``initializer_list<DataType>``
constants taken from the tree's nodes, bodies split into the statements the tree holds. The
interpreter (``extract.host_code``) says ``unread`` for what it does not know."""
from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass, field
from functools import lru_cache

from aclnn_conformance.extract.syntax import (Node, Parsed, arguments, bracket_end, captures, macro_call,
                                              parse_cpp, parsed)

_WORD_LITERAL = re.compile(r'"\w+"')   # "tanh", "none": a mode the code compares a string argument with


def strip_comments(text: str) -> str:
    """Comments and string literals blanked with spaces, newlines kept (lines stay where they were,
    a character for a character); a literal of one word stays (the readers compare string arguments
    with it). A ``#define``'s value is parsed on its own to blank what it holds."""
    data = text.encode("utf-8")
    root = parse_cpp(text).root_node
    chunks, at = [], 0
    for node in captures(root, "(comment) @c (string_literal) @s (raw_string_literal) @s (preproc_arg) @p"):
        if node.start_byte < at:
            continue
        part = data[node.start_byte:node.end_byte].decode("utf-8")
        if node.type == "comment":
            part = _blank(part)
        elif node.type == "preproc_arg":
            part = strip_comments(part)
        elif not _WORD_LITERAL.fullmatch(part) and '"' in part:
            quote = part.index('"')
            part = part[:quote + 1] + _blank(part[quote + 1:-1]) + part[-1:]
        chunks += [data[at:node.start_byte], part.encode("utf-8")]
        at = node.end_byte
    chunks.append(data[at:])
    return b"".join(chunks).decode("utf-8")


def _blank(text: str) -> str:
    return re.sub(r"[^\n]", " ", text)


def match_close(text: str, start: int, open_: str = "(", close: str = ")") -> int:
    """Index of the bracket closing the one at ``start`` (the parser's pairing); -1 when there is none."""
    return bracket_end(text, start) if text[start:start + 1] == open_ else -1


def split_args(text: str) -> list[str]:
    """The arguments of a call's argument text, as the parser splits them."""
    return arguments(text)


@dataclass(frozen=True)
class Function:
    name: str
    params: tuple[str, ...]        # parameter names in order
    param_types: tuple[str, ...]
    body: str                      # text between the braces
    body_offset: int               # offset of the body in the file's text
    path: str
    line: int                      # line of the definition
    returns: str                   # the declared return type text
    # a template's type parameters in order, a pack's name followed by "..." (``typename... Ts``: "Ts...")
    type_params: tuple[str, ...] = ()


@dataclass(frozen=True)
class SourceFile:
    path: str                      # as cited (relative to the repository root)
    text: str                      # comments blanked
    functions: dict[str, Function] = field(default_factory=dict)       # the first definition of each name
    overloads: dict[str, list[Function]] = field(default_factory=dict)  # every definition of each name
    lists: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)  # name -> (dtypes, line)
    pair_lists: dict[str, tuple[tuple[tuple[str, str], ...], int]] = field(default_factory=dict)  # (a, b) pairs
    constants: dict[str, int] = field(default_factory=dict)
    format_lists: dict[str, tuple[tuple[str, ...], int]] = field(default_factory=dict)  # name -> (formats, line)

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


_DT = re.compile(r"\bDT_([A-Z0-9_]+)\b")
_DT_NAME = re.compile(r"(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)")
_FORMAT = re.compile(r"\bFORMAT_([A-Z0-9_]+)\b")
_CONTAINER = re.compile(r"(?:std::)?(?:initializer_list|vector|set|unordered_set)<(.*)>")
_DTYPE = re.compile(r"(?:op::|ge::)?DataType")
_PAIR_TYPE = re.compile(r"std::pair<(?:op::|ge::)?DataType,(?:op::|ge::)?DataType>")
_FORMAT_TYPE = re.compile(r"(?:op::|ge::)?Format")
_INT_TYPES = {"size_t", "int64_t", "int32_t", "uint32_t", "int", "uint64_t", "uint8_t", "int8_t", "int16_t", "uint16_t"}


def dtype_tokens(text: str) -> tuple[str, ...]:
    return tuple(_DT.findall(text))


@lru_cache(maxsize=512)   # a file is read for its API, its kernels and its infershape: parsed once
def read_source(path: str, text: str) -> SourceFile:
    clean = strip_comments(text)
    src = SourceFile(path, clean)
    tree = parsed(clean)
    for node in captures(tree.root, "(declaration) @d"):
        _read_declaration(src, tree, node)
    for fn in _definitions(clean, path):
        src.functions.setdefault(fn.name, fn)
        src.overloads.setdefault(fn.name, []).append(fn)
    return src


def _read_declaration(src: SourceFile, tree: Parsed, node: Node) -> None:
    """A dtype, dtype-pair or format list written in braces, or an integer constant, kept by name."""
    kind = node.child_by_field_name("type")
    declarators = node.children_by_field_name("declarator")
    if kind is None or len(declarators) != 1 or declarators[0].type != "init_declarator":
        return
    init = declarators[0]
    name, value = init.child_by_field_name("declarator"), init.child_by_field_name("value")
    if name is not None and name.type == "reference_declarator":
        name = name.named_children[-1]
    if name is None or name.type != "identifier" or value is None:
        return
    if value.type != "initializer_list" and not any(c.type == "=" for c in init.children):
        return   # a list is the same braced with or without ``=`` (``L{DT_FLOAT, ...}``); a number only with it
    type_text = "".join(tree.source(kind).split())
    line = src.line_of(tree.start(node))
    contained = _CONTAINER.fullmatch(type_text)
    if value.type == "initializer_list" and contained:
        items = tree.source(value)
        if _DTYPE.fullmatch(contained.group(1)):
            src.lists[tree.source(name)] = (dtype_tokens(items), line)
        elif _PAIR_TYPE.fullmatch(contained.group(1)):
            src.pair_lists[tree.source(name)] = (_dtype_pairs(tree, value), line)
        elif _FORMAT_TYPE.fullmatch(contained.group(1)):
            src.format_lists[tree.source(name)] = (tuple(_FORMAT.findall(items)), line)
    elif value.type in ("number_literal", "binary_expression", "parenthesized_expression") and \
            type_text.removeprefix("std::") in _INT_TYPES and _int_literal(tree.source(value)) is not None and \
            (any(c.type in ("type_qualifier", "storage_class_specifier") and tree.source(c) in ("const", "constexpr")
                 for c in node.children) or _never_written_static(src, tree, node, tree.source(name))):
        src.constants[tree.source(name)] = _int_literal(tree.source(value))


def _int_literal(text: str) -> int | None:
    """A decimal literal, or literals joined by ``<<``, ``*``, ``+`` (``1 << 24``), whose value stays
    below 2**31 (computed alike in any integer type); None otherwise."""
    ops = {ast.Add: operator.add, ast.Mult: operator.mul, ast.LShift: operator.lshift}

    def value(node: ast.AST) -> int | None:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            a, b = value(node.left), value(node.right)
            if a is None or b is None or (isinstance(node.op, ast.LShift) and b > 31):
                return None
            return ops[type(node.op)](a, b)
        return None
    if not re.fullmatch(r"[\d\s()+*<]+", text):
        return None
    try:
        got = value(ast.parse(text.strip(), mode="eval").body)
    except SyntaxError:
        return None
    return got if got is not None and 0 <= got < 2 ** 31 else None


def _never_written_static(src: SourceFile, tree: Parsed, node: Node, name: str) -> bool:
    """A ``static`` integer of the file's scope that no statement of the file writes after its
    initialisation (ops-math conversion/trans_data/op_api/aclnn_trans_convolution_weight.cpp:30
    ``static uint64_t g_dimNum = 4;``): its value is that of its initialiser on every call."""
    if node.parent is None or node.parent.type not in ("translation_unit", "linkage_specification",
                                                        "declaration_list") or \
            not any(c.type == "storage_class_specifier" and tree.source(c) == "static" for c in node.children):
        return False
    n = re.escape(name)
    writes = re.findall(rf"\b{n}\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)|(?:\+\+|--)\s*{n}\b|\b{n}\s*(?:\+\+|--)|&\s*{n}\b",
                        src.text)
    return len(writes) == 1   # the initialiser alone


def _dtype_pairs(tree: Parsed, value: Node) -> tuple[tuple[str, str], ...]:
    """The ``{DT_A, DT_B}`` items of a pair list."""
    out = []
    for item in value.named_children:
        two = [_DT_NAME.fullmatch(tree.source(c)) for c in item.named_children] if item.type == "initializer_list" else []
        if len(two) == 2 and all(two):
            out.append((two[0].group(1), two[1].group(1)))
    return tuple(out)


_AFTER_PARAMETERS = ("type_qualifier", "noexcept",   # ``) const noexcept {``: a definition read as written
                     "trailing_return_type")        # ``auto f(T x) -> T {``
_TYPES = ("primitive_type", "type_identifier", "qualified_identifier", "template_type", "sized_type_specifier")
_SPECIFIERS = (*_TYPES, "storage_class_specifier", "type_qualifier", "attribute_declaration")


def _definitions(text: str, path: str, base: int = 0) -> list[Function]:
    """The function definitions of ``text`` from ``base`` on, in source order: the tree's definition nodes;
    where a statement macro upset the parser's recovery and left a definition's start in an error node
    (its type, declarator and ``{``), that definition read with its body closed from the tokens, and the
    text after it parsed anew."""
    tree = parsed(text[base:])
    lines_before = text.count("\n", 0, base)
    candidates = []   # (start, declarator, first specifier, body or "{" token)
    for node in captures(tree.root, "(function_definition) @f (ERROR) @e"):
        body = node.child_by_field_name("body")
        if node.type == "function_definition" and node.child_by_field_name("type") is not None and body is not None:
            start = node.parent if node.parent is not None and node.parent.type == "template_declaration" else node
            candidates.append((tree.start(start), node.child_by_field_name("declarator"), start, body))
        for declarator, opening in zip(node.children, node.children[1:]) if node.type == "ERROR" else ():
            first = _type_start(declarator)
            if opening.type == "{" and first is not None:
                candidates.append((tree.start(first), declarator, first, opening))
    out: list[Function] = []
    done = 0   # the end of the last definition read: what starts before it is inside it
    for at, declarator, first, body in sorted(candidates, key=lambda c: c[0]):
        if at < done:
            continue
        close = bracket_end(tree.text, tree.start(body))   # from the tokens where the body holds an error
        fn = _function(tree, base, lines_before, path, declarator, first, body, close) if close > 0 else None
        if fn is None:
            continue
        if body.type == "compound_statement" and close == tree.end(body) - 1:
            out.append(fn)
            done = close
            continue
        return out + [fn] + _definitions(text, path, base + close + 1)   # the parser's recovery ran past it
    return out


def _type_start(declarator: Node) -> Node | None:
    """The first of the specifiers and the type written before ``declarator`` among its siblings; None
    when no type is."""
    first, typed = None, False
    sibling = declarator.prev_sibling
    while sibling is not None and sibling.type in _SPECIFIERS:
        first, typed = sibling, typed or sibling.type in _TYPES
        sibling = sibling.prev_sibling
    return first if typed else None


def _function(tree: Parsed, base: int, lines_before: int, path: str, declarator: Node | None, start: Node,
              body: Node, body_end: int) -> Function | None:
    """A definition with a plain name (no constructor, operator or qualified name), its body from the
    ``{`` of ``body`` (a compound statement or, in an error node, the token) to ``body_end``."""
    while declarator is not None and declarator.type in ("pointer_declarator", "reference_declarator"):
        declarator = declarator.named_children[-1] if declarator.named_children else None
    if declarator is None or declarator.type != "function_declarator" or body.type not in ("compound_statement", "{"):
        return None
    name, params = declarator.child_by_field_name("declarator"), declarator.child_by_field_name("parameters")
    if name is not None and name.type == "qualified_identifier" and any(c.is_missing for c in name.children):
        name = name.child_by_field_name("name")   # ``ACLNN_API aclnnStatus F(``: the parser's "::" is missing
    if name is None or name.type not in ("identifier", "field_identifier") or params is None or \
            any(c.type not in _AFTER_PARAMETERS for c in declarator.children if c.start_byte >= params.end_byte):
        return None
    names, types = [], []
    for param in params.named_children:
        named = _parameter(tree, param)
        if named is not None:
            names.append(named[0])
            types.append(named[1])
    body_start = tree.start(body) + 1
    returns = tree.text[tree.start(start):tree.start(name)].strip()
    trailing = next((c for c in declarator.children if c.type == "trailing_return_type"), None)
    if trailing is not None:   # ``auto f(T x) -> T``: the type after the arrow is the one returned
        returns = f"{returns} {tree.source(trailing)}"
    return Function(tree.source(name), tuple(names), tuple(types), tree.text[body_start:body_end],
                    base + body_start, path, lines_before + tree.text.count("\n", 0, tree.start(start)) + 1,
                    returns, _type_params(tree, start))


def _type_params(tree: Parsed, start: Node) -> tuple[str, ...]:
    """The type parameters of the template declaration ``start`` (a pack's name followed by "...");
    none when it declares no template."""
    params = start.child_by_field_name("parameters") if start.type == "template_declaration" else None
    out = []
    for param in params.named_children if params is not None else ():
        name = next((c for c in param.named_children if c.type == "type_identifier"), None)
        if name is not None and param.type in ("type_parameter_declaration", "variadic_type_parameter_declaration"):
            out.append(tree.source(name) + ("..." if param.type.startswith("variadic") else ""))
    return tuple(out)


def _parameter(tree: Parsed, param: Node) -> tuple[str, str] | None:
    """A parameter's name and the type written before it; an unnamed one is named by its text."""
    if param.type == "comment":
        return None
    name = param.child_by_field_name("declarator")
    while name is not None and name.type != "identifier":   # through *, &, [] and const to the name
        name = name.child_by_field_name("declarator") or \
            next((c for c in reversed(name.named_children) if c.type not in ("parameter_list", "type_qualifier")), None)
    if name is None:
        text = tree.source(param)
        return None if text in ("void", "") else (text, "")
    return tree.source(name), tree.text[tree.start(param):tree.start(name)].strip()


# ---- statements ----

@dataclass(frozen=True)
class Stmt:
    kind: str                      # if | return | call | decl | other | block
    text: str                      # the statement's text (without the final ';')
    offset: int                    # offset in the file's text
    cond: str = ""                 # if: the condition
    then: tuple["Stmt", ...] = ()  # if: the then-branch
    orelse: tuple["Stmt", ...] = ()


_BODY_PREFIX, _BODY_SUFFIX = "void _f() {;", "\n}"   # the ";" keeps "{ {} }" a body, not a brace initializer
_LOOPS = ("for_statement", "for_range_loop", "while_statement", "do_statement", "switch_statement")


def statements(body: str, base: int = 0) -> tuple[Stmt, ...]:
    """The statements of a body: ``if``/``else`` with their branches, blocks with theirs, loops and
    switches whole, the rest up to their ``;`` (a macro statement the parser leaves as an error node
    is read from its tokens)."""
    tree = parsed(body, _BODY_PREFIX, _BODY_SUFFIX)
    definition = next((c for c in tree.root.children if c.type == "function_definition"), None)
    block = definition.child_by_field_name("body") if definition is not None else None
    return _block(tree, block, base) if block is not None else ()


def _block(tree: Parsed, block: Node, base: int) -> tuple[Stmt, ...]:
    return tuple(s for n in block.named_children for s in _statements(tree, n, base))


def _branch(tree: Parsed, node: Node | None, base: int) -> tuple[Stmt, ...]:
    if node is None:
        return ()
    if node.type == "compound_statement":
        return _block(tree, node, base)
    return _statements(tree, node, base)


def _statements(tree: Parsed, node: Node, base: int) -> tuple[Stmt, ...]:
    """The statement ``node`` is; a declaration of several names (``int64_t B = 1, S = s[0];``) as one
    declaration each, its type written before each name, in order."""
    declarators = node.children_by_field_name("declarator") if node.type == "declaration" else []
    if len(declarators) > 1:
        written = tree.text[tree.start(node):tree.start(declarators[0])]
        return tuple(Stmt("decl", f"{written}{tree.source(d)}", base + tree.start(d)) for d in declarators)
    one = _statement(tree, node, base)
    return (one,) if one is not None else ()


def _statement(tree: Parsed, node: Node, base: int) -> Stmt | None:
    offset = base + tree.start(node)
    if node.type == "comment" or node.type == "expression_statement" and not node.named_children:
        return None
    if node.type == "compound_statement":
        return Stmt("block", tree.text[tree.start(node) + 1:tree.end(node) - 1], offset,
                    then=_block(tree, node, base))
    if node.type == "if_statement":
        condition = node.child_by_field_name("condition")
        alternative = node.child_by_field_name("alternative")
        return Stmt("if", tree.text[tree.start(node):tree.end(condition)], offset,
                    cond=tree.text[tree.start(condition) + 1:tree.end(condition) - 1],
                    then=_branch(tree, node.child_by_field_name("consequence"), base),
                    orelse=_branch(tree, alternative.named_children[-1] if alternative is not None and
                                   alternative.named_children else None, base))
    if node.type in _LOOPS:
        return Stmt("other", tree.source(node), offset)
    last = node.children[-1] if node.children else None
    end = tree.start(last) if last is not None and last.type == ";" else tree.end(node)
    text = tree.text[tree.start(node):end].strip()
    return Stmt(_kind(node, text), text, offset)


def _kind(node: Node, text: str) -> str:
    """``return``; ``call``: a call of a (qualified) name standing alone, a macro statement among them;
    ``decl`` for the rest."""
    if node.type == "return_statement":
        return "return"
    if node.type == "ERROR":
        return "call" if macro_call(text) is not None else "decl"
    expr = node.named_children[0] if node.type == "expression_statement" and node.named_children else None
    function = expr.child_by_field_name("function") if expr is not None and expr.type == "call_expression" else None
    return "call" if function is not None and function.type in ("identifier", "qualified_identifier") else "decl"


def block_end(body: str, offset: int) -> int:
    """The offset of the ``}`` closing the block that holds the statement at ``offset`` of ``body``;
    -1 when the statement stands in the body itself."""
    tree = parsed(body, _BODY_PREFIX, _BODY_SUFFIX)
    at = tree.byte(offset)
    node = tree.root.descendant_for_byte_range(at, at + 1)
    while node is not None and not (node.type == "compound_statement" and node.start_byte < at):
        node = node.parent
    if node is None or node.start_byte < tree.prefix_bytes:   # the body's own braces
        return -1
    return match_close(body, tree.start(node), "{", "}")


@dataclass(frozen=True)
class Case:
    """A label of a switch's body: where it starts and ends (after its ``:``) in the body's text, and
    its value (None for ``default``)."""
    start: int
    end: int
    value: str | None


def switch_cases(text: str) -> tuple[str, tuple[Case, ...], int] | None:
    """A ``switch`` statement's body text, its labels named by a (qualified) name or ``default``, and
    the offset of the body's ``{`` in ``text``; None when ``text`` is no switch with a body."""
    tree = parsed(text, _BODY_PREFIX, _BODY_SUFFIX)
    definition = next((c for c in tree.root.children if c.type == "function_definition"), None)
    block = definition.child_by_field_name("body") if definition is not None else None
    switch = next((c for c in block.named_children if c.type == "switch_statement"), None) if block else None
    body = switch.child_by_field_name("body") if switch is not None else None
    if body is None or body.type != "compound_statement":
        return None
    opening = tree.start(body)
    close = match_close(text, opening, "{", "}")
    if close < 0:
        return None
    cases = []
    for case in body.named_children:
        value = case.child_by_field_name("value") if case.type == "case_statement" else None
        colon = next((c for c in case.children if c.type == ":"), None) if case.type == "case_statement" else None
        if colon is not None and (value is None or value.type in ("identifier", "qualified_identifier")):
            cases.append(Case(tree.start(case) - opening - 1, tree.end(colon) - opening - 1,
                              tree.source(value) if value is not None else None))
    return text[opening + 1:close], tuple(cases), opening
