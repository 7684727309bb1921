"""The ci tier's sample of the data operators' cases: a fixed-seed selection by a stable hash of each
case's name, so that two runs of one commit collect the same cases; the full tier runs everything.
The hand-written operators are never sampled.

One-fault cases are not sampled but spread: each runs on one of the run's products (chosen by its
hash among those where its rule is checked), so that the ci tier breaks every rule that has a fault
case at the cost of one product, however many products the run takes."""
from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING

from aclnn_conformance.spec.registry import is_data_operator

if TYPE_CHECKING:
    from aclnn_conformance.spec.case import Case

CI_SEED = "aclnn-conformance-ci-1"
# share of a data operator's cases the ci tier keeps, by kind of case
CI_SHARE = {"table": 0.1, "pair": 0.06, "hypothesis": 0.02, "declared": 0.02}
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


def _stable_index(name: str, count: int, seed: str = CI_SEED) -> int:
    digest = hashlib.sha1(f"{seed}:{name}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % count


def fault_products(case: Case, products: tuple[str, ...], profile: str,
                   tier: str | None = None) -> tuple[str, ...]:
    """The products, among the run's ``products``, on which the tier runs one-fault ``case``.

    The full tier and the hand-written operators: every product. The ci tier, for a data operator:
    one product, chosen by the case's hash among the products where the case's rule is checked
    (else among those inside the operator's domain); and every product outside the domain, where
    the operator's fault cases become one NOT_COVERED record."""
    from aclnn_conformance.spec import OPS
    from aclnn_conformance.spec.rules import outside_domain
    if (tier or _tier) == "full" or not is_data_operator(case.op):
        return tuple(products)
    spec = OPS[case.op]
    inside = [p for p in products if outside_domain(spec, p, profile) is None]
    outside = [p for p in products if p not in inside]
    checked = [p for p in inside
               if any(spec.rule(r).expect_for(profile, p).kind != "unchecked" for r in case.rule_ids)]
    among = checked or inside
    chosen = [among[_stable_index(f"fault:{case.op}:{case.case_id}", len(among))]] if among else []
    return tuple(p for p in products if p in chosen or p in outside)

