"""Null checks: ``OP_CHECK_NULL`` and ``CHECK_NOT_NULL``, ``if (x == nullptr) return true`` and the
checks after it, ``OP_CHECK_NULL(x, return false)`` for a status, optional arguments
(``p != nullptr && ...``, ``if (p != nullptr) {checks}`` and a local it assigns, a choice on p's
null-ness after it), a null pointer flag, two pointer arguments compared, the null check of a
contiguous copy, an element count set only when non-null."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.extract.host_code.model import (Event, Opaque, T, Unreadable, Walk, _End, _Stop, _args, _check,
                                                       _fail_status, guard_held, _macro, _names_in, _split_top, _strip, _tensor)
from aclnn_conformance.extract.host_code.promotion import _dexpr, _keep_unchanged_dtypes
from aclnn_conformance.extract.host_code.statements import _returns_success_only
from aclnn_conformance.extract.host_code.shapes import _int_or_shape_choice, _shape_value
import aclnn_conformance.extract.host_code.reenter as reenter


def _nonnull_guarded(w: Walk, name: str) -> bool:
    """Every call reaching here has the argument ``name`` non-null: a guard of the walk, or a conjunct
    of one, says so (``if (alpha != nullptr && ...)``)."""
    return guard_held(w, ("not", ("null", name)))


def _nonnull_names(cond: str) -> list[str] | None:
    """The names ``cond`` checks non-null, one or a conjunction (``a != nullptr && b != nullptr``,
    ``std::get<0>(r) != nullptr`` naming ``r``); None for any other condition."""
    names = []
    for part in _split_top(_strip(cond), "&&"):
        m = re.fullmatch(r"(?:std::get<\d+>\(\s*(\w+)\s*\)|(\w+))\s*!=\s*nullptr", _strip(part))
        if not m:
            return None
        names.append(m.group(1) or m.group(2))
    return names


_CONTIGUOUS = re.compile(r"(?:l0op::)?Contiguous\(\s*(\w+)\s*,[^()]*(?:\([^()]*\))?[^()]*\)")
# ``executor->CreateView(t, t->GetViewShape(), ...)``: a view of an API tensor with its own view shape
_SAME_VIEW = re.compile(r"(?:\w+(?:\.get\(\))?\s*->\s*)?CreateView\(\s*(\w+)\s*,\s*\1\s*->\s*GetViewShape\(\)\s*,"
                        r"[^;]*\)", re.S)


def _contiguous_null_check(cond: str, env: dict) -> bool:
    """``CHECK_RET(xContiguous != nullptr, ACLNN_ERR_PARAM_NULLPTR)`` after ``xContiguous =
    l0op::Contiguous(x, executor)`` of an API argument x (checked non-null before): Contiguous returns
    nullptr only for a view outside its storage (opbase Validate) or an inner failure; a tensor of a
    shape (all the templates describe) always passes it: no parameter check."""
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    held = env.get(null.group(1) or null.group(2)) if null else None
    return isinstance(held, tuple) and held[:1] == ("copy-of",)


def _m_null(w, src, stmt, env, fail, args):
    if reenter.converted(env, args[0]):
        return   # allocated from a scalar checked before: never null
    _check(w, src, stmt.offset, "null", _args(param=_tensor(env, args[0])), _fail_status(args[1], fail), stmt.text)


def _m_check_not_null(w, src, stmt, env, fail, args):
    for a in args:
        _check(w, src, stmt.offset, "null", _args(param=_tensor(env, a)), int(Status.ERR_PARAM_NULLPTR), stmt.text)


# ---- optional arguments and integer arrays ----

_VACUOUS_ON_NULL = {"dtype_in", "dtype_not_in", "dtypes_equal", "shapes_equal", "broadcastable", "rank_range",
                    "private_format", "formats_equal", "attr_in_rank_range", "attr_range", "broadcast_equals",
                    "broadcastable_all", "shapes_equal_or_single", "castable", "promotable", "attr_is",
                    "format_in", "format_not_in", "string_in", "shape_is", "broadcastable_shape", "expands_to_shape",
                    "cast_routed"}


def _null_guard(w: Walk, stmt: Stmt, env: dict) -> str | None:
    """``if (x == nullptr) { return true; }`` (or ``if (!x)`` on a pointer) on an API parameter: the
    rest runs only when x is given."""
    if stmt.kind != "if" or not _returns_success_only(stmt):
        return None
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)|!\s*(\w+)", _strip(stmt.cond))
    if not m:
        return None
    v = env.get(m.group(1) or m.group(2) or m.group(3))
    if m.group(3) and not (isinstance(v, T) and "*" in w.ptypes.get(v.name, "")):
        return None   # ``!x`` on a pointer argument only (not a bool)
    return v.name if isinstance(v, T) else None


def _null_or_empty_guard(w: Walk, stmt: Stmt, env: dict) -> str | None:
    """``if (x == nullptr || x->IsEmpty()) { return true; }`` on an optional tensor argument (ops-nn
    norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:80): the rest runs only when x is given and
    holds an element; x's name, None for any other statement."""
    if stmt.kind != "if" or not _returns_success_only(stmt):
        return None
    parts = _split_top(_strip(stmt.cond), "||")
    if len(parts) != 2:
        return None
    null = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)|!\s*(\w+)", _strip(parts[0]))
    empty = re.fullmatch(r"(\w+)\s*->\s*IsEmpty\(\)", _strip(parts[1]))
    name = null and (null.group(1) or null.group(2) or null.group(3))
    v = env.get(name) if name else None
    if not (empty and empty.group(1) == name and isinstance(v, T) and "*" in w.ptypes.get(v.name, "")):
        return None
    return v.name


def _run_when_given(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None, top: bool,
                    name: str) -> None:
    """The statements after ``_null_or_empty_guard``'s return: each check they make made under the
    guard that ``name`` is given and not empty (an event that is no check: unread from it)."""
    given = ("not", ("or", ("null", name), ("empty", (name,), True)))

    def settle(mark: int) -> None:
        for k in range(mark, len(w.events)):
            e = w.events[k]
            if e.kind == "check" and e.template != "product":
                w.events[k] = _made_when(e, given)
            elif e.kind != "unread":
                _only_null_vacuous(w, k, name)   # an empty return or a value under the guard: unread from it
    _run_rest(w, src, rest, env, fail, top, settle)


def _made_when(e: Event, guard: tuple) -> Event:
    """The check event ``e`` made only where ``guard`` holds (and its own ``when``, if it has one)."""
    when = [v for key, v in e.args if key == "when"]
    kept = tuple((key, v) for key, v in e.args if key != "when")
    return replace(e, args=tuple(sorted(kept + (("when", ("and", *when, guard) if when else guard),))))


def _false_status_null_guard(w: Walk, stmt: Stmt, env: dict, fail: int | None) -> str | None:
    """``OP_CHECK_NULL(x, return false)`` in a function returning aclnnStatus, called for its status:
    false converts to 0, ACLNN_SUCCESS; a null x ends the function successfully (the caller goes on):
    a null guard like ``if (x == nullptr) return ACLNN_SUCCESS``."""
    if fail is not None or stmt.kind != "call" or not getattr(w, "returns", "").endswith("aclnnStatus"):
        return None
    mac = _macro(stmt.text.strip())
    if not mac or mac[0] != "OP_CHECK_NULL" or len(mac[1]) != 2 or \
            re.sub(r"\s+", " ", mac[1][1]).strip().rstrip(";") != "return false":
        return None
    v = env.get(_strip(mac[1][0]))
    return v.name if isinstance(v, T) and w.depth > 1 else None


def _only_null_vacuous(w: Walk, mark: int, guard: str) -> None:
    """The checks made since ``mark`` under a null guard on ``guard`` must name it in a template a
    null argument does not violate; from the first that does not, unread (and the walk stops)."""
    for k in range(mark, len(w.events)):
        e = w.events[k]
        if e.kind == "unread" or (e.kind == "check" and e.template in _VACUOUS_ON_NULL
                                  and guard in _names_in(e.args)):
            continue
        del w.events[k:]
        w.events.append(Event("unread", "", (), None, e.path, e.line,
                              f"a check made only when {guard} is not null: {e.text}"[:160]))
        raise _Stop()


def _run_guarded(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None, top: bool,
                 guard: str) -> None:
    """The statements after a null guard: kept when every check they make names the guarded argument
    in a template that a null argument does not violate; otherwise unread from the first other."""
    _run_rest(w, src, rest, env, fail, top, lambda mark: _only_null_vacuous(w, mark, guard))


def _run_rest(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None, top: bool,
              settle) -> None:
    """The statements after an early return, run to their end, then ``settle(mark)`` on the events
    they made (from ``mark`` on), before an end or stop they raised goes on."""
    mark = len(w.events)
    pending: BaseException | None = None
    try:
        reenter.run_block(w, src, rest, env, fail, top)
    except (_End, _Stop) as exc:
        pending = exc
    settle(mark)
    if pending is not None:
        raise pending


def _flag_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``!p`` on a pointer argument that is no tensor (char*, aclScalar*, arrays): p is null;
    ``b`` / ``!b`` on a bool argument: b is true / false, and ``b == true`` and its kin (ops-math
    conversion/trans_data/op_api/aclnn_trans_convolution_weight.cpp:51 ``if (transposed == true)``)."""
    m = re.fullmatch(r"(\w+)\s*([!=]=)\s*(true|false)", _strip(body))
    if m:
        body, neg = m.group(1), neg != ((m.group(2) == "==") != (m.group(3) == "true"))
    v = env.get(_strip(body))
    if not isinstance(v, T):
        return None
    ptype = w.ptypes.get(v.name, "").strip()
    if neg and "*" in ptype and "aclTensor" not in ptype:
        return "null", _args(param=v.name)
    if re.fullmatch(r"(?:const\s+)?bool", ptype):
        return "attr_is", _args(attr=v.name, value=not neg)
    return None


def _given_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``p != nullptr`` on an optional tensor argument as a failure (``if (noise != nullptr) { return
    false; }``, aclnn_dropout_v3.cpp:61-68): the tensor is given, an integer test of its null guard."""
    m = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", _strip(body))
    v = env.get(m.group(1) or m.group(2)) if m and not neg else None
    if not (isinstance(v, T) and "aclTensor" in w.ptypes.get(v.name, "")):
        return None
    return "int_test", _args(test=("guard", ("not", ("null", v.name))))


def _nonnull_count(w: Walk, stmt: Stmt, env: dict, guard: str) -> bool:
    """``int64_t n = 0; if (p != nullptr) { n = p->Numel(); }``: n holds p's element count where p is
    not null, 0 where it is (``("numel-if-nonnull", p)``; read as the count once a null check of p
    has decided every null call)."""
    if len(stmt.then) != 1:
        return False
    m = re.fullmatch(r"(\w+)\s*=\s*(.+?);?", stmt.then[0].text.strip(), re.S)
    if not m or env.get(m.group(1)) != 0:
        return False
    held = _shape_value(w, _strip(m.group(2)), env)
    if held != ("numel", guard):
        return False
    env[m.group(1)] = ("numel-if-nonnull", guard)
    return True


def _null_checked(w: Walk, param: str) -> bool:
    """An unguarded null check of ``param`` was read: no call with a null ``param`` gets further."""
    return any(e.kind == "check" and e.template == "null" and e.args_dict().get("param") == param
               and "when" not in e.args_dict() for e in w.events)


def _null_test_guard(w: Walk, stmt: Stmt, env: dict) -> tuple | None:
    """``if (p == nullptr) {...} [else {...}]``, or ``p != nullptr`` with an else, of a pointer argument
    p: the guard ("null", p) (negated for ``!=``); the branch without else on ``p != nullptr`` is
    _run_nonnull_branch's."""
    cond = _strip(stmt.cond)
    name = null_compared(cond, env)
    if name is not None:
        return ("null", name)
    name = _nonnull_param(cond, env, w) if stmt.orelse else None
    return None if name is None else ("not", ("null", name))


def null_compared(cond: str, env: dict) -> str | None:
    """The argument ``cond`` tests for null: ``p == nullptr`` (or ``nullptr == p``); None otherwise."""
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)", _strip(cond))
    v = env.get(m.group(1) or m.group(2)) if m else None
    return v.name if isinstance(v, T) else None


def _nonnull_param(cond: str, env: dict, w: Walk | None = None) -> str | None:
    """The argument ``cond`` tests for not null: ``p != nullptr``, or with the walk, a pointer
    argument alone (``if (beta && ...)``)."""
    m = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", _strip(cond))
    if m is None and w is not None:
        bare = re.fullmatch(r"\w+", _strip(cond))
        v = env.get(bare.group(0)) if bare else None
        return v.name if isinstance(v, T) and "*" in w.ptypes.get(v.name, "") else None
    v = env.get(m.group(1) or m.group(2)) if m else None
    return v.name if isinstance(v, T) else None


def _same_pointer(w: Walk, expr: str, env: dict) -> bool | None:
    """``a == b`` (or ``!=``) of two pointer arguments: the same argument only where an in-place API
    passes one tensor as both (``self == out`` of aclnnInplaceAddr); distinct arguments are distinct
    objects in every call the suite builds. None for any other expression."""
    m = re.fullmatch(r"(\w+)\s*(==|!=)\s*(\w+)", expr)
    if m is None:
        return None
    a, b = env.get(m.group(1)), env.get(m.group(3))
    if not (isinstance(a, T) and isinstance(b, T)) or \
            not all("*" in w.ptypes.get(t.name, "") for t in (a, b)):
        return None
    return (a.name == b.name) == (m.group(2) == "==")


def _null_conjunction(parts: list[str], env: dict) -> tuple[str, tuple] | None:
    """``a == nullptr && b == nullptr`` of pointer arguments (ops-math
    conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp:132 ``clipValueMin == nullptr && clipValueMax ==
    nullptr``): the last one null, when the others are; None for any other conjunction (a part on a
    parameter bound to a literal ``nullptr`` is decided before, by products._product_bool)."""
    names = []
    for part in parts:
        m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)", _strip(part))
        v = env.get(m.group(1) or m.group(2)) if m else None
        if not isinstance(v, T):
            return None
        names.append(v.name)
    if len(set(names)) != len(names) or len(names) < 2:
        return None
    when = tuple(("null", n) for n in names[:-1])
    return "null", _args(param=names[-1], when=when[0] if len(when) == 1 else ("and", *when))


def _drop_nonnull(w: Walk, conds: list[str], env: dict) -> list[str]:
    """``p != nullptr && <atom on p>`` (or ``p != nullptr && q != nullptr && <atom on p and q>``, ops-nn
    norm/layer_norm_v4/op_host/op_api/aclnn_layer_norm.cpp:314): the atom alone, when its template is not
    violated by a null p (or q)."""
    guards = [c for c in conds if _nonnull_param(c, env, w)]   # ``p != nullptr``, or the pointer alone
    rest = [c for c in conds if not _nonnull_param(c, env, w)]
    if not guards or len(rest) != 1:
        return conds
    try:
        template, args = reenter.atom(w, rest[0], env)
    except Unreadable:
        return conds
    if template in _VACUOUS_ON_NULL and all(_nonnull_param(g, env, w) in _names_in(args) for g in guards):
        return rest
    return conds


def _nonnull_params(cond: str, env: dict, w: Walk) -> list[str] | None:
    """The arguments ``cond`` tests for not null: one (``p != nullptr``, ``if (weights)``) or a
    conjunction of such tests (``weightOptional && biasOptional``, ops-nn norm/layer_norm_v4/op_host/
    op_api/aclnn_layer_norm.cpp:141); None for any other condition."""
    names = [_nonnull_param(part, env, w) for part in _split_top(_strip(cond), "&&")]
    return None if not names or None in names or len(set(names)) != len(names) else names


def _run_nonnull_branch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (p != nullptr) { checks }`` (or a conjunction of such tests) without else: its checks, as
    they are when each names every tested p in a template a null p does not violate, the others under
    the guard that the tested arguments are not null; a local it assigns holds after it the choice of its
    value there and its value before on p's null-ness."""
    guards = _nonnull_params(stmt.cond, env, w)
    if guards is None or stmt.orelse:
        return False
    if len(guards) == 1 and _nonnull_count(w, stmt, env, guards[0]):
        return True
    if len(guards) == 1 and _null_checked(w, guards[0]) and any(
            re.match(rf"{re.escape(name)}\s*=(?!=)", s.text.strip()) and isinstance(env.get(name), Opaque)
            and env[name].text.strip() == "nullptr" for s in stmt.then if s.kind == "decl" for name in env):
        # a local set to nullptr, then set where an argument every call reaching here gives is not
        # null (ops-nn norm/quantized_batch_norm/op_host/op_api/aclnn_quantized_batch_norm.cpp:318-322):
        # the branch is always taken, so the local holds what it sets
        reenter.run_block(w, src, stmt.then, env, fail, top)
        return True
    mark = len(w.events)
    local = dict(env)
    try:
        reenter.run_block(w, src, stmt.then, local, fail, top)
    except _End:
        del w.events[mark:]
        raise Unreadable(f"a branch on {stmt.cond.strip()!r} that returns") from None
    given = [("not", ("null", g)) for g in guards]
    nonnull = given[0] if len(given) == 1 else ("and", *given)
    _guard_unless_null_vacuous(w, mark, guards, nonnull)
    if len(guards) > 1:
        if any(name in local and local[name] != env.get(name) for name in env):
            raise Unreadable(f"a branch on {stmt.cond.strip()!r} that assigns a local")
        return True
    before = dict(env)
    reenter.forget_assigned(stmt, env)   # the branch ran on a copy: what it assigns is unknown after it
    forgotten = dict(env)
    _keep_unchanged_dtypes(w, before, local, env)
    for name, value in local.items():
        if name in before and env.get(name) == forgotten.get(name) != before[name] != value:
            env[name] = _chosen_on(w, nonnull, value, before[name]) or env[name]
    return True


def _guard_unless_null_vacuous(w: Walk, mark: int, guards: list[str], nonnull: tuple) -> None:
    """The checks made since ``mark`` inside ``if (guards given) {...}``: one naming every guard in a
    template a null argument does not violate kept as it is, any other check made under the guard
    ``nonnull``; from the first event that is no check (an empty return, a value), unread (and the walk
    stops)."""
    for k in range(mark, len(w.events)):
        e = w.events[k]
        if e.kind == "unread" or (e.kind == "check" and e.template in _VACUOUS_ON_NULL
                                  and all(g in _names_in(e.args) for g in guards)):
            continue
        if e.kind == "check" and e.template != "product":
            w.events[k] = _made_when(e, nonnull)
            continue
        _only_null_vacuous(w, k, guards[0])


def _chosen_on(w: Walk, guard: tuple, new: Any, old: Any) -> tuple | None:
    """A local a branch on ``guard`` assigned: the choice of its value there and the one from before
    (a dtype, a shape or an integer); None when either is no value the walk can hold as one."""
    d_new, d_old = _dexpr(new), _dexpr(old)
    if d_new is not None and d_old is not None:
        return ("dexpr", ("if", guard, d_new, d_old))
    return _int_or_shape_choice(w, guard, new, old)
