"""How much error each precision standard can see.

``python -m reports sensitivity [--out DIR] [--no-readme]``

For every floating output standard, realistic oracle outputs (the cases each operator's record
names through its ``sensitivity`` piece) get a relative error injected, ``value * (1 + s*r)``
with a random sign ``s`` per element, over a geometric sweep r = 2^-30, 2^-29.5, ..., 2^-1; the
result is rounded to the output dtype (what a backend can return) and judged by the standard's
compare function. Three modes: ``every element`` (each element off by r, random sign), ``bias``
(every element off by +r: a systematic error) and ``one element`` (the element of median
magnitude off by +r, the rest exact). Reported: the largest r the standard still accepts (PASS or
QUALITY_WARNING) and the smallest r it fails.

Rounding-mode injections (a second table): the float32 var of the cann oracle cast to fp16/bf16
toward zero, or with ties away from zero, instead of round-to-nearest-even, on the vendor case and
on the exact-tie case of the table; reported: how many elements change, and the verdict.

Standards measured: model-bound@2 and float-ulp per var dtype (cann) and on the absmax outputs
(float32), mere-mare per var dtype and on the absmax outputs (doc), and quant-code (@3 and @2) on
the m and v codes: there the error
is injected into the quantized value m/absmax (v/absmax) before the nearest code is taken, so the
figure is the relative error of the state that the code comparison (with its near-tie window)
still accepts.

Writes sensitivity.md and sensitivity.json into --out, and the table into benchmarks/README.md
between the markers ``<!-- sensitivity:start -->`` and ``<!-- sensitivity:end -->``.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from aclnn_conformance.judging.sensitivity import judge_injected
from aclnn_conformance.spec.outcome import Outcome

SCHEMA = "aclnn-conformance/sensitivity/2"
SWEEP_EXPONENTS = tuple(e / 2 for e in range(-60, -1))      # log2 r: -30, -29.5, ..., -1
MODES = ("every element", "bias", "one element")
SEED = 20261202
ACCEPTED = (Outcome.PASS, Outcome.QUALITY_WARNING)
README = Path(__file__).resolve().parents[1] / "benchmarks" / "README.md"
START, END = "<!-- sensitivity:start -->", "<!-- sensitivity:end -->"


def targets_and_rounding() -> tuple[list[dict], list[dict]]:
    """Every operator's sensitivity targets and rounding rows (its record's ``sensitivity``)."""
    from aclnn_conformance.spec.registry import operators
    targets: list[dict] = []
    rounding: list[dict] = []
    for record in operators().values():
        if record.has("sensitivity"):
            more_targets, more_rounding = record.piece("sensitivity")()
            targets += more_targets
            rounding += more_rounding
    return targets, rounding


def targets() -> list[dict]:
    return targets_and_rounding()[0]


def _limits(std, dtype: str) -> str:
    if std.kind == "model_bound":
        return "the oracle's bound per element"
    if std.kind == "model_envelope" and std.version == "3":
        return "the oracle's bound and lean per element, bias_spread 2.5"
    key = "float32" if std.kind == "quant_code" else dtype
    lim = std.limits.get(key, {})
    return ", ".join(f"{k} {v:g}" for k, v in lim.items())


def sweep(target: dict, mode: str, exponents=SWEEP_EXPONENTS) -> dict:
    from aclnn_conformance.spec.precision import standard
    std = standard(target["standard"])
    rng = np.random.default_rng(SEED)
    zero = judge_injected(target, 0.0, mode, rng)
    verdicts = []
    for e in exponents:
        verdicts.append((e, judge_injected(target, 2.0 ** e, mode, np.random.default_rng(SEED))))
    passing = [e for e, v in verdicts if v in ACCEPTED]
    failing = [e for e, v in verdicts if v not in ACCEPTED]
    largest_pass = max(passing) if passing else None
    smallest_fail = min(failing) if failing else None
    return {"standard": std.name, "version": std.version, "kind": std.kind,
            "op": target["op"], "product": target.get("product", ""),
            "profile": target["profile"], "output": target["output"], "dtype": target["dtype"],
            "case_id": target["case_id"], "elements": int(np.asarray(target["expected"]).size),
            "mode": mode, "limits": _limits(std, target["dtype"]), "at_zero": zero,
            "largest_pass_log2": largest_pass, "smallest_fail_log2": smallest_fail,
            "largest_pass": None if largest_pass is None else 2.0 ** largest_pass,
            "smallest_fail": None if smallest_fail is None else 2.0 ** smallest_fail,
            "monotone": (largest_pass is None or smallest_fail is None
                         or largest_pass < smallest_fail),
            "verdicts": {f"{e:g}": v for e, v in verdicts}}


def run() -> dict:
    start = time.perf_counter()
    found, rounding = targets_and_rounding()
    rows = [sweep(t, mode) for t in found for mode in MODES]
    from aclnn_conformance.reports.sensitivity_surface import surface_rows  # the elementwise surface's classes
    rows += surface_rows(MODES, SEED, SWEEP_EXPONENTS, ACCEPTED)
    return {"schema": SCHEMA, "sweep": {"from_log2": SWEEP_EXPONENTS[0],
                                        "to_log2": SWEEP_EXPONENTS[-1], "step_log2": 0.5},
            "seed": SEED, "accepted": list(ACCEPTED), "rows": rows, "rounding": rounding,
            "seconds": round(time.perf_counter() - start, 3)}


# ---- rendering ----

def _r(log2: float | None) -> str:
    if log2 is None:
        return "-"
    return f"2^{log2:g} ({2.0 ** log2:.3g})"


HEADERS = ["standard", "output", "dtype", "profile", "limits", "injected into", "largest r accepted",
           "smallest r failed"]


def _output_label(row: dict) -> str:
    """``ApplyAdamWV2 varRef (atlas-a2)``: the operator's API name without its prefix."""
    from aclnn_conformance.spec.registry import UnknownOperator, operator
    try:
        name = operator(row["op"]).api.removeprefix("aclnn")
    except UnknownOperator:  # a table written with an operator this installation lacks
        name = row["op"]
    return f"{name} {row['output']}" + (f" ({row['product']})" if row.get("product") else "")


def table_rows(doc: dict) -> list[list[str]]:
    rows = []
    for row in doc["rows"]:
        fail = _r(row["smallest_fail_log2"]) + ("" if row["monotone"] else " (not monotone)")
        output = _output_label(row)
        rows.append([f"{row['standard']}@{row['version']}", output, row["dtype"],
                     row["profile"], row["limits"], row["mode"], _r(row["largest_pass_log2"]), fail])
    return rows


ROUNDING_HEADERS = ["standard", "output", "dtype", "case", "cast", "elements changed", "verdict"]


def rounding_table_rows(doc: dict) -> list[list[str]]:
    return [[f"{r['standard']}@{r['version']}", _output_label({**r, "product": ""}), r["dtype"],
             r["case_id"], r["mode"],
             f"{r['changed']} of {r['elements']}", r["verdict"]] for r in doc.get("rounding", [])]


def rounding_intro() -> str:
    return ("Rounding-mode injections: the oracle's float32 var cast to the var dtype toward zero, "
            "or to nearest with ties away from zero, instead of round-to-nearest-even (the model's "
            "cast), on the cases each operator's record names (among them cases whose every result "
            "is an exact tie); model-bound@3 rows on each product's cast rule, which may leave an "
            "exact tie's direction open (see the arithmetic models).")


def _tables_md(doc: dict) -> list[str]:
    from aclnn_conformance.reports.tables import md_table
    out = [intro(doc), "", md_table(HEADERS, table_rows(doc))]
    if doc.get("rounding"):
        out += ["", rounding_intro(), "", md_table(ROUNDING_HEADERS, rounding_table_rows(doc))]
    return out


def intro(doc: dict) -> str:
    return ("Relative error r injected into realistic oracle outputs (the cases each operator's "
            "record names for its sensitivity: vendor system-test and vendor-distribution cases) "
            "as value*(1 + s*r), s a random sign per "
            "element (every element), +1 on every element (bias) or +1 on the element of median "
            "magnitude alone (one element), rounded to "
            "the output dtype; r swept geometrically from 2^-30 to 2^-1 in steps of 2^0.5. "
            "Accepted = PASS or QUALITY_WARNING. For quant-code the error goes into the quantized "
            "value m/absmax (v/absmax) before the nearest code is taken. model-bound@3: every float "
            "output of the operators it judges, against the bound, lean and cast rule the oracle "
            "derives for that call on the product named; where an output's values take both signs (var, m) "
            "the relative 'bias' injection leans with each value's sign, so its row matches the "
            "'every element' one: the two-ulp shift toward +inf that the bias check fails is in "
            "tests/test_precision.py. Every standard accepts "
            "r = 0. `python -m reports sensitivity` regenerates this table.")


def render_markdown(doc: dict, heading: str = "#") -> str:
    return "\n".join([f"{heading} Precision standard sensitivity", "", *_tables_md(doc)]) + "\n"


def render_text(doc: dict) -> str:
    from aclnn_conformance.reports.tables import fixed_width
    text = fixed_width(HEADERS, table_rows(doc))
    if doc.get("rounding"):
        text += "\n" + fixed_width(ROUNDING_HEADERS, rounding_table_rows(doc))
    return text + f"\n{len(doc['rows'])} sweeps, {doc['seconds']:.1f} s\n"


def render_html(doc: dict) -> str:
    from html import escape
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in table_rows(doc))
    html = (f"<h3>Sensitivity of the standards</h3><p>{escape(intro(doc))}</p>"
            f'<table class="sensitivity"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')
    if doc.get("rounding"):
        rhead = "".join(f"<th>{escape(h)}</th>" for h in ROUNDING_HEADERS)
        rbody = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                        for row in rounding_table_rows(doc))
        html += (f"<p>{escape(rounding_intro())}</p><table class=\"sensitivity-rounding\"><thead>"
                 f"<tr>{rhead}</tr></thead><tbody>{rbody}</tbody></table>")
    return html


def write(doc: dict, out: str | Path) -> list[Path]:
    from aclnn_conformance.reports.tables import write_md_json
    return write_md_json(doc, out, "sensitivity", render_markdown)


def update_readme(doc: dict, path: str | Path = README) -> Path:
    """Put the figures into ``path`` between the markers, under the heading "Precision standard
    sensitivity" (the file, the heading and the markers are added when missing; the rest of the
    file is left as it is)."""
    path = Path(path)
    body = "\n".join([START, *_tables_md(doc), END])
    text = path.read_text(encoding="utf-8") if path.exists() else "# Benchmarks\n"
    if START in text and END in text and text.index(START) < text.index(END):
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        text = head + body + tail
    else:
        text = text.rstrip("\n") + "\n\n## Precision standard sensitivity\n\n" + body + "\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path
