"""The ci tier's sample of the data operators' cases: a fixed-seed selection by a stable hash of each
case's name, so that two runs of one commit collect the same cases; the full tier runs everything.
The hand-written operators are never sampled."""
from __future__ import annotations

import hashlib

from aclnn_conformance.spec.registry import is_data_operator

CI_SEED = "aclnn-conformance-ci-1"
# share of a data operator's cases the ci tier keeps, by kind of case
CI_SHARE = {"table": 0.1, "fault": 0.12, "pair": 0.06, "hypothesis": 0.02, "declared": 0.02}
ALWAYS = {"table": ("base", "values")}   # case ids the ci tier keeps for every data operator

_tier = "ci"
_ops: tuple[str, ...] = ()       # the operators --op names (empty: every operator)


def set_tier(tier: str) -> None:
    """The run's tier (the plugin sets it before the suites are collected)."""
    global _tier
    _tier = tier


def current_tier() -> str:
    return _tier


def set_selected_ops(ops: tuple[str, ...]) -> None:
    """The operators the run's --op names (the plugin sets them before the suites are collected),
    so that a run of one operator builds no other operator's cases."""
    global _ops
    _ops = tuple(ops)


def selected(op: str) -> bool:
    """Whether the run takes operator ``op`` (every operator when --op names none)."""
    return not _ops or op in _ops


def in_sample(name: str, share: float, seed: str = CI_SEED) -> bool:
    digest = hashlib.sha1(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2 ** 32 < share


def keep(op: str, kind: str, case_id: str = "", tier: str | None = None) -> bool:
    """Whether the tier runs this case (``case_id`` "" for a whole operator's test)."""
    if (tier or _tier) == "full" or not is_data_operator(op):
        return True
    if case_id in ALWAYS.get(kind, ()):
        return True
    return in_sample(f"{kind}:{op}:{case_id}", CI_SHARE[kind])
