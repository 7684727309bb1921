"""The emulator's second phase for the data operators whose values are judged: the oracle's
outputs written into the caller's buffers through each output's view (the emulator agrees with
the oracle by construction; torch and a device are the evidence)."""
from __future__ import annotations

from typing import Callable

import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, elements_to_buffer
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType, AclFormat
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc


def _case_of(raw: RawCall) -> Case:
    tensors = {}
    for name, t in raw.tensors().items():
        if t is None:
            tensors[name] = None
            continue
        desc = TensorDesc(AclDataType(t.dtype), t.view_dims, t.strides, t.offset, AclFormat(t.format),
                          t.storage_dims)
        tensors[name] = TensorArg(desc, t.elements())
    return Case(op=raw.op, case_id="emulated", tensors=tensors, attrs=raw.scalars())


def values_tasks(key: str, raw: RawCall) -> list[Callable[[], None]]:
    """The kernel of a value-judged operator (none for a status-only one)."""
    from aclnn_conformance.spec.surface_values import has_value_entry
    if not has_value_entry(key):
        return []

    def launch() -> None:
        from aclnn_conformance.spec.registry import operator
        from aclnn_conformance.spec.surface_values import outside_domain
        from_case = operator(key).piece("oracle")   # the record's oracle: agreement by construction
        case = _case_of(raw)
        if outside_domain(case):     # not judged: the outputs are left as they are
            return None
        try:
            result = from_case(case, "cann")
        except (TypeError, ValueError):   # a dtype the function has no meaning in: nothing written
            return None
        for name, values in result.views.items():
            arg, target = case.tensor(name), raw.tensors()[name]
            if arg is None or arg.desc.is_empty():
                continue
            storage = arg.storage.copy()
            arg.view_of(storage)[...] = np.asarray(values).reshape(arg.desc.shape)
            target.buffer[:] = elements_to_buffer(storage, arg.desc.dtype)
        return None

    return [launch]
