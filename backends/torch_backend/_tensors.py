"""Storages as torch tensors, and descriptor views over them.

A Case carries each tensor as a flat NumPy storage (one element per tensor element; bf16, FP8 and
FP4 as ml_dtypes types) and a descriptor (view shape, strides and offset in elements). Here a
storage becomes a torch tensor that shares its memory, and a descriptor becomes
``torch.as_strided`` over it: reading a view reads exactly the elements the API would, and writing
into it writes those elements of the storage and nothing else.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import torch

from aclnn_conformance.spec.tensor import TensorArg

_BF16 = np.dtype(ml_dtypes.bfloat16)
_NATIVE = {np.dtype(t) for t in (np.float32, np.float16, np.float64, np.uint8, np.int8, np.int16,
                                 np.int32, np.int64, np.bool_, np.complex64, np.complex128)}
# Element types torch has no use for here (FP8, FP6, FP4, int4...) are carried as raw bits.
_RAW_BY_SIZE = {1: np.uint8, 2: np.int16, 4: np.int32, 8: np.int64}


def as_torch(storage: np.ndarray) -> torch.Tensor:
    """A torch tensor sharing ``storage``'s memory (bf16 as torch.bfloat16; FP8/FP4 as raw uint8)."""
    storage = np.ascontiguousarray(storage)
    if storage.dtype == _BF16:
        return torch.from_numpy(storage.view(np.int16)).view(torch.bfloat16)
    if storage.dtype in _NATIVE:
        return torch.from_numpy(storage)
    return torch.from_numpy(storage.view(_RAW_BY_SIZE[storage.dtype.itemsize]))


def view(arg: TensorArg, storage: torch.Tensor) -> torch.Tensor:
    """The descriptor's view over ``storage`` (a flat torch tensor): a strided alias, not a copy."""
    d = arg.desc
    shape, strides, offset = tuple(d.shape), tuple(d.strides), int(d.offset)
    if any(s == 0 for s in shape):
        return storage.new_empty(shape)
    if offset < 0 or any(s < 0 for s in strides):
        raise ValueError(f"negative offset or stride in {d.describe()}")
    extent = 1 + offset + sum((n - 1) * s for n, s in zip(shape, strides))
    if extent > storage.numel():
        raise ValueError(f"view {d.describe()} reaches element {extent - 1} of a storage of "
                         f"{storage.numel()}")
    return storage.as_strided(shape, strides, offset)


def numel(arg: TensorArg) -> int:
    return math.prod(arg.desc.shape)


def is_contiguous(arg: TensorArg, private_formats: frozenset[int]) -> bool:
    """opbase's notion: a private storage format, at most one element, or row-major strides where
    dimensions of size 1 may carry any stride."""
    d = arg.desc
    if int(d.format) in private_formats or numel(arg) <= 1:
        return True
    expected, step = [], 1
    for n in reversed(d.shape):
        expected.append(step)
        step *= max(int(n), 1)
    expected.reverse()
    return all(n == 1 or s == e for n, s, e in zip(d.shape, d.strides, expected))
