"""The aclTensor model: a descriptor (what aclCreateTensor receives) and a tensor argument (descriptor
plus storage), with the predicates the vendor code applies to them.

Units follow aclCreateTensor: view shape, strides, offset and storage shape count *elements* of the
tensor's dtype (FP4 elements for FP4 tensors; the byte buffer holds two per byte).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np

from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import PRIVATE_FORMATS, AclDataType, AclFormat


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides of ``shape`` in elements (what aclCreateTensor assumes for strides=NULL)."""
    strides, step = [], 1
    for dim in reversed(tuple(shape)):
        strides.append(step)
        step *= max(int(dim), 1)
    return tuple(reversed(strides))


def is_contiguous_view(shape: Sequence[int], strides: Sequence[int], fmt: int) -> bool:
    """opbase IsContiguous (tensor_view_utils.cpp): a private format, at most one element, or
    row-major strides (dimensions of size 1 may carry any stride)."""
    if fmt in PRIVATE_FORMATS or math.prod(shape) <= 1:
        return True
    expected = contiguous_strides(shape)
    return all(d == 1 or s == e for d, s, e in zip(shape, strides, expected))


def ceil_div(a: int, b: int) -> int:
    return -(-int(a) // int(b))


@dataclass(frozen=True)
class TensorDesc:
    """One aclTensor as aclCreateTensor sees it."""

    dtype: AclDataType
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    offset: int = 0
    format: AclFormat = AclFormat.ND
    storage_shape: tuple[int, ...] = ()

    @staticmethod
    def contiguous(shape: Sequence[int], dtype: AclDataType,
                   format: AclFormat = AclFormat.ND) -> "TensorDesc":
        shape = tuple(int(d) for d in shape)
        return TensorDesc(AclDataType(dtype), shape, contiguous_strides(shape), 0,
                          AclFormat(format), shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def numel(self) -> int:
        return math.prod(self.shape)

    @property
    def storage_numel(self) -> int:
        return math.prod(self.storage_shape)

    def is_empty(self) -> bool:
        """opbase IsEmpty: some view dimension is 0."""
        return any(d == 0 for d in self.shape)

    def is_contiguous(self) -> bool:
        return is_contiguous_view(self.shape, self.strides, self.format)

    def is_last_two_transposed(self) -> bool:
        """The last two view dims are swapped through strides: stride[-2] == 1, stride[-1] == shape[-2]."""
        return self.ndim >= 2 and self.strides[-2] == 1 and self.strides[-1] == self.shape[-2]

    def extent(self) -> int:
        """Storage elements the view reaches: 1 + offset + sum((dim-1)*stride); 0 if empty."""
        if self.is_empty():
            return 0
        return 1 + self.offset + sum((d - 1) * s for d, s in zip(self.shape, self.strides))

    def with_(self, **changes) -> "TensorDesc":
        return replace(self, **changes)

    def describe(self) -> str:
        parts = [f"{self.dtype.name}{list(self.shape)}", self.format.name]
        if self.strides != contiguous_strides(self.shape):
            parts.append(f"strides={list(self.strides)}")
        if self.offset:
            parts.append(f"offset={self.offset}")
        if self.storage_shape != self.shape:
            parts.append(f"storage={list(self.storage_shape)}")
        return " ".join(parts)


@dataclass(frozen=True, eq=False)
class TensorArg:
    """A tensor argument: its descriptor and its storage (a flat array, one NumPy element per tensor
    element, at least as long as the descriptor's storage and its view's extent)."""

    desc: TensorDesc
    storage: np.ndarray

    @staticmethod
    def from_array(values: np.ndarray, dtype: AclDataType,
                   format: AclFormat = AclFormat.ND) -> "TensorArg":
        """A contiguous tensor holding ``values`` converted to ``dtype``."""
        values = np.asarray(values)
        desc = TensorDesc.contiguous(values.shape, dtype, format)
        storage = np.ascontiguousarray(values.astype(numpy_dtype(dtype))).reshape(-1)
        return TensorArg(desc, storage)

    @staticmethod
    def strided(values: np.ndarray, dtype: AclDataType, strides: Sequence[int], offset: int = 0,
                storage_shape: Sequence[int] | None = None, format: AclFormat = AclFormat.ND,
                fill: float = 0) -> "TensorArg":
        """A tensor whose view holds ``values`` at the given strides and offset in a storage of
        ``storage_shape`` (default: just large enough, flat); the rest of the storage is ``fill``."""
        values = np.asarray(values)
        shape = tuple(values.shape)
        probe = TensorDesc(AclDataType(dtype), shape, tuple(strides), int(offset), AclFormat(format),
                           (0,))
        size = max(probe.extent(), 1)
        sshape = tuple(storage_shape) if storage_shape is not None else (size,)
        desc = probe.with_(storage_shape=sshape)
        storage = np.full(max(size, desc.storage_numel), fill).astype(numpy_dtype(dtype))
        arg = TensorArg(desc, storage)
        arg.view_of(storage)[...] = values.astype(numpy_dtype(dtype))
        return arg

    @property
    def dtype(self) -> AclDataType:
        return self.desc.dtype

    def view_of(self, storage: np.ndarray) -> np.ndarray:
        """The descriptor's view over ``storage`` (a writable strided view, not a copy)."""
        desc = self.desc
        if desc.is_empty():
            return np.zeros(desc.shape, dtype=storage.dtype)
        if desc.extent() > storage.size or desc.offset < 0 or min(desc.strides, default=0) < 0:
            raise ValueError(f"view {desc.describe()} reaches outside its storage of {storage.size}")
        item = storage.dtype.itemsize
        base = storage[desc.offset:]
        return np.lib.stride_tricks.as_strided(
            base, shape=desc.shape, strides=tuple(s * item for s in desc.strides), writeable=True)

    def values(self) -> np.ndarray:
        """A contiguous copy of the logical view."""
        return np.array(self.view_of(self.storage))

    def view_mask(self) -> np.ndarray:
        """A boolean mask over the storage: True where the view reads or writes."""
        mask = np.zeros(self.storage.size, dtype=bool)
        if not self.desc.is_empty():
            idx = np.arange(self.storage.size)
            self.view_of(idx)  # validates the extent
            mask[np.asarray(TensorArg(self.desc, idx).values()).reshape(-1)] = True
        return mask

    def with_desc(self, **changes) -> "TensorArg":
        """The same storage under a changed descriptor (grown with zeros if the new view needs it)."""
        desc = self.desc.with_(**changes)
        storage = self.storage
        need = max(desc.extent(), desc.storage_numel)
        if need > storage.size:
            storage = np.concatenate([storage, np.zeros(need - storage.size, storage.dtype)])
        if "dtype" in changes and numpy_dtype(desc.dtype) != storage.dtype:
            # Values keep their magnitude where the new type can hold them; NaN becomes 0 in ints.
            with np.errstate(invalid="ignore", over="ignore"):
                wide = np.nan_to_num(storage.astype(np.float64), nan=0.0, posinf=0.0, neginf=0.0)
                storage = wide.astype(numpy_dtype(desc.dtype))
        return TensorArg(desc, storage)

    def copy(self) -> "TensorArg":
        return TensorArg(self.desc, self.storage.copy())
