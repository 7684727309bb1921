"""aclDataType <-> NumPy element types, element widths, and the packing of 4-bit types.

Storage arrays in a Case hold one NumPy element per tensor element (ml_dtypes for bf16/FP8/FP4);
only the raw byte buffers an aclnn call sees pack two FP4 elements per byte.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.enums import AclDataType

NUMPY_DTYPE: dict[AclDataType, np.dtype] = {
    AclDataType.FLOAT: np.dtype(np.float32),
    AclDataType.FLOAT16: np.dtype(np.float16),
    AclDataType.BF16: np.dtype(ml_dtypes.bfloat16),
    AclDataType.DOUBLE: np.dtype(np.float64),
    AclDataType.INT8: np.dtype(np.int8),
    AclDataType.UINT8: np.dtype(np.uint8),
    AclDataType.INT16: np.dtype(np.int16),
    AclDataType.UINT16: np.dtype(np.uint16),
    AclDataType.INT32: np.dtype(np.int32),
    AclDataType.UINT32: np.dtype(np.uint32),
    AclDataType.INT64: np.dtype(np.int64),
    AclDataType.UINT64: np.dtype(np.uint64),
    AclDataType.BOOL: np.dtype(np.bool_),
    AclDataType.COMPLEX64: np.dtype(np.complex64),
    AclDataType.COMPLEX128: np.dtype(np.complex128),
    AclDataType.FLOAT8_E4M3FN: np.dtype(ml_dtypes.float8_e4m3fn),
    AclDataType.FLOAT8_E5M2: np.dtype(ml_dtypes.float8_e5m2),
    AclDataType.FLOAT8_E8M0: np.dtype(ml_dtypes.float8_e8m0fnu),
    AclDataType.FLOAT6_E3M2: np.dtype(ml_dtypes.float6_e3m2fn),
    AclDataType.FLOAT6_E2M3: np.dtype(ml_dtypes.float6_e2m3fn),
    AclDataType.FLOAT4_E2M1: np.dtype(ml_dtypes.float4_e2m1fn),
    AclDataType.INT4: np.dtype(ml_dtypes.int4),
    # HIFLOAT8 and FLOAT4_E1M2 have no NumPy type: their storage is carried as raw codes.
    AclDataType.HIFLOAT8: np.dtype(np.uint8),
    AclDataType.FLOAT4_E1M2: np.dtype(np.uint8),
}

# Bits one element occupies in device memory.
ELEMENT_BITS: dict[AclDataType, int] = {
    dt: (4 if dt in (AclDataType.FLOAT4_E2M1, AclDataType.FLOAT4_E1M2, AclDataType.INT4)
         else 6 if dt in (AclDataType.FLOAT6_E3M2, AclDataType.FLOAT6_E2M3)
         else NUMPY_DTYPE[dt].itemsize * 8)
    for dt in NUMPY_DTYPE
}


def numpy_dtype(dtype: AclDataType) -> np.dtype:
    """The NumPy element type that carries one element of ``dtype``."""
    try:
        return NUMPY_DTYPE[AclDataType(dtype)]
    except KeyError:
        raise ValueError(f"no NumPy element type for {AclDataType(dtype).name}") from None


def fraction_bits(dtype: np.dtype) -> int:
    """A NumPy float dtype's fraction bits (bf16 7, fp16 10, float32 23, float64 52); 0 for any
    other dtype. Which of two dtypes is the finer is this, not the item size (bf16 and fp16 are both
    two bytes)."""
    dtype = np.dtype(dtype)
    if dtype == np.dtype(ml_dtypes.bfloat16):
        return int(ml_dtypes.finfo(dtype).nmant)
    return int(np.finfo(dtype).nmant) if dtype.kind == "f" else 0


def is_four_bit(dtype: AclDataType) -> bool:
    return ELEMENT_BITS.get(AclDataType(dtype)) == 4


def storage_nbytes(dtype: AclDataType, num_elements: int) -> int:
    """Bytes of device memory that ``num_elements`` elements occupy (4-bit types pack two a byte)."""
    bits = ELEMENT_BITS.get(AclDataType(dtype), 8)
    if bits == 4:
        return (num_elements + 1) // 2
    return num_elements * max(bits, 8) // 8


def codes_of(values: np.ndarray) -> np.ndarray:
    """The raw bit patterns of a one-byte-per-element array, as uint8 (FP4 codes are 0..15)."""
    return np.ascontiguousarray(values).view(np.uint8)


def pack_nibbles(codes: np.ndarray) -> np.ndarray:
    """Pack 4-bit codes two per byte along the last axis: element 2i in the low nibble, 2i+1 high.

    An odd count is padded with a zero nibble.
    """
    codes = np.asarray(codes).view(np.uint8) if np.asarray(codes).dtype.itemsize == 1 else codes
    codes = np.asarray(codes, dtype=np.uint8) & 0x0F
    if codes.shape[-1] % 2:
        pad = [(0, 0)] * (codes.ndim - 1) + [(0, 1)]
        codes = np.pad(codes, pad)
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def unpack_nibbles(packed: np.ndarray, count: int | None = None) -> np.ndarray:
    """Inverse of :func:`pack_nibbles`: uint8 codes 0..15, ``count`` of them along the last axis."""
    packed = np.asarray(packed, dtype=np.uint8)
    out = np.empty(packed.shape[:-1] + (packed.shape[-1] * 2,), dtype=np.uint8)
    out[..., 0::2] = packed & 0x0F
    out[..., 1::2] = packed >> 4
    return out if count is None else out[..., :count]
