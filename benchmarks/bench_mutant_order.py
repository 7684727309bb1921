"""The mutation command's runs of the hand-written operators' mutants with the cases naming each
mutant's broken rules run first (``naming_first``, as ``mutate`` runs them) beside the cases in their
tier order (the baseline), both measured in the same run on the same prebuilt cases: the seconds and
the (case, product) pairs run until each mutant is named, and whether every mutant is killed and named
the same way both ways (the order may only change how soon).

    python benchmarks/bench_mutant_order.py
"""
from __future__ import annotations

import sys
import time

from aclnn_conformance.backends.mutants import MUTANTS
from aclnn_conformance.reports.mutate import run_mutant, tier_cases
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import is_data_operator


def _run_all(mutants: list[type], cases: dict, naming_first: bool) -> tuple[float, int, list[tuple]]:
    start, pairs, outcomes = time.perf_counter(), 0, []
    for cls in mutants:
        backend = cls()
        own = tuple(p for p in PRODUCT_IDS if p in backend.products())
        run = run_mutant(backend, cases[cls.op], own, cls.killed_by,
                         cases_wanted=getattr(cls, "killing_cases_wanted", 1),
                         products_wanted=min(getattr(cls, "killing_products_wanted", 1), len(own)),
                         naming_first=naming_first)
        pairs += run["runs"]
        outcomes.append((cls.name, run["killing"] > 0, run["named"]))
    return time.perf_counter() - start, pairs, outcomes


def main() -> int:
    mutants = [cls for cls in MUTANTS if not is_data_operator(cls.op)]   # the hand-written operators'
    cases = {op: tier_cases("ci", (op,)) for op in sorted({cls.op for cls in mutants})}
    base_s, base_pairs, base_out = _run_all(mutants, cases, naming_first=False)
    first_s, first_pairs, first_out = _run_all(mutants, cases, naming_first=True)
    print(f"{len(mutants)} mutants of {len(cases)} hand-written operators, ci tier, six products")
    print(f"{'order':<28}{'seconds':>10}{'pairs run':>12}")
    print(f"{'tier order (baseline)':<28}{base_s:>10.1f}{base_pairs:>12}")
    print(f"{'naming cases first':<28}{first_s:>10.1f}{first_pairs:>12}")
    print(f"ratio: {first_s / base_s:.2f}x the time, {first_pairs / base_pairs:.2f}x the pairs")
    same = base_out == first_out
    print("every mutant killed and named as in the baseline:", "yes" if same else "NO")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
