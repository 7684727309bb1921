"""The contractions (aclnnDot, aclnnTrace) under the summation model: the oracle against hand
computation (products, the diagonal of rectangular matrices, NaN and infinities, integers, empty
calls), the bound against Higham's dot-product bound, a device in another order (a per-element
float32 loop written here) passing and broken devices failing single calls, and every generated
mutant killed and every control clean on single calls."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg
from tests.value_checks import model_verdict as _verdict, oracle_output as _oracle

U = 2.0 ** -24
PRODUCTS = ("atlas-a2", "ascend950")


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _dot(x, y, dtype=AclDataType.FLOAT, out_dtype=None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    dt = numpy_dtype(dtype)
    out = out_dtype or dtype
    return Case(op="dot", case_id="hand", tensors={
        "self": TensorArg.from_array(np.asarray(x, dt), dtype),
        "tensor": TensorArg.from_array(np.asarray(y, dt), dtype),
        "out": TensorArg.from_array(np.zeros((), numpy_dtype(out)), out)}, attrs={})


def _trace(x, dtype=AclDataType.FLOAT, out_dtype=None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    out = out_dtype or dtype
    return Case(op="trace", case_id="hand", tensors={
        "self": TensorArg.from_array(np.asarray(x, numpy_dtype(dtype)), dtype),
        "out": TensorArg.from_array(np.zeros((), numpy_dtype(out)), out)}, attrs={})


def _judged(op: str, backend, case: Case, product: str) -> str:
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    return judge(operator(op).spec, case, product, "cann", backend.run(case, product)).outcome


# ---- the oracle by hand ----

def test_a_dot_product_and_its_bound_by_hand():
    want, aux = _oracle(_dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0]))
    assert want.shape == () and want.dtype == np.float32 and float(want) == 32.0
    # Higham eq. 3.5: gamma_n sum |x_i y_i| = 3u/(1 - 3u) * 32, plus the oracle's own float64 error
    higham = 3 * U / (1 - 3 * U) * 32
    assert higham <= float(aux["bound"]) <= higham * (1 + 1e-8) and not aux["unjudged"]
    # fp16: 2048*1 + 1*1 = 2049, a tie between 2048 and 2050 in fp16: to even (2048)
    want, _ = _oracle(_dot([2048.0, 1.0], [1.0, 1.0], AclDataType.FLOAT16))
    assert want.dtype == np.float16 and float(want) == 2048.0


def test_a_dot_product_of_float32_operands_is_exact_in_the_oracle():
    x = np.float32(1 + 2.0 ** -23)
    y = np.float32(1 - 2.0 ** -24)
    exact = Fraction(float(x)) * Fraction(float(y)) * 3          # three equal products, by rational arithmetic
    _, aux = _oracle(_dot([x] * 3, [y] * 3))
    assert Fraction(float(aux["exact"])) == exact


def test_products_below_the_normal_range_widen_the_bound_by_their_magnitude():
    tiny = 2.0 ** -70 * 2.0 ** -60           # 2^-130: a float32 subnormal product, which a device may flush
    want, aux = _oracle(_dot([2.0 ** -70, 1.0], [2.0 ** -60, 0.0]))
    assert float(aux["exact"]) == tiny and float(aux["bound"]) >= tiny
    assert _verdict(_dot([2.0 ** -70, 1.0], [2.0 ** -60, 0.0]), np.float32(0.0)) == "PASS"
    assert _verdict(_dot([2.0 ** -70, 1.0], [2.0 ** -60, 0.0]), np.float32(2.0 ** -120)) == "FAIL"


def test_special_values_integers_and_empty_calls():
    inf, nan = float("inf"), float("nan")
    assert np.isnan(_oracle(_dot([inf, inf], [1.5, -2.0]))[0])        # +inf + -inf: NaN in any order
    assert float(_oracle(_dot([inf, 1.0], [1.5, 2.0]))[0]) == inf
    assert np.isnan(_oracle(_dot([nan, 1.0], [0.0, 2.0]))[0])
    assert float(_oracle(_dot([], []))[0]) == 0.0                      # aclnn_dot.cpp:113-139
    want, aux = _oracle(_dot([3, -4, 5], [2, 2, 2], AclDataType.INT32))
    assert want.dtype == np.int32 and int(want) == 8 and not aux["unjudged"]
    # 100*2 + 100*1 = 300 leaves INT8: whether it wraps, no document says
    assert bool(_oracle(_dot([100, 100], [2, 1], AclDataType.INT8))[1]["unjudged"])
    # a sum of magnitudes past float32's largest value: open (an order may overflow)
    assert bool(_oracle(_dot([3e38, -3e38], [1.0, 1.0]))[1]["unjudged"])


def test_a_trace_by_hand_rectangular_integer_and_empty():
    assert float(_oracle(_trace([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))[0]) == 6.0     # 1 + 5
    assert float(_oracle(_trace([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))[0]) == 5.0   # 1 + 4
    want, aux = _oracle(_trace([[1, 2], [3, 4]], AclDataType.INT32, AclDataType.INT64))
    assert want.dtype == np.int64 and int(want) == 5 and not aux["unjudged"]
    want, _ = _oracle(_trace([[True, False], [True, True]], AclDataType.BOOL, AclDataType.INT64))
    assert int(want) == 2
    assert float(_oracle(_trace(np.zeros((0, 3))))[0]) == 0.0           # aclnn_trace.cpp:132-134
    assert np.isnan(_oracle(_trace([[float("inf"), 0.0], [0.0, -float("inf")]]))[0])
    # a DOUBLE trace is not judged (a float64 oracle is no finer than the result)
    assert bool(_oracle(_trace([[1.0]], AclDataType.DOUBLE))[1]["unjudged"])


def test_a_float32_device_in_its_own_order_passes_and_a_two_step_error_fails():
    """A per-element loop written here: products rounded to float32, summed from the last term."""
    rng = np.random.default_rng(5)
    x = rng.uniform(-6, 6, 777).astype(np.float32)
    y = rng.uniform(-6, 6, 777).astype(np.float32)
    total = np.float32(0)
    for a, b in zip(x[::-1], y[::-1]):
        total = np.float32(total + np.float32(a * b))
    case = _dot(x, y)
    assert _verdict(case, total) == "PASS"
    exact = sum(Fraction(float(a)) * Fraction(float(b)) for a, b in zip(x, y))
    bound = 777 * U / (1 - 777 * U) * float(sum(abs(Fraction(float(a)) * Fraction(float(b))) for a, b in zip(x, y)))
    off = np.float32(float(exact) + 2 * bound)
    assert _verdict(case, off) == "FAIL"
    # fp16 operands: the float32 result cast once; an fp16 accumulator is refused on the long call
    h = np.abs(x[:600]).astype(np.float16) + np.float16(0.5)
    acc16 = np.float16(0)
    acc32 = np.float32(0)
    for a in h:
        acc16 = np.float16(np.float32(acc16) + np.float32(a) * np.float32(a))
        acc32 = np.float32(acc32 + np.float32(a) * np.float32(a))
    case = _dot(h, h, AclDataType.FLOAT16)
    assert _verdict(case, np.float16(acc32)) == "PASS" and _verdict(case, acc16) == "FAIL"


# ---- mutants and controls on single calls ----

@pytest.mark.parametrize("op,own", [("dot", {"one-operand"}), ("trace", {"anti-diagonal", "row-stride"})])
def test_each_contraction_mutant_fails_a_single_call_and_each_control_passes_every_one(op, own):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    assert {"narrow-accumulation", "dropped-tail", "promotion", "dtype-missing"} | own <= set(kinds)
    cases = {c.case_id: c for c in value_cases(op)}
    kills = lambda kind, cid: _judged(op, kinds[kind](), cases[cid], "atlas-a2") == "FAIL"
    assert kills("narrow-accumulation", "long-FLOAT16") and kills("narrow-accumulation", "long-BF16")
    assert not kills("narrow-accumulation", "long-FLOAT")        # a float32 call is computed right
    assert kills("dropped-tail", "long-FLOAT") and not kills("dropped-tail", "values-FLOAT" if op == "trace"
                                                             else "wide-FLOAT")
    if op == "dot":
        assert kills("one-operand", "values-FLOAT")
    else:
        assert kills("anti-diagonal", "values-FLOAT") and kills("row-stride", "wide-FLOAT")
        assert not kills("row-stride", "values-FLOAT")             # a square matrix: the same diagonal
    controls = {c.kind for c in found.controls}
    assert {"sequential-control", "pairwise-control", "reversed-control", "zero-sign-control"} <= controls
    assert ("fused-control" in controls) == (op == "dot")
    for control in found.controls:
        for product in PRODUCTS:
            outcomes = {cid: _judged(op, control(), c, product) for cid, c in cases.items()}
            assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, product, outcomes)


def test_torch_passes_every_value_call():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.spec.surface_cases import value_cases
    for op in ("dot", "trace"):
        for case in value_cases(op):
            assert _judged(op, TorchBackend(), case, "atlas-a2") in ("PASS", "NOT_JUDGED"), (op, case.case_id)


def test_the_records_take_the_summation_model_and_standard():
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.standards_surface import SUM
    for op in ("dot", "trace"):
        record = operator(op)
        assert record.arithmetic_model.operator == op and "any order" in record.arithmetic_model.order
        assert record.spec.standards["cann"]["out"] == SUM and record.spec.values_judged


# ---- the global poolings: a mean and a maximum over the dims their API fixes (every dim from 2) ----

def _pool(op: str, x, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(x, numpy_dtype(dtype))
    out = np.zeros(x.shape[:2] + (1,) * (x.ndim - 2), x.dtype)
    return Case(op=op, case_id="hand", tensors={"self": TensorArg.from_array(x, dtype),
                                                 "out": TensorArg.from_array(out, dtype)}, attrs={})


def test_global_pools_by_hand_reduce_every_dim_from_two():
    from aclnn_conformance.spec.surface_values import outside_domain
    x = np.arange(2 * 3 * 2 * 2, dtype=np.float64).reshape(2, 3, 2, 2)
    mean, aux = _oracle(_pool("global_average_pool", x))
    assert mean.shape == (2, 3, 1, 1) and not aux["unjudged"].any()
    assert mean.reshape(-1).tolist() == [sum(range(4 * k, 4 * k + 4)) / 4 for k in range(6)]
    top, _ = _oracle(_pool("global_max_pool", x))
    assert top.reshape(-1).tolist() == [4 * k + 3 for k in range(6)]
    five = np.ones((1, 2, 3, 4, 5))
    five[0, 1, 2, 3, 4] = 61.0                          # rank 5: dims 2, 3 and 4 reduced
    assert _oracle(_pool("global_average_pool", five))[0].reshape(-1).tolist() == [1.0, 2.0]   # (59 + 61) / 60
    assert _oracle(_pool("global_max_pool", five))[0].reshape(-1).tolist() == [1.0, 61.0]
    nan = x.copy()
    nan[1, 2, 0, 1] = np.nan                            # a NaN channel of a maximum is open
    assert _oracle(_pool("global_max_pool", nan))[1]["unjudged"].reshape(-1).tolist() == [False] * 5 + [True]
    assert not outside_domain(_pool("global_average_pool", x))
    wrong = _pool("global_average_pool", x).with_tensor(      # an output not (N, C, 1, 1)
        "out", TensorArg.from_array(np.zeros((2, 3)), AclDataType.FLOAT))
    assert outside_domain(wrong)


@pytest.mark.parametrize("op", ["global_average_pool", "global_max_pool"])
def test_each_pool_mutant_fails_a_single_call_and_each_control_passes_every_one(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = getattr(MUTANT_SETS, op)
    kinds = {m.kind: m for m in found.mutants}
    assert "fewer-dims" in kinds and "wrong-axis" not in kinds and "keepdim-ignored" not in kinds
    cases = {c.case_id: c for c in value_cases(op)}
    assert all(c.attrs == {} for c in cases.values())   # the API has no dims attribute: the entry fixes them
    kills = lambda kind, cid: _judged(op, kinds[kind](), cases[cid], "atlas-a2") == "FAIL"
    assert kills("fewer-dims", "channels-FLOAT") and kills("fewer-dims", "rank5-FLOAT")
    assert not kills("fewer-dims", "single-FLOAT")      # one spatial element: nothing left out
    if op == "global_average_pool":
        assert kills("narrow-accumulation", "long-FLOAT16") and kills("dropped-tail", "long-FLOAT")
        assert kills("n-minus-one", "channels-FLOAT")
    for control in found.controls:
        for product in PRODUCTS:
            outcomes = {cid: _judged(op, control(), c, product) for cid, c in cases.items()}
            assert set(outcomes.values()) <= {"PASS", "NOT_JUDGED"}, (control.kind, product, outcomes)
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    for cid, c in cases.items():
        assert _judged(op, TorchBackend(), c, "atlas-a2") in ("PASS", "NOT_JUDGED"), cid


# ---- beta self + alpha (vec1 outer vec2) (aclnnAddr, aclnnInplaceAddr) ----

def _addr(op: str, s, v1, v2, beta, alpha, dtype=AclDataType.FLOAT) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    dt = numpy_dtype(dtype)
    name = "self" if op == "addr" else "selfRef"
    tensors = {name: TensorArg.from_array(np.asarray(s, dt), dtype),
               "vec1": TensorArg.from_array(np.asarray(v1, dt), dtype),
               "vec2": TensorArg.from_array(np.asarray(v2, dt), dtype)}
    if op == "addr":
        tensors["out"] = TensorArg.from_array(np.zeros((len(v1), len(v2)), dt), dtype)
    return Case(op=op, case_id="hand", tensors=tensors, attrs={"betaOptional": beta, "alphaOptional": alpha})


def test_addr_by_hand_with_beta_zero_ignoring_self():
    nan = float("nan")
    want, aux = _oracle(_addr("addr", [[1.0, 2.0], [3.0, 4.0]], [1.0, -2.0], [0.5, 3.0], 0.5, 2.0))
    # 0.5 self + 2 vec1[i] vec2[j]
    assert want.tolist() == [[0.5 + 1.0, 1.0 + 6.0], [1.5 - 2.0, 2.0 - 12.0]]
    want, _ = _oracle(_addr("addr", [nan, float("inf")], [1.0, 2.0], [1.0, 3.0], 0.0, 1.0))
    assert want.tolist() == [[1.0, 3.0], [2.0, 6.0]]                       # self ignored at beta 0
    want, _ = _oracle(_addr("addr", [nan, 1.0], [1.0, 2.0], [1.0, 3.0], 1.0, 1.0))
    assert np.isnan(want[:, 0]).all() and want[:, 1].tolist() == [4.0, 7.0]
    # the absent scalars are 1 (aclnn_addr.cpp:324-338)
    case = _addr("addr", [1.0], [2.0], [3.0], 1.0, 1.0)
    bare = case.with_(attrs={})
    assert _oracle(bare)[0].tolist() == _oracle(case)[0].tolist() == [[7.0]]
    want, _ = _oracle(_addr("inplace_addr", [[1.0, 1.0], [1.0, 1.0]], [1.0, 2.0], [3.0, 4.0], 2.0, 0.5))
    assert want.tolist() == [[3.5, 4.0], [5.0, 6.0]]
    # fp16, computed natively in the host code's order: (alpha vec1) vec2 rounded at each step
    _, aux = _oracle(_addr("addr", [[0.0]], [1 + 2.0 ** -10], [1 + 2.0 ** -10], 1.0, 1.5, AclDataType.FLOAT16))
    assert float(aux["bound"].max()) > 0                                     # two roundings: not one


@pytest.mark.parametrize("op", ["addr", "inplace_addr"])
def test_addr_mutants_fail_single_calls(op):
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.spec.surface_cases import value_cases
    found = {m.kind: m for m in getattr(MUTANT_SETS, op).mutants}
    cases = {c.case_id: c for c in value_cases(op)}
    assert _judged(op, found["beta-ignored"](), cases["values-FLOAT"], "atlas-a2") == "FAIL"
    # beta 0 with NaN and infinities in self: propagating them is refused
    assert _judged(op, found["beta-zero-propagates"](), cases["attrs1-FLOAT"], "atlas-a2") == "FAIL"
    assert _judged(op, found["beta-zero-propagates"](), cases["values-FLOAT"], "atlas-a2") == "PASS"
    assert _judged(op, found["operands-swapped"](), cases["values-FLOAT"], "atlas-a2") == "FAIL"
    assert _judged(op, found["attribute-ignored"](), cases["attrs1-FLOAT"], "atlas-a2") == "FAIL"
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend import TorchBackend
    for cid, c in cases.items():
        assert _judged(op, TorchBackend(), c, "atlas-a2") in ("PASS", "NOT_JUDGED"), cid
