"""Sensitivity rows of the elementwise surface's standards, one per function class and dtype: the
same sweep as reports/sensitivity.py (relative error r on every element, as a bias, or on one
element) injected into the oracle's outputs of a value case of one API of the class, judged by the
class's standard with the aux the oracle gives."""
from __future__ import annotations

import numpy as np

def targets() -> tuple[tuple[str, str], ...]:
    """(API, dtype) per function class, chosen from the value tables in their order: the exact class
    in FLOAT, the rounded class in FLOAT, FLOAT16 and BF16, the transcendental class once with TTK
    numbers (FLOAT, FLOAT16) and once under the published standard (FLOAT, BF16), and the summing
    reductions' standard in FLOAT and FLOAT16."""
    from aclnn_conformance.spec.surface_values import value_entries
    entries = [e for _, e in sorted(value_entries().items())
               if not e.inplace and not e.raw.get("boolean_result")]

    def first(function_class: str, dtypes: tuple[str, ...], ttk: bool | None = None) -> list:
        for e in entries:
            if e.function_class != function_class or not set(dtypes) <= set(e.sample.get("dtypes", ())):
                continue
            if e.sums:     # the summing reductions have their own standard and rows (below)
                continue
            if ttk is not None and bool(e.tolerance) != ttk:
                continue
            return [(e.api, d) for d in dtypes]
        return []
    return tuple(first("exact", ("FLOAT",)) + first("rounded", ("FLOAT", "FLOAT16", "BF16"))
                 + first("transcendental", ("FLOAT", "FLOAT16"), ttk=True)
                 + first("transcendental", ("FLOAT", "BF16"), ttk=False)
                 + [(e.api, d) for e in entries if e.sums for d in ("FLOAT", "FLOAT16")][:2])


def _target(api: str, dtype: str) -> dict:
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.surface_cases import value_cases
    from aclnn_conformance.spec.surface_models import standards_for
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(api)
    case = next(c for c in value_cases(api, dtypes=(dtype,)) if c.case_id.startswith("values"))
    result = from_case(case, "cann")
    expected = np.asarray(result.views[entry.output])
    aux = dict(result.aux[entry.output])
    finite = np.isfinite(expected.astype(np.float64)).reshape(-1)   # the sweep moves finite values
    flat = {k: (np.asarray(v).reshape(-1)[finite] if isinstance(v, np.ndarray) and v.size == finite.size
                else v) for k, v in aux.items()}
    from aclnn_conformance.spec.precision import dtype_name
    return {"standard": standards_for(api)[entry.output], "api": api, "key": entry.key, "class": entry.function_class,
            "output": entry.output, "dtype": dtype_name(expected.dtype), "case_id": case.case_id,
            "expected": expected.reshape(-1)[finite], "aux": flat}


def _verdict(target: dict, r: float, mode: str, seed: int) -> str:
    from aclnn_conformance.judging.sensitivity import perturb
    from aclnn_conformance.spec.surface_compare import compare
    expected = target["expected"]
    with np.errstate(all="ignore"):
        actual = perturb(expected, r, mode, np.random.default_rng(seed)).astype(expected.dtype)
    return compare(target["standard"], actual, expected, target["aux"]).outcome


def surface_rows(modes, seed: int, exponents, accepted) -> list[dict]:
    """The sweep rows of every target, in reports/sensitivity.py's row form (its modes, seed, sweep
    and accepted outcomes passed in: no import back)."""
    from aclnn_conformance.spec.precision import standard
    MODES, SEED, SWEEP_EXPONENTS, ACCEPTED = modes, seed, exponents, accepted  # noqa: N806
    rows = []
    for api, dtype in targets():
        target = _target(api, dtype)
        std = standard(target["standard"])
        for mode in MODES:
            verdicts = [(e, _verdict(target, 2.0 ** e, mode, SEED)) for e in SWEEP_EXPONENTS]
            passing = [e for e, v in verdicts if v in ACCEPTED]
            failing = [e for e, v in verdicts if v not in ACCEPTED]
            lp, sf = (max(passing) if passing else None), (min(failing) if failing else None)
            tol = target["aux"]
            limits = (f"rtol {tol['rtol']:g}, atol {tol['atol']:g} (TTK)" if "rtol" in tol else
                      "the oracle's bound per element" if std.kind == "surface_rounded" else
                      "equality" if std.kind == "surface_exact" else
                      f"T {std.limit(target['dtype'], 'T'):g} (published)")
            rows.append({"standard": std.name, "version": std.version, "kind": std.kind,
                         "profile": "cann", "op": target["key"],
                         "output": f"{target['output']} ({target['class']} class)",
                         "dtype": target["dtype"], "case_id": target["case_id"],
                         "elements": int(target["expected"].size), "mode": mode, "limits": limits,
                         "at_zero": _verdict(target, 0.0, mode, SEED),
                         "largest_pass_log2": lp, "smallest_fail_log2": sf,
                         "largest_pass": None if lp is None else 2.0 ** lp,
                         "smallest_fail": None if sf is None else 2.0 ** sf,
                         "monotone": lp is None or sf is None or lp < sf,
                         "verdicts": {f"{e:g}": v for e, v in verdicts}})
    return rows
