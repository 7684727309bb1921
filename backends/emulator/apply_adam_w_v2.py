"""aclnnApplyAdamWV2 in the emulator: the hand-written op_api layer, the runtime's launcher and the
A2/A3 and Ascend 950 kernels' arithmetic (notes apply_adam_w.md sections 4, 5.2, 5.3, 6.2).

GetWorkspaceSize, in the op_api's order:

1. NULL varRef, mRef, vRef; maxGradNormOptionalRef NULL with amsgrad; NULL grad, step -> 161001;
2. dtypes: var, m, v, maxGradNorm (when given), grad in the NPU architecture's list (FLOAT, FLOAT16,
   and BFLOAT16 on DAV_2201/DAV_3510 only), step FLOAT or INT64 -> 161002; nothing compares the
   tensors' dtypes with each other;
3. view shapes of m, v, maxGradNorm (when given), grad equal to var's; step of one element -> 161002;
4. var empty: success, workspace 0, nothing launched;
5. the launcher: kernel lookup and tiling; a failure there is only logged, phase one returns 0 and
   phase two fails (no kernel for the SoC: 561003). Workspace: the tilings' 16 MiB system workspace.

No format check, no rank check. The out-pointers are written without a check (NULL: the emulator
returns 561103 instead of crashing; the spec does not judge it).

Dtype routing: one dtype for every tensor -> the native kernel; var/m/v FLOAT with grad FLOAT16 or
BFLOAT16 and maxGradNorm absent or in grad's dtype -> the native mixed kernel; anything else -> every
tensor cast to FLOAT, the FLOAT kernel, each result cast back to its own tensor's dtype (the Cast
operator, to nearest even). Inside the kernels: fp16 outputs CAST_RINT; bf16 outputs CAST_ROUND
(half away from zero, the AscendC RoundMode page) on A2/A3, CAST_RINT on 950.

Arithmetic in float32, beta^t computed in float64 and rounded once (the device's vector Power is a
third implementation; this is the emulator's documented choice):
  A2/A3: t = float(step) + 1; bc1 = 1 - b1^t; r = 1/sqrt(1 - b2^t); ss = lr/bc1; p = var*(1 - lr*wd);
         m1 = (g - m)*(1 - b1) + m; v1 = v*b2 + (g*g)*(1 - b2); vv = max(maxGradNorm, v1) with
         amsgrad; var' = p - (m1/(sqrt(vv)*r + eps))*ss.
  950:   m1 = m*b1 - g*(b1 - 1); v1 = v*b2 - (g*g)*(b2 - 1);
         var' = var*(1 - lr*wd) + (lr/(b1^t - 1))*(m1/(sqrt(vv)/sqrt(1 - b2^t) + eps)).
"""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, RawTensor
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import (ARITH_DTYPE, FirstPhase, LaunchFailure, OpExecutor, Reject,
                                                          first_phase, is_empty, read_view, view_numel,
                                                          write_view)
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

API = "aclnnApplyAdamWV2"
MGN = "maxGradNormOptionalRef"
SYSTEM_WORKSPACE = 16 * 1024 * 1024
F32 = np.float32
_BF16 = np.dtype(ml_dtypes.bfloat16)


def dtype_list(gen: ChipGeneration) -> tuple[int, ...]:
    """The op_api's dtype list for the product's NPU architecture."""
    if gen.arch in ("arch22", "arch35"):
        return (DT.FLOAT, DT.FLOAT16, DT.BF16)
    return (DT.FLOAT, DT.FLOAT16)


# ---- GetWorkspaceSize ----

def get_workspace_size(raw: RawCall, gen: ChipGeneration, kernel: "AdamWV2Kernel | None" = None) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen, kernel))


def _validate_and_bind(raw: RawCall, gen: ChipGeneration, kernel) -> OpExecutor:
    t = raw.tensors()
    s = raw.scalars()
    amsgrad, maximize = bool(s["amsgrad"]), bool(s["maximize"])
    for name in ("varRef", "mRef", "vRef"):
        if t[name] is None:
            raise Reject(Status.ERR_PARAM_NULLPTR, f"{name} is nullptr")
    if t[MGN] is None and amsgrad:
        raise Reject(Status.ERR_PARAM_NULLPTR, "maxGradNormOptionalRef is nullptr while amsgrad is true")
    for name in ("grad", "step"):
        if t[name] is None:
            raise Reject(Status.ERR_PARAM_NULLPTR, f"{name} is nullptr")
    allowed = dtype_list(gen)
    for name in ("varRef", "mRef", "vRef", MGN, "grad"):
        if t[name] is not None and t[name].dtype not in allowed:
            raise Reject(Status.ERR_PARAM_INVALID, f"{name} dtype {_name(t[name].dtype)} not in the "
                                                   f"supported list {[_name(d) for d in allowed]}")
    if t["step"].dtype not in (DT.FLOAT, DT.INT64):
        raise Reject(Status.ERR_PARAM_INVALID, f"step dtype {_name(t['step'].dtype)} not FLOAT or INT64")
    var_dims = tuple(t["varRef"].view_dims)
    for name in ("mRef", "vRef", MGN, "grad"):
        if t[name] is not None and tuple(t[name].view_dims) != var_dims:
            raise Reject(Status.ERR_PARAM_INVALID, f"{name} shape {list(t[name].view_dims)} differs from "
                                                   f"varRef {list(var_dims)}")
    if view_numel(t["step"]) != 1:
        raise Reject(Status.ERR_PARAM_INVALID, f"step has {view_numel(t['step'])} elements, 1 required")
    if raw.null_workspace_size or raw.null_executor:
        raise Reject(Status.ERR_INNER_NULLPTR, "workspaceSize or executor is nullptr")
    if is_empty(t["varRef"]):
        return OpExecutor(API)
    if gen.arch is None:
        # the launcher is added although the kernel lookup failed; the launch reports it
        return OpExecutor(API, [lambda: _no_kernel(gen.product)])
    chosen = kernel or (ARCH35 if gen.arch == "arch35" else ARCH22)
    return OpExecutor(API, [lambda: _launch(t, s, chosen, amsgrad, maximize)],
                      workspace_size=SYSTEM_WORKSPACE)


def _no_kernel(product: str) -> None:
    raise LaunchFailure(Status.ERR_INNER_FIND_KERNEL_ERROR, f"no kernel for the SoC of {product}")


def _name(dtype: int) -> str:
    try:
        return DT(dtype).name
    except ValueError:
        return str(dtype)


# ---- the kernels ----

def pow_f32(base: np.float32, exponent: np.float32) -> np.float32:
    """base**exponent computed in float64 and rounded once to float32."""
    try:
        return F32(math.pow(float(base), float(exponent)))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return F32(np.power(np.float64(base), np.float64(exponent)))


def _cast_half_away_bf16(x: np.ndarray) -> np.ndarray:
    """CAST_ROUND to bfloat16: add half of the dropped part's range to the magnitude, then truncate."""
    bits = np.ascontiguousarray(x, dtype=F32).view(np.uint32)
    sign = bits & np.uint32(0x80000000)
    mag = (bits & np.uint32(0x7FFFFFFF)).astype(np.uint64) + 0x8000
    out = ((mag >> 16).astype(np.uint32) | (sign >> 16)).astype(np.uint16).view(ml_dtypes.bfloat16)
    return np.where(np.isnan(x), np.asarray(x).astype(_BF16), out)


class AdamWV2Kernel:
    """The A2/A3 kernels, one method per step, so that a variant can swap a single step."""

    bf16_half_away = True

    def hyper_parameters(self, scalars) -> dict:
        """The C float arguments."""
        return {k: F32(float(scalars[k])) for k in ("lr", "beta1", "beta2", "weightDecay", "eps")}

    def time_step(self, step: np.float32) -> np.float32:
        return F32(step) + F32(1)

    # the operations the arithmetic model lets a correct device round faithfully
    def power(self, base, exponent):
        return pow_f32(base, exponent)

    def sqrt(self, x):
        return np.sqrt(x)

    def divide(self, a, b):
        return a / b

    def scalars(self, hp: dict, step: np.float32) -> dict:
        one = F32(1)
        with np.errstate(all="ignore"):
            t = self.time_step(step)
            bc1 = one - self.power(hp["beta1"], t)
            bc2 = one - self.power(hp["beta2"], t)
            return dict(hp, t=t, ss=self.divide(hp["lr"], bc1), r=self.divide(one, self.sqrt(bc2)), bc2=bc2,
                        wdf=one - hp["lr"] * hp["weightDecay"])

    def signed_grad(self, g, maximize: bool):
        return -g if maximize else g

    def decay(self, var, s):
        return var * s["wdf"]

    def moments(self, m, v, g, s):
        one = F32(1)
        m1 = (g - m) * (one - s["beta1"]) + m
        v1 = v * s["beta2"] + (g * g) * (one - s["beta2"])
        return m1, v1

    def second_moment_used(self, mgn, v1, amsgrad: bool):
        """(the second moment in the denominator, the maxGradNorm to write or None)."""
        if not amsgrad:
            return v1, None
        vv = np.maximum(mgn, v1)
        return vv, vv

    def parameter(self, p, m1, vv, s):
        denom = self.sqrt(vv) * s["r"] + s["eps"]
        return p - self.divide(m1, denom) * s["ss"]

    def update(self, var, m, v, mgn, grad, step, hp: dict, amsgrad: bool, maximize: bool):
        """float32 arrays in, float32 results out: (var', m', v', maxGradNorm' or None)."""
        s = self.scalars(hp, step)
        with np.errstate(all="ignore"):
            g = self.signed_grad(grad, maximize)
            p = self.decay(var, s)
            m1, v1 = self.moments(m, v, g, s)
            vv, mgn_out = self.second_moment_used(mgn, v1, amsgrad)
            return self.parameter(p, m1, vv, s), m1, v1, mgn_out

    def cast(self, x: np.ndarray, dtype: np.dtype, in_kernel: bool) -> np.ndarray:
        """A result to its tensor's dtype: inside the kernel (CAST_RINT, bf16 per chip) or by the
        Cast operator after the float32 kernel (nearest even)."""
        with np.errstate(all="ignore"):
            if dtype == _BF16 and in_kernel and self.bf16_half_away:
                return _cast_half_away_bf16(x)
            return np.asarray(x, dtype=F32).astype(dtype)


class Arch35Kernel(AdamWV2Kernel):
    """The Ascend 950 kernel: its own orders, every output CAST_RINT."""

    bf16_half_away = False

    def moments(self, m, v, g, s):
        one = F32(1)
        m1 = m * s["beta1"] - g * (s["beta1"] - one)
        v1 = v * s["beta2"] - (g * g) * (s["beta2"] - one)
        return m1, v1

    def scalars(self, hp: dict, step: np.float32) -> dict:
        one = F32(1)
        with np.errstate(all="ignore"):
            t = self.time_step(step)
            p1 = self.power(hp["beta1"], t)
            bc2 = one - self.power(hp["beta2"], t)
            return dict(hp, t=t, step_size=self.divide(hp["lr"], p1 - one), s2=self.sqrt(bc2), bc2=bc2,
                        wdf=one - hp["lr"] * hp["weightDecay"])

    def parameter(self, p, m1, vv, s):
        denom = self.divide(self.sqrt(vv), s["s2"]) + s["eps"]
        return p + s["step_size"] * self.divide(m1, denom)


ARCH22 = AdamWV2Kernel()
ARCH35 = Arch35Kernel()


def _step_f32(t: RawTensor) -> np.float32:
    """INT64 cast to float (to nearest even), FLOAT read as it is."""
    value = read_view(t, ARITH_DTYPE[t.dtype]).reshape(-1)[0]
    return F32(value)


def in_kernel_route(dtypes: dict[str, np.dtype]) -> bool:
    """Whether the call runs a native kernel (one dtype, or the native mixed combination) rather
    than the cast-to-float32 route."""
    given = {n: d for n, d in dtypes.items() if d is not None}
    if len(set(given.values())) == 1:
        return True
    f32 = np.dtype(F32)
    return (all(given[n] == f32 for n in ("varRef", "mRef", "vRef")) and given["grad"] != f32
            and given.get(MGN, given["grad"]) == given["grad"])


def _launch(t: dict[str, RawTensor | None], scalars, kernel: AdamWV2Kernel, amsgrad: bool,
            maximize: bool) -> None:
    names = ("varRef", "mRef", "vRef", MGN, "grad")
    dtypes = {n: (None if t[n] is None else ARITH_DTYPE[t[n].dtype]) for n in names}
    vals = {n: (None if t[n] is None else read_view(t[n], dtypes[n]).astype(F32)) for n in names}
    var1, m1, v1, mgn1 = kernel.update(vals["varRef"], vals["mRef"], vals["vRef"], vals[MGN], vals["grad"],
                                       _step_f32(t["step"]), kernel.hyper_parameters(scalars), amsgrad,
                                       maximize)
    native = in_kernel_route(dtypes)
    results = {"varRef": var1, "mRef": m1, "vRef": v1}
    if t[MGN] is not None:
        results[MGN] = mgn1 if mgn1 is not None else vals[MGN]
    for name, x in results.items():
        if name == MGN and mgn1 is None:
            write_view(t[name], read_view(t[name], dtypes[name]), dtypes[name])   # ViewCopy of the input
            continue
        write_view(t[name], kernel.cast(x, dtypes[name], native).reshape(t[name].view_dims), dtypes[name])
