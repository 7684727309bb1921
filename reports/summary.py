"""Merging record shards and writing the per-product summary (report.md)."""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from reports.records import CERTIFIABLE, OUTCOMES, read_records, write_records


def load_frame(paths) -> pd.DataFrame:
    rows = [r.to_json() for p in paths for r in read_records(p)]
    return pd.DataFrame(rows, columns=None if rows else ["case_id", "op", "product", "outcome"])


def outcome_table(df: pd.DataFrame) -> pd.DataFrame:
    """Counts by outcome per (op, product), with the certified share (SKIPPED counts against it)."""
    if df.empty:
        return pd.DataFrame()
    table = df.pivot_table(index=["op", "product"], columns="outcome", values="case_id",
                           aggfunc="count", fill_value=0)
    table = table.reindex(columns=[o for o in OUTCOMES if o in table.columns])
    total = table.sum(axis=1)
    certified = table[[c for c in table.columns if c in CERTIFIABLE]].sum(axis=1)
    table["cases"] = total
    table["compliance_%"] = (100.0 * certified / total).round(2)
    return table


def finish_report_dir(report_dir: Path) -> str:
    """Merge records/*.jsonl into records.jsonl, write report.md; return the terminal table."""
    shards = sorted((report_dir / "records").glob("*.jsonl"))
    records = [r for p in shards for r in read_records(p)]
    write_records(report_dir / "records.jsonl", records)
    df = pd.DataFrame([r.to_json() for r in records])
    table = outcome_table(df)
    text = table.to_string() if not table.empty else "no records"
    lines = ["# Compliance summary", "",
             f"records: {len(records)} in `records.jsonl`", ""]
    if not table.empty:
        lines += [table.reset_index().to_markdown(index=False)
                  if _has_tabulate() else "```\n" + text + "\n```"]
        failing = df[~df["outcome"].isin(CERTIFIABLE)]
        if len(failing):
            lines += ["", "## Not certifiable", ""]
            for _, r in failing.head(200).iterrows():
                lines += [f"- **{r.outcome}** `{r.op}` `{r.case_id}` on `{r.product}`: {r.detail}",
                          "  ```", "  " + str(r.reproducer).replace("\n", "\n  "), "  ```"]
    (report_dir / "report.md").write_text("\n".join(lines) + "\n")
    return text


def _has_tabulate() -> bool:
    try:
        import tabulate  # noqa: F401
        return True
    except ImportError:
        return False
