"""Loops over a tensor's dims up to its rank, unrolled over the ranks the checks before allow:
``for (i = start; i < rank; i++) { if (shape.GetDim(i) <= 0) { log; return false; } }`` with start an integer
of the rank (ops-math conversion/im2col/op_api/aclnn_im2col.cpp:91-99, after :82 allows ranks 3 and 4): one
integer test, each dim the loop reads at each allowed rank compared as the loop compares it."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, statements
from aclnn_conformance.spec.templates import CallView, TensorView, int_holds, int_value
from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _args, _check, _strip
from aclnn_conformance.extract.host_code.integers import _COMPARE_INT, _compare_split, _iexpr_of, _int_constant
from aclnn_conformance.extract.host_code.statements import _error_exit
import aclnn_conformance.extract.host_code.reenter as reenter

_LOOP = re.compile(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(?P<i>\w+)\s*=\s*(?P<start>[^;]+?)\s*;\s*"
                   r"(?P=i)\s*<\s*(?P<n>\w+)\s*;\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*\{(?P<body>.*)\}", re.S)
_MOST = 64   # ranks tried; a set of allowed ranks reaching it is taken as unbounded


def allowed_ranks(w: Walk, tensor: str) -> list[int] | None:
    """The ranks of ``tensor`` no unguarded check read before refuses (its rank ranges and integer tests on
    its rank alone); None when they are not a finite set."""
    tests = []
    for e in w.events:
        a = e.args_dict() if e.kind == "check" else {}
        if "when" in a:
            continue
        if e.template == "rank_range" and a.get("param") == tensor:
            tests.append(lambda r, a=a: r < a.get("min", 0) or r > a.get("max", _MOST))
        elif e.template == "int_test" and _rank_only(a["test"], tensor):
            tests.append(lambda r, t=a["test"]: int_holds(_of_rank(tensor, r), t) is True)
    ranks = [r for r in range(_MOST + 1) if not any(t(r) for t in tests)]
    return None if not ranks or ranks[-1] == _MOST else ranks


def _start(w: Walk, held: Any) -> Any:
    """The loop's first index as an integer expression: ``_iexpr_of``'s, or a choice on the rank (ranks._select_local
    ``("select", ("rank", t, op, n), a, b)``, aclnn_im2col.cpp:91 ``selfDimNum == NO_NEED_SQUEEZE ? 1 : 0``)."""
    if isinstance(held, tuple) and held[:1] == ("select",) and held[1][:1] == ("rank",):
        _, (_, t, op, n), a, b = held
        a, b = _iexpr_of(w, a), _iexpr_of(w, b)
        return None if a is None or b is None else ("?", (op, ("rank", t), n), a, b)
    return _iexpr_of(w, held)


def _rank_only(t: Any, tensor: str) -> bool:
    if isinstance(t, (list, tuple)) and t:
        if t[0] == "rank":
            return t[1] == tensor
        if t[0] in ("attr", "elem", "dim", "numel", "snumel", "len", "guard", "same-shape", "sdim", "srank"):
            return False
        return all(_rank_only(x, tensor) for x in t[1:])
    return isinstance(t, (int, str))


def _of_rank(tensor: str, rank: int) -> CallView:
    return CallView({tensor: TensorView("FLOAT", (1,) * rank, "ND")}, {}, frozenset())


def run_rank_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """The loop ``stmt`` as the module says; False when it is not one."""
    m = _LOOP.fullmatch(stmt.text.strip())
    if m is None:
        return False
    try:
        rank, start = reenter.value(w, m.group("n"), env), _start(w, reenter.value(w, m.group("start"), env))
    except Unreadable:
        return False
    if not (isinstance(rank, tuple) and rank[:1] == ("lin",) and rank[2:] == (1, 0, 0)):
        return False
    tensor, i = rank[1], re.escape(m.group("i"))
    inner = statements(m.group("body"), stmt.offset + m.start("body"))
    if len(inner) != 1 or inner[0].kind != "if" or inner[0].orelse:
        return False
    cmp = _compare_split(_strip(inner[0].cond))
    dim = re.fullmatch(rf"(\w+)\s*(?:\.|->\s*GetViewShape\(\)\s*\.)\s*GetDim\(\s*{i}\s*\)", cmp[0].strip()) \
        if cmp else None
    shape = env.get(dim.group(1)) if dim else None
    bound = _int_constant(w, cmp[2].strip()) if dim else None
    code = _error_exit(inner[0].then, fail)
    if not (shape == ("shape-of", tensor) or getattr(shape, "name", None) == tensor) or bound is None \
            or code is None or cmp[1] not in _COMPARE_INT:
        return False
    ranks = allowed_ranks(w, tensor)
    if start is None or ranks is None or not _rank_only(start, tensor):
        return False
    arms = []
    for r in ranks:
        first = int_value(_of_rank(tensor, r), start)
        if first is None:
            return False
        dims = [(cmp[1], ("dim", tensor, 0, k), bound) for k in range(max(first, 0), r)]
        if dims:
            arms.append(("and", ("==", ("rank", tensor), r), dims[0] if len(dims) == 1 else ("or", *dims)))
    if arms:
        _check(w, src, stmt.offset, "int_test", _args(test=arms[0] if len(arms) == 1 else ("or", *arms)), code,
               stmt.text.strip()[:160])
    return True
