"""The tables every report is made of, computed from a frame of outcome records (pandas)."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from aclnn_conformance.judging.records import OUTCOMES

# Worst first: a cell that aggregates several cases shows the worst of their outcomes.
SEVERITY_ORDER = ("CRASH", "TIMEOUT", "HARNESS_ERROR", "FAIL", "BACKEND_UNAVAILABLE", "SKIPPED",
                  "QUALITY_WARNING", "WAIVED", "NOT_COVERED", "NOT_SUPPORTED", "PASS")
_RANK = {o: i for i, o in enumerate(SEVERITY_ORDER)}
assert set(SEVERITY_ORDER) == set(OUTCOMES)

GROUP = ["backend", "profile"]          # one column set of a report per (backend, profile)


def severity(outcome: str) -> int:
    """0 for the worst outcome (CRASH), larger for better ones."""
    return _RANK[outcome]


def worst(outcomes: Iterable[str]) -> str | None:
    ranked = sorted(outcomes, key=_RANK.__getitem__)
    return ranked[0] if ranked else None


def outcome_counts(outcomes: Iterable[str]) -> dict[str, int]:
    """Counts in the fixed order of OUTCOMES, outcomes that did not occur left out."""
    counts = Counter(outcomes)
    return {o: counts[o] for o in OUTCOMES if o in counts}


def counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{o} {n}" for o, n in sorted(counts.items(), key=lambda kv: _RANK[kv[0]]))


def compliance(df: pd.DataFrame) -> list[dict]:
    """Per (backend, profile, op, product): counts by outcome, and the certified share of the cases
    the operator's spec covers (SKIPPED and every other non-certifiable outcome count against it;
    NOT_COVERED cases, outside the spec's declared domain, are left out of both sides and counted
    in ``not_covered``)."""
    rows = []
    if df.empty:
        return rows
    for (backend, profile, op, product), g in df.groupby(GROUP + ["op", "product"], sort=True):
        cases = len(g)
        not_covered = int((g["outcome"] == "NOT_COVERED").sum())
        covered = cases - not_covered
        certified = int(g["certifiable"].sum()) - not_covered
        rows.append({"backend": backend, "profile": profile, "op": op, "product": product,
                     "cases": cases, "certified": certified, "not_covered": not_covered,
                     "compliance_pct": round(100.0 * certified / covered, 2) if covered else 100.0,
                     "counts": outcome_counts(g["outcome"])})
    return rows


def rule_hits(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (record, rule it exercises or that decided its status)."""
    rows = []
    for rec in df[GROUP + ["op", "product", "case_id", "outcome", "rule_ids", "deciding_rule",
                           "actual_status"]].itertuples(index=False):
        rules = list(dict.fromkeys([*rec.rule_ids, *([rec.deciding_rule] if rec.deciding_rule
                                                      else [])]))
        for rule in rules:
            rows.append((rec.backend, rec.profile, rec.op, rec.product, rule, rec.case_id,
                         rec.outcome, rec.actual_status))
    return pd.DataFrame(rows, columns=GROUP + ["op", "product", "rule", "case_id", "outcome",
                                               "actual_status"])


@dataclass(frozen=True)
class RuleInfo:
    op: str
    id: str
    kind: str
    category: str
    text: str
    source: str
    profiles: tuple[str, ...]       # profiles that hold the rule


def rule_catalog(ops: Iterable[str], seen: pd.DataFrame | None = None) -> list[RuleInfo]:
    """Every rule of the given operators in spec order, then rule ids seen in records that the
    spec does not know (so that nothing a record names disappears from a report)."""
    from aclnn_conformance.spec import OPS
    out: list[RuleInfo] = []
    known: set[tuple[str, str]] = set()
    for op in sorted(set(ops)):
        spec = OPS.get(op)
        for r in spec.rules if spec else ():
            out.append(RuleInfo(op, r.id, r.kind, r.category, r.text, r.source,
                                tuple(p for p in r.expect)))
            known.add((op, r.id))
    if seen is not None and not seen.empty:
        for op, rule in sorted(set(zip(seen["op"], seen["rule"]))):
            if (op, rule) not in known:
                out.append(RuleInfo(op, rule, "?", "?", "(not in this suite's spec)", "", ()))
                known.add((op, rule))
    return out


def rule_results(hits: pd.DataFrame) -> dict[tuple, dict]:
    """(op, rule, backend, profile, product) -> {cases, counts, worst}."""
    out: dict[tuple, dict] = {}
    if hits.empty:
        return out
    for key, g in hits.groupby(["op", "rule"] + GROUP + ["product"], sort=False):
        out[key] = {"cases": int(g["case_id"].nunique()), "counts": outcome_counts(g["outcome"]),
                    "worst": worst(g["outcome"])}
    return out


def domains(ops: Iterable[str]) -> dict[str, str]:
    """op -> the domain its spec declares, for the operators whose spec is scoped."""
    from aclnn_conformance.spec import OPS
    return {op: OPS[op].domain for op in sorted(set(ops)) if op in OPS and OPS[op].domain}


def errata(ops: Iterable[str]) -> list[dict]:
    from aclnn_conformance.spec import OPS
    rows = []
    for op in sorted(set(ops)):
        spec = OPS.get(op)
        for e in spec.errata if spec else ():
            rows.append({"op": op, "id": e.id, "doc_says": e.doc_says, "cann_does": e.cann_does,
                         "source": e.source})
    return rows


def failures(df: pd.DataFrame) -> list[dict]:
    from aclnn_conformance.spec.enums import status_name
    rows = []
    bad = df[~df["certifiable"]]
    for r in bad.itertuples(index=False):
        rows.append({"outcome": r.outcome, "op": r.op, "case_id": r.case_id, "product": r.product,
                     "backend": r.backend, "profile": r.profile, "rule_ids": list(r.rule_ids),
                     "deciding_rule": r.deciding_rule, "expected": r.expected,
                     "actual": None if pd.isna(r.actual_status) else status_name(int(r.actual_status)),
                     "detail": r.detail, "reproducer": r.reproducer, "case_file": r.case_file,
                     "nodeid": r.nodeid, "run_id": r.run_id})
    rows.sort(key=lambda f: (_RANK[f["outcome"]], f["op"], f["case_id"], f["product"]))
    return rows


def fixed_width(headers: list[str], rows: list[list]) -> str:
    """A plain text table for the terminal."""
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    numeric = [all(re.fullmatch(r"[\d.]+%?", r[i]) for r in cells[1:]) for i in range(len(headers))]
    lines = []
    for n, row in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if num else c.ljust(w)
                               for c, w, num in zip(row, widths, numeric)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def md_table(headers: list[str], rows: list[list]) -> str:
    def cell(v) -> str:
        return str(v).replace("|", "\\|").replace("\n", "<br>")
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |",
             "|" + "|".join(" --- " for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)



def write_md_json(doc: dict, out: str | Path, stem: str, render_markdown: Callable[[dict], str]) -> list[Path]:
    """``<out>/<stem>.md`` (rendered) and ``<out>/<stem>.json`` (the document itself)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    md, js = out / f"{stem}.md", out / f"{stem}.json"
    md.write_text(render_markdown(doc), encoding="utf-8")
    js.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return [md, js]
