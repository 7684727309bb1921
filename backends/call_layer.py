"""What the real aclnn API receives for a Case, and how results are read back.

Every aclnn-shaped backend (the emulator, the real libraries through ctypes) works on a RawCall:
tensor descriptors exactly as aclCreateTensor takes them (view dims, strides, offset, format, storage
dims, dtype enum) over raw byte buffers (FP4 packed two per byte, lower element in the low nibble),
null tensors, scalar arguments in API order and null out-pointers. Backends write results into the
buffers; ``read_back`` turns them into the element-form storages that the judge compares.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import is_four_bit, pack_nibbles, unpack_nibbles
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.registry import operator

def signature(op: str) -> tuple[str, tuple[tuple[str, str], ...]]:
    """(API name, ((parameter, C kind), ...)) of an operator's first-phase function, in the
    prototype's order before workspaceSize and executor: its spec's Param rows, through the registry.
    Kinds: tensor, double, float, int64, bool, string (char*, may be NULL), dtype (aclDataType)."""
    spec = operator(op).spec
    return spec.api, tuple((p.name, p.c_kind) for p in spec.params if p.in_signature)


@dataclass(frozen=True, eq=False)
class RawTensor:
    """One aclCreateTensor call and the device buffer behind it."""

    name: str
    dtype: int                      # aclDataType value
    view_dims: tuple[int, ...]
    strides: tuple[int, ...]        # in elements
    offset: int                     # in elements
    format: int                     # aclFormat value
    storage_dims: tuple[int, ...]
    buffer: bytearray               # the whole storage array's bytes (guard elements included)
    num_elements: int               # elements the buffer holds (element form)
    element_dtype: np.dtype         # the NumPy type of the Case's storage array

    def elements(self) -> np.ndarray:
        """The buffer as a flat element-form array (FP4 unpacked to one code per element)."""
        return buffer_to_elements(self.buffer, self.dtype, self.num_elements, self.element_dtype)


@dataclass(frozen=True, eq=False)
class RawCall:
    op: str
    api: str
    params: tuple[tuple[str, str, Any], ...]   # (name, kind, value): RawTensor | None | scalar
    null_workspace_size: bool = False
    null_executor: bool = False

    def tensors(self) -> dict[str, RawTensor | None]:
        return {n: v for n, k, v in self.params if k == "tensor"}

    def scalars(self) -> dict[str, Any]:
        return {n: v for n, k, v in self.params if k != "tensor"}


def elements_to_buffer(storage: np.ndarray, dtype: AclDataType) -> bytearray:
    """Device bytes of an element-form storage array."""
    if dtype in AclDataType.__members__.values() and is_four_bit(dtype):
        return bytearray(pack_nibbles(np.ascontiguousarray(storage).view(np.uint8)).tobytes())
    return bytearray(np.ascontiguousarray(storage).view(np.uint8).tobytes())


def buffer_to_elements(buffer: bytes | bytearray, dtype: int, count: int,
                       element_dtype: np.dtype) -> np.ndarray:
    """The element-form storage array held in ``buffer``, in the Case's ``element_dtype`` (which for
    a dtype with no NumPy type, such as STRING, is whatever the case's storage was built with)."""
    raw = np.frombuffer(bytes(buffer), dtype=np.uint8)
    if dtype in AclDataType.__members__.values() and is_four_bit(AclDataType(dtype)):
        return unpack_nibbles(raw, count).view(element_dtype).copy()
    return raw.view(element_dtype)[:count].copy()


def to_raw_call(case: Case) -> RawCall:
    """The arguments of the first-phase call for ``case``."""
    api, params_in_order = signature(case.op)
    params = []
    for name, kind in params_in_order:
        if kind == "tensor":
            arg = case.tensors[name]
            if arg is None:
                params.append((name, kind, None))
                continue
            d = arg.desc
            params.append((name, kind, RawTensor(
                name=name, dtype=int(d.dtype), view_dims=tuple(d.shape), strides=tuple(d.strides),
                offset=int(d.offset), format=int(d.format), storage_dims=tuple(d.storage_shape),
                buffer=elements_to_buffer(arg.storage, d.dtype), num_elements=arg.storage.size,
                element_dtype=arg.storage.dtype)))
        else:
            params.append((name, kind, case.attrs.get(name)))
    return RawCall(case.op, api, tuple(params),
                   null_workspace_size="workspaceSize" in case.null_outputs,
                   null_executor="executor" in case.null_outputs)


def with_scalar_dtypes(raw: RawCall) -> RawCall:
    """``raw`` with each aclScalar* argument as its parameter row receives it
    (``spec.params.Param.scalar_argument``): a bare number, as a value table gives it, in its dtype;
    for a backend that makes the aclScalar itself (the emulator reads the number as it is)."""
    bare = [n for n, k, v in raw.params if k == "scalar" and v is not None and not isinstance(v, dict)]
    if not bare:
        return raw
    rows = {p.name: p for p in operator(raw.op).spec.params}
    params = tuple((n, k, rows[n].scalar_argument(v) if n in bare else v) for n, k, v in raw.params)
    return replace(raw, params=params)


def read_back(raw: RawCall) -> dict[str, np.ndarray]:
    """Element-form storages of every non-null tensor after the call, keyed by name."""
    return {name: t.elements() for name, t in raw.tensors().items() if t is not None}
