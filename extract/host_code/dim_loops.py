"""A shape passed by pointer to a helper that only reads it, and a loop over a shape's dims comparing it with another shape at every dim but one (ops-nn
index/scatter_update/op_api/aclnn_index_copy.cpp:140-153 IsSliceShapeSame: ``for (idx < dimNum) { if
(selfShape.GetDim(idx) != sourceShape.GetDim(idx) && idx != posDim) return false; }``): refused where
the shapes differ outside dim ``posDim``, read on the other shape's first ``dimNum`` dims (a slice: a
call whose other shape has fewer dims, read outside it, is left undecided)."""
from __future__ import annotations

import re

from typing import Any

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, split_args, statements
from aclnn_conformance.extract.host_code.integers import _iexpr_of
from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _args, _check, _fail_status, _is_int
import aclnn_conformance.extract.host_code.reenter as reenter

_LOOP = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>[^;]+?)\s*;"
    r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*"
    r"\{\s*if\s*\(\s*(?P<x>\w+)\s*\.\s*GetDim\s*\(\s*(?P=i)\s*\)\s*!=\s*(?P<y>\w+)\s*\.\s*GetDim\s*\(\s*(?P=i)\s*\)\s*"
    r"&&\s*(?P=i)\s*!=\s*(?:static_cast<\s*(?:u?int64_t|size_t)\s*>\s*)?\(?\s*(?P<p>\w+)\s*\)?\s*\)\s*\{\s*"
    r"(?:OP_LOGE\s*\([^;]*\)\s*;\s*)?(?P<ret>return\s[^;]+;)\s*\}\s*\}", re.S)


def slice_same_but_one_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """The loop above, with ``x`` a tensor's view shape, ``n`` its rank and ``p`` an integer the walk
    knows: one int_test rule; False when it is not that loop."""
    m = _LOOP.fullmatch(stmt.text.strip())
    if not m:
        return False
    x, y = (reenter.shape_expr_at(w, m.group(k), env) for k in ("x", "y"))
    try:
        n, p = (_iexpr_of(w, reenter.value(w, m.group(k), env)) for k in ("n", "p"))
    except Unreadable:
        return False
    if not (x and y and x[0] == "of" and y[0] == "of" and n == ("rank", x[1]) and p is not None):
        return False
    mine = ("set-dim", x, p, 0)
    other = ("set-dim", ("slice", y, 0, ("rank", x[1])), p, 0)
    # a rank-0 shape runs no pass; elsewhere p is inside it (set-dim outside the shape: undecided)
    test = ("and", ("!=", ("rank", x[1]), 0), ("not", ("same-shape", mine, other)))
    _check(w, src, stmt.offset, "int_test", _args(test=test), _fail_status(m.group("ret"), fail), stmt.text)
    return True


_SHAPE_HELD = ("shape-of", "bshape", "shape-expr", "built-shape", "bshape-built")


def _reads_only(fn: Function, param: str) -> bool:
    """Parameter ``param`` of ``fn`` is a ``Shape*`` its body uses only as ``p->GetDim(..)`` or
    ``p->GetDimNum()``."""
    ctype = dict(zip(fn.params, fn.param_types)).get(param, "")
    uses = re.findall(rf"(?<![\w.>]){re.escape(param)}\b", fn.body)
    reads = re.findall(rf"(?<![\w.>]){re.escape(param)}\s*->\s*(?:GetDim|GetDimNum)\s*\(", fn.body)
    return bool(re.search(r"\bShape\s*\*", ctype)) and bool(uses) and len(uses) == len(reads)


def pointer_reads_blanked(functions: dict, rest: str, name: str) -> str:
    """``rest`` with each ``&name`` passed to a function of ``functions`` whose parameter there only reads
    the shape (``_reads_only``) blanked: no change of ``name``."""
    n = re.escape(name)
    for m in re.finditer(rf"\b([A-Za-z_]\w*)\s*\(([^;{{}}()]*?)&\s*{n}\b", rest):
        fn = functions.get(m.group(1))
        before = [a for a in re.split(r",", m.group(2))]
        if fn is not None and len(before) <= len(fn.params) and _reads_only(fn, fn.params[len(before) - 1]):
            at = m.end() - len(name)
            amp = rest.rindex("&", 0, at)
            rest = rest[:amp] + " " * (at + len(name) - amp) + rest[at + len(name):]
    return rest


def shape_by_pointer(fn: Function, param: str, arg: str, env: dict) -> Any:
    """``&s`` passed to a ``Shape*`` parameter the helper only reads (``p->GetDim(i)``, ``p->GetDimNum()``:
    ops-nn index/masked_scatter/op_api/aclnn_masked_scatter.cpp:119-161 isMaskCanExpandToSelfRef):
    the shape ``s`` holds; None otherwise (a helper that may write through it is read as before)."""
    m = re.fullmatch(r"&\s*(\w+)", arg.strip())
    held = env.get(m.group(1)) if m else None
    return held if isinstance(held, tuple) and held[:1] and held[0] in _SHAPE_HELD and _reads_only(fn, param) \
        else None


_EACH_DIM = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*(?P<k>\d+)\s*;\s*(?P=i)\s*<\s*(?P<n>\w+(?:\s*\.\s*GetDimNum\(\))?)\s*;"
    r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*"
    r"\{\s*if\s*\(\s*(?P<x>\w+)\s*\.\s*GetDim\s*\(\s*(?P=i)\s*\)\s*(?P<op>[<>]=?|[!=]=)\s*(?P<v>-?\d+|[A-Z][A-Z0-9_]*)\s*\)\s*\{\s*"
    r"(?:OP_LOGE\w*\s*\([^;]*\)\s*;\s*)?(?P<ret>return\s[^;]+;)\s*\}\s*\}", re.S)


def each_dim_from_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = k; i < rank; ++i) { if (shape.GetDim(i) <= 0) { log; return false; } }`` over a
    tensor's view shape (ops-nn index/scatter_elements/op_api/aclnn_max_unpool2d.cpp:86-100
    CheckInpuNullTensor): refused where one of its dims from k on compares (the integer test
    ``any-dim`` of those dims; a rank of k or less runs no pass). The bound may be ``S.GetDimNum()``
    and the value a named limit (ops-nn common/stub/op_api/aclnn_kernels/common/op_error_check.h:83-93
    CheckDims: ``if (xShape.GetDim(i) > INT32_MAX)``)."""
    m = _EACH_DIM.fullmatch(stmt.text.strip())
    if not m:
        return False
    x = reenter.shape_expr_at(w, m.group("x"), env)
    try:
        n = _iexpr_of(w, reenter.value(w, m.group("n"), env))
        bound = reenter.value(w, m.group("v"), env)   # a literal, or a named limit (INT32_MAX)
    except Unreadable:
        return False
    if not (x and x[0] == "of" and n == ("rank", x[1]) and _is_int(bound)):
        return False
    k, rank = int(m.group("k")), ("rank", x[1])
    dims = ("?", ("<=", rank, k), ("dims", ()), ("slice", x, k, ("-", rank, k)))
    test = ("any-dim", dims, (m.group("op"), ("each",), bound))
    _check(w, src, stmt.offset, "int_test", _args(test=test), _fail_status(m.group("ret"), fail), stmt.text)
    return True


_CONSTANT_LOOP = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>\w+)\s*;"
    r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*\{", re.S)


def unrolled_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``for (i = 0; i < N; ++i) { ... }`` with N a constant of at most 9 (ops-nn
    common/inc/op_api/level2_base.h:432-442: ``for (i < EXPECT_SIZE) { if ((*stride)[i] <= 0) ...``) and a
    body that neither changes ``i`` nor leaves the loop early: its passes in order, ``i`` a literal in each."""
    text = stmt.text.strip()
    m = _CONSTANT_LOOP.match(text)
    if not m or match_close(text, m.end() - 1, "{", "}") != len(text) - 1:
        return False
    try:
        n = reenter.value(w, m.group("n"), env)
    except Unreadable:
        return False
    i, body = m.group("i"), text[m.end():-1]
    shadowed = re.search(rf"\b(?:auto|int|size_t|u?int(?:64|32)_t)\s*&?\s*{re.escape(i)}\b", body)   # a nested loop's own i
    if not (_is_int(n) and 0 <= n <= 9) or shadowed or re.search(r"\b(?:break|continue|goto)\b", body) or \
            re.search(rf"\b{re.escape(i)}\s*(?:[-+*/]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*{re.escape(i)}\b|&\s*{re.escape(i)}\b",
                      body):
        return False
    offset = stmt.offset + stmt.text.index(text) + m.end()
    for k in range(n):   # one digit for the counter's name: the offsets, and so the lines cited, stay
        passed = re.sub(rf"\b{re.escape(i)}\b", lambda _: str(k).ljust(len(i)), body)
        reenter.run_block(w, src, statements(passed, offset), env, fail, top)
    return True


def default_arguments(w: Walk, fn: Function, args: list[str]) -> list[str]:
    """``args`` completed by the default values ``fn``'s definition gives its last parameters (``bool
    includeSelf = true``: ops-nn index/scatter_elements_v2/op_api/aclnn_scatter.cpp:799-802), when a call
    gives fewer; ``args`` itself otherwise, or when a default is not found."""
    if len(args) >= len(fn.params):
        return args
    try:
        text = w.index.source(fn).text
    except StopIteration:
        return args
    head = text[:fn.body_offset]
    close = head.rfind(")")
    depth, start = 0, None
    for i in range(close, -1, -1):
        depth += {")": 1, "(": -1}.get(head[i], 0)
        if depth == 0:
            start = i
            break
    if start is None:
        return args
    declared = split_args(head[start + 1:close])
    if len(declared) != len(fn.params):
        return args
    defaults = [d.split("=", 1)[1].strip() if "=" in d else None for d in declared]
    missing = defaults[len(args):]
    return args if None in missing else [*args, *missing]


def untaken_then_blanked(before: str) -> str:
    """A function's text up to a statement inside ``else { ... }`` blocks, with the ``then`` block of each
    such ``else`` blanked: a call running the statement took the else, so what the then block does to a
    local is not done on its way (``if (rank == 0) { outShape = ...; } else { for (...) outShape.AppendDim(..);
    ...}``: ops-nn index/gather_v2/op_api/aclnn_gather_v2.cpp:135-152)."""
    depth, i = 0, len(before) - 1
    while i >= 0:
        c = before[i]
        if c == "}":
            depth += 1
        elif c == "{" and depth:
            depth -= 1
        elif c == "{":   # a block open at the statement
            head = before[:i].rstrip()
            if head.endswith("else") and head[:-4].rstrip().endswith("}"):
                close = len(head[:-4].rstrip()) - 1
                opened = _open_brace(before, close)
                if opened is not None:
                    before = before[:opened + 1] + " " * (close - opened - 1) + before[close:]
        i -= 1
    return before


def _open_brace(text: str, close: int) -> int | None:
    depth = 0
    for i in range(close, -1, -1):
        depth += {"}": 1, "{": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return None


def untaken_else_blanked(rest: str) -> str:
    """A function's text after a statement inside ``if (...) { ... }`` blocks, with the ``else`` block
    following each such block blanked: a call running the statement took the then side, so what the else
    block does to a local is not done on its way (the other half of untaken_then_blanked)."""
    depth, i = 0, 0
    while i < len(rest):
        c = rest[i]
        if c == "{":
            depth += 1
        elif c == "}" and depth:
            depth -= 1
        elif c == "}":   # a block open at the statement closes
            m = re.match(r"\s*else\s*\{", rest[i + 1:])
            if m:
                opened = i + 1 + m.end() - 1
                close = _close_brace(rest, opened)
                if close is not None:
                    rest = rest[:opened + 1] + " " * (close - opened - 1) + rest[close:]
        i += 1
    return rest


def _close_brace(text: str, opened: int) -> int | None:
    depth = 0
    for i in range(opened, len(text)):
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i
    return None
