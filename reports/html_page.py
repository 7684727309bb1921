"""report.html: one self-contained page (inline CSS and script, nothing fetched, usable opened as a
file) with the verdicts, then the failing cases, then a colour matrix of rules (rows) against
products (columns) for every operator, backend and profile.

The large tables (compliance, rules, errata, declared support) travel as JSON in
``<script type="application/json">`` blocks and are drawn by the page's script a page of rows at a
time, or when the reader opens an operator's rules, so that the page stays small; a filter box
above each reaches any row. The matrix pages (reports/matrix.py) share the CSS and script."""
from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from html import escape
from typing import Any, Callable, Iterable

from aclnn_conformance.reports.tables import (JUDGED_HEADERS, compliance_text, counts_text,
                                              judged_cell, outcome_columns, value_rules_text,
                                              verdict_text, worst)
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.products import PRODUCT_IDS, PRODUCTS
from aclnn_conformance.reports import surface_section, values_section

COLOURS = {
    Outcome.PASS: ("#1e7b3a", "#fff"), Outcome.NOT_SUPPORTED: ("#6f8fb0", "#fff"),
    Outcome.NOT_JUDGED: ("#b8c4d0", "#000"),
    Outcome.NOT_COVERED: ("#b8c4cf", "#000"),
    Outcome.QUALITY_WARNING: ("#e0b000", "#000"), Outcome.WAIVED: ("#8e63c7", "#fff"),
    Outcome.FAIL: ("#d0312d", "#fff"), Outcome.HARNESS_ERROR: ("#7a0e0e", "#fff"),
    Outcome.CRASH: ("#4a0000", "#fff"), Outcome.TIMEOUT: ("#a0522d", "#fff"),
    Outcome.SKIPPED: ("#c8c8c8", "#000"), Outcome.BACKEND_UNAVAILABLE: ("#9a9a9a", "#000"),
}
NAMES = {p.id: p.name for p in PRODUCTS}
PAGE_ROWS = 100         # rows a lazy table draws at first and at each "show more"
FAILURES_OPEN = 10      # failing cases shown unfolded, reproducer in view

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em} h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0;font-size:.85em}
th,td{border:1px solid #bbb;padding:3px 6px;vertical-align:top}
td.wrap{overflow-wrap:anywhere;min-width:6em}
th{background:#f2f2f2;text-align:left} thead th{position:sticky;top:0;z-index:1}
table.compliance th{white-space:normal;max-width:7em}
table.compliance td.key{font-weight:600;white-space:nowrap}
p.verdict{margin:.2em 0;padding:.3em .6em;border-left:6px solid #888}
p.verdict.CONFORMANT{border-color:#1e7b3a} p.verdict.NOT-CONFORMANT{border-color:#d0312d;background:#fdecea}
p.jump{margin:.4em 0;font-weight:600}
td.num{text-align:right} td.text{max-width:36em}
td.cell{text-align:center;white-space:nowrap;min-width:7em}
td.none{background:#fff;color:#888;font-style:italic}
td.out{background:repeating-linear-gradient(45deg,#eee,#eee 4px,#fafafa 4px,#fafafa 8px);color:#777}
td.norun{background:#f7f7f7;color:#aaa}
td.d{background:#fde2c8}
tr:target{outline:2px solid #1e6bb8}
.legend span{display:inline-block;padding:2px 6px;margin:2px;border-radius:3px}
.warn{background:#fff3cd;border:1px solid #e0b000;padding:.5em}
pre{background:#f6f6f6;padding:.4em;white-space:pre-wrap;margin:.3em 0}
details{margin:.3em 0} summary{cursor:pointer}
input.filter{font:inherit;padding:2px 6px;width:24em;max-width:100%}
p.pager button{font:inherit;margin-left:.4em}
""" + "".join(f"td.o-{o},span.o-{o}{{background:{bg};color:{fg}}}\n"
               for o, (bg, fg) in COLOURS.items())

# The page's script: lazy tables (rows from a JSON block, a page at a time), the rules of an
# operator drawn when its section opens, and a filter box per table; plain DOM, nothing fetched.
SCRIPT = """
(function () {
  "use strict";
  var PAGE = %(page)d;
  function make(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function json(id) { return JSON.parse(document.getElementById(id).textContent); }
  function matches(values, query) {
    return !query || values.join("\\u0001").toLowerCase().indexOf(query) >= 0;
  }
  function each(list, f) { Array.prototype.forEach.call(list, f); }

  function LazyTable(table) {
    this.table = table;
    var data = json(table.dataset.rows);
    this.rows = data.rows.map(function (r) {
      return r.map(function (i) { return data.strings[i]; }); });
    this.columns = Array.prototype.map.call(table.tHead.rows[0].cells, function (th) {
      return th.dataset; });
    this.pager = document.querySelector('p.pager[data-for="' + table.id + '"]');
    this.filter("");
  }
  LazyTable.prototype.filter = function (query) {
    this.query = query;
    this.selected = this.rows.filter(function (r) { return matches(r, query); });
    this.table.tBodies[0].textContent = "";
    this.shown = 0;
    this.more(PAGE);
  };
  LazyTable.prototype.more = function (n) {
    var cols = this.columns, end = Math.min(this.selected.length, this.shown + n);
    var rows = document.createDocumentFragment();
    for (var i = this.shown; i < end; i++) {
      var tr = make("tr");
      this.selected[i].forEach(function (value, j) {
        var col = cols[j] || {}, td = make("td", value, col.cellClass);
        if (col.cellKey) td.dataset.key = col.cellKey;
        if (col.rowAttr) tr.dataset[col.rowAttr] = value;
        tr.appendChild(td);
      });
      rows.appendChild(tr);
    }
    this.table.tBodies[0].appendChild(rows);
    this.shown = end;
    this.paging();
  };
  LazyTable.prototype.paging = function () {
    var self = this, p = this.pager, left = this.selected.length - this.shown;
    if (!p) return;
    p.textContent = "rows 1-" + this.shown + " of " + this.selected.length
      + (this.query ? " matching (" + this.rows.length + " in all)" : "");
    if (left > 0) {
      var more = make("button", "show " + Math.min(PAGE, left) + " more");
      more.onclick = function () { self.more(PAGE); };
      var all = make("button", "show all " + this.selected.length);
      all.onclick = function () { self.more(left); };
      p.appendChild(more);
      p.appendChild(all);
    }
  };

  function StaticTable(table) { this.table = table; }
  StaticTable.prototype.filter = function (query) {
    each(this.table.tBodies[0].rows, function (tr) {
      tr.hidden = !matches([tr.textContent], query); });
  };

  function cell(code, product) {
    var td;
    if (code === null) td = make("td", "not run", "cell norun");
    else if (code === 0) td = make("td", "not in profile", "cell out");
    else if (code === 1) td = make("td", "not exercised", "cell none");
    else {
      td = make("td", code[0], "cell o-" + code[0]);
      td.dataset.outcome = code[0];
      td.title = code[2] || code[0] + " " + code[1];
      td.appendChild(make("br"));
      td.appendChild(make("small", code[1] + " case" + (code[1] === 1 ? "" : "s")));
    }
    td.dataset.product = product;
    return td;
  }
  function RuleGroups(section) {
    var self = this;
    this.data = json(section.dataset.rows);
    this.details = section.querySelectorAll("details.rules");
    this.query = "";
    each(this.details, function (d) {
      d.addEventListener("toggle", function () { if (d.open) self.draw(d); });
      if (d.open) self.draw(d);
    });
  }
  RuleGroups.prototype.group = function (d) { return this.data.groups[+d.dataset.index]; };
  RuleGroups.prototype.draw = function (d) {
    if (d.querySelector("table")) return;
    var g = this.group(d), data = this.data, table = make("table", null, "matrix");
    table.dataset.op = g.op;
    table.dataset.backend = g.backend;
    table.dataset.profile = g.profile;
    var head = table.createTHead().insertRow();
    ["rule", "kind", "text"].forEach(function (h) { head.appendChild(make("th", h)); });
    data.products.forEach(function (p) {
      var th = make("th", p);
      th.dataset.product = p;
      th.title = data.names[p] || p;
      head.appendChild(th);
    });
    var body = table.createTBody();
    g.rules.forEach(function (r) {
      var s = data.strings, tr = body.insertRow(), text = make("td", s[r[2]], "text");
      tr.dataset.rule = s[r[0]];
      tr.appendChild(make("th", s[r[0]]));
      tr.appendChild(make("td", s[r[1]]));
      text.title = s[r[3]] + (s[r[4]] ? ":" + s[r[4]] : "");
      tr.appendChild(text);
      data.results[r[5]].forEach(function (code, j) {
        tr.appendChild(cell(code, data.products[j])); });
    });
    d.appendChild(table);
    this.rows(d);
  };
  RuleGroups.prototype.rows = function (d) {
    var q = this.query, table = d.querySelector("table");
    if (!table) return;
    var whole = matches([this.group(d).op], q);
    each(table.tBodies[0].rows, function (tr) {
      tr.hidden = !whole && !matches([tr.textContent], q); });
  };
  RuleGroups.prototype.filter = function (query) {
    var self = this, s = this.data.strings;
    this.query = query;
    each(this.details, function (d) {
      var g = self.group(d);
      d.hidden = !(matches([g.op], query) || g.rules.some(function (r) {
        return matches([s[r[0]], s[r[2]]], query); }));
      self.rows(d);
    });
  };

  var widgets = {};
  each(document.querySelectorAll("table[data-rows]"), function (t) {
    widgets[t.id] = new LazyTable(t); });
  each(document.querySelectorAll("section[data-rows]"), function (s) {
    widgets[s.id] = new RuleGroups(s); });
  each(document.querySelectorAll("input.filter"), function (input) {
    var id = input.dataset.for, target = document.getElementById(id);
    var widget = widgets[id] || (target && new StaticTable(target));
    if (!widget) return;
    input.addEventListener("input", function () {
      widget.filter(input.value.trim().toLowerCase()); });
  });
  function opened() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.tagName === "DETAILS") target.open = true;
  }
  window.addEventListener("hashchange", opened);
  opened();
})();
""" % {"page": PAGE_ROWS}

def _e(value) -> str:
    return escape("" if value is None else str(value))


def page(title: str, body: Iterable[str]) -> str:
    """A whole page: the shared CSS, ``body``, then the shared script (it reads the body's data)."""
    return "\n".join(["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
                      f"<title>{_e(title)}</title>", f"<style>{CSS}</style></head><body>",
                      *body, f"<script>{SCRIPT}</script>", "</body></html>"]) + "\n"


def data_block(block_id: str, data: Any) -> str:
    """``data`` as a JSON block the script reads; "<" escaped so that no text ends the block."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{_e(block_id)}">{text}</script>'


def filter_box(target: str, what: str) -> str:
    """A filter box for the table (or rules section) ``target``: rows holding the typed text stay."""
    return (f'<p><input type="search" class="filter" data-for="{_e(target)}" '
            f'placeholder="filter {_e(what)}" aria-label="filter {_e(what)}"></p>')


@dataclass(frozen=True)
class Column:
    """A lazy table's column: its heading, the class and data-key of its cells, and the row
    attribute (data-<attr>) its value sets."""
    head: str
    cls: str = ""
    key: str = ""
    attr: str = ""


def lazy_table(table_id: str, columns: list[Column], rows: list[list], cls: str = "",
               what: str = "rows") -> str:
    """A table drawn by the script from a JSON block, PAGE_ROWS rows at a time, with a filter box;
    every row reachable through "show all" or the filter."""
    head = "".join(f'<th{_attr("data-cell-class", c.cls)}{_attr("data-cell-key", c.key)}'
                   f'{_attr("data-row-attr", c.attr)}>{_e(c.head)}</th>' for c in columns)
    return (filter_box(table_id, what)
            + f'<table id="{_e(table_id)}" class="lazy {_e(cls)}" data-rows="{_e(table_id)}-rows">'
            f'<thead><tr>{head}</tr></thead><tbody></tbody></table>'
            f'<p class="pager" data-for="{_e(table_id)}"></p>'
            + data_block(f"{table_id}-rows", interned(rows)))


def _interner() -> tuple[dict[str, int], Callable[[Any], int]]:
    """A table of distinct texts and the function giving a value's index in it (None is "")."""
    table: dict[str, int] = {}
    return table, lambda value: table.setdefault("" if value is None else str(value), len(table))


def interned(rows: list[list]) -> dict[str, list]:
    """Rows as indices into a table of their distinct texts: a report's texts repeat (operators,
    products, the document's sentences), so the page carries each once."""
    table, index = _interner()
    return {"rows": [[index(v) for v in row] for row in rows], "strings": list(table)}


def _attr(name: str, value: str) -> str:
    return f' {name}="{_e(value)}"' if value else ""


def _table(headers: list[str], rows: list[list[str]], raw: bool = False) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c if raw else _e(c)}</td>" for c in row) + "</tr>"
                   for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _cell_code(res: dict | None) -> Any:
    """A rule's result on one product, as the script reads it: null not run, 0 not in profile,
    1 not exercised, else [worst, cases] and the counts when there are several outcomes."""
    if res is None:
        return None
    if not res["in_profile"]:
        return 0
    if not res["cases"]:
        return 1
    code = [res["worst"], res["cases"]]
    return code + [counts_text(res["counts"])] if len(res["counts"]) > 1 else code


def _source_parts(source: str) -> tuple[str, str]:
    """A citation split before its line number: the rules of an operator mostly cite one file."""
    head, _, line = source.rpartition(":")
    return (head, line) if head and line.isdigit() else (source, "")


def rules_data(doc: dict) -> dict:
    """The rules against products of every (operator, backend, profile), compactly: each rule as
    [id, kind, text, citation's file, line] indices into one table of texts and the index of its
    results (one ``_cell_code`` per product) in a table of the distinct ones."""
    products = list(PRODUCT_IDS) + [p for p in doc["products"] if p not in PRODUCT_IDS]
    strings, text = _interner()
    results: dict[str, int] = {}
    by_op: dict[str, list[dict]] = defaultdict(list)
    for rule in doc["rules"]:
        by_op[rule["op"]].append(rule)
    groups = []
    for op in doc["ops"]:
        for col in doc["columns"]:
            rows, outcomes = [], []
            for rule in by_op[op]:
                by_product = {res["product"]: res for res in rule["results"]
                              if res["backend"] == col["backend"]
                              and res["profile"] == col["profile"]}
                outcomes += [res["worst"] for res in by_product.values() if res["worst"]]
                head, line = _source_parts(rule["source"])
                cells = json.dumps([_cell_code(by_product.get(p)) for p in products])
                rows.append([text(rule["id"]), text(rule["kind"]), text(rule["text"]), text(head),
                             text(line), results.setdefault(cells, len(results))])
            groups.append({"op": op, "backend": col["backend"], "profile": col["profile"],
                           "rules": rows, "worst": worst(outcomes)})
    return {"products": products, "names": {p: NAMES.get(p, p) for p in products},
            "strings": list(strings), "results": [json.loads(c) for c in results],
            "groups": groups}


def _rules_section(doc: dict) -> list[str]:
    """Per (operator, backend, profile) a folded section whose matrix the script draws on opening."""
    data = rules_data(doc)
    several = len(doc["columns"]) > 1
    parts = [filter_box("rules", "operators and rules (name, rule id or text)"),
             f'<section id="rules" data-rows="rules-data">']
    for i, g in enumerate(data["groups"]):
        anchor = f"rules-{g['op']}" + (f"-{g['backend']}-{g['profile']}" if several else "")
        shown = (f'<span class="o-{g["worst"]}">{g["worst"]}</span>' if g["worst"]
                 else "not exercised")
        parts.append(f'<details class="rules" id="{_e(anchor)}" data-index="{i}" '
                     f'data-op="{_e(g["op"])}"><summary><code>{_e(g["op"])}</code>: backend '
                     f'{_e(g["backend"])}, profile {_e(g["profile"])}; {len(g["rules"])} rules, '
                     f'worst {shown}</summary></details>')
    parts += ["</section>", data_block("rules-data", data)]
    return parts


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


def _banner(doc: dict) -> list[str]:
    """The verdict of every product, and a link to the failing cases when there are any."""
    fails = doc["failures"]
    jump = (f'<p class="jump"><a href="#failures">{len(fails)} case(s) not certifiable: the '
            f'failing cases and their reproducers</a></p>' if fails else "")
    return ['<section id="verdicts">' + "".join(
        f'<p class="verdict {v["verdict"].split(" (")[0].replace(" ", "-")}'
        f'{" partial" if v.get("partial") else ""}" '
        f'data-product="{_e(v["product"])}" data-verdict="{_e(v["verdict"])}">'
        f'{_e(verdict_text(v))}</p>' for v in doc.get("verdicts", [])) + jump + "</section>"]


def _failures(doc: dict) -> list[str]:
    fails = doc["failures"]
    parts = [f'<section id="failures"><h2>Not certifiable ({len(fails)})</h2>']
    if not fails:
        parts.append("<p>None.</p>")
    for n, f in enumerate(fails):
        parts.append(
            f'<details class="failure"{" open" if n < FAILURES_OPEN else ""}><summary>'
            f'<span class="o-{f["outcome"]}">{f["outcome"]}'
            f'</span> {_e(f["op"])} <code>{_e(f["case_id"])}</code> on {_e(f["product"])} '
            f'({_e(f["backend"])}, {_e(f["profile"])})</summary>'
            f'<p>rules {_e(", ".join(f["rule_ids"]) or "-")}'
            f'{"; decided by " + _e(f["deciding_rule"]) if f["deciding_rule"] else ""}</p>'
            + (f'<p class="call">call <code>{_e(f["call"])}</code></p>' if f.get("call") else "")
            + "".join(f'<p class="rule-text">{_e(t)}</p>' for t in f.get("rule_texts", []))
            + f'<p>expected {_e(f["expected"] or "-")}; actual {_e(f["actual"] or "no status")}<br>'
            f'{_e(f["detail"])}</p><pre>{_e(f["reproducer"] or "(no reproducer)")}</pre></details>')
    parts.append("</section>")
    return parts


def _compliance(doc: dict) -> str:
    present = outcome_columns(doc["compliance"])
    columns = [Column("op", attr="op"), Column("product", attr="product"),
               Column("compliance of judged", "num key", "compliance"),
               Column("value rules exercised", "num key", "value-rules"),
               Column("cases", "num"), *(Column(h, "num") for _, h in JUDGED_HEADERS),
               *(Column(o, "num") for o in present), Column("backend"), Column("profile")]
    rows = [[c["op"], c["product"], compliance_text(c), value_rules_text(c), c["cases"],
             *(judged_cell(c, k) for k, _ in JUDGED_HEADERS),
             *(c["counts"].get(o, 0) for o in present), c["backend"], c["profile"]]
            for c in doc["compliance"]]
    return lazy_table("compliance", columns, rows, "compliance", "operators and products")


def render_html(doc: dict) -> str:
    parts = ["<h1>aclnn conformance report</h1>", *_banner(doc),
             "<noscript><p class=\"warn\">The large tables of this page are drawn by its script; "
             "report.md, report.csv and rules.csv hold the same rows.</p></noscript>",
             *_failures(doc),
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
    parts.append(_compliance(doc))

    parts.append('<h2>Rules against products</h2><p class="legend">' + "".join(
        f'<span class="o-{o}">{o}</span>' for o in COLOURS) +
        ' <span style="border:1px dashed #aaa">not exercised</span>'
        ' <span style="background:#eee">not in profile</span>'
        ' <span style="background:#f7f7f7;color:#aaa">not run</span>'
        '<br>Open an operator for its rules. Each cell shows the worst outcome of the cases that '
        'exercise the rule or whose status it decides; hover for the counts.</p>')
    parts += _rules_section(doc)

    if doc["errata"]:
        parts.append("<h2>Doc errata</h2><p>Profile <code>doc</code> follows the document, profile "
                     "<code>cann</code> what the vendor's code does.</p>")
        parts.append(lazy_table("errata", [Column(h) for h in ("op", "erratum", "the document says",
                                                                "cann does", "source")],
                                [[e["op"], e["id"], e["doc_says"], e["cann_does"], e["source"]]
                                 for e in doc["errata"]], what="errata"))

    if doc["declared_support_summary"]:
        keys = ["works but not declared", "declared but refused",
                "consistent: declared and works", "consistent: not declared, refused"]
        parts.append("<h2>Declared against actual support</h2>")
        parts.append(_table(["backend", "op", "product", *keys],
                            [[s["backend"], s["op"], s["product"], *[s[k] for k in keys]]
                             for s in doc["declared_support_summary"]]))
        mism = [r for r in doc["declared_support"] if r["category"] in keys[:2]]
        if mism:
            parts.append(lazy_table(
                "declared", [Column(h) for h in ("backend", "op", "product", "param", "probe",
                                                 "category", "status alone", "status with group",
                                                 "refused by")],
                [[r["backend"], r["op"], r["product"], r["param"], f"{r['axis']}={r['value']}",
                  r["category"], r["status"], r["status_with_group"], r["refused_by"]]
                 for r in mism], what="mismatches"))
    if doc.get("values"):
        parts.append("<h2>Values per operator</h2><p>" + _e(values_section.summary(doc["values"]))
                     + "</p>")
        parts.append(_table(values_section.HEADERS, values_section.table_rows(doc["values"])))
    if doc.get("special_values"):
        parts.append("<h3>Special values set aside</h3>")
        parts.append(_table(values_section.SPECIAL_HEADERS,
                            values_section.special_rows(doc["special_values"])))
    parts += _detection_power(doc)
    return page("aclnn conformance report", parts)
