"""The executable spec of aclnnApplyAdamWV2 against the document and the vendor's behaviour as the
notes (apply_adam_w.md sections 3.2, 4, 5.2 and 5.4) record it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from aclnn_conformance.spec import OPS, op_spec
from aclnn_conformance.spec.apply_adam_w_v2 import MAX_GRAD_NORM, PARAMS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.suites.calls import apply_adam_w_v2 as calls
from aclnn_conformance.spec.faults import fault_case, fault_cases, fault_pair_cases, faults_of

SPEC = op_spec("apply_adam_w_v2")
DOC = Path(__file__).resolve().parents[2] / "shared" / "docs" / "aclnnApplyAdamWV2.md"
NULLPTR, INVALID = int(Status.ERR_PARAM_NULLPTR), int(Status.ERR_PARAM_INVALID)
A2, A950, TRAINING = "atlas-a2", "ascend950", "atlas-training"


def _key(case, product, profile):
    e = expected_outcome(SPEC, case, product, profile)
    if e.kind == "success":
        return 0
    if e.kind == "not_judged":
        return "not judged"
    return e.status if e.status is not None else "any error"


def test_registered():
    assert OPS["apply_adam_w_v2"] is SPEC and SPEC.api == "aclnnApplyAdamWV2"


def test_every_parameter_row_of_the_document_is_in_the_spec():
    if not DOC.exists():
        pytest.skip(f"vendor document not found at {DOC}")
    text = DOC.read_text()
    table = text[text.index("**参数说明：**"):text.index("**返回值：**")]
    doc_names = re.findall(r"<td>(\w+)（(?:aclTensor\*|float|bool|uint64_t\*|aclOpExecutor\*\*)）</td>", table)
    assert len(doc_names) == 15
    assert sorted(doc_names) == sorted(p.name for p in PARAMS)
    rows = {p.name: p for p in PARAMS}
    assert set(rows["varRef"].dtypes) == {DT.FLOAT16, DT.BF16, DT.FLOAT}
    assert set(rows["step"].dtypes) == {DT.INT64, DT.FLOAT} and rows["step"].noncontiguous == "no"
    assert rows[MAX_GRAD_NORM].optional


def test_every_check_rule_decides_its_own_fault_case():
    decided = {expected_outcome(SPEC, case, p, prof).rule_id
               for case in fault_cases(SPEC) for p in PRODUCT_IDS for prof in PROFILES}
    checks = {r.id for r in SPEC.checks()}
    assert set(faults_of(SPEC.key)) == checks - {"AAWV2-PRODUCT-001", "AAWV2-PRODUCT-002"}
    assert set(faults_of(SPEC.key)) <= decided
    base = calls.base_call()
    assert expected_outcome(SPEC, base, TRAINING, "cann").rule_id == "AAWV2-PRODUCT-002"
    assert expected_outcome(SPEC, base, TRAINING, "doc").rule_id == "AAWV2-PRODUCT-001"


# (rule broken alone, product, profile) -> status, from the notes' table of checks (5.2) and errata
NOTES = [
    ("AAWV2-NULL-001", A2, "cann", NULLPTR), ("AAWV2-NULL-004", A950, "cann", NULLPTR),
    ("AAWV2-NULL-005", A2, "cann", 0), ("AAWV2-NULL-005", A2, "doc", NULLPTR),            # E11
    ("AAWV2-NULL-007", TRAINING, "cann", NULLPTR),                                         # no SoC check
    ("AAWV2-DTYPE-001", A2, "cann", INVALID), ("AAWV2-DTYPE-011", A950, "cann", INVALID),
    ("AAWV2-DTYPE-002", A2, "cann", 0), ("AAWV2-DTYPE-002", TRAINING, "cann", INVALID),   # arch lists
    ("AAWV2-DTYPE-002", "atlas-inference", "cann", INVALID),
    ("AAWV2-DTYPE-012", A2, "cann", 0), ("AAWV2-DTYPE-012", A2, "doc", INVALID),          # E7
    ("AAWV2-FORMAT-001", A2, "cann", 0), ("AAWV2-FORMAT-001", A2, "doc", INVALID),        # E8
    ("AAWV2-SHAPE-001", A2, "cann", INVALID), ("AAWV2-SHAPE-006", A950, "cann", INVALID),
    ("AAWV2-SHAPE-004", A2, "cann", INVALID), ("AAWV2-SHAPE-004", A2, "doc", 0),          # E4
    ("AAWV2-STRIDE-001", A2, "cann", 0), ("AAWV2-STRIDE-001", A2, "doc", "any error"),    # E9
    ("AAWV2-RANK-001", A2, "cann", "not judged"), ("AAWV2-RANK-001", A2, "doc", "any error"),
    ("AAWV2-NULL-008", A2, "cann", "not judged"),
]


@pytest.mark.parametrize("rule_id,product,profile,status", NOTES,
                         ids=[f"{r}-{p}-{f}" for r, p, f, _ in NOTES])
def test_statuses_from_the_notes(rule_id, product, profile, status):
    assert _key(fault_case(SPEC, SPEC.rule(rule_id)), product, profile) == status


def test_products():
    """Valid calls: success on A2, A3 and 950; any error elsewhere (NOT_SUPPORTED), after the host
    checks; an empty var succeeds everywhere in cann (nothing is launched)."""
    base = calls.base_call()
    for product in PRODUCT_IDS:
        e = expected_outcome(SPEC, base, product, "cann")
        if product in SPEC.supported["cann"]:
            assert (e.kind, e.judge_values) == ("success", True)
        else:
            assert (e.kind, e.status) == ("not_supported", None)
    empty = calls.make_call("empty", (0, 16), "float32", amsgrad=True)
    assert expected_outcome(SPEC, empty, TRAINING, "cann").kind == "success"
    assert expected_outcome(SPEC, empty, TRAINING, "doc").kind == "not_supported"


def test_mixed_dtypes_are_valid_in_cann_only():
    for mix in calls.MIXES:
        case = calls.make_call("mix", (2, 3), mix, amsgrad=MAX_GRAD_NORM in mix, max_grad_norm=True)
        assert _key(case, A2, "cann") == 0
        assert _key(case, A2, "doc") == INVALID


def test_step_rules():
    """step: one element in any rank (0-d included), INT64 or FLOAT; t = step is the doc's, so a
    step <= 0 is outside the doc's contract but judged in cann."""
    for shape in ((), (1,), (1, 1)):
        assert _key(calls.with_step(calls.base_call(), 3, shape=shape), A2, "cann") == 0
    zero = calls.make_call("s0", step=0)
    assert expected_outcome(SPEC, zero, A2, "cann").judge_values
    assert not expected_outcome(SPEC, zero, A2, "doc").judge_values


def test_fault_pairs_show_the_check_order():
    pairs = list(fault_pair_cases(SPEC))
    categories = {(SPEC.rule(c.rule_ids[0]).category, SPEC.rule(c.rule_ids[1]).category) for c in pairs}
    assert ("nullptr", "dtype") in categories and ("dtype", "shape") in categories
    for case in pairs:
        assert any(expected_outcome(SPEC, case, p, prof).rule_id == case.rule_ids[0]
                   for p in PRODUCT_IDS for prof in PROFILES)


def test_every_precondition_and_value_rule_is_named_by_a_generated_case():
    from aclnn_conformance.suites.test_apply_adam_w_v2 import RELATION_RULES
    cases = list(calls.table_cases("ci"))
    named = {rid for c in cases for rid in c.rule_ids} | {r for rs in RELATION_RULES.values() for r in rs}
    values = {r.id for r in SPEC.rules if r.kind == "value"}
    assert values <= named, values - named
    for rule in (r for r in SPEC.rules if r.kind == "precondition"):
        assert any(rule.violated(c) for c in cases), rule.id


def test_errata_are_listed():
    ids = {e.id for e in SPEC.errata}
    assert {f"AAWV2-ERRATUM-E{i}" for i in range(4, 13)} <= ids
