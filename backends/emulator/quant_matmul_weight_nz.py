"""aclnnQuantMatmulWeightNz in the emulator: the MX A8W4 path on Ascend 950 (notes
quant_matmul_weight_nz_mx.md, sections 2 and 3), and nothing else.

GetWorkspaceSize runs the host checks in the vendor's order. Two of its steps rewrite descriptors:
an x2 (or x1) whose strides transpose its last two dims has its view swapped, its strides reset to
contiguous and transposeX2 (transposeX1) flipped; a transposed x2Scale view
{ceil(K/64), N, 2} strides {2, 2*ceil(K/64), 1} is swapped to {N, ceil(K/64), 2}. The x2 rewrite
is made on the caller's aclTensor: the emulator keeps it per descriptor object (``_REWRITTEN``), so
a second call with the same descriptor sees the swapped view.

Other products and other quantization paths are not modelled: they return 561000 with a message
saying so (the spec does not cover them). FLOAT8_E5M2 activations with an FP4 weight match no path:
161002.

The kernel: each FP4 code becomes the E4M3 value w/64 by moving its bits (sign to bit 7, the three
E2M1 bits to bits 4..2); the fp32 accumulator starts at bias * 0.015625 computed in the bias dtype;
per K block of 32 one MX mmad adds the block's products (x * 2^sx) * (w/64 * 2^sw) in fp32; the
fixpipe multiplies by 64 and rounds to bf16/fp16 (RNE).
"""
from __future__ import annotations

import weakref

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, RawTensor
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import (FirstPhase, OpExecutor, Reject, first_phase,
                                                          is_empty, read_view, row_major_strides,
                                                          write_view)
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

API = "aclnnQuantMatmulWeightNz"
_INVALID = Status.ERR_PARAM_INVALID
_NZ = (F.FRACTAL_NZ, F.FRACTAL_NZ_C0_4, F.FRACTAL_NZ_C0_32)
_OUT_TYPES = {DT.BF16: np.dtype(ml_dtypes.bfloat16), DT.FLOAT16: np.dtype(np.float16)}
_BLOCK = 32

# The caller's x2 descriptors after the operator rewrote them: (view dims, strides).
_REWRITTEN: "weakref.WeakKeyDictionary[RawTensor, tuple[tuple[int, ...], tuple[int, ...]]]" = \
    weakref.WeakKeyDictionary()


def get_workspace_size(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen))


def _ceil(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def _check(ok: bool, message: str, status: int = _INVALID) -> None:
    if not ok:
        raise Reject(status, message)


def _transposed_last_two(dims, strides) -> bool:
    return len(dims) >= 2 and strides[-2] == 1 and strides[-1] == dims[-2]


def _present(t: RawTensor | None) -> bool:
    return t is not None and not is_empty(t)


def _validate_and_bind(raw: RawCall, gen: ChipGeneration) -> OpExecutor:
    _check(not raw.null_workspace_size, "workspaceSize is nullptr", Status.ERR_PARAM_NULLPTR)
    _check(not raw.null_executor, "executor is nullptr", Status.ERR_PARAM_NULLPTR)
    t = raw.tensors()
    s = raw.scalars()
    for name in ("x1", "x2", "x2Scale", "out"):
        _check(t[name] is not None, f"{name} is nullptr", Status.ERR_PARAM_NULLPTR)
    x1, x2, x1s, x2s, out = t["x1"], t["x2"], t["x1Scale"], t["x2Scale"], t["out"]
    bias, y_scale = t["bias"], t["yScale"]
    _check(not _present(t["x1Offset"]), "x1Offset must be nullptr or empty")
    _check(not _present(t["yOffset"]) or x1.dtype == DT.INT8, "yOffset must be nullptr or empty")
    if gen.product != "ascend950":
        raise Reject(Status.ERR_INNER, f"the emulator models only the MX A8W4 path of Ascend 950, "
                                       f"not {gen.product}")
    if x1.dtype == DT.FLOAT8_E5M2 and x2.dtype == DT.FLOAT4_E2M1:
        raise Reject(_INVALID, "no quantization path for FLOAT8_E5M2 x FLOAT4_E2M1")
    if not (x1.dtype == DT.FLOAT8_E4M3FN and x2.dtype == DT.FLOAT4_E2M1):
        raise Reject(Status.ERR_INNER, "the emulator models only FLOAT8_E4M3FN x FLOAT4_E2M1")
    if x1s is None and x2s.dtype in (DT.BF16, DT.FLOAT16):
        raise Reject(Status.ERR_INNER, "the emulator does not model T-CG quantization")

    # the weight in NZ (CheckWeightNzParamsDAV3510, GetWeightNzShape, the transpose flip)
    _check(x2.format in _NZ, "x2 format must be NZ")
    _check(out.dtype in _OUT_TYPES, "out dtype must be BFLOAT16 or FLOAT16")
    x2_dims, x2_strides = _REWRITTEN.get(x2, (tuple(x2.view_dims), tuple(x2.strides)))
    _check(len(x2_dims) >= 2, "x2 view rank must be at least 2")
    transpose_x2 = bool(s["transposeX2"])
    if _transposed_last_two(x2_dims, x2_strides):
        x2_dims = x2_dims[:-2] + (x2_dims[-1], x2_dims[-2])
        x2_strides = row_major_strides(x2_dims)
        transpose_x2 = not transpose_x2
        _REWRITTEN[x2] = (x2_dims, x2_strides)
    if transpose_x2:
        n, k = x2_dims[-2], x2_dims[-1]
        nz = x2_dims[:-2] + (_ceil(k, 32), _ceil(n, 16), 16, 32)
    else:
        k, n = x2_dims[-2], x2_dims[-1]
        nz = x2_dims[:-2] + (_ceil(n, 32), _ceil(k, 16), 16, 32)
    _check(int(np.prod(x2.storage_dims)) == int(np.prod(nz)), "x2 storage shape does not match its NZ shape")

    group = int(s["groupSize"])
    gs_m, gs_n, gs_k = (group >> 32) & 0xFFFF, (group >> 16) & 0xFFFF, group & 0xFFFF
    _check((gs_m, gs_n) in ((0, 0), (1, 1)), "groupSize M, N must be 0 or 1")
    x1_dims, transpose_x1 = tuple(x1.view_dims), bool(s["transposeX1"])
    if _transposed_last_two(x1_dims, x1.strides):
        x1_dims, transpose_x1 = x1_dims[:-2] + (x1_dims[-1], x1_dims[-2]), not transpose_x1
    s2_dims, s2_strides = tuple(x2s.view_dims), tuple(x2s.strides)
    if (len(s2_dims) == 3 and s2_dims[-1] == 2 and s2_strides[2] == 1 and s2_strides[0] == 2
            and s2_strides[1] == 2 * s2_dims[0]):
        s2_dims, s2_strides = (s2_dims[1], s2_dims[0], 2), (s2_strides[1], s2_strides[0], 1)
    mx = x1s is not None and x1s.dtype == DT.FLOAT8_E8M0 and x2s.dtype == DT.FLOAT8_E8M0
    _check(mx, "x1Scale and x2Scale must be FLOAT8_E8M0")
    _check(not transpose_x1, "transposeX1 must be false")
    _check(transpose_x2, "MX: transposeX2 must be true")
    _check(gs_k == _BLOCK, "groupSizeK must be 32")
    for name, dims, want in (("x1", x1_dims, 2), ("x2", x2_dims, 2),
                             ("bias", None if bias is None else bias.view_dims, 2),
                             ("out", out.view_dims, 2), ("x1Scale", x1s.view_dims, 3),
                             ("x2Scale", s2_dims, 3),
                             ("yScale", None if y_scale is None else y_scale.view_dims, 2)):
        _check(dims is None or len(dims) == want, f"{name} rank must be {want}")
    _check(bias is None or bias.dtype == out.dtype, "bias dtype must equal out dtype")
    _check(y_scale is None, "yScale must be nullptr")
    for name, tensor in (("x1", x1), ("x2Scale", x2s), ("x1Scale", x1s), ("bias", bias)):
        _check(tensor is None or tensor.format != F.FRACTAL_NZ, f"{name} must not be FRACTAL_NZ")
    _check(out.format == F.ND, "out format must be ND")
    m, k1 = x1_dims
    _check(m > 0 and k1 > 0 and n > 0, "m, k, n must be positive")
    _check(k1 == k, "k of x1 and x2 differ")
    _check(k % 8 == 0 and n % 8 == 0, "k and n must be multiples of 8")
    kb = _ceil(k, 64)
    _check(tuple(x1s.view_dims) == (m, kb, 2), "x1Scale shape must be (m, ceil(k/64), 2)")
    _check(s2_dims == (n, kb, 2), "x2Scale shape must be (n, ceil(k/64), 2)")
    _check(bias is None or tuple(bias.view_dims) == (1, n), "bias shape must be (1, n)")
    _check(tuple(out.view_dims) == (m, n), "out shape must be (m, n)")
    x2s_view = RawTensor(x2s.name, x2s.dtype, s2_dims, s2_strides, x2s.offset, x2s.format,
                         x2s.storage_dims, x2s.buffer, x2s.num_elements, x2s.element_dtype)
    return OpExecutor(API, [lambda: _kernel(x1, x2, x1s, x2s_view, bias, out, m, k, n)])


# ---- the kernel ----

def fp4_as_e4m3_over_64(codes: np.ndarray) -> np.ndarray:
    """The AIV prologue: FP4 code -> the E4M3 code of its value / 64 (bits moved, no arithmetic)."""
    codes = codes.astype(np.uint8)
    return ((codes & 0x8) << 4) | ((codes & 0x7) << 2)


def nz_weight(x2: RawTensor, k: int, n: int) -> np.ndarray:
    """(K, N) FP4 codes from the packed FRACTAL_NZ_C0_32 bytes: element (k, n) sits at
    [k // 32, n // 16, n % 16, k % 32], byte e // 2, low nibble for even e."""
    k1, n1 = _ceil(k, 32), _ceil(n, 16)
    raw = np.frombuffer(x2.buffer, dtype=np.uint8)[: k1 * n1 * 16 * 16]
    kk = np.arange(k)[:, None]
    nn = np.arange(n)[None, :]
    element = (((kk // 32) * n1 + nn // 16) * 16 + nn % 16) * 32 + kk % 32
    byte = raw[element >> 1]
    return np.where(element & 1, byte >> 4, byte & 0x0F).astype(np.uint8)


def _block_scales(codes: np.ndarray, blocks: int) -> np.ndarray:
    """(rows, kb, 2) E8M0 codes -> (rows, blocks) float32 powers of two."""
    flat = codes.reshape(codes.shape[0], -1)[:, :blocks].astype(np.int32)
    with np.errstate(over="ignore"):
        return np.ldexp(np.float32(1), flat - 127).astype(np.float32)


def prescaled_bias(bias: RawTensor | None, n: int) -> np.ndarray:
    """The accumulator's start: bias * 0.015625 computed in the bias dtype, as float32."""
    if bias is None:
        return np.zeros(n, np.float32)
    dtype = _OUT_TYPES[bias.dtype]
    values = read_view(bias, dtype).reshape(-1)
    with np.errstate(under="ignore"):
        return (values * dtype.type(0.015625)).astype(np.float32)


def _kernel(x1, x2, x1s, x2s, bias, out, m: int, k: int, n: int) -> None:
    blocks = _ceil(k, _BLOCK)
    x = read_view(x1).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    w = fp4_as_e4m3_over_64(nz_weight(x2, k, n)).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    sx = _block_scales(read_view(x1s), blocks)                    # (m, blocks)
    sw = _block_scales(read_view(x2s), blocks)                    # (n, blocks)
    acc = np.broadcast_to(prescaled_bias(bias, n), (m, n)).astype(np.float32)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for j in range(blocks):
            lo, hi = j * _BLOCK, min((j + 1) * _BLOCK, k)
            acc += (x[:, lo:hi] * sx[:, j:j + 1]) @ (w[lo:hi] * sw[:, j][None, :])
        result = (acc * np.float32(64.0)).astype(_OUT_TYPES[out.dtype])
    write_view(out, result, _OUT_TYPES[out.dtype])
