"""What a statement or a branch is, read from its text without walking it: a branch that only
logs and fails (its status), one that returns success, whether a text makes a parameter check, what
the rest of a function after a statement may reach, and the locals a loop or switch not followed assigns."""
from __future__ import annotations

import re

from aclnn_conformance.extract.shape_helpers import normalised
from aclnn_conformance.extract.cpp import Function, Stmt, block_end, match_close
from aclnn_conformance.extract.host_code.model import (IGNORED_CALLS, Opaque, SUCCESS_NAMES, T, Unreadable, Walk,
                                                       _fail_status, _flatten)


def _checks_params(w: Walk | None, text: str, depth: int = 0) -> bool:
    """``text`` makes a parameter check: by itself, or in a function of the checkout it calls that
    fails with a parameter status (followed three calls deep; a bool helper's ``return false`` is no
    failure by itself)."""
    pattern = r"ACLNN_ERR_PARAM_\w+|OP_CHECK_(?!ADD_TO|INFERSHAPE)\w+|\breturn\s+false\b" if depth == 0 \
        else r"ACLNN_ERR_PARAM_\w+"
    if re.search(pattern, text):
        return True
    if w is None or depth >= 3:
        return False
    for callee in set(re.findall(r"([A-Za-z_][\w:]*)\s*\(", text)):
        fn = w.index.function(callee)
        # a status named in a log (OP_LOGE(ACLNN_ERR_PARAM_INVALID, ...)) is no failure by itself; the
        # log alone is dropped, a check's return after it inside the macro's arguments is kept
        if fn is not None and _checks_params(w, normalised(fn), depth + 1):
            return True
    return False


def _first_param_check(rest: tuple[Stmt, ...], w: Walk | None = None) -> Stmt | None:
    for stmt in rest:
        if _checks_params(w, stmt.text + "".join(s.text for s in _flatten(stmt.then + stmt.orelse))):
            return stmt
    return None


def _is_checker(fn: Function) -> bool:
    return bool(re.search(r"OP_CHECK_\w+|ACLNN_ERR_PARAM|return\s+false", fn.body))


def only_succeeds(fn: Function) -> bool:
    """A status check function whose every exit is success: each ``return`` (a check macro's return
    expression too) gives ``false``, ``0`` or ACLNN_SUCCESS, which an aclnnStatus holds as 0, and no
    macro returns a status of its own (``CHECK_RET``'s code). Its checks end it early with success, so
    no call fails in it (ops-math math/sub/op_api/aclnn_sub.cpp:525-533 ``CheckInplace``)."""
    if fn.returns.split()[-1:] != ["aclnnStatus"] or \
            any("&" in t and not t.lstrip().startswith("const") for t in fn.param_types):
        return False   # another return type, or an output it leaves in a reference
    body = normalised(fn)
    if not re.search(r"\breturn\s+false\b", body) or re.search(r"IsEmpty|l0op::|[Ee]xecutor|workspaceSize", body):
        return False   # not a check function: its empty returns and kernels are read as they are
    returned = re.findall(r"\breturn\b\s*([^;,)]*)", body)
    if not returned or any(r.strip() not in ("false", "0", *SUCCESS_NAMES) for r in returned):
        return False
    for m in re.finditer(r"\b([A-Z][A-Z0-9_]+)\s*\(", body):
        args = body[m.end() - 1:match_close(body, m.end() - 1) + 1]
        if not re.search(r"\breturn\b", args):
            return False   # a macro that may return on its own (CHECK_RET, OP_CHECK_COMM_INPUT)
    return True


def _returns_success_only(stmt: Stmt, logs: bool = False) -> bool:
    """An ``if`` without else whose branch is ``return true;`` (or success) alone, or with ``logs``
    after log calls only."""
    then = stmt.then
    if stmt.orelse or not then or then[-1].kind != "return" or \
            then[-1].text.strip().rstrip(";").split()[-1] not in ("true", *SUCCESS_NAMES):
        return False
    if not logs:
        return len(then) == 1
    return all(s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) for s in then[:-1])


def _error_exit(stmts: tuple[Stmt, ...], fail: int | None) -> int | None:
    """The status a branch fails with when it only logs and returns an error; None otherwise."""
    if not stmts:
        return None
    *logs, last = stmts
    if any(not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) or
                s.kind == "if" and all(x.kind == "call" and IGNORED_CALLS.match(x.text.strip())
                                       for x in _flatten(s.then + s.orelse))) for s in logs):
        return None   # a log, or a branch choosing between logs
    if last.kind != "return":
        return None
    try:
        code = _fail_status(last.text, fail)
    except Unreadable:
        return None
    return code if code != 0 else None


def _status_local(last: str, stmts: tuple[Stmt, ...]) -> bool:
    """``return ret;`` with ``ret`` set in the branch only from calls (``ret = Fill(...)``): the status
    of a compute path (the caller checks that no parameter check is made there)."""
    m = re.fullmatch(r"return\s+(\w+)", last)
    if not m:
        return False
    sets = [s for s in _flatten(stmts[:-1]) if re.match(r"(?:auto\s+|aclnnStatus\s+)?" + m.group(1) + r"\s*=", s.text.strip())]
    return bool(sets) and all(re.match(r"(?:auto\s+|aclnnStatus\s+)?\w+\s*=\s*[A-Za-z_][\w:]*\s*\(", s.text.strip())
                              for s in sets)


def _forget_in_text(text: str, env: dict) -> None:
    """A loop or switch the reader does not follow: the locals it assigns are unknown after it."""
    for m in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:[+\-*/|&]?=)(?!=)", text):
        if m.group(1) in env and not isinstance(env[m.group(1)], T):
            env[m.group(1)] = Opaque(f"{m.group(1)}, assigned in a loop or switch")
    # a shape or vector changed by a method (``outShape.AppendDim(d)``: ops-nn
    # index/gather_nd/op_api/aclnn_gather_nd.cpp:135-137) is unknown after it too
    for m in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)\s*\.\s*(?:Set\w*|Append\w*|\w*Insert\w*|push_back|"
                         r"emplace_back|resize|clear|erase)\s*\(", text):
        if m.group(1) in env and not isinstance(env[m.group(1)], T):
            env[m.group(1)] = Opaque(f"{m.group(1)}, changed in a loop or switch")


def _reachable_after(fn: Function, stmt: Stmt) -> str:
    """The text of ``fn`` after ``stmt`` that the walk can reach from it: up to the end of its block
    when that block ends in a return (``if (IsRegBase()) { ...; return true; }``), else to the end
    of the function."""
    start = stmt.offset - fn.body_offset + len(stmt.text)
    body = fn.body
    close = block_end(body, stmt.offset - fn.body_offset)
    if close > start and re.search(r"(?:^|[;{}])\s*return\b[^;{}]*;\s*$", body[start:close]) and \
            not re.search(r"\b(?:break|continue|goto)\b", body[start:close]):
        return body[start:close]
    return body[start:]


def _in_order_mutations(stmts: tuple[Stmt, ...], name: str) -> list[Stmt]:
    """The statements ``name.SetDim(i, v);``, ``name[i] = v;``, ``name.pop_back();`` and ``name = e;`` standing in plain
    blocks and if/else branches (no loop or switch around them): the walk runs each where it stands."""
    n, out = re.escape(name), []
    for s in stmts:
        if s.kind in ("if", "block"):
            out += _in_order_mutations(s.then + s.orelse, name)
        elif s.kind in ("call", "decl") and re.fullmatch(rf"{n}\s*\.\s*(?:SetDim|AppendDim|pop_back)\s*\([^;{{}}]*\)\s*;?",
                                                         s.text.strip()) or \
                s.kind == "decl" and re.fullmatch(rf"{n}\s*(?:\[[^\[\];{{}}]+\]\s*)?=(?!=)[^;{{}}]*;?", s.text.strip()):
            out.append(s)
    return out
