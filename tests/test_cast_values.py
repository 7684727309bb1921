"""aclnnCast's values: the conversion oracle against hand computation and a per-element rational
implementation, the elements its model leaves open, the calls outside the conversion, torch, and
each generated mutant killed on a single call and each control clean."""
from __future__ import annotations

from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec import registry
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import value_entry
from aclnn_conformance.spec.tensor import TensorArg

BF16 = np.dtype(ml_dtypes.bfloat16)
KEY = "cast"


def _call(values, source: str, target: str, attr: str | None = None):
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.dtypes import numpy_dtype
    src = np.asarray(values).astype(numpy_dtype(AclDataType[source])) if source != "INT64" \
        else np.array(values, dtype=np.int64)
    out = AclDataType[target]
    return Case(op=KEY, case_id="hand", tensors={
        "self": TensorArg.from_array(src, AclDataType[source]),
        "out": TensorArg.from_array(np.zeros(src.shape, numpy_dtype(out)), out)},
        attrs={"dtype": int(AclDataType[attr or target])}, rule_ids=("XCAST-VALUE-001",), origin="table")


def _oracle(case, product="ascend950"):
    from aclnn_conformance.oracle.surface import from_case
    result = from_case(case, "cann", product)
    return np.asarray(result.views["out"]), np.asarray(result.aux["out"]["unjudged"])


# ---- by hand ----

def test_float_to_narrower_floats_round_to_nearest_even_by_hand():
    u = 2.0 ** -10                     # FLOAT16's spacing above 1
    x = [1 + u / 2, 1 + 1.5 * u, 1 + u / 2 + 2 ** -20, 65519.0, 65520.0, 1e5, -1e5,
         2.0 ** -25, 3 * 2.0 ** -25, -2.0 ** -26, np.nan, np.inf, -0.0]
    got, open_ = _oracle(_call(x, "FLOAT", "FLOAT16"))
    want = [1.0, 1 + 2 * u, 1 + u, 65504.0, np.inf, np.inf, -np.inf,
            0.0, 2.0 ** -23, -0.0, np.nan, np.inf, -0.0]
    np.testing.assert_array_equal(got.astype(np.float64), want)
    assert np.signbit(got[9]) and np.signbit(got[12]) and not open_.any()
    b = 2.0 ** -7                      # BF16's spacing above 1
    got, _ = _oracle(_call([1 + b / 2, 1 + b / 2 + 2 ** -12, 1 + 1.5 * b, 3.4e38], "FLOAT", "BF16"))
    np.testing.assert_array_equal(got.astype(np.float64), [1.0, 1 + b, 1 + 2 * b, np.inf])


def test_float_to_integers_truncate_toward_zero_and_leave_nan_infinities_and_overflow_open():
    x = [2.9, -2.9, 2.5, -0.7, 127.9, 128.0, -128.9, -129.0, np.nan, np.inf, -np.inf]
    got, open_ = _oracle(_call(x, "FLOAT", "INT8"))
    assert got[~open_].tolist() == [2, -2, 2, 0, 127, -128]
    assert open_.tolist() == [False] * 5 + [True, False, True, True, True, True]
    got, open_ = _oracle(_call([-0.7, -1.0, 255.5, 256.0], "FLOAT16", "UINT8"))
    assert got[~open_].tolist() == [0, 255] and open_.tolist() == [False, True, False, True]
    # 2^63 is one past INT64's largest value even though float64 cannot hold 2^63 - 1
    got, open_ = _oracle(_call([2.0 ** 63, -2.0 ** 63, 2.0 ** 62], "FLOAT", "INT64"))
    assert open_.tolist() == [True, False, False] and got[1:].tolist() == [-2 ** 63, 2 ** 62]


def test_integers_wrap_on_the_product_whose_kernel_is_read_and_are_open_elsewhere():
    case = _call([300, -129, 127, -1, 2 ** 31 - 1], "INT32", "INT8")
    got, open_ = _oracle(case, "ascend950")
    assert got.tolist() == [44, 127, 127, -1, -1] and not open_.any()
    _, open_ = _oracle(case, "atlas-a2")
    assert open_.tolist() == [True, True, False, False, True]
    got, _ = _oracle(_call([-1, -300, 255, 256], "INT16", "UINT8"))
    assert got.tolist() == [255, 212, 255, 0]


def test_integers_to_floats_round_once_from_the_exact_integer():
    got, open_ = _oracle(_call([2 ** 24 + 1, 2 ** 24 + 3, -(2 ** 24 + 1), 2 ** 63 - 1,
                                2 ** 62 + 2 ** 38 + 1], "INT64", "FLOAT"))
    assert got.astype(np.float64).tolist() == [2.0 ** 24, 2.0 ** 24 + 4, -2.0 ** 24, 2.0 ** 63,
                                               2.0 ** 62 + 2 ** 39] and not open_.any()
    got, _ = _oracle(_call([2 ** 53 + 1, 2 ** 53 + 3], "INT64", "DOUBLE"))
    assert got.tolist() == [2.0 ** 53, 2.0 ** 53 + 4]
    got, _ = _oracle(_call([2049, 2051, 65519, 65520, 32767], "INT32", "FLOAT16"))
    assert got.astype(np.float64).tolist() == [2048.0, 2052.0, 65504.0, np.inf, 32768.0]


def test_a_double_rounding_through_float_is_open_where_it_differs_from_one_rounding():
    # 1 + 2^-11 + 2^-40: one rounding to FLOAT16 gives 1 + 2^-10; through FLOAT the 2^-40 is lost
    # and the tie goes to the even 1
    x = [1 + 2.0 ** -11 + 2.0 ** -40, 1 + 2.0 ** -11, 1.5]
    got, open_ = _oracle(_call(x, "DOUBLE", "FLOAT16"))
    assert got.astype(np.float64).tolist() == [1 + 2.0 ** -10, 1.0, 1.5]
    assert open_.tolist() == [True, False, False]
    _, open_ = _oracle(_call(x, "DOUBLE", "FLOAT"))     # no intermediate: judged
    assert not open_.any()


def test_bool_targets_are_one_for_every_nonzero_value_nan_included_and_bool_sources_zero_or_one():
    got, open_ = _oracle(_call([0.0, -0.0, 2.0 ** -149, np.nan, -np.inf, 0.3], "FLOAT", "BOOL"))
    assert got.tolist() == [False, False, True, True, True, True] and not open_.any()
    got, _ = _oracle(_call([0, -256, 256], "INT32", "BOOL"))
    assert got.tolist() == [False, True, True]
    got, _ = _oracle(_call([True, False], "BOOL", "BF16"))
    assert got.astype(np.float64).tolist() == [1.0, 0.0]


# ---- against a per-element rational implementation ----

def _rational(v: Fraction, precision: int, emin: int, largest: Fraction) -> float:
    """``v`` rounded to nearest, ties to even: the candidates are the multiples of the spacing of
    v's binade, compared exactly."""
    if v == 0:
        return 0.0
    a = abs(v)
    e = emin
    while Fraction(2) ** (e + 1) <= a:
        e += 1
    spacing = Fraction(2) ** (e - precision + 1)
    low = (a // spacing) * spacing
    high = low + spacing
    pick = low if a - low < high - a else high if a - low > high - a else \
        (low if (low / spacing) % 2 == 0 else high)
    r = float("inf") if pick > largest else float(pick)
    return r if v > 0 else -r


@pytest.mark.parametrize("source,target", [("FLOAT", "FLOAT16"), ("FLOAT", "BF16"), ("DOUBLE", "FLOAT"),
                                           ("FLOAT16", "BF16"), ("BF16", "FLOAT16"),
                                           ("INT64", "FLOAT"), ("INT32", "BF16")])
def test_the_oracle_equals_a_rational_rounding_on_every_value_of_the_pairs_call(source, target):
    from aclnn_conformance.spec.surface_conversions import conversion_case
    entry = value_entry(KEY)
    case = conversion_case(entry, KEY, source, target)
    got, open_ = _oracle(case)
    info = ml_dtypes.finfo(BF16) if target == "BF16" else np.finfo(got.dtype)
    fmt = (int(info.nmant) + 1, int(info.minexp), Fraction(float(info.max)))
    src = np.asarray(case.tensor("self").values())
    for v, g, skip in zip(src.tolist(), got.astype(np.float64).tolist(), open_.tolist()):
        if skip or (isinstance(v, float) and not np.isfinite(v)):
            continue
        assert g == _rational(Fraction(v), *fmt), (v, g)


# ---- what is judged at all ----

def test_a_call_whose_attribute_names_another_dtype_than_its_output_is_outside_the_conversion():
    from aclnn_conformance.spec.surface_values import outside_domain
    assert outside_domain(_call([1.0], "FLOAT", "FLOAT16", attr="BF16"))
    assert not outside_domain(_call([1.0], "FLOAT", "FLOAT16"))


def test_the_value_cases_list_the_pairs_of_each_tier():
    from aclnn_conformance.spec.surface_conversions import pairs
    entry = value_entry(KEY)
    full, ci = pairs(entry, "full"), pairs(entry, "ci")
    assert len(full) == 90 and set(ci) < set(full) and ("FLOAT", "FLOAT16") == ci[0]
    registry.operators()
    from aclnn_conformance.spec.surface_cases import data_value_cases
    from aclnn_conformance.suites.calls.surface import base_call
    cases = data_value_cases(KEY, base_call(KEY), "ci")
    assert [c.case_id for c in cases][:2] == ["values", "values-FLOAT-BF16"]
    first = cases[0]
    assert first.tensor("self").desc.dtype.name == "FLOAT" and first.tensor("out").desc.dtype.name == "FLOAT16"
    assert first.attrs["dtype"] == int(AclDataType.FLOAT16)


# ---- torch and the mutants ----

def _judge(backend_run, case, product):
    from aclnn_conformance.judging.judge import judge
    return judge(registry.operator(KEY).spec, case, product, "cann", backend_run(case, product))


def test_torch_passes_every_ci_pair():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend.surface import run
    from aclnn_conformance.spec.surface_cases import value_cases
    registry.operators()
    for case in value_cases(KEY):
        j = _judge(run, case, "ascend950")
        assert j.outcome == "PASS" and j.values_judged, (case.case_id, j.detail)


SINGLE_CALL_KILLS = {   # mutant kind -> the one call that kills it, and the product
    "truncating": (("FLOAT", "FLOAT16"), "ascend950"),
    "half-away": (("FLOAT", "BF16"), "ascend950"),
    "saturating-overflow": (("FLOAT", "FLOAT16"), "atlas-a2"),
    "double-rounding": (("FLOAT", "BF16"), "ascend950"),
    "integer-saturation": (("INT32", "INT8"), "ascend950"),
    "nan": (("FLOAT", "FLOAT16"), "ascend950"),
    "ulp-bias": (("INT64", "FLOAT"), "ascend950"),
    "flush": (("FLOAT", "FLOAT16"), "atlas-a2"),
}


def test_each_conversion_mutant_is_killed_on_a_single_call_and_each_control_is_clean():
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.spec.surface_conversions import conversion_case
    from aclnn_conformance.spec.surface_cases import value_cases
    registry.operators()
    entry = value_entry(KEY)
    group = mutant_set(KEY)
    kinds = {m.kind: m for m in group.mutants}
    assert set(SINGLE_CALL_KILLS) <= set(kinds)
    for kind, ((source, target), product) in SINGLE_CALL_KILLS.items():
        case = conversion_case(entry, KEY, source, target)
        j = _judge(kinds[kind]().run, case, product)
        assert j.outcome == "FAIL", (kind, j.outcome, j.detail)
    # a real device's other legal answers: every pair of the full tier, on a product that wraps and
    # one that leaves the wrap open
    cases = value_cases(KEY, count=8192)
    assert len(cases) == 91
    for control in group.controls:
        backend = control()
        for product in ("ascend950", "atlas-a2"):
            if product not in getattr(backend, "products", lambda: (product,))():
                continue
            for case in cases:
                j = _judge(backend.run, case, product)
                assert j.outcome in ("PASS", "QUALITY_WARNING"), (control.kind, case.case_id, j.detail)


def test_the_saturating_mutant_passes_where_the_product_saturates():
    """On a saturating product the model accepts either answer, so that mutant is not killed there
    (it dies on the products in Inf/NaN mode)."""
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.spec.surface_conversions import conversion_case
    registry.operators()
    kinds = {m.kind: m for m in mutant_set(KEY).mutants}
    case = conversion_case(value_entry(KEY), KEY, "FLOAT", "FLOAT16")
    assert _judge(kinds["saturating-overflow"]().run, case, "atlas-training").outcome in (
        "PASS", "QUALITY_WARNING")
