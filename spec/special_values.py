"""What each product does with special values: subnormal inputs and results, the sign of zero, NaN
payloads, overflow, each with its evidence or marked unknown (``either``).

Where a choice is known the standards hold the device to it. Where it is ``either``, the oracle
gives both answers and the elements that differ only by that choice are set aside: counted,
named in a quality warning, and the device's choice recorded (spec/surface_compare.py); they
never decide a PASS or a FAIL on their own.
"""
from __future__ import annotations

from dataclasses import dataclass

ASC = "hicann/asc-devkit@93c993b docs/api/SIMD-API/基础API/Memory矢量计算/基础算术/"
OVERFLOW_MODE = ("CANN runtime API aclrtFloatOverflowMode (hiascend.com runtimeapi aclcppdevg_03_1389): "
                 "Inf/NaN mode, 'conforming to IEEE 754', the default on Atlas 350 (Ascend 950), "
                 "A3 and A2, the only mode on Atlas 350; Atlas 200I/500 A2, Atlas inference and "
                 "Atlas training products support only the saturation mode (an infinite result "
                 "becomes a very large value, a NaN result 0)")
MIGRATION_351X = ("Ascend C operator development guide, section 4.2.2 '220x 迁移 351x 指导': the "
                  "351x architecture (Ascend 950) does not support subnormals by default (treated "
                  "as 0) in Exp, Ln, Reciprocal, Sqrt, Rsqrt and Div; a config keeps them")
KEPT, FLUSHED, EITHER = "kept", "flushed", "either"
IEEE, INFINITY, SATURATION = "IEEE 754", "infinity", "saturation"


@dataclass(frozen=True)
class SpecialValues:
    """One product's special values: each choice and what it rests on."""
    product: str
    subnormals: str            # kept | flushed | either (inputs and results read and written as 0)
    subnormals_evidence: str
    zero_sign: str             # IEEE 754 (judged where IEEE fixes it) | either
    zero_sign_evidence: str
    nan_payload: str           # either: no document states a payload, any NaN where one is due
    overflow: str              # infinity | saturation | either
    overflow_evidence: str
    sources: tuple[str, ...]


_FTZ_950 = ("either: the default one-instruction Div, Sqrt and Reciprocal (and Exp, Ln, Rsqrt) "
            "flush subnormal inputs and results to zero, their *_FTZ_FALSE algorithms keep them, "
            "and a kernel may use either; add and multiply are not documented")
_KEPT_220X = ("kept (inferred): the vendor names flushing as a change of the 351x architecture, and "
              "the A2/A3 Div, Sqrt and Reciprocal have no flush-to-zero configuration")
_UNKNOWN_SUB = "either: no document states it for this product"
_IEEE_ZERO = "IEEE 754: the runtime's default Inf/NaN mode is described as conforming to IEEE 754"
_UNKNOWN_ZERO = "either: only the saturation mode, which no document relates to IEEE 754"

SPECIAL_VALUES: dict[str, SpecialValues] = {s.product: s for s in (
    SpecialValues("ascend950", EITHER, _FTZ_950, IEEE, _IEEE_ZERO, EITHER, INFINITY,
                  "infinity: Inf/NaN mode is the only mode",
                  (ASC + "Sqrt.md (key features: FTZ)", ASC + "Div.md (DivConfig)",
                   ASC + "Reciprocal.md (ReciprocalConfig)", MIGRATION_351X, OVERFLOW_MODE)),
    *(SpecialValues(p, KEPT, _KEPT_220X, IEEE, _IEEE_ZERO, EITHER, INFINITY,
                    "infinity: the default Inf/NaN mode (aclrtSetDeviceSatMode can choose "
                    "saturation; the suite runs the default)",
                    (MIGRATION_351X, ASC + "Div.md (no config on A2/A3)", OVERFLOW_MODE))
      for p in ("atlas-a3", "atlas-a2")),
    *(SpecialValues(p, EITHER, _UNKNOWN_SUB, EITHER, _UNKNOWN_ZERO, EITHER, SATURATION,
                    "saturation: the only mode these products support", (OVERFLOW_MODE,))
      for p in ("atlas-200i-500-a2", "atlas-inference", "atlas-training")),
)}


def special_values(product: str | None) -> SpecialValues | None:
    """The product's special values (None: no product, as in the harness's own checks)."""
    return SPECIAL_VALUES.get(product) if product else None
