"""Backends and chip generations side by side: rules (rows) against (backend, product) columns.

Rows whose cells differ come first, each difference explained by the rule's text and, where the
cases of a column were decided by another rule (an unsupported product, an earlier check), by that
rule's text too; then the cases behind the difference.
"""
from __future__ import annotations

import pandas as pd

from aclnn_conformance.reports.load import RunSet
from aclnn_conformance.judging.records import CERTIFIABLE
from aclnn_conformance.reports.progress import progress
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
    if hits.empty:
        return {"columns": [], "rows": [], "texts": {}}
    catalog = rule_catalog(set(df["op"]), hits)
    texts = {(r.op, r.id): r.text for r in catalog}
    # one pass over the records and one over the hits, not a filter of the frame per rule and
    # column (which made a run folder of 33,000 records take half an hour)
    decided: dict[tuple, list] = {}   # a record's key -> (deciding rule, actual status)
    for key, d, s in zip(zip(df["op"], df["backend"], df["profile"], df["product"], df["case_id"]),
                         df["deciding_rule"], df["actual_status"]):
        decided.setdefault(key, []).append((d, s))
    cells_of: dict[tuple, dict[tuple, list]] = {}   # (op, rule) -> column -> [(case_id, outcome)]
    for op, rule, b, pr, p, case_id, outcome in zip(
            hits["op"], hits["rule"], hits["backend"], hits["profile"], hits["product"],
            hits["case_id"], hits["outcome"]):
        cells_of.setdefault((op, rule), {}).setdefault((b, pr, p), []).append((case_id, outcome))
    rows = []
    for info in progress(catalog, "compare", "rules"):
        by_col = cells_of.get((info.op, info.id))
        if by_col is None:
            continue
        cells, detail = [], []
        for col in cols:
            sub = by_col.get(col)
            if not sub:
                cells.append("not exercised")
                detail.append(None)
                continue
            outcomes = [o for _, o in sub]
            w = worst(outcomes)
            cases = {c for c, _ in sub}
            cells.append(f"{w} ({len(cases)})")
            recs = [r for c in cases for r in decided[(info.op, *col, c)]]
            deciders = sorted({d for d, _ in recs if isinstance(d, str)} - {info.id})
            statuses = sorted({status_name(int(s)) for _, s in recs if pd.notna(s)})
            detail.append({"worst": w, "counts": outcome_counts(outcomes),
                           "statuses": statuses, "deciders": deciders})
        kinds = {c.split(" (")[0] for c in cells}
        differs = len(kinds) > 1
        certifiability = {(d["worst"] in CERTIFIABLE) if d else None for d in detail}
        rows.append({"op": info.op, "rule": info.id, "text": info.text, "cells": cells,
                     "detail": detail, "differs": differs,
                     "conformance_differs": len(certifiability - {None}) > 1})
    rows.sort(key=lambda r: (not r["conformance_differs"], not r["differs"]))
    # the cases behind each difference: same case, different outcomes across columns (the first
    # outcome of a case in a column stands for it)
    for row in rows:
        if not row["differs"]:
            continue
        table: dict[str, dict[tuple, str]] = {}
        for col, sub in cells_of[(row["op"], row["rule"])].items():
            for case_id, outcome in sub:
                table.setdefault(case_id, {}).setdefault(col, outcome)
        row["cases"] = [(case_id, [table[case_id].get(c, "-") for c in cols])
                        for case_id in sorted(table) if len(set(table[case_id].values())) > 1]
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
