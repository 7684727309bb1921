"""A shape's ``IsScalar()`` (gert::Shape, metadef exe_graph/runtime/shape.h: ``dim_num_ == 0``) read as
the rank test it is: ``x->GetViewShape().IsScalar()`` or ``shape.IsScalar()`` of a local shape is
``GetDimNum() == 0`` of the same, which the rank readers know (ops-nn
index/gather_v2/op_api/aclnn_index_select.cpp:114-116, index/index_copy/op_api/aclnn_index_copy.cpp)."""
from __future__ import annotations

import re

_IS_SCALAR = re.compile(r"\b([A-Za-z_]\w*(?:\s*->\s*GetViewShape\(\))?)\s*\.\s*IsScalar\(\)")


def rank_zero_spelled(text: str) -> str:
    """``text`` with each shape's ``.IsScalar()`` written ``(.GetDimNum() == 0)``."""
    return _IS_SCALAR.sub(lambda m: f"({m.group(1)}.GetDimNum() == 0)", text)


def branch_constants_blanked(rest: str, name: str) -> str:
    """``rest`` (a function's text after a rank local's declaration) with each ``name = <integer>;``
    inside ``if``/``else`` blocks only (no loop, switch or lambda around it) blanked: the walk merges
    such an assignment into a choice on the branch's guard (``if (self->GetViewShape().IsScalar()) {
    selfDimSize = 1; ... }``, ops-nn index/gather_v2/op_api/aclnn_index_select.cpp:113-115), so it is
    no change the local's declaration must forget."""
    for m in re.finditer(rf"(?m)^[ \t]*{re.escape(name)}\s*=\s*-?\d+\s*;", rest):
        if _inside_branches_only(rest, m.start()):
            rest = rest[:m.start()] + " " * (m.end() - m.start()) + rest[m.end():]
    return rest


def _inside_branches_only(text: str, at: int) -> bool:
    """Every block open at ``at`` in ``text`` (at least one) is the body of an ``if (...)`` or ``else``."""
    depth, opened = 0, 0
    for i in range(at - 1, -1, -1):
        if text[i] == "}":
            depth += 1
        elif text[i] == "{":
            if depth:
                depth -= 1
                continue
            head = text[:i].rstrip()
            if head.endswith("else"):
                opened += 1
                continue
            if not head.endswith(")"):
                return False
            start = _open_paren(head, len(head) - 1)
            if start is None or not re.search(r"\bif\s*$", head[:start]):
                return False
            opened += 1
    return opened > 0


def _open_paren(text: str, close: int) -> int | None:
    depth = 0
    for i in range(close, -1, -1):
        if text[i] == ")":
            depth += 1
        elif text[i] == "(":
            depth -= 1
            if depth == 0:
                return i
    return None
