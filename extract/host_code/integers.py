"""Integers and tests on them: arithmetic over constants and rank-dependent integers (``lin``),
an integer array's length, integer attributes compared with bounds (``attr_*`` rules), comparisons
split and negated, a test over integers as a ``spec.templates`` integer test, an integer choice."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import match_close, split_args
from aclnn_conformance.extract.syntax import tokens
from aclnn_conformance.spec.templates import int_leaves as templates_int_leaves, int_op
from aclnn_conformance.extract.host_code.model import array_param
from aclnn_conformance.extract.host_code.model import (Opaque, T, Unreadable, Walk, _args, _is_int, _lin, _split_top,
                                                       _strip)
from aclnn_conformance.extract.host_code.array_elements import element_compare_rule
import aclnn_conformance.extract.host_code.reenter as reenter


_COMPARE_INT = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
                ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y}


def _int_guard(w: Walk, cond: str, env: dict) -> tuple | None:
    """A comparison of integers or of two shapes the walk knows, as a guard (``["int", test]``), when
    every dim it reads is one of its tensor on each call reaching it (``_dims_decided``: a guard a
    call cannot evaluate would leave that call's side guessed); a test of the call's argument values
    alone is the value test's (``_value_test``)."""
    if reenter.value_test(w, cond, env) is not None:
        return None
    test = _int_test(w, cond, env)
    ok = test is not None and (templates_int_leaves(test) and reenter.dims_decided(w, test)
                               or not templates_int_leaves(test) and _reads_guard(test))
    return ("int", test) if ok else None


def _reads_guard(e: Any) -> bool:
    """The integer expression or test ``e`` holds a branch's guard (``["?", ["guard", g], 2, 0]``: a
    local set by branches on the call's argument values), so its value is the call's, not a constant."""
    return isinstance(e, tuple) and bool(e) and (e[0] == "guard" or any(_reads_guard(x) for x in e[1:]))


def _int_constant(w: Walk, text: str) -> int | None:
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    return w.index.constant(t) if re.fullmatch(r"[A-Za-z_][\w:]*", t) else None


def _binary_split(expr: str) -> tuple[str, str, str] | None:
    """The last top-level binary operator of the lowest precedence (left-associative): a bitwise &,
    then a right shift, then + or -, then *, / or %; None if none (a sign or an address is no binary
    operator: the parser tells them apart)."""
    for ops in (("&",), (">>",), ("+", "-"), ("*", "/", "%")):
        found = [t for t in tokens(expr) if t.depth == 0 and t.type in ops and t.parent == "binary_expression"]
        if found:
            return expr[:found[-1].start].strip(), found[-1].type, expr[found[-1].end:].strip()
    return None


def _arith(w: Walk, expr: str, env: dict) -> Any:
    """Integer arithmetic over constants and rank-dependent integers; None when it is not such."""
    m = re.fullmatch(r"std::(min|max)\((.*)\)", expr, re.S)
    if m and match_close(expr, expr.index("(")) == len(expr) - 1:
        two = split_args(m.group(2))
        if len(two) != 2:
            return None
        a, b = reenter.value(w, two[0], env), reenter.value(w, two[1], env)
        try:
            return _minmax(m.group(1), a, b)
        except Unreadable:
            ea, eb = _iexpr_of(w, a), _iexpr_of(w, b)
            if ea is None or eb is None:
                raise
            return ("iexpr", (m.group(1), ea, eb))
    if expr.startswith("-") and not expr.startswith("->"):
        inner = reenter.value(w, expr[1:], env)
        try:
            return _scale(inner, -1)
        except Unreadable:
            held = _iexpr_of(w, inner)
            if held is None:
                raise
            return ("iexpr", ("-", 0, held))
    split = _binary_split(expr)
    if split is None:
        return None
    a, op, b = reenter.value(w, split[0], env), split[1], reenter.value(w, split[2], env)
    try:
        return _linear_arith(a, op, b, expr)
    except Unreadable:
        wrapped = _wrapped_by_remainder(w, a, op, b)
        if wrapped is not None:
            return wrapped
        ea, eb = _iexpr_of(w, a), _iexpr_of(w, b)
        if ea is None or eb is None:
            raise
        return ("iexpr", (op, ea, eb))


def dim_range_checked(w: Walk, attr: str, tensor: str) -> bool:
    """Unguarded checks read before refuse the integer argument ``attr`` below -rank and past rank - 1
    of ``tensor`` (``attr_in_rank_range``)."""
    bounds = {b for e in w.events if e.kind == "check" and e.template == "attr_in_rank_range"
              for a in [e.args_dict()] if a.get("attr") == attr and a.get("tensor") == tensor and "when" not in a
              for b, want in (("min", [-1, 0]), ("max", [1, -1])) if list(a.get(b) or ()) == want}
    return bounds == {"min", "max"}


def _wrapped_by_remainder(w: Walk, a: Any, op: str, b: Any) -> tuple | None:
    """``(d + rank) % rank`` of an integer argument d that checks before keep in [-rank, rank - 1]: d
    wrapped (ops-nn index/gather_v2/op_api/aclnn_median.cpp:225 ``(dim + dimSize) % dimSize``), else None."""
    rank = _lin(b)
    if op != "%" or not rank or rank[2:] != (1, 0, 0) or not (isinstance(a, tuple) and a[:1] == ("iexpr",)):
        return None
    t, total = rank[1], a[1]
    if not (total[:1] == ("+",) and ("rank", t) in total[1:3]):
        return None
    (d,) = [x for x in total[1:3] if x != ("rank", t)] or [None]
    if not (isinstance(d, tuple) and d[:1] == ("attr",) and dim_range_checked(w, d[1], t)):
        return None
    return ("wrapped-dim", d[1], t)


def _int_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """A condition over integers (comparisons joined by ``&&``, ``||``, ``!``) as a spec.templates
    integer test; None when a part is no comparison of integers the walker knows."""
    cond = _strip(cond)
    held = env.get(cond)
    if isinstance(held, tuple) and held[:1] == ("guard",):   # a bool local holding a guard (``bool
        return held                                          # isNeedSqueeze = rank == 3``, aclnn_im2col.cpp:106)
    if re.fullmatch(r"\(\s*\*\s*\w+\s*\)\s*\[[^\[\]]+\]", cond):   # ``(*mask)[1]`` itself
        try:
            held = reenter.value(w, cond, env)
        except Unreadable:
            return None
    if isinstance(held, tuple) and held[:1] == ("iexpr",) and held[1][:1] == ("elem",) and \
            array_param(w, T(held[1][1]), ("Bool",)):   # ``bool b = (*mask)[0];`` tested as b: the element is 1
        return ("!=", held[1], 0)
    for op, head in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            tests = [_int_test(w, p, env) for p in parts]
            return None if None in tests else (head, *tests)
    if cond.startswith("!") and not cond.startswith("!="):
        inner = _int_test(w, cond[1:], env)
        return None if inner is None else ("not", inner)
    truth = re.fullmatch(r"static_cast<\s*bool\s*>\s*\((.+)\)", cond, re.S)
    if truth:   # an integer as a truth value (ops-nn matmul/gemm/op_host/op_api/aclnn_gemm.cpp:105 ``transA``)
        try:
            held = _iexpr_of(w, reenter.value(w, truth.group(1), env))
        except Unreadable:
            return None
        return None if held is None else ("!=", held, 0)
    cmp = _compare_split(cond)
    if cmp is None:   # a bool argument as the test (ops-nn index/gather_v2/op_api/aclnn_median.cpp:197 ``keepDim ? ...``)
        values = reenter.value_test(w, cond, env) if re.fullmatch(r"\w+", cond) else None
        return None if values is None else ("guard", ("value", values))
    shapes = [reenter.shape_expr_at(w, x, env) for x in (cmp[0], cmp[2])] if cmp[1] in ("==", "!=") else [None]
    if None not in shapes:   # two shapes compared
        same = ("same-shape", *shapes)
        return same if cmp[1] == "==" else ("not", same)
    try:
        x, y = (_array_length(w, s, env) or _iexpr_of(w, reenter.value(w, s, env)) for s in (cmp[0], cmp[2]))
    except Unreadable:
        x = y = None
    if x is None or y is None:   # a test of a scalar argument's value among the integers (aclnn_addmv.cpp:157-158)
        values = reenter.value_test(w, cond, env)
        return None if values is None else ("guard", ("value", values))
    return (cmp[1], x, y)


def _array_length(w: Walk, expr: str, env: dict) -> tuple | None:
    """``a->Size()`` of an integer, bool or float array argument (cast to a signed integer or not), or a
    local holding it: ("len", a); None otherwise."""
    expr = _strip(expr)
    cast = re.fullmatch(r"(?:static_cast<\s*(?:int64_t|size_t|uint64_t)\s*>|\(\s*(?:int64_t|size_t|uint64_t)\s*\))\s*\((.*)\)",
                        expr, re.S) or re.fullmatch(r"\(\s*(?:int64_t|size_t|uint64_t)\s*\)\s*(\w+\s*->\s*Size\(\))", expr)
    expr = _strip(cast.group(1)) if cast else expr
    held = env.get(expr)
    if isinstance(held, Opaque):   # ``int64_t n = a->Size();``
        expr = held.text.strip()
    m = re.fullmatch(r"(\w+)\s*->\s*Size\(\)", expr)
    array = env.get(m.group(1)) if m else None
    # an int, bool or float array: its length alone is read (aclnn_layer_norm_backward.cpp:264 ``outputMask``)
    return ("len", array.name) if array_param(w, array, ("Int", "Bool", "Float")) else None


def _iexpr_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A comparison of integers no narrower atom reads (a dim's size in arithmetic, a quotient, a
    remainder, attributes combined): ``int_test``, violated when the comparison holds."""
    test = _int_test(w, body, env) if _compare_split(body) is not None else None
    if test is None or not templates_int_leaves(test):
        return None
    return "int_test", _args(test=("not", test) if neg else test)


def _iexpr_of(w: Walk, v: Any) -> Any:
    """A held integer as a spec.templates integer expression (an int, a rank-linear integer, a dim
    size, an element count, an integer argument, an expression); None for anything else."""
    if _is_int(v):
        return v
    if isinstance(v, T):
        return ("attr", v.name) if _INT_TYPE.fullmatch(w.ptypes.get(v.name, "").strip()) else None
    if not isinstance(v, tuple) or not v:
        return None
    if v[0] == "iexpr":
        return v[1]
    if v[0] == "dim":
        return ("dim", v[1], v[2], v[3])
    if v[0] in ("numel", "snumel"):
        return (v[0], v[1])
    if v[0] == "wrapped-dim-max1":   # d < 0 ? d + max(rank, 1) : d (values._dim_wrap_value, ranks._wrapped_choice)
        d = ("attr", v[1])
        return ("?", ("<", d, 0), ("+", d, ("max", ("rank", v[2]), 1)), d)
    if v[0] == "select":   # a local chosen by a rank test (ranks._select_local): the choice on that guard
        a, b = _iexpr_of(w, v[2]), _iexpr_of(w, v[3])
        return None if a is None or b is None else ("?", ("guard", v[1]), a, b)
    if v[0] == "lin":
        _, t, k, c, c0 = v
        scaled = ("rank", t) if k == 1 else ("*", k, ("rank", t))
        line = c if k == 0 else ("+", scaled, c) if c else scaled
        return line if c0 == c else ("?", ("==", ("rank", t), 0), c0, line)
    return None


def _wrapped_iexpr(w: Walk, v: Any) -> Any:
    """``_iexpr_of``, and an integer argument's dim of a tensor wrapped by its rank (``("wrapped-dim", d, t)``
    of ranks._wrap_negative_dim: d + rank where d < 0), for the readers that check it is inside the shape."""
    if isinstance(v, tuple) and v[:1] == ("wrapped-dim",):
        d = ("attr", v[1])
        return ("?", ("<", d, 0), ("+", d, ("rank", v[2])), d)
    return _iexpr_of(w, v)


_INT_TYPE = re.compile(r"(?:const\s+)?(?:u?int(?:64|32|16|8)?_t|int|long)")


def _linear_arith(a: Any, op: str, b: Any, expr: str) -> Any:
    """``a op b`` over integers and rank-linear integers ("lin"); Unreadable when it is not such."""
    if op in ("&", ">>"):   # bits: a constant only of constants
        held = int_op(op, a, b) if _is_int(a) and _is_int(b) else None
        if held is None:
            raise Unreadable(f"the bits {expr!r}")
        return held
    if op in "/%":
        if _is_int(a) and _is_int(b) and b != 0:
            return int_op(op, a, b)
        raise Unreadable(f"the quotient {expr!r}")
    if op == "*":
        if _is_int(a) and (_is_int(b) or _lin(b)):
            return _scale(b, a)
        if _is_int(b) and _lin(a):
            return _scale(a, b)
        raise Unreadable(f"the product {expr!r}")
    if op == "-":
        b = _scale(b, -1)
    if _is_int(a) and _is_int(b):
        return a + b
    la, lb = _lin(a), _lin(b)
    if la and _is_int(b):
        return ("lin", la[1], la[2], la[3] + b, la[4] + b)
    if lb and _is_int(a):
        return ("lin", lb[1], lb[2], lb[3] + a, lb[4] + a)
    if la and lb and la[1] == lb[1]:
        return ("lin", la[1], la[2] + lb[2], la[3] + lb[3], la[4] + lb[4])
    raise Unreadable(f"the sum {expr!r}")


def _scale(v: Any, k: int) -> Any:
    if _is_int(v):
        return v * k
    lv = _lin(v)
    if lv:
        return ("lin", lv[1], lv[2] * k, lv[3] * k, lv[4] * k)
    raise Unreadable(f"the product of {v!r}")


def _minmax(kind: str, a: Any, b: Any) -> Any:
    if _is_int(a) and _is_int(b):
        return min(a, b) if kind == "min" else max(a, b)
    la = _lin(a) or (("lin", _lin(b)[1], 0, a, a) if _is_int(a) and _lin(b) else None)
    lb = _lin(b) or (("lin", la[1], 0, b, b) if _is_int(b) and la else None)
    if not la or not lb or la[1] != lb[1]:
        raise Unreadable("a min/max of integers of different tensors")
    r0 = min(la[4], lb[4]) if kind == "min" else max(la[4], lb[4])
    # for ranks >= 1 one of the two lines must bound the other everywhere
    a_le = la[2] <= lb[2] and la[2] + la[3] <= lb[2] + lb[3]
    b_le = lb[2] <= la[2] and lb[2] + lb[3] <= la[2] + la[3]
    if not (a_le or b_le):
        raise Unreadable("a min/max of crossing rank bounds")
    pick = (la if a_le else lb) if kind == "min" else (lb if a_le else la)
    return ("lin", pick[1], pick[2], pick[3], r0)


def _int_attr(w: Walk, env: dict, expr: str) -> str | None:
    v = env.get(_strip(expr))
    if isinstance(v, T) and _strip(expr).startswith("__elem_"):
        return v.name          # each element of an integer array (_run_array_loop)
    if isinstance(v, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32|16|8)?_t|int|long|size_t)",
                                         w.ptypes.get(v.name, "").strip()):
        return v.name
    return None


_FLIP = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}
_NEG = {">": "<=", "<": ">=", ">=": "<", "<=": ">", "==": "!=", "!=": "=="}


_COMPARISONS = (">=", "<=", "==", "!=", "<", ">")


def _compare_split(body: str) -> tuple[str, str, str] | None:
    """The one top-level comparison of ``body`` (``->``, shifts and template brackets are no comparison:
    the parser's tokens tell them apart); None when there is another, or a ``&&``, ``||`` or ``?``."""
    toks = tokens(body)
    found = [t for t in toks if t.depth == 0 and t.type in _COMPARISONS and t.parent == "binary_expression"]
    if len(found) != 1 or any(t.type in ("&&", "||", "?") for t in toks):
        return None
    return body[:found[0].start].strip(), found[0].type, body[found[0].end:].strip()


def _comparison(body: str, neg: bool) -> tuple[str, str, str] | None:
    """(left, operator, right) of the one comparison of ``body``, the operator negated with ``neg``."""
    cmp = _compare_split(body)
    return None if cmp is None else (cmp[0], _NEG[cmp[1]] if neg else cmp[1], cmp[2])


def _int_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``attr <op> bound`` (bound an integer, or one depending on a tensor's rank) and
    ``rank <op> n``: violated-when atoms over integers."""
    cmp = _comparison(body, neg)
    if cmp is None:
        return None
    a, op, b = cmp
    attr = _int_attr(w, env, a)
    other = b
    if attr is None and _int_attr(w, env, b) is not None:
        attr, other, op = _int_attr(w, env, b), a, _FLIP[op]
    if attr is not None:
        try:
            bound = reenter.value(w, other, env)
        except Unreadable:
            return None
        # violated when attr <op> bound
        if _is_int(bound) and op in ("==", "!="):
            return ("attr_range", _args(attr=attr, min=bound, max=bound)) if op == "!=" else \
                ("attr_is", _args(attr=attr, value=bound))
        if op in ("==", "!="):
            return None
        if _is_int(bound):
            lim = {">": dict(max=bound), ">=": dict(max=bound - 1), "<": dict(min=bound),
                   "<=": dict(min=bound + 1)}[op]
            return "attr_range", _args(attr=attr, **lim)
        lb = _lin(bound)
        if lb:
            shift = {">": 0, ">=": -1, "<": 0, "<=": 1}[op]
            key = "max" if op in (">", ">=") else "min"
            kw = {key: [lb[2], lb[3] + shift]}
            if lb[4] != lb[3]:
                kw[f"{key}_rank0"] = lb[4] + shift
            return "attr_in_rank_range", _args(attr=attr, tensor=lb[1], **kw)
        at = _iexpr_of(w, bound) if "__elem_" in a + b else None
        # each element of an array against a computed integer (array_elements.py)
        return None if at is None or _is_int(at) else element_compare_rule(attr, op, at, False)
    try:
        x, y = reenter.value(w, a, env), reenter.value(w, b, env)
    except Unreadable:
        return None
    if _lin(y) and _is_int(x):
        x, y, op = y, x, _FLIP[op]
    lx = _lin(x)
    if lx and _is_int(y) and lx[2] == 1 and lx[4] == lx[3] and op == "==" and y - lx[3] == 0:
        return "rank_range", _args(param=lx[1], min=1)   # a rank of 0 refused: at least 1
    if lx and _is_int(y) and lx[2] == 1 and lx[4] == lx[3] and op != "==":
        n = y - lx[3]          # rank <op> n
        bounds = {">": dict(max=n), ">=": dict(max=n - 1), "<": dict(min=n), "<=": dict(min=n + 1),
                  "!=": dict(min=n, max=n)}[op]
        return "rank_range", _args(param=lx[1], **bounds)
    ly = _lin(y)
    if lx and ly and op == "!=" and lx[1] != ly[1] and lx[2:4] == ly[2:4] == (1, 0) and (lx[4] == 0 or ly[4] == 0):
        # two tensors' ranks differ (one of them counted as ly[4] / lx[4] at rank 0)
        (mine, other) = (lx, ly) if lx[4] == 0 else (ly, lx)
        return "ranks_equal", _args(param=mine[1], other=other[1],
                                    **({"other_rank0": other[4]} if other[4] != 0 else {}))
    return None


def _never_negative(w: Walk, n: Any) -> bool:
    """The integer expression ``n`` is 0 or more on every call reaching here: a constant, a count (a
    rank, an array's length, an element count, a product of dims), a rank less a constant k no
    greater than its least rank, and sums, products and maxima of those."""
    if _is_int(n):
        return n >= 0
    if isinstance(n, tuple) and n[:1] in (("len",), ("numel",), ("snumel",), ("prod",)):
        return True
    if isinstance(n, tuple) and n[:1] in (("+",), ("*",), ("max",)):
        return all(_never_negative(w, x) for x in n[1:])
    if isinstance(n, tuple) and len(n) == 3 and n[0] == "-" and _is_int(n[2]) and isinstance(n[1], tuple):
        if n[1][:1] == ("srank",):
            return reenter.expr_min_rank(w, n[1][1]) >= n[2]
        if n[1][:1] == ("rank",):
            return reenter.min_rank_checked(w, n[1][1]) >= n[2]
    return n[:1] in (("srank",), ("rank",)) if isinstance(n, tuple) else False


def _int_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``test ? a : b`` over integers: ("iexpr", ["?", test, a, b])."""
    test = _int_test(w, cond, env)
    if test is None:
        return None
    try:
        a, b = (_iexpr_of(w, reenter.value(w, x, env)) for x in branches)
    except Unreadable:
        return None
    return None if a is None or b is None else ("iexpr", ("?", test, a, b))
