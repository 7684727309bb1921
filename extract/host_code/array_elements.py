"""A loop over an integer array argument checking each element against a bound computed once (ops-nn
index/index_fill_d/op_api/aclnn_index_fill_tensor.cpp:88-96: ``for (i < index->Size()) { auto dimSize =
selfDim == 0 ? 1 : selfShape.GetDim(transferDim); if ((*index)[i] >= dimSize || ...) return false; }``):
a local of the body that reads neither the index nor the array is the same on every pass, and an
element compared with an integer expression is the integer test "some element compares"
(spec/templates.py int_holds ``any-elem``)."""
from __future__ import annotations

import re
from typing import Any

from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _args, _strip
import aclnn_conformance.extract.host_code.reenter as reenter


def loop_invariant(w: Walk, name: str, rhs: str, loop_names: tuple[str, ...], body: str, env: dict) -> bool:
    """``name = rhs`` in a loop body, set nowhere else in it and reading none of ``loop_names`` (the
    index, the array): held in ``env`` as its value; False when it is not such or not read."""
    rhs = _strip(rhs.strip().rstrip(";"))
    if any(re.search(rf"\b{re.escape(n)}\b", rhs) for n in loop_names):
        return False
    if len(re.findall(rf"\b{re.escape(name)}\s*(?:[-+*/]?=(?!=)|\+\+|--)", body)) != 1:
        return False
    try:
        env[name] = reenter.value(w, rhs, env)
    except Unreadable:
        return False
    return True


_FLIP = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}


def element_compare_rule(attr: str, op: str, bound: Any, flipped: bool) -> tuple[str, tuple]:
    """The rule failing when some element of integer array ``attr`` compares ``op`` with the integer
    expression ``bound`` (``bound op element`` when ``flipped``)."""
    test = (_FLIP[op], ("each",), bound) if flipped else (op, ("each",), bound)
    return "int_test", _args(test=("any-elem", attr, test))
