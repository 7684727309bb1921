"""Conditions and guards: a failure condition as an OR of atoms each one check, an atom read
by the family that knows it (``IsPrivateFormat`` included), guards on the call's dtypes, shapes or
integers and the rule violated exactly when a guard holds, a bool helper on dtypes inlined, both sides
of an unread condition making the same checks."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, match_close, statements
from aclnn_conformance.spec.templates import int_leaves as templates_int_leaves
from aclnn_conformance.extract.host_code.model import array_param
from aclnn_conformance.extract.host_code.model import (DList, Event, FORMAT_OF, Opaque, T, Unreadable, Walk, _End,
                                                       _Stop, _args, _check, _cite, _flatten, _macro, _split_colon,
                                                       _split_top, _status_of, _strip, _tensor)
from aclnn_conformance.extract.host_code.promotion import (_decided, _dexpr, _dexpr_of, _dtype_owner, _promotable_args,
                                                           _undecided_check)
from aclnn_conformance.extract.host_code.integers import _iexpr_atom, _int_atom, _int_guard, _int_test
from aclnn_conformance.extract.host_code.casts import _cast_args
from aclnn_conformance.extract.host_code.ranks import _dims_atom, _dims_conjunction, _rank_compare, _raw_dim_size_zero
from aclnn_conformance.extract.host_code.shapes import _format_guard, _shape_atom, _shape_guard
from aclnn_conformance.extract.host_code.nulls import (_drop_nonnull, _flag_atom, _given_atom, _nonnull_param,
                                                       _null_conjunction, null_compared)
from aclnn_conformance.extract.host_code.dtypes import (_DCLASS, _DCLASS_NAMES, _computed, _dlist, _dtype_atom,
                                                        _dtype_conjunction, _dtype_or_opaque, _expand, _list_find,
                                                        dtype_rows_excluded)
from aclnn_conformance.extract.host_code.products import _product_bool, _product_chosen
from aclnn_conformance.extract.host_code.scalars import _has_compare, _string_test, _value_test
from aclnn_conformance.extract.host_code.kernels import _kernel_made
from aclnn_conformance.extract.host_code.empty import _zero_dim_loop, _zero_elem_loop
from aclnn_conformance.extract.host_code.guard_rules import contiguity_rule, selects_decided
import aclnn_conformance.extract.host_code.reenter as reenter


def _bool_local_written_out(cond: str, env: dict) -> str | None:
    """``scene1`` or ``!(scene1)`` of a local ``auto scene1 = x1 != nullptr && ...;``, null tests of the
    API's arguments joined by ``&&`` and ``||`` (ops-transformer gmm/grouped_matmul_finalize_routing/op_host/op_api/
    aclnn_grouped_matmul_finalize_routing.cpp:1095-1097): the condition with the test written out, read
    as written there; None for anything else."""
    m = re.fullmatch(r"(!\s*)?(?:\(\s*([A-Za-z_]\w*)\s*\)|([A-Za-z_]\w*))", cond)
    held = env.get(m.group(2) or m.group(3)) if m else None
    if not isinstance(held, Opaque):
        return None
    parts = re.split(r"&&|\|\|", re.sub(r"\s+", " ", held.text))
    tests = [re.fullmatch(r"\s*([A-Za-z_]\w*) (?:!=|==) nullptr\s*", p) for p in parts]
    if not all(t and isinstance(env.get(t.group(1)), T) for t in tests):
        return None   # (null tests only: a local holding other tests keeps its own readers)
    return f"!({held.text})" if m.group(1) else held.text


def _names_null_local(cond: str, env: dict) -> bool:
    """``cond`` names a local holding null tests of the arguments (_bool_local_written_out's kind)."""
    return any(_bool_local_written_out(name, env) is not None for name in re.findall(r"[A-Za-z_]\w*", cond))


def _data_condition(w: Walk, src: SourceFile, offset: int, cond: str, env: dict, code: int,
                    text: str) -> None:
    """The checks of a failure taken when ``cond`` holds: an OR of atoms, each one check."""
    cond = _strip(cond)
    env = selects_decided(w.guards, env)   # a local chosen on a rank test the branch decides
    held = env.get(cond)
    if isinstance(held, tuple) and held[:1] == ("guard",):
        # a bool local holding a guard (ops-nn matmul/addmv/op_host/op_api/aclnn_addmv.cpp:176-178: any
        # tensor in FRACTAL_NZ): each part of a disjunction one check, as written out
        parts = held[1][1:] if held[1][0] == "or" else (held[1],)
        rules = [_guard_atom(p) for p in parts]
        if None not in rules:
            for rule in rules:
                _check(w, src, offset, rule[0], rule[1], code, text)
            return
    written = _bool_local_written_out(cond, env)
    if written is not None:   # a bool local holding a test of the call's arguments: that test
        _data_condition(w, src, offset, written, env, code, text)
        return
    formula = _null_test(w, cond, env) if _names_null_local(cond, env) else None
    if formula is not None:   # null tests of several such locals combined: one test of which are given
        _check(w, src, offset, "int_test", _args(test=("guard", formula)), code, text)
        return
    string = _string_test(w, cond, env)
    if string is not None:   # a string argument none of the words the code accepts
        _check(w, src, offset, "string_in", _args(attr=string[0], values=string[1],
                                                  **({"prefix": True} if string[2] else {})), code, text)
        return
    test = _value_test(w, cond, env)
    if test is not None and _has_compare(test):   # a condition on scalar values: one rule
        _check(w, src, offset, "scalar_test", _args(test=test), code, text)
        return
    raw = _raw_dim_size_zero(w, cond, env)
    if raw is not None:   # a dim read at the integer argument as given: a negative one is not read
        attr, tensor = raw
        path, line = _cite(src, offset)
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", (
            "or", ("value", ("cmp", attr, "int", "<", 0.0)), ("rank-zero", tensor))),)), None, path, line,
            f"a dim of {tensor} read at {attr} not wrapped (a negative {attr}, or rank 0, reads outside the "
            f"shape): {text}"[:160]))
        _check(w, src, offset, "attr_dims_nonzero", _args(attr=attr, tensor=tensor), code, text)
        return
    if cond.startswith("!(") and match_close(cond, 1) == len(cond) - 1:
        inner = _strip(cond[2:-1])
        if inner.startswith("!") and not inner.startswith("!="):
            _data_condition(w, src, offset, inner[1:], env, code, text)
            return
        for a, b in (("!=", "=="), ("==", "!=")):
            two = _split_top(inner, a)
            if len(two) == 2 and len(_split_top(inner, "&&")) == 1 and len(_split_top(inner, "||")) == 1:
                _data_condition(w, src, offset, f"{two[0]} {b} {two[1]}", env, code, text)
                return
        parts = _split_top(inner, "&&")
        if len(parts) > 1:   # !(a && b) = !a || !b
            for p in parts:
                _data_condition(w, src, offset, f"!({p})", env, code, text)
            return
        ors = _split_top(inner, "||")
        if len(ors) > 1:   # !(a || b) = !a && !b: a conjunction the reader may read as one test
            _data_condition(w, src, offset, " && ".join(f"!({p})" for p in ors), env, code, text)
            return
    parts = _split_top(cond, "||")
    if len(parts) > 1:
        for p in parts:
            _data_condition(w, src, offset, p, env, code, text)
        return
    ands = _split_top(cond, "&&")
    if len(ands) > 1:
        data = []
        for p in ands:
            b = _product_bool(w, p, env)
            if b is False:
                return
            if b is None:
                data.append(p)
        nonnull = [p for p in data if _nonnull_param(p, env, w)] if len(data) > 1 else []
        others = [p for p in data if p not in nonnull]

        def under_nonnull() -> None:
            """``p != nullptr && (A || B)``: A and B each a check for the calls where p is given
            (ops-nn norm/batch_norm_v3/op_host/op_api/aclnn_batch_norm.cpp:212)."""
            mark = len(w.guards)
            w.guards.extend(("not", ("null", _nonnull_param(p, env, w))) for p in nonnull)
            try:
                for part in _split_top(_strip(others[0]), "||"):
                    _data_condition(w, src, offset, part, env, code, text)
            finally:
                del w.guards[mark:]

        if len(data) > 1:
            if nonnull and len(others) == 1 and len(_split_top(_strip(others[0]), "||")) > 1:
                under_nonnull()
                return
            data = _drop_nonnull(w, data, env)
        if len(data) != 1 and (dtype_rows_excluded(w, src, offset, data, env, code, text)
                               or _dtype_conjunction(w, src, offset, data, env, code, text)
                               or _dims_conjunction(w, src, offset, data, env, code, text)):
            return
        if len(data) != 1:
            g = _guard(w, " && ".join(data), env)
            rule = _guard_atom(g) if g is not None and g[0] == "and" else _null_conjunction(data, env)
            test = _int_test(w, " && ".join(data), env) if rule is None else None
            if test is not None and templates_int_leaves(test):   # comparisons of integers, joined
                rule = "int_test", _args(test=test)
            if rule is None and _value_guarded(w, src, offset, data, env, code, text):
                return
            if rule is None and nonnull and len(others) == 1:
                # ``p != nullptr && A`` whose A no joined rule reads (an integer helper of p,
                # ops-nn norm/group_norm_grad/op_host/op_api/aclnn_group_norm_backward.cpp:236)
                under_nonnull()
                return
            if rule is None:
                raise Unreadable(f"the condition {cond!r}")
            _check(w, src, offset, rule[0], rule[1], code, text)   # one part the rule, the others its when
            return
        cond = data[0]
    b = _product_bool(w, cond, env)
    if b is False:
        return
    if b is True:
        _check(w, src, offset, "product", (), code, text)
        return
    if _undecided_check(w, src, offset, cond, env, code, text):
        return
    template, args = _dtype_atom(w, cond, env) or _atom(w, cond, env)
    _check(w, src, offset, template, args, code, text)


def _value_guarded(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                   text: str) -> bool:
    """A failure on a conjunction of tests of the call's argument values and one other condition
    (``(mode == MODE_TRUNC_DIV || mode == MODE_FLOOR_DIV) && (promoteType == DT_COMPLEX128 || ...)``,
    ops-math math/div/op_api/aclnn_div.cpp:232-236): the other condition's checks, made for the calls
    whose values pass the tests (a ``value`` guard). False, reading nothing, for anything else."""
    tests = [_value_test(w, p, env) for p in parts]
    values = [t for t in tests if t is not None]
    rest = [p for p, t in zip(parts, tests) if t is None]
    if not values or len(values) + len(rest) != len(parts) or len(rest) != 1:
        return False
    mark, guards = len(w.events), len(w.guards)
    w.guards.append(("value", values[0] if len(values) == 1 else ("and", *values)))
    try:
        _data_condition(w, src, offset, rest[0], env, code, text)
    except Unreadable:
        del w.events[mark:]
        return False
    finally:
        del w.guards[guards:]
    return True


def _decide(e: Any, atom: tuple, holds: bool) -> Any:
    """``e`` with each choice on ``atom`` taken as ``holds`` says; a choice between two equal dtypes
    made that dtype."""
    if not isinstance(e, tuple):
        return e
    if e[:2] == ("if", atom):
        return _decide(e[2] if holds else e[3], atom, holds)
    out = tuple(_decide(x, atom, holds) for x in e)
    return out[2] if out[:1] == ("if",) and len(out) == 4 and out[2] == out[3] else out


def _atom(w: Walk, cond: str, env: dict) -> tuple[str, tuple]:
    """One violated-when atom: (template, args)."""
    cond = _strip(cond)
    neg = cond.startswith("!") and not cond.startswith("!=")
    body = _strip(cond[1:]) if neg else cond
    held = re.fullmatch(r"((?:op::|::)?IsPrivateFormat)\(\s*(\w+)\s*\)", body)
    if held and isinstance(env.get(held.group(2)), Opaque) and re.fullmatch(FORMAT_OF, env[held.group(2)].text.strip()):
        # a local holding the tensor's format (``auto fmtX = x->GetStorageFormat();``, ops-math
        # math/xlog1py/op_api/aclnn_xlog1py.cpp:72-76)
        body = f"{held.group(1)}({env[held.group(2)].text.strip()})"
    m = re.fullmatch(r"(?:op::|::)?IsPrivateFormat\(\s*" + FORMAT_OF + r"\s*\)", body)
    if m and not neg:
        local = w.index.own.functions.get("IsPrivateFormat")
        if local is not None and not cond.lstrip("!").startswith("op::"):
            formats = re.findall(r"FORMAT_([A-Z0-9_]+)", local.body)
            return "private_format", _args(param=_tensor(env, m.group(1)), formats=formats,
                                           source=f"{local.path}:{local.line}")
        return "private_format", _args(param=_tensor(env, m.group(1)), formats="opbase")
    m = re.fullmatch(r"(?:op::)?CanCast\(\s*(\w+)\s*->\s*GetDataType\(\)\s*,\s*(.+)\)", body, re.S)
    if m and neg:
        to = reenter.value(w, m.group(2), env)
        if isinstance(to, tuple) and to[0] == "dtype-of":
            return "castable", _args(param=_tensor(env, m.group(1)), to=to[1])
        if isinstance(to, tuple) and to[0] == "dtype":
            return "castable", _args(param=_tensor(env, m.group(1)), to_dtype=to[1])
        raise Unreadable(f"the cast target {m.group(2)!r}")
    m = re.fullmatch(r"(?:op::)?CheckType\(\s*(\w+)\s*->\s*GetDataType\(\)\s*,\s*(.+)\)", body, re.S)
    if m:
        lst = _dlist(w, env, m.group(2))
        return ("dtype_in" if neg else "dtype_not_in",
                _args(param=_tensor(env, m.group(1)), dtypes=list(lst.dtypes), list=lst.where))
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)", body)
    if m and not neg:
        return "null", _args(param=_tensor(env, m.group(1) or m.group(2)))
    m = re.fullmatch(r"(.+?)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", body, re.S)
    found = (env.get(_strip(m.group(1))) if re.fullmatch(r"\w+", _strip(m.group(1))) else
             _list_find(w, m.group(1), env)) if m and not neg else None
    if isinstance(found, tuple) and found[:1] == ("format-found-in",):   # a format not found in a list
        return ("format_in" if m.group(2) == "==" else "format_not_in",
                _args(param=found[1], formats=list(found[2])))
    for op in ("==", "!="):
        parts = _split_top(body, op)
        if len(parts) == 2 and not neg:
            a, b = parts
            pa = env.get(_strip(a))
            d = _dexpr(pa)
            if d is not None and d[0] == "promote" and d[1][0] == d[2][0] == "of":   # a helper returned it
                pa = ("promote", d[1][1], d[2][1])
            if isinstance(pa, tuple) and pa and pa[0] == "promote" and op == "==" and \
                    re.fullmatch(r"(?:op::)?(?:DataType::)?DT_UNDEFINED", _strip(b)):
                return "promotable", _args(param=pa[1], other=pa[2])
            ma = re.fullmatch(r"(\w+)\s*->\s*GetDataType\(\)", _strip(a))
            if ma:
                other = reenter.value(w, b, env)
                if isinstance(other, tuple) and other[0] == "dtype":
                    return ("dtype_not_in" if op == "==" else "dtype_in",
                            _args(param=_dtype_owner(w, env, ma.group(1)), dtypes=[other[1]], list="literal"))
                if isinstance(other, tuple) and other[0] == "dtype-of" and op == "!=":
                    return "dtypes_equal", _args(param=_dtype_owner(w, env, ma.group(1)), other=other[1])
            sa = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", _strip(a))
            sb = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", _strip(b))
            if sa and sb and op == "!=":
                return "shapes_equal", _args(param=_tensor(env, sa.group(1)), other=_tensor(env, sb.group(1)))
    for op in (">=", "<=", ">", "<", "!="):
        parts = _split_top(body, op)
        if len(parts) == 2 and not neg:
            md = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)|(\w+)\s*->\s*GetDimNum\(\)",
                              _strip(parts[0]))
            try:
                n = reenter.value(w, parts[1], env) if md else None
            except Unreadable:   # a bound that is no constant (``rank > repeats->Size()``): an integer test
                break
            if md and op == "!=" and isinstance(n, tuple) and n[:1] == ("lin",) and n[2:] == (1, 0, 0):
                # the rank of another tensor held in a local (ops-math
                # conversion/circular_pad_grad/op_api/aclnn_circular_pad2d_backward.cpp:32 ``... == selfDimnum``)
                return "ranks_equal", _args(param=_tensor(env, md.group(1) or md.group(2)), other=n[1])
            if md and isinstance(n, tuple) and n[:1] == ("lin",):
                break   # another tensor's rank (``a->GetDimNum() != b->GetDimNum()``): an integer test below
            if md and (not isinstance(n, int) or isinstance(n, bool)):
                break   # a bound read as no constant (another tensor's rank): an integer test, else unread
            if md:
                name = _tensor(env, md.group(1) or md.group(2))
                bounds = {">": dict(max=n), ">=": dict(max=n - 1), "<": dict(min=n), "<=": dict(min=n + 1),
                          "!=": dict(min=n, max=n)}[op]
                return "rank_range", _args(param=name, **bounds)
    got = _shape_atom(w, body, neg, env) or _dims_atom(w, body, neg, env) or _int_atom(w, body, neg, env) \
        or _flag_atom(w, body, neg, env) or _iexpr_atom(w, body, neg, env) or _given_atom(w, body, neg, env) \
        or contiguity_rule(body, neg, env)
    if got is not None:
        return got
    test = _int_test(w, cond, env)   # a bool local holding a bool array's element (``!outquant1``)
    if test is not None and templates_int_leaves(test):
        return "int_test", _args(test=test)
    raise Unreadable(f"the condition {cond!r}")


# ---- the OP_CHECK_* macros (op_error_check.h) ----

def _converted(env: dict, expr: str) -> bool:
    """``expr`` holds a scalar argument made a tensor (ConvertToTensor): never null, rank 0."""
    held = env.get(_strip(expr))
    return isinstance(held, tuple) and held[:1] == ("converted",)


def _guard(w: Walk, cond: str, env: dict, undecided: bool = False) -> tuple | None:
    """A condition on the dtypes of the call (computed or of tensors), or on a tensor being empty or of
    rank 0, as a guard; None otherwise, and when it reads a dtype chosen on an undecided condition
    (unless ``undecided``: _undecided_check's reading)."""
    g = _guard_read(w, cond, env)
    return g if undecided or g is None or not _has_atom(g, "undecided") else None


def _guard_read(w: Walk, cond: str, env: dict) -> tuple | None:
    cond = _strip(cond)
    shape_guard = _shape_guard(cond, env)
    if shape_guard is not None:
        return shape_guard
    rank_compare = _rank_compare(w, cond, env)
    if rank_compare is not None:
        return rank_compare
    nm = re.fullmatch(r"(\w+)\s*(?:->\s*Size\(\)\s*)?(==|!=)\s*0", cond)
    held = env.get(nm.group(1)) if nm else None
    if isinstance(held, Opaque) and re.fullmatch(r"\w+\s*->\s*Size\(\)", held.text.strip()) and \
            not re.search(r"->\s*Size", nm.group(0)):   # a local holding the array's size
        held = env.get(held.text.split("->")[0].strip())
    elif nm and not re.search(r"->\s*Size", nm.group(0)):
        held = None
    if isinstance(held, T) and "IntArray" in w.ptypes.get(held.name, ""):
        g = ("no-dims", held.name)   # an integer array naming no dim
        return g if nm.group(2) == "==" else ("not", g)
    lm = re.fullmatch(r"(\w+)\s*->\s*Size\(\)\s*(==|!=|<=|>=|<|>)\s*(\d+)", cond)
    if lm and array_param(w, env.get(lm.group(1)), ("Int", "Bool")):
        return ("attr-len", env[lm.group(1)].name, lm.group(2), int(lm.group(3)))   # the array's length
    if re.fullmatch(r"[A-Za-z_]\w*", cond) and isinstance(env.get(cond), tuple) and env[cond][:1] == ("guard",):
        return env[cond][1]
    format_guard = _format_guard(cond, env)
    if format_guard is not None:
        return format_guard
    fm = re.fullmatch(r"(\w+)\s*->\s*GetStorageFormat\(\)\s*([!=]=)\s*(\w+)\s*->\s*GetStorageFormat\(\)", cond)
    if fm and isinstance(env.get(fm.group(1)), T) and isinstance(env.get(fm.group(3)), T):
        g = ("format-same", env[fm.group(1)].name, env[fm.group(3)].name)   # two tensors' storage formats
        return g if fm.group(2) == "==" else ("not", g)
    me = re.fullmatch(r"(\w+)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", cond)
    if me and isinstance(env.get(me.group(1)), tuple) and env[me.group(1)][:1] == ("map-find",):
        g = ("in", env[me.group(1)][1], tuple(k for k, _ in env[me.group(1)][2]))
        return g if me.group(2) == "!=" else ("not", g)
    if me and isinstance(env.get(me.group(1)), tuple) and env[me.group(1)][:1] == ("found-in",):
        g = env[me.group(1)][1]
        return g if me.group(2) == "!=" else ("not", g)
    fe = re.fullmatch(r"(.+?)\s*([!=]=)\s*([\w:]+)\s*\.\s*end\(\)", cond, re.S)
    found = _list_find(w, fe.group(1), env) if fe else None
    if found is not None:
        return found[1] if fe.group(2) == "!=" else ("not", found[1])
    q = _split_top(cond, "?")
    if len(q) == 2 and len(_split_colon(q[1])) == 2:   # a choice on the product between two conditions
        decided = _product_bool(w, q[0], env)
        if decided is not None:
            return _guard(w, _split_colon(q[1])[0 if decided else 1], env)
        return _chosen_guard(w, q[0], _split_colon(q[1]), env)
    for op, name in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            decided = [_product_bool(w, p, env) for p in parts]
            if (op == "&&" and False in decided) or (op == "||" and True in decided):
                return None   # decided on this product: no guard (the caller reads it as decided)
            parts = [p for p, d in zip(parts, decided) if d is None]   # the product terms that hold drop
            gs = [_guard(w, p, env) for p in parts]
            if None in gs or not gs:
                return None
            return gs[0] if len(gs) == 1 else (name, *gs)
    if cond.startswith("!") and not cond.startswith("!="):
        g = _guard(w, cond[1:], env)
        return None if g is None else ("not", g)
    bm = re.fullmatch(r"\(\s*\*\s*(\w+)\s*\)\s*\[[^\[\]]+\]", cond)
    if bm and array_param(w, env.get(bm.group(1)), ("Bool",)):
        # a bool array's element as the condition (aclnn_layer_norm_backward.cpp:269 ``(*outputMask)[0]``)
        test = _int_test(w, f"{cond} != 0", env)
        return None if test is None else ("int", test)
    for op in ("==", "!="):
        parts = _split_top(cond, op)
        if len(parts) == 2:
            try:
                a, b = _dexpr_of(w, parts[0], env), _dexpr_of(w, parts[1], env)
            except Unreadable:
                return _int_guard(w, cond, env)
            if b[0] != "dtype":
                if a[0] != "dtype":
                    g = ("same", a, b)   # two dtypes of the call compared
                    return g if op == "==" else ("not", g)
                a, b = b, a
            g = ("in", a, (b[1],))
            return g if op == "==" else ("not", g)
    call = _macro(cond)
    if call and match_close(cond, cond.index("(")) == len(cond) - 1:
        short, args = call[0].split("::")[-1], call[1]
        try:
            if short in _DCLASS and len(args) in (1, 2):
                cls = _DCLASS[short]
                if short == "IsIntegralType" and len(args) == 2:
                    if args[1].strip() not in ("true", "false"):
                        return None
                    cls = "integral_bool" if args[1].strip() == "true" else cls
                return ("in", _dexpr_of(w, args[0], env), (cls,))
            if short == "CheckType" and len(args) == 2:
                lst = reenter.value(w, args[1], env)
                if isinstance(lst, DList):
                    return ("in", _dexpr_of(w, args[0], env), tuple(lst.dtypes), lst.where)
            if short == "CanCast" and len(args) == 2:
                return ("cast", _dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env))
            if short == "IsContiguous" and len(args) == 1:   # opbase tensor_view_utils.h, of an API tensor
                return ("contiguous", (_tensor(env, args[0]),))
        except Unreadable:
            return None
        return _guard_function(w, call[0], args, env)
    return _int_guard(w, cond, env)


def _chosen_guard(w: Walk, test: str, sides: list[str], env: dict) -> tuple | None:
    """``c ? a : b`` as a condition, each of c, a, b a guard or a ``true``/``false`` literal (ops-nn
    norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:253
    ``(outputMask == nullptr) ? true : (*outputMask)[0]``): ``(c and a) or (not c and b)``, a literal
    side folded; None when a part is something else."""
    c = _null_test(w, test, env) or _guard(w, test, env)
    if c is None:
        return None
    literal = {"true": True, "false": False}
    a, b = (literal.get(_strip(s), None) for s in sides)
    ga, gb = (None if lit is not None else _null_test(w, s, env) or _guard_under(w, s, env, under)
              for lit, s, under in zip((a, b), sides, (c, ("not", c))))
    if (a is None and ga is None) or (b is None and gb is None) or (a is not None and b is not None):
        return None   # an unread side; two literals are c or not c, which no vendor file writes
    if a is not None:
        return ("or", c, gb) if a else ("and", ("not", c), gb)
    if b is not None:
        return ("and", c, ga) if not b else ("or", ("not", c), ga)
    return ("or", ("and", c, ga), ("and", ("not", c), gb))


def _null_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """``p == nullptr`` (or ``!=``) of a pointer argument: ("null", p) (or its ``not``); None otherwise.
    Read here only, in a ternary: elsewhere a branch on it is the walk's null branch. A conjunction or
    disjunction of such tests too, a negated parenthesis of them, and a local holding them
    (ops-transformer gmm/grouped_matmul_finalize_routing/op_host/op_api/aclnn_grouped_matmul_finalize_routing.cpp:915-921
    ``!(scene1 || scene2)``)."""
    for op, name in (("||", "or"), ("&&", "and")):
        parts = _split_top(_strip(cond), op)
        if len(parts) > 1:
            tests = [_null_test(w, p, env) for p in parts]
            return None if None in tests else (name, *tests)
    written = _bool_local_written_out(_strip(cond), env)
    if written is not None:
        return _null_test(w, f"({written})", env)
    if _strip(cond).startswith("!(") and match_close(_strip(cond), 1) == len(_strip(cond)) - 1:
        inner = _null_test(w, _strip(cond)[1:], env)
        return None if inner is None else ("not", inner)
    given, absent = _nonnull_param(cond, env), null_compared(cond, env)
    return ("not", ("null", given)) if given is not None else None if absent is None else ("null", absent)


def _guard_under(w: Walk, cond: str, env: dict, under: tuple) -> tuple | None:
    """``cond`` read as a guard on the calls for which ``under`` holds (a ternary's side: an array
    element the other side's test keeps inside the array)."""
    w.guards.append(under)
    try:
        return _guard(w, cond, env)
    finally:
        w.guards.pop()


def _same_checks_both_sides(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (C) {A} else {B}`` on a condition the reader does not read, both sides reading into the
    same checks in the same order with the same statuses (``IsNonContiguousSupport``: a view or a
    contiguous copy, then one kernel and one shape check): those checks hold whichever side a call
    takes. A local the sides leave differently is unknown after; a side that returns, stops or is
    unread declines."""
    mark, guards, pending = len(w.events), list(w.guards), list(w.pending)
    sides = []
    try:
        for branch in (stmt.then, stmt.orelse):
            local, start = dict(env), len(w.events)
            reenter.run_block(w, src, branch, local, fail, top)
            sides.append((w.events[start:], local))
    except (Unreadable, _Stop, _End):
        del w.events[mark:]
        w.guards[:], w.pending[:] = guards, pending
        return False
    (e0, l0), (e1, l1) = sides
    key = lambda e: (e.kind, e.template, e.args, e.status)   # noqa: E731
    # a Cast's routes checked on one side only (a cast the other side does not make) stay unjudged on
    # both, as any inner failure of the compute path the sides do not share
    routes0, routes1 = ({key(e) for e in side if e.template == "cast_routed"} for side in (e0, e1))
    e0 = [e for e in e0 if e.template != "cast_routed" or key(e) in routes1]
    e1 = [e for e in e1 if e.template != "cast_routed" or key(e) in routes0]
    if [key(e) for e in e0] != [key(e) for e in e1]:
        del w.events[mark:]
        return False
    del w.events[mark:]
    w.events.extend(e0)   # one side's events: the same checks
    for k in set(l0) | set(l1):
        if l0.get(k) == l1.get(k):
            env[k] = l0[k]
        elif k in env:
            env[k] = ("kernel-result", k) if _kernel_made(l0.get(k)) and _kernel_made(l1.get(k)) else \
                Opaque(f"{k}, set differently on the two sides of a branch on {stmt.cond.strip()}")
    return True


def _has_atom(g: Any, name: str) -> bool:
    return isinstance(g, tuple) and bool(g) and (g[0] == name or any(_has_atom(x, name) for x in g[1:]))


def _plain_exit(stmt: Stmt) -> bool:
    """The branches call no kernel and every return in them gives a literal: true, false, or a status
    name."""
    for s in _flatten(stmt.then + stmt.orelse):
        if re.search(r"\bl0op::", s.text):
            return False
        if s.kind == "return":
            value = s.text.strip()[len("return"):].strip().rstrip(";").strip()
            if value not in ("true", "false") and _status_of(value) is None:
                return False
    return True


def _guard_function(w: Walk, name: str, args: list[str], env: dict) -> tuple | None:
    """A bool helper on dtypes, inlined: its body ``return C;`` or ``if (C) { return true; } return
    false;``, after locals it declares (``auto it = std::find(L.begin(), L.end(), d);``)."""
    fn = w.index.function(name)
    if fn is not None and fn.returns.split()[-1] in ("bool", "aclnnStatus") and _zero_elem_loop(fn):
        # a status-typed helper returning only true (1) or false (0): as a condition, the same test
        array = env.get(_strip(args[0])) if len(args) == 1 else None
        return ("zero-elem", array.name) if isinstance(array, T) and \
            "IntArray" in w.ptypes.get(array.name, "") else None
    if fn is None or fn.returns.split()[-1] != "bool" or w.depth > 12:
        return None
    zero = _zero_dim_loop(fn)
    if zero is not None:
        tensor = env.get(_strip(args[0])) if len(args) == 1 else None
        return ("zero-dim", tensor.name, zero) if isinstance(tensor, T) else None
    body = list(statements(fn.body, fn.body_offset))
    try:
        bindings = reenter.bind(w, fn, args, env)
    except Unreadable:
        return None
    while len(body) > 1 and body[0].kind == "decl":
        m = re.match(r"(?:auto|const|[\w:]+|\s|[*&])*?\b([A-Za-z_]\w*)\s*=\s*(.+?);?$", body[0].text.strip(), re.S)
        if not m:
            return None
        try:
            bindings[m.group(1)] = reenter.value(w, m.group(2), bindings)
        except Unreadable:
            bindings[m.group(1)] = _dtype_or_opaque(w, m.group(2), bindings)
        body.pop(0)
    body = _product_chosen(w, body, bindings)
    if len(body) == 1 and body[0].kind == "return":
        cond = body[0].text.strip()[len("return"):]
    elif (len(body) == 2 and body[0].kind == "if" and not body[0].orelse and len(body[0].then) == 1
          and body[0].then[0].text.strip().rstrip(";") == "return true"
          and body[1].text.strip().rstrip(";") == "return false"):
        cond = body[0].cond
    else:
        return None
    w.depth += 1
    try:
        return _guard(w, cond, bindings)
    finally:
        w.depth -= 1


def _guard_atom(g: tuple) -> tuple[str, tuple] | None:
    """The rule violated exactly when guard ``g`` holds, when a template expresses it."""
    if _lengths_only(g):   # integer arrays' lengths: the integer test of that guard
        return "int_test", _args(test=("guard", g))
    if g[0] == "and":   # the first part a template expresses (arrays' lengths last), the others its when
        g = ("and", *[x for part in g[1:] for x in (part[1:] if part[0] == "and" else (part,))])
        g = _formats_merged(g)
        if g[0] != "and":   # all of it one tensor's formats
            return _guard_atom(g)
        outs = [x[1] for x in g[1:] if x[0] == "not" and x[1][0] == "in" and len(x[1]) == 3]
        if len(outs) == len(g) - 1 and len({x[1] for x in outs}) == 1 and outs[0][1][0] == "of" and \
                not any(n == "UNDEFINED" or n in _DCLASS_NAMES for x in outs for n in x[2]):
            # one tensor's dtype none of several (``d != A && d != B``, ops-math
            # conversion/trans_data/op_api/aclnn_trans_convolution_weight.cpp:74): its dtype one of them all
            return "dtype_in", _args(param=outs[0][1][1], dtypes=[n for x in outs for n in x[2]], list="literal")
        for i, part in sorted(enumerate(g[1:]), key=lambda p: _lengths_only(p[1])):
            r = _guard_atom(part)
            if r is not None:
                rest = g[1:i + 1] + g[i + 2:]
                when = rest[0] if len(rest) == 1 else ("and", *rest)
                if any(k == "when" for k, _ in r[1]):
                    return None
                return r[0], tuple(sorted(r[1] + (("when", when),)))
        return None
    if g[0] == "empty":   # the named tensors empty (any of them, or all)
        return "empty", _args(params=tuple(g[1]), any=g[2])
    if g[0] == "in" and g[2] == ("UNDEFINED",) and _computed(g[1]):
        e = g[1]
        if e[0] == "promote" and e[1][0] == e[2][0] == "of":   # the plain form _atom reads
            return None
        return "promotable", _promotable_args(e)
    if g[0] == "in" and _computed(g[1]) and "UNDEFINED" not in g[2] and \
            not any(n in _DCLASS_NAMES for n in g[2]):   # a computed dtype in a list the code refuses
        return "dtype_expr_in", _args(expr=g[1], dtypes=list(g[2]), list=g[3] if len(g) > 3 else "literal")
    if g[0] == "in" and g[1][0] == "of" and ("UNDEFINED" not in g[2] or g[2] == ("UNDEFINED",)):
        # a tensor's own dtype against DT_UNDEFINED too: aclCreateTensor takes ACL_DT_UNDEFINED
        return "dtype_not_in", _args(param=g[1][1], dtypes=_expand(g[2]), list="literal")
    if g[0] == "format-in":   # a tensor's storage format one the code refuses (aclnn_addmv.cpp:176-178: NZ)
        return "format_not_in", _args(param=g[1], formats=list(g[2]))
    if g[0] != "not":
        return None
    if g[1][0] == "contiguous":   # a tensor not contiguous (aclnn_trans_convolution_weight.cpp:102): that guard's test
        return "int_test", _args(test=("guard", g))
    g = g[1]
    if g[0] == "in" and g[1][0] == "of" and "UNDEFINED" not in g[2] and \
            (any(n in _DCLASS_NAMES for n in g[2]) or len(g) > 3):
        return "dtype_in", _args(param=g[1][1], dtypes=_expand(g[2]), list=g[3] if len(g) > 3 else "literal")
    if g[0] == "in" and _computed(g[1]) and "UNDEFINED" not in g[2] and \
            not any(n in _DCLASS_NAMES for n in g[2]):
        return "promotable", _promotable_args(("restrict", g[1], g[2]))
    ins = g[1:] if g[0] == "or" else ()
    if ins and all(x[0] == "in" and x[1] == ins[0][1] and x[1][0] == "of" and len(x) == 3 and
                   not any(n == "UNDEFINED" or n in _DCLASS_NAMES for n in x[2]) for x in ins):
        # a tensor's dtype none of several (a dtype switch's default): its dtype one of them all
        return "dtype_in", _args(param=ins[0][1][1], dtypes=[n for x in ins for n in x[2]], list="literal")
    if g[0] == "cast" and (_computed(g[1]) or _computed(g[2]) or g[1][0] == "dtype"):
        return "castable", _cast_args(g[1], g[2])
    if g[0] == "format-same":
        return "formats_equal", _args(param=g[1], other=g[2])
    if g[0] == "format-in":   # a tensor's storage format none of some (aclnn_batch_norm.cpp:167-168)
        return "format_in", _args(param=g[1], formats=list(g[2]))
    if g[0] == "same" and all(e[0] == "of" for e in g[1:]):   # two tensors of one dtype
        return "dtypes_equal", _args(param=g[1][1], other=g[2][1])
    if g[0] == "same" and sum(e[0] == "of" for e in g[1:]) == 1 and any(_computed(e) for e in g[1:]):
        tensor, expr = (g[1], g[2]) if g[1][0] == "of" else (g[2], g[1])
        return "dtypes_equal_expr", _args(param=tensor[1], expr=expr)
    if g[0] == "pair-in" and all(e[0] == "of" for e in g[1]):   # the pair of dtypes in none of the pairs
        return "combination_in", _args(params=[e[1] for e in g[1]],
                                       combinations=tuple(tuple((d,) for d in pair) for pair in g[2]), list=g[3])
    return None


def _formats_merged(g: tuple) -> tuple:
    """``("and", ...)`` with the parts saying one tensor's format is none of some formats made one
    part (``f != NCDHW && f != NDHWC``: f none of both)."""
    nots = [x for x in g[1:] if x[0] == "not" and x[1][0] == "format-in"]
    tensors = {x[1][1] for x in nots}
    if len(nots) < 2 or len(tensors) != 1:
        return g
    merged = ("not", ("format-in", tensors.pop(), tuple(f for x in nots for f in x[1][2])))
    rest = [x for x in g[1:] if x not in nots]
    return ("and", *rest, merged) if rest else merged


def _lengths_only(g: tuple) -> bool:
    """Guard ``g`` tests nothing but integer arrays' lengths (``a->Size() == n``)."""
    if g[0] in ("and", "or", "not"):
        return all(_lengths_only(x) for x in g[1:])
    return g[0] == "attr-len"


def _guarded_args(w: Walk, template: str, args: tuple) -> tuple:
    _decided(args)
    if template == "product":
        raise Unreadable("a failure of every call taking a data-dependent branch")
    guards = list(w.guards) + [v for k, v in args if k == "when"]
    when = guards[0] if len(guards) == 1 else ("and", *guards)
    return tuple(sorted(tuple((k, v) for k, v in args if k != "when") + (("when", when),)))


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.atom = _atom
reenter.converted = _converted
reenter.decide = _decide
reenter.guard = _guard
reenter.guard_atom = _guard_atom
reenter.guarded_args = _guarded_args
reenter.has_atom = _has_atom
