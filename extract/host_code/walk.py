"""The walk: GetWorkspaceSize statement by statement, CheckParams and the helpers it calls inlined
(``_call_fn``), blocks, declarations, ``CHECK_RET``, returns, the check macros' table, and the
status a called function ends with."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.shape_helpers import expand_to_size, split_half_of, split_halves
from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, statements
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.extract.host_code.model import (Event, FalseStatus, IGNORED_CALLS, Index, Opaque, PARAM_CODES,
                                                       SUCCESS_NAMES, T, Unreadable, Walk, _End, _Stop, _args, _check,
                                                       _cite, _enclosing_function, _fail_status, _macro, _reaching,
                                                       _split_top, _status_of, _strip, _unread)
from aclnn_conformance.extract.host_code.promotion import _dexpr, _dtype_values
from aclnn_conformance.extract.host_code.statements import _forget_in_text, _is_checker, only_succeeds
from aclnn_conformance.extract.host_code.casts import CAST_ALWAYS, _cast_cannot_fail, _m_cast
from aclnn_conformance.extract.host_code.cast_routes import route_check
from aclnn_conformance.extract.host_code.ranks import _dims_local, _rank, _select_local, constant_dims_helper
from aclnn_conformance.extract.host_code.shapes import (_append_dim, _brace_shape, _dropped_broadcast, _infer_broadcast,
                                                        _m_broadcast, _m_broadcast_infer, _m_broadcast_with_shape,
                                                        _m_check_shape_all_equal, _m_shape_equal, _m_shape_expected,
                                                        _m_shape_scalar_equal, _scalar_same_check, _set_dim,
                                                        _split_shape, to_shape, vector_pop_back)
from aclnn_conformance.extract.host_code.nulls import (_contiguous_null_check, _false_status_null_guard,
                                                       _m_check_not_null, _m_null, _nonnull_names, _null_guard,
                                                       _null_or_empty_guard, _run_guarded, _run_when_given)
from aclnn_conformance.extract.host_code.dtypes import (_dtype_or_opaque, _list_find, _m_dtype_match, _m_dtype_same,
                                                        _m_dtype_support)
from aclnn_conformance.extract.host_code.reductions import (_reduce_shape_call, _reduce_shape_value, _reduced_dims_call,
                                                            _shape_vector, _vector_array)
from aclnn_conformance.extract.host_code.products import _product_bool, _run_switch
from aclnn_conformance.extract.host_code.scalars import _scalar_local, _string_local, value_test_local
from aclnn_conformance.extract.host_code.kernels import (_broadcast_to_helper, _choice_like, _helper_tensor,
                                                         _kernel_choice, _kernel_made, _kernel_result, _lambda_like,
                                                         _made_local, _one_dim_at_rank0_local, _view_copy,
                                                         _view_copy_check)
from aclnn_conformance.extract.host_code.empty import _run_after_empty, _scan_after_empty, empty_passes_by
from aclnn_conformance.extract.host_code.templates import template_bindings
from aclnn_conformance.extract.host_code.conditions import _data_condition, _guard_atom, _guarded_args
from aclnn_conformance.extract.host_code.values import _value
from aclnn_conformance.extract.host_code.dim_loops import (default_arguments, each_dim_from_loop, shape_by_pointer, slice_same_but_one_loop,
                                                           unrolled_loop)
from aclnn_conformance.extract.host_code.branches import (int_switch_chain, _forget_if_mutated, _remapped_call, _returned, _run_if,
                                                          _status_neutral_return, _true_unless_false)
from aclnn_conformance.extract.host_code.loops import (split_loop, _append_dims_loop, _batch_broadcast_loop, _copy_loop,
                                                       _negative_dim_loop, _numel_loop, _run_array_loop,
                                                       _slice_compare_loop, _slice_loop, _array_dims_loop,
                                                       _dim_locals_loop)
from aclnn_conformance.extract.host_code.int_choices import run_int_ref_helper
from aclnn_conformance.extract.host_code.int_helpers import pair_helper_value
from aclnn_conformance.extract.host_code.rank_loops import run_rank_loop
from aclnn_conformance.extract.host_code.lambdas import lambda_local, lambdas_inlined
import aclnn_conformance.extract.host_code.reenter as reenter
from aclnn_conformance.extract.host_code import aggregates, searches


def walk_api(index: Index, fn: Function, bindings: dict[str, Any], product: str) -> list[Event]:
    """The events of GetWorkspaceSize ``fn`` on ``product``, in order."""
    w = Walk(product, index)
    w.ptypes = {b.name: t for p, t in zip(fn.params, fn.param_types) if isinstance(b := bindings.get(p), T)}
    w.api_top = frozenset(s.offset for s in statements(fn.body, fn.body_offset))
    try:
        _run_function(w, fn, bindings, fail=None, top=True)
    except _Stop:
        pass
    return w.events


# ---- functions and statements ----

def _call_fn(w: Walk, fn: Function, args: list[str], env: dict, fail: int | None) -> Any:
    """Inline a call of a function the checkout defines: its checks are events. A local passed to a
    non-const reference parameter (``DataType& promoteType``) holds, after the call, what the callee
    left in it."""
    if _recognised_helper(w, fn, args, env, fail):
        return True
    if only_succeeds(fn):
        return True   # its checks return false, which its aclnnStatus holds as ACLNN_SUCCESS
    left: dict[str, Any] = {}
    # a function passed for a function-pointer parameter (ops-math
    # conversion/circular_pad_grad/op_api/circular_pad_backward_common.h:72 ``CheckShapeFn checkShapeFn``):
    # a call of the parameter inside is a call of that function
    aliases = {p: f for p, a in zip(fn.params, args) if re.fullmatch(r"[A-Za-z_]\w*", a.strip())
               and a.strip() not in env and p not in w.index.aliases and (f := w.index.function(a.strip())) is not None}
    w.index.aliases.update(aliases)
    try:
        result = _run_function(w, fn, _bind(w, fn, args, env), fail=fail, left=left)
    finally:
        for p in aliases:
            del w.index.aliases[p]
    for param, arg, ctype in zip(fn.params, args, fn.param_types):
        name = arg.strip()
        # an argument passed to an integer reference the callee changes holds what it left (ops-math
        # conversion/slice/op_api/aclnn_slice.cpp:123 ``CalculateValuesSliceUpperForSlice(self, dim, start, end)``)
        changed = isinstance(env.get(name), T) and left.get(param) != env[name] and \
            re.fullmatch(r"(?:u?int(?:64|32)_t|int)\s*&", ctype.strip())
        if param in left and "&" in ctype and not ctype.lstrip().startswith("const") \
                and re.fullmatch(r"[A-Za-z_]\w*", name) and (not isinstance(env.get(name), T) or changed):
            env[name] = left[param]
    return result


def _recognised_helper(w: Walk, fn: Function, args: list[str], env: dict, fail: int | None) -> bool:
    """A bool helper read whole (extract/shape_helpers.py), its parameters the API's own tensors and
    arguments (or what the reading requires of them: a wrapped dim, a rank): its rules, failing with
    the caller's status."""
    if fail is None or len(args) != len(fn.params):
        return False
    read = expand_to_size(fn) or split_halves(fn, w.index.function, w.index.constant) or \
        split_half_of(fn, w.index.constant)
    if read is None:
        return False
    held = {p: env.get(_strip(a)) for p, a in zip(fn.params, args)}
    names = {p: v.name for p, v in held.items() if isinstance(v, T)}
    attr_of = {}
    for p, t in read.wraps:   # the API's integer argument's dim of that tensor, wrapped by max(rank, 1)
        v = held.get(p)
        if not (isinstance(v, tuple) and v[:1] == ("wrapped-dim-max1",) and v[2] == names.get(t)):
            return False
        attr_of[p] = v[1]
    if any(held.get(p) != ("lin", names.get(t), 1, 0, 1) for p, t in read.ranks):
        return False

    def resolve(value: Any) -> Any:
        if isinstance(value, tuple) and value[:1] == ("attr-of",):
            return attr_of[value[1]]
        return names.get(value, value) if isinstance(value, str) else value
    used = [v for _, a in read.rules for v in a.values() if isinstance(v, str)]
    if any(v in fn.params and v not in names for v in used):
        return False
    src = w.index.source(fn)
    path, line = _cite(src, fn.body_offset)
    for i, (template, a) in enumerate(read.rules):
        if read.unread is not None and i == read.unread_at:
            guard = ("rank-zero", names[read.unread[1]])
            w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", guard),)), None, path, line,
                                  f"{fn.name}: {read.unread[0]}"))
        _check(w, src, fn.body_offset, template, _args(**{k: resolve(v) for k, v in a.items()}), fail,
               f"{fn.name}: {template}")
    return True


def _run_function(w: Walk, fn: Function, bindings: dict[str, Any], fail: int | None, top: bool = False,
                  left: dict | None = None) -> Any:
    if w.depth > 12:
        raise Unreadable(f"calls nested deeper than 12 at {fn.name}")
    w.depth += 1
    src = w.index.source(fn)
    env = dict(bindings)
    guards, outer = len(w.guards), (w.fn_guards, w.pending)
    w.fn_guards, w.pending = guards, []
    returns, w.returns = getattr(w, "returns", ""), fn.returns
    param_types, w.param_types = w.param_types, dict(zip(fn.params, fn.param_types))
    try:
        _run_block(w, src, statements(fn.body, fn.body_offset), env, fail, top)
    except _End as end:
        return _returned(w, end.value)
    except _Stop as stop:
        stop.returned = False   # the caller's statements after this call are reachable again
        raise
    finally:
        w.depth -= 1
        del w.guards[guards:]
        w.fn_guards, w.pending = outer
        w.returns = returns
        w.param_types = param_types
        if left is not None:
            left.update(env)
    return None


def _run_block(w: Walk, src: SourceFile, stmts: tuple[Stmt, ...], env: dict, fail: int | None,
               top: bool) -> None:
    for i, stmt in enumerate(stmts):
        if w.depth == 1 and stmt.offset in w.api_top:
            w.top_guards = len(w.guards)
        stmt = aggregates.rewrite(w, stmt, env)   # a member of an aggregate of the arguments read as it
        if aggregates.read_declaration(w, src, stmt, env) or searches.read_search(w, src, stmt, env, fail):
            continue
        guard = _null_guard(w, stmt, env) or _false_status_null_guard(w, stmt, env, fail)
        if guard is not None:
            _run_guarded(w, src, stmts[i + 1:], env, fail, top, guard)
            return
        given = _null_or_empty_guard(w, stmt, env)
        if given is not None:
            _run_when_given(w, src, stmts[i + 1:], env, fail, top, given)
            return
        taken = _product_taken(w, stmt, env)
        if taken is None:
            taken = empty_passes_by(w, src, stmt, env)
        if taken is not None:
            # the side this product takes runs as part of this block, so a return inside it (an
            # empty-tensor return under ``if (isRegbase && gamma->IsEmpty()) {} else {...}``, ops-nn
            # norm/add_rms_norm_dynamic_quant/op_host/op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:262-273)
            # leaves the rest of the block to the calls not taking it
            try:
                _run_block(w, src, taken + stmts[i + 1:], env, fail, top)
            except _Stop as stop:
                if any(getattr(stop, "at", None) is s for s in taken):
                    stop.at = stmt   # to this block the checks ended at the branch
                raise
            return
        if _true_unless_false(stmt, stmts[i + 1:]) and fail is not None:
            # ``if (C) { return true; } log; return false;``: the function fails when C does not hold
            _data_condition(w, src, stmt.offset, f"!({stmt.cond.strip()})", env, fail, f"if ({stmt.cond.strip()})")
            raise _End(True)
        try:
            _run_stmt_inside_arrays(w, src, stmt, env, fail, top)
        except _Stop as stop:
            stop.at = stmt   # the statement of this block where the checks end (an outer block's overrides)
            if stmt.kind == "return":   # the stop came through a return: the rest of the function is not reached
                stop.returned = True
            if getattr(stop, "returned", False):
                raise
            if stop.empty and _run_after_empty(w, src, stmt, stmts[i + 1:], env, fail, top, stop):
                return
            if stop.empty:
                _scan_after_empty(w, src, stmts[i + 1:])
            raise
        except Unreadable as exc:
            if isinstance(exc, FalseStatus) and top and w.depth == w.api_depth:
                # GetWorkspaceSize returning false returns 0: a call failing the check succeeds
                # without the kernel; the statuses after it are read on, the values are not judged
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", (), None, path, line,
                                      f"returns false (ACLNN_SUCCESS) from GetWorkspaceSize: {stmt.text}"[:160]))
                continue
            if _status_neutral_return(w, src, stmt, stmts[i + 1:], env, fail, top):
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", (), None, path, line,
                                      " ".join(f"a branch on {stmt.cond.strip()!r} that returns success "
                                               f"before the kernel, no parameter check after it".split())[:160]))
                continue
            _unread(w, src, stmt.offset, f"{exc}: {stmt.text}", reached=_reaching(w))
            stop = _Stop()
            stop.at = stmt
            raise stop from None


def _product_taken(w: Walk, stmt: Stmt, env: dict) -> tuple[Stmt, ...] | None:
    """The statements of an ``if`` whose condition the product decides, on the side this product
    takes; None for any other statement."""
    if stmt.kind != "if":
        return None
    decided = _product_bool(w, stmt.cond, env)
    w.undecided_if = (stmt.offset, stmt.cond) if decided is None else None   # _run_if need not ask again
    return None if decided is None else tuple(stmt.then if decided else stmt.orelse)


def _reads_only(fn: Function) -> bool:
    """A bool check function that can change nothing but its result (every parameter const or by
    value, no setter called): a call dropping its result checks nothing (ops-nn
    norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:307)."""
    by_value = re.compile(r"(?:const\s+)?(?:bool|int|size_t|u?int\d+_t|float|double)")
    return fn.returns.split()[-1] == "bool" and not re.search(r"\bSet\w*\s*\(|\bconst_cast\b", fn.body) and \
        all(re.match(r"const\b", t.strip()) and "&" not in t.replace("const", "", 1).split("*")[-1] or
            by_value.fullmatch(t.strip()) for t in fn.param_types)


def _run_stmt_inside_arrays(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> None:
    """``_run_stmt``; where it stops at an element read past the length the checks before keep the
    array to (``(*outputMask)[1]`` after ``outputMask->Size() < 1`` fails, ops-nn norm/batch_norm_grad_v3/
    op_host/op_api/aclnn_fast_batch_norm_backward.cpp:93-100), the calls whose array ends before it
    are not judged (an unread rule: aclBoolArray's operator[] does not check), and the statement is
    read again for the others."""
    while True:
        before, events, w.element_outside = dict(env), len(w.events), None
        try:
            _run_stmt(w, src, stmt, env, fail, top)
            w.element_outside = None   # a read the statement recovered from is no reason to read it again
            return
        except (Unreadable, _Stop):
            outside, w.element_outside = w.element_outside, None
            if outside is None:
                raise
        del w.events[events:]
        env.clear()
        env.update(before)
        path, line = _cite(src, stmt.offset)
        short = ("attr-len", outside[0], "<=", outside[1])
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", short),)), None, path, line,
                              " ".join(f"{stmt.text.strip()}: (*{outside[0]})[{outside[1]}] read past the end of an "
                                       f"array of {outside[1]} or fewer elements".split())[:160]))
        w.guards.append(("not", short))   # popped when the function ends (_run_function)


def _read_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """A loop one of the loop readers knows, read into ``env`` and the events; False otherwise."""
    return _run_array_loop(w, src, stmt, env, fail) or _numel_loop(w, src, stmt, env) or \
        aggregates.run_unrolled_loop(w, src, stmt, env, fail, top) or \
        _copy_loop(w, src, stmt, env) or _slice_loop(w, src, stmt, env) or \
        _slice_compare_loop(w, src, stmt, env, fail) or _array_dims_loop(w, src, stmt, env, fail) or \
        _dim_locals_loop(w, src, stmt, env, fail) or \
        slice_same_but_one_loop(w, src, stmt, env, fail) or \
        each_dim_from_loop(w, src, stmt, env, fail) or \
        _batch_broadcast_loop(w, src, stmt, env, fail) or _append_dims_loop(w, src, stmt, env) or \
        _negative_dim_loop(w, src, stmt, env, fail) or unrolled_loop(w, src, stmt, env, fail, top) or \
        run_rank_loop(w, src, stmt, env, fail)


def _run_stmt(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> None:
    stmt = lambdas_inlined(stmt, env)
    text = stmt.text.strip()
    if stmt.kind == "block":
        _run_block(w, src, stmt.then, env, fail, top)
        return
    if stmt.kind == "if":
        _run_if(w, src, stmt, env, fail, top)
        return
    if stmt.kind == "other":
        chain = int_switch_chain(w, stmt, env) if text.startswith("switch") else None
        if chain is not None:   # a switch on an integer argument: its if-else chain
            _run_if(w, src, chain, env, fail, top)
            return
        if (text.startswith("switch") and _run_switch(w, src, stmt, env, fail, top)) or \
                _read_loop(w, src, stmt, env, fail, top) or split_loop(w, src, stmt, env, fail, top):
            return
        if re.search(r"ACLNN_ERR_PARAM_\w+|OP_CHECK_\w+|return\s+false", text):
            raise Unreadable("a loop or switch with checks")
        _forget_in_text(text, env)
        return
    if stmt.kind == "return":
        _run_return(w, src, stmt, env, fail)
        return
    if IGNORED_CALLS.match(text) or text.startswith(("(void)", "static_cast<void>")):
        return
    if _set_dim(w, stmt, env) or _append_dim(w, stmt, env) or vector_pop_back(stmt, env) or to_shape(stmt, env):
        return
    mac = _macro(text) if stmt.kind == "call" else None
    if mac:
        name, args = mac
        short = name.split("::")[-1]
        if short in CHECK_MACROS:
            CHECK_MACROS[short](w, src, stmt, env, fail, args)
            return
        if short == "CHECK_RET":
            _run_check_ret(w, src, stmt, env, args, fail)
            return
        if short == "OP_CHECK_COMM_INPUT":
            for a, p in zip(args, ("workspaceSize", "executor")):
                _check(w, src, stmt.offset, "null", _args(param=p), int(Status.ERR_PARAM_NULLPTR), text)
            return
        if short == "OP_CHECK":
            cond, ret = args[0], args[-1]
            code = _fail_status(ret, fail)
            if code not in PARAM_CODES:
                return  # an inner failure (561xxx, e.g. the executor's creation): not a parameter check
            if _infer_broadcast(w, src, stmt, env, "!" + _strip(cond), code):
                return
            _data_condition(w, src, stmt.offset, f"!({cond})", env, code, text)
            return
        if short == "BroadcastInferShape" and _dropped_broadcast(w, src, stmt, env, args):
            return
        fn = w.index.function(name)
        if fn is not None and _reduce_shape_call(w, fn, args, env):
            _forget_if_mutated(src, stmt, env, _strip(args[-1]))
            return
        if fn is not None and _reduced_dims_call(w, fn, args, env):
            return
        if fn is not None and _is_checker(fn) and not _warns_only(fn) and not _reads_only(fn):
            raise Unreadable(f"a checking call {short} whose result is dropped")
        if fn is not None and run_int_ref_helper(w, fn, args, env):
            return
        _unknown_call(w, short, text)
        return  # a call of the compute path (l0op::..., executor setup)
    _run_decl(w, src, stmt, env)


def _warns_only(fn: Function) -> bool:
    """A void function whose every statement is a log or ``OP_CHECK_NO_RETURN(cond, OP_LOGx(...))``
    (op_log.h: if (!(cond)) log_func): it only logs, it never fails."""
    if fn.returns.split()[-1] != "void":
        return False
    for stmt in statements(fn.body, fn.body_offset):
        text = stmt.text.strip()
        mac = _macro(text) if stmt.kind == "call" else None
        if mac and mac[0] == "OP_CHECK_NO_RETURN" and len(mac[1]) == 2 and \
                re.fullmatch(r"OP_LOG[DIWE]\s*\(.*\)", mac[1][1].strip(), re.S) and "return" not in text:
            continue
        if stmt.kind == "call" and IGNORED_CALLS.match(text) and "return" not in text:
            continue
        return False
    return True


def _run_decl(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> None:
    text = stmt.text.strip()
    compound = re.fullmatch(r"([A-Za-z_]\w*)\s*([-+*/%]|<<|>>|[|&^])=\s*(.+?);?", text, re.S)
    if compound and compound.group(1) in env:   # ``x += e``: x = x + (e), unknown when not arithmetic read
        name, op, rhs = compound.groups()
        try:
            env[name] = _value(w, f"{name} {op} ({rhs})", env) if op in "+-*/%" else Opaque(text)
        except Unreadable:
            env[name] = Opaque(text)
        return
    bound = re.fullmatch(r"(?:const\s+)?auto\s*&?\s*\[\s*(\w+)\s*,\s*(\w+)\s*\]\s*=\s*(.+?);?", text, re.S)
    if bound:   # ``auto [M, N] = CalculateMN(input, normalizedShape);``: the pair an integer helper returns
        try:
            pair = pair_helper_value(w, bound.group(3).strip(), env)
        except Unreadable:
            pair = None
        for name, held in zip(bound.group(1, 2), pair or (Opaque(text), Opaque(text))):
            env[name] = held
        return
    # a type with template arguments (``op::FVector<int64_t, op::MAX_DIM_NUM> v = ...``) too
    m = re.match(r"(?:(?:static|const|constexpr|auto|[\w:]+<[^<>;=(){}]*>|std::[\w:<>]+|op::\w+|[\w:]+)[\s\*&]+)*"
                 r"([A-Za-z_]\w*)\s*=\s*(.+)$", text, re.S)
    if not m and _string_local(w, text, env) is not None:   # std::string mode(approximate);
        name, held = _string_local(w, text, env)
        env[name] = held
        return
    if not m:
        if re.search(r"ACLNN_ERR_PARAM_\w+|OP_CHECK_\w+", text):
            raise Unreadable("a statement with checks")
        return
    name, rhs = m.group(1), m.group(2).strip()
    built = _brace_shape(w, text, rhs, env)
    if built is not None:
        env[name] = built
        _forget_if_mutated(src, stmt, env, name)
        return
    string = _string_local(w, text, env)
    if string is not None:
        env[string[0]] = string[1]
        return
    for read in (lambda: _select_local(w, rhs, env), lambda: _scalar_local(text, env),
                 lambda: _view_copy(rhs, env), lambda: _shape_vector(w, rhs, env),
                 lambda: _kernel_result(w, rhs, env), lambda: _broadcast_to_helper(w, rhs, env),
                 lambda: _one_dim_at_rank0_local(w, rhs, env), lambda: _helper_tensor(w, rhs, env),
                 lambda: _made_local(w, rhs, env, name),
                 lambda: _vector_array(rhs, env), lambda: lambda_local(rhs),
                 lambda: _dims_local(w, src, stmt, rhs, env), lambda: constant_dims_helper(w, rhs),
                 lambda: _lambda_like(rhs, env),
                 lambda: _kernel_choice(w, rhs, env), lambda: _choice_like(w, rhs, env),
                 lambda: value_test_local(w, rhs, env)):
        held = read()
        if held is not None:
            env[name] = held
            _forget_if_mutated(src, stmt, env, name)
            return
    call = _macro(rhs)
    if call:
        fn = w.index.function(call[0])
        if fn is not None and fn.returns.endswith("aclnnStatus"):
            mark = len(w.events)   # the call's failures: the events from here to its end
            env[name] = ("status-of", _call_status(w, fn, call[1], env, src, stmt))
            w.status_spans = {**getattr(w, "status_spans", {}), name: (env[name], mark, len(w.events))}
            return
        reduced = _reduce_shape_value(w, fn, call[1], env) if fn is not None else None
        if reduced is not None:
            env[name] = reduced
            _forget_if_mutated(src, stmt, env, name)
            return
        if fn is not None:   # a helper filling a vector with reduced dims: its value is read below
            _reduced_dims_call(w, fn, call[1], env)
    try:
        env[name] = _value(w, rhs, env)
    except Unreadable:
        env[name] = _dtype_or_opaque(w, rhs, env)
    if not _split_shape(w, src, stmt, env, name):
        _forget_if_mutated(src, stmt, env, name)


def _call_status(w: Walk, fn: Function, args: list[str], env: dict, src: SourceFile, stmt: Stmt) -> Any:
    """Inline an aclnnStatus function: its failures are events; returns the value it ended with."""
    return _call_fn(w, fn, args, env, fail=None)


def _bind(w: Walk, fn: Function, args: list[str], env: dict) -> dict[str, Any]:
    templated = template_bindings(w, fn, args, env, lambda a: _argument_value(w, a, env))
    if templated is not None:
        return templated
    args = default_arguments(w, fn, args)   # the definition's defaults for the parameters not given
    if len(args) != len(fn.params):
        raise Unreadable(f"call of {fn.name} with {len(args)} arguments for {len(fn.params)} parameters")
    return {p: shape_by_pointer(fn, p, a, env) or _argument_value(w, a, env) for p, a in zip(fn.params, args)}


def _argument_value(w: Walk, arg: str, env: dict) -> Any:
    """What a parameter holds for the argument ``arg`` of a call the walk inlines."""
    held = env.get(arg.strip())
    if isinstance(held, tuple) and held[:1] == ("numel-if-nonnull",):
        return held   # read as a count where the callee uses it, after its null checks
    try:
        return _value(w, arg, env)
    except Unreadable:
        return _dtype_or_opaque(w, arg, env)


def _run_check_ret(w: Walk, src: SourceFile, stmt: Stmt, env: dict, args: list[str],
                   fail: int | None = None) -> None:
    cond, code_text = args[0].strip(), args[1].strip() if len(args) > 1 else ""
    code = _status_of(code_text)
    held = env.get(code_text)
    if code is None and isinstance(held, Opaque) and held.text.strip() != code_text:
        # a status parameter bound to a status name (circular_pad_backward_common.h:77 ``nullPtrErrorCode``)
        code = _status_of(held.text.strip())
    if code_text == "false" and fail is not None and _check_ret_false(w, cond, env, fail):
        return
    if code_text == "false" and fail is not None:
        code = fail   # ``if (!(C)) return false`` in a bool check function: it fails with the caller's status
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    if null and code is not None and _view_copy_check(w, src, stmt, env.get(null.group(1) or null.group(2)), code):
        return
    m = re.match(r"(\w+)\s*==\s*ACLNN_SUCCESS$", cond)
    if m and code_text == m.group(1):
        held = env.get(m.group(1))
        if isinstance(held, tuple) and held and held[0] == "status-of":
            return  # its failures were recorded when it was called
        raise Unreadable(f"the status {m.group(1)} of a call the reader did not follow")
    span = getattr(w, "status_spans", {}).get(m.group(1)) if m and code in PARAM_CODES else None
    if span and span[0] is env.get(m.group(1)) and span[2] == len(w.events) and \
            all(e.kind == "check" for e in w.events[span[1]:span[2]]):
        # ``ret = F(...); CHECK_RET(ret == ACLNN_SUCCESS, CODE)`` right after the call, nothing read between
        # (ops-math conversion/trans_data/op_api/aclnn_trans_convolution_weight.cpp:182-183): F's failures
        # return CODE
        w.events[span[1]:] = [replace(e, status=code) if e.status else e for e in w.events[span[1]:]]
        return
    passed_on = env.get(null.group(1) or null.group(2)) if null else None
    if code is None and code_text == "nullptr" and null and \
            (_kernel_made(passed_on) or (isinstance(passed_on, tuple) and passed_on[:1] in (("copy-of",), ("cast-of",)))):
        return   # a kernel's (a copy's, a cast's) null result passed on to the caller, which checks what it is given
    if code is None:
        raise Unreadable(f"CHECK_RET with status {code_text!r}")
    if code not in PARAM_CODES:
        inner_call = _macro(cond)
        fn = w.index.function(inner_call[0]) if inner_call and not cond.startswith("!") else None
        if fn is not None and fn.returns.split()[-1] == "bool" and _is_checker(fn) and \
                all(isinstance(held := env.get(_strip(a)), T) or isinstance(held, tuple) and held[:1] in
                    (("guard",), ("copy-of",)) for a in inner_call[1]):
            # a check function of the API's arguments (their contiguous copies, bool locals guarding on them) failing with
            # an inner status (CheckNotNull with ACLNN_ERR_INNER_NULLPTR; CheckShapeValid with
            # ACLNN_ERR_INNER_TILING_ERROR, aclnn_add_rms_norm_dynamic_quant_v2.cpp:183): its checks, with that status
            # a contiguous copy has its tensor's view shape and dtype: the checks are of that tensor
            seen = {**env, **{_strip(a): T(held[1]) for a in inner_call[1]
                              if isinstance(held := env.get(_strip(a)), tuple) and held[:1] == ("copy-of",)}}
            _call_fn(w, fn, inner_call[1], seen, fail=code)
            return
        null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
        if null and isinstance(env.get(null.group(1) or null.group(2)), T):
            # an API argument checked with an inner status (ACLNN_ERR_INNER_NULLPTR): a null rule
            _check(w, src, stmt.offset, "null", _args(param=env[null.group(1) or null.group(2)].name), code,
                   stmt.text)
        cast = env.get(null.group(1) or null.group(2)) if null else None
        if isinstance(cast, tuple) and cast[:1] == ("cast-of",):
            route_check(w, src, stmt, cast, code)   # a Cast without a route on this arch: null, this status
        return  # otherwise an inner failure of the compute path (561xxx): not a parameter check
    if _contiguous_null_check(cond, env):
        return
    if _scalar_same_check(w, src, stmt, cond, env, code):
        return
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    held = env.get(null.group(1) or null.group(2)) if null else None
    if isinstance(held, tuple) and held[:1] == ("converted",):
        return   # a scalar argument made a tensor: allocated, never refused (no parameter check)
    if _kernel_made(held):
        return   # a kernel's result: it fails only by the kernel's own checks, which no rule reads
    names = _nonnull_names(cond)
    if names and all(_kernel_made(env.get(n)) for n in names):
        return   # several kernel results, or elements of one's tuple: the same
    if isinstance(held, tuple) and held[:1] == ("cast-of",):
        if _cast_cannot_fail(w, held) or route_check(w, src, stmt, held, code):
            return   # the cast of two dtypes AICPU converts, or the rule of the pairs without a route
        if held[1] is not None and held[2] is not None:
            # the calls casting between two dtypes AICPU converts pass it; the others are not judged
            always = tuple(sorted(CAST_ALWAYS))
            sides = [("in", e, always) for e in dict.fromkeys(held[1:3])
                     if not (_dtype_values(w, e) is not None and _dtype_values(w, e) <= CAST_ALWAYS)]
            guard = ("not", sides[0] if len(sides) == 1 else ("and", *sides))
            path, line = _cite(src, stmt.offset)
            w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", guard),)), None, path, line,
                                  " ".join(f"a Cast whose dtypes the reader bounds only inside the AICPU "
                                           f"conversions: {stmt.text}".split())[:160]))
            return
        raise Unreadable("a Cast whose dtypes the reader does not bound")
    succeeded = re.fullmatch(r"(.+?)\s*==\s*ACLNN_SUCCESS", cond, re.S)
    if succeeded and _remapped_call(w, succeeded.group(1), env, code):
        return
    if isinstance(env.get(cond), Opaque) and _check_ret_false(w, cond, env, code):
        return   # ``ret = F(...); CHECK_RET(ret, CODE)``: F's checks with CODE
    call = _macro(cond)
    neg = False
    if cond.startswith("!"):
        neg, call = True, _macro(cond[1:].strip())
    if call:
        fn = w.index.function(call[0])
        if fn is not None and not neg:
            _call_fn(w, fn, call[1], env, fail=code)
            return
    _data_condition(w, src, stmt.offset, f"!({cond})", env, code, stmt.text)


def _check_ret_false(w: Walk, cond: str, env: dict, fail: int) -> bool:
    """``CHECK_RET(C, false)`` in a bool check function (``if (!C) return false``: the caller's status):
    C a call of a check function, or a local holding one's result (``ok = F(...); CHECK_RET(ok, false)``,
    F read here with its arguments' values now). F's checks are read with the caller's status."""
    held = env.get(cond) if re.fullmatch(r"\w+", cond) else None
    text = held.text.strip() if isinstance(held, Opaque) else cond
    call = _macro(text)
    if not call or match_close(text, text.index("(")) != len(text) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or not _is_checker(fn):
        return False
    _call_fn(w, fn, call[1], env, fail=fail)
    return True


def _run_return(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> None:
    value = stmt.text.strip()[len("return"):].strip()
    if value == "true" or value in SUCCESS_NAMES:
        raise _End(True)
    if value == "false" and fail is None:
        raise _End(False)   # a plain bool function (a product test) returning false
    if value == "false" or _status_of(value) in PARAM_CODES:
        # reached on this product whatever the call: every call of the product fails here
        code = fail if value == "false" else _status_of(value)
        _check(w, src, stmt.offset, "product", (), code, stmt.text)
        raise _End(False)
    call = _macro(value)
    if call:
        fn = w.index.function(call[0])
        if fn is not None and (fn.returns.endswith("aclnnStatus") or fn.name.endswith("GetWorkspaceSize")):
            if w.depth == w.api_depth and not w.guards:   # the API's body continues in the callee
                w.api_depth += 1
                try:
                    _call_fn(w, fn, call[1], env, fail=None)
                finally:
                    w.api_depth -= 1
            else:
                _call_fn(w, fn, call[1], env, fail=None)
            raise _End(True)
        if fn is not None and fail is not None and (_is_checker(fn) or fn.returns.split()[-1:] == ["bool"]):
            # a check returning another bool function's answer (ops-nn matmul/common/op_host/op_api/
            # cube_util.cpp:115-130 CheckCubeMathTypeForMm): it fails where that one does
            _call_fn(w, fn, call[1], env, fail=fail)
            raise _End(True)
    callee = _unfollowed_status_call(w, value) if fail is None else None
    if callee is not None:
        # a status function returning what a call it does not follow returns (a function template
        # called with template arguments, a helper of a header it does not find): its status is unknown
        raise Unreadable(f"the status of a call the reader does not follow ({callee})")
    names = _nonnull_names(value) if fail is not None else None
    if names and all(_kernel_made(env.get(n)) for n in names):
        raise _End(True)   # kernel results (or a kernel tuple's elements) checked non-null: no parameter check
    held = env.get(value) if re.fullmatch(r"\w+", value) else None
    if isinstance(held, tuple) and held[:1] == ("guard",) and fail is not None:
        # a check function returning a condition on the call's dtypes: it fails where that does not hold
        atom = _guard_atom(("not", held[1]))
        if atom is None:
            raise Unreadable(f"a check function returning {value!r}")
        _check(w, src, stmt.offset, atom[0], atom[1], fail, stmt.text)
        raise _End(True)
    if isinstance(held, tuple) and _dexpr(held) is None:
        raise _End(True)
    found = _list_find(w, _split_top(value, "!=")[0], env) if fail is not None and \
        len(_split_top(value, "!=")) == 2 and re.fullmatch(r"[\w:]+\s*\.\s*end\(\)", _split_top(value, "!=")[1].strip()) \
        else None
    if found is not None and found[1][1][0] == "of":
        # ``return std::find(L.begin(), L.end(), t->GetDataType()) != L.end();`` in a check function
        _check(w, src, stmt.offset, "dtype_in", _args(param=found[1][1][1], dtypes=list(found[1][2]),
                                                      list=found[1][3]), fail, stmt.text)
        raise _End(True)
    if isinstance(held, Opaque) and fail is not None:
        # a check function returning a bool local set once to a condition: it fails where that does
        # not hold (each conjunct a check, read as a failing condition or left unread)
        fn = _enclosing_function(src, stmt.offset)
        sets = re.findall(rf"\b{re.escape(value)}\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)", fn.body) if fn is not None else []
        if len(sets) != 1 or re.fullmatch(rf"{re.escape(value)}\s*=.*", held.text.strip(), re.S):
            raise Unreadable(f"a check function returning {value!r}")
        _data_condition(w, src, stmt.offset, f"!({held.text})", env, fail, stmt.text)
        raise _End(True)
    try:
        returned = _value(w, value, env)
    except Unreadable:
        if fail is not None and re.search(r"[<>]=?|[!=]=|&&|\|\|", value):
            # ``return reduce >= REDUCE_NONE && reduce <= REDUCE_MEAN;`` (ops-nn
            # index/scatter_elements_v2/op_api/aclnn_scatter.cpp:134): it fails where that does not hold
            _data_condition(w, src, stmt.offset, f"!({value})", env, fail, stmt.text)
            raise _End(True) from None
        if fail is not None:
            raise Unreadable(f"a check function returning {value!r}") from None
        raise _End(Opaque(value)) from None
    if fail is not None and returned is False:   # a check function's local false on this product
        _check(w, src, stmt.offset, "product", (), fail, stmt.text)
        raise _End(False)
    if fail is not None and returned is not True:   # a check's result the reader does not know
        raise Unreadable(f"a check function returning {value!r}")
    raise _End(returned)


def _unfollowed_status_call(w: Walk, value: str) -> str | None:
    """The callee's name when ``value`` is one call (``F(...)`` or ``F<...>(...)``) and the function
    running returns an aclnnStatus: what is returned is that call's status, which no earlier branch of
    ``_run_return`` followed."""
    if not w.returns.split() or w.returns.split()[-1] != "aclnnStatus":
        return None
    m = re.match(r"([A-Za-z_][\w:]*)\s*(?:<[^;()]*>)?\s*\(", value)
    if m is None or match_close(value, m.end() - 1) != len(value) - 1:
        return None
    return m.group(1)


CHECK_MACROS = {
    "OP_CHECK_NULL": _m_null,
    "OP_CHECK_DTYPE_NOT_SUPPORT": _m_dtype_support,
    "OP_CHECK_DTYPE_NOT_MATCH": _m_dtype_match,
    "OP_CHECK_DTYPE_NOT_SAME": _m_dtype_same,
    "OP_CHECK_RESULT_DTYPE_CAST_FAILED": _m_cast,
    "OP_CHECK_MAX_DIM": _rank("max"),
    "OP_CHECK_MIN_DIM": _rank("min"),
    "OP_CHECK_WRONG_DIMENSION": _rank("eq"),
    "OP_CHECK_SHAPE_NOT_EQUAL": _m_shape_equal,
    "OP_CHECK_BROADCAST": _m_broadcast,
}


# ---- shapes, ranks and broadcast shapes ----
# values: ("shape-of", tensor) a tensor's view shape; ("bshape", (tensors...)) the broadcast shape of
# tensors whose broadcast was checked; ("lin", tensor, scale, offset, at_rank0) an integer that is
# scale * rank(tensor) + offset (at_rank0 at rank 0).

_CHECKING_MACRO = re.compile(r"^(?:OP_)?CHECK|CHECK_|_CHECK")


def _unknown_call(w: Walk, short: str, text: str) -> None:
    """A call the reader does not implement: unread when it carries a check (a parameter error code,
    ``return false``, a checking macro's name, or a call of a checking function)."""
    if short in ("OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE", "OP_CHECK_INFERSHAPE", "OP_CHECK_NO_RETURN"):
        return
    if re.search(r"ACLNN_ERR_PARAM_\w+|\breturn\s+false\b", text):
        raise Unreadable(f"the call {short} carrying a parameter check")
    if _CHECKING_MACRO.search(short) and short.isupper():
        raise Unreadable(f"the checking macro {short}")
    for callee in re.findall(r"([A-Za-z_][\w:]*)\s*\(", text[len(short):]):
        fn = w.index.function(callee)
        if fn is not None and _is_checker(fn):
            raise Unreadable(f"the call {short} of the checking function {callee}")


def _m_check_cond(w, src, stmt, env, fail, args):
    """op_log.h CHECK_COND(cond, ret, ...): ``if (!(cond)) return ret``, as CHECK_RET."""
    if len(args) < 2:
        raise Unreadable("CHECK_COND without a status")
    _run_check_ret(w, src, stmt, env, args[:2])


CHECK_MACROS.update({
    "OP_CHECK_BROADCAST_AND_INFER_SHAPE": _m_broadcast_infer,
    "OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE": _m_shape_expected,
    "OP_CHECK_BROADCAST_WITH_SHAPE": _m_broadcast_with_shape,
    "OP_CHECK_SHAPE_AND_SCALAR_EQUAL": _m_shape_scalar_equal,
    "CHECK_NOT_NULL": _m_check_not_null,
    "CHECK_SHAPE_ALL_EQUAL": _m_check_shape_all_equal,
    "CHECK_COND": _m_check_cond,
})


# what the modules below call back into (they cannot import this one): see reenter.py
reenter.bind = _bind
reenter.call_fn = _call_fn
reenter.run_block = _run_block
reenter.read_loop = _read_loop
reenter.run_decl = _run_decl
reenter.run_function = _run_function
