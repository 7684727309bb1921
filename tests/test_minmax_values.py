"""The extremes with their positions (aclnnMaxDim, aclnnMinDim) and the minimum beside the maximum
(aclnnAminmaxDim, aclnnAminmaxAll): each output judged as its kind's entries are (the values exact as aclnnAmax's,
the positions exact as aclnnArgMax's, ties and NaN slices open), by hand; hand-written device
outputs; every generated mutant failing a single call and every control passing each."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.templates import reduced_shape
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import WritingDevice

INDEX_DTYPE = {"max_dim": AclDataType.INT64, "min_dim": AclDataType.INT32}
NAN = float("nan")
X = [[1.0, 7.0, 3.0], [4.0, -2.0, 4.0], [NAN, 0.0, 9.0]]


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, dim: int, keepdim: bool = False, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    shape = reduced_shape(x.shape, dim, keepdim, False)
    if op == "aminmax_dim":
        return Case(op=op, case_id="hand", tensors={
            "self": TensorArg.from_array(x, dtype),
            **{name: TensorArg.from_array(np.zeros(shape, x.dtype), dtype) for name in ("minOut", "maxOut")}},
            attrs={"dim": dim, "keepDim": keepdim})
    index = INDEX_DTYPE[op]
    return Case(op=op, case_id="hand", tensors={
        "self": TensorArg.from_array(x, dtype),
        "out": TensorArg.from_array(np.zeros(shape, x.dtype), dtype),
        "indices": TensorArg.from_array(np.zeros(shape, numpy_dtype(index)), index)},
        attrs={"dim": dim, "keepdim": keepdim})


def _oracle(case: Case):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann")
    return result.views, result.aux


def _device(out, indices, names=("out", "indices")) -> WritingDevice:
    """A device writing the given values and positions."""
    return WritingDevice(**dict(zip(names, (out, indices))))


def _judged(op: str, backend, case: Case, product: str = "atlas-a2") -> str:
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    return judge(operator(op).spec, case, product, "cann", backend.run(case, product)).outcome


def test_values_and_positions_along_each_dim_by_hand():
    views, aux = _oracle(_call("max_dim", X, 1))
    # rows: max 7 at 1; max 4 twice (a tie: its position open); a NaN (value and position open)
    assert views["out"].tolist()[:2] == [7.0, 4.0] and aux["out"]["unjudged"].tolist() == [False, False, True]
    assert views["indices"].tolist()[0] == 1 and aux["indices"]["unjudged"].tolist() == [False, True, True]
    assert views["indices"].dtype == np.int64
    views, aux = _oracle(_call("min_dim", X, 1))
    assert views["out"].tolist()[:2] == [1.0, -2.0] and views["indices"].tolist()[:2] == [0, 1]
    assert aux["indices"]["unjudged"].tolist() == [False, False, True] and views["indices"].dtype == np.int32
    # columns (dim 0, and -2 the same): max [open, 7, 9] at [open, 0, 2]; min [open, -2, 3] at [open, 1, 0]
    views, aux = _oracle(_call("max_dim", X, -2))
    assert views["out"].tolist()[1:] == [7.0, 9.0] and views["indices"].tolist()[1:] == [0, 2]
    assert aux["indices"]["unjudged"].tolist() == [True, False, False]
    views, _ = _oracle(_call("min_dim", X, 0, keepdim=True))
    assert views["out"].shape == views["indices"].shape == (1, 3)
    assert views["out"].tolist()[0][1:] == [-2.0, 3.0] and views["indices"].tolist()[0][1:] == [1, 0]


def test_a_device_is_judged_on_both_outputs():
    case = _call("max_dim", X, 1)
    # the tie's last position, the NaN slice's other maximum at its position: both open, so passed
    assert _judged("max_dim", _device([7.0, 4.0, 9.0], [1, 2, 2]), case) == "PASS"
    assert _judged("max_dim", _device([7.0, 4.0, NAN], [1, 0, 0]), case) == "PASS"
    assert _judged("max_dim", _device([7.0, 4.0, NAN], [2, 0, 0]), case) == "FAIL"    # a wrong position
    assert _judged("max_dim", _device([3.0, 4.0, NAN], [1, 0, 0]), case) == "FAIL"    # a wrong value
    # INT32 (which the document refuses on Atlas A2, A3 and older: Ascend 950's call)
    int_case = _call("min_dim", [[5, -3, 8], [2, 2, 9]], 1, dtype=AclDataType.INT32)
    assert _judged("min_dim", _device([-3, 2], [1, 1]), int_case, "ascend950") == "PASS"     # a tie of 2s
    assert _judged("min_dim", _device([-3, 2], [0, 0]), int_case, "ascend950") == "FAIL"


def test_the_minimum_and_the_maximum_by_hand():
    views, aux = _oracle(_call("aminmax_dim", X, 1))
    assert views["minOut"].tolist()[:2] == [1.0, -2.0] and views["maxOut"].tolist()[:2] == [7.0, 4.0]
    assert aux["minOut"]["unjudged"].tolist() == aux["maxOut"]["unjudged"].tolist() == [False, False, True]
    views, _ = _oracle(_call("aminmax_dim", X, 0, keepdim=True))
    assert views["minOut"].tolist()[0][1:] == [-2.0, 3.0] and views["maxOut"].tolist()[0][1:] == [7.0, 9.0]
    case = _call("aminmax_dim", X, 1)
    names = ("minOut", "maxOut")
    # either sign of a zero, anything in a NaN slice; the outputs swapped fail
    assert _judged("aminmax_dim", _device([1.0, -2.0, -5.0], [7.0, 4.0, 0.0], names), case) == "PASS"
    assert _judged("aminmax_dim", _device([7.0, 4.0, NAN], [1.0, -2.0, NAN], names), case) == "FAIL"
    assert _judged("aminmax_dim", _device([1.0, -2.0, NAN], [7.0, 3.0, NAN], names), case) == "FAIL"


def _whole_call(values, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    return Case(op="aminmax_all", case_id="hand", tensors={
        "self": TensorArg.from_array(x, dtype),
        **{name: TensorArg.from_array(np.zeros((), x.dtype), dtype) for name in ("minOut", "maxOut")}}, attrs={})


def test_the_minimum_and_the_maximum_of_every_element_by_hand():
    views, aux = _oracle(_whole_call([[1.5, -4.0, 3.0], [0.25, 6.0, -0.5]]))
    assert float(views["minOut"]) == -4.0 and float(views["maxOut"]) == 6.0
    assert not aux["minOut"]["unjudged"].any() and not aux["maxOut"]["unjudged"].any()
    _, aux = _oracle(_whole_call([[1.0, NAN], [2.0, 3.0]]))
    assert aux["minOut"]["unjudged"].all() and aux["maxOut"]["unjudged"].all()
    case = _whole_call([[1.5, -4.0, 3.0], [0.25, 6.0, -0.5]])
    names = ("minOut", "maxOut")
    assert _judged("aminmax_all", _device(-4.0, 6.0, names), case) == "PASS"
    assert _judged("aminmax_all", _device(6.0, -4.0, names), case) == "FAIL"
    assert _judged("aminmax_all", _device(-4.0, 3.0, names), case) == "FAIL"


@pytest.mark.parametrize("op", ["max_dim", "min_dim", "aminmax_dim", "aminmax_all"])
def test_each_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    own = ("swapped-outputs",) if op.startswith("aminmax") else ("index-from-end", "other-extreme")
    # every element reduced: no dim to mistake, no keepdim
    own += ("wrong-axis", "keepdim-ignored") if op != "aminmax_all" else ()
    assert {*own, "ulp-bias", "flush", "promotion"} <= set(kinds)
    cases = value_cases(op)
    for kind in (*own, "ulp-bias", "flush", "promotion"):
        assert any(_judged(op, kinds[kind](), c) == "FAIL" for c in cases), kind
    assert {c.kind for c in found.controls} >= {"nan-ignoring-control", "zero-sign-control"} | (
        set() if op.startswith("aminmax") else {"last-of-ties-control", "nan-skipping-control"})
    for control in found.controls:
        outcomes = {c.case_id: _judged(op, control(), c) for c in cases}
        assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED", "NOT_SUPPORTED"}, (control.kind, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    assert all(_judged(op, TorchBackend(), c) in ("PASS", "NOT_SUPPORTED") for c in cases)
