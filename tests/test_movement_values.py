"""Data movement (aclnnExpand, aclnnRepeat): the oracle against hand-written outputs (the documents'
own examples, per-element loops), the calls outside the function, hand-written device outputs, each
generated mutant failing a single call and each control and torch passing every value case."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import WritingDevice

ATTRIBUTE = {"expand": "size", "repeat": "repeats"}


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, attribute, out_shape=None, dtype=AclDataType.FLOAT, out_dtype=None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    if out_shape is None:
        out_shape = tuple(attribute) if op == "expand" else tuple(
            s * r for s, r in zip((1,) * (len(attribute) - x.ndim) + x.shape, attribute))
    out_dtype = out_dtype or dtype
    return Case(op=op, case_id="hand", tensors={
        "self": TensorArg.from_array(x, dtype),
        "out": TensorArg.from_array(np.zeros(out_shape, numpy_dtype(out_dtype)), out_dtype)},
        attrs={ATTRIBUTE[op]: list(attribute)})


def _expected(case: Case) -> np.ndarray:
    from aclnn_conformance.oracle.surface import from_case
    return np.asarray(from_case(case, "cann").views["out"])


def _judged(op: str, backend, case: Case, product: str = "atlas-a2") -> str:
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    return judge(operator(op).spec, case, product, "cann", backend.run(case, product)).outcome


def test_repeat_gives_the_documents_examples():
    # aclnnRepeat.md lines 29-40: [[a,b],[c,d],[e,f]].repeat(2,4), whole copies one after another
    a, b, c, d, e, f = 1.0, 2.0, 3.0, 4.0, 5.0, 6.0
    x = [[a, b], [c, d], [e, f]]
    rows = [[a, b] * 4, [c, d] * 4, [e, f] * 4]
    assert _expected(_call("repeat", x, [2, 4])).tolist() == rows + rows
    # lines 43-66: repeats (2,4,2) reads the input as [1,3,2]; the output is [2,12,4]
    got = _expected(_call("repeat", x, [2, 4, 2]))
    block = [[a, b, a, b], [c, d, c, d], [e, f, e, f]] * 4
    assert got.shape == (2, 12, 4) and got.tolist() == [block, block]
    # a 0-d input is read as [1] (aclnn_repeat.cpp:152-161)
    assert _expected(_call("repeat", 2.5, [3])).tolist() == [2.5, 2.5, 2.5]


def test_expand_reads_every_broadcast_dim_at_zero_as_a_loop_does():
    x = np.arange(6, dtype=np.float32).reshape(3, 1, 2) - 2.5
    size = [4, 3, 5, 2]
    got = _expected(_call("expand", x, size))
    assert got.shape == tuple(size)
    for i in itertools.product(*(range(n) for n in size)):
        # the document's Y[..i_k..] = X[..floor(i_k / m)..], m = the dim's multiple (lines 30-38)
        j = tuple(i[1 + k] // (size[1 + k] // x.shape[k]) for k in range(3))
        assert got[i] == x[j], i


def test_a_copy_keeps_nan_the_sign_of_zero_and_subnormals():
    tiny = np.finfo(np.float32).smallest_normal / 4
    x = np.array([[np.nan, -0.0, tiny, np.inf]], np.float32)
    got = _expected(_call("repeat", x, [2, 1]))
    assert np.isnan(got[:, 0]).all() and (np.signbit(got[:, 1])).all() and (got[:, 2] == tiny).all()
    case = _call("expand", x, [3, 4])
    assert _judged("expand", WritingDevice(out=np.broadcast_to(x, (3, 4))), case) == "PASS"
    zero_flipped = np.broadcast_to(x, (3, 4)).copy()
    zero_flipped[:, 1] = 0.0
    assert _judged("expand", WritingDevice(out=zero_flipped), case) == "FAIL"   # a copy keeps -0


def test_calls_outside_the_movement_are_not_judged():
    from aclnn_conformance.spec.surface_values import outside_domain
    assert not outside_domain(_call("expand", np.ones((2, 1)), [3, 2, 4]))
    assert outside_domain(_call("expand", np.ones((2, 1)), [3, 2, 4], out_shape=(2, 4)))
    assert outside_domain(_call("expand", np.ones((2, 3)), [2, 4]))          # 3 does not broadcast to 4
    assert outside_domain(_call("expand", np.ones((2, 1)), [2, 4], out_dtype=AclDataType.FLOAT16))
    assert not outside_domain(_call("repeat", np.ones((2, 3)), [1, 2, 2]))
    assert outside_domain(_call("repeat", np.ones((2, 3)), [2], out_shape=(4, 3)))   # shorter than the rank
    assert outside_domain(_call("repeat", np.ones((2, 3)), [2, 2], out_shape=(4, 3)))


def test_a_device_is_judged_on_the_order_of_the_copies():
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
    case = _call("repeat", x, [1, 2])
    assert _judged("repeat", WritingDevice(out=[[1, 2, 1, 2], [3, 4, 3, 4]]), case) == "PASS"
    assert _judged("repeat", WritingDevice(out=[[1, 1, 2, 2], [3, 3, 4, 4]]), case) == "FAIL"   # a, a, b, b
    case = _call("expand", [[1.0], [2.0]], [2, 2])
    assert _judged("expand", WritingDevice(out=[[1, 1], [2, 2]]), case) == "PASS"
    assert _judged("expand", WritingDevice(out=[[1, 2], [1, 2]]), case) == "FAIL"   # the other axis broadcast


@pytest.mark.parametrize("op", ["expand", "repeat"])
def test_each_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    own = ("first-copy-only", "swapped-axes") + (("interleaved-copies",) if op == "repeat" else ())
    assert {*own, "promotion", "dtype-missing", "ulp-bias", "nan", "flush"} <= set(kinds)
    cases = value_cases(op)
    for kind in (*own, "promotion", "ulp-bias", "nan", "flush"):
        assert any(_judged(op, kinds[kind](), c) == "FAIL" for c in cases), kind
    assert {c.kind for c in found.controls} >= {"index-map-control", "flush-to-zero-control"}
    for control in found.controls:
        for product in [p for p in ("ascend950", "atlas-a2") if p in control().products()]:
            outcomes = {c.case_id: _judged(op, control(), c, product) for c in cases}
            assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED", "NOT_SUPPORTED", "QUALITY_WARNING"}, \
                (control.kind, product, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    outcomes = {c.case_id: _judged(op, TorchBackend(), c) for c in cases}
    assert set(outcomes.values()) <= {"PASS", "NOT_SUPPORTED", "NOT_JUDGED"}, outcomes
    assert sum(o == "PASS" for o in outcomes.values()) >= 20, outcomes


def test_the_index_map_control_and_the_interleaved_mutant_by_hand():
    from aclnn_conformance.backends.mutants.surface_movement import index_map
    x = np.array([[1, 2], [3, 4]])
    assert index_map(x, "tile", [2, 2], (4, 4)).tolist() == [[1, 2, 1, 2], [3, 4, 3, 4]] * 2
    assert index_map(x, "tile", [2, 2], (4, 4), interleaved=True).tolist() == \
        [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4], [3, 3, 4, 4]]
    assert index_map(np.array([[5], [6]]), "broadcast-to", [3, 2, 2], (3, 2, 2)).tolist() == [[[5, 5], [6, 6]]] * 3


# ---- the running extremes (aclnnCummax, aclnnCummin) ----

INDEX = {"cummax": AclDataType.INT64, "cummin": AclDataType.INT32}


def _running_call(op: str, values, dim: int, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    return Case(op=op, case_id="hand", tensors={
        "self": TensorArg.from_array(x, dtype),
        "valuesOut": TensorArg.from_array(np.zeros(x.shape, x.dtype), dtype),
        "indicesOut": TensorArg.from_array(np.zeros(x.shape, numpy_dtype(INDEX[op])), INDEX[op])},
        attrs={"dim": dim})


def _running(case: Case):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann")
    return result.views, result.aux


def _by_loop(row: list[float], pick) -> tuple[list[float], list[int]]:
    """Each prefix's extreme and the first position holding it, by a Python loop."""
    values, positions = [], []
    for i in range(len(row)):
        best = pick(row[:i + 1])
        values.append(best)
        positions.append(row.index(best))
    return values, positions


def test_running_extremes_by_hand_along_each_dim():
    x = [[3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0], [-2.0, -3.0, 0.5, -7.0, 8.0, -1.0, 7.5, -9.0]]
    for op, pick in (("cummax", max), ("cummin", min)):
        for dim in (1, -1, 0):
            views, aux = _running(_running_call(op, x, dim))
            rows = x if dim != 0 else [list(c) for c in zip(*x)]
            want = [_by_loop(r, pick) for r in rows]
            got_v = views["valuesOut"] if dim != 0 else views["valuesOut"].T
            got_i = views["indicesOut"] if dim != 0 else views["indicesOut"].T
            assert got_v.tolist() == [w[0] for w in want] and got_i.tolist() == [w[1] for w in want], (op, dim)
            assert not aux["indicesOut"]["unjudged"].any() and not aux["valuesOut"]["unjudged"].any()


def test_a_tie_leaves_the_position_open_and_nan_both_outputs_from_it_on():
    views, aux = _running(_running_call("cummax", [2.0, 5.0, 5.0, 1.0, 6.0, np.nan, 7.0], 0))
    assert views["indicesOut"].tolist()[:5] == [0, 1, 1, 1, 4]
    assert aux["indicesOut"]["unjudged"].tolist() == [False, False, True, True, False, True, True]
    assert aux["valuesOut"]["unjudged"].tolist() == [False] * 5 + [True, True]
    # +0 and -0 tie: the position open, either zero right
    views, aux = _running(_running_call("cummin", [1.0, -0.0, 0.0, 3.0], 0))
    assert aux["indicesOut"]["unjudged"].tolist() == [False, False, True, True]
    assert aux["valuesOut"]["either_zero_sign"]


def test_int32_beyond_the_documented_exact_range_is_open():
    # aclnnCummin.md line 247: INT32 is exact only within [-16777215, 16777215]
    case = _running_call("cummin", [5, 3, -16777217, 2], 0, AclDataType.INT32)
    views, aux = _running(case)
    assert aux["valuesOut"]["unjudged"].tolist() == [False, False, True, True]
    views, aux = _running(_running_call("cummin", [5, 3, -16777215, 2], 0, AclDataType.INT32))
    assert not aux["valuesOut"]["unjudged"].any() and views["indicesOut"].tolist() == [0, 1, 2, 2]


def test_a_device_is_judged_on_both_running_outputs():
    case = _running_call("cummax", [[2.0, 5.0, 5.0, 1.0, 6.0]], 1)
    good_values = [[2, 5, 5, 5, 6]]
    assert _judged("cummax", WritingDevice(valuesOut=good_values, indicesOut=[[0, 1, 1, 1, 4]]), case) == "PASS"
    assert _judged("cummax", WritingDevice(valuesOut=good_values, indicesOut=[[0, 1, 2, 2, 4]]), case) == "PASS"   # the last tie
    assert _judged("cummax", WritingDevice(valuesOut=good_values, indicesOut=[[0, 1, 1, 1, 3]]), case) == "FAIL"
    assert _judged("cummax", WritingDevice(valuesOut=[[2, 5, 5, 5, 5]], indicesOut=[[0, 1, 1, 1, 4]]), case) == "FAIL"


@pytest.mark.parametrize("op", ["cummax", "cummin"])
def test_each_running_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    own = ("window-one-short", "reversed-scan", "wrong-axis", "one-based-index", "other-extreme")
    assert {*own, "promotion", "dtype-missing", "ulp-bias", "flush"} <= set(kinds)
    cases = value_cases(op)
    for kind in (*own, "promotion", "ulp-bias", "flush"):
        assert any(_judged(op, kinds[kind](), c) == "FAIL" for c in cases), kind
    assert {c.kind for c in found.controls} == {"last-of-ties-control", "nan-ignoring-control", "zero-sign-control"}
    for control in found.controls:
        outcomes = {c.case_id: _judged(op, control(), c) for c in cases}
        assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED", "NOT_SUPPORTED"}, (control.kind, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    outcomes = {c.case_id: _judged(op, TorchBackend(), c) for c in cases}
    assert set(outcomes.values()) <= {"PASS", "NOT_SUPPORTED", "NOT_JUDGED"}, outcomes


# ---- aclnnReal: a real input's real part is itself ----

def test_real_copies_a_real_input_and_its_ci_values_take_a_computed_dtype():
    from aclnn_conformance.spec.surface_cases import build_case, data_value_cases
    from aclnn_conformance.spec.surface_values import value_entry
    from aclnn_conformance.suites.calls.surface import base_call
    tiny = float(np.finfo(np.float32).smallest_normal) / 4
    x = np.array([1.5, -0.0, np.nan, -np.inf, tiny], np.float32)
    case = build_case(value_entry("real"), "real", "hand", {"self": x}, AclDataType.FLOAT)
    assert _judged("real", WritingDevice(out=x), case) == "PASS"
    flipped = x.copy()
    flipped[1] = 0.0
    assert _judged("real", WritingDevice(out=flipped), case) == "FAIL"
    assert _judged("real", WritingDevice(out=np.where(np.isnan(x), 0, x)), case) == "FAIL"
    # the base call's self is COMPLEX64, which the harness does not compute: the ci values are FLOAT
    ci = {c.case_id: c.tensor("self").desc.dtype.name for c in data_value_cases("real", base_call("real"), "ci")}
    assert ci == {"values": "FLOAT", "values-empty": "FLOAT"}


# ---- aclnnArgsort: the positions that sort each slice ----

def _argsort_call(values, dim: int, descending: bool, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    return Case(op="argsort", case_id="hand", tensors={
        "self": TensorArg.from_array(x, dtype),
        "out": TensorArg.from_array(np.zeros(x.shape, np.int64), AclDataType.INT64)},
        attrs={"dim": dim, "descending": descending})


def test_argsort_by_hand_and_its_open_positions():
    from aclnn_conformance.oracle.surface import from_case
    row = [3.0, -1.0, 7.5, 0.25, -6.0]
    for descending in (False, True):
        result = from_case(_argsort_call([row], 1, descending), "cann")
        # by hand: the positions of the sorted values, each value distinct
        want = sorted(range(5), key=lambda i: row[i], reverse=descending)
        assert result.views["out"].tolist() == [want] and not result.aux["out"]["unjudged"].any()
    columns = from_case(_argsort_call([[2.0, 1.0], [1.0, 2.0], [0.0, 3.0]], 0, False), "cann")
    assert columns.views["out"].tolist() == [[2, 0], [1, 1], [0, 2]]
    tied = from_case(_argsort_call([1.0, 5.0, 1.0, -0.0, 0.0, 9.0], 0, False), "cann")
    # sorted: -0/+0 (a tie: positions 0, 1 open), 1, 1 (a tie: 2, 3 open), 5, 9
    assert tied.aux["out"]["unjudged"].tolist() == [True, True, True, True, False, False]
    assert tied.views["out"].tolist()[4:] == [1, 5]
    nan = from_case(_argsort_call([[1.0, np.nan, 0.0], [3.0, 2.0, 1.0]], 1, False), "cann")
    assert nan.aux["out"]["unjudged"].tolist() == [[True] * 3, [False] * 3]


def test_a_device_is_judged_on_the_sorting_positions():
    case = _argsort_call([[1.0, 5.0, 1.0, 3.0]], 1, False)
    assert _judged("argsort", WritingDevice(out=[[0, 2, 3, 1]]), case) == "PASS"
    assert _judged("argsort", WritingDevice(out=[[2, 0, 3, 1]]), case) == "PASS"   # the tie in the other order
    assert _judged("argsort", WritingDevice(out=[[0, 2, 1, 3]]), case) == "FAIL"
    descending = _argsort_call([[1.0, 5.0, 1.0, 3.0]], 1, True)
    assert _judged("argsort", WritingDevice(out=[[1, 3, 2, 0]]), descending) == "PASS"
    assert _judged("argsort", WritingDevice(out=[[0, 2, 3, 1]]), descending) == "FAIL"   # the ascending order


def test_each_argsort_mutant_fails_a_single_call_and_each_control_passes_every_one():
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = MUTANT_SETS.argsort
    kinds = {m.kind: m for m in found.mutants}
    own = ("ranks-written", "wrong-axis", "one-based-index", "attribute-ignored", "promotion")
    assert {*own, "dtype-missing"} <= set(kinds)
    cases = value_cases("argsort")
    for kind in own:
        assert any(_judged("argsort", kinds[kind](), c) == "FAIL" for c in cases), kind
    # the near tie a bf16 rounding collapses kills the promotion on the FLOAT values call alone
    assert _judged("argsort", kinds["promotion"](), next(c for c in cases if c.case_id == "values-FLOAT")) == "FAIL"
    assert {c.kind for c in found.controls} == {"reversed-ties-control", "nan-first-control"}
    for control in found.controls:
        outcomes = {c.case_id: _judged("argsort", control(), c) for c in cases}
        assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED", "NOT_SUPPORTED"}, (control.kind, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    outcomes = {c.case_id: _judged("argsort", TorchBackend(), c) for c in cases}
    assert set(outcomes.values()) <= {"PASS", "NOT_SUPPORTED", "NOT_JUDGED"}, outcomes
