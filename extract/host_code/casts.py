"""Kernel results' dtypes and the casts on them: the dtype a kernel function allocates or returns
(one tensor, a tuple, a view of a parameter, a local chosen on a flag), the dtype of a tensor of the
compute path, ``l0op::Cast`` that cannot fail, ``OP_CHECK_RESULT_DTYPE_CAST_FAILED`` and ``CanCast``."""
from __future__ import annotations

import re
from dataclasses import replace

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, split_args
from aclnn_conformance.extract.host_code.model import (T, Unreadable, Walk, _args, _check, _fail_status, _flatten,
                                                       _macro, _split_colon, _split_top, _strip)
from aclnn_conformance.extract.host_code.promotion import _UNDEF, _dexpr_of, _dtype_values
import aclnn_conformance.extract.host_code.reenter as reenter


# ops-math math/cast/op_api/cast.cpp:276-279: l0op::Cast falls back to AICPU for any pair of these
# (:387-392), so a cast between two of them is never null; outside them it depends on the arch's
# AICORE pairs (:283-323), which the reader does not model
CAST_ALWAYS = frozenset({"BOOL", "FLOAT", "FLOAT16", "INT8", "INT16", "UINT16", "UINT8", "INT32", "INT64",
                         "UINT32", "UINT64", "DOUBLE", "COMPLEX64", "COMPLEX128", "BF16"})


def _argument_dtype(w: Walk, fn: Function, args: list[str], env: dict, result: tuple) -> tuple | None:
    """The dtype expression ``result`` (as _allocated_dtype gives it) takes for this call's arguments."""
    if result[0] == "dtype":
        return result
    param = fn.params.index(result[1])
    if param >= len(args):   # a defaulted parameter decides it: not read
        return None
    if result[0] == "of":
        return _tensor_dtype(w, args[param], env)
    try:   # a DataType argument
        return _dexpr_of(w, args[param], env)
    except Unreadable:
        return None


def _tuple_dtypes(fn: Function, src: SourceFile | None) -> list[tuple] | None:
    """The dtype of each element of the tuple a kernel function returns (every non-null return: a
    ``std::tuple<...>(a, b)`` of locals set once by ``AllocTensor`` or of tensor parameters, directly
    or through a function of the file returning its parameters so), when every return agrees."""
    found = set()
    for expr in re.findall(r"\breturn\s+([^;]+);", fn.body):
        expr = expr.strip()
        if expr == "{}" or re.match(r"nullptr\b", expr):
            continue
        call = _macro(expr) if src is not None else None
        names = _tuple_names(expr)
        if names is None and call and match_close(expr, expr.index("(")) == len(expr) - 1:
            callee = src.functions.get(call[0])
            if callee is None or len(callee.params) != len(call[1]):
                return None
            backs = {tuple(n) for e in re.findall(r"\breturn\s+([^;]+);", callee.body)
                     if (n := _tuple_names(e.strip()))}
            if len(backs) != 1 or any(p not in callee.params for p in next(iter(backs))):
                return None
            names = [call[1][callee.params.index(p)].strip() for p in backs.pop()]
        if not names:
            return None
        dtypes = []
        for n in names:
            if n in fn.params and "aclTensor" in fn.param_types[fn.params.index(n)]:
                dtypes.append(("of", n))
            else:
                dtypes.append(_alloc_local_dtype(fn, n))
        if None in dtypes:
            return None
        found.add(tuple(dtypes))
    return list(found.pop()) if len(found) == 1 else None


def _tuple_names(expr: str) -> list[str] | None:
    """``std::tuple<...>(a, b)``: [a, b] (names only, not nullptr); None otherwise."""
    m = re.fullmatch(r"std::tuple<[^()]*>\((.*)\)", expr, re.S)
    names = [a.strip() for a in split_args(m.group(1))] if m else []
    return names if names and all(re.fullmatch(r"\w+", n) and n != "nullptr" for n in names) else None


def _allocated_dtype(fn: Function, src: SourceFile | None = None) -> tuple | None:
    """The dtype of what a kernel function returns (every return but ``nullptr``), when every return
    gives the same: a local set once by ``AllocTensor`` (("of", parameter) for ``p->GetDataType()``,
    ("dtype-param", parameter) for a DataType parameter, ("dtype", NAME) for a constant), a tensor
    parameter itself (("of", it): ``return self;`` for a rank-0 input), or a call of a function of the
    same file that returns one of its parameters, given one of those (``return ReduceMeanAiCore(self,
    dim, keepDim, true, meanOut, executor);``). None for anything else."""
    names = _returned_names(fn, src)
    if names is None:
        return None
    found = set()
    for expr in sorted(names):
        if expr in fn.params:
            if "aclTensor" not in fn.param_types[fn.params.index(expr)]:
                return None
            found.add(("of", expr))
            continue
        alloc = _alloc_local_dtype(fn, expr)
        if alloc is None:
            return None
        found.add(alloc)
    return found.pop() if len(found) == 1 else None


def _returned_names(fn: Function, src: SourceFile | None) -> set[str] | None:
    """The names every non-null return of kernel function ``fn`` gives, directly or through a function
    of the same file returning one of its parameters; None when a return gives anything else."""
    names = set()
    for expr in re.findall(r"\breturn\s+([^;]+);", fn.body):
        expr = expr.strip()
        if re.match(r"nullptr\b", expr):   # also a macro's ``return nullptr, "message")``
            continue
        call = _macro(expr) if src is not None else None
        if call and match_close(expr, expr.index("(")) == len(expr) - 1:
            callee = src.functions.get(call[0])
            back = _returned_param(callee) if callee is not None and len(callee.params) == len(call[1]) else None
            if back is None:
                return None
            expr = call[1][callee.params.index(back)].strip()
        if not re.fullmatch(r"[A-Za-z_]\w*", expr):
            return None
        names.add(expr)
    return names


def _chosen_alloc_dtype(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """The dtype of the one local every return of kernel ``fn`` gives, set once as ``flag ?
    executor->AllocTensor(.., A) : executor->AllocTensor(.., B)`` with ``bool flag`` set once to a
    condition on its tensor parameters' dtypes (ops-math math/mul/op_api/mul.cpp:141-146): ("if", that
    condition on this call's arguments, A, B) as dtype expressions; None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    sets = re.findall(r"\b" + local + r"\s*=(?!=)\s*(.+?);", fn.body, re.S) \
        if local is not None and local not in fn.params else []
    q = _split_top(sets[0].strip(), "?") if len(sets) == 1 else []
    sides = _split_colon(q[1]) if len(q) == 2 else []
    flag = _strip(q[0]) if len(sides) == 2 else ""
    conds = re.findall(r"\bbool\s+" + flag + r"\s*=(?!=)\s*(.+?);", fn.body, re.S) \
        if re.fullmatch(r"[A-Za-z_]\w*", flag) else []
    if len(conds) != 1 or len(re.findall(r"\b" + flag + r"\s*=(?!=)", fn.body)) != 1:
        return None
    kenv = {p: env[_strip(a)] for p, t, a in zip(fn.params, fn.param_types, args)
            if "aclTensor" in t and _tensor_dtype(w, a, env) is not None}
    guard = reenter.guard(w, conds[0], kenv)
    dtypes = [_alloc_local_dtype(replace(fn, body=f"{local} = {side.strip()};"), local) for side in sides]
    if guard is None or None in dtypes:
        return None
    chosen = [_argument_dtype(w, fn, args, env, d) for d in dtypes]
    return None if None in chosen else ("if", guard, chosen[0], chosen[1])


def _returned_param(fn: Function) -> str | None:
    """The parameter every non-null return of ``fn`` gives back (``return meanOut;``), if one."""
    # the word after each return (a macro's ``return nullptr, "..."`` too)
    one = set(re.findall(r"\breturn\s+(\w+)\b", fn.body)) - {"nullptr"}
    if re.search(r"\breturn\s+(?!\w+\s*[;,)])", fn.body):
        return None   # a return of some other expression
    return one.pop() if len(one) == 1 and next(iter(one)) in fn.params else None


def _alloc_local_dtype(fn: Function, local: str) -> tuple | None:
    """The dtype of ``local``, set once in ``fn`` by ``executor->AllocTensor(...)``, or as a view of a
    tensor parameter (``executor->CreateView(x, ...)``, ``const_cast<aclTensor*>(x)``: x's dtype)."""
    sets = re.findall(r"\b" + local + r"\s*=(?!=)\s*(.+?);", fn.body, re.S)
    if len(sets) > 1:   # set again (a new shape): the one dtype every allocation gives, if one
        each = {_alloc_local_dtype(replace(fn, body=f"{local} = {x};"), local) for x in sets}
        return each.pop() if len(each) == 1 and None not in each else None
    if len(sets) != 1:
        return None
    q = _split_top(sets[0].strip(), "?")
    views = {_view_of_param(fn, c) for c in (_split_colon(q[1]) if len(q) == 2 else [sets[0]])}
    if len(views) == 1 and None not in views:
        return ("of", views.pop())
    m = re.fullmatch(r"executor\s*->\s*AllocTensor\((.*)\)", sets[0].strip(), re.S)
    if not m:
        return None
    found = []
    for arg in split_args(m.group(1)):
        arg = arg.strip()
        g = re.fullmatch(r"(\w+)\s*->\s*GetDataType\(\)", arg)
        c = re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)", arg)
        if g and g.group(1) in fn.params:
            found.append(("of", g.group(1)))
        elif c:
            found.append(("dtype", c.group(1)))
        elif arg in fn.params and "DataType" in fn.param_types[fn.params.index(arg)]:
            found.append(("dtype-param", arg))
    return found[0] if len(found) == 1 else None


def _view_of_param(fn: Function, expr: str) -> str | None:
    """The tensor parameter ``expr`` views (same dtype): ``executor->CreateView(x, ...)``,
    ``const_cast<aclTensor*>(x)`` or ``x``; None otherwise."""
    expr = expr.strip()
    m = re.fullmatch(r"executor\s*->\s*CreateView\(\s*(\w+)\s*,.*\)", expr, re.S) or \
        re.fullmatch(r"const_cast<\s*(?:const\s+)?aclTensor\s*\*\s*>\(\s*(\w+)\s*\)", expr) or \
        re.fullmatch(r"(\w+)", expr)
    name = m.group(1) if m else None
    return name if name in fn.params and "aclTensor" in fn.param_types[fn.params.index(name)] else None


def _tensor_dtype(w: Walk, expr: str, env: dict) -> tuple | None:
    """The dtype expression of a tensor the compute path holds: an API tensor, a contiguous copy, a
    kernel's result or a cast; None when not known."""
    held = env.get(_strip(expr))
    if isinstance(held, T):
        return ("of", held.name)
    if isinstance(held, tuple) and held[:1] == ("copy-of",):
        return ("of", held[1])
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",):
        return held[1]
    if isinstance(held, tuple) and held[:1] == ("cast-of",):
        return held[2]
    if isinstance(held, tuple) and held[:1] in (("converted",), ("scalar-tensor",)):
        return held[2]
    return None


def _cast_cannot_fail(w: Walk, held: tuple) -> bool:
    """``l0op::Cast`` of ``held`` (("cast-of", source, destination)) returns a tensor on every call
    reaching it: both dtypes bounded inside CAST_ALWAYS."""
    src, dst = _dtype_values(w, held[1]), _dtype_values(w, held[2])
    return src is not None and dst is not None and src <= CAST_ALWAYS and dst <= CAST_ALWAYS


_TO_KIND = {"Float": "float", "Double": "double", "Int32": "int32", "Int64": "int64"}


def _m_cast(w, src, stmt, env, fail, args):
    try:
        a, b = reenter.value(w, args[0], env), reenter.value(w, args[1], env)
    except Unreadable:
        return _m_cast_expr(w, src, stmt, env, fail, args)
    if isinstance(a, tuple) and a[0] == "promote" and isinstance(b, tuple) and b[0] == "dtype-of":
        _check(w, src, stmt.offset, "castable", _args(from_promoted=[a[1], a[2]], to=b[1]),
               _fail_status(args[2], fail), stmt.text)
        return
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "dtype-of"):
        return _m_cast_expr(w, src, stmt, env, fail, args)
    _check(w, src, stmt.offset, "castable", _args(param=a[1], to=b[1]), _fail_status(args[2], fail), stmt.text)


def _cast_args(a: tuple, b: tuple) -> tuple:
    if b[0] == "of":
        return _args(from_expr=a, to=b[1])
    if b[0] == "dtype":
        return _args(from_expr=a, to_dtype=b[1])
    return _args(from_expr=a, to_expr=b)


def _m_cast_expr(w, src, stmt, env, fail, args):
    """OP_CHECK_RESULT_DTYPE_CAST_FAILED of computed dtypes (or a constant): castable with from_expr."""
    try:
        a, b = _dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env)
    except Unreadable:
        raise Unreadable("a cast check of computed dtypes") from None
    if a == _UNDEF or b == _UNDEF:
        raise Unreadable("a cast check of computed dtypes")
    _check(w, src, stmt.offset, "castable", _cast_args(a, b), _fail_status(args[2], fail), stmt.text)


def _recast_only(stmt: Stmt, name: str) -> bool:
    """Every assignment of ``name`` in the branch ``stmt`` casts it in place (``r = l0op::Cast(r, D,
    executor)``)."""
    sets = [s.text.strip() for s in _flatten(stmt.then + stmt.orelse) if s.kind == "decl"
            and re.match(rf"{re.escape(name)}\s*=(?!=)", s.text.strip())]
    return bool(sets) and all(re.fullmatch(rf"{re.escape(name)}\s*=\s*l0op::Cast\(\s*{re.escape(name)}\s*,[^;]*\)\s*;?",
                                           t, re.S) for t in sets)


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.tensor_dtype = _tensor_dtype
