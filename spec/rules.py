"""Rules as data, and the one function that derives what any call must return.

A Rule is one sentence of a vendor document (or one behaviour observed in the vendor's source) made
executable: a predicate that tells whether a call violates it, and what each profile expects then.

Kinds of rule:
- ``check``: validated in the first phase (GetWorkspaceSize); a violation returns a status. Each check
  names the vendor's validation ``step`` it belongs to; the operator lists its steps in the vendor's
  order (``OpSpec.check_steps``) and, within a step, its checks in the order they run. The first
  violated check that its profile enforces decides the status.
- ``precondition``: the call succeeds but its values are not judged when violated (e.g. unsorted qmap).
- ``value``: a statement about the outputs; judged by comparing with the oracle. Cases name the value
  rules they exercise so that a failing case names the rule it broke.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable, Mapping

from aclnn_conformance.spec.case import Case

PROFILES = ("cann", "doc")
DEFAULT_PROFILE = "cann"


@dataclass(frozen=True)
class Expect:
    """What a profile expects when a rule is violated.

    kind: ``status`` (exactly ``status``), ``any_error`` (any non-zero status), ``not_judged`` (the
    call is outside the contract: nothing is judged), ``not_covered`` (the call is outside the
    domain the operator's spec declares: no verdict either way), ``unchecked`` (this
    profile/product does not enforce the rule: evaluation goes on as if it held).
    """

    kind: str
    status: int | None = None
    first_phase_succeeds: bool = False   # the error must come after GetWorkspaceSize returned 0

    def describe(self) -> str:
        if self.kind == "status":
            from aclnn_conformance.spec.enums import status_name
            text = status_name(self.status)
        else:
            text = self.kind.replace("_", " ")
        return text + (" at the launch, after GetWorkspaceSize returned 0" if self.first_phase_succeeds else "")


def STATUS(code: int) -> Expect:
    return Expect("status", int(code))


ANY_ERROR = Expect("any_error")
LAUNCH_ERROR = Expect("any_error", first_phase_succeeds=True)   # phase 1 returns 0, a later phase fails
NOT_JUDGED = Expect("not_judged")
NOT_COVERED = Expect("not_covered")   # outside a scoped spec's declared domain
JUDGED = Expect("judged")          # a value rule held and judged against the oracle
UNCHECKED = Expect("unchecked")


@dataclass(frozen=True)
class ByProduct:
    """An expectation that differs by product: ``by`` maps product ids to expectations."""

    by: Mapping[str, Expect]
    default: Expect

    def for_product(self, product: str) -> Expect:
        return self.by.get(product, self.default)


@dataclass(frozen=True)
class Rule:
    id: str                                    # e.g. AAWQ-DTYPE-002
    op: str                                    # operator key
    kind: str                                  # check | precondition | value
    category: str                              # nullptr, product, dtype, format, empty, shape, stride, attr, value...
    text: str                                  # the document sentence, or what the vendor source does
    source: str                                # where the text comes from
    expect: Mapping[str, Expect | ByProduct]   # per profile; a profile missing here does not hold the rule
    violated: Callable[[Case], bool] | None = None
    step: str = ""                             # the vendor's validation step (checks only)
    phase: str = "GetWorkspaceSize"
    note: str = ""
    # a call the rule's own reading cannot decide (a dim at an index outside the shape): not judged
    undecided: Callable[[Case], bool] | None = None

    def expect_for(self, profile: str, product: str) -> Expect:
        exp = self.expect.get(profile, UNCHECKED)
        return exp.for_product(product) if isinstance(exp, ByProduct) else exp

    def in_profile(self, profile: str) -> bool:
        return profile in self.expect


def rule_maker(op: str) -> Callable[..., Rule]:
    """The rule constructor of one operator's spec module: ``Rule`` with ``op`` filled in and the
    spec modules' positional order (id, kind, category, text, source, expect, violated)."""
    def make(id_: str, kind: str, category: str, text: str, source: str,
             expect: Mapping[str, "Expect | ByProduct"], violated: Callable[[Case], bool] | None = None,
             step: str = "", note: str = "", phase: str = "GetWorkspaceSize") -> Rule:
        return Rule(id=id_, op=op, kind=kind, category=category, text=text, source=source,
                    expect=expect, violated=violated, step=step, phase=phase, note=note)
    return make


@dataclass(frozen=True)
class Erratum:
    """A place where the document and the vendor's behaviour part ways, and what each profile does."""

    id: str
    op: str
    doc_says: str
    cann_does: str
    source: str


@dataclass(frozen=True)
class Expected:
    """The derived expectation for one call on one product under one profile."""

    kind: str                      # success | error | not_supported | not_judged | not_covered
    status: int | None = None      # exact status for error/not_supported; None = any error
    rule_id: str | None = None     # the rule that decides (check rules), if any
    judge_values: bool = False     # success with outputs to compare with the oracle
    reasons: tuple[str, ...] = ()  # rule ids of broken preconditions / unjudged value rules
    first_phase_succeeds: bool = False  # error kinds: GetWorkspaceSize returns 0, a later phase fails

    def describe(self) -> str:
        from aclnn_conformance.spec.enums import status_name
        if self.kind == "success":
            return "ACLNN_SUCCESS" + ("" if self.judge_values else " (values not judged)")
        if self.kind == "not_judged":
            return "not judged"
        if self.kind == "not_covered":
            return f"not covered by this spec ({self.rule_id})"
        code = "any error status" if self.status is None else status_name(self.status)
        after = " after a successful GetWorkspaceSize" if self.first_phase_succeeds else ""
        return f"{code}{after} by {self.rule_id}"


@dataclass(frozen=True)
class OpSpec:
    """Everything the suite knows about one operator, as data."""

    key: str                                   # apply_adam_w_quant
    api: str                                   # aclnnApplyAdamWQuant
    rule_prefix: str                           # AAWQ
    doc: str                                   # the vendor document this spec encodes
    params: tuple                              # parameter rows (see spec.params)
    rules: tuple[Rule, ...]
    supported: Mapping[str, frozenset[str]]    # profile -> product ids that support the op
    outputs: tuple[str, ...]                   # tensors the call writes
    standards: Mapping[str, Mapping[str, str]] # profile -> output -> precision standard name
    errata: tuple[Erratum, ...] = ()
    check_steps: tuple[str, ...] = ()          # the vendor's validation steps, in the order they run
    domain: str = ""                           # a scoped spec's declared domain ("" = the whole API)
    domain_products: tuple[str, ...] = ()      # the products inside that domain (empty: every one)
    values_judged: bool = True                 # false: a status-only spec (success says "values not judged")

    def __post_init__(self) -> None:
        steps = set(self.check_steps)
        strays = [r.id for r in self.rules if r.kind == "check" and r.step not in steps]
        if strays:
            raise ValueError(f"{self.key}: checks name no step of {self.check_steps}: {strays}")

    def rule(self, rule_id: str) -> Rule:
        for r in self.rules:
            if r.id == rule_id:
                return r
        raise KeyError(f"{self.key} has no rule {rule_id}")

    def checks(self) -> list[Rule]:
        return list(self._checks_in_order)

    @cached_property
    def _checks_in_order(self) -> tuple[Rule, ...]:
        # a stable sort: within a step, the order the rules are listed in
        return tuple(sorted((r for r in self.rules if r.kind == "check"),
                            key=lambda r: self.check_steps.index(r.step)))

    def checks_on(self, profile: str, product: str) -> tuple[tuple[Rule, Expect], ...]:
        """The checks in order with what each expects on ``product`` under ``profile``, those that
        do not check there left out (computed once per pair: every case of a run asks for it)."""
        known = self._checks_by_view
        if (profile, product) not in known:
            known[profile, product] = tuple(
                (rule, exp) for rule in self._checks_in_order
                if (exp := rule.expect_for(profile, product)).kind != "unchecked")
        return known[profile, product]

    @cached_property
    def _checks_by_view(self) -> dict[tuple[str, str], tuple[tuple[Rule, Expect], ...]]:
        return {}


def outside_domain(spec: OpSpec, product: str, profile: str) -> str | None:
    """The check rule that puts every call of ``spec`` on ``product`` outside its declared domain
    (a product rule: NOT_COVERED there, unchecked on the domain's products), or None when the
    product lies inside the domain."""
    if not spec.domain_products or product in spec.domain_products:
        return None
    for rule in spec.checks():
        if rule.expect_for(profile, product).kind == "not_covered" and all(
                rule.expect_for(profile, p).kind == "unchecked" for p in spec.domain_products):
            return rule.id
    return None


def expected_outcome(spec: OpSpec, case: Case, product: str, profile: str) -> Expected:
    """What ``case`` must return on ``product`` under ``profile``, derived from ``spec.rules`` alone."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    for rule, exp in spec.checks_on(profile, product):
        if rule.undecided is not None and rule.undecided(case):
            return Expected("not_judged", rule_id=rule.id, reasons=(rule.id,))
        if not rule.violated(case):
            continue
        if exp.kind in ("not_judged", "not_covered"):
            return Expected(exp.kind, rule_id=rule.id, reasons=(rule.id,))
        kind = "not_supported" if rule.category == "product" else "error"
        return Expected(kind, exp.status if exp.kind == "status" else None, rule.id,
                        first_phase_succeeds=exp.first_phase_succeeds)
    unjudged = tuple(
        r.id for r in spec.rules
        if r.kind in ("precondition", "value") and r.violated is not None
        and r.expect_for(profile, product).kind == "not_judged" and r.violated(case))
    return Expected("success", judge_values=spec.values_judged and not unjudged, reasons=unjudged)
