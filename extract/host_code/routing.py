"""A branch on a routing predicate of the lower layer: a bool kernel function choosing between two compute
paths whose checks differ (``l0op::SupportNoTranspose(data, indices, updates, axis, reduction)``, ops-nn
index/scatter_elements_v2/op_api/scatter_elements.cpp:693-710, chosen at aclnn_scatter.cpp:804 and :870:
the no-transpose path checks CheckParams only, the base path CheckParams then CheckParams2).

The predicate is read as far as its early ``if (C) { return false; }`` go where the reader models C: a
null or empty tensor, the product (``curArch != NpuArch::DAV_2201``), and the same in a bool helper it
calls first (``if (!BaseCheck(...)) return false;``). Any later part (a dtype list, a shape test, a
performance heuristic) is not modelled. So the branch ``if (P) {A} else {B}`` reads as:

- on a product where a product test makes P false, B alone;
- elsewhere, the calls a modelled test makes P false for (K) take B: B's checks under K; the other calls
  may take either side: the checks A and B both make first hold for them, and from where the sides part
  they are not judged (an unread under not K).

A predicate with no modelled early return, or a side that returns, stops or is unread, declines."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, statements
from aclnn_conformance.extract.host_code.model import (Event, Index, Opaque, Unreadable, Walk, _End, _Stop, _cite,
                                                       _macro, _split_top, _strip)
from aclnn_conformance.extract.host_code.products import _product_bool
from aclnn_conformance.extract.host_code.conditions import _guard, _guarded_args, _null_test
from aclnn_conformance.extract.host_code.nulls import _made_when
from aclnn_conformance.extract.host_code.scalars import _value_test
import aclnn_conformance.extract.host_code.reenter as reenter

FALSE_HERE = ("false-here",)   # the predicate is false on this product, whatever the call


def _returns_false(block: tuple[Stmt, ...]) -> bool:
    """A block that logs and returns false, nothing else."""
    *logs, last = block or (None,)
    return last is not None and last.kind == "return" and last.text.strip().rstrip(";").strip() == "return false" \
        and all(s.kind == "call" and re.fullmatch(r"OP_LOG\w*\s*\(.*\)\s*;?", s.text.strip(), re.S) for s in logs)


def _kernel_function(w: Walk, name: str, arity: int, within: SourceFile | None) -> tuple[Function, SourceFile] | None:
    """A bool function of the lower layer (or a static helper of the file defining it)."""
    if within is not None and name in within.functions:
        return within.functions[name], within
    kernels = w.index.kernels
    fn = kernels.function(name, arity) if kernels is not None else None
    src = kernels.source_of(name) if fn is not None else None
    if fn is None or src is None or fn.returns.split()[-1] != "bool":
        return None
    return fn, src


def false_when(w: Walk, name: str, args: list[str], env: dict, within: SourceFile | None = None) -> Any:
    """Where the bool function ``name(args)`` is false, read from its early returns the reader models:
    FALSE_HERE on a product where a product test makes it false; else the guard under which a modelled
    early return is taken (an ``or`` of them); None when none is modelled."""
    found = _kernel_function(w, name.split("::")[-1], len(args), within)
    if found is None or w.depth > 12:
        return None
    fn, src = found
    try:
        bound = reenter.bind(w, fn, args, env)
    except Unreadable:
        return None
    caller = w.index   # the body's lists and constants are its own file's (cited there)
    w.index = Index(src, caller.common, [], caller.kernels, caller.cast_routes)
    try:
        return _false_when_read(w, fn, bound, src)
    finally:
        w.index = caller


def _false_when_read(w: Walk, fn: Function, bound: dict, src: SourceFile) -> Any:
    texts: dict[str, str] = {}   # a local and what it was set to, spelled into the conditions after it
    guards: list = []
    for stmt in statements(fn.body, fn.body_offset):
        if stmt.kind == "decl":
            m = re.match(r"(?:auto|const|[\w:]+|\s|[*&])*?\b([A-Za-z_]\w*)\s*=\s*(.+?);?$", stmt.text.strip(), re.S)
            if m is None:
                break
            texts[m.group(1)] = m.group(2).strip()
            continue
        if stmt.kind != "if" or stmt.orelse or not _returns_false(stmt.then):
            break
        cond = _strip(stmt.cond)
        for local, text in texts.items():
            cond = re.sub(rf"\b{re.escape(local)}\b", lambda _: text, cond)
        call = _macro(cond[1:].strip()) if cond.startswith("!") else None
        if call is not None and not re.search(r"&&|\|\|", cond):   # ``if (!Helper(...)) return false;``
            w.depth += 1
            try:
                inner = false_when(w, call[0], call[1], bound, src)
            finally:
                w.depth -= 1
            if inner is FALSE_HERE:
                return FALSE_HERE
            if inner is not None:
                guards.append(inner)
            continue   # the helper's unmodelled rest: what follows is still false where it holds
        decided = _product_bool(w, cond, bound)
        if decided is True:
            return FALSE_HERE
        if decided is False:
            continue
        g = _null_test(w, cond, bound) or _guard(w, cond, bound)
        if g is not None:
            guards.append(g)
        # a test not modelled returns false somewhere: where it holds is unknown, the others stand
    if not guards:
        return None
    return guards[0] if len(guards) == 1 else ("or", *guards)


def _predicate(w: Walk, cond: str, env: dict) -> Any:
    """The routing predicate ``cond`` (or the bool local holding it): FALSE_HERE, the guard where it is
    false, or None when ``cond`` is no such predicate. Its terms: ``&&`` of literals, the call's bool
    arguments and one call of a lower-layer bool function."""
    cond = _strip(cond)
    held = env.get(cond) if re.fullmatch(r"[A-Za-z_]\w*", cond) else None
    if isinstance(held, Opaque):
        cond = _strip(held.text)
    terms = _split_top(cond, "&&")
    falses: list = []
    routed = False
    for term in (_strip(t) for t in terms):
        value = env.get(term) if re.fullmatch(r"[A-Za-z_]\w*", term) else None
        if term == "true" or value is True:
            continue
        if term == "false" or value is False:
            return FALSE_HERE
        call = _macro(term)
        if call is not None and term.startswith("l0op::") and not routed:
            found = false_when(w, call[0], call[1], env)
            if found is None:
                return None
            if found is FALSE_HERE:
                return FALSE_HERE
            falses.append(found)
            routed = True
            continue
        test = _value_test(w, term, env)
        if test is None:
            return None
        falses.append(("not", ("value", test)))
    if not routed:
        return None
    return falses[0] if len(falses) == 1 else ("or", *falses)


def run_routed_branch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (P) {A} else {B}`` on a routing predicate P, read as the module says; False to decline."""
    if stmt.kind != "if" or not stmt.orelse:
        return False
    falses = _predicate(w, stmt.cond, env)
    if falses is None:
        return False
    if falses is FALSE_HERE:
        reenter.run_block(w, src, stmt.orelse, env, fail, top)
        return True
    mark, guards, pending = len(w.events), list(w.guards), list(w.pending)
    try:
        # the side P takes: only its checks before the first it does not read are compared (a compute
        # path it cannot follow further is no check the other calls are spared)
        reenter.run_block(w, src, stmt.then, dict(env), fail, top)
    except (_Stop, Unreadable):
        pass
    except _End:
        return _declined(w, mark, guards, pending)
    made = w.events[mark:]
    then_events = made[:next((i for i, e in enumerate(made) if e.kind != "check"), len(made))]
    stopped = len(then_events) != len(made)
    w.guards[:], w.pending[:] = guards, pending
    del w.events[mark:]
    else_local, else_stop = dict(env), None
    try:
        reenter.run_block(w, src, stmt.orelse, else_local, fail, top)
    except _Stop as stop:   # the other side read up to an unread: the walk ends there, after this branch's events
        else_stop = stop
    except (Unreadable, _End):
        return _declined(w, mark, guards, pending)
    else_events = w.events[mark:]
    del w.events[mark:]
    key = lambda e: (e.kind, e.template, e.args, e.status)   # noqa: E731
    shared = 0
    while shared < min(len(then_events), len(else_events)) and \
            key(then_events[shared]) == key(else_events[shared]):
        shared += 1
    w.events.extend(else_events[:shared])   # made whichever side a call takes
    if stopped or shared < len(then_events) or shared < len(else_events):
        path, line = _cite(src, stmt.offset)
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", ("not", falses)),)), None, path,
                              line, " ".join(f"a branch on a routing predicate read in part: if ({stmt.cond.strip()})"
                                             .split())[:160]))
        w.events.extend(_made_when(e, falses) if e.kind in ("check", "unread") else e for e in else_events[shared:])
    env.update(else_local)   # the calls that go on past the branch took B
    if else_stop is not None:
        raise else_stop
    return True


def _declined(w: Walk, mark: int, guards: list, pending: list) -> bool:
    del w.events[mark:]
    w.guards[:], w.pending[:] = guards, pending
    return False
