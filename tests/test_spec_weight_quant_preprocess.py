"""The executable spec of aclnnWeightQuantPreprocess against the document, the vendor's unit test and
the vendor's check order."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.oracle.weight_quant_preprocess import nz_padding_mask
from aclnn_conformance.spec import OPS, op_spec
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.spec.mx_a8w4_layout import nz_storage_shape
from aclnn_conformance.spec.weight_quant_preprocess import PARAMS
from aclnn_conformance.suites.calls import weight_quant_preprocess as calls
from aclnn_conformance.spec.faults import faults_of, fault_cases, fault_pair_cases
from aclnn_conformance.judging.judge import judge

SPEC = op_spec("weight_quant_preprocess")
SEED_DOC = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "003_6916251efde07709.txt"
OTHER_PRODUCTS = tuple(p for p in PRODUCT_IDS if p != "ascend950")

NULLPTR, INVALID = Status.ERR_PARAM_NULLPTR, Status.ERR_PARAM_INVALID

# The vendor's op-host unit test (test_aclnn_weight_quant_preprocess_l2.cpp): each call and the
# status it expects on Ascend 950 (0: success).
UT_EXPECTED = {
    "ut-null-weight": NULLPTR, "ut-null-weightScale": NULLPTR, "ut-null-outWeight": NULLPTR,
    "ut-null-outWeightScale": NULLPTR,
    "ut-empty-weight": INVALID, "ut-empty-weight-scale": INVALID,
    "ut-weight-format-nchw": INVALID, "ut-scale-format-nhwc": INVALID,
    "ut-out-weight-format-nd": INVALID,
    "ut-weight-dtype-int8": INVALID, "ut-scale-dtype-int8": INVALID, "ut-x-dtype-float16": INVALID,
    "ut-out-weight-dtype-int8": INVALID, "ut-out-scale-dtype-int8": INVALID,
    "ut-weight-rank1": INVALID, "ut-weight-rank4": INVALID, "ut-weight-not-transposed": INVALID,
    "ut-kgroup-64": INVALID, "ut-kgroup-0": INVALID,
    "ut-scale-shape-2x128x2": INVALID, "ut-scale-not-transposed": INVALID,
    "ut-weight-offset-not-null": INVALID,
    "ut-bias-dtype-int8": INVALID, "ut-bias-2x128": INVALID, "ut-bias-127": INVALID,
    "ut-bias-format-nchw": INVALID, "ut-gmm-bias-1x128": INVALID, "ut-gmm-bias-128": INVALID,
    "ut-mm-64x128": 0, "ut-mm-bias-128": 0, "ut-mm-bias-1x128": 0, "ut-gmm-2x64x128": 0,
}
UT_CASES = {c.case_id: c for c in calls.ut_cases()}


def test_the_operator_is_registered():
    assert OPS["weight_quant_preprocess"] is SPEC
    assert (SPEC.api, SPEC.rule_prefix) == ("aclnnWeightQuantPreprocess", "WQP")


# ---- the vendor's unit test ----

def test_every_unit_test_call_is_in_the_table():
    assert set(UT_CASES) == set(UT_EXPECTED)
    table_ids = {c.case_id for c in calls.table_cases("ci")}
    assert set(UT_EXPECTED) <= table_ids


@pytest.mark.parametrize("case_id", sorted(UT_EXPECTED))
def test_unit_test_expectation(case_id):
    exp = expected_outcome(SPEC, UT_CASES[case_id], "ascend950", "cann")
    if UT_EXPECTED[case_id] == 0:
        assert exp.kind == "success" and exp.judge_values, exp
    else:
        assert (exp.kind, exp.status) == ("error", UT_EXPECTED[case_id]), exp


# ---- the document's parameter table ----

def test_every_parameter_row_of_the_document_is_in_the_spec():
    if not SEED_DOC.exists():
        pytest.skip(f"vendor document not found at {SEED_DOC}")
    text = SEED_DOC.read_text()
    start = text.index("aclnnWeightQuantPreprocessGetWorkspaceSize参数说明")
    table = text[text.index("非连续Tensor", start) + len("非连续Tensor"):text.index("返回值", start)]
    doc_names = re.findall(
        r"([A-Za-z][A-Za-z0-9]*)\((?:aclTensor \*|aclDataType|int64_t|uint64_t \*|aclOpExecutor \*\*)\)",
        table, re.ASCII)
    assert len(doc_names) == 13
    assert [p.name for p in PARAMS] == doc_names  # same rows, in the document's order
    rows = {p.name: p for p in PARAMS}
    assert rows["weight"].dtypes == (DT.FLOAT4_E2M1,) and rows["weight"].ranks == (2, 3)
    assert rows["weightScale"].dtypes == (DT.FLOAT8_E8M0,) and rows["weightScale"].ranks == (3, 4)
    assert set(rows["weightScale"].formats) == {F.ND, F.NCL, F.NCHW}
    assert set(rows["biasOptional"].dtypes) == {DT.FLOAT16, DT.BF16}
    assert rows["biasOptional"].noncontiguous == "no"
    assert DT.FLOAT4_E2M1 in rows["outWeight"].dtypes and rows["outWeight"].ranks == (2, 3, 4, 5)
    assert all(rows[n].optional for n in ("weightOffsetOptional", "biasOptional",
                                          "outWeightOffsetOptional", "outBiasOptional"))


def test_outputs_and_standards():
    assert SPEC.outputs == ("outWeight", "outWeightScale", "outBiasOptional")
    for profile in PROFILES:
        assert all(SPEC.standards[profile][o] == "bit-exact" for o in SPEC.outputs)


def test_valid_calls_follow_the_documented_layout():
    mm, gmm = calls.base_call(), calls.gmm_base_call()
    assert list(mm.tensors) == ["weight", "weightScale", "weightOffsetOptional", "biasOptional",
                                "outWeight", "outWeightScale", "outWeightOffsetOptional",
                                "outBiasOptional"]
    w, s, ow = mm.desc("weight"), mm.desc("weightScale"), mm.desc("outWeight")
    assert (w.shape, w.strides, w.storage_shape) == ((64, 128), (1, 64), (128, 64))
    assert (s.shape, s.strides, s.storage_shape) == ((1, 128, 2), (2, 2, 1), (128, 1, 2))
    assert (ow.format, ow.storage_shape) == (F.FRACTAL_NZ_C0_32, (2, 8, 16, 32))
    assert mm.tensor("outWeight").storage.size == 2 * 8 * 16 * 32 + calls.GUARD
    w, s, ow = gmm.desc("weight"), gmm.desc("weightScale"), gmm.desc("outWeight")
    assert (w.shape, w.strides, w.storage_shape) == ((2, 64, 128), (8192, 1, 64), (2, 128, 64))
    assert (s.shape, s.strides, s.storage_shape) == ((2, 1, 128, 2), (256, 2, 2, 1), (2, 128, 1, 2))
    assert ow.storage_shape == (2, 2, 8, 16, 32) == nz_storage_shape(64, 128, 2)
    for case in (mm, gmm):
        for profile in PROFILES:
            exp = expected_outcome(SPEC, case, "ascend950", profile)
            assert exp.kind == "success" and exp.judge_values


# ---- rules ----

def test_every_check_rule_decides_its_own_fault_case_on_950():
    """Rule coverage, errors: each check rule's fault is decided by that rule on Ascend 950 under
    some profile."""
    for case in fault_cases(SPEC):
        rule_id = case.rule_ids[0]
        deciders = {expected_outcome(SPEC, case, "ascend950", p).rule_id for p in PROFILES}
        assert rule_id in deciders, (rule_id, deciders)
    with_fault = set(faults_of(SPEC.key))
    assert with_fault == {r.id for r in SPEC.checks()} - {"WQP-PRODUCT-001"}


def test_cann_check_faults_start_from_a_base_valid_in_both_profiles():
    for key, build in calls.FAULT_BASES.items():
        for profile in PROFILES:
            exp = expected_outcome(SPEC, build(), "ascend950", profile)
            assert exp.kind == "success" and exp.judge_values, (key, profile, exp)


def test_every_precondition_and_value_rule_is_named_by_a_generated_case():
    """Rule coverage, values: each value rule is named by a table case or a relation, and each
    precondition is broken by a table case."""
    from aclnn_conformance.suites.test_weight_quant_preprocess import RELATION_RULES
    cases = list(calls.table_cases("ci"))
    named = {rid for c in cases for rid in c.rule_ids}
    named |= {r for rules in RELATION_RULES.values() for r in rules}
    values = {r.id for r in SPEC.rules if r.kind in ("value", "precondition")}
    assert values <= named, values - named
    for rule in (r for r in SPEC.rules if r.kind == "precondition"):
        assert any(rule.violated(c) for c in cases if rule.id in c.rule_ids), rule.id


def test_fault_pairs_show_the_check_order():
    pairs = list(fault_pair_cases(SPEC))
    assert len(pairs) > 20
    for case in pairs:
        early, late = (SPEC.rule(r) for r in case.rule_ids)
        assert SPEC.checks().index(early) < SPEC.checks().index(late)
        assert any(expected_outcome(SPEC, case, p, prof).rule_id == early.id
                   for p in PRODUCT_IDS for prof in PROFILES)


# ---- the product table ----

@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("product", OTHER_PRODUCTS)
def test_other_products_return_361001(product, profile):
    assert len(OTHER_PRODUCTS) == 5
    for case in (calls.base_call(), calls.gmm_base_call()):
        exp = expected_outcome(SPEC, case, product, profile)
        assert (exp.kind, exp.status, exp.rule_id) == ("not_supported", Status.ERR_RUNTIME_ERROR,
                                                       "WQP-PRODUCT-001")
    assert SPEC.supported[profile] == frozenset({"ascend950"})


def test_null_out_pointers_come_before_the_product():
    base = calls.base_call()
    for name in ("workspaceSize", "executor"):
        case = base.with_(null_outputs=frozenset({name}))
        for product in PRODUCT_IDS:
            exp = expected_outcome(SPEC, case, product, "cann")
            assert (exp.kind, exp.status) == ("error", Status.ERR_INNER_NULLPTR)
    both = base.with_(null_outputs=frozenset({"workspaceSize", "executor"}))
    assert expected_outcome(SPEC, both, "ascend950", "cann").rule_id == "WQP-NULL-001"
    # the product comes before the tensors
    exp = expected_outcome(SPEC, base.with_tensor("weight", None), "atlas-a2", "cann")
    assert exp.status == Status.ERR_RUNTIME_ERROR


# ---- the check order and the doc/cann split ----

def _exp(case, profile="cann"):
    return expected_outcome(SPEC, case, "ascend950", profile)


def test_mandatory_tensors_are_checked_in_order():
    base = calls.base_call()
    case = base.with_tensor("outWeightScale", None).with_tensor("weightScale", None)
    assert _exp(case).rule_id == "WQP-NULL-004"
    case = base.with_tensor("outWeight", None).with_attrs(xDtype=DT.FLOAT16)
    assert _exp(case).status == NULLPTR  # null tensors before the data-flow judge


def test_null_out_bias_is_checked_late():
    base = calls.base_call()
    no_out_bias = base.with_tensor("outBiasOptional", None)
    assert (_exp(no_out_bias).status, _exp(no_out_bias, "doc").status) == (NULLPTR, NULLPTR)
    # an earlier 161002 (outWeight format, check s) wins over the late 161001 (check y)
    both = no_out_bias.with_tensor("outWeight", base.tensor("outWeight").with_desc(format=F.ND))
    assert (_exp(both).status, _exp(both).rule_id) == (INVALID, "WQP-FORMAT-006")
    # no bias: outBias is never looked at
    ignored = calls.make_call("x", out_bias=True)
    exp = _exp(ignored)
    assert exp.kind == "success" and exp.judge_values
    assert _exp(ignored, "doc").kind == "success" and not _exp(ignored, "doc").judge_values


def test_ncl_weight_fails_in_the_conversion_under_cann():
    mm = calls.base_call()
    ncl = mm.with_tensor("weight", mm.tensor("weight").with_desc(format=F.NCL))
    assert (_exp(ncl).status, _exp(ncl).rule_id) == (Status.ERR_INNER_NULLPTR, "WQP-INNER-001")
    assert (_exp(ncl, "doc").status, _exp(ncl, "doc").rule_id) == (INVALID, "WQP-FORMAT-002")
    # after every check: a later 161002 decides first
    late = ncl.with_tensor("outBiasOptional", mm.tensor("outBiasOptional").with_desc(format=F.NCHW))
    assert _exp(late).rule_id == "WQP-FORMAT-009"
    gmm = calls.gmm_base_call()
    gncl = gmm.with_tensor("weight", gmm.tensor("weight").with_desc(format=F.NCL))
    assert _exp(gncl).kind == "success" and not _exp(gncl).judge_values


@pytest.mark.parametrize("k,cann,doc", [
    (64, "judged", "judged"), (96, "judged", "judged"), (40, "judged", INVALID), (2, "judged", INVALID),
    (33, "not judged", INVALID), (1, "not judged", INVALID)])
def test_k_not_a_multiple_of_32(k, cann, doc):
    case = calls.make_call(f"k{k}", k=k, n=16)
    exp = _exp(case)
    assert exp.kind == "success" and exp.judge_values == (cann == "judged")
    exp = _exp(case, "doc")
    if doc == "judged":
        assert exp.kind == "success" and exp.judge_values
    else:
        assert (exp.status, exp.rule_id) == (doc, "WQP-SHAPE-001")


def test_documented_but_unenforced_rules_are_doc_only():
    doc_only = {r.id for r in SPEC.checks() if set(r.expect) == {"doc"}}
    assert {"WQP-SHAPE-001", "WQP-SHAPE-002", "WQP-STRIDE-002", "WQP-STRIDE-004", "WQP-FORMAT-002",
            "WQP-FORMAT-008", "WQP-SHAPE-005", "WQP-SHAPE-012"} <= doc_only
    for rule_id in doc_only:
        case = next(c for c in fault_cases(SPEC) if c.rule_ids == (rule_id,))
        assert _exp(case, "doc").status == INVALID
        # cann accepts the call, except where another check of the code rejects the same fault
        later = {"WQP-FORMAT-002": "WQP-INNER-001", "WQP-SHAPE-007": "WQP-SHAPE-008"}
        exp = _exp(case)
        if exp.kind == "error":
            assert later.get(rule_id) == exp.rule_id, (rule_id, exp)
        else:
            assert exp.kind == "success"


def test_scale_layouts_the_code_accepts():
    spread = calls.make_call("spread", k=128, n=8, scale_layout="spread")
    assert _exp(spread).judge_values and _exp(spread, "doc").status == INVALID
    out_spread = calls.make_call("out-spread", k=128, n=8, out_scale_layout="spread")
    assert _exp(out_spread).judge_values and _exp(out_spread, "doc").judge_values
    nchw = calls.make_call("nchw", k=64, n=8, scale_format=F.NCHW)
    assert _exp(nchw).judge_values
    assert _exp(nchw, "doc").rule_id == "WQP-FORMAT-004"
    gnchw = calls.make_call("gnchw", g=2, k=64, n=8, scale_format=F.NCHW, out_scale_format=F.ND)
    assert _exp(gnchw, "doc").judge_values


def test_bias_shapes():
    for g, bias, ok in ((None, "n", True), (None, "1n", True), (2, "gn", True)):
        assert _exp(calls.make_call("b", g=g, k=32, n=16, bias=bias)).judge_values == ok
    ut = UT_CASES["ut-bias-2x128"]
    assert _exp(ut).rule_id == "WQP-SHAPE-008"
    assert _exp(ut, "doc").kind == "not_judged"  # the document states no bias shape


def test_errata_are_recorded():
    assert len(SPEC.errata) >= 8
    assert all(e.op == SPEC.key and e.doc_says and e.cann_does for e in SPEC.errata)


# ---- judging through the reference backend, and deliberately broken outputs ----

def _reference(case):
    return ReferenceBackend().run(case, "ascend950")


def test_reference_scores_the_table():
    for case in calls.table_cases("ci"):
        j = judge(SPEC, case, "ascend950", "cann", _reference(case))
        assert j.outcome == "PASS", (case.case_id, j.detail)


def _broken(case, name, edit):
    res = _reference(case)
    storages = dict(res.storages)
    raw = storages[name].copy().view(np.uint8)
    edit(raw)
    storages[name] = raw.view(case.tensor(name).storage.dtype)
    return RunResult(0, storages)


def _nz_size(case):
    return int(np.prod(case.desc("outWeight").storage_shape))


MUTANTS = {
    "padding-not-written": ("outWeight", lambda c: lambda raw: raw.__setitem__(
        np.flatnonzero(nz_padding_mask(c.desc("weight").shape[-2], c.desc("weight").shape[-1],
                                       *c.desc("weight").shape[:-2]).reshape(-1)),
        calls.OUT_WEIGHT_SENTINEL)),
    "nibble-order-swapped": ("outWeight", lambda c: lambda raw: raw.__setitem__(
        slice(0, _nz_size(c)), raw[:_nz_size(c)].reshape(-1, 2)[:, ::-1].reshape(-1).copy())),
    "guard-written": ("outWeight", lambda c: lambda raw: raw.__setitem__(-1, 0)),
    "n-and-k-swapped-in-fractal": ("outWeight", lambda c: lambda raw: raw.__setitem__(
        slice(0, _nz_size(c)), raw[:_nz_size(c)].reshape(-1, 16, 32)[:, :, ::-1].reshape(-1).copy())),
    "scale-not-copied": ("outWeightScale", lambda c: lambda raw: raw.__setitem__(
        slice(None), calls.OUT_SCALE_SENTINEL)),
    "bias-not-copied": ("outBiasOptional", lambda c: lambda raw: raw.__setitem__(slice(0, 2), 0x55)),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_the_judge_fails_broken_outputs(mutant):
    case = calls.make_call("mutant", k=40, n=17, seed=9, bias="n")
    name, edit = MUTANTS[mutant]
    j = judge(SPEC, case, "ascend950", "cann", _broken(case, name, edit(case)))
    assert j.outcome == "FAIL" and j.verdicts[name] == "FAIL", (mutant, j.detail)
