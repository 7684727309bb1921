"""The values of spec/data/values/grads.json: aclnnSoftshrinkBackward (a parameter named by a Python
keyword, ``lambda``, read by an expression as ``lambda_``; the side the threshold's equality takes;
the NaN self the document and the kernel disagree on, open) and the gated units' backwards
aclnnGluBackward and aclnnSwiGluGrad (the output in the input's shape, its two halves by two
expressions): the oracle against per-element loops with Python's math and mpmath's derivatives of
the forwards, devices in the kernels' orders passing where judged, the cancellations left open, and
the generated mutants killed; aclnnClippedSwiglu and V2 (an interleaved split of the merged block,
the rows past the group counts open, the two clamp modes) against the document's steps by hand;
aclnnPrelu (a weight per channel of dim 1) against a per-element loop; aclnnGeluBackward judged
only where the document's erf form and the arch35 kernel's tanh form agree, a device of either form
passing there."""
from __future__ import annotations

import keyword
import math

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import value_entry
from tests.value_checks import class_verdict as _verdict, hand_case as _case, open_flags as _open, \
    oracle_output as _oracle


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


@pytest.mark.parametrize("key, kinds", [
    ("softshrink_backward", {"promotion", "dtype-missing", "nan", "ulp-bias", "flush"}),
    ("glu_backward", {"promotion", "dtype-missing", "twice-limit", "halves-swapped", "wrong-dim",
                      "output-halves-swapped"}),
    ("swi_glu_grad", {"promotion", "dtype-missing", "twice-limit", "halves-swapped", "wrong-dim",
                      "output-halves-swapped"}),
    ("clipped_swiglu", {"promotion", "dtype-missing", "twice-limit", "halves-swapped", "wrong-dim",
                        "interleave-ignored"}),
    ("clipped_swiglu_v2", {"promotion", "dtype-missing", "twice-limit", "halves-swapped", "wrong-dim",
                           "interleave-ignored", "attribute-ignored"}),
    ("prelu", {"promotion", "dtype-missing", "nan", "ulp-bias", "channel-first-only", "channel-last-dim"}),
    ("gelu_backward", {"promotion", "dtype-missing", "nan", "twice-limit"})])
def test_each_generated_mutant_is_killed_and_the_control_clean_on_the_value_cases(key, kinds):
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.reports.mutate import mutate
    group = mutant_set(key)
    assert kinds <= {m.kind for m in group.mutants}
    doc = mutate(mutants=[*group.mutants, *group.equivalent, *group.controls],
                 products=("ascend950", "atlas-a2"))
    s = doc["summary"]
    assert s["survived"] == 0 and s["killed"] == s["named"] == s["mutants"] == len(group.mutants), s
    assert s["false_alarms"] == 0 and not s["falsely_failed_controls"], s


# ---- the gated units' backwards (kind halves with a gradient) ----

def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def _halves_case(key: str, dtype: str, x: np.ndarray, grad: np.ndarray, dim: int):
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.tensor import TensorArg
    entry = value_entry(key)
    acl = AclDataType[dtype]
    dt = numpy_dtype(acl)
    red = entry.reduction
    tensors = {red["input"]: TensorArg.from_array(np.asarray(x).astype(dt), acl),
               red["gradient"]: TensorArg.from_array(np.asarray(grad).astype(dt), acl),
               entry.output: TensorArg.from_array(np.zeros(np.shape(x), dt), acl)}
    return Case(op=entry.key, case_id="hand", tensors=tensors, attrs={red["dims"]: dim}, rule_ids=(),
                origin="table", note="")


def _glu_backward_loop(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    """Per element with Python's math, x of shape (rows, 2n) split along dim 1."""
    n = x.shape[1] // 2
    out = np.zeros(x.shape)
    for i in range(x.shape[0]):
        for j in range(n):
            a, b, grad = float(x[i, j]), float(x[i, n + j]), float(g[i, j])
            s = _sigmoid(b)
            out[i, j] = grad * s                          # aclnnGluBackward.md:39
            out[i, n + j] = grad * s * (a - a * s)        # :40
    return out


def _swi_glu_grad_loop(x: np.ndarray, g: np.ndarray) -> np.ndarray:
    n = x.shape[1] // 2
    out = np.zeros(x.shape)
    for i in range(x.shape[0]):
        for j in range(n):
            a, b, grad = float(x[i, j]), float(x[i, n + j]), float(g[i, j])
            s = _sigmoid(a)
            out[i, j] = grad * (s + s * (1 - s) * a) * b  # aclnnSwiGluGrad.md:33
            out[i, n + j] = grad * s * a                  # :36
    return out


@pytest.mark.parametrize("key, loop", [("glu_backward", _glu_backward_loop),
                                       ("swi_glu_grad", _swi_glu_grad_loop)])
def test_a_backward_of_the_halves_against_a_per_element_loop(key, loop):
    rng = np.random.default_rng(3)
    x = rng.uniform(-6, 6, (5, 8)).astype(np.float32).astype(np.float64)
    g = rng.uniform(-4, 4, (5, 4)).astype(np.float32).astype(np.float64)
    out, aux = _oracle(_halves_case(key, "FLOAT", x, g, 1))
    assert out.shape == (5, 8)
    assert np.allclose(np.asarray(aux["exact"]), loop(x, g), rtol=1e-13, atol=1e-300)
    # the same call along dim 0 of the transposed input
    out_t, aux_t = _oracle(_halves_case(key, "FLOAT", x.T.copy(), g.T.copy(), 0))
    assert np.array_equal(np.asarray(aux_t["exact"]), np.asarray(aux["exact"]).T)


def test_the_backwards_are_the_derivatives_of_their_forwards():
    """d/da and d/db of glu(a, b) = a sigmoid(b) and of swiglu(a, b) = silu(a) b, by mpmath."""
    mp = pytest.importorskip("mpmath")
    mp.mp.dps = 40
    sig = lambda t: 1 / (1 + mp.exp(-t))
    x = np.array([[0.75, -2.5, 1.5, 3.0]])
    g = np.array([[1.5, -0.5]])
    for key, forward in (("glu_backward", lambda a, b: a * sig(b)), ("swi_glu_grad", lambda a, b: a * sig(a) * b)):
        exact = np.asarray(_oracle(_halves_case(key, "FLOAT", x, g, 1))[1]["exact"]).reshape(-1)
        for j in range(2):
            a, b = mp.mpf(float(x[0, j])), mp.mpf(float(x[0, 2 + j]))
            da = mp.diff(lambda t: forward(t, b), a) * g[0, j]
            db = mp.diff(lambda t: forward(a, t), b) * g[0, j]
            assert abs(float(da) - exact[j]) <= 1e-12 * abs(float(da)) + 1e-300
            assert abs(float(db) - exact[2 + j]) <= 1e-12 * abs(float(db)) + 1e-300


def test_a_gradient_not_of_the_halves_shape_or_an_odd_dim_is_not_judged():
    x = np.ones((2, 4))
    _, aux = _oracle(_halves_case("glu_backward", "FLOAT", x, np.ones((2, 4)), 1))
    assert np.asarray(aux["unjudged"]).all()
    _, aux = _oracle(_halves_case("glu_backward", "FLOAT", np.ones((3, 4)), np.ones((3, 4)), 0))
    assert np.asarray(aux["unjudged"]).all()


def _glu_backward_kernel(x: np.ndarray, g: np.ndarray, steps: type, out_dtype) -> np.ndarray:
    """The arch35 kernel's order (glu_grad_common.h:87-113) or the composed path's
    (aclnn_glu_backward.cpp:212-224), each operation rounded in ``steps``, per element."""
    n = x.shape[1] // 2
    out = np.zeros(x.shape, out_dtype)
    r = lambda v: steps(v)
    for i in range(x.shape[0]):
        for j in range(n):
            a, b, grad = r(x[i, j]), r(x[i, n + j]), r(g[i, j])
            if steps is np.float32:    # 1/(1 + exp(-b)), (1 - s) s a g
                s = r(r(1) / r(r(1) + r(np.exp(r(-b)))))
                out[i, j] = r(grad * s)
                out[i, n + j] = r(r(r(r(r(1) - s) * s) * a) * grad)
            else:                      # Sigmoid, Mul, Mul, Sub, Mul in the input's dtype
                s = r(1 / (1 + math.exp(-float(b))))
                a_grad = r(grad * s)
                out[i, j] = a_grad
                out[i, n + j] = r(r(a - r(a * s)) * a_grad)
    return out


@pytest.mark.parametrize("dtype, steps", [("FLOAT", np.float32), ("FLOAT16", np.float32),
                                          ("BF16", ml_dtypes.bfloat16)])
def test_glu_backward_in_the_kernels_orders_passes_where_judged(dtype, steps):
    """Float32 as the arch35 kernel (fp16 cast up, as the composed path does too); BF16 rounded at
    every step as the composed path computes it natively: both pass on the elements judged."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    dt = numpy_dtype(AclDataType[dtype])
    rng = np.random.default_rng(11)
    x = rng.uniform(-6, 6, (64, 16)).astype(dt).astype(np.float64)
    g = rng.uniform(-4, 4, (64, 8)).astype(dt).astype(np.float64)
    case = _halves_case("glu_backward", dtype, x, g, 1)
    device = _glu_backward_kernel(x.astype(dt), g.astype(dt), steps, dt)
    assert _verdict(case, device) == "PASS"
    twice = np.asarray(device).astype(np.float64) * (1 + 0.2)
    assert _verdict(case, twice.astype(dt)) == "FAIL"


def test_glu_backwards_cancellation_is_open_past_its_threshold_and_would_fail_there():
    """b_grad's 1 - s cancels as b grows: a float32 kernel at b = 12 is far beyond 10 T of the exact
    value, so b > 7 is open (b > 2 in BF16, computed natively); below it is judged."""
    x = np.array([[3.0, 3.0, 3.0, 12.0, 6.5, 2.5]])
    g = np.array([[2.0, 2.0, 2.0]])
    _, aux = _oracle(_halves_case("glu_backward", "FLOAT", x, g, 1))
    assert _open(aux, 6) == [False, False, False, True, False, False]
    _, aux = _oracle(_halves_case("glu_backward", "BF16", x, g, 1))
    assert _open(aux, 6) == [False, False, False, True, True, True]
    kernel = _glu_backward_kernel(np.array([[3.0, 12.0]], np.float32), np.array([[2.0]], np.float32),
                                  np.float32, np.float32)
    exact = 2.0 * 3.0 * _sigmoid(12.0) * (1 - _sigmoid(12.0))
    assert abs(float(kernel[0, 1]) - exact) / exact > 10 * 2.0 ** -13


def test_swi_glu_grads_root_is_open_and_elsewhere_judged():
    """outA's factor 1 + A(1 - sigmoid(A)) vanishes near A = -1.2785: open within 1e-3 of 0."""
    root = -1.2784645427610738
    x = np.array([[root, 2.0, 3.0, 3.0]])
    g = np.array([[1.0, 1.0]])
    _, aux = _oracle(_halves_case("swi_glu_grad", "FLOAT", x, g, 1))
    assert _open(aux, 4) == [True, False, False, False]
    assert abs(1 + root * (1 - _sigmoid(root))) < 1e-12


def test_each_backward_mutant_is_killed_by_a_single_call_and_the_controls_pass():
    """The output's halves swapped, the activation on the other half, the wrong dim: each fails one
    call of the twin shape; the float32-steps control passes it."""
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    rng = np.random.default_rng(5)
    x = rng.uniform(-3, 3, (4, 6, 6)).astype(np.float32).astype(np.float64)
    g = rng.uniform(-3, 3, (4, 3, 6)).astype(np.float32).astype(np.float64)
    for key in ("glu_backward", "swi_glu_grad"):
        case = _halves_case(key, "FLOAT", x, g, 1)
        group = mutant_set(key)
        by_kind = {m.kind: m for m in [*group.mutants, *group.controls]}
        for kind in ("output-halves-swapped", "halves-swapped", "wrong-dim"):
            assert _verdict(case, by_kind[kind]().values(case)) == "FAIL", (key, kind)
        assert _verdict(case, by_kind["float32-steps-control"]().values(case)) == "PASS", key


# ---- the clipped SwiGlu (interleaved halves, group rows, clamp modes) ----

def _clipped_case(key: str, dtype: str, x: np.ndarray, dim: int, rows=None, **attrs):
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.tensor import TensorArg
    entry = value_entry(key)
    acl = AclDataType[dtype]
    dt = numpy_dtype(acl)
    shape = list(np.shape(x))
    shape[dim] //= 2
    tensors = {"x": TensorArg.from_array(np.asarray(x).astype(dt), acl),
               "out": TensorArg.from_array(np.zeros(shape, dt), acl)}
    if rows is not None:
        tensors["groupIndexOptional"] = TensorArg.from_array(np.asarray(rows, np.int64), AclDataType.INT64)
    all_attrs = {**entry.sample["attrs"], "dim": dim, **attrs}
    return Case(op=entry.key, case_id="hand", tensors=tensors, attrs=all_attrs, rule_ids=(), origin="table", note="")


def _clipped_loop(x: np.ndarray, dim: int, alpha: float, limit: float, bias: float, interleaved: bool,
                  clamp_mode: int = 0) -> np.ndarray:
    """The document's steps per element (aclnnClippedSwiglu.md:34-89, V2 :75-108): merge to [pre, cut],
    split front/back or even/odd, clamp, the variant SwiGlu, reshape."""
    pre = int(np.prod(x.shape[:dim]))
    rows = np.asarray(x, np.float64).reshape(pre, -1)
    h = rows.shape[1] // 2
    out = np.zeros((pre, h))
    for i in range(pre):
        for j in range(h):
            a, b = (rows[i, 2 * j], rows[i, 2 * j + 1]) if interleaved else (rows[i, j], rows[i, h + j])
            if clamp_mode == 0:
                a = min(a, limit)
                out[i, j] = a * _sigmoid(alpha * a) * (max(min(b, limit), -limit) + bias)
            else:
                out[i, j] = min(a * _sigmoid(a), limit) * max(min(b, limit), -limit)
    shape = list(x.shape)
    shape[dim] //= 2
    return out.reshape(shape)


@pytest.mark.parametrize("interleaved", [False, True])
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_clipped_swiglu_against_the_documents_steps(interleaved, dim):
    rng = np.random.default_rng(17)
    x = rng.uniform(-10, 10, (4, 6, 8)).astype(np.float32).astype(np.float64)
    attrs = {"alpha": 1.5, "limit": 4.0, "bias": 0.5, "interleaved": interleaved}
    _, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", x, dim, **attrs))
    axis = dim % 3
    expected = _clipped_loop(x, axis, 1.5, 4.0, 0.5, interleaved)
    assert np.allclose(np.asarray(aux["exact"]), expected, rtol=1e-13, atol=1e-300)
    assert not np.asarray(aux["unjudged"]).any()


def test_clipped_swiglu_v2_clamps_after_the_silu_without_alpha_and_bias_in_mode_one():
    rng = np.random.default_rng(19)
    x = rng.uniform(-10, 10, (3, 8)).astype(np.float32).astype(np.float64)
    for mode in (0, 1):
        _, aux = _oracle(_clipped_case("clipped_swiglu_v2", "FLOAT", x, 1, clampMode=mode, alpha=1.702,
                                       limit=3.0, bias=1.0, interleaved=True))
        assert np.allclose(np.asarray(aux["exact"]), _clipped_loop(x, 1, 1.702, 3.0, 1.0, True, mode),
                           rtol=1e-13, atol=1e-300)
    _, aux = _oracle(_clipped_case("clipped_swiglu_v2", "FLOAT", x, 1, clampMode=2))
    assert np.asarray(aux["unjudged"]).all()    # in neither of the document's cases


def test_the_rows_past_the_group_sum_are_open_and_a_negative_count_is_outside():
    x = np.ones((5, 2, 4))
    _, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", x, 1, rows=[1, 2]))
    open_ = np.asarray(aux["unjudged"])
    assert not open_[:3].any() and open_[3:].all()
    _, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", x, 1, rows=[9]))
    assert not np.asarray(aux["unjudged"]).any()
    _, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", x, 1, rows=[4, -1]))
    assert np.asarray(aux["unjudged"]).all()


def test_a_nan_half_is_open_and_infinities_are_judged():
    x = np.array([[np.nan, 1.0, np.inf, 2.0, -np.inf, 3.0, 1.0, np.nan]])
    out, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", x, 1, interleaved=True))
    assert _open(aux, 4) == [True, False, False, True]
    # A = +inf clamps to limit; A = -inf gives -inf / inf, NaN in the document's and the kernel's order
    assert out[0, 1] == np.float32(7.0 * _sigmoid(1.702 * 7.0) * (2.0 + 1.0)) and np.isnan(out[0, 2])


def _clipped_kernel(x: np.ndarray, dim: int, alpha: float, limit: float, bias: float) -> np.ndarray:
    """Every operation in float32 in the kernels' order (clipped_swiglu.hpp:313-331), front/back."""
    f = np.float32
    first, second = np.split(np.asarray(x, f), 2, axis=dim)
    b = np.maximum(np.minimum(second, f(limit)), f(-limit)) + f(bias)
    a = np.minimum(first, f(limit))
    with np.errstate(over="ignore"):
        return ((a / (np.exp(a * f(-alpha)) + f(1))).astype(f) * b).astype(f)


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BF16"])
def test_clipped_swiglu_in_the_kernels_float32_order_passes(dtype):
    from aclnn_conformance.spec.dtypes import numpy_dtype
    dt = numpy_dtype(AclDataType[dtype])
    rng = np.random.default_rng(23)
    x = rng.uniform(-10, 10, (32, 16)).astype(dt)
    case = _clipped_case("clipped_swiglu", dtype, x.astype(np.float64), 1)
    device = _clipped_kernel(x.astype(np.float32), 1, 1.702, 7.0, 1.0).astype(dt)
    assert _verdict(case, device) == "PASS"
    assert _verdict(case, (device.astype(np.float64) * 1.1).astype(dt)) == "FAIL"


# ---- Prelu: a weight per channel of dim 1 ----

def _prelu_case(dtype: str, x: np.ndarray, w: np.ndarray, w_dtype: str | None = None):
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.tensor import TensorArg
    acl, wacl = AclDataType[dtype], AclDataType[w_dtype or dtype]
    tensors = {"self": TensorArg.from_array(np.asarray(x).astype(numpy_dtype(acl)), acl),
               "weight": TensorArg.from_array(np.asarray(w).astype(numpy_dtype(wacl)), wacl),
               "out": TensorArg.from_array(np.zeros(np.shape(x), numpy_dtype(acl)), acl)}
    return Case(op="prelu", case_id="hand", tensors=tensors, attrs={}, rule_ids=(), origin="table", note="")


def _prelu_loop(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """max(0, x) + a min(0, x) per element (aclnnPrelu.md:32), a = w[channel] (dim 1) or w[0]."""
    out = np.zeros(x.shape)
    for index in np.ndindex(*x.shape):
        a = float(w.reshape(-1)[0] if w.size == 1 else w.reshape(-1)[index[1]])
        v = float(x[index])
        out[index] = max(0.0, v) + a * min(0.0, v)
    return out


def test_prelu_reads_one_weight_per_channel_of_dim_one():
    rng = np.random.default_rng(29)
    x = rng.uniform(-4, 4, (3, 5, 2)).astype(np.float32).astype(np.float64)
    w = np.array([0.25, -0.5, 2.0, 0.0, 1.5])
    out, _ = _oracle(_prelu_case("FLOAT", x, w))
    assert out.astype(np.float64).tolist() == _prelu_loop(x, w).astype(np.float32).astype(np.float64).tolist()
    out, _ = _oracle(_prelu_case("FLOAT", x, np.array([0.25])))
    assert out.astype(np.float64).tolist() == _prelu_loop(x, np.array([0.25])).astype(np.float32).tolist()


def test_prelu_with_a_weight_of_another_size_is_outside():
    from aclnn_conformance.spec.surface_values import outside_domain
    x = np.ones((3, 5, 2))
    assert outside_domain(_prelu_case("FLOAT", x, np.ones(2)))             # the last dim's length
    assert outside_domain(_prelu_case("FLOAT", np.ones(6), np.ones(6)))    # rank 1: one channel
    assert not outside_domain(_prelu_case("FLOAT", x, np.ones(5)))
    assert not outside_domain(_prelu_case("FLOAT", np.float64(2.0), np.ones(1)))


def test_prelu_promotes_self_and_weight_and_leaves_an_infinite_weight_on_a_positive_x_open():
    x = np.array([[1.5, -2.0], [3.0, -1.0]])
    case = _prelu_case("FLOAT16", x, np.array([np.inf, 0.1]), "FLOAT")
    out, aux = _oracle(case)
    assert out.dtype == np.float16   # computed in float32 (promoted), cast to out
    assert out[1, 1] == np.float16(np.float32(0.1) * np.float32(-1.0))
    assert _open(aux, 4) == [True, False, True, False]      # channel 0's weight is infinite, x > 0
    low = np.float16(np.float32(0.1) * np.float32(-2.0))
    # the document's x + inf * 0 is NaN, the kernel selects x: either passes where open
    assert _verdict(case, np.array([[1.5, low], [np.nan, out[1, 1]]], np.float16)) == "PASS"
    assert _verdict(case, np.array([[np.nan, low], [3.0, out[1, 1]]], np.float16)) == "PASS"
    assert _verdict(case, np.array([[1.5, -2.0], [3.0, out[1, 1]]], np.float16)) == "FAIL"


def test_the_channel_mutants_are_killed_by_single_calls():
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    rng = np.random.default_rng(31)
    x = -rng.uniform(1, 4, (4, 6, 6)).astype(np.float32).astype(np.float64)
    case = _prelu_case("FLOAT", x, np.linspace(0.1, 0.6, 6))
    by_kind = {m.kind: m for m in [*mutant_set("prelu").mutants, *mutant_set("prelu").controls]}
    for kind in ("channel-first-only", "channel-last-dim"):
        assert _verdict(case, by_kind[kind]().values(case)) == "FAIL", kind
    assert _verdict(case, by_kind["float32-steps-control"]().values(case)) == "PASS"


# ---- GeluBackward: judged where the document's erf form and the kernel's tanh form agree ----

def _gelu_erf_derivative(x: float) -> float:
    """aclnnGeluBackward.md:47."""
    return 0.5 + 0.5 * math.erf(x / math.sqrt(2)) + x / math.sqrt(2 * math.pi) * math.exp(-x * x / 2)


def _gelu_kernel(x: np.ndarray, dy: np.ndarray) -> np.ndarray:
    """The arch35 kernel in float32 (gelu_grad_dag.h:73-96): px = e^(x(BETAN + AN x^2)), d = 1/(1 + px),
    resp = px d (BETA + A3 x^2) x d, NaN resp selected as 0, (resp + d) dy."""
    f = np.float32
    x, dy = np.asarray(x, f), np.asarray(dy, f)
    with np.errstate(all="ignore"):
        sq = x * x
        px = np.exp((sq * f(-0.0713548162726002527220) + f(-1.595769121605730711759)) * x)
        res0 = (sq * f(0.2140644488178007) + f(1.595769121605730711759)) * x
        d = f(1) / (px + f(1))
        resp = px * d * res0 * d
        resp = np.where(resp == resp, resp, f(0))
        return ((resp + d) * dy).astype(f)


def test_gelu_backward_is_the_erf_forms_derivative_by_hand():
    x = [0.1, -0.2, 5.0, 0.3]
    case = _case("gelu_backward", gradOutput=[2.0, 1.0, -1.0, 3.0], self=x)
    _, aux = _oracle(case)
    expected = [g * _gelu_erf_derivative(float(np.float32(v))) for g, v in zip([2.0, 1.0, -1.0, 3.0], x)]
    assert np.allclose(np.asarray(aux["exact"]), expected, rtol=1e-14)
    assert _open(aux, 4) == [False] * 4


def test_gelu_backward_is_open_where_the_two_forms_differ_and_at_infinities():
    """At x = 1 the tanh form's derivative differs from the erf form's by 1.2e-4 relative (beyond
    2^-14): open; x = -0.7518 is near the root; +-inf gives NaN in the document's form; NaN is judged."""
    x = [1.0, -0.7518, np.inf, -np.inf, np.nan, 0.0]
    _, aux = _oracle(_case("gelu_backward", gradOutput=[1.0] * 6, self=x))
    assert _open(aux, 6) == [True, True, True, True, False, False]
    k = math.sqrt(2 / math.pi)
    t = math.tanh(k * 1.044715)
    tanh_form = 0.5 * (1 + t) + 0.5 * (1 - t * t) * k * (1 + 0.134145)
    assert abs(tanh_form - _gelu_erf_derivative(1.0)) > 2 ** -14 * _gelu_erf_derivative(1.0)


@pytest.mark.parametrize("dtype", ["FLOAT", "FLOAT16", "BF16"])
def test_a_device_in_either_form_passes_where_judged(dtype):
    from aclnn_conformance.spec.dtypes import numpy_dtype
    dt = numpy_dtype(AclDataType[dtype])
    rng = np.random.default_rng(37)
    x = rng.uniform(-6, 6, 4096).astype(dt).astype(np.float64)
    g = rng.uniform(-7, 7, 4096).astype(dt).astype(np.float64)
    case = _case("gelu_backward", dtype, gradOutput=g, self=x)
    _, aux = _oracle(case)
    assert 0.1 < 1 - np.asarray(aux["unjudged"]).mean() < 0.5    # a fifth or so is judged
    kernel = _gelu_kernel(x, g).astype(dt)
    erf_form = np.array([gv * _gelu_erf_derivative(v) for gv, v in zip(g, x)]).astype(np.float32).astype(dt)
    assert _verdict(case, kernel) == "PASS" and _verdict(case, erf_form) == "PASS"
    assert _verdict(case, (erf_form.astype(np.float64) * 1.05).astype(dt)) == "FAIL"


def test_softshrink_backward_leaves_open_the_float32_lambda_of_a_lambda_float32_cannot_hold():
    lam = 0.3                                   # float32(0.3) = 0.30000001192092896 > 0.3
    x32 = float(np.float32(lam))
    _, aux = _oracle(_case("softshrink_backward", gradOutput=[2.0, 2.0, 2.0], self=[x32, -x32, 0.5],
                           attrs={"lambda": lam}))
    assert _open(aux, 3) == [True, True, False]
    _, aux = _oracle(_case("softshrink_backward", gradOutput=[2.0], self=[0.5], attrs={"lambda": 0.5}))
    assert _open(aux, 1) == [False]


def test_a_clipped_swiglu_limit_of_zero_or_below_is_outside():
    _, aux = _oracle(_clipped_case("clipped_swiglu", "FLOAT", np.ones((2, 4)), 1, limit=-1.0))
    assert np.asarray(aux["unjudged"]).all()
