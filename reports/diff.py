"""Baseline against current: the transitions between two runs, regressions first (a CI gate).

Cases are matched on (op, case_id, product, profile), whatever the backend. The cases hypothesis
draws are matched by their test instead (op, test, product, profile): which examples a test draws is
hypothesis's choice, so a test counts as one case whose outcome is the worst of its draws, and draws
that differ between the sides are counted, not called new or removed. Exit status of the command: 1
on any regression (certifiable -> not certifiable) or any change of the case composition (new or
removed cases or tests), 0 when the runs are identical or only improve.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from aclnn_conformance.reports.load import RunSet
from aclnn_conformance.judging.records import CERTIFIABLE, OutcomeRecord
from aclnn_conformance.reports.certify import is_deterministic
from aclnn_conformance.reports.tables import md_table, severity

DIFF_KEY = ("op", "case_id", "product", "profile")
ENV_FIELDS = ("backend", "backend_version", "suite_version", "suite_commit", "cann_version",
              "soc_name", "tier")


class DiffError(ValueError):
    """Two runs that cannot be compared case by case."""


@dataclass
class Diff:
    regressions: list[tuple[OutcomeRecord, OutcomeRecord]] = field(default_factory=list)
    new: list[OutcomeRecord] = field(default_factory=list)
    removed: list[OutcomeRecord] = field(default_factory=list)
    fixed: list[tuple[OutcomeRecord, OutcomeRecord]] = field(default_factory=list)
    changed: list[tuple[OutcomeRecord, OutcomeRecord]] = field(default_factory=list)  # both sides alike
    unchanged: int = 0
    redrawn: int = 0            # hypothesis tests on both sides whose drawn examples differ
    environment: list[tuple[str, str, str]] = field(default_factory=list)
    incomplete: list[str] = field(default_factory=list)      # runs that did not run to the end

    @property
    def failed(self) -> bool:
        return bool(self.regressions or self.new or self.removed)


def _index(side: str, runset: RunSet) -> dict[tuple, OutcomeRecord]:
    out: dict[tuple, OutcomeRecord] = {}
    for rec in runset.records:
        if not is_deterministic(rec):
            continue
        key = tuple(getattr(rec, k) for k in DIFF_KEY)
        if key in out:
            raise DiffError(f"{side} holds case {dict(zip(DIFF_KEY, key))} twice (backends "
                            f"{out[key].backend} and {rec.backend}): diff one backend per side")
        out[key] = rec
    return out


def _drawn(runset: RunSet) -> dict[tuple, list[OutcomeRecord]]:
    """The hypothesis-drawn records by (op, test, product, profile), the worst outcome first."""
    out: dict[tuple, list[OutcomeRecord]] = {}
    for rec in runset.records:
        if not is_deterministic(rec):
            out.setdefault((rec.op, rec.nodeid or rec.origin, rec.product, rec.profile), []).append(rec)
    for recs in out.values():
        recs.sort(key=lambda r: severity(r.outcome))
    return out


def _env(runset: RunSet) -> dict[str, str]:
    env: dict[str, set] = {}
    for run in runset.runs.values():
        for f in ENV_FIELDS:
            env.setdefault(f, set()).add(str(getattr(run, f)))
    return {f: ", ".join(sorted(v)) for f, v in env.items()}


def diff(baseline: RunSet, current: RunSet) -> Diff:
    base, cur = _index("the baseline", baseline), _index("the current run", current)
    d = Diff()
    for key in sorted(base.keys() | cur.keys()):
        b, c = base.get(key), cur.get(key)
        if b is None:
            d.new.append(c)
        elif c is None:
            d.removed.append(b)
        elif b.outcome == c.outcome:
            d.unchanged += 1
        elif b.outcome in CERTIFIABLE and c.outcome not in CERTIFIABLE:
            d.regressions.append((b, c))
        elif b.outcome not in CERTIFIABLE and c.outcome in CERTIFIABLE:
            d.fixed.append((b, c))
        else:
            d.changed.append((b, c))
    drawn_b, drawn_c = _drawn(baseline), _drawn(current)
    for key in sorted(drawn_b.keys() | drawn_c.keys()):
        b_recs, c_recs = drawn_b.get(key), drawn_c.get(key)
        if b_recs is None:
            d.new.append(c_recs[0])
            continue
        if c_recs is None:
            d.removed.append(b_recs[0])
            continue
        b, c = b_recs[0], c_recs[0]   # each side's worst draw stands for its test
        d.redrawn += {r.case_id for r in b_recs} != {r.case_id for r in c_recs}
        if b.outcome in CERTIFIABLE and c.outcome not in CERTIFIABLE:
            d.regressions.append((b, c))
        elif b.outcome not in CERTIFIABLE and c.outcome in CERTIFIABLE:
            d.fixed.append((b, c))
        elif b.outcome == c.outcome:
            d.unchanged += 1
        else:
            d.changed.append((b, c))
    env_b, env_c = _env(baseline), _env(current)
    for side, rs in (("baseline", baseline), ("current", current)):
        d.incomplete += [f"{side} run {r.run_id} is incomplete ({r.stop_reason or 'never finished'})"
                         for r in rs.runs.values() if not r.complete]
    d.environment = [(f, env_b.get(f, "?"), env_c.get(f, "?")) for f in ENV_FIELDS
                     if env_b.get(f) != env_c.get(f) and (f in env_b or f in env_c)]
    return d


def _pairs(pairs) -> str:
    return md_table(["op", "case", "product", "profile", "baseline", "current", "detail"],
                    [[c.op, c.case_id, c.product, c.profile, b.outcome, c.outcome,
                      (c.detail or b.detail).strip()[:300]] for b, c in pairs])


def _singles(records) -> str:
    return md_table(["op", "case", "product", "profile", "outcome"],
                    [[r.op, r.case_id, r.product, r.profile, r.outcome] for r in records])


def render(d: Diff, baseline_name: str, current_name: str) -> str:
    verdict = ("REGRESSION" if d.regressions else "CASES CHANGED" if d.new or d.removed
               else "OK")
    out = [f"# Diff: {baseline_name} -> {current_name}", "",
           f"**{verdict}**: {len(d.regressions)} pass-to-fail, {len(d.new)} new, "
           f"{len(d.removed)} removed, {len(d.fixed)} fail-to-pass, {len(d.changed)} other "
           f"changes, {d.unchanged} unchanged."
           + (f" {d.redrawn} hypothesis test(s) drew other examples (compared by their worst "
              f"outcome)." if d.redrawn else "")]
    out += [f"\nWarning: {w}: its missing cases show as removed or new." for w in d.incomplete]
    if d.environment:
        out += ["", "## Environment changes", "",
                md_table(["field", "baseline", "current"], [list(e) for e in d.environment])]
    for title, body, n in (("Pass to fail", _pairs(d.regressions), len(d.regressions)),
                           ("New cases", _singles(d.new), len(d.new)),
                           ("Removed cases", _singles(d.removed), len(d.removed)),
                           ("Fail to pass", _pairs(d.fixed), len(d.fixed)),
                           ("Other outcome changes", _pairs(d.changed), len(d.changed))):
        if n:
            out += ["", f"## {title} ({n})", "", body]
    return "\n".join(out) + "\n"
