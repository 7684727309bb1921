"""The report's section on values: per operator (and backend, profile), whether its outputs were
value-judged, on which products, by which precision standard per tensor, and where a value case
was not judged, the rule that left it unjudged (an unread check, an unsupported product, a broken
precondition), so that a reader sees at once which certified operators had their numbers checked."""
from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any, Callable, Iterable

from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.reports.tables import md_table

STATUS_ONLY = "status only"
JUDGED = "values judged"
NOT_JUDGED = "values not judged"


def _value_rules(spec) -> set[str]:
    return {r.id for r in (spec.rules if spec else ()) if r.kind == "value"}


def _spec_lookup() -> Callable[[str], Any]:
    from aclnn_conformance.spec import OPS
    return OPS.get


def build(records: Iterable[OutcomeRecord], spec_of: Callable[[str], Any] | None = None
          ) -> list[dict[str, Any]]:
    """One row per (op, backend, profile): the verdict on its values and what it rests on."""
    spec_of = spec_of or _spec_lookup()
    groups: dict[tuple[str, str, str], list[OutcomeRecord]] = defaultdict(list)
    for r in records:
        groups[(r.op, r.backend, r.profile)].append(r)
    rows = []
    for (op, backend, profile), recs in sorted(groups.items()):
        spec = spec_of(op)
        value_rules = _value_rules(spec)
        outputs = tuple(spec.outputs) if spec else ()
        judged_on: Counter[str] = Counter()
        standards: dict[str, set[str]] = defaultdict(set)
        unjudged: Counter[str] = Counter()
        products = sorted({r.product for r in recs})
        for r in recs:
            if r.values_judged and r.judged_by != "relation":   # relations are not single-call values
                judged_on[r.product] += 1
                for tensor, name in r.standards.items():
                    standards[tensor].add(name)
            elif value_rules.intersection(r.rule_ids) and not r.values_judged:
                unjudged[r.deciding_rule or r.outcome] += 1
        if judged_on:
            state = JUDGED
        elif value_rules and (spec is None or spec.values_judged):
            state = NOT_JUDGED
        else:
            state = STATUS_ONLY
        rows.append({
            "op": op, "backend": backend, "profile": profile, "state": state,
            "judged_on": dict(sorted(judged_on.items())),
            "not_judged_on": [p for p in products if p not in judged_on],
            "standards": {t: sorted(standards[t]) for t in _tensor_order(standards, outputs)},
            "outputs": list(outputs),
            "unjudged_by": dict(unjudged.most_common()),
        })
    return rows


def _tensor_order(standards: dict[str, set[str]], outputs: tuple[str, ...]) -> list[str]:
    """The operator's outputs first (in its order), then the tensors checked unchanged."""
    return [t for t in outputs if t in standards] + sorted(t for t in standards if t not in outputs)


def standards_text(row: dict[str, Any]) -> str:
    outs = [f"{t}: {', '.join(row['standards'][t])}" for t in row["standards"] if t in row["outputs"]]
    rest = sorted({n for t, names in row["standards"].items() if t not in row["outputs"] for n in names})
    text = "; ".join(outs)
    if rest:
        text += ("; " if text else "") + f"inputs unchanged: {', '.join(rest)}"
    return text or "-"


def products_text(row: dict[str, Any]) -> str:
    judged = ", ".join(f"{p} ({n})" for p, n in row["judged_on"].items())
    if row["state"] == STATUS_ONLY:
        return "-"
    if not judged:
        return "none"
    return judged + (f"; not on {', '.join(row['not_judged_on'])}" if row["not_judged_on"] else "")


def reasons_text(row: dict[str, Any], limit: int = 3) -> str:
    if row["state"] == STATUS_ONLY:
        return "the spec judges statuses only"
    items = list(row["unjudged_by"].items())
    text = ", ".join(f"{rule} ({n})" for rule, n in items[:limit])
    if len(items) > limit:
        text += f", {len(items) - limit} more"
    return text or "-"


HEADERS = ["op", "backend", "profile", "values", "value-judged cases per product", "standards",
           "value cases not judged, by deciding rule"]


def table_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    return [[r["op"], r["backend"], r["profile"], r["state"], products_text(r), standards_text(r),
             reasons_text(r)] for r in rows]


def summary(rows: list[dict[str, Any]]) -> str:
    counts = Counter(r["state"] for r in rows)
    return (f"{counts[JUDGED]} operator column(s) with values judged, {counts[NOT_JUDGED]} with value "
            f"rules but no value case judged in these records, {counts[STATUS_ONLY]} status only.")


def _section(title: str, text: str, headers: list[str], rows: list[list[str]]) -> list[str]:
    return ["", title, "", text, "", md_table(headers, rows)]


def markdown(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    return _section("## Values per operator",
                    "Whether each operator's outputs were compared with the oracle, on which products "
                    "(the number of value-judged cases), by which precision standard per output (the "
                    "tensors the call must leave unchanged are judged bit-exact), and, for the value "
                    "cases that were not judged, the rule that decided so (an unread check, an "
                    "unsupported product, a precondition). " + summary(rows),
                    HEADERS, table_rows(rows))


# ---- special values set aside (spec/special_values.py) ----

SPECIAL_HEADERS = ["product", "backend", "subnormals (model)", "overflow (model)",
                   "elements set aside", "cases", "the device's choice"]


def special_values(records: Iterable[OutcomeRecord]) -> list[dict[str, Any]]:
    """Per (product, backend): the elements set aside as a choice the product's model leaves open,
    by choice, the cases holding them, and what the device chose where the choice could show."""
    from aclnn_conformance.spec.special_values import special_values as model_of
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for r in records:
        for tensor_metrics in (r.metrics or {}).values():
            made = tensor_metrics.get("device_choice") or {}
            if not made:
                continue
            row = groups.setdefault((r.product, r.backend), {"aside": Counter(), "cases": set(),
                                                             "made": defaultdict(set)})
            for choice, n in (tensor_metrics.get("set_aside") or {}).items():
                row["aside"][choice] += n
                if n:
                    row["cases"].add((r.op, r.case_id))
            for choice, taken in made.items():
                row["made"][choice].add(taken)
    rows = []
    for (product, backend), row in sorted(groups.items()):
        model = model_of(product)
        rows.append({"product": product, "backend": backend,
                     "subnormals": model.subnormals if model else "-",
                     "overflow": model.overflow if model else "-",
                     "set_aside": dict(row["aside"]), "cases": len(row["cases"]),
                     "choice": {c: ("taken" if "taken" in v else "not taken")
                                for c, v in sorted(row["made"].items())}})
    return rows


def special_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    def choice_text(r):
        return ", ".join(f"{c}: {t}" for c, t in r["choice"].items()) or "-"
    return [[r["product"], r["backend"], r["subnormals"], r["overflow"],
             ", ".join(f"{c} {n}" for c, n in r["set_aside"].items()) or "0", str(r["cases"]),
             choice_text(r)] for r in rows]


def special_markdown(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    return _section("### Special values set aside",
                    "Elements whose result is another answer the product's special-value model leaves "
                    "open (`flushed`: subnormal inputs or results read or written as zero; "
                    "`saturated`: an infinity saturated, a NaN written as 0), counted apart and named "
                    "in the case's quality warning instead of judged; the device's choice is `taken` "
                    "where it gave that answer, `not taken` where it could have and did not "
                    "(docs/values.md).", SPECIAL_HEADERS, special_rows(rows))
