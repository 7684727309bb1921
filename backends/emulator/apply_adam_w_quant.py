"""aclnnApplyAdamWQuant in the emulator: the generated aclnn layer, the runtime's checks, the
per-generation tiling checks, and the kernel's arithmetic.

GetWorkspaceSize, in the order the vendor code runs it (notes apply_adam_w_quant.md sections 3 and
10, the runtime):

1. the generated layer: each tensor, in parameter order, NULL -> 161001; then executor NULL -> 161001;
2. the runtime: workspaceSize NULL -> 161001 (the NULL check of NnopbaseRunForWorkspace; the runtime
   can also return success here, when the check sits in NnopbaseMatchArgs); no kernel for the SoC
   -> 561000; the formats NCL, NCDHW, NHWC and NCHW are rewritten to ND, then the (dtype, format)
   tuple of every input and output must be one of the op's three combinations (var = grad in
   FLOAT / FLOAT16 / BF16, m and v UINT8, qmaps and absmax FLOAT, step INT64, all ND) -> 161002;
3. every output empty: success, workspace 0, nothing launched;
4. the tiling (561002) on view shapes: blockSize == 256; var, grad, m, v the same dims; qmapM 256
   elements and qmapV the same dims as qmapM; arch35 numel(absmaxM) == numel(absmaxV) ==
   ceil(numel(var)/256); step of dims [1]; arch22 does not look at absmax at all;
5. after the tiling checks, var empty while another output is not: no block for a core -> 561002.

The kernel (notes section 4), all in float32 in the kernel's order: hyper-parameters rounded from
double once; t = float32(step) + 1; beta^t computed in float64 and rounded once to float32 (the
device's vector Power is a third implementation; this is the documented choice of the emulator);
per element g = grad*gs, m1 = m0*b1 + g*(1-b1), v1 = v0*b2 + (g*g)*(1-b2),
p = var + (m1*step_size)/(sqrt(v1) + eps*c2), then p *= 1 - lr*wd if wd > 0; one RNE rounding of p
to the var dtype (overflow gives inf). Per block of 256 (the last one over its valid elements only):
new absmax max|m1| and max|v1| (NaN propagates), codes by the kernel's 8-step bisection on
m1/absmax and v1/absmax (0/0 = NaN in a block whose absmax is 0 -> code 0), and the arch35
sign fix of m (x > 0 with a negative entry -> one code up, x < 0 with a positive entry -> one down,
clamped) when qmapM has negative entries. The A2/A3 CheckSign routine is not modelled (notes 5.1).

Memory: every tensor is read through its own view into a contiguous copy and refs are written back
through their views, as the runtime's automatic Contiguous/ViewCopy does; nothing outside a view
is written. Absmax entries past ceil(n/256) (accepted on arch22) are neither read nor written. Where
arch22 is given fewer entries than blocks, the device would read and write past the tensor; the
emulator reads 0 for the missing entries and drops their writes.
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, RawTensor
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import (ARITH_DTYPE, FirstPhase, OpExecutor, Reject, first_phase,
                                        is_empty, read_view, view_numel, write_view)
from aclnn_conformance.spec.enums import ND_LIKE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

API = "aclnnApplyAdamWQuant"
BLOCK = 256
QMAP_SIZE = 256
TENSORS = ("varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef", "absmaxVRef", "step")
OUTPUTS = ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef")

# The op definition's three (dtype) combinations over var, grad, m, v, qmap_m, qmap_v, absmax_m,
# absmax_v, step (outputs are the same tensors); every format ND.
_COMBOS = tuple(
    (var, var, DT.UINT8, DT.UINT8, DT.FLOAT, DT.FLOAT, DT.FLOAT, DT.FLOAT, DT.INT64)
    for var in (DT.FLOAT, DT.FLOAT16, DT.BF16))

F32 = np.float32


# ---- GetWorkspaceSize ----

# The SoCs with an ApplyAdamWQuant kernel binary (elsewhere the runtime fails its lookup: 561000),
# and the tiling that also compares the absmax counts with ceil(n/256) (arch35's).
KERNEL_ARCHS = frozenset({"arch22", "arch35"})
ABSMAX_COUNT_CHECKED = frozenset({"arch35"})


def get_workspace_size(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen))


def _validate_and_bind(raw: RawCall, gen: ChipGeneration) -> OpExecutor:
    tensors = raw.tensors()
    scalars = raw.scalars()
    # the generated layer
    for name in TENSORS:
        if tensors[name] is None:
            raise Reject(Status.ERR_PARAM_NULLPTR, f"{name} is nullptr")
    if raw.null_executor:
        raise Reject(Status.ERR_PARAM_NULLPTR, "executor is nullptr")
    t = {name: tensors[name] for name in TENSORS}
    attrs = _float_attrs(scalars)
    block_size = int(scalars["blockSize"])
    # the runtime
    if raw.null_workspace_size:
        raise Reject(Status.ERR_PARAM_NULLPTR, "workspaceSize is nullptr")
    if gen.arch not in KERNEL_ARCHS:
        raise Reject(Status.ERR_INNER, f"no ApplyAdamWQuant kernel for the SoC of {gen.product}")
    dtypes = tuple(t[name].dtype for name in TENSORS)
    formats = {_matched_format(t[name].format) for name in TENSORS}
    if dtypes not in _COMBOS or formats != {F.ND}:
        listed = ", ".join(f"{n}:{DT(t[n].dtype).name}/{_fmt(t[n].format)}" for n in TENSORS)
        raise Reject(Status.ERR_PARAM_INVALID,
                     f"the (dtype, format) of the inputs and outputs match no supported combination: "
                     f"{listed}")
    if all(is_empty(t[name]) for name in OUTPUTS):
        return OpExecutor(API)                           # nothing to tile, nothing to launch
    _tiling_checks(t, block_size, gen)
    if is_empty(t["varRef"]):
        raise Reject(Status.ERR_INNER_TILING_ERROR,
                     "tiling: var is empty while another output is not, no block for a core")
    return OpExecutor(API, [lambda: _kernel(t, attrs)])


def _matched_format(value: int) -> int:
    """The format the runtime matches: an ND-like format counts as ND."""
    return F.ND if value in ND_LIKE_FORMATS else value


def _fmt(value: int) -> str:
    try:
        return F(value).name
    except ValueError:
        return str(value)


HYPER = ("lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale")


def _float_attrs(scalars) -> dict[str, np.float32]:
    """Every double attribute becomes float (round to nearest even) in the generated layer."""
    return KERNEL.hyper_parameters(scalars)


def _tiling_checks(t: dict[str, RawTensor], block_size: int, gen: ChipGeneration) -> None:
    def fail(msg: str) -> None:
        raise Reject(Status.ERR_INNER_TILING_ERROR, f"tiling: {msg}")

    if block_size != BLOCK:
        fail(f"block_size {block_size}, only {BLOCK} is supported")
    var_dims = tuple(t["varRef"].view_dims)
    for name in ("grad", "mRef", "vRef"):
        if tuple(t[name].view_dims) != var_dims:
            fail(f"{name} shape {list(t[name].view_dims)} differs from var {list(var_dims)}")
    if view_numel(t["qmapM"]) != QMAP_SIZE or tuple(t["qmapV"].view_dims) != tuple(t["qmapM"].view_dims):
        fail(f"qmap_m {list(t['qmapM'].view_dims)} / qmap_v {list(t['qmapV'].view_dims)}: "
             f"{QMAP_SIZE} elements and equal shapes required")
    if gen.arch in ABSMAX_COUNT_CHECKED:
        blocks = -(-view_numel(t["varRef"]) // BLOCK)
        for name in ("absmaxMRef", "absmaxVRef"):
            if view_numel(t[name]) != blocks:
                fail(f"{name} has {view_numel(t[name])} elements, ceil(n/{BLOCK}) = {blocks} required")
    if tuple(t["step"].view_dims) != (1,):
        fail(f"step shape {list(t['step'].view_dims)}, [1] required")


# ---- the kernel ----

def pow_f32(base: np.float32, exponent: np.float32) -> np.float32:
    """base**exponent computed in float64 and rounded once to float32."""
    b, e = float(base), float(exponent)
    try:
        return F32(math.pow(b, e))
    except (OverflowError, ValueError):
        with np.errstate(all="ignore"):
            return F32(np.power(np.float64(b), np.float64(e)))


def bisect_codes(x: np.ndarray, qmap: np.ndarray) -> np.ndarray:
    """The kernel's nearest-code search, vectorized: lo = 0, hi = 255; pivot 127; then 7 halvings
    ``piv = (lo + hi) >> 1; x > q[piv] ? lo = piv : hi = piv``; finally hi if |x - q[hi]| <
    |x - q[lo]| else lo (ties and NaN go to lo). float32 throughout; returns uint8 codes."""
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    x = np.asarray(x, dtype=F32)
    lo = np.zeros(x.shape, dtype=np.intp)
    hi = np.full(x.shape, QMAP_SIZE - 1, dtype=np.intp)
    piv = np.full(x.shape, 127, dtype=np.intp)
    up = np.empty(x.shape, dtype=bool)
    step = np.empty(x.shape, dtype=np.intp)
    with np.errstate(invalid="ignore"):
        for _ in range(8):                     # the pivot 127, then 7 halvings
            np.greater(x, q.take(piv), out=up)
            # branch-free selects: lo = up ? piv : lo; hi = up ? hi : piv
            np.subtract(piv, lo, out=step)
            np.multiply(step, up, out=step)
            np.add(lo, step, out=lo)
            np.subtract(hi, piv, out=step)
            np.multiply(step, up, out=step)
            np.add(piv, step, out=hi)
            np.add(lo, hi, out=piv)
            np.right_shift(piv, 1, out=piv)
        d_lo = np.abs(x - q.take(lo))
        d_hi = np.abs(x - q.take(hi))
        pick_hi = d_hi < d_lo
        code = lo + (hi - lo) * pick_hi
    return code.astype(np.uint8)


def sign_fix(x: np.ndarray, code: np.ndarray, qmap: np.ndarray) -> np.ndarray:
    """arch35's sign preservation of m: x > 0 on a negative entry -> one code up, x < 0 on a
    positive entry -> one code down, clamped to [0, 255]."""
    q = np.asarray(qmap, dtype=F32).reshape(-1)
    c = code.astype(np.int32)
    qc = q[c]
    with np.errstate(invalid="ignore"):
        step = np.where((x > 0) & (qc < 0), 1, 0) - np.where((x < 0) & (qc > 0), 1, 0)
    return np.clip(c + step, 0, QMAP_SIZE - 1).astype(np.uint8)


def _block_absmax_in(t: RawTensor, blocks: int) -> np.ndarray:
    """The first ``blocks`` entries of an absmax view (0 for entries it does not have)."""
    vals = read_view(t, ARITH_DTYPE[DT.FLOAT]).reshape(-1)[:blocks]
    if vals.size < blocks:
        vals = np.concatenate([vals, np.zeros(blocks - vals.size, F32)])
    return vals


def _write_block_absmax(t: RawTensor, computed: np.ndarray) -> None:
    """Replace the first ceil(n/256) entries of an absmax view; the rest stay as they are."""
    current = read_view(t, ARITH_DTYPE[DT.FLOAT])
    flat = current.reshape(-1)
    k = min(flat.size, computed.size)
    flat[:k] = computed[:k]
    write_view(t, current, ARITH_DTYPE[DT.FLOAT])


class AawqKernel:
    """The kernel, one method per step, so that a variant can swap a single step."""

    # ---- scalars (once per call) ----

    def hyper_parameters(self, attrs) -> dict:
        """Every double attribute rounded to float32."""
        return {k: F32(float(attrs[k])) for k in HYPER}

    def time_step(self, step: int):
        """t = step + 1."""
        return F32(step) + F32(1)

    def power(self, base, exponent):
        return pow_f32(base, exponent)

    # the operations the arithmetic model lets an implementation round its own way
    # (the ARITHMETIC model of spec/apply_adam_w_quant.py): here each correctly rounded, unfused

    def sqrt(self, x):
        return np.sqrt(x)

    def divide(self, a, b):
        return a / b

    def mul_add(self, a, b, c):
        """a*b + c."""
        return a * b + c

    def corrections(self, b1, b2, t):
        """(1 - beta1^t, sqrt(1 - beta2^t))."""
        one = F32(1)
        return one - self.power(b1, t), self.sqrt(one - self.power(b2, t))

    def eps_term(self, eps, c2):
        return eps * c2

    def scalars(self, hp: dict, step: int) -> dict:
        one = F32(1)
        lr, b1, b2 = hp["lr"], hp["beta1"], hp["beta2"]
        wd, eps, gs = hp["weightDecay"], hp["eps"], hp["gnormScale"]
        with np.errstate(all="ignore"):
            t = self.time_step(step)
            c1, c2 = self.corrections(b1, b2, t)
            step_size = self.divide(-lr * c2, c1)
            eps_c2 = self.eps_term(eps, c2)
            wd_factor = self.mul_add(-lr, wd, one)
        return dict(b1=b1, b2=b2, one_b1=one - b1, one_b2=one - b2, gs=gs, step_size=step_size,
                    eps_c2=eps_c2, wd=wd, wd_factor=wd_factor)

    # ---- per element ----

    def qmaps(self, qm: np.ndarray, qv: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return qm, qv

    def scale_grad(self, g: np.ndarray, s: dict) -> np.ndarray:
        return g * s["gs"]

    def moments(self, m0, v0, g, s):
        m1 = self.mul_add(m0, s["b1"], g * s["one_b1"])
        v1 = self.mul_add(v0, s["b2"], (g * g) * s["one_b2"])
        return m1, v1

    def mask_tail(self, m1, v1, valid):
        """The tail of a partial block is zero-filled before the reductions."""
        return np.where(valid, m1, F32(0)), np.where(valid, v1, F32(0))

    def adam_step(self, var32, m1, v1, s):
        den = self.sqrt(v1) + s["eps_c2"]
        return var32 + self.divide(m1 * s["step_size"], den)

    def decay(self, p, s):
        return p * s["wd_factor"] if s["wd"] > 0 else p

    def cast(self, p, dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            return p.astype(dtype)

    def parameter(self, var32, m1, v1, s, dtype):
        """The new parameter in the var dtype: the Adam step, then the decay, one rounding."""
        return self.cast(self.decay(self.adam_step(var32, m1, v1, s), s), dtype)

    def block_absmax(self, m1, v1, old_am, old_av):
        return np.max(np.abs(m1), axis=1), np.max(np.abs(v1), axis=1)

    def codes(self, x, qmap):
        return bisect_codes(x, qmap)

    def sign_fix(self, x, code, qmap):
        return sign_fix(x, code, qmap)

    # ---- the whole update ----

    def update(self, var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step: int, hp: dict):
        """The kernel on contiguous flat arrays (``absmax_*``: exactly ceil(n/256) entries).
        Returns (var_out in var's dtype, m codes, v codes, absmax_m, absmax_v)."""
        n = var.size
        blocks = -(-n // BLOCK)
        padded = blocks * BLOCK
        s = self.scalars(hp, step)
        qm, qv = self.qmaps(np.asarray(qmap_m, dtype=F32).reshape(-1),
                            np.asarray(qmap_v, dtype=F32).reshape(-1))

        def pad(a, dtype):
            out = np.zeros(padded, dtype=dtype)
            out[:n] = a.reshape(-1)
            return out.reshape(blocks, BLOCK)

        valid = np.zeros(padded, dtype=bool)
        valid[:n] = True
        valid = valid.reshape(blocks, BLOCK)
        var32 = pad(var.astype(F32), F32)
        g = pad(grad.astype(F32), F32)
        mc, vc = pad(m, np.uint8), pad(v, np.uint8)
        am = np.asarray(absmax_m, dtype=F32).reshape(blocks, 1)
        av = np.asarray(absmax_v, dtype=F32).reshape(blocks, 1)
        with np.errstate(all="ignore"):
            g = self.scale_grad(g, s)
            m1, v1 = self.moments(qm[mc] * am, qv[vc] * av, g, s)
            m1, v1 = self.mask_tail(m1, v1, valid)
            p = self.parameter(var32, m1, v1, s, var.dtype)
            new_am, new_av = self.block_absmax(m1, v1, am, av)
            xm = self.divide(m1, new_am[:, None])
            xv = self.divide(v1, new_av[:, None])
        m_codes = self.codes(xm, qm)
        if (qm < 0).any():
            m_codes = self.sign_fix(xm, m_codes, qm)
        v_codes = self.codes(xv, qv)
        return (p.reshape(-1)[:n], m_codes.reshape(-1)[:n], v_codes.reshape(-1)[:n],
                np.asarray(new_am, dtype=F32).reshape(-1), np.asarray(new_av, dtype=F32).reshape(-1))


KERNEL = AawqKernel()


def adam_w_quant_update(var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step: int,
                        attrs: dict[str, np.float32]):
    """The emulator's kernel on contiguous flat arrays (``absmax_*``: exactly ceil(n/256) entries).
    Returns (var_out in var's dtype, m codes, v codes, absmax_m, absmax_v)."""
    return KERNEL.update(var, grad, m, v, qmap_m, qmap_v, absmax_m, absmax_v, step, attrs)


def _kernel(t: dict[str, RawTensor], attrs: dict[str, np.float32]) -> None:
    var_t = t["varRef"]
    vdt = ARITH_DTYPE[var_t.dtype]
    var = read_view(var_t, vdt)
    grad = read_view(t["grad"], vdt)
    m = read_view(t["mRef"], np.uint8)
    v = read_view(t["vRef"], np.uint8)
    qm = read_view(t["qmapM"], F32)
    qv = read_view(t["qmapV"], F32)
    n = var.size
    blocks = -(-n // BLOCK)
    am = _block_absmax_in(t["absmaxMRef"], blocks)
    av = _block_absmax_in(t["absmaxVRef"], blocks)
    step = int(read_view(t["step"], np.int64).reshape(-1)[0])
    var_out, m_out, v_out, am_out, av_out = adam_w_quant_update(
        var, grad, m, v, qm, qv, am, av, step, attrs)
    shape = var.shape
    write_view(var_t, var_out.reshape(shape), vdt)
    write_view(t["mRef"], m_out.reshape(t["mRef"].view_dims), np.uint8)
    write_view(t["vRef"], v_out.reshape(t["vRef"].view_dims), np.uint8)
    _write_block_absmax(t["absmaxMRef"], am_out)
    _write_block_absmax(t["absmaxVRef"], av_out)
