"""The executable spec of aclnnApplyAdamW against the document and the vendor's behaviour (the op_api
checks and statuses of notes/apply_adam_w.md section 5.1, the product support of section 4)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.apply_adam_w import PARAMS, REQUIRED, SCALARS, arch_dtypes
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.suites.calls import apply_adam_w as calls
from aclnn_conformance.spec.faults import fault_cases, fault_pair_cases, faults_of
from aclnn_conformance.spec.tensor import TensorArg

SPEC = op_spec("apply_adam_w")
DOC = Path(__file__).resolve().parents[2] / "shared" / "docs" / "aclnnApplyAdamW.md"
UNFAULTED = {"AAW-PRODUCT-001", "AAW-PRODUCT-002", "AAW-NULL-013", "AAW-NULL-014"}
NULLPTR, INVALID = Status.ERR_PARAM_NULLPTR, Status.ERR_PARAM_INVALID


def _fault(rule_id: str):
    return next(c for c in fault_cases(SPEC) if c.case_id == f"fault-{rule_id}")


def test_every_parameter_row_of_the_document_is_in_the_spec():
    if not DOC.exists():
        pytest.skip(f"vendor document not found at {DOC}")
    text = DOC.read_text()
    table = text[text.index("参数说明"):text.index("返回值")]
    doc_names = re.findall(r"<td[^>]*>(\w+)（(?:aclTensor\*|bool|uint64_t\*|aclOpExecutor\*\*)）</td>", table)
    assert len(doc_names) == 16
    assert doc_names == [p.name for p in PARAMS]
    rows = {p.name: p for p in PARAMS}
    assert set(rows["varRef"].dtypes) == {DT.FLOAT16, DT.BF16, DT.FLOAT}
    assert all(rows[n].ranks == (1,) for n in SCALARS)
    assert rows["maxGradNormOptional"].optional


def test_every_check_rule_decides_its_own_fault_case():
    decided = {expected_outcome(SPEC, case, product, profile).rule_id
               for case in fault_cases(SPEC) for product in PRODUCT_IDS for profile in PROFILES}
    checks = {r.id for r in SPEC.checks()}
    assert set(faults_of(SPEC.key)) == checks - UNFAULTED
    assert set(faults_of(SPEC.key)) <= decided


def test_every_precondition_and_value_rule_is_named_by_a_generated_case():
    from aclnn_conformance.suites.test_apply_adam_w import RELATION_RULES
    cases = list(calls.table_cases("ci"))
    named = {rid for c in cases for rid in c.rule_ids} | {r for rs in RELATION_RULES.values() for r in rs}
    values = {r.id for r in SPEC.rules if r.kind == "value"}
    assert values <= named, values - named
    for rule in (r for r in SPEC.rules if r.kind == "precondition"):
        assert any(rule.violated(c) for c in cases), rule.id


def test_null_checks_run_in_parameter_order_before_dtypes():
    """N1..N11 in parameter order: with every required tensor NULL, varRef decides; with grad NULL
    and a wrongly typed beta1, the NULL wins (161001 before 161002)."""
    base = calls.base_call()
    all_null = base
    for name in REQUIRED:
        all_null = all_null.with_tensor(name, None)
    assert expected_outcome(SPEC, all_null, "ascend950", "cann").rule_id == "AAW-NULL-001"
    case = base.with_tensor("grad", None).with_tensor(
        "beta1", base.tensor("beta1").with_desc(dtype=DT.INT32))
    exp = expected_outcome(SPEC, case, "ascend950", "cann")
    assert (exp.status, exp.rule_id) == (NULLPTR, "AAW-NULL-011")


@pytest.mark.parametrize("amsgrad,status", [(True, NULLPTR), (False, Status.SUCCESS)])
def test_null_max_grad_norm_is_an_error_only_with_amsgrad(amsgrad, status):
    case = calls.make_call("mgn-null", amsgrad=amsgrad, max_grad_norm=False)
    exp = expected_outcome(SPEC, case, "ascend950", "cann")
    assert (exp.status or 0) == status


def test_dtype_list_then_equality_then_shapes():
    """D1..D11 (list), D12..D21 (equal to varRef), then the shapes: a DOUBLE eps and an fp16 mRef
    -> the list check of eps (D10) runs before mRef's equality (D12); an fp16 mRef and a reshaped
    grad -> the dtype wins."""
    base = calls.base_call()
    case = base.with_tensor("eps", base.tensor("eps").with_desc(dtype=DT.DOUBLE)).with_tensor(
        "mRef", base.tensor("mRef").with_desc(dtype=DT.FLOAT16))
    assert expected_outcome(SPEC, case, "ascend950", "cann").rule_id == "AAW-DTYPE-010"
    case = faults_of(SPEC.key)["AAW-SHAPE-005"].build(
        base.with_tensor("mRef", base.tensor("mRef").with_desc(dtype=DT.FLOAT16)))
    exp = expected_outcome(SPEC, case, "ascend950", "cann")
    assert (exp.status, exp.rule_id) == (INVALID, "AAW-DTYPE-013")


def test_max_grad_norm_checked_whenever_given_in_cann_only():
    """Erratum E4: the op_api checks maxGradNorm's dtype and shape whenever it is non-NULL; the
    document names the error for amsgrad true only."""
    for rule_id in ("AAW-DTYPE-024", "AAW-SHAPE-004"):
        case = _fault(rule_id)
        assert not case.attrs["amsgrad"]
        assert expected_outcome(SPEC, case, "ascend950", "cann").status == INVALID
        doc = expected_outcome(SPEC, case, "ascend950", "doc")
        assert doc.kind == "success" and doc.judge_values
    for rule_id in ("AAW-DTYPE-023", "AAW-SHAPE-003"):
        assert expected_outcome(SPEC, _fault(rule_id), "ascend950", "doc").status == INVALID


def test_scalar_tensors_need_one_element_not_shape_1():
    """Erratum E3: S5 counts elements; the document asks for shape [1]."""
    for shape in ((), (1,), (1, 1)):
        case = calls.make_call("scalars", scalar_shape=shape)
        assert expected_outcome(SPEC, case, "ascend950", "cann").kind == "success"
    assert expected_outcome(SPEC, _fault("AAW-SHAPE-006"), "ascend950", "cann").status == INVALID
    assert expected_outcome(SPEC, _fault("AAW-SHAPE-006"), "ascend950", "doc").status == INVALID
    doc = expected_outcome(SPEC, _fault("AAW-SHAPE-007"), "ascend950", "doc")
    assert doc.kind == "error" and doc.status is None


@pytest.mark.parametrize("rule_id", ["AAW-FORMAT-001", "AAW-RANK-001", "AAW-SHAPE-007"])
def test_documented_but_unchecked_layout_is_valid_in_cann(rule_id):
    case = _fault(rule_id)
    cann = expected_outcome(SPEC, case, "ascend950", "cann")
    assert cann.kind == "success" and cann.judge_values
    assert expected_outcome(SPEC, case, "ascend950", "doc").kind == "error"


def test_product_table():
    """Ascend 950 runs it; on A2/A3 (no kernel in the built-in package) GetWorkspaceSize returns 0
    and the launch fails, with the source cited; the other lines fail a valid call with some error,
    after the same host checks as Ascend 950."""
    base = calls.base_call()
    assert expected_outcome(SPEC, base, "ascend950", "cann").judge_values
    for product in ("atlas-a2", "atlas-a3"):
        exp = expected_outcome(SPEC, base, product, "cann")
        assert (exp.kind, exp.status, exp.rule_id) == ("not_supported", None, "AAW-PRODUCT-002")
        assert exp.first_phase_succeeds
        assert expected_outcome(SPEC, _fault("AAW-NULL-003"), product, "cann").status == NULLPTR
    source = SPEC.rule("AAW-PRODUCT-002").source
    assert "e5c3fa9327ea95ba26d06227e746923580d10921" in source and "ascendc_config.json:551" in source
    assert "aa3cd74b7f6d772acd64ff48292a7e65a9bc8142" in source
    for product in ("atlas-200i-500-a2", "atlas-inference", "atlas-training"):
        exp = expected_outcome(SPEC, base, product, "cann")
        assert (exp.kind, exp.status, exp.rule_id) == ("not_supported", None, "AAW-PRODUCT-002")
        assert expected_outcome(SPEC, _fault("AAW-NULL-003"), product, "cann").status == NULLPTR
        assert expected_outcome(SPEC, _fault("AAW-SHAPE-001"), product, "cann").status == INVALID
    for product in PRODUCT_IDS:
        if product != "ascend950":
            assert expected_outcome(SPEC, base, product, "doc").kind == "not_supported"
    assert SPEC.supported == {"cann": frozenset({"ascend950"}), "doc": frozenset({"ascend950"})}


def test_empty_var_succeeds_on_every_product_in_cann():
    case = calls.make_call("empty", (0, 4))
    for product in PRODUCT_IDS:
        assert expected_outcome(SPEC, case, product, "cann").kind == "success"
    # the shape checks run before the emptiness shortcut
    bad = case.with_tensor("grad", TensorArg.from_array(case.tensor("grad").values().reshape(4, 0),
                                                        DT.FLOAT))
    assert expected_outcome(SPEC, bad, "atlas-inference", "cann").status == INVALID


def test_bfloat16_is_not_in_the_atlas_training_list():
    assert DT.BF16 not in arch_dtypes("atlas-training") and DT.BF16 in arch_dtypes("atlas-a2")
    case = calls.make_call("bf16", dtype="bfloat16")
    exp = expected_outcome(SPEC, case, "atlas-training", "cann")
    assert (exp.kind, exp.status) == ("error", INVALID)
    assert expected_outcome(SPEC, case, "atlas-inference", "cann").kind == "not_supported"


def test_fault_pairs_show_the_check_order():
    pairs = list(fault_pair_cases(SPEC))
    categories = {(SPEC.rule(c.rule_ids[0]).category, SPEC.rule(c.rule_ids[1]).category) for c in pairs}
    assert ("nullptr", "dtype") in categories and ("dtype", "shape") in categories
    for case in pairs:
        early, late = (SPEC.rule(r) for r in case.rule_ids)
        assert SPEC.checks().index(early) < SPEC.checks().index(late)


def test_null_out_pointers_are_not_judged():
    case = calls.base_call().with_(null_outputs=frozenset({"workspaceSize"}))
    assert expected_outcome(SPEC, case, "ascend950", "cann").kind == "not_judged"


# ---- a backend that implements the document literally ----

class DocLiteralBackend:
    """The document's formula in float64, amsgrad's maximum stored into vRef as the parameter row
    reads; written from the document alone."""

    name, version, waivers = "doc-literal", "1", ()

    def run(self, case, product):
        import numpy as np
        from aclnn_conformance.backends.base import RunResult
        st = case.copy_storages()
        val = {n: (None if a is None else a.values().astype(np.float64)) for n, a in case.tensors.items()}
        one = {n: float(val[n].reshape(-1)[0]) for n in SCALARS}
        g = -val["grad"] if case.attrs["maximize"] else val["grad"]
        m = one["beta1"] * val["mRef"] + (1 - one["beta1"]) * g
        v = one["beta2"] * val["vRef"] + (1 - one["beta2"]) * g * g
        if case.attrs["amsgrad"]:
            v = np.maximum(val["maxGradNormOptional"], v)
        m_hat = m / (1 - one["beta1Power"] * one["beta1"])
        v_hat = v / (1 - one["beta2Power"] * one["beta2"])
        theta = val["varRef"]
        theta = theta - one["lr"] * m_hat / (np.sqrt(v_hat) + one["eps"]) - one["lr"] * one["weightDecay"] * theta
        for name, values in (("varRef", theta), ("mRef", m), ("vRef", v)):
            arg = case.tensor(name)
            arg.view_of(st[name])[...] = values.astype(arg.storage.dtype)
        return RunResult(Status.SUCCESS, st, 0)


def test_doc_literal_backend_passes_doc_and_fails_cann_on_amsgrad():
    """Erratum E2: the document stores max(maxGradNorm, v) in vRef; the vendor writes v."""
    from aclnn_conformance.judging.judge import judge
    case = next(c for c in calls.table_cases("ci") if c.case_id == "amsgrad-max-float32")
    backend = DocLiteralBackend()
    assert judge(SPEC, case, "ascend950", "doc", backend.run(case, "ascend950")).outcome == "PASS"
    cann = judge(SPEC, case, "ascend950", "cann", backend.run(case, "ascend950"))
    assert cann.outcome == "FAIL" and cann.verdicts["vRef"] == "FAIL" and cann.verdicts["varRef"] == "PASS"
