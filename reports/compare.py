"""Backends and chip generations side by side: rules (rows) against (backend, product) columns.

Rows whose cells differ come first, each difference explained by the rule's text and, where the
cases of a column were decided by another rule (an unsupported product, an earlier check), by that
rule's text too; then the cases behind the difference.
"""
from __future__ import annotations

import pandas as pd

from aclnn_conformance.reports.load import RunSet
from aclnn_conformance.judging.records import CERTIFIABLE
from aclnn_conformance.reports.tables import (counts_text, md_table, outcome_counts, rule_catalog, rule_hits, worst)

CASES_PER_DIFFERENCE = 8


def _columns(df: pd.DataFrame) -> list[tuple[str, str, str]]:
    from aclnn_conformance.spec.products import PRODUCT_IDS
    order = {p: i for i, p in enumerate(PRODUCT_IDS)}
    cols = {(b, pr, p) for b, pr, p in zip(df["backend"], df["profile"], df["product"])}
    return sorted(cols, key=lambda c: (c[0], c[1], order.get(c[2], 99), c[2]))


def _label(col: tuple[str, str, str], profiles: int) -> str:
    backend, profile, product = col
    return f"{backend}/{profile}/{product}" if profiles > 1 else f"{backend}/{product}"


def compare(runset: RunSet) -> dict:
    from aclnn_conformance.spec.enums import status_name
    df = runset.frame()
    hits = rule_hits(df)
    cols = _columns(df)
    profiles = len({c[1] for c in cols})
    texts = {(r.op, r.id): r.text for r in rule_catalog(set(df["op"]), hits)}
    rows = []
    if hits.empty:
        return {"columns": [], "rows": [], "texts": {}}
    grouped = {k: g for k, g in hits.groupby(["op", "rule"], sort=False)}
    for info in rule_catalog(set(df["op"]), hits):
        g = grouped.get((info.op, info.id))
        if g is None:
            continue
        cells, detail = [], []
        for col in cols:
            sub = g[(g["backend"] == col[0]) & (g["profile"] == col[1]) & (g["product"] == col[2])]
            if sub.empty:
                cells.append("not exercised")
                detail.append(None)
                continue
            w = worst(sub["outcome"])
            cells.append(f"{w} ({sub['case_id'].nunique()})")
            recs = df[(df["op"] == info.op) & (df["backend"] == col[0]) & (df["profile"] == col[1])
                      & (df["product"] == col[2]) & df["case_id"].isin(set(sub["case_id"]))]
            deciders = sorted({d for d in recs["deciding_rule"] if isinstance(d, str)} - {info.id})
            statuses = sorted({status_name(int(s)) for s in recs["actual_status"] if pd.notna(s)})
            detail.append({"worst": w, "counts": outcome_counts(sub["outcome"]),
                           "statuses": statuses, "deciders": deciders})
        kinds = {c.split(" (")[0] for c in cells}
        differs = len(kinds) > 1
        certifiability = {(d["worst"] in CERTIFIABLE) if d else None for d in detail}
        rows.append({"op": info.op, "rule": info.id, "text": info.text, "cells": cells,
                     "detail": detail, "differs": differs,
                     "conformance_differs": len(certifiability - {None}) > 1})
    rows.sort(key=lambda r: (not r["conformance_differs"], not r["differs"]))
    # the cases behind each difference: same case, different outcomes across columns
    for row in rows:
        if not row["differs"]:
            continue
        sub = hits[(hits["op"] == row["op"]) & (hits["rule"] == row["rule"])]
        table = sub.pivot_table(index="case_id", columns=["backend", "profile", "product"],
                                values="outcome", aggfunc="first")
        examples = []
        for case_id, series in table.iterrows():
            values = {c: series.get(c) for c in cols}
            if len({v for v in values.values() if isinstance(v, str)}) > 1:
                examples.append((case_id, [values[c] if isinstance(values[c], str) else "-"
                                           for c in cols]))
        row["cases"] = examples
    return {"columns": [_label(c, profiles) for c in cols], "rows": rows, "texts": texts}


def render(result: dict) -> str:
    cols = result["columns"]
    rows = result["rows"]
    differ = [r for r in rows if r["differs"]]
    out = ["# Comparison: rules against (backend, product)", "",
           f"{len(rows)} rules exercised, {len(differ)} differ across {len(cols)} columns "
           f"({sum(r['conformance_differs'] for r in rows)} of them certifiable in one column and "
           f"not in another). Differing rows first; each cell is the worst outcome of the rule's "
           f"cases (how many).", ""]
    out.append(md_table(["", "rule", *cols],
                        [["≠" if r["differs"] else "", r["rule"], *r["cells"]] for r in rows]))
    if differ:
        out += ["", "## Differences", ""]
    for r in differ:
        out += [f"### {r['rule']} ({r['op']})", "", f"> {r['text']}", ""]
        for col, det in zip(cols, r["detail"]):
            if det is None:
                out.append(f"- **{col}**: not exercised")
                continue
            because = "".join(
                f"; decided by {d}: {result['texts'].get((r['op'], d), '')}"
                for d in det["deciders"])
            out.append(f"- **{col}**: {counts_text(det['counts'])}; statuses "
                       f"{', '.join(det['statuses']) or '-'}{because}")
        cases = r.get("cases", [])
        if cases:
            out += ["", md_table(["case", *cols], [[c, *vals] for c, vals in
                                                    cases[:CASES_PER_DIFFERENCE]])]
            if len(cases) > CASES_PER_DIFFERENCE:
                out.append(f"\n... and {len(cases) - CASES_PER_DIFFERENCE} more cases")
        out.append("")
    return "\n".join(out) + "\n"
