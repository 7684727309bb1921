"""aclnnApplyAdamW in the emulator: the hand-written op_api's checks, the runtime's launcher, and the
Ascend 950 kernel's arithmetic.

GetWorkspaceSize, in the order the op_api runs it (notes apply_adam_w.md section 5.1):

1. NULL varRef, mRef, vRef, beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps, grad, then
   maxGradNorm when amsgrad -> 161001;
2. each of the eleven dtypes in the NPU architecture's list (DAV_1001, Atlas training: FLOAT32 and
   FLOAT16; every other architecture also BFLOAT16), then each equal to varRef's, then a given
   maxGradNorm's (whatever amsgrad) -> 161002;
3. view dims of mRef, vRef, a given maxGradNorm, grad equal to varRef's; each hyper-parameter one
   element -> 161002; no format or rank check;
4. varRef empty: success, workspace 0, nothing launched;
5. the launcher: on Ascend 950 the tiling asks the device for its 16 MiB system workspace (the
   emulator, which needs none, asks for 0 bytes like its other executors); elsewhere there is no
   kernel, the failure is swallowed in phase 1 (success) and the launch fails: 561103 (notes 5.3).

The kernel (notes 6.1, the arch35 DAG), float32 throughout after exact up-casts::

    g = grad*(maximize ? -1 : 1); m1 = m*b1 - g*(b1-1); v1 = v*b2 - (g*g)*(b2-1)
    vv = max(maxGradNorm, v1) if amsgrad else v1
    denom = sqrt((-vv)/(beta2Power*b2 - 1)) + eps
    var' = var*(1 - lr*wd) + ((lr/(beta1Power*b1 - 1))*m1)/denom
    var', m1, v1 cast to var's dtype with CAST_RINT (to nearest even)

Memory: every tensor is read through its view into a contiguous copy; var, m and v are written back
through their views (ViewCopy); maxGradNorm and the inputs are never written.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, RawTensor
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import (ARITH_DTYPE, FirstPhase, LaunchFailure, OpExecutor,
                                                          Reject, first_phase, is_empty, read_view,
                                                          view_numel, write_view)
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

API = "aclnnApplyAdamW"
REQUIRED = ("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1",
            "beta2", "eps", "grad")
HYPER = ("beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps")
MGN = "maxGradNormOptional"
# Products whose SoC has the kernel (the OpDef's AddConfig), and the NPU architecture's dtype list.
KERNEL_PRODUCTS = frozenset({"ascend950"})
_ALL = (DT.FLOAT, DT.FLOAT16, DT.BF16)
ARCH_LIST = {"atlas-training": (DT.FLOAT, DT.FLOAT16)}

F32 = np.float32


def get_workspace_size(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen))


def _name(dtype: int) -> str:
    try:
        return DT(dtype).name
    except ValueError:
        return str(dtype)


def _validate_and_bind(raw: RawCall, gen: ChipGeneration) -> OpExecutor:
    t = raw.tensors()
    scalars = raw.scalars()
    amsgrad, maximize = bool(scalars.get("amsgrad")), bool(scalars.get("maximize"))
    for name in REQUIRED:
        if t[name] is None:
            raise Reject(Status.ERR_PARAM_NULLPTR, f"{name} is nullptr")
    if amsgrad and t[MGN] is None:
        raise Reject(Status.ERR_PARAM_NULLPTR, "maxGradNormOptional is nullptr while amsgrad is true")
    allowed = ARCH_LIST.get(gen.product, _ALL)
    for name in REQUIRED:
        if t[name].dtype not in allowed:
            raise Reject(Status.ERR_PARAM_INVALID, f"{name} dtype {_name(t[name].dtype)} not supported")
    var = t["varRef"]
    for name in REQUIRED[1:]:
        if t[name].dtype != var.dtype:
            raise Reject(Status.ERR_PARAM_INVALID, f"{name} dtype {_name(t[name].dtype)} differs "
                                                   f"from varRef {_name(var.dtype)}")
    mgn = t[MGN]
    if mgn is not None and (mgn.dtype not in allowed or mgn.dtype != var.dtype):
        raise Reject(Status.ERR_PARAM_INVALID, f"maxGradNorm dtype {_name(mgn.dtype)} invalid")
    dims = tuple(var.view_dims)
    for name in ("mRef", "vRef", MGN, "grad"):
        if t[name] is not None and tuple(t[name].view_dims) != dims:
            raise Reject(Status.ERR_PARAM_INVALID, f"{name} shape {list(t[name].view_dims)} differs "
                                                   f"from varRef {list(dims)}")
    if any(view_numel(t[n]) != 1 for n in HYPER):
        raise Reject(Status.ERR_PARAM_INVALID, "a hyper-parameter tensor does not hold one element")
    if is_empty(var):
        return OpExecutor(API)
    if gen.product not in KERNEL_PRODUCTS:
        return OpExecutor(API, [_no_kernel(gen.product)])
    return OpExecutor(API, [lambda: _kernel(t, amsgrad, maximize)])


def _no_kernel(product: str):
    def launch() -> None:
        raise LaunchFailure(Status.ERR_INNER_NULLPTR,
                            f"Failed to execute tiling: no ApplyAdamW kernel for the SoC of {product}")
    return launch


class ApplyAdamWKernel:
    """The Ascend 950 kernel, one method per step, so that a variant can swap a single step."""

    def hyper_parameters(self, values: dict[str, np.ndarray]) -> dict[str, np.float32]:
        """Each one-element tensor up-cast to float32 (exact)."""
        return {k: F32(np.asarray(values[k]).reshape(-1)[0]) for k in HYPER}

    def gradient(self, grad, maximize: bool):
        return grad * (F32(-1) if maximize else F32(1))

    def moments(self, m, v, g, s):
        one = F32(1)
        return m * s["beta1"] - g * (s["beta1"] - one), v * s["beta2"] - (g * g) * (s["beta2"] - one)

    def second_moment(self, v1, mgn, amsgrad: bool):
        return np.maximum(mgn, v1) if amsgrad else v1

    def denominator(self, vv, s):
        return np.sqrt((-vv) / (s["beta2Power"] * s["beta2"] - F32(1))) + s["eps"]

    def decayed(self, var, s):
        return var * (F32(1) - s["lr"] * s["weightDecay"])

    def adam_step(self, m1, denom, s):
        return ((s["lr"] / (s["beta1Power"] * s["beta1"] - F32(1))) * m1) / denom

    def parameter(self, var, m1, denom, s):
        return self.decayed(var, s) + self.adam_step(m1, denom, s)

    def stored_v(self, v1, vv):
        """What vRef receives: the un-maxed v1."""
        return v1

    def cast(self, x, dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            return np.asarray(x).astype(dtype)

    def update(self, var, m, v, hyper: dict[str, np.ndarray], grad, mgn, amsgrad: bool,
               maximize: bool):
        """The kernel on contiguous arrays of var's dtype; returns (var, m, v) in that dtype."""
        dtype = var.dtype
        s = self.hyper_parameters(hyper)
        f = lambda a: None if a is None else np.asarray(a).astype(F32)   # noqa: E731
        with np.errstate(all="ignore"):
            g = self.gradient(f(grad), maximize)
            m1, v1 = self.moments(f(m), f(v), g, s)
            vv = self.second_moment(v1, f(mgn), amsgrad)
            denom = self.denominator(vv, s)
            var_new = self.parameter(f(var), m1, denom, s)
            v_out = self.stored_v(v1, vv)
        return self.cast(var_new, dtype), self.cast(m1, dtype), self.cast(v_out, dtype)


KERNEL = ApplyAdamWKernel()


def _kernel(t: dict[str, RawTensor | None], amsgrad: bool, maximize: bool) -> None:
    dt = ARITH_DTYPE[t["varRef"].dtype]
    read = {n: read_view(t[n], dt) for n in REQUIRED}
    mgn = read_view(t[MGN], dt) if t[MGN] is not None else None
    var, m, v = KERNEL.update(read["varRef"], read["mRef"], read["vRef"],
                              {k: read[k] for k in HYPER}, read["grad"], mgn, amsgrad, maximize)
    for name, values in (("varRef", var), ("mRef", m), ("vRef", v)):
        write_view(t[name], values.reshape(t[name].view_dims), dt)
