"""Per-product compliance reports from any set of records: report.md, .csv, .json and .html.

The report names its runs (suite commit, backend, profile, options, environment, complete or not),
then per operator and product the counts by outcome and the certified share; per rule its text, its
cases and their outcomes on every product; the doc errata; and every failure with its reproducer.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

from aclnn_conformance.reports.declared import support_rows, summary_rows, write_declared
from aclnn_conformance.reports.html_page import render_html
from aclnn_conformance.reports.load import RunSet, load
from aclnn_conformance.judging.records import OUTCOMES
from aclnn_conformance.reports.tables import (JUDGED_HEADERS, MIN_EXERCISED, compliance,
                                              compliance_text, counts_text, domains, errata,
                                              failures, fixed_width, incomplete_columns,
                                              judged_cell, md_table, outcome_columns,
                                              product_verdicts, rule_catalog, rule_hits,
                                              rule_results, value_rules_text, verdict_text)
from aclnn_conformance.reports.run import now
from aclnn_conformance.reports import surface_section, values_section, vendor_section
from aclnn_conformance.spec.products import PRODUCT_IDS

REPORT_SCHEMA = "aclnn-conformance/report/1"
MD_FAILURE_LIMIT = 200


def skipped_tests(runset: RunSet) -> dict[str, int]:
    """reason -> how many tests pytest skipped without a record (their run records keep them)."""
    out: dict[str, int] = {}
    for run in runset.runs.values():
        for entry in run.skipped:
            reason = entry.split(": ", 1)[-1]
            out[reason] = out.get(reason, 0) + 1
    return out


def skipped_lines(doc: dict) -> list[str]:
    return [f"{n} test(s) skipped by pytest, what they check not recorded: {reason}"
            for reason, n in sorted(doc.get("skipped_tests", {}).items())]


def build(runset: RunSet, min_exercised: float = MIN_EXERCISED) -> dict:
    """The whole report as one JSON-able document (the other formats render it)."""
    df = runset.frame()
    hits = rule_hits(df)
    results = rule_results(hits)
    columns = sorted({(r.backend, r.profile) for r in runset.records})
    ops = sorted(set(df["op"]))
    products_seen = set(df["product"])
    products = [p for p in PRODUCT_IDS if p in products_seen] + sorted(products_seen - set(PRODUCT_IDS))
    rules = []
    for info in rule_catalog(ops, hits):
        per = []
        for backend, profile in columns:
            for product in products:
                res = results.get((info.op, info.id, backend, profile, product))
                per.append({"backend": backend, "profile": profile, "product": product,
                            "in_profile": not info.profiles or profile in info.profiles,
                            "cases": res["cases"] if res else 0,
                            "counts": res["counts"] if res else {},
                            "worst": res["worst"] if res else None})
        rules.append({"op": info.op, "id": info.id, "kind": info.kind, "category": info.category,
                      "text": info.text, "source": info.source, "profiles": list(info.profiles),
                      "results": per})
    declared = support_rows(df)
    return {
        "schema": REPORT_SCHEMA, "generated": now(), "sources": runset.sources,
        "runs": [run.to_json() for run in runset.runs.values()],
        "columns": [{"backend": b, "profile": p} for b, p in columns],
        "products": products, "ops": ops, "records": len(df), "repeats": runset.repeats,
        "compliance": (rows := compliance(df)),
        "verdicts": product_verdicts(rows, min_exercised, incomplete_columns(runset)),
        "rules": rules, "errata": errata(ops), "skipped_tests": skipped_tests(runset),
        "domains": domains(ops), "surface": surface_section.build(ops),
        "failures": failures(df), "declared_support": declared,
        "declared_support_summary": summary_rows(declared),
        "vendor": vendor_section.build(runset.records),
        "values": values_section.build(runset.records),
        "special_values": values_section.special_values(runset.records),
    }


# ---- renderers ----

def _cell_text(res: dict) -> str:
    if not res["in_profile"]:
        return "not in profile"
    if not res["cases"]:
        return "not exercised"
    counts = res["counts"]
    if len(counts) == 1:
        return f"{res['worst']} ({res['cases']})"
    return counts_text(counts)


def _run_lines(doc: dict) -> list[str]:
    lines = []
    if not doc["runs"]:
        lines.append("No run record (run.json) came with these records.")
    for run in doc["runs"]:
        state = "complete" if run["complete"] else (
            f"**INCOMPLETE** ({run['stop_reason'] or 'never finished'})")
        dirty = " (uncommitted changes)" if run.get("suite_dirty") else ""
        env = ", ".join(f"{k} {v}" for k, v in run["versions"].items())
        cann = ", ".join(f"{k} {run[k]}" for k in ("cann_version", "soc_name") if run.get(k))
        lines += [f"- run `{run['run_id']}`: backend **{run['backend']}** v{run['backend_version']}, "
                  f"profile **{run['profile']}**, tier {run['tier']}, products "
                  f"{', '.join(run['products'])}; {state}",
                  f"  - suite {run['suite_version']} at `{run['suite_commit']}`{dirty}; "
                  f"{run['started']} to {run['finished'] or '?'}; hypothesis "
                  f"{json.dumps(run['hypothesis'], sort_keys=True)}",
                  f"  - {env}" + (f"; {cann}" if cann else ""),
                  f"  - command: `{' '.join(run['command'])}`"]
    return lines


def _failures_markdown(doc: dict) -> list[str]:
    """Every case not certifiable with its reproducer (the first MD_FAILURE_LIMIT)."""
    fails = doc["failures"]
    out = ["", f"## Not certifiable ({len(fails)})", ""]
    if not fails:
        out.append("None.")
    shrunk = [f for f in fails if f.get("failing_examples")]
    if shrunk:
        out += [f"{len(shrunk)} failing hypothesis case(s), each recorded once by the minimal "
                f"example hypothesis shrank it to; {sum(f['failing_examples'] for f in shrunk)} "
                f"distinct failing examples were tried while shrinking (per case below).", ""]
    for f in fails[:MD_FAILURE_LIMIT]:
        out += [f"- **{f['outcome']}** `{f['op']}` `{f['case_id']}` on `{f['product']}` "
                f"(backend {f['backend']}, profile {f['profile']}); rules "
                f"{', '.join(f['rule_ids']) or '-'}"
                + (f"; decided by {f['deciding_rule']}" if f["deciding_rule"] else ""),
                *([f"  - call: `{f['call']}`"] if f.get("call") else []),
                *[f"  - {text}" for text in f.get("rule_texts", [])],
                f"  - expected {f['expected'] or '-'}; actual {f['actual'] or 'no status'}",
                *([f"  - the minimal example of {f['failing_examples']} distinct failing "
                   f"example(s) hypothesis tried; the first found: `{f['first_failing_example']}`"]
                  if f.get("failing_examples") else []),
                f"  - {(f['detail'] or '').strip()[:800]}",
                "  ```", "  " + (f["reproducer"] or "(no reproducer)").replace("\n", "\n  "), "  ```"]
    if len(fails) > MD_FAILURE_LIMIT:
        out.append(f"- ... {len(fails) - MD_FAILURE_LIMIT} more in report.json")
    return out


def render_markdown(doc: dict) -> str:
    """Verdicts first, then the failing cases with their reproducers, then the rest."""
    out = ["# aclnn conformance report"]
    if doc.get("verdicts"):
        out += ["", "## Verdict per product", ""] + [f"- {verdict_text(v)}"
                                                     for v in doc["verdicts"]]
    if doc.get("skipped_tests"):
        out += [""] + [f"- {line}" for line in skipped_lines(doc)]
    out += _failures_markdown(doc)
    out += ["", "## About these records", "",
            f"{doc['records']} records from {', '.join(doc['sources']) or '-'}; generated "
            f"{doc['generated']}. Compliance = certified cases (PASS, QUALITY_WARNING, WAIVED) / "
            f"judged cases (value-judged, status-only, relations, and the cases that crashed, timed "
            f"out, errored or were skipped). NOT_SUPPORTED, NOT_JUDGED (a call outside the "
            f"profile's contract) and NOT_COVERED (outside an operator's declared domain) are "
            f"counted apart, never as compliance; a product that only "
            f"refuses an operator says so. Value rules exercised = the operator's value rules that "
            f"a value-judged case or a relation covers.", ""]
    out += ["## Runs", ""] + _run_lines(doc)
    if doc["repeats"]:
        out += ["", f"{doc['repeats']} record(s) repeated a case already recorded in the same run "
                    f"(the same case run twice); each case counts once, with its worst outcome."]
    if doc.get("domains"):
        out += ["", "## Scope", ""]
        out += [f"- `{op}` covers only its declared domain: {text}. Calls outside it are NOT_COVERED "
                f"(no verdict)." for op, text in doc["domains"].items()]
    out += surface_section.markdown(doc.get("surface"))
    out += ["", "## Compliance per operator and product", ""]
    present = outcome_columns(doc["compliance"])
    out.append(md_table(["op", "product", "compliance of judged", "value rules exercised",
                         "cases", *(h for _, h in JUDGED_HEADERS), *present, "backend",
                         "profile"],
                        [[c["op"], c["product"], compliance_text(c), value_rules_text(c),
                          c["cases"], *[judged_cell(c, k) for k, _ in JUDGED_HEADERS],
                          *[c["counts"].get(o, 0) for o in present], c["backend"], c["profile"]]
                         for c in doc["compliance"]]) if doc["compliance"] else "No records.")
    for op in doc["ops"]:
        for col in doc["columns"]:
            out += ["", f"## Rules of `{op}`: backend {col['backend']}, profile {col['profile']}", ""]
            rows = []
            for rule in (r for r in doc["rules"] if r["op"] == op):
                cells = [res for res in rule["results"] if res["backend"] == col["backend"]
                         and res["profile"] == col["profile"]]
                rows.append([rule["id"], rule["kind"], rule["text"],
                             *[_cell_text(res) for res in cells]])
            out.append(md_table(["rule", "kind", "text", *doc["products"]], rows))
    if doc["errata"]:
        out += ["", "## Doc errata", "",
                "Where the document and the vendor's behaviour part: profile `doc` follows the "
                "document, profile `cann` what the vendor's code does.", ""]
        out.append(md_table(["op", "erratum", "the document says", "cann does", "source"],
                            [[e["op"], e["id"], e["doc_says"], e["cann_does"], e["source"]]
                             for e in doc["errata"]]))
    if doc["declared_support_summary"]:
        out += ["", "## Declared against actual support", ""]
        keys = ["works but not declared", "declared but refused",
                "consistent: declared and works", "consistent: not declared, refused"]
        out.append(md_table(["backend", "op", "product", *keys],
                            [[s["backend"], s["op"], s["product"], *[s[k] for k in keys]]
                             for s in doc["declared_support_summary"]]))
        out.append("\nDetails in `declared_support.md` and `declared_support.csv`.")
    out += values_section.markdown(doc.get("values") or [])
    out += values_section.special_markdown(doc.get("special_values") or [])
    out += vendor_section.markdown(doc.get("vendor"))
    out += _detection_markdown(doc)
    return "\n".join(out) + "\n"


def write_csv(doc: dict, out_dir: Path) -> list[Path]:
    """report.csv: one row per (backend, profile, op, product); rules.csv: one row per rule and
    product."""
    path = out_dir / "report.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["backend", "profile", "op", "product", "cases", "judged", "certified",
                    "compliance_pct", "label", *(k for k, _ in JUDGED_HEADERS), "unanswered",
                    "not_run",
                    "value_rules_exercised", "value_rules", *OUTCOMES])
        for c in doc["compliance"]:
            w.writerow([c["backend"], c["profile"], c["op"], c["product"], c["cases"],
                        c["judged"], c["certified"],
                        "" if c["compliance_pct"] is None else c["compliance_pct"], c["label"],
                        *(c[k] for k, _ in JUDGED_HEADERS), c["unanswered"], c["not_run"],
                        c["value_rules_exercised"], c["value_rules"],
                        *[c["counts"].get(o, 0) for o in OUTCOMES]])
    rules_path = out_dir / "rules.csv"
    with open(rules_path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["op", "rule", "kind", "category", "backend", "profile", "product", "in_profile",
                    "cases", "worst", *OUTCOMES, "text"])
        for r in doc["rules"]:
            for res in r["results"]:
                w.writerow([r["op"], r["id"], r["kind"], r["category"], res["backend"],
                            res["profile"], res["product"], res["in_profile"], res["cases"],
                            res["worst"] or "", *[res["counts"].get(o, 0) for o in OUTCOMES],
                            r["text"]])
    return [path, rules_path]


def detection_power(out_dir: Path, run_ids) -> dict:
    """mutation.json and sensitivity.json of a report directory, when present
    (``python -m reports mutate`` / ``sensitivity`` with --out at the directory) and written for
    one of ``run_ids``: a table of another run never joins this run's report."""
    found = {}
    for key in ("mutation", "sensitivity"):
        path = Path(out_dir) / f"{key}.json"
        if path.exists():
            doc = json.loads(path.read_text(encoding="utf-8"))
            if doc.get("run_id") in set(run_ids):
                found[key] = doc
    return found


def _detection_markdown(doc: dict) -> list[str]:
    out = []
    if doc.get("sensitivity"):
        from aclnn_conformance.reports.sensitivity import render_markdown as sensitivity_md
        from aclnn_conformance.spec.precision import STANDARDS
        out += ["", "## Precision standards", ""]
        out.append(md_table(["standard", "version", "kind", "limits", "description"],
                            [[s.name, s.version, s.kind, "; ".join(
                                f"{dt}: " + ", ".join(f"{k} {v:g}" for k, v in lim.items())
                                for dt, lim in s.limits.items()) or "-", s.description]
                             for s in STANDARDS.values()]))
        out += ["", sensitivity_md(doc["sensitivity"], heading="###").rstrip()]
    if doc.get("mutation"):
        from aclnn_conformance.reports.mutate import render_markdown as mutation_md
        out += ["", mutation_md(doc["mutation"], heading="##").rstrip()]
    return out


def write_reports(runset: RunSet, out_dir: str | Path,
                  min_exercised: float = MIN_EXERCISED) -> tuple[dict, list[Path]]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    doc = build(runset, min_exercised)
    doc.update(detection_power(out, runset.runs))
    paths = [out / "report.md", out / "report.json", out / "report.html"]
    paths[0].write_text(render_markdown(doc), encoding="utf-8")
    paths[1].write_text(json.dumps(doc, indent=1, default=str) + "\n", encoding="utf-8")
    paths[2].write_text(render_html(doc), encoding="utf-8")
    paths += write_csv(doc, out)
    paths += write_declared(out, doc["declared_support"])
    return doc, paths


def terminal_summary(doc: dict, paths: list[Path] = ()) -> str:
    """The short table printed at the end of a run."""
    if not doc["compliance"]:
        return "no records"
    present = outcome_columns(doc["compliance"])
    several = len(doc["columns"]) > 1
    rows = [[*([f"{c['backend']}/{c['profile']}"] if several else []), c["op"], c["product"],
             c["cases"], c["value_judged"], c["relations"], c["status_only"],
             *[judged_cell(c, k) for k in ("not_supported", "not_judged", "not_covered")],
             *[c["counts"].get(o, 0) for o in present], compliance_text(c, 1),
             value_rules_text(c)]
            for c in doc["compliance"]]
    text = fixed_width([*(["backend/profile"] if several else []), "op", "product", "cases",
                        "value-judged", "relations", "status-only", "not supported",
                        "not judged", "not covered", *present, "compliance", "value rules"], rows)
    notes = [verdict_text(v) for v in doc.get("verdicts", [])]
    for run in doc["runs"]:
        if not run["complete"]:
            notes.append(f"run {run['run_id']} is INCOMPLETE: "
                         f"{run['stop_reason'] or 'it has not finished'}")
    if doc["repeats"]:
        notes.append(f"{doc['repeats']} record(s) repeated a case already recorded in the same "
                     f"run (the same call recorded twice): each such case counts once, with its "
                     f"worst outcome")
    notes += skipped_lines(doc)
    if doc["failures"]:
        notes.append(f"{len(doc['failures'])} case(s) not certifiable; reproducers in report.md")
    if paths:
        notes.append("reports: " + ", ".join(str(p) for p in paths))
    return text + ("\n" + "\n".join(notes) if notes else "")


def refresh_report(out: str | Path) -> list[Path]:
    """Rewrite the reports of a run directory (so that they include mutation.json and
    sensitivity.json); nothing when ``out`` holds no records."""
    out = Path(out)
    if not ((out / "records.jsonl").exists() or (out / "records").is_dir()):
        return []
    _, paths = write_reports(load([str(out)]), out)
    return paths
