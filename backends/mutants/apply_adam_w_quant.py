"""Mutants of aclnnApplyAdamWQuant: the defects a kernel or host-code author makes.

Value mutants swap one step of the emulator's arithmetic (``AawqKernel``); check mutants change
what the first phase accepts or returns. The notes (apply_adam_w_quant.md sections 4-6) are where
most of these come from: the 8-bit optimizer's own CPU paths decay before the step, its CUDA kernel
rounds fp16/bf16 twice, the A2 sign check moves the wrong way, the A2 tail handling reads past the
block, the document itself writes t = step.
"""
from __future__ import annotations

import math
from collections.abc import Callable

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.emulator.apply_adam_w_quant import QMAP_SIZE
from aclnn_conformance.backends.mutants.apply_adam_w_quant_kernel import F32, AawqKernel, recompute
from aclnn_conformance.backends.mutants.base import (AnotherProductsPath, KernelVariantMutant, Mutant, MutantSet,
                                                    RejectedValueAccepted, StridesIgnoredMutant, replace_result)
from aclnn_conformance.backends.mutants.faithful_arithmetic import (faithful_power, faithful_quotient,
                                                                    faithful_sqrt, fused_multiply_add,
                                                                    reciprocal_quotient, shaped_like,
                                                                    torch_sqrt, value_pick)
from aclnn_conformance.spec.apply_adam_w_quant import OP, OUTPUTS, VAR_DTYPES
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.tensor import TensorArg

BF16 = ml_dtypes.bfloat16


class KernelMutant(KernelVariantMutant):
    """A mutant whose outputs are computed by ``kernel`` (the emulator's arithmetic, one step
    swapped); statuses are the emulator's."""

    op = OP
    kernel: AawqKernel = AawqKernel()
    recompute = staticmethod(recompute)


class UnmutatedKernel(KernelMutant):
    """The control: the kernel variant with no step swapped. It must agree with the emulator on
    every case (it is not a mutant and is not in MUTANTS)."""

    name = "emulator-kernel-variant"
    defect = "none: the emulator's arithmetic step by step"
    killed_by = ()


# ---- controls: arithmetic inside the model (the ARITHMETIC model of spec/apply_adam_w_quant.py), unlike the oracle's ----

class _AllTogether(AawqKernel):
    def sqrt(self, x):
        return faithful_sqrt(x)

    def power(self, base, exponent):
        return faithful_power(base, exponent)

    def mul_add(self, a, b, c):
        return fused_multiply_add(a, b, c)

    def divide(self, a, b):
        # per pair of values, one of the two ways the model allows
        with np.errstate(all="ignore"):
            both = np.where(value_pick(b, a), reciprocal_quotient(a, b), faithful_quotient(a, b))
        return shaped_like(both, a, b)


class ModelControl(KernelMutant):
    """A correct implementation under the arithmetic model whose results differ from the oracle's:
    no case may fail it (a failure is a false alarm of a standard)."""

    killed_by = ()

    @classmethod
    def unavailable(cls) -> str:
        """Why this control cannot run here ("" when it can)."""
        return ""


def _without_torch(cls) -> str:
    try:
        import torch  # noqa: F401
    except ImportError:
        return "torch is not installed"
    return ""


FaithfulSqrt = ModelControl.declare(
    "FaithfulSqrt", name="control-faithful-sqrt",
    defect="none: sqrt faithfully rounded (either float32 neighbour of the exact root, by value)",
    steps={"sqrt": lambda kernel, x: faithful_sqrt(x)})
FaithfulPow = ModelControl.declare(
    "FaithfulPow", name="control-faithful-pow",
    defect="none: beta^t faithfully rounded (the other float32 neighbour of the exact power)",
    steps={"power": lambda kernel, base, exponent: faithful_power(base, exponent)})
FusedMultiplyAdd = ModelControl.declare(
    "FusedMultiplyAdd", name="control-fused-multiply-add",
    defect="none: every multiply-add of the formula fused (one rounding)",
    steps={"mul_add": lambda kernel, a, b, c: fused_multiply_add(a, b, c)})
ReciprocalDivision = ModelControl.declare(
    "ReciprocalDivision", name="control-reciprocal-division",
    defect="none: every division computed as a times the float32 reciprocal of b",
    steps={"divide": lambda kernel, a, b: reciprocal_quotient(a, b)})
TorchCpuSqrt = ModelControl.declare(
    "TorchCpuSqrt", name="control-torch-cpu-sqrt",
    defect="none: torch's float32 CPU sqrt, not correctly rounded on every machine",
    steps={"sqrt": lambda kernel, x: torch_sqrt(x)}, unavailable=classmethod(_without_torch))
AllModelFreedoms = ModelControl.declare(
    "AllModelFreedoms", name="control-all-model-freedoms",
    defect="none: faithful sqrt and pow, fused multiply-adds, reciprocal and faithful division, together",
    kernel=_AllTogether())


# ---- the Adam update ----

def _rounded_twice(kernel: AawqKernel, var32, m1, v1, s, dtype):
    p = kernel.cast(kernel.adam_step(var32, m1, v1, s), dtype).astype(F32)
    return kernel.cast(kernel.decay(p, s), dtype)


def _ulp_step(x: np.ndarray, direction: int) -> np.ndarray:
    """Each finite value one step of its own dtype up (+1) or down (-1); +-0 to the smallest
    subnormal of that sign of ``direction``."""
    x = np.asarray(x)
    bits_t = {2: np.int16, 4: np.int32}[x.dtype.itemsize]
    bits = x.view(bits_t).astype(np.int64)
    magnitude_up = (x > 0) if direction > 0 else (x < 0)
    zero = x == 0
    stepped = np.where(magnitude_up, bits + 1, bits - 1)
    smallest = np.array([1], dtype=bits_t).view(x.dtype)[0]
    out = stepped.astype(bits_t).view(x.dtype)
    out = np.where(zero, smallest if direction > 0 else -smallest, out).astype(x.dtype)
    return np.where(np.isfinite(x.astype(F32)), out, x).astype(x.dtype)


def _toward_zero_cast(p: np.ndarray, dtype) -> np.ndarray:
    """float32 -> fp16/bf16 truncating (round toward zero)."""
    with np.errstate(over="ignore", invalid="ignore"):
        r = p.astype(dtype)
        overshoot = np.abs(r.astype(np.float64)) > np.abs(p.astype(np.float64))
    toward = np.where(r > 0, _ulp_step(r, -1), _ulp_step(r, +1))
    return np.where(overshoot & np.isfinite(p), toward, r).astype(dtype)


def _cast_toward_zero_to(target) -> Callable[..., np.ndarray]:
    """The final cast, truncating when its dtype is ``target`` and as the kernel's otherwise."""
    def cast(kernel: AawqKernel, p, dtype):
        if np.dtype(dtype) != np.dtype(target):
            return AawqKernel.cast(kernel, p, dtype)
        return _toward_zero_cast(np.asarray(p, F32), dtype)
    return cast


def _bf16_cast_half_away(kernel: AawqKernel, p, dtype):
    if np.dtype(dtype) != np.dtype(BF16):
        return AawqKernel.cast(kernel, p, dtype)
    p = np.ascontiguousarray(p, F32)
    bits = p.view(np.uint32).astype(np.uint64)
    # add half a bf16 ulp to the magnitude and truncate: ties go away from zero
    rounded = ((bits + 0x8000) >> 16).astype(np.uint16).view(BF16)
    return np.where(np.isfinite(p), rounded, p.astype(BF16)).astype(BF16)


def _bf16_update(kernel: AawqKernel, var32, m1, v1, s):
    den = kernel.sqrt(v1) + s["eps_c2"]
    update = kernel.divide(m1 * s["step_size"], den)
    return var32 + np.asarray(update, F32).astype(BF16).astype(F32)


def _nonfinite_grad_skipped(kernel: AawqKernel, var, grad, m, v, *rest):
    bad = ~np.isfinite(grad.astype(F32))
    out = AawqKernel.update(kernel, var, np.where(bad, 0, grad).astype(grad.dtype), m, v, *rest)
    var_out = np.where(bad.reshape(-1), var.reshape(-1), out[0])
    return (var_out,) + out[1:]


DecayBeforeStep = KernelMutant.declare(
    "DecayBeforeStep", name="mutant-decay-before-step",
    defect="weight decay applied to theta before the Adam step: theta*(1-lr*wd) + delta",
    killed_by=("AAWQ-VAL-004",),
    steps={"parameter": lambda kernel, var32, m1, v1, s, dtype: kernel.cast(
        kernel.adam_step(kernel.decay(var32, s), m1, v1, s), dtype)})
DecayWhenWdNonpositive = KernelMutant.declare(
    "DecayWhenWdNonpositive", name="mutant-decay-when-wd-nonpositive",
    defect="weight decay applied also when weightDecay <= 0 (no wd > 0 guard)", killed_by=("AAWQ-VAL-005",),
    steps={"decay": lambda kernel, p, s: p * s["wd_factor"]})
NoBiasCorrection = KernelMutant.declare(
    "NoBiasCorrection", name="mutant-no-bias-correction",
    defect="no bias correction: step_size = -lr and eps used as it is", killed_by=("AAWQ-VAL-002",),
    steps={"corrections": lambda kernel, b1, b2, t: (F32(1), F32(1))})
EpsNotScaled = KernelMutant.declare(
    "EpsNotScaled", name="mutant-eps-not-scaled",
    defect="eps not scaled by sqrt(1-beta2^t) in the closed form (m/(sqrt(v)+eps))",
    killed_by=("AAWQ-VAL-002",), steps={"eps_term": lambda kernel, eps, c2: eps})
StepNotIncremented = KernelMutant.declare(
    "StepNotIncremented", name="mutant-t-equals-step",
    defect="t = step (the document's reading) instead of step + 1", killed_by=("AAWQ-VAL-003",),
    steps={"time_step": lambda kernel, step: F32(step)})
GnormScaleIgnored = KernelMutant.declare(
    "GnormScaleIgnored", name="mutant-gnorm-scale-ignored", defect="gnormScale never multiplies grad",
    killed_by=("AAWQ-VAL-006",), steps={"scale_grad": lambda kernel, g, s: g})
Float64HyperParameters = KernelMutant.declare(
    "Float64HyperParameters", name="mutant-hyper-parameters-float64",
    defect="hyper-parameters and the scalars derived from them kept in float64, not rounded to float32",
    killed_by=("AAWQ-ATTR-003",),
    steps={"hyper_parameters": lambda kernel, attrs: {k: np.float64(float(attrs[k])) for k in (
               "lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale")},
           "power": lambda kernel, base, exponent: np.float64(math.pow(float(base), float(exponent)))})
DoubleRounding = KernelMutant.declare(
    "DoubleRounding", name="mutant-double-rounding",
    defect="fp16/bf16 var rounded after the Adam step and again after the decay", killed_by=("AAWQ-VAL-012",),
    steps={"parameter": _rounded_twice})
OneUlpUp = KernelMutant.declare(
    "OneUlpUp", name="mutant-var-one-ulp-up",
    defect="every new var element one ulp of its dtype too high (a biased final step)",
    killed_by=("AAWQ-VAL-002", "AAWQ-VAL-004"),
    steps={"cast": lambda kernel, p, dtype: _ulp_step(AawqKernel.cast(kernel, p, dtype), +1)})
OneUlpDown = KernelMutant.declare(
    "OneUlpDown", name="mutant-var-one-ulp-down",
    defect="every new var element one ulp of its dtype too low (a biased final step)",
    killed_by=("AAWQ-VAL-002", "AAWQ-VAL-004"),
    steps={"cast": lambda kernel, p, dtype: _ulp_step(AawqKernel.cast(kernel, p, dtype), -1)})
TowardZeroFp16Cast = KernelMutant.declare(
    "TowardZeroFp16Cast", name="mutant-fp16-cast-toward-zero",
    defect="the final float32 -> fp16 cast truncates (CAST_TRUNC) instead of rounding to nearest even",
    killed_by=("AAWQ-VAL-012",), steps={"cast": _cast_toward_zero_to(np.float16)})
TowardZeroBf16Cast = KernelMutant.declare(
    "TowardZeroBf16Cast", name="mutant-bf16-cast-toward-zero",
    defect="the final float32 -> bf16 cast truncates (CAST_TRUNC) instead of rounding to nearest even",
    killed_by=("AAWQ-VAL-012",), steps={"cast": _cast_toward_zero_to(BF16)})
HalfAwayBf16Cast = KernelMutant.declare(
    "HalfAwayBf16Cast", name="mutant-bf16-cast-half-away",
    defect="the final float32 -> bf16 cast rounds ties away from zero (CAST_ROUND) instead of to even",
    killed_by=("AAWQ-VAL-012",), steps={"cast": _bf16_cast_half_away})
Bf16Update = KernelMutant.declare(
    "Bf16Update", name="mutant-update-through-bf16",
    defect="the float32 Adam update rounded to bf16 and back before it is added to var",
    killed_by=("AAWQ-VAL-002", "AAWQ-VAL-004"), steps={"adam_step": _bf16_update})
NanGradSkipped = KernelMutant.declare(
    "NanGradSkipped", name="mutant-nonfinite-grad-skipped",
    defect="elements with a NaN/Inf grad skipped (grad taken as 0, var kept) instead of propagated",
    killed_by=("AAWQ-VAL-013",), steps={"update": _nonfinite_grad_skipped})


# ---- quantization: absmax and codes ----

def _partial_block_dropped(kernel: AawqKernel, var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step, hp):
    var_out, m_out, v_out, am, av = AawqKernel.update(kernel, var, grad, m, v, qmap_m, qmap_v, absmax_m,
                                                      absmax_v, step, hp)
    full = (var.size // 256) * 256
    if full == var.size:
        return var_out, m_out, v_out, am, av
    var_out, m_out, v_out = var_out.copy(), m_out.copy(), v_out.copy()
    var_out[full:] = var.reshape(-1)[full:]
    m_out[full:] = m.reshape(-1)[full:]
    v_out[full:] = v.reshape(-1)[full:]
    am, av = am.copy(), av.copy()
    am[-1] = np.asarray(absmax_m, dtype=F32).reshape(-1)[-1]
    av[-1] = np.asarray(absmax_v, dtype=F32).reshape(-1)[-1]
    return var_out, m_out, v_out, am, av


def _truncated_codes(kernel: AawqKernel, x, qmap):
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    with np.errstate(invalid="ignore"):
        idx = np.searchsorted(q, np.asarray(x, dtype=F32), side="right") - 1
    idx = np.where(np.isnan(x), 0, idx)
    return np.clip(idx, 0, QMAP_SIZE - 1).astype(np.uint8)


def _codes_ties_to_upper(kernel: AawqKernel, x, qmap):
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    x = np.asarray(x, dtype=F32)
    code = AawqKernel.codes(kernel, x, q).astype(np.intp)
    up = np.minimum(code + 1, QMAP_SIZE - 1)
    with np.errstate(invalid="ignore"):
        tie = (up != code) & (np.abs(x - q[up]) == np.abs(x - q[code]))
    return np.where(tie, up, code).astype(np.uint8)


def _sign_fix_inverted(kernel: AawqKernel, x, code, qmap):
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    c = code.astype(np.int32)
    qc = q[c]
    with np.errstate(invalid="ignore"):
        step = np.where((x < 0) & (qc > 0), 1, 0) - np.where((x > 0) & (qc < 0), 1, 0)
    return np.clip(c + step, 0, QMAP_SIZE - 1).astype(np.uint8)


OldAbsmaxReused = KernelMutant.declare(
    "OldAbsmaxReused", name="mutant-old-absmax-reused",
    defect="the incoming absmax reused to quantize the new states (and returned unchanged)",
    killed_by=("AAWQ-VAL-007",),
    steps={"block_absmax": lambda kernel, m1, v1, old_am, old_av: (old_am.reshape(-1), old_av.reshape(-1))})
SignedAbsmax = KernelMutant.declare(
    "SignedAbsmax", name="mutant-absmax-signed", defect="absmax of m taken as max(m) instead of max|m|",
    killed_by=("AAWQ-VAL-007",),
    steps={"block_absmax": lambda kernel, m1, v1, old_am, old_av: (np.max(m1, axis=1), np.max(v1, axis=1))})
PaddingInAbsmax = KernelMutant.declare(
    "PaddingInAbsmax", name="mutant-partial-block-padding-in-absmax",
    defect="the last partial block's absmax taken over its padding too (padding dequantized from code 0)",
    killed_by=("AAWQ-VAL-008",), steps={"mask_tail": lambda kernel, m1, v1, valid: (m1, v1)})
PartialBlockDropped = KernelMutant.declare(
    "PartialBlockDropped", name="mutant-partial-block-dropped",
    defect="n // 256 blocks instead of ceil(n/256): the last partial block is never updated",
    killed_by=("AAWQ-VAL-008",), steps={"update": _partial_block_dropped})
QmapsSwapped = KernelMutant.declare(
    "QmapsSwapped", name="mutant-qmaps-swapped",
    defect="qmapM and qmapV swapped (m dequantized and quantized with the v map and back)",
    killed_by=("AAWQ-VAL-001", "AAWQ-VAL-009"), steps={"qmaps": lambda kernel, qm, qv: (qv, qm)})
Truncation = KernelMutant.declare(
    "Truncation", name="mutant-truncation-not-nearest",
    defect="new code = the largest qmap entry <= x (truncation) instead of the nearest",
    killed_by=("AAWQ-VAL-009",), steps={"codes": _truncated_codes})
TiesToUpper = KernelMutant.declare(
    "TiesToUpper", name="mutant-ties-to-upper-code",
    defect="an exact tie between two codes goes to the upper index (|d_hi| <= |d_lo|)",
    killed_by=("AAWQ-VAL-009",), steps={"codes": _codes_ties_to_upper})
NoSignFix = KernelMutant.declare(
    "NoSignFix", name="mutant-no-sign-fix", defect="no sign fix of m's code when qmapM has negative entries",
    killed_by=("AAWQ-VAL-010",), steps={"sign_fix": lambda kernel, x, code, qmap: code})
SignFixInverted = KernelMutant.declare(
    "SignFixInverted", name="mutant-sign-fix-inverted",
    defect="the sign fix moves the code away from m's sign (the A2 CheckSign direction)",
    killed_by=("AAWQ-VAL-010",), steps={"sign_fix": _sign_fix_inverted})


# ---- the first phase ----

class NullStepAccepted(Mutant):
    op = OP
    name = "mutant-null-step-accepted"
    defect = "no null check of step: a null step is read as step 0"
    killed_by = ("AAWQ-NULL-009",)

    def mutate(self, case, product):
        if case.tensor("step") is not None:
            return self.emulate(case, product)
        return self.run_as(case, case.with_tensor("step", TensorArg.from_array(np.array([0]),
                                                                              DT.INT64)), product)


class MixedDtypesAccepted(Mutant):
    op = OP
    name = "mutant-mixed-var-grad-dtypes"
    defect = "grad of another floating dtype than var accepted (converted to var's dtype)"
    killed_by = ("AAWQ-DTYPE-002",)

    def mutate(self, case, product):
        var, grad = case.tensor("varRef"), case.tensor("grad")
        if (var is None or grad is None or grad.dtype == var.dtype
                or var.dtype not in VAR_DTYPES or grad.dtype not in VAR_DTYPES):
            return self.emulate(case, product)
        return self.run_as(case, case.with_tensor("grad", grad.with_desc(dtype=var.dtype)), product)


BlockSize128Accepted = RejectedValueAccepted.declare(
    "BlockSize128Accepted", name="mutant-block-size-128-accepted", defect="blockSize not checked: 128 runs as 256",
    killed_by=("AAWQ-SHAPE-001",), op=OP, attribute="blockSize", value=128, runs_as=256)


class ShapeFaultParamInvalid(Mutant):
    op = OP
    name = "mutant-shape-fault-161002"
    defect = "shape violations rejected with 161002 (PARAM_INVALID) instead of the tiling's 561002"
    killed_by = tuple(f"AAWQ-SHAPE-{i:03d}" for i in range(1, 10))

    def mutate(self, case, product):
        result = self.emulate(case, product)
        if result.status == Status.ERR_INNER_TILING_ERROR:
            return replace_result(result, status=int(Status.ERR_PARAM_INVALID))
        return result


AbsmaxCountUnchecked = AnotherProductsPath.declare(
    "AbsmaxCountUnchecked", name="mutant-absmax-count-unchecked-950",
    defect="Ascend 950 tiling without the absmax count check (the A2/A3 tiling reused)",
    killed_by=("AAWQ-SHAPE-008", "AAWQ-SHAPE-009"), op=OP, product="ascend950", runs_as="atlas-a2")


class EmptyCallTiled(Mutant):
    op = OP
    name = "mutant-empty-call-tiled"
    defect = "a call whose outputs are all empty goes to the tiling and fails (561002)"
    killed_by = ("AAWQ-VAL-014",)

    def mutate(self, case, product):
        result = self.emulate(case, product)
        descs = [case.desc(n) for n in OUTPUTS]
        if result.status == 0 and all(d is not None and d.is_empty() for d in descs):
            return self.reject(case, Status.ERR_INNER_TILING_ERROR, "no block for a core")
        return result


class QuantModeNullRejected(Mutant):
    op = OP
    name = "mutant-quant-mode-null-rejected"
    defect = "a NULL quantModeOptional rejected as a null pointer (161001)"
    killed_by = ("AAWQ-ATTR-002",)

    def mutate(self, case, product):
        result = self.emulate(case, product)
        if result.status == 0 and case.attrs.get("quantModeOptional") is None:
            return self.reject(case, Status.ERR_PARAM_NULLPTR, "quantModeOptional is nullptr")
        return result


class StridesIgnored(StridesIgnoredMutant):
    op = OP
    name = "mutant-strides-ignored"
    killed_by = ("AAWQ-VAL-015",)


AAWQ_MUTANTS = (
    DecayBeforeStep, DecayWhenWdNonpositive, NoBiasCorrection, EpsNotScaled, StepNotIncremented,
    GnormScaleIgnored, Float64HyperParameters, DoubleRounding, OneUlpUp, OneUlpDown,
    TowardZeroFp16Cast, TowardZeroBf16Cast, HalfAwayBf16Cast, Bf16Update, NanGradSkipped, OldAbsmaxReused,
    SignedAbsmax, PaddingInAbsmax, PartialBlockDropped, QmapsSwapped, Truncation, TiesToUpper,
    NoSignFix, SignFixInverted, NullStepAccepted, MixedDtypesAccepted, BlockSize128Accepted,
    ShapeFaultParamInvalid, AbsmaxCountUnchecked, EmptyCallTiled, QuantModeNullRejected,
    StridesIgnored,
)
AAWQ_CONTROLS = (FaithfulSqrt, FaithfulPow, FusedMultiplyAdd, ReciprocalDivision, TorchCpuSqrt,
                 AllModelFreedoms)
# Mutants the standards accept by design, and mutants a standard should see but does not: none today.
AAWQ_EQUIVALENT: tuple = ()
AAWQ_GAPS: tuple = ()

__all__ = [c.__name__ for c in AAWQ_MUTANTS + AAWQ_EQUIVALENT + AAWQ_GAPS + AAWQ_CONTROLS] + [
    "AAWQ_MUTANTS", "AAWQ_EQUIVALENT", "AAWQ_GAPS", "AAWQ_CONTROLS", "KernelMutant", "ModelControl",
    "UnmutatedKernel"]

MUTANT_SET = MutantSet(mutants=AAWQ_MUTANTS, controls=(UnmutatedKernel,) + AAWQ_CONTROLS,
                       equivalent=AAWQ_EQUIVALENT, gaps=AAWQ_GAPS)
