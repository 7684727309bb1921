"""The scoped spec of aclnnQuantMatmulWeightNz (MX A8W4) against the document, the notes' check order
and the vendor's unit-test rows."""
from __future__ import annotations


import numpy as np
import pytest

from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.quant_matmul_weight_nz import (GROUP_SIZE_111, SPEC, group_sizes, in_domain,
                                                           k_n, m_k1, transpose_x2, x2_nz_storage_shape,
                                                           x2_scale_view)
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.suites.calls import quant_matmul_weight_nz as calls
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases, faults_of
from aclnn_conformance.suites.faults.quant_matmul_weight_nz import UNREACHABLE

OTHER_PRODUCTS = tuple(p for p in PRODUCT_IDS if p != "ascend950")
NULLPTR, INVALID = Status.ERR_PARAM_NULLPTR, Status.ERR_PARAM_INVALID

# The notes' MX A8W4 host rules (section 2), by number, and the rule that encodes each; 11 (the
# FLOAT-packed x2) is outside the domain (QMMNZ-DOMAIN-002).
NOTES_STEPS = {
    1: ("QMMNZ-NULL-001", "QMMNZ-NULL-002"), 2: ("QMMNZ-NULL-003",), 3: ("QMMNZ-NULL-004",),
    4: ("QMMNZ-NULL-005",), 5: ("QMMNZ-NULL-006",), 6: ("QMMNZ-OFFSET-001",),
    7: ("QMMNZ-OFFSET-002",), 8: ("QMMNZ-FORMAT-001",), 9: ("QMMNZ-DTYPE-001",),
    10: ("QMMNZ-RANK-001",), 12: ("QMMNZ-ATTR-003",), 13: ("QMMNZ-SHAPE-001",),
    14: ("QMMNZ-INNER-001",), 15: ("QMMNZ-ATTR-001",), 16: ("QMMNZ-ATTR-002",),
    17: ("QMMNZ-SHAPE-010",), 18: ("QMMNZ-QTYPE-001",), 19: ("QMMNZ-ATTR-002",),
    20: ("QMMNZ-FORMAT-011",), 21: ("QMMNZ-ATTR-003",), 22: ("QMMNZ-ATTR-004",),
    23: ("QMMNZ-RANK-002",), 24: ("QMMNZ-RANK-003",), 25: ("QMMNZ-RANK-004",),
    26: ("QMMNZ-RANK-005",), 27: ("QMMNZ-RANK-006",), 28: ("QMMNZ-RANK-007",),
    29: ("QMMNZ-RANK-008",), 30: ("QMMNZ-PRODUCT-001",), 31: ("QMMNZ-DTYPE-002",),
    32: ("QMMNZ-NULL-007",), 33: ("QMMNZ-FORMAT-002", "QMMNZ-FORMAT-003", "QMMNZ-FORMAT-004",
                                  "QMMNZ-FORMAT-005", "QMMNZ-FORMAT-006"),
    38: ("QMMNZ-SHAPE-003",), 39: ("QMMNZ-SHAPE-004",), 40: ("QMMNZ-SHAPE-005",),
    41: ("QMMNZ-SHAPE-006",), 42: ("QMMNZ-SHAPE-007",), 43: ("QMMNZ-SHAPE-008",),
    44: ("QMMNZ-SHAPE-009",), 45: ("QMMNZ-SHAPE-010",), 46: ("QMMNZ-SHAPE-011",),
    47: ("QMMNZ-SHAPE-012",), 48: ("QMMNZ-INNER-002",)}


def test_identity_and_domain_are_declared():
    assert (SPEC.key, SPEC.api, SPEC.rule_prefix) == ("quant_matmul_weight_nz", "aclnnQuantMatmulWeightNz",
                                                      "QMMNZ")
    for word in ("Ascend 950", "FLOAT8_E4M3FN", "FLOAT4_E2M1", "NZ", "FLOAT8_E8M0"):
        assert word in SPEC.domain
    assert SPEC.outputs == ("out",)


def test_every_host_rule_of_the_notes_is_a_rule_in_the_notes_order():
    checks = [r.id for r in SPEC.checks()]
    # 12, 16, 17 rewrite the call (stride flips, scale view); the checks that read them run later
    rewrites = (12, 16, 17)
    for step, rule_ids in NOTES_STEPS.items():
        if step not in rewrites:
            assert f"step {step}" in SPEC.rule(rule_ids[0]).note, (step, rule_ids)
    order = [checks.index(ids[0]) for step, ids in sorted(NOTES_STEPS.items())
             if step not in rewrites]
    assert order == sorted(order)


def test_the_pre_path_checks_hold_on_every_product():
    base = calls.base_call()
    for product in PRODUCT_IDS:
        for name in ("x1", "x2", "x2Scale", "out"):
            exp = expected_outcome(SPEC, base.with_tensor(name, None), product, "cann")
            assert (exp.kind, exp.status) == ("error", NULLPTR), (product, name)
        fault = faults_of(SPEC.key)["QMMNZ-OFFSET-001"].build(base)
        assert expected_outcome(SPEC, fault, product, "cann").status == INVALID


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("product", OTHER_PRODUCTS)
def test_other_products_are_not_covered(product, profile):
    for case in calls.table_cases("ci"):
        exp = expected_outcome(SPEC, case, product, profile)
        if exp.kind != "error":
            assert (exp.kind, exp.rule_id) == ("not_covered", "QMMNZ-DOMAIN-001"), case.case_id


def test_outside_the_domain_is_never_a_verdict():
    for case in calls.out_of_domain_cases():
        assert not in_domain(case, "ascend950")
        for profile in PROFILES:
            assert expected_outcome(SPEC, case, "ascend950", profile).kind == "not_covered"


def test_e5m2_activations_are_an_error_not_a_path():
    case = faults_of(SPEC.key)["QMMNZ-PATH-001"].build(calls.base_call())
    exp = expected_outcome(SPEC, case, "ascend950", "cann")
    assert (exp.kind, exp.status, exp.rule_id) == ("error", None, "QMMNZ-PATH-001")


def test_valid_calls_follow_the_document_example_layout():
    case = calls.base_call()
    x2, s2 = case.desc("x2"), case.desc("x2Scale")
    assert (x2.shape, x2.strides, x2.format, x2.storage_shape) == ((64, 128), (1, 64), F.FRACTAL_NZ_C0_32,
                                                                   (2, 8, 16, 32))
    assert (s2.shape, s2.strides, s2.storage_shape) == ((1, 128, 2), (2, 2, 1), (128, 1, 2))
    assert case.attrs["transposeX2"] is False and transpose_x2(case)    # flipped by the strides
    assert k_n(case) == (64, 128) and m_k1(case) == (5, 64)
    assert x2_nz_storage_shape(case) == (2, 8, 16, 32) and x2_scale_view(case) == (128, 1, 2)
    assert in_domain(case, "ascend950")
    for key, build in calls.FAULT_BASES.items():
        for profile in PROFILES:
            exp = expected_outcome(SPEC, build(), "ascend950", profile)
            assert exp.kind == "success" and exp.judge_values, (key, profile, exp)


def test_group_size_bits():
    assert GROUP_SIZE_111 == 4295032864          # the document's value for [1, 1, 32]
    case = calls.base_call().with_attrs(groupSize=GROUP_SIZE_111)
    assert group_sizes(case) == (1, 1, 32)
    assert expected_outcome(SPEC, case, "ascend950", "cann").kind == "success"


def test_the_stride_flip_decides_transpose_x2():
    case = calls.base_call()
    # the same (k, n) view with transposeX2 true is flipped to false, which the MX path rejects
    exp = expected_outcome(SPEC, case.with_attrs(transposeX2=True), "ascend950", "cann")
    assert (exp.status, exp.rule_id) == (INVALID, "QMMNZ-ATTR-003")
    nk = calls.make_call("nk", m=5, k=64, n=128, x2_layout="nk", scale_layout="nk")
    assert expected_outcome(SPEC, nk, "ascend950", "cann").kind == "success"
    assert expected_outcome(SPEC, nk.with_attrs(transposeX2=False), "ascend950", "cann").rule_id == \
        "QMMNZ-ATTR-003"


def test_storage_shape_is_compared_by_product_in_cann_and_by_dims_in_doc():
    case = faults_of(SPEC.key)["QMMNZ-SHAPE-002"].build(calls.base_call())
    assert expected_outcome(SPEC, case, "ascend950", "cann").kind == "success"
    assert expected_outcome(SPEC, case, "ascend950", "doc").rule_id == "QMMNZ-SHAPE-002"


def test_x2_offset_is_documented_but_not_enforced():
    case = faults_of(SPEC.key)["QMMNZ-OFFSET-003"].build(calls.base_call())
    assert expected_outcome(SPEC, case, "ascend950", "cann").judge_values
    assert expected_outcome(SPEC, case, "ascend950", "doc").kind == "error"
    assert any(e.id == "QMMNZ-ERRATUM-1" and "x2Offset" in e.doc_says for e in SPEC.errata)
    assert any("descriptor" in e.cann_does and "161002" in e.cann_does for e in SPEC.errata)


def test_vendor_unit_test_rows():
    rows = {c.case_id: c for c in calls.ut_cases()}
    ok = expected_outcome(SPEC, rows["ut-mxa8w4-bias-fp16"], "ascend950", "cann")
    assert ok.kind == "success" and ok.judge_values
    bad = expected_outcome(SPEC, rows["ut-mxa8w4-bias-fp16-out-bf16"], "ascend950", "cann")
    assert (bad.status, bad.rule_id) == (INVALID, "QMMNZ-DTYPE-002")


def test_every_reachable_check_rule_decides_its_own_fault_on_950():
    for case in fault_cases(SPEC):
        deciders = {expected_outcome(SPEC, case, "ascend950", p).rule_id for p in PROFILES}
        assert case.rule_ids[0] in deciders, (case.rule_ids, deciders)
    with_fault = set(faults_of(SPEC.key))
    assert with_fault == {r.id for r in SPEC.checks()} - {"QMMNZ-DOMAIN-001", *UNREACHABLE}
    for rule_id in UNREACHABLE:
        assert "not reachable" in SPEC.rule(rule_id).text
        assert not any(SPEC.rule(rule_id).violated(c) for c in calls.table_cases("ci"))


def test_fault_pairs_show_the_check_order():
    pairs = list(fault_pair_cases(SPEC))
    assert len(pairs) >= 10
    for case in pairs:
        early, late = (SPEC.rule(r) for r in case.rule_ids)
        assert SPEC.checks().index(early) < SPEC.checks().index(late)


def test_the_fp16_bias_precondition_of_the_doc_profile():
    case = next(c for c in calls.table_cases("ci") if c.case_id == "fp16-bias-below-2^-8")
    assert expected_outcome(SPEC, case, "ascend950", "cann").judge_values
    assert not expected_outcome(SPEC, case, "ascend950", "doc").judge_values


def test_overflow_precondition_uses_only_the_scales_that_are_read():
    case = calls.odd_blocks_call()                    # tail slots hold 2**6
    assert not SPEC.rule("QMMNZ-PRE-002").violated(case)
    big = calls.make_call("big", m=2, k=64, n=8, out_dtype="float16",
                          x=calls.e4m3_codes(np.full((2, 64), 448.0)))
    assert SPEC.rule("QMMNZ-PRE-002").violated(big)
def test_every_precondition_and_value_rule_is_named_by_a_table_case_or_relation():
    from aclnn_conformance.suites.test_quant_matmul_weight_nz import RELATION_RULES
    cases = list(calls.table_cases("ci"))
    named = {rid for c in cases for rid in c.rule_ids} | {r for rules in RELATION_RULES.values()
                                                         for r in rules}
    values = {r.id for r in SPEC.rules if r.kind in ("value", "precondition")}
    assert values <= named, values - named
    for rule in (r for r in SPEC.rules if r.kind == "precondition"):
        assert any(rule.violated(c) for c in cases if rule.id in c.rule_ids), rule.id


