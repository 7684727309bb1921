"""aclnnApplyAdamWQuant in torch: validation in the vendor's order, then the 8-bit blockwise AdamW
step in float32 torch operations.

Validation (first failure wins), per product:
  1. product: Atlas A2, Atlas A3 and Ascend 950 have the operator; elsewhere 561000.
  2. null tensors in parameter order, then a null executor / workspaceSize: 161001.
  3. dtype and format of every tensor (one of the three dtype combinations; ND, or NCL, NCDHW,
     NHWC, NCHW, which the runtime takes as ND): 161002.
  4. every output empty: success with nothing launched.
  5. tiling: blockSize 256; grad, m, v shaped exactly like var; qmapM 256 elements and qmapV shaped
     like qmapM; on Ascend 950 only, ceil(n/256) entries in each absmax; step of shape [1]. 561002.
  6. var empty while another output is not: no block to tile, 561002.
  Atlas A2/A3 never compare the absmax counts: missing entries are read as 0 and not written.

Arithmetic (every line one float32 rounding, in this order):
  attributes rounded from double to float32; t = float32(step) + 1; beta^t computed in float64 and
  rounded once to float32; c1 = 1 - beta1^t; c2 = sqrt(1 - beta2^t); step_size = (-lr*c2)/c1;
  eps_c2 = eps*c2; wd_factor = 1 - lr*wd.
  Per element of block k: g = grad*gnormScale; m0 = qmapM[m]*absmaxM[k]; v0 = qmapV[v]*absmaxV[k];
  m1 = m0*beta1 + g*(1-beta1); v1 = v0*beta2 + (g*g)*(1-beta2);
  p = var + (m1*step_size)/(sqrt(v1) + eps_c2); p = p*wd_factor when wd > 0; var = p rounded once.
  Per block (the last may be partial): absmaxM = max|m1|, absmaxV = max v1; the new codes are the
  nearest qmap entries to m1/absmaxM and v1/absmaxV (a zero absmax divides by 1), the lowest index
  on a tie, NaN to code 0; when a qmap has negative entries a code whose entry has the opposite
  sign of the value moves one step towards the value's sign.
"""
from __future__ import annotations

import math

import torch

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.torch_backend._tensors import as_torch, numel, view
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import ND_LIKE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

BLOCK = 256
QMAP_SIZE = 256
PRODUCTS = frozenset({"atlas-a2", "atlas-a3", "ascend950"})
ABSMAX_COUNT_CHECKED = frozenset({"ascend950"})

TENSORS = ("varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef", "absmaxVRef", "step")
OUTPUTS = ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef")
VAR_DTYPES = {DT.FLOAT: torch.float32, DT.FLOAT16: torch.float16, DT.BF16: torch.bfloat16}
OTHER_DTYPES = {"mRef": DT.UINT8, "vRef": DT.UINT8, "qmapM": DT.FLOAT, "qmapV": DT.FLOAT,
                "absmaxMRef": DT.FLOAT, "absmaxVRef": DT.FLOAT, "step": DT.INT64}
# The operator definition's attribute defaults (used when a call leaves one out).
ATTR_DEFAULTS = {"lr": 0.001, "beta1": 0.9, "beta2": 0.999, "weightDecay": 1.0, "eps": 1e-8,
                 "gnormScale": 1.0, "blockSize": 256}

# Elements per step of the exhaustive nearest-code search (a [chunk, 256] float32 distance table).
_ARGMIN_CHUNK = 4096


class _Reject(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = int(status)


# ---- validation ----

def _validate(case: Case, product: str) -> bool:
    """Raise _Reject for the first failing check; return True when every output is empty (the
    call then succeeds without computing)."""
    if product not in PRODUCTS:
        raise _Reject(Status.ERR_INNER, f"aclnnApplyAdamWQuant has no kernel for {product}")
    t = case.tensors
    for name in TENSORS:
        if t[name] is None:
            raise _Reject(Status.ERR_PARAM_NULLPTR, f"{name} is a null pointer")
    if "executor" in case.null_outputs:
        raise _Reject(Status.ERR_PARAM_NULLPTR, "executor is a null pointer")
    if "workspaceSize" in case.null_outputs:
        raise _Reject(Status.ERR_PARAM_NULLPTR, "workspaceSize is a null pointer")

    var_dtype = t["varRef"].desc.dtype
    if var_dtype not in VAR_DTYPES:
        raise _Reject(Status.ERR_PARAM_INVALID, f"varRef dtype {var_dtype.name} is not supported")
    if t["grad"].desc.dtype != var_dtype:
        raise _Reject(Status.ERR_PARAM_INVALID,
                      f"grad dtype {t['grad'].desc.dtype.name} differs from varRef {var_dtype.name}")
    for name, dtype in OTHER_DTYPES.items():
        if t[name].desc.dtype != dtype:
            raise _Reject(Status.ERR_PARAM_INVALID,
                          f"{name} dtype {t[name].desc.dtype.name}, expected {dtype.name}")
    for name in TENSORS:
        fmt = t[name].desc.format
        if fmt != F.ND and fmt not in ND_LIKE_FORMATS:
            raise _Reject(Status.ERR_PARAM_INVALID, f"{name} format {fmt.name}, expected ND or ND-like")

    if all(numel(t[name]) == 0 for name in OUTPUTS):
        return True

    if int(case.attrs.get("blockSize", ATTR_DEFAULTS["blockSize"])) != BLOCK:
        raise _Reject(Status.ERR_INNER_TILING_ERROR, f"blockSize must be {BLOCK}")
    var_shape = tuple(t["varRef"].desc.shape)
    for name in ("grad", "mRef", "vRef"):
        if tuple(t[name].desc.shape) != var_shape:
            raise _Reject(Status.ERR_INNER_TILING_ERROR,
                          f"{name} shape {list(t[name].desc.shape)} differs from varRef {list(var_shape)}")
    if numel(t["qmapM"]) != QMAP_SIZE:
        raise _Reject(Status.ERR_INNER_TILING_ERROR, f"qmapM must have {QMAP_SIZE} elements")
    if tuple(t["qmapV"].desc.shape) != tuple(t["qmapM"].desc.shape):
        raise _Reject(Status.ERR_INNER_TILING_ERROR, "qmapV shape differs from qmapM")
    if product in ABSMAX_COUNT_CHECKED:
        blocks = -(-math.prod(var_shape) // BLOCK)
        for name in ("absmaxMRef", "absmaxVRef"):
            if numel(t[name]) != blocks:
                raise _Reject(Status.ERR_INNER_TILING_ERROR,
                              f"{name} has {numel(t[name])} elements, expected ceil(n/{BLOCK}) = {blocks}")
    if tuple(t["step"].desc.shape) != (1,):
        raise _Reject(Status.ERR_INNER_TILING_ERROR, "step must have shape [1]")
    if numel(t["varRef"]) == 0:
        raise _Reject(Status.ERR_INNER_TILING_ERROR, "varRef is empty while another output is not")
    return False


# ---- nearest code ----

def _argmin_codes(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """The definition: the first index of the smallest float32 distance |x - q[j]| (a NaN distance
    counts as the smallest, as an argmin over floats does)."""
    out = torch.empty(x.numel(), dtype=torch.int64)
    for s in range(0, x.numel(), _ARGMIN_CHUNK):
        xs = x[s:s + _ARGMIN_CHUNK]
        out[s:s + _ARGMIN_CHUNK] = torch.argmin((xs[:, None] - q[None, :]).abs(), dim=1)
    return out


def nearest_codes(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Index of the qmap entry nearest to each float32 ``x`` (1-D): the lowest index of the smallest
    float32 distance; NaN gives 0. Exact for every x and every qmap; fast for a non-decreasing
    finite qmap.

    For such a qmap let K = #{j: q[j] <= x}. The float32 distances fall (weakly) up to K-1 and rise
    (weakly) from K, so the minimum is at K-1 or K. K wins only when strictly nearer. Otherwise
    the answer is K-1 unless the distance to K-2 rounds to the same float32, which the exhaustive
    search settles for those few elements.
    """
    x, q = x.contiguous(), q.contiguous()
    if bool(torch.isfinite(q).all()) and bool((q[1:] >= q[:-1]).all()):
        k = torch.searchsorted(q, x, right=True)
        lo = (k - 1).clamp(min=0)
        hi = k.clamp(max=q.numel() - 1)
        d_lo = (x - q[lo]).abs()
        d_hi = (x - q[hi]).abs()
        code = torch.where(d_hi < d_lo, hi, lo)
        prev = (lo - 1).clamp(min=0)
        unsettled = (code == lo) & (lo > 0) & ((x - q[prev]).abs() == d_lo)
        if bool(unsettled.any()):
            code[unsettled] = _argmin_codes(x[unsettled], q)
    else:
        code = _argmin_codes(x, q)
    code[torch.isnan(x)] = 0
    return code


def _sign_fixed(x: torch.Tensor, code: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """Move a code whose entry has the strictly opposite sign of x one step towards x's sign."""
    if not bool((q < 0).any()):
        return code
    flip = (x * q[code]) < 0
    step = torch.where(x > 0, 1, -1)
    return torch.where(flip, (code + step).clamp(0, q.numel() - 1), code)


# ---- the step ----

def _f32(value) -> torch.Tensor:
    """A 0-d float32 tensor; a Python float (a C double) is rounded to nearest even."""
    return torch.tensor(float(value), dtype=torch.float64).to(torch.float32)


def sqrt_f32(x: torch.Tensor) -> torch.Tensor:
    """The correctly rounded float32 square root of float32 ``x``.

    ``torch.sqrt`` on the CPU is not correctly rounded in every build (with MKL it differs from
    the IEEE result by one ulp for a sizeable fraction of float32 inputs), so the result is taken
    from float64 and then settled exactly: r is the float32 nearest to sqrt(x) iff x lies between
    the squares of the midpoints to r's neighbours. Those midpoints have 25 significant bits, so
    their squares are exact in float64, and no float32 x equals one (no ties).
    """
    r = torch.sqrt(x.to(torch.float64)).to(torch.float32)
    inf = torch.tensor(float("inf"), dtype=torch.float32)
    up, down = torch.nextafter(r, inf), torch.nextafter(r, -inf)
    r64, x64 = r.to(torch.float64), x.to(torch.float64)
    mid_up = (r64 + up.to(torch.float64)) * 0.5
    mid_down = (r64 + down.to(torch.float64)) * 0.5
    positive = (x > 0) & torch.isfinite(x)
    r = torch.where(positive & (x64 > mid_up * mid_up), up, r)
    return torch.where(positive & (x64 < mid_down * mid_down), down, r)


def _pow_f32(base: torch.Tensor, exponent: torch.Tensor) -> torch.Tensor:
    """base^exponent for float32 operands, computed in float64 and rounded once to float32."""
    return torch.pow(base.to(torch.float64), exponent.to(torch.float64)).to(torch.float32)


def _scalars(case: Case, step: torch.Tensor) -> dict[str, torch.Tensor]:
    a = {k: case.attrs.get(k, d) for k, d in ATTR_DEFAULTS.items()}
    lr, b1, b2, wd, eps, gs = (_f32(a[k]) for k in ("lr", "beta1", "beta2", "weightDecay", "eps",
                                                   "gnormScale"))
    one = _f32(1.0)
    t = step.reshape(()).to(torch.int64).to(torch.float32) + one
    c1 = one - _pow_f32(b1, t)
    c2 = sqrt_f32(one - _pow_f32(b2, t))
    return {"b1": b1, "b2": b2, "gs": gs, "wd": wd, "one_minus_b1": one - b1, "one_minus_b2": one - b2,
            "step_size": (-lr * c2) / c1, "eps_c2": eps * c2, "wd_factor": one - lr * wd}


def _compute(case: Case, views: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The new logical values of every output (each shaped like its view)."""
    var = views["varRef"]
    n = var.numel()
    blocks = -(-n // BLOCK)
    padded = blocks * BLOCK
    qm = views["qmapM"].reshape(-1).to(torch.float32).contiguous()
    qv = views["qmapV"].reshape(-1).to(torch.float32).contiguous()

    def per_block(name: str) -> torch.Tensor:
        """The first ``blocks`` absmax entries (missing ones, possible where the count is not
        checked, read as 0)."""
        have = views[name].reshape(-1)[:blocks].to(torch.float32)
        return torch.cat([have, have.new_zeros(blocks - have.numel())])

    def flat_padded(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
        flat = t.reshape(-1).to(dtype)
        return torch.cat([flat, flat.new_zeros(padded - n)]).reshape(blocks, BLOCK)

    s = _scalars(case, views["step"])
    var32 = flat_padded(var, torch.float32)
    grad32 = flat_padded(views["grad"], torch.float32)
    m_code = flat_padded(views["mRef"], torch.int64)
    v_code = flat_padded(views["vRef"], torch.int64)
    m0 = qm[m_code] * per_block("absmaxMRef")[:, None]
    v0 = qv[v_code] * per_block("absmaxVRef")[:, None]

    g = grad32 * s["gs"]
    m1 = (m0 * s["b1"]) + (g * s["one_minus_b1"])
    v1 = (v0 * s["b2"]) + ((g * g) * s["one_minus_b2"])
    den = sqrt_f32(v1) + s["eps_c2"]
    p = var32 + (m1 * s["step_size"]) / den
    if bool(s["wd"] > 0):
        p = p * s["wd_factor"]
    var_new = p.reshape(-1)[:n].to(var.dtype)   # one round-to-nearest-even to the var dtype

    valid = (torch.arange(padded) < n).reshape(blocks, BLOCK)
    neg_inf = torch.tensor(float("-inf"), dtype=torch.float32)
    absmax_m = torch.where(valid, m1.abs(), neg_inf).amax(dim=1)
    absmax_v = torch.where(valid, v1, neg_inf).amax(dim=1)
    one = _f32(1.0)
    xm = (m1 / torch.where(absmax_m == 0, one, absmax_m)[:, None]).reshape(-1)[:n]
    xv = (v1 / torch.where(absmax_v == 0, one, absmax_v)[:, None]).reshape(-1)[:n]
    m_new = _sign_fixed(xm, nearest_codes(xm, qm), qm)
    v_new = _sign_fixed(xv, nearest_codes(xv, qv), qv)

    def absmax_out(name: str, computed: torch.Tensor) -> torch.Tensor:
        old = views[name].reshape(-1).clone()
        k = min(blocks, old.numel())
        old[:k] = computed[:k]
        return old.reshape(views[name].shape)

    shape = var.shape
    return {"varRef": var_new.reshape(shape),
            "mRef": m_new.to(torch.uint8).reshape(shape),
            "vRef": v_new.to(torch.uint8).reshape(shape),
            "absmaxMRef": absmax_out("absmaxMRef", absmax_m),
            "absmaxVRef": absmax_out("absmaxVRef", absmax_v)}


def run(case: Case, product: str) -> RunResult:
    storages = case.copy_storages()
    try:
        all_empty = _validate(case, product)
    except _Reject as rej:
        return RunResult(rej.status, storages, message=str(rej))
    if all_empty:
        return RunResult(Status.SUCCESS, storages, workspace_size=0,
                         message="every output is empty: nothing launched")
    flat = {name: as_torch(storages[name]) for name in TENSORS}
    views = {name: view(case.tensors[name], flat[name]) for name in TENSORS}
    new = _compute(case, views)
    for name in OUTPUTS:
        views[name].copy_(new[name])     # writes the view's elements of the storage copy only
    return RunResult(Status.SUCCESS, storages, workspace_size=0)
