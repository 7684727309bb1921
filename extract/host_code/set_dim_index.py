"""``s.SetDim(dim, v)`` at an index computed from the call's arguments (a dim argument wrapped by the
rank, ``dim += selfDimSize`` after its range check: ops-nn index/gather_v2/op_api/aclnn_index_select.cpp:126-142).
gert::Shape::SetDim writes a dim only at an index inside its storage and never changes the rank, so
inside the shape the dim is set, and elsewhere the shape the walk holds is left undecided
(spec/templates.py shape_value's ``set-dim``: None for an index outside the shape): a check reading it
decides only for the calls whose index falls inside, where the two agree."""
from __future__ import annotations

from typing import Any

from aclnn_conformance.extract.host_code.integers import _iexpr_of
from aclnn_conformance.extract.host_code.model import Unreadable, Walk
from aclnn_conformance.extract.host_code.scalar_shapes import rank_zero_spelled
import aclnn_conformance.extract.host_code.reenter as reenter


def computed_index(w: Walk, text: str, env: dict) -> Any:
    """The integer expression a SetDim index ``text`` holds, when it reads a dim argument of the call
    (a constant, or a rank less a constant, is _set_dim_index's and _rank_less_index's to read or
    leave unread); None otherwise."""
    try:
        index = _iexpr_of(w, reenter.value(w, text, env))
    except Unreadable:
        return None
    return index if isinstance(index, tuple) and _reads_attr(index) else None


def _reads_attr(e: Any) -> bool:
    return isinstance(e, tuple) and bool(e) and (e[0] == "attr" or any(_reads_attr(x) for x in e[1:]))


def dim_size(w: Walk, text: str, env: dict) -> Any:
    """The size a SetDim sets, a shape's ``IsScalar()`` in it read as its rank test; None when unread."""
    try:
        return _iexpr_of(w, reenter.value(w, rank_zero_spelled(text), env))
    except Unreadable:
        return None

