"""The product line of an Ascend SoC, from the exact name aclrtGetSocName reports.

The names are those of the runtime's platform configurations (hicann/runtime
``src/platform/platform_config/cann*/<SoC>.ini``, where ``Short_SoC_version`` names the line). A
prefix match is wrong here: the SoC named exactly ``Ascend910B`` belongs to the older training line
(its ``Short_SoC_version`` is ``Ascend910``), while Atlas A2 chips are ``Ascend910B1`` ...
``Ascend910B4``. So every line lists full-name patterns, and a name no pattern matches is an error.
"""
from __future__ import annotations

import re

# product id -> full-name patterns (re.fullmatch) of its SoCs
SOC_PATTERNS: dict[str, tuple[str, ...]] = {
    # Ascend910_95xx: the same chips under their earlier names (Short_SoC_version Ascend910_95,
    # NpuArch 3510, in older runtime revisions), which an older toolkit may still report
    "ascend950": (r"Ascend950(PR|DT)_[0-9A-Za-z]+", r"Ascend910_95[0-9A-Za-z]{2}"),
    "atlas-a3": (r"Ascend910_93[0-9]{2}",),
    "atlas-a2": (r"Ascend910B[1-4]", r"Ascend910B2C", r"Ascend910B4-1"),
    "atlas-200i-500-a2": (r"Ascend310B[1-4]",),
    "atlas-inference": (r"Ascend310P[1357]",),
    "atlas-training": (r"Ascend910A", r"Ascend910B", r"Ascend910ProA", r"Ascend910ProB",
                       r"Ascend910PremiumA"),
}
_COMPILED = tuple((pid, re.compile(p)) for pid, patterns in SOC_PATTERNS.items() for p in patterns)


class UnknownSoc(ValueError):
    """The device's SoC belongs to no product line the suite knows (the message is one line)."""


def product_of_soc(soc_name: str) -> str:
    """The product id of ``soc_name``; UnknownSoc naming it when no line's pattern matches."""
    name = soc_name.strip()
    matches = {pid for pid, regex in _COMPILED if regex.fullmatch(name)}
    if len(matches) == 1:
        return matches.pop()
    if matches:      # the table above is wrong: never guess between two lines
        raise UnknownSoc(f"SoC {name!r} matches several product lines ({', '.join(sorted(matches))})")
    raise UnknownSoc(f"SoC {name!r} belongs to no product line the suite knows "
                     f"(their SoC names are listed in spec/soc.py)")
