"""The aclnn two-phase call protocol as the emulator models it, and device memory as it sees it.

Phase one, ``aclnnXxxGetWorkspaceSize(params..., uint64_t* workspaceSize, aclOpExecutor** executor)``,
validates the call in the vendor's order and, on success, returns the workspace size and an executor:
the work of phase two bound to the caller's buffers. Phase two, ``aclnnXxx(workspace, workspaceSize,
executor, stream)``, runs the executor and writes the results into those buffers. An executor runs once
(aclnn executors are single-use unless made repeatable).

Device memory: every tensor is a RawTensor, an aclCreateTensor descriptor (view dims, strides and
offset in elements, format, storage dims, dtype) over a byte buffer. The emulator reads and writes a
tensor only through its own descriptor: the view's elements are at
``offset + sum(i_d * stride_d)`` of the buffer's element array.

Workspace: ApplyAdamWV2 asks for its tilings' 16 MiB system workspace; every other executor of the
emulator asks for 0 bytes. ApplyAdamWQuant's tilings request none;
WeightQuantPreprocess on the device keeps its intermediate NZ tensor in executor memory, which the
emulator does not model (it writes the caller's outWeight directly), so it needs none either.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.call_layer import RawTensor
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

# Bits of device memory per element, for the dtypes the emulator can meet.
ELEMENT_BITS: dict[int, int] = {
    DT.FLOAT: 32, DT.FLOAT16: 16, DT.BF16: 16, DT.DOUBLE: 64, DT.INT8: 8, DT.UINT8: 8,
    DT.INT16: 16, DT.UINT16: 16, DT.INT32: 32, DT.UINT32: 32, DT.INT64: 64, DT.UINT64: 64,
    DT.BOOL: 8, DT.COMPLEX64: 64, DT.COMPLEX128: 128, DT.COMPLEX32: 32, DT.HIFLOAT8: 8,
    DT.FLOAT8_E5M2: 8, DT.FLOAT8_E4M3FN: 8, DT.FLOAT8_E8M0: 8, DT.FLOAT6_E3M2: 8,
    DT.FLOAT6_E2M3: 8, DT.FLOAT4_E2M1: 4, DT.FLOAT4_E1M2: 4, DT.INT4: 4,
}
# Element types the arithmetic uses.
ARITH_DTYPE: dict[int, np.dtype] = {
    DT.FLOAT: np.dtype(np.float32), DT.FLOAT16: np.dtype(np.float16),
    DT.BF16: np.dtype(ml_dtypes.bfloat16), DT.UINT8: np.dtype(np.uint8),
    DT.INT64: np.dtype(np.int64),
}
_RAW_UINT = {1: np.dtype(np.uint8), 2: np.dtype("<u2"), 4: np.dtype("<u4"), 8: np.dtype("<u8"),
             16: np.dtype("V16")}


class MemoryFault(RuntimeError):
    """A descriptor reaches outside its buffer: the call itself is malformed (a harness error)."""


class LaunchFailure(Exception):
    """Raised by an executor's task: the second phase ends with ``status`` (the runtime reruns the
    kernel lookup and tiling at launch, and a failure there surfaces only now)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)
        self.message = message


class Reject(Exception):
    """Raised by a check to end GetWorkspaceSize with ``status``."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)
        self.message = message


# ---- device memory ----

def element_bits(t: RawTensor) -> int:
    try:
        return ELEMENT_BITS[t.dtype]
    except KeyError:
        raise MemoryFault(f"{t.name}: the emulator has no element width for dtype {t.dtype}") from None


def view_numel(t: RawTensor) -> int:
    return math.prod(t.view_dims)


def is_empty(t: RawTensor) -> bool:
    """opbase IsEmpty: some view dimension is 0."""
    return any(d == 0 for d in t.view_dims)


def row_major_strides(dims) -> tuple[int, ...]:
    strides, step = [], 1
    for d in reversed(tuple(dims)):
        strides.append(step)
        step *= max(int(d), 1)
    return tuple(reversed(strides))


def view_index(t: RawTensor) -> np.ndarray:
    """Flat element indices of the view, in row-major order of the view (int64, view-shaped)."""
    dims = tuple(int(d) for d in t.view_dims)
    if len(t.strides) != len(dims):
        raise MemoryFault(f"{t.name}: {len(dims)} view dims but {len(t.strides)} strides")
    idx = np.full((1,) * len(dims), int(t.offset), dtype=np.int64)
    for axis, (d, s) in enumerate(zip(dims, t.strides)):
        shape = [1] * len(dims)
        shape[axis] = d
        idx = idx + (np.arange(d, dtype=np.int64) * int(s)).reshape(shape)
    idx = np.broadcast_to(idx, dims)
    if idx.size:
        lo, hi = int(idx.min()), int(idx.max())
        if lo < 0 or hi >= capacity(t):
            raise MemoryFault(f"{t.name}: view elements {lo}..{hi} outside a buffer of "
                              f"{capacity(t)} elements")
    return idx


def capacity(t: RawTensor) -> int:
    """Elements the buffer holds."""
    bits = element_bits(t)
    return len(t.buffer) * 8 // bits


def elements(t: RawTensor, dtype: np.dtype | None = None) -> np.ndarray:
    """The buffer as a writable flat array of elements (not for 4-bit dtypes); ``dtype`` defaults to
    the unsigned integer of the element's width (bit patterns, no conversion)."""
    bits = element_bits(t)
    if bits < 8:
        raise MemoryFault(f"{t.name}: 4-bit elements have no NumPy element view")
    dt = np.dtype(dtype) if dtype is not None else _RAW_UINT[bits // 8]
    if dt.itemsize * 8 != bits:
        raise MemoryFault(f"{t.name}: {dt} does not match {bits}-bit elements")
    return np.frombuffer(t.buffer, dtype=dt, count=len(t.buffer) // dt.itemsize)


def read_view(t: RawTensor, dtype: np.dtype | None = None) -> np.ndarray:
    """A contiguous copy of the view's elements (what the runtime's automatic Contiguous makes)."""
    return elements(t, dtype)[view_index(t)]


def write_view(t: RawTensor, values: np.ndarray, dtype: np.dtype | None = None) -> None:
    """Write view-shaped ``values`` through the view (the runtime's copy back of a ref)."""
    elements(t, dtype)[view_index(t)] = values


def copy_view(src: RawTensor, dst: RawTensor) -> None:
    """ViewCopy: ``dst``'s view element [i...] = ``src``'s view element [i...], bits unchanged."""
    if element_bits(src) != element_bits(dst):
        raise MemoryFault(f"copy {src.name} -> {dst.name}: element widths differ")
    values = read_view(src)
    write_view(dst, values.reshape(dst.view_dims))




# ---- the protocol ----

@dataclass
class OpExecutor:
    """An aclOpExecutor: the second phase's work, bound to the caller's buffers."""

    api: str
    tasks: list[Callable[[], tuple[int, str] | None]] = field(default_factory=list)  # empty: no launch
    workspace_size: int = 0
    consumed: bool = False


@dataclass(frozen=True)
class FirstPhase:
    status: int
    workspace_size: int | None = None
    executor: OpExecutor | None = None
    message: str = ""


def first_phase(api: str, body: Callable[[], OpExecutor]) -> FirstPhase:
    """Run a GetWorkspaceSize body; a Reject raised by one of its checks becomes the status."""
    try:
        executor = body()
    except Reject as rej:
        return FirstPhase(rej.status, None, None, f"{api}GetWorkspaceSize: {rej.message}")
    return FirstPhase(Status.SUCCESS, executor.workspace_size, executor)


def execute(workspace: bytearray | None, workspace_size: int, executor: OpExecutor | None,
            stream: object = None) -> tuple[int, str]:
    """The second phase: ``aclnnXxx(workspace, workspaceSize, executor, stream)``."""
    if executor is None:
        return Status.ERR_PARAM_NULLPTR, "executor is nullptr"
    if executor.consumed:
        return Status.ERR_INNER, f"{executor.api}: the executor has already run"
    if workspace_size < executor.workspace_size or (
            executor.workspace_size and (workspace is None or len(workspace) < workspace_size)):
        return Status.ERR_PARAM_INVALID, (f"{executor.api}: workspace of {workspace_size} bytes, "
                                          f"{executor.workspace_size} required")
    executor.consumed = True
    try:
        for task in executor.tasks:
            task()
    except LaunchFailure as failure:
        return failure.status, f"{executor.api}: {failure.message}"
    return Status.SUCCESS, ""

