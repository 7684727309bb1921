"""Expressions: the value the walk holds for a C++ expression (an API argument, a dtype, a
shape, an integer, a kernel result, a call of a checkout function whose body is one return), the
entry of every family's readers of an expression."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.shape_helpers import wraps_dim_by_rank
from aclnn_conformance.extract.cpp import match_close, split_args
from aclnn_conformance.extract.host_code.model import (DList, Opaque, SOC_ALIASES, T, Unreadable, Walk, _lin, _macro,
                                                       guard_held, _split_colon, _split_top, _strip)
from aclnn_conformance.extract.host_code.promotion import _binary_op_promote, _data_choice, _dexpr, _promote_expr
from aclnn_conformance.extract.host_code.integers import _arith, _array_length, _int_choice
from aclnn_conformance.extract.host_code.int_helpers import integer_helper_value
from aclnn_conformance.extract.host_code.casts import _tensor_dtype
from aclnn_conformance.extract.host_code.ranks import _array_element, _rank_choice, _wrapped_choice
from aclnn_conformance.extract.host_code.shapes import _shape_value, constructed_shape, shape_choice
from aclnn_conformance.extract.host_code.nulls import _CONTIGUOUS, _SAME_VIEW, _null_checked
from aclnn_conformance.extract.host_code.dtypes import _list_value
from aclnn_conformance.extract.host_code.products import _product_bool
import aclnn_conformance.extract.host_code.reenter as reenter


_CAST = re.compile(r"^(?:const_cast|static_cast|reinterpret_cast)\s*<[^<>]*(?:<[^<>]*>[^<>]*)?>\s*\(")


def _guarded_choice(w: Walk, held: Any, env: dict) -> str | None:
    """A local holding ``G ? a : b`` (read as text when declared) with G a guard the walk now holds, or
    whose negation it holds: the side taken (ops-nn norm/add_rms_norm_dynamic_quant/op_host/op_api/
    aclnn_add_rms_norm_dynamic_quant_v2.cpp:163-166, ``y1Type = processOut1 ? y1Out->GetDataType() : 0``
    read under ``processOut1``); None otherwise."""
    if not isinstance(held, Opaque):
        return None
    q = _split_top(_strip(held.text), "?")
    sides = _split_colon(q[1]) if len(q) == 2 else []
    g = reenter.guard(w, q[0], env) if len(sides) == 2 else None
    taken = None if g is None else _side_held(w, g)
    return None if taken is None else sides[0 if taken else 1]


def _side_held(w: Walk, g: tuple) -> bool | None:
    """True when the walk holds guard ``g`` (alone or as a term of a conjunction it holds), False when
    it holds its negation, else None."""
    return True if guard_held(w, g) else False if guard_held(w, ("not", g)) else None


def _dtype_choice_taken(w: Walk, e: Any) -> Any:
    """A dtype expression that is a choice on a guard the walk holds (``("if", g, a, b)``): the side
    taken, again while that is one (a choice deeper inside an expression is left as it is)."""
    while isinstance(e, tuple) and len(e) == 4 and e[0] == "if" and isinstance(e[1], tuple):
        taken = _side_held(w, e[1])
        if taken is None:
            break
        e = e[2] if taken else e[3]
    return e


def _value(w: Walk, expr: str, env: dict) -> Any:
    expr = _strip(expr)
    cm = _CAST.match(expr)
    if cm and match_close(expr, cm.end() - 1) == len(expr) - 1:
        return _value(w, expr[cm.end():-1], env)
    cm = re.match(r"^\((?:const\s+)?(?:op::)?acl\w+\s*\*\)\s*", expr)
    if cm:
        return _value(w, expr[cm.end():], env)
    cm = re.match(r"^\(\s*(?:u?int(?:64|32)_t|size_t)\s*\)\s*\(", expr)   # ``(int64_t)(x->GetDimNum())``
    if cm and match_close(expr, cm.end() - 1) == len(expr) - 1:
        return _value(w, expr[cm.end() - 1:], env)
    q = _split_top(expr, "?")
    if len(q) == 2:
        branches = _split_colon(q[1])
        if len(branches) == 2:
            decided = _product_bool(w, q[0], env)
            if decided is None and _rank_choice(w, q[0], branches, env) is not None:
                return _rank_choice(w, q[0], branches, env)
            if decided is None and _wrapped_choice(w, q[0], branches, env) is not None:
                return _wrapped_choice(w, q[0], branches, env)
            if decided is None and _int_choice(w, q[0], branches, env) is not None:
                return _int_choice(w, q[0], branches, env)
            if decided is None and shape_choice(w, q[0], branches, env) is not None:
                return shape_choice(w, q[0], branches, env)
            if decided is None:
                return _data_choice(w, q[0], branches, env)
            return _value(w, branches[0] if decided else branches[1], env)
    pm = re.fullmatch(r"(?:op::)?PromoteType\((.*)\)", expr, re.S)
    if pm and match_close(expr, expr.index("(")) == len(expr) - 1:
        two = split_args(pm.group(1))
        try:
            vals = [_value(w, x, env) for x in two] if len(two) == 2 else []
        except Unreadable:   # a dtype the compute path made (a cast, a scalar made a tensor)
            vals = []
        if len(vals) == 2 and all(isinstance(v, tuple) and v[0] == "dtype-of" for v in vals):
            return ("promote", vals[0][1], vals[1][1])
        return _promote_expr(w, two, env, expr)
    bm = re.fullmatch(r"(?:op::)?BinaryOpTypePromote\((.*)\)", expr, re.S)
    if bm and match_close(expr, expr.index("(")) == len(expr) - 1:
        return ("dexpr", _binary_op_promote(split_args(bm.group(1)), env, expr))
    if re.fullmatch(r"[A-Za-z_]\w*", expr) and expr in env:
        held = env[expr]
        if isinstance(held, tuple) and held[:1] == ("numel-if-nonnull",):
            if not _null_checked(w, held[1]):
                raise Unreadable(f"{expr!r}, 0 for a null {held[1]}, read before {held[1]}'s null check")
            return ("numel", held[1])
        chosen = _guarded_choice(w, held, env)
        if chosen is not None:
            return _value(w, chosen, env)
        if isinstance(held, tuple) and held[:1] == ("dexpr",) and w.guards:
            return ("dexpr", _dtype_choice_taken(w, held[1]))
        length = _array_length(w, expr, env) if isinstance(held, Opaque) else None
        if length is not None:   # ``size_t padLen = pad->Size();`` (ops-math
            return ("iexpr", length)   # conversion/pad_v3/op_api/aclnn_constant_pad_nd.cpp:86): the array's length
        return held
    extra = _list_value(w, expr, env)
    if extra is not None:
        return extra
    element = _array_element(w, expr, env)
    if element is not None:
        return element
    m = re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)", expr)
    if m:
        return ("dtype", m.group(1))
    size = _tuple_size(w, expr)
    if size is not None:
        return size
    if re.fullmatch(r"\d+[uUlL]*", expr):
        return int(re.sub(r"\D", "", expr))
    if re.fullmatch(r"[\w:]+", expr):
        lst = w.index.dlist(expr)
        if lst is not None:
            return lst
        const = w.index.constant(expr)
        if const is not None:
            return const
        am = re.fullmatch(r"(?:op::)?NpuArch::(DAV_\d+)", expr)
        if am:
            return ("arch", am.group(1))
        sm = re.fullmatch(r"(?:op::)?SocVersion::(\w+)", expr)
        if sm:
            return ("soc", SOC_ALIASES.get(sm.group(1), sm.group(1)))
        if expr in ("true", "false"):
            return expr == "true"
        raise Unreadable(f"the value of {expr!r}")
    if re.fullmatch(r"(?:op::)?GetCurrentPlatformInfo\(\)\s*\.\s*GetCurNpuArch\(\)", expr):
        return ("arch", w.arch)
    if re.fullmatch(r"(?:op::)?GetCurrentPlatformInfo\(\)\s*\.\s*GetSocVersion\(\)", expr):
        return ("soc", w.soc)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetDataType\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("dtype-of", env[m.group(1)].name)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][:1] == ("copy-of",):
        return ("dtype-of", env[m.group(1)][1])
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][:1] in (("tensor-dtype",), ("cast-of",)):
        return ("dexpr", _tensor_dtype(w, m.group(1), env))
    cm = _CONTIGUOUS.fullmatch(expr) or _SAME_VIEW.fullmatch(expr)
    if cm and isinstance(env.get(cm.group(1)), T):   # a contiguous copy (or a view of the same shape)
        return ("copy-of", env[cm.group(1)].name)     # keeps the argument's dtype and view shape
    got = _shape_value(w, expr, env) or constructed_shape(w, expr, env)
    if got is not None:
        return got
    b = _product_bool(w, expr, env)
    if b is not None:
        return b
    call = _macro(expr)
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        fn = w.index.function(call[0])
        if fn is not None and re.search(r"initializer_list|vector|DataType", fn.returns):
            result = reenter.call_fn(w, fn, call[1], env, fail=None)
            if isinstance(result, DList) or _dexpr(result) is not None or \
                    isinstance(result, tuple) and result[:1] == ("dlist-choice",):
                return result
            raise Unreadable(f"the list {call[0]}(...) returns on this product")
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        got = _dim_wrap_value(w, call, env)
        if got is not None:
            return got
        got = _one_return_value(w, call, env)
        if got is not None:
            return got
    got = integer_helper_value(w, expr, env)
    if got is not None:
        return got
    got = _arith(w, expr, env)
    if got is not None:
        return got
    raise Unreadable(f"the value of {expr!r}")


def _tuple_size(w: Walk, expr: str) -> int | None:
    """``std::tuple_size<decltype(p)>::value`` with p a parameter of the walked function declared by
    value as ``std::tuple<A, B, ...>``: the number of its element types, a compile-time constant;
    None for anything else (a local's ``auto`` type, a reference, which tuple_size does not take)."""
    m = re.fullmatch(r"std::tuple_size\s*<\s*decltype\(\s*(\w+)\s*\)\s*>\s*::\s*value", expr)
    ctype = w.param_types.get(m.group(1), "") if m else ""
    # element types without templates or parentheses of their own, so each top-level comma parts two
    t = re.fullmatch(r"(?:const\s+)?std::tuple\s*<([^<>()]*)>", ctype.strip())
    return len(t.group(1).split(",")) if t and t.group(1).strip() else None


def _dim_wrap_value(w: Walk, call: tuple[str, list[str]], env: dict) -> tuple | None:
    """``f(d, t->GetViewShape().GetDimNum())`` with f a dim wrap by max(rank, 1) (shape_helpers
    ``wraps_dim_by_rank``) and d the API's integer argument: ("wrapped-dim-max1", d, t)."""
    fn = w.index.function(call[0])
    if fn is None or len(call[1]) != 2 or wraps_dim_by_rank(fn) is None:
        return None
    d = env.get(_strip(call[1][0]))
    if not (isinstance(d, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    try:
        rank = _lin(_value(w, call[1][1], env))
    except Unreadable:
        return None
    return ("wrapped-dim-max1", d.name, rank[1]) if rank and rank[2:] in ((1, 0, 0), (1, 0, 1)) else None


def _one_return_value(w: Walk, call: tuple[str, list[str]], env: dict) -> Any:
    """The value of a call of a checkout function whose body is one ``return expr;`` (``GetTensorDim
    (self)``), its parameters bound to the call's arguments; None for any other callee."""
    fn = w.index.function(call[0])
    body = re.fullmatch(r"\s*return\s+([^;]+);\s*", fn.body) if fn is not None else None
    if body is None or len(fn.params) != len(call[1]):
        return None
    inner = {p: env[a.strip()] if a.strip() in env else _value(w, a, env) for p, a in zip(fn.params, call[1])}
    return _value(w, body.group(1), inner)


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.value = _value
