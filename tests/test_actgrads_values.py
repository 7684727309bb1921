"""The values of the activations' backward functions (spec/data/values/actgrads.json): the oracle
against hand computation and against derivatives of the forward functions taken by mpmath, the
side each threshold's equality takes, the elements the entries leave open (``open_where``), and
devices computing in the vendor kernels' float32 order passing where the documents and kernels
agree."""
from __future__ import annotations

import math

import numpy as np
import pytest

from tests.value_checks import class_verdict as _verdict, hand_case as _case, open_flags as _open, \
    oracle_output as _oracle

mp = pytest.importorskip("mpmath")
mp.mp.dps = 40


# ---- the selections: hand computation and the side of each equality ----

def test_hardtanh_backward_passes_the_gradient_strictly_inside_and_leaves_the_bounds_open():
    """Document: gradOutput x 1 for min <= x <= max, x 0 outside; kernel: gradOutput only for
    min < x < max, the constant 0 elsewhere. The bounds, and a non-finite gradient outside, differ
    between the two: open; the rest is judged."""
    case = _case("hardtanh_backward", gradOutput=[2.0, -3.0, 5.0, 7.0, np.nan, 4.0, np.nan],
                 self=[0.5, -1.5, 1.0, -1.0, 1.5, 1.5, 0.25], attrs={"min": -1.0, "max": 1.0})
    out, aux = _oracle(case)
    assert out[0] == 2.0 and out[1] == 0.0 and out[5] == 0.0 and np.isnan(out[6])
    assert _open(aux, 7) == [False, False, True, True, True, False, False]
    kernel = np.array([2.0, 0.0, 0.0, 0.0, 0.0, 0.0, np.nan], np.float32)      # the kernel's choices
    document = np.array([2.0, -0.0, 5.0, 7.0, np.nan, 0.0, np.nan], np.float32)  # the document's
    assert _verdict(case, kernel) == "PASS" and _verdict(case, document) == "PASS"
    assert _verdict(case, np.array([2.0, -3.0, 0, 0, 0, 0, np.nan], np.float32)) == "FAIL"


def test_leaky_relu_backward_takes_the_slope_at_zero_and_leaves_nan_open():
    case = _case("leaky_relu_backward", gradOutput=[4.0, 4.0, 4.0, -8.0, 4.0],
                 self=[1.0, 0.0, -0.0, -2.0, np.nan], attrs={"negativeSlope": 0.25})
    out, aux = _oracle(case)
    assert out[:4].tolist() == [4.0, 1.0, 1.0, -2.0]          # x <= 0: gradOutput * slope
    assert _open(aux, 5) == [False, False, False, False, True]


@pytest.mark.parametrize("key, at_three, at_minus_three", [("hardswish_backward", 3.0, -1.0),
                                                            ("hardswish_backward_v2", 2.0, 0.0)])
def test_hardswish_backward_versions_differ_only_at_plus_and_minus_three(key, at_three, at_minus_three):
    """V1: -3 <= x <= 3 takes x/3 + 1/2 (1.5 at 3, -0.5 at -3); V2: -3 < x < 3 (1 and 0)."""
    case = _case(key, gradOutput=[2.0, 2.0, 2.0, 2.0, 2.0, np.nan, -2.0],
                 self=[3.0, -3.0, 4.0, -4.0, 1.5, -4.0, -4.0])
    out, _ = _oracle(case)
    assert out[:5].tolist() == [at_three, at_minus_three, 2.0, 0.0, 2.0]
    # the document's product: NaN times 0 is NaN, and -2 times 0 is -0
    assert np.isnan(out[5]) and out[6] == 0.0


def test_hardswish_backward_in_the_kernels_order_passes():
    """The arch35 kernel multiplies x by the float32 1/3 (no division), adds 1/2 in float32, selects,
    multiplies by gradOutput; fp16 and bf16 cast to float32 and back once."""
    rng = np.random.default_rng(3)
    for dtype, npd in (("FLOAT", np.float32), ("FLOAT16", np.float16)):
        x = rng.uniform(-4.5, 4.5, 4000).astype(npd).astype(np.float32)
        g = rng.uniform(-6, 6, 4000).astype(npd).astype(np.float32)
        deriv = np.where(x >= -3, x * np.float32(1.0 / 3.0) + np.float32(0.5), np.float32(0))
        deriv = np.where(x <= 3, deriv, np.float32(1))
        device = (g * deriv).astype(npd)
        assert _verdict(_case("hardswish_backward", dtype, gradOutput=g, self=x), device) == "PASS"
        assert _verdict(_case("hardswish_backward", dtype, gradOutput=g, self=x), device * npd(1.01)) == "FAIL"


def test_hardsigmoid_backward_selects_on_the_forwards_inner_value_and_its_kinks_stay_open():
    """gradOutput/6 where x/6 + 1/2 is strictly between 0 and 1. The arch35 kernel computes
    x * fl(1/6) + 1/2 in float32: at x = 3 - 2^-22 that rounds to 1 and it writes 0 (the exact
    inner value is below 1): the bound of the comparison leaves it open, as at x = +-3."""
    below = float(np.float32(3.0) - np.float32(2.0 ** -22))
    case = _case("hardsigmoid_backward", gradOutput=[6.0, 6.0, 6.0, 6.0, 6.0, 6.0],
                 self=[1.5, 3.0, -3.0, 4.0, below, -4.0])
    out, aux = _oracle(case)
    assert out[0] == np.float32(6.0 * (1 / 6)) and out[3] == 0.0 and out[5] == 0.0
    assert np.isinf(aux["bound"][[1, 2, 4]]).all() and np.isfinite(aux["bound"][[0, 3, 5]]).all()
    x = np.asarray(case.tensors["self"].values(), np.float32)
    g = np.asarray(case.tensors["gradOutput"].values(), np.float32)
    sixth = np.float32(1.0 / 6.0)
    inner = x * sixth + np.float32(0.5)
    kernel = np.where((inner > 0) & (inner < 1), g * sixth, np.float32(0))
    assert kernel[4] == 0.0 and _verdict(case, kernel) == "PASS"
    assert _verdict(case, np.where(kernel == 0, kernel, kernel * np.float32(1.001))) == "FAIL"


def test_elu_backward_both_forms_by_hand_and_x_zero_takes_the_second_case():
    """alpha 1.5, scale 2, inputScale 0.5: x > 0 gives gradOutput * 2; x <= 0 gives
    gradOutput * 0.5 * 1.5 * 2 * e^(x/2) (isResult false) or gradOutput * 0.5 * (x + 3) (true)."""
    g, x = [1.0, 2.0, -1.0, 4.0], [0.5, 0.0, -1.0, -0.0]
    attrs = {"alpha": 1.5, "scale": 2.0, "inputScale": 0.5}
    out, _ = _oracle(_case("elu_backward", gradOutput=g, selfOrResult=x, attrs={**attrs, "isResult": False}))
    want = [2.0, 3.0, -1.5 * math.exp(-0.5), 6.0]
    np.testing.assert_allclose(out, np.float32(want), rtol=0)
    out, _ = _oracle(_case("elu_backward", gradOutput=g, selfOrResult=x, attrs={**attrs, "isResult": True}))
    assert out.tolist() == [2.0, 3.0, -1.0, 6.0]


def test_softplus_backward_at_the_threshold_takes_the_sigmoid():
    """beta * x <= threshold: gradOutput / (1 + e^(-beta x)); above it gradOutput."""
    out, aux = _oracle(_case("softplus_backward", gradOutput=[3.0, 3.0, 3.0], self=[2.0, 2.5, -1.0],
                             attrs={"beta": 1.0, "threshold": 2.0}))
    np.testing.assert_allclose(aux["exact"], [3 / (1 + math.exp(-2.0)), 3.0, 3 / (1 + math.e)], rtol=1e-15)


# ---- the transcendental functions against the derivatives of their forward functions ----

def _derivative(forward, x: float) -> float:
    return float(mp.diff(forward, mp.mpf(x)))


FORWARDS = {
    "fast_gelu_backward": (lambda x: x / (1 + mp.exp(-mp.mpf("1.702") * x)), {}),
    "swish_backward": (lambda x: x / (1 + mp.exp(-mp.mpf("1.5") * x)), {"betaOptional": 1.5}),
    "log_sigmoid_backward": (lambda x: -mp.log(1 + mp.exp(-x)), {}),
    "mish_backward": (lambda x: x * mp.tanh(mp.log(1 + mp.exp(x))), {}),
}


@pytest.mark.parametrize("key", sorted(FORWARDS))
def test_the_backward_is_the_derivative_of_the_forward_times_the_gradient(key):
    forward, attrs = FORWARDS[key]
    rng = np.random.default_rng(7)
    x = rng.uniform(-6, 6, 60).astype(np.float32).astype(np.float64)
    g = rng.uniform(-3, 3, 60).astype(np.float32).astype(np.float64)
    _, aux = _oracle(_case(key, gradOutput=g, self=x, attrs=attrs))
    want = np.array([gi * _derivative(forward, xi) for gi, xi in zip(g, x)])
    np.testing.assert_allclose(aux["exact"], want, rtol=1e-11, atol=1e-300)


def test_elu_backward_without_the_result_is_the_derivative_of_elu():
    rng = np.random.default_rng(8)
    x = rng.uniform(-6, -0.01, 40).astype(np.float32).astype(np.float64)
    elu = lambda t: mp.mpf(1.5) * mp.mpf(2) * (mp.exp(t * mp.mpf(0.5)) - 1)
    _, aux = _oracle(_case("elu_backward", gradOutput=np.ones(40), selfOrResult=x,
                           attrs={"alpha": 1.5, "scale": 2.0, "inputScale": 0.5, "isResult": False}))
    np.testing.assert_allclose(aux["exact"], [_derivative(elu, v) for v in x], rtol=1e-12)


def test_fast_gelu_by_the_math_module():
    x = np.array([-5.5, -1.0, 0.0, 0.75, 4.0])
    _, aux = _oracle(_case("fast_gelu", self=x))
    np.testing.assert_allclose(aux["exact"], [v / (1 + math.exp(-1.702 * v)) for v in x], rtol=1e-15)


# ---- what is left open, and why a correct float32 device needs it ----

@pytest.mark.parametrize("key, root, attrs", [("swish_backward", -1.2784645 / 1.5, {"betaOptional": 1.5}),
                                              ("fast_gelu_backward", -1.2784645 / 1.702, {}),
                                              ("mish_backward", -1.1923799, {})])
def test_the_root_of_a_derivative_is_open_and_elsewhere_judged(key, root, attrs):
    """Near the derivative's root the kernels' float32 terms cancel: an absolute error of 3e-7
    there is a relative error far beyond 10 T, so those elements are open (3e-4 off passes there);
    at x = 1 the same error fails."""
    x = np.array([root, 1.0])
    case = _case(key, gradOutput=[1.0, 1.0], self=x, attrs=attrs)
    expected, aux = _oracle(case)
    assert _open(aux, 2) == [True, False]
    off = (np.asarray(aux["exact"], np.float64) + 3e-4).astype(np.float32)
    assert _verdict(case, np.array([off[0], expected[1]], np.float32)) == "PASS"
    assert _verdict(case, off) == "FAIL"


def test_an_overflowing_float32_product_is_open():
    """beta * x beyond float32's range gives inf * 0 = NaN in the kernel's float32 order, where the
    exact value is gradOutput: open; fast_gelu's e^(-1.702 x) overflowing below -52 too."""
    top = float(np.finfo(np.float32).max)
    _, aux = _oracle(_case("swish_backward", gradOutput=[2.0, 2.0], self=[top, 3.0], attrs={"betaOptional": 1.5}))
    assert _open(aux, 2) == [True, False]
    _, aux = _oracle(_case("fast_gelu", self=[-60.0, -50.0, top]))
    assert _open(aux, 3) == [True, False, False]
