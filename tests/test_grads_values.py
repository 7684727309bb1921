"""The values of spec/data/values/grads.json (aclnnSoftshrinkBackward): a parameter named by a Python
keyword (``lambda``) read by an expression as ``lambda_``, the oracle against a per-element loop, the
side the threshold's equality takes, the NaN self the document and the kernel disagree on (open),
and single calls killing the generated mutants."""
from __future__ import annotations

import keyword

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import value_entry


def _case(key: str, dtype: str = "FLOAT", attrs: dict | None = None, **tensors):
    from aclnn_conformance.spec.surface_cases import build_case
    entry = value_entry(key)
    values = {n: np.asarray(v, np.float64) for n, v in tensors.items()}
    return build_case(entry, entry.key, "hand", values, AclDataType[dtype], attrs=attrs)


def _oracle(case):
    from aclnn_conformance.oracle.surface import from_case
    entry = value_entry(case.op)
    result = from_case(case, "cann")
    return np.asarray(result.views[entry.output]), result.aux[entry.output]


def _open(aux, size: int) -> list[bool]:
    return np.asarray(aux.get("unjudged", np.zeros(size, bool))).reshape(-1).tolist()


def _verdict(case, actual) -> str:
    from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
    from aclnn_conformance.spec.surface_compare import compare
    entry = value_entry(case.op)
    expected, aux = _oracle(case)
    return compare(CLASS_STANDARD[entry.function_class], np.asarray(actual), expected, aux).outcome


# ---- a keyword's parameter ----

def test_a_keyword_parameter_is_read_with_a_trailing_underscore_and_named_by_its_own_name():
    from aclnn_conformance.oracle.surface_functions import (evaluate_values, expression_name, names_of,
                                                            parameter_name)
    assert keyword.iskeyword("lambda")
    assert expression_name("lambda") == "lambda_" and expression_name("self") == "self"
    assert parameter_name("lambda_") == "lambda" and parameter_name("alpha_") == "alpha_"
    assert names_of("where(absolute(self) > lambda_, gradOutput, 0)") == {"self", "lambda", "gradOutput"}
    assert evaluate_values("x * lambda_", {"x": np.array([2.0]), "lambda_": 3.0}, (1,)).tolist() == [6.0]


def test_the_entry_binds_the_attribute_lambda_by_its_documented_name():
    entry = value_entry("aclnnSoftshrinkBackward")
    assert "lambda" in entry.inputs and entry.sample["attrs"] == {"lambda": 0.5}
    # a lambda of 1.25 in the call, not the sample's 0.5: 1.0 is inside, 1.5 outside
    out, _ = _oracle(_case("softshrink_backward", gradOutput=[3.0, 3.0], self=[1.0, 1.5],
                           attrs={"lambda": 1.25}))
    assert out.tolist() == [0.0, 3.0]


# ---- the function by hand ----

def _softshrink_backward_loop(grad: list[float], x: list[float], lambd: float) -> list[float]:
    """The document's three cases per element (aclnnSoftshrinkBackward.md:42-48)."""
    out = []
    for g, v in zip(grad, x):
        out.append(g if v > lambd else g if v < -lambd else 0.0)
    return out


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BF16"])
def test_softshrink_backward_against_a_per_element_loop(dtype):
    rng = np.random.default_rng(7)
    held = lambda v: v.astype(ml_dtypes.bfloat16).astype(np.float64).tolist()   # held by every dtype
    x, g = held(rng.uniform(-2, 2, 64)), held(rng.uniform(-8, 8, 64))
    case = _case("softshrink_backward", dtype, attrs={"lambda": 0.5}, gradOutput=g, self=x)
    out, _ = _oracle(case)
    assert out.astype(np.float64).tolist() == _softshrink_backward_loop(g, x, 0.5)


def test_the_threshold_is_strict_and_a_non_finite_gradient_inside_gives_zero():
    """x = +-lambda is 'otherwise' in the document and fails the kernel's |x| > lambd: 0 in both; a
    NaN or infinite gradient inside is the document's constant 0 (and the kernel's Select's 0)."""
    case = _case("softshrink_backward", gradOutput=[2.0, 2.0, np.nan, np.inf, np.nan, -4.0],
                 self=[0.5, -0.5, 0.25, -0.25, 0.75, -3.0], attrs={"lambda": 0.5})
    out, aux = _oracle(case)
    assert out[:4].tolist() == [0.0, 0.0, 0.0, 0.0] and np.isnan(out[4]) and out[5] == -4.0
    assert _open(aux, 6) == [False] * 6
    assert _verdict(case, np.array([0, 0, 0, 0, np.nan, -4.0], np.float32)) == "PASS"
    assert _verdict(case, np.array([2.0, 0, 0, 0, np.nan, -4.0], np.float32)) == "FAIL"     # x >= lambda
    assert _verdict(case, np.array([0, 0, np.nan, 0, np.nan, -4.0], np.float32)) == "FAIL"  # a product


def test_a_nan_self_is_open_and_the_rest_judged():
    """Document: a NaN x is in neither x > lambda nor x < -lambda, so 0; the kernel (and torch) write
    gradOutput there: either passes, and only that element is open."""
    case = _case("softshrink_backward", gradOutput=[5.0, 5.0], self=[np.nan, 1.0], attrs={"lambda": 0.5})
    _, aux = _oracle(case)
    assert _open(aux, 2) == [True, False]
    assert _verdict(case, np.array([5.0, 5.0], np.float32)) == "PASS"      # the kernel's
    assert _verdict(case, np.array([0.0, 5.0], np.float32)) == "PASS"      # the document's
    assert _verdict(case, np.array([0.0, 0.0], np.float32)) == "FAIL"


def test_torch_computes_the_documents_function_where_judged():
    torch = pytest.importorskip("torch")
    g = torch.tensor([2.0, 2.0, 3.0, -1.0])
    x = torch.tensor([0.5, -0.6, 0.1, 2.0])
    assert torch.ops.aten.softshrink_backward(g, x, 0.5).tolist() == \
        _softshrink_backward_loop(g.tolist(), x.tolist(), 0.5)


def test_each_generated_mutant_is_killed_and_the_control_clean_on_the_value_cases():
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.reports.mutate import mutate
    group = mutant_set("softshrink_backward")
    kinds = {m.kind for m in group.mutants}
    assert {"promotion", "dtype-missing", "nan", "ulp-bias", "flush"} <= kinds
    doc = mutate(mutants=[*group.mutants, *group.equivalent, *group.controls],
                 products=("ascend950", "atlas-a2"))
    s = doc["summary"]
    assert s["survived"] == 0 and s["killed"] == s["named"] == s["mutants"] == len(group.mutants), s
    assert s["false_alarms"] == 0 and not s["falsely_failed_controls"], s
