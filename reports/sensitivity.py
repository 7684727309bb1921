"""How much error each precision standard can see.

``python -m reports sensitivity [--out DIR] [--no-readme]``

For every floating output standard, realistic oracle outputs (the ApplyAdamWQuant vendor
system-test case of 17 blocks, one per dtype) get a relative error injected, ``value * (1 + s*r)``
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

SCHEMA = "aclnn-conformance/sensitivity/2"
SWEEP_EXPONENTS = tuple(e / 2 for e in range(-60, -1))      # log2 r: -30, -29.5, ..., -1
MODES = ("every element", "bias", "one element")
ROUNDING_MODES = ("toward zero", "ties away from zero")
SEED = 20261202
ACCEPTED = ("PASS", "QUALITY_WARNING")
README = Path(__file__).resolve().parents[1] / "benchmarks" / "README.md"
START, END = "<!-- sensitivity:start -->", "<!-- sensitivity:end -->"


def _vendor_case(dtype: str, want: str | None = None):
    from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
    want = want or f"vendor-st-{dtype}-N17"
    for case in calls.table_cases("ci"):
        if case.case_id == want:
            return case
    raise LookupError(f"no table case {want}")


def _perturb(values: np.ndarray, r: float, mode: str, rng: np.random.Generator) -> np.ndarray:
    """values*(1 + s*r) in float64: s random per element (every element), +1 on every element
    (bias), or +1 on one element, the one of median magnitude (one element)."""
    v = np.asarray(values, dtype=np.float64).reshape(-1)
    if mode == "every element":
        s = rng.choice(np.array([-1.0, 1.0]), size=v.size)
        return v * (1.0 + s * r)
    if mode == "bias":
        return v * (1.0 + r)
    out = v.copy()
    mag = np.abs(np.where(np.isfinite(v), v, 0.0))
    i = int(np.argsort(mag, kind="stable")[mag.size // 2])
    out[i] = v[i] * (1.0 + r)
    return out


def _float_target(std_name: str, profile: str, dtype: str, output: str,
                  case_id: str | None = None) -> dict:
    from aclnn_conformance.oracle.cases import oracle_result
    case = _vendor_case(dtype, case_id)
    o = oracle_result(case, profile)
    expected = np.asarray(o.views[output])
    aux = dict(o.aux.get(output, {}))
    arg = case.tensor(output)
    if output.startswith("absmax"):      # the judged entries: one per block
        blocks = -(-case.tensor("varRef").desc.numel // 256)
        expected = expected.reshape(-1)[:blocks]
        if "bound" in aux:
            aux["bound"] = np.asarray(aux["bound"]).reshape(-1)[:blocks]
    return {"standard": std_name, "profile": profile, "output": output, "case_id": case.case_id,
            "dtype": np.dtype(arg.storage.dtype).name if dtype != "bfloat16" else "bfloat16",
            "expected": expected, "aux": aux}


def _code_target(output: str, std_name: str = "quant-code@3") -> dict:
    from aclnn_conformance.oracle.cases import oracle_result
    case = _vendor_case("float32")
    o = oracle_result(case, "cann")
    aux = o.aux[output]
    return {"standard": std_name, "profile": "cann", "output": output, "case_id": case.case_id,
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
    for std_name in ("model-bound@2", "float-ulp"):
        for dtype in ("float32", "float16", "bfloat16"):
            out.append(_float_target(std_name, "cann", dtype, "varRef"))
        for name in ("absmaxMRef", "absmaxVRef"):
            out.append(_float_target(std_name, "cann", "float32", name))
    for dtype in ("float32", "float16", "bfloat16"):
        out.append(_float_target("mere-mare", "doc", dtype, "varRef"))
    for name in ("absmaxMRef", "absmaxVRef"):
        out.append(_float_target("mere-mare", "doc", "float32", name))
    for std_name in ("quant-code@3", "quant-code@2"):
        for name in ("mRef", "vRef"):
            out.append(_code_target(name, std_name))
    return out


def _judge(std, actual: np.ndarray, expected: np.ndarray, aux: dict) -> str:
    from aclnn_conformance.spec.precision import (compare_float_ulp, compare_mere_mare,
                                                  compare_model_envelope)
    if std.kind == "model_envelope":
        return compare_model_envelope(actual, expected, aux["bound"], aux.get("unrounded"), std,
                                      aux.get("scalar_share"), aux.get("evaluation")).outcome
    compare = compare_float_ulp if std.kind == "float_ulp" else compare_mere_mare
    return compare(actual, expected, std).outcome


def judge_injected(target: dict, r: float, mode: str, rng: np.random.Generator) -> str:
    """The standard's verdict on the target's outputs with relative error ``r`` injected."""
    from aclnn_conformance.spec.precision import (compare_quant_code_envelope, compare_quant_codes,
                                                  standard)
    std = standard(target["standard"])
    expected = target["expected"]
    if std.kind in ("quant_code", "quant_code_envelope"):
        from aclnn_conformance.oracle.apply_adam_w_quant import nearest_code
        aux = target["aux"]
        x = np.asarray(aux["x"], dtype=np.float32)
        with np.errstate(all="ignore"):
            moved = _perturb(x, r, mode, rng).astype(np.float32)
        actual = nearest_code(moved, aux["qmap"]).astype(np.uint8)
        if std.kind == "quant_code":
            return compare_quant_codes(actual, expected, x, aux["qmap"], aux["zero_block"], std).outcome
        return compare_quant_code_envelope(actual, expected, aux["qmap"], aux["zero_block"],
                                           aux["code_lo"], aux["code_hi"], std).outcome
    with np.errstate(all="ignore"):
        actual = _perturb(expected, r, mode, rng).astype(expected.dtype).reshape(expected.shape)
    return _judge(std, actual, expected, target["aux"])


def _cast(unrounded: np.ndarray, dtype, how: str) -> np.ndarray:
    """float32 -> fp16/bf16 toward zero, or to nearest with ties away from zero."""
    u = np.asarray(unrounded, np.float32).astype(np.float64)
    nearest_even = u.astype(np.float32).astype(dtype)
    ne = nearest_even.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        spacing = np.abs(np.nextafter(nearest_even, np.where(u >= 0, -np.inf, np.inf).astype(dtype))
                         .astype(np.float64) - ne)
    if how == "toward zero":
        out = np.where(np.abs(ne) > np.abs(u), ne - np.sign(u) * spacing, ne)
    else:
        up = np.nextafter(nearest_even, np.where(u >= 0, np.inf, -np.inf).astype(dtype)).astype(np.float64)
        tie = np.abs(np.abs(up - u) - np.abs(u - ne)) == 0
        out = np.where(tie & (np.abs(up) > np.abs(ne)), up, ne)
    return out.astype(np.float32).astype(dtype)


def rounding_rows() -> list[dict]:
    """Each rounding mode's cast of the oracle's float32 var, judged by the cann standards."""
    from aclnn_conformance.spec.precision import standard
    rows = []
    for dtype in ("float16", "bfloat16"):
        for case_id in (f"vendor-st-{dtype}-N17", f"rounding-ties-{dtype}"):
            for std_name in ("model-bound@2", "float-ulp"):
                target = _float_target(std_name, "cann", dtype, "varRef", case_id)
                std = standard(std_name)
                expected = target["expected"]
                unrounded = _float_target("model-bound@2", "cann", dtype, "varRef",
                                          case_id)["aux"]["unrounded"]
                for how in ROUNDING_MODES:
                    actual = _cast(unrounded, expected.dtype, how).reshape(expected.shape)
                    changed = int((actual.astype(np.float64) != expected.astype(np.float64)).sum())
                    rows.append({"standard": std.name, "version": std.version, "output": "varRef",
                                 "dtype": dtype, "case_id": case_id, "mode": how,
                                 "elements": int(expected.size), "changed": changed,
                                 "verdict": _judge(std, actual, expected, target["aux"])})
    return rows


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
    from aclnn_conformance.reports.sensitivity_surface import surface_rows  # the elementwise surface's classes
    rows += surface_rows(_perturb, MODES, SEED, SWEEP_EXPONENTS, ACCEPTED)
    return {"schema": SCHEMA, "sweep": {"from_log2": SWEEP_EXPONENTS[0],
                                        "to_log2": SWEEP_EXPONENTS[-1], "step_log2": 0.5},
            "seed": SEED, "accepted": list(ACCEPTED), "rows": rows, "rounding": rounding_rows(),
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


ROUNDING_HEADERS = ["standard", "output", "dtype", "case", "cast", "elements changed", "verdict"]


def rounding_table_rows(doc: dict) -> list[list[str]]:
    return [[f"{r['standard']}@{r['version']}", r["output"], r["dtype"], r["case_id"], r["mode"],
             f"{r['changed']} of {r['elements']}", r["verdict"]] for r in doc.get("rounding", [])]


def rounding_intro() -> str:
    return ("Rounding-mode injections: the oracle's float32 var cast to the var dtype toward zero, "
            "or to nearest with ties away from zero, instead of round-to-nearest-even (the model's "
            "cast); on the vendor case and on the table case whose every result is an exact tie.")


def _tables_md(doc: dict) -> list[str]:
    from aclnn_conformance.reports.tables import md_table
    out = [intro(doc), "", md_table(HEADERS, table_rows(doc))]
    if doc.get("rounding"):
        out += ["", rounding_intro(), "", md_table(ROUNDING_HEADERS, rounding_table_rows(doc))]
    return out


def intro(doc: dict) -> str:
    return ("Relative error r injected into realistic oracle outputs (ApplyAdamWQuant, the vendor "
            "system-test case of 17 blocks per dtype) as value*(1 + s*r), s a random sign per "
            "element (every element), +1 on every element (bias) or +1 on the element of median "
            "magnitude alone (one element), rounded to "
            "the output dtype; r swept geometrically from 2^-30 to 2^-1 in steps of 2^0.5. "
            "Accepted = PASS or QUALITY_WARNING. For quant-code the error goes into the quantized "
            "value m/absmax (v/absmax) before the nearest code is taken. model-bound: ApplyAdamWV2's "
            "vendor-distribution case per dtype (amsgrad, maximize), against the bound the oracle "
            "derives for that call. Every standard accepts "
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
