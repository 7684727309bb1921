"""Mutation analysis: do the suite's deterministic cases fail every deliberately broken backend, and
does the failure name the defect?

``python -m reports mutate [--tier ci] [--mutants a,b] [--products ...] [--out DIR] [--exhaustive]``

In process, no pytest: for each mutant, the tier's deterministic cases of the mutant's operator
(``table_cases(tier)``, the one-fault cases and the fault pairs, exactly the cases of the
suites' ``test_table``, ``test_one_fault`` and ``test_fault_pair``) are run on every selected
product and judged by ``suites.judge.judge`` under the cann profile, as the suites judge them. A
case kills a mutant when its outcome is not certifiable (anything but PASS, NOT_SUPPORTED,
QUALITY_WARNING, WAIVED). A kill *names* the defect when the case exercises, or has its status
decided by, one of the mutant's ``killed_by`` rules. A mutant's run stops once as many distinct
cases on as many products as it wants (``killing_cases_wanted``, ``killing_products_wanted``; one
and one unless the mutant says otherwise) have killed it naming its defect, and the gate fails a
mutant killed by fewer (``--exhaustive``: run every case).

A mutant is ``killed`` (named or not) or ``survived``. The mutants no case can kill today are run
too and reported apart: ``EQUIVALENT`` (accepted by a precision standard by design) and ``GAPS``
(a standard that should see the defect does not). The command exits 1 when a mutant survives or is
killed only by cases that do not name its defect, or when an equivalent or gap mutant is killed
(it then belongs in ``MUTANTS``), or when a control is.

Detection power is two-sided: the ``CONTROLS`` (the emulator's kernel as it is, and
implementations correct under the arithmetic model of spec/precision.py that compute otherwise than
the oracle: faithful sqrt and pow, fused multiply-adds, reciprocal division, torch's CPU sqrt) run
on every case, and any case that fails one is a false alarm of a standard. A control that cannot
run on this machine (``unavailable()``: torch missing) is reported as skipped, with the reason.

The relations between calls (determinism, block permutation, the NZ metamorphic relations, the
trajectory) are not part of this run: the table, fault and pair cases are enough to kill and name
every mutant, and they replay one call at a time.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from aclnn_conformance.judging.records import CERTIFIABLE
from aclnn_conformance.reports.progress import progress
from aclnn_conformance.spec.outcome import Outcome

SCHEMA = "aclnn-conformance/mutation/1"
PROFILE = "cann"
EXAMPLES = 5


@dataclass
class Kill:
    op: str
    case_id: str
    product: str
    outcome: str
    rules: list[str]            # the case's rule ids, then the rule that decides its status
    names_defect: bool
    detail: str


@dataclass
class MutantResult:
    name: str
    cls: str
    op: str
    defect: str
    killed_by: list[str]
    status: str                  # killed | survived | equivalent | gap | control | skipped, or <equivalent|gap|control>-killed
    named: bool                  # a kill on a case carrying a killed_by rule
    named_cases: int = 0         # distinct cases among the named kills seen
    named_products: list[str] = field(default_factory=list)
    cases_wanted: int = 1        # the mutant's killing_cases_wanted
    products_wanted: int = 1     # the mutant's killing_products_wanted
    kills: list[Kill] = field(default_factory=list)      # the first few killing cases
    killing_cases: int = 0       # killing (case, product) pairs seen before the run stopped
    cases_run: int = 0           # (case, product) pairs run
    seconds: float = 0.0
    reason: str = ""             # equivalent or gap: why no case can kill it

    @property
    def ok(self) -> bool:
        """What the gate wants: killed and named; an equivalent, gap or control mutant unkilled."""
        return (self.status == "killed" and self.named and self.enough) or self.status in (
            "equivalent", "gap", "control", "skipped")

    @property
    def enough(self) -> bool:
        """Failed, naming its defect, by as many distinct cases on as many products as it wants."""
        return (self.named_cases >= self.cases_wanted
                and len(self.named_products) >= self.products_wanted)


def tier_cases(tier: str = "ci", ops: tuple[str, ...] | None = None) -> list[tuple]:
    """[(spec, case)] of the suites' deterministic single-call cases, per operator in registry
    order: table cases, one-fault cases, fault pairs."""
    from aclnn_conformance.spec.registry import operators
    from aclnn_conformance.spec.single_calls import single_call_cases
    return [(record.spec, case) for key, record in operators().items()
            if ops is None or key in ops for case in single_call_cases(key, tier)]


def _judge(backend, spec, case, product):
    """(outcome, deciding rule, detail) exactly as the suites' runner decides them
    (judging.run_case: waivers, NOT_JUDGED, CRASH and TIMEOUT included)."""
    from aclnn_conformance.judging.run_case import run_case
    ran = run_case(backend, case, product, PROFILE)
    return ran.outcome, ran.expected.rule_id, ran.detail


def run_mutant(backend, cases: list[tuple], products: tuple[str, ...], killed_by=(),
               stop_when_named: bool = True, examples: int = EXAMPLES, cases_wanted: int = 1,
               products_wanted: int = 1, naming_first: bool = True) -> dict:
    """Run ``cases`` (with ``naming_first``, those naming a rule of ``killed_by`` first) on ``products``
    against ``backend``; the kills and how far the run went. With
    ``stop_when_named`` the run stops once ``cases_wanted`` distinct cases on ``products_wanted``
    products have failed it naming its defect; every such kill is kept."""
    killed_by = set(killed_by)
    # the cases written against the rules the defect breaks first: a mutant is named as soon as it can
    # be; every case still runs where none names it, so what is killed and named does not change
    if naming_first:
        cases = sorted(cases, key=lambda spec_case: not killed_by & set(spec_case[1].rule_ids))
    kills: list[Kill] = []
    killing = runs = 0
    named_cases: set[str] = set()
    named_products: set[str] = set()

    def done() -> dict:
        return {"kills": kills, "killing": killing, "runs": runs, "named": bool(named_cases),
                "named_cases": len(named_cases), "named_products": sorted(named_products)}

    for spec, case in cases:
        for product in products:
            runs += 1
            outcome, deciding, detail = _judge(backend, spec, case, product)
            if outcome in CERTIFIABLE:
                continue
            killing += 1
            rules = list(dict.fromkeys([*case.rule_ids, *([deciding] if deciding else [])]))
            names = bool(killed_by & set(rules))
            new_named = names and (case.case_id not in named_cases or product not in named_products)
            if len(kills) < examples or new_named:
                kills.append(Kill(case.op, case.case_id, product, outcome, rules, names,
                                  " ".join(detail.split())[:300]))
            if names:
                named_cases.add(case.case_id)
                named_products.add(product)
            if (stop_when_named and len(named_cases) >= cases_wanted
                    and len(named_products) >= products_wanted):
                return done()
    return done()


def _kind(cls, controls: frozenset[type]) -> tuple[str, str]:
    """("mutant" | "equivalent" | "gap" | "control", the reason); ``controls``: the registry's
    CONTROLS, read once per run (each read walks every operator's record)."""
    if getattr(cls, "equivalent", ""):
        return "equivalent", cls.equivalent
    if getattr(cls, "gap", ""):
        return "gap", cls.gap
    if cls in controls or not getattr(cls, "killed_by", ()):
        return "control", getattr(cls, "defect", "") or "no defect"
    return "mutant", ""


def default_selection(tier: str, include_unkillable: bool = True, controls: bool = True) -> list[type]:
    """MUTANTS, then EQUIVALENT and GAPS, then CONTROLS; the full tier adds the extracted operators'
    generated sets that the ci sample leaves out."""
    from aclnn_conformance.backends.mutants import CONTROLS, EQUIVALENT, GAPS, MUTANTS, MutantSet
    from aclnn_conformance.backends.mutants.surface import outside_sample
    extra = outside_sample() if tier == "full" else MutantSet()
    chosen = list(MUTANTS) + list(extra.mutants)
    if include_unkillable:
        chosen += list(EQUIVALENT) + list(extra.equivalent) + list(GAPS) + list(extra.gaps)
    if controls:
        chosen += list(CONTROLS) + list(extra.controls)
    return chosen


def mutate(tier: str = "ci", mutants=None, products: tuple[str, ...] | None = None,
           exhaustive: bool = False, include_unkillable: bool = True,
           controls: bool = True) -> dict:
    """Run every selected mutant class (default: MUTANTS, then EQUIVALENT and GAPS, then, with
    ``controls``, the CONTROLS; the full tier adds the extracted operators' generated sets outside
    the ci sample); the JSON document."""
    from aclnn_conformance.spec.products import PRODUCT_IDS
    products = tuple(products or PRODUCT_IDS)
    if mutants is None:
        mutants = default_selection(tier, include_unkillable, controls)
    from aclnn_conformance.backends.mutants import CONTROLS
    registry_controls = frozenset(CONTROLS)
    by_op: dict = {}
    start = time.perf_counter()
    results = []
    for cls in progress(mutants, "mutate", "mutants"):
        op = getattr(cls, "op", "") or None
        key = op or "*"
        if key not in by_op:
            by_op[key] = tier_cases(tier, (op,) if op else None)
        kind, reason = _kind(cls, registry_controls)
        unavailable = getattr(cls, "unavailable", lambda: "")()
        if unavailable:
            results.append(MutantResult(
                name=getattr(cls, "name", cls.__name__), cls=f"{cls.__module__}:{cls.__name__}",
                op=op or "", defect=getattr(cls, "defect", ""), killed_by=[], status="skipped",
                named=False, reason=unavailable))
            continue
        backend = cls()
        t0 = time.perf_counter()
        cases_wanted = getattr(cls, "killing_cases_wanted", 1)
        products_wanted = min(getattr(cls, "killing_products_wanted", 1), len(products))
        # a backend runs on the products it can run as (a control valid only where a model allows it)
        own = tuple(p for p in products if p in backend.products())
        run = run_mutant(backend, by_op[key], own, getattr(cls, "killed_by", ()),
                         stop_when_named=not exhaustive and kind == "mutant",
                         cases_wanted=cases_wanted, products_wanted=products_wanted)
        killed = run["killing"] > 0
        if kind == "mutant":
            status = "killed" if killed else "survived"
        else:
            status = f"{kind}-killed" if killed else kind
        results.append(MutantResult(
            name=getattr(backend, "name", cls.__name__), cls=f"{cls.__module__}:{cls.__name__}",
            op=op or "", defect=getattr(cls, "defect", ""), killed_by=list(getattr(cls, "killed_by", ())),
            status=status, named=run["named"], named_cases=run["named_cases"],
            named_products=run["named_products"], cases_wanted=cases_wanted,
            products_wanted=products_wanted, kills=run["kills"], killing_cases=run["killing"],
            cases_run=run["runs"], seconds=round(time.perf_counter() - t0, 3),
            reason=reason if kind != "control" else ""))
    false_alarms = [r for r in results if r.status == "control-killed"]
    gate = [r for r in results if not r.ok]
    return {"schema": SCHEMA, "tier": tier, "profile": PROFILE, "products": list(products),
            "stop_when_named": not exhaustive, "seconds": round(time.perf_counter() - start, 3),
            "mutants": [dict(asdict(r), ok=r.ok) for r in results],
            "summary": {"mutants": sum(r.status in ("killed", "survived") for r in results),
                        "killed": sum(r.status == "killed" for r in results),
                        "named": sum(r.status == "killed" and r.named for r in results),
                        "survived": sum(r.status == "survived" for r in results),
                        "equivalent": sum(r.status.startswith("equivalent") for r in results),
                        "gaps": sum(r.status.startswith("gap") for r in results),
                        "controls": sum(r.status.startswith("control") or r.status == "skipped"
                                        for r in results),
                        "false_alarms": sum(r.killing_cases for r in false_alarms),
                        "falsely_failed_controls": [r.name for r in false_alarms],
                        "skipped": [r.name for r in results if r.status == "skipped"],
                        "failing_gate": [r.name for r in gate]},
            "passed": not gate}


# ---- rendering ----

STATUS_TEXT = {"equivalent": "equivalent (by design)", "gap": "undetected (standard gap)",
               "control": "control: no false alarm", "skipped": "skipped",
               "control-killed": "control: FALSE ALARM"}


def _status_text(m: dict) -> str:
    if m["status"] == "killed":
        if not m["named"]:
            return "killed (defect not named)"
        wanted = m.get("cases_wanted", 1)
        if wanted == 1 and m.get("products_wanted", 1) == 1:
            return "killed"
        enough = (m.get("named_cases", 1) >= wanted
                  and len(m.get("named_products", [])) >= m.get("products_wanted", 1))
        return (f"killed by {m.get('named_cases', 0)} cases on {len(m.get('named_products', []))} "
                f"products" + ("" if enough else f" (wanted {wanted} on {m.get('products_wanted', 1)})"))
    return STATUS_TEXT.get(m["status"], m["status"])


def _example(m: dict) -> str:
    named = [k for k in m["kills"] if k["names_defect"]]
    k = (named or m["kills"] or [None])[0]
    if k is None:
        return "-"
    if m.get("cases_wanted", 1) > 1 and len(named) > 1:
        return ", ".join(f"`{k['case_id']}` on {k['product']}" for k in named)
    return f"`{k['case_id']}` on {k['product']} ({k['outcome']}; {', '.join(k['rules'])})"


def _example_case(m: dict) -> str:
    named = [k for k in m["kills"] if k["names_defect"]]
    k = (named or m["kills"] or [None])[0]
    return "-" if k is None else f"{k['case_id']} @ {k['product']}"


def _killing_rule(m: dict) -> str:
    named = sorted({r for k in m["kills"] if k["names_defect"] for r in k["rules"]
                    if r in m["killed_by"]})
    return ", ".join(named) or "-"


HEADERS = ["mutant", "defect", "status", "named by (killed_by)", "killed by rule", "example case",
           "cases run", "failing cases"]


def table_rows(doc: dict) -> list[list[str]]:
    return [[m["name"], m["defect"], _status_text(m), ", ".join(m["killed_by"]) or "-",
             _killing_rule(m), _example(m), str(m["cases_run"]), str(m["killing_cases"])]
            for m in doc["mutants"]]


def summary_line(doc: dict) -> str:
    s = doc["summary"]
    controls = ""
    if s.get("controls"):
        controls = (f" {s['controls'] - len(s['falsely_failed_controls']) - len(s['skipped'])} of "
                    f"{s['controls']} controls (correct arithmetic) without a false alarm, "
                    f"{s['false_alarms']} false alarms"
                    + (f", {len(s['skipped'])} skipped" if s["skipped"] else "") + ".")
    return (f"{s['killed']} of {s['mutants']} mutants killed ({s['named']} by a case that names the "
            f"defect), {s['survived']} survived; {s['equivalent']} equivalent by design, "
            f"{s['gaps']} undetected through a gap in a standard.{controls} Tier {doc['tier']}, profile "
            f"{doc['profile']}, products {', '.join(doc['products'])}; {doc['seconds']:.1f} s"
            + ("; each mutant's run stops once enough named kills are seen, controls run every case."
               if doc["stop_when_named"]
               else "; every case run."))


def _notes(doc: dict) -> list[str]:
    out = []
    why = [m for m in doc["mutants"] if m.get("reason") and m["status"] != "skipped"]
    if why:
        out += ["", "Not killable today:"]
        out += [f"- `{m['name']}` ({_status_text(m)}): {m['reason']}" for m in why]
    skipped = [m for m in doc["mutants"] if m["status"] == "skipped"]
    if skipped:
        out += ["", "Not run here:"]
        out += [f"- `{m['name']}`: {m['reason']}" for m in skipped]
    bad = [m for m in doc["mutants"] if not m["ok"]]
    if bad:
        out += ["", "Failing the gate:"]
        for m in bad:
            shown = "; ".join(f"`{k['case_id']}` on {k['product']} {k['outcome']} "
                              f"[{', '.join(k['rules'])}]" for k in m["kills"][:3])
            out.append(f"- `{m['name']}` ({_status_text(m)}): {shown or 'no case fails it'}")
    return out


def render_markdown(doc: dict, heading: str = "#") -> str:
    from aclnn_conformance.reports.tables import md_table
    out = [f"{heading} Mutation analysis", "", summary_line(doc), "",
           md_table(HEADERS, table_rows(doc))] + _notes(doc)
    return "\n".join(out) + "\n"


def render_text(doc: dict) -> str:
    from aclnn_conformance.reports.tables import fixed_width
    rows = [[m["name"], _status_text(m), _killing_rule(m), _example_case(m), m["cases_run"],
             m["killing_cases"], f"{m['seconds']:.2f}"] for m in doc["mutants"]]
    text = fixed_width(["mutant", "status", "killed by rule", "example case", "cases run",
                        "failing cases", "s"], rows)
    return text + "\n" + summary_line(doc) + "\n" + "\n".join(_notes(doc)).strip() + "\n"


def render_html(doc: dict) -> str:
    from html import escape
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    body = []
    for m, row in zip(doc["mutants"], table_rows(doc)):
        outcome = Outcome.PASS if m["ok"] and m["status"] == "killed" else (
            Outcome.QUALITY_WARNING if m["ok"] else Outcome.FAIL)
        cells = "".join(f'<td class="cell o-{outcome}">{escape(c)}</td>' if i == 2 else
                        f"<td>{escape(c)}</td>" for i, c in enumerate(row))
        body.append(f'<tr data-mutant="{escape(m["name"])}" data-status="{escape(m["status"])}">'
                    f"{cells}</tr>")
    notes = "".join(f"<li>{escape(line[2:])}</li>" for line in _notes(doc) if line.startswith("- "))
    return (f"<h2>Mutation analysis</h2><p>{escape(summary_line(doc))}</p>"
            f'<table class="mutation"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}'
            f"</tbody></table>" + (f"<ul>{notes}</ul>" if notes else ""))


def write(doc: dict, out: str | Path) -> list[Path]:
    from aclnn_conformance.reports.tables import write_md_json
    return write_md_json(doc, out, "mutation", render_markdown)

