"""Integers chosen by branches: ``if (C1) { x = E1; } else if (C2) { x = E2; }`` with each condition a test
over integers (or a conjunction of null tests of pointer arguments) and each branch one assignment of the same integer local or argument (ops-math
conversion/slice/op_api/aclnn_slice.cpp:59-84, the clamps of a slice's start and end): x holds the choice
``["?", C1, E1, ["?", C2, E2, x]]`` after it."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import Function, Stmt
from aclnn_conformance.extract.host_code.model import Opaque, T, Unreadable, Walk, _End, _Stop, _split_top, _strip
from aclnn_conformance.extract.host_code.integers import _int_test, _wrapped_iexpr
import aclnn_conformance.extract.host_code.reenter as reenter

_ASSIGN = re.compile(r"([A-Za-z_]\w*)\s*(\+|-)?=(?!=)\s*(.+?);?", re.S)


def int_assign_chain(w: Walk, stmt: Stmt, env: dict) -> bool:
    """The if / else-if chain ``stmt`` choosing the value of one integer, as the module says: ``env``
    holds the choice after it; False (``env`` unchanged) when it is not one."""
    arms: list[tuple[str | None, str, str, str | None]] = []   # (condition or None for else, name, value, op)
    node: Stmt | None = stmt
    while node is not None:
        then = node.then if node.kind == "if" else (node,)
        m = _ASSIGN.fullmatch(then[0].text.strip()) if len(then) == 1 and then[0].kind != "if" else None
        if not m or (arms and m.group(1) != arms[0][1]):
            return False
        arms.append((node.cond if node.kind == "if" else None, m.group(1), m.group(3), m.group(2)))
        rest = node.orelse if node.kind == "if" else ()
        node = rest[0] if len(rest) == 1 else None
        if len(rest) > 1:
            return False
    name = arms[0][1]
    held = env.get(name)
    if isinstance(held, T) and not re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)\s*&?",
                                                w.ptypes.get(held.name, "").strip()):
        return False
    old = _wrapped_iexpr(w, held)
    if old is None or any(c is None for c, _, _, _ in arms[:-1]):
        return False
    # a dim read at a wrapped dim argument is read here (ranks._dim_value), where checks before keep it
    # inside the rank; the other readers keep their own readings of it
    outer, w.wrapped_dims = getattr(w, "wrapped_dims", False), True
    try:
        value = _choice(w, arms, old, env)
    finally:
        w.wrapped_dims = outer
    if value is None:
        return False
    env[name] = ("iexpr", value)
    return True


def _choice(w: Walk, arms: list, old: Any, env: dict) -> Any:
    value: Any = old
    for cond, _, expr, op in reversed(arms):
        try:
            new = _wrapped_iexpr(w, reenter.value(w, _strip(expr), env))
        except Unreadable:
            return None
        # null tests in a chain of several arms (a mode chosen on the outputs given); a lone ``if (p !=
        # nullptr) n = ...`` is nulls._nonnull_count's
        test = (_int_test(w, cond, env) or (_null_test(w, cond, env) if len(arms) > 1 else None)) \
            if cond is not None else None
        if new is None or (cond is not None and test is None):
            return None
        new = (op, old, new) if op else new
        value = new if cond is None else ("?", test, new, value)
    return value


def _null_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """``p != nullptr && q == nullptr`` (each part a pointer argument tested for null) as the integer
    test of that guard (ops-nn norm/add_rms_norm/op_host/op_api/aclnn_add_rms_norm.cpp:159-163: the mode
    chosen on which outputs are given); None for any other condition."""
    parts = []
    for part in _split_top(_strip(cond), "&&"):
        m = re.fullmatch(r"(\w+)\s*(==|!=)\s*nullptr|nullptr\s*(==|!=)\s*(\w+)", _strip(part))
        held = env.get(m.group(1) or m.group(4)) if m else None
        if not (isinstance(held, T) and "*" in w.ptypes.get(held.name, "")):
            return None
        null = ("null", held.name)
        parts.append(null if (m.group(2) or m.group(3)) == "==" else ("not", null))
    return ("guard", parts[0] if len(parts) == 1 else ("and", *parts))


def _int_refs(fn: Function, args: list[str]) -> list[tuple[str, str]]:
    """(parameter, argument) of each plain name passed to a non-const integer reference parameter."""
    return [(p, a.strip()) for p, a, ctype in zip(fn.params, args, fn.param_types)
            if re.fullmatch(r"(?:u?int(?:64|32)_t|int)\s*&", ctype.strip()) and re.fullmatch(r"[A-Za-z_]\w*", a.strip())]


def run_int_ref_helper(w: Walk, fn: Function, args: list[str], env: dict) -> bool:
    """A call, for its effect, of a function of the checkout that changes integers passed by reference
    (aclnn_slice.cpp:59-70 ``void CalculateValuesSliceUpperForSlice(..., int64_t& dim, int64_t& start,
    int64_t& end)``, called at :123): each holds after it what the function left, or nothing the walk
    knows when the function is not read whole; False for any other call."""
    refs = _int_refs(fn, args)
    if not refs or fn.returns.split()[-1] != "void" or len(args) != len(fn.params):
        return False
    mark = len(w.events)
    try:
        reenter.call_fn(w, fn, args, env, None)
        whole = len(w.events) == mark
    except (Unreadable, _Stop, _End):
        whole = False
    if not whole:
        del w.events[mark:]
        for _, name in refs:
            env[name] = Opaque(f"{name}, changed by {fn.name}")
    return True
