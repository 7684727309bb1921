"""aclnnApplyAdamWV2 in torch: validation in the vendor's order, then torch.optim.AdamW's own
single-tensor formulas in float32.

Validation (first failure wins), on every product (the op_api checks no SoC):
  1. null varRef, mRef, vRef; null maxGradNormOptionalRef with amsgrad; null grad, step: 161001.
  2. var, m, v, maxGradNorm (when given), grad: FLOAT, FLOAT16, and BFLOAT16 where the NPU
     architecture has it (Atlas A2, A3, Ascend 950); step FLOAT or INT64: 161002.
  3. m, v, maxGradNorm (when given), grad shaped like var; step of one element: 161002.
  4. empty var: success, nothing launched.
  5. a product without the operator's kernel: 561003 (the launch fails).

Arithmetic, as torch.optim.AdamW (single tensor, decoupled weight decay) writes it, every tensor
up-cast to float32 and the hyper-parameters the C floats the API receives:
  param.mul_(1 - lr*wd); exp_avg.lerp_(grad, 1 - beta1); exp_avg_sq.mul_(beta2).addcmul_(grad, grad,
  value=1 - beta2); with t = float32(step) + 1: bias_correction1 = 1 - beta1**t,
  bias_correction2 = 1 - beta2**t (Python floats); amsgrad: torch.maximum(max_exp_avg_sq, exp_avg_sq);
  denom = (sqrt(v)/sqrt(bias_correction2)).add_(eps); param.addcdiv_(exp_avg, denom,
  value=-lr/bias_correction1). maximize negates grad first. Each result is cast to its own tensor's
  dtype (torch's .to, nearest even); maxGradNorm is written only with amsgrad.
"""
from __future__ import annotations

import math

import numpy as np
import torch

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.torch_backend._tensors import as_torch, numel, view
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

MGN = "maxGradNormOptionalRef"
TENSORS = ("varRef", "mRef", "vRef", MGN, "grad", "step")
FLOATS = ("varRef", "mRef", "vRef", MGN, "grad")
KERNEL_PRODUCTS = frozenset({"atlas-a2", "atlas-a3", "ascend950"})
TORCH_DTYPES = {DT.FLOAT: torch.float32, DT.FLOAT16: torch.float16, DT.BF16: torch.bfloat16}


class _Reject(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)


def _validate(case: Case, product: str) -> bool:
    """Raise _Reject for the first failing check; return True when var is empty."""
    t = case.tensors
    amsgrad = bool(case.attrs["amsgrad"])
    for name in ("varRef", "mRef", "vRef", MGN, "grad", "step"):
        if t[name] is None and (name != MGN or amsgrad):
            raise _Reject(Status.ERR_PARAM_NULLPTR, f"{name} is a null pointer")
    floats = {DT.FLOAT, DT.FLOAT16} | ({DT.BF16} if product in KERNEL_PRODUCTS else set())
    for name in FLOATS:
        if t[name] is not None and t[name].desc.dtype not in floats:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} dtype {t[name].desc.dtype.name} not supported")
    if t["step"].desc.dtype not in (DT.FLOAT, DT.INT64):
        raise _Reject(Status.ERR_PARAM_INVALID, f"step dtype {t['step'].desc.dtype.name} not supported")
    shape = tuple(t["varRef"].desc.shape)
    for name in ("mRef", "vRef", MGN, "grad"):
        if t[name] is not None and tuple(t[name].desc.shape) != shape:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} shape differs from varRef")
    if numel(t["step"]) != 1:
        raise _Reject(Status.ERR_PARAM_INVALID, "step must hold one element")
    if {"workspaceSize", "executor"} & case.null_outputs:
        raise _Reject(Status.ERR_INNER_NULLPTR, "workspaceSize or executor is a null pointer")
    if numel(t["varRef"]) == 0:
        return True
    if product not in KERNEL_PRODUCTS:
        raise _Reject(Status.ERR_INNER_FIND_KERNEL_ERROR, f"aclnnApplyAdamWV2 has no kernel for {product}")
    return False


def _adamw_step(param, exp_avg, exp_avg_sq, max_exp_avg_sq, grad, t: float, lr: float, beta1: float,
                beta2: float, weight_decay: float, eps: float, amsgrad: bool, maximize: bool) -> None:
    """torch.optim.AdamW's single-tensor update, in place on float32 tensors."""
    if maximize:
        grad = -grad
    param.mul_(1 - lr * weight_decay)
    exp_avg.lerp_(grad, 1 - beta1)
    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
    bias_correction1 = 1 - beta1 ** t
    bias_correction2 = 1 - beta2 ** t
    step_size = lr / bias_correction1 if bias_correction1 else math.inf
    bias_correction2_sqrt = math.sqrt(bias_correction2) if bias_correction2 >= 0 else math.nan
    if amsgrad:
        torch.maximum(max_exp_avg_sq, exp_avg_sq, out=max_exp_avg_sq)
        second = max_exp_avg_sq
    else:
        second = exp_avg_sq
    denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)


def run(case: Case, product: str) -> RunResult:
    storages = case.copy_storages()
    try:
        empty = _validate(case, product)
    except _Reject as rej:
        return RunResult(rej.status, storages, message=str(rej))
    if empty:
        return RunResult(Status.SUCCESS, storages, workspace_size=0, message="var is empty: nothing launched")
    present = [n for n in TENSORS if case.tensors[n] is not None]
    views = {n: view(case.tensors[n], as_torch(storages[n])) for n in present}
    f32 = {n: views[n].to(torch.float32).clone() for n in present if n != "step"}
    a = {k: float(np.float32(case.attrs[k])) for k in ("lr", "beta1", "beta2", "weightDecay", "eps")}
    amsgrad = bool(case.attrs["amsgrad"])
    t = float(views["step"].reshape(-1)[0].to(torch.float32) + 1)
    with torch.no_grad():
        _adamw_step(f32["varRef"], f32["mRef"], f32["vRef"], f32.get(MGN), f32["grad"], t, a["lr"],
                    a["beta1"], a["beta2"], a["weightDecay"], a["eps"], amsgrad, bool(case.attrs["maximize"]))
    written = ("varRef", "mRef", "vRef") + ((MGN,) if amsgrad else ())
    for name in written:
        views[name].copy_(f32[name].to(TORCH_DTYPES[case.tensors[name].desc.dtype]))
    return RunResult(Status.SUCCESS, storages, workspace_size=16 * 1024 * 1024)
