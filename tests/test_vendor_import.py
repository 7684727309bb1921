"""The importer on fixture files the team wrote in each vendor format (tests/fixtures/vendor_formats:
every field, and one malformed file per format), and the agreement rule."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.rules import Expected
from aclnn_conformance.vendor.agreement import vendor_agrees
from aclnn_conformance.vendor.cases_dir import read_case, write_import
from aclnn_conformance.vendor.importer import import_paths
from aclnn_conformance.vendor.model import VendorExpectation

FIXTURES = Path(__file__).parent / "fixtures" / "vendor_formats"


@pytest.fixture(scope="module")
def imported():
    result = import_paths([FIXTURES], jobs=1)
    return result, {c.case_id: c for c in result.cases}


def test_gtest_descriptors_values_and_precision(imported):
    _, cases = imported
    vc = cases["ut-fixture_test.every_descriptor_form"]
    var = vc.tensors["varRef"]
    assert (var.dtype, var.shape, var.strides, var.offset, var.storage_shape) == (
        DT.FLOAT, (2, 3), (1, 2), 1, (7,))
    assert var.values == {"kind": "uniform", "lo": -1, "hi": 1}
    assert vc.tensors["mRef"].values == {"kind": "values", "values": [1, 2, 3, 4, 5, 6]}
    assert vc.tensors["maxGradNormOptionalRef"] is None
    assert vc.tensors["grad"].values == {"kind": "uniform", "lo": -2, "hi": 2}   # the harness default
    assert vc.expected.tolerance["precision"] == {"vRef": [0.001, 0.001, 1e-08]}
    assert vc.attrs["lr"] == float(np.float32(0.001)) and vc.attrs["beta1"] == 0.9
    assert vc.attrs["maximize"] is True and vc.attrs["amsgrad"] is False
    assert vc.expected.exact_status() == 0
    assert vc.source.endswith("test_aclnn_fixture.cpp:23")


def test_gtest_statuses_and_the_soc_in_force(imported):
    _, cases = imported
    first = cases["ut-fixture_test.every_descriptor_form"]
    scoped = cases["ut-fixture_test.every_descriptor_form#2"]
    after = cases["ut-fixture_test.every_descriptor_form#3"]
    assert first.product == "atlas-a2" and "SocVersion::ASCEND910B" in first.product_source
    assert (scoped.product, scoped.expected.status) == ("ascend950", Status.ERR_PARAM_NULLPTR)
    assert scoped.tensors["varRef"] is None
    assert after.product == "atlas-a2" and after.expected.kind == "any_error"   # the scope ended
    # an unscoped SetPlatformSocVersion stays for the later tests of the file
    assert cases["ut-fixture_test.helpers_of_an_operator_without_a_spec"].product == "atlas-a3"
    assert cases["ut-fixture_test.the_earlier_soc_stays"].product == "atlas-a3"


def test_helpers_of_an_operator_without_a_spec_are_imported_and_marked(imported):
    _, cases = imported
    vc = cases["ut-fixture_test.helpers_of_an_operator_without_a_spec"]
    assert not vc.has_spec and vc.op == "aclnnFixtureOnly"
    assert [vc.tensors[f"input1[{k}]"].shape for k in range(2)] == [(3,), (3,)]
    assert (vc.attrs["input2"], vc.attrs["input3"], vc.attrs["input4"]) == (2.5, [0, 1], [True, False])
    assert vc.expected.status == Status.ERR_PARAM_INVALID


def test_the_csv_table_of_a_unit_test(imported):
    _, cases = imported
    first, second = cases["ut-first_row"], cases["ut-second_row"]
    assert first.tensors["var"].strides == (1, 2) and first.tensors["var"].storage_shape == (7,)
    assert first.product == "atlas-a2" and first.expected.exact_status() == 0
    assert second.tensors["var"] is None and second.product == "ascend950"
    assert second.expected.status == Status.ERR_PARAM_NULLPTR


def test_atk_every_value_form(imported):
    _, cases = imported
    vc = cases["atk-7"]
    assert vc.source.endswith("atk_aclnnApplyAdamWV2.json#7") and vc.product is None
    assert vc.tensors["mRef"].values == {"kind": "normal", "mean": 0.0, "std": 0.5}
    assert vc.tensors["vRef"].values == {"kind": "constant", "value": 0.25}
    assert vc.tensors["grad"].values == {"kind": "constant", "value": "nan"} or np.isnan(
        vc.tensors["grad"].values["value"])
    assert vc.tensors["maxGradNormOptionalRef"] is None
    assert vc.attrs["beta2"] == float("inf") and vc.attrs["eps"] == float(np.float32(1e-08))
    assert 0 <= vc.attrs["beta1"] <= 0.9999
    assert vc.expected.standard == "double_benchmark"
    listed = cases["atk-8"]
    assert not listed.has_spec and [listed.tensors[f"xs[{k}]"].shape for k in range(2)] == [(2,), (3,)]
    assert listed.attrs["mode"] == "mean"


def test_ttk_kernel_order_maps_onto_the_aclnn_parameters(imported):
    _, cases = imported
    vc = cases["ttk-kernel_row"]
    assert vc.product == "ascend950" and "arch35" in vc.product_source
    # kernel order var, m, v, grad, step, max_grad_norm
    assert vc.tensors["step"].dtype == DT.INT64 and vc.tensors["step"].values == {
        "kind": "uniform", "lo": 1, "hi": 5}
    assert vc.tensors["maxGradNormOptionalRef"].values == {"kind": "uniform", "lo": 0, "hi": 1}
    assert vc.attrs["weightDecay"] == 0.1 and vc.attrs["amsgrad"] is True
    assert vc.expected.tolerance == {"precision_tolerances": ((0.001, 0.001),),
                                     "absolute_precision": 0.001}


def test_ttk_aclnn_strides_offsets_storage_and_soc_series(imported):
    _, cases = imported
    vc = cases["ttk-aclnn_row"]
    assert vc.product == "atlas-a2"
    var = vc.tensors["varRef"]
    assert (var.strides, var.offset, var.storage_shape) == ((1, 2), 1, (7,))
    assert vc.tensors["maxGradNormOptionalRef"] is None
    assert vc.tensors["mRef"].dtype == DT.FLOAT16 and var.format == F.ND


@pytest.mark.parametrize("name,line,words", [
    ("test_aclnn_malformed.cpp", 3, "SomeHelper"),
    ("atk_aclnnMalformed.json", 3, "not valid JSON"),
    ("ttk_aclnn_malformed.csv", 2, "not a Python literal"),
    # ops-nn batch_mat_mul_v3's aclnnEinsum row: its first tensor is a list of two shapes
    ("ttk_aclnn_tensor_list.csv", 2, "is a tensor list: not imported"),
    ("test_aclnn_malformed_table.csv", 2, "not integers"),
])
def test_a_malformed_file_is_named_with_its_line_and_the_rest_imported(imported, name, line, words):
    result, cases = imported
    hits = [p for p in result.problems if p.where.endswith(f"malformed/{name}:{line}")]
    assert len(hits) == 1 and words in hits[0].reason
    assert len(cases) == 11


def test_seeded_values_rebuild_the_same_storages(imported, tmp_path):
    result, _ = imported
    write_import(tmp_path / "with", result, storages=True)
    write_import(tmp_path / "without", result, storages=False)
    report = json.loads((tmp_path / "with" / "import.json").read_text())
    assert len(report["not_imported"]) == len(result.problems)
    for path in sorted((tmp_path / "with").rglob("*.json")):
        if path.name == "import.json":
            continue
        stored, vc = read_case(path)
        rebuilt, _ = read_case(tmp_path / "without" / path.relative_to(tmp_path / "with"))
        assert stored.seed == vc.seed
        for name, arg in stored.tensors.items():
            if arg is not None:
                assert np.array_equal(arg.storage.view(np.uint8),
                                      rebuilt.tensors[name].storage.view(np.uint8)), name


@pytest.mark.parametrize("spec,vendor,agrees", [
    (Expected("success", judge_values=True), VendorExpectation("success", 0), True),
    (Expected("error", 161002, "R"), VendorExpectation("status", 161002), True),
    (Expected("error", 161001, "R"), VendorExpectation("status", 161002), False),
    (Expected("error", None, "R"), VendorExpectation("success", 0), False),
    (Expected("error", None, "R"), VendorExpectation("status", 161002), None),
    (Expected("not_judged"), VendorExpectation("success", 0), None),
    (Expected("success"), VendorExpectation("any_error"), False),
    (Expected("error", 161002, "R"), VendorExpectation("any_error"), None),
])
def test_agreement(spec, vendor, agrees):
    assert vendor_agrees(spec, vendor) is agrees


def test_operator_records_that_cannot_be_read_stop_the_import_instead_of_listing_each_file(monkeypatch):
    # two sources claiming one operator: every file would fail alike, so the import fails once, loudly
    from aclnn_conformance.spec import registry
    from aclnn_conformance.vendor import model

    def broken():
        raise registry.RegistryError("operator 'x' is declared twice: by a module and by a data file")
    monkeypatch.setattr(model, "_ops", broken)
    with pytest.raises(registry.RegistryError, match="declared twice"):
        import_paths([FIXTURES / "op" / "tests" / "ut" / "op_api" / "test_aclnn_fixture.cpp"], jobs=1)
