"""A small reader of the vendor's host C++: comments blanked (line numbers kept), top-level function
definitions and ``initializer_list<DataType>`` constants found by brace matching, bodies split into
statements. It reads the regular subset the op_api files are written in; the interpreter
(``extract.host_code``) says ``unread`` for anything else."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\])*"', re.S)   # re.S: a backslash-newline continues the literal


_WORD_LITERAL = re.compile(r'"\w+"')   # "tanh", "none": a mode the code compares a string argument with


def strip_comments(text: str) -> str:
    """Comments and string literals blanked with spaces, newlines kept (lines stay where they were);
    a literal of one word stays (nothing the reader splits on is in it)."""
    def blank(m: re.Match) -> str:
        return "".join(c if c == "\n" else " " for c in m.group(0))
    text = _STRING.sub(lambda m: m.group(0) if _WORD_LITERAL.fullmatch(m.group(0))
                       else '"' + blank(m)[1:-1] + '"', text)
    return _COMMENT.sub(blank, text)


def match_close(text: str, start: int, open_: str = "(", close: str = ")") -> int:
    """Index of the bracket closing the one at ``start``; -1 when unbalanced."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return i
    return -1


def split_args(text: str, angles: bool = False) -> list[str]:
    """Top-level comma-separated arguments of a call's argument text; with ``angles``, a template's
    angle brackets count as brackets too (a parameter list: ``op::FVector<int64_t, N>& dims``)."""
    opening, closing = ("([{<", ")]}>") if angles else ("([{", ")]}")
    out, depth, cur = [], 0, []
    for c in text:
        if c in opening:
            depth += 1
        if c in closing:
            depth -= 1
        if c == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
            continue
        cur.append(c)
    last = "".join(cur).strip()
    if last or out:
        out.append(last)
    return out


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


@dataclass
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


_FUNC = re.compile(r"(?m)^[ \t]*((?:\[\[[^\]]*\]\][ \t]*)?(?:static\s+|inline\s+|const\s+|extern\s+)*"
                   r"[A-Za-z_][\w:<>,\s\*&]*?[\s\*&])([A-Za-z_]\w*)\s*\(")
_LIST = re.compile(r"(?:static\s+)?(?:const\s+)?(?:std::)?(?:initializer_list|vector|set)\s*<\s*(?:op::|ge::)?"
                   r"DataType\s*>\s*&?\s*([A-Za-z_]\w*)\s*=\s*\{")
_PAIR_LIST = re.compile(r"(?:static\s+)?(?:const\s+)?(?:std::)?(?:initializer_list|vector|set)\s*<\s*std::pair\s*<\s*"
                        r"(?:op::|ge::)?DataType\s*,\s*(?:op::|ge::)?DataType\s*>\s*>\s*&?\s*([A-Za-z_]\w*)\s*=\s*\{")
_PAIR = re.compile(r"\{\s*(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)\s*,\s*(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)\s*\}")
_FORMAT_LIST = re.compile(r"(?:static\s+)?(?:const\s+)?(?:std::)?(?:initializer_list|vector|set)\s*<\s*(?:op::|ge::)?"
                          r"Format\s*>\s*&?\s*([A-Za-z_]\w*)\s*=\s*\{")
_FORMAT = re.compile(r"\bFORMAT_([A-Z0-9_]+)\b")
_CONST = re.compile(r"(?:static\s+)?(?:constexpr|const)\s+(?:std::)?(?:size_t|int64_t|int32_t|uint32_t|int|"
                    r"uint64_t|uint8_t)\s+([A-Za-z_]\w*)\s*=\s*(\d+)\s*;")
_DT = re.compile(r"\bDT_([A-Z0-9_]+)\b")
_KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "defined", "else"}


def dtype_tokens(text: str) -> tuple[str, ...]:
    return tuple(_DT.findall(text))


def read_source(path: str, text: str) -> SourceFile:
    clean = strip_comments(text)
    src = SourceFile(path, clean)
    for m in _LIST.finditer(clean):
        end = match_close(clean, m.end() - 1, "{", "}")
        if end > 0:
            src.lists[m.group(1)] = (dtype_tokens(clean[m.end():end]), src.line_of(m.start()))
    for m in _PAIR_LIST.finditer(clean):
        end = match_close(clean, m.end() - 1, "{", "}")
        if end > 0:
            src.pair_lists[m.group(1)] = (tuple(_PAIR.findall(clean[m.end():end])), src.line_of(m.start()))
    for m in _FORMAT_LIST.finditer(clean):
        end = match_close(clean, m.end() - 1, "{", "}")
        if end > 0:
            src.format_lists[m.group(1)] = (tuple(_FORMAT.findall(clean[m.end():end])), src.line_of(m.start()))
    for m in _CONST.finditer(clean):
        src.constants[m.group(1)] = int(m.group(2))
    for m in _FUNC.finditer(clean):
        name = m.group(2)
        if name in _KEYWORDS:
            continue
        open_paren = m.end() - 1
        close = match_close(clean, open_paren)
        if close < 0:
            continue
        rest = clean[close + 1:close + 200]
        brace = re.match(r"\s*(?:const\s*)?(?:noexcept\s*)?\{", rest)
        if not brace:
            continue
        body_start = close + 1 + brace.end()
        body_end = match_close(clean, body_start - 1, "{", "}")
        if body_end < 0:
            continue
        raw_params = [p for p in split_args(clean[open_paren + 1:close], angles=True) if p and p != "void"]
        names, types = [], []
        for p in raw_params:
            p = p.split("=")[0].strip()
            pm = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$", p)
            names.append(pm.group(2) if pm else p)
            types.append(pm.group(1).strip() if pm else "")
        fn = Function(name, tuple(names), tuple(types), clean[body_start:body_end], body_start, path,
                      src.line_of(m.start()), m.group(1).strip())
        src.functions.setdefault(name, fn)
        src.overloads.setdefault(name, []).append(fn)
    return src


# ---- statements ----

@dataclass(frozen=True)
class Stmt:
    kind: str                      # if | return | call | decl | other | block
    text: str                      # the statement's text (without the final ';')
    offset: int                    # offset in the file's text
    cond: str = ""                 # if: the condition
    then: tuple["Stmt", ...] = ()  # if: the then-branch
    orelse: tuple["Stmt", ...] = ()


def statements(body: str, base: int = 0) -> tuple[Stmt, ...]:
    """The statements of a body: ``if``/``else`` with their branches, the rest up to their ``;``."""
    out: list[Stmt] = []
    i, n = 0, len(body)
    while i < n:
        while i < n and body[i] in " \t\r\n;":
            i += 1
        if i >= n:
            break
        if body[i] == "{":
            end = match_close(body, i, "{", "}")
            out.append(Stmt("block", body[i + 1:end], base + i, then=statements(body[i + 1:end], base + i + 1)))
            i = end + 1
            continue
        m = re.match(r"if\s*(?:constexpr\s*)?\(", body[i:])
        if m:
            open_ = i + m.end() - 1
            close = match_close(body, open_)
            cond = body[open_ + 1:close]
            then, j = _branch(body, close + 1, base)
            orelse: tuple[Stmt, ...] = ()
            k = j
            while k < n and body[k] in " \t\r\n":
                k += 1
            if re.match(r"else\b", body[k:]):
                orelse, j = _branch(body, k + 4, base)
            out.append(Stmt("if", body[i:close + 1], base + i, cond=cond, then=then, orelse=orelse))
            i = j
            continue
        m = re.match(r"(for|while|switch|do)\b", body[i:])
        if m:
            j = i + m.end()
            while j < n and body[j] in " \t\r\n":
                j += 1
            if j < n and body[j] == "(":
                j = match_close(body, j) + 1
            while j < n and body[j] in " \t\r\n":
                j += 1
            if j < n and body[j] == "{":
                j = match_close(body, j, "{", "}") + 1
            else:
                j = _stmt_end(body, j) + 1
            out.append(Stmt("other", body[i:j], base + i))
            i = j
            continue
        end = _stmt_end(body, i)
        text = body[i:end].strip()
        kind = ("return" if re.match(r"return\b", text) else
                "call" if re.match(r"[A-Za-z_][\w:]*\s*\(.*\)\s*$", text, re.S) else "decl")
        out.append(Stmt(kind, text, base + i))
        i = end + 1
    return tuple(out)


def _branch(body: str, i: int, base: int) -> tuple[tuple[Stmt, ...], int]:
    n = len(body)
    while i < n and body[i] in " \t\r\n":
        i += 1
    if i < n and body[i] == "{":
        end = match_close(body, i, "{", "}")
        return statements(body[i + 1:end], base + i + 1), end + 1
    if re.match(r"if\b", body[i:]):
        first = statements(body[i:], base + i)[:1]
        # the nested if ends where its own statement ends: re-split to find it
        consumed = _if_extent(body, i)
        return first, consumed
    end = _stmt_end(body, i)
    return statements(body[i:end + 1], base + i), end + 1


def _if_extent(body: str, i: int) -> int:
    m = re.match(r"if\s*\(", body[i:])
    close = match_close(body, i + m.end() - 1)
    _, j = _branch(body, close + 1, 0)
    k = j
    while k < len(body) and body[k] in " \t\r\n":
        k += 1
    if re.match(r"else\b", body[k:]):
        _, j = _branch(body, k + 4, 0)
    return j


def _stmt_end(body: str, i: int) -> int:
    """Index of the ``;`` ending the statement at ``i`` (brackets balanced); a macro call without
    its ``;`` (``OP_CHECK_NULL(x, return false)``) ends at its closing parenthesis."""
    depth = 0
    n = len(body)
    j = i
    while j < n:
        c = body[j]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and c == ")":
                k = j + 1
                while k < n and body[k] in " \t":
                    k += 1
                if k < n and body[k] == "\n" and re.match(r"\s*[A-Z_][A-Z0-9_]*\s*\(", body[i:j]):
                    nxt = body[k:].lstrip()
                    if not nxt.startswith((";", ".", "->", "&&", "||", "?", ":", "+", ",")):
                        return j + 1
            if depth < 0:
                return j
        elif c == ";" and depth == 0:
            return j
        j += 1
    return n
