"""The report's section on the documented surface: for the extracted operators a run exercised, per
family, how many APIs are covered (every check read), partly covered (with what is missing) or not
covered (why), and the family's strict agreement with the vendor's unit tests against the bar, read
from each data folder's ``scope.json`` and ``agreement.json`` (what ``extract`` and ``agreement``
wrote)."""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any, Iterable

from aclnn_conformance.reports.tables import md_table

STATUSES = ("covered", "partly covered", "not covered")
MISSING_SHOWN = 2      # what is missing, per API, in the report (scope.json has all of it)
USAGE_SHOWN = 10       # the most used APIs not covered, in the report (`aclnn-conformance scope` lists all)
USAGE_SOURCE = ("Coverage weighted by use (the shipped table of public projects' call sites, APIs called "
                "by at least 2 of them; `aclnn-conformance scope --usage FILE` for your own workload)")


def _read(path: Path) -> dict[str, Any] | None:
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def build(ops: Iterable[str], folders: Iterable[Path] | None = None) -> dict[str, Any] | None:
    """Per family: the scope counts of the exercised APIs (and of the folder's APIs not covered, which
    no run exercises), their agreement, and the APIs not fully covered; None when no exercised
    operator comes from a data folder with a scope."""
    from aclnn_conformance.extract.agreement import BAR, holds_bar
    from aclnn_conformance.spec.registry import data_folders
    wanted = set(ops)
    counts: dict[str, Counter] = defaultdict(Counter)
    agreement: dict[str, dict[str, Any]] = {}
    incomplete: list[dict[str, Any]] = []
    not_taken: dict[str, dict[str, Any]] = {}   # family not extracted -> why, and its APIs
    for folder in folders if folders is not None else data_folders():
        scope = _read(Path(folder) / "scope.json")
        if scope is None:
            continue
        if not any(row["key"] in wanted for row in scope["apis"]):
            continue
        for row in scope["apis"]:
            if row["key"] not in wanted and row["status"] != "not covered":
                continue   # a not-covered API is never run: listed with the folder's others
            family = row.get("group", row["family"])
            counts[family][row["status"]] += 1
            if not row.get("family_taken", True):
                not_taken.setdefault(family, {"why": row["missing"][0], "apis": []})["apis"].append(row["api"])
            elif row["status"] != "covered":
                incomplete.append({"api": row["api"], "family": family, "status": row["status"],
                                   "missing": row["missing"][:MISSING_SHOWN],
                                   "more": max(len(row["missing"]) - MISSING_SHOWN, 0)})
        measured = _read(Path(folder) / "agreement.json") or {}
        for family, per in (measured.get("per_family") or {}).items():
            agree, of = sum(v["agree"] for v in per.values()), sum(v["of"] for v in per.values())
            agreement[family] = {"agree": agree, "of": of, "holds_bar": holds_bar(per),
                                 "vendor": measured.get("vendor", {})}
    if not counts:
        return None
    from aclnn_conformance.reports.usage import headline, shipped_usage, usage_report
    used = usage_report(shipped_usage(), folders if folders is not None else None)
    return {"usage": {"headline": headline(used, "call sites"), "top": used["not_covered"][:USAGE_SHOWN]},
            "bar": BAR, "families": {f: {"counts": {s: counts[f].get(s, 0) for s in STATUSES},
                                         "agreement": agreement.get(f)} for f in sorted(counts)},
            "incomplete": sorted(incomplete, key=lambda r: (r["family"], r["api"])),
            "not_taken": {f: {"why": v["why"], "apis": sorted(v["apis"])} for f, v in sorted(not_taken.items())}}


def _agreement_text(a: dict[str, Any] | None) -> str:
    if a is None:
        return "not measured"
    return f"{a['agree']}/{a['of']} ({a['agree'] / max(a['of'], 1):.1%})"


def markdown(doc: dict[str, Any] | None) -> list[str]:
    if not doc:
        return []
    out = ["", "## Scope of the documented surface", "",
           f"The extracted operators of this run, per family: covered (every check read), partly covered "
           f"(an unread check leaves some calls not judged) or not covered. Agreement: the family's strict "
           f"agreement with the vendor's op_api unit tests; a family below {doc['bar']:.0%} in any expected "
           f"status does not hold the bar, and its verdicts rest on fewer checks read.", ""]
    out.append(md_table(["family", *STATUSES, "agreement with the vendor's unit tests", "holds the bar"],
                        [[f, *[v["counts"][s] for s in STATUSES], _agreement_text(v["agreement"]),
                          "-" if v["agreement"] is None else ("yes" if v["agreement"]["holds_bar"] else "no")]
                         for f, v in doc["families"].items()]))
    if doc.get("usage"):
        out += ["", f"{USAGE_SOURCE}: {doc['usage']['headline']}. The most used not covered:", ""]
        out += [f"- `{r['api']}` ({r['weight']} call sites, {r['status']}): {r['why']}" for r in doc["usage"]["top"]]
    if doc["incomplete"]:
        out += ["", "APIs not fully covered (first causes; the data folder's scope.json lists all):", ""]
        out += [f"- `{r['api']}` ({r['family']}, {r['status']}): " + "; ".join(r["missing"])
                + (f"; and {r['more']} more" if r["more"] else "") for r in doc["incomplete"]]
    if doc.get("not_taken"):
        out += ["", "Families not extracted (every API of each not covered, and why):", ""]
        out += [f"- {family} ({len(v['apis'])} API{'s' * (len(v['apis']) != 1)}): {v['why']}: "
                + ", ".join(f"`{a}`" for a in v["apis"])
                for family, v in doc["not_taken"].items()]
    return out


def html(doc: dict[str, Any] | None) -> list[str]:
    from html import escape
    if not doc:
        return []
    head = ["family", *STATUSES, "agreement with the vendor's unit tests", "holds the bar"]
    rows = "".join("<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in (
        f, *[v["counts"][s] for s in STATUSES], _agreement_text(v["agreement"]),
        "-" if v["agreement"] is None else ("yes" if v["agreement"]["holds_bar"] else "no"))) + "</tr>"
        for f, v in doc["families"].items())
    parts = ["<h2>Scope of the documented surface</h2>",
             f"<p>The extracted operators of this run, per family; a family below {doc['bar']:.0%} of "
             f"agreement in any expected status does not hold the bar.</p>",
             "<table><thead><tr>" + "".join(f"<th>{escape(h)}</th>" for h in head)
             + f"</tr></thead><tbody>{rows}</tbody></table>"]
    if doc.get("usage"):
        items = "".join(f"<li><code>{escape(r['api'])}</code> ({r['weight']} call sites, {escape(r['status'])}): "
                        f"{escape(r['why'])}</li>" for r in doc["usage"]["top"])
        parts.append(f"<p>{escape(USAGE_SOURCE)}: {escape(doc['usage']['headline'])}.</p>"
                     f"<details><summary>The {len(doc['usage']['top'])} most used APIs not covered</summary>"
                     f"<ul>{items}</ul></details>")
    if doc["incomplete"]:
        items = "".join(f"<li><code>{escape(r['api'])}</code> ({escape(r['family'])}, {escape(r['status'])}): "
                        + escape("; ".join(r["missing"]) + (f"; and {r['more']} more" if r["more"] else ""))
                        + "</li>" for r in doc["incomplete"])
        parts.append(f"<details><summary>{len(doc['incomplete'])} APIs not fully covered</summary>"
                     f"<ul>{items}</ul></details>")
    if doc.get("not_taken"):
        items = "".join(f"<li>{escape(family)} ({len(v['apis'])} API{'s' * (len(v['apis']) != 1)}): "
                        f"{escape(v['why'])}: "
                        + escape(", ".join(v["apis"])) + "</li>" for family, v in doc["not_taken"].items())
        parts.append(f"<details><summary>{sum(len(v['apis']) for v in doc['not_taken'].values())} APIs "
                     f"of families not extracted</summary><ul>{items}</ul></details>")
    return parts
