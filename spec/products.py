"""The product lines of the vendor documents' support tables, with stable ids."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    id: str                       # stable id used on the command line and in records
    name: str                     # as the documents' support tables name it
    arch: str                     # the vendor's NPU architecture family


PRODUCTS: tuple[Product, ...] = (
    Product("ascend950", "Ascend 950PR/Ascend 950DT", "DAV_3510 (arch35)"),
    Product("atlas-a3", "Atlas A3 training products/Atlas A3 inference products", "arch22 (A3)"),
    Product("atlas-a2", "Atlas A2 training products/Atlas A2 inference products", "arch22 (A2)"),
    Product("atlas-200i-500-a2", "Atlas 200I/500 A2 inference products", "310B"),
    Product("atlas-inference", "Atlas inference products", "310P"),
    Product("atlas-training", "Atlas training products", "910"),
)

PRODUCT_IDS: tuple[str, ...] = tuple(p.id for p in PRODUCTS)
_BY_ID = {p.id: p for p in PRODUCTS}


def product(product_id: str) -> Product:
    try:
        return _BY_ID[product_id]
    except KeyError:
        raise ValueError(f"unknown product {product_id!r}; valid: {', '.join(PRODUCT_IDS)}") from None



def parse_products(text: str) -> tuple[str, ...]:
    """'all', one id, or a comma-separated list of ids."""
    if text.strip() == "all":
        return PRODUCT_IDS
    ids = tuple(t.strip() for t in text.split(",") if t.strip())
    for pid in ids:
        product(pid)
    return ids
