"""report.html: one self-contained page (inline CSS, no script, nothing fetched) with a colour matrix
of rules (rows) against products (columns) for every operator, backend and profile."""
from __future__ import annotations

from html import escape

from aclnn_conformance.reports.tables import (JUDGED_HEADERS, compliance_text, counts_text,
                                              judged_cell, outcome_columns, value_rules_text,
                                              verdict_text)
from aclnn_conformance.spec.products import PRODUCT_IDS, PRODUCTS
from aclnn_conformance.reports import surface_section, values_section

COLOURS = {
    "PASS": ("#1e7b3a", "#fff"), "NOT_SUPPORTED": ("#6f8fb0", "#fff"),
    "NOT_JUDGED": ("#b8c4d0", "#000"),
    "NOT_COVERED": ("#b8c4cf", "#000"),
    "QUALITY_WARNING": ("#e0b000", "#000"), "WAIVED": ("#8e63c7", "#fff"),
    "FAIL": ("#d0312d", "#fff"), "HARNESS_ERROR": ("#7a0e0e", "#fff"),
    "CRASH": ("#4a0000", "#fff"), "TIMEOUT": ("#a0522d", "#fff"),
    "SKIPPED": ("#c8c8c8", "#000"), "BACKEND_UNAVAILABLE": ("#9a9a9a", "#000"),
}
NAMES = {p.id: p.name for p in PRODUCTS}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
th,td{border:1px solid #bbb;padding:3px 6px;vertical-align:top}
th{background:#f2f2f2;text-align:left} thead th{position:sticky;top:0;z-index:1}
table.compliance th{white-space:normal;max-width:7em}
table.compliance td.key{font-weight:600;white-space:nowrap}
p.verdict{margin:.2em 0;padding:.3em .6em;border-left:6px solid #888}
p.verdict.CONFORMANT{border-color:#1e7b3a} p.verdict.NOT-CONFORMANT{border-color:#d0312d;background:#fdecea}
td.num{text-align:right} td.text{max-width:36em}
td.cell{text-align:center;white-space:nowrap;min-width:7em}
td.none{background:#fff;color:#888;font-style:italic}
td.out{background:repeating-linear-gradient(45deg,#eee,#eee 4px,#fafafa 4px,#fafafa 8px);color:#777}
td.norun{background:#f7f7f7;color:#aaa}
.legend span{display:inline-block;padding:2px 6px;margin:2px;border-radius:3px}
.warn{background:#fff3cd;border:1px solid #e0b000;padding:.5em}
pre{background:#f6f6f6;padding:.4em;white-space:pre-wrap;margin:.3em 0}
details{margin:.3em 0} summary{cursor:pointer}
""" + "".join(f"td.o-{o},span.o-{o}{{background:{bg};color:{fg}}}\n"
               for o, (bg, fg) in COLOURS.items())


def _e(value) -> str:
    return escape("" if value is None else str(value))


def _table(headers: list[str], rows: list[list[str]], raw: bool = False) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else _e(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _matrix(doc: dict, op: str, backend: str, profile: str) -> str:
    products = list(PRODUCT_IDS) + [p for p in doc["products"] if p not in PRODUCT_IDS]
    head = "<th>rule</th><th>kind</th><th>text</th>" + "".join(
        f'<th data-product="{_e(p)}" title="{_e(NAMES.get(p, p))}">{_e(p)}</th>' for p in products)
    rows = []
    for rule in (r for r in doc["rules"] if r["op"] == op):
        by_product = {res["product"]: res for res in rule["results"]
                      if res["backend"] == backend and res["profile"] == profile}
        cells = []
        for p in products:
            res = by_product.get(p)
            if res is None:
                cells.append(f'<td class="cell norun" data-product="{_e(p)}">not run</td>')
            elif not res["in_profile"]:
                cells.append(f'<td class="cell out" data-product="{_e(p)}">not in profile</td>')
            elif not res["cases"]:
                cells.append(f'<td class="cell none" data-product="{_e(p)}">not exercised</td>')
            else:
                tip = counts_text(res["counts"])
                cells.append(f'<td class="cell o-{res["worst"]}" data-product="{_e(p)}" '
                             f'data-outcome="{res["worst"]}" title="{_e(tip)}">{res["worst"]}'
                             f'<br><small>{res["cases"]} case{"s" if res["cases"] != 1 else ""}'
                             f'</small></td>')
        rows.append(f'<tr data-rule="{_e(rule["id"])}"><th>{_e(rule["id"])}</th>'
                    f'<td>{_e(rule["kind"])}</td><td class="text" title="{_e(rule["source"])}">'
                    f'{_e(rule["text"])}</td>{"".join(cells)}</tr>')
    return (f'<table class="matrix" data-op="{_e(op)}" data-backend="{_e(backend)}" '
            f'data-profile="{_e(profile)}"><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table>')


def _detection_power(doc: dict) -> list[str]:
    """The standards with their measured sensitivity, and the mutation table, when the report
    directory holds sensitivity.json / mutation.json."""
    parts = []
    if doc.get("sensitivity"):
        from aclnn_conformance.reports.sensitivity import render_html as sensitivity_html
        from aclnn_conformance.spec.precision import STANDARDS
        parts.append("<h2>Precision standards</h2>")
        parts.append(_table(["standard", "version", "kind", "limits", "description"],
                            [[s.name, s.version, s.kind, "; ".join(
                                f"{dt}: " + ", ".join(f"{k} {v:g}" for k, v in lim.items())
                                for dt, lim in s.limits.items()) or "-", s.description]
                             for s in STANDARDS.values()]))
        parts.append(sensitivity_html(doc["sensitivity"]))
    if doc.get("mutation"):
        from aclnn_conformance.reports.mutate import render_html as mutation_html
        parts.append(mutation_html(doc["mutation"]))
    return parts


def render_html(doc: dict) -> str:
    parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
             "<title>aclnn conformance report</title>", f"<style>{CSS}</style></head><body>",
             "<h1>aclnn conformance report</h1>",
             '<section id="verdicts">' + "".join(
                 f'<p class="verdict {v["verdict"].split(" (")[0].replace(" ", "-")}'
                 f'{" partial" if v.get("partial") else ""}" '
                 f'data-product="{_e(v["product"])}" data-verdict="{_e(v["verdict"])}">'
                 f'{_e(verdict_text(v))}</p>' for v in doc.get("verdicts", [])) + "</section>",
             f"<p>{doc['records']} records from {_e(', '.join(doc['sources']) or '-')}; generated "
             f"{_e(doc['generated'])}. Compliance = certified cases (PASS, QUALITY_WARNING, WAIVED) "
             f"/ judged cases (value-judged, status-only, relations, and the cases that crashed, "
             f"timed out, errored or were skipped). NOT_SUPPORTED, NOT_JUDGED and NOT_COVERED "
             f"(outside an operator's declared domain) are counted apart, never as compliance.</p>"]
    for op, text in doc.get("domains", {}).items():
        parts.append(f"<p>Scope: <code>{_e(op)}</code> covers only its declared domain: "
                     f"{_e(text)}. Calls outside it are NOT_COVERED (no verdict).</p>")
    parts += surface_section.html(doc.get("surface"))
    parts.append("<h2>Runs</h2>")
    for run in doc["runs"]:
        if not run["complete"]:
            parts.append(f'<p class="warn">Run {_e(run["run_id"])} is incomplete: '
                         f'{_e(run["stop_reason"] or "it never finished")}.</p>')
    if doc["runs"]:
        keys = ["run_id", "backend", "backend_version", "profile", "tier", "products",
                "suite_version", "suite_commit", "suite_dirty", "started", "finished", "complete",
                "cann_version", "soc_name", "hypothesis", "versions", "command"]
        rows = [[k, *[", ".join(r[k]) if k in ("products",) else " ".join(r[k]) if k == "command"
                      else r.get(k) for r in doc["runs"]]] for k in keys]
        parts.append(_table(["field", *[r["run_id"] for r in doc["runs"]]], rows))
    else:
        parts.append("<p>No run record (run.json) came with these records.</p>")

    for reason, n in sorted(doc.get("skipped_tests", {}).items()):
        parts.append(f'<p class="warn">{n} test(s) skipped by pytest, what they check not '
                     f'recorded: {_e(reason)}</p>')
    parts.append("<h2>Compliance per operator and product</h2>")
    present = outcome_columns(doc["compliance"])
    rows = []
    for c in doc["compliance"]:
        counts = "".join(f'<td class="num">{c["counts"].get(o, 0)}</td>' for o in present)
        rows.append(f'<tr data-op="{_e(c["op"])}" data-product="{_e(c["product"])}">'
                    f'<td>{_e(c["op"])}</td><td>{_e(c["product"])}</td>'
                    f'<td class="num key" data-key="compliance">{_e(compliance_text(c))}</td>'
                    f'<td class="num key" data-key="value-rules">{_e(value_rules_text(c))}</td>'
                    f'<td class="num">{c["cases"]}</td>'
                    + "".join(f'<td class="num">{_e(judged_cell(c, k))}</td>'
                              for k, _ in JUDGED_HEADERS)
                    + f'{counts}<td>{_e(c["backend"])}</td><td>{_e(c["profile"])}</td></tr>')
    head = "".join(f"<th>{h}</th>" for h in ["op", "product", "compliance of judged",
                                               "value rules exercised", "cases",
                                               *(h for _, h in JUDGED_HEADERS), *present,
                                               "backend", "profile"])
    parts.append(f'<table class="compliance"><thead><tr>{head}</tr></thead>'
                 f'<tbody>{"".join(rows)}</tbody></table>')

    parts.append('<h2>Rules against products</h2><p class="legend">' + "".join(
        f'<span class="o-{o}">{o}</span>' for o in COLOURS) +
        ' <span style="border:1px dashed #aaa">not exercised</span>'
        ' <span style="background:#eee">not in profile</span>'
        ' <span style="background:#f7f7f7;color:#aaa">not run</span>'
        '<br>Each cell shows the worst outcome of the cases that exercise the rule or whose status '
        'it decides; hover for the counts.</p>')
    for op in doc["ops"]:
        for col in doc["columns"]:
            parts.append(f"<h3>{_e(op)}: backend {_e(col['backend'])}, profile "
                         f"{_e(col['profile'])}</h3>")
            parts.append(_matrix(doc, op, col["backend"], col["profile"]))

    if doc["errata"]:
        parts.append("<h2>Doc errata</h2><p>Profile <code>doc</code> follows the document, profile "
                     "<code>cann</code> what the vendor's code does.</p>")
        parts.append(_table(["op", "erratum", "the document says", "cann does", "source"],
                            [[e["op"], e["id"], e["doc_says"], e["cann_does"], e["source"]]
                             for e in doc["errata"]]))

    fails = doc["failures"]
    parts.append(f"<h2>Not certifiable ({len(fails)})</h2>")
    if not fails:
        parts.append("<p>None.</p>")
    for f in fails:
        parts.append(
            f'<details class="failure"><summary><span class="o-{f["outcome"]}">{f["outcome"]}'
            f'</span> {_e(f["op"])} <code>{_e(f["case_id"])}</code> on {_e(f["product"])} '
            f'({_e(f["backend"])}, {_e(f["profile"])})</summary>'
            f'<p>rules {_e(", ".join(f["rule_ids"]) or "-")}'
            f'{"; decided by " + _e(f["deciding_rule"]) if f["deciding_rule"] else ""}</p>'
            + (f'<p class="call">call <code>{_e(f["call"])}</code></p>' if f.get("call") else "")
            + "".join(f'<p class="rule-text">{_e(t)}</p>' for t in f.get("rule_texts", []))
            + f'<p>expected {_e(f["expected"] or "-")}; actual {_e(f["actual"] or "no status")}<br>'
            f'{_e(f["detail"])}</p><pre>{_e(f["reproducer"] or "(no reproducer)")}</pre></details>')

    if doc["declared_support_summary"]:
        keys = ["works but not declared", "declared but refused",
                "consistent: declared and works", "consistent: not declared, refused"]
        parts.append("<h2>Declared against actual support</h2>")
        parts.append(_table(["backend", "op", "product", *keys],
                            [[s["backend"], s["op"], s["product"], *[s[k] for k in keys]]
                             for s in doc["declared_support_summary"]]))
        mism = [r for r in doc["declared_support"] if r["category"] in keys[:2]]
        if mism:
            parts.append(_table(["backend", "op", "product", "param", "probe", "category",
                                 "status alone", "status with group", "refused by"],
                                [[r["backend"], r["op"], r["product"], r["param"],
                                  f"{r['axis']}={r['value']}", r["category"], r["status"],
                                  r["status_with_group"], r["refused_by"]] for r in mism]))
    if doc.get("values"):
        parts.append("<h2>Values per operator</h2><p>" + _e(values_section.summary(doc["values"]))
                     + "</p>")
        parts.append(_table(values_section.HEADERS, values_section.table_rows(doc["values"])))
    parts += _detection_power(doc)
    parts.append("</body></html>\n")
    return "\n".join(parts)
