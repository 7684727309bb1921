"""Mutants and controls of aclnnApplyAdamW.

Value mutants swap one step of the emulator's own kernel (``ApplyAdamWKernel``); check mutants change
what the first phase accepts. Most defects come from the notes (apply_adam_w.md 5.4, 6.1, 9): the
document's literal readings (amsgrad's maximum stored in vRef, maxGradNorm checked only with
amsgrad, scalar tensors of shape [1] only, ND only), the sibling ApplyAdamWQuant's habits (decay after
the step and only for wd > 0), a caller convention confused (beta powers taken as beta^t), the
16-bit hyper-parameters read through a float32 pointer, bf16 truncated by a cast without rounding.

Controls are correct variants the arithmetic model allows (another vendor order, fused
multiply-adds): they must pass every case.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator.apply_adam_w import F32, HYPER, ApplyAdamWKernel
from aclnn_conformance.backends.mutants.faithful_arithmetic import (faithful_quotient, faithful_sqrt,
                                                                  reciprocal_quotient)
from aclnn_conformance.backends.mutants.base import (KernelVariantMutant, Mutant, MutantSet, StridesIgnoredMutant,
                                                    VarTwoUlpsUpMutant, copied, replace_result, write_view_flat)
from aclnn_conformance.spec.apply_adam_w import MAX_GRAD_NORM, OP, SCALARS
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status


def recompute(case: Case, result: RunResult, kernel: ApplyAdamWKernel) -> RunResult:
    """``result`` (a successful emulator call of ``case``) with the outputs ``kernel`` computes."""
    if result.status != 0 or case.desc("varRef").is_empty():
        return result
    vals = {n: (None if a is None else a.values()) for n, a in case.tensors.items()}
    var, m, v = kernel.update(vals["varRef"], vals["mRef"], vals["vRef"], {k: vals[k] for k in HYPER},
                              vals["grad"], vals[MAX_GRAD_NORM], bool(case.attrs.get("amsgrad")),
                              bool(case.attrs.get("maximize")))
    storages = copied(result)
    for name, values in (("varRef", var), ("mRef", m), ("vRef", v)):
        write_view_flat(case.tensor(name), storages[name], values)
    return replace_result(result, storages=storages)


class V1Mutant(Mutant):
    """A defect of ApplyAdamW: three distinct single calls must fail it (its values are computed on
    Ascend 950 only, the one product with a kernel)."""

    op = OP
    killing_cases_wanted = 3


class V1KernelMutant(KernelVariantMutant, V1Mutant):
    """Outputs computed by ``kernel`` (the emulator's arithmetic, one step swapped); statuses are the
    emulator's."""

    kernel: ApplyAdamWKernel = ApplyAdamWKernel()
    recompute = staticmethod(recompute)


# ---- controls: legal variants ----

class _GoldenOrder(ApplyAdamWKernel):
    def moments(self, m, v, g, s):
        one = F32(1)
        return m * s["beta1"] - (s["beta1"] - one) * g, v * s["beta2"] - ((s["beta2"] - one) * g) * g

    def denominator(self, vv, s):
        return np.sqrt(vv / (F32(1) - s["beta2Power"] * s["beta2"])) + s["eps"]

    def adam_step(self, m1, denom, s):
        return (s["lr"] * (m1 / (s["beta1Power"] * s["beta1"] - F32(1)))) / denom


class _ExperimentalA2Order(ApplyAdamWKernel):
    """The experimental A2 kernel: 1 - beta factors, scalar factors computed once."""

    def moments(self, m, v, g, s):
        one = F32(1)
        return m * s["beta1"] + g * (one - s["beta1"]), v * s["beta2"] + (g * g) * (one - s["beta2"])

    def denominator(self, vv, s):
        r = F32(1) / (F32(1) - s["beta2Power"] * s["beta2"])
        return np.sqrt(vv * r) + s["eps"]

    def adam_step(self, m1, denom, s):
        return (m1 / denom) * (s["lr"] / (s["beta1Power"] * s["beta1"] - F32(1)))


def _fma32(a, b, c) -> np.ndarray:
    """a*b + c with the product exact (float64) and one rounding to float32."""
    return (np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)).astype(F32)


def _fused_decayed_sum(kernel: ApplyAdamWKernel, var, m1, denom, s):
    return _fma32(var, F32(1) - s["lr"] * s["weightDecay"], kernel.adam_step(m1, denom, s))


def _fused_moments(kernel: ApplyAdamWKernel, m, v, g, s):
    one = F32(1)
    m1 = _fma32(-g, s["beta1"] - one, m * s["beta1"])
    v1 = _fma32(-(g * g), s["beta2"] - one, v * s["beta2"])
    return m1, v1


class _AllFreedoms(_ExperimentalA2Order):
    """The experimental A2 kernel's order, fused moments and decayed sum, faithful sqrt and
    reciprocals by value."""

    def moments(self, m, v, g, s):
        one = F32(1)
        return (_fma32(g, one - s["beta1"], m * s["beta1"]),
                _fma32(g * g, one - s["beta2"], v * s["beta2"]))

    def denominator(self, vv, s):
        r = faithful_quotient(F32(1), F32(1) - s["beta2Power"] * s["beta2"])
        return faithful_sqrt(vv * r) + s["eps"]

    def adam_step(self, m1, denom, s):
        return faithful_quotient(m1, denom) * faithful_quotient(s["lr"], s["beta1Power"] * s["beta1"] - F32(1))

    parameter = _fused_decayed_sum


V1UnmutatedKernel = V1KernelMutant.declare(
    "V1UnmutatedKernel", name="emulator-apply-adam-w-kernel-variant",
    defect="none: the emulator's arithmetic step by step")
V1GoldenOrder = V1KernelMutant.declare(
    "V1GoldenOrder", name="control-apply-adam-w-golden-order",
    defect="none: the vendor golden's order of operations instead of the 950 kernel's", kernel=_GoldenOrder())
V1ExperimentalA2Order = V1KernelMutant.declare(
    "V1ExperimentalA2Order", name="control-apply-adam-w-a2-kernel-order",
    defect="none: the experimental A2 kernel's order (reciprocal of 1 - beta2^t, scalar step factor)",
    kernel=_ExperimentalA2Order())
V1FusedMultiplyAdd = V1KernelMutant.declare(
    "V1FusedMultiplyAdd", name="control-apply-adam-w-fused-multiply-add",
    defect="none: the moments and the decayed sum as fused multiply-adds",
    steps={"moments": _fused_moments, "parameter": _fused_decayed_sum})
V1FaithfulByValue = V1KernelMutant.declare(
    "V1FaithfulByValue", name="control-apply-adam-w-faithful-by-value",
    defect="none: sqrt and every division faithful, the other neighbour for a value-chosen half",
    # the 950 kernel's order with every sqrt and division faithful
    steps={"denominator": lambda kernel, vv, s: faithful_sqrt(
               faithful_quotient(-vv, s["beta2Power"] * s["beta2"] - F32(1))) + s["eps"],
           "adam_step": lambda kernel, m1, denom, s: faithful_quotient(
               faithful_quotient(s["lr"], s["beta1Power"] * s["beta1"] - F32(1)) * m1, denom)})
V1ReciprocalDivision = V1KernelMutant.declare(
    "V1ReciprocalDivision", name="control-apply-adam-w-reciprocal-division",
    defect="none: every division a times the float32 reciprocal of the divisor",
    steps={"denominator": lambda kernel, vv, s: np.sqrt(
               reciprocal_quotient(-vv, s["beta2Power"] * s["beta2"] - F32(1))) + s["eps"],
           "adam_step": lambda kernel, m1, denom, s: reciprocal_quotient(
               reciprocal_quotient(s["lr"], s["beta1Power"] * s["beta1"] - F32(1)) * m1, denom)})
V1AllModelFreedoms = V1KernelMutant.declare(
    "V1AllModelFreedoms", name="control-apply-adam-w-all-model-freedoms",
    defect="none: the A2 kernel's order, fused multiply-adds, faithful sqrt and division, together",
    kernel=_AllFreedoms())

V1_CONTROLS = (V1UnmutatedKernel, V1GoldenOrder, V1ExperimentalA2Order, V1FusedMultiplyAdd,
               V1FaithfulByValue, V1ReciprocalDivision, V1AllModelFreedoms)


# ---- value mutants ----

def _powers_as_beta_t(kernel: ApplyAdamWKernel, values):
    s = ApplyAdamWKernel.hyper_parameters(kernel, values)
    # beta1Power/beta2Power taken as beta^t: the kernel's extra multiply undone
    s["beta1Power"], s["beta2Power"] = s["beta1Power"] / s["beta1"], s["beta2Power"] / s["beta2"]
    return s


def _hyper_parameters_as_float32(kernel: ApplyAdamWKernel, values):
    out = {}
    for k in HYPER:
        raw = np.ascontiguousarray(np.asarray(values[k]).reshape(-1)[:1])
        if raw.dtype.itemsize == 2:   # the 16-bit pattern read as the low half of a float32
            out[k] = raw.view(np.uint16).astype(np.uint32).view(F32)[0]
        else:
            out[k] = F32(raw[0])
    return out


def _bf16_truncated(kernel: ApplyAdamWKernel, x, dtype):
    if np.dtype(dtype).itemsize == 2 and np.dtype(dtype) != np.dtype(np.float16):
        bits = np.ascontiguousarray(np.asarray(x, F32)).view(np.uint32)
        return (bits >> 16).astype(np.uint16).view(dtype)
    return ApplyAdamWKernel.cast(kernel, x, dtype)


def _nonfinite_grad_skipped(kernel: ApplyAdamWKernel, var, m, v, hyper, grad, mgn, amsgrad, maximize):
    bad = ~np.isfinite(np.asarray(grad, F32))
    out = ApplyAdamWKernel.update(kernel, var, m, v, hyper, np.where(bad, 0, grad).astype(grad.dtype), mgn,
                                  amsgrad, maximize)
    return tuple(np.where(bad, old, new) for old, new in zip((var, m, v), out))


def _update_from_rounded_moments(kernel: ApplyAdamWKernel, var, m, v, hyper, grad, mgn, amsgrad, maximize):
    dtype = var.dtype
    if dtype == np.dtype(F32):
        return ApplyAdamWKernel.update(kernel, var, m, v, hyper, grad, mgn, amsgrad, maximize)
    s = kernel.hyper_parameters(hyper)
    f = lambda a: None if a is None else np.asarray(a).astype(F32)   # noqa: E731
    with np.errstate(all="ignore"):
        g = kernel.gradient(f(grad), maximize)
        m1, v1 = kernel.moments(f(m), f(v), g, s)
        # the moments rounded to var's dtype first, the update computed from those
        m1, v1 = (kernel.cast(x, dtype).astype(F32) for x in (m1, v1))
        vv = kernel.second_moment(v1, f(mgn), amsgrad)
        var_new = kernel.parameter(f(var), m1, kernel.denominator(vv, s), s)
    return kernel.cast(var_new, dtype), kernel.cast(m1, dtype), kernel.cast(v1, dtype)


V1DecayAfterStep = V1KernelMutant.declare(
    "V1DecayAfterStep", name="mutant-apply-adam-w-decay-after-step",
    defect="weight decay applied after the Adam step: (theta + delta)*(1 - lr*wd)", killed_by=("AAW-VAL-005",),
    steps={"parameter": lambda kernel, var, m1, denom, s: kernel.decayed(var + kernel.adam_step(m1, denom, s), s)})
V1DecaySkippedWhenNonpositive = V1KernelMutant.declare(
    "V1DecaySkippedWhenNonpositive", name="mutant-apply-adam-w-decay-only-positive-wd",
    defect="weight decay skipped when weightDecay <= 0 (ApplyAdamWQuant's guard)", killed_by=("AAW-VAL-005",),
    steps={"decayed": lambda kernel, var, s: (
        ApplyAdamWKernel.decayed(kernel, var, s) if s["weightDecay"] > 0 else var)})
V1PowersAsBetaT = V1KernelMutant.declare(
    "V1PowersAsBetaT", name="mutant-apply-adam-w-powers-as-beta-t",
    defect="beta1Power/beta2Power used as beta^t (no multiply by beta): the wrong caller convention",
    killed_by=("AAW-VAL-003",), steps={"hyper_parameters": _powers_as_beta_t})
V1AmsgradMaxIntoV = V1KernelMutant.declare(
    "V1AmsgradMaxIntoV", name="mutant-apply-adam-w-amsgrad-max-into-v",
    defect="amsgrad's max(maxGradNorm, v) written into vRef (the document's literal reading)",
    killed_by=("AAW-VAL-006",), steps={"stored_v": lambda kernel, v1, vv: vv})
V1MaximizeIgnored = V1KernelMutant.declare(
    "V1MaximizeIgnored", name="mutant-apply-adam-w-maximize-ignored",
    defect="maximize ignored: grad never negated", killed_by=("AAW-VAL-001",),
    steps={"gradient": lambda kernel, grad, maximize: grad})
V1HyperParametersAsFloat32 = V1KernelMutant.declare(
    "V1HyperParametersAsFloat32", name="mutant-apply-adam-w-hyper-parameters-read-as-float32",
    defect="fp16/bf16 hyper-parameter tensors read through a float32 pointer instead of their dtype",
    killed_by=("AAW-VAL-008",), steps={"hyper_parameters": _hyper_parameters_as_float32})
V1Bf16Truncated = V1KernelMutant.declare(
    "V1Bf16Truncated", name="mutant-apply-adam-w-bf16-truncated",
    defect="bf16 outputs truncated (upper 16 bits) instead of rounded to nearest even", killed_by=("AAW-VAL-008",),
    steps={"cast": _bf16_truncated})
V1EpsInsideSqrt = V1KernelMutant.declare(
    "V1EpsInsideSqrt", name="mutant-apply-adam-w-eps-inside-sqrt",
    defect="eps added under the square root: sqrt(v_hat + eps)", killed_by=("AAW-VAL-004",),
    steps={"denominator": lambda kernel, vv, s: np.sqrt(
        (-vv) / (s["beta2Power"] * s["beta2"] - F32(1)) + s["eps"])})
V1NoBiasCorrection = V1KernelMutant.declare(
    "V1NoBiasCorrection", name="mutant-apply-adam-w-no-bias-correction",
    defect="no bias correction: m and v used without dividing by 1 - beta^t", killed_by=("AAW-VAL-004",),
    steps={"denominator": lambda kernel, vv, s: np.sqrt(vv) + s["eps"],
           "adam_step": lambda kernel, m1, denom, s: -(s["lr"] * m1) / denom})
V1NanGradSkipped = V1KernelMutant.declare(
    "V1NanGradSkipped", name="mutant-apply-adam-w-nonfinite-grad-skipped",
    defect="elements with a NaN/Inf grad left unchanged instead of propagated", killed_by=("AAW-VAL-009",),
    steps={"update": _nonfinite_grad_skipped})
V1UpdateFromRoundedMoments = V1KernelMutant.declare(
    "V1UpdateFromRoundedMoments", name="mutant-apply-adam-w-update-from-rounded-moments",
    defect="fp16/bf16: the var update computed from m and v already rounded to the dtype",
    killed_by=("AAW-VAL-008",), steps={"update": _update_from_rounded_moments})


class V1VarTwoUlpsUp(VarTwoUlpsUpMutant, V1Mutant):
    name = "mutant-apply-adam-w-var-two-ulps-up"
    killed_by = ("AAW-VAL-016",)


# ---- the first phase ----

class V1NullMaxGradNormAccepted(V1Mutant):
    name = "mutant-apply-adam-w-null-max-grad-norm-accepted"
    defect = "no null check of maxGradNorm with amsgrad: run as amsgrad false"
    killed_by = ("AAW-NULL-012",)

    def mutate(self, case, product):
        if case.attrs.get("amsgrad") and case.tensor(MAX_GRAD_NORM) is None:
            return self.run_as(case, case.with_attrs(amsgrad=False), product)
        return self.emulate(case, product)


class V1MaxGradNormCheckedOnlyWithAmsgrad(V1Mutant):
    name = "mutant-apply-adam-w-max-grad-norm-unchecked-without-amsgrad"
    defect = "maxGradNorm's dtype and shape checked only when amsgrad is true (the document's reading)"
    killed_by = ("AAW-DTYPE-024", "AAW-SHAPE-004")

    def mutate(self, case, product):
        if not case.attrs.get("amsgrad") and case.tensor(MAX_GRAD_NORM) is not None:
            return self.run_as(case, case.with_tensor(MAX_GRAD_NORM, None), product)
        return self.emulate(case, product)


V1ScalarShapeStrict = V1Mutant.declare(
    "V1ScalarShapeStrict", name="mutant-apply-adam-w-scalar-shape-1-only",
    defect="hyper-parameter tensors of any shape but [1] rejected with 161002", killed_by=("AAW-VAL-012",),
    refuses=lambda case, product: any(case.tensor(n) is not None and case.desc(n).shape != (1,)
                                      for n in SCALARS),
    refusal=(Status.ERR_PARAM_INVALID, "hyper-parameter shape is not [1]"))
V1FormatChecked = V1Mutant.declare(
    "V1FormatChecked", name="mutant-apply-adam-w-format-nd-only",
    defect="tensors of a format other than ND rejected with 161002", killed_by=("AAW-VAL-013",),
    refuses=lambda case, product: any(a is not None and a.desc.format != F.ND
                                      for a in case.tensors.values()),
    refusal=(Status.ERR_PARAM_INVALID, "format is not ND"))


class V1WrongProductAccepted(V1Mutant):
    name = "mutant-apply-adam-w-runs-on-every-product"
    defect = "a valid call computed on products without the kernel, as on Ascend 950"
    killed_by = ("AAW-PRODUCT-002",)

    def mutate(self, case, product):
        result = self.emulate(case, product)
        if result.status == Status.ERR_INNER_NULLPTR and result.phase == "Execute":
            return self.emulate(case, "ascend950")
        return result


class V1SocCheckedInFirstPhase(V1Mutant):
    name = "mutant-apply-adam-w-soc-rejected-in-first-phase"
    defect = "a valid call on Atlas A2/A3 rejected by GetWorkspaceSize (an op_api SoC check the source has not)"
    killed_by = ("AAW-PRODUCT-002",)
    killing_products_wanted = 2

    def mutate(self, case, product):
        result = self.emulate(case, product)
        if product in ("atlas-a2", "atlas-a3") and result.phase == "Execute" and result.status != 0:
            return self.reject(case, result.status, "no ApplyAdamW on this SoC")
        return result


class V1StridesIgnored(StridesIgnoredMutant, V1Mutant):
    op = OP
    name = "mutant-apply-adam-w-strides-ignored"
    killed_by = ("AAW-VAL-011",)


V1_MUTANTS = (
    V1UpdateFromRoundedMoments, V1VarTwoUlpsUp, V1DecayAfterStep, V1DecaySkippedWhenNonpositive, V1PowersAsBetaT, V1AmsgradMaxIntoV,
    V1MaximizeIgnored, V1HyperParametersAsFloat32, V1Bf16Truncated, V1EpsInsideSqrt,
    V1NoBiasCorrection, V1NanGradSkipped, V1NullMaxGradNormAccepted,
    V1MaxGradNormCheckedOnlyWithAmsgrad, V1ScalarShapeStrict, V1FormatChecked,
    V1WrongProductAccepted, V1SocCheckedInFirstPhase, V1StridesIgnored,
)

__all__ = [c.__name__ for c in V1_MUTANTS + V1_CONTROLS] + ["V1_MUTANTS", "V1_CONTROLS",
                                                            "V1KernelMutant", "recompute"]

MUTANT_SET = MutantSet(mutants=V1_MUTANTS, controls=V1_CONTROLS)
