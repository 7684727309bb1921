"""The surface's reductions: the reduced shape and the empty-dim rule against hand-worked shapes, the
oracle against hand computation (dims, negative dims, keepdim, no dims, the no-op flag, NaN slices,
signed zeros, subnormals, integers), the exact standard's open slices, the value cases, a valid base
call of an extracted reduction, and the ci sample of the generated mutants."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.templates import predicate, reduced_shape, view_of_case
from aclnn_conformance.spec.tensor import TensorArg


@pytest.mark.parametrize("shape, dims, keepdim, noop, want", [
    ((2, 3, 4), [1], False, False, (2, 4)),
    ((2, 3, 4), [1], True, False, (2, 1, 4)),
    ((2, 3, 4), [-1, 0], False, False, (3,)),
    ((2, 3, 4), [], False, False, ()),
    ((2, 3, 4), [], True, False, (1, 1, 1)),
    ((2, 3, 4), [], True, True, (2, 3, 4)),
    ((2, 3, 4), None, False, False, ()),           # an absent list: every dim (the array form)
    ((), [0], False, False, ()),                   # rank 0: dims -1 and 0 name the scalar itself
    ((), [-1], True, False, ()),
    ((2, 3), [2], False, False, None),              # out of range: an earlier check's
])
def test_reduced_shape_by_hand(shape, dims, keepdim, noop, want):
    assert reduced_shape(shape, dims, keepdim, noop) == want


def _call(self_shape, out_shape, **attrs) -> Case:
    tensors = {"self": TensorArg.from_array(np.zeros(self_shape, np.float32), AclDataType.FLOAT),
               "out": TensorArg.from_array(np.zeros(out_shape, np.float32), AclDataType.FLOAT)}
    return Case(op="x", case_id="t", tensors=tensors, attrs=attrs)


def test_the_reduced_shape_rule_reads_its_flags_from_attributes_or_literals():
    rule = predicate("reduced_shape", {"param": "out", "of": "self", "dims": "dim", "keepdim": "keepDim"})
    assert not rule(view_of_case(_call((2, 3), (3,), dim=[0], keepDim=False)))
    assert rule(view_of_case(_call((2, 3), (3,), dim=[0], keepDim=True)))
    assert not rule(view_of_case(_call((2, 3), (1, 3), dim=[0], keepDim=True)))
    literal = predicate("reduced_shape", {"param": "out", "of": "self", "dims": "dim", "keepdim": True})
    assert rule(view_of_case(_call((2, 3), (1, 3), dim=[0], keepDim=False))) and \
        not literal(view_of_case(_call((2, 3), (1, 3), dim=[0], keepDim=False)))
    noop = predicate("reduced_shape", {"param": "out", "of": "self", "dims": "dim", "keepdim": "k", "noop": "n"})
    assert not noop(view_of_case(_call((2, 3), (2, 3), dim=[], k=False, n=True)))
    assert noop(view_of_case(_call((2, 3), (2, 3), dim=[], k=False, n=False)))


def test_a_reduced_dim_of_size_zero_violates_the_nonzero_rule_and_rank_zero_never_does():
    rule = predicate("attr_dims_nonzero", {"attr": "dim", "tensor": "self"})
    assert rule(view_of_case(_call((2, 0, 3), (2, 3), dim=[1])))
    assert rule(view_of_case(_call((2, 0, 3), (2, 3), dim=[-2])))
    assert not rule(view_of_case(_call((2, 0, 3), (2, 0), dim=[2])))
    assert not rule(view_of_case(_call((), (), dim=[0])))


# ---- the oracle by hand ----

@pytest.fixture
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _amax(values, dims, keepdim=False, dtype=AclDataType.FLOAT, op="amax", **extra):
    from aclnn_conformance.oracle.surface import from_case
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(op)
    red = entry.reduction
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    out = np.zeros(reduced_shape(x.shape, dims, keepdim, bool(extra.get(red.get("noop")))), x.dtype)
    case = Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(out, dtype)},
                attrs={red["dims"]: dims, red["keepdim"]: keepdim, **extra})
    result = from_case(case, "cann")
    return result.views["out"], result.aux["out"], case


def test_the_maximum_over_each_dims_pattern_by_hand(registry_loaded):
    x = [[[1.0, 7.0], [3.0, -2.0]], [[-5.0, 0.5], [4.0, 6.0]]]     # shape (2, 2, 2)
    got, _, _ = _amax(x, [1])
    assert got.tolist() == [[3.0, 7.0], [4.0, 6.0]]
    got, _, _ = _amax(x, [0, -1])
    assert got.tolist() == [7.0, 6.0]
    got, _, _ = _amax(x, [2], keepdim=True)
    assert got.tolist() == [[[7.0], [3.0]], [[0.5], [6.0]]]
    got, _, _ = _amax(x, [])
    assert got.shape == () and float(got) == 7.0
    got, _, _ = _amax(x, [], op="max_v2", noopWithEmptyDims=True)
    assert got.tolist() == x
    got, _, _ = _amax(x, [1], op="amin")
    assert got.tolist() == [[1.0, -2.0], [-5.0, 0.5]]


def test_nan_slices_are_left_open_and_zeros_of_either_sign_accepted(registry_loaded):
    from aclnn_conformance.spec.surface_compare import compare_surface_exact
    x = [[np.nan, 1.0, 2.0], [0.0, -0.0, -3.0], [-1.0, -2.0, -3.0]]
    want, aux, _ = _amax(x, [1])
    assert aux["unjudged"].tolist() == [True, False, False] and want[2] == -1.0 and want[1] == 0.0
    ignoring_nan = np.array([2.0, -0.0, -1.0], np.float32)   # an IEEE maxNum and the other zero
    assert compare_surface_exact(ignoring_nan, want, aux).outcome == "PASS"
    off = np.array([2.0, 0.0, np.nextafter(np.float32(-1.0), np.float32(0))], np.float32)
    verdict = compare_surface_exact(off, want, aux)
    assert verdict.outcome == "FAIL" and verdict.metrics["mismatched"] == 1


def test_subnormal_bf16_and_integer_extremes_are_exact(registry_loaded):
    tiny = float(np.finfo(np.float32).smallest_normal) / 4
    got, _, _ = _amax([[tiny, -1.0], [2.0, -tiny]], [1])
    assert got.tolist() == [np.float32(tiny), 2.0]
    bf = np.array([[1.0078125, 1.015625]], ml_dtypes.bfloat16)      # two neighbouring bf16 values
    got, _, _ = _amax(bf, [1], dtype=AclDataType.BF16)
    assert got.dtype == np.dtype(ml_dtypes.bfloat16) and float(got[0]) == 1.015625
    got, _, _ = _amax([[2 ** 31 - 1, -5], [7, 2 ** 31 - 2]], [0], dtype=AclDataType.INT32, op="amin")
    assert got.tolist() == [7, -5]


def test_a_call_whose_output_is_not_the_reduced_shape_is_outside_the_domain(registry_loaded):
    from aclnn_conformance.spec.surface_values import outside_domain
    _, _, case = _amax([[1.0, 2.0], [3.0, 4.0]], [1])
    assert not outside_domain(case)
    wrong = case.with_tensor("out", TensorArg.from_array(np.zeros((1, 2), np.float32), AclDataType.FLOAT))
    assert outside_domain(wrong)


# ---- the value cases and the extracted records ----

def test_value_cases_cover_every_dims_pattern_with_valid_shapes(registry_loaded):
    from aclnn_conformance.spec.surface_cases import REDUCTION_CALLS, value_cases
    from aclnn_conformance.spec.surface_values import outside_domain
    for op, kinds in (("amax", {k for k, *_ in REDUCTION_CALLS} - {"noop"}),
                      ("max_v2", {k for k, *_ in REDUCTION_CALLS})):
        cases = value_cases(op, dtypes=("FLOAT",))
        assert {c.case_id.split("-")[0] for c in cases} == kinds
        assert not any(outside_domain(c) for c in cases)


def test_an_extracted_reductions_base_call_has_the_reduced_output_and_is_accepted(registry_loaded):
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.suites.calls.surface import base_call
    base = base_call("amax")
    assert base.tensors["out"].desc.shape == reduced_shape(tuple(base.tensors["self"].desc.shape),
                                                           base.attrs["dim"], base.attrs["keepDim"])
    outcome = expected_outcome(operator("amax").spec, base, "atlas-a2", "cann")
    assert outcome.kind == "success" and outcome.judge_values


def test_the_ci_sample_holds_a_value_judged_reduction_and_every_class_of_each_family(registry_loaded):
    from aclnn_conformance.backends.mutants.surface import sampled, value_group
    from aclnn_conformance.backends.mutants.surface_values import _judged_somewhere
    from aclnn_conformance.spec.registry import is_data_operator, operators
    from aclnn_conformance.spec.surface_values import has_value_entry, value_entries, value_entry
    keys = [k for k in operators() if is_data_operator(k) and has_value_entry(k)]
    groups = {value_group(value_entry(k)) for k in keys if _judged_somewhere(k)}
    in_sample = {value_group(value_entry(k)) for k in keys if sampled(k) and _judged_somewhere(k)}
    # every reduction kind of the tables (max, sum, prefix-sum, argmax, normalized-exp, ...) has its own
    kinds = {e.reduction["kind"] for e in value_entries().values() if e.reduction}
    assert in_sample == groups and kinds <= {g[2] for g in groups} and ("math", "exact", "max") in groups
