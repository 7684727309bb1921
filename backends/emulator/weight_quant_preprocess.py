"""aclnnWeightQuantPreprocess (MX A8W4) in the emulator: the API layer's checks in the vendor's
order, then the three processes (weight ND -> FRACTAL_NZ_C0_32, weightScale copy, bias copy).

GetWorkspaceSize (notes weight_quant_preprocess.md section 3):

1. workspaceSize NULL -> 561103; executor NULL -> 561103;
2. the NPU architecture has no registered data flow (anything but Ascend 950) -> 361001;
3. weight, weightScale, outWeight, outWeightScale NULL (in that order) -> 161001;
4. the data-flow judge: FLOAT4_E2M1 weight, FLOAT8_E8M0 scale, xDtype FLOAT8_E4M3FN, xScaleDtype
   FLOAT8_E8M0, weight view rank 2 (MM) or 3 (GMM); anything else -> 161002;
5. the flow's checks a..dd, each 161002 except a NULL outBias beside a given bias (161001);
6. the processes are built: an MM weight in NCL format makes TransData fail -> 561103.

The NZ conversion is the TransData kernel's byte loop (notes section 2.2), vectorized over the output
byte index: FP4 is moved as bytes (c0 = 16 bytes = 32 elements, c = K >> 1 bytes per row of the
{[G,] N, K} source), padding bytes 0. The source is the weight's buffer read as dense
{[G,] N, K} from the view offset (the operator rebuilds the storage shape and ignores the one
given). The NZ bytes go to outWeight's buffer from its view offset; the bytes past them are not
written. weightScale is copied view to view as one-byte elements, bias view to view.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.call_layer import RawCall, RawTensor
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import (FirstPhase, OpExecutor, Reject, copy_view, first_phase,
                                        is_empty, row_major_strides, view_numel)
from aclnn_conformance.spec.enums import PRIVATE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status

API = "aclnnWeightQuantPreprocess"
C0_BYTES = 16          # FRACTAL_NZ_C0_32 for FP4: 32 elements = 16 bytes along K
N0 = 16                # rows of N per fractal
MX_GROUP = 32          # kGroupSize of the MX flows
_CHUNK = 1 << 22       # output bytes computed per step of the conversion

_INVALID = Status.ERR_PARAM_INVALID


# The NPU architectures WeightQuantPreprocess registers a data flow for (elsewhere: 361001).
REGISTERED_ARCHS = frozenset({"arch35"})


def get_workspace_size(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    return first_phase(API, lambda: _validate_and_bind(raw, gen))


def _ceil(a: int, b: int) -> int:
    return -(-int(a) // int(b))


def _is_contiguous(t: RawTensor) -> bool:
    """opbase IsContiguous: private formats, at most one element, or row-major strides (dims of
    size 1 may carry any stride)."""
    if t.format in PRIVATE_FORMATS or view_numel(t) <= 1:
        return True
    expected = row_major_strides(t.view_dims)
    return all(d == 1 or s == e for d, s, e in zip(t.view_dims, t.strides, expected))


def _dtype(value) -> int:
    """An aclDataType argument passed by value (None stands for ACL_DT_UNDEFINED; a case loaded
    from a file may carry the enum's name)."""
    if value is None:
        return DT.UNDEFINED
    if isinstance(value, str):
        return DT[value] if value in DT.__members__ else DT.UNDEFINED
    return int(value)


def _check(ok: bool, message: str, status: int = _INVALID) -> None:
    if not ok:
        raise Reject(status, message)


def _validate_and_bind(raw: RawCall, gen: ChipGeneration) -> OpExecutor:
    if raw.null_workspace_size:
        raise Reject(Status.ERR_INNER_NULLPTR, "workspaceSize is nullptr")
    if raw.null_executor:
        raise Reject(Status.ERR_INNER_NULLPTR, "executor is nullptr")
    if gen.arch not in REGISTERED_ARCHS:
        raise Reject(Status.ERR_RUNTIME_ERROR,
                     f"no WeightQuantPreprocess data flow for the NPU architecture of {gen.product}")
    t = raw.tensors()
    s = raw.scalars()
    for name in ("weight", "weightScale", "outWeight", "outWeightScale"):
        if t[name] is None:
            raise Reject(Status.ERR_PARAM_NULLPTR, f"{name} is nullptr")
    w, sc = t["weight"], t["weightScale"]
    out_w, out_sc = t["outWeight"], t["outWeightScale"]
    bias, out_bias = t["biasOptional"], t["outBiasOptional"]

    # the data-flow judge
    mx = (w.dtype == DT.FLOAT4_E2M1 and sc.dtype == DT.FLOAT8_E8M0
          and _dtype(s["xDtype"]) == DT.FLOAT8_E4M3FN and _dtype(s["xScaleDtype"]) == DT.FLOAT8_E8M0)
    rank = len(w.view_dims)
    if not mx or rank not in (2, 3):
        raise Reject(_INVALID, "dataflow is UNKNOWN")
    gmm = rank == 3
    dims = tuple(w.view_dims)
    k, n = dims[-2], dims[-1]
    g = dims[0] if gmm else None

    # a..g: weight and weightScale
    _check(not is_empty(w), "weight is empty")
    _check(w.format in (F.ND, F.NCL), "weight format must be ND")
    _check(w.strides[-2] == 1 and w.strides[-1] == k, "weight must be transposed (strides [.., 1, K])")
    _check(not is_empty(sc), "weightScale is empty")
    _check(sc.format in (F.ND, F.NCL, F.NCHW), "weightScale format must be ND")
    s_dims = tuple(sc.view_dims)
    _check(len(s_dims) == (4 if gmm else 3) and s_dims[-3:] == (_ceil(k, 64), n, 2),
           f"weightScale shape {list(s_dims)} must end with {[_ceil(k, 64), n, 2]}")
    i = 1 if gmm else 0
    _check(sc.strides[i + 1] == sc.strides[i] * s_dims[i], "weightScale must be transposed")
    # h: offsets
    _check(t["weightOffsetOptional"] is None, "weightOffset must be nullptr")
    _check(t["outWeightOffsetOptional"] is None, "outWeightOffset must be nullptr")
    # i..m: bias
    if bias is not None:
        _check(not is_empty(bias), "bias is empty")
        _check(bias.format == F.ND, "bias format must be ND")
        _check(bias.dtype in (DT.FLOAT16, DT.BF16), "bias dtype must be FLOAT16 or BFLOAT16")
        b_dims = tuple(bias.view_dims)
        _check(b_dims == (g, n) if gmm else b_dims in ((n,), (1, n)),
               f"bias shape {list(b_dims)} is not supported")
        _check(_is_contiguous(bias), "bias must be contiguous")
    # n: kGroupSize
    _check(int(s["kGroupSize"]) == MX_GROUP, f"kGroupSize must be {MX_GROUP}")
    # o..s: outWeight
    _check(not is_empty(out_w), "outWeight is empty")
    _check(out_w.dtype == w.dtype, "outWeight dtype must equal weight dtype")
    _check(tuple(out_w.view_dims) == dims, "outWeight view shape must equal weight view shape")
    _check(len(out_w.storage_dims) == rank + 2, "outWeight storage rank must be weight rank + 2")
    _check(out_w.format == F.FRACTAL_NZ_C0_32 and tuple(out_w.storage_dims[-4:]) ==
           (_ceil(k, 32), _ceil(n, 16), 16, 32), "outWeight must be FRACTAL_NZ_C0_32 of the weight")
    # t..x: outWeightScale
    _check(not is_empty(out_sc), "outWeightScale is empty")
    _check(out_sc.format in (F.ND, F.NCL, F.NCHW), "outWeightScale format must be ND")
    _check(out_sc.dtype == sc.dtype, "outWeightScale dtype must equal weightScale dtype")
    _check(tuple(out_sc.view_dims) == s_dims, "outWeightScale view shape must equal weightScale's")
    _check(tuple(out_sc.storage_dims) == tuple(sc.storage_dims),
           "outWeightScale storage shape must equal weightScale's")
    # y..dd: outBias
    if bias is not None:
        _check(out_bias is not None, "outBias is nullptr", Status.ERR_PARAM_NULLPTR)
        _check(not is_empty(out_bias), "outBias is empty")
        _check(out_bias.format == F.ND, "outBias format must be ND")
        _check(_is_contiguous(out_bias), "outBias must be contiguous")
        _check(out_bias.dtype == bias.dtype, "outBias dtype must equal bias dtype")
        _check(tuple(out_bias.view_dims) == tuple(bias.view_dims),
               "outBias view shape must equal bias view shape")
        _check(tuple(out_bias.storage_dims) == tuple(bias.storage_dims),
               "outBias storage shape must equal bias storage shape")

    # the processes
    if not gmm and w.format == F.NCL:
        raise Reject(Status.ERR_INNER_NULLPTR, "TransData failed: NCL needs a 3-d shape")
    tasks = [lambda: _trans_nd_to_nz(w, out_w, g or 1, k, n),
             lambda: copy_view(sc, out_sc)]
    if bias is not None:
        tasks.append(lambda: copy_view(bias, out_bias))
    return OpExecutor(API, tasks)


# ---- FP4 bytes ----

def _unpack(buffer: bytearray) -> np.ndarray:
    raw = np.frombuffer(buffer, dtype=np.uint8)
    codes = np.empty(raw.size * 2, dtype=np.uint8)
    codes[0::2] = raw & 0x0F
    codes[1::2] = raw >> 4
    return codes


def _pack(codes: np.ndarray) -> np.ndarray:
    return (codes[0::2] | (codes[1::2] << 4)).astype(np.uint8)


def _read_bytes(t: RawTensor, nbytes: int) -> np.ndarray:
    """``nbytes`` bytes of FP4 data from the tensor's element offset on (zeros past the buffer)."""
    out = np.zeros(nbytes, dtype=np.uint8)
    if t.offset % 2 == 0:
        src = np.frombuffer(t.buffer, dtype=np.uint8)[t.offset // 2:t.offset // 2 + nbytes]
    else:
        src = _unpack(t.buffer)[t.offset:t.offset + 2 * nbytes]
        src = _pack(src[: src.size - src.size % 2])
    out[:src.size] = src
    return out


def _write_bytes(t: RawTensor, data: np.ndarray) -> None:
    """Write FP4 bytes from the tensor's element offset on (clipped to the buffer)."""
    buf = np.frombuffer(t.buffer, dtype=np.uint8)
    if t.offset % 2 == 0:
        start = t.offset // 2
        room = max(buf.size - start, 0)
        buf[start:start + min(room, data.size)] = data[:room]
    else:
        codes = _unpack(t.buffer)
        new = np.empty(data.size * 2, dtype=np.uint8)
        new[0::2], new[1::2] = data & 0x0F, data >> 4
        room = max(codes.size - t.offset, 0)
        codes[t.offset:t.offset + min(room, new.size)] = new[:room]
        buf[:] = _pack(codes)


def nz_c0_32_bytes(src: np.ndarray, h: int, n: int, k: int) -> np.ndarray:
    """TransData ND -> FRACTAL_NZ_C0_32 for FP4 over bytes: ``src`` holds h dense {n, k>>1}-byte
    matrices; for every output byte idx in [0, h*c1*padN*c0), with c = k>>1, c0 = 16,
    c1 = ceil(c/c0), padN = ceil(n/16)*16::

        hIdx  = idx / (c1*padN*c0)      c1Idx = idx / (padN*c0) % c1
        nIdx  = idx / c0 % padN         cIdx  = idx % c0 + c1Idx*c0
        dst[idx] = 0 if nIdx >= n or cIdx >= c else src[hIdx*n*c + nIdx*c + cIdx]

    Evaluated with idx = row*c0 + j (j = idx % c0): hIdx, c1Idx and nIdx depend on the row only
    (row / (c1*padN) = idx / (c1*padN*c0), and so on), so they are computed once per 16-byte row
    and broadcast over j."""
    c0 = C0_BYTES
    c = k >> 1
    c1 = _ceil(c, c0)
    pad_n = _ceil(n, N0) * N0
    rows = h * c1 * pad_n
    dst = np.zeros(rows * c0, dtype=np.uint8)
    if rows == 0 or src.size == 0:
        return dst
    j = np.arange(c0, dtype=np.int64)
    step = max(_CHUNK // c0, 1)
    for r0 in range(0, rows, step):
        row = np.arange(r0, min(r0 + step, rows), dtype=np.int64)
        n_idx = row % pad_n
        q = row // pad_n
        c1_idx = q % c1
        h_idx = q // c1
        c_idx = (c1_idx * c0)[:, None] + j                     # cIdx = idx % c0 + c1Idx*c0
        inside = (n_idx < n)[:, None] & (c_idx < c)
        src_idx = ((h_idx * n + n_idx) * c)[:, None] + c_idx
        np.multiply(src_idx, inside, out=src_idx)               # outside: any valid index
        block = src.take(src_idx)
        np.multiply(block, inside, out=block)                   # outside: 0
        dst[r0 * c0:(r0 + row.size) * c0] = block.reshape(-1)
    return dst


def _trans_nd_to_nz(w: RawTensor, out_w: RawTensor, h: int, k: int, n: int) -> None:
    src = _read_bytes(w, h * n * (k >> 1))
    _write_bytes(out_w, nz_c0_32_bytes(src, h, n, k))
