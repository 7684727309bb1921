"""The gated units (value kind ``halves``): aclnnGlu, aclnnSwiGlu, aclnnGeluMul and aclnnFatreluMul.
The oracle against Python's math module on hand-split inputs, the elements left open, the vendor's
numbers per product, torch on every value case, and each generated mutant killed (halves swapped,
wrong dim) with the controls clean, on single calls and through ``mutate``."""
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
GATED = ("glu", "swi_glu", "gelu_mul", "fatrelu_mul")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, dim: int | None = None, dtype=AclDataType.FLOAT, **more) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(op)
    x = np.asarray(values, numpy_dtype(dtype))
    axis = (dim if dim is not None else -1) % x.ndim
    out_shape = x.shape[:axis] + (x.shape[axis] // 2,) + x.shape[axis + 1:]
    tensors = {entry.reduction["input"]: TensorArg.from_array(x, dtype),
               "out": TensorArg.from_array(np.zeros(out_shape, x.dtype), dtype)}
    attrs = {}
    for name, value in more.items():
        if isinstance(value, (list, tuple)):
            tensors[name] = TensorArg.from_array(np.asarray(value, x.dtype), dtype)
        else:
            attrs[name] = value
    if dim is not None:
        attrs["dim"] = dim
    return Case(op=op, case_id="hand", tensors=tensors, attrs=attrs)


def _oracle(case: Case, product: str | None = None):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann", product)
    return result.views["out"], result.aux["out"]


def _sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


ROWS = [[1.5, -2.0, 0.25, 3.0], [-4.0, 0.5, -1.0, 2.0]]


def test_glu_is_the_first_half_times_the_sigmoid_of_the_second_along_the_named_dim():
    want, aux = _oracle(_call("glu", ROWS, dim=1))
    hand = [[r[0] * _sigmoid(r[2]), r[1] * _sigmoid(r[3])] for r in ROWS]
    assert np.allclose(want, hand, rtol=2 ** -23, atol=0) and want.shape == (2, 2)
    want, _ = _oracle(_call("glu", ROWS, dim=0))     # rows split: the first row gated by the second
    assert np.allclose(want, [[a * _sigmoid(b) for a, b in zip(*ROWS)]], rtol=2 ** -23)
    # the vendor's TTK numbers where the fused kernel runs, the published standard where the host
    # code composes SplitV, Sigmoid and Mul
    assert aux["rtol"] == aux["atol"] == 1e-4 and "ttk_kernel_glu_st.csv" in aux["source"]
    _, a2 = _oracle(_call("glu", ROWS, dim=1), "atlas-a2")
    _, inference = _oracle(_call("glu", ROWS, dim=1), "atlas-inference")
    assert a2["rtol"] == 1e-4 and "rtol" not in inference
    assert "experimental_standard.md" in inference["source"]


def test_swi_glu_gates_the_second_half_by_the_swish_of_the_first():
    want, aux = _oracle(_call("swi_glu", ROWS, dim=-1))
    hand = [[r[0] * _sigmoid(r[0]) * r[2], r[1] * _sigmoid(r[1]) * r[3]] for r in ROWS]
    assert np.allclose(want, hand, rtol=2 ** -23) and aux["rtol"] == 1e-4


def test_gelu_mul_in_its_two_modes_and_its_open_tail():
    def erf_gelu(v):
        return 0.5 * v * (1 + math.erf(v / math.sqrt(2)))

    def tanh_gelu(v):
        return 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ** 3)))

    for mode, gelu in (("none", erf_gelu), ("tanh", tanh_gelu)):
        want, aux = _oracle(_call("gelu_mul", ROWS, approximateOptional=mode))
        hand = [[gelu(r[0]) * r[2], gelu(r[1]) * r[3]] for r in ROWS]
        assert np.allclose(want, hand, rtol=2 ** -22), mode
        # the erf form below -3.5 is left open (the kernels' approximation), the tanh form judged
        assert aux["unjudged"].tolist() == ([[False, False], [True, False]] if mode == "none"
                                            else [[False, False], [False, False]]), mode
        assert "rtol" not in aux and "experimental_standard.md" in aux["source"]
    # a word the tiling refuses: nothing judged
    _, aux = _oracle(_call("gelu_mul", ROWS, approximateOptional=""))
    assert aux["unjudged"].all()


def test_the_atlas_a2_erf_approximation_is_why_the_tail_is_open():
    """The kernel's x / (1 + exp(x P(x^2))) (gelu_mul.h:250-301), evaluated here in float64 by a
    per-element loop, errs beyond the published standard's 10 T = 1.2e-3 only below -3.5."""
    coefficients = [-0.3512339572e-8, 0.2645266170e-6, -0.7929488134e-5, 0.1106123840e-3,
                    0.6518995814e-4, -0.7266616915e-1, -0.1595769883e1]

    def kernel(v):
        xm = max(v, -13.15)
        xc = min(xm, 5.751)
        p = 0.0
        for c in coefficients:
            p = p * xc * xc + c
        return xm / (1 + math.exp(p * xc))

    def relative(v):
        exact = 0.5 * v * math.erfc(-v / math.sqrt(2))
        return abs(kernel(v) - exact) / (abs(exact) + 1e-7)
    assert max(relative(-3.5 + k / 100) for k in range(951)) < 1.2e-3     # [-3.5, 6]: judged
    assert relative(-5.0) > 1.2e-3                                       # open


def test_fatrelu_mul_keeps_the_first_half_from_the_threshold_on_and_leaves_the_edge_open():
    rows = [[1.0, 0.5, 2.0, -3.0], [0.25, np.nan, 4.0, 5.0]]
    want, aux = _oracle(_call("fatrelu_mul", rows, threshold=[0.5]))
    assert want[0, 0] == 2.0 and want[1, 0] == 0.0
    # x1 == threshold: the document keeps it, the kernel's GT drops it; a NaN x1: neither says
    assert aux["unjudged"].tolist() == [[False, True], [False, True]]
    # a threshold of more than one element is refused by the tiling: nothing judged
    _, aux = _oracle(_call("fatrelu_mul", rows, threshold=[0.5, 0.5]))
    assert aux["unjudged"].all()


def test_a_dim_of_odd_length_has_no_halves():
    from aclnn_conformance.spec.surface_halves import halved_shape
    from aclnn_conformance.spec.surface_values import value_entry
    case = _call("glu", [[1.0, 2.0, 3.0]], dim=0)
    assert halved_shape(case, value_entry("glu"), 1) is None and halved_shape(case, value_entry("glu"), 0) is None


def test_torch_passes_every_value_case():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in GATED:
        for case in value_cases(op):
            for product in PRODUCTS:
                assert judged(TorchBackend(), case, product) in ("PASS", "NOT_JUDGED", "NOT_SUPPORTED"), \
                    (op, case.case_id, product)


def test_a_swapped_or_misplaced_split_fails_a_single_call_and_the_kernel_order_passes():
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, (4, 6, 6)).astype(np.float32)
    for op in ("glu", "swi_glu"):
        case = _call(op, x, dim=1)
        assert _outcome_on(_kind(op, "halves-swapped"), case) == "FAIL", op
        assert _outcome_on(_kind(op, "wrong-dim"), case) == "FAIL", op
        assert _outcome_on(_kind(op, "float32-steps-control"), case) == "PASS", op
    for mode in ("none", "tanh"):
        case = _call("gelu_mul", x, approximateOptional=mode)
        assert _outcome_on(_kind("gelu_mul", "wrong-dim"), case) == "FAIL", mode   # dims 1 and 2 alike
        assert _outcome_on(_kind("gelu_mul", "atlas-a2-kernel-control"), case) == "PASS", mode
    case = _call("fatrelu_mul", x, threshold=[0.5])
    assert _outcome_on(_kind("fatrelu_mul", "halves-swapped"), case) == "FAIL"
    # a split dim with no partner of its length: the wrong-dim mutant computes it right
    case = _call("glu", x[:3, :4, :], dim=1)
    assert _outcome_on(_kind("glu", "wrong-dim"), case) == "PASS"


@pytest.mark.parametrize("op", GATED)
def test_each_mutant_is_killed_and_each_control_clean_through_mutate(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind for m in found.mutants}
    assert {"halves-swapped", "wrong-dim", "twice-limit", "dtype-missing"} <= kinds
    assert {"float32-steps-control", "zero-sign-control"} <= {c.kind for c in found.controls}
    products = ("atlas-a2", "atlas-a3")
    assert_gated_through_mutate(op, "full", products)
