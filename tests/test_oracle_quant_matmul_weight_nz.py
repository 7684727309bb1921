"""The MX A8W4 matmul oracle against hand computation, an element-by-element exact sum in Fractions,
and the notes' simulated examples; the exact-regime predicate and the model bound."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.oracle.quant_matmul_weight_nz import (bias_values, lsb_exponent, quant_matmul_mx,
                                                             weight_codes_from_nz)
from aclnn_conformance.oracle.weight_quant_preprocess import E2M1_VALUES, to_fractal_nz_c0_32

BF16 = np.dtype(ml_dtypes.bfloat16)


def e4m3(values) -> np.ndarray:
    return np.asarray(values, np.float32).astype(ml_dtypes.float8_e4m3fn)


def fraction_sum(x, xs, w, ws, bias, m, n) -> Fraction:
    """Element (m, n) summed exactly, one term at a time, written from the document's formula."""
    k = x.shape[1]
    total = Fraction(0) if bias is None else Fraction(float(bias[n]))
    for i in range(k):
        j = i // 32
        sx = Fraction(2) ** (int(xs[m, j // 2, j % 2]) - 127)
        sw = Fraction(2) ** (int(ws[n, j // 2, j % 2]) - 127)
        total += Fraction(float(x[m, i].astype(np.float32))) * sx * Fraction(float(E2M1_VALUES[w[i, n]])) * sw
    return total


def test_the_document_example_gives_4096():
    m, k, n = 5, 64, 128
    res = quant_matmul_mx(e4m3(np.ones((m, k))), np.full((m, 1, 2), 0x7F, np.uint8),
                          np.full((k, n), 2, np.uint8), np.full((n, 1, 2), 0x85, np.uint8), None, BF16)
    assert res.out.dtype == BF16 and np.all(res.out.astype(np.float32) == 4096.0)
    assert res.exact.all() and not res.bound.any()


@pytest.mark.parametrize("k,bias", [(64, None), (96, "bf16"), (40, "fp16")])
def test_against_an_exact_fraction_sum_rounded_once(k, bias):
    rng = np.random.default_rng(k)
    m, n = 3, 16
    x = e4m3(rng.choice(np.arange(-16, 17) / 2, (m, k)))
    kb = -(-k // 64)
    xs = rng.integers(125, 130, (m, kb, 2), dtype=np.uint8)
    ws = rng.integers(125, 130, (n, kb, 2), dtype=np.uint8)
    w = rng.integers(0, 16, (k, n), dtype=np.uint8)
    b = None
    if bias == "bf16":
        b = (rng.integers(-64, 64, n) / 2).astype(BF16)
    elif bias == "fp16":
        b = (rng.integers(-64, 64, n) / 4).astype(np.float16)       # |b| >= 2^-2: no prescale loss
    out_dtype = np.dtype(np.float16) if bias == "fp16" else BF16
    res = quant_matmul_mx(x, xs, w, ws, b, out_dtype)
    assert res.exact.all()
    for i in range(m):
        for j in range(n):
            exact = fraction_sum(x, xs, w, ws, b, i, j)
            assert float(exact) == float(Fraction(float(exact)))           # fits a double
            assert res.out[i, j] == np.array(float(exact)).astype(out_dtype), (i, j)


def test_weight_read_from_the_nz_layout():
    rng = np.random.default_rng(0)
    w = rng.integers(0, 16, (72, 40), dtype=np.uint8)
    nz = to_fractal_nz_c0_32(w)
    assert np.array_equal(weight_codes_from_nz(nz.reshape(-1), 72, 40), w)
    # element (k, n) sits at [k // 32, n // 16, n % 16, k % 32]
    assert nz[1, 2, 3, 4] == w[36, 35]


def test_the_fp16_bias_prescale_of_the_kernel():
    """Notes section 3 (a): 2^-10 + 2^-20 -> 2^-10; 3e-4 -> 3.0136e-4 (fp16(b / 64) * 64)."""
    b = np.array([2.0 ** -10 + 2.0 ** -20, 3e-4, 1.0], np.float16)
    cann = bias_values(b, "cann")
    assert cann[0] == 2.0 ** -10
    assert abs(cann[1] - 3.0136e-4) < 1e-8
    assert cann[2] == 1.0
    assert np.array_equal(bias_values(b, "doc"), b.astype(np.float64))
    bf = np.array([2.0 ** -12], BF16)
    assert bias_values(bf, "cann")[0] == 2.0 ** -12                     # bf16: exact


def test_lowest_set_bit():
    got = lsb_exponent(np.array([1.0, 1.5, 6.0, 0.375, 0.0, -2.0 ** -20]))
    assert got.tolist() == [0, -1, 1, -3, np.inf, -20]


def test_the_exact_regime_predicate():
    """x = 2^20, 1, -2^20 (scales 2^0) against w = 1: every partial sum is an integer below 2^24,
    exact; with 2^8 as the large scale the magnitude reaches 2^29 > 2^24 and the predicate says no;
    a bias of 2^-10 lowers the lowest bit to 2^-10 and 2^20 + 2^-10 needs 31 bits."""
    def call(big_scale, bias=None, out=BF16):
        x = np.zeros((1, 96), np.float32)
        x[0, 0], x[0, 32], x[0, 64] = 256.0, 1.0, -256.0
        xs = np.array([[[127 + big_scale, 127], [127 + big_scale, 127]]], np.uint8)
        w = np.zeros((96, 1), np.uint8)
        w[[0, 32, 64]] = 2
        return quant_matmul_mx(e4m3(x), xs, w, np.full((1, 2, 2), 127, np.uint8), bias, out)
    assert call(12).exact.all() and float(call(12).out[0, 0]) == 1.0
    assert not call(21).exact.any()
    assert not call(12, np.array([2.0 ** -10], BF16)).exact.any()


def test_outside_the_regime_the_bound_covers_every_summation_order():
    """The notes' adversarial K = 96 case: exact 1, float32 in block order 0; both within the bound."""
    x = np.zeros((1, 96), np.float32)
    x[0, 0], x[0, 32], x[0, 64] = 448.0, 1.0, -448.0
    xs = np.array([[[147, 127], [147, 127]]], np.uint8)                 # 2^20 for blocks 0 and 2
    w = np.zeros((96, 1), np.uint8)
    w[[0, 32, 64]] = 2
    res = quant_matmul_mx(e4m3(x), xs, w, np.full((1, 2, 2), 127, np.uint8), None, BF16)
    assert not res.exact[0, 0] and float(res.out[0, 0]) == 1.0
    in_order = np.float32(448.0 * 2 ** 20) + np.float32(1.0) - np.float32(448.0 * 2 ** 20)
    assert in_order == 0 and res.bound[0, 0] >= 1.0


def test_bound_is_zero_exactly_in_the_regime():
    rng = np.random.default_rng(3)
    x = e4m3(rng.uniform(-448, 448, (4, 256)))
    xs = rng.integers(117, 138, (4, 4, 2), dtype=np.uint8)
    ws = rng.integers(117, 138, (8, 4, 2), dtype=np.uint8)
    res = quant_matmul_mx(x, xs, rng.integers(0, 16, (256, 8), dtype=np.uint8), ws, None, BF16)
    assert ((res.bound == 0) == res.exact).all()
    assert (~res.exact).any()


def test_the_model_bound_against_the_vendor_tolerance_outside_the_regime():
    """The vendor's standard (ttk compare: isclose with rtol 1e-3, atol 1e-3, up to 0.1 % of elements
    off, notes section 3) is below one bf16 ulp (2^-8 relative and more) wherever |golden| >= 1: it
    means bit equality with the golden's own float32 order, with 0.1 % of elements allowed anything.
    The model's bound accepts any summation order instead: at least one ulp outside the regime, and
    no element beyond it."""
    rng = np.random.default_rng(11)
    m, k, n = 8, 1024, 16
    x = e4m3(rng.uniform(-448, 448, (m, k)))
    xs = rng.integers(117, 138, (m, k // 64, 2), dtype=np.uint8)
    ws = rng.integers(117, 138, (n, k // 64, 2), dtype=np.uint8)
    res = quant_matmul_mx(x, xs, rng.integers(0, 16, (k, n), dtype=np.uint8), ws, None, BF16)
    assert (~res.exact).all()
    golden = np.abs(res.out.astype(np.float64))
    big = golden >= 1
    vendor = 1e-3 + 1e-3 * golden
    ulp = 2.0 ** (np.floor(np.log2(np.maximum(golden, 1e-30))) - 7)
    assert (vendor[big] < ulp[big]).all()
    assert (res.bound[big] >= ulp[big]).all()
