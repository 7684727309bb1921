"""Judging one call: the spec's expectation and the oracle's values against what a backend returned."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status, status_name
from aclnn_conformance.spec.precision import (Verdict, compare_bit_exact, compare_float_ulp,
                                              compare_mere_mare, compare_model_bound,
                                              compare_model_envelope, compare_quant_code_envelope,
                                              compare_quant_codes, standard)
from aclnn_conformance.spec.rules import Expected, OpSpec, expected_outcome
from aclnn_conformance.spec.outcome import Outcome

# Worst first: the outcome of a case is the worst of its outputs' verdicts.
SEVERITY = {Outcome.FAIL: 3, Outcome.QUALITY_WARNING: 1, Outcome.PASS: 0}


@dataclass(frozen=True)
class Judgement:
    outcome: str                    # PASS | FAIL | QUALITY_WARNING | NOT_SUPPORTED | NOT_COVERED
    expected: Expected
    detail: str = ""
    values_judged: bool = False
    standards: dict[str, str] = field(default_factory=dict)     # output -> "name@version"
    verdicts: dict[str, str] = field(default_factory=dict)      # output -> outcome
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)


def _compare(std_name: str, actual: np.ndarray, expected: np.ndarray, aux: dict | None) -> Verdict:
    std = standard(std_name)
    if std.kind == "bit_exact":
        return compare_bit_exact(actual, expected)
    if std.kind == "float_ulp":
        return compare_float_ulp(actual, expected, std)
    if std.kind == "mere_mare":
        return compare_mere_mare(actual, expected, std)
    if std.kind == "model_bound":
        return compare_model_bound(actual, expected, aux["bound"], std)
    if std.kind == "model_envelope":
        # the family's adapters keep model-bound@1's after-cast bound beside the envelope
        env = aux.get("envelope", aux)
        return compare_model_envelope(actual, expected, env["bound"], env.get("unrounded"), std,
                                      env.get("scalar_share"), env.get("evaluation"),
                                      env.get("ties", "even"))
    if std.kind == "quant_code":
        return compare_quant_codes(actual, expected, aux["x"], aux["qmap"], aux["zero_block"], std)
    if std.kind == "quant_code_envelope":
        return compare_quant_code_envelope(actual, expected, aux["qmap"], aux["zero_block"],
                                           aux["code_lo"], aux["code_hi"], std)
    from aclnn_conformance.spec.surface_compare import COMPARERS
    if std.kind in COMPARERS:  # the elementwise surface's own kinds
        return COMPARERS[std.kind](actual, expected, aux or {}, std)
    raise ValueError(f"standard {std_name} cannot judge one call")


def judge(spec: OpSpec, case: Case, product: str, profile: str, result: RunResult) -> Judgement:
    expected = expected_outcome(spec, case, product, profile)
    got = f"returned {status_name(result.status)}" + (f" ({result.message})" if result.message else "")
    if expected.kind == "not_covered":
        return Judgement(Outcome.NOT_COVERED, expected,
                         f"outside the declared domain of the {spec.api} spec ({spec.domain}): {got}")
    if expected.kind == "not_judged":
        return Judgement(Outcome.PASS, expected, f"outside the contract under {profile}: {got}")
    if expected.kind in ("error", "not_supported"):
        ok = result.status != Status.SUCCESS and (expected.status is None
                                                  or result.status == expected.status)
        if ok and expected.first_phase_succeeds and result.phase == "GetWorkspaceSize":
            ok, got = False, f"{got} from GetWorkspaceSize"
        as_expected = Outcome.NOT_SUPPORTED if expected.kind == "not_supported" else Outcome.PASS
        outcome = as_expected if ok else Outcome.FAIL
        return Judgement(outcome, expected, "" if ok else f"{got}, expected {expected.describe()}")
    if result.status != Status.SUCCESS:
        return Judgement(Outcome.FAIL, expected, f"{got}, expected ACLNN_SUCCESS")
    return _judge_values(spec, case, product, profile, result, expected)


def _judge_values(spec: OpSpec, case: Case, product: str, profile: str, result: RunResult,
                  expected: Expected) -> Judgement:
    standards: dict[str, str] = {}
    verdicts: dict[str, str] = {}
    metrics: dict[str, dict[str, Any]] = {}
    details: list[str] = []

    def record(name: str, std_name: str, verdict: Verdict) -> None:
        std = standard(std_name)
        standards[name] = f"{std.name}@{std.version}"
        prior = verdicts.get(name, Outcome.PASS)
        verdicts[name] = max(prior, verdict.outcome, key=SEVERITY.__getitem__)
        metrics.setdefault(name, {}).update(verdict.metrics)
        if verdict.detail:
            details.append(f"{name}: {verdict.detail}")

    missing = [n for n, a in case.tensors.items() if a is not None and n not in result.storages]
    if missing:
        return Judgement(Outcome.FAIL, expected, f"backend returned no storage for {', '.join(missing)}",
                         values_judged=True)
    oracle = oracle_result(case, profile, product) if expected.judge_values else None
    for name, arg in case.tensors.items():
        if arg is None:
            continue
        actual = result.storages[name]
        if actual.shape != arg.storage.shape or actual.dtype != arg.storage.dtype:
            verdicts[name] = Outcome.FAIL
            details.append(f"{name}: storage {actual.dtype}{list(actual.shape)}, expected "
                           f"{arg.storage.dtype}{list(arg.storage.shape)}")
            continue
        if oracle is not None and name in oracle.storages:
            record(name, "bit-exact", compare_bit_exact(actual, oracle.storages[name]))
            continue
        if oracle is not None and name in oracle.views:
            std_name = spec.standards[profile][name]
            got = arg.view_of(actual)
            want = np.asarray(oracle.views[name]).reshape(arg.desc.shape).astype(got.dtype)
            record(name, std_name, _compare(std_name, got, want, oracle.aux.get(name)))
            outside = ~arg.view_mask()
            if outside.any():
                untouched = compare_bit_exact(actual[outside], arg.storage[outside])
                record(name, "bit-exact", untouched if untouched.outcome == Outcome.PASS else
                       Verdict(Outcome.FAIL, untouched.metrics,
                               "written outside its view: " + untouched.detail))
            continue
        if name in spec.outputs and not expected.judge_values:
            continue  # an output whose values are outside the contract
        # an input (or an output of an empty call): its storage must be exactly as it was
        record(name, "bit-exact", compare_bit_exact(actual, arg.storage))
    outcome = max(verdicts.values(), key=SEVERITY.__getitem__, default=Outcome.PASS)
    if not spec.values_judged:
        details.append("values not judged: a status-only spec")
    return Judgement(outcome, expected, "; ".join(details), values_judged=oracle is not None,
                     standards=standards, verdicts=verdicts, metrics=metrics)
