"""Product branches: if/else-if chains and switches on the product (``GetCurNpuArch()``,
``GetSocVersion()`` in opbase's enum order, ``IsRegBase``), decided per product; bool helpers whose
result the product decides; a helper's statements with its product branches taken."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, statements
from aclnn_conformance.extract.host_code.model import (IGNORED_CALLS, REGBASE_HELPERS, SOC_ORDER, Opaque, T, Unreadable,
                                                       Walk, _flatten, _is_int, _macro, _split_top, _strip)
from aclnn_conformance.extract.host_code.promotion import _dexpr
from aclnn_conformance.extract.host_code.nulls import _same_pointer
from aclnn_conformance.extract.host_code.dtypes import _map_end_compare, _run_dtype_switch, _switch_labels
import aclnn_conformance.extract.host_code.reenter as reenter


def _product_path(w: Walk, stmt: Stmt, env: dict) -> list[Stmt] | None:
    """The statements an if/else-if chain on the product runs on this product; None when a condition
    is not decided by the product."""
    decided = _product_bool(w, stmt.cond, env)
    if decided is None:
        return None
    side = stmt.then if decided else stmt.orelse
    if len(side) == 1 and side[0].kind == "if":
        return _product_path(w, side[0], env)
    return list(side)


def _product_flat(w: Walk, stmts: list[Stmt], env: dict) -> list[Stmt] | None:
    """The statements this product may run among ``stmts``: the taken side of a branch on the product,
    both sides of any other branch; None for a loop or switch."""
    out: list[Stmt] = []
    for st in stmts:
        if st.kind == "if":
            decided = _product_bool(w, st.cond, env)
            sides = [st.then, st.orelse] if decided is None else [st.then if decided else st.orelse]
            for side in sides:
                inner = _product_flat(w, list(side), env)
                if inner is None:
                    return None
                out += inner
        elif st.kind == "other":
            return None
        else:
            out.append(st)
    return out


def _product_side(w: Walk, stmts: tuple[Stmt, ...], env: dict) -> tuple[Stmt, ...]:
    """``stmts`` when they are one if decided by the product: the side taken (again, when it is one)."""
    while len(stmts) == 1 and stmts[0].kind == "if":
        decided = _product_bool(w, stmts[0].cond.strip(), env)
        if decided is None:
            break
        stmts = stmts[0].then if decided else stmts[0].orelse
    return stmts


def _without_true_product_terms(w: Walk, cond: str, env: dict) -> str:
    """``!IsRegbase() && (a->IsEmpty() || b->IsEmpty())`` on a product where the product term holds:
    the rest of the conjunction (on the others the whole condition was decided false before)."""
    parts = _split_top(_strip(cond), "&&")
    if len(parts) < 2:
        return cond
    kept = [p for p in parts if _product_bool(w, p, env) is not True]
    return " && ".join(kept) if kept and len(kept) < len(parts) else cond


def _constant_string(w: Walk, expr: str, env: dict) -> str | None:
    """The text of a string literal, or of a string constant of the file or its own headers that ``expr``
    names or a parameter is bound to (ops-math conversion/pad_v3_grad_replication/op_api/aclnn_pad3d_backward.cpp:26
    ``static const string REFLECTION_PAD_MODE = "reflect";``, passed at :286); None for anything else."""
    expr = _strip(expr)
    m = re.fullmatch(r'"([^"\\]*)"', expr)
    if m:
        return m.group(1)
    held = env.get(expr)
    name = held.text.strip() if isinstance(held, Opaque) else expr if held is None else None
    if name is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    for src in (w.index.own, *w.index.headers):
        found = re.findall(rf'(?m)^\s*(?:static\s+)?(?:constexpr\s+|const\s+)+(?:std::)?string(?:_view)?\s+{name}'
                           rf'\s*(?:=\s*"([^"\\]*)"|\(\s*"([^"\\]*)"\s*\)|\{{\s*"([^"\\]*)"\s*\}})\s*;', src.text)
        if len(found) == 1:
            return "".join(found[0])
    return None


def _product_bool(w: Walk, expr: str, env: dict) -> bool | None:
    """A condition on the product only, decided; None when it depends on the call's data."""
    expr = _strip(expr)
    if ".end()" in expr and re.fullmatch(r"\w+\s*[!=]=\s*[\w:]+\s*\.\s*end\(\)", expr):
        return _map_end_compare(expr, env)
    for op, combine in (("||", any), ("&&", all)):
        parts = _split_top(expr, op)
        if len(parts) > 1:
            vals = [_product_bool(w, p, env) for p in parts]
            if None in vals:
                if op == "&&" and False in vals:
                    return False
                if op == "||" and True in vals:
                    return True
                return None
            return combine(vals)
    if expr.startswith("!") and not expr.startswith("!="):
        inner = _product_bool(w, expr[1:], env)
        return None if inner is None else not inner
    if re.fullmatch(r"[A-Za-z_]\w*", expr) and isinstance(env.get(expr), bool):
        return env[expr]
    same = _same_pointer(w, expr, env)
    if same is not None:
        return same
    null = re.fullmatch(r"(\w+)\s*([!=]=)\s*nullptr|nullptr\s*([!=]=)\s*(\w+)", expr)
    held = env.get(null.group(1) or null.group(4)) if null else None
    if isinstance(held, Opaque) and held.text.strip() == "nullptr":
        # a parameter bound to a literal nullptr (ops-math conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp:682
        # ``aclnnClampTensorCommon(self, nullptr, max, ...)``, tested at :489): null on every call
        return (null.group(2) or null.group(3)) == "=="
    for op in ("==", "!="):
        words = [_constant_string(w, p, env) for p in _split_top(expr, op)]
        if len(words) == 2 and None not in words:   # ``mode == "reflect"`` with mode bound to a string constant
            return (words[0] == words[1]) == (op == "==")
    for op in ("==", "!=", ">=", "<=", ">", "<"):
        parts = _split_top(expr, op)
        if len(parts) == 2 and not (op in (">", "<") and "->" in expr and parts[0].endswith("-")):
            try:
                a, b = reenter.value(w, parts[0], env), reenter.value(w, parts[1], env)
            except Unreadable:
                return None
            if _is_int(a) and _is_int(b):   # constants (``mode == MODE_REAL_DIV`` with mode bound to one)
                return {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]
            if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and a[0] in ("arch", "soc"):
                if a[0] == "arch":
                    x, y = int(a[1][4:]), int(b[1][4:])
                else:
                    if a[1] not in SOC_ORDER or b[1] not in SOC_ORDER:
                        return None
                    x, y = SOC_ORDER.index(a[1]), SOC_ORDER.index(b[1])
                return {"==": x == y, "!=": x != y, ">=": x >= y, "<=": x <= y, ">": x > y, "<": x < y}[op]
            return _list_size_compare(parts, a, b, op)
    call = _macro(expr)
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        short = call[0].split("::")[-1]
        if short in REGBASE_HELPERS:
            if call[1] and call[1][0]:
                try:
                    a = reenter.value(w, call[1][0], env)
                except Unreadable:
                    return None
                return isinstance(a, tuple) and a == ("arch", "DAV_3510")
            return w.arch == "DAV_3510"
        fn = w.index.function(call[0])
        if fn is not None and fn.returns.split()[-1] == "bool" and not _touches_data(fn) \
                and not any(_is_call_data(env.get(_strip(a))) for a in call[1]):
            _, result = reenter.checks_nothing(w, lambda: reenter.call_fn(w, fn, call[1], env, fail=None))
            return result if isinstance(result, bool) else None
        if fn is not None and fn.returns.split()[-1] == "bool":
            return _product_return(w, fn, call[1], env)
    return None


def _product_return(w: Walk, fn: Function, args: list[str], env: dict) -> bool | None:
    """The bool ``fn(args)`` returns when each branch its body reaches is decided by the product and
    a return of a decided value ends it (``if (IsRegBase()) { return CheckType(d, L); } return
    false;`` off RegBase: false whatever ``d``); None when any statement on the way is anything else."""
    if w.depth > 12:
        return None
    literal = _one_literal_return(fn)
    if literal is not None:
        return literal
    try:
        local = reenter.bind(w, fn, args, env)
    except Unreadable:
        return None
    stmts = statements(fn.body, fn.body_offset)
    w.depth += 1
    try:
        while stmts:
            stmt, stmts = stmts[0], stmts[1:]
            if stmt.kind == "if":
                decided = _product_bool(w, stmt.cond.strip(), local)
                if decided is None:
                    return None
                stmts = (stmt.then if decided else stmt.orelse) + stmts   # a side not returning falls through
                continue
            if stmt.kind != "return":
                return None
            value = stmt.text.strip()[len("return"):].strip()
            return value == "true" if value in ("true", "false") else _product_bool(w, value, local)
        return None
    finally:
        w.depth -= 1


def _one_literal_return(fn: Function) -> bool | None:
    """The literal a bool function returns when every ``return`` of its body gives that one literal
    and its last statement is one of them (ops-math v9.0.0 aclnn_reduce_sum.cpp IsNonContiguousSupport:
    ``return false;`` after each test and at the end): the same whatever its tests; None otherwise."""
    body = statements(fn.body, fn.body_offset)
    every = _flatten(body)
    # a macro call (CHECK_RET(c, true)) or a loop may return without a return statement of its own
    if not body or body[-1].kind != "return" or any(
            s.kind not in ("if", "return", "decl", "block") and not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip()))
            for s in every):
        return None
    values = {s.text.strip()[len("return"):].strip() for s in every if s.kind == "return"}
    return {"true": True, "false": False}.get(values.pop()) if len(values) == 1 else None


def _is_call_data(value: Any) -> bool:
    """An API argument, a local holding a scalar argument's value or a dtype of the call: no product
    fact (a helper on it is a guard, not decided)."""
    if isinstance(value, T) or isinstance(value, tuple) and value[:1] == ("number",):
        return True
    d = _dexpr(value)
    return d is not None and d[0] != "dtype"


def _touches_data(fn: Function) -> bool:
    return bool(re.search(r"->\s*Get|IsEmpty|OP_CHECK|nullptr", fn.body))


def _bool_helper_condition(w: Walk, cond: str, env: dict) -> tuple[str, dict] | None:
    """``F(a, b)`` with F a bool helper whose whole body is ``return C;`` or ``if (C) { return true; }
    return false;``, each argument an API argument or a local holding a scalar's value: (C, F's
    parameters bound to them); None for anything else."""
    call = _macro(_strip(cond))
    if not call or match_close(_strip(cond), _strip(cond).index("(")) != len(_strip(cond)) - 1:
        return None
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or len(call[1]) != len(fn.params):
        return None
    body = statements(fn.body, fn.body_offset)
    inner = None
    if len(body) == 1 and body[0].kind == "return":
        inner = body[0].text.strip()[len("return"):].strip().rstrip(";")
    elif (len(body) == 2 and body[0].kind == "if" and not body[0].orelse and len(body[0].then) == 1
          and body[0].then[0].kind == "return" and body[0].then[0].text.strip().rstrip(";") == "return true"
          and body[1].kind == "return" and body[1].text.strip().rstrip(";") == "return false"):
        inner = body[0].cond.strip()
    if inner is None:
        return None
    bound = {}
    for p, a in zip(fn.params, call[1]):
        held = env.get(_strip(a))
        if not (isinstance(held, T) or isinstance(held, tuple) and held[:1] == ("number",)):
            return None
        bound[p] = held
    return inner, bound


def _product_chosen(w: Walk, body: list[Stmt], env: dict) -> list[Stmt]:
    """A helper's statements (after its locals) with its product branches taken: ``if (P) { return
    C1; }`` with P decided for this product replaced by its return (P true) or dropped (P false)."""
    local, out = env, []
    for stmt in body:
        if stmt.kind == "if" and not stmt.orelse and len(stmt.then) == 1 and stmt.then[0].kind == "return":
            decided = _product_bool(w, stmt.cond, local)
            if decided is True:
                return out + [stmt.then[0]]
            if decided is False:
                continue
        out.append(stmt)
    return out


def _list_size_compare(parts: list[str], a: Any, b: Any, op: str) -> bool | None:
    """``LIST.size() == 0`` with the list chosen for the product: decided."""
    sizes = [v[1] if isinstance(v, tuple) and v[:1] == ("list-size",) else v for v in (a, b)]
    if not any(isinstance(v, tuple) and v[:1] == ("list-size",) for v in (a, b)):
        return None
    x, y = sizes
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
        return None
    return {"==": x == y, "!=": x != y, ">=": x >= y, "<=": x <= y, ">": x > y, "<": x < y}[op]


def _run_switch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """A ``switch`` on the product (``GetCurNpuArch()``, ``GetSocVersion()``): the statements of the
    label this product takes, up to its ``break`` (falling through the labels after it). False when the
    switch is not on a product value (the caller decides)."""
    text = stmt.text
    m = re.match(r"switch\s*\(", text)
    if not m:
        return False
    close = match_close(text, m.end() - 1)
    try:
        value = reenter.value(w, text[m.end():close], env)
    except Unreadable:
        return False
    if _dexpr(value) is not None:
        return _run_dtype_switch(w, src, stmt, env, fail, top, text[m.end():close])
    if not (isinstance(value, tuple) and value and value[0] in ("arch", "soc")):
        return False
    found = _switch_labels(text)
    if found is None:
        return False
    body, labels, ob = found
    chosen = None
    for start, end, label in labels:
        if label is None:
            continue
        try:
            lv = reenter.value(w, label, env)
        except Unreadable:
            raise Unreadable(f"the case label {label!r}") from None
        if not (isinstance(lv, tuple) and lv[0] == value[0]):
            raise Unreadable(f"the case label {label!r}")
        if lv == value:
            chosen = end
            break
    if chosen is None:
        chosen = next((end for start, end, label in labels if label is None), None)
    if chosen is None:
        return True   # no label taken: nothing runs
    blanked = list(body)
    for start, end, _ in labels:
        for k in range(start, end):
            blanked[k] = " "
    rest = "".join(blanked)[chosen:]
    base = stmt.offset + ob + 1 + chosen
    run = []
    for s in statements(rest, base):
        if s.kind == "decl" and s.text.strip() == "break":
            break
        run.append(s)
    reenter.run_block(w, src, tuple(run), env, fail, top)
    return True
