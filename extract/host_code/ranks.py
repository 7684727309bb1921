"""Ranks and dims: rank guards and rank comparisons (``GetDimNum()``), locals chosen by the rank,
conjunctions of dim comparisons, int arrays of every dim, returns at rank 0 or with no dims, a
negative dim wrapped by the rank, dim sizes read where the rank holds them, ``OP_CHECK_*_DIM``."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, match_close, split_args
from aclnn_conformance.extract.host_code.model import array_param
from aclnn_conformance.extract.host_code.model import (Opaque, T, Unreadable, Walk, _args, _check, _enclosing_body,
                                                       _fail_status, _flatten, _is_int, _lin, _macro, _split_colon,
                                                       _split_top, _strip, _tensor)
from aclnn_conformance.extract.host_code.statements import _returns_success_only
from aclnn_conformance.extract.host_code.integers import (_COMPARE_INT, _FLIP, _compare_split, _comparison, _iexpr_atom,
                                                          _iexpr_of, _int_constant, _wrapped_iexpr)
from aclnn_conformance.extract.host_code.guard_rules import length_kept_above, passed_length_checks
import aclnn_conformance.extract.host_code.reenter as reenter


def _expr_rank_tensor(expr: tuple) -> str | None:
    """The tensor whose rank a shape expression has, when it is one tensor's shape with dims set."""
    while expr[0] == "set-dim":
        expr = expr[1]
    return expr[1] if expr[0] == "of" else None


def _expr_min_rank(w: Walk, expr: tuple) -> int:
    """The least rank the shape expression has on every call reaching this point (its tensors' ranks
    refused below a bound by earlier checks; a broadcast has the larger rank of its two, a choice the
    smaller)."""
    if expr[0] == "of":
        return _min_rank_checked(w, expr[1])
    if expr[0] == "set-dim":
        return _expr_min_rank(w, expr[1])
    if expr[0] == "dims":
        return len(expr[1])
    if expr[0] == "slice":   # its length where that is a constant (a slice exists only in its shape)
        return max(expr[3], 0) if _is_int(expr[3]) else 0
    if expr[0] == "?":   # either side
        return min(_expr_min_rank(w, expr[2]), _expr_min_rank(w, expr[3]))
    if expr[0] == "tile":   # at least the shape's rank (the array's length where it has a tile)
        return _expr_min_rank(w, expr[1])
    if expr[0] == "concat":   # the dims of both
        return _expr_min_rank(w, expr[1]) + _expr_min_rank(w, expr[2])
    return max(_expr_min_rank(w, expr[1]), _expr_min_rank(w, expr[2]))   # a broadcast


def _set_dim_index(w: Walk, text: str, name: str, expr: tuple, env: dict) -> int | None:
    """The dim ``s.SetDim`` names, as ``shape_value`` counts it (negative: from the end): a constant,
    ``s.GetDimNum() - k``, or ``rank - k`` with rank that of the tensor whose rank s has."""
    m = re.fullmatch(rf"(?:static_cast<\s*size_t\s*>\s*)?\(?\s*{re.escape(name)}\s*\.\s*GetDimNum\(\)\s*-\s*(\d+)\s*\)?",
                     _strip(text))
    if m:
        return -int(m.group(1)) if int(m.group(1)) > 0 else None
    constant = _int_constant(w, text)
    if constant is not None:
        return constant if constant >= 0 else None
    try:
        index = reenter.value(w, text, env)
    except Unreadable:
        return None
    li = _lin(index)
    if li and li[1] == _expr_rank_tensor(expr) and li[2] == 1 and li[3] < 0:
        return li[3]
    return None


def _rank_guard(w: Walk, cond: str, env: dict) -> tuple | None:
    """``t->GetViewShape().GetDimNum() <op> n``: the guard ``("rank", t, op, n)``; None otherwise."""
    cmp = _compare_split(_strip(cond))
    if cmp is None:
        return None
    try:
        r, n = reenter.value(w, cmp[0], env), reenter.value(w, cmp[2], env)
    except Unreadable:
        return None
    lr = _lin(r)
    if not lr or lr[2:] != (1, 0, 0) or not _is_int(n):
        return None
    return ("rank", lr[1], cmp[1], int(n))


def _select_local(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``rank <op> n ? a : b`` with a and b integers or dim sizes (Prelu's channel count):
    ``("select", guard, a, b)``; None for anything else."""
    q = _split_top(_strip(rhs), "?")
    branches = _split_colon(q[1]) if len(q) == 2 else []
    if len(branches) != 2:
        return None
    three = (q[0], *branches)
    guard = _rank_guard(w, three[0], env)
    if guard is None:   # a choice on the call's values (a bool local holding a string prefix test)
        test = reenter.value_test(w, three[0], env)
        guard = None if test is None else ("value", test)
    if guard is None:
        return None
    try:
        a, b = reenter.value(w, three[1], env), reenter.value(w, three[2], env)
    except Unreadable:
        return None
    sized = lambda v: _is_int(v) or isinstance(v, tuple) and v[:1] in (("dim",), ("numel",))   # noqa: E731
    return ("select", guard, a, b) if sized(a) and sized(b) else None


def _dims_conjunction(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                      text: str) -> bool:
    """A failure when several dim comparisons hold together, a local chosen by the rank among their
    operands (``weightSize != channels && weightSize != 1``): per choice, one dims_compare rule, the
    other comparisons and the choice's rank test its ``when``. False when it is not one."""
    selects = sorted({n for p in parts for n in re.findall(r"\b\w+\b", p)
                      if isinstance(env.get(n), tuple) and env[n][:1] == ("select",)})
    if len(selects) > 1:
        return False
    choices = [((), env)]
    if selects:
        name = selects[0]
        _, guard, a, b = env[name]
        choices = [((guard,), {**env, name: a}), ((("not", guard),), {**env, name: b})]
    rules = []
    for guards, scope in choices:
        atoms, values = [], []
        for p in parts:
            cmp = _compare_split(_strip(p))
            try:
                x, y = (reenter.value(w, cmp[0], scope), reenter.value(w, cmp[2], scope)) if cmp else (None, None)
            except Unreadable:
                return False
            if _is_int(x) and _is_int(y):   # decided in this choice
                if not _COMPARE_INT[cmp[1]](int(x), int(y)):
                    atoms = None
                    break
                continue
            atom = _dims_atom(w, _strip(p), False, scope)
            if atom is None or atom[0] != "dims_compare":
                test = reenter.value_test(w, p, scope)   # a test of an argument's value beside them
                if test is None:
                    return False
                values.append(("value", test))
                continue
            if atom not in atoms:
                atoms.append(atom)
        if atoms is None:
            continue
        if not atoms:
            return False
        first, rest = dict(atoms[0][1]), [dict(x[1]) for x in atoms[1:]]
        when = [*guards, *values, *(("dims", r["a"], r["op"], r["b"]) for r in rest)]
        if when:
            first["when"] = when[0] if len(when) == 1 else ("and", *when)
        rules.append(first)
    if not rules:
        return False
    for args in rules:
        _check(w, src, offset, "dims_compare", tuple(sorted(args.items())), code, text)
    return True


def _all_dims_of(body: str, arr: str, count: str) -> str | None:
    """``arr`` holds 0 .. n-1 for ``count`` set to a tensor's rank in ``body`` (``dimNum =
    self->GetViewShape().GetDimNum(); for (i = 0; i < dimNum; i++) { dims[i] = i; }``, or the rank of
    a shape local set once to the tensor's view shape): that tensor."""
    c = re.escape(count)
    m = re.search(rf"\b{c}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*;", body)
    tensor = m.group(1) if m else None
    via = re.search(rf"\b{c}\s*=\s*(\w+)\s*\.\s*GetDimNum\(\)\s*;", body) if not m else None
    if via:
        local = re.escape(via.group(1))
        shapes = re.findall(rf"\b{local}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*;", body)
        if len(shapes) == 1 and len(re.findall(rf"\b{local}\s*=(?!=)", body)) == 1:
            tensor = shapes[0]
    loop = re.search(rf"for\s*\([^;]*\b(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(?:static_cast<\s*\w+\s*>\(\s*)?"
                     rf"{c}\s*\)?\s*;[^)]*\)\s*\{{?\s*{re.escape(arr)}\s*\[\s*\1\s*\]\s*=\s*\1\s*;\s*\}}?",
                     body)
    writes = re.findall(rf"\b{re.escape(arr)}\s*\[[^\]]*\]\s*=(?!=)", body)
    return tensor if tensor and loop and len(writes) == 1 else None


def _dims_from_of(body: str, vec: str, count: str, start: int) -> str | None:
    """``vec`` holds start .. n-1 for ``count`` set to a tensor's rank in ``body`` (``for (i = start; i <
    dimNum; i++) { vec.push_back(i); }``, nothing else put in it): that tensor."""
    c, v = re.escape(count), re.escape(vec)
    m = re.search(rf"\b{c}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*;", body)
    loop = re.search(rf"for\s*\(\s*(?:u?int(?:64|32)_t|size_t|int)\s+(\w+)\s*=\s*{start}\s*;\s*\1\s*<\s*{c}\s*;"
                     rf"\s*\1\s*\+\+\s*\)\s*\{{\s*{v}\s*\.\s*(?:push_back|emplace_back)\(\s*\1\s*\)\s*;\s*\}}", body)
    puts = re.findall(rf"\b{v}\s*(?:\.\s*(?:push_back|emplace_back|insert|resize|assign)\s*\(|\[|=(?!=))", body)
    declared = re.search(rf"std::vector<int64_t>\s+{v}\s*(?:=\s*\{{\s*\}})?\s*;", body)
    return m.group(1) if m and loop and declared and len(puts) == 1 + bool(re.search(rf"{v}\s*=\s*\{{", body)) \
        else None


_ALLOC_DIMS = r"(?:\w+(?:\.get\(\))?\s*->\s*)?AllocIntArray\(\s*(\w+)(?:\s*\.\s*data\(\))?\s*,\s*(\w+)\s*\)"
_CONVERT = r"(?:\w+(?:\.get\(\))?\s*->\s*)?ConvertToTensor\((.*)\)"


_CONSTANT_ARRAY = re.compile(r"int64_t\s+(?P<a>\w+)\s*\[\s*(?P<n>\d+)\s*\]\s*=\s*\{(?P<init>[^{}]*)\}\s*;")


def constant_dims_helper(w: Walk, rhs: str) -> tuple | None:
    """``H(executor)`` with H a function of the file returning an ``aclIntArray*`` built from a local
    array of constants (``int64_t a[1] = {}; a[0] = 1; return executor->AllocIntArray(a, 1);``, ops-nn
    index/repeat_interleave/op_api/aclnn_repeat_interleave.cpp:268-274 getBaseShape): ("dims-vector",
    ("shape-expr", ("dims", those constants))); None for any other call."""
    call = _macro(_strip(rhs))
    fn = w.index.function(call[0]) if call else None
    if fn is None or "aclIntArray" not in fn.returns:
        return None
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = _CONSTANT_ARRAY.match(body)
    if m is None:
        return None
    n, a = int(m.group("n")), re.escape(m.group("a"))
    init = [x.strip() for x in m.group("init").split(",") if x.strip()]
    if len(init) > n or not all(re.fullmatch(r"-?\d+", x) for x in init):
        return None
    dims = [int(x) for x in init] + [0] * (n - len(init))   # C zero-fills the rest
    rest = body[m.end():]
    for k, v in re.findall(rf"\s*{a}\s*\[\s*(\d+)\s*\]\s*=\s*(-?\d+)\s*;", rest):
        if int(k) >= n:
            return None
        dims[int(k)] = int(v)
    rest = re.sub(rf"\s*{a}\s*\[\s*\d+\s*\]\s*=\s*-?\d+\s*;", "", rest)
    alloc = rf"\w+\s*->\s*AllocIntArray\(\s*{a}\s*,\s*{n}\s*\)"
    if not re.fullmatch(rf"\s*(?:auto\s+(\w+)\s*=\s*{alloc}\s*;\s*return\s+\1\s*;|return\s+{alloc}\s*;)\s*", rest):
        return None
    return ("dims-vector", ("shape-expr", ("dims", tuple(dims))))


def _dims_local(w: Walk, src: SourceFile, stmt: Stmt, rhs: str, env: dict) -> tuple | None:
    """The dims a reduction kernel is given: ("all-dims", tensor) for an int array of every dim of
    an API tensor (built here, or returned by a helper building it from its tensor parameter);
    ("dims-of", name) for a tensor made of the API's int array or its one int."""
    rhs = _strip(rhs)
    m = re.fullmatch(_ALLOC_DIMS, rhs)
    if m and m.group(2) == "1":   # ``int64_t a[1] = {dim}; AllocIntArray(a, 1)``: the API's one int as dims
        body = _enclosing_body(src, stmt.offset)
        one = re.findall(rf"int64_t\s+{re.escape(m.group(1))}\s*\[\s*1?\s*\]\s*=\s*\{{\s*(\w+)\s*\}}\s*;", body)
        v = env.get(one[0]) if len(one) == 1 else None
        written = re.findall(rf"\b{re.escape(m.group(1))}\s*(?:\[[^\]]*\]\s*)?=(?!=)", body)
        if isinstance(v, T) and len(written) == 1 and re.search(r"int64_t|int32_t", w.ptypes.get(v.name, "")):
            return ("dims-of", v.name)
        if _is_int(v) and len(written) == 1:   # a helper's int parameter given a constant: that one element
            return ("dims-vector", ("shape-expr", ("dims", (v,))))
        return None
    if m:
        t = _all_dims_of(_enclosing_body(src, stmt.offset), m.group(1), m.group(2))
        return ("all-dims", env[t].name) if t and isinstance(env.get(t), T) else None
    m = re.fullmatch(r"(?:op::)?aclCreateIntArray\(\s*(\w+)\s*\.\s*data\(\)\s*,\s*(\w+)\s*-\s*(\d+)\s*\)", rhs)
    if m:   # the dims k .. rank-1 of a tensor, pushed in a loop (aclnn_global_average_pool.cpp:153-158)
        t = _dims_from_of(_enclosing_body(src, stmt.offset), m.group(1), m.group(2), int(m.group(3)))
        return ("dims-from", env[t].name, int(m.group(3))) if t and isinstance(env.get(t), T) else None
    m = re.fullmatch(_CONVERT, rhs, re.S)
    if m:
        args = [a.strip() for a in split_args(m.group(1))]
        one = re.fullmatch(r"&\s*(\w+)", args[0]) if len(args) == 3 and args[1] == "1" else None
        v = env.get(one.group(1) if one else args[0])
        if one and isinstance(v, T) and re.search(r"int64_t|int32_t", w.ptypes.get(v.name, "")):
            return ("dims-of", v.name)
        if len(args) == 2 and isinstance(v, T) and "IntArray" in w.ptypes.get(v.name, ""):
            return ("dims-of", v.name)
        if len(args) == 2 and isinstance(v, tuple) and v[:1] == ("all-dims",):
            return v
        return None
    call = _macro(rhs)
    fn = w.index.function(call[0]) if call and match_close(rhs, rhs.index("(")) == len(rhs) - 1 else None
    if fn is None or len(fn.params) != len(call[1]):
        return None
    back = re.findall(r"\breturn\s+(\w+)\s*;", fn.body)
    sets = re.findall(rf"\b{back[0]}\s*=\s*({_ALLOC_DIMS})\s*;", fn.body) if len(back) == 1 else \
        re.findall(rf"\breturn\s+({_ALLOC_DIMS})\s*;", fn.body) if not back else []   # returned as made
    if len(sets) != 1 or re.search(r"ACLNN_ERR_PARAM|OP_CHECK|CHECK_RET", fn.body):
        return None
    t = _all_dims_of(fn.body, sets[0][1], sets[0][2])
    arg = call[1][fn.params.index(t)].strip() if t in fn.params else None
    return ("all-dims", env[arg].name) if arg and isinstance(env.get(arg), T) else None


def _no_dims_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (dim == nullptr || dim->Size() == 0) { return true; }`` (or the size test alone) on an
    integer array argument: the rest of the function checks only the calls that name dims (its
    checks carry ``when`` not ``no-dims``)."""
    if not _returns_success_only(stmt):
        return False
    flat = re.sub(r"\s+", "", _strip(stmt.cond))
    m = re.fullmatch(r"(?:(\w+)==nullptr\|\|)?(\w+)->Size\(\)==0", flat)
    if not m or (m.group(1) and m.group(1) != m.group(2)):
        return False
    v = env.get(m.group(2))
    if not isinstance(v, T) or "IntArray" not in w.ptypes.get(v.name, ""):
        return False
    w.guards.append(("not", ("no-dims", v.name)))   # popped when the function ends (_run_function)
    return True


def _rank0_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { return true; }`` on a tensor's rank: the rest of the function checks the
    calls whose tensor has a dim (its checks carry ``when`` not ``rank-zero``)."""
    if not _returns_success_only(stmt):
        return False
    tensor = _rank_zero_test(w, stmt.cond, env)
    if tensor is None:
        return False
    w.guards.append(("not", ("rank-zero", tensor)))   # popped when the function ends (_run_function)
    return True


def _rank0_value_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { if (dim == 0 || dim == -1) { return true; } }``, or the two tests in one
    conjunction: the rest of the function checks the calls other than a rank-0 tensor with such a
    value (``when`` not both)."""
    parts = _split_top(_strip(stmt.cond), "&&")
    if len(parts) == 2 and _returns_success_only(stmt):   # ``if (rank == 0 && (dim == 0 || dim == -1))``
        for rank_part, value_part in (parts, parts[::-1]):
            tensor = _rank_zero_test(w, rank_part, env)
            test = reenter.value_test(w, value_part, env) if tensor is not None else None
            if test is not None:
                w.guards.append(("not", ("and", ("rank-zero", tensor), ("value", test))))
                return True
    tensor = _rank_zero_test(w, stmt.cond, env)
    if tensor is None or stmt.orelse or len(stmt.then) != 1 or stmt.then[0].kind != "if" or \
            not _returns_success_only(stmt.then[0]):
        return False
    test = reenter.value_test(w, stmt.then[0].cond, env)
    if test is None:
        return False
    w.guards.append(("not", ("and", ("rank-zero", tensor), ("value", test))))   # popped by _run_function
    return True


def _rank_zero_test(w: Walk, cond: str, env: dict) -> str | None:
    """``rank == 0`` (or ``rank <= 0``: a rank is never negative) on a tensor's rank: the tensor."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] not in ("==", "<="):
        return None
    try:
        r, zero = reenter.value(w, cmp[0], env), reenter.value(w, cmp[2], env)
    except Unreadable:
        return None
    lr = _lin(r)
    return lr[1] if lr and lr[2] == 1 and lr[3] == 0 and lr[4] == 0 and zero == 0 else None


def _wrap_negative_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (d < 0) { d = d + rank; }`` (or ``d += rank``) with d holding an integer argument and rank a
    tensor's: d holds that argument's dim of the tensor, wrapped (``("wrapped-dim", attr, tensor)``)."""
    cmp = _compare_split(_strip(stmt.cond))
    if stmt.orelse or len(stmt.then) != 1 or cmp is None or cmp[1] != "<" or cmp[2].strip() != "0":
        return False
    d = cmp[0].strip()
    held = env.get(d)
    if not (isinstance(held, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)",
                                                   w.ptypes.get(held.name, "").strip())):
        return False
    m = re.fullmatch(r"(\w+)\s*(?:\+=\s*(.+)|=\s*\1\s*\+\s*(.+))", stmt.then[0].text.strip().rstrip(";"))
    # the tested value, or a local copy of the same argument (``positive = dim; if (dim < 0) positive += n``)
    if not m or not (m.group(1) == d or env.get(m.group(1)) == held):
        return False
    d = m.group(1)
    m = re.fullmatch(r"\w+\s*(?:\+=\s*(.+)|=\s*\w+\s*\+\s*(.+))", stmt.then[0].text.strip().rstrip(";"))
    try:
        rank = _lin(reenter.value(w, m.group(1) or m.group(2), env))
    except Unreadable:
        return False
    if not (rank and rank[2] == 1 and rank[3] == 0 and rank[4] == 0):
        return False
    env[d] = ("wrapped-dim", held.name, rank[1])
    return True


def _dims_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A comparison of a tensor's dim size with another's, a constant or an integer argument
    (``self.GetDim(0) != other.GetDim(0)``, ``x1.GetDim(rank - 1) != x2.GetDim(rank - 1)``,
    ``out.GetDim(0) != n``): ``dims_compare``, violated when the comparison holds."""
    cmp = _comparison(body, neg)
    if cmp is None:
        return None
    a, op, b = cmp
    wrapped = _wrapped_dim_size(w, a, env)
    if wrapped is not None and op == "==" and _strip(b) == "0":
        return "attr_dims_nonzero", _args(attr=wrapped[0], tensor=wrapped[1])
    mod = re.fullmatch(r"(\w+)\s*%\s*(\w+)", _strip(a))
    if mod and op == "!=" and _strip(b) == "0":   # ``size % 2 != 0``: the size at the dim not even
        held = env.get(mod.group(1))
        size = _wrapped_dim_size(w, held.text if isinstance(held, Opaque) else mod.group(1), env) \
            or _wrapped_attr_dim(held)
        by = int(mod.group(2)) if mod.group(2).isdigit() else w.index.constant(mod.group(2))
        if size is not None and by:
            return "attr_dim_divisible", _args(attr=size[0], tensor=size[1], by=by)
    try:
        x, y = reenter.value(w, a, env), reenter.value(w, b, env)
    except Unreadable:
        return None
    is_dim = lambda v: isinstance(v, tuple) and v[:1] in (("dim",), ("numel",), ("bnumel",))
    int_attr = lambda v: isinstance(v, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)",
                                                            w.ptypes.get(v.name, "").strip())
    if not is_dim(x) and is_dim(y):
        x, y, op = y, x, _FLIP[op]
    if not is_dim(x) or not (is_dim(y) or _is_int(y) or int_attr(y)):
        return None
    ref = lambda v: list(v[1:]) if v[0] == "dim" else [v[0], v[1]]   # noqa: E731 (a bnumel's names a tuple)
    other = ref(y) if is_dim(y) else y.name if isinstance(y, T) else int(y)
    return "dims_compare", _args(a=ref(x), op=op, b=other)


def _rank(kind):
    def run(w, src, stmt, env, fail, args):
        try:
            n = reenter.value(w, args[1], env)
        except Unreadable:
            n = None   # no single value: an integer expression, read as a test below
        if kind == "eq" and _lin(n) and n[2:] == (1, 0, 0):   # another tensor's rank, exactly
            _check(w, src, stmt.offset, "ranks_equal", _args(param=_tensor(env, args[0]), other=n[1]),
                   _fail_status(args[2], fail), stmt.text)
            return
        if not isinstance(n, int) or isinstance(n, bool):
            # a bound that is an integer expression (``OP_CHECK_MIN_DIM(input, normalizedShape->Size(), ...)``,
            # ops-nn norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:175): an integer test on the rank
            op = {"min": "<", "max": ">", "eq": "!="}[kind]
            got = _iexpr_atom(w, f"{args[0]}->GetViewShape().GetDimNum() {op} ({args[1]})", False, env)
            if got is None:
                raise Unreadable(f"the rank bound {args[1]!r}")
            _check(w, src, stmt.offset, got[0], got[1], _fail_status(args[2], fail), stmt.text)
            return
        bounds = {"max": dict(max=n), "min": dict(min=n), "eq": dict(min=n, max=n)}[kind]
        if reenter.converted(env, args[0]):   # a scalar made a tensor has rank 0
            if bounds.get("min", 0) > 0 or bounds.get("max", 0) < 0:
                raise Unreadable(f"a rank bound {n} on a scalar made a tensor")
            return
        _check(w, src, stmt.offset, "rank_range", _args(param=_tensor(env, args[0]), **bounds),
               _fail_status(args[2], fail), stmt.text)
    return run


def _rank_compare(w: Walk, cond: str, env: dict) -> tuple | None:
    """An API tensor's rank (``x->GetViewShape().GetDimNum()`` or a local holding it) compared with a
    constant: ("rank-zero", t) for ``== 0`` (negated for ``!= 0``), else ("rank", t, op, n)."""
    rm = re.fullmatch(r"(.+?)\s*(==|!=|<=|>=|<|>)\s*([\w:]+)", cond, re.S)
    if rm is None or not re.fullmatch(r"\w+|\w+(?:\s*->\s*GetViewShape\(\))?\s*\.\s*GetDimNum\(\)", rm.group(1).strip()):
        return None
    try:
        rank, bound = _lin(reenter.value(w, rm.group(1), env)), reenter.value(w, rm.group(3), env)
    except Unreadable:
        return None
    if rank is None or rank[2:] != (1, 0, 0) or not isinstance(rank[1], str) or \
            not isinstance(bound, int) or isinstance(bound, bool):
        return None
    if bound == 0 and rm.group(2) in ("==", "!="):
        return ("rank-zero", rank[1]) if rm.group(2) == "==" else ("not", ("rank-zero", rank[1]))
    return ("rank", rank[1], rm.group(2), bound)


def _every_dim_if_empty(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``if (dims->Size() == 0) { ...; dims = <an int array of every dim of t>; }`` on the API's int
    array ``dims``, the block assigning nothing else the walk holds: ("every-if-empty", dims, t)."""
    m = re.fullmatch(r"\s*(\w+)\s*->\s*Size\(\)\s*==\s*0\s*", stmt.cond)
    held = env.get(m.group(1)) if m else None
    if stmt.orelse or not isinstance(held, T) or "IntArray" not in w.ptypes.get(held.name, ""):
        return False
    name, made = m.group(1), None
    inner_null = re.compile(r"CHECK_RET\(\s*\w+\s*!=\s*nullptr\s*,\s*ACLNN_ERR_INNER_\w+\s*\);?")
    if re.search(r"ACLNN_ERR|OP_CHECK|CHECK_RET|\breturn\b",
                 "".join(s.text for s in _flatten(stmt.then) if not inner_null.fullmatch(s.text.strip()))):
        return False   # a branch that checks or returns is more than the dims' replacement (an inner
        # status on a null result is the compute path's)
    for s in _flatten(stmt.then):
        a = re.match(r"([A-Za-z_]\w*)\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)\s*(.*)", s.text.strip(), re.S)
        if s.kind != "decl" or not a or a.group(1) not in env:
            continue   # a local of the block
        if a.group(1) != name or made is not None:
            return False
        made = _dims_local(w, src, s, a.group(2).rstrip(";"), env)
    if not (isinstance(made, tuple) and made[:1] == ("all-dims",)):
        return False
    env[name] = ("every-if-empty", held.name, made[1])
    return True


def _array_element(w: Walk, expr: str, env: dict) -> tuple | None:
    """``(*a)[i]`` with ``a`` the API's integer (or bool) array and ``i`` a constant the guards the walk runs
    under keep below the array's length: ("iexpr", ("elem", a, i)); Unreadable for an element those
    guards do not keep in the array (aclIntArray's operator[] does not check); None for another
    expression."""
    m = re.fullmatch(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\[([^\[\]]+)\]", expr, re.S)   # one element, not a product of them
    held = env.get(m.group(1)) if m else None
    if not array_param(w, held, ("Int", "Bool")):
        return None   # an int array's element, or a bool array's (1 or 0: ``(*outputMask)[0]``)
    index = reenter.value(w, m.group(2), env)
    if not _is_int(index) or index < 0 or \
            _least_length(w.guards + passed_length_checks(w), held.name) <= index and \
            not length_kept_above(w, held.name, index):
        if _is_int(index) and index >= 0 and _most_length(w.guards, held.name) > index:
            w.element_outside = (held.name, index)   # outside for some calls only: walk._run_stmt_inside_arrays
        raise Unreadable(f"{expr!r}, an element the code does not keep inside the array")
    return ("iexpr", ("elem", held.name, index))


_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _most_length(guards: list, attr: str) -> float:
    """The greatest length of the array ``attr`` on the calls the guards hold for (infinite when none
    bounds it): an ``attr-len`` test fixing or bounding it from above, or its negation."""
    most = float("inf")
    for g in guards:
        neg = g[0] == "not"
        atom = g[1] if neg else g
        if atom[0] == "and" and not neg:
            most = min(most, _most_length(list(atom[1:]), attr))
        elif atom[0] == "attr-len" and atom[1] == attr:
            op, n = _NEGATED[atom[2]] if neg else atom[2], atom[3]
            most = min(most, {"==": n, "<=": n, "<": n - 1}.get(op, most))
    return most


def _least_length(guards: list, attr: str) -> int:
    """The least length of the integer array ``attr`` on the calls the guards hold for (0 when
    none bounds it): an ``attr-len`` test, its negation, or an array naming a dim."""
    least = 0
    for g in guards:
        neg = g[0] == "not"
        atom = g[1] if neg else g
        if atom[0] == "and" and not neg:
            least = max(least, _least_length(list(atom[1:]), attr))
        elif atom[0] == "no-dims" and neg and atom[1] == attr:
            least = max(least, 1)
        elif atom[0] == "attr-len" and atom[1] == attr:
            op, n = _NEGATED[atom[2]] if neg else atom[2], atom[3]
            least = max(least, {"==": n, ">=": n, ">": n + 1}.get(op, 0))
        elif atom[0] == "int" and len(atom[1]) == 3 and atom[1][0] in _NEGATED and ("len", attr) in atom[1][1:]:
            # ``a->Size() == 2`` read as an integer test (aclnn_add_rms_norm_dynamic_quant_v2.cpp:44)
            op, x, y = atom[1]
            if x != ("len", attr):
                op, x, y = _FLIP[op], y, x
            if _is_int(y):
                op = _NEGATED[op] if neg else op
                least = max(least, {"==": y, ">=": y, ">": y + 1}.get(op, 0))
    return least


def _raw_dim_size_zero(w: Walk, cond: str, env: dict) -> tuple[str, str] | None:
    """``s.GetDim((size_t)d) == 0`` (or ``t->GetViewShape().GetDim(d)``) with s a tensor's view shape and
    d the API's integer argument used as given: (d, tensor)."""
    m = re.fullmatch(r"(.+?)\s*\.\s*GetDim\(\s*(?:\(\s*(?:size_t|uint64_t)\s*\)|static_cast<\s*(?:size_t|uint64_t)\s*>)?"
                     r"\s*\(?\s*(\w+)\s*\)?\s*\)\s*==\s*0", _strip(cond))
    if not m:
        return None
    shape = reenter.view_shape_held(m.group(1), env)
    d = env.get(m.group(2))
    if not (isinstance(shape, tuple) and shape[:1] == ("shape-of",) and isinstance(d, T)
            and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    return d.name, shape[1]


def _wrapped_dim_size(w: Walk, expr: str, env: dict) -> tuple[str, str] | None:
    """``t->GetViewShape().GetDim(d)`` with d an integer argument's dim of t, wrapped, read where t has
    a dim (after a rank-0 return): (attr, tensor)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)\s*\.\s*GetDim\s*\(\s*(\w+)\s*\)", _strip(expr))
    held = env.get(m.group(2)) if m else None
    if not (isinstance(held, tuple) and held[:1] == ("wrapped-dim",) and isinstance(env.get(m.group(1)), T)
            and env[m.group(1)].name == held[2] and (("not", ("rank-zero", held[2])) in w.guards
                                                     or _rank_one_checked(w, held[2]))):
        return None
    return held[1], held[2]


def _wrapped_attr_dim(held: Any) -> tuple[str, str] | None:
    """A local holding t's dim at an integer argument a wrapped by t's rank (``("iexpr", ("sdim", ("of",
    t), a < 0 ? a + rank : a))`` of _dim_value): (a, t); None for anything else."""
    if not (isinstance(held, tuple) and held[:1] == ("iexpr",) and held[1][:1] == ("sdim",)):
        return None
    of, at = held[1][1], held[1][2]
    if not (of[:1] == ("of",) and isinstance(at, tuple) and at[:1] == ("?",) and at[3][:1] == ("attr",)):
        return None
    attr, t = at[3], of[1]
    return (attr[1], t) if at[1:3] == (("<", attr, 0), ("+", attr, ("rank", t))) else None


def _rank_one_checked(w: Walk, tensor: str) -> bool:
    """An unguarded check read before refuses every call where ``tensor`` has rank 0."""
    return _min_rank_checked(w, tensor) >= 1


def _dims_decided(w: Walk, test: Any) -> bool:
    """Every dim the integer test reads is, on each call reaching it, a dim of its tensor: each is
    ``("sdim", ("of", t), a wrapped by t's rank)`` for an integer argument ``a`` that an unguarded
    check before keeps in [-rank, rank - 1], with rank-0 calls returned before or refused; and it
    reads no other dim."""
    if not isinstance(test, tuple) or not test:
        return True
    if test[0] == "dim":   # a fixed dim (from the start or the end) inside the rank earlier checks leave
        _, t, scale, offset = test
        need = -offset if scale == 1 and offset < 0 else offset + 1 if scale == 0 and offset >= 0 else None
        return need is not None and _min_rank_checked(w, t) >= need
    if test[0] != "sdim":
        return all(_dims_decided(w, x) for x in test[1:])
    if not (test[1][:1] == ("of",) and isinstance(test[2], tuple) and test[2][:1] == ("?",)):
        return False
    t, (_, cond, wrapped, plain) = test[1][1], test[2]
    if not (isinstance(plain, tuple) and plain[:1] == ("attr",) and cond == ("<", plain, 0)
            and wrapped == ("+", plain, ("rank", t))):
        return False
    bounds = {(k, tuple(a[k])) for e in w.events if e.kind == "check" and e.template == "attr_in_rank_range"
              and "when" not in (a := e.args_dict()) and a.get("attr") == plain[1] and a.get("tensor") == t
              for k in ("min", "max") if isinstance(a.get(k), (list, tuple))}
    in_range = {("min", (-1, 0)), ("max", (1, -1))} <= bounds   # -rank <= a <= rank - 1
    rank0_gone = ("not", ("rank-zero", t)) in w.guards or _min_rank_checked(w, t) >= 1
    return bool(in_range) and rank0_gone


def _min_rank_checked(w: Walk, tensor: str) -> int:
    """The least rank of ``tensor`` on the calls that pass the unguarded checks read before (0 when
    none bounds it)."""
    return max([e.args_dict().get("min") or 0 for e in w.events if e.kind == "check" and e.template == "rank_range"
                and e.args_dict().get("param") == tensor and "when" not in e.args_dict()], default=0)


def _dim_value(w: Walk, expr: str, env: dict) -> tuple | None:
    """``shape.GetDim(i)``, ``t->GetViewShape().GetDim(i)`` or ``shape[i]``: with ``i`` a constant or
    an integer depending on t's rank (``rank - 1``), ``("dim", t, scale, offset)``, the size of dim
    scale*rank + offset of t's view shape; with another integer the walk computes (a wrapped dim
    argument), or on a shape expression, ("iexpr", ("sdim", S, i))."""
    m = re.fullmatch(r"(.+?)\s*\.\s*GetDim\s*\((.+)\)", expr, re.S)
    # the GetDim call's own parenthesis (an index may call GetDimNum: ``GetDim(x->GetViewShape().GetDimNum() - 1)``)
    if not m or match_close(expr, m.start(2) - 1) != len(expr) - 1:
        m = re.fullmatch(r"(.+?)\s*\[([^\[\]]+)\]", expr, re.S)   # ``shape[i]``: Shape::operator[]
        if not m:
            return None
    shape = reenter.view_shape_held(m.group(1), env)
    if not (isinstance(shape, tuple) and shape[:1] in (("shape-of",), ("shape-expr",))):
        return None
    try:
        index = reenter.value(w, m.group(2), env)
    except Unreadable:
        return None
    if _is_int(index) and shape[0] == "shape-of":
        return ("dim", shape[1], 0, index)
    li = _lin(index)
    if li and shape[0] == "shape-of" and li[1] == shape[1] and li[4] == li[3]:   # no other value at rank 0
        return ("dim", shape[1], li[2], li[3])
    at = _iexpr_of(w, index)   # a dim at an index the walk computes: read where it is inside the shape
    wrapped = _wrapped_iexpr(w, index) if at is None and (getattr(w, "wrapped_dims", False) or (
        isinstance(index, tuple) and index[:1] == ("wrapped-dim",) and index[2] == shape[1])) else None
    if wrapped is not None and reenter.dims_decided(w, ("sdim", reenter.shape_expr_of(shape), wrapped)):
        at = wrapped   # a wrapped dim argument kept inside the rank, in an integer choice (aclnn_slice.cpp:65)
    return None if at is None else ("iexpr", ("sdim", reenter.shape_expr_of(shape), at))


def _rank0_branch(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { lo = -1; hi = 0; }`` (or ``rank <= 0``) over rank-dependent locals: their
    value at rank 0."""
    tensor = _rank_zero_test(w, stmt.cond, env) if not stmt.orelse else None
    if tensor is None:
        return False
    lr = ("lin", tensor, 1, 0, 0)
    updates, flags = {}, {}
    for st in stmt.then:
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(-?\s*\d+)|([A-Za-z_]\w*)\s*\+\+|\+\+\s*([A-Za-z_]\w*)",
                         st.text.strip())
        name = m and (m.group(1) or m.group(3) or m.group(4))
        fm = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(true|false)", st.text.strip())
        if fm and isinstance(env.get(fm.group(1)), bool) and (fm.group(2) == "true") != env[fm.group(1)] \
                and fm.group(1) not in flags:
            flags[fm.group(1)] = fm.group(2) == "true"   # a bool local set at rank 0 only: rank == 0
            continue
        if not m or not _lin(env.get(name)) or env[name][1] != lr[1] or name in updates:
            return False
        updates[name] = int(m.group(2).replace(" ", "")) if m.group(1) else env[name][4] + 1
    for name, v in updates.items():
        old = env[name]
        env[name] = ("lin", old[1], old[2], old[3], v)
    for name, at_rank0 in flags.items():
        env[name] = ("rank0-flag", lr[1], at_rank0)
    return bool(updates)


def _rank_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``rank <= 0 ? c : rank`` (or ``== 0``) over a rank local: the rank, c at rank 0."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] not in ("<=", "=="):
        return None
    try:
        r, zero = reenter.value(w, cmp[0], env), reenter.value(w, cmp[2], env)
        c, other = reenter.value(w, branches[0], env), reenter.value(w, branches[1], env)
    except Unreadable:
        return None
    lr = _lin(r)
    if not (lr and lr[2] == 1 and lr[3] == 0 and lr[4] == 0 and zero == 0 and other == r and _is_int(c)):
        return None
    return ("lin", lr[1], 1, 0, c)


def _wrapped_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``d < 0 ? n + d : d`` with d an integer argument and n a tensor's rank counted 1 at rank 0:
    ("wrapped-dim-max1", d, tensor)."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] != "<" or cmp[2].strip() != "0":
        return None
    d = env.get(cmp[0].strip())
    if not (isinstance(d, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    if _strip(branches[1]) != cmp[0].strip():
        return None
    m = re.fullmatch(rf"(\w+)\s*\+\s*{re.escape(cmp[0].strip())}", _strip(branches[0]))
    try:
        rank = _lin(reenter.value(w, m.group(1), env)) if m else None
    except Unreadable:
        return None
    if rank is None or rank[2:] != (1, 0, 1):
        return None
    return ("wrapped-dim-max1", d.name, rank[1])


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.dims_decided = _dims_decided
reenter.expr_min_rank = _expr_min_rank
reenter.min_rank_checked = _min_rank_checked
