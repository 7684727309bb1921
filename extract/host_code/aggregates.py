"""Aggregates gathering the API's arguments: a struct initialised with them (``InputParams p{self, ord,
dims, dtype, out, keepDims}``), an array of such structs or of values (``InputParamT list[4] = {{gradOut,
"gradOut"}, ...}``, ``bool mask[3] = {inputG, weightG, biasG}``), its length by ``sizeof``, and a loop of
a known count over them, read once per index. A member read (``p.self``, ``list[1].param``) is the
value it was initialised with; the statement reading it is rewritten with a local of the same length
bound to that value, so that every offset, hence every citation, stays where the code has it."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, match_close, split_args, statements
from aclnn_conformance.extract.host_code.model import Opaque, Unreadable, Walk, _enclosing_body, _strip
import aclnn_conformance.extract.host_code.reenter as reenter

AGGREGATE, ARRAY = "aggregate", "aggregate-array"
_MAX_UNROLL = 10   # an index of one digit keeps the rewritten loop body's offsets


def struct_fields(src: SourceFile, type_name: str) -> list[str] | None:
    """The member names, in order, of the struct ``type_name`` the file defines (``struct T {...};``
    or ``typedef struct S {...} T;``), plain data members only."""
    n = re.escape(type_name)
    for m in re.finditer(rf"\bstruct\s+{n}\s*\{{|\btypedef\s+struct\s+\w*\s*\{{", src.text):
        close = match_close(src.text, m.end() - 1, "{", "}")
        if close < 0:
            continue
        if m.group(0).startswith("typedef") and \
                not re.match(rf"\s*{n}\s*;", src.text[close + 1:]):
            continue
        fields = []
        for member in src.text[m.end():close].split(";"):
            member = re.sub(r"\s*=.*$", "", member.strip(), flags=re.S)
            if not member:
                continue
            fm = re.fullmatch(r"(?:const\s+)?[\w:<>,\s\*&]+?[\s\*&]+(\w+)", member, re.S)
            if fm is None or "(" in member:
                return None   # a member function or a declaration not read: not a plain aggregate
            fields.append(fm.group(1))
        return fields or None
    return None


def _item(w: Walk, text: str, env: dict) -> Any:
    text = _strip(text)
    if re.fullmatch(r'"[^"]*"', text):
        return ("string", text[1:-1])
    if re.fullmatch(r"[A-Za-z_]\w*", text) and text in env:
        return env[text]
    try:
        return reenter.value(w, text, env)
    except Unreadable:
        return Opaque(text)


def _struct_value(w: Walk, src: SourceFile, type_name: str, inits: str, env: dict) -> dict | None:
    fields = struct_fields(src, type_name)
    items = split_args(inits) if inits.strip() else []
    if fields is None or len(items) > len(fields):
        return None
    return {f: _item(w, x, env) for f, x in zip(fields, items)}


def _written(src: SourceFile, stmt: Stmt, name: str) -> bool:
    """A member or element of ``name`` assigned after its declaration, or its address taken."""
    body, decl = _enclosing_body(src, stmt.offset), stmt.text.strip()
    body = body[body.find(decl) + len(decl):] if decl in body else body
    n = re.escape(name)
    return bool(re.search(rf"\b{n}\s*(?:\[[^\]]*\]\s*)?(?:\.\s*\w+\s*)?(?:[-+*/|&]?=(?!=)|\+\+|--)|&\s*{n}\b", body))


def read_declaration(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """A struct, an array of structs or of values initialised in place, or an aggregate's length by
    ``sizeof``: bound in ``env``."""
    if stmt.kind not in ("decl", "call"):
        return False
    text = stmt.text.strip().rstrip(";").strip()
    m = re.fullmatch(r"(?:const\s+)?(?:struct\s+)?([A-Za-z_][\w:]*)\s+([A-Za-z_]\w*)\s*(\[\s*\w*\s*\])?\s*=?\s*\{(.*)\}",
                     text, re.S)
    if m and match_close(text, text.index("{", m.start(4) - 1), "{", "}") == len(text) - 1:
        type_name, name, dims, inits = m.groups()
        if _written(src, stmt, name):
            return False
        if dims is None:
            fields = _struct_value(w, src, type_name.split("::")[-1], inits, env)
            if fields is None:
                return False
            env[name] = (AGGREGATE, fields)
            return True
        size = dims.strip("[] \t")
        items = split_args(inits) if inits.strip() else []
        elems = []
        for x in items:
            x = x.strip()
            if x.startswith("{"):
                if match_close(x, 0, "{", "}") != len(x) - 1:
                    return False
                fields = _struct_value(w, src, type_name.split("::")[-1], x[1:-1], env)
                if fields is None:
                    return False
                elems.append((AGGREGATE, fields))
            else:
                elems.append(_item(w, x, env))
        n = _int(w, size, env) if size else len(elems)
        if n is None or n != len(elems):
            return False   # an array partly initialised (its other elements zero): not read
        env[name] = (ARRAY, tuple(elems))
        return True
    m = re.fullmatch(r"(?:const\s+)?(?:size_t|u?int(?:64|32)?_t|int|auto)\s+([A-Za-z_]\w*)\s*=\s*"
                     r"sizeof\s*\(\s*(\w+)\s*\)\s*/\s*sizeof\s*\((.*)\)", text, re.S)
    if m and isinstance(env.get(m.group(2)), tuple) and env[m.group(2)][:1] == (ARRAY,):
        env[m.group(1)] = len(env[m.group(2)][1])
        return True
    m = re.fullmatch(r"(?:const\s+)?(?:size_t|u?int(?:64|32)?_t|int|auto)\s+([A-Za-z_]\w*)\s*=\s*(\w+)\s*\((.*)\)",
                     text, re.S)
    if m and (k := _int_call(w, m.group(2), m.group(3), env)) is not None:
        env[m.group(1)] = k
        return True
    return False


def _int(w: Walk, text: str, env: dict) -> int | None:
    text = _strip(text)
    if re.fullmatch(r"\d+[uUlL]*", text):
        return int(re.sub(r"[uUlL]", "", text))
    held = env.get(text)
    if isinstance(held, int) and not isinstance(held, bool):
        return held
    if re.fullmatch(r"[A-Za-z_][\w:]*", text) and text not in env:
        return w.index.constant(text)
    return None


def _int_call(w: Walk, name: str, args: str, env: dict) -> int | None:
    """``F(k)`` with F a function of integers made of ``if (p OP c) { return K; }`` and a last
    ``return K;`` (GetMaskIdx, aclnn_batch_norm_backward_reduce.cpp:66): the K it returns for k."""
    fn = w.index.function(name)
    values = [_int(w, a, env) for a in split_args(args)] if args.strip() else []
    if fn is None or None in values or len(values) != len(fn.params):
        return None
    bound = dict(zip(fn.params, values))
    for st in statements(fn.body, fn.body_offset):
        if st.kind == "if" and not st.orelse and len(st.then) == 1 and st.then[0].kind == "return":
            cm = re.fullmatch(r"(\w+)\s*(<=|>=|==|!=|<|>)\s*(\w+)", _strip(st.cond))
            if cm is None or cm.group(1) not in bound or (c := _int(w, cm.group(3), {})) is None:
                return None
            p = bound[cm.group(1)]
            if {"<": p < c, "<=": p <= c, ">": p > c, ">=": p >= c, "==": p == c, "!=": p != c}[cm.group(2)]:
                return _int(w, re.sub(r"^return\s+", "", st.then[0].text.strip().rstrip(";")), {})
            continue
        if st.kind == "return":
            return _int(w, re.sub(r"^return\s+", "", st.text.strip().rstrip(";")), {})
        return None
    return None


# a member read, or one in parentheses not a call's (``(list[1].param)->GetDataType()``), which the alias
# replaces whole
_MEMBER = re.compile(r"\(\s*([A-Za-z_]\w*)(?:\[(\w+)\])?(?:\.([A-Za-z_]\w*))?\s*\)|"
                     r"\b([A-Za-z_]\w*)(?:\[(\w+)\])?(?:\.([A-Za-z_]\w*))?")


def _alias(w: Walk, m: re.Match, env: dict) -> str | None:
    name, index, field = m.groups()[:3] if m.group(1) else m.groups()[3:]
    held = env.get(name)
    if not (isinstance(held, tuple) and held[:1] in ((AGGREGATE,), (ARRAY,))) or (index is None and field is None):
        return None
    if index is not None:
        if held[0] != ARRAY:
            return None
        k = _int(w, index, env)
        if k is None or not 0 <= k < len(held[1]):
            return None
        held, stem = held[1][k], f"{name}_{k}_"
    else:
        stem = name
    if field is not None:
        if not (isinstance(held, tuple) and held[:1] == (AGGREGATE,) and field in held[1]):
            return None
        held, stem = held[1][field], f"{stem}_{field}"
    alias = stem.ljust(len(m.group(0)), "_")
    if len(alias) != len(m.group(0)):
        return None
    env[alias] = held
    return alias


_CALLED = re.compile(r"(?:[\w>\])]|\b(?:if|while|for|switch|return|sizeof)\s*)$")


def _rewrite_text(w: Walk, text: str, env: dict) -> str:
    def one(m: re.Match) -> str:
        if m.group(1) and _CALLED.search(text[:m.start()]):   # a call's or a statement's parentheses stay
            return "(" + _rewrite_text(w, m.group(0)[1:-1], env) + ")"
        return _alias(w, m, env) or m.group(0)
    return _MEMBER.sub(one, text)


def rewrite(w: Walk, stmt: Stmt, env: dict) -> Stmt:
    """``stmt`` with each member read of an aggregate in ``env`` replaced by a local bound to it."""
    if not any(isinstance(v, tuple) and v[:1] in ((AGGREGATE,), (ARRAY,)) for v in env.values()):
        return stmt
    text = _rewrite_text(w, stmt.text, env)
    cond = _rewrite_text(w, stmt.cond, env) if stmt.cond else stmt.cond
    # the branches too: a reader of a whole else-if chain (int_choices) reads their conditions itself
    then = tuple(rewrite(w, s, env) for s in stmt.then)
    orelse = tuple(rewrite(w, s, env) for s in stmt.orelse)
    if (text, cond, then, orelse) == (stmt.text, stmt.cond, stmt.then, stmt.orelse):
        return stmt
    return replace(stmt, text=text, cond=cond, then=then, orelse=orelse)


def _negated(cond: str) -> str:
    """``a == b`` as ``a != b`` (and back), so a null test stays one the walk's null branch reads;
    ``!(cond)`` otherwise."""
    m = re.fullmatch(r"([\w.\->\[\]]+)\s*(==|!=)\s*([\w.\->\[\]]+)", cond)
    if m:
        return f"{m.group(1)} {'!=' if m.group(2) == '==' else '=='} {m.group(3)}"
    return f"!({cond})"


def _continue_guarded(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...] | None:
    """A loop body with ``if (C) { continue; }`` read as ``if (!(C)) { <the rest> }``; None when a
    ``continue`` or ``break`` stands elsewhere."""
    out: list[Stmt] = []
    for i, st in enumerate(stmts):
        if st.kind == "if" and not st.orelse and len(st.then) == 1 and \
                re.fullmatch(r"continue\s*;?", st.then[0].text.strip()):
            rest = _continue_guarded(stmts[i + 1:])
            if rest is None:
                return None
            negated = _negated(st.cond.strip())
            out.append(replace(st, text=f"if ({negated})", cond=negated, then=rest))
            return tuple(out)
        if re.search(r"\b(?:continue|break|goto)\b", st.text + st.cond) or \
                any(re.search(r"\b(?:continue|break|goto)\b", s.text) for s in st.then + st.orelse):
            return None
        out.append(st)
    return tuple(out)


_RANGE_FOR = re.compile(r"for\s*\(\s*(?:const\s+)?(?:auto|[\w:]+)\s*&?\s*(\w+)\s*:\s*(\w+)\s*\)\s*\{(.*)\}", re.S)


def _run_range_for(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``for (const auto& e : a) { body }`` over an aggregate array of at most ten elements (ops-nn
    norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:260-271 CheckOutputShapes):
    the body read once per element, ``e`` bound to it (``if (C) continue;`` as the rest under not C)."""
    m = _RANGE_FOR.fullmatch(stmt.text.strip())
    held = env.get(m.group(2)) if m else None
    if not (isinstance(held, tuple) and held[:1] == (ARRAY,)) or len(held[1]) > _MAX_UNROLL:
        return False
    name, body = m.group(1), m.group(3)
    if re.search(rf"\b{re.escape(name)}\s*(?:[-+*/]?=(?!=)|\+\+|--)", body):
        return False
    body_offset = stmt.offset + stmt.text.strip().index("{", m.start(3) - 1) + 1 + \
        (len(stmt.text) - len(stmt.text.lstrip()))
    inner = _continue_guarded(statements(body, body_offset))
    if inner is None:
        return False
    before = env.get(name, None)
    for element in held[1]:
        env[name] = element
        reenter.run_block(w, src, inner, env, fail, top)
    if before is None:
        env.pop(name, None)
    else:
        env[name] = before
    return True


def run_unrolled_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``for (size_t i = 0; i < n; i++) { body }`` with ``n`` a known count of at most ten and the body
    indexing an aggregate array by ``i`` (CheckDtypeValid, aclnn_batch_norm_backward_reduce.cpp:129):
    the body read once for each ``i``; a range-for over such an array the same (_run_range_for)."""
    if _run_range_for(w, src, stmt, env, fail, top):
        return True
    m = re.fullmatch(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*(\w+)\s*<\s*(\w+)\s*;"
                     r"\s*(?:\+\+\s*(\w+)|(\w+)\s*\+\+)\s*\)\s*\{(.*)\}", stmt.text.strip(), re.S)
    if not m or m.group(2) != m.group(1) or (m.group(4) or m.group(5)) != m.group(1):
        return False
    i, body = m.group(1), m.group(6)
    arrays = [n for n, v in env.items() if isinstance(v, tuple) and v[:1] == (ARRAY,)]
    if not any(re.search(rf"\b{re.escape(a)}\s*\[\s*{re.escape(i)}\s*\]", body) for a in arrays):
        return False
    count = _int(w, m.group(3), env)
    if count is None or count > _MAX_UNROLL or re.search(rf"\b{re.escape(i)}\s*(?:[-+*/]?=(?!=)|\+\+|--)", body):
        return False
    body_offset = stmt.offset + stmt.text.strip().index("{", m.start(6) - 1) + 1 + \
        (len(stmt.text) - len(stmt.text.lstrip()))
    rounds = [_continue_guarded(statements(re.sub(rf"\b{re.escape(i)}\b", str(k), body), body_offset))
              for k in range(count)]
    if None in rounds:
        return False
    for inner in rounds:
        reenter.run_block(w, src, inner, env, fail, top)
    return True
