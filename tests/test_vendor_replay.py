"""The committed imports of the vendor's cases of the five operators (tests/vendor_cases, written by
``aclnn-conformance import`` from ops-nn e5c3fa93 and ops-math c4193324: descriptors, value recipes,
seeds, expectations and sources) replayed on the reference backend, where no vendor checkout exists:
every outcome certifiable and no disagreement with the vendor, on Ascend 950 and on the product
each case states. Cases above CI_ELEMENTS elements are replayed by ``run --cases`` only."""
from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path

import pytest

from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.judging.records import CERTIFIABLE
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.suites.runner import Harness, check_case
from aclnn_conformance.vendor.agreement import vendor_agrees
from aclnn_conformance.vendor.cases_dir import VENDOR_KEY, case_files, load_import, read_case
from aclnn_conformance.vendor.model import op_key_of

CASES = Path(__file__).parent / "vendor_cases"
CI_ELEMENTS = 1_000_000          # a case's tensors together; the rest need seconds each
# counted in the vendor files themselves: EXPECT_EQ on TestGetWorkspaceSize per unit-test file,
# cases of the ATK json, rows of the TTK csv, rows of the CSV table whose checkRet is true
VENDOR_COUNTS = {("apply_adam_w", "gtest"): 14, ("apply_adam_w_v2", "gtest"): 14,
                 ("apply_adam_w_v2", "atk"): 201, ("apply_adam_w_v2", "ttk-kernel"): 80,
                 ("apply_adam_w", "ttk-kernel"): 89, ("apply_adam_w_quant", "atk"): 201,
                 ("quant_matmul_weight_nz", "gtest-csv"): 51}


def _vendor(path: Path) -> dict:
    return json.loads(path.read_text())[VENDOR_KEY]


def _elements(doc: dict) -> int:
    return sum(math.prod(t["shape"]) for t in doc["tensors"].values() if t)


ALL = list(case_files(CASES))
SMALL = [p for p in ALL if _elements(_vendor(p)) <= CI_ELEMENTS]


def test_the_committed_import_holds_every_vendor_case_of_the_five_operators():
    counts = Counter((op_key_of(_vendor(p)["api"]), _vendor(p)["format"]) for p in ALL)
    assert dict(counts) == VENDOR_COUNTS
    report = load_import(CASES)
    assert report["vendor_roots"] == {"ops-nn": "e5c3fa9327ea95ba26d06227e746923580d10921",
                                      "ops-math": "c41933244c31e44fd496e3bb3212164f8c48c214"}
    # what is not imported is listed with file:line and a reason, and nothing else is missing
    assert all(":" in p["where"] and p["reason"] for p in report["not_imported"])
    assert len(report["cases"]) == len(ALL)


def test_the_unit_tests_state_the_harness_product_with_its_citation():
    ut = [_vendor(p) for p in ALL if _vendor(p)["format"] == "gtest"]
    assert {d["product"] for d in ut} == {"atlas-a2"}
    assert all("ops-nn/tests/ut/op_api/stub/opdev/platform.cpp:15" in d["product_source"] for d in ut)


@pytest.fixture(scope="module")
def reference_harness() -> Harness:
    return Harness(backend=ReferenceBackend(), profile="cann", tier="ci", run_id="vendor-replay")


@pytest.mark.parametrize("path", SMALL, ids=[f"{p.parent.name}/{p.stem}" for p in SMALL])
def test_a_committed_vendor_case_replays_certifiably_and_agrees(path: Path, reference_harness):
    case, vc = read_case(path)
    products = ["ascend950"] + ([vc.product] if vc.product not in (None, "ascend950") else [])
    for product in products:
        expected = expected_outcome(op_spec(case.op), case, product, "cann")
        agrees = vendor_agrees(expected, vc.expected)
        record = check_case(reference_harness, case, product, defer=True,
                            annotate={"vendor_source": vc.source,
                                      "vendor_expected": vc.expected.describe(),
                                      "vendor_agrees": agrees})
        assert record.outcome in CERTIFIABLE, (product, record.outcome, record.detail)
        assert agrees is not False, (product, expected.describe(), vc.expected.describe())
        assert record.vendor_source == vc.source
