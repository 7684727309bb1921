"""Empty tensors: the empty-tensor early return of GetWorkspaceSize (or of a status function it
calls), ``FillScalar`` on an empty tensor, the tensors an emptiness test names, an emptiness helper,
loops finding a 0 dim or a 0 element, parameter checks after the return (unread)."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt
from aclnn_conformance.extract.host_code.model import (Event, Opaque, SUCCESS_NAMES, T, Walk, _End, _Stop, _args, _cite,
                                                       _flatten, _macro, _split_top, _strip, _unread)
from aclnn_conformance.extract.host_code.statements import _checks_params, _first_param_check, _status_local
from aclnn_conformance.extract.host_code.products import _bool_helper_condition, _without_true_product_terms
from aclnn_conformance.extract.host_code.kernels import _compute_only
import aclnn_conformance.extract.host_code.reenter as reenter


def _run_after_empty(w: Walk, src: SourceFile, stmt: Stmt, rest: tuple[Stmt, ...], env: dict,
                     fail: int | None, top: bool, stop: _Stop) -> bool:
    """The empty-tensor return of GetWorkspaceSize itself, or of a status function its body calls
    (``CheckParams`` returning success early: GetWorkspaceSize goes on for both): the checks after it
    are read for the calls not taking it (``when`` not empty). Kept only when the reading gets at least
    as far as the scan's first parameter check; else (an unread construct of the compute path before
    it) the scan's reading stands."""
    # the guards in force are only those of empty returns before it (``if (self->IsEmpty()) {...}
    # if (mask->IsEmpty()) {...}``, aclnn_dropout_do_mask.cpp:145-155)
    if not (w.depth in (w.api_depth, w.api_depth + 1) and getattr(stop, "origin", None) is stmt
            and len(w.guards) == getattr(w, "empty_guards", 0)):
        return False
    first = _first_param_check(rest, w)
    if first is None:
        return False
    mark, guards = len(w.events), len(w.guards)
    w.guards.append(("not", stop.guard))
    ended, outer = None, getattr(w, "empty_guards", 0)
    w.empty_guards = len(w.guards)
    try:
        reenter.run_block(w, src, rest, env, fail, top)
    except (_Stop, _End) as exc:
        ended = exc
    finally:
        del w.guards[guards:]
        w.empty_guards = outer
    unread = [e for e in w.events[mark:] if e.kind == "unread"]
    at = getattr(ended, "at", None)   # the statement of ``rest`` where the reading stopped
    # an unread that did not stop the reading (one for some calls only) leaves the rest read
    before = rest.index(at) < rest.index(first) if at in rest else isinstance(ended, _Stop) and \
        unread and (unread[0].path != src.path or unread[0].line < src.line_of(first.offset))
    if unread and before:
        del w.events[mark:]
        return False
    if ended is not None:
        raise ended
    return True


def empty_passes_by(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> tuple[Stmt, ...] | None:
    """``if (E) { } else { S }`` with E an emptiness test (what the product leaves of it): the calls with
    E go on past the branch through code the reader does not follow (a kernel's empty template, ops-nn
    norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:262-273 on
    a regbase product), so they are not judged (an unread under E); the others run S, returned to be
    read in place. None for any other statement."""
    if stmt.kind != "if" or stmt.then or not stmt.orelse:
        return None
    cond = _without_true_product_terms(w, stmt.cond, env)
    empties = _empty_params(cond, env)
    if not empties:
        return None
    path, line = _cite(src, stmt.offset)
    guard = ("empty", tuple(sorted(empties)), " || " in cond or len(empties) == 1)
    w.events.append(Event("unread", "", reenter.guarded_args(w, "unread", (("when", guard),)), None, path, line,
                          f"the calls with {cond.strip()} go on past an empty branch: {stmt.text}"[:160]))
    return tuple(stmt.orelse)


def _scan_after_empty(w: Walk, src: SourceFile, rest: tuple[Stmt, ...]) -> None:
    """Parameter checks after the empty-tensor return (or after the reader stopped) are unread,
    those made in a function it calls too."""
    stmt = _first_param_check(rest, w)
    if stmt is not None:
        _unread(w, src, stmt.offset, "a parameter check after the checks the reader follows: " + stmt.text)


def _run_fill_empty(w: Walk, src: SourceFile, stmt: Stmt, env: dict, empties: list[str]) -> None:
    """``if (self->IsEmpty()) { ret = FillScalar(out, v, executor); ...; return ret; }`` in
    GetWorkspaceSize: the checks of the status function it calls hold for the empty calls (``when``
    empty; a return of the callee on an empty ``out`` ends it), and the branch is the empty-tensor
    return. Returns without effect when the branch is anything else."""
    body = list(stmt.then)
    last = body[-1].text.strip().rstrip(";") if body and body[-1].kind == "return" else ""
    rm = re.fullmatch(r"return\s+(\w+)", last)
    calls = [(i, st) for i, st in enumerate(body[:-1]) if st.kind == "decl"
             and re.match(r"(?:auto\s+|aclnnStatus\s+)?(\w+)\s*=\s*[A-Za-z_][\w:]*\s*\(", st.text.strip())]
    if not rm or len(calls) != 1:
        return
    i, call_stmt = calls[0]
    cm = re.match(r"(?:auto\s+|aclnnStatus\s+)?(\w+)\s*=\s*(.+)$", call_stmt.text.strip(), re.S)
    call = _macro(cm.group(2).strip())
    fn = w.index.function(call[0]) if call else None
    if fn is None or not fn.returns.endswith("aclnnStatus") or rm.group(1) not in (cm.group(1), *SUCCESS_NAMES):
        return
    others = [st for k, st in enumerate(body[:-1]) if k != i]
    if any(_checks_params(w, st.text + "".join(x.text for x in _flatten(st.then + st.orelse))) for st in others):
        return
    mark = len(w.events)
    guard = ("empty", tuple(sorted(empties)), " || " in stmt.cond or len(empties) == 1)
    w.guards.append(guard)
    try:
        reenter.call_fn(w, fn, call[1], dict(env), fail=None)
    except _Stop as stop:
        if not stop.empty:   # an unread construct in the callee: it stands, the walk ends
            raise
    except _End:
        pass
    finally:
        w.guards.pop()
    # the callee's own empty return (an empty ``out``) ends the fill, not the API's checks
    w.events[mark:] = [e for e in w.events[mark:] if e.kind != "empty"]
    if any(e.kind == "unread" for e in w.events[mark:]):
        raise _Stop()
    path, line = _cite(src, stmt.offset)
    w.events.append(Event("empty", "empty", _args(params=sorted(empties), any=guard[2]), 0, path, line,
                          stmt.cond.strip()))
    stop = _Stop(empty=True)
    stop.origin, stop.guard = stmt, guard
    raise stop


def _empty_exit(stmts: tuple[Stmt, ...], w: Walk | None = None) -> bool:
    """A branch that returns success: with the walk, only when the statements before that return
    check no parameter (a compute path: an inner status checked on the tensors it builds, a fill,
    the workspace size set)."""
    if not (stmts and stmts[-1].kind == "return"):
        return False
    last = stmts[-1].text.strip().rstrip(";")
    if last not in tuple(f"return {n}" for n in SUCCESS_NAMES) and not (w is not None and _status_local(last, stmts)):
        return False
    if len(stmts) == 1 or w is None:
        return True
    body = "".join(s.text + ";" for s in _flatten(stmts[:-1]))
    return not _checks_params(w, _compute_only(body)) and not re.search(r"CHECK_RET", _compute_only(body))


def reshaped_alias(body: str, name: str, env: dict) -> T | None:
    """The tensor argument a local stands for in an emptiness test: every assignment of it in the
    function ``body`` is that argument or a local declared as ``l0op::Reshape`` of it, which keeps its
    element count (reshape.h:18-34), and it is not passed by address (ops-math
    math/reduce_std_v2/op_api/aclnn_std.cpp:235-258 ``selfReshape``). None otherwise."""
    if re.search(rf"&\s*{re.escape(name)}\b", body):
        return None
    held = set()
    for rhs in re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", body):
        rhs = rhs.strip()
        if not isinstance(env.get(rhs), T) and re.fullmatch(r"[A-Za-z_]\w*", rhs):
            decls = re.findall(rf"\b{re.escape(rhs)}\s*=(?!=)\s*l0op::Reshape\s*\(\s*([A-Za-z_]\w*)\s*,", body)
            sets = re.findall(rf"\b{re.escape(rhs)}\s*=(?!=)", body)
            rhs = decls[0] if len(decls) == len(sets) == 1 else ""
        if not isinstance(env.get(rhs), T):
            return None
        held.add(env[rhs])
    return held.pop() if len(held) == 1 else None


def _empty_params(cond: str, env: dict, body: str = "") -> list[str]:
    """The tensors an emptiness test names: ``a->IsEmpty() || b->IsEmpty()`` (any) or with ``&&``
    (all; the caller reads which from the condition). With the function's ``body``, a local that is
    an argument or a reshape of it (``reshaped_alias``) names that argument."""
    parts = _split_top(_strip(cond), "||")
    any_of = len(parts) > 1
    if len(parts) == 1:
        parts = _split_top(_strip(cond), "&&")
    out = []
    for p in parts:
        lit = re.fullmatch(r"([A-Za-z_]\w*)\s*!=\s*nullptr\s*&&\s*\1\s*->\s*IsEmpty\(\)", _strip(p))
        held = env.get(lit.group(1)) if lit else None
        if any_of and isinstance(held, Opaque) and held.text.strip() == "nullptr":
            continue   # an optional tensor passed as a literal nullptr (aclnn_clamp.cpp:682): never empty
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*IsEmpty\(\)", _strip(p))
        # ``(p != nullptr && p->IsEmpty())`` of an optional tensor (ops-math
        # conversion/clip_by_value_v2/op_api/aclnn_clamp.cpp): a null p is no empty tensor, as the rule reads it
        m = m or re.fullmatch(r"([A-Za-z_]\w*)\s*!=\s*nullptr\s*&&\s*\1\s*->\s*IsEmpty\(\)", _strip(p))
        held = env.get(m.group(1)) if m else None
        if m and not isinstance(held, T) and body:
            held = reshaped_alias(body, m.group(1), env)
        if not isinstance(held, T):
            return []
        out.append(held.name)
    return out


def _empty_helper(w: Walk, cond: str, env: dict) -> tuple[str, list[str]]:
    """``if (HasEmptyTensor(self, other))``: a bool helper whose whole body is ``if (C) { return true; }
    return false;`` (or ``return C;``) with C an ``x->IsEmpty()`` disjunction of its parameters: the
    condition C on the call's arguments; a bool local holding such a disjunction, the same. Anything else:
    no empties (the branch is read as before)."""
    held = env.get(_strip(cond))
    if isinstance(held, tuple) and held[:1] == ("guard",):
        # a bool local holding the test (``bool anyEmptyTensor = x1->IsEmpty() || gamma->IsEmpty();``,
        # ops-nn norm/add_rms_norm/op_host/op_api/aclnn_add_rms_norm.cpp:225-226)
        g = held[1]
        atoms = g[1:] if g[0] == "or" else (g,)
        if all(a[0] == "empty" and (len(a[1]) == 1 or a[2]) for a in atoms):
            names = [n for a in atoms for n in a[1]]
            return " || ".join(f"{n}->IsEmpty()" for n in names), names
    helper = _bool_helper_condition(w, cond, env)
    if helper is None or not all(isinstance(v, T) for v in helper[1].values()):
        return cond, []
    inner, bound = helper
    empties = _empty_params(inner, bound)
    return (inner, empties) if empties else (cond, [])


def _zero_dim_loop(fn: Function) -> int | None:
    """``fn(x)``: true when one of x's dims before its rank + stop is 0 (``n = x->GetViewShape().
    GetDimNum(); for (i = 0; i < n - 1; i++) { if (x->GetViewShape().GetDim(i) == 0) { return true; } }
    return false;``): stop (0 or -1); None for any other body."""
    if len(fn.params) != 1:
        return None
    x = re.escape(fn.params[0])
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(
        rf"auto (\w+) = {x}->GetViewShape\(\)\.GetDimNum\(\); "
        rf"for ?\((?:int64_t|size_t|uint64_t|int) (\w+) = 0; \2 < (?:static_cast<int64_t>\()?\(?\1( - 1)?\)?\)?; \2\+\+\) ?{{ "
        rf"if ?\({x}->GetViewShape\(\)\.GetDim\(\2\) == 0\) ?{{ return true; }} }} return false;", body)
    return None if m is None else (-1 if m.group(3) else 0)


def _zero_elem_loop(fn: Function) -> bool:
    """``fn(a)`` with a an integer array: true when one of its elements is 0 (``for (i = 0; i <
    a->Size(); ++i) { if ((*a)[i] == 0) { return true; } } return false;``)."""
    if len(fn.params) != 1:
        return False
    a = re.escape(fn.params[0])
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(
        rf"for ?\((?:int64_t|size_t|uint64_t) (\w+) = 0; \1 < {a}->Size\(\); (?:\+\+\1|\1\+\+)\) ?{{ "
        rf"if ?\(\(\*{a}\)\[\1\] == 0\) ?{{ return true; }} }} return false;", body)
    return m is not None


def _no_zero_dim(w: Walk, tensor: str, stop: int) -> bool:
    """A guard of the walk leaves no 0 among ``tensor``'s first rank + ``stop`` dims: it refuses
    ("zero-dim", tensor, s) for an s >= stop, alone or as a term of a disjunction."""
    for g in w.guards:
        if isinstance(g, tuple) and len(g) == 2 and g[0] == "not" and isinstance(g[1], tuple):
            terms = g[1][1:] if g[1][:1] == ("or",) else (g[1],)
            if any(isinstance(x, tuple) and x[:2] == ("zero-dim", tensor) and x[2] >= stop for x in terms):
                return True
    return False
