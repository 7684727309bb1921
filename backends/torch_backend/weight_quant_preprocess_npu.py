"""WeightQuantPreprocess on an NPU through ``torch_npu.npu_weight_quant_preprocess``.

Used only where torch_npu is installed, an NPU is visible and its SoC belongs to the product the
call asks for; everywhere else the CPU implementation runs. Validation always happens first, in
the backend's own code: only a valid call reaches the device. ``ACLNN_TORCH_NPU=0`` turns the path
off. This path has not been run on hardware by the project.

torch_npu's conventions for MX A8W4 (``npu_weight_quant_preprocess(weight, weight_scale, x_dtype,
weight_dtype, weight_scale_dtype, weight_offset=None, bias=None, x_scale_dtype=None,
k_group_size=0) -> (out_weight, out_weight_scale, out_weight_offset, out_bias)``):
  * weight: uint8, two FP4 codes a byte along K, physical {[G,] N, K/2}, passed as its transposed
    view {[G,] K/2, N}; ``weight_dtype=torch.float4_e2m1fn_x2``.
  * weight_scale: uint8 E8M0 codes, physical {[G,] N, ceil(K/64), 2}, passed as the view
    {[G,] ceil(K/64), N, 2}; ``weight_scale_dtype=torch.float8_e8m0fnu``.
  * ``x_dtype=torch.float8_e4m3fn``, ``x_scale_dtype=torch.float8_e8m0fnu``, ``k_group_size=32``.
  * out_weight: the NZ storage in bytes, {[G,] ceil(K/32), ceil(N/16), 16, 16}.
"""
from __future__ import annotations

import functools
import os

import torch

from aclnn_conformance.backends.torch_backend._fp4 import pack_k_pairs, unpack_bytes
from aclnn_conformance.spec.soc import UnknownSoc, product_of_soc


@functools.lru_cache(maxsize=1)
def device_product() -> str | None:
    """The product id of the visible NPU, or None (no torch_npu, no NPU, or the path is off)."""
    if os.environ.get("ACLNN_TORCH_NPU", "1") == "0":
        return None
    try:
        import torch_npu  # noqa: F401  (registers torch.npu)
    except ImportError:
        return None
    try:
        if not torch.npu.is_available():
            return None
        return product_of_soc(str(torch.npu.get_device_name(0)))
    except (AttributeError, RuntimeError, UnknownSoc):
        return None


def _storage_bytes(t: torch.Tensor, nbytes: int) -> torch.Tensor:
    """The first ``nbytes`` bytes of ``t``'s device storage, on the host, unconverted: a flat uint8
    alias over the storage is a plain ND tensor, so its copy to the host moves the bytes as they
    are (the NZ tensor itself would be converted back to ND on the way)."""
    raw = torch.empty(0, dtype=torch.uint8, device=t.device)
    raw.set_(t.untyped_storage(), t.storage_offset(), (nbytes,), (1,))
    host = raw.cpu()
    if host.numel() != nbytes:
        raise RuntimeError(f"read {host.numel()} bytes of the NZ storage, expected {nbytes}")
    return host


def weight_quant_preprocess(weight: torch.Tensor, scale: torch.Tensor, bias: torch.Tensor | None,
                            product: str):
    """(outWeight codes, flat element form; outWeightScale values shaped like ``scale``; outBias
    values or None) computed on the NPU, or None when the CPU implementation must run.

    ``weight``: the logical FP4 codes [G, K, N] (uint8; G = 1 for MM when ``scale`` has rank 3).
    """
    if device_product() != product or weight.shape[1] % 2:
        return None   # another product is emulated on the CPU; odd K has no packed form
    import torch_npu

    device = torch.device("npu", torch.npu.current_device())
    g, k, n = weight.shape
    gmm = scale.dim() == 4
    packed = pack_k_pairs(weight.transpose(1, 2)).contiguous().to(device)      # {G, N, K/2}
    weight_arg = packed.transpose(1, 2) if gmm else packed[0].transpose(0, 1)  # {[G,] K/2, N}
    scale_arg = scale.transpose(-3, -2).contiguous().to(device).transpose(-3, -2)
    bias_arg = None if bias is None else bias.contiguous().to(device)
    out_weight, out_scale, _, out_bias = torch_npu.npu_weight_quant_preprocess(
        weight_arg, scale_arg, torch.float8_e4m3fn, torch.float4_e2m1fn_x2, torch.float8_e8m0fnu,
        bias=bias_arg, x_scale_dtype=torch.float8_e8m0fnu, k_group_size=32)
    nbytes = g * -(-k // 32) * -(-n // 16) * 16 * 16
    codes = unpack_bytes(_storage_bytes(out_weight, nbytes))
    scale_out = out_scale.cpu()
    if scale_out.dtype != torch.uint8:
        scale_out = scale_out.view(torch.uint8)
    bias_out = None if out_bias is None or bias is None else out_bias.cpu().reshape(bias.shape)
    return codes, scale_out.reshape(scale.shape).to(scale.dtype), bias_out
