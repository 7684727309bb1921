"""A value standard follows the compute dtype the host code chooses, in every branch: a float16 input
with a float32 output is computed in float16 and held to float16's numbers (the vendor's per-API
ones as the published standard), never to the float32 output's; a float32 input keeps them."""
from __future__ import annotations

import numpy as np

from aclnn_conformance.oracle.surface import from_case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.standards_surface import CLASS_STANDARD
from aclnn_conformance.spec.surface_cases import build_case
from aclnn_conformance.spec.surface_compare import compare
from aclnn_conformance.spec.surface_values import value_entry

X = 1.36328125                  # exact in float16
CORRECT = 0.8564453125           # 1/sqrt(X) = 0.856456..., correctly rounded to float16 (by hand)
NATIVE_FP16 = 0.85595703125       # sqrt then divide, each rounded to float16: one float16 ulp below


def _verdict(input_dtype: AclDataType, actual: float) -> str:
    entry = value_entry("aclnnRsqrt")
    x = np.array([X], np.float16 if input_dtype == AclDataType.FLOAT16 else np.float32)
    case = build_case(entry, entry.key, "mixed", {entry.inputs[0]: x}, input_dtype,
                      out_dtype=AclDataType.FLOAT)
    oracle = from_case(case, "cann")
    verdict = compare(CLASS_STANDARD[entry.function_class], np.array([actual], np.float32),
                      oracle.views[entry.output], oracle.aux[entry.output])
    return verdict.outcome


def test_the_hand_values_are_float16_arithmetic():
    root = np.sqrt(np.float16(X))
    assert float(np.float16(1) / root) == NATIVE_FP16
    assert float(np.float16(1 / np.sqrt(X))) == CORRECT


def test_a_native_float16_result_passes_in_a_float32_output():
    assert _verdict(AclDataType.FLOAT16, NATIVE_FP16) == "PASS"
    assert _verdict(AclDataType.FLOAT16, CORRECT) == "PASS"


def test_a_float32_input_keeps_the_float32_limit():
    assert _verdict(AclDataType.FLOAT, float(np.float32(1 / np.sqrt(np.float32(X))))) == "PASS"
    assert _verdict(AclDataType.FLOAT, NATIVE_FP16) == "FAIL"


def test_three_float16_ulps_off_fails():
    three_off = float(np.float16(CORRECT) - 3 * np.spacing(np.float16(CORRECT)))
    assert _verdict(AclDataType.FLOAT16, three_off) == "FAIL"
