"""FP4 codes two per byte, as device memory holds them: the lower index in the low nibble."""
from __future__ import annotations

import torch


def pack_k_pairs(rows: torch.Tensor) -> torch.Tensor:
    """FP4 codes [..., K] (uint8) -> bytes [..., ceil(K/2)]: code 2i in the low nibble, 2i+1 in the
    high one (an odd K gets a zero high nibble in its last byte)."""
    codes = rows & 0x0F
    if codes.shape[-1] % 2:
        codes = torch.nn.functional.pad(codes, (0, 1))
    return codes[..., 0::2] | (codes[..., 1::2] << 4)


def unpack_bytes(packed: torch.Tensor) -> torch.Tensor:
    """Bytes [..., B] (uint8) -> FP4 codes [..., 2B]: the low nibble first."""
    return torch.stack([packed & 0x0F, packed >> 4], dim=-1).flatten(-2)
