"""Loops over shapes and arrays: copies of an int array, batch dims checked broadcastable, dims
appended to shapes, negative dims refused, slices of a shape set or compared, element counts, and a
loop over an ``aclIntArray`` dim checking each element, an array compared with a shape's dims."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, statements
from aclnn_conformance.extract.syntax import open_braces
from aclnn_conformance.extract.host_code.model import (IGNORED_CALLS, Opaque, T, Unreadable, Walk, _args, _check,
                                                       _enclosing_body, _enclosing_function, _fail_status, _flatten,
                                                       _split_top, _status_of, _strip)
from aclnn_conformance.extract.host_code.statements import _error_exit, _forget_in_text
from aclnn_conformance.extract.host_code.integers import _array_length, _binary_split, _iexpr_of, _never_negative
from aclnn_conformance.extract.host_code.shapes import _shape_expr_at, _shape_expr_of
from aclnn_conformance.extract.host_code.reductions import (_emit_dims_unique, _mask_dup, _pos_dim_checks,
                                                            _wrapped_alias_dup, _wrapped_local_dup)
from aclnn_conformance.extract.host_code.kernels import _shape_like
from aclnn_conformance.extract.host_code.empty import _no_zero_dim
from aclnn_conformance.extract.host_code.conditions import _data_condition
from aclnn_conformance.extract.host_code.values import _value
from aclnn_conformance.extract.host_code.branches import _forget_if_mutated
from aclnn_conformance.extract.host_code.searches import set_dup
from aclnn_conformance.extract.host_code.array_elements import loop_invariant
from aclnn_conformance.extract.host_code.dim_loops import untaken_then_blanked
from aclnn_conformance.extract.host_code.nulls import _nonnull_param
import aclnn_conformance.extract.host_code.reenter as reenter


def _copy_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``for (size_t i = 0; i < a->Size(); i++) { v.emplace_back((*a)[i]); }`` with ``a`` an integer
    array argument and ``v`` a vector declared empty just before and written nowhere else in its
    function: ``v`` holds that array."""
    m = re.fullmatch(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(\w+)\s*->\s*Size\(\)\s*;"
                     r"\s*(?:\+\+\s*\1|\1\s*\+\+)\s*\)\s*\{\s*(\w+)\s*\.\s*(?:emplace_back|push_back)\s*\("
                     r"\s*(?:\(\s*\*\s*\2\s*\)\s*\[\s*\1\s*\]|\2\s*->\s*operator\[\]\(\s*\1\s*\))\s*\)\s*;\s*\}",
                     stmt.text.strip(), re.S)
    array = env.get(m.group(2)) if m else None
    if not (isinstance(array, T) and "IntArray" in w.ptypes.get(array.name, "")):
        return False
    v = re.escape(m.group(3))
    body = _enclosing_body(src, stmt.offset)
    declared = re.findall(rf"(?:op::)?FVector<[^;]*>\s+{v}\s*;|std::vector<[^;]*>\s+{v}\s*;", body)
    writes = re.findall(rf"\b{v}\s*(?:\.\s*(?:emplace_back|push_back|resize|clear|erase|insert)\s*\(|=(?!=)|\[)", body)
    if len(declared) != 1 or len(writes) != 1:
        return False
    env[m.group(3)] = array
    return True


def _batch_broadcast_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """The batch dims of two matrices checked broadcastable, right-aligned (aclnn_cdist.cpp:196-218):
    ``for (i = 0; i < maxRank - K; i++) { d1 = (r1 < maxRank) ? ((i < maxRank - minRank) ? 1 :
    a->GetViewShape().GetDim(i - maxRank + minRank)) : a->GetViewShape().GetDim(i); d2 = (the same of
    b); if (d1 != d2) { if (d1 != 1 && d2 != 1) { log; return ERR; } } ... }`` with r1, r2 the ranks
    of a and b, maxRank and minRank their max and min: ``broadcastable`` of the shapes without their
    last K dims."""
    t = re.sub(r"\s+", " ", stmt.text.strip())
    head = re.match(r"for ?\((?:int64_t|size_t|int) (\w+) = 0; \1 < (?:static_cast<int64_t>)?\((\w+) - (\w+)\); "
                    r"\1\+\+\) ?\{ (.*) \}$", t)
    if not head:
        return False
    i, mx, k, body = (head.group(n) for n in (1, 2, 3, 4))
    ie, mxe = re.escape(i), re.escape(mx)
    side = (rf"int64_t (\w+) = \((\w+) < {mxe}\) \? \(\({ie} < {mxe} - (\w+)\) \? 1 : "
            rf"(\w+)->GetViewShape\(\)\.GetDim\({ie} - {mxe} \+ \3\)\) : \4->GetViewShape\(\)\.GetDim\({ie}\); ")
    m = re.match(side + side.replace("\\3", "\\7").replace("\\4", "\\8")
                 .replace("(\\w+) < ", "(\\w+) < ", 1) + r"if ?\((\w+) != (\w+)\) ?\{ if ?\((\w+) != 1 && (\w+) != 1\) ?\{ "
                 r"(?:OP_LOGE\([^;]*\); )?return (ACLNN_ERR_PARAM_\w+); (?://[^}]*)?\} \}", body)
    if not m:
        return False
    d1, r1, mn, a, d2, r2, mn2, b = (m.group(n) for n in range(1, 9))
    if mn2 != mn or (m.group(9), m.group(10)) != (d1, d2) or (m.group(11), m.group(12)) != (d1, d2):
        return False
    rest = body[m.end():]
    if re.search(r"\breturn\b|ACLNN_ERR|OP_CHECK|CHECK_RET", rest):
        return False
    encl = re.sub(r"\s+", " ", _enclosing_body(src, stmt.offset))
    ranks = {}
    for r, x in ((r1, a), (r2, b)):
        if not re.search(rf"\b{re.escape(r)} = {re.escape(x)}->GetViewShape\(\)\.GetDimNum\(\);", encl):
            return False
    if not (re.search(rf"\b{mxe} = std::max\({re.escape(r1)}, {re.escape(r2)}\);", encl)
            and re.search(rf"\b{re.escape(mn)} = std::min\({re.escape(r1)}, {re.escape(r2)}\);", encl)):
        return False
    tensors = [_shape_like(env.get(x)) for x in (a, b)]
    try:
        drop = _value(w, k, env)
    except Unreadable:
        return False
    if None in tensors or not isinstance(drop, int) or isinstance(drop, bool) or drop < 0:
        return False
    _check(w, src, stmt.offset, "broadcastable", _args(param=tensors[0], other=tensors[1], drop_last=drop),
           _status_of(m.group(13)), stmt.text)
    if not _batch_shapes(w, src, stmt, rest, (d1, d2), tensors, drop, env):
        _forget_in_text(rest, env)   # what the loop builds beside the check is not held
    return True


def _batch_shapes(w: Walk, src: SourceFile, stmt: Stmt, rest: str, dims: tuple[str, str], tensors: list[str],
                  drop: int, env: dict) -> bool:
    """The rest of the batch-broadcast loop (``_batch_broadcast_loop``) being ``int64_t d = std::max(d1,
    d2); s1.AppendDim(d); s2.AppendDim(d);`` with s1, s2 shapes declared empty (``op::Shape s;``) and
    untouched before it: both hold the broadcast of the two tensors' shapes without their last
    ``drop`` dims (right-aligned, as the loop pads the shorter with 1s). std::max is the broadcast's
    size only without a 0 among those dims (max(1, 0) = 1): held only where the walk's guards leave
    no 0 there (a success return on a zero batch dim before, aclnn_cdist.cpp:183-187)."""
    m = re.fullmatch(r"\s*int64_t (\w+) = std::max\((\w+), (\w+)\); (\w+)\.AppendDim\(\1\); (\w+)\.AppendDim\(\1\);\s*",
                     rest)
    if not m or {m.group(2), m.group(3)} != set(dims) or m.group(4) == m.group(5):
        return False
    fn = _enclosing_function(src, stmt.offset)
    before = fn.body[:stmt.offset - fn.body_offset] if fn is not None else ""
    for s in (m.group(4), m.group(5)):
        decl = list(re.finditer(rf"(?:op|gert)::Shape\s+{s}\s*;", before))
        if len(decl) != 1 or re.search(rf"\b{s}\b", before[decl[0].end():]) or s in env:
            return False
    if not all(_no_zero_dim(w, t, -drop) for t in tensors):
        return False
    batch = ("broadcast", *(("slice", ("of", t), 0, ("-", ("rank", t), drop)) for t in tensors))
    env[m.group(4)] = env[m.group(5)] = ("shape-expr", batch)
    return True


def _append_dims_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """A loop appending dims of held shapes to shapes: ``for (i = 0; i < n; i++) { int64_t d =
    x.GetDim(i); s.AppendDim(d); }`` (or ``s.AppendDim(x.GetDim(i))``) appends x's first n dims (none
    for n <= 0); ``for (i = c; i >= 0; i--) { s.AppendDim(x.GetDim(k - i - 1)); ... }`` with c a
    constant appends x's dims k - c - 1 .. k - 1 in order. Each s holds a shape, or is declared empty
    (``op::Shape s;``) and untouched before: it then holds ("concat", s, ("slice", x, start, count))."""
    t = re.sub(r"\s+", " ", stmt.text.strip())
    up = re.fullmatch(r"for ?\((?:int64_t|size_t|int|uint64_t) (\w+) = (?P<start>\w+(?: \+ \d+)?); \1 < (.+?); "
                      r"(?:\1\+\+|\+\+\1)\) ?\{ (.*) \}", t)
    down = re.fullmatch(r"for ?\((?:int64_t|int) (\w+) = (\d+); \1 >= 0; (?:\1--|--\1)\) ?\{ (.*) \}", t)
    if not (up or down):
        return False
    i, body = (up or down).group(1), up.group(4) if up else down.group(3)
    ie = re.escape(i)
    parts = [p.strip() for p in body.split(";")]
    if parts[-1] != "":
        return False
    parts, appended, local = parts[:-1], [], {}
    for part in parts:
        dim = re.fullmatch(r"(?:int64_t|auto) (\w+) = (.+?) ?\. ?GetDim\((.+)\)", part)
        if dim and dim.group(1) not in local and dim.group(1) != i:
            local[dim.group(1)] = (dim.group(2), dim.group(3))
            continue
        app = re.fullmatch(r"(\w+) ?\. ?AppendDim\((.+)\)", part)
        if not app:
            return False
        read = local.pop(app.group(2).strip(), None)
        if read is None:   # x.GetDim(k), or x[k] of a shape (op::Shape's operator[])
            got = re.fullmatch(r"(.+?) ?\. ?GetDim\((.+)\)", app.group(2).strip()) or \
                re.fullmatch(r"(\w+) ?\[(.+)\]", app.group(2).strip())
            read = (got.group(1), got.group(2)) if got else None
        if read is None:
            return False
        appended.append((app.group(1), read[0], read[1].strip()))
    if local or not appended or len({a[0] for a in appended}) != len(appended):
        return False
    fn = _enclosing_function(src, stmt.offset)
    before = untaken_then_blanked(fn.body[:stmt.offset - fn.body_offset]) if fn is not None else ""
    new = {}
    for s, x, index in appended:
        shape = _shape_expr_at(w, x, env)
        if shape is None or s == _strip(x) or re.search(rf"\b{ie}\b", x):
            return False
        held = _shape_expr_of(env.get(s))
        if held is None:   # a shape declared empty just before
            decl = list(re.finditer(rf"(?<![\w:])(?:(?:op|gert)::)?Shape\s+(?:\w+\s*,\s*)*{re.escape(s)}\s*(?:,\s*\w+\s*)*;",
                                    before))   # ``op::Shape a, b;`` declares each empty
            if s in env or len(decl) != 1 or re.search(rf"\b{re.escape(s)}\b", before[decl[0].end():]):
                return False
            held = ("dims", ())
        try:
            if up:
                n = _iexpr_of(w, _value(w, up.group(3), env))
                if index != i or re.match(r"for ?\((?:size_t|uint64_t)", t) and not _never_negative(w, n):
                    return False   # an unsigned count below 0 wraps: read only where it cannot
                # from a start the walk knows (``i = indicesLastElement``, ops-nn
                # index/gather_nd/op_api/aclnn_gather_nd.cpp:135): the dims start .. n - 1 (a start below 0
                # reads outside the shape: the slice leaves it undecided)
                start = 0 if up.group("start") == "0" else _iexpr_of(w, _value(w, up.group("start"), env))
                if start is None:   # an unsigned start below 0 wraps and runs no pass: the slice, of a
                    return False    # start below 0, leaves those calls undecided
                count = ("max", n, 0) if start == 0 else ("max", ("-", n, start), 0)
            else:
                k = re.fullmatch(rf"(.+?) - {ie} - 1", index)
                if not k:
                    return False
                last = _iexpr_of(w, _value(w, k.group(1), env))
                c = int(down.group(2))
                start, count = ("-", last, c + 1) if last is not None else None, c + 1
        except Unreadable:
            return False
        if start is None or None in (count if isinstance(count, tuple) else (count,)):
            return False
        new[s] = ("shape-expr", ("concat", held, ("slice", shape, start, count)))
    env.update(new)
    return True


def _negative_dim_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = 0; i < x->GetViewShape().GetDimNum(); i++) { if (x->GetViewShape().GetDim(i) < 0)
    { log; return ERR; } }``: ``dims_nonnegative`` of x."""
    m = re.fullmatch(
        r"for ?\((?:size_t|int64_t|uint64_t|int) (\w+) = 0; \1 < (\w+)->GetViewShape\(\)\.GetDimNum\(\); \1\+\+\) ?\{ "
        r"if ?\(\2->GetViewShape\(\)\.GetDim\(\1\) < 0\) ?\{ (?:OP_LOGE\([^;]*\); )?(return [^;]+;) \} \}",
        re.sub(r"\s+", " ", stmt.text.strip()))
    held = env.get(m.group(2)) if m else None
    if not isinstance(held, T):
        return False
    _check(w, src, stmt.offset, "dims_nonnegative", _args(param=held.name), _fail_status(m.group(3), fail),
           stmt.text)
    return True


_COUNTED_LOOP = (r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>[^;]+?)\s*;"
                 r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*")


def _slice_index(index: str, i: str) -> str | None:
    """The start ``a`` of an index ``a + i``, ``i + a`` or ``i`` ("0") over a loop's counter ``i``."""
    index = _strip(index)
    if index == i:
        return "0"
    two = _split_top(index, "+")
    if len(two) == 2 and i in (two[0].strip(), two[1].strip()) and two[0].strip() != two[1].strip():
        return two[1].strip() if two[0].strip() == i else two[0].strip()
    return None


def _slice_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``op::Shape s; s.SetDimNum(n); for (i = 0; i < n; i++) { s.SetDim(i, x.GetDim(a + i)); }``, the
    three in a row, with x a shape the walk holds and n, a integers it knows: ``s`` holds the n dims of
    x from dim a on (("slice", x, a, n))."""
    m = re.fullmatch(_COUNTED_LOOP + r"\{?\s*(?P<s>\w+)\s*\.\s*SetDim\s*\(\s*(?P=i)\s*,\s*(?P<x>.+?)\s*\.\s*GetDim\s*"
                     r"\((?P<at>[^;]+)\)\s*\)\s*;\s*\}?", stmt.text.strip(), re.S)
    fn = _enclosing_function(src, stmt.offset)
    if not m or fn is None or open_braces(m.group(0)) != 0:
        return False
    name, n = re.escape(m.group("s")), re.escape(m.group("n"))
    before = fn.body[:stmt.offset - fn.body_offset]
    start = _slice_index(m.group("at"), m.group("i"))
    shape = _shape_expr_at(w, m.group("x"), env)
    if start is None or shape is None or m.group("x").strip() == m.group("s") or \
            not re.search(rf"(?:op|gert)::Shape\s+{name}\s*;\s*{name}\s*\.\s*SetDimNum\s*\(\s*{n}\s*\)\s*;\s*$", before):
        return False
    try:
        at, count = (_iexpr_of(w, _value(w, x, env)) for x in (start, m.group("n")))
    except Unreadable:
        return False
    if at is None or count is None:
        return False
    env[m.group("s")] = ("shape-expr", ("slice", shape, at, count))
    _forget_if_mutated(src, stmt, env, m.group("s"))
    return True


def _slice_compare_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = 0; i < n; i++) { if (x.GetDim(a + i) != y.GetDim(b + i)) { log; return ERR; } }`` with
    x, y shapes the walk holds and n, a, b integers it knows: refused where the n dims of x from a on
    differ from those of y from b on (a tensor's n dims from 0 with n its rank are its whole shape)."""
    # ``p->GetDim(i)`` of a shape passed by pointer as ``s.GetDim(i)``; a log of any kind before the return
    m = re.fullmatch(_COUNTED_LOOP + r"\{\s*if\s*\((?P<x>[^;]+?)\s*(?:\.|->)\s*GetDim\s*\((?P<a>[^;]+?)\)\s*!=\s*"
                     r"(?P<y>[^;]+?)\s*\.\s*GetDim\s*\((?P<b>[^;]+?)\)\s*\)\s*\{\s*(?:OP_LOGE\w*\s*\([^;]*\)\s*;\s*)?"
                     r"(?P<ret>return\s[^;]+;)\s*\}\s*\}", stmt.text.strip(), re.S)
    if not m:
        return False
    starts = [_slice_index(m.group(k), m.group("i")) for k in ("a", "b")]
    shapes = [_shape_expr_at(w, m.group(k), env) for k in ("x", "y")]
    if None in starts or None in shapes:
        return False
    try:
        count, *at = (_iexpr_of(w, _value(w, x, env)) for x in (m.group("n"), *starts))
    except Unreadable:
        return False
    if count is None or None in at:
        return False
    sides = [shape if shape[0] == "of" and a == 0 and count == ("rank", shape[1]) else ("slice", shape, a, count)
             for shape, a in zip(shapes, at)]   # a rank is never negative: the whole shape
    whole = [side[1] for side in sides if side[0] == "of"]
    if whole:
        other = sides[1] if sides[0][0] == "of" else sides[0]
        template, args = "shape_is", _args(param=whole[0], shape_expr=other)
    else:
        template, args = "int_test", _args(test=("not", ("same-shape", *sides)))
    _check(w, src, stmt.offset, template, args, _fail_status(m.group("ret"), fail), stmt.text)
    return True


def _numel_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``for (size_t i = a; i < b; i++) { n *= shape.GetDim(i); }`` with ``n`` 1 before it and ``shape``
    a tensor's view shape: ``n`` holds the tensor's element count (a = 0, b its rank), else the product
    of its dims a to b - 1 (ops-nn norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:358-363)."""
    m = re.fullmatch(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*(\w+)\s*;\s*(\w+)\s*<\s*(.+?)\s*;"
                     r"\s*(?:\+\+\s*(\w+)|(\w+)\s*\+\+)\s*\)\s*\{\s*(\w+)\s*\*=\s*(.+?)\s*;\s*\}",
                     stmt.text.strip(), re.S)
    if not m or m.group(3) != m.group(1) or (m.group(5) or m.group(6)) != m.group(1) or env.get(m.group(7)) != 1:
        return False
    dim = re.fullmatch(r"(.+?)\s*\.\s*GetDim\s*\(\s*" + m.group(1) + r"\s*\)", m.group(8), re.S) or \
        re.fullmatch(r"(\w+)\s*\[\s*" + m.group(1) + r"\s*\]", m.group(8))   # a shape's operator[]
    holder = env.get(_strip(dim.group(1))) if dim else None
    mv = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", _strip(dim.group(1))) if dim else None
    if mv and isinstance(env.get(mv.group(1)), T):
        holder = ("shape-of", env[mv.group(1)].name)
    if not (isinstance(holder, tuple) and holder[:1] == ("shape-of",)):
        return False
    start, bound = (_loop_start(w, src, stmt, x, env) for x in (m.group(2), m.group(4)))
    if start is None or bound is None:
        return False
    if start == 0 and bound == ("rank", holder[1]):
        env[m.group(7)] = ("numel", holder[1])
    else:
        count = bound if start == 0 else ("-", bound, start)
        env[m.group(7)] = ("iexpr", ("prod", ("slice", ("of", holder[1]), start, count)))
    return True


def _sized_array(w: Walk, bound: str, env: dict) -> str | None:
    """The integer array argument a loop's bound is the length of: ``a->Size()``, or a local holding it
    (ops-math conversion/roll/op_api/aclnn_roll.cpp:113 ``int64_t dimSize = static_cast<int64_t>(dims->Size())``)."""
    m = re.fullmatch(r"(\w+)\s*->\s*Size\(\)", bound)
    if m:
        return m.group(1)
    held = env.get(bound)
    m = re.search(r"\b(\w+)\s*->\s*Size\(\)", held.text) if isinstance(held, Opaque) else None
    return m.group(1) if m and _array_length(w, held.text, env) is not None else None


def _run_array_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (size_t i = 0; i < dim->Size(); i++) { if (<dim[i] ...>) return <code>; }`` over an
    integer array argument: the checks of each element, as checks of the array."""
    m = re.fullmatch(r"for\s*\(\s*(?:const\s+)?(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*"
                     r"(\w+)\s*<\s*(?:static_cast<\s*(?:u?int64_t|size_t)\s*>\s*\(\s*)?(\w+(?:\s*->\s*Size\(\))?)\s*\)?\s*;\s*"
                     r"(?:\+\+\s*(\w+)|(\w+)\s*\+\+)\s*\)\s*\{(.*)\}",
                     stmt.text.strip(), re.S)
    if not m or m.group(2) != m.group(1) or (m.group(4) or m.group(5)) != m.group(1):
        return False
    i, arr = m.group(1), _sized_array(w, m.group(3), env)
    if arr is None:
        return False
    v = env.get(arr)
    if not isinstance(v, T) or "IntArray" not in w.ptypes.get(v.name, ""):
        return False
    body_offset = stmt.offset + stmt.text.index("{", m.start(6) - 1) + 1
    inner = statements(m.group(6), body_offset)
    a, ii = re.escape(arr), re.escape(i)
    elem = re.compile(rf"\(\s*\*\s*{a}\s*\)\s*\[\s*{ii}\s*\]|{a}\s*->\s*operator\s*\[\s*\]\s*\(\s*{ii}\s*\)|"
                      rf"\(\s*\*\s*{a}\s*\)\s*\.\s*operator\s*\[\s*\]\s*\(\s*{ii}\s*\)" +
                      # a vector copy of the array (searches._array_copy) indexed the same
                      "".join(rf"|\b{re.escape(n)}\s*\[\s*{ii}\s*\]" for n, h in env.items() if h is v and n != arr))
    decl = r"(?:const\s+)?(?:auto|int64_t|int32_t|int)\s*&?\s*(\w+)\s*=\s*(.+)"
    inner, wrapped_dup = _wrapped_local_dup(w, inner, elem, env, fail)
    if wrapped_dup is None:
        inner, wrapped_dup = _wrapped_alias_dup(w, inner, elem, env, fail)
    if wrapped_dup is None:
        inner, wrapped_dup = set_dup(w, src, inner, elem, env, fail)
    aliases = [dm.group(1) for st in inner if st.kind == "decl"
               and (dm := re.fullmatch(decl, st.text.strip(), re.S)) and elem.fullmatch(_strip(dm.group(2)))]
    body = "".join(st.text + ";" for st in _flatten(inner))   # what is left of it after the tails read
    if any(len(re.findall(rf"\b{re.escape(n)}\s*(?:[-+*/]?=(?!=)|\+\+|--)", body)) != 1 for n in aliases):
        return False   # an element's local assigned again: not the element throughout
    if aliases:   # a local holding the element reads as the element
        elem = re.compile(elem.pattern + "|" + "|".join(rf"\b{re.escape(n)}\b" for n in aliases))
    inner, nonzero = _pos_dim_checks(w, inner, elem, env, fail)
    inner, dup = _mask_dup(w, inner, elem, env, fail)
    dup = dup or wrapped_dup
    if nonzero and dup is None:   # the wrapped index served only the size checks
        inner = tuple(st for st in inner if st is not nonzero[0])
    marker = f"__elem_{arr}"
    env2 = dict(env)
    env2[marker] = v
    checks: list[tuple[Stmt, str, int]] = []
    locals_: list[str] = []
    for st in inner:
        text = st.text.strip()
        if st.kind == "call" and IGNORED_CALLS.match(text):
            continue
        dm = re.fullmatch(decl, text, re.S)
        if st.kind == "decl" and dm and elem.fullmatch(_strip(dm.group(2))):
            locals_.append(dm.group(1))
            continue
        if st.kind == "decl" and dm and loop_invariant(w, dm.group(1), dm.group(2), (i, arr), body, env2):
            continue   # a local the same on every pass (``auto dimSize = ...``): held once
        if st.kind == "if" and not st.orelse:
            code = _error_exit(st.then, fail)
            if code is None:
                return False
            cond = elem.sub(marker, st.cond)
            for name in locals_:
                cond = re.sub(rf"\b{re.escape(name)}\b", marker, cond)
            if re.search(rf"\b{ii}\b|\b{a}\b", cond):
                return False
            checks.append((st, cond, code))
            continue
        return False
    sized = nonzero[1] if nonzero else []
    codes = {c for _, _, c in checks} | ({dup[2]} if dup else set()) | {c for _, _, c in sized}
    if not (checks or dup or sized) or len(codes) != 1:
        return False
    for st, cond, code in checks:
        _data_condition(w, src, st.offset, cond, env2, code, "if (" + st.cond.strip() + ")")
    for st, tensor, code in sized:
        _check(w, src, st.offset, "attr_dims_nonzero", _args(attr=v.name, tensor=tensor), code,
               "if (" + " ".join(st.cond.split()) + ")")
    if dup:
        _emit_dims_unique(w, src, stmt, v, dup)
    return True


_ARRAY_DIMS_LOOP = re.compile(r"for\s*\(\s*(?:const\s+)?(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(?P<i>\w+)\s*=\s*(?P<start>\w+)\s*;\s*"
                              r"(?P=i)\s*<\s*(?P<n>\w+(?:\s*->\s*Size\(\))?)\s*;\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)"
                              r"\s*\{(?P<body>.*)\}", re.S)
_LOCAL = re.compile(r"(?:const\s+)?(?:auto|u?int64_t|u?int32_t|int|size_t)\s+(\w+)\s*=\s*(.+)", re.S)


def _int_sum(w: Walk, text: str, env: dict) -> tuple | int | None:
    """An integer expression of sums and differences over what the walk holds and integer arrays'
    lengths (``inputShape.GetDimNum() - normalizedShape->Size()``); None otherwise."""
    text = _strip(text)
    length = _array_length(w, text, env)
    if length is not None:
        return length
    split = _binary_split(text)
    if split is not None and split[1] in ("+", "-"):
        a, b = _int_sum(w, split[0], env), _int_sum(w, split[2], env)
        return None if a is None or b is None else (split[1], a, b)
    try:
        return _iexpr_of(w, _value(w, text, env))
    except Unreadable:
        return None


def _loop_start(w: Walk, src: SourceFile, stmt: Stmt, text: str, env: dict) -> tuple | int | None:
    """The integer ``text`` names at a loop: what the walk holds, or a local the function declares once
    before the loop and never assigns again (``const size_t beginAxis = ...``), read from its
    declaration."""
    value = _int_sum(w, text, env)
    fn = _enclosing_function(src, stmt.offset)
    if value is not None or fn is None or not re.fullmatch(r"[A-Za-z_]\w*", _strip(text)):
        return value
    name = re.escape(_strip(text))
    before = fn.body[:stmt.offset - fn.body_offset]
    decl = re.findall(rf"(?:const\s+)?(?:u?int64_t|u?int32_t|int|size_t)\s+{name}\s*=\s*([^;]+);", before)
    if len(decl) != 1 or len(re.findall(rf"\b{name}\s*(?:[-+*/]?=(?!=)|\+\+|--)", fn.body)) != 1:
        return None
    return _int_sum(w, decl[0], env)


def _array_dims_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = 0; i < a->Size(); i++) { e = *(a->GetData() + i); d = S.GetDim(i + k); if (e != d)
    return ERR; if (t) { dt = t->GetViewShape().GetDim(i); if (e != dt) return ERR; } }`` over an
    integer array argument a (ops-nn norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:218-251):
    refused where a's elements are not the len(a) dims of S from k on (one rule per compared shape,
    made under its branch's non-null guard). The loop may start at j (``i = axis``, ops-nn
    norm/layer_norm_grad_v3/op_host/op_api/aclnn_layer_norm_backward.cpp:114-124): then a's elements
    from j on against the dims of S from j + k on; and ``if (e == d) continue;`` then a failure reads as
    ``if (e != d)`` of that failure (aclnn_ada_layer_norm_backward.cpp:147-157)."""
    m = _ARRAY_DIMS_LOOP.fullmatch(stmt.text.strip())
    arr = _sized_array(w, _strip(m.group("n")), env) if m else None
    held = env.get(arr) if arr else None
    if not isinstance(held, T) or "IntArray" not in w.ptypes.get(held.name, ""):
        return False
    first = 0 if m.group("start") == "0" else _loop_start(w, src, stmt, m.group("start"), env)
    if first is None:
        return False
    i, a = re.escape(m.group("i")), re.escape(arr)
    element = re.compile(rf"\*\s*\(\s*{a}\s*->\s*GetData\(\)\s*\+\s*{i}\s*\)|\(\s*\*\s*{a}\s*\)\s*\[\s*{i}\s*\]")
    dim_of = re.compile(rf"(?P<s>.+?)\s*(?:\.|->)\s*GetDim\s*\((?P<at>[^;]+)\)")
    length = ("len", held.name) if first == 0 else ("max", ("-", ("len", held.name), first), 0)
    found: list[tuple[Stmt, tuple, int, tuple]] = []
    body_offset = stmt.offset + stmt.text.strip().index("{", m.start("body") - 1) + 1

    def read(stmts: tuple[Stmt, ...], guards: tuple, elems: set, dims: dict) -> bool:
        stmts = _continue_unless(stmts)
        for st in stmts:
            text = _strip(st.text)
            if st.kind == "call" and IGNORED_CALLS.match(text):
                continue
            local = _LOCAL.fullmatch(text) if st.kind == "decl" else None
            if local and element.fullmatch(_strip(local.group(2))):
                elems.add(local.group(1))
                continue
            dim = dim_of.fullmatch(_strip(local.group(2))) if local else None
            if dim:
                start = _slice_index(dim.group("at"), m.group("i"))
                shape = _shape_expr_at(w, dim.group("s"), env)
                if start is None or shape is None:
                    return False
                at = _loop_start(w, src, stmt, start, env)
                if at is None:
                    return False
                dims[local.group(1)] = ("slice", shape, at if first == 0 else ("+", at, first), length)
                continue
            if st.kind != "if" or st.orelse:
                return False
            compared = re.fullmatch(r"(\w+)\s*!=\s*(\w+)", _strip(st.cond))
            if compared:
                x, y = compared.groups()
                side = dims.get(y) if x in elems else dims.get(x) if y in elems else None
                code = _error_exit(st.then, fail)
                if side is None or code is None:
                    return False
                found.append((st, side, code, guards))
                continue
            given = _nonnull_param(st.cond, env, w)
            if given is None or not read(st.then, guards + (("not", ("null", given)),), elems, dict(dims)):
                return False
        return True

    if not read(statements(m.group("body"), body_offset), (), set(), {}) or not found:
        return False
    elements = ("array", held.name) if first == 0 else ("slice", ("array", held.name), first, length)
    for st, side, code, guards in found:
        test = ("not", ("same-shape", side, elements))
        when = {} if not guards else {"when": guards[0] if len(guards) == 1 else ("and", *guards)}
        _check(w, src, st.offset, "int_test", _args(test=test, **when), code, "if (" + st.cond.strip() + ")")
    return True


def _continue_unless(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    """``if (a == b) continue;`` and the statements after it, in a loop's body, as ``if (a != b)
    { those statements }``; the body itself otherwise."""
    for k, st in enumerate(stmts):
        same = re.fullmatch(r"(\w+)\s*==\s*(\w+)", _strip(st.cond)) if st.kind == "if" and not st.orelse else None
        if same and len(st.then) == 1 and re.fullmatch(r"continue\s*;?", st.then[0].text.strip()):
            cond = f"{same.group(1)} != {same.group(2)}"
            return stmts[:k] + (replace(st, text=f"if ({cond})", cond=cond, then=stmts[k + 1:]),)
    return stmts


_FROM_LOOP = re.compile(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(?P<i>\w+)\s*=\s*(?P<a>\w+)\s*;\s*(?P=i)\s*<\s*"
                        r"(?:(?P<b>\w+)|static_cast<\s*\w+\s*>\s*\(\s*(?P<cb>\w+)\s*\))\s*;"
                        r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*\{(?P<body>.*)\}", re.S)


def _dim_locals_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = a; i < b; i++) { d = S.GetDim(i); e = T.GetDim(i); if (d != e) return ERR; }`` (or
    ``if (d != 1)``) over shapes the walk holds, the bounds integers it knows (ops-nn
    norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:98-117): refused where dims a to b - 1 of S
    differ from those of T (or one of them is not the constant). The dims may be read as ``(S)[i]`` and
    compared in order, and the body may skip one dim, ``if (i != p) { ... }`` (ops-nn
    index/scatter_elements_v2/op_api/aclnn_scatter.cpp:159-173 CompareTensorShape): then refused where
    some dim i other than p compares so (the integer test ``any-index``)."""
    m = _FROM_LOOP.fullmatch(stmt.text.strip())
    if not m:
        return False
    start, bound = (_loop_start(w, src, stmt, m.group(x), env) for x in ("a", "b" if m.group("b") else "cb"))
    if start is None or bound is None:
        return False
    count = bound if start == 0 else ("-", bound, start)
    i = re.escape(m.group("i"))
    dims: dict[str, tuple] = {}
    found: list[tuple[Stmt, tuple, int]] = []
    body_offset = stmt.offset + stmt.text.strip().index("{", m.start("body") - 1) + 1
    body, skipped = _one_dim_skipped(w, statements(m.group("body"), body_offset), m.group("i"), env)
    for st in body:
        text = _strip(st.text)
        if st.kind == "call" and IGNORED_CALLS.match(text):
            continue
        local = _LOCAL.fullmatch(text) if st.kind == "decl" else None
        dim = re.fullmatch(rf"(?P<s>.+?)\s*(?:\.|->)\s*GetDim\s*\(\s*{i}\s*\)"
                           rf"|\(?(?P<v>[^()\[\]]+(?:\(\))?)\)?\s*\[\s*{i}\s*\]",   # S.GetDim(i), (S)[i]
                           _strip(local.group(2))) if local else None
        if dim:
            shape = _shape_expr_at(w, dim.group("s") or dim.group("v"), env)
            if shape is None:
                return False
            dims[local.group(1)] = (shape, start)
            continue
        compared = re.fullmatch(r"(\w+)\s*(!=|<=?|>=?)\s*(\w+)", _strip(st.cond)) \
            if st.kind == "if" and not st.orelse else None
        code = _error_exit(st.then, fail) if compared else None
        if code is None:
            return False
        x, op, y = compared.groups()
        if skipped is not None or op != "!=":
            if x not in dims or y not in dims:
                return False
            each = (op, _dim_at_each(*dims[x]), _dim_at_each(*dims[y]))
            test = ("any-index", count, each if skipped is None else ("and", ("!=", ("each",), skipped), each))
        elif x in dims and y in dims:
            test = ("not", ("same-shape", ("slice", dims[x][0], start, count), ("slice", dims[y][0], start, count)))
        elif x in dims and re.fullmatch(r"\d+", y):
            test = ("any-dim", ("slice", dims[x][0], start, count), ("!=", ("each",), int(y)))
        else:
            return False
        found.append((st, test, code))
    if not found:
        return False
    for st, test, code in found:
        _check(w, src, st.offset, "int_test", _args(test=test), code, "if (" + st.cond.strip() + ")")
    return True


def _one_dim_skipped(w: Walk, body: tuple[Stmt, ...], i: str, env: dict) -> tuple[tuple[Stmt, ...], Any]:
    """A loop body that is one ``if (i != p) { ... }``: its statements and the integer p the walk
    knows; the body and None otherwise."""
    skip = re.fullmatch(rf"{re.escape(i)}\s*!=\s*(.+)", _strip(body[0].cond)) \
        if len(body) == 1 and body[0].kind == "if" and not body[0].orelse else None
    if skip is None:
        return body, None
    try:
        p = _iexpr_of(w, reenter.value(w, skip.group(1), env))
    except Unreadable:
        return body, None
    return (body[0].then, p) if p is not None else (body, None)


def _dim_at_each(shape: tuple, start: Any) -> tuple:
    """Dim ``start + i`` of ``shape`` for the ``any-index`` counter i (``["each"]``)."""
    if shape[0] == "of" and start == 0:
        return ("dim", shape[1], 0, ("each",))
    return ("sdim", shape, ("each",) if start == 0 else ("+", start, ("each",)))


_LOOP_HEAD = re.compile(r"(for\s*\([^;{}]*;[^;{}]*;[^;{}]*\)\s*)\{(?P<body>.*)\}", re.S)
_WRITES = re.compile(r"([A-Za-z_]\w*)\s*(?:\.\s*AppendDim\s*\(|[-+*/]=(?!=))")


def split_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """A loop whose body is statements each changing its own local, none reading another's (ops-nn
    norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:180-185: ``for (i < n) {
    e1.AppendDim(s[i]); e2.AppendDim(s[i]); B *= s[i]; }``): the same as one loop per statement, in
    order, each read by a loop reader; False (nothing changed) when one of them is not."""
    m = _LOOP_HEAD.fullmatch(stmt.text.strip())
    if not m:
        return False
    body_offset = stmt.offset + stmt.text.index(stmt.text.strip()) + m.start("body")
    parts = statements(m.group("body"), body_offset)
    writes = [_WRITES.match(p.text.strip()) if p.kind in ("call", "decl") else None for p in parts]
    if len(parts) < 2 or None in writes or len({x.group(1) for x in writes}) != len(writes):
        return False
    for k, p in enumerate(parts):   # each statement reads none of the others' locals
        others = [x.group(1) for j, x in enumerate(writes) if j != k]
        if any(re.search(rf"\b{re.escape(o)}\b", p.text) for o in others):
            return False
    local, mark = dict(env), len(w.events)
    for p in parts:
        one = Stmt("other", f"{m.group(1)}{{ {p.text.strip()}; }}", stmt.offset)
        if not reenter.read_loop(w, src, one, local, fail, top):
            del w.events[mark:]
            return False
    env.clear()
    env.update(local)
    return True
