"""Data movement of the documented surface: an entry's ``movement`` block names a kind whose output
is the input's values rearranged, its shape given by an integer-array attribute, not by the
inputs' broadcast (oracle/surface_movement.py computes the values).

- ``broadcast-to``: the input broadcast to the shape the attribute (``shape``) names, its dims aligned
  to the right; each output element is the input element at the same index with every broadcast dim
  read at 0.
- ``tile``: the input copied ``repeats[k]`` times along each dim k, one whole copy after another
  (a, b, a, b), a ``repeats`` longer than the input's rank adding leading dims of 1 first.

Both are exact: every output element is one input element, unchanged. The value cases below use
shapes where a mistaken axis shows (two dims of one size), leading dims the attribute adds, an
unchanged shape, a 0-d input and an empty one.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case

# a value entry (spec/surface_values.py ValueEntry, which imports this module: not imported here)
ValueEntry = Any

BROADCAST_TO, TILE = "broadcast-to", "tile"
MOVEMENT_KINDS = (BROADCAST_TO, TILE)
# the attribute each kind reads its shape from, by role
ATTRIBUTE_ROLE = {BROADCAST_TO: "shape", TILE: "repeats"}

# (kind of call, the input's shape for 1024 values, the attribute) per movement kind
MOVEMENT_CALLS: Mapping[str, tuple] = {
    BROADCAST_TO: (("values", (16, 1, 64), [3, 16, 4, 64]),   # specials; a new leading dim and a middle one
                   ("twin", (6, 1), [6, 6]),                   # two dims of one size: a swapped axis shows
                   ("lead", (5,), [2, 3, 5]),                  # dims the attribute adds in front
                   ("same", (4, 6, 5), [4, 6, 5]),             # no dim broadcast
                   ("scalar", (), [3, 4]),                     # a 0-d input
                   ("empty", (0, 1), [0, 3])),
    TILE: (("values", (16, 64), [2, 3]),                       # specials, copied along both dims
           ("twin", (3, 3), [2, 2]),                           # a square input: a swapped axis or copies
                                                               # interleaved (a, a, b, b) show
           ("lead", (4, 5), [2, 1, 3]),                        # a repeats longer than the rank
           ("ones", (4, 6, 5), [1, 1, 1]),                     # every dim copied once
           ("scalar", (), [3]),                                # a 0-d input (the host code reads it as [1])
           ("empty", (0, 5), [2, 2])),
}


def movement_of(entry: ValueEntry) -> Mapping[str, Any] | None:
    """The entry's movement block ({"kind", "input", and the attribute by its kind's role}), or None."""
    block = entry.raw.get("movement")
    if block is None:
        return None
    if block.get("kind") not in MOVEMENT_KINDS or not {"input", ATTRIBUTE_ROLE[block["kind"]]} <= set(block):
        raise ValueError(f"value entry {entry.api}: a movement names its kind (one of {MOVEMENT_KINDS}), "
                         f"its input and its attribute; got {block!r}")
    return block


def _int_list(value: Any) -> list[int] | None:
    if isinstance(value, Mapping) and "value" in value:
        value = value["value"]
    if isinstance(value, (list, tuple)) and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                                                for v in value):
        return [int(v) for v in value]
    return None


def moved_shape(kind: str, shape: tuple[int, ...], attribute: Any) -> tuple[int, ...] | None:
    """The output shape of ``kind`` over an input of ``shape`` (None: the attribute does not define one)."""
    dims = _int_list(attribute)
    if dims is None or len(dims) < len(shape):
        return None
    if kind == BROADCAST_TO:
        offset = len(dims) - len(shape)
        if any(d < 0 for d in dims) or any(s != dims[offset + i] and s != 1 for i, s in enumerate(shape)):
            return None
        return tuple(dims)
    if any(r < 0 for r in dims):
        return None
    padded = (1,) * (len(dims) - len(shape)) + tuple(shape)
    return tuple(s * r for s, r in zip(padded, dims))


def call_shape(case: Case, entry: ValueEntry) -> tuple[int, ...] | None:
    """The output shape the call's input and attribute give."""
    block = movement_of(entry)
    src = case.tensors.get(block["input"])
    if src is None:
        return None
    return moved_shape(block["kind"], tuple(src.desc.shape), case.attrs.get(block[ATTRIBUTE_ROLE[block["kind"]]]))


def outside_movement(case: Case, entry: ValueEntry, computable: frozenset[str]) -> bool:
    """A call outside the movement's function: its input or output missing or of a dtype not
    computed, an output of another dtype than the input's, or of another shape than the movement's."""
    block = movement_of(entry)
    src, out = case.tensors.get(block["input"]), case.tensors.get(entry.output)
    if src is None or out is None or src.desc.dtype.name not in computable:
        return True
    if out.desc.dtype != src.desc.dtype:
        return True
    return call_shape(case, entry) != tuple(out.desc.shape)


def movement_value_cases(entry: ValueEntry, key: str, count: int, dtypes: tuple[str, ...] | None,
                         helpers: Mapping[str, Any]) -> list[Case]:
    """The value cases per sample dtype: ``MOVEMENT_CALLS`` of the entry's kind, the values call with
    the special values and ``count // 1024`` times its first dim."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.tensor import TensorArg
    block = movement_of(entry)
    attr = block[ATTRIBUTE_ROLE[block["kind"]]]
    rng = np.random.default_rng(helpers["seed"])
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, attribute in MOVEMENT_CALLS[block["kind"]]:
            attribute = list(attribute)
            if kind == "values" and count > 1024:   # the full tier: a longer first dim, in the attribute too
                scale = count // 1024
                at = len(attribute) - len(shape)
                shape = (shape[0] * scale,) + shape[1:]
                attribute[at] = attribute[at] * scale if block["kind"] == BROADCAST_TO else attribute[at]
            size = int(np.prod(shape))
            x = helpers["sample_values"](entry, dt, max(size, 1), rng, with_specials=kind == "values")
            x = x[:size].reshape(shape)
            out_shape = moved_shape(block["kind"], shape, attribute)
            tensors = {block["input"]: TensorArg.from_array(np.asarray(x), acl),
                       entry.output: TensorArg.from_array(np.zeros(out_shape, dtype=numpy_dtype(acl)), acl)}
            attrs = {**entry.sample.get("attrs", {}), attr: attribute}
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                              rule_ids=(helpers["rule"],), origin="table"))
    return cases
