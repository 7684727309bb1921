"""The vendor unit-test harness's SoC and NPU-architecture names, and the product line of each.

The op_api unit-test harness of ops-nn and ops-math stubs the platform
(``tests/ut/op_api/stub/opdev/platform.cpp``; ops-transformer's under ``tests/ut/framework_normal/``): an enum ``SocVersion`` and an ``NpuArch``, switched
by ``SocVersionManager`` / ``NpuArchManager`` scopes or by ``SetPlatformSocVersion`` /
``SetPlatformNpuArch``. These are enum names, not the runtime's SoC names of spec/soc.py: the stub's
``ASCEND910B`` is the DAV_2201 family (Atlas A2), as its own SoC-to-architecture map says.
"""
from __future__ import annotations

from pathlib import Path

from aclnn_conformance.extract.syntax import line_of, parse_cpp, text_of, walk

# the stub's SocVersion enum -> product id (None: a line the suite does not know)
SOC_VERSION_PRODUCT: dict[str, str | None] = {
    "ASCEND910": "atlas-training", "ASCEND910B": "atlas-a2", "ASCEND910_93": "atlas-a3",
    "ASCEND950": "ascend950", "ASCEND310P": "atlas-inference", "ASCEND310B": "atlas-200i-500-a2",
    "ASCEND310": None, "ASCEND310C": None, "ASCEND610LITE": None, "ASCEND910E": None,
    "KIRINX90": None, "KIRIN9030": None,
}
# the stub's NpuArch enum -> product id; DAV_2201 is A2 and A3, and both stubs map it to ASCEND910B
NPU_ARCH_PRODUCT: dict[str, str | None] = {
    "DAV_1001": "atlas-training", "DAV_2201": "atlas-a2", "DAV_3510": "ascend950",
    "DAV_2002": "atlas-inference", "DAV_3002": "atlas-200i-500-a2", "DAV_3102": None,
}
STUB_PLATFORM = Path("tests/ut/op_api/stub/opdev/platform.cpp")
# where each repository's harness keeps it: ops-math and ops-nn, then ops-transformer
# (tests/ut/framework_normal/op_api/stub/opdev/platform.cpp:15 at c29bc106)
STUB_PLATFORMS = (STUB_PLATFORM, Path("tests/ut/framework_normal/op_api/stub/opdev/platform.cpp"))
_DEFAULT_SOC_VARIABLE = "g_socVersion"


def product_of_enum(name: str) -> tuple[bool, str | None]:
    """(known, product) for a ``SocVersion::X`` or ``NpuArch::X`` name (with or without the
    qualifier); known is false for a name neither table holds."""
    short = name.rsplit("::", 1)[-1]
    if "NpuArch" in name or short.startswith("DAV_"):
        return short in NPU_ARCH_PRODUCT, NPU_ARCH_PRODUCT.get(short)
    return short in SOC_VERSION_PRODUCT, SOC_VERSION_PRODUCT.get(short)


def harness_default(root: Path) -> tuple[str | None, str]:
    """The product the unit-test harness of the vendor checkout ``root`` runs as by default, read
    from its stub platform, and the citation (path:line) or why there is none."""
    stub = next((path for path in STUB_PLATFORMS if (root / path).is_file()), None)
    try:
        text = (root / stub).read_text(encoding="utf-8", errors="replace") if stub else None
    except OSError:
        text = None
    if text is None:
        return None, f"no unit-test harness stub platform at {root.name}/{STUB_PLATFORM} or the other places known"
    found = default_soc_version(text)
    if found is None:
        return None, f"{root.name}/{stub} sets no default SocVersion"
    name, line = found
    where = f"{root.name}/{stub}:{line}"
    return SOC_VERSION_PRODUCT.get(name), f"the harness default SocVersion::{name} ({where})"


def default_soc_version(text: str) -> tuple[str, int] | None:
    """The first ``g_socVersion = SocVersion::X`` of the stub platform's source (its declaration's
    initializer or an assignment): X and its line."""
    for node in walk(parse_cpp(text).root_node):
        if node.type == "init_declarator":
            target, value = node.child_by_field_name("declarator"), node.child_by_field_name("value")
        elif node.type == "assignment_expression":
            target, value = node.child_by_field_name("left"), node.child_by_field_name("right")
        else:
            continue
        if target is None or value is None or text_of(target) != _DEFAULT_SOC_VARIABLE:
            continue
        parts = "".join(text_of(value).split()).split("::")
        if len(parts) >= 2 and parts[-2] == "SocVersion" and parts[0] in ("op", "SocVersion"):
            return parts[-1], line_of(value)
    return None
