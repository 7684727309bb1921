"""Replaying a saved case: load it, run it on a backend, judge it, print expected against actual.

The outcome is the suite's own: ``judging.run_case``, the function the suites' runner calls (the
spec's expectation, the judge, NOT_JUDGED outside the contract, the backend's waivers).
A case saved by a relation between calls (determinism, block permutation, trajectory) is replayed
as its single call; the relation itself is rerun by the record's pytest reproducer.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from aclnn_conformance.judging.records import CERTIFIABLE, read_records


class UnreadableCase(ValueError):
    """A case file that cannot be read back (missing, truncated, corrupted)."""


@dataclass
class Replay:
    outcome: str
    text: str
    recorded: str | None = None      # the outcome the saved run recorded for this case, if found


def _product_from_name(path: Path) -> str | None:
    from aclnn_conformance.spec.products import PRODUCT_IDS
    tail = path.with_suffix("").name.rsplit("--", 1)[-1]
    return tail if tail in PRODUCT_IDS else None


def _recorded(case_file: Path) -> tuple[str | None, str | None, str | None]:
    """(outcome, product, profile) the run recorded for this case file, when its report directory
    (failures/.. ) still holds the records."""
    report_dir = case_file.resolve().parent.parent
    files = [report_dir / "records.jsonl"] if (report_dir / "records.jsonl").exists() else \
        sorted((report_dir / "records").glob("*.jsonl"))
    target = str(case_file.resolve().with_suffix(".json"))
    for f in files:
        try:
            for rec in read_records(f):
                if rec.case_file and str(Path(rec.case_file).resolve().with_suffix(".json")) == target:
                    return rec.outcome, rec.product, rec.profile
        except (OSError, ValueError):
            return None, None, None
    return None, None, None


def replay(case_file: str | Path, backend_name: str, product: str | None = None,
           profile: str | None = None) -> Replay:
    from aclnn_conformance.backends.registry import load_backend
    from aclnn_conformance.spec.outcome import Outcome
    from aclnn_conformance.judging.run_case import run_case
    from aclnn_conformance.spec.case import load_case
    from aclnn_conformance.spec.enums import status_name
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.rules import DEFAULT_PROFILE, expected_outcome

    path = Path(case_file)
    try:
        case = load_case(path)
    except Exception as exc:  # any damage to the .json or its .npz: unusable input, not a verdict
        raise UnreadableCase(f"{path}: unreadable case file ({type(exc).__name__}: "
                             f"{' '.join(str(exc).split())[:200]})") from None
    recorded, rec_product, rec_profile = _recorded(path)
    product = product or rec_product or _product_from_name(path)
    if product is None:
        raise ValueError(f"{path}: cannot tell the product from the file name; pass --product")
    profile = profile or rec_profile or DEFAULT_PROFILE
    backend = load_backend(backend_name)
    ok, reason = backend.available()
    expected = expected_outcome(operator(case.op).spec, case, product, profile)
    lines = [f"case      {case.op} {case.case_id} ({case.origin}) on {product}, profile {profile}, "
             f"backend {backend.name} v{backend.version}",
             f"call      {case.summary()[:1000]}",
             f"rules     {', '.join(case.rule_ids) or '-'}",
             f"expected  {expected.describe()}"]
    if not ok:
        lines.append(f"actual    not run: backend unavailable: {reason}")
        return Replay(Outcome.BACKEND_UNAVAILABLE, "\n".join(lines), recorded)
    ran = run_case(backend, case, product, profile)
    outcome, result, j = ran.outcome, ran.result, ran.judgement
    detail = f"{ran.waiver}; {ran.detail}" if ran.waiver else ran.detail
    if result is None:  # no answer: a crash, a hang, a wrong return type or a raise
        lines.append(f"actual    no answer: {outcome}")
        lines.append(f"detail    {detail or '-'}")
        return Replay(outcome, "\n".join(lines), recorded)
    lines.append(f"actual    {status_name(result.status)} in {result.phase}"
                 + (f" ({result.message})" if result.message else ""))
    if j is not None and j.verdicts:
        lines.append("outputs   " + ", ".join(
            f"{name}: {v} [{j.standards.get(name, '-')}]" for name, v in j.verdicts.items()))
        bad = {n: j.metrics.get(n, {}) for n, v in j.verdicts.items() if v != Outcome.PASS}
        if bad:
            lines.append("metrics   " + json.dumps(bad, sort_keys=True, default=str)[:1500])
    lines.append(f"detail    {detail or '-'}")
    if recorded:
        verdict = "reproduced" if recorded == outcome else "NOT reproduced"
        lines.append(f"outcome   {outcome} (recorded: {recorded}; {verdict})")
    else:
        lines.append(f"outcome   {outcome}")
    return Replay(outcome, "\n".join(lines), recorded)


def exit_code(r: Replay) -> int:
    return 0 if r.outcome in CERTIFIABLE else 1
