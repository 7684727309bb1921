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

    def describe(self) -> str:
        if self.kind == "status":
            from aclnn_conformance.spec.enums import status_name
            return status_name(self.status)
        return self.kind.replace("_", " ")


def STATUS(code: int) -> Expect:
    return Expect("status", int(code))


ANY_ERROR = Expect("any_error")
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

    def expect_for(self, profile: str, product: str) -> Expect:
        exp = self.expect.get(profile, UNCHECKED)
        return exp.for_product(product) if isinstance(exp, ByProduct) else exp

    def in_profile(self, profile: str) -> bool:
        return profile in self.expect


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

    def describe(self) -> str:
        from aclnn_conformance.spec.enums import status_name
        if self.kind == "success":
            return "ACLNN_SUCCESS" + ("" if self.judge_values else " (values not judged)")
        if self.kind == "not_judged":
            return "not judged"
        if self.kind == "not_covered":
            return f"not covered by this spec ({self.rule_id})"
        code = "any error status" if self.status is None else status_name(self.status)
        return f"{code} by {self.rule_id}"


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
        # a stable sort: within a step, the order the rules are listed in
        return sorted((r for r in self.rules if r.kind == "check"),
                      key=lambda r: self.check_steps.index(r.step))


def expected_outcome(spec: OpSpec, case: Case, product: str, profile: str) -> Expected:
    """What ``case`` must return on ``product`` under ``profile``, derived from ``spec.rules`` alone."""
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; valid: {', '.join(PROFILES)}")
    for rule in spec.checks():
        exp = rule.expect_for(profile, product)
        if exp.kind == "unchecked" or not rule.violated(case):
            continue
        if exp.kind in ("not_judged", "not_covered"):
            return Expected(exp.kind, rule_id=rule.id, reasons=(rule.id,))
        kind = "not_supported" if rule.category == "product" else "error"
        return Expected(kind, exp.status if exp.kind == "status" else None, rule.id)
    unjudged = tuple(
        r.id for r in spec.rules
        if r.kind in ("precondition", "value") and r.violated is not None
        and r.expect_for(profile, product).kind == "not_judged" and r.violated(case))
    return Expected("success", judge_values=spec.values_judged and not unjudged, reasons=unjudged)
