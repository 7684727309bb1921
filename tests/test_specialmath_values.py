"""The gamma family, xlog1py, the fills, the closeness and membership tests and the angle of a real
number (spec/data/values/specialmath.json): the special functions against known constants and
independent arithmetic, the oracle by hand, the elements each entry leaves open, devices that
compute in the vendor kernel's order passing, and the fill mutant killed on a single call."""
from __future__ import annotations

import math
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg

EULER_GAMMA = 0.57721566490153286060651209008240243   # A&S 6.1.3
F32 = AclDataType.FLOAT


@pytest.fixture(scope="module", autouse=True)
def registry_loaded():
    from aclnn_conformance.spec.registry import operators
    operators()


def _unary(op: str, name: str, out: str, values, dtype=F32, out_dtype=None, attrs=None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x = np.asarray(values, dtype=numpy_dtype(dtype))
    tensors = {name: TensorArg.from_array(x, dtype)}
    if out != name:
        target = out_dtype if out_dtype is not None else dtype
        tensors[out] = TensorArg.from_array(np.zeros(x.shape, numpy_dtype(target)), target)
    return Case(op=op, case_id="hand", tensors=tensors, attrs=dict(attrs or {}))


def _binary(op: str, names: tuple[str, str], out: str, a, b, dtype=F32, out_dtype=None, attrs=None) -> Case:
    from aclnn_conformance.spec.dtypes import numpy_dtype
    x, y = (np.asarray(v, dtype=numpy_dtype(dtype)) for v in (a, b))
    target = out_dtype if out_dtype is not None else dtype
    tensors = {names[0]: TensorArg.from_array(x, dtype), names[1]: TensorArg.from_array(y, dtype),
               out: TensorArg.from_array(np.zeros(np.broadcast_shapes(x.shape, y.shape), numpy_dtype(target)),
                                         target)}
    return Case(op=op, case_id="hand", tensors=tensors, attrs=dict(attrs or {}))


def _oracle(case: Case, out: str):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann")
    return np.asarray(result.views[out]), result.aux[out]


def _verdict(case: Case, out: str, actual) -> str:
    from aclnn_conformance.spec.surface_compare import compare_class
    from aclnn_conformance.spec.surface_values import value_entry
    want, aux = _oracle(case, out)
    got = np.asarray(actual).astype(want.dtype).reshape(want.shape)
    return compare_class(value_entry(case.op).function_class, got, want, aux).outcome


def _open(aux) -> np.ndarray:
    return np.asarray(aux.get("unjudged", False), bool)


# ---- the special functions against known values ----

def test_psi_at_known_constants():
    from aclnn_conformance.oracle.surface_special import psi
    known = {1.0: -EULER_GAMMA,                                          # A&S 6.3.2
             0.5: -EULER_GAMMA - 2 * math.log(2),                        # A&S 6.3.3
             0.25: -EULER_GAMMA - math.pi / 2 - 3 * math.log(2),         # Gauss's digamma theorem
             1 / 3: -EULER_GAMMA - math.pi / (2 * math.sqrt(3)) - 1.5 * math.log(3),
             -0.5: 2 - EULER_GAMMA - 2 * math.log(2)}                    # psi(1/2) + 2 (recurrence)
    got = psi(np.array(list(known)))
    assert got == pytest.approx(list(known.values()), rel=4e-15, abs=1e-15)
    # integers: the harmonic numbers minus gamma, H_{n-1} summed exactly in fractions (A&S 6.3.2)
    for n in (2, 3, 7, 10, 11, 40):
        harmonic = float(sum(Fraction(1, k) for k in range(1, n)))
        assert float(psi(np.array([float(n)]))[0]) == pytest.approx(harmonic - EULER_GAMMA, rel=2e-15)


def test_psi_edges_and_large_arguments():
    from aclnn_conformance.oracle.surface_special import psi
    got = psi(np.array([np.inf, np.nan, 0.0, -3.0, -np.inf, 1e30, 1e-300]))
    assert got[0] == np.inf and np.isnan(got[1:5]).all()
    # psi(x) = ln x - 1/(2x) - ... : at 1e30 ln x to the last bit; near 0, -1/x - gamma
    assert got[5] == pytest.approx(math.log(1e30), rel=1e-15)
    assert got[6] == pytest.approx(-1e300, rel=1e-15)


def test_log_gamma_at_factorials_and_half_integers():
    from aclnn_conformance.oracle.surface_special import log_gamma
    for n in (1, 2, 3, 6, 12, 30, 171):
        assert float(log_gamma(np.array([float(n)]))[0]) == pytest.approx(
            math.log(math.factorial(n - 1)), rel=1e-15, abs=1e-300)
    half = log_gamma(np.array([0.5, 1.5, -0.5]))
    # Gamma(1/2) = sqrt(pi), Gamma(3/2) = sqrt(pi)/2, Gamma(-1/2) = -2 sqrt(pi)
    assert half == pytest.approx([0.5 * math.log(math.pi), 0.5 * math.log(math.pi) - math.log(2),
                                  math.log(2) + 0.5 * math.log(math.pi)], rel=1e-15)
    edges = log_gamma(np.array([0.0, -0.0, -2.0, np.inf, -np.inf, np.nan]))
    assert (edges[:5] == np.inf).all() and np.isnan(edges[5])


# ---- the gamma family's entries ----

def test_lgamma_oracle_and_the_elements_it_leaves_open():
    case = _unary("lgamma", "self", "out", [3.0, 0.5, -2.5, 1.0, 1.0 + 2.0 ** -10, 2.0 - 2.0 ** -9, 0.0, np.inf])
    want, aux = _oracle(case, "out")
    assert want.dtype == np.float32
    assert want[0] == np.float32(math.log(2)) and want[1] == np.float32(0.5 * math.log(math.pi))
    assert want[6] == np.inf and want[7] == np.inf
    # a negative input (the document's Gamma(|x|) against ln|Gamma(x)|) and |lgamma| < 2^-10 near 1 and 2
    assert _open(aux).tolist() == [False, False, True, True, True, True, False, False]


def test_digamma_open_at_and_below_zero_and_near_its_zero():
    case = _unary("digamma", "self", "out", [1.0, 1.4616321449683622, 2.0, 0.0, -0.5, 1e-3])
    want, aux = _oracle(case, "out")
    assert want[0] == np.float32(-EULER_GAMMA) and want[2] == np.float32(1 - EULER_GAMMA)
    assert _open(aux).tolist() == [False, True, False, True, True, False]


def test_a_float32_device_by_recurrence_passes_and_one_off_by_the_limit_fails():
    """psi by the recurrence and the series evaluated in float32 throughout (as a float32 kernel
    would) passes away from the zero; results 20 T off (twice MARE's limit) fail."""
    x = np.linspace(0.05, 11.0, 513).astype(np.float32)
    case = _unary("digamma", "self", "out", x)
    y = x.copy()
    acc = np.zeros_like(x)
    for _ in range(8):
        low = y < np.float32(8)
        acc = acc + np.where(low, np.float32(1) / y, np.float32(0))
        y = np.where(low, y + np.float32(1), y)
    t = np.float32(1) / (y * y)
    series = t * (np.float32(1 / 12) - t * (np.float32(1 / 120) - t * np.float32(1 / 252)))
    device = (np.log(y) - np.float32(0.5) / y - series - acc).astype(np.float32)
    assert _verdict(case, "out", device) == "PASS"
    want, _ = _oracle(case, "out")
    assert _verdict(case, "out", want.astype(np.float64) * (1 + 20 * 2.0 ** -13)) == "FAIL"


# ---- xlog1py ----

def test_xlog1py_oracle_and_its_open_elements():
    x = [2.0, 0.0, 0.0, -3.0, 1.5, 0.5]
    y = [1.0, np.nan, 5.0, 0.0, -1.0, 2.0 ** -12]
    case = _binary("xlog1py", ("x", "y"), "z", x, y)
    want, aux = _oracle(case, "z")
    assert want[0] == np.float32(2 * math.log(2)) and want[2] == 0 and want[4] == -np.inf
    # |y| < 2^-10 (1 + y rounds in float32 before Ln), and x = 0 with y NaN (document 0, kernel NaN)
    assert _open(aux).tolist() == [False, True, False, True, False, True]


def test_xlog1py_in_the_kernels_float32_order_passes():
    """Adds, Ln, Mul in float32, then the selects (xlog1py_kernel.h:306-326), on the entry's values."""
    from aclnn_conformance.spec.surface_cases import value_cases
    case = next(c for c in value_cases("xlog1py") if c.case_id == "values-FLOAT")
    x = np.asarray(case.tensor("x").values(), np.float32)
    y = np.asarray(case.tensor("y").values(), np.float32)
    with np.errstate(all="ignore"):
        product = x * np.log(y + np.float32(1))
        device = np.where(x == 0, np.float32(0), product)
        device = np.where(y == y, device, y)
    assert _verdict(case, "z", device) == "PASS"
    with np.errstate(all="ignore"):
        one_percent_off = np.where(x == 0, 0, x * np.log1p(y.astype(np.float64)) * 1.01)
    assert _verdict(case, "z", one_percent_off) == "FAIL"


# ---- masked_scale ----

def test_masked_scale_by_hand_and_in_the_kernels_order():
    self_ = np.array([1.5, -2.25, 3.0, 0.1], np.float16)
    mask = np.array([1.0, 0.0, 2.0, 1.0], np.float16)
    case = _binary("masked_scale", ("self", "mask"), "y", self_, mask, dtype=AclDataType.FLOAT16,
                   attrs={"scale": 1.25})
    want, _ = _oracle(case, "y")
    expected = [float(np.float16(float(s) * float(m) * 1.25)) for s, m in zip(self_, mask)]
    assert want.astype(np.float64).tolist() == expected
    # the arch35 kernel: float32 casts, Mul, Muls by the float32 scale, one cast back
    device = (self_.astype(np.float32) * mask.astype(np.float32) * np.float32(1.25)).astype(np.float16)
    assert _verdict(case, "y", device) == "PASS"
    assert _verdict(case, "y", device.astype(np.float32) * np.float32(1.01)) == "FAIL"


# ---- the fills ----

@pytest.mark.parametrize("op,value", [("inplace_zero", 0), ("inplace_one", 1)])
@pytest.mark.parametrize("dtype", [F32, AclDataType.FLOAT16, AclDataType.BF16, AclDataType.INT8])
def test_fills_write_their_constant_and_the_kept_input_is_killed(op, value, dtype):
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    case = _unary(op, "selfRef", "selfRef", [[3.0, -2.0, 0.0], [7.0, 5.0, -1.0]], dtype=dtype)
    want, _ = _oracle(case, "selfRef")
    assert want.shape == (2, 3) and (want.astype(np.float64) == value).all()
    assert _verdict(case, "selfRef", np.full((2, 3), value)) == "PASS"
    kept = next(m for m in mutant_set(op).mutants if m.kind == "input-kept")
    assert _verdict(case, "selfRef", kept().values(case)) == "FAIL"


def test_a_zero_fill_writing_negative_zero_fails():
    case = _unary("inplace_zero", "selfRef", "selfRef", [1.0, 2.0])
    assert _verdict(case, "selfRef", np.array([-0.0, 0.0], np.float32)) == "FAIL"


# ---- is_close ----

ATTRS = {"rtol": 0.0625, "atol": 0.03125, "equalNan": True}


def _is_close(a, b, dtype=F32, **attrs) -> Case:
    return _binary("is_close", ("self", "other"), "out", a, b, dtype=dtype, out_dtype=AclDataType.BOOL,
                   attrs={**ATTRS, **attrs})


def test_is_close_by_hand():
    # threshold at other = 1: 0.03125 + 0.0625 = 0.09375
    a = [1.0, 1.5, np.nan, np.nan, np.inf, np.inf, 1.0, 2.0]
    b = [1.0625, 1.0, np.nan, 1.0, np.inf, -np.inf, np.inf, 2.0]
    want, aux = _oracle(_is_close(a, b), "out")
    assert want.dtype == np.bool_
    assert want.tolist()[:6] == [True, False, True, False, True, False] and want[7]
    # exactly one side infinite: the document's formula is for finite values, not judged
    assert _open(aux).tolist() == [False, False, False, False, False, False, True, False]
    no_nan, _ = _oracle(_is_close(a, b, equalNan=False), "out")
    assert not no_nan[2]


def test_is_close_leaves_the_boundary_open_and_judges_either_side_of_it():
    """|a - b| exactly the threshold: a float32 device's rounded |b| * rtol + atol may land on either
    side; 2^-4 beyond it is judged."""
    b = 1.0
    at = b + 0.09375
    beyond = b + 0.09375 + 2.0 ** -4
    case = _is_close([at, beyond, b + 0.05], [b, b, b])
    want, aux = _oracle(case, "out")
    assert want.tolist() == [True, False, True] and _open(aux).tolist() == [True, False, False]
    assert _verdict(case, "out", np.array([False, False, True])) == "PASS"
    assert _verdict(case, "out", np.array([True, True, True])) == "FAIL"


def test_is_close_in_the_kernels_order_passes_the_entrys_values():
    """is_close_dag.h:88-115: equal, or AbsSub <= Muls(|other|, rtol) + atol in float32 and |other| < inf."""
    from aclnn_conformance.spec.surface_cases import value_cases
    for case in [c for c in value_cases("is_close") if c.case_id.split("-")[0] in ("values", "attrs1")]:
        a = np.asarray(case.tensor("self").values()).astype(np.float32)
        b = np.asarray(case.tensor("other").values()).astype(np.float32)
        with np.errstate(all="ignore"):
            formula = np.abs(a - b) <= np.abs(b) * np.float32(case.attrs["rtol"]) + np.float32(case.attrs["atol"])
        close = (a == b) | (formula & (np.abs(b) < np.inf))
        if case.attrs["equalNan"]:
            close = close | (np.isnan(a) & np.isnan(b))
        assert _verdict(case, "out", close) == "PASS", case.case_id


def test_is_close_on_integers_is_computed_in_float32():
    case = _binary("is_close", ("self", "other"), "out", [10, 10, -5], [12, 11, -5], dtype=AclDataType.INT32,
                   out_dtype=AclDataType.BOOL, attrs={"rtol": 0.1, "atol": 0.5, "equalNan": False})
    want, _ = _oracle(case, "out")
    # |10 - 12| = 2 > 0.5 + 1.2; |10 - 11| = 1 <= 0.5 + 1.1 (tolerances not truncated to integers)
    assert want.tolist() == [False, True, True]


# ---- is_in_tensor_scalar ----

def test_is_in_tensor_scalar_and_its_inverse_by_hand():
    values = [1.25, 1.0, np.nan, -1.25, 1.25]
    want, _ = _oracle(_unary("is_in_tensor_scalar", "element", "out", values, out_dtype=AclDataType.BOOL,
                             attrs={"testElement": 1.25, "invert": False, "assumeUnique": False}), "out")
    assert want.tolist() == [True, False, False, False, True]
    inverse, _ = _oracle(_unary("is_in_tensor_scalar", "element", "out", values, out_dtype=AclDataType.BOOL,
                                attrs={"testElement": 1.25, "invert": True, "assumeUnique": False}), "out")
    assert inverse.tolist() == [False, True, True, True, False]
    integers, _ = _oracle(_unary("is_in_tensor_scalar", "element", "out", [1, 2], dtype=AclDataType.INT32,
                                 out_dtype=AclDataType.BOOL,
                                 attrs={"testElement": 1.25, "invert": False, "assumeUnique": False}), "out")
    assert integers.tolist() == [False, False]      # 1 is not 1.25: the scalar is not truncated


# ---- angle_v2 ----

@pytest.mark.parametrize("dtype,pi", [(F32, float(np.float32(math.pi))),
                                      (AclDataType.FLOAT16, float(np.float16(math.pi))),
                                      (AclDataType.BF16, float(ml_dtypes.bfloat16(math.pi)))])
def test_angle_of_real_numbers(dtype, pi):
    case = _unary("angle_v2", "x", "out", [2.0, -3.0, 0.0, -0.0, np.nan, -np.inf], dtype=dtype)
    want, aux = _oracle(case, "out")
    got = want.astype(np.float64)
    assert got[0] == 0 and got[1] == pi and got[2] == 0 and np.isnan(got[4]) and got[5] == pi
    assert _open(aux).tolist() == [False, False, False, True, False, False]
    # the kernel: x >= 0 gives 0, else its float32 pi cast, NaN kept (angle_v2.h:106-111)
    x = np.asarray(case.tensor("x").values()).astype(np.float32)
    device = np.where(x >= 0, np.float32(0), np.float32(math.pi))
    device = np.where(x == x, device, np.float32(np.nan))
    assert _verdict(case, "out", device) == "PASS"
    assert _verdict(case, "out", np.where(x > 0, 0, device)) == "PASS"    # -0 either way
    assert _verdict(case, "out", np.where(x == 0, np.float32(math.pi), device)) == "FAIL"


def test_angle_integer_inputs_are_computed_in_float32():
    case = _unary("angle_v2", "x", "out", [3, -4, 0], dtype=AclDataType.INT32, out_dtype=AclDataType.FLOAT)
    want, _ = _oracle(case, "out")
    assert want.tolist() == [0.0, float(np.float32(math.pi)), 0.0]

