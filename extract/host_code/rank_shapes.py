"""Shapes built over a tensor's rank: ``op::Shape s; s.SetDimNum(rank)``, the leading dims copied from the
tensor in a loop under ``if (rank > k)``, then the last k dims each set by ``s.SetDim(rank - j, E)``
(ops-math conversion/pad_v3/op_api/aclnn_replication_pad1d.cpp:39-51, and pad2d/pad3d with k = 2, 3): the
tensor's shape with its last k dims made E, as a shape expression (``["set-dim", S, -j, E]``)."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.cpp import SourceFile, Stmt, split_args
from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _enclosing_function, _strip
from aclnn_conformance.extract.host_code.integers import _iexpr_of, _int_constant
import aclnn_conformance.extract.host_code.reenter as reenter

_SIZE = r"(?:const\s+)?(?:size_t|u?int(?:64|32)_t|int|auto)"


def rank_built_shape(w: Walk, src: SourceFile, stmt: Stmt, name: str, env: dict) -> tuple | None:
    """The shape expression of the shape local ``name`` compared at ``stmt`` when the function builds
    it over a tensor's rank as the module says, the calls reaching ``stmt`` all of rank k or more
    (an unguarded rank check before); None for any other building."""
    fn = _enclosing_function(src, stmt.offset)
    if fn is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    n = re.escape(name)
    whole = " ".join(fn.body[:max(stmt.offset - fn.body_offset, 0)].split())
    decl = list(re.finditer(rf"(?:op|gert)::Shape {n} ;|(?:op|gert)::Shape {n};", whole))
    if len(decl) != 1:
        return None
    text = whole[decl[0].end():]
    m = re.match(rf"\s*{n}\s*\.\s*SetDimNum\s*\(\s*(\w+)\s*\)\s*;", text)
    rank = env.get(m.group(1)) if m else None
    if not (isinstance(rank, tuple) and rank[:1] == ("lin",) and rank[2:] == (1, 0, 0)):
        return None
    r, tensor, text = re.escape(m.group(1)), rank[1], text[m.end():]
    k, text = _padded_count(w, text, r)
    if k is None:
        return None
    m = re.match(rf"\s*if\s*\(\s*{r}\s*>\s*(\w+)\s*\)\s*\{{\s*{_SIZE}\s+(\w+)\s*=\s*{r}\s*-\s*(\w+)\s*;\s*"
                 rf"for\s*\(\s*{_SIZE}\s+(\w+)\s*=\s*0\s*;\s*\4\s*<\s*\2\s*;\s*(?:\4\s*\+\+|\+\+\s*\4)\s*\)\s*\{{\s*"
                 rf"{n}\s*\.\s*SetDim\s*\(\s*\4\s*,\s*(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDim\s*\(\s*\4\s*\)\s*\)"
                 rf"\s*;\s*\}}\s*\}}", text)
    if not m or {k} != {_int_constant(w, m.group(1)), _int_constant(w, m.group(3))} or \
            getattr(env.get(m.group(5)), "name", None) != tensor:
        return None
    if reenter.min_rank_checked(w, tensor) < k:   # a lower rank sets a dim before the first: not read
        return None
    shape: Any = ("of", tensor)
    seen = set()
    for call in re.finditer(rf"\b{n}\b", text[m.end():]):
        at = m.end() + call.start()
        set_dim = re.match(rf"{n}\s*\.\s*SetDim\s*\(([^;]*)\)\s*;", text[at:])
        args = split_args(set_dim.group(1)) if set_dim else []
        back = re.fullmatch(rf"{r}\s*-\s*(\d+)", _strip(args[0])) if len(args) == 2 else None
        if back is None or not 1 <= int(back.group(1)) <= k or int(back.group(1)) in seen:
            return None
        seen.add(int(back.group(1)))
        try:
            size = _iexpr_of(w, reenter.value(w, _strip(args[1]), env))
        except Unreadable:
            return None
        if size is None:
            return None
        shape = ("set-dim", shape, -int(back.group(1)), size)
    return shape if len(seen) == k else None


def _padded_count(w: Walk, text: str, r: str) -> tuple[int | None, str]:
    """``size_t paddingDim = k;`` right after SetDimNum (the count of trailing dims set), or the count
    written in the ``if`` itself: (k, the text after the declaration)."""
    m = re.match(rf"\s*{_SIZE}\s+(\w+)\s*=\s*(\w+)\s*;", text)
    if m and re.match(rf"\s*if\s*\(\s*{r}\s*>\s*{m.group(1)}\s*\)", text[m.end():]):
        return _int_constant(w, m.group(2)), re.sub(rf"\b{m.group(1)}\b", m.group(2), text[m.end():])
    m = re.match(rf"\s*if\s*\(\s*{r}\s*>\s*(\w+)\s*\)", text)
    return (_int_constant(w, m.group(1)) if m else None), text

