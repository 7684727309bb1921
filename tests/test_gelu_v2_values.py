"""aclnnGeluV2's values in both forms (its ``approximate`` attribute, varied in the value cases):
the oracle against Python's math module element by element, the torch backend on every value case,
and the generated mutants (the attribute ignored among them) killed with the controls clean."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg

PRODUCTS = ("atlas-a2", "ascend950")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(values, approximate: int) -> Case:
    x = np.asarray(values, np.float32)
    return Case(op="gelu_v2", case_id="hand",
                tensors={"x": TensorArg.from_array(x, AclDataType.FLOAT),
                         "y": TensorArg.from_array(np.zeros_like(x), AclDataType.FLOAT)},
                attrs={"approximate": approximate})


def _exact_form(v: float) -> float:
    return 0.5 * v * math.erfc(-v / math.sqrt(2.0))


def _tanh_form(v: float) -> float:
    z = math.sqrt(2.0 / math.pi) * (v + 0.044715 * v ** 3)
    return 0.5 * v * (1.0 + math.tanh(z))


def test_both_forms_against_the_math_module():
    from aclnn_conformance.oracle.surface import from_case
    x = np.array([-9.0, -5.5, -3.0, -1.0, -0.25, 0.0, 0.5, 1.0, 2.5, 7.0], np.float32)
    exact = from_case(_call(x, 0), "cann").views["y"].astype(np.float64)
    tanh = from_case(_call(x, 1), "cann").views["y"].astype(np.float64)
    want_exact = np.array([_exact_form(float(v)) for v in x])
    want_tanh = np.array([_tanh_form(float(v)) for v in x])
    # each within one float32 rounding of the double value (the tanh form's 1 + tanh cancels in
    # double below -5, so it is compared where it does not)
    np.testing.assert_allclose(exact, want_exact, rtol=2 ** -23, atol=1e-45)
    keep = x > -5
    np.testing.assert_allclose(tanh[keep], want_tanh[keep], rtol=2 ** -22, atol=1e-45)
    assert exact[0] < 0 and exact[0] > -1e-17            # x Phi(x) at -9: tiny, not a cancelled 0
    assert not np.array_equal(exact, tanh)               # the two forms differ (by up to 5e-4)
    # any approximate but 1 is the exact form (the host code's word is 'none')
    assert np.array_equal(from_case(_call(x, 2), "cann").views["y"], exact.astype(np.float32))


def _judged(backend, case: Case, product: str) -> str:
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    return judge(operator("gelu_v2").spec, case, product, "cann", backend.run(case, product)).outcome


def test_the_value_cases_take_both_forms_and_torch_passes_them():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    cases = value_cases("gelu_v2")
    assert {c.attrs["approximate"] for c in cases} == {0, 1}
    for case in cases:
        for product in PRODUCTS:
            assert _judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED"), (case.case_id, product)


def test_each_mutant_is_killed_and_each_control_clean_through_mutate():
    """The command's own path (run_case, the product's special-value model): the attribute ignored
    is killed only by the tanh calls; a flush-to-zero device passes."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.reports.mutate import mutate
    found = MUTANT_SETS.gelu_v2
    assert "attribute-ignored" in {m.kind for m in found.mutants}
    assert "flush-to-zero-control" in {c.kind for c in found.controls}
    doc = mutate("ci", mutants=list(found.mutants) + list(found.controls), products=PRODUCTS)
    by = {m["name"]: m for m in doc["mutants"]}
    for mutant in found.mutants:
        assert by[mutant.name]["status"] == "killed" and by[mutant.name]["named"], mutant.kind
    ignored = next(m for m in found.mutants if m.kind == "attribute-ignored")
    assert {k["case_id"] for k in by[ignored.name]["kills"]} <= {"values-attrs1"}
    for control in found.controls:
        assert by[control.name]["status"] == "control" and by[control.name]["killing_cases"] == 0, control.kind
    assert doc["passed"]


def test_the_exact_form_is_open_where_its_float32_evaluation_cancels():
    from aclnn_conformance.oracle.surface import from_case
    x = np.array([-6.0, -3.6, -3.4, 0.0, 2.0], np.float32)
    assert from_case(_call(x, 0), "cann").aux["y"]["unjudged"].tolist() == [True, True, False, False, False]
    assert not from_case(_call(x, 1), "cann").aux["y"]["unjudged"].any()
    # a device that cancels there (0.5 x (1 + erf) in float32, the kernel's order) passes
    from aclnn_conformance.spec.surface_compare import compare
    from aclnn_conformance.spec.surface_models import standards_for
    result = from_case(_call(x, 0), "cann")
    erf = np.array([math.erf(float(v) / math.sqrt(2.0)) for v in x], np.float32)
    cancelled = (np.float32(0.5) * x * (np.float32(1.0) + erf)).astype(np.float32)
    assert compare(standards_for("gelu_v2")["y"], cancelled, result.views["y"], result.aux["y"]).outcome == "PASS"


def test_a_zero_dim_call_on_torch_keeps_its_shape():
    """The vendor's unit test l2_gelu_v2_test_021_scalar: a 0-d x (torch once read it as [1])."""
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    x = np.array(1.5, np.float32)
    case = Case(op="gelu_v2", case_id="hand", tensors={
        "x": TensorArg.from_array(x, AclDataType.FLOAT),
        "y": TensorArg.from_array(np.zeros((), np.float32), AclDataType.FLOAT)}, attrs={"approximate": 0})
    result = TorchBackend().run(case, "atlas-a2")
    assert result.status == 0 and result.storages["y"].reshape(()) == np.float32(_exact_form(1.5))
