"""Injected errors judged by the precision standards: the machinery of the sensitivity tables.

A *target* is one realistic output of one operator's call: a dict with ``op``, ``standard``
(``name@version`` or a name), ``profile``, ``product``, ``output``, ``dtype``, ``case_id``,
``expected`` (the oracle's values) and ``aux`` (the standard's extra inputs). Quantized-code targets
also carry ``requantize(x, qmap) -> codes``, the operator's nearest-code rule, so that the error is
injected into the quantized value before the code is taken. Each operator's record names the
function that builds its targets (``Operator.sensitivity``); ``reports/sensitivity.py`` sweeps them
and renders the tables.
"""
from __future__ import annotations

import numpy as np


ROUNDING_MODES = ("toward zero", "ties away from zero")


def perturb(values: np.ndarray, r: float, mode: str, rng: np.random.Generator) -> np.ndarray:
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


def judge_values(std, actual: np.ndarray, expected: np.ndarray, aux: dict) -> str:
    from aclnn_conformance.spec.precision import (compare_float_ulp, compare_mere_mare,
                                                  compare_model_bound, compare_model_envelope)
    if std.kind == "model_bound":
        return compare_model_bound(actual, expected, aux["bound"], std).outcome
    if std.kind == "model_envelope":
        return compare_model_envelope(actual, expected, aux["bound"], aux.get("unrounded"), std,
                                      aux.get("scalar_share"), aux.get("evaluation"),
                                      aux.get("ties", "even")).outcome
    compare = compare_float_ulp if std.kind == "float_ulp" else compare_mere_mare
    return compare(actual, expected, std).outcome


def judge_injected(target: dict, r: float, mode: str, rng: np.random.Generator) -> str:
    """The standard's verdict on the target's outputs with relative error ``r`` injected."""
    from aclnn_conformance.spec.precision import (compare_quant_code_envelope, compare_quant_codes,
                                                  standard)
    std = standard(target["standard"])
    expected = target["expected"]
    if std.kind in ("quant_code", "quant_code_envelope"):
        aux = target["aux"]
        x = np.asarray(aux["x"], dtype=np.float32)
        with np.errstate(all="ignore"):
            moved = perturb(x, r, mode, rng).astype(np.float32)
        actual = target["requantize"](moved, aux["qmap"]).astype(np.uint8)
        if std.kind == "quant_code":
            return compare_quant_codes(actual, expected, x, aux["qmap"], aux["zero_block"], std).outcome
        return compare_quant_code_envelope(actual, expected, aux["qmap"], aux["zero_block"],
                                           aux["code_lo"], aux["code_hi"], std).outcome
    with np.errstate(all="ignore"):
        actual = perturb(expected, r, mode, rng).astype(expected.dtype).reshape(expected.shape)
    return judge_values(std, actual, expected, target["aux"])


def cast_otherwise(unrounded: np.ndarray, dtype, how: str) -> np.ndarray:
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


def rounding_row(target: dict, unrounded: np.ndarray, how: str, case_label: str | None = None) -> dict:
    """The target's fp16/bf16 output cast from its float32 result ``unrounded`` ``how`` (toward
    zero, or ties away from zero) instead of the product's mode, and the standard's verdict."""
    from aclnn_conformance.spec.precision import standard
    std = standard(target["standard"])
    expected = target["expected"]
    actual = cast_otherwise(unrounded, expected.dtype, how).reshape(expected.shape)
    changed = int((actual.astype(np.float64) != expected.astype(np.float64)).sum())
    return {"standard": std.name, "version": std.version, "op": target["op"],
            "output": target["output"], "dtype": target["dtype"],
            "case_id": case_label or target["case_id"], "mode": how,
            "elements": int(expected.size), "changed": changed,
            "verdict": str(judge_values(std, actual, expected, target["aux"]))}


def table_case(cases, case_id: str):
    """The case of ``cases`` with ``case_id`` (an operator's table, for its targets)."""
    for case in cases:
        if case.case_id == case_id:
            return case
    raise LookupError(f"no table case {case_id}")


def envelope_target(cases, case_id: str, product: str, output: str) -> dict:
    """One float output of the table case ``case_id`` (of ``cases``), judged by model-bound@3 with
    ``product``'s cast rule: the oracle's values and the envelope it derives for them."""
    from aclnn_conformance.oracle.cases import oracle_result
    from aclnn_conformance.spec.precision import dtype_name
    case = table_case(cases, case_id)
    o = oracle_result(case, "cann", product)
    expected = np.asarray(o.views[output])
    return {"op": case.op, "standard": "model-bound@3", "profile": "cann", "product": product,
            "output": output, "case_id": case.case_id, "dtype": dtype_name(expected.dtype),
            "expected": expected, "aux": o.aux[output]["envelope"]}


def envelope_rounding_rows(cases, case_id: str, output: str, products) -> list[dict]:
    """That output cast otherwise (every mode of ROUNDING_MODES) on each of ``products``."""
    rows = []
    for product in products:
        target = envelope_target(cases, case_id, product, output)
        unrounded = np.asarray(target["aux"]["unrounded"]).astype(np.float32)
        rows += [rounding_row(target, unrounded, how, f"{case_id} on {product}")
                 for how in ROUNDING_MODES]
    return rows
