"""Branches: ``if``/``else`` on a condition (decided by the product, guarded by the call's dtypes,
or unread with its assignments forgotten), the choices a guarded branch leaves, ``if (!Checker(...))``,
``if (F(...) != ACLNN_SUCCESS)``, ``CHECK_RET(F(...) == ACLNN_SUCCESS, code)``, locals a function
mutates after a point."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, match_close, split_args, statements, switch_cases
from aclnn_conformance.extract.syntax import open_braces
from aclnn_conformance.extract.host_code.dim_loops import pointer_reads_blanked, untaken_else_blanked
from aclnn_conformance.extract.host_code.scalar_shapes import branch_constants_blanked, rank_zero_spelled
from aclnn_conformance.extract.host_code.model import (DList, Event, IGNORED_CALLS, Opaque, SUCCESS_NAMES, Unreadable,
                                                       Walk, _End, _Stop, _args, _cite, _enclosing_body, _enclosing_function,
                                                       _flatten, _macro, _split_top, _status_of, _strip)
from aclnn_conformance.extract.host_code.promotion import _dexpr
from aclnn_conformance.extract.host_code.integers import _iexpr_of
from aclnn_conformance.extract.host_code.statements import (_checks_params, _error_exit, _first_param_check,
                                                            _in_order_mutations, _is_checker, _reachable_after)
from aclnn_conformance.extract.host_code.casts import _recast_only, _tensor_dtype
from aclnn_conformance.extract.host_code.ranks import (_every_dim_if_empty, _no_dims_return, _rank0_branch,
                                                       _rank0_return, _rank0_value_return, _wrap_negative_dim)
from aclnn_conformance.extract.host_code.shapes import _infer_broadcast, _int_or_shape_choice
from aclnn_conformance.extract.host_code.nulls import _nonnull_param, _null_test_guard, _run_nonnull_branch
from aclnn_conformance.extract.host_code.reductions import _last_param_by_value
from aclnn_conformance.extract.host_code.products import _product_bool, _product_side, _without_true_product_terms
from aclnn_conformance.extract.host_code.scalars import _TEMPLATE_CALL, _template_numbers, _value_return, _value_test
from aclnn_conformance.extract.host_code.kernels import (_compute_only, _kernel_result, _kernel_made, _kernel_on_every_path,
                                                         _leading_ones_branch, _shape_like, _tensor_shape_expr)
from aclnn_conformance.extract.host_code.empty import _empty_exit, _empty_helper, _empty_params, _run_fill_empty
from aclnn_conformance.extract.host_code.conditions import (_data_condition, _guard, _guarded_args, _has_atom,
                                                            _plain_exit, _same_checks_both_sides)
from aclnn_conformance.extract.host_code.templates import constexpr_decided
from aclnn_conformance.extract.host_code.flags import flag_nested
from aclnn_conformance.extract.host_code.partial import run_partly_read_branch, run_storage_size_failure
from aclnn_conformance.extract.host_code.string_choices import string_compares_spelled
from aclnn_conformance.extract.host_code.routing import run_routed_branch
from aclnn_conformance.extract.host_code.int_choices import int_assign_chain
import aclnn_conformance.extract.host_code.reenter as reenter



def _choice(guard: Any, then: Any, other: Any) -> Any:
    """The value a branch on ``guard`` leaves: one value when both sides leave the same."""
    return then if then == other else ("if", guard, then, other)

def _true_unless_false(stmt: Stmt, rest: tuple[Stmt, ...]) -> bool:
    """``if (C) { return true; }`` followed (or else-ed) only by logs and ``return false;``: a bool
    check of C."""
    if stmt.kind != "if" or len(stmt.then) != 1 or stmt.then[0].kind != "return" \
            or stmt.then[0].text.strip().rstrip(";").strip() != "return true":
        return False
    after = stmt.orelse or rest
    if not after:
        return False
    *logs, last = after
    return last.kind == "return" and last.text.strip().rstrip(";").strip() == "return false" and \
        all(s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) for s in logs)


def _status_neutral_return(w: Walk, src: SourceFile, stmt: Stmt, rest: tuple[Stmt, ...], env: dict,
                           fail: int | None, top: bool) -> bool:
    """``if (C) { *workspaceSize = 0; ...; return ACLNN_SUCCESS; }`` in GetWorkspaceSize on a condition
    the reader does not read, with no parameter check after it: every call succeeds either way, so the
    statuses are read on; whether the kernel runs (the values) depends on C: not judged."""
    after_empty = all(g[:1] == ("not",) and g[1][:1] == ("empty",) for g in w.guards)   # or no guard
    return (stmt.kind == "if" and w.depth == w.api_depth and after_empty and _success_exits(stmt, w)
            and (_first_param_check(rest, w) is None or _reads_no_check(w, src, rest, env, fail, top)))


def _reads_no_check(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None,
                    top: bool) -> bool:
    """The reader walks ``rest`` to its end and finds no check in it (the text names a parameter
    status only for what the reader knows is none: a kernel's result, a cast it bounds). The trial's
    events are dropped; the walk goes on from the caller."""
    mark, guards, pending = len(w.events), list(w.guards), list(w.pending)
    clean = True
    try:
        reenter.run_block(w, src, rest, dict(env), fail, top)
    except (_Stop, _End):
        pass
    except Unreadable:
        clean = False
    finally:
        clean = clean and not any(e.kind in ("check", "unread", "empty") for e in w.events[mark:])
        del w.events[mark:]
        w.guards[:], w.pending[:] = guards, pending
    return clean


def _success_exits(stmt: Stmt, w: Walk) -> bool:
    """``if (A) {...; return ACLNN_SUCCESS;} else if (B) {...; return ACLNN_SUCCESS;}``: every branch a
    success return with no parameter check before it (a missing else falls through)."""
    if not _empty_exit(stmt.then, w):
        return False
    if not stmt.orelse:
        return True
    if len(stmt.orelse) == 1 and stmt.orelse[0].kind == "if":
        return _success_exits(stmt.orelse[0], w)
    return _empty_exit(stmt.orelse, w)


def _remapped_call(w: Walk, expr: str, env: dict, code: int, only: int | None = None) -> bool:
    """``CHECK_RET(F(...) == ACLNN_SUCCESS, code)``: every failure of F returns ``code``, whatever
    status F itself returns (its checks are read with that status). With ``only``, the caller fails
    on F's status ``only`` alone (``if (F(...) == only)``): read where every check of F fails with it.
    F may be a function template called with a number type (``F<float>(a, b)``): read where each
    parameter of that type receives a scalar value the caller read as that type (``_scalar_local``)."""
    expr = _strip(expr)
    m = _TEMPLATE_CALL.match(expr)
    call = (m.group(1), split_args(expr[m.end():-1])) if m else _macro(expr)
    if not call or match_close(expr, expr.index("(")) != len(expr) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or not fn.returns.endswith("aclnnStatus"):
        return False
    if m:
        _template_numbers(w, fn, m.group(2), call[1], env)
    mark = len(w.events)
    reenter.call_fn(w, fn, call[1], env, fail=code)
    if only is not None and any(e.kind == "check" and e.status != only for e in w.events[mark:]):
        raise Unreadable(f"{fn.name} failing with a status other than the one its caller tests")
    w.events[mark:] = [replace(e, status=code) if e.kind == "check" and e.status else e
                       for e in w.events[mark:]]
    return True


def _run_status_compare(w: Walk, cond: str, env: dict, code: int) -> bool:
    """``if (F(...) != ACLNN_SUCCESS) { return <error>; }`` with F an aclnnStatus function (as
    CHECK_RET(F(...) == ACLNN_SUCCESS, error)), or ``if (F(...) == E)`` failing on F's status E:
    F inlined with its failures at ``code``."""
    m = re.fullmatch(r"(.+?)\s*(==|!=)\s*((?:\w+::)*ACLNN_\w+)", _strip(cond), re.S)
    status = _status_of(m.group(3)) if m else None
    if status is None or (m.group(2) == "!=") != (status == 0):
        return False
    return _remapped_call(w, m.group(1), env, code, only=status or None)


def int_switch_chain(w: Walk, stmt: Stmt, env: dict) -> Stmt | None:
    """``switch (v) { case A: ...; return x; case B: ...; default: ...; return y; }`` on an integer the
    walk knows, every label's statements ending in a return (no fall-through into another's), as
    ``if (v == A) {...} else if (v == B) {...} else {...}`` (ops-nn matmul/common/op_host/op_api/
    cube_util.cpp:84-113 CheckCubeMathType); None for any other switch."""
    m = re.match(r"switch\s*\(", stmt.text)
    found = switch_cases(stmt.text) if m else None
    if found is None:
        return None
    subject = stmt.text[m.end():match_close(stmt.text, m.end() - 1)].strip()
    try:
        held = reenter.value(w, subject, env)
    except Unreadable:
        return None
    if isinstance(held, tuple) and held[:1] in (("arch",), ("soc",)) or _dexpr(held) is not None:
        return None   # a switch on the product or a dtype: products._run_switch's
    try:
        if _iexpr_of(w, held) is None:
            return None
    except Unreadable:
        return None
    body, cases, opening = found
    base = stmt.offset + opening + 1
    arms: list[tuple[str | None, tuple[Stmt, ...]]] = []
    for k, case in enumerate(cases):
        end = cases[k + 1].start if k + 1 < len(cases) else len(body)
        stmts = statements(body[case.end:end], base + case.end)
        kept = [x for x in stmts if not (x.kind == "call" and IGNORED_CALLS.match(x.text.strip()))]
        if not kept or kept[-1].kind != "return" or any(x.kind == "return" or re.match(r"break\b", x.text.strip())
                                                         for x in kept[:-1]):
            return None
        arms.append((case.value, stmts))
    if not arms or [v for v, _ in arms].count(None) > 1 or (None in [v for v, _ in arms] and arms[-1][0] is not None):
        return None
    chain: tuple[Stmt, ...] = arms[-1][1] if arms[-1][0] is None else ()
    for value, stmts in reversed([a for a in arms if a[0] is not None]):
        cond = f"{subject} == {value}"
        chain = (Stmt("if", f"if ({cond})", stmts[0].offset, cond=cond, then=stmts, orelse=chain),)
    return chain[0]


def _accepting_chain(stmt: Stmt, fail: int | None) -> Stmt | None:
    """``if (C1) { return true; } else if (C2) { return true; } else { log; return false; }`` in a
    check (ops-nn index/quant_update_scatter/op_api/aclnn_quant_scatter.cpp:53-90
    CheckDtypeCombineValid): ``if (!(C1) && !(C2)) { log; return false; }``; None for any other if."""
    if fail is None:
        return None
    accepting: list[str] = []
    while stmt.kind == "if" and _returns_true(stmt.then) and stmt.orelse:
        accepting.append(stmt.cond.strip())
        stmt = stmt.orelse[0] if len(stmt.orelse) == 1 and stmt.orelse[0].kind == "if" else \
            Stmt("block", "", stmt.orelse[0].offset, then=stmt.orelse)
    if not accepting or stmt.kind != "block" or _error_exit(stmt.then, fail) is None:
        return None
    cond = " && ".join(f"!({c})" for c in accepting)
    return Stmt("if", f"if ({cond})", stmt.offset, cond=cond, then=stmt.then)


def _returns_true(stmts: tuple[Stmt, ...]) -> bool:
    kept = [s for s in stmts if not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip()))]
    return len(kept) == 1 and kept[0].kind == "return" and re.fullmatch(r"return\s+true\s*;?", kept[0].text.strip()) is not None


def _run_if(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> None:
    if rank_zero_spelled(stmt.cond) != stmt.cond:   # a shape's IsScalar(): its rank 0
        stmt = replace(stmt, cond=rank_zero_spelled(stmt.cond))
    if string_compares_spelled(w, stmt.cond, env) != stmt.cond:   # a string an integer argument names
        stmt = replace(stmt, cond=string_compares_spelled(w, stmt.cond, env))
    stmt = flag_nested(w, stmt, env) or stmt   # ``if (flag && C)``: C's checks under the flag's guard
    accepted = _accepting_chain(stmt, fail)
    if accepted is not None:   # every arm returns true but the last, which fails: one failure, then true
        _run_if(w, src, accepted, env, fail, top)
        raise _End(True)
    if stmt.orelse and _error_exit(stmt.then, fail) is not None and (_failure_chain(stmt, fail) or not re.search(
            r"return\s+false|ACLNN_ERR_PARAM|OP_CHECK", "".join(s.text for s in _flatten(stmt.orelse)))):
        # ``if (C) { fail } else { S }``, S failing nowhere or failing on every arm of an else-if chain, is
        # ``if (C) { fail } S``: an else returning true (aclnn_embedding_renorm.cpp:133), an else-if returning
        # success (aclnn_sync_batch_norm_gather_stats.cpp:271), a chain of failures (ops-transformer
        # gmm/grouped_matmul_finalize_routing/op_host/op_api/aclnn_grouped_matmul_finalize_routing.cpp:1103-1112)
        _run_if(w, src, replace(stmt, orelse=()), env, fail, top)
        reenter.run_block(w, src, stmt.orelse, env, fail, top)
        return
    cond = stmt.cond.strip()
    decided = constexpr_decided(stmt, env)   # an ``if constexpr``: only the side the template takes is compiled
    asked, w.undecided_if = getattr(w, "undecided_if", None), None
    if decided is None and asked != (stmt.offset, stmt.cond):
        decided = _product_bool(w, cond, env)   # (the block found the same condition undecided just before)
    if decided is not None:
        reenter.run_block(w, src, stmt.then if decided else stmt.orelse, env, fail, top)
        return
    if run_routed_branch(w, src, stmt, env, fail, top):   # a lower layer's routing predicate chooses the side
        return
    # a branch holding only a product branch (``if (IsRegBase()) { error } else { warn }``): the side
    # this product takes, so a data branch failing on some products only reads as one that fails
    then, orelse = _product_side(w, stmt.then, env), _product_side(w, stmt.orelse, env)
    if (then, orelse) != (stmt.then, stmt.orelse):
        stmt = replace(stmt, then=then, orelse=orelse)
    if _no_dims_return(w, stmt, env) or _value_return(w, stmt, env) or _rank0_return(w, stmt, env) \
            or _rank0_value_return(w, stmt, env) or _wrap_negative_dim(w, stmt, env) \
            or _leading_ones_branch(w, stmt, env):
        return
    cond = _without_true_product_terms(w, cond, env)
    empties = _empty_params(cond, env, _enclosing_body(src, stmt.offset))
    if not empties and _empty_exit(stmt.then):
        cond, empties = _empty_helper(w, cond, env)
    if empties and not stmt.orelse and not _empty_exit(stmt.then, w) and w.depth == w.api_depth and not w.guards:
        _run_fill_empty(w, src, stmt, env, empties)
    if empties and _empty_exit(stmt.then, w):
        path, line = _cite(src, stmt.offset)
        w.events.append(Event("empty", "empty", _args(params=sorted(empties), any=" || " in cond or
                                                       len(empties) == 1), 0, path, line, stmt.cond.strip()))
        stop = _Stop(empty=True)
        stop.origin, stop.guard = stmt, ("empty", tuple(sorted(empties)), " || " in cond or len(empties) == 1)
        raise stop
    code = _error_exit(stmt.then, fail)
    if code is not None and not stmt.orelse and run_storage_size_failure(w, src, stmt, env, code):
        return
    if code is not None and not stmt.orelse and (_infer_broadcast(w, src, stmt, env, cond, code)
                                                 or _run_negated_checker(w, cond, env, code)
                                                 or _run_status_compare(w, cond, env, code)):
        return
    if code is not None and not stmt.orelse:
        _data_condition(w, src, stmt.offset, cond, env, code, "if (" + stmt.cond.strip() + ")")
        return
    if code is not None and fail is not None and len(stmt.orelse) == 1 and \
            re.fullmatch(r"return\s+true\s*;?", stmt.orelse[0].text.strip()):
        # ``if (C) { log; return false; } else { return true; }`` (ops-nn v9.0.0
        # index/gather_v2/op_api/aclnn_embedding_renorm.cpp:124-135): fails where C holds, else ends true
        _data_condition(w, src, stmt.offset, cond, env, code, "if (" + stmt.cond.strip() + ")")
        raise _End(True)
    call = _macro(cond[1:].strip()) if cond.startswith("!") else None
    if call and code is not None:
        fn = w.index.function(call[0])
        if fn is not None:
            reenter.call_fn(w, fn, call[1], env, fail=code)
            return
    if _rank0_branch(w, stmt, env) or _every_dim_if_empty(w, src, stmt, env) or int_assign_chain(w, stmt, env) or \
            _run_guarded_if(w, src, stmt, env, fail, top) or _run_nonnull_branch(w, src, stmt, env, fail, top) or \
            run_partly_read_branch(w, src, stmt, env, fail, top):
        return
    if all(s.kind == "call" and re.fullmatch(r"OP_LOG\w*\s*\(.*\)\s*;?", s.text.strip(), re.S)
           for s in _flatten(stmt.then + stmt.orelse)):
        return   # a branch that only logs (``if (!valid) { OP_LOGE(...); }``): no check
    inner = "".join(s.text + ";" for s in _flatten(stmt.then + stmt.orelse))
    compute = _compute_only(inner, w, env)   # an inner status checked on the compute path is no parameter check
    if _checks_params(w, compute) or re.search(r"CHECK_RET", compute):
        if stmt.orelse and _same_checks_both_sides(w, src, stmt, env, fail, top):
            return
        raise Unreadable(f"a branch on {cond!r} holding checks")
    if any(s.kind == "return" for s in _flatten(stmt.then + stmt.orelse)):
        raise Unreadable(f"a branch on {cond!r} that returns")
    _forget_assigned(stmt, env, w, src)


def _run_guarded_if(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (G) {...} else {...}`` with G on the call's dtypes: each branch's checks under its guard;
    a branch that returns leaves the rest of the function to the calls not taking it. G may also be
    a test of the call's bool and scalar argument values (``if (scaleFromBlob)``), or a conjunction of
    guards and such tests, when neither branch returns success, or in GetWorkspaceSize itself (the
    calls returning success there keep their statuses, their values are not judged); elsewhere a
    success return skipping the kernel leaves the values to _status_neutral_return. A kernel's result
    whose shape differs between the sides is held per side (a check of it made under each guard), or
    known on one side only (a check of it unread for the other side's calls)."""
    cond = _without_true_product_terms(w, stmt.cond, env)
    g = _guard(w, cond, env) or _null_test_guard(w, stmt, env)
    success = {"return true", *(f"return {n}" for n in SUCCESS_NAMES)}
    returns_success = any(s.kind == "return" and s.text.strip().rstrip(";").strip() in success
                          for s in _flatten(stmt.then + stmt.orelse))
    by_value = False
    # a check function ending its checks early (``if (mode == K) { return true; }``, ops-math
    # math/div/op_api/aclnn_div.cpp:346-348): the checks after it hold for the calls not taking it
    ends_checks = fail is not None and w.depth != w.api_depth and all(
        s.text.strip().rstrip(";").strip() == "return true" for s in _flatten(stmt.then + stmt.orelse)
        if s.kind == "return")
    if g is None and (not returns_success or w.depth == w.api_depth or ends_checks):
        # a success return on a value test in GetWorkspaceSize itself: the calls taking it succeed,
        # their values are not judged (whatever that side computes)
        test = _value_test(w, cond, env)
        g, by_value = (None, False) if test is None else (("value", test), returns_success and not ends_checks)
        # a conjunction of guards and value tests (``dimSize == 0 && noop == true``), or a disjunction
        # (``self->IsEmpty() || outputSize == 0``: ops-nn index/repeat_interleave/op_api/aclnn_repeat_interleave.cpp:525)
        for op, name in (("&&", "and"), ("||", "or")):
            parts = _split_top(_strip(cond), op)
            atoms = [_guard(w, p, env) or (("value", t) if (t := _value_test(w, p, env)) is not None else None)
                     or (("not", ("null", n)) if (n := _nonnull_param(p, env)) is not None else None)
                     for p in parts] if len(parts) > 1 and g is None else [None]
            if None not in atoms:
                g, by_value = (name, *atoms), returns_success and not ends_checks
    if g is None or (_has_atom(g, "empty") and not _plain_exit(stmt)):
        return False   # an empty tensor's branch computing something is the empty return's to read
    lists = _lists_returned(w, stmt, env)
    if lists is not None:   # a function choosing a dtype list: the choice, checked per side where used
        raise _End(("dlist-choice", g, *lists))
    ended, changed, partly = [], [], []
    for branch, guard in ((stmt.then, g), (stmt.orelse, ("not", g))):
        if not branch:
            continue
        mark = len(w.guards)
        w.guards.append(guard)
        local = dict(env)
        try:
            reenter.run_block(w, src, branch, local, fail, top)
        except _End as end:
            if end.value not in (True, False):
                d = _dexpr(end.value)
                if d is None:
                    raise Unreadable(f"a data-dependent branch on {stmt.cond.strip()!r} returning a value") \
                        from None
                w.pending.append((tuple(w.guards[w.fn_guards:]), d))
            if end.value is True and w.depth == w.api_depth and \
                    (by_value or not any(re.search(r"\bl0op::", s.text) for s in _flatten(branch))):
                # the API returning success without running a kernel: the calls taking it keep the
                # statuses read, their values are not judged
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", _guarded_args(w, "unread", ()), None, path, line,
                                      " ".join(f"a branch on {stmt.cond.strip()!r} that returns success "
                                               f"before the kernel".split())[:160]))
            ended.append(guard)
        except _Stop as stop:
            if stop.empty:
                raise Unreadable(f"an empty-tensor return inside a branch on {stmt.cond.strip()!r}") \
                    from None
            raise
        finally:
            # a return inside the branch (``if (E) return ...;``) left the rest of it to the calls
            # not taking that return (guard ("not", E)): after the branch, the calls that returned
            # there are those taking the branch and E
            inner = w.guards[mark + 1:]
            del w.guards[mark:]
        if guard not in ended:
            changed.append((guard, local))
            if inner:
                if not all(isinstance(x, tuple) and x[:1] == ("not",) for x in inner):
                    raise Unreadable(f"a return inside a branch on {stmt.cond.strip()!r}")
                returned = [x[1] for x in inner]
                partly.append(("and", guard, returned[0] if len(returned) == 1 else ("or", *returned)))
    both = len(changed) == 2
    made = {k for k in env if (both or _kernel_made(env[k])) and all(
        _kernel_made(local.get(k)) for _, local in changed)}
    both_set = set()
    if both:   # a tensor set on both sides from one (``if (C) x = Cast(y, D); else x = y;``): its dtype a
        # choice on the guard, its shape that tensor's
        (g0, l0), (_, l1) = changed
        for k in made:   # kernels of one shape on both sides (``r = A(x, dims) ... else r = B(x, dims)``)
            values = (l0.get(k), l1.get(k))
            if values[0] == values[1]:   # the same value whichever side ran (neither side set it)
                env[k] = values[0]
                both_set.add(k)
                continue
            shapes = [v[2] if isinstance(v, tuple) and v[:1] == ("tensor-dtype",) and len(v) == 3 else None
                      for v in values]
            if shapes[0] is not None and shapes[0] == shapes[1]:
                d0, d1 = l0[k][1], l1[k][1]
                env[k] = ("tensor-dtype", _choice(g0, d0, d1) if d0 and d1 else None, shapes[0])
                both_set.add(k)
            elif shapes[0] is not None and shapes[1] is not None:
                # a kernel of another shape on each side: a check of it is made per side, under its guard
                env[k] = ("shape-choice", g0, values[0], values[1], stmt.cond.strip())
                both_set.add(k)
            elif (shapes[0] is None) != (shapes[1] is None):
                # its shape known on one side only: a check of it holds for the calls taking that
                # side and is unread for the others (``if (rank 8) { r = Reshape(K(..)) } else r = K(..)``)
                side = 0 if shapes[0] is not None else 1
                env[k] = ("shape-unless", changed[1 - side][0], values[side], stmt.cond.strip())
                both_set.add(k)
            elif all(isinstance(v, tuple) and v[:1] == ("tensor-dtype",) and v[1] is not None for v in values):
                # kernels of shapes not read, of dtypes read: the dtype a choice on the guard
                d0, d1 = values[0][1], values[1][1]
                env[k] = ("tensor-dtype", d0 if d0 == d1 else _choice(g0, d0, d1), None)
                both_set.add(k)
        for k in set(l0) & set(l1) - made:
            if env.get(k) == l0[k] == l1[k]:
                continue
            like = {_shape_like(l0[k]), _shape_like(l1[k])}
            d0, d1 = _tensor_dtype(w, k, l0), _tensor_dtype(w, k, l1)
            if len(like) == 1 and None not in like:
                shape = ("like", like.pop())
                env[k] = ("tensor-dtype", _choice(g0, d0, d1), shape) if d0 and d1 else shape
                both_set.add(k)
            elif k not in env and stmt.orelse and _declared_before(src, stmt, k):
                # a shape declared before, set on each side (``if (rank == 0) { s = x; } else { s.AppendDim
                # ... }``): the choice of the two on the guard
                choice = _int_or_shape_choice(w, g0, l0[k], l1[k])
                if choice is not None:
                    env[k] = choice
                    both_set.add(k)
    if ended and len(changed) == 1:   # the other side returned: the rest runs on this side's values
        env.update(changed[0][1])
        changed = []
    for guard, local in changed:   # a dtype assigned in a branch: a choice on the branch's guard after it
        for k, v in local.items():
            if k in both_set:
                continue
            if k in made and env[k] != v:   # a kernel's result on every path: one still
                shapes = (_tensor_shape_expr(v), _tensor_shape_expr(env[k]))   # of the shape of the side taken
                tnew, told = _tensor_dtype(w, k, local), _tensor_dtype(w, k, env)
                env[k] = ("kernel-result", k) if None in shapes else \
                    ("tensor-dtype", _choice(guard, tnew, told) if tnew is not None and told is not None else None,
                     ("shape-expr", shapes[0] if shapes[0] == shapes[1] else ("?", ("guard", guard), *shapes)))
                continue
            if k in env and env[k] != v:
                tnew, told = _tensor_dtype(w, k, local), _tensor_dtype(w, k, env)
                if tnew is not None and told is not None:   # a tensor of the compute path: its dtype a choice
                    like = _shape_like(v)   # and its shape an API tensor's when both sides have it
                    shapes = (_tensor_shape_expr(v), _tensor_shape_expr(env[k]))   # or a choice of two known
                    shape = shapes[0] if shapes[0] == shapes[1] else ("?", ("guard", guard), *shapes)
                    env[k] = ("tensor-dtype", _choice(guard, tnew, told), ("like", like)) \
                        if like is not None and like == _shape_like(env[k]) else \
                        ("tensor-dtype", _choice(guard, tnew, told), ("shape-expr", shape)) \
                        if None not in shapes else ("tensor-dtype", _choice(guard, tnew, told))
                    continue
                choice = _int_or_shape_choice(w, guard, v, env[k])
                if choice is not None:
                    env[k] = choice
                    continue
                if _kernel_made(env[k]) and _recast_only(stmt, k):
                    # a kernel's result cast in place: one still, of the shape it had (a cast keeps it)
                    kept = _tensor_shape_expr(env[k])
                    same = kept is not None and kept[0] != "of" and kept == _tensor_shape_expr(v)
                    env[k] = ("tensor-dtype", None, ("shape-expr", kept)) if same else ("kernel-result", k)
                    continue
                if _dlist_or_choice(v) and _dlist_or_choice(env[k]):
                    # a dtype list chosen in the branch (ops-nn norm/add_rms_norm/op_host/op_api/
                    # aclnn_add_rms_norm.cpp:95-102, the list of a mode): a check of it is made per choice
                    env[k] = ("dlist-choice", guard, v, env[k])
                    continue
                new, old = _dexpr(v), _dexpr(env[k])
                if new is None or old is None:   # unknown after the branch: a check on it is unread
                    env[k] = Opaque(f"{k}, assigned in a branch on {stmt.cond.strip()}")
                    continue
                env[k] = ("dexpr", _choice(guard, new, old))
    if len(ended) == 2:
        if w.pending and len(w.pending[-1][0]) > len(w.guards) - w.fn_guards:
            raise _End(("dexpr", w.pending.pop()[1]))   # both branches return a dtype
        raise _End(True)
    if ended:
        w.guards.append(("not", ended[0]))   # popped when the function ends (_run_function)
    w.guards.extend(("not", p) for p in partly)   # popped when the function ends (_run_function)
    return True


def _failure_chain(stmt: Stmt, fail: int | None) -> bool:
    """``if (A) { fail } else if (B) { fail } ...``, an optional last else failing too: every arm fails."""
    node = stmt
    while _error_exit(node.then, fail) is not None:
        if not node.orelse:
            return True
        if len(node.orelse) == 1 and node.orelse[0].kind == "if":
            node = node.orelse[0]
            continue
        return _error_exit(node.orelse, fail) is not None
    return False


def _lists_returned(w: Walk, stmt: Stmt, env: dict) -> tuple[Any, Any] | None:
    """``if (G) { return A; } else { return B; }`` with A and B dtype lists or choices of them (ops-nn
    index/scatter_nd_update/op_api/aclnn_put.cpp:77-85, a list chosen on the product and ``accumulate``):
    (A, B); None for any other branch."""
    sides = []
    for branch in (stmt.then, stmt.orelse):
        m = re.fullmatch(r"return\s+(.+?)\s*;?", branch[0].text.strip(), re.S) \
            if len(branch) == 1 and branch[0].kind == "return" else None
        try:
            value = reenter.value(w, m.group(1), env) if m else None
        except Unreadable:
            return None
        if not _dlist_or_choice(value):
            return None
        sides.append(value)
    return sides[0], sides[1]


def _dlist_or_choice(value: Any) -> bool:
    """A dtype list, or a choice of dtype lists on a guard (``("dlist-choice", guard, then, else)``)."""
    return isinstance(value, DList) or isinstance(value, tuple) and value[:1] == ("dlist-choice",)


def _returned(w: Walk, value: Any) -> Any:
    """The value a function returns, with its returns in data-dependent branches (``w.pending``)
    folded in: ``G1 ? E1 : G2 ? E2 : value``."""
    if not w.pending:
        return value
    d = _dexpr(value)
    if d is None:
        raise Unreadable("a function returning a dtype in a data-dependent branch and another value after it")
    for guards, e in reversed(w.pending):
        g = guards[0] if len(guards) == 1 else ("and", *guards)
        d = ("if", g, e, d)
    return ("dexpr", d)


def _forget_assigned(stmt: Stmt, env: dict, w: Walk | None = None, src: SourceFile | None = None) -> None:
    """A branch the reader does not follow: the locals it assigns are unknown after it (a check on
    them is unread, never read with the value from before the branch). With the walk, a tensor local
    declared without a value (``const aclTensor* out;``) and set by a kernel or a compute helper on
    every path through the branch holds a kernel's result (aclnn_multinomial.cpp:465-513); a local the two
    sides set from two kernels of one result (a V2 chosen on data) holds that result."""
    assigned = [s for s in _flatten(stmt.then + stmt.orelse) if s.kind == "decl"]
    for s in assigned:
        m = re.match(r"([A-Za-z_]\w*)\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)", s.text.strip())   # ``+=`` too
        if m and m.group(1) not in env and w is not None and src is not None and \
                len(re.findall(rf"\baclTensor\s*\*\s*{re.escape(m.group(1))}\s*[;=]",
                               _enclosing_body(src, stmt.offset))) == 1 and \
                re.search(rf"\baclTensor\s*\*\s*{re.escape(m.group(1))}\s*;", _enclosing_body(src, stmt.offset)) \
                and _kernel_on_every_path((stmt,), m.group(1), w):
            env[m.group(1)] = ("kernel-result", m.group(1))
            continue
        if not m or m.group(1) not in env:
            continue
        name = m.group(1)
        both = _same_kernel_result_both_sides(w, stmt, name, env) if w is not None else None
        if both is not None:   # two kernels of one result (a V2 chosen on data): that result either way
            env[name] = both
            continue
        reshaped = re.match(rf"{name}\s*=\s*l0op::Reshape\(\s*{name}\s*,", s.text.strip())
        others = [x for x in assigned if x is not s and re.match(rf"{name}\s*=(?!=)", x.text.strip())]
        if reshaped and not others and _tensor_dtype(None, name, env) is not None:
            continue   # a tensor reshaped in place keeps its dtype (reshape.h:18-34)
        env[name] = ("kernel-result", name) if _kernel_on_every_path((stmt,), name, w) else Opaque(s.text.strip())


def _same_kernel_result_both_sides(w: Walk, stmt: Stmt, name: str, env: dict) -> tuple | None:
    """``if (C) { name = l0op::K1(...); } else { name = l0op::K2(...); }`` whose two kernels return
    results of one dtype and shape (ops-nn index/repeat_interleave/op_api/aclnn_repeat_interleave.cpp:
    549-555, RepeatInterleaveV2 or RepeatInterleave): that result; None otherwise."""
    results = []
    for side in (stmt.then, stmt.orelse):
        kept = [s for s in side if not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip()))]
        m = re.fullmatch(rf"{re.escape(name)}\s*=\s*(l0op::.+?)\s*;?", kept[0].text.strip(), re.S) \
            if len(kept) == 1 and kept[0].kind == "decl" else None
        if m is None:
            return None
        results.append(_kernel_result(w, m.group(1), env))
    held = results[0]
    return held if held is not None and held == results[1] and _tensor_shape_expr(held) is not None else None


def _run_negated_checker(w: Walk, cond: str, env: dict, code: int) -> bool:
    """``if (!Checker(...)) { return <error>; }`` with Checker a bool function holding checks (as
    CHECK_RET(Checker(...), error)): inlined with its failures at ``code``."""
    cond = _strip(cond)
    call = _macro(cond[1:].strip()) if cond.startswith("!") and not cond.startswith("!=") else None
    if not call or match_close(cond, cond.index("(")) != len(cond) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or not _is_checker(fn):
        return False
    reenter.call_fn(w, fn, call[1], env, fail=code)
    return True


def _forget_if_mutated(src: SourceFile, stmt: Stmt, env: dict, name: str) -> None:
    """A shape or rank local that the rest of its function changes (SetDim, an assignment, an output
    argument of a call other than a checked BroadcastInferShape) is not held: it becomes opaque."""
    value = env.get(name)
    if not (isinstance(value, tuple) and value and value[0] in ("shape-of", "bshape", "lin", "rshape",
                                                                 "built-shape", "bshape-built", "shape-expr",
                                                                 "dims-vector")):
        return
    fn = _enclosing_function(src, stmt.offset)
    if fn is None:
        env[name] = Opaque(name)
        return
    rest = _reachable_after(fn, stmt)
    if value[0] == "lin":   # the rank-0 branches _rank0_branch reads, constants set in guarded branches
        rest = branch_constants_blanked(rest, name)
        rest = re.sub(r"\bif\s*\(\s*\w+\s*(?:==|<=)\s*0\s*\)\s*\{(?:\s*(?:\w+\s*=\s*(?:-?\s*\d+|true|false)|\w+\s*\+\+|"
                      r"\+\+\s*\w+)\s*;)+\s*\}", "", rest)
    n = re.escape(name)
    if value[0] in ("shape-of", "built-shape", "shape-expr", "dims-vector") and \
            not re.search(rf"&\s*{n}\s*=", stmt.text):   # set in order, in branches the walk merges (no reference)
        start = stmt.offset - fn.body_offset + len(stmt.text)
        for s in _in_order_mutations(statements(fn.body, fn.body_offset), name):
            at = s.offset - fn.body_offset - start
            if 0 <= at and at + len(s.text) <= len(rest) and rest[at:at + len(s.text)] == s.text:
                rest = rest[:at] + " " * len(s.text) + rest[at + len(s.text):]
    for m in re.finditer(rf"(?m)^[ \t]*{n}\s*=(?!=)[^;{{}}]*;", rest):
        if open_braces(rest, m.start()) == 0:   # read in order, where it stands
            rest = rest[:m.start()] + " " * (m.end() - m.start()) + rest[m.end():]
    for m in re.finditer(rf"(?m)^[ \t]*{n}\s*=\s*\(?\s*{n}\s*(?:<=|==)\s*0\s*\)?\s*\?\s*-?\d+\s*:\s*{n}\s*;", rest):
        if value[0] == "lin" and open_braces(rest, m.start()) == 0:
            rest = rest[:m.start()] + " " * (m.end() - m.start()) + rest[m.end():]   # read by _rank_choice
    # a dim read by ``s[i]`` (Shape::operator[]) is no change: one assigned, stepped or bound to a reference is
    rest = pointer_reads_blanked(src.functions, rest, name)   # ``&s`` to a helper only reading it
    if value[0] == "shape-of":   # set in a then block: the else block after it is not on its way
        rest = untaken_else_blanked(rest)
    changed = re.search(rf"\b{n}\s*(?:\.\s*(?:Set\w*|Append\w*|\w*Insert\w*|push_back|pop_back|emplace_back|"
                        rf"resize|clear|erase)\s*\(|\[[^\[\];]*\]\s*(?:=(?!=)|\+\+|--|[-+*/]=)|=(?!=)|\+\+|--|[-+*/]=)|"
                        rf"(?<!&)&(?!&)\s*{n}\b|\+\+\s*{n}\b|&\s*\w+\s*=\s*{n}\s*\[|\b{n}\s*\[[^\]]*\[", rest)
    for m in re.finditer(rf"([!(,]?)\s*((?:op::)?BroadcastInferShape|[A-Za-z_][\w:]*)\s*\(([^;]*?)\b{n}\s*\)", rest):
        if m.group(2).split("::")[-1] == "BroadcastInferShape" and m.group(1) == "!":
            continue
        # opbase shape_utils.h:25 ToShapeVector(const op::Shape&) reads the shape only; Shape::SetDimNum(size_t)
        # and AppendDim(int64_t) take the value (``expectShape.SetDimNum(selfDimnum)``, ops-math
        # conversion/pad_v3/op_api/aclnn_replication_pad1d.cpp:40)
        if m.group(2).split("::")[-1] in ("if", "while", "GetDimNum", "ToString", "GetDim", "ToShapeVector",
                                          "SetDimNum", "AppendDim") \
                or m.group(2) in ("std::max", "std::min") \
                or m.group(2).startswith("OP_") \
                or _last_param_by_value(src, m.group(2)):
            continue
        changed = changed or m
    if changed:
        env[name] = Opaque(name)


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.forget_assigned = _forget_assigned
reenter.forget_if_mutated = _forget_if_mutated
reenter.run_guarded_if = _run_guarded_if


def _declared_before(src: SourceFile, stmt: Stmt, name: str) -> bool:
    """``name`` is declared (``Shape name;``) in the function before ``stmt``, not inside it."""
    fn = _enclosing_function(src, stmt.offset)
    before = fn.body[:stmt.offset - fn.body_offset] if fn is not None else ""
    return bool(re.search(rf"(?<![\w:])(?:(?:op|gert)::)?Shape\s+{re.escape(name)}\s*;", before))
