"""aclnnApplyAdamW in torch: validation in the op_api's order, then torch.optim.AdamW's own
single-tensor update on float32 tensors, with the beta powers the caller passes.

Validation (first failure wins), on every product alike (the op_api checks no SoC):
  1. NULL varRef, mRef, vRef, beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps, grad;
     NULL maxGradNormOptional with amsgrad: 161001.
  2. dtypes of those eleven in the architecture's list (Atlas training: float32, float16; else
     also bfloat16), then equal to varRef's; a given maxGradNorm likewise: 161002.
  3. mRef, vRef, a given maxGradNorm and grad shaped like varRef; the seven hyper-parameter tensors
     one element each: 161002.
  4. varRef empty: success, nothing computed.
  5. only Ascend 950 has the kernel: a call that gets this far fails at launch elsewhere (561103).

Arithmetic, as torch.optim.AdamW (``_single_tensor_adamw``) writes it, in float32 tensors:
  param.mul_(1 - lr*wd); exp_avg = exp_avg*beta1 + grad*(1 - beta1);
  exp_avg_sq = exp_avg_sq*beta2 + (grad*grad)*(1 - beta2);
  bias_correction1 = 1 - beta1Power*beta1; bias_correction2 = 1 - beta2Power*beta2;
  max_exp_avg_sq = maximum(maxGradNorm, exp_avg_sq) (amsgrad; the denominator's only);
  denom = sqrt(max_or_exp_avg_sq)/sqrt(bias_correction2) + eps;
  param = param - (lr/bias_correction1)*(exp_avg/denom).
torch's ``exp_avg.lerp_`` is replaced by the multiply-add it stands for (its rounding of
1 - (1 - beta1) is not the contract's). Outputs are cast to var's dtype (nearest even).
"""
from __future__ import annotations

import torch

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.torch_backend._tensors import as_torch, numel, view
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import Status

REQUIRED = ("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1",
            "beta2", "eps", "grad")
HYPER = REQUIRED[3:10]
MGN = "maxGradNormOptional"
KERNEL_PRODUCTS = frozenset({"ascend950"})
FLOAT_DTYPES = {DT.FLOAT: torch.float32, DT.FLOAT16: torch.float16, DT.BF16: torch.bfloat16}


class _Reject(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)


def _validate(case: Case, product: str) -> bool:
    """Raise _Reject for the first failing check; return True for an empty varRef."""
    t = case.tensors
    amsgrad = bool(case.attrs.get("amsgrad", False))
    for name in REQUIRED:
        if t[name] is None:
            raise _Reject(Status.ERR_PARAM_NULLPTR, f"{name} is a null pointer")
    if amsgrad and t[MGN] is None:
        raise _Reject(Status.ERR_PARAM_NULLPTR, "amsgrad without maxGradNormOptional")
    allowed = {DT.FLOAT, DT.FLOAT16} if product == "atlas-training" else set(FLOAT_DTYPES)
    given = [n for n in (*REQUIRED, MGN) if t[n] is not None]
    for name in REQUIRED:
        if t[name].desc.dtype not in allowed:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} dtype {t[name].desc.dtype.name}")
    var_dtype = t["varRef"].desc.dtype
    for name in given:
        if t[name].desc.dtype != var_dtype:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} dtype differs from varRef")
    shape = tuple(t["varRef"].desc.shape)
    for name in ("mRef", "vRef", MGN, "grad"):
        if t[name] is not None and tuple(t[name].desc.shape) != shape:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} shape differs from varRef")
    if any(numel(t[name]) != 1 for name in HYPER):
        raise _Reject(Status.ERR_PARAM_INVALID, "a hyper-parameter is not one element")
    if numel(t["varRef"]) == 0:
        return True
    if product not in KERNEL_PRODUCTS:
        raise _Reject(Status.ERR_INNER_NULLPTR, f"no ApplyAdamW kernel on {product}")
    return False


def _adamw(views: dict[str, torch.Tensor], amsgrad: bool, maximize: bool) -> dict[str, torch.Tensor]:
    f32 = {n: v.to(torch.float32) for n, v in views.items() if v is not None}
    h = {n: f32[n].reshape(-1)[0] for n in HYPER}
    lr, wd, beta1, beta2, eps = h["lr"], h["weightDecay"], h["beta1"], h["beta2"], h["eps"]
    one = torch.ones((), dtype=torch.float32)
    grad = -f32["grad"] if maximize else f32["grad"]
    param = f32["varRef"].mul(one - lr * wd)
    exp_avg = f32["mRef"].mul(beta1).add(grad.mul(one - beta1))
    exp_avg_sq = f32["vRef"].mul(beta2).add(grad.mul(grad).mul(one - beta2))
    bias_correction1 = one - h["beta1Power"] * beta1
    bias_correction2 = one - h["beta2Power"] * beta2
    second = torch.maximum(f32[MGN], exp_avg_sq) if amsgrad else exp_avg_sq
    denom = second.sqrt().div(bias_correction2.sqrt()).add(eps)
    param = param.sub((lr / bias_correction1).mul(exp_avg.div(denom)))
    dtype = views["varRef"].dtype
    return {"varRef": param.to(dtype), "mRef": exp_avg.to(dtype), "vRef": exp_avg_sq.to(dtype)}


def run(case: Case, product: str) -> RunResult:
    storages = case.copy_storages()
    try:
        empty = _validate(case, product)
    except _Reject as rej:
        # no kernel: the op_api's checks passed and returned 0, the launch fails
        phase = "Execute" if rej.status == Status.ERR_INNER_NULLPTR else "GetWorkspaceSize"
        return RunResult(rej.status, storages, phase=phase, message=str(rej))
    if empty:
        return RunResult(Status.SUCCESS, storages, workspace_size=0)
    names = [n for n in (*REQUIRED, MGN) if case.tensors[n] is not None]
    views = {n: view(case.tensors[n], as_torch(storages[n])) for n in names}
    views.setdefault(MGN, None)
    new = _adamw(views, bool(case.attrs.get("amsgrad", False)), bool(case.attrs.get("maximize", False)))
    for name, values in new.items():
        views[name].copy_(values)
    return RunResult(Status.SUCCESS, storages, workspace_size=0)
