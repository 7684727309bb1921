"""How much error each precision standard can see.

``python -m reports sensitivity [--out DIR] [--no-readme]``

For every floating output standard, realistic oracle outputs (the ApplyAdamWQuant vendor
system-test case of 17 blocks, one per dtype) get a relative error injected, ``value * (1 + s*r)``
with a random sign ``s`` per element, over a geometric sweep r = 2^-30, 2^-29.5, ..., 2^-1; the
result is rounded to the output dtype (what a backend can return) and judged by the standard's
compare function. Two modes: ``every element`` (each element off by r) and ``one element`` (the
element of median magnitude off by +r, the rest exact). Reported: the largest r the standard still accepts
(PASS or QUALITY_WARNING) and the smallest r it fails.

Standards measured: float-ulp per var dtype (cann) and on the absmax outputs (float32), mere-mare
per var dtype and on the absmax outputs (doc), model-bound on ApplyAdamWV2's var and m per dtype
(its vendor-distribution case with amsgrad and maximize, against the bound the oracle derives for
that call), and quant-code on the m and v codes: there the error
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

SCHEMA = "aclnn-conformance/sensitivity/1"
SWEEP_EXPONENTS = tuple(e / 2 for e in range(-60, -1))      # log2 r: -30, -29.5, ..., -1
MODES = ("every element", "one element")
SEED = 20261202
ACCEPTED = ("PASS", "QUALITY_WARNING")
README = Path(__file__).resolve().parents[1] / "benchmarks" / "README.md"
START, END = "<!-- sensitivity:start -->", "<!-- sensitivity:end -->"


def _vendor_case(dtype: str):
    from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
    want = f"vendor-st-{dtype}-N17"
    for case in calls.table_cases("ci"):
        if case.case_id == want:
            return case
    raise LookupError(f"no table case {want}")


def _perturb(values: np.ndarray, r: float, mode: str, rng: np.random.Generator) -> np.ndarray:
    """values*(1 + s*r) in float64: s random per element (every element), or +1 on one element,
    the one of median magnitude (one element)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if mode == "every element":
        s = rng.choice(np.array([-1.0, 1.0]), size=v.size)
        return v * (1.0 + s * r)
    out = v.copy()
    mag = np.abs(np.where(np.isfinite(v), v, 0.0))
    i = int(np.argsort(mag, kind="stable")[mag.size // 2])
    out[i] = v[i] * (1.0 + r)
    return out


def _float_target(std_name: str, profile: str, dtype: str, output: str) -> dict:
    from aclnn_conformance.oracle.cases import oracle_result
    case = _vendor_case(dtype)
    expected = np.asarray(oracle_result(case, profile).views[output])
    arg = case.tensor(output)
    if output.startswith("absmax"):      # the judged entries: one per block
        blocks = -(-case.tensor("varRef").desc.numel // 256)
        expected = expected.reshape(-1)[:blocks]
    return {"standard": std_name, "profile": profile, "output": output, "case_id": case.case_id,
            "dtype": np.dtype(arg.storage.dtype).name if dtype != "bfloat16" else "bfloat16",
            "expected": expected}


def _code_target(output: str) -> dict:
    from aclnn_conformance.oracle.cases import oracle_result
    case = _vendor_case("float32")
    o = oracle_result(case, "cann")
    aux = o.aux[output]
    return {"standard": "quant-code", "profile": "cann", "output": output, "case_id": case.case_id,
            "dtype": "uint8 codes of float32", "expected": np.asarray(o.views[output]).reshape(-1),
            "aux": aux}


def _model_bound_target(dtype: str, output: str) -> dict:
    """ApplyAdamWV2's vendor-distribution case (amsgrad, maximize): the oracle's outputs and the
    per-element bound it derives for them."""
    from aclnn_conformance.oracle.cases import oracle_result
    from aclnn_conformance.suites.calls import apply_adam_w_v2 as calls
    want = f"vendor-{dtype}-1000-ams-max"
    case = next(c for c in calls.table_cases("ci") if c.case_id == want)
    o = oracle_result(case, "cann")
    return {"standard": "model-bound", "profile": "cann", "output": output, "case_id": case.case_id,
            "dtype": dtype, "expected": np.asarray(o.views[output]), "aux": o.aux[output]}


def targets() -> list[dict]:
    out = []
    for dtype in ("float32", "float16", "bfloat16"):
        out.append(_float_target("float-ulp", "cann", dtype, "varRef"))
    for name in ("absmaxMRef", "absmaxVRef"):
        out.append(_float_target("float-ulp", "cann", "float32", name))
    for dtype in ("float32", "float16", "bfloat16"):
        out.append(_float_target("mere-mare", "doc", dtype, "varRef"))
    for name in ("absmaxMRef", "absmaxVRef"):
        out.append(_float_target("mere-mare", "doc", "float32", name))
    for name in ("mRef", "vRef"):
        out.append(_code_target(name))
    for dtype in ("float32", "float16", "bfloat16"):
        for name in ("varRef", "mRef"):
            out.append(_model_bound_target(dtype, name))
    return out


def judge_injected(target: dict, r: float, mode: str, rng: np.random.Generator) -> str:
    """The standard's verdict on the target's outputs with relative error ``r`` injected."""
    from aclnn_conformance.spec.precision import (compare_float_ulp, compare_mere_mare, compare_model_bound,
                                                  compare_quant_codes, standard)
    std = standard(target["standard"])
    expected = target["expected"]
    if std.kind == "quant_code":
        from aclnn_conformance.oracle.apply_adam_w_quant import nearest_code
        aux = target["aux"]
        x = np.asarray(aux["x"], dtype=np.float32)
        with np.errstate(all="ignore"):
            moved = _perturb(x, r, mode, rng).astype(np.float32)
        actual = nearest_code(moved, aux["qmap"]).astype(np.uint8)
        return compare_quant_codes(actual, expected, x, aux["qmap"], aux["zero_block"], std).outcome
    with np.errstate(all="ignore"):
        actual = _perturb(expected, r, mode, rng).astype(expected.dtype).reshape(expected.shape)
    if std.kind == "model_bound":
        return compare_model_bound(actual, expected, target["aux"]["bound"], std).outcome
    compare = compare_float_ulp if std.kind == "float_ulp" else compare_mere_mare
    return compare(actual, expected, std).outcome


def _limits(std, dtype: str) -> str:
    if std.kind == "model_bound":
        return "the oracle's bound per element"
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
    rows = [sweep(t, mode) for t in targets() for mode in MODES]
    return {"schema": SCHEMA, "sweep": {"from_log2": SWEEP_EXPONENTS[0],
                                        "to_log2": SWEEP_EXPONENTS[-1], "step_log2": 0.5},
            "seed": SEED, "accepted": list(ACCEPTED), "rows": rows,
            "seconds": round(time.perf_counter() - start, 3)}


# ---- rendering ----

def _r(log2: float | None) -> str:
    if log2 is None:
        return "-"
    return f"2^{log2:g} ({2.0 ** log2:.3g})"


HEADERS = ["standard", "output", "dtype", "profile", "limits", "injected into", "largest r accepted",
           "smallest r failed"]


def table_rows(doc: dict) -> list[list[str]]:
    rows = []
    for row in doc["rows"]:
        fail = _r(row["smallest_fail_log2"]) + ("" if row["monotone"] else " (not monotone)")
        rows.append([f"{row['standard']}@{row['version']}", row["output"], row["dtype"],
                     row["profile"], row["limits"], row["mode"], _r(row["largest_pass_log2"]), fail])
    return rows


def intro(doc: dict) -> str:
    return ("Relative error r injected into realistic oracle outputs (ApplyAdamWQuant, the vendor "
            "system-test case of 17 blocks per dtype) as value*(1 + s*r), s a random sign per "
            "element (every element) or +1 on the element of median magnitude alone (one element), "
            "rounded to "
            "the output dtype; r swept geometrically from 2^-30 to 2^-1 in steps of 2^0.5. "
            "Accepted = PASS or QUALITY_WARNING. For quant-code the error goes into the quantized "
            "value m/absmax (v/absmax) before the nearest code is taken. model-bound: ApplyAdamWV2's "
            "vendor-distribution case per dtype (amsgrad, maximize), against the bound the oracle "
            "derives for that call. Every standard accepts "
            "r = 0. `python -m reports sensitivity` regenerates this table.")


def render_markdown(doc: dict, heading: str = "#") -> str:
    from aclnn_conformance.reports.tables import md_table
    return "\n".join([f"{heading} Precision standard sensitivity", "", intro(doc), "",
                      md_table(HEADERS, table_rows(doc))]) + "\n"


def render_text(doc: dict) -> str:
    from aclnn_conformance.reports.tables import fixed_width
    return fixed_width(HEADERS, table_rows(doc)) + f"\n{len(doc['rows'])} sweeps, {doc['seconds']:.1f} s\n"


def render_html(doc: dict) -> str:
    from html import escape
    head = "".join(f"<th>{escape(h)}</th>" for h in HEADERS)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>"
                   for row in table_rows(doc))
    return (f"<h3>Sensitivity of the standards</h3><p>{escape(intro(doc))}</p>"
            f'<table class="sensitivity"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>')


def write(doc: dict, out: str | Path) -> list[Path]:
    from aclnn_conformance.reports.tables import write_md_json
    return write_md_json(doc, out, "sensitivity", render_markdown)


def update_readme(doc: dict, path: str | Path = README) -> Path:
    """Put the figures into ``path`` between the markers, under the heading "Precision standard
    sensitivity" (the file, the heading and the markers are added when missing; the rest of the
    file is left as it is)."""
    from aclnn_conformance.reports.tables import md_table
    path = Path(path)
    body = "\n".join([START, intro(doc), "", md_table(HEADERS, table_rows(doc)), END])
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
