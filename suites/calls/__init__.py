"""Builders of calls, one module per operator, and what they share (drawn case ids, layouts)."""
from __future__ import annotations

import hashlib
from typing import Sequence

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.tensor import TensorArg, contiguous_strides


def drawn_case_id(kind: str, params: dict) -> str:
    """A stable id for a hypothesis-drawn call: the same draw always gets the same id."""
    return f"hyp-{kind}-" + hashlib.sha1(repr(sorted(params.items())).encode()).hexdigest()[:10]


def as_noncontiguous(case: Case, names: Sequence[str], how: str, rule_id: str) -> Case:
    """The same logical values of the tensors ``names``, laid out through strides: ``transposed``
    (last two dims swapped in storage; ``strided`` for a tensor of rank < 2), ``strided`` (every
    other storage element, from element 1) or ``offset`` (the view starts 7 elements in); the
    storage around the view holds sentinel values. ``rule_id`` is the operator's strides rule."""
    for name in names:
        arg = case.tensor(name)
        if arg is None:
            continue
        values = arg.values()
        if how == "transposed" and values.ndim >= 2:
            storage_shape = values.shape[:-2] + (values.shape[-1], values.shape[-2])
            st = list(contiguous_strides(storage_shape))
            st[-2], st[-1] = st[-1], st[-2]
            new = TensorArg.strided(values, arg.dtype, st, 0, storage_shape)
        elif how in ("strided", "transposed"):
            st = tuple(2 * s for s in contiguous_strides(values.shape))
            new = TensorArg.strided(values, arg.dtype, st, 1, fill=3)
        elif how == "offset":
            new = TensorArg.strided(values, arg.dtype, contiguous_strides(values.shape), 7, fill=5)
        else:
            raise ValueError(how)
        case = case.with_tensor(name, new)
    return case.with_(rule_ids=case.rule_ids + (rule_id,))
