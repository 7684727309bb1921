"""Division and square root as the vendor documents them: within one ulp of the correctly rounded
result (Ascend C Div.md and Sqrt.md: the one-instruction algorithm errs by at most 1 ulp, the
compensated one by 0 ulp), also where the exact result is representable. The accepted and refused
results below are hand-computed float32 neighbours; the exactness of each entry's model-freedom
inputs is checked with rational arithmetic."""
from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from aclnn_conformance.oracle.surface import from_case
from aclnn_conformance.oracle.surface_functions import divides_or_roots
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.surface_cases import build_case, tensor_inputs, value_cases
from aclnn_conformance.spec.surface_compare import compare_class
from aclnn_conformance.spec.surface_models import CLASS_MODELS, DIVISION_AND_ROOT
from aclnn_conformance.spec.surface_values import value_entries, value_entry
from aclnn_conformance.spec.outcome import Outcome

F32 = np.float32
PASS, FAIL = Outcome.PASS, Outcome.FAIL


def _bits(*words: int) -> np.ndarray:
    return np.array(words, dtype=np.uint32).view(F32)


def _verdict(api: str, inputs: dict[str, np.ndarray], got: np.ndarray) -> Outcome:
    entry = value_entry(api)
    case = build_case(entry, entry.key, "hand", inputs, AclDataType.FLOAT)
    result = from_case(case, "cann")
    want = np.asarray(result.views[entry.output])
    return compare_class(entry.function_class, got.reshape(want.shape), want,
                         result.aux[entry.output]).outcome


def test_every_product_states_its_division_and_root_with_sources():
    assert set(DIVISION_AND_ROOT) == set(PRODUCT_IDS)
    assert {d.ulps for d in DIVISION_AND_ROOT.values()} == {1}
    documented = DIVISION_AND_ROOT["ascend950"].sources
    assert any("Div.md" in s for s in documented) and any("Sqrt.md" in s for s in documented)
    assert all(d.sources and d.evidence for d in DIVISION_AND_ROOT.values())
    rounded = CLASS_MODELS["rounded"]
    assert set(rounded.within_one_ulp) == {"division", "reciprocal of a value", "square root"}
    assert rounded.faithful == () and not rounded.reciprocal_division


# sqrt(4) = 2 exactly: 0x40000000; one ulp of 2 is 2^-22: up 0x40000001, down 0x3FFFFFFE (the
# binade below has half steps), beyond it 0x40000002 and 0x3FFFFFFD
# sqrt(2) = 1.41421356...: correctly rounded 0x3FB504F3, one step either side, two steps 0x3FB504F5
@pytest.mark.parametrize("x,words,outcome", [
    (4.0, (0x40000000,), PASS), (4.0, (0x3FFFFFFF,), PASS), (4.0, (0x40000001,), PASS),
    (4.0, (0x3FFFFFFE,), PASS), (4.0, (0x40000002,), FAIL), (4.0, (0x3FFFFFFD,), FAIL),
    (2.0, (0x3FB504F3,), PASS), (2.0, (0x3FB504F2,), PASS), (2.0, (0x3FB504F4,), PASS),
    (2.0, (0x3FB504F5,), FAIL), (2.0, (0x3FB504F1,), FAIL),
])
def test_a_root_within_one_ulp_of_the_correct_one_passes(x, words, outcome):
    assert _verdict("aclnnSqrt", {"self": np.array([x], F32)}, _bits(*words)) is outcome


# 3 / 1.5 = 2 exactly; 1 / 3 = 0.333...: correctly rounded 0x3EAAAAAB
@pytest.mark.parametrize("a,b,words,outcome", [
    (3.0, 1.5, (0x3FFFFFFF,), PASS), (3.0, 1.5, (0x40000001,), PASS),
    (3.0, 1.5, (0x40000002,), FAIL),
    (1.0, 3.0, (0x3EAAAAAA,), PASS), (1.0, 3.0, (0x3EAAAAAC,), PASS),
    (1.0, 3.0, (0x3EAAAAAD,), FAIL),
])
def test_a_quotient_within_one_ulp_of_the_correct_one_passes(a, b, words, outcome):
    inputs = {"self": np.array([a], F32), "other": np.array([b], F32)}
    assert _verdict("aclnnDiv", inputs, _bits(*words)) is outcome


def _rounded_dividing() -> list[str]:
    return sorted(e.api for e in value_entries().values()
                  if e.function_class == "rounded" and e.reduction is None and divides_or_roots(e.function))


def test_every_rounded_entry_that_divides_or_roots_holds_its_model_freedom():
    apis = _rounded_dividing()
    assert {"aclnnSqrt", "aclnnDiv", "aclnnDivs", "aclnnReciprocal", "aclnnAddcdiv",
            "aclnnHardswish"} <= set(apis)
    for api in apis:
        entry = value_entry(api)
        freedom = entry.sample.get("model_freedom", {}).get("inputs")
        assert freedom and set(freedom) == set(tensor_inputs(entry)), api
        for case in value_cases(api):
            if not case.case_id.startswith("values-"):
                continue
            held = [np.asarray(case.tensors[n].values(), np.float64) for n in freedom]
            for i, row in enumerate(zip(*freedom.values())):
                assert any(all(h[j] == v for h, v in zip(held, row)) for j in range(held[0].size)), \
                    (api, case.case_id, i)


def _fits(x: Fraction, bits: int) -> bool:
    """x is a value of a binary format with ``bits`` significant bits (normal range, wide exponent)."""
    if x == 0:
        return True
    n, d = abs(x.numerator), x.denominator
    if d & (d - 1):
        return False
    while n % 2 == 0:
        n //= 2
    return n.bit_length() <= bits


def _midpoint(x: Fraction, bits: int) -> bool:
    """x lies halfway between two neighbours of a format with ``bits`` significant bits."""
    return _fits(x, bits + 1) and not _fits(x, bits)


def _exact_root(x: Fraction) -> Fraction | None:
    root = Fraction(float(np.sqrt(float(x))))
    return root if root * root == x else None


@pytest.mark.parametrize("api", ["aclnnSqrt", "aclnnReciprocal", "aclnnDiv", "aclnnDivs",
                                 "aclnnAddcdiv", "aclnnHardswish"])
def test_the_freedom_inputs_make_every_division_and_root_exact(api):
    """Exact in bfloat16 (8 bits), float16 (11) and float32 (24), hand-derived per function."""
    entry = value_entry(api)
    freedom = entry.sample["model_freedom"]["inputs"]
    attrs = {k: Fraction(v) for k, v in entry.sample.get("attrs", {}).items()}
    rows = [dict(zip(freedom, (Fraction(v) for v in row))) for row in zip(*freedom.values())]
    ties = {8: 0, 11: 0}
    for row in rows:
        if api == "aclnnSqrt":
            parts = [_exact_root(row["self"])]
            result = parts[0]
        elif api == "aclnnReciprocal":
            parts = [1 / row["self"]]
            result = parts[0]
        elif api in ("aclnnDiv", "aclnnDivs"):
            parts = [row["self"] / (row["other"] if "other" in row else attrs["other"])]
            result = parts[0]
        elif api == "aclnnAddcdiv":
            parts = [row["tensor1"] / row["tensor2"]]
            result = row["self"] + attrs["value"] * parts[0]
        else:
            x = row["self"]
            parts = [x * min(max(x + 3, Fraction(0)), Fraction(6)) / 6]
            result = parts[0]
        assert all(p is not None and _fits(p, 8) for p in parts), (api, row)
        for bits in ties:
            ties[bits] += _midpoint(result, bits)
    if api == "aclnnAddcdiv":   # a sum lands on a rounding midpoint of each narrow dtype
        assert ties[8] >= 1 and ties[11] >= 1
