"""aclnnWeightQuantPreprocess (MX A8W4) in torch: validation in the vendor's order, then the
FRACTAL_NZ_C0_32 layout of the FP4 weight and the copies of weightScale and bias.

Validation (first failure wins):
  1. a null workspaceSize, then a null executor: 561103.
  2. a product other than Ascend 950: 361001.
  3. weight, weightScale, outWeight, outWeightScale null (in this order): 161001.
  4. the data flow: weight FLOAT4_E2M1, weightScale FLOAT8_E8M0, xDtype FLOAT8_E4M3FN, xScaleDtype
     FLOAT8_E8M0 and a weight view of rank 2 (MM) or 3 (GMM); otherwise 161002.
  5. the data flow's checks (all 161002 except a null outBias with a bias, 161001): weight not
     empty, ND/NCL, last two dims transposed; weightScale not empty, ND/NCL/NCHW, rank 3/4 with
     last dims {ceil(K/64), N, 2}, dims 0/1 (GMM 1/2) transposed; both offsets null; bias (if any)
     not empty, ND, FLOAT16/BF16, (N)/(1,N) (GMM (G,N)), contiguous; kGroupSize 32; outWeight not
     empty, weight's dtype and view shape, storage rank + 2, FRACTAL_NZ_C0_32 with last storage dims
     {ceil(K/32), ceil(N/16), 16, 32}; outWeightScale not empty, ND/NCL/NCHW, weightScale's dtype,
     view shape and storage shape; outBias (with a bias) present, not empty, ND, contiguous, bias's
     dtype, view shape and storage shape.
  6. building the conversion: an MM weight in format NCL has no NZ conversion: 561103.

Computation: the device reads the weight as the dense {[G,] N, K} FP4 matrix behind its transposed
view, two codes a byte (the lower K index in the low nibble), and moves whole bytes into the NZ
order [G][ceil(K/32)][ceil(N/16)*16][16 bytes], zero bytes in the padding. Here the same is done with
torch: the codes read through the view, packed into bytes, padded, re-laid out by reshape/permute,
and unpacked back to one code per element (the element form of the project's storages). The scale
is copied view to view; the bias is copied into outBias.
"""
from __future__ import annotations

import torch

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.torch_backend import weight_quant_preprocess_npu as npu
from aclnn_conformance.backends.torch_backend._fp4 import pack_k_pairs, unpack_bytes
from aclnn_conformance.backends.torch_backend._tensors import as_torch, is_contiguous, view
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import PRIVATE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

PRODUCTS = frozenset({"ascend950"})
MANDATORY = ("weight", "weightScale", "outWeight", "outWeightScale")
TENSORS = ("weight", "weightScale", "weightOffsetOptional", "biasOptional", "outWeight",
           "outWeightScale", "outWeightOffsetOptional", "outBiasOptional")
WEIGHT_FORMATS = (F.ND, F.NCL)
SCALE_FORMATS = (F.ND, F.NCL, F.NCHW)
BIAS_DTYPES = (DT.FLOAT16, DT.BF16)
K_GROUP = 32
C0 = 32            # FP4 codes along K in one NZ row (16 bytes)
C0_BYTES = C0 // 2
N0 = 16            # rows of N in one fractal
SCALE_K = 64       # K per weightScale row
_PRIVATE = frozenset(int(f) for f in PRIVATE_FORMATS)


class _Reject(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)


def _ceil(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def _dtype_attr(case: Case, name: str) -> int | None:
    """An aclDataType attribute as a number (a name when the case was read from a file)."""
    value = case.attrs.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return int(DT[value]) if value in DT.__members__ else None
    return int(value)


def _invalid(message: str) -> _Reject:
    return _Reject(Status.ERR_PARAM_INVALID, message)


# ---- validation ----

def _validate(case: Case, product: str) -> None:
    if "workspaceSize" in case.null_outputs:
        raise _Reject(Status.ERR_INNER_NULLPTR, "workspaceSize is a null pointer")
    if "executor" in case.null_outputs:
        raise _Reject(Status.ERR_INNER_NULLPTR, "executor is a null pointer")
    if product not in PRODUCTS:
        raise _Reject(Status.ERR_RUNTIME_ERROR, f"no data flow is registered for {product}")
    t = case.tensors
    for name in MANDATORY:
        if t[name] is None:
            raise _Reject(Status.ERR_PARAM_NULLPTR, f"{name} is a null pointer")
    w, s = t["weight"].desc, t["weightScale"].desc
    if (w.dtype != DT.FLOAT4_E2M1 or s.dtype != DT.FLOAT8_E8M0
            or _dtype_attr(case, "xDtype") != DT.FLOAT8_E4M3FN
            or _dtype_attr(case, "xScaleDtype") != DT.FLOAT8_E8M0 or w.ndim not in (2, 3)):
        raise _invalid("dataflow is UNKNOWN: no MX A8W4 data flow matches the dtypes and weight rank")
    gmm = w.ndim == 3
    k, n = w.shape[-2], w.shape[-1]
    g = w.shape[0] if gmm else None

    # weight
    if any(d == 0 for d in w.shape):
        raise _invalid("weight is empty")
    if w.format not in WEIGHT_FORMATS:
        raise _invalid(f"weight format {w.format.name} is not ND")
    if not (w.strides[-2] == 1 and w.strides[-1] == k):
        raise _invalid("weight: the last two dimensions are not transposed")
    # weightScale
    if any(d == 0 for d in s.shape):
        raise _invalid("weightScale is empty")
    if s.format not in SCALE_FORMATS:
        raise _invalid(f"weightScale format {s.format.name} is not ND/NCL/NCHW")
    if s.ndim != (4 if gmm else 3) or tuple(s.shape[-3:]) != (_ceil(k, SCALE_K), n, 2):
        raise _invalid(f"weightScale shape {list(s.shape)}, expected "
                       f"{[g] if gmm else []}{[_ceil(k, SCALE_K), n, 2]}")
    i = 1 if gmm else 0
    if s.strides[i + 1] != s.strides[i] * s.shape[i]:
        raise _invalid("weightScale: the dimensions are not transposed")
    # offsets
    if t["weightOffsetOptional"] is not None:
        raise _invalid("weightOffsetOptional must be null for MX A8W4")
    if t["outWeightOffsetOptional"] is not None:
        raise _invalid("outWeightOffsetOptional must be null for MX A8W4")
    # bias
    bias = t["biasOptional"]
    if bias is not None:
        b = bias.desc
        if any(d == 0 for d in b.shape):
            raise _invalid("biasOptional is empty")
        if b.format != F.ND:
            raise _invalid(f"biasOptional format {b.format.name} is not ND")
        if b.dtype not in BIAS_DTYPES:
            raise _invalid(f"biasOptional dtype {b.dtype.name} is not FLOAT16/BF16")
        allowed = ((g, n),) if gmm else ((n,), (1, n))
        if tuple(b.shape) not in allowed:
            raise _invalid(f"biasOptional shape {list(b.shape)}, expected one of {allowed}")
        if not is_contiguous(bias, _PRIVATE):
            raise _invalid("biasOptional is not contiguous")
    if int(case.attrs.get("kGroupSize", 0)) != K_GROUP:
        raise _invalid(f"kGroupSize must be {K_GROUP}")
    # outWeight
    ow = t["outWeight"].desc
    if any(d == 0 for d in ow.shape):
        raise _invalid("outWeight is empty")
    if ow.dtype != w.dtype:
        raise _invalid("outWeight dtype differs from weight")
    if tuple(ow.shape) != tuple(w.shape):
        raise _invalid("outWeight view shape differs from weight")
    if len(ow.storage_shape) != w.ndim + 2:
        raise _invalid(f"outWeight storage rank {len(ow.storage_shape)}, expected {w.ndim + 2}")
    if ow.format != F.FRACTAL_NZ_C0_32:
        raise _invalid(f"outWeight format {ow.format.name} is not FRACTAL_NZ_C0_32")
    if tuple(ow.storage_shape[-4:]) != (_ceil(k, C0), _ceil(n, N0), N0, C0):
        raise _invalid(f"outWeight storage {list(ow.storage_shape)}, expected last dims "
                       f"{[_ceil(k, C0), _ceil(n, N0), N0, C0]}")
    # outWeightScale
    os_ = t["outWeightScale"].desc
    if any(d == 0 for d in os_.shape):
        raise _invalid("outWeightScale is empty")
    if os_.format not in SCALE_FORMATS:
        raise _invalid(f"outWeightScale format {os_.format.name} is not ND/NCL/NCHW")
    if os_.dtype != s.dtype:
        raise _invalid("outWeightScale dtype differs from weightScale")
    if tuple(os_.shape) != tuple(s.shape):
        raise _invalid("outWeightScale view shape differs from weightScale")
    if tuple(os_.storage_shape) != tuple(s.storage_shape):
        raise _invalid("outWeightScale storage shape differs from weightScale")
    # outBias (only when a bias is given)
    if bias is not None:
        out_bias = t["outBiasOptional"]
        if out_bias is None:
            raise _Reject(Status.ERR_PARAM_NULLPTR, "biasOptional is given but outBiasOptional is null")
        ob = out_bias.desc
        if any(d == 0 for d in ob.shape):
            raise _invalid("outBiasOptional is empty")
        if ob.format != F.ND:
            raise _invalid(f"outBiasOptional format {ob.format.name} is not ND")
        if not is_contiguous(out_bias, _PRIVATE):
            raise _invalid("outBiasOptional is not contiguous")
        if ob.dtype != bias.desc.dtype:
            raise _invalid("outBiasOptional dtype differs from biasOptional")
        if tuple(ob.shape) != tuple(bias.desc.shape):
            raise _invalid("outBiasOptional view shape differs from biasOptional")
        if tuple(ob.storage_shape) != tuple(bias.desc.storage_shape):
            raise _invalid("outBiasOptional storage shape differs from biasOptional")
    # building the conversion
    if not gmm and w.format == F.NCL:
        raise _Reject(Status.ERR_INNER_NULLPTR,
                      "TransData failed: a 2-D weight in format NCL has no FRACTAL_NZ_C0_32 conversion")


# ---- the NZ layout ----

def nz_bytes(weight: torch.Tensor) -> torch.Tensor:
    """The device bytes of the FRACTAL_NZ_C0_32 storage of a logical FP4 weight [G, K, N] (uint8
    codes): shape [G, ceil(K/32), ceil(N/16)*16, 16].

    The {G, N, K} storage rows are packed along K, padded with zero bytes to whole 16-byte rows and
    16-row fractals, and each row's 16-byte pieces are moved in front of N.
    """
    g, k, n = weight.shape
    rows = pack_k_pairs(weight.transpose(1, 2))                   # [G, N, ceil(K/2)] bytes
    c1, n_pad = _ceil(rows.shape[-1], C0_BYTES), _ceil(n, N0) * N0
    rows = torch.nn.functional.pad(rows, (0, c1 * C0_BYTES - rows.shape[-1], 0, n_pad - n))
    return rows.reshape(g, n_pad, c1, C0_BYTES).permute(0, 2, 1, 3).contiguous()


def nz_codes(weight: torch.Tensor) -> torch.Tensor:
    """Element-form FRACTAL_NZ_C0_32 storage (one code per element, flat) of a weight [G, K, N]."""
    return unpack_bytes(nz_bytes(weight)).reshape(-1)


# ---- the call ----

def _write_nz(case: Case, storage: torch.Tensor, codes: torch.Tensor) -> None:
    """The NZ storage goes to the tensor's address: element ``offset`` of its storage array on."""
    start = int(case.tensors["outWeight"].desc.offset)
    count = max(0, min(codes.numel(), storage.numel() - start))
    storage[start:start + count] = codes[:count]


def run(case: Case, product: str) -> RunResult:
    storages = case.copy_storages()
    try:
        _validate(case, product)
    except _Reject as rej:
        return RunResult(rej.status, storages, message=str(rej))
    flat = {name: as_torch(arr) for name, arr in storages.items()}
    t = case.tensors
    weight = view(t["weight"], flat["weight"])
    weight = weight if weight.dim() == 3 else weight.unsqueeze(0)
    scale = view(t["weightScale"], flat["weightScale"])
    has_bias = t["biasOptional"] is not None
    bias = view(t["biasOptional"], flat["biasOptional"]) if has_bias else None

    device_result = npu.weight_quant_preprocess(weight, scale, bias, product)
    if device_result is not None:
        out_w_codes, out_scale, out_bias = device_result
        message = "ran through torch_npu.npu_weight_quant_preprocess"
    else:
        out_w_codes, out_scale, out_bias = nz_codes(weight), scale.clone(), \
            (bias.clone() if has_bias else None)
        message = ""
    _write_nz(case, flat["outWeight"], out_w_codes)
    view(t["outWeightScale"], flat["outWeightScale"]).copy_(out_scale)
    if has_bias:
        view(t["outBiasOptional"], flat["outBiasOptional"]).copy_(out_bias.reshape(bias.shape))
    return RunResult(Status.SUCCESS, storages, workspace_size=0, message=message)


__all__ = ["run", "nz_bytes", "nz_codes", "pack_k_pairs", "unpack_bytes"]
