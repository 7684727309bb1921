"""Must-pass lists of the one-fault suite for the harness's certify and verify tests: a few fault
cases of each representative operator (``tests/representative.py``), so a bundle's run keeps its size
as the operator count grows. Certification of every operator is the main job's."""
from __future__ import annotations

from pathlib import Path

from aclnn_conformance.reports.certify import MUSTPASS_FORMAT
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.faults import fault_cases
from aclnn_conformance.spec.rules import outside_domain
from aclnn_conformance.suites.sampling import fault_products
from tests.representative import REPRESENTATIVE_OPS

CERTIFIED_OPS = tuple(REPRESENTATIVE_OPS)   # what the tests' bundles certify (``certify(ops=...)``)


def fault_list(path: Path, product: str, per_op: int) -> list[str]:
    """Write and return a must-pass list: ``per_op`` fault cases of each certified operator (a run on
    one product takes every one-fault case in either tier), or the family record of an operator whose
    domain ``product`` lies outside."""
    entries = []
    for key in CERTIFIED_OPS:
        spec = OPS[key]
        if outside_domain(spec, product, "cann"):
            entries.append(f"{product} {key} not-covered:test_rules::test_one_fault")
        else:
            ran = [c for c in fault_cases(spec) if fault_products(c, (product,), "cann", "ci")]
            entries += [f"{product} {key} {c.case_id}" for c in ran[:per_op]]
    path.write_text(f"# {MUSTPASS_FORMAT}\n" + "\n".join(entries) + "\n")
    return entries
