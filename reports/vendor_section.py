"""The report's section on imported vendor cases: per operator, the vendor cases, the spec's
agreement with them, and every disagreement with the deciding rule, the vendor's line and its
kind (an erratum the spec records, a vendor test contradicting the vendor's code, a fault of our
spec)."""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable

from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.reports.tables import md_table
from aclnn_conformance.spec import OPS
from aclnn_conformance.vendor.agreement import classify


def build(records: Iterable[OutcomeRecord]) -> dict[str, Any] | None:
    vendor = [r for r in records if r.vendor_source]
    if not vendor:
        return None
    ops: dict[str, dict[str, Any]] = {}
    for r in vendor:
        entry = ops.setdefault(r.op, {"sources": set(), "records": 0, "agree": 0, "disagree": 0,
                                      "no_exact": 0, "outcomes": Counter(), "disagreements": []})
        entry["sources"].add(r.vendor_source)
        entry["records"] += 1
        entry["outcomes"][r.outcome] += 1
        if r.vendor_agrees is True:
            entry["agree"] += 1
        elif r.vendor_agrees is False:
            entry["disagree"] += 1
            kind, why = classify(OPS.get(r.op), r.deciding_rule, r.vendor_source)
            entry["disagreements"].append({
                "case_id": r.case_id, "product": r.product, "backend": r.backend,
                "vendor_source": r.vendor_source, "vendor_expected": r.vendor_expected,
                "spec_expected": r.expected, "deciding_rule": r.deciding_rule or "-",
                "kind": kind, "why": why})
        else:
            entry["no_exact"] += 1
    return {op: {**e, "sources": len(e["sources"]), "outcomes": dict(e["outcomes"])}
            for op, e in sorted(ops.items())}


def markdown(section: dict[str, Any] | None) -> list[str]:
    if not section:
        return []
    out = ["", "## The vendor's own cases", "",
           "Imported vendor cases (gtest unit tests, ATK, TTK) judged like every other case; "
           "agreement compares the spec's expectation with the vendor file's (no exact expectation "
           "on either side: neither agree nor disagree).", ""]
    out.append(md_table(["op", "vendor cases", "records", "spec agrees", "disagrees",
                         "no exact expectation", "outcomes"],
                        [[op, e["sources"], e["records"], e["agree"], e["disagree"], e["no_exact"],
                          ", ".join(f"{k} {v}" for k, v in sorted(e["outcomes"].items()))]
                         for op, e in section.items()]))
    for op, e in section.items():
        if not e["disagreements"]:
            continue
        out += ["", f"### Disagreements of `{op}` ({len(e['disagreements'])})", ""]
        out.append(md_table(["case", "product", "vendor line", "vendor expects", "spec expects",
                             "deciding rule", "kind", "why"],
                            [[d["case_id"], d["product"], d["vendor_source"], d["vendor_expected"],
                              d["spec_expected"], d["deciding_rule"], d["kind"], d["why"]]
                             for d in e["disagreements"]]))
    return out
