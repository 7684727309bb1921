"""Mutants of aclnnApplyAdamWQuant: the defects a kernel or host-code author makes.

Value mutants swap one step of the emulator's arithmetic (``AawqKernel``); check mutants change
what the first phase accepts or returns. The notes (apply_adam_w_quant.md sections 4-6) are where
most of these come from: the 8-bit optimizer's own CPU paths decay before the step, its CUDA kernel
rounds fp16/bf16 twice, the A2 sign check moves the wrong way, the A2 tail handling reads past the
block, the document itself writes t = step.
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator.apply_adam_w_quant import QMAP_SIZE
from aclnn_conformance.backends.mutants.apply_adam_w_quant_kernel import F32, AawqKernel, recompute

BF16 = ml_dtypes.bfloat16
from aclnn_conformance.backends.mutants.base import Mutant, MutantSet, StridesIgnoredMutant, replace_result
from aclnn_conformance.backends.mutants.faithful_arithmetic import (faithful_power, faithful_quotient,
                                                                    faithful_sqrt, fused_multiply_add,
                                                                    reciprocal_quotient, shaped_like,
                                                                    torch_sqrt, value_pick)
from aclnn_conformance.spec.apply_adam_w_quant import OP, OUTPUTS, VAR_DTYPES
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.tensor import TensorArg


class KernelMutant(Mutant):
    """A mutant whose outputs are computed by ``kernel`` (the emulator's arithmetic, one step
    swapped); statuses are the emulator's."""

    op = OP
    kernel: AawqKernel = AawqKernel()

    def mutate(self, case: Case, product: str) -> RunResult:
        return recompute(case, self.emulate(case, product), self.kernel)


class UnmutatedKernel(KernelMutant):
    """The control: the kernel variant with no step swapped. It must agree with the emulator on
    every case (it is not a mutant and is not in MUTANTS)."""

    name = "emulator-kernel-variant"
    defect = "none: the emulator's arithmetic step by step"
    killed_by = ()


# ---- controls: arithmetic inside the model (the ARITHMETIC model of spec/apply_adam_w_quant.py), unlike the oracle's ----

class _FaithfulSqrt(AawqKernel):
    def sqrt(self, x):
        return faithful_sqrt(x)


class _FaithfulPow(AawqKernel):
    def power(self, base, exponent):
        return faithful_power(base, exponent)


class _FusedMultiplyAdd(AawqKernel):
    def mul_add(self, a, b, c):
        return fused_multiply_add(a, b, c)


class _ReciprocalDivision(AawqKernel):
    def divide(self, a, b):
        return reciprocal_quotient(a, b)


class _TorchSqrt(AawqKernel):
    def sqrt(self, x):
        return torch_sqrt(x)


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


class FaithfulSqrt(ModelControl):
    name = "control-faithful-sqrt"
    defect = "none: sqrt faithfully rounded (either float32 neighbour of the exact root, by value)"
    kernel = _FaithfulSqrt()


class FaithfulPow(ModelControl):
    name = "control-faithful-pow"
    defect = "none: beta^t faithfully rounded (the other float32 neighbour of the exact power)"
    kernel = _FaithfulPow()


class FusedMultiplyAdd(ModelControl):
    name = "control-fused-multiply-add"
    defect = "none: every multiply-add of the formula fused (one rounding)"
    kernel = _FusedMultiplyAdd()


class ReciprocalDivision(ModelControl):
    name = "control-reciprocal-division"
    defect = "none: every division computed as a times the float32 reciprocal of b"
    kernel = _ReciprocalDivision()


class TorchCpuSqrt(ModelControl):
    name = "control-torch-cpu-sqrt"
    defect = "none: torch's float32 CPU sqrt, not correctly rounded on every machine"
    kernel = _TorchSqrt()

    @classmethod
    def unavailable(cls) -> str:
        try:
            import torch  # noqa: F401
        except ImportError:
            return "torch is not installed"
        return ""


class AllModelFreedoms(ModelControl):
    name = "control-all-model-freedoms"
    defect = ("none: faithful sqrt and pow, fused multiply-adds, reciprocal and faithful "
              "division, together")
    kernel = _AllTogether()


# ---- the Adam update ----

class _DecayBeforeStep(AawqKernel):
    def parameter(self, var32, m1, v1, s, dtype):
        return self.cast(self.adam_step(self.decay(var32, s), m1, v1, s), dtype)


class DecayBeforeStep(KernelMutant):
    name = "mutant-decay-before-step"
    defect = "weight decay applied to theta before the Adam step: theta*(1-lr*wd) + delta"
    killed_by = ("AAWQ-VAL-004",)
    kernel = _DecayBeforeStep()


class _DecayWhenWdNonpositive(AawqKernel):
    def decay(self, p, s):
        return p * s["wd_factor"]


class DecayWhenWdNonpositive(KernelMutant):
    name = "mutant-decay-when-wd-nonpositive"
    defect = "weight decay applied also when weightDecay <= 0 (no wd > 0 guard)"
    killed_by = ("AAWQ-VAL-005",)
    kernel = _DecayWhenWdNonpositive()


class _NoBiasCorrection(AawqKernel):
    def corrections(self, b1, b2, t):
        return F32(1), F32(1)


class NoBiasCorrection(KernelMutant):
    name = "mutant-no-bias-correction"
    defect = "no bias correction: step_size = -lr and eps used as it is"
    killed_by = ("AAWQ-VAL-002",)
    kernel = _NoBiasCorrection()


class _EpsNotScaled(AawqKernel):
    def eps_term(self, eps, c2):
        return eps


class EpsNotScaled(KernelMutant):
    name = "mutant-eps-not-scaled"
    defect = "eps not scaled by sqrt(1-beta2^t) in the closed form (m/(sqrt(v)+eps))"
    killed_by = ("AAWQ-VAL-002",)
    kernel = _EpsNotScaled()


class _StepNotIncremented(AawqKernel):
    def time_step(self, step):
        return F32(step)


class StepNotIncremented(KernelMutant):
    name = "mutant-t-equals-step"
    defect = "t = step (the document's reading) instead of step + 1"
    killed_by = ("AAWQ-VAL-003",)
    kernel = _StepNotIncremented()


class _GnormScaleIgnored(AawqKernel):
    def scale_grad(self, g, s):
        return g


class GnormScaleIgnored(KernelMutant):
    name = "mutant-gnorm-scale-ignored"
    defect = "gnormScale never multiplies grad"
    killed_by = ("AAWQ-VAL-006",)
    kernel = _GnormScaleIgnored()


class _Float64HyperParameters(AawqKernel):
    def hyper_parameters(self, attrs):
        return {k: np.float64(float(attrs[k])) for k in ("lr", "beta1", "beta2", "weightDecay",
                                                          "eps", "gnormScale")}

    def power(self, base, exponent):
        return np.float64(math.pow(float(base), float(exponent)))


class Float64HyperParameters(KernelMutant):
    name = "mutant-hyper-parameters-float64"
    defect = "hyper-parameters and the scalars derived from them kept in float64, not rounded to float32"
    killed_by = ("AAWQ-ATTR-003",)
    kernel = _Float64HyperParameters()


class _DoubleRounding(AawqKernel):
    def parameter(self, var32, m1, v1, s, dtype):
        p = self.cast(self.adam_step(var32, m1, v1, s), dtype).astype(F32)
        return self.cast(self.decay(p, s), dtype)


class DoubleRounding(KernelMutant):
    name = "mutant-double-rounding"
    defect = "fp16/bf16 var rounded after the Adam step and again after the decay"
    killed_by = ("AAWQ-VAL-012",)
    kernel = _DoubleRounding()


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


class _OneUlpUp(AawqKernel):
    def cast(self, p, dtype):
        return _ulp_step(super().cast(p, dtype), +1)


class OneUlpUp(KernelMutant):
    name = "mutant-var-one-ulp-up"
    defect = "every new var element one ulp of its dtype too high (a biased final step)"
    killed_by = ("AAWQ-VAL-002", "AAWQ-VAL-004")
    kernel = _OneUlpUp()


class _OneUlpDown(AawqKernel):
    def cast(self, p, dtype):
        return _ulp_step(super().cast(p, dtype), -1)


class OneUlpDown(KernelMutant):
    name = "mutant-var-one-ulp-down"
    defect = "every new var element one ulp of its dtype too low (a biased final step)"
    killed_by = ("AAWQ-VAL-002", "AAWQ-VAL-004")
    kernel = _OneUlpDown()


class _TowardZeroCast(AawqKernel):
    target = np.dtype(np.float16)

    def cast(self, p, dtype):
        if np.dtype(dtype) != self.target:
            return super().cast(p, dtype)
        return _toward_zero_cast(np.asarray(p, F32), dtype)


class _TowardZeroFp16(_TowardZeroCast):
    target = np.dtype(np.float16)


class _TowardZeroBf16(_TowardZeroCast):
    target = np.dtype(BF16)


class TowardZeroFp16Cast(KernelMutant):
    name = "mutant-fp16-cast-toward-zero"
    defect = "the final float32 -> fp16 cast truncates (CAST_TRUNC) instead of rounding to nearest even"
    killed_by = ("AAWQ-VAL-012",)
    kernel = _TowardZeroFp16()


class TowardZeroBf16Cast(KernelMutant):
    name = "mutant-bf16-cast-toward-zero"
    defect = "the final float32 -> bf16 cast truncates (CAST_TRUNC) instead of rounding to nearest even"
    killed_by = ("AAWQ-VAL-012",)
    kernel = _TowardZeroBf16()


class _HalfAwayBf16(AawqKernel):
    def cast(self, p, dtype):
        if np.dtype(dtype) != np.dtype(BF16):
            return super().cast(p, dtype)
        p = np.ascontiguousarray(p, F32)
        bits = p.view(np.uint32).astype(np.uint64)
        # add half a bf16 ulp to the magnitude and truncate: ties go away from zero
        rounded = ((bits + 0x8000) >> 16).astype(np.uint16).view(BF16)
        return np.where(np.isfinite(p), rounded, p.astype(BF16)).astype(BF16)


class HalfAwayBf16Cast(KernelMutant):
    name = "mutant-bf16-cast-half-away"
    defect = "the final float32 -> bf16 cast rounds ties away from zero (CAST_ROUND) instead of to even"
    killed_by = ("AAWQ-VAL-012",)
    kernel = _HalfAwayBf16()


class _Bf16Update(AawqKernel):
    def adam_step(self, var32, m1, v1, s):
        den = self.sqrt(v1) + s["eps_c2"]
        update = self.divide(m1 * s["step_size"], den)
        return var32 + np.asarray(update, F32).astype(BF16).astype(F32)


class Bf16Update(KernelMutant):
    name = "mutant-update-through-bf16"
    defect = "the float32 Adam update rounded to bf16 and back before it is added to var"
    killed_by = ("AAWQ-VAL-002", "AAWQ-VAL-004")
    kernel = _Bf16Update()


class _NanGradSkipped(AawqKernel):
    def update(self, var, grad, m, v, *rest):
        bad = ~np.isfinite(grad.astype(F32))
        out = super().update(var, np.where(bad, 0, grad).astype(grad.dtype), m, v, *rest)
        var_out = np.where(bad.reshape(-1), var.reshape(-1), out[0])
        return (var_out,) + out[1:]


class NanGradSkipped(KernelMutant):
    name = "mutant-nonfinite-grad-skipped"
    defect = "elements with a NaN/Inf grad skipped (grad taken as 0, var kept) instead of propagated"
    killed_by = ("AAWQ-VAL-013",)
    kernel = _NanGradSkipped()


# ---- quantization: absmax and codes ----

class _OldAbsmaxReused(AawqKernel):
    def block_absmax(self, m1, v1, old_am, old_av):
        return old_am.reshape(-1), old_av.reshape(-1)


class OldAbsmaxReused(KernelMutant):
    name = "mutant-old-absmax-reused"
    defect = "the incoming absmax reused to quantize the new states (and returned unchanged)"
    killed_by = ("AAWQ-VAL-007",)
    kernel = _OldAbsmaxReused()


class _SignedAbsmax(AawqKernel):
    def block_absmax(self, m1, v1, old_am, old_av):
        return np.max(m1, axis=1), np.max(v1, axis=1)


class SignedAbsmax(KernelMutant):
    name = "mutant-absmax-signed"
    defect = "absmax of m taken as max(m) instead of max|m|"
    killed_by = ("AAWQ-VAL-007",)
    kernel = _SignedAbsmax()


class _PaddingInAbsmax(AawqKernel):
    def mask_tail(self, m1, v1, valid):
        return m1, v1


class PaddingInAbsmax(KernelMutant):
    name = "mutant-partial-block-padding-in-absmax"
    defect = "the last partial block's absmax taken over its padding too (padding dequantized from code 0)"
    killed_by = ("AAWQ-VAL-008",)
    kernel = _PaddingInAbsmax()


class _PartialBlockDropped(AawqKernel):
    def update(self, var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step, hp):
        var_out, m_out, v_out, am, av = super().update(var, grad, m, v, qmap_m, qmap_v, absmax_m,
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


class PartialBlockDropped(KernelMutant):
    name = "mutant-partial-block-dropped"
    defect = "n // 256 blocks instead of ceil(n/256): the last partial block is never updated"
    killed_by = ("AAWQ-VAL-008",)
    kernel = _PartialBlockDropped()


class _QmapsSwapped(AawqKernel):
    def qmaps(self, qm, qv):
        return qv, qm


class QmapsSwapped(KernelMutant):
    name = "mutant-qmaps-swapped"
    defect = "qmapM and qmapV swapped (m dequantized and quantized with the v map and back)"
    killed_by = ("AAWQ-VAL-001", "AAWQ-VAL-009")
    kernel = _QmapsSwapped()


class _Truncation(AawqKernel):
    def codes(self, x, qmap):
        q = np.asarray(qmap, dtype=F32).reshape(-1)
        with np.errstate(invalid="ignore"):
            idx = np.searchsorted(q, np.asarray(x, dtype=F32), side="right") - 1
        idx = np.where(np.isnan(x), 0, idx)
        return np.clip(idx, 0, QMAP_SIZE - 1).astype(np.uint8)


class Truncation(KernelMutant):
    name = "mutant-truncation-not-nearest"
    defect = "new code = the largest qmap entry <= x (truncation) instead of the nearest"
    killed_by = ("AAWQ-VAL-009",)
    kernel = _Truncation()


class _TiesToUpper(AawqKernel):
    def codes(self, x, qmap):
        q = np.asarray(qmap, dtype=F32).reshape(-1)
        x = np.asarray(x, dtype=F32)
        code = super().codes(x, q).astype(np.intp)
        up = np.minimum(code + 1, QMAP_SIZE - 1)
        with np.errstate(invalid="ignore"):
            tie = (up != code) & (np.abs(x - q[up]) == np.abs(x - q[code]))
        return np.where(tie, up, code).astype(np.uint8)


class TiesToUpper(KernelMutant):
    name = "mutant-ties-to-upper-code"
    defect = "an exact tie between two codes goes to the upper index (|d_hi| <= |d_lo|)"
    killed_by = ("AAWQ-VAL-009",)
    kernel = _TiesToUpper()


class _NoSignFix(AawqKernel):
    def sign_fix(self, x, code, qmap):
        return code


class NoSignFix(KernelMutant):
    name = "mutant-no-sign-fix"
    defect = "no sign fix of m's code when qmapM has negative entries"
    killed_by = ("AAWQ-VAL-010",)
    kernel = _NoSignFix()


class _SignFixInverted(AawqKernel):
    def sign_fix(self, x, code, qmap):
        q = np.asarray(qmap, dtype=F32).reshape(-1)
        c = code.astype(np.int32)
        qc = q[c]
        with np.errstate(invalid="ignore"):
            step = np.where((x < 0) & (qc > 0), 1, 0) - np.where((x > 0) & (qc < 0), 1, 0)
        return np.clip(c + step, 0, QMAP_SIZE - 1).astype(np.uint8)


class SignFixInverted(KernelMutant):
    name = "mutant-sign-fix-inverted"
    defect = "the sign fix moves the code away from m's sign (the A2 CheckSign direction)"
    killed_by = ("AAWQ-VAL-010",)
    kernel = _SignFixInverted()


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


class BlockSize128Accepted(Mutant):
    op = OP
    name = "mutant-block-size-128-accepted"
    defect = "blockSize not checked: 128 runs as 256"
    killed_by = ("AAWQ-SHAPE-001",)

    def mutate(self, case, product):
        if case.attrs.get("blockSize") != 128:
            return self.emulate(case, product)
        return self.run_as(case, case.with_attrs(blockSize=256), product)


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


class AbsmaxCountUnchecked(Mutant):
    op = OP
    name = "mutant-absmax-count-unchecked-950"
    defect = "Ascend 950 tiling without the absmax count check (the A2/A3 tiling reused)"
    killed_by = ("AAWQ-SHAPE-008", "AAWQ-SHAPE-009")

    def mutate(self, case, product):
        return self.emulate(case, "atlas-a2" if product == "ascend950" else product)


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
