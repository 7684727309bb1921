"""Branches on a value no call view holds, read in part.

- Taken on ``!(A && B)`` (or ``!A || !B``) holding checks, with A a guard the reader reads and B a value
  it does not model (``!(out->IsEmpty() && std->Size() == 1)``, aclnn_normal_out.cpp:94: aclTensor::Size()
  counts the storage shape's elements, opbase common_types.cpp:477-480, which no call view holds): the
  calls where A does not hold take the branch, its checks read under ``!A``; the calls where A holds are
  not judged from there on (an unread under A).
- A failure on ``x->Size() && ... && C`` with x tensors (ops-nn index/gather_v2/op_api/
  aclnn_index_select.cpp:143): a view holding an element needs a storage holding it, so where no such
  x's view is empty the failure is on C alone; where one is empty, Size() is not known and the calls are
  not judged from there."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import SourceFile, Stmt
from aclnn_conformance.extract.host_code.model import Event, T, Walk, _cite, _split_top, _strip
from aclnn_conformance.extract.host_code.conditions import _data_condition, _guard, _guarded_args
import aclnn_conformance.extract.host_code.reenter as reenter


def _terms(cond: str) -> list[str] | None:
    """The terms T of ``!(T1 && T2 ...)`` or ``!T1 || !T2 ...``, None for another condition."""
    cond = _strip(cond)
    if cond.startswith("!") and not cond.startswith("!="):
        inner = _strip(cond[1:])
        if cond[1:].strip().startswith("(") and len(_split_top(inner, "&&")) > 1:
            return _split_top(inner, "&&")
    parts = _split_top(cond, "||")
    if len(parts) > 1 and all(_strip(p).startswith("!") and not _strip(p).startswith("!=") for p in parts):
        return [_strip(p)[1:] for p in parts]
    return None


def run_partly_read_branch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """The branch's checks for the calls a readable term decides, an unread for the others."""
    terms = _terms(stmt.cond) if not stmt.orelse else None
    if not terms:
        return False
    guards = [_guard(w, t, env) for t in terms]
    known = [g for g in guards if g is not None]
    if not known or len(known) == len(guards):
        return False   # nothing read, or all of it (the guarded reading's)
    held = known[0] if len(known) == 1 else ("and", *known)
    path, line = _cite(src, stmt.offset)
    w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", held),)), None, path, line,
                          " ".join(f"a branch on a value the reader does not model: if ({stmt.cond.strip()})"
                                   .split())[:160]))
    mark = len(w.guards)
    w.guards.append(("not", held))
    try:
        reenter.run_block(w, src, stmt.then, dict(env), fail, top)
    finally:
        del w.guards[mark:]
    return True


_SIZE_TERM = re.compile(r"(\w+)\s*->\s*Size\(\)(?:\s*!=\s*0)?")


def run_storage_size_failure(w: Walk, src: SourceFile, stmt: Stmt, env: dict, code: int) -> bool:
    """``if (x->Size() && ... && C) { fail }`` read as the module says; False for another condition."""
    terms = [_strip(t) for t in _split_top(_strip(stmt.cond), "&&")]
    sized = [m.group(1) for t in terms if (m := _SIZE_TERM.fullmatch(t))]
    rest = [t for t in terms if not _SIZE_TERM.fullmatch(t)]
    tensors = [env.get(n) for n in sized]
    # a tensor's Size() only: an aclTensorList's or an array's is its length, read elsewhere
    if not sized or not rest or not all(isinstance(t, T) and re.search(r"\baclTensor\s*\*", w.ptypes.get(t.name, ""))
                                        for t in tensors):
        return False
    empty = ("empty", tuple(sorted({t.name for t in tensors})), True)
    text = "if (" + stmt.cond.strip() + ")"
    mark = len(w.events)
    w.guards.append(("not", empty))
    try:
        _data_condition(w, src, stmt.offset, " && ".join(rest), env, code, text)
    finally:
        w.guards.pop()
    path, line = _cite(src, stmt.offset)
    w.events.insert(mark, Event("unread", "", _guarded_args(w, "unread", (("when", empty),)), None, path, line,
                                " ".join(f"the storage size of an empty view: {text}".split())[:160]))
    return True
