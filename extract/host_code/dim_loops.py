"""A loop over a shape's dims comparing it with another shape at every dim but one (ops-nn
index/scatter_update/op_api/aclnn_index_copy.cpp:140-153 IsSliceShapeSame: ``for (idx < dimNum) { if
(selfShape.GetDim(idx) != sourceShape.GetDim(idx) && idx != posDim) return false; }``): refused where
the shapes differ outside dim ``posDim``, read on the other shape's first ``dimNum`` dims (a slice: a
call whose other shape has fewer dims, read outside it, is left undecided)."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import SourceFile, Stmt
from aclnn_conformance.extract.host_code.integers import _iexpr_of
from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _args, _check, _fail_status
import aclnn_conformance.extract.host_code.reenter as reenter

_LOOP = re.compile(
    r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>[^;]+?)\s*;"
    r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*"
    r"\{\s*if\s*\(\s*(?P<x>\w+)\s*\.\s*GetDim\s*\(\s*(?P=i)\s*\)\s*!=\s*(?P<y>\w+)\s*\.\s*GetDim\s*\(\s*(?P=i)\s*\)\s*"
    r"&&\s*(?P=i)\s*!=\s*(?:static_cast<\s*(?:u?int64_t|size_t)\s*>\s*)?\(?\s*(?P<p>\w+)\s*\)?\s*\)\s*\{\s*"
    r"(?:OP_LOGE\s*\([^;]*\)\s*;\s*)?(?P<ret>return\s[^;]+;)\s*\}\s*\}", re.S)


def slice_same_but_one_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """The loop above, with ``x`` a tensor's view shape, ``n`` its rank and ``p`` an integer the walk
    knows: one int_test rule; False when it is not that loop."""
    m = _LOOP.fullmatch(stmt.text.strip())
    if not m:
        return False
    x, y = (reenter.shape_expr_at(w, m.group(k), env) for k in ("x", "y"))
    try:
        n, p = (_iexpr_of(w, reenter.value(w, m.group(k), env)) for k in ("n", "p"))
    except Unreadable:
        return False
    if not (x and y and x[0] == "of" and y[0] == "of" and n == ("rank", x[1]) and p is not None):
        return False
    mine = ("set-dim", x, p, 0)
    other = ("set-dim", ("slice", y, 0, ("rank", x[1])), p, 0)
    # a rank-0 shape runs no pass; elsewhere p is inside it (set-dim outside the shape: undecided)
    test = ("and", ("!=", ("rank", x[1]), 0), ("not", ("same-shape", mine, other)))
    _check(w, src, stmt.offset, "int_test", _args(test=test), _fail_status(m.group("ret"), fail), stmt.text)
    return True
