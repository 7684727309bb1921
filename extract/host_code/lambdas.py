"""A local lambda whose body is one ``return`` of an expression, capturing by reference (ops-nn
norm/ada_layer_norm_grad/op_host/op_api/aclnn_ada_layer_norm_backward.cpp:199 ``auto isShapeValid =
[&](const op::Shape& shape) { return shape == e1 || shape == e2; };``): held as ("lambda", params,
expression), and each call of it in a later statement written out as that expression, its parameters
replaced by the arguments, so the statement reads as if the code had written it there."""
from __future__ import annotations

import re
from dataclasses import replace

from aclnn_conformance.extract.cpp import Stmt, match_close, split_args

_LAMBDA = re.compile(r"\[\s*&?\s*\]\s*\((?P<params>[^()]*)\)\s*(?:->\s*[\w:]+\s*)?"
                     r"\{\s*return\s+(?P<expr>[^;{}]+?)\s*;\s*\}", re.S)


def lambda_local(rhs: str) -> tuple | None:
    """``[&](T a, U b) { return E; }`` (or ``[]``): ("lambda", (a, b), E); None for anything else (a
    copy capture reads values as they were at the declaration, which a written-out call would not)."""
    m = _LAMBDA.fullmatch(rhs.strip())
    if not m:
        return None
    params = [p.strip() for p in m.group("params").split(",") if p.strip()]
    names = tuple(re.search(r"(\w+)\s*$", p).group(1) for p in params)
    if len(set(names)) != len(names):
        return None
    return ("lambda", names, m.group("expr"))


def lambdas_inlined(stmt: Stmt, env: dict) -> Stmt:
    """``stmt`` with each call of a lambda local written out (its text, and its condition for an
    ``if``); ``stmt`` itself when it calls none."""
    held = {k: v for k, v in env.items() if isinstance(v, tuple) and v[:1] == ("lambda",)}
    if not held or not any(re.search(rf"\b{re.escape(k)}\s*\(", stmt.text + stmt.cond) for k in held):
        return stmt
    return replace(stmt, text=_inline(stmt.text, held), cond=_inline(stmt.cond, held))


def _inline(text: str, held: dict) -> str:
    out, at = [], 0
    pattern = re.compile(r"(?<![\w.>:])(" + "|".join(re.escape(k) for k in held) + r")\s*\(")
    while True:
        m = pattern.search(text, at)
        if not m:
            return "".join(out) + text[at:]
        close = match_close(text, m.end() - 1)
        if close < 0:
            return "".join(out) + text[at:]
        _, names, expr = held[m.group(1)]
        args = split_args(text[m.end():close]) if text[m.end():close].strip() else []
        if len(args) != len(names):
            return "".join(out) + text[at:]   # not this lambda's arity: left as written (read as unknown)
        body = re.sub(r"\b(" + "|".join(map(re.escape, names)) + r")\b",
                      lambda p: f"({args[names.index(p.group(1))].strip()})", expr) if names else expr
        out.append(text[at:m.start()] + f"({body})")
        at = close + 1
