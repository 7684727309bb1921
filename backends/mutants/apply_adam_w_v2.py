"""Mutants of aclnnApplyAdamWV2, and its controls: the emulator with one defect, or with one legal
variant of the arithmetic model that a correct device may show.

Value mutants and controls swap one step of the emulator's kernels (``AdamWV2Kernel`` on Atlas
A2/A3, ``Arch35Kernel`` on Ascend 950); the swap is a mixin applied to the kernel of the product's
chip generation. Check mutants change what the first phase accepts or returns. Where the defects
come from (notes apply_adam_w.md): the document's own reading (t = step, decay on θ_{t-1}), V1's
amsgrad semantics (the maximum stored in v), torch's lerp branch, the A2 CAST_ROUND doubt.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator import apply_adam_w_v2 as emu
from aclnn_conformance.backends.emulator import run_phases
from aclnn_conformance.backends.emulator.apply_adam_w_v2 import AdamWV2Kernel, Arch35Kernel
from aclnn_conformance.backends.emulator.products import chip
from aclnn_conformance.backends.mutants.faithful_arithmetic import (faithful_power, faithful_quotient,
                                                                  faithful_sqrt, reciprocal_quotient)
from aclnn_conformance.backends.mutants.base import (Mutant, MutantSet, VarTwoUlpsUpMutant, copied,
                                                    replace_result, replaced_steps)
from aclnn_conformance.oracle.adamw_arithmetic import fma_f32
from aclnn_conformance.spec.apply_adam_w_v2 import MAX_GRAD_NORM, OP
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

F32 = np.float32


class _NoSwap:
    """No kernel method replaced."""


class V2Mutant(Mutant):
    """A defect of ApplyAdamWV2: three distinct single calls on two products must fail it (the
    operator runs on Atlas A2/A3 and Ascend 950)."""

    op = OP
    killing_cases_wanted = 3
    killing_products_wanted = 2


class V2KernelMutant(V2Mutant):
    """The emulator with ``swap`` (a mixin of kernel methods) applied to the product's kernel."""

    swap: type = _NoSwap

    @classmethod
    def with_steps(cls, class_name: str, steps: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
        return {"swap": replaced_steps(class_name, object, steps, of=(AdamWV2Kernel, Arch35Kernel))}

    def kernel_for(self, arch: str | None):
        base = Arch35Kernel if arch == "arch35" else AdamWV2Kernel
        return type(f"{type(self).__name__}{base.__name__}", (self.swap, base), {})()

    def mutate(self, case: Case, product: str) -> RunResult:
        gen = chip(product)
        return run_phases(case, lambda raw: emu.get_workspace_size(raw, gen, self.kernel_for(gen.arch)))


# ---- controls: legal variants of the arithmetic model ----

UnmutatedV2Kernel = V2KernelMutant.declare(
    "UnmutatedV2Kernel", name="emulator-v2-kernel-variant",
    defect="none: the emulator's ApplyAdamWV2 kernels step by step")


def _toward_exact(rounded: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """The other faithful result: the float32 neighbour of ``rounded`` on the side of ``exact``."""
    rounded = np.asarray(rounded, dtype=F32)
    exact = np.asarray(exact, dtype=np.float64)
    with np.errstate(all="ignore"):
        side = np.where(exact > rounded.astype(np.float64), F32(np.inf), F32(-np.inf)).astype(F32)
        moved = np.nextafter(rounded, side)
        return np.where(np.isfinite(rounded) & (exact != rounded.astype(np.float64)), moved, rounded).astype(F32)


class _Faithful:
    """sqrt, pow and division return the faithfully rounded neighbour that is not the nearest."""

    def sqrt(self, x):
        r = np.sqrt(x)
        return _toward_exact(r, np.sqrt(np.asarray(x, dtype=np.float64)))

    def power(self, base, exponent):
        r = super().power(base, exponent)
        return F32(_toward_exact(r, np.float64(base) ** np.float64(exponent)))

    def divide(self, a, b):
        r = np.asarray(a, dtype=F32) / np.asarray(b, dtype=F32)
        return _toward_exact(r, np.asarray(a, dtype=np.float64) / np.asarray(b, dtype=np.float64))


class _Fused:
    """The moments with fused multiply-adds: fma(g - m, 1 - b1, m), fma(g*g, 1 - b2, v*b2)."""

    def moments(self, m, v, g, s):
        one = F32(1)
        m1 = fma_f32(g - m, one - s["beta1"], m)
        v1 = fma_f32(g * g, one - s["beta2"], v * s["beta2"])
        return m1, v1


class _Bf16TiesToEven:
    bf16_half_away = False


class _FaithfulByValue:
    """sqrt, pow and division faithful, the other neighbour chosen by the operands' values."""

    def sqrt(self, x):
        return faithful_sqrt(x)

    def power(self, base, exponent):
        return faithful_power(base, exponent) if (int(np.float32(exponent)) & 1) else super().power(base, exponent)

    def divide(self, a, b):
        return faithful_quotient(a, b)


def _unfused_golden_moments(kernel, m, v, g, s):
    """The golden's lerp and addcmul without fusing: two roundings each."""
    one = F32(1)
    w = one - s["beta1"]
    m1 = m + w * (g - m) if abs(w) < 0.5 else g + (w - one) * (g - m)
    v1 = v * s["beta2"] + ((one - s["beta2"]) * g) * g
    return m1, v1


class OtherChipOrderV2(V2KernelMutant):
    """Each product computes in the other chip generation's kernel order: Ascend 950's order on
    A2/A3 and A2/A3's on 950 (the rounding of each product's final cast kept)."""

    name = "control-v2-other-chip-order"
    defect = "none: the A2/A3 kernel's order on Ascend 950 and the 950 kernel's on A2/A3"

    def kernel_for(self, arch: str | None):
        base = AdamWV2Kernel if arch == "arch35" else Arch35Kernel
        half_away = arch != "arch35"
        return type(f"OtherOrder{base.__name__}", (base,), {"bf16_half_away": half_away})()


class _Bf16TiesAwayEverywhere:
    """bfloat16 ties away from zero in every route of A2/A3, the Cast operator's too."""

    def cast(self, x, dtype, in_kernel):
        return super().cast(x, dtype, True)


class Bf16TiesAwayV2(V2KernelMutant):
    name = "control-v2-bf16-ties-away-a2-a3"
    defect = "none: A2/A3 bfloat16 outputs ties away from zero also after the cast-to-float32 route"
    swap = _Bf16TiesAwayEverywhere

    def kernel_for(self, arch: str | None):
        return super().kernel_for(arch) if arch != "arch35" else Arch35Kernel()


class _AllFreedoms(_FaithfulByValue, _Fused):
    """Faithful sqrt, pow and division by value, fused moments, reciprocal scalars."""


FaithfulArithmeticV2 = V2KernelMutant.declare(
    "FaithfulArithmeticV2", name="control-v2-faithful-sqrt-pow-div",
    defect="none: every sqrt, pow and division one ulp off, on the exact value's side (faithful)",
    swap=_Faithful)
FusedMomentsV2 = V2KernelMutant.declare(
    "FusedMomentsV2", name="control-v2-fused-moments",
    defect="none: the moments' last multiply-add fused (one rounding)", swap=_Fused)
Bf16TiesToEvenV2 = V2KernelMutant.declare(
    "Bf16TiesToEvenV2", name="control-v2-bf16-ties-to-even",
    defect="none: A2/A3 bfloat16 outputs rounded ties to even (CAST_ROUND's tie direction is open)",
    swap=_Bf16TiesToEven)
FaithfulByValueV2 = V2KernelMutant.declare(
    "FaithfulByValueV2", name="control-v2-faithful-by-value",
    defect="none: sqrt, pow and division faithful, the other neighbour for a value-chosen half",
    swap=_FaithfulByValue)
ReciprocalDivisionV2 = V2KernelMutant.declare(
    "ReciprocalDivisionV2", name="control-v2-reciprocal-division",
    defect="none: every division a times the float32 reciprocal of b",
    steps={"divide": lambda kernel, a, b: reciprocal_quotient(a, b)})
UnfusedGoldenMomentsV2 = V2KernelMutant.declare(
    "UnfusedGoldenMomentsV2", name="control-v2-unfused-golden-moments",
    defect="none: the golden's lerp and addcmul with the multiply and the add rounded apart",
    steps={"moments": _unfused_golden_moments})
AllModelFreedomsV2 = V2KernelMutant.declare(
    "AllModelFreedomsV2", name="control-v2-all-model-freedoms",
    defect="none: faithful sqrt, pow and division, fused moments, each chip's order, together",
    swap=_AllFreedoms)


class TorchFusedAdamWV2(Mutant):
    """torch's fused AdamW (``torch._fused_adamw_``, what torch.optim.AdamW(fused=True) runs) on the
    calls whose semantics it shares: one dtype for var, m, v, grad (and maxGradNorm), t = step + 1
    passed as its state step; every other call goes to the emulator."""

    op = OP
    name = "control-v2-torch-fused-adamw"
    defect = "none: torch._fused_adamw_ on the calls it can express"

    @classmethod
    def unavailable(cls) -> str:
        try:
            import torch
        except ImportError:
            return "torch is not installed"
        return "" if hasattr(torch, "_fused_adamw_") else "this torch has no _fused_adamw_"

    def mutate(self, case: Case, product: str) -> RunResult:
        result = self.emulate(case, product)
        if result.status != Status.SUCCESS or case.desc("varRef").is_empty() or len(_dtypes(case)) > 1:
            return result
        import torch
        a = case.attrs
        t = {n: torch.from_numpy(np.ascontiguousarray(case.tensor(n).values()).astype(np.float32))
             for n in ("varRef", "mRef", "vRef", "grad") }
        native = case.tensor("varRef").values().dtype
        as_native = {n: (x.to(torch.bfloat16) if str(native) == "bfloat16" else x.to(
            getattr(torch, str(native)))) for n, x in t.items()}
        amsgrad = bool(a["amsgrad"])
        mgn = ([as_native.setdefault("mgn", torch.from_numpy(np.ascontiguousarray(
            case.tensor(MAX_GRAD_NORM).values()).astype(np.float32)).to(as_native["varRef"].dtype))]
               if amsgrad else [])
        step = torch.tensor([float(np.float32(case.tensor("step").values().reshape(-1)[0])) + 1.0])
        # the API's C floats, passed as the doubles torch takes (their values unchanged)
        hp = {k: float(np.float32(a[k])) for k in ("lr", "beta1", "beta2", "weightDecay", "eps")}
        torch._fused_adamw_([as_native["varRef"]], [as_native["grad"]], [as_native["mRef"]],
                            [as_native["vRef"]], mgn, [step], lr=hp["lr"], beta1=hp["beta1"],
                            beta2=hp["beta2"], weight_decay=hp["weightDecay"], eps=hp["eps"],
                            amsgrad=amsgrad, maximize=bool(a["maximize"]))
        storages = copied(result)
        outputs = {"varRef": as_native["varRef"], "mRef": as_native["mRef"], "vRef": as_native["vRef"]}
        if amsgrad:
            outputs[MAX_GRAD_NORM] = as_native["mgn"]
        for name, values in outputs.items():
            arg = case.tensor(name)
            arg.view_of(storages[name])[...] = values.to(torch.float32).numpy().astype(
                storages[name].dtype).reshape(arg.desc.shape)
        return replace_result(result, storages=storages)


# ---- value mutants ----

class _DecayAfter:
    def update(self, var, m, v, mgn, grad, step, hp, amsgrad, maximize):
        one = F32(1)
        plain = dict(hp, weightDecay=F32(0))
        var1, m1, v1, mgn1 = super().update(var, m, v, mgn, grad, step, plain, amsgrad, maximize)
        with np.errstate(all="ignore"):
            return var1 * (one - hp["lr"] * hp["weightDecay"]), m1, v1, mgn1


class _MaxIntoV:
    def update(self, var, m, v, mgn, grad, step, hp, amsgrad, maximize):
        var1, m1, v1, mgn1 = super().update(var, m, v, mgn, grad, step, hp, amsgrad, maximize)
        return var1, m1, (mgn1 if amsgrad else v1), mgn1


class _Bf16Truncated:
    def cast(self, x, dtype, in_kernel):
        if np.dtype(dtype) == np.dtype(np.float32) or np.dtype(dtype) == np.dtype(np.float16):
            return super().cast(x, dtype, in_kernel)
        bits = np.ascontiguousarray(x, dtype=F32).view(np.uint32) >> 16
        return bits.astype(np.uint16).view(dtype)


class _EpsBeforeCorrection:
    def parameter(self, p, m1, vv, s):
        corrected = dict(s, eps=F32(0))
        with np.errstate(all="ignore"):
            # (sqrt(v) + eps)/sqrt(1 - beta2^t): eps scaled up with the bias correction
            stretched = (self.sqrt(vv) + s["eps"]) ** 2
        return super().parameter(p, m1, stretched, corrected)


class _MgnAlwaysMaxed:
    def second_moment_used(self, mgn, v1, amsgrad):
        if mgn is None:
            return super().second_moment_used(mgn, v1, amsgrad)
        vv = np.maximum(mgn, v1)
        return (vv if amsgrad else v1), vv


class _DecayOnlyPositive:
    def decay(self, var, s):
        return super().decay(var, s) if s["weightDecay"] > 0 else var


class V2Bf16TiesAwayOn950(V2KernelMutant):
    name = "mutant-v2-bf16-ties-away-on-950"
    defect = "Ascend 950 bfloat16 outputs rounded ties away from zero (A2/A3's CAST_ROUND) instead of to even"
    killed_by = ("AAWV2-VAL-009",)
    killing_products_wanted = 1          # the defect exists on Ascend 950 only

    def kernel_for(self, arch: str | None):
        kernel = super().kernel_for(arch)
        if arch == "arch35":
            kernel.bf16_half_away = True
        return kernel


V2DecayAfterStep = V2KernelMutant.declare(
    "V2DecayAfterStep", name="mutant-v2-decay-after-step",
    defect="weight decay applied after the Adam step, (θ + Δ)·(1 - lr·wd), as ApplyAdamWQuant does",
    killed_by=("AAWV2-VAL-004",), swap=_DecayAfter)
V2TimeStepIsStep = V2KernelMutant.declare(
    "V2TimeStepIsStep", name="mutant-v2-t-equals-step",
    defect="t = step (the document's reading) instead of step + 1", killed_by=("AAWV2-VAL-003",),
    steps={"time_step": lambda kernel, step: F32(step)})
V2AmsgradMaxIntoV = V2KernelMutant.declare(
    "V2AmsgradMaxIntoV", name="mutant-v2-amsgrad-max-into-v",
    defect="amsgrad writes max(maxGradNorm, v') into vRef (ApplyAdamW's document) instead of v'",
    killed_by=("AAWV2-VAL-005",), swap=_MaxIntoV)
V2MaximizeIgnored = V2KernelMutant.declare(
    "V2MaximizeIgnored", name="mutant-v2-maximize-ignored", defect="maximize never negates the gradient",
    killed_by=("AAWV2-VAL-007",), steps={"signed_grad": lambda kernel, g, maximize: g})
V2HyperParametersInDouble = V2KernelMutant.declare(
    "V2HyperParametersInDouble", name="mutant-v2-hyper-parameters-double",
    defect="lr, betas, wd and eps used as the caller's doubles, not the C floats the API receives",
    killed_by=("AAWV2-VAL-011",),
    steps={"hyper_parameters": lambda kernel, scalars: {k: np.float64(float(scalars[k])) for k in (
               "lr", "beta1", "beta2", "weightDecay", "eps")},
           "power": lambda kernel, base, exponent: np.float64(base) ** np.float64(exponent)})
V2Bf16Truncated = V2KernelMutant.declare(
    "V2Bf16Truncated", name="mutant-v2-bf16-truncated",
    defect="bfloat16 outputs truncated (the upper 16 bits) instead of rounded to nearest",
    killed_by=("AAWV2-VAL-009",), swap=_Bf16Truncated)
V2EpsBeforeCorrection = V2KernelMutant.declare(
    "V2EpsBeforeCorrection", name="mutant-v2-eps-before-bias-correction",
    defect="eps added to sqrt(v) before the division by sqrt(1 - beta2^t)", killed_by=("AAWV2-VAL-002",),
    swap=_EpsBeforeCorrection)
V2MaxGradNormWrittenWithoutAmsgrad = V2KernelMutant.declare(
    "V2MaxGradNormWrittenWithoutAmsgrad", name="mutant-v2-max-grad-norm-updated-without-amsgrad",
    defect="a given maxGradNorm is updated with max(maxGradNorm, v') also when amsgrad is false",
    killed_by=("AAWV2-VAL-006",), swap=_MgnAlwaysMaxed)
V2StepAsInt32 = V2KernelMutant.declare(
    "V2StepAsInt32", name="mutant-v2-step-int32",
    defect="the INT64 step read as a 32-bit integer (steps past 2^31 wrap negative)",
    killed_by=("AAWV2-VAL-003", "AAWV2-VAL-010"),
    steps={"time_step": lambda kernel, step: F32(np.int64(step).astype(np.int32)) + F32(1)})
V2DecaySkippedWhenNonpositive = V2KernelMutant.declare(
    "V2DecaySkippedWhenNonpositive", name="mutant-v2-decay-only-positive-wd",
    defect="weight decay skipped when weightDecay <= 0 (ApplyAdamWQuant's guard)", killed_by=("AAWV2-VAL-004",),
    swap=_DecayOnlyPositive)


class V2VarTwoUlpsUp(VarTwoUlpsUpMutant, V2Mutant):
    name = "mutant-v2-var-two-ulps-up"
    killed_by = ("AAWV2-VAL-018",)


# ---- the lerp branch: equivalent under the arithmetic model ----

def _lerp_on_signed_weight(kernel, m, v, g, s):
    """torch's lerp, with the branch chosen on w < 0.5 instead of |w| < 0.5."""
    one = F32(1)
    w = one - s["beta1"]
    d = g - m
    m1 = fma_f32(w, d, m) if w < 0.5 else fma_f32(w - one, d, g)
    v1 = fma_f32((one - s["beta2"]) * g, g, v * s["beta2"])
    return m1, v1


V2LerpBranchOnW = V2KernelMutant.declare(
    "V2LerpBranchOnW", name="mutant-v2-lerp-branch-on-w",
    defect="torch's lerp branch tested on w = 1 - beta1 instead of |w| (differs only for beta1 >= 1.5)",
    killed_by=("AAWV2-VAL-001",), steps={"moments": _lerp_on_signed_weight},
    equivalent=("both branches evaluate m + w*(g - m) with one fused rounding; for beta1 >= 1.5 they "
                "differ by the rounding of g - m, a few ulps of |g| + |m|, inside the model's bound"))


# ---- check mutants ----

def _dtypes(case: Case) -> set:
    return {case.desc(n).dtype for n in ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad")
            if case.desc(n) is not None}


V2MixedDtypesRejected = V2Mutant.declare(
    "V2MixedDtypesRejected", name="mutant-v2-mixed-dtypes-rejected",
    defect="a call whose float tensors' dtypes differ is rejected with 161002 (the document's constraint)",
    killed_by=("AAWV2-VAL-008",),
    refuses=lambda case, product: len(_dtypes(case)) > 1 and case.desc("varRef") is not None,
    refusal=(Status.ERR_PARAM_INVALID, "dtypes differ"))


class V2MaxGradNormNullUnchecked(V2Mutant):
    name = "mutant-v2-max-grad-norm-null-unchecked"
    defect = "a NULL maxGradNorm with amsgrad is not rejected: the call runs as if amsgrad were false"
    killed_by = ("AAWV2-NULL-004",)

    def mutate(self, case, product):
        if case.tensor(MAX_GRAD_NORM) is None and case.attrs.get("amsgrad"):
            return self.emulate(case.with_attrs(amsgrad=False), product)
        return self.emulate(case, product)


class V2MaxGradNormShapeOnlyWithAmsgrad(V2Mutant):
    name = "mutant-v2-max-grad-norm-shape-only-with-amsgrad"
    defect = "maxGradNorm's shape checked only with amsgrad (the document's sentence), not whenever given"
    killed_by = ("AAWV2-SHAPE-004",)

    def mutate(self, case, product):
        mgn, var = case.desc(MAX_GRAD_NORM), case.desc("varRef")
        if (not case.attrs.get("amsgrad") and mgn is not None and var is not None
                and mgn.shape != var.shape):
            return RunResult(Status.SUCCESS, case.copy_storages(), 0, "Execute", "")
        return self.emulate(case, product)


V2Bf16RejectedOnA2 = V2Mutant.declare(
    "V2Bf16RejectedOnA2", name="mutant-v2-bf16-rejected",
    defect="BFLOAT16 rejected with 161002 on every product (the DAV_1001 dtype list everywhere)",
    killed_by=("AAWV2-VAL-009", "AAWV2-DTYPE-002"),
    refuses=lambda case, product: DT.BF16 in _dtypes(case) and case.desc("varRef") is not None,
    refusal=(Status.ERR_PARAM_INVALID, "BFLOAT16 not supported"))


class V2EmptyVarLaunched(V2Mutant):
    name = "mutant-v2-empty-var-launched"
    defect = "an empty var is launched like any call: products without the kernel fail it"
    killed_by = ("AAWV2-VAL-013",)

    def mutate(self, case, product):
        var = case.desc("varRef")
        if var is not None and var.is_empty() and chip(product).arch is None:
            result = self.emulate(case, product)
            if result.status == Status.SUCCESS:
                return RunResult(int(Status.ERR_INNER_FIND_KERNEL_ERROR), case.copy_storages(), 0, "Execute",
                                 f"{self.name}: no kernel")
            return result
        return self.emulate(case, product)


V2_MUTANTS = (
    V2DecaySkippedWhenNonpositive, V2Bf16TiesAwayOn950, V2VarTwoUlpsUp, V2DecayAfterStep, V2TimeStepIsStep, V2AmsgradMaxIntoV, V2MaximizeIgnored, V2HyperParametersInDouble,
    V2Bf16Truncated, V2EpsBeforeCorrection, V2MaxGradNormWrittenWithoutAmsgrad, V2StepAsInt32,
    V2MixedDtypesRejected, V2MaxGradNormNullUnchecked, V2MaxGradNormShapeOnlyWithAmsgrad,
    V2Bf16RejectedOnA2, V2EmptyVarLaunched,
)
V2_EQUIVALENT = (V2LerpBranchOnW,)
V2_GAPS: tuple = ()
V2_CONTROLS = (UnmutatedV2Kernel, FaithfulArithmeticV2, FusedMomentsV2, Bf16TiesToEvenV2, FaithfulByValueV2,
               ReciprocalDivisionV2, UnfusedGoldenMomentsV2, OtherChipOrderV2, Bf16TiesAwayV2,
               AllModelFreedomsV2, TorchFusedAdamWV2)

__all__ = [c.__name__ for c in V2_MUTANTS + V2_EQUIVALENT + V2_GAPS + V2_CONTROLS] + [
    "V2_MUTANTS", "V2_EQUIVALENT", "V2_GAPS", "V2_CONTROLS", "V2KernelMutant"]

MUTANT_SET = MutantSet(mutants=V2_MUTANTS, controls=V2_CONTROLS, equivalent=V2_EQUIVALENT,
                       gaps=V2_GAPS)
