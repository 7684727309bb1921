"""The values of the elementwise surface: the value tables, the oracle against hand computation and
a per-element implementation from the documents' formulas, the class standards, torch against the
oracle, and the generated mutants (every one killed) and controls (none failed)."""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from aclnn_conformance.spec import registry
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import (FUNCTION_CLASSES, REDUCTION_KINDS, value_entries,
                                                   value_entry)

ROOT = Path(__file__).resolve().parents[1]
ENTRIES = sorted(value_entries())
BF16 = np.dtype(ml_dtypes.bfloat16)


_HAND_BUILT: dict = {}


@pytest.fixture
def surface_registry():
    """The registry with the hand-built record of every value entry (no rules: every call valid),
    in place of an extracted one: the values judged apart from the interface."""
    from aclnn_conformance.spec.surface_records import hand_built_records
    before = registry.operators()
    if not _HAND_BUILT:
        found = dict(before)
        for key, record in hand_built_records().items():
            for other in [k for k, r in found.items() if r.api == record.api]:
                del found[other]
            found[key] = record
        _HAND_BUILT.update(found)
    registry._found = dict(_HAND_BUILT)
    yield registry._found
    registry._found = before


def _case(api: str, dtype: str = "FLOAT", count: int = 64, **values):
    from aclnn_conformance.spec.surface_cases import build_case
    entry = value_entry(api)
    return build_case(entry, entry.key, "hand", values, AclDataType[dtype])


def _oracle(case):
    from aclnn_conformance.oracle.surface import from_case
    return from_case(case, "cann")


def _out(case):
    return np.asarray(_oracle(case).views[value_entry(case.op).output])


# ---- the tables ----

def test_value_tables_hold_at_least_100_apis_with_their_sources():
    assert len(ENTRIES) >= 100
    families = {value_entries()[a].family for a in ENTRIES}
    assert families == {"math", "activation", "norm"}
    for api in ENTRIES:
        e = value_entries()[api]
        assert e.function_class in FUNCTION_CLASSES
        assert e.source["repository"] in ("hicann/ops-math", "hicann/ops-nn")
        assert re.fullmatch(r"[0-9a-f]{40}", e.source["commit"]) and e.source["formula_line"] > 0
        assert e.source["document"].endswith(".md") and "docs/aclnn" in e.source["document"]
        for dtype, tol in e.tolerance.items():
            assert tol["rtol"] >= 0 and tol["atol"] >= 0 and "ttk_" in tol["source"], (api, dtype)
        if e.function_class == "transcendental":
            assert e.published_standard and "experimental_standard.md" in e.published_standard["source"]
        assert e.torch.get("function") or (e.torch.get("expression") and e.torch.get("why"))


def test_every_function_parses_and_reads_only_the_apis_parameters():
    from aclnn_conformance.oracle.surface_functions import names_of
    for api in ENTRIES:
        e = value_entries()[api]
        if e.norms:   # a normalization reads its roles (the input or addends, the dims or weight, epsilon, an affine pair)
            red = e.reduction
            roles = {*(red.get("addends") or (red["input"],)), red["dims"], red["epsilon"],
                     *(red[r] for r in ("weight", "bias") if red.get(r))}   # a layer norm's affine pair
            assert set(e.inputs) == roles and red["kind"] in REDUCTION_KINDS, api
            continue
        if e.reduction is not None:   # a reduction names its parameters by role
            # (a contraction's are its operands: the input, and an inner product's other one)
            roles = (e.reduction["input"],) + ((e.reduction["other"],) if e.contracts and e.reduction.get("other") else ())
            assert e.inputs == roles and e.reduction["kind"] in REDUCTION_KINDS, api
            continue
        assert names_of(e.function) <= set(e.inputs) | {"nan", "inf"}, api
        assert set(e.inputs) <= names_of(e.function), api


# ---- the oracle against hand computation ----

def test_oracle_by_hand_basic_arithmetic_and_its_cast():
    from aclnn_conformance.spec.surface_cases import build_case
    entry = value_entry("aclnnAdd")
    c = build_case(entry, entry.key, "hand", {"self": np.array([1.0, 3.0, 2.5]),
                                               "other": np.array([2.0, -6.0, 0.25])},
                   AclDataType.FLOAT, attrs={"alpha": 0.5})
    assert _out(c).tolist() == [2.0, 0.0, 2.625]                     # self + 0.5*other
    # fp16: 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even (1)
    c = build_case(entry, entry.key, "hand", {"self": np.array([1.0]), "other": np.array([2.0 ** -11])},
                   AclDataType.FLOAT16, attrs={"alpha": 1.0})
    assert _out(c).dtype == np.float16 and _out(c).tolist() == [1.0]
    assert _oracle(c).aux["out"]["bound"].tolist() == [0.0]           # one correct rounding


def test_oracle_by_hand_special_values():
    nan, inf = float("nan"), float("inf")
    out = _out(_case("aclnnAbs", self=np.array([-0.0, -inf, nan, -2.0])))
    assert np.signbit(out).tolist() == [False, False, False, False] and out[1] == inf and np.isnan(out[2])
    out = _out(_case("aclnnNeg", self=np.array([0.0, -0.0])))
    assert np.signbit(out).tolist() == [True, False]
    out = _out(_case("aclnnLog", self=np.array([0.0, -1.0, 1.0, inf])))
    assert out[0] == -inf and np.isnan(out[1]) and out[2] == 0.0 and out[3] == inf
    out = _out(_case("aclnnEqTensor", self=np.array([nan, 1.0]), other=np.array([nan, 1.0])))
    assert out.dtype == np.bool_ and out.tolist() == [False, True]
    out = _out(_case("aclnnMaximum", self=np.array([nan, 1.0]), other=np.array([0.0, 2.0])))
    assert np.isnan(out[0]) and out[1] == 2.0
    out = _out(_case("aclnnRelu", self=np.array([nan, -3.0, 2.0])))
    assert np.isnan(out[0]) and out[1:].tolist() == [0.0, 2.0]
    tiny = np.float32(2.0 ** -140)                                   # a float32 subnormal is kept
    assert _out(_case("aclnnNeg", self=np.array([tiny]))).tolist() == [-tiny]
    out = _out(_case("aclnnDiv", self=np.array([1.0, -1.0, 0.0]), other=np.array([0.0, 0.0, 0.0])))
    assert out[0] == inf and out[1] == -inf and np.isnan(out[2])


def test_oracle_by_hand_broadcasting_empty_and_integers():
    out = _out(_case("aclnnMul", self=np.arange(3.0).reshape(3, 1), other=np.array([[1.0, 10.0]])))
    assert out.shape == (3, 2) and out.tolist() == [[0, 0], [1, 10], [2, 20]]
    assert _out(_case("aclnnExp", self=np.zeros((0, 4)))).shape == (0, 4)
    out = _out(_case("aclnnBitwiseXorTensor", "INT16", self=np.array([-1, 5, 32767]),
                     other=np.array([1, 3, -32768])))
    assert out.dtype == np.int16 and out.tolist() == [-2, 6, -1]
    # integers wrap as the device's do
    from aclnn_conformance.spec.surface_cases import build_case
    entry = value_entry("aclnnAdd")
    c = build_case(entry, entry.key, "hand", {"self": np.array([32767]), "other": np.array([1])},
                   AclDataType.INT16, attrs={"alpha": 1})
    assert _out(c).tolist() == [-32768]


def test_oracle_promotes_fp16_with_bf16_to_float32():
    from aclnn_conformance.oracle.surface import compute_dtype
    from aclnn_conformance.spec.case import Case
    from aclnn_conformance.spec.tensor import TensorArg
    entry = value_entry("aclnnMul")
    c = Case(op=entry.key, case_id="mixed", tensors={
        "self": TensorArg.from_array(np.array([1.0 + 2.0 ** -10]), AclDataType.FLOAT16),
        "other": TensorArg.from_array(np.array([1.0 + 2.0 ** -7]), AclDataType.BF16),
        "out": TensorArg.from_array(np.zeros(1), AclDataType.FLOAT)})
    assert compute_dtype(c, entry) == np.dtype(np.float32)
    assert _out(c).tolist() == [(1.0 + 2.0 ** -10) * (1.0 + 2.0 ** -7)]


# ---- the oracle against a per-element implementation from the documents' formulas ----

mp = pytest.importorskip("mpmath")
mp.mp.dps = 50


def _sigmoid(x):
    return 1 / (1 + mp.exp(-x))


# the documents' formulas, element by element in 50-digit arithmetic
PER_ELEMENT = {
    "aclnnExp": mp.exp, "aclnnLog1p": lambda x: mp.log(1 + x), "aclnnTanh": mp.tanh,
    "aclnnErf": mp.erf, "aclnnErfc": mp.erfc, "aclnnSin": mp.sin, "aclnnAtan": mp.atan,
    "aclnnExpm1": lambda x: mp.exp(x) - 1, "aclnnSigmoid": _sigmoid,
    "aclnnSilu": lambda x: x * _sigmoid(x), "aclnnErfinv": mp.erfinv,
    "aclnnGelu": lambda x: 0.5 * x * (1 + mp.tanh(mp.sqrt(2 / mp.pi) * (x + mp.mpf("0.044715") * x ** 3))),
    "aclnnMish": lambda x: x * mp.tanh(mp.log(1 + mp.exp(x))),
    "aclnnSelu": lambda x: mp.mpf("1.0507009873554804934193349852946") * (
        x if x > 0 else mp.mpf("1.6732632423543772848170429916717") * (mp.exp(x) - 1)),
    "aclnnLogSigmoid": lambda x: mp.log(_sigmoid(x)),
    "aclnnHardswish": lambda x: x if x >= 3 else (0 if x <= -3 else x * (x + 3) / 6),
    "aclnnHardsigmoid": lambda x: min(max(x / 6 + mp.mpf(1) / 2, 0), 1),
    "aclnnSquare": lambda x: x * x, "aclnnAbs": lambda x: abs(x),
    "aclnnRelu": lambda x: x if x > 0 else 0, "aclnnCeil": mp.ceil,
    "aclnnAcosh": mp.acosh, "aclnnLog10": mp.log10, "aclnnCosh": mp.cosh,
}


@pytest.mark.parametrize("api", sorted(PER_ELEMENT))
def test_oracle_matches_a_per_element_implementation(api):
    rng = np.random.default_rng(5)
    lo, hi = value_entry(api).sample.get("range", [-6.0, 6.0])
    x = rng.uniform(lo, hi, 300).astype(np.float32).astype(np.float64)
    entry = value_entry(api)
    result = _oracle(_case(api, **{entry.inputs[0]: x}))
    aux = result.aux[entry.output]
    got = np.asarray(aux.get("exact", result.views[entry.output]), np.float64)
    want = np.array([float(PER_ELEMENT[api](mp.mpf(float(v)))) for v in x])
    # float64 evaluation: a few units of 2^-53, far inside every standard (2^-13 and wider)
    np.testing.assert_allclose(got, want, rtol=5e-11 if api == "aclnnErfc" else 1e-12, atol=1e-300)


def test_special_functions_against_the_math_module():
    from aclnn_conformance.oracle.surface_functions import (complementary_error_function,
                                                            error_function, inverse_error_function)
    x = np.concatenate([np.linspace(-8, 8, 4001), [0.0, -0.0, 1e-300, 2.9999, 3.0, 3.0001, 26.0]])
    np.testing.assert_allclose(error_function(x), [math.erf(v) for v in x], rtol=2e-14, atol=1e-300)
    # 1 - erf between 2 and 3: 2e-11 relative, far inside every standard's 2^-13
    np.testing.assert_allclose(complementary_error_function(x), [math.erfc(v) for v in x],
                               rtol=5e-11, atol=1e-300)
    y = np.linspace(-0.999999, 0.999999, 2001)
    np.testing.assert_allclose(error_function(inverse_error_function(y)), y, rtol=1e-14, atol=1e-15)
    edges = inverse_error_function(np.array([1.0, -1.0, 1.5, np.nan]))
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2:]).all()


def test_a_blocked_evaluation_equals_the_whole_one(monkeypatch):
    """Past BLOCK elements the operands are widened block by block into reused buffers: the values
    and bounds are those of one evaluation of the whole, for float16 and float32 operands, a
    broadcast row and a scalar."""
    from aclnn_conformance.oracle import surface_functions as functions
    rng = np.random.default_rng(11)
    env = {"self": rng.standard_normal((6, 40)).astype(np.float16),
           "other": rng.uniform(0.5, 4.0, (1, 40)).astype(np.float32), "alpha": 1.5}
    expression = "tanh(self) + alpha * sqrt(other) / (self * self + 1)"
    whole = functions.evaluate_values(expression, env, (6, 40))
    whole_bound = functions.evaluate_bound("sqrt(other) * self + alpha", env, (6, 40),
                                           np.dtype(np.float32), np.dtype(np.float32))
    monkeypatch.setattr(functions, "BLOCK", 7)     # 35 blocks, the last one short
    blocked = functions.evaluate_values(expression, env, (6, 40))
    narrowed = functions.evaluate_values(expression, env, (6, 40), result_dtype=np.dtype(np.float32))
    blocked_bound = functions.evaluate_bound("sqrt(other) * self + alpha", env, (6, 40),
                                             np.dtype(np.float32), np.dtype(np.float32))
    np.testing.assert_array_equal(blocked, whole)
    np.testing.assert_array_equal(narrowed, whole.astype(np.float32))
    for got, want in zip(blocked_bound.__dict__.values(), whole_bound.__dict__.values()):
        np.testing.assert_array_equal(got, want)


def test_the_bound_is_zero_for_one_rounding_and_grows_with_the_formula():
    rng = np.random.default_rng(2)
    x, y, z = (rng.standard_normal(200) for _ in range(3))
    single = _oracle(_case("aclnnMul", self=x, other=y)).aux["out"]["bound"]
    assert (single == 0).all()
    compound = _oracle(_case("aclnnAddcmul", self=x, tensor1=y, tensor2=z)).aux["out"]["bound"]
    ulp = np.spacing(np.absolute(x + 0.5 * y * z).astype(np.float32)).astype(np.float64)
    assert (compound > 0).all() and (compound <= 6 * ulp + 4 * np.spacing(np.float32(np.absolute(0.5 * y * z).max()))).all()


# ---- the standards ----

def test_neighbours_and_the_class_standards():
    from aclnn_conformance.spec.precision import standard
    from aclnn_conformance.spec.standards_surface import TOLERANCE
    from aclnn_conformance.spec.surface_compare import (compare_surface_exact,
                                                        compare_surface_tolerance, neighbours)
    low, high = neighbours(np.array([1.0 + 2.0 ** -30, 70000.0]), np.dtype(np.float16))
    assert low.tolist() == [1.0, 65504.0] and high.tolist() == [1.0 + 2.0 ** -10, np.inf]
    e = np.array([0.0, np.nan, 1.0], np.float32)
    assert compare_surface_exact(np.array([0.0, np.nan, 1.0], np.float32), e, {}).outcome == "PASS"
    assert compare_surface_exact(np.array([-0.0, np.nan, 1.0], np.float32), e, {}).outcome == "FAIL"
    assert compare_surface_exact(np.array([-0.0, np.nan, 1.0], np.float32), e,
                                 {"either_zero_sign": True}).outcome == "PASS"
    std = standard(TOLERANCE)
    exact = np.array([1.0 + 2.0 ** -30, 2.0])
    g = exact.astype(np.float32)
    faithful = np.array([np.nextafter(np.float32(1.0), np.float32(2)), 2.0], np.float32)
    aux = {"exact": exact, "rtol": 0.0, "atol": 0.0}
    assert compare_surface_tolerance(faithful, g, aux, std).outcome == "PASS"
    assert compare_surface_tolerance(np.array([1.0, 2.0 + 4e-4], np.float32), g,
                                     {**aux, "rtol": 1e-4, "atol": 1e-4}, std).outcome == "FAIL"
    assert compare_surface_tolerance(np.array([1.0, 2.0 + 1e-4], np.float32), g,
                                     {**aux, "rtol": 1e-4, "atol": 1e-4}, std).outcome == "PASS"



def test_a_wider_output_is_judged_by_the_compute_dtypes_number_and_double_transcendentals_not():
    """FLOAT computed, DOUBLE written: float32's number applies, the vendor's per-API one where the
    API has it, else the published standard's (an error of 2^-15 relative is within either, one of
    twice the limit is not); a transcendental computed in DOUBLE has no vendor number and is
    outside the judged domain."""
    from aclnn_conformance.spec.precision import standard
    from aclnn_conformance.spec.standards_surface import TOLERANCE
    from aclnn_conformance.spec.surface_compare import compare_surface_tolerance
    from aclnn_conformance.spec.surface_values import outside_domain
    api = next(a for a in ENTRIES if value_entry(a).function_class == "transcendental"
               and "float64" not in value_entry(a).tolerance and not value_entry(a).inplace)
    entry = value_entry(api)
    x = {n: np.full((64,), 0.5) for n in entry.inputs if n not in entry.sample.get("attrs", {})}
    widened = _case(api, "FLOAT", **x).tensors
    case = _case(api, "FLOAT", **x)
    case = case.with_(tensors={**widened, entry.output: _case(
        api, "DOUBLE", **x).tensors[entry.output]})
    assert not outside_domain(case)
    oracle = _oracle(case)
    want = np.asarray(oracle.views[entry.output])
    aux = oracle.aux[entry.output]
    assert want.dtype == np.float64 and aux["faithful_dtype"] == np.float32
    std = standard(TOLERANCE)
    exact = np.asarray(aux["exact"], np.float64)
    near = exact * (1 + 2.0 ** -15)
    if "float32" in entry.tolerance:   # the vendor's float32 numbers, never the output's
        numbers = entry.tolerance["float32"]
        assert (aux["rtol"], aux["atol"]) == (numbers["rtol"], numbers["atol"])
        far = exact + 2 * (numbers["atol"] + numbers["rtol"] * np.abs(exact))
    else:
        assert "rtol" not in aux
        far = exact * (1 + 2.0 ** -9)
    assert compare_surface_tolerance(near, want, aux, std).outcome == "PASS"
    assert compare_surface_tolerance(far, want, aux, std).outcome == "FAIL"
    assert outside_domain(_case(api, "DOUBLE", **x))


def test_a_bf16_computation_written_to_float16_is_held_to_bf16s_numbers():
    """bf16 and float16 are both two bytes; bf16 has 7 fraction bits to float16's 10, so a result
    computed in bf16 is as fine as bf16 whatever dtype it is written in (a device's bf16 rounding,
    2^-9 relative, passes; float16's own number would fail it)."""
    from aclnn_conformance.spec.dtypes import fraction_bits
    from aclnn_conformance.spec.precision import standard
    from aclnn_conformance.spec.standards_surface import TOLERANCE
    from aclnn_conformance.spec.surface_compare import compare_surface_tolerance
    assert [fraction_bits(np.dtype(d)) for d in (ml_dtypes.bfloat16, np.float16, np.float32)] == [7, 10, 23]
    api = next(a for a in ENTRIES if value_entry(a).function_class == "transcendental"
               and not value_entry(a).inplace and len(value_entry(a).inputs) == 1)
    entry = value_entry(api)
    (name,) = entry.inputs
    case = _case(api, "BF16", **{name: np.full((64,), 0.75)})
    case = case.with_(tensors={**case.tensors, entry.output: _case(
        api, "FLOAT16", **{name: np.full((64,), 0.75)}).tensors[entry.output]})
    oracle = _oracle(case)
    aux = oracle.aux[entry.output]
    assert aux["faithful_dtype"] == np.dtype(ml_dtypes.bfloat16)
    want = np.asarray(oracle.views[entry.output])
    exact = np.asarray(aux["exact"], np.float64)
    rounded_in_bf16 = exact.astype(ml_dtypes.bfloat16).astype(np.float64) * (1 + 2.0 ** -9)
    assert compare_surface_tolerance(rounded_in_bf16, want, aux, standard(TOLERANCE)).outcome == "PASS"
# ---- torch and the reference against the oracle ----

@pytest.mark.parametrize("api", ENTRIES)
def test_reference_and_torch_pass_every_value_case(surface_registry, api):
    pytest.importorskip("torch")
    from aclnn_conformance.backends.reference import ReferenceBackend
    from aclnn_conformance.backends.torch_backend.surface import run as torch_run
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.surface_cases import value_cases
    entry = value_entry(api)
    spec = registry.operator(entry.api).spec
    for case in value_cases(spec.key, count=256):
        for name, run in (("reference", ReferenceBackend().run), ("torch", torch_run)):
            j = judge(spec, case, "ascend950", "cann", run(case, "ascend950"))
            assert j.outcome == "PASS" and j.values_judged, (name, case.case_id, j.detail)


# ---- detection power ----

def test_every_generated_mutant_is_killed_and_every_control_is_clean(surface_registry):
    from aclnn_conformance.backends.mutants.surface_values import mutant_set
    from aclnn_conformance.reports.mutate import mutate
    keys = [registry.operator(api).key for api in ENTRIES]
    chosen = []
    for key in keys:
        group = mutant_set(key)       # built on the hand-built records, not a cached extracted one
        chosen += [*group.mutants, *group.equivalent, *group.controls]
    kinds = {(value_entry(c.entry_api).family, c.kind) for c in chosen}
    assert {k for _, k in kinds} >= {"promotion", "dtype-missing", "nan", "ulp-bias", "twice-limit",
                                     "flush", "faithful-control", "float32-steps-control",
                                     "native-steps-control", "wrong-axis", "keepdim-ignored",
                                     "nan-ignoring-control", "zero-sign-control", "zero-sign"}
    # Atlas A2 keeps subnormals, where the flush mutants die; Ascend 950 leaves flushing open
    doc = mutate(mutants=chosen, products=("ascend950", "atlas-a2"))
    s = doc["summary"]
    assert s["survived"] == 0 and s["killed"] == s["named"] == s["mutants"] > 600, s
    assert s["false_alarms"] == 0 and not s["falsely_failed_controls"], s
    assert doc["passed"], s["failing_gate"]


# ---- the extracted operators ----

def test_extracted_operators_are_value_judged_where_their_interface_is_read():
    """Every API with a value entry is an extracted operator whose record takes the oracle, torch,
    the class standard and model; where no check is unread, its value cases are judged, and the
    emulator, reference and torch backends score only certifiable outcomes on them."""
    pytest.importorskip("torch")
    from aclnn_conformance.backends.emulator import EmulatorBackend
    from aclnn_conformance.backends.reference import ReferenceBackend
    from aclnn_conformance.backends.torch_backend import TorchBackend
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.judging.records import CERTIFIABLE
    from aclnn_conformance.spec.rules import expected_outcome
    from aclnn_conformance.spec.single_calls import table_cases
    from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
    from aclnn_conformance.spec.surface_models import standards_for
    records = {r.api: r for r in registry.operators().values()}
    judged = set()
    for api in ENTRIES:
        record = records[api]
        entry = value_entry(api)
        assert record.has("oracle") and record.has("torch") and record.spec.values_judged, api
        # the class's standard, or the summation (product) model's for a summing (multiplying) reduction
        assert record.spec.standards["cann"][entry.output] == (
            standards_for(api)[entry.output] if entry.sums or entry.multiplies or entry.norms
            else CLASS_STANDARD[entry.function_class])
        for case in [c for c in table_cases(record.key) if c.case_id.startswith("values")]:
            for product in sorted(record.spec.supported["cann"])[:3]:
                if not expected_outcome(record.spec, case, product, "cann").judge_values:
                    continue
                judged.add(api)
                for backend in (EmulatorBackend(), ReferenceBackend(), TorchBackend()):
                    j = judge(record.spec, case, product, "cann", backend.run(case, product))
                    assert j.outcome in CERTIFIABLE, (backend.name, api, case.case_id, j.detail)
    assert len(judged) >= 60, len(judged)


# ---- hygiene: the generic modules name no API ----

# every module of the value machinery: one glob, so that a kind's new module is checked without a list
GENERIC = sorted(str(p.relative_to(ROOT)) for pattern in
                 ("oracle/surface*.py", "spec/surface*.py", "spec/standards_surface.py",
                  "backends/mutants/surface_*.py", "backends/torch_backend/surface*.py")
                 for p in ROOT.glob(pattern))
# operator keys that are ordinary words of the code as well (a variable, a NumPy function; std: a
# Standard argument)
PLAIN_WORDS = frozenset({"mean", "cumsum", "exp", "log", "cast", "std", "abs", "sign", "floor", "maximum",
                         "trunc", "argsort"})
# operator keys that are words of the generic code's own vocabulary (a reduction kind, a Python
# builtin, a NumPy function: max, min, all, any, prod): no use of them names the API
VOCABULARY_WORDS = frozenset({"max", "min", "all", "any", "prod"})


@pytest.mark.parametrize("module", GENERIC)
def test_the_generic_modules_name_no_api(module):
    apis = set(ENTRIES)
    # a key that is also a plain word (mean) names the API only as a string or a definition: a
    # local variable or NumPy's .mean() does not
    keys = {value_entries()[a].key for a in ENTRIES}
    tree = ast.parse((ROOT / module).read_text())
    seen, named = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            seen.add(node.id)
        elif isinstance(node, ast.Attribute):
            seen.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            named.add(node.name)
        elif isinstance(node, ast.arg):
            seen.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.add(node.value)
    found = ((seen | named) & apis) | (named & (keys - VOCABULARY_WORDS)) | \
        (seen & (keys - PLAIN_WORDS - VOCABULARY_WORDS))
    assert not found, sorted(found)


def test_torch_mappings_resolve():
    pytest.importorskip("torch")
    from aclnn_conformance.backends.torch_backend.surface import _resolve
    for api in ENTRIES:
        fn = value_entries()[api].torch.get("function")
        if fn:
            assert callable(_resolve(fn)), api


def test_value_cases_of_an_extracted_operator_take_its_inputs_dtype_and_the_full_tier_adds_the_others():
    registry.operators()
    from aclnn_conformance.spec.surface_cases import data_value_cases
    from aclnn_conformance.suites.calls.surface import base_call

    def dtypes(key, tier):
        return {c.case_id: {n: a.desc.dtype.name for n, a in c.tensors.items() if a is not None}
                for c in data_value_cases(key, base_call(key), tier)}
    # SWhere's boolean condition does not choose the dtype of its values
    ci = dtypes("s_where", "ci")
    assert list(ci) == ["values", "values-broadcast", "values-empty"]
    assert ci["values"] == {"condition": "BOOL", "self": "FLOAT", "other": "FLOAT", "out": "FLOAT"}
    full = dtypes("s_where", "full")
    assert full["values-BF16"] == {"condition": "BOOL", "self": "BF16", "other": "BF16", "out": "BF16"}
    assert set(ci) < set(full) and {"values-FLOAT16", "values-broadcast-FLOAT16"} <= set(full)
    # an output in another dtype than the base call's inputs keeps its own
    assert dtypes("is_finite", "full")["values-FLOAT16"] == {"self": "FLOAT16", "out": "BOOL"}
    # an output the code ties to its input (aclnnSign: result's dtype is self's) follows it
    assert dtypes("sign", "full")["values-FLOAT16"] == {"self": "FLOAT16", "result": "FLOAT16"}


def test_the_native_steps_control_computes_integer_calls_as_float32_steps_do():
    """Native steps model an fp16/bf16 device; on an integer compute dtype (aclnnHardsigmoid's INT32
    calls: x / 6 truncated step by step would give 0 for 3) they are no rounding model, and the
    control computes those calls in float32 steps: it raises no false alarm in the full tier."""
    from aclnn_conformance.backends.mutants.surface_values import MUTANT_SETS
    from aclnn_conformance.reports.mutate import mutate
    control = next(c for c in getattr(MUTANT_SETS, "hardsigmoid").controls if c.kind == "native-steps-control")
    doc = mutate(tier="full", mutants=[control], products=("ascend950",))
    assert doc["summary"]["false_alarms"] == 0 and doc["passed"], doc["summary"]
    assert doc["mutants"][0]["cases_run"] > 0


def test_boolean_subtraction_is_outside_the_value_domain():
    """aclnnSub accepts BOOL operands (the vendor's own unit test l2_sub_test.normal_dtype_bool), but
    no document says what BOOL - BOOL yields and booleans have no subtraction: not value-judged; an
    integer subtraction and a boolean addition stay judged."""
    from aclnn_conformance.spec.surface_values import outside_domain
    flags = {"self": np.array([True, False, True]), "other": np.array([True, True, False])}
    assert outside_domain(_case("aclnnSub", "BOOL", **flags))
    assert not outside_domain(_case("aclnnSub", "INT32", self=np.arange(3, dtype=np.int32),
                                    other=np.ones(3, dtype=np.int32)))
    assert not outside_domain(_case("aclnnAdd", "BOOL", **flags))


def test_the_sign_of_a_zero_is_judged_where_ieee_fixes_it():
    """A product, quotient, negation or odd function at +-0 has its zero's sign fixed by IEEE 754
    whatever the formula; a sum or a select does not (lerp may be computed as (1-w)*a + w*b)."""
    from aclnn_conformance.oracle.surface_functions import zero_sign_fixed
    from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
    from aclnn_conformance.spec.surface_compare import compare
    assert zero_sign_fixed("self * other") and zero_sign_fixed("tanh(self)")
    assert zero_sign_fixed("negative(self)") and zero_sign_fixed("self / other")
    assert not zero_sign_fixed("self + alpha * other")
    assert not zero_sign_fixed("maximum(0, self)") and not zero_sign_fixed("self * clip(self, 0, 6)")

    def verdict(api: str, actual: np.ndarray, **tensors) -> str:
        entry = value_entry(api)
        case = _case(api, "FLOAT", **tensors)
        oracle = _oracle(case)
        return compare(CLASS_STANDARD[entry.function_class], actual, oracle.views[entry.output],
                       oracle.aux[entry.output]).outcome

    zeros = np.array([-0.0, 0.0, -0.0], np.float32)
    assert verdict("aclnnTanh", zeros, **{value_entry("aclnnTanh").inputs[0]: zeros}) == "PASS"
    assert verdict("aclnnTanh", np.abs(zeros), **{value_entry("aclnnTanh").inputs[0]: zeros}) == "FAIL"
    mul = {"self": np.array([-0.0, 2.0, 0.0], np.float32), "other": np.array([3.0, -0.0, -1.0], np.float32)}
    assert verdict("aclnnMul", np.array([-0.0, -0.0, -0.0], np.float32), **mul) == "PASS"
    assert verdict("aclnnMul", np.array([0.0, -0.0, -0.0], np.float32), **mul) == "FAIL"

