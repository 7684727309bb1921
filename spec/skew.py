"""Skew between the vendor release the extracted spec was read from and the CANN a run meets."""
from __future__ import annotations

from aclnn_conformance.spec.registry import operators


def spec_releases() -> dict[str, set[str]]:
    """CANN release -> the vendor repositories@commits of the extracted operators read from it."""
    from aclnn_conformance.spec.operator_data import data_of
    out: dict[str, set[str]] = {}
    for key, record in operators().items():
        if record.modules[0].startswith("data:"):
            vendor = data_of(key)["vendor"]
            out.setdefault(vendor.get("cann_release") or "unknown", set()).add(
                f"{vendor['repository']}@{vendor['commit'][:12]}")
    return out


def skew_line(machine_release: str | None) -> str:
    """One line when the machine's CANN is not the release the spec data was read from ("" if it is,
    or if either side is unknown)."""
    if not machine_release or machine_release == "unknown":
        return ""   # before the spec's releases: a machine without CANN reads no operator file for it
    releases = spec_releases()
    if not releases:
        return ""
    known = {r for r in releases if r != "unknown"}
    if not known or any(machine_release.startswith(r) for r in known):
        return ""
    read = "; ".join(f"CANN {r} ({', '.join(sorted(v))})" for r, v in sorted(releases.items()))
    return (f"skew: the extracted operators were read from {read}; this machine's CANN reports "
            f"{machine_release}: their contract may differ here")
