"""Reference for aclnnQuantMatmulWeightNz on its MX A8W4 path (notes quant_matmul_weight_nz_mx.md §3).

    out[m, n] = cast( b[n] + sum_k  x[m, k] * X1S[m, k // 32]  *  w[k, n] * X2S[n, k // 32] )

x FP8 E4M3FN, w FP4 E2M1 (read from the FRACTAL_NZ_C0_32 storage), the scales E8M0 in pairs
(block j at [.., j // 2, j % 2]), one RNE rounding to bf16/fp16. Under the ``cann`` profile an fp16
bias enters as fp16(b / 64) * 64, as the kernel prescales it in fp16; bf16 bias and the ``doc``
profile use b itself.

Exactness. Each term is a product of a 4-bit and a 2-bit significand times a power of two: exact in
float64, and in float32 whenever the dequantized operands are. Let L be an exponent such that every
term and the bias are integer multiples of 2**L (the lowest set bit of each operand, added: the lowest
bit of a product is at least the sum of its factors' lowest bits). If L >= -143 and
sum |terms| + |b| < 2**(L + 24), every partial sum of any subset, in any order, with or without fused
multiply-adds, is a multiple of 2**L below 2**(L + 24): exactly representable in float32, also in
the kernel's units of 1/64 (L - 6 >= -149). The device result is then the exact sum rounded once:
this is the EXACT REGIME, judged bit for bit. There a float32 matmul (any BLAS order) is itself
exact, which is what makes the oracle fast. L is bounded below per element by
min_k lsb(x'[m, k]) + min_k lsb(w'[k, n]) (and lsb(b)), and sum |terms| above by
sum_j (sum_{k in block j} |x'[m, k]|) * max_{k in block j} |w'[k, n]|: the predicate costs table
lookups, reductions and a matmul 32 times smaller than the product, never a min-plus product.
It is sufficient, not necessary: an element it rejects is summed in float64 and judged by the
bound below.

Outside the regime the expected value is the float64 sum rounded once, and the standard is the
arithmetic model's bound: K additions in float32 in any order (|error| <= gamma_K * sum|terms|,
gamma_j = j u / (1 - j u), u = 2**-24), the float64 reference's own gamma_K(2**-53) * sum|terms|, and
the final rounding on both sides (the reference rounds through float32): bound = delta +
ulp_out(|sum| + delta) + ulp_out(|sum|). The vendor's own standard for these outputs is
np.isclose with rtol 1e-3, atol 1e-3 (V5 csv; unset, i.e. 1e-8, in the NZ kernel csv), accepting up
to 0.1 % of mismatching elements (ttk default compare, notes §3). In bf16 and fp16 that tolerance is
below one ulp wherever |golden| >= 1: it means bit equality with the golden's own float32 summation
order (np.matmul), while the kernel sums in another order, with one in a thousand elements allowed
to be anything. The model bound makes the opposite trade: any summation order is accepted (a few
ulps where cancellation is heavy), no element may go beyond it; inside the exact regime both come
down to bit equality, with no outlier allowed here.
"""
from __future__ import annotations

from dataclasses import dataclass

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.weight_quant_preprocess import (E2M1_VALUES, MX_BLOCK, _e4m3fn_values, dequantize_mx,
                                                              e8m0_values, from_fractal_nz_c0_32,
                                                              nz_storage_shape)
from aclnn_conformance.spec.case import Case

U32 = 2.0 ** -24             # unit roundoff of float32
U64 = 2.0 ** -53
LOWEST_LSB = -143            # 2**-149 (float32's smallest subnormal) in units of 1/64
FP16_BIAS_PRESCALE = 0.015625


@dataclass(frozen=True)
class QmmResult:
    out: np.ndarray          # (M, N) in the output dtype
    exact: np.ndarray        # (M, N) bool: inside the exact regime
    bound: np.ndarray        # (M, N) float64: 0 inside the regime, the model's bound outside
    magnitude: np.ndarray    # (M, N) float64: sum |terms| + |bias| (an upper estimate)
    total: np.ndarray | None = None              # (M, N) float64: the sum before the cast
    accumulator_bound: np.ndarray | None = None  # (M, N) float64: how far a float32 sum may lie from it


def weight_codes_from_nz(storage_codes: np.ndarray, k: int, n: int) -> np.ndarray:
    """(K, N) FP4 codes from the first ceil(K/32)*ceil(N/16)*16*32 elements of an NZ storage
    (element form, one code a byte); the storage's own dims do not matter, only its order."""
    shape = nz_storage_shape(k, n)
    flat = np.ascontiguousarray(storage_codes).view(np.uint8).reshape(-1)[: int(np.prod(shape))]
    return from_fractal_nz_c0_32(flat.reshape(shape), k, n)


def activation_values(x1, x1_scale_pairs) -> np.ndarray:
    """float64 (M, K): e4m3fn(x1) * 2**(S[m, j // 2, j % 2] - 127), S of shape (M, ceil(K/64), 2)."""
    x = _e4m3fn_values(x1)
    m, k = x.shape
    blocks = -(-k // MX_BLOCK)
    codes = np.ascontiguousarray(x1_scale_pairs).view(np.uint8).reshape(m, -1)[:, :blocks]
    return x * np.repeat(e8m0_values(codes), MX_BLOCK, axis=1)[:, :k]


def weight_values(w_codes: np.ndarray, x2_scale_nk2) -> np.ndarray:
    """float64 (K, N): e2m1(w) * 2**(S[n, j // 2, j % 2] - 127), S of shape (N, ceil(K/64), 2)."""
    scale = np.ascontiguousarray(np.asarray(x2_scale_nk2).view(np.uint8).transpose(1, 0, 2))
    return dequantize_mx(w_codes, scale, dtype=np.float64)


def bias_values(bias, profile: str) -> np.ndarray | None:
    """float64 (N,) of the bias as it enters the sum (the kernel's fp16 prescale under cann)."""
    if bias is None:
        return None
    b = np.asarray(bias).reshape(-1)
    if b.dtype == np.float16 and profile == "cann":
        with np.errstate(under="ignore"):
            return (b * np.float16(FP16_BIAS_PRESCALE)).astype(np.float64) * 64.0
    return b.astype(np.float64)


def lsb_exponent(values: np.ndarray) -> np.ndarray:
    """Per element the exponent e of its lowest set bit (value = odd * 2**e); +inf for zeros."""
    v = np.abs(np.asarray(values, dtype=np.float64))
    mant, exp = np.frexp(v)
    ints = (mant * 2.0 ** 53).astype(np.int64)
    low = ints & -ints
    tz = np.frexp(low.astype(np.float64))[1] - 1
    return np.where(v > 0, (exp - 53 + tz).astype(np.float64), np.inf)


def _ulp(values: np.ndarray, dtype: np.dtype) -> np.ndarray:
    finfo = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    a = np.maximum(np.abs(values), float(finfo.smallest_normal))
    return np.exp2(np.floor(np.log2(a)) - finfo.nmant)




# Per code: the float32 value and the exponent of its lowest set bit (inf for zeros and NaN).
_E4M3_VALUES = np.arange(256, dtype=np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float64)
E4M3_F32 = _E4M3_VALUES.astype(np.float32)
E4M3_LSB = lsb_exponent(np.nan_to_num(_E4M3_VALUES, nan=0.0))
E4M3_NAN = np.isnan(_E4M3_VALUES)
E2M1_F32 = E2M1_VALUES.astype(np.float32)
E2M1_LSB = lsb_exponent(E2M1_VALUES)


def _blocks_of(codes: np.ndarray, axis_k: int, blocks: int) -> np.ndarray:
    """Codes with K padded (code 0) to ``blocks`` * 32."""
    pad = blocks * MX_BLOCK - codes.shape[axis_k]
    if pad == 0:
        return codes
    widths = [(0, 0)] * codes.ndim
    widths[axis_k] = (0, pad)
    return np.pad(codes, widths)


def _pair_exponents(pairs: np.ndarray, blocks: int) -> np.ndarray:
    """(rows, ceil(K/64), 2) E8M0 codes -> (rows, blocks) unbiased exponents (int32)."""
    codes = np.ascontiguousarray(pairs).view(np.uint8)
    return codes.reshape(codes.shape[0], -1)[:, :blocks].astype(np.int32) - 127


def quant_matmul_mx(x1, x1_scale_pairs, w_codes, x2_scale_nk2, bias, out_dtype,
                    profile: str = "cann") -> QmmResult:
    """The MX A8W4 matmul of one call: ``x1`` (M, K) E4M3FN, ``x1_scale_pairs`` (M, ceil(K/64), 2),
    ``w_codes`` (K, N) FP4 codes, ``x2_scale_nk2`` (N, ceil(K/64), 2), ``bias`` (N,) fp16/bf16 or None.

    Fast path: the operands dequantized in float32 (exact: 4- and 2-bit significands, exponents
    well inside float32's range, else inf and the slow path), one float32 matmul, exact for every
    element the regime predicate accepts. The predicate uses per-block magnitudes,
    sum_j (sum_{k in j} |x'|) * max_{k in j} |w'|, an upper bound of sum |terms| that costs a
    matmul 32 times smaller. Rows with an element outside the regime are summed again in float64.
    """
    xc = np.ascontiguousarray(np.asarray(x1)).view(np.uint8)
    wc = np.ascontiguousarray(np.asarray(w_codes)).view(np.uint8) & 0x0F
    m, k = xc.shape
    n = wc.shape[1]
    blocks = -(-k // MX_BLOCK)
    sx = _pair_exponents(x1_scale_pairs, blocks)                       # (M, blocks)
    sw = _pair_exponents(x2_scale_nk2, blocks)                         # (N, blocks)
    b = bias_values(bias, profile)
    b_row = np.zeros(n) if b is None else b
    special = (bool(E4M3_NAN[xc].any()) or bool((sx == 128).any()) or bool((sw == 128).any())
               or (b is not None and not np.isfinite(b).all()))
    with np.errstate(over="ignore", invalid="ignore"):
        xb = E4M3_F32[_blocks_of(xc, 1, blocks)].reshape(m, blocks, MX_BLOCK)
        xb *= np.ldexp(np.float32(1), sx)[:, :, None]
        wb = E2M1_F32[_blocks_of(wc, 0, blocks)].reshape(blocks, MX_BLOCK, n)
        wb *= np.ldexp(np.float32(1), sw).T[:, None, :]
        fast = not special and bool(np.isfinite(xb).all() and np.isfinite(wb).all())
        mag = np.abs(xb).sum(axis=2, dtype=np.float64) @ np.abs(wb).max(axis=1).astype(np.float64)
        mag += np.abs(b_row)
    lx = E4M3_LSB[_blocks_of(xc, 1, blocks)].reshape(m, blocks, MX_BLOCK).min(axis=2) + sx
    lw = E2M1_LSB[_blocks_of(wc, 0, blocks)].reshape(blocks, MX_BLOCK, n).min(axis=1) + sw.T
    low = lx.min(axis=1)[:, None] + lw.min(axis=0)[None, :]
    if b is not None:
        low = np.minimum(low, lsb_exponent(b)[None, :])
    with np.errstate(over="ignore", invalid="ignore"):
        exact = ((low >= LOWEST_LSB) & (mag * (1 + 2.0 ** -40) < np.exp2(np.minimum(low, 1000.0) + 24))
                 & (mag < 2.0 ** 120)) | np.isinf(low)
    if not fast:
        exact &= False
    outside = ~exact
    rows_out = outside.any(axis=1)
    total = np.empty((m, n))
    with np.errstate(over="ignore", invalid="ignore"):
        if fast and not rows_out.all():            # float32 BLAS: exact in the regime
            rows = np.flatnonzero(~rows_out)
            x32 = xb.reshape(m, -1)[rows]
            total[rows] = (x32 @ wb.reshape(-1, n)).astype(np.float64) + b_row
        if rows_out.any():                         # float64 for rows with an element outside
            rows = np.flatnonzero(rows_out)
            if fast:                               # the float32 operands are the exact values
                x64 = xb.reshape(m, -1)[rows].astype(np.float64)
                w64 = wb.reshape(-1, n).astype(np.float64)
            else:
                x64 = activation_values(x1, x1_scale_pairs)[rows]
                w64 = weight_values(w_codes, x2_scale_nk2)
                mag[rows] = np.abs(x64) @ np.abs(w64) + np.abs(b_row)
            total[rows] = x64 @ w64 + b_row
    dtype = np.dtype(out_dtype)
    with np.errstate(over="ignore", invalid="ignore"):
        out = total.astype(np.float32).astype(dtype)
    bound = np.zeros((m, n))
    accumulator = np.zeros((m, n))
    if outside.any():
        j = k  # k + 1 summands: k additions
        gamma32 = j * U32 / (1 - j * U32)
        gamma64 = j * U64 / (1 - j * U64)
        with np.errstate(over="ignore", invalid="ignore"):
            delta = (gamma32 + gamma64) * mag + (j + 1) * 2.0 ** -143
            full = delta + _ulp(np.abs(total) + delta, dtype) + _ulp(np.abs(total), dtype)
        bound = np.where(outside, full, 0.0)
        # a float32 sum in any order, and the float64 reference's own error, before the one cast
        accumulator = np.where(outside, delta + _ulp(np.abs(total) + delta, np.dtype(np.float32)), 0.0)
    return QmmResult(out=out, exact=exact, bound=bound, magnitude=mag, total=total,
                     accumulator_bound=accumulator)


def from_case(case: Case, profile: str, product: str) -> OracleResult:
    """The expected ``out`` of one call, with the inputs of model-bound@1 (``bound``) and of
    model-bound@3 (``envelope``: the float32 accumulator's bound around the exact sum, the sum, no
    lean: float32 round-to-nearest sums lean no way; the product's cast, to nearest even)."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.quant_matmul_weight_nz import is_transposed_scale_view, k_n
    k, n = k_n(case)
    x2s = case.tensor("x2Scale")
    scale = x2s.values().view(np.uint8)
    if is_transposed_scale_view(x2s.desc):
        scale = scale.transpose(1, 0, 2)
    bias = case.tensor("bias")
    res = quant_matmul_mx(case.tensor("x1").values(), case.tensor("x1Scale").values(),
                          weight_codes_from_nz(case.tensor("x2").storage, k, n), scale,
                          None if bias is None else bias.values().reshape(-1),
                          numpy_dtype(case.desc("out").dtype), profile)
    w_codes = weight_codes_from_nz(case.tensor("x2").storage, k, n)
    envelope = {"bound": res.accumulator_bound, "unrounded": res.total,
                "scalar_share": np.zeros(res.total.size),
                "evaluation": _evaluations(case.tensor("x1").values(), case.tensor("x1Scale").values(),
                                           w_codes, scale, None if bias is None else bias.values()),
                "ties": "even"}
    return OracleResult(views={"out": res.out}, aux={"out": {"bound": res.bound, "envelope": envelope}})


def _evaluations(x1, x1_scale, w_codes, x2_scale, bias) -> np.ndarray:
    """A label per out element, equal where the row of x1 (and its scales) and the column of the
    weight (its scales, the bias) are equal: such elements compute alike and count once."""
    def keys(rows: np.ndarray) -> np.ndarray:
        return np.unique(np.ascontiguousarray(rows).view(np.uint8).reshape(rows.shape[0], -1),
                         axis=0, return_inverse=True)[1].reshape(-1)
    m = np.asarray(x1).shape[0]
    row = keys(np.concatenate([np.asarray(x1).view(np.uint8).reshape(m, -1),
                               np.asarray(x1_scale).view(np.uint8).reshape(m, -1)], axis=1))
    cols = [np.asarray(w_codes).view(np.uint8).T, np.asarray(x2_scale).view(np.uint8).reshape(
        np.asarray(w_codes).shape[1], -1)]
    if bias is not None:
        cols.append(np.asarray(bias).reshape(-1, 1).view(np.uint8).reshape(np.asarray(w_codes).shape[1], -1))
    col = keys(np.concatenate(cols, axis=1))
    return (row[:, None] * (int(col.max(initial=0)) + 1) + col[None, :]).reshape(-1)
