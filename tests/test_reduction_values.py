"""The summing reductions (aclnnReduceSum, aclnnReduceNansum, aclnnMean) under the summation model: the bound against
hand computation, the oracle by hand (dims, keepdim, empty slices, NaN and infinities, overflowing
slices, integers), hand-made single calls a correct device in another order passes and a broken
one fails, and every generated mutant killed and every control clean on single calls."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.templates import reduced_shape
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import model_verdict as _verdict, oracle_output as _oracle

U = 2.0 ** -24
PRODUCTS = ("atlas-a2", "ascend950")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _call(op: str, values, dims, keepdim=False, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.surface_values import value_entry
    red = value_entry(op).reduction
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    out = np.zeros(reduced_shape(x.shape, dims, keepdim, False), x.dtype)
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(out, dtype)},
                attrs={red["dims"]: dims, red["keepdim"]: keepdim, red["dtype"]: int(dtype)})


# ---- the model ----

def test_gamma_and_the_bounds_by_hand():
    from aclnn_conformance.spec.surface_models import gamma, mean_bound, summation_bound
    assert gamma(0) == 0 and gamma(1) == U / (1 - U) and gamma(2) == 2 * U / (1 - 2 * U)
    # one term: no addition, only the oracle's own float64 error (zero for a zero magnitude)
    assert summation_bound(0.0, 1) == 0 and summation_bound(5.0, 1) < 1e-15
    # 3 terms of magnitudes summing to 6: gamma_2 * 6 = 12u / (1 - 2u), plus gamma_3(2^-53) * 6
    assert summation_bound(6.0, 3) == pytest.approx(12 * U / (1 - 2 * U) + 18 * 2.0 ** -53 / (1 - 3 * 2.0 ** -53),
                                                    rel=1e-12)
    # a mean of 4 terms summing to 10 with no summation error: 3u(1+u) * 2.5 and three subnormals
    assert mean_bound(10.0, 0.0, 4) == pytest.approx(7.5 * U * (1 + U) + 3 * 2.0 ** -149, rel=1e-12)


def test_the_orders_the_model_allows_land_where_the_bound_says():
    """1 + 2^-24 + 2^-24: left to right each small term ties to even and is lost (1), right to left
    they add first (1 + 2^-23, exact); both pass, since gamma_2 (1 + 2^-23) >= 2^-23."""
    case = _call("reduce_sum", [1.0, U, U], [0])
    want, aux = _oracle(case)
    assert float(want) == 1 + 2 * U and float(aux["exact"]) == 1 + 2 * U
    left = (np.float32(1.0) + np.float32(U)) + np.float32(U)
    right = np.float32(1.0) + (np.float32(U) + np.float32(U))
    assert float(left) == 1.0 and float(right) == 1 + 2 * U
    assert _verdict(case, left) == "PASS" and _verdict(case, right) == "PASS"
    # two float32 steps below the lowest any order gives: outside the bound
    assert _verdict(case, np.nextafter(np.float32(1.0), np.float32(0))) == "FAIL"


# ---- the oracle by hand ----

def test_sums_and_means_over_each_dims_pattern_by_hand():
    x = [[[1.0, 7.0], [3.0, -2.0]], [[-5.0, 0.5], [4.0, 6.0]]]     # shape (2, 2, 2)
    assert _oracle(_call("reduce_sum", x, [1]))[0].tolist() == [[4.0, 5.0], [-1.0, 6.5]]
    assert _oracle(_call("reduce_sum", x, [0, -1]))[0].tolist() == [3.5, 11.0]
    assert _oracle(_call("reduce_sum", x, [2], keepdim=True))[0].tolist() == [[[8.0], [1.0]], [[-4.5], [10.0]]]
    assert float(_oracle(_call("reduce_sum", x, []))[0]) == 14.5
    assert _oracle(_call("mean", x, [1]))[0].tolist() == [[2.0, 2.5], [-0.5, 3.25]]
    assert float(_oracle(_call("mean", x, []))[0]) == 14.5 / 8
    ints = _oracle(_call("reduce_sum", [[2 ** 31 - 1, 1], [5, -7]], [1], dtype=AclDataType.INT32))[0]
    assert ints.tolist() == [-2 ** 31, -2]        # wraps as an int32 accumulator does


def test_special_values_empty_slices_and_overflowing_slices():
    inf, nan = np.inf, np.nan
    want, aux = _oracle(_call("reduce_sum", [[1.0, nan], [inf, 2.0], [inf, -inf], [-inf, -inf]], [1]))
    assert np.isnan(want[0]) and want[1] == inf and np.isnan(want[2]) and want[3] == -inf
    assert not aux["unjudged"].any()
    # magnitudes past float32's range: an order may overflow, another not (not judged)
    big = float(np.finfo(np.float32).max)
    want, aux = _oracle(_call("reduce_sum", [[big, big, -big], [1.0, 2.0, 3.0]], [1]))
    assert aux["unjudged"].tolist() == [True, False] and want[1] == 6.0
    # an empty reduced dim: the host code fills 0 for a sum, NaN for a mean
    assert _oracle(_call("reduce_sum", np.zeros((3, 0)), [1]))[0].tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(_oracle(_call("mean", np.zeros((3, 0)), [1]))[0]).all()


def test_a_nan_sum_takes_each_nan_as_zero_and_keeps_infinities():
    inf, nan = np.inf, np.nan
    want, aux = _oracle(_call("reduce_nansum", [[1.0, nan], [nan, nan], [inf, nan], [inf, -inf]], [1]))
    assert want[0] == 1.0 and want[1] == 0.0 and want[2] == inf and np.isnan(want[3])
    assert not aux["unjudged"].any()
    # by hand: 0.5 + 0.25 (NaN as 0) in a float16 call, summed in float32 and cast back
    want, _ = _oracle(_call("reduce_nansum", [[0.5, nan, 0.25]], [1], dtype=AclDataType.FLOAT16))
    assert want.dtype == np.float16 and want.tolist() == [0.75]
    # a slice of NaN alone sums nothing: 0, where the plain sum is NaN
    assert _verdict(_call("reduce_nansum", [[nan, nan]], [1]), [0.0]) == "PASS"
    assert _verdict(_call("reduce_nansum", [[nan, nan]], [1]), [nan]) == "FAIL"
    assert _verdict(_call("reduce_nansum", [[nan, 2.0]], [1]), [2.0]) == "PASS"

def _mean_v2_call(values, dims, keepdim=False, noop=False, out_dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=np.float32)
    kept = reduced_shape(x.shape, dims, keepdim, noop)
    out = np.zeros(kept, numpy_dtype(out_dtype))
    return Case(op="mean_v2", case_id="hand", tensors={"self": TensorArg.from_array(x, AclDataType.FLOAT),
                                                       "out": TensorArg.from_array(out, out_dtype)},
                attrs={"dim": dims, "keepDim": keepdim, "noopWithEmptyAxes": noop})


def test_mean_v2_by_hand_every_dim_none_with_noop_and_a_cast_out():
    x = [[1.0, 2.0, 3.0], [4.0, 5.0, 9.0]]
    assert _oracle(_mean_v2_call(x, [1]))[0].tolist() == [2.0, 6.0]
    assert _oracle(_mean_v2_call(x, [0], keepdim=True))[0].tolist() == [[2.5, 3.5, 6.0]]
    assert _oracle(_mean_v2_call(x, []))[0].tolist() == 4.0                 # an empty dim: every dim
    assert _oracle(_mean_v2_call(x, [], noop=True))[0].tolist() == x       # ... or none, a copy
    want, _ = _oracle(_mean_v2_call(x, [1], out_dtype=AclDataType.FLOAT16))  # computed in float32, cast
    assert want.dtype == np.float16 and want.tolist() == [2.0, 6.0]
    assert np.isnan(_oracle(_mean_v2_call(np.zeros((2, 0)), [1]))[0]).all()   # an empty input: NaN
    assert _verdict(_mean_v2_call(x, [1]), [2.0, 6.0]) == "PASS"
    assert _verdict(_mean_v2_call(x, [1]), [3.0, 9.0]) == "FAIL"         # divided by n - 1

def test_an_fp16_sum_is_the_cast_of_a_float32_sum():
    """4096 fp16 ones: a float32 accumulator gives 4096 (representable in fp16); an fp16 one stalls
    at 2048, where 2048 + 1 rounds back to 2048 (fp16's spacing there is 2)."""
    case = _call("reduce_sum", np.ones(4096), [0], dtype=AclDataType.FLOAT16)
    want, _ = _oracle(case)
    assert want.dtype == np.float16 and float(want) == 4096.0
    stalled = np.float16(0)
    for _ in range(4096):
        stalled = np.float16(stalled + np.float16(1))
    assert float(stalled) == 2048.0
    assert _verdict(case, np.float16(4096)) == "PASS" and _verdict(case, stalled) == "FAIL"
    # bf16: 256 + 1 rounds back to 256 in bf16 (8 significant bits)
    case = _call("reduce_sum", np.ones(300), [0], dtype=AclDataType.BF16)
    assert _verdict(case, np.array(300, ml_dtypes.bfloat16)) == "PASS"
    assert _verdict(case, np.array(256, ml_dtypes.bfloat16)) == "FAIL"


def test_a_mean_divides_by_the_slice_length():
    case = _call("mean", [[1.0, 2.0, 3.0, 4.0]], [1])
    assert _verdict(case, [2.5]) == "PASS"
    assert _verdict(case, [10.0 / 3.0]) == "FAIL"          # divided by n - 1
    # 100 ones, the 36 past the last block of 64 dropped: 64, not 100
    tail = _call("reduce_sum", np.ones(100), [0])
    assert _verdict(tail, 100.0) == "PASS" and _verdict(tail, 64.0) == "FAIL"


# ---- the generated mutants and controls on single calls ----

def _single_calls(op: str) -> list[Case]:
    from aclnn_conformance.spec.surface_cases import value_cases
    return value_cases(op)


def _judged(op: str, backend, case: Case, product: str) -> str:
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    return judge(operator(op).spec, case, product, "cann", backend.run(case, product)).outcome


@pytest.mark.parametrize("op", ["reduce_sum", "reduce_nansum", "mean"])
def test_each_sum_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    sums = getattr(MUTANT_SETS, op)
    kinds = {m.kind for m in sums.mutants}
    assert {"narrow-accumulation", "dropped-tail"} <= kinds
    assert ("n-minus-one" in kinds) == (op in ("mean", "mean_v2"))
    assert {c.kind for c in sums.controls} >= {"sequential-control", "pairwise-control", "reversed-control"}
    cases = _single_calls(op)
    assert ("nan-propagated" in kinds) == (op == "reduce_nansum")
    for mutant in [m for m in sums.mutants
                   if m.kind in ("narrow-accumulation", "dropped-tail", "n-minus-one", "nan-propagated")]:
        failed = [c.case_id for c in cases if _judged(op, mutant(), c, "atlas-a2") == "FAIL"]
        assert failed, mutant.kind
    for control in sums.controls:
        for product in PRODUCTS:
            outcomes = {c.case_id: _judged(op, control(), c, product) for c in cases}
            assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, product, outcomes)


def test_which_calls_kill_which_mutant():
    """The long call (1000 terms) is where a dropped tail shows; every fp16 and bf16 call shows a
    narrow accumulator; every mean shows n - 1 where its sum is not zero."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    by_kind = {m.kind: m for m in getattr(MUTANT_SETS, "mean").mutants}
    cases = {c.case_id: c for c in _single_calls("mean")}
    kills = lambda kind, cid: _judged("mean", by_kind[kind](), cases[cid], "atlas-a2") == "FAIL"
    assert kills("dropped-tail", "long-FLOAT") and not kills("dropped-tail", "values-FLOAT")
    assert kills("narrow-accumulation", "long-FLOAT16") and kills("narrow-accumulation", "long-BF16")
    assert not kills("narrow-accumulation", "long-FLOAT")      # a float32 call is computed right
    assert kills("n-minus-one", "values-FLOAT")


def test_torch_passes_every_value_call():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    for op in ("reduce_sum", "reduce_nansum", "mean"):
        for case in _single_calls(op):
            assert _judged(op, TorchBackend(), case, "atlas-a2") in ("PASS", "NOT_JUDGED"), (op, case.case_id)


def test_the_records_take_the_summation_model_and_standard():
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.standards_surface import SUM
    for op in ("reduce_sum", "reduce_nansum", "mean"):
        record = operator(op)
        assert record.arithmetic_model.operator == op and "any order" in record.arithmetic_model.order
        assert record.spec.standards["cann"]["out"] == SUM


# ---- the index reductions (aclnnArgMax, aclnnArgMin): exact positions ----

def _index_call(op: str, values, dim: int, keepdim=False, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    out = np.zeros(reduced_shape(x.shape, dim, keepdim, False), np.int64)
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(out, AclDataType.INT64)},
                attrs={"dim": dim, "keepdim": keepdim})


def test_positions_by_hand_with_ties_and_nan_left_open():
    from aclnn_conformance.spec.surface_compare import compare_surface_exact
    x = [[1.0, 7.0, 3.0], [4.0, -2.0, 4.0], [np.nan, 0.0, 9.0]]
    want, aux = _oracle(_index_call("arg_max", x, 1))
    assert want.tolist()[:1] == [1] and aux["unjudged"].tolist() == [False, True, True]
    assert _oracle(_index_call("arg_min", x, 1))[0].tolist()[:2] == [0, 1]
    assert _oracle(_index_call("arg_max", x, 0, keepdim=True))[0].shape == (1, 3)
    assert _oracle(_index_call("arg_max", [[1.0, 7.0], [3.0, -2.0]], -2))[0].tolist() == [1, 0]
    # a tie's last position and a NaN slice's other maximum are accepted; another position is not
    assert compare_surface_exact(np.array([1, 2, 2]), want, aux).outcome == "PASS"
    assert compare_surface_exact(np.array([2, 0, 2]), want, aux).outcome == "FAIL"


@pytest.mark.parametrize("op", ["arg_max", "arg_min"])
def test_each_index_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    assert {"index-from-end", "other-extreme", "wrong-axis", "promotion"} <= set(kinds)
    cases = _single_calls(op)
    for kind in ("index-from-end", "other-extreme", "wrong-axis", "promotion"):
        assert any(_judged(op, kinds[kind](), c, "atlas-a2") == "FAIL" for c in cases), kind
    assert {c.kind for c in found.controls} == {"last-of-ties-control", "nan-skipping-control"}
    for control in found.controls:
        outcomes = {c.case_id: _judged(op, control(), c, "atlas-a2") for c in cases}
        assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    assert all(_judged(op, TorchBackend(), c, "atlas-a2") == "PASS" for c in cases)


# ---- the scan (aclnnCumsum): every prefix under the summation model ----

def _scan_call(values, dim: int, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    return Case(op="cumsum", case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                       "out": TensorArg.from_array(np.zeros_like(x), dtype)},
                attrs={"dim": dim, "dtype": int(dtype)})


def test_prefix_sums_and_their_bounds_by_hand():
    from aclnn_conformance.spec.surface_models import summation_bound
    want, aux = _oracle(_scan_call([[1.0, 2.0, 3.0], [4.0, -5.0, 0.5]], 1))
    assert want.tolist() == [[1.0, 3.0, 6.0], [4.0, -1.0, -0.5]]
    # element k sums k + 1 terms: gamma_k of their magnitudes (the first one, a single term, none)
    assert aux["bound"][1, 0] == summation_bound(4.0, 1) and aux["bound"][1, 2] >= summation_bound(9.5, 3)
    assert _oracle(_scan_call([[1.0, 2.0], [3.0, 4.0]], 0))[0].tolist() == [[1.0, 2.0], [4.0, 6.0]]
    # 4096 fp16 ones: the prefixes of a float32 accumulator reach 4096, an fp16 one stalls at 2048
    case = _scan_call(np.ones(4096), 0, dtype=AclDataType.FLOAT16)
    assert _verdict(case, np.arange(1, 4097, dtype=np.float64).astype(np.float16)) == "PASS"
    stalled = np.minimum(np.arange(1, 4097), 2048).astype(np.float16)
    assert _verdict(case, stalled) == "FAIL"


def test_each_scan_mutant_fails_a_single_call_and_each_control_passes_every_one():
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    found = getattr(MUTANT_SETS, "cumsum")
    kinds = {m.kind: m for m in found.mutants}
    assert {"narrow-accumulation", "dropped-tail", "wrong-axis"} <= set(kinds) and "keepdim-ignored" not in kinds
    cases = _single_calls("cumsum")
    for kind in ("narrow-accumulation", "dropped-tail", "wrong-axis"):
        assert any(_judged("cumsum", kinds[kind](), c, "atlas-a2") == "FAIL" for c in cases), kind
    assert {"sequential-control", "blocked-control"} <= {c.kind for c in found.controls}
    for control in found.controls:
        for product in PRODUCTS:
            outcomes = {c.case_id: _judged("cumsum", control(), c, product) for c in cases}
            assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, product, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    assert all(_judged("cumsum", TorchBackend(), c, "atlas-a2") == "PASS" for c in cases)


def test_a_rank_zero_scan_is_its_scalar_on_torch_too():
    """aclnnCumsum takes a 0-d input (dim 0 or -1, as one dim): the vendor's l2_cumsum_normal_0dim_tensor."""
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    case = _scan_call(np.float32(2.5), 0)
    assert float(_oracle(case)[0]) == 2.5
    assert _judged("cumsum", TorchBackend(), case, "atlas-a2") == "PASS"
