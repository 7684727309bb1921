"""Per chip generation behaviour of the emulator.

The six product lines of ``spec.products`` fall into three groups as far as these operators go:

``arch22`` (Atlas A2, Atlas A3)
    ApplyAdamWQuant runs with the arch22 tiling, which does not compare the absmax element counts
    with the number of blocks. WeightQuantPreprocess has no data flow registered for this NPU
    architecture: 361001.
``arch35`` (Ascend 950PR/950DT, DAV_3510)
    ApplyAdamWQuant runs with the arch35 tiling, which also requires
    ``numel(absmax) == ceil(numel(var) / 256)``. WeightQuantPreprocess runs its MX A8W4 data flows.
``None`` (Atlas 200I/500 A2, Atlas inference, Atlas training)
    Neither operator exists there. ApplyAdamWQuant has no kernel binary for the SoC: the runtime
    fails when it looks the operator up (561000 ACLNN_ERR_INNER, after the generated null checks).
    WeightQuantPreprocess returns 361001 (architecture not in its registry).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChipGeneration:
    """What the emulator models of one product line."""

    product: str
    arch: str | None                 # "arch22", "arch35", or None: neither operator is built for it
    aawq_kernel: bool                # ApplyAdamWQuant has a kernel binary for this SoC
    aawq_checks_absmax_count: bool   # the tiling compares the absmax counts with ceil(n/256)
    wqp_registered: bool             # WeightQuantPreprocess has a data flow for this NPU architecture


_ARCH22 = dict(arch="arch22", aawq_kernel=True, aawq_checks_absmax_count=False, wqp_registered=False)
_ARCH35 = dict(arch="arch35", aawq_kernel=True, aawq_checks_absmax_count=True, wqp_registered=True)
_NONE = dict(arch=None, aawq_kernel=False, aawq_checks_absmax_count=False, wqp_registered=False)

GENERATIONS: dict[str, ChipGeneration] = {
    "ascend950": ChipGeneration("ascend950", **_ARCH35),
    "atlas-a3": ChipGeneration("atlas-a3", **_ARCH22),
    "atlas-a2": ChipGeneration("atlas-a2", **_ARCH22),
    "atlas-200i-500-a2": ChipGeneration("atlas-200i-500-a2", **_NONE),
    "atlas-inference": ChipGeneration("atlas-inference", **_NONE),
    "atlas-training": ChipGeneration("atlas-training", **_NONE),
}

PRODUCTS: tuple[str, ...] = tuple(GENERATIONS)


def chip(product: str) -> ChipGeneration:
    try:
        return GENERATIONS[product]
    except KeyError:
        raise ValueError(f"the emulator does not model product {product!r}; "
                         f"valid: {', '.join(GENERATIONS)}") from None
