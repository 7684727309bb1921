"""aclnnQuantMatmulWeightNz, MX A8W4 path on Ascend 950, in torch: the host checks in the vendor's
order, then the matmul in float64.

Validation (first failure wins): null workspaceSize/executor, then x1, x2, x2Scale, out (161001);
a non-empty x1Offset or yOffset (161002); another product or quantization path: not implemented
(561000; the spec does not cover them), FLOAT8_E5M2 x FP4: 161002; then x2's NZ format, out dtype,
x2 rank, the stride flip of x2 and transposeX2, the NZ storage's element count, groupSize M/N, the
flip of x1, the transposed x2Scale view, MX scales, transposeX1 false, transposeX2 true,
groupSize K 32, ranks, bias dtype, yScale null, FRACTAL_NZ formats, out ND, then the shapes.

Computation: FP4 codes read from the NZ storage by reshape/permute, E4M3 through torch's
float8_e4m3fn, scales as powers of two, the products summed in float64 (exact wherever the device's
float32 sums are), the bias added first (an fp16 bias as the kernel prescales it: fp16(b / 64) * 64),
one rounding to float32 and then to the output dtype.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.torch_backend._tensors import as_torch, view
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

_NZ = {int(F.FRACTAL_NZ), int(F.FRACTAL_NZ_C0_4), int(F.FRACTAL_NZ_C0_32)}
_OUT = {int(DT.BF16): torch.bfloat16, int(DT.FLOAT16): torch.float16}
_E2M1 = torch.tensor([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0,
                      -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0], dtype=torch.float64)


class _Reject(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)


def _require(ok: bool, message: str, status: int = Status.ERR_PARAM_INVALID) -> None:
    if not ok:
        raise _Reject(status, message)


def _swap_last_two(shape: tuple[int, ...]) -> tuple[int, ...]:
    return shape[:-2] + (shape[-1], shape[-2])


def _is_transposed(d) -> bool:
    return len(d.shape) >= 2 and d.strides[-2] == 1 and d.strides[-1] == d.shape[-2]


def _non_empty(case: Case, name: str) -> bool:
    d = case.desc(name)
    return d is not None and all(s != 0 for s in d.shape)


def _validate(case: Case, product: str) -> dict:
    _require("workspaceSize" not in case.null_outputs, "workspaceSize is null", Status.ERR_PARAM_NULLPTR)
    _require("executor" not in case.null_outputs, "executor is null", Status.ERR_PARAM_NULLPTR)
    for name in ("x1", "x2", "x2Scale", "out"):
        _require(case.tensor(name) is not None, f"{name} is null", Status.ERR_PARAM_NULLPTR)
    x1, x2, x1s, x2s, out = (case.desc(n) for n in ("x1", "x2", "x1Scale", "x2Scale", "out"))
    bias, y_scale = case.desc("bias"), case.desc("yScale")
    _require(not _non_empty(case, "x1Offset"), "x1Offset must be null or empty")
    _require(not _non_empty(case, "yOffset") or x1.dtype == DT.INT8, "yOffset must be null or empty")
    if product != "ascend950":
        raise _Reject(Status.ERR_INNER, f"only the MX A8W4 path of Ascend 950 is implemented, not {product}")
    if x1.dtype == DT.FLOAT8_E5M2 and x2.dtype == DT.FLOAT4_E2M1:
        raise _Reject(Status.ERR_PARAM_INVALID, "FLOAT8_E5M2 x FLOAT4_E2M1 is no quantization mode")
    if x1.dtype != DT.FLOAT8_E4M3FN or x2.dtype != DT.FLOAT4_E2M1:
        raise _Reject(Status.ERR_INNER, "only FLOAT8_E4M3FN x FLOAT4_E2M1 is implemented")
    if x1s is None and x2s.dtype in (DT.BF16, DT.FLOAT16):
        raise _Reject(Status.ERR_INNER, "T-CG is not implemented")
    _require(int(x2.format) in _NZ, "x2 must be in an NZ format")
    _require(int(out.dtype) in _OUT, "out must be BFLOAT16 or FLOAT16")
    _require(len(x2.shape) >= 2, "x2 rank below 2")
    x2_shape, trans_x2 = tuple(x2.shape), bool(case.attrs["transposeX2"])
    if _is_transposed(x2):
        x2_shape, trans_x2 = _swap_last_two(x2_shape), not trans_x2
    k, n = (x2_shape[-1], x2_shape[-2]) if trans_x2 else (x2_shape[-2], x2_shape[-1])
    inner = ((-(-k // 32)), (-(-n // 16))) if trans_x2 else ((-(-n // 32)), (-(-k // 16)))
    _require(math.prod(x2.storage_shape) == math.prod(x2_shape[:-2]) * inner[0] * inner[1] * 512,
             "x2 storage element count")
    group = int(case.attrs["groupSize"])
    _require(((group >> 32) & 0xFFFF, (group >> 16) & 0xFFFF) in ((0, 0), (1, 1)), "groupSize M/N")
    x1_shape, trans_x1 = tuple(x1.shape), bool(case.attrs["transposeX1"])
    if _is_transposed(x1):
        x1_shape, trans_x1 = _swap_last_two(x1_shape), not trans_x1
    s2_shape = tuple(x2s.shape)
    scale_swapped = (len(s2_shape) == 3 and s2_shape[2] == 2 and x2s.strides[2] == 1
                     and x2s.strides[0] == 2 and x2s.strides[1] == 2 * s2_shape[0])
    if scale_swapped:
        s2_shape = (s2_shape[1], s2_shape[0], 2)
    _require(x1s is not None and x1s.dtype == DT.FLOAT8_E8M0 and x2s.dtype == DT.FLOAT8_E8M0,
             "scales must be FLOAT8_E8M0")
    _require(not trans_x1, "transposeX1 must be false")
    _require(trans_x2, "transposeX2 must be true")
    _require(group & 0xFFFF == 32, "groupSize K must be 32")
    ranks = ((x1_shape, 2), (x2_shape, 2), (None if bias is None else bias.shape, 2),
             (out.shape, 2), (x1s.shape, 3), (s2_shape, 3),
             (None if y_scale is None else y_scale.shape, 2))
    for shape, rank in ranks:
        _require(shape is None or len(shape) == rank, "rank")
    _require(bias is None or bias.dtype == out.dtype, "bias dtype differs from out dtype")
    _require(y_scale is None, "yScale must be null")
    for d in (x1, x2s, x1s, bias):
        _require(d is None or d.format != F.FRACTAL_NZ, "FRACTAL_NZ input")
    _require(out.format == F.ND, "out must be ND")
    m, k1 = x1_shape
    _require(min(m, k1, n) > 0, "empty dimension")
    _require(k1 == k and k % 8 == 0 and n % 8 == 0, "k/n")
    kb = -(-k // 64)
    _require(tuple(x1s.shape) == (m, kb, 2) and s2_shape == (n, kb, 2), "scale shapes")
    _require(bias is None or tuple(bias.shape) == (1, n), "bias shape")
    _require(tuple(out.shape) == (m, n), "out shape")
    return {"m": m, "k": k, "n": n, "scale_swapped": scale_swapped}


def _scales(codes: torch.Tensor, blocks: int) -> torch.Tensor:
    """(rows, kb, 2) E8M0 codes -> (rows, blocks) float64 powers of two."""
    flat = codes.reshape(codes.shape[0], -1)[:, :blocks].to(torch.float64)
    return torch.exp2(flat - 127.0)


def _compute(case: Case, g: dict) -> np.ndarray:
    k, n = g["k"], g["n"]
    blocks = -(-k // 32)
    x1 = case.tensor("x1")
    x = view(x1, as_torch(x1.storage)).contiguous().view(torch.float8_e4m3fn).to(torch.float64)
    k1, n1 = -(-k // 32), -(-n // 16)
    codes = as_torch(case.tensor("x2").storage).reshape(-1)[: k1 * n1 * 512].to(torch.long)
    w_codes = codes.reshape(k1, n1, 16, 32).permute(0, 3, 1, 2).reshape(k1 * 32, n1 * 16)[:k, :n]
    w = _E2M1[w_codes]
    xs_arg, ws_arg = case.tensor("x1Scale"), case.tensor("x2Scale")
    xs = _scales(view(xs_arg, as_torch(xs_arg.storage)).contiguous(), blocks)
    ws_view = view(ws_arg, as_torch(ws_arg.storage))
    ws = _scales((ws_view.permute(1, 0, 2) if g["scale_swapped"] else ws_view).contiguous(), blocks)
    x = x * torch.repeat_interleave(xs, 32, dim=1)[:, :k]
    w = w * torch.repeat_interleave(ws, 32, dim=1)[:, :k].T
    total = x @ w
    bias = case.tensor("bias")
    if bias is not None:
        b = view(bias, as_torch(bias.storage)).reshape(-1)
        wide = b.to(torch.float64)
        if b.dtype == torch.float16:
            wide = (b * torch.tensor(0.015625, dtype=torch.float16)).to(torch.float64) * 64.0
        total = wide + total
    result = total.to(torch.float32).to(_OUT[int(case.desc("out").dtype)])
    return result


def run(case: Case, product: str) -> RunResult:
    storages = case.copy_storages()
    try:
        geometry = _validate(case, product)
    except _Reject as rej:
        return RunResult(rej.status, storages, None, "GetWorkspaceSize", str(rej))
    result = _compute(case, geometry)
    out = case.tensor("out")
    target = as_torch(storages["out"])
    view(out, target).copy_(result)
    return RunResult(Status.SUCCESS, storages, 0, "Execute", "")
