"""Dtypes the code computes: a dtype expression read from C++ (``PromoteType`` chains, a choice
on a condition, ``GetDataType()`` of a tensor of the compute path), the dtype names one may take,
and a failure on a dtype chosen on a condition the reader cannot decide."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, match_close
from aclnn_conformance.spec.dtype_promotion import promote_type
from aclnn_conformance.extract.host_code.model import Event, T, Unreadable, Walk, _args, _check, _cite, _strip, _tensor
import aclnn_conformance.extract.host_code.reenter as reenter


def _decided(args: Any) -> None:
    """No rule carries a dtype chosen on an undecided condition (spec.templates has no reading of it)."""
    if isinstance(args, tuple) and args[:1] == ("undecided",):
        raise Unreadable(f"a dtype chosen on the condition {args[1]!r}")
    for x in args if isinstance(args, tuple) else ():
        _decided(x)


def _dtype_values(w: Walk, e: tuple | None) -> set[str] | None:
    """The dtype names ``e`` may take on the calls that reach here: a constant, a choice, or an API
    tensor's dtype bounded by the dtype checks read before (unguarded, this product); None when not
    bounded."""
    if e is None:
        return None
    if e[0] == "dtype":
        return {e[1]}
    if e[0] == "if":
        a, b = _dtype_values(w, e[2]), _dtype_values(w, e[3])
        return None if a is None or b is None else a | b
    if e[0] == "of":
        sets = [set(ev.args_dict()["dtypes"]) for ev in w.events
                if ev.kind == "check" and ev.template == "dtype_in" and ev.args_dict().get("param") == e[1]
                and "when" not in ev.args_dict()]
        return set.intersection(*sets) if sets else None
    if e[0] == "promote":   # PromoteType of each pair; a pair not promoting (DT_UNDEFINED) leaves it unbounded
        a, b = _dtype_values(w, e[1]), _dtype_values(w, e[2])
        out = None if a is None or b is None else {promote_type(x, y) for x in a for y in b}
        return None if out is None or None in out else out
    return None


def _dtype_owner(w: Walk, env: dict, expr: str) -> str:
    """The API tensor whose dtype ``expr`` has on every path: itself, or a tensor of the compute path
    holding exactly that dtype (a contiguous copy, a broadcast of one)."""
    d = reenter.tensor_dtype(w, expr, env)
    if d is not None and d[0] == "of":
        return d[1]
    return _tensor(env, expr)


def _undecided_check(w: Walk, src: SourceFile, offset: int, cond: str, env: dict, code: int, text: str) -> bool:
    """A failure condition on a dtype chosen on one undecided condition U (``U ? a : b``): g_a, the
    condition with a chosen, and g_b, with b. The call fails when both hold (the rule of g_a, g_b its
    when), passes when neither does, and is not judged when one does (an unread rule, that its
    ``when``). False when ``cond`` reads no such dtype."""
    g = reenter.guard(w, cond, env, undecided=True)
    if g is None or not reenter.has_atom(g, "undecided"):
        return False
    atoms = set(_undecided_atoms(g))
    if len(atoms) != 1:
        raise Unreadable(f"the condition {cond!r} on dtypes chosen on {len(atoms)} undecided conditions")
    atom = atoms.pop()
    ga, gb = reenter.decide(g, atom, True), reenter.decide(g, atom, False)
    if ga == gb:   # the same either way
        rule = reenter.guard_atom(ga)
    else:
        rule = reenter.guard_atom(("and", ga, gb))
        path, line = _cite(src, offset)
        w.events.append(Event("unread", "", reenter.guarded_args(w, "unread", (("when", (
            "or", ("and", ga, ("not", gb)), ("and", ("not", ga), gb))),)), None, path, line,
            " ".join(f"a dtype chosen on {atom[1]!r}, the check's answer differing between its "
                     f"choices: {text}".split())[:160]))
    if rule is None:
        raise Unreadable(f"the condition {cond!r}")
    _check(w, src, offset, rule[0], rule[1], code, text)
    return True


def _undecided_atoms(e: Any) -> list[tuple]:
    """The undecided conditions (("undecided", text)) ``e`` chooses on."""
    if not isinstance(e, tuple):
        return []
    if e[:1] == ("undecided",):
        return [e]
    return [a for x in e for a in _undecided_atoms(x)]
_UNDEF = ("dtype", "UNDEFINED")


def _dexpr(v: Any) -> tuple | None:
    """The dtype expression of a value, None when it is no dtype."""
    if isinstance(v, tuple) and v:
        if v[0] == "dexpr":
            return v[1]
        if v[0] == "dtype-of":
            return ("of", v[1])
        if v[0] == "dtype":
            return ("dtype", v[1])
        if v[0] == "promote":
            return ("promote", ("of", v[1]), ("of", v[2]))
    return None


def _dexpr_of(w: Walk, expr: str, env: dict) -> tuple:
    e = _strip(expr)
    m = re.fullmatch(r"(?:op::)?DataType\((.*)\)", e, re.S)   # DataType(alpha->GetDataType())
    if m and match_close(e, e.index("(")) == len(e) - 1:
        e = m.group(1)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetDataType\(\)", _strip(e))
    if m and isinstance(env.get(m.group(1)), T):
        return ("of", env[m.group(1)].name)
    if m and reenter.tensor_dtype(w, m.group(1), env) is not None:   # a kernel's result, a cast, a copy
        return reenter.tensor_dtype(w, m.group(1), env)
    sec = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*second", _strip(e))
    if sec and isinstance(env.get(sec.group(1)), tuple) and env[sec.group(1)][:1] == ("map-find",):
        _, key, pairs = env[sec.group(1)]
        out = _UNDEF     # read only under the guard it != end(): the last value is never taken otherwise
        for k, v in reversed(pairs):
            out = ("if", ("in", key, (k,)), v, out)
        return out
    m = re.fullmatch(r"(?:op::)?ToOpDataType\(\s*([A-Za-z_]\w*)\s*\)", _strip(e))
    if m and isinstance(env.get(m.group(1)), T):   # an aclDataType argument of the API
        return ("attr_dtype", env[m.group(1)].name)
    if re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_UNDEFINED", _strip(e)):
        return _UNDEF
    if _strip(e) == "0":   # an integer local holding a dtype, 0 on one side: DT_FLOAT, ge::DataType's 0 (graph/types.h)
        return ("dtype", "FLOAT")
    d = _dexpr(reenter.value(w, e, env))
    if d is None:
        raise Unreadable(f"{expr.strip()!r} is not a dtype the reader computes")
    return d


def _binary_op_promote(args: list[str], env: dict, expr: str) -> tuple:
    """``op::BinaryOpTypePromote(a, b[, promoteInt2Float])`` of two API tensors (ops-math
    common/inc/op_api/data_type_utils.h:71-98): PromoteType when both have dims or neither has,
    else the tensor with dims combined with the rank-0 one (spec.templates.combine_categories);
    an integral or bool result made FLOAT with the flag."""
    held = [env.get(_strip(a)) for a in args[:2]]
    flag = args[2].strip() if len(args) == 3 else "false"
    if len(args) not in (2, 3) or not all(isinstance(h, T) for h in held) or flag not in ("true", "false"):
        raise Unreadable(f"the promotion {expr!r}")
    a, b = held[0].name, held[1].name
    alike = ("or", ("and", ("rank", a, ">", 0), ("rank", b, ">", 0)), ("and", ("rank-zero", a), ("rank-zero", b)))
    mixed = ("if", ("rank", a, ">", 0), ("combine", ("of", a), ("of", b)), ("combine", ("of", b), ("of", a)))
    e = ("if", alike, ("promote", ("of", a), ("of", b)), mixed)
    return ("if", ("in", e, ("integral_bool",)), ("dtype", "FLOAT"), e) if flag == "true" else e


def _promote_expr(w: Walk, two: list[str], env: dict, expr: str) -> tuple:
    if len(two) != 2:
        raise Unreadable(f"the promotion {expr!r}")
    try:
        a, b = _dexpr_of(w, two[0], env), _dexpr_of(w, two[1], env)
    except Unreadable:
        raise Unreadable(f"the promotion {expr!r}") from None
    return ("dexpr", ("promote", a, b))


def _dexpr_of_under(w: Walk, expr: str, env: dict, guard: tuple) -> tuple:
    w.guards.append(guard)
    try:
        return _dexpr_of(w, expr, env)
    finally:
        w.guards.pop()


def _data_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple:
    """``cond ? a : b`` with both branches dtypes: a choice on ``cond`` as a guard when it is one on
    computed dtypes, else on ("undecided", cond) (a scalar's value: IsDoubleEqual of it), which no rule
    carries (_undecided_check reads a check whose answer is the same either way)."""
    g = reenter.guard(w, cond, env)
    try:   # each side read under the guard that takes it (a local chosen on the same guard resolves)
        a, b = (_dexpr_of_under(w, branches[0], env, g), _dexpr_of_under(w, branches[1], env, ("not", g))) \
            if g is not None else (_dexpr_of(w, branches[0], env), _dexpr_of(w, branches[1], env))
    except Unreadable:
        raise Unreadable(f"a choice on the call's data ({cond.strip()!r})") from None
    return ("dexpr", ("if", ("undecided", " ".join(cond.split())) if g is None else g, a, b))


def _leaves(e: Any) -> list[str]:
    if isinstance(e, tuple) and e and e[0] in ("of", "attr_dtype"):
        return [e[1]]
    out: list[str] = []
    for x in (e if isinstance(e, tuple) else ()):
        for n in _leaves(x):
            if n not in out:
                out.append(n)
    return out


def _promotable_args(e: tuple) -> tuple:
    names = _leaves(e)
    if not names:
        raise Unreadable("a computed dtype of no tensor")
    return _args(param=names[0], other=names[1] if len(names) > 1 else names[0], expr=e)


def _keep_unchanged_dtypes(w: Walk, before: dict, after: dict, env: dict) -> None:
    """A tensor a branch reassigned (``after``: its values on the branch's side) holding the dtype it
    held before on every path: that dtype whichever side a call takes (its shape is not held)."""
    for name, held in env.items():
        if held == before.get(name):
            continue
        old, new = reenter.tensor_dtype(w, name, before), reenter.tensor_dtype(w, name, after)
        if old is not None and _one_sided(old) == _one_sided(new):
            env[name] = ("tensor-dtype", _one_sided(old))


def _one_sided(d: Any) -> Any:
    """A dtype expression with each choice between two equal dtypes made that dtype."""
    if not isinstance(d, tuple):
        return d
    out = tuple(_one_sided(x) for x in d)
    return out[2] if out[:1] == ("if",) and len(out) == 4 and out[2] == out[3] else out


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.decided = _decided
