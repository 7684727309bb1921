"""A string named by an integer argument: a helper returning one of the file's string constants by an
if-else chain on its integer parameter (ops-nn index/scatter_elements_v2/op_api/aclnn_scatter.cpp:136-157
``GetReduceStr``: 0 "none", 1 "add", ... and "none" for any other value), its result held in a local
and compared with one of those constants (aclnn_scatter.cpp:923-924: ``reduction == REDUCTION_ADD``).
The comparison is spelled as the integer test it is, over the caller's argument (``reduce == 1``);
a helper of another shape, or a constant it does not return, leaves the condition as written."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import Function, Stmt, split_args, statements
from aclnn_conformance.extract.host_code.model import IGNORED_CALLS, Opaque, Walk, _strip

_BRANCH = re.compile(r"(?P<p>\w+)\s*==\s*(?P<k>\w+)")
_RETURN = re.compile(r"return\s+(?P<n>[A-Za-z_]\w*)\s*;?")


def string_table(fn: Function) -> tuple[str, list[tuple[str, str]], str] | None:
    """``fn``'s integer parameter, its (constant, returned name) pairs in order and the name returned
    for any other value, where ``fn`` returns a string by the chain the module describes; None otherwise."""
    if "string" not in fn.returns or len(fn.params) != 1:
        return None
    pairs: list[tuple[str, str]] = []
    body = _without_logs(statements(fn.body, fn.body_offset))
    while body and body[0].kind == "if":
        head = body[0]
        m = _BRANCH.fullmatch(_strip(head.cond))
        returned = _returned(head.then) if m else None
        if returned is None or m.group("p") != fn.params[0]:
            return None
        pairs.append((m.group("k"), returned))
        body = _without_logs(head.orelse + body[1:])
    default = _returned(body)
    return (fn.params[0], pairs, default) if pairs and default else None


def _without_logs(stmts: tuple[Stmt, ...]) -> tuple[Stmt, ...]:
    return tuple(s for s in stmts if not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip())))


def _returned(stmts: tuple[Stmt, ...]) -> str | None:
    """The name a block returns after its logs; None for any other block."""
    kept = _without_logs(stmts)
    m = _RETURN.fullmatch(kept[0].text.strip()) if len(kept) == 1 and kept[0].kind == "return" else None
    return m.group("n") if m else None


def string_compares_spelled(w: Walk, cond: str, env: dict) -> str:
    """``cond`` with each ``s == NAME`` and ``s != NAME``, ``s`` a local holding such a helper's result,
    spelled as the test on the helper's argument."""
    def spelled(m: re.Match) -> str:
        held = env.get(m.group("s"))
        call = re.fullmatch(r"(\w+)\s*\((.*)\)", held.text.strip(), re.S) if isinstance(held, Opaque) else None
        fn = w.index.function(call.group(1)) if call else None
        table = string_table(fn) if fn is not None else None
        args = split_args(call.group(2)) if table else []
        if len(args) != 1:
            return m.group(0)
        _, pairs, default = table
        arg, name = args[0].strip(), m.group("n")
        if name not in {n for _, n in pairs} | {default}:
            return m.group(0)
        chosen = [f"{arg} == {k}" for k, n in pairs if n == name]
        if name == default:   # the value no branch names
            chosen.append("(" + " && ".join(f"{arg} != {k}" for k, _ in pairs) + ")")
        test = "(" + " || ".join(chosen) + ")"
        return test if m.group("op") == "==" else f"!{test}"
    return re.sub(r"\b(?P<s>[A-Za-z_]\w*)\s*(?P<op>==|!=)\s*(?P<n>[A-Za-z_]\w*)\b", spelled, cond)
