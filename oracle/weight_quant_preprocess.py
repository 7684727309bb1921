"""Reference for aclnnWeightQuantPreprocess (MX A8W4 data flows MM_MX_A8W4 and GMM_MX_A8W4).

What the operator produces (notes ``weight_quant_preprocess.md`` sections 1 and 2):

* ``outWeight``: the FP4 E2M1 weight re-laid out from ND to FRACTAL_NZ_C0_32. The weight's view is
  the logical matrix ``W`` of shape {K, N} (MM) or {G, K, N} (GMM); its device storage is the
  transpose {[G,] N, K} with K contiguous. In the NZ storage, K is cut into blocks of 32 (C0) and N
  into fractals of 16 rows::

      storage shape (elements) = [G,] K1, N1, 16, 32        K1 = ceil(K/32), N1 = ceil(N/16)
      NZ[g, k1, n1, n0, k0] = W[g, k1*32 + k0, n1*16 + n0]  if that index is inside W
                            = code 0 (+0.0)                  otherwise (padding)

  Device memory packs two FP4 elements per byte in flat element order: element ``e`` lives in byte
  ``e // 2``, in the low nibble (bits 3..0) when ``e`` is even and in the high nibble otherwise. So
  each 16-byte row of the packed storage holds the 32 K values of one (k1, n1, n0), the lower K
  index of each pair in the low nibble, and padding bytes are 0x00.
* ``outWeightScale``: a verbatim copy of ``weightScale`` (no re-layout).
* ``outBias``: a verbatim copy of ``bias`` when one is given.

K that is not a multiple of 32 is zero-padded to a whole block here. The documentation requires
``K % 32 == 0`` but the library does not check it; for even K the kernel pads exactly like this
oracle. For odd K a row of the {N, K} storage does not end on a byte boundary and the library's
result is undefined: the ``cann`` profile does not judge odd K, and the zero-padded layout computed
here is only this module's own convention.

MX dequantization (OCP Microscaling v1.0; notes sections 2.6 and 5), used by the properties that
connect this operator to the matmul that consumes its output::

    w[k, n] = e2m1(W[k, n]) * 2 ** (E8M0[k // 64, n, (k // 32) % 2] - 127)     (GMM: leading g)
    x[m, k] = e4m3fn(X[m, k]) * 2 ** (E8M0[m, k // 32] - 127)

Array conventions: an FP4 array is either an ``ml_dtypes.float4_e2m1fn`` array (one element per
byte) or a ``uint8`` array of codes 0..15; an E8M0 array is ``ml_dtypes.float8_e8m0fnu`` or raw
``uint8`` codes; an E4M3FN array is ``ml_dtypes.float8_e4m3fn`` or raw ``uint8`` codes. Element-form
NZ arrays hold one uint8 code per FP4 element (``.view(ml_dtypes.float4_e2m1fn)`` gives values);
packed arrays hold the bytes of device memory.
"""
from __future__ import annotations

import sys

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.dtypes import codes_of, pack_nibbles, unpack_nibbles
from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.case import Case

__all__ = [
    "C0",
    "N0",
    "E2M1_VALUES",
    "nz_storage_shape",
    "nz_packed_shape",
    "to_fractal_nz_c0_32",
    "to_fractal_nz_c0_32_packed",
    "from_fractal_nz_c0_32",
    "from_fractal_nz_c0_32_packed",
    "nz_padding_mask",
    "weight_quant_preprocess",
    "e2m1_values",
    "e8m0_values",
    "dequantize_mx",
    "dequantize_mx_activation",
    "mx_a8w4_matmul",
]

C0 = 32          # FP4 elements along K in one fractal row (FRACTAL_NZ_C0_32)
N0 = 16          # rows (N) per fractal
MX_BLOCK = 32    # MX scaling block along K
C0_BYTES = C0 // 2

# FP4 E2M1 code -> value: 1 sign bit, 2 exponent bits (bias 1), 1 mantissa bit, no Inf/NaN.
E2M1_VALUES = np.array(
    [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
     -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], dtype=np.float64)

E8M0_NAN = 0xFF
E8M0_BIAS = 127

# Input bytes (one per FP4 element) handled per step of the packed conversion: about a core's L2.
_CHUNK_BYTES = 1 << 20


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


# --------------------------------------------------------------------------------------------
# Element types


def _fp4_codes(weight) -> np.ndarray:
    """FP4 codes (uint8, 0..15) of an ``float4_e2m1fn`` array or of a uint8 code array."""
    arr = np.asarray(weight)
    if arr.dtype == np.dtype(ml_dtypes.float4_e2m1fn):
        return codes_of(arr)
    if arr.dtype == np.uint8:
        if arr.size and int(arr.max()) > 0x0F:
            raise ValueError("uint8 FP4 codes must be in 0..15")
        return codes_of(arr)
    raise TypeError(f"FP4 weight must be float4_e2m1fn or uint8 codes, not {arr.dtype}")


def _byte_codes(values, dtype, what: str) -> np.ndarray:
    """Raw codes (uint8) of a one-byte float array of type ``dtype`` or of a uint8 code array."""
    arr = np.asarray(values)
    if arr.dtype == np.dtype(dtype) or arr.dtype == np.uint8:
        return codes_of(arr)
    raise TypeError(f"{what} must be {np.dtype(dtype).name} or uint8 codes, not {arr.dtype}")


def e2m1_values(codes) -> np.ndarray:
    """float64 values of FP4 E2M1 codes (or of a ``float4_e2m1fn`` array)."""
    return E2M1_VALUES[_fp4_codes(codes)]


def e8m0_values(codes) -> np.ndarray:
    """float64 values 2**(b - 127) of E8M0 codes ``b`` (or of a ``float8_e8m0fnu`` array).

    0xFF is NaN; 0x00 is 2**-127 (there is no zero).
    """
    b = _byte_codes(codes, ml_dtypes.float8_e8m0fnu, "E8M0 scale").astype(np.int32)
    values = np.ldexp(1.0, b - E8M0_BIAS)
    return np.where(b == E8M0_NAN, np.nan, values)


def _e4m3fn_values(x) -> np.ndarray:
    codes = _byte_codes(x, ml_dtypes.float8_e4m3fn, "activation")
    return codes.view(ml_dtypes.float8_e4m3fn).astype(np.float64)


# --------------------------------------------------------------------------------------------
# FRACTAL_NZ_C0_32 layout


def _as_batched(codes: np.ndarray) -> tuple[np.ndarray, bool]:
    """(codes with a leading G axis, whether the input had none). Rank must be 2 or 3."""
    if codes.ndim == 2:
        return codes[None], True
    if codes.ndim == 3:
        return codes, False
    raise ValueError(f"weight must be {{K, N}} or {{G, K, N}}, got shape {codes.shape}")


def nz_storage_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    """Element shape of the FRACTAL_NZ_C0_32 storage: [G,] ceil(K/32), ceil(N/16), 16, 32."""
    shape = (_ceil_div(k, C0), _ceil_div(n, N0), N0, C0)
    return shape if g is None else (g,) + shape


def nz_packed_shape(k: int, n: int, g: int | None = None) -> tuple[int, ...]:
    """Byte shape of the packed storage: [G,] ceil(K/32), ceil(N/16), 16, 16."""
    return nz_storage_shape(k, n, g)[:-1] + (C0_BYTES,)


def to_fractal_nz_c0_32(weight) -> np.ndarray:
    """Element-form NZ storage (uint8 codes, shape [G,] K1, N1, 16, 32) of the logical weight.

    ``weight`` is the view {K, N} or {G, K, N} (FP4). Padding positions hold code 0.
    ``pack_nibbles`` of the result is the device memory (see ``to_fractal_nz_c0_32_packed``).
    """
    w, squeeze = _as_batched(_fp4_codes(weight))
    g, k, n = w.shape
    k1, n1 = _ceil_div(k, C0), _ceil_div(n, N0)
    padded = np.zeros((g, k1 * C0, n1 * N0), dtype=np.uint8)
    padded[:, :k, :n] = w
    # [g, k1, k0, n1, n0] -> [g, k1, n1, n0, k0]
    nz = np.ascontiguousarray(padded.reshape(g, k1, C0, n1, N0).transpose(0, 1, 3, 4, 2))
    return nz[0] if squeeze else nz


class _Scratch:
    """Cache-sized work buffers of the packed conversion, for ``step`` K blocks of N1*16 columns."""

    def __init__(self, step: int, n_pad: int):
        rows = step * C0
        self.padded: np.ndarray | None = None                   # whole-block copy of a partial slab
        self.shifted = np.empty((rows, n_pad), dtype=np.uint8)  # every K row, code << 4
        self.even = np.empty((rows // 4, n_pad), dtype=np.uint8)  # bytes 2j, then rows n = 2m
        self.odd = np.empty((rows // 4, n_pad), dtype=np.uint8)   # bytes 2j+1, then rows 2m+1
        self.swap = np.empty((rows // 4, n_pad), dtype=np.uint8)  # temporary of the byte swap

    def padded_rows(self, rows: int, n_pad: int) -> np.ndarray:
        if self.padded is None:
            self.padded = np.empty(self.shifted.shape, dtype=np.uint8)
        return self.padded[:rows, :n_pad]


_LOW_BYTES = np.uint64(0x00FF00FF00FF00FF)


def _pack_whole_blocks(src: np.ndarray, dst: np.ndarray, scratch: _Scratch) -> None:
    """Packed NZ bytes of ``nb`` whole K blocks.

    src: (nb*32, N1*16) uint8 codes, C-contiguous (row k1*32 + k0 holds K index k0 of block k1).
    dst: (nb, N1, 16, 16) bytes, seen as (nb, N1*16, 16):
    ``dst[k1, n, b] = src[k1*32 + 2b, n] | src[k1*32 + 2b + 1, n] << 4``.

    Plain form: P = even rows | odd rows << 4 (16 byte rows b per block), then the transposition
    (b, n) -> (n, b). A byte-by-byte transposition is NumPy's slowest step, so it is done on 16-bit
    units instead: output bytes 2j and 2j+1 of row n (K rows 4j..4j+3) are first brought together
    in one 16-bit lane with 64-bit word operations. Little-endian byte order is assumed here.
    """
    nb = dst.shape[0]
    n_pad = src.shape[1]
    rows = nb * C0
    words = src.view(np.uint64)                                 # 8 columns n per word
    shifted = scratch.shifted[:rows].view(np.uint64)
    # Codes are 0..15: shifting a whole word left by 4 moves each code into the high nibble of its
    # own byte and nothing across bytes.
    np.left_shift(words, 4, out=shifted)
    # even[k1, j] byte n = P[2j, n] = W[4j, n] | W[4j+1, n] << 4 ; odd[k1, j] byte n = P[2j+1, n].
    even = scratch.even[: rows // 4].view(np.uint64)
    odd = scratch.odd[: rows // 4].view(np.uint64)
    np.bitwise_or(words[0::4], shifted[1::4], out=even)
    np.bitwise_or(words[2::4], shifted[3::4], out=odd)
    # Swap the odd bytes of `even` with the even bytes of `odd` (per 16-bit lane m):
    # afterwards lane m of `even` is (P[2j, 2m], P[2j+1, 2m]), i.e. bytes 2j, 2j+1 of row n = 2m,
    # and lane m of `odd` is (P[2j, 2m+1], P[2j+1, 2m+1]), the same bytes of row n = 2m+1.
    t = scratch.swap[: rows // 4].view(np.uint64)
    np.right_shift(even, 8, out=t)
    np.bitwise_xor(t, odd, out=t)
    np.bitwise_and(t, _LOW_BYTES, out=t)
    np.bitwise_xor(odd, t, out=odd)
    np.left_shift(t, 8, out=t)
    np.bitwise_xor(even, t, out=even)
    # 16-bit transposition: dst16[k1, m, parity, j] = (even, odd)[parity]16[k1, j, m].
    dst16 = dst.reshape(nb, n_pad, C0_BYTES).view(np.uint16)
    dst16 = dst16.reshape(nb, n_pad // 2, 2, C0_BYTES // 2)
    for parity, lanes in enumerate((scratch.even, scratch.odd)):
        lanes16 = lanes[: rows // 4].view(np.uint16).reshape(nb, C0_BYTES // 2, n_pad // 2)
        for j in range(C0_BYTES // 2):
            dst16[:, :, parity, j] = lanes16[:, j]


def _pack_blocks(src: np.ndarray, dst: np.ndarray, scratch: _Scratch) -> None:
    """Like ``_pack_whole_blocks`` for any (r, N) slab: r <= nb*32 rows, N <= N1*16 columns.

    A slab with padding (the last block of a K that is not a multiple of 32, or N that is not a
    multiple of 16) is first copied into a zero-filled whole-block buffer.
    """
    nb, n1 = dst.shape[0], dst.shape[1]
    r, n = src.shape
    if r != nb * C0 or n != n1 * N0 or not src.flags.c_contiguous:
        whole = scratch.padded_rows(nb * C0, n1 * N0)
        whole.fill(0)
        whole[:r, :n] = src
        src = whole
    _pack_whole_blocks(src, dst, scratch)


def to_fractal_nz_c0_32_packed(weight) -> np.ndarray:
    """Device bytes of the NZ storage (uint8, shape [G,] K1, N1, 16, 16) of the logical weight.

    Equal to ``pack_nibbles(to_fractal_nz_c0_32(weight))``, computed without full-size
    temporaries: a few K blocks at a time are packed and transposed while they are in cache.
    """
    if sys.byteorder != "little":
        return pack_nibbles(to_fractal_nz_c0_32(weight))
    w, squeeze = _as_batched(_fp4_codes(weight))
    g, k, n = w.shape
    k1, n1 = _ceil_div(k, C0), _ceil_div(n, N0)
    n_pad = n1 * N0
    out = np.empty((g, k1, n1, N0, C0_BYTES), dtype=np.uint8)
    step = max(1, _CHUNK_BYTES // (C0 * n_pad))                # K blocks per step
    scratch = _Scratch(min(step, g * k1), n_pad)
    step = scratch.shifted.shape[0] // C0
    if k % C0 == 0:
        # The G weights are one stack of G*K1 whole K blocks.
        rows, blocks = w.reshape(g * k, n), out.reshape(g * k1, n1, N0, C0_BYTES)
        for b0 in range(0, g * k1, step):
            b1 = min(g * k1, b0 + step)
            _pack_blocks(rows[b0 * C0: b1 * C0], blocks[b0:b1], scratch)
    else:
        for gi in range(g):
            for b0 in range(0, k1, step):
                b1 = min(k1, b0 + step)
                _pack_blocks(w[gi, b0 * C0: min(k, b1 * C0)], out[gi, b0:b1], scratch)
    return out[0] if squeeze else out


def _check_nz_shape(nz: np.ndarray, k: int, n: int, last: int) -> tuple[np.ndarray, bool]:
    if k <= 0 or n <= 0:
        raise ValueError("k and n must be positive")
    expected = (_ceil_div(k, C0), _ceil_div(n, N0), N0, last)
    if nz.ndim == 4 and nz.shape == expected:
        return nz[None], True
    if nz.ndim == 5 and nz.shape[1:] == expected:
        return nz, False
    raise ValueError(f"NZ array of shape {nz.shape} does not fit K={k}, N={n} "
                     f"(expected [G,] {expected})")


def from_fractal_nz_c0_32(nz, k: int, n: int) -> np.ndarray:
    """Logical weight codes {[G,] K, N} (uint8) from element-form NZ storage [G,] K1, N1, 16, 32.

    ``nz`` is ``float4_e2m1fn`` or uint8. Values are only moved, never checked, so the storage of
    a faulty implementation can be read back as it is. Padding positions are dropped (see
    ``nz_padding_mask``).
    """
    arr = np.asarray(nz)
    if arr.dtype != np.uint8 and arr.dtype != np.dtype(ml_dtypes.float4_e2m1fn):
        raise TypeError(f"NZ storage must be float4_e2m1fn or uint8, not {arr.dtype}")
    nz, squeeze = _check_nz_shape(codes_of(arr), k, n, C0)
    g, k1, n1 = nz.shape[:3]
    # [g, k1, n1, n0, k0] -> [g, k1, k0, n1, n0]
    full = nz.transpose(0, 1, 4, 2, 3).reshape(g, k1 * C0, n1 * N0)
    w = np.ascontiguousarray(full[:, :k, :n])
    return w[0] if squeeze else w


def from_fractal_nz_c0_32_packed(packed, k: int, n: int) -> np.ndarray:
    """Logical weight codes {[G,] K, N} (uint8) from packed NZ bytes [G,] K1, N1, 16, 16."""
    packed = np.asarray(packed)
    if packed.dtype != np.uint8:
        raise TypeError(f"packed NZ storage must be uint8 bytes, not {packed.dtype}")
    _check_nz_shape(packed, k, n, C0_BYTES)
    return from_fractal_nz_c0_32(unpack_nibbles(packed), k, n)


def nz_padding_mask(k: int, n: int, g: int | None = None) -> np.ndarray:
    """Boolean mask, shape of the element-form NZ storage, True where the element is padding.

    A position [g, k1, n1, n0, k0] is padding when k1*32 + k0 >= K or n1*16 + n0 >= N.
    """
    k1, n1 = _ceil_div(k, C0), _ceil_div(n, N0)
    k_index = np.arange(k1)[:, None, None, None] * C0 + np.arange(C0)     # [k1, 1, 1, k0]
    n_index = (np.arange(n1)[:, None] * N0 + np.arange(N0))[None, :, :, None]  # [1, n1, n0, 1]
    mask = (k_index >= k) | (n_index >= n)
    if g is not None:
        mask = np.broadcast_to(mask, (g,) + mask.shape)
    return np.ascontiguousarray(mask)


def weight_quant_preprocess(weight, weight_scale, bias=None) -> dict[str, np.ndarray | None]:
    """Outputs of aclnnWeightQuantPreprocess (MX A8W4) for a valid call.

    weight: logical view {K, N} (MM) or {G, K, N} (GMM), FP4 E2M1.
    weight_scale: the E8M0 scale, any array; copied as is.
    bias: optional FP16/BF16 bias, any array; copied as is.

    Returns ``out_weight`` (uint8 device bytes of the FRACTAL_NZ_C0_32 storage,
    [G,] ceil(K/32), ceil(N/16), 16, 16), ``out_weight_scale`` (a new array equal to
    ``weight_scale``) and ``out_bias`` (a new array equal to ``bias``, or None).
    Argument validation is the specification's job, not this function's.
    """
    return {
        "out_weight": to_fractal_nz_c0_32_packed(weight),
        "out_weight_scale": np.array(weight_scale, copy=True),
        "out_bias": None if bias is None else np.array(bias, copy=True),
    }


# --------------------------------------------------------------------------------------------
# MX dequantization


def dequantize_mx(weight, weight_scale, dtype=np.float32) -> np.ndarray:
    """MX-dequantized weight {[G,] K, N}: e2m1(W[k, n]) * 2**(S[k//64, n, (k//32) % 2] - 127).

    weight: logical FP4 view {K, N} / {G, K, N}. weight_scale: E8M0, view shape
    {ceil(K/64), N, 2} / {G, ceil(K/64), N, 2}; scale [kb, n, j] covers K block 2*kb + j
    (K indices [(2*kb + j)*32, (2*kb + j)*32 + 32)). E8M0 0xFF gives NaN for its whole block.

    The product is exact in float64; float32 (the default) rounds only where it overflows
    (|value| >= 2**128 becomes +-inf). Pass ``dtype=np.float64`` for exact values.
    """
    codes = _fp4_codes(weight)
    scale = _byte_codes(weight_scale, ml_dtypes.float8_e8m0fnu, "weight scale")
    if codes.ndim not in (2, 3):
        raise ValueError(f"weight must be {{K, N}} or {{G, K, N}}, got shape {codes.shape}")
    k, n = codes.shape[-2:]
    kb = _ceil_div(k, 2 * MX_BLOCK)
    expected = codes.shape[:-2] + (kb, n, 2)
    if scale.shape != expected:
        raise ValueError(f"weight scale shape {scale.shape} != {expected} for weight {codes.shape}")
    # [.., kb, n, j] -> [.., kb, j, n] -> per K block [.., 2*kb + j, n] -> per K row [.., k, n]
    block_scale = np.moveaxis(scale, -1, -2).reshape(codes.shape[:-2] + (2 * kb, n))
    row_scale = np.repeat(e8m0_values(block_scale), MX_BLOCK, axis=-2)[..., :k, :]
    with np.errstate(over="ignore"):                            # float32: documented +-inf
        return (E2M1_VALUES[codes] * row_scale).astype(dtype)


def dequantize_mx_activation(x, x_scale) -> np.ndarray:
    """MX-dequantized activation (float64) {[...,] M, K}: e4m3fn(X[m, k]) * 2**(S[m, k//32] - 127).

    x: FP8 E4M3FN {[...,] M, K}; x_scale: E8M0 {[...,] M, ceil(K/32)}.
    """
    values = _e4m3fn_values(x)
    k = values.shape[-1]
    scale = _byte_codes(x_scale, ml_dtypes.float8_e8m0fnu, "activation scale")
    expected = values.shape[:-1] + (_ceil_div(k, MX_BLOCK),)
    if scale.shape != expected:
        raise ValueError(f"activation scale shape {scale.shape} != {expected}")
    return values * np.repeat(e8m0_values(scale), MX_BLOCK, axis=-1)[..., :k]


def mx_a8w4_matmul(x, x_scale, w_dequant) -> np.ndarray:
    """float64 ``dequantize_mx_activation(x, x_scale) @ w_dequant``.

    w_dequant: dequantized weight {K, N} or {G, K, N} (e.g. from ``dequantize_mx``); with a G
    axis, x is {G, M, K} and x_scale {G, M, ceil(K/32)} (NumPy matmul broadcasting).
    Not a model of the device's accumulation order: it is the exact-input reference used to
    check that a preprocessed weight still means the same matrix.
    """
    return np.matmul(dequantize_mx_activation(x, x_scale), np.asarray(w_dequant, dtype=np.float64))


# ---- from a Case ----

def from_case(case: Case, profile: str, product: str) -> OracleResult:
    """The expected outputs of ``case`` (a call the spec expects to succeed with judged values)."""
    weight = case.tensor("weight")
    codes = weight.values().view(np.uint8)
    nz = to_fractal_nz_c0_32(codes).reshape(-1)
    out_w = case.tensor("outWeight")
    storage = out_w.storage.copy()  # elements past the NZ storage must stay as they were
    storage.view(np.uint8)[: nz.size] = nz
    views = {"outWeightScale": case.tensor("weightScale").values()}
    if case.tensor("biasOptional") is not None and case.tensor("outBiasOptional") is not None:
        views["outBiasOptional"] = case.tensor("biasOptional").values()
    return OracleResult(views=views, storages={"outWeight": storage})
