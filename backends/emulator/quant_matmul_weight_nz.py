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


class MxA8W4Model:
    """The steps of the host code and the kernel that a defect can hit, each overridable (the
    mutants subclass this and change one)."""

    def accepts_e5m2(self) -> bool:
        """isA8W4Float: only FLOAT8_E4M3FN activations pair with an FP4 weight."""
        return False

    def flips_transpose(self) -> bool:
        """GetTransposeAttrValue: transposed last-two strides swap the view and flip transposeX2."""
        return True

    def storage_matches(self, storage_dims: tuple[int, ...], nz: tuple[int, ...]) -> bool:
        """CheckWeightNzStorageShape: the element counts are compared, not the dims."""
        return int(np.prod(storage_dims)) == int(np.prod(nz))

    def nibble(self, byte: np.ndarray, odd: np.ndarray) -> np.ndarray:
        """The FP4 code of element e from its byte: low nibble for even e, high for odd."""
        return np.where(odd, byte >> 4, byte & 0x0F)

    def scale_slot(self, block: int, blocks: int) -> tuple[int, int]:
        """The (row, slot) of a (.., ceil(K/64), 2) scale that holds K block ``block`` of ``blocks``."""
        return block // 2, block % 2

    def prescale_bias(self, values: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """bias * 0.015625 in the bias dtype."""
        with np.errstate(under="ignore"):
            return (values * dtype.type(0.015625)).astype(np.float32)

    def finish(self, acc: np.ndarray, bias: np.ndarray | None, out_dtype: np.dtype) -> np.ndarray:
        """Fixpipe: acc * 64 rounded to the output dtype (the bias is already in acc)."""
        return (acc * np.float32(64.0)).astype(out_dtype)

    def bias_in_accumulator(self) -> bool:
        return True

    def block_order(self, blocks: int) -> range:
        """The order in which the K blocks are added to the float32 accumulator."""
        return range(blocks)

    def block_products(self, xb: np.ndarray, wb: np.ndarray) -> np.ndarray:
        """One K block's sum of products in float32 (the MX mmad)."""
        return xb @ wb


MODEL = MxA8W4Model()


def get_workspace_size(raw: RawCall, gen: ChipGeneration, model: MxA8W4Model = MODEL) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen, model))


def _ceil(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def _check(ok: bool, message: str, status: int = _INVALID) -> None:
    if not ok:
        raise Reject(status, message)


def _transposed_last_two(dims, strides) -> bool:
    return len(dims) >= 2 and strides[-2] == 1 and strides[-1] == dims[-2]


def _present(t: RawTensor | None) -> bool:
    return t is not None and not is_empty(t)


def _validate_and_bind(raw: RawCall, gen: ChipGeneration, model: MxA8W4Model) -> OpExecutor:
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
    activations = (DT.FLOAT8_E4M3FN, DT.FLOAT8_E5M2) if model.accepts_e5m2() else (DT.FLOAT8_E4M3FN,)
    if x1.dtype == DT.FLOAT8_E5M2 and x2.dtype == DT.FLOAT4_E2M1 and not model.accepts_e5m2():
        raise Reject(_INVALID, "no quantization path for FLOAT8_E5M2 x FLOAT4_E2M1")
    if not (x1.dtype in activations and x2.dtype == DT.FLOAT4_E2M1):
        raise Reject(Status.ERR_INNER, "the emulator models only FLOAT8_E4M3FN x FLOAT4_E2M1")
    if x1s is None and x2s.dtype in (DT.BF16, DT.FLOAT16):
        raise Reject(Status.ERR_INNER, "the emulator does not model T-CG quantization")

    # the weight in NZ (CheckWeightNzParamsDAV3510, GetWeightNzShape, the transpose flip)
    _check(x2.format in _NZ, "x2 format must be NZ")
    _check(out.dtype in _OUT_TYPES, "out dtype must be BFLOAT16 or FLOAT16")
    x2_dims, x2_strides = _REWRITTEN.get(x2, (tuple(x2.view_dims), tuple(x2.strides)))
    _check(len(x2_dims) >= 2, "x2 view rank must be at least 2")
    transpose_x2 = bool(s["transposeX2"])
    if model.flips_transpose() and _transposed_last_two(x2_dims, x2_strides):
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
    _check(model.storage_matches(tuple(x2.storage_dims), nz), "x2 storage shape does not match its NZ shape")

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
    return OpExecutor(API, [lambda: _kernel(model, x1, x2, x1s, x2s_view, bias, out, m, k, n)])


# ---- the kernel ----

def fp4_as_e4m3_over_64(codes: np.ndarray) -> np.ndarray:
    """The AIV prologue: FP4 code -> the E4M3 code of its value / 64 (bits moved, no arithmetic)."""
    codes = codes.astype(np.uint8)
    return ((codes & 0x8) << 4) | ((codes & 0x7) << 2)


def nz_weight(x2: RawTensor, k: int, n: int, model: MxA8W4Model = MODEL) -> np.ndarray:
    """(K, N) FP4 codes from the packed FRACTAL_NZ_C0_32 bytes: element (k, n) sits at
    [k // 32, n // 16, n % 16, k % 32], byte e // 2, low nibble for even e."""
    k1, n1 = _ceil(k, 32), _ceil(n, 16)
    raw = np.frombuffer(x2.buffer, dtype=np.uint8)[: k1 * n1 * 16 * 16]
    kk = np.arange(k)[:, None]
    nn = np.arange(n)[None, :]
    element = (((kk // 32) * n1 + nn // 16) * 16 + nn % 16) * 32 + kk % 32
    return model.nibble(raw[element >> 1], (element & 1).astype(bool)).astype(np.uint8)


def _block_scales(codes: np.ndarray, blocks: int, model: MxA8W4Model = MODEL) -> np.ndarray:
    """(rows, kb, 2) E8M0 codes -> (rows, blocks) float32 powers of two."""
    slots = [model.scale_slot(j, blocks) for j in range(blocks)]
    flat = np.stack([codes[:, r, s] for r, s in slots], axis=1).astype(np.int32)
    with np.errstate(over="ignore"):
        return np.ldexp(np.float32(1), flat - 127).astype(np.float32)


def _kernel(model: MxA8W4Model, x1, x2, x1s, x2s, bias, out, m: int, k: int, n: int) -> None:
    blocks = _ceil(k, _BLOCK)
    x = read_view(x1).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    w = fp4_as_e4m3_over_64(nz_weight(x2, k, n, model)).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    sx = _block_scales(read_view(x1s), blocks, model)             # (m, blocks)
    sw = _block_scales(read_view(x2s), blocks, model)             # (n, blocks)
    bias_values = None if bias is None else read_view(bias, _OUT_TYPES[bias.dtype]).reshape(-1)
    acc = np.zeros((m, n), np.float32)
    if bias_values is not None and model.bias_in_accumulator():
        acc += model.prescale_bias(bias_values, _OUT_TYPES[bias.dtype])
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        for j in model.block_order(blocks):
            lo, hi = j * _BLOCK, min((j + 1) * _BLOCK, k)
            acc += model.block_products(x[:, lo:hi] * sx[:, j:j + 1], w[lo:hi] * sw[:, j][None, :])
        result = model.finish(acc, bias_values, _OUT_TYPES[out.dtype])
    write_view(out, result, _OUT_TYPES[out.dtype])
