"""aclnnSoftmaxBackward and aclnnLogSoftmaxBackward (value kinds ``normalized-exp-grad`` and
``log-normalized-exp-grad``): the oracle against a per-element loop in Python floats, the model's
bound against float32 evaluations in other orders of the sum, the slices and elements left open,
torch on every value case, and the generated mutants killed with the controls clean."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import (assert_gated_through_mutate, generated_kind as _kind, judged,
                                outcome_of_values as _outcome_on)

PRODUCTS = ("atlas-a2", "ascend950")
GRADS = ("softmax_backward", "log_softmax_backward")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, grad, forward, dim: int, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    g = np.asarray(grad, numpy_dtype(dtype))
    y = np.asarray(forward, numpy_dtype(dtype))
    return Case(op=op, case_id="hand", tensors={"gradOutput": TensorArg.from_array(g, dtype),
                                                 "output": TensorArg.from_array(y, dtype),
                                                 "out": TensorArg.from_array(np.zeros_like(g), dtype)},
                attrs={"dim": dim})


def _oracle(case: Case):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann")
    return result.views["out"], result.aux["out"]


G = [[0.5, -0.25, 1.0], [0.75, 0.125, -1.0]]
Y = [[0.2, 0.3, 0.5], [-0.5, 0.25, 0.625]]


def test_the_gradients_by_a_per_element_loop():
    want, aux = _oracle(_call("softmax_backward", G, Y, 1))
    for gr, yr, got in zip(G, Y, want):
        s = math.fsum(g * y for g, y in zip(gr, yr))
        assert np.allclose(got, [g * y - s * y for g, y in zip(gr, yr)], rtol=2 ** -23, atol=2 ** -60)
    assert aux["rtol"] == aux["atol"] == 0.05 and "ttk_kernel_softmax_grad.csv" in aux["source"]
    want, aux = _oracle(_call("log_softmax_backward", G, Y, 0))     # along the first dim
    for j in range(3):
        s = G[0][j] + G[1][j]
        assert np.allclose(want[:, j], [G[i][j] - s * math.exp(Y[i][j]) for i in range(2)], rtol=2 ** -23)
    assert aux["rtol"] == 0.005


def test_slices_with_nan_or_infinity_are_open():
    g = [[1.0, np.nan], [np.inf, 0.0], [1.0, 2.0]]
    for op in GRADS:
        _, aux = _oracle(_call(op, g, [[0.1, 0.2]] * 3, 1))
        assert aux["unjudged"].tolist() == [[True, True], [True, True], [False, False]], op


def test_a_slice_whose_float32_intermediates_may_overflow_is_open_and_integers_are_notjudged():
    top = 3.3895313892515355e38          # bf16's largest value: g*y and the sum leave float32's range
    for op in GRADS:
        _, aux = _oracle(_call(op, [[top, 0.5], [0.25, 0.5]], [[0.75, 0.5], [0.25, 0.5]], 1, AclDataType.BF16))
        assert aux["unjudged"].tolist() == [[True, True], [False, False]], op
        _, aux = _oracle(_call(op, [[3, 1]], [[2, 1]], 1, AclDataType.INT32))
        assert aux["unjudged"].all(), op


def test_the_bound_holds_every_order_and_opens_only_where_it_reaches_the_limit():
    """Float32 evaluations in three orders (sequential, reversed, pairwise) stay inside the model's
    bound on a long slice; an element whose bound reaches the vendor's limit is open."""
    from aclnn_conformance.oracle.surface_normalized_grads import gradient, model_bound
    from aclnn_conformance.spec.surface_values import LOG_NORMALIZED_EXP_GRAD, NORMALIZED_EXP_GRAD
    rng = np.random.default_rng(11)
    g = rng.uniform(-10, 10, (1, 4000)).astype(np.float32)
    y = rng.uniform(-3, 1, (1, 4000)).astype(np.float32)
    for kind in (NORMALIZED_EXP_GRAD, LOG_NORMALIZED_EXP_GRAD):
        exact = gradient(g.astype(np.float64), y.astype(np.float64), 1, kind)
        bound = model_bound(g.astype(np.float64), y.astype(np.float64), 1, kind)
        terms = g * y if kind == NORMALIZED_EXP_GRAD else g
        for order in (terms[0], terms[0][::-1]):
            s = np.float32(0)
            for t in order:          # a sequential float32 sum, term by term
                s = np.float32(s + t)
            got = g * y - y * s if kind == NORMALIZED_EXP_GRAD else g - s * np.exp(y)
            assert np.all(np.absolute(got.astype(np.float64) - exact) <= bound), kind
    # a long slice whose result cancels (g = s exp(y)): the bound (0.24) passes 0.005 + 0.005|x|
    # and the elements are open; the same slice with y = 0 does not cancel and is judged
    y = float(np.float32(math.log(1 / 4000)))
    _, aux = _oracle(_call("log_softmax_backward", np.full((1, 4000), 1000.0), np.full((1, 4000), y), 1))
    assert aux["unjudged"].all()
    _, aux = _oracle(_call("log_softmax_backward", np.full((1, 4000), 10.0), np.zeros((1, 4000)), 1))
    assert not aux["unjudged"].any()


def test_torch_passes_every_value_case():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in GRADS:
        for case in value_cases(op):
            for product in PRODUCTS:
                assert judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED"), (op, case.case_id)


def test_a_sum_along_the_wrong_dim_or_of_the_wrong_terms_fails_a_single_call():
    rng = np.random.default_rng(5)
    g = rng.uniform(-1, 1, (6, 6, 4)).astype(np.float32)
    y = rng.uniform(-1, 1, (6, 6, 4)).astype(np.float32)
    for op, own in (("softmax_backward", "unweighted-sum"), ("log_softmax_backward", "exp-dropped")):
        case = _call(op, g * (10 if op.startswith("log") else 1), y, 1)
        assert _outcome_on(_kind(op, "wrong-axis"), case) == "FAIL", op
        assert _outcome_on(_kind(op, own), case) == "FAIL", op
        for control in ("float32-steps-control", "sequential-control", "reversed-control"):
            assert _outcome_on(_kind(op, control), case) == "PASS", (op, control)


@pytest.mark.parametrize("op", GRADS)
def test_each_mutant_is_killed_and_each_control_clean_through_mutate(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, op)
    assert {"wrong-axis", "twice-limit", "dtype-missing"} <= {m.kind for m in found.mutants}
    assert_gated_through_mutate(op, "full", PRODUCTS)
