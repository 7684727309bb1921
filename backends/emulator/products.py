"""The chip generations the emulator models, per product line.

``arch22`` (Atlas A2, Atlas A3: NPU architecture DAV_2201), ``arch35`` (Ascend 950PR/950DT:
DAV_3510), ``None`` (Atlas 200I/500 A2, Atlas inference, Atlas training: none of the modelled
operators is built for them). What each operator does on each generation is the operator's own
emulator module's business (its kernels, tilings and registries, keyed by ``arch``).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ChipGeneration:
    """What the emulator models of one product line."""

    product: str
    arch: str | None                 # "arch22", "arch35", or None: no modelled operator is built for it


GENERATIONS: dict[str, ChipGeneration] = {
    "ascend950": ChipGeneration("ascend950", "arch35"),
    "atlas-a3": ChipGeneration("atlas-a3", "arch22"),
    "atlas-a2": ChipGeneration("atlas-a2", "arch22"),
    "atlas-200i-500-a2": ChipGeneration("atlas-200i-500-a2", None),
    "atlas-inference": ChipGeneration("atlas-inference", None),
    "atlas-training": ChipGeneration("atlas-training", None),
}

PRODUCTS: tuple[str, ...] = tuple(GENERATIONS)


def chip(product: str) -> ChipGeneration:
    try:
        return GENERATIONS[product]
    except KeyError:
        raise ValueError(f"the emulator does not model product {product!r}; "
                         f"valid: {', '.join(GENERATIONS)}") from None
