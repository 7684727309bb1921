"""The executable spec of aclnnApplyAdamWQuant against the document and the vendor's behaviour."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.apply_adam_w_quant import BLOCK, PARAMS, TENSORS, absmax_count
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import PROFILES, expected_outcome
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
from aclnn_conformance.spec.faults import faults_of, fault_cases, fault_pair_cases
from aclnn_conformance.judging.judge import judge

SPEC = op_spec("apply_adam_w_quant")
SEED_DOC = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "000_275af1729615bdac.txt"


def test_every_parameter_row_of_the_document_is_in_the_spec():
    """Each name in the document's GetWorkspaceSize parameter table is a PARAMS row, and the documented
    dtypes of the tensor rows are the spec's."""
    if not SEED_DOC.exists():
        pytest.skip(f"vendor document not found at {SEED_DOC}")
    text = SEED_DOC.read_text()
    table = text[text.index("Parameter Input/Output"):text.index("Return value")]
    doc_names = re.findall(r"^\s*(\w+) \((?:aclTensor\*|double|int64_t|char\*|uint64_t\*|aclOpExecutor\*\*)\)",
                           table, re.M)
    assert len(doc_names) == 19
    spec_names = [p.name for p in PARAMS]
    assert sorted(doc_names) == sorted(spec_names)
    rows = {p.name: p for p in PARAMS}
    assert set(rows["varRef"].dtypes) == {DT.FLOAT16, DT.BF16, DT.FLOAT}
    assert rows["mRef"].dtypes == (DT.UINT8,) and rows["step"].dtypes == (DT.INT64,)
    assert all(rows[n].ranks == tuple(range(1, 9)) for n in ("varRef", "grad", "mRef", "vRef"))


def test_every_check_rule_decides_its_own_fault_case():
    """Rule coverage, errors: each check rule's generated fault is decided by that rule on some
    product under some profile."""
    decided = set()
    for case in fault_cases(SPEC):
        for product in PRODUCT_IDS:
            for profile in PROFILES:
                decided.add(expected_outcome(SPEC, case, product, profile).rule_id)
    first_phase = {r.id for r in SPEC.checks() if r.phase == "GetWorkspaceSize"}
    assert set(faults_of(SPEC.key)) == first_phase - {"AAWQ-PRODUCT-001"}
    assert set(faults_of(SPEC.key)) <= decided
    product_rule = SPEC.rule("AAWQ-PRODUCT-001")  # exercised by running on an unsupported product
    assert expected_outcome(SPEC, calls.base_call(), "atlas-training", "cann").rule_id == product_rule.id


def test_every_precondition_and_value_rule_is_named_by_a_generated_case():
    """Rule coverage, values: each value rule is exercised by a table case, each precondition is
    broken by one."""
    from aclnn_conformance.suites.test_apply_adam_w_quant import RELATION_RULES
    cases = list(calls.table_cases("ci"))
    named = {rid for c in cases for rid in c.rule_ids} | {r for rs in RELATION_RULES.values() for r in rs}
    values = {r.id for r in SPEC.rules if r.kind == "value"}
    assert values <= named, values - named
    for rule in (r for r in SPEC.rules if r.kind == "precondition"):
        assert any(rule.violated(c) for c in cases), rule.id


def test_fault_pairs_show_the_check_order():
    pairs = list(fault_pair_cases(SPEC))
    categories = {(SPEC.rule(c.rule_ids[0]).category, SPEC.rule(c.rule_ids[1]).category) for c in pairs}
    assert ("nullptr", "dtype") in categories and ("dtype", "shape") in categories
    for case in pairs:
        early, late = (SPEC.rule(r) for r in case.rule_ids)
        assert SPEC.checks().index(early) < SPEC.checks().index(late)
        assert expected_outcome(SPEC, case, "ascend950", "cann").rule_id == early.id


@pytest.mark.parametrize("product,code", [("atlas-a2", None), ("ascend950", Status.ERR_INNER_TILING_ERROR)])
def test_absmax_count_is_checked_on_950_only(product, code):
    case = next(c for c in fault_cases(SPEC) if c.case_id == "fault-AAWQ-SHAPE-008")
    exp = expected_outcome(SPEC, case, product, "cann")
    if code is None:
        assert exp.kind == "success" and exp.judge_values
    else:
        assert (exp.kind, exp.status) == ("error", code)


def test_documented_codes_and_tiling_codes_per_profile():
    base = calls.base_call()
    null_var = base.with_tensor("varRef", None)
    assert expected_outcome(SPEC, null_var, "atlas-a2", "doc").status == Status.ERR_PARAM_NULLPTR
    block = base.with_attrs(blockSize=128)
    assert expected_outcome(SPEC, block, "atlas-a2", "cann").status == Status.ERR_INNER_TILING_ERROR
    doc = expected_outcome(SPEC, block, "atlas-a2", "doc")
    assert doc.kind == "error" and doc.status is None  # the document gives no code: any error
    assert expected_outcome(SPEC, base, "ascend950", "doc").kind == "not_supported"
    assert expected_outcome(SPEC, base, "ascend950", "cann").kind == "success"


def test_absmax_count_is_ceil_of_blocks():
    assert [absmax_count(n) for n in (0, 1, 255, 256, 257, 512, 513)] == [0, 1, 1, 1, 2, 2, 3]
    assert BLOCK == 256


# ---- a backend that implements the document literally ----

class DocLiteralBackend:
    """t = step and theta - lr*m_hat/(sqrt(v_hat)+eps) - lr*wd*theta, in float64, written from the
    document's formula alone (quantization as the document describes it: nearest code, absmax)."""

    name, version, waivers = "doc-literal", "1", ()

    def available(self):
        return True, ""

    def products(self):
        return PRODUCT_IDS

    def run(self, case, product):
        st = case.copy_storages()
        val = {n: a.values() for n, a in case.tensors.items()}
        a = {k: float(np.float32(v)) for k, v in case.attrs.items()
             if k in ("lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale")}
        n = val["varRef"].size
        blk = np.arange(n) // BLOCK
        qm, qv = val["qmapM"].astype(np.float64), val["qmapV"].astype(np.float64)
        theta = val["varRef"].astype(np.float64).reshape(-1)
        g = val["grad"].astype(np.float64).reshape(-1) * a["gnormScale"]
        m = qm[val["mRef"].reshape(-1)] * val["absmaxMRef"].astype(np.float64)[blk]
        v = qv[val["vRef"].reshape(-1)] * val["absmaxVRef"].astype(np.float64)[blk]
        t = float(val["step"][0])
        m = a["beta1"] * m + (1 - a["beta1"]) * g
        v = a["beta2"] * v + (1 - a["beta2"]) * g * g
        mhat, vhat = m / (1 - a["beta1"] ** t), v / (1 - a["beta2"] ** t)
        theta = theta - a["lr"] * mhat / (np.sqrt(vhat) + a["eps"]) - a["lr"] * a["weightDecay"] * theta
        am = np.zeros(absmax_count(n)); av = np.zeros(absmax_count(n))
        np.maximum.at(am, blk, np.abs(m)); np.maximum.at(av, blk, v)
        xm, xv = m / np.where(am == 0, 1, am)[blk], v / np.where(av == 0, 1, av)[blk]
        codes = lambda x, q: np.argmin(np.abs(x[:, None] - q[None, :]), axis=1).astype(np.uint8)
        outs = {"varRef": theta, "mRef": codes(xm, qm), "vRef": codes(xv, qv),
                "absmaxMRef": am, "absmaxVRef": av}
        for name, values in outs.items():
            arg = case.tensor(name)
            arg.view_of(st[name])[...] = values.reshape(arg.desc.shape).astype(arg.storage.dtype)
        return RunResult(Status.SUCCESS, st, 0)


@pytest.mark.parametrize("case_id", ["first-steps-step1", "weight-decay-large", "n257-float32"])
def test_doc_literal_backend_passes_doc_and_fails_cann(case_id):
    case = next(c for c in calls.table_cases("ci") if c.case_id == case_id)
    backend = DocLiteralBackend()
    result = backend.run(case, "atlas-a2")
    doc = judge(SPEC, case, "atlas-a2", "doc", result)
    assert doc.outcome == "PASS", doc.detail
    cann = judge(SPEC, case, "atlas-a2", "cann", backend.run(case, "atlas-a2"))
    assert cann.outcome == "FAIL"
    assert cann.verdicts["varRef"] == "FAIL"
    assert {"AAWQ-VAL-003", "AAWQ-VAL-004"} & set(case.rule_ids)


# ---- the runtime between the API and the tiling (notes apply_adam_w_quant.md section 10) ----

SUPPORTED_CANN = ("atlas-a2", "atlas-a3", "ascend950")
TILING = Status.ERR_INNER_TILING_ERROR


def _reformatted(case, name, fmt):
    return case.with_tensor(name, case.tensor(name).with_desc(format=fmt))


@pytest.mark.parametrize("fmt", [F.NCL, F.NCDHW, F.NHWC, F.NCHW])
@pytest.mark.parametrize("name", TENSORS)
def test_nd_like_formats_are_valid_calls_under_cann_only(name, fmt):
    """Section 10, N1: the runtime rewrites NCL, NCDHW, NHWC, NCHW to ND on every tensor."""
    case = _reformatted(calls.base_call(), name, fmt)
    for product in SUPPORTED_CANN:
        exp = expected_outcome(SPEC, case, product, "cann")
        assert exp.kind == "success" and exp.judge_values, (product, exp)
    doc = expected_outcome(SPEC, case, "atlas-a2", "doc")
    assert (doc.status, doc.rule_id) == (Status.ERR_PARAM_INVALID,
                                         f"AAWQ-FORMAT-{TENSORS.index(name) + 1:03d}")


@pytest.mark.parametrize("fmt", [F.HWCN, F.NDHWC, F.NC1HWC0, F.FRACTAL_NZ, F.NC])
def test_formats_outside_the_rewrite_are_161002_under_both_profiles(fmt):
    case = _reformatted(calls.base_call(), "vRef", fmt)
    for product in SUPPORTED_CANN:
        assert expected_outcome(SPEC, case, product, "cann").status == Status.ERR_PARAM_INVALID
    assert expected_outcome(SPEC, case, "atlas-a2", "doc").status == Status.ERR_PARAM_INVALID


def test_nd_like_fault_cases_expect_success_under_cann():
    for i in range(len(TENSORS)):
        case = next(c for c in fault_cases(SPEC) if c.case_id == f"fault-AAWQ-FORMAT-{i + 1:03d}")
        assert case.desc(TENSORS[i]).format == F.NCHW
        assert all(expected_outcome(SPEC, case, p, "cann").judge_values for p in SUPPORTED_CANN)


def test_null_workspace_size_is_not_judged_under_cann():
    """Section 10, G4: 0 or 161001 depending on the runtime's path; the document says error."""
    case = calls.base_call().with_(null_outputs=frozenset({"workspaceSize"}))
    for product in SUPPORTED_CANN:
        assert expected_outcome(SPEC, case, product, "cann").kind == "not_judged"
    doc = expected_outcome(SPEC, case, "atlas-a2", "doc")
    assert doc.kind == "error" and doc.status is None
    erratum = next(e for e in SPEC.errata if "workspaceSize" in e.cann_does)
    assert "ACLNN_SUCCESS" in erratum.cann_does and "section 10" in erratum.source


@pytest.mark.parametrize("name", ["absmaxMRef", "absmaxVRef"])
def test_empty_absmax_beside_a_non_empty_var(name):
    """Section 10: never checked on Atlas A2/A3 (not judged); 561002 on Ascend 950 (T35-6)."""
    base = calls.base_call()
    case = base.with_tensor(name, TensorArg.from_array(np.zeros(0), DT.FLOAT))
    for product in ("atlas-a2", "atlas-a3"):
        exp = expected_outcome(SPEC, case, product, "cann")
        assert (exp.kind, exp.rule_id) == ("not_judged", "AAWQ-EMPTY-002")
    assert expected_outcome(SPEC, case, "ascend950", "cann").status == TILING
    # A2/A3 run every tiling check as if absmax were right: a step fault still decides
    step_1x1 = case.with_tensor("step", TensorArg.from_array(np.array([[3]]), DT.INT64))
    assert expected_outcome(SPEC, step_1x1, "atlas-a2", "cann").rule_id == "AAWQ-SHAPE-007"


def test_empty_var_beside_an_output_fails_last_with_561002():
    """Section 10, T-7: exactly 561002, after every other tiling check."""
    empty = calls.make_call("empty", (0, 256), seed=3)
    assert expected_outcome(SPEC, empty, "atlas-a2", "cann").kind == "success"   # N3
    partly = empty.with_tensor("absmaxVRef", TensorArg.from_array(np.ones(1), DT.FLOAT))
    for product in ("atlas-a2", "atlas-a3"):
        exp = expected_outcome(SPEC, partly, product, "cann")
        assert (exp.status, exp.rule_id) == (TILING, "AAWQ-EMPTY-001")
    # Ascend 950: the absmax count (ceil(0/256) = 0 entries) is compared first
    assert expected_outcome(SPEC, partly, "ascend950", "cann").rule_id == "AAWQ-SHAPE-009"
    # every earlier tiling check decides first
    later = partly.with_attrs(blockSize=128).with_tensor(
        "step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert expected_outcome(SPEC, later, "atlas-a2", "cann").rule_id == "AAWQ-SHAPE-001"
    step_only = partly.with_tensor("step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert expected_outcome(SPEC, step_only, "atlas-a2", "cann").rule_id == "AAWQ-SHAPE-007"
    assert expected_outcome(SPEC, partly, "atlas-a2", "doc").kind == "error"


def test_absmax_counts_are_checked_before_step_on_950():
    """Section 10: T35-6 runs before T-6."""
    case = calls.base_call().with_tensor(
        "absmaxMRef", TensorArg.from_array(np.ones(3), DT.FLOAT)).with_tensor(
        "step", TensorArg.from_array(np.array([[0]]), DT.INT64))
    assert expected_outcome(SPEC, case, "ascend950", "cann").rule_id == "AAWQ-SHAPE-008"
    assert expected_outcome(SPEC, case, "atlas-a2", "cann").rule_id == "AAWQ-SHAPE-007"
    checks = [r.id for r in SPEC.checks()]
    assert checks.index("AAWQ-SHAPE-009") < checks.index("AAWQ-SHAPE-007")


def test_second_phase_checks_are_rules_of_that_phase():
    """Section 10, P2: recorded, never violated by a case (the harness cannot offer them)."""
    launch = [r for r in SPEC.rules if r.phase != "GetWorkspaceSize"]
    assert [r.id for r in launch] == ["AAWQ-LAUNCH-001", "AAWQ-LAUNCH-002", "AAWQ-LAUNCH-003"]
    assert all(r.kind == "check" and r.step == "launch" and r.phase == "Execute" for r in launch)
    assert SPEC.checks()[-3:] == launch
    assert [r.expect_for("cann", "atlas-a2").describe() for r in launch] == [
        "ACLNN_ERR_PARAM_NULLPTR (161001)", "ACLNN_ERR_PARAM_NULLPTR (161001)", "any error"]
    cases = list(calls.table_cases("ci")) + list(fault_cases(SPEC)) + list(fault_pair_cases(SPEC))
    assert not any(r.violated(c) for r in launch for c in cases)


def test_the_rules_section_10_changed_cite_it():
    changed = ([f"AAWQ-FORMAT-{i:03d}" for i in range(1, 19)]
               + ["AAWQ-NULL-011", "AAWQ-EMPTY-001", "AAWQ-EMPTY-002", "AAWQ-SHAPE-007",
                  "AAWQ-LAUNCH-001", "AAWQ-LAUNCH-002", "AAWQ-LAUNCH-003"])
    for rule_id in changed:
        assert "section 10" in SPEC.rule(rule_id).source, rule_id
