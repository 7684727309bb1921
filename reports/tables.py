"""The tables every report is made of, computed from a frame of outcome records (pandas)."""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

import pandas as pd

from aclnn_conformance.judging.records import CERTIFIABLE, OUTCOMES, wanting
from aclnn_conformance.spec.outcome import Outcome

# Worst first: a cell that aggregates several cases shows the worst of their outcomes.
SEVERITY_ORDER = (Outcome.CRASH, Outcome.TIMEOUT, Outcome.HARNESS_ERROR, Outcome.FAIL,
                  Outcome.BACKEND_UNAVAILABLE, Outcome.SKIPPED, Outcome.QUALITY_WARNING,
                  Outcome.WAIVED, Outcome.NOT_JUDGED, Outcome.NOT_COVERED, Outcome.NOT_SUPPORTED,
                  Outcome.PASS)
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


# What decided a case, for the compliance table (records older than ``judged_by`` are read from
# their other fields).
JUDGED_COLUMNS = ("values", "status", "relation", "not_supported", "not_judged", "not_covered",
                  "unanswered", "not_run")
UNANSWERED = (Outcome.CRASH, Outcome.TIMEOUT, Outcome.HARNESS_ERROR)


def judged_kind(rec) -> str:
    """One of JUDGED_COLUMNS for a record (a frame row or an OutcomeRecord)."""
    if rec.outcome in (Outcome.SKIPPED, Outcome.BACKEND_UNAVAILABLE):
        return "not_run"
    if rec.outcome == Outcome.NOT_COVERED:  # outside a scoped spec's domain, whatever the backend did
        return "not_covered"
    if rec.outcome in UNANSWERED and not rec.judged_by:  # the backend gave no answer to judge
        return "unanswered"
    if rec.judged_by:
        return rec.judged_by
    if rec.outcome == Outcome.NOT_SUPPORTED:
        return "not_supported"
    if rec.outcome == Outcome.NOT_JUDGED:
        return "not_judged"
    return "values" if rec.values_judged else "status"


def value_rules(op: str, profile: str) -> list[str]:
    """The value rules of ``op`` that ``profile`` holds."""
    from aclnn_conformance.spec import OPS
    spec = OPS.get(op)
    return [r.id for r in (spec.rules if spec else ()) if r.kind == "value"
            and (not r.expect or profile in r.expect)]


# What a rule expects on a product when it is judged there: an exact status, any error, or values.
_JUDGING_EXPECTATIONS = ("status", "any_error", "judged")
_applicable: dict[tuple[str, str, str], tuple[str, ...]] = {}


def applicable_rules(op: str, profile: str, product: str) -> tuple[str, ...]:
    """The rules of ``op`` that a run can judge on ``product`` under ``profile``: those the profile
    holds with a judging expectation there; only the product rules where the product refuses the
    operator, none outside a scoped spec's domain (NOT_COVERED is no verdict)."""
    key = (op, profile, product)
    if key not in _applicable:
        from aclnn_conformance.spec import OPS
        from aclnn_conformance.spec.rules import outside_domain
        spec = OPS.get(op)
        if spec is None or outside_domain(spec, product, profile):
            _applicable[key] = ()
        else:
            supported = product in spec.supported.get(profile, ())
            # a value rule's expectation is for the calls outside its domain (not judged): inside
            # it, every value-judged case exercises the rule on a product that supports the operator
            _applicable[key] = tuple(
                r.id for r in spec.rules if r.in_profile(profile)
                and (r.expect_for(profile, product).kind in _JUDGING_EXPECTATIONS
                     or (r.kind == "value" and supported))
                and (supported or r.category == "product"))
    return _applicable[key]


def skipped_for_want(g: pd.DataFrame) -> pd.Series:
    """The records SKIPPED only for want of an optional package (torch) or of memory past the
    run's budget: named, not failed."""
    return pd.Series([bool(wanting(o, tuple(n))) for o, n in zip(g["outcome"], g["needs"])],
                     index=g.index, dtype=bool)


def wanted(g: pd.DataFrame) -> list[str]:
    """What the records of ``g`` were skipped for want of, each once."""
    return sorted({w for o, n in zip(g["outcome"], g["needs"]) for w in wanting(o, tuple(n))})


def compliance(df: pd.DataFrame) -> list[dict]:
    """Per (backend, profile, op, product): what was judged and how.

    ``judged`` counts the cases whose outputs or status were judged (single calls judged on their
    values, on their status only, and relations between calls), plus the cases the backend gave no
    answer to (CRASH, TIMEOUT, HARNESS_ERROR) and the skipped ones. NOT_SUPPORTED, NOT_JUDGED and
    NOT_COVERED (outside a scoped spec's declared domain) are counted apart and are not compliance:
    ``compliance_pct`` is the certified share of the judged cases, None when nothing was judged
    (``label`` then says why: the product only refuses the operator, every call lies outside the
    spec's domain, or nothing ran). ``value_rules`` is the share of the operator's value rules that
    at least one value-judged case or relation exercised."""
    rows = []
    if df.empty:
        return rows
    kinds = df.apply(judged_kind, axis=1)
    for (backend, profile, op, product), g in df.groupby(GROUP + ["op", "product"], sort=True):
        kind = kinds[g.index]
        by_kind = {k: int((kind == k).sum()) for k in JUDGED_COLUMNS}
        judged = g[~kind.isin(["not_supported", "not_judged", "not_covered"])]
        certified = int(judged["outcome"].isin([Outcome.PASS, Outcome.QUALITY_WARNING, Outcome.WAIVED]).sum())
        pct = round(100.0 * certified / len(judged), 2) if len(judged) else None
        label = ""
        if pct is None:
            label = ("refuses the operator (NOT_SUPPORTED only)" if by_kind["not_supported"]
                     else "outside the declared domain (NOT_COVERED only)" if by_kind["not_covered"]
                     else "nothing judged")
        applicable = applicable_rules(op, profile, product)
        values = set(value_rules(op, profile))
        rules = [r for r in applicable if r in values]
        valued = g[kind.isin(["values", "relation"])]
        seen = {r for ids in valued["rule_ids"] for r in ids}
        exercised = [r for r in rules if r in seen]
        # a rule is exercised by a judged case that names it or whose status it decides
        judging = g[kind.isin(["values", "relation", "status", "not_supported"])]
        touched = seen | {r for ids in judging["rule_ids"] for r in ids} \
            | {r for r in judging["deciding_rule"] if r}
        rows.append({"backend": backend, "profile": profile, "op": op, "product": product,
                     "cases": len(g), "judged": len(judged), "certified": certified,
                     "compliance_pct": pct, "label": label,
                     "value_judged": by_kind["values"], "status_only": by_kind["status"],
                     "relations": by_kind["relation"], "not_supported": by_kind["not_supported"],
                     "not_judged": by_kind["not_judged"], "not_covered": by_kind["not_covered"],
                     "not_covered_calls": int(g.loc[kind == "not_covered", "stands_for"]
                                              .astype(int).sum()),
                     "not_run": by_kind["not_run"],
                     "unanswered": by_kind["unanswered"],
                     "value_rules_exercised": len(exercised), "value_rules": len(rules),
                     "rules_exercised": sum(1 for r in applicable if r in touched),
                     "rules": len(applicable), "needs_skipped": int(skipped_for_want(g).sum()), "wanted": wanted(g),
                     "counts": outcome_counts(g["outcome"])})
    return rows


# The compliance table's columns of what was judged: (key of a compliance row, heading).
JUDGED_HEADERS = (("value_judged", "value-judged"), ("status_only", "status-only"),
                  ("relations", "relations"), ("not_supported", "not supported"),
                  ("not_judged", "not judged"), ("not_covered", "not covered"))


# Outcome columns that repeat a column of what was judged (the same records, counted alike).
JUDGED_OUTCOMES = (Outcome.NOT_SUPPORTED, Outcome.NOT_JUDGED, Outcome.NOT_COVERED)


def outcome_columns(rows: list[dict]) -> list[str]:
    """The outcomes a compliance table shows beside its judged columns: those present, without
    the ones a judged column already counts."""
    return [o for o in OUTCOMES if o not in JUDGED_OUTCOMES and any(o in c["counts"] for c in rows)]


def judged_cell(row: dict, key: str) -> str:
    """A judged column's cell; NOT_COVERED says how many calls its records stand for."""
    if key == "not_covered" and row.get("not_covered_calls", row[key]) != row[key]:
        return f"{row[key]} ({row['not_covered_calls']} calls)"
    return str(row[key])


def compliance_text(row: dict, digits: int = 2) -> str:
    """The compliance cell: the percentage of judged cases, or why there is none. A row whose
    value rules none of its cases exercised gets counts, never a percentage."""
    if row.get("compliance_pct") is None:
        return row.get("label") or "nothing judged"
    if row.get("value_rules") and not row.get("value_rules_exercised"):
        return f"{row['certified']}/{row['judged']} certified, no value rule exercised"
    return f"{row['compliance_pct']:.{digits}f}%"


# The share of a product's applicable rules a run must exercise for a full verdict (--min-exercised).
MIN_EXERCISED = 0.8


NO_VERDICT = "NO VERDICT (the run did not finish)"


def incomplete_columns(runset) -> set[tuple[str, str]]:
    """The (backend, profile) columns with a run that did not finish (interrupted, killed)."""
    return {(run.backend, run.profile) for run in runset.runs.values() if not run.complete}


def product_verdicts(rows: list[dict], min_exercised: float = MIN_EXERCISED,
                     incomplete: set[tuple[str, str]] = frozenset()) -> list[dict]:
    """Per (backend, profile, product): conformant or not, the cases that are not certifiable,
    and what the verdict rests on: the applicable rules and value rules the run exercised. A
    conformant verdict that exercised less than ``min_exercised`` of either is partial; a column
    whose run did not finish (``incomplete``) gets no verdict."""
    out: dict[tuple[str, str, str], dict] = {}
    for c in rows:
        v = out.setdefault((c["backend"], c["profile"], c["product"]), {
            "backend": c["backend"], "profile": c["profile"], "product": c["product"],
            "not_certifiable": 0, "judged": 0, "value_rules_exercised": 0, "value_rules": 0,
            "rules_exercised": 0, "rules": 0, "needs_skipped": 0, "wanted": [], "ops": 0})
        skipped = c.get("needs_skipped", 0)
        v["not_certifiable"] += sum(n for o, n in c["counts"].items() if o not in CERTIFIABLE) \
            - skipped
        v["needs_skipped"] += skipped
        v["wanted"] = sorted(set(v["wanted"]) | set(c.get("wanted", ())))
        for key in ("judged", "value_rules_exercised", "value_rules", "rules_exercised", "rules"):
            v[key] += c.get(key, 0)
        v["ops"] += 1
    for v in out.values():
        v["partial"] = bool(v["judged"] and not v["not_certifiable"] and (
            v["rules_exercised"] < min_exercised * v["rules"]
            or v["value_rules_exercised"] < min_exercised * v["value_rules"]))
        v["verdict"] = (NO_VERDICT if (v["backend"], v["profile"]) in incomplete else
                        "NOT CONFORMANT" if v["not_certifiable"] else
                        "NOTHING JUDGED" if not v["judged"] else
                        f"CONFORMANT (partial: {v['rules_exercised']} of {v['rules']} rules "
                        f"exercised)" if v["partial"] else "CONFORMANT")
    return [out[k] for k in sorted(out)]


def _share(done: int, total: int) -> str:
    return f"{done} of {total}" + (f" ({100.0 * done / total:.0f}%)" if total else "")


def verdict_text(v: dict) -> str:
    """One product's verdict line: the verdict, then what it rests on."""
    wanting = (f", {v['needs_skipped']} case(s) skipped for want of "
               f"{' or '.join(v.get('wanted') or ['an optional package'])}"
               if v.get("needs_skipped") else "")
    return (f"{v['product']} ({v['backend']}, {v['profile']}): {v['verdict']}: "
            f"{v['not_certifiable']} case(s) not certifiable{wanting}; "
            f"{_share(v.get('rules_exercised', 0), v.get('rules', 0))} applicable rules and "
            f"{_share(v['value_rules_exercised'], v['value_rules'])} value rules exercised "
            f"over {v['ops']} operator(s)")


def value_rules_text(row: dict) -> str:
    total = row.get("value_rules", 0)
    if not total:
        return "-"
    return f"{row['value_rules_exercised']}/{total} ({100.0 * row['value_rules_exercised'] / total:.0f}%)"


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


def rule_sentences(op: str, deciding_rule: str | None, rule_ids, limit: int = 4) -> list[str]:
    """"ID: the document's sentence" for the rule that decided a case, else for the rules it
    exercises (the first ``limit``)."""
    from aclnn_conformance.spec import OPS
    spec = OPS.get(op)
    if spec is None:
        return []
    texts = {r.id: r.text for r in spec.rules}
    ids = [deciding_rule] if deciding_rule in texts else [i for i in rule_ids if i in texts]
    return [f"{i}: {texts[i]}" for i in ids[:limit]]


def failures(df: pd.DataFrame) -> list[dict]:
    from aclnn_conformance.spec.enums import status_name
    rows = []
    bad = df[~df["certifiable"] & ~skipped_for_want(df)]
    for r in bad.itertuples(index=False):
        rows.append({"outcome": r.outcome, "op": r.op, "case_id": r.case_id, "product": r.product,
                     "backend": r.backend, "profile": r.profile, "rule_ids": list(r.rule_ids),
                     "deciding_rule": r.deciding_rule, "expected": r.expected,
                     "actual": None if pd.isna(r.actual_status) else status_name(int(r.actual_status)),
                     "detail": r.detail, "reproducer": r.reproducer, "case_file": r.case_file,
                     "nodeid": r.nodeid, "run_id": r.run_id,
                     "failing_examples": int(r.failing_examples or 0),
                     "first_failing_example": r.first_failing_example or "",
                     "call": r.call or "", "rule_texts": rule_sentences(r.op, r.deciding_rule,
                                                                        r.rule_ids)})
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



def write_md_json(doc: dict, out: str | Path, stem: str,
                  render_markdown: Callable[[dict], str]) -> list[Path]:
    """``<out>/<stem>.md`` (rendered) and ``<out>/<stem>.json`` (the document itself).

    The document carries the run id of the run folder it is written into (``run_id``, null outside
    one): a run's report joins only the tables of its own run."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    doc["run_id"] = folder_run_id(out)
    md, js = out / f"{stem}.md", out / f"{stem}.json"
    md.write_text(render_markdown(doc), encoding="utf-8")
    js.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return [md, js]


def folder_run_id(folder: str | Path) -> str | None:
    """The run id of the run.json in ``folder`` (None without a readable one)."""
    from aclnn_conformance.judging.records import read_run
    path = Path(folder) / "run.json"
    try:
        return read_run(path).run_id if path.exists() else None
    except (OSError, ValueError):
        return None
