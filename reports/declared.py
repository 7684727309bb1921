"""Declared against actual support: the probes' case ids, and the four-way table of their records.

``suites/test_declared_support.py`` retypes one tensor of a valid call (or one group of tensors that
the parameter table declares alike) to every aclDataType, and one tensor to each of a set of formats,
and judges every call with the suite's own expectation. This module turns those records into the
table: per (operator, parameter, dtype or format, product) whether the spec's parameter table
declares it, whether the backend accepted it (status 0), and which of the four cells it falls in.

A product that does not support the operator declares nothing: every probe there is expected to be
refused.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from aclnn_conformance.reports.tables import md_table, outcome_counts, worst
from aclnn_conformance.spec.probe_ids import ORIGIN, parse_probe_id


WORKS_UNDECLARED = "works but not declared"
DECLARED_REFUSED = "declared but refused"
CONSISTENT_OK = "consistent: declared and works"
CONSISTENT_REFUSED = "consistent: not declared, refused"
CATEGORIES = (WORKS_UNDECLARED, DECLARED_REFUSED, CONSISTENT_OK, CONSISTENT_REFUSED)




def is_declared(op: str, param: str, axis: str, value: str, product: str, profile: str) -> bool:
    from aclnn_conformance.spec import OPS
    spec = OPS[op]
    if product not in spec.supported.get(profile, ()):
        return False
    row = next((p for p in spec.params if p.name == param), None)
    if row is None:
        return False
    names = [v.name for v in (row.dtypes if axis == "dtype" else row.formats)]
    return value in names


def support_rows(df: pd.DataFrame) -> list[dict]:
    """One row per (backend, profile, op, product, param, axis, value)."""
    from aclnn_conformance.spec.enums import status_name
    probes = df[df["origin"] == ORIGIN]
    if probes.empty:
        return []
    per_cell: dict[tuple, list] = {}
    for r in probes.itertuples(index=False):
        params, axis, value = parse_probe_id(r.case_id)
        for param in params:
            key = (r.backend, r.profile, r.op, r.product, param, axis, value)
            per_cell.setdefault(key, []).append((len(params) > 1, r))
    rows = []
    for key, probes_ in sorted(per_cell.items()):
        backend, profile, op, product, param, axis, value = key
        alone = [r for grouped, r in probes_ if not grouped]
        group = [r for grouped, r in probes_ if grouped]
        works = any(r.actual_status == 0 for _, r in probes_)
        declared = is_declared(op, param, axis, value, product, profile)
        category = (CONSISTENT_OK if works else DECLARED_REFUSED) if declared else \
            (WORKS_UNDECLARED if works else CONSISTENT_REFUSED)

        def status(rs) -> str:
            if not rs:
                return ""
            s = rs[0].actual_status
            return "no status" if s is None or pd.isna(s) else status_name(int(s))

        rows.append({
            "backend": backend, "profile": profile, "op": op, "product": product, "param": param,
            "axis": axis, "value": value, "declared": declared, "works": works,
            "category": category, "status": status(alone),
            "status_with_group": status(group),
            "group": "+".join(parse_probe_id(group[0].case_id)[0]) if group else "",
            "refused_by": next((r.deciding_rule for _, r in probes_ if r.deciding_rule), "") or "",
            "outcome": worst(r.outcome for _, r in probes_),
        })
    return rows


def summary_rows(rows: list[dict]) -> list[dict]:
    """Per (backend, profile, op, product): how many probes fall in each of the four cells."""
    out: dict[tuple, dict] = {}
    for r in rows:
        key = (r["backend"], r["profile"], r["op"], r["product"])
        cell = out.setdefault(key, {c: 0 for c in CATEGORIES})
        cell[r["category"]] += 1
    return [{"backend": k[0], "profile": k[1], "op": k[2], "product": k[3], **v}
            for k, v in sorted(out.items())]


def write_declared(out_dir: Path, rows: list[dict]) -> list[Path]:
    """declared_support.csv (every probe cell) and declared_support.md (the summary and the
    mismatches)."""
    if not rows:
        return []
    out_dir = Path(out_dir)
    csv_path = out_dir / "declared_support.csv"
    with open(csv_path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    md = ["# Declared against actual support", "",
          "Each tensor parameter is retyped to every aclDataType and to each probed format, "
          "alone and, for dtypes, together with the parameters its row declares alike. "
          "*Declared*: the spec's parameter table lists it (and the product supports the "
          "operator). *Works*: the backend returned status 0 for the call alone or with its group. "
          "The outcome column is the suite's own judgement of the calls (a mismatch with the "
          "document is not a failure when the spec expects it).", ""]
    summary = summary_rows(rows)
    md.append(md_table(["backend", "profile", "op", "product", *CATEGORIES],
                       [[s["backend"], s["profile"], s["op"], s["product"],
                         *[s[c] for c in CATEGORIES]] for s in summary]))
    for title, category in (("Works but not declared", WORKS_UNDECLARED),
                            ("Declared but refused", DECLARED_REFUSED)):
        hits = [r for r in rows if r["category"] == category]
        md += ["", f"## {title} ({len(hits)})", ""]
        if not hits:
            md.append("None.")
            continue
        md.append(md_table(
            ["backend", "op", "product", "param", "probe", "status alone", "status with group",
             "refused by", "outcome"],
            [[r["backend"], r["op"], r["product"], r["param"], f"{r['axis']}={r['value']}",
              r["status"], r["status_with_group"] and f"{r['status_with_group']} ({r['group']})",
              r["refused_by"], r["outcome"]] for r in hits]))
    counts = outcome_counts(r["outcome"] for r in rows)
    md += ["", f"Worst outcome per probe cell: {', '.join(f'{k} {v}' for k, v in counts.items())}.",
           "Every probe cell is in `declared_support.csv`."]
    md_path = out_dir / "declared_support.md"
    md_path.write_text("\n".join(md) + "\n", encoding="utf-8")
    return [md_path, csv_path]
