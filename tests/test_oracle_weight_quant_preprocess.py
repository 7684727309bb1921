"""Tests of the WeightQuantPreprocess oracle (oracle/weight_quant_preprocess.py).

The packed NZ output is compared with a byte-by-byte transcription of the TransData kernel's index
formula (notes ``weight_quant_preprocess.md`` section 2.2), which works on the K-packed bytes of
the {[G,] N, K} storage the operator actually reads, and with the element-level formula of
section 2.3. Dequantization is checked on hand-computed values and against ml_dtypes.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aclnn_conformance.oracle.weight_quant_preprocess as wqp
from aclnn_conformance.oracle.weight_quant_preprocess import (
    dequantize_mx,
    dequantize_mx_activation,
    e2m1_values,
    e8m0_values,
    from_fractal_nz_c0_32,
    from_fractal_nz_c0_32_packed,
    mx_a8w4_matmul,
    nz_packed_shape,
    nz_padding_mask,
    nz_storage_shape,
    to_fractal_nz_c0_32,
    to_fractal_nz_c0_32_packed,
    weight_quant_preprocess,
)
from aclnn_conformance.spec.dtypes import pack_nibbles

FP4 = ml_dtypes.float4_e2m1fn
E8M0 = ml_dtypes.float8_e8m0fnu
E4M3 = ml_dtypes.float8_e4m3fn


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def _random_codes(rng: np.random.Generator, shape, low: int = 0) -> np.ndarray:
    return rng.integers(low, 16, size=shape, dtype=np.uint8)


# --------------------------------------------------------------------------------------------
# Independent references


def kernel_reference_bytes(w_codes: np.ndarray) -> np.ndarray:
    """Output bytes of the TransData ND -> FRACTAL_NZ_C0_32 kernel, one byte at a time.

    w_codes: logical view {K, N} or {G, K, N} of FP4 codes, K even. The kernel reads the dense
    {G, N, K} storage as bytes (two FP4 along K per byte, lower K in the low nibble), row length
    c = K/2 bytes, and writes [h][c1][padN][c0] bytes with c0 = 16.
    """
    w3 = w_codes[None] if w_codes.ndim == 2 else w_codes
    h, k, n = w3.shape
    assert k % 2 == 0
    src = pack_nibbles(np.swapaxes(w3, -1, -2)).reshape(-1).tolist()   # {G, N, K/2} bytes
    c0 = 16
    c = k // 2
    c1 = _ceil_div(c, c0)
    pad_n = _ceil_div(n, 16) * 16
    dst = [0] * (h * c1 * pad_n * c0)
    for idx in range(len(dst)):
        h_idx = idx // (c1 * pad_n * c0)
        c1_idx = (idx // (pad_n * c0)) % c1
        n_idx = (idx // c0) % pad_n
        c_idx = idx % c0 + c1_idx * c0
        if n_idx >= n or c_idx >= c:
            dst[idx] = 0
        else:
            dst[idx] = src[h_idx * n * c + n_idx * c + c_idx]
    return np.array(dst, dtype=np.uint8)


def element_formula_check(w_codes: np.ndarray, packed: np.ndarray) -> None:
    """Each element of W is where notes section 2.3 puts it: byte e // 2, low nibble if e even."""
    w3 = w_codes[None] if w_codes.ndim == 2 else w_codes
    g_count, k, n = w3.shape
    k1_count, n1_count = _ceil_div(k, 32), _ceil_div(n, 16)
    flat = packed.reshape(-1).tolist()
    seen = set()
    for g in range(g_count):
        for kk in range(k):
            for nn in range(n):
                k1, k0 = divmod(kk, 32)
                n1, n0 = divmod(nn, 16)
                e = (((g * k1_count + k1) * n1_count + n1) * 16 + n0) * 32 + k0
                byte = flat[e // 2]
                nibble = byte & 0x0F if e % 2 == 0 else byte >> 4
                assert nibble == w3[g, kk, nn], (g, kk, nn)
                seen.add(e)
    total = g_count * k1_count * n1_count * 16 * 32
    for e in range(total):
        if e not in seen:
            byte = flat[e // 2]
            assert (byte & 0x0F if e % 2 == 0 else byte >> 4) == 0, f"padding element {e} not 0"


# --------------------------------------------------------------------------------------------
# Layout against the kernel formula

KERNEL_SHAPES = [
    (64, 128),          # the documented MM example
    (2, 64, 128),       # the GMM unit-test shape
    (32, 16), (64, 16), (96, 16), (2048, 17),
    (40, 16), (2, 3), (40, 33),          # even K, not a multiple of 32
    (64, 1), (64, 15), (64, 17), (32, 128),
    (32, 7168),
    (3, 40, 17), (2, 2, 1), (4, 96, 48),
]


@pytest.mark.parametrize("shape", KERNEL_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_packed_matches_kernel_formula(shape):
    rng = np.random.default_rng(sum(shape))
    codes = _random_codes(rng, shape)
    packed = to_fractal_nz_c0_32_packed(codes.view(FP4))
    k, n = shape[-2:]
    g = shape[0] if len(shape) == 3 else None
    assert packed.dtype == np.uint8
    assert packed.shape == nz_packed_shape(k, n, g)
    np.testing.assert_array_equal(packed.reshape(-1), kernel_reference_bytes(codes))


@settings(max_examples=40, deadline=None)
@given(g=st.one_of(st.none(), st.integers(1, 3)), half_k=st.integers(1, 80),
       n=st.integers(1, 70), seed=st.integers(0, 2**32 - 1))
def test_packed_matches_kernel_formula_random_shapes(g, half_k, n, seed):
    shape = (2 * half_k, n) if g is None else (g, 2 * half_k, n)
    codes = _random_codes(np.random.default_rng(seed), shape)
    packed = to_fractal_nz_c0_32_packed(codes)
    np.testing.assert_array_equal(packed.reshape(-1), kernel_reference_bytes(codes))


@pytest.mark.parametrize("shape", [(64, 20), (2, 40, 17), (33, 5), (2, 65, 16)],
                         ids=lambda s: "x".join(map(str, s)))
def test_packed_matches_element_formula(shape):
    # Odd K included: the library leaves it undefined (the cann profile does not judge it); the
    # oracle's own convention is the same zero-padded layout as for even K.
    codes = _random_codes(np.random.default_rng(7), shape)
    element_formula_check(codes, to_fractal_nz_c0_32_packed(codes))


@pytest.mark.parametrize("chunk_bytes", [1, 2 * 32 * 16 + 1, 3 * 32 * 48])
@pytest.mark.parametrize("shape", [(160, 48), (3, 96, 40), (3, 70, 48), (2, 2, 16)],
                         ids=lambda s: "x".join(map(str, s)))
def test_packed_chunking_does_not_change_the_result(monkeypatch, chunk_bytes, shape):
    codes = _random_codes(np.random.default_rng(11), shape)
    expected = pack_nibbles(to_fractal_nz_c0_32(codes))
    monkeypatch.setattr(wqp, "_CHUNK_BYTES", chunk_bytes)
    np.testing.assert_array_equal(to_fractal_nz_c0_32_packed(codes), expected)


def test_packed_accepts_strided_and_unaligned_inputs():
    rng = np.random.default_rng(3)
    k, n = 64, 48
    storage = _random_codes(rng, (n, k))                 # the device layout {N, K}
    view = storage.T                                     # the logical {K, N} view, not contiguous
    expected = kernel_reference_bytes(np.ascontiguousarray(view))
    np.testing.assert_array_equal(to_fractal_nz_c0_32_packed(view.view(FP4)).reshape(-1), expected)
    buffer = np.zeros(k * n + 1, dtype=np.uint8)
    unaligned = buffer[1:].reshape(k, n)                 # data pointer not 8-byte aligned
    unaligned[...] = view
    np.testing.assert_array_equal(to_fractal_nz_c0_32_packed(unaligned).reshape(-1), expected)


def test_element_form_packs_to_the_packed_form():
    rng = np.random.default_rng(5)
    for shape in [(64, 128), (2, 96, 33), (40, 16)]:
        codes = _random_codes(rng, shape)
        nz = to_fractal_nz_c0_32(codes.view(FP4))
        k, n = shape[-2:]
        assert nz.dtype == np.uint8
        assert nz.shape == nz_storage_shape(k, n, shape[0] if len(shape) == 3 else None)
        np.testing.assert_array_equal(pack_nibbles(nz), to_fractal_nz_c0_32_packed(codes))


# --------------------------------------------------------------------------------------------
# Hand-written layouts


def test_hand_example_single_column():
    # W is 32 x 1: codes 1, 2, ..., 15, 0, 1, 2, ..., 15, 0 down K.
    column = [(k + 1) % 16 for k in range(32)]
    w = np.array(column, dtype=np.uint8).reshape(32, 1)
    packed = to_fractal_nz_c0_32_packed(w.view(FP4))
    assert packed.shape == (1, 1, 16, 16)
    row = [0x21, 0x43, 0x65, 0x87, 0xA9, 0xCB, 0xED, 0x0F] * 2
    assert packed[0, 0, 0].tolist() == row
    assert packed[0, 0, 0, 0] == column[0] | column[1] << 4
    assert not packed[0, 0, 1:].any()                    # rows n = 1..15 are padding
    # The {N, K} storage bytes the operator reads are this very row.
    assert pack_nibbles(w.T)[0].tolist() == row


def test_hand_example_block_positions():
    w = np.zeros((64, 17), dtype=np.uint8)
    w[0, 1] = 3          # k1=0, n1=0, n0=1, k0=0  -> e = 32        -> byte 16, low nibble
    w[32, 16] = 5        # k1=1, n1=1, n0=0, k0=0  -> e = 3*512     -> byte 768, low nibble
    w[33, 16] = 7        # k0=1                   -> e = 3*512 + 1 -> byte 768, high nibble
    w[63, 15] = 9        # k1=1, n1=0, n0=15, k0=31 -> e = 47*32 + 31     -> byte 767, high nibble
    packed = to_fractal_nz_c0_32_packed(w).reshape(-1)
    assert packed.size == 2 * 2 * 256
    expected = np.zeros_like(packed)
    expected[16] = 0x03
    expected[768] = 0x75
    expected[767] = 0x90
    np.testing.assert_array_equal(packed, expected)


# --------------------------------------------------------------------------------------------
# Inverse and padding


@pytest.mark.parametrize("shape", [(64, 128), (2, 64, 128), (40, 17), (3, 33, 1), (2, 3)],
                         ids=lambda s: "x".join(map(str, s)))
def test_round_trip_and_zero_padding(shape):
    rng = np.random.default_rng(13)
    codes = _random_codes(rng, shape, low=1)             # no zero codes: padding is the only 0
    k, n = shape[-2:]
    g = shape[0] if len(shape) == 3 else None
    nz = to_fractal_nz_c0_32(codes.view(FP4))
    np.testing.assert_array_equal(from_fractal_nz_c0_32(nz, k, n), codes)
    np.testing.assert_array_equal(from_fractal_nz_c0_32(nz.view(FP4), k, n), codes)
    packed = to_fractal_nz_c0_32_packed(codes)
    np.testing.assert_array_equal(from_fractal_nz_c0_32_packed(packed, k, n), codes)
    mask = nz_padding_mask(k, n, g)
    assert mask.shape == nz.shape and mask.dtype == np.bool_
    assert not nz[mask].any()
    assert nz[~mask].all()
    assert int((~mask).sum()) == codes.size


def test_inverse_rejects_mismatched_shapes():
    nz = to_fractal_nz_c0_32(np.zeros((64, 16), dtype=np.uint8))
    with pytest.raises(ValueError):
        from_fractal_nz_c0_32(nz, 96, 16)
    with pytest.raises(ValueError):
        from_fractal_nz_c0_32_packed(pack_nibbles(nz), 64, 17)
    with pytest.raises(TypeError):
        from_fractal_nz_c0_32_packed(pack_nibbles(nz).astype(np.int16), 64, 16)


def test_weight_input_checks():
    with pytest.raises(ValueError):
        to_fractal_nz_c0_32_packed(np.full((32, 16), 16, dtype=np.uint8))
    with pytest.raises(ValueError):
        to_fractal_nz_c0_32_packed(np.zeros((2, 2, 32, 16), dtype=np.uint8))
    with pytest.raises(TypeError):
        to_fractal_nz_c0_32_packed(np.zeros((32, 16), dtype=np.float32))


# --------------------------------------------------------------------------------------------
# Number formats and MX dequantization


def test_e2m1_and_e8m0_tables_agree_with_ml_dtypes():
    codes = np.arange(16, dtype=np.uint8)
    ours = e2m1_values(codes)
    theirs = codes.view(FP4).astype(np.float64)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(np.signbit(ours), np.signbit(theirs))
    codes = np.arange(256, dtype=np.uint8)
    np.testing.assert_array_equal(e8m0_values(codes), codes.view(E8M0).astype(np.float64))
    assert np.isnan(e8m0_values(np.uint8(0xFF)))
    assert e8m0_values(np.array([0x7F, 0x80, 0x00], np.uint8)).tolist() == [1.0, 2.0, 2.0**-127]


def test_dequantize_mx_hand_example():
    k, n = 96, 2                                         # ceil(96/64) = 2 scale rows
    w = np.zeros((k, n), dtype=np.uint8)
    scale = np.full((2, n, 2), 0x7F, dtype=np.uint8)     # 2**0 everywhere, then:
    w[0, 0] = 0b0011                                     # 1.5
    w[31, 0] = 0b0111                                    # 6.0, same block (k // 32 = 0)
    scale[0, 0, 0] = 0x80                                # 2**1 for k 0..31, n 0
    w[32, 0] = 0b1011                                    # -1.5, block 1 -> scale [0, n, 1]
    scale[0, 0, 1] = 0x7E                                # 2**-1
    w[64, 0] = 0b1101                                    # -3.0, block 2 -> scale [1, n, 0]
    w[65, 1] = 0b0001                                    # 0.5
    scale[1, 1, 0] = 0x85                                # 2**6
    w[63, 1] = 0b1000                                    # -0.0 (block 1 of n 1, scale 1)
    scale[0, 1, 0] = 0xFF                                # NaN for k 0..31 of n 1
    scale[1, 1, 1] = 0xFF                                # block 3 = k 96..127: outside K, unused
    expected = np.zeros((k, n))
    expected[0, 0] = 3.0
    expected[31, 0] = 12.0
    expected[32, 0] = -0.75
    expected[64, 0] = -3.0
    expected[65, 1] = 32.0
    expected[0:32, 1] = np.nan
    for as_types in (False, True):
        args = (w.view(FP4), scale.view(E8M0)) if as_types else (w, scale)
        got = dequantize_mx(*args)
        assert got.dtype == np.float32
        np.testing.assert_array_equal(got, expected.astype(np.float32))
        assert np.signbit(got[63, 1]) and got[63, 1] == 0
        assert not np.isnan(got[32:, 1]).any()
    np.testing.assert_array_equal(dequantize_mx(w, scale, dtype=np.float64), expected)


def test_dequantize_mx_gmm_scale_index_and_overflow():
    rng = np.random.default_rng(17)
    codes = _random_codes(rng, (64, 8))
    scale = rng.integers(120, 130, size=(1, 8, 2), dtype=np.uint8)
    w = np.stack([codes, codes])
    s = np.stack([scale, scale + 1])                     # group 1 has every scale doubled
    got = dequantize_mx(w, s, dtype=np.float64)
    np.testing.assert_array_equal(got[0], dequantize_mx(codes, scale, dtype=np.float64))
    np.testing.assert_array_equal(got[1], 2 * got[0])
    # 6 * 2**127 overflows float32 but not float64.
    big = dequantize_mx(np.full((32, 1), 0b0111, np.uint8), np.full((1, 1, 2), 0xFE, np.uint8))
    assert np.isposinf(big).all()
    exact = dequantize_mx(np.full((32, 1), 0b0111, np.uint8), np.full((1, 1, 2), 0xFE, np.uint8),
                          dtype=np.float64)
    assert (exact == 6.0 * 2.0**127).all()
    with pytest.raises(ValueError):
        dequantize_mx(codes, np.zeros((2, 8, 2), np.uint8))


def test_dequantize_mx_matches_ml_dtypes_elementwise():
    rng = np.random.default_rng(19)
    k, n = 160, 24
    codes = _random_codes(rng, (k, n))
    scale = rng.integers(100, 150, size=(_ceil_div(k, 64), n, 2), dtype=np.uint8)
    got = dequantize_mx(codes.view(FP4), scale.view(E8M0), dtype=np.float64)
    values = codes.view(FP4).astype(np.float64)
    scale_values = scale.view(E8M0).astype(np.float64)
    for kk in range(0, k, 7):
        for nn in range(n):
            assert got[kk, nn] == values[kk, nn] * scale_values[kk // 64, nn, (kk // 32) % 2]


def test_activation_dequant_and_matmul_hand_example():
    x = np.zeros((1, 40), dtype=np.float64)
    x[0, 0] = 1.5
    x[0, 33] = -2.0
    x_scale = np.array([[0x81, 0x7D]], dtype=np.uint8)   # 2**2 for k 0..31, 2**-2 for k 32..39
    xd = dequantize_mx_activation(x.astype(E4M3), x_scale.view(E8M0))
    assert xd[0, 0] == 6.0 and xd[0, 33] == -0.5 and np.count_nonzero(xd) == 2
    w = np.full((40, 1), 0.5)
    assert mx_a8w4_matmul(x.astype(E4M3), x_scale, w).tolist() == [[2.75]]
    with pytest.raises(ValueError):
        dequantize_mx_activation(x.astype(E4M3), np.zeros((1, 1), np.uint8))


# --------------------------------------------------------------------------------------------
# Operator outputs and the metamorphic property


def _mx_case(rng: np.random.Generator, g: int | None, m: int, k: int, n: int):
    lead = () if g is None else (g,)
    w = _random_codes(rng, lead + (k, n)).view(FP4)
    w_scale = rng.integers(118, 136, size=lead + (_ceil_div(k, 64), n, 2), dtype=np.uint8)
    w_scale = w_scale.view(E8M0)
    x = rng.standard_normal(lead + (m, k)).astype(E4M3)
    x_scale = rng.integers(120, 134, size=lead + (m, _ceil_div(k, 32)), dtype=np.uint8).view(E8M0)
    return w, w_scale, x, x_scale


@pytest.mark.parametrize("g,m,k,n", [(None, 4, 128, 48), (None, 3, 64, 128), (2, 5, 96, 40)])
def test_matmul_same_from_nd_input_and_nz_output(g, m, k, n):
    rng = np.random.default_rng(23)
    w, w_scale, x, x_scale = _mx_case(rng, g, m, k, n)
    from_nd = mx_a8w4_matmul(x, x_scale, dequantize_mx(w, w_scale, dtype=np.float64))
    out = weight_quant_preprocess(w, w_scale)
    w_back = from_fractal_nz_c0_32_packed(out["out_weight"], k, n)
    from_nz = mx_a8w4_matmul(x, x_scale,
                             dequantize_mx(w_back, out["out_weight_scale"], dtype=np.float64))
    np.testing.assert_array_equal(from_nd, from_nz)
    # The property can fail: reading the NZ bytes with the nibbles swapped changes the product.
    swapped = (out["out_weight"] >> 4) | (out["out_weight"] << 4)
    w_bad = from_fractal_nz_c0_32_packed(swapped, k, n)
    bad = mx_a8w4_matmul(x, x_scale, dequantize_mx(w_bad, w_scale, dtype=np.float64))
    assert not np.array_equal(from_nd, bad)


def test_outputs_are_new_copies_of_scale_and_bias():
    rng = np.random.default_rng(29)
    k, n = 64, 128
    w = _random_codes(rng, (k, n)).view(FP4)
    scale_storage = rng.integers(0, 256, size=(n, 1, 2), dtype=np.uint8).view(E8M0)
    scale = scale_storage.transpose(1, 0, 2)             # view {ceil(K/64), N, 2} of {N, ., 2}
    bias = rng.standard_normal(n).astype(np.float16)
    out = weight_quant_preprocess(w, scale, bias)
    assert set(out) == {"out_weight", "out_weight_scale", "out_bias"}
    np.testing.assert_array_equal(out["out_weight"], to_fractal_nz_c0_32_packed(w))
    for name, source in (("out_weight_scale", scale), ("out_bias", bias)):
        copy = out[name]
        assert copy.dtype == source.dtype and copy.shape == source.shape
        np.testing.assert_array_equal(copy.view(np.uint8) if copy.itemsize == 1 else copy,
                                      source.view(np.uint8) if source.itemsize == 1 else source)
        assert copy is not source and not np.shares_memory(copy, source)
    out = weight_quant_preprocess(w, scale)
    assert out["out_bias"] is None
    gmm = weight_quant_preprocess(np.stack([w, w]), np.stack([scale, scale]),
                                  np.stack([bias, bias]))
    assert gmm["out_weight"].shape == (2, 2, 8, 16, 16)
    np.testing.assert_array_equal(gmm["out_weight"][1], out["out_weight"])


def test_inverse_moves_any_byte_values():
    # Reading back a faulty storage must not fail: values outside 0..15 are moved as they are.
    nz = np.arange(2 * 16 * 32, dtype=np.uint32).astype(np.uint8).reshape(2, 1, 16, 32)
    back = from_fractal_nz_c0_32(nz, 64, 16)
    assert back[33, 5] == nz[1, 0, 5, 1]
