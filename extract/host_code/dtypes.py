"""Dtype lists and checks: ``OP_CHECK_DTYPE_NOT_SUPPORT`` over per-product lists,
``OP_CHECK_DTYPE_NOT_MATCH``/``NOT_SAME``, the data_type_utils.h classes, dtype atoms of a failure,
conjunctions of dtype conditions, ``std::find`` in a list, dtype pairs, constant maps and their
``find``, dtype lists in place, ``switch`` on a dtype."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, match_close, split_args, statements, switch_cases
from aclnn_conformance.extract.host_code.model import (DList, FORMAT_OF, Opaque, T, Unreadable, Walk, _End, _args,
                                                       _check, _fail_status, _flatten, _mentions, _split_top, _strip,
                                                       _tensor)
from aclnn_conformance.extract.host_code.promotion import _UNDEF, _dexpr, _dexpr_of, _leaves
from aclnn_conformance.extract.host_code.casts import _tensor_dtype
from aclnn_conformance.extract.host_code.shapes import _format_local
from aclnn_conformance.extract.host_code.nulls import _VACUOUS_ON_NULL, _nonnull_param
import aclnn_conformance.extract.host_code.reenter as reenter


def _dlist(w: Walk, env: dict, expr: str) -> DList:
    value = reenter.value(w, expr, env)
    if isinstance(value, DList):
        return value
    raise Unreadable(f"{expr!r} is not a dtype list the reader can resolve")


def _dlist_arms(value: Any, guards: tuple = ()) -> list[tuple[tuple, DList]]:
    """The (guards, list) of each choice of a dtype list chosen on guards (branches.py's
    ``dlist-choice``); a list alone is one arm without guards."""
    if isinstance(value, DList):
        return [(guards, value)]
    _, guard, then, orelse = value
    return _dlist_arms(then, guards + (guard,)) + _dlist_arms(orelse, guards + (("not", guard),))


def _m_dtype_support(w, src, stmt, env, fail, args):
    held = reenter.value(w, args[1], env)
    if isinstance(held, tuple) and held[:1] == ("dlist-choice",) and isinstance(env.get(_strip(args[0])), T):
        for guards, lst in _dlist_arms(held):   # one check per choice, made where its guards hold
            when = guards[0] if len(guards) == 1 else ("and", *guards)
            _check(w, src, stmt.offset, "dtype_in", _args(param=_tensor(env, args[0]), dtypes=list(lst.dtypes),
                                                          list=lst.where, when=when), _fail_status(args[2], fail),
                   stmt.text)
        return
    lst = _dlist(w, env, args[1])
    computed = None if isinstance(env.get(_strip(args[0])), T) else _tensor_dtype(w, args[0], env)
    if computed is not None and computed[0] == "of" and reenter.converted(env, args[0]):
        # a scalar made a tensor of its own dtype: the scalar's dtype is checked
        _check(w, src, stmt.offset, "dtype_in", _args(param=computed[1], dtypes=list(lst.dtypes), list=lst.where),
               _fail_status(args[2], fail), stmt.text)
        return
    if computed is not None and _computed(computed):
        # a cast or kernel result of the compute path: its dtype, the expression, must be in the list
        atom = reenter.guard_atom(("not", ("in", computed, tuple(lst.dtypes), lst.where)))
        if atom is None:
            raise Unreadable(f"the dtype of {args[0].strip()!r} against a list")
        _check(w, src, stmt.offset, atom[0], atom[1], _fail_status(args[2], fail), stmt.text)
        return
    _check(w, src, stmt.offset, "dtype_in", _args(param=_tensor(env, args[0]), dtypes=list(lst.dtypes),
                                                  list=lst.where), _fail_status(args[2], fail), stmt.text)


def _m_dtype_match(w, src, stmt, env, fail, args):
    name = _tensor(env, args[0])
    try:
        other = reenter.value(w, args[1], env)
    except Unreadable:
        other = None
    if _dexpr(other) is None or _computed(_dexpr(other)):
        return _m_dtype_match_expr(w, src, stmt, env, fail, args, name)
    if isinstance(other, tuple) and other[0] == "dtype-of":
        _check(w, src, stmt.offset, "dtypes_equal", _args(param=name, other=other[1]),
               _fail_status(args[2], fail), stmt.text)
    elif isinstance(other, tuple) and other[0] == "dtype":
        _check(w, src, stmt.offset, "dtype_in", _args(param=name, dtypes=[other[1]], list="literal"),
               _fail_status(args[2], fail), stmt.text)
    else:
        raise Unreadable(f"the expected dtype {args[1]!r}")


def _m_dtype_same(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "dtypes_equal", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


# ---- computed dtypes and data-dependent dtype branches ----
# A computed dtype (PromoteType of tensors' dtypes, a choice on a dtype condition, a constant) is held
# as ("dexpr", E), E a spec.templates.dtype_value expression as nested tuples; a condition on computed
# dtypes (or on the contiguity of the API's tensors) is a spec.templates.guard_holds guard. A branch
# on such a condition runs with the guard (its checks apply only to calls taking it: the rule's
# ``when``); the path after a branch that returns runs with the guard negated.

_DCLASS = {"IsComplexType": "complex", "IsFloatingType": "floating", "IsIntegralType": "integral"}


_DCLASS_NAMES = ("complex", "floating", "integral", "integral_bool")


def _expand(names: tuple) -> list[str]:
    """Dtype names with the data_type_utils.h classes written out (spec.templates.DTYPE_CLASSES)."""
    from aclnn_conformance.spec.templates import DTYPE_CLASSES
    out: list[str] = []
    for n in names:
        for d in sorted(DTYPE_CLASSES.get(n, {n})):
            if d not in out:
                out.append(d)
    return out


def _computed(e: tuple) -> bool:
    return e[0] not in ("of", "dtype")


def _dtype_atom(w: Walk, cond: str, env: dict) -> tuple[str, tuple] | None:
    """A violated-when atom on a computed dtype: ``E == DT_UNDEFINED`` (promotable with ``expr``),
    ``!CheckType(E, LIST)`` (promotable of E restricted to LIST), ``!CanCast(E1, E2)`` (castable with
    ``from_expr``/``to_expr``); None for an atom of another kind (the caller reads it)."""
    cm = re.fullmatch(r"!\s*(?:op::)?CheckType\((.*)\)", _strip(cond), re.S)
    if cm and len(split_args(cm.group(1))) == 2:
        x, lst = split_args(cm.group(1))
        try:
            e, dl = _dexpr_of(w, x, env), reenter.value(w, lst, env)
        except Unreadable:
            e, dl = None, None
        if e is not None and e[0] == "of" and isinstance(dl, DList):
            return "dtype_in", _args(param=e[1], dtypes=list(dl.dtypes), list=dl.where)
    g = reenter.guard(w, cond, env)
    if g is None:
        return None
    return reenter.guard_atom(g)


def _switch_labels(text: str) -> tuple[str, list[tuple[int, int, str | None]], int] | None:
    """A switch's body, its top-level labels (start, end, label value or None for default) and the
    offset of its opening brace; None when the body does not close."""
    found = switch_cases(text)
    if found is None:
        return None
    body, cases, opening = found
    return body, [(c.start, c.end, c.value) for c in cases], opening


def _run_dtype_switch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool,
                      subject: str) -> bool:
    """``switch`` on a dtype: each label group a branch on ``subject == label`` (the default on none of
    them), run as data-dependent branches; a group falling through into the next is unread."""
    text = stmt.text
    found = _switch_labels(text)
    if found is None:
        return False
    body, labels, ob = found
    groups: list[tuple[list, int, int]] = []   # (labels, body start, body end)
    for k, (start, end, label) in enumerate(labels):
        nxt = labels[k + 1][0] if k + 1 < len(labels) else len(body)
        if groups and not body[groups[-1][1]:start].strip():
            groups[-1][0].append(label)
            groups[-1] = (groups[-1][0], end, nxt)
        else:
            groups.append(([label], end, nxt))
    named = [lb for g in groups for lb in g[0] if lb is not None]
    subject = subject.strip()
    for n, (group, start, end) in enumerate(groups):
        run = list(statements(body[start:end], stmt.offset + ob + 1 + start))
        if len(run) == 1 and run[0].kind == "block":   # case X: { ...; break; }: the braces scope locals only
            run = list(run[0].then)
        if run and run[-1].kind == "decl" and run[-1].text.strip() == "break":
            run.pop()
        elif not run or (run[-1].kind != "return" and n + 1 < len(groups)):
            raise Unreadable("a switch case falling through into the next")
        if any(s.kind == "decl" and s.text.strip() == "break" for s in _flatten(tuple(run))):
            raise Unreadable("a break inside a switch case")
        if None in group:
            cond = "!(" + " || ".join(f"({subject}) == {lb}" for lb in named) + ")" if named else "true"
            if not named:
                reenter.run_block(w, src, tuple(run), env, fail, top)
                continue
        else:
            cond = " || ".join(f"({subject}) == {lb}" for lb in group)
        branch = Stmt("if", f"switch ({subject}) case", stmt.offset, cond=cond, then=tuple(run))
        mark = len(w.pending)
        if not reenter.run_guarded_if(w, src, branch, env, fail, top):
            raise Unreadable(f"the case labels of a switch on {subject!r}")
        returned = run and run[-1].kind == "return"
        if None in group and returned and all(r[-1].kind == "return" for r in
                                              (statements(body[a:b]) for _, a, b in groups) if r):
            if len(w.pending) > mark:   # every case returns a dtype: the default's is the last choice
                raise _End(("dexpr", w.pending.pop()[1]))
            raise _End(True)
    return True


def dtype_rows_excluded(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                        text: str) -> bool:
    """A failure on ``!(a == A1 && b == B1) && !(a == A2 && b == B2)``, each part one row of the
    tensors' dtypes (ops-nn index/quant_update_scatter/op_api/aclnn_quant_scatter.cpp:53-90, read from
    its chain of accepted rows): the dtypes of those two or more tensors none of the rows
    (``combination_in``). False, reading nothing, for anything else."""
    rows: list[dict[str, str]] = []
    for part in parts:
        p = _strip(part)
        if not (p.startswith("!(") and match_close(p, 1) == len(p) - 1):
            return False
        row: dict[str, str] = {}
        for atom in _split_top(_strip(p[2:-1]), "&&"):
            g = reenter.guard(w, atom, env)
            if not (g and g[0] == "in" and g[1][0] == "of" and len(g[2]) == 1 and g[1][1] not in row):
                return False
            row[g[1][1]] = g[2][0]
        rows.append(row)
    if len(rows) < 2:
        return False
    params = list(rows[0])
    if len(params) < 2 or any(sorted(r) != sorted(params) for r in rows):   # one tensor: dtype_in's
        return False
    _check(w, src, offset, "combination_in", _args(params=params, combinations=tuple(
        tuple((r[n],) for n in params) for r in rows), list="literal"), code, text)
    return True


def _dtype_conjunction(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                       text: str) -> bool:
    """A failure when several dtype conditions hold together (``a->GetDataType() == DT_BOOL &&
    b->GetDataType() == DT_BOOL``): one rule, the others its ``when``. False when it is not one."""
    present = [p for p in parts if re.fullmatch(r"(\w+)\s*!=\s*nullptr", _strip(p))
               and isinstance(env.get(_strip(p).split("!=")[0].strip()), T)]
    rest = [p for p in parts if p not in present]
    tested = {_nonnull_param(p, env, w) for p in rest} - {None}
    if tested and len(rest) > len(tested) + 1:   # p && <dtype conditions reading p>: silent on a null p
        conds = [p for p in rest if _nonnull_param(p, env, w) is None]
        r = _dtype_atom(w, " && ".join(f"({p})" for p in conds), env)
        if r is None or r[0] not in _VACUOUS_ON_NULL or not all(_mentions(r[1], n) for n in tested):
            return False
        _check(w, src, offset, r[0], r[1], code, text)
        return True
    if present and len(rest) == 1:   # x != nullptr && <a dtype atom reading x>: the atom (silent on null)
        try:
            r = _dtype_atom(w, rest[0], env) or reenter.atom(w, rest[0], env)
        except Unreadable:
            return False
        names = {_strip(p).split("!=")[0].strip() for p in present}
        read = {env[n].name for n in names}
        if r[0] in ("castable", "dtype_in", "dtype_not_in") and dict(r[1]).get("param") in read and len(read) == 1:
            _check(w, src, offset, r[0], r[1], code, text)
            return True
        return False
    r = _dtype_atom(w, " && ".join(f"({p})" for p in parts), env)
    if r is None or not any(k == "when" for k, _ in r[1]):
        return False
    _check(w, src, offset, r[0], r[1], code, text)
    return True


def _list_find(w: Walk, expr: str, env: dict) -> tuple | None:
    """``std::find(L.begin(), L.end(), d)`` with L a dtype list and d a dtype of the call:
    ``("found-in", guard d in L)`` (compared with ``L.end()`` it is that guard); None otherwise."""
    m = re.fullmatch(r"(?:std::)?find\(\s*([\w:]+)\s*\.\s*begin\(\)\s*,\s*([\w:]+)\s*\.\s*end\(\)\s*,(.+)\)",
                     _strip(expr), re.S)
    if not m or m.group(1) != m.group(2):
        return None
    formats = w.index.format_list(m.group(1))
    fm = re.fullmatch(FORMAT_OF, _format_local(m.group(3).strip(), env)) if formats is not None else None
    if fm and isinstance(env.get(fm.group(1)), T):   # a tensor's storage format searched in a format list
        return ("format-found-in", env[fm.group(1)].name, formats[0])
    pairs = w.index.pair_list(m.group(1))
    if pairs is not None:   # a list of (dtype, dtype) pairs searched for a pair of the call's dtypes
        two = _pair_of(w, m.group(3), env)
        return None if two is None else ("found-in", ("pair-in", two, pairs[0], pairs[1]))
    try:
        lst = reenter.value(w, m.group(1), env)
        d = _dexpr_of(w, m.group(3), env)
    except Unreadable:
        return None
    if not isinstance(lst, DList):
        return None
    return ("found-in", ("in", d, tuple(lst.dtypes), lst.where))


def _pair_of(w: Walk, expr: str, env: dict) -> tuple | None:
    """``std::pair<DataType, DataType>(a->GetDataType(), b->GetDataType())`` (or a local holding
    one): the two dtype expressions; None otherwise."""
    e = _strip(expr)
    held = env.get(e) if re.fullmatch(r"[A-Za-z_]\w*", e) else None
    if isinstance(held, tuple) and held[:1] == ("dtype-pair",):
        return held[1]
    m = re.fullmatch(r"(?:std::)?(?:make_pair|pair\s*<[^<>]*>)\s*\((.*)\)", e, re.S)
    if not m or match_close(e, e.index("(", m.start(1) - 1)) != len(e) - 1:
        return None
    args = split_args(m.group(1))
    try:
        return (_dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env)) if len(args) == 2 else None
    except Unreadable:
        return None


def _dtype_or_opaque(w: Walk, expr: str, env: dict) -> Any:
    """A value the reader keeps for a local or an argument: a condition on the call's dtypes
    (``("guard", g)``), a computed dtype, or Opaque."""
    found = _map_find(w, expr, env) or _list_find(w, expr, env)
    if found is not None:
        return found
    two = _pair_of(w, expr, env)
    if two is not None:
        return ("dtype-pair", two)
    g = reenter.guard(w, expr, env)
    if g is not None:
        return ("guard", g)
    try:
        return ("dexpr", _dexpr_of(w, expr, env))
    except Unreadable:
        return Opaque(expr)


def _m_dtype_match_expr(w, src, stmt, env, fail, args, name):
    """OP_CHECK_DTYPE_NOT_MATCH(t, E) with E a computed dtype (an aclDataType argument, a promotion):
    violated when t's dtype is not E, read as the promotable rule of ``t == E ? t : DT_UNDEFINED``."""
    try:
        e = _dexpr_of(w, args[1], env)
    except Unreadable:
        raise Unreadable(f"the expected dtype {args[1]!r}") from None
    if e == _UNDEF:
        raise Unreadable(f"the expected dtype {args[1]!r}")
    mine = ("of", name)
    expr = ("if", ("same", mine, e), mine, _UNDEF)
    _check(w, src, stmt.offset, "promotable", _args(param=name, other=(_leaves(e) or [name])[0], expr=expr),
           _fail_status(args[2], fail), stmt.text)


_MAP = re.compile(r"std::(?:unordered_)?map\s*<\s*([\w:]+)\s*,\s*([\w:<>\s]+?)\s*>\s*([A-Za-z_]\w*)\s*=\s*\{")


def _map_entries(w: Walk, name: str, env: dict) -> list[tuple[Any, Any]] | None:
    """The entries of a constant ``std::map``/``unordered_map`` named ``name``, values read."""
    for src in (w.index.own, *w.index.common):
        for m in _MAP.finditer(src.text):
            if m.group(3) != name:
                continue
            end = match_close(src.text, m.end() - 1, "{", "}")
            if end < 0:
                return None
            out = []
            for item in split_args(src.text[m.end():end]):
                if not item:
                    continue
                if not (item.startswith("{") and item.endswith("}")):
                    return None
                kv = split_args(item[1:-1])
                if len(kv) != 2:
                    return None
                try:
                    out.append((reenter.value(w, kv[0], env), reenter.value(w, kv[1], env)))
                except Unreadable:
                    return None
            return out
    return None


def _map_find(w: Walk, expr: str, env: dict) -> tuple | None:
    """``MAP.find(key)``: on a product key, the entry found (decided); on a dtype key, the lookup as a
    choice on the key (``("map-find", key, ((dtype, value dtype), ...))``)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*find\((.*)\)", _strip(expr), re.S)
    if not m:
        return None
    entries = _map_entries(w, m.group(1), env)
    if entries is None:
        return None
    try:
        key = reenter.value(w, m.group(2), env)
    except Unreadable:
        key = None
    if isinstance(key, tuple) and key[:1] in (("arch",), ("soc",)):
        if not all(isinstance(k, tuple) and k[:1] == key[:1] for k, _ in entries):
            return None
        return ("map-it", next((v for k, v in entries if k == key), None))
    try:
        e = _dexpr_of(w, m.group(2), env)
    except Unreadable:
        return None
    pairs = []
    for k, v in entries:
        dk, dv = _dexpr(k), _dexpr(v)
        if dk is None or dk[0] != "dtype" or dv is None:
            return None
        pairs.append((dk[1], dv))
    return ("map-find", e, tuple(pairs))


def _map_end_compare(expr: str, env: dict) -> bool | None:
    m = re.fullmatch(r"(\w+)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", expr)
    held = env.get(m.group(1)) if m else None
    if not (isinstance(held, tuple) and held[:1] == ("map-it",)):
        return None
    return (held[1] is None) == (m.group(2) == "==")


def _list_value(w: Walk, expr: str, env: dict) -> Any:
    """A braced dtype list written in place, ``LIST.size()``, ``it->second`` of a product-keyed map
    lookup; None for another expression."""
    if re.fullmatch(r"\{[\s\w:,]*\}", expr):
        names = re.findall(r"[\w:]+", expr[1:-1])
        if all(re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_[A-Z0-9_]+", n) for n in names):
            return DList(tuple(n.split("DT_", 1)[1] for n in names), "literal")
    sec = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*second", expr)
    if sec and isinstance(env.get(sec.group(1)), tuple) and env[sec.group(1)][:1] == ("map-it",):
        if env[sec.group(1)][1] is None:
            raise Unreadable(f"{expr!r} of a key the map does not hold")
        return env[sec.group(1)][1]
    sz = re.fullmatch(r"([\w:]+)\s*\.\s*size\(\)", expr)
    if sz:
        lst = reenter.value(w, sz.group(1), env)
        if isinstance(lst, DList):
            return ("list-size", len(lst.dtypes))
        raise Unreadable(f"the value of {expr!r}")
    return None
