"""Disagreements with a vendor test that the vendor's own code explains, as data: vendor source
(path:line) -> (kind, why, with the citation of the vendor code). Empty until one is found."""
from __future__ import annotations

KNOWN_DISAGREEMENTS: dict[str, tuple[str, str]] = {}
