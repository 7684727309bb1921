"""An integer helper of the checkout inlined: a call ``f(a, b)`` or ``f<int64_t>(a, b)`` of a function
returning an integer, whose body is integer locals, tests that return early or step a local
(``--q``), an if-else setting locals on both sides, logs, and one final return (ops-math conversion/im2col/op_api/aclnn_im2col.cpp:47-60,
``div_rtn``, a quotient rounded toward minus infinity). Its value is a ``spec.templates`` integer
expression over the call's arguments (``("iexpr", e)``); a local declared ``int`` holds its value
narrowed to 32 bits, as C converts it (``["i32", e]``). A tensor parameter is the caller's API
tensor; a loop multiplying a local by that tensor's dims (ops-nn
norm/group_norm/op_host/op_api/aclnn_group_norm.cpp:89-97, ``GetTensorNumel``) is the product of
those dims. A ``size_t`` local holds only a value that cannot be negative (an unsigned wrap is not
modelled). Anything else in the body leaves the call unread."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import Function, Stmt, match_close, split_args, statements
from aclnn_conformance.extract.host_code.integers import _array_length, _compare_split, _iexpr_of, _never_negative
from aclnn_conformance.extract.host_code.model import IGNORED_CALLS, T, Unreadable, Walk, _split_top, _strip, _tensor
from aclnn_conformance.extract.host_code.products import _product_bool, _without_true_product_terms
import aclnn_conformance.extract.host_code.reenter as reenter

_CALL = re.compile(r"([A-Za-z_]\w*)\s*(?:<\s*([\w:\s,]+?)\s*>)?\s*\(")
_WIDE = {"int64_t", "long", "long long", "auto"}      # held as the expression computes it (int64)
_NARROW = {"int", "int32_t"}                           # narrowed to 32 bits
_DECL = re.compile(r"(?:const\s+)?(long long|[A-Za-z_]\w*)\s+([A-Za-z_]\w*)\s*=\s*(.+)", re.S)
_STEP = re.compile(r"(?:(--|\+\+)\s*([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(--|\+\+))")
_UPDATE = re.compile(r"([A-Za-z_]\w*)\s*([-+*/]?)=\s*(.+)", re.S)
_UNSIGNED = {"size_t", "uint64_t"}                      # held where the value cannot be negative
_SMALL = {"int8_t": 8, "int16_t": 16}                   # held where the value fits (a constant, an argument of the type)
_TENSOR_PARAM = re.compile(r"(?:const\s+)?aclTensor\s*\*")
_DIM_PRODUCT_LOOP = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(?P<i>\w+)\s*=\s*(?P<a>[^;]+?)\s*;\s*(?P=i)\s*<\s*"
    r"(?P<b>[^;]+?)\s*;\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*\{?\s*(?P<acc>\w+)\s*\*=\s*(?P<t>\w+)\s*->\s*"
    r"GetViewShape\(\)\s*(?:\.\s*GetDim\s*\(\s*(?P=i)\s*\)|\[\s*(?P=i)\s*\])\s*;\s*\}?", re.S)


# ``(i < c ? lo : hi) *= s.GetDim(i)``: the dims before c multiply one local, the others another
# (ops-nn norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:361-373, CalculateMN)
_SPLIT_PRODUCT_LOOP = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(?P<i>\w+)\s*=\s*(?P<a>[^;]+?)\s*;\s*(?P=i)\s*<\s*"
    r"(?P<b>[^;]+?)\s*;\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*\{?\s*\(\s*(?P=i)\s*<\s*(?P<c>[^?;]+?)\s*\?\s*"
    r"(?P<lo>\w+)\s*:\s*(?P<hi>\w+)\s*\)\s*\*=\s*(?P<s>\w+)\s*(?:\.\s*GetDim\s*\(\s*(?P=i)\s*\)|\[\s*(?P=i)\s*\])"
    r"\s*;\s*\}?", re.S)
_PAIR = re.compile(r"(?:std::)?pair\s*<\s*([\w:]+)\s*,\s*([\w:]+)\s*>")
_ARRAY_PARAM = re.compile(r"(?:const\s+)?acl(?:Int|Bool|Float)Array\s*\*")


def pair_helper_value(w: Walk, expr: str, env: dict) -> tuple[tuple, tuple] | None:
    """The two integers a call of a checkout helper returning ``std::pair<int64_t, int64_t>`` (``return
    {M, N};``) holds, each ``("iexpr", e)``, as ``auto [M, N] = f(...)`` binds them; None when ``expr``
    is no call of such a helper; Unreadable when its body is one this module cannot hold."""
    m = _CALL.match(expr)
    if m is None or match_close(expr, m.end() - 1) != len(expr) - 1:
        return None
    fn = w.index.function(m.group(1))
    pair = _PAIR.search(fn.returns) if fn is not None else None
    if pair is None or not all(_type_of(t, {}) in _WIDE for t in pair.groups()):
        return None
    local = _bound_params(w, fn, {}, split_args(expr[m.end():-1]), env, expr)
    held = _run(w, fn, {}, statements(fn.body), local)
    if not (isinstance(held, tuple) and held[:1] == ("pair",)):
        raise Unreadable(f"{fn.name} ({fn.path}:{fn.line}) returns no pair of integers")
    return ("iexpr", held[1]), ("iexpr", held[2])


def integer_helper_value(w: Walk, expr: str, env: dict) -> tuple | None:
    """``("iexpr", e)`` for a call of an integer helper this module reads; None when ``expr`` is no
    call of a checkout function returning an integer; Unreadable when it is one whose body or
    arguments the reader cannot hold."""
    m = _CALL.match(expr)
    if m is None or match_close(expr, m.end() - 1) != len(expr) - 1:
        return None
    fn = w.index.function(m.group(1))
    if fn is None:
        return None
    bound = dict(zip(fn.type_params, [t.strip() for t in (m.group(2) or "").split(",") if t.strip()]))
    returned = _returned_type(fn, bound)
    if returned is None:
        return None
    local = _bound_params(w, fn, bound, split_args(expr[m.end():-1]), env, expr)
    return ("iexpr", _held(w, returned, _run(w, fn, bound, statements(fn.body), local), expr))


def _bound_params(w: Walk, fn: Function, bound: dict, args: list[str], env: dict, expr: str) -> dict[str, Any]:
    """The helper's parameters bound to the call's arguments: a tensor or an integer array the
    caller's API argument, an integer its value."""
    if len(args) != len(fn.params):
        raise Unreadable(f"the call {expr!r} (arguments and parameters differ in number)")
    local: dict[str, Any] = {}
    for name, ctype, arg in zip(fn.params, fn.param_types, args):
        if _TENSOR_PARAM.fullmatch(ctype.strip()):
            local[name] = T(_tensor(env, arg))
        elif _ARRAY_PARAM.fullmatch(ctype.strip()) and isinstance(env.get(_strip(arg)), T):
            local[name] = env[_strip(arg)]
        else:
            local[name] = _held(w, _type_of(ctype, bound), _expr(w, arg, env), expr)
    return local


def _returned_type(fn: Function, bound: dict[str, str]) -> str | None:
    """The integer type ``fn`` returns (a template parameter resolved by ``bound``); None for another."""
    text = fn.returns.split("->")[-1] if "->" in fn.returns else fn.returns
    words = re.sub(r"\b(?:static|inline|constexpr)\b|template\s*<[^<>]*>", " ", text).split()
    ctype = _type_of(words[-1], bound) if words else ""
    return ctype if ctype in _WIDE - {"auto"} or ctype in _NARROW or ctype in _SMALL else None


def _type_of(ctype: str, bound: dict[str, str]) -> str:
    ctype = re.sub(r"\bconst\b|&", "", ctype).strip()
    return bound.get(ctype, ctype).removeprefix("std::")


def _held(w: Walk, ctype: str, e: Any, where: str) -> Any:
    """``e`` as a local of type ``ctype`` holds it."""
    if ctype in _WIDE:
        return e
    if ctype in _NARROW:
        return ("i32", e)
    if ctype in _UNSIGNED and _never_negative(w, e):
        return e
    if ctype in _SMALL and _fits(w, e, ctype):
        return e
    raise Unreadable(f"a local of type {ctype!r} in {where!r}")


def _fits(w: Walk, e: Any, ctype: str) -> bool:
    """``e`` is a value a ``ctype`` holds unchanged: a constant in its range, an API argument declared
    of that type, or a choice between such values (``cube_util.cpp:73-81``: 0, or the int8_t argument)."""
    bits = _SMALL[ctype]
    if isinstance(e, int) and not isinstance(e, bool):
        return -2 ** (bits - 1) <= e < 2 ** (bits - 1)
    if isinstance(e, tuple) and e[:1] == ("attr",):
        return re.search(rf"\b{ctype}\b", w.ptypes.get(e[1], "")) is not None
    return isinstance(e, tuple) and e[:1] == ("?",) and _fits(w, e[2], ctype) and _fits(w, e[3], ctype)


def _expr(w: Walk, text: str, env: dict) -> Any:
    """The integer expression of ``text`` in ``env`` (the caller's, or the helper's locals made
    values by ``_env``)."""
    length = _array_length(w, text, env)   # ``normalizedShape->Size()`` of an array argument
    held = length if length is not None else _iexpr_of(w, reenter.value(w, text, env))
    if held is None:
        raise Unreadable(f"the integer {text!r}")
    return held


def _env(local: dict) -> dict:
    return {name: e if isinstance(e, T) or _is_shape(e) else ("iexpr", e) for name, e in local.items()}


def _is_shape(e: Any) -> bool:
    """A local holding a tensor's view shape (``auto s = x->GetViewShape();``)."""
    return isinstance(e, tuple) and e[:1] in (("shape-of",), ("shape-expr",))


def _if_test(w: Walk, cond: str, local: dict) -> tuple:
    """The test of a branch of the helper: over its integers, else a guard on the call's tensors
    (``x->GetStorageFormat() == Format::FORMAT_NHWC``) as ``("guard", g)``."""
    try:
        return _test(w, cond, local)
    except Unreadable:
        g = reenter.guard(w, cond, _env(local))
        if g is None:
            raise
        return ("guard", g)


def _run(w: Walk, fn: Function, bound: dict, body: tuple[Stmt, ...], local: dict) -> Any:
    """The value ``body`` returns, its locals in ``local`` (changed in place as it steps)."""
    for i, stmt in enumerate(body):
        if stmt.kind == "call" and IGNORED_CALLS.match(stmt.text):
            continue
        if stmt.kind == "return":
            braced = re.fullmatch(r"return\s*\{(.*)\}\s*;?", stmt.text.strip(), re.S)
            if braced and len(split_args(braced.group(1))) == 2:   # ``return {M, N};`` of a pair
                return ("pair", *(_expr(w, x, _env(local)) for x in split_args(braced.group(1))))
            return _expr(w, stmt.text.removeprefix("return"), _env(local))
        if stmt.kind == "decl":
            _assign(w, fn, bound, stmt.text, local)
            continue
        split = _SPLIT_PRODUCT_LOOP.fullmatch(stmt.text.strip())
        shape = local.get(split.group("s")) if split else None
        if split and {split.group("lo"), split.group("hi")} <= set(local) and _is_shape(shape) and shape[0] == "shape-of":
            a, b, c = (_expr(w, split.group(k), _env(local)) for k in "abc")
            cut = ("max", ("min", c, b), a)   # the dims a..cut-1 go to lo, cut..b-1 to hi
            for acc, start, count in ((split.group("lo"), a, ("max", ("-", cut, a), 0)),
                                      (split.group("hi"), cut, ("max", ("-", b, cut), 0))):
                dims = ("prod", ("slice", ("of", shape[1]), start, count))
                local[acc] = dims if local[acc] == 1 else ("*", local[acc], dims)
            continue
        loop = _DIM_PRODUCT_LOOP.fullmatch(stmt.text.strip())
        if loop and loop.group("acc") in local and isinstance(local.get(loop.group("t")), T):
            start, end = _expr(w, loop.group("a"), _env(local)), _expr(w, loop.group("b"), _env(local))
            dims = ("slice", ("of", local[loop.group("t")].name), start, ("max", ("-", end, start), 0))
            before = local[loop.group("acc")]
            local[loop.group("acc")] = ("prod", dims) if before == 1 else ("*", before, ("prod", dims))
            continue
        if stmt.kind == "if" and stmt.orelse and all(s.kind == "decl" for s in stmt.then + stmt.orelse):
            # ``if (t) { x = a; } else { x = b; }``: each local the two sides set, chosen by the test
            test, sides = _if_test(w, stmt.cond, local), (dict(local), dict(local))
            for side, stmts in zip(sides, (stmt.then, stmt.orelse)):
                for s in stmts:
                    _assign(w, fn, bound, s.text, side)
            if set(sides[0]) != set(local) or set(sides[1]) != set(local):
                raise Unreadable(f"a local declared in a branch of {fn.name} ({fn.path}:{fn.line})")
            for name in local:
                if sides[0][name] != local[name] or sides[1][name] != local[name]:
                    local[name] = ("?", test, sides[0][name], sides[1][name])
            continue
        if stmt.kind == "if" and not stmt.orelse:
            decided = _product_bool(w, stmt.cond, _env(local))   # a test of the product (IsRegbase())
            if decided is False:
                continue
            if decided is True:
                return _run(w, fn, bound, stmt.then + body[i + 1:], local)
            # a product term holding here drops out (cube_util.cpp:75, ``arch == DAV_2201 && m == 4``)
            test = _if_test(w, _without_true_product_terms(w, stmt.cond, _env(local)), local)
            then = tuple(s for s in stmt.then if not (s.kind == "call" and IGNORED_CALLS.match(s.text)))
            if then and then[-1].kind == "return" and all(s.kind == "decl" for s in then[:-1]):
                early = _run(w, fn, bound, then, dict(local))
                return ("?", test, early, _run(w, fn, bound, body[i + 1:], local))
            if all(s.kind == "decl" for s in then):
                inner = dict(local)
                for s in then:
                    _assign(w, fn, bound, s.text, inner)
                for name in local:
                    if inner[name] != local[name]:
                        local[name] = ("?", test, inner[name], local[name])
                continue
            # any other branch: the value the helper returns taking it (then what follows) or not
            return ("?", test, _run(w, fn, bound, stmt.then + body[i + 1:], dict(local)),
                    _run(w, fn, bound, body[i + 1:], local))
        raise Unreadable(f"the statement {stmt.text!r} of {fn.name} ({fn.path}:{fn.line})")
    raise Unreadable(f"{fn.name} ({fn.path}:{fn.line}) ends without a return")


def _assign(w: Walk, fn: Function, bound: dict, text: str, local: dict) -> None:
    """A declaration with its value, a step (``--q``, ``q++``) or an assignment (``q -= 1``)."""
    text = text.strip()
    step = _STEP.fullmatch(text)
    if step and (step.group(2) or step.group(3)) in local:
        name = step.group(2) or step.group(3)
        local[name] = ("-" if "--" in text else "+", local[name], 1)
        return
    several = re.fullmatch(r"(?:const\s+)?(long long|[A-Za-z_]\w*)\s+(\w+\s*=.+)", text, re.S)
    parts = split_args(several.group(2).rstrip(";")) if several else []
    if len(parts) > 1 and all(re.fullmatch(r"\w+\s*=\s*[^=].*", p.strip(), re.S) for p in parts):
        for p in parts:   # ``int64_t M = 1, N = 1;``: each declarator
            _assign(w, fn, bound, f"{several.group(1)} {p.strip()}", local)
        return
    decl = _DECL.fullmatch(text)
    shape = reenter.view_shape_held(decl.group(3).rstrip(";"), _env(local)) if decl and decl.group(1) == "auto" else None
    if _is_shape(shape):
        local[decl.group(2)] = shape
        return
    if decl:
        local[decl.group(2)] = _held(w, _type_of(decl.group(1), bound), _expr(w, decl.group(3), _env(local)), text)
        return
    update = _UPDATE.fullmatch(text)
    if update and update.group(1) in local and not update.group(3).startswith("="):
        value = _expr(w, update.group(3), _env(local))
        op = update.group(2)
        local[update.group(1)] = (op, local[update.group(1)], value) if op else value
        return
    raise Unreadable(f"the statement {text!r} of {fn.name} ({fn.path}:{fn.line})")


def _test(w: Walk, cond: str, local: dict) -> tuple:
    """A condition over the helper's integers: comparisons joined by ``&&``, ``||`` and ``!``, and
    two comparisons compared (``(r < 0) != (y < 0)``: whether they differ)."""
    cond = _strip(cond)
    for op, head in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            return (head, *(_test(w, p, local) for p in parts))
    if cond.startswith("!") and not cond.startswith("!="):
        return ("not", _test(w, cond[1:], local))
    cmp = _compare_split(cond)
    if cmp is None:
        raise Unreadable(f"the condition {cond!r}")
    left, op, right = cmp
    if op in ("==", "!=") and _compare_split(_strip(left)) and _compare_split(_strip(right)):
        a, b = _test(w, left, local), _test(w, right, local)
        same = ("or", ("and", a, b), ("and", ("not", a), ("not", b)))
        return same if op == "==" else ("not", same)
    return (op, _expr(w, left, _env(local)), _expr(w, right, _env(local)))
