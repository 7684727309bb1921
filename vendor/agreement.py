"""Whether the spec expects what the vendor's file expects, and, where not, which kind of
disagreement it is."""
from __future__ import annotations

import re

from aclnn_conformance.spec.rules import Expected, OpSpec
from aclnn_conformance.vendor.disagreements import KNOWN_DISAGREEMENTS
from aclnn_conformance.vendor.model import VendorExpectation

ERRATUM = "erratum the spec records"
VENDOR_TEST_WRONG = "vendor test contradicting vendor code"
SPEC_FAULT = "fault of our spec"


def spec_status(expected: Expected) -> int | None:
    """The exact status the spec expects (0 for success), or None (any error, not judged, not
    covered)."""
    if expected.kind == "success":
        return 0
    if expected.kind in ("error", "not_supported"):
        return expected.status
    return None


def vendor_agrees(expected: Expected, vendor: VendorExpectation) -> bool | None:
    """True when both name the same status, false when they differ, None when either side names
    no exact expectation (a spec "any error" against a vendor success still differs)."""
    if expected.kind in ("not_judged", "not_covered"):
        return None
    ours = spec_status(expected)
    theirs = vendor.exact_status()
    if vendor.kind == "any_error":
        return None if ours is None or ours != 0 else False
    if ours is None:            # the spec: some error
        return False if theirs == 0 else None
    if theirs is None:
        return None
    return ours == theirs


def classify(spec: OpSpec | None, deciding_rule: str | None, vendor_source: str) -> tuple[str, str]:
    """(kind, why) of a disagreement: a known one by its vendor line, else an erratum the deciding
    rule cites, else a fault of our spec."""
    known = KNOWN_DISAGREEMENTS.get(vendor_source)
    if known is not None:
        return known
    if spec is not None and deciding_rule:
        try:
            rule = spec.rule(deciding_rule)
        except KeyError:
            rule = None
        if rule is not None:
            words = " ".join((rule.text, rule.source, rule.note))
            for erratum in spec.errata:
                if erratum.id in words or re.search(rf"\b{re.escape(deciding_rule)}\b",
                                                    erratum.cann_does + erratum.doc_says):
                    return ERRATUM, f"{erratum.id}: {erratum.cann_does}"
    return SPEC_FAULT, "no erratum of the spec and no recorded vendor contradiction explains it"
