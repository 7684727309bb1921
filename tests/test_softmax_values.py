"""aclnnSoftmax and aclnnLogSoftmax along one dim: the oracle by hand (Python's math module), the
slices left open (NaN, infinities), the vendor's TTK tolerances as the standard, torch on every value
case, and the generated mutants killed with the controls clean through ``mutate``."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import assert_gated_through_mutate, judged

PRODUCTS = ("atlas-a2", "ascend950")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, dim: int, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, numpy_dtype(dtype))
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(np.zeros_like(x), dtype)},
                attrs={"dim": dim})


def _oracle(case: Case):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann")
    return result.views["out"], result.aux["out"]


def test_softmax_and_log_softmax_by_hand():
    rows = [[1.0, 2.0, 3.0], [-50.0, 0.0, 50.0]]
    want, aux = _oracle(_call("softmax", rows, 1))
    for row, got in zip(rows, want):
        total = sum(math.exp(v) for v in row)
        # one float32 rounding (a subnormal's within half its spacing, 2^-150)
        assert np.allclose(got, [math.exp(v) / total for v in row], rtol=2 ** -23, atol=2 ** -150)
    want, _ = _oracle(_call("log_softmax", rows, 1))
    for row, got in zip(rows, want):
        top = max(row)
        log_total = top + math.log(sum(math.exp(v - top) for v in row))
        assert np.allclose(got, [v - log_total for v in row], rtol=2 ** -23, atol=0)
    # along dim 0 each column sums to 1; the standard is the vendor's TTK numbers for float32
    want, aux = _oracle(_call("softmax", rows, 0))
    assert np.allclose(want.sum(axis=0), 1.0, rtol=1e-6) and aux["rtol"] == aux["atol"] == 1e-4
    assert "ttk_kernel_softmax_v2_st.csv" in aux["source"]


def test_slices_with_nan_or_infinity_are_open():
    _, aux = _oracle(_call("softmax", [[1.0, np.nan], [np.inf, 0.0], [1.0, 2.0]], 1))
    assert aux["unjudged"].tolist() == [[True, True], [True, True], [False, False]]


def test_torch_passes_every_value_case():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in ("softmax", "log_softmax"):
        for case in value_cases(op):
            for product in PRODUCTS:
                assert judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED"), (op, case.case_id)


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_each_mutant_is_killed_and_each_control_clean_through_mutate(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind for m in found.mutants}
    assert {"no-max-subtraction", "wrong-axis", "twice-limit"} <= kinds
    assert ("log-of-softmax" in kinds) == (op == "log_softmax")
    assert {"float32-steps-control", "reciprocal-control"} <= {c.kind for c in found.controls}
    assert_gated_through_mutate(op, "ci", PRODUCTS)


def test_a_device_without_the_maximum_fails_only_where_exp_overflows():
    from aclnn_conformance.backends.mutants.surface_softmax import kernel_order, without_max
    from aclnn_conformance.spec.surface_values import NORMALIZED_EXP
    x = np.array([[1.0, 2.0, 3.0], [10.0, 90.0, 95.0]], np.float32)
    with np.errstate(all="ignore"):
        plain, right = without_max(x, 1, NORMALIZED_EXP), kernel_order(x, 1, NORMALIZED_EXP)
    assert np.allclose(plain[0], right[0], rtol=1e-6)       # small values: the same
    assert np.isnan(plain[1]).any() and np.isfinite(right[1]).all()
