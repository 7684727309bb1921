"""The declared-support probes' case ids: one tensor (or a group declared alike) retyped or reformatted."""
from __future__ import annotations

ORIGIN = "declared-support"
PREFIX = "declared:"


def probe_case_id(params: tuple[str, ...], axis: str, value: str) -> str:
    """``declared:varRef:dtype=FLOAT16`` (one tensor), ``declared:varRef+grad:dtype=FLOAT16``
    (a group retyped together)."""
    if axis not in ("dtype", "format"):
        raise ValueError(f"axis must be dtype or format, not {axis!r}")
    return f"{PREFIX}{'+'.join(params)}:{axis}={value}"


def parse_probe_id(case_id: str) -> tuple[tuple[str, ...], str, str]:
    """(params, axis, value) of a probe case id."""
    if not case_id.startswith(PREFIX):
        raise ValueError(f"{case_id!r} is not a declared-support probe")
    target, _, setting = case_id[len(PREFIX):].rpartition(":")
    axis, _, value = setting.partition("=")
    return tuple(target.split("+")), axis, value
