"""Mutants of aclnnWeightQuantPreprocess: a wrong NZ layout, a copy not made or made wrongly, a
check missing or out of order (notes weight_quant_preprocess.md sections 2-3).

Layout mutants rewrite what the emulator wrote into outWeight's NZ storage, whose element-form
shape is {[G,] ceil(K/32), ceil(N/16), 16, 32} from the tensor's view offset on.
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.backends.mutants.base import (AnotherProductsPath, Mutant, MutantSet, OutputsRewritten,
                                                    RejectedValueAccepted, copied, replace_result)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.tensor import ceil_div
from aclnn_conformance.spec.weight_quant_preprocess import OP

MANDATORY = ("weight", "weightScale", "outWeight", "outWeightScale")


def _gkn(case: Case) -> tuple[int, int, int]:
    shape = case.desc("weight").shape
    return (shape[0] if len(shape) == 3 else 1), shape[-2], shape[-1]


class LayoutMutant(OutputsRewritten):
    """Rewrites the NZ storage the emulator wrote (``edit(nz, before, case)`` on
    [G, K1, N1, 16, 32] uint8 codes; ``before`` is the storage as the call received it)."""

    op = OP

    def rewrite(self, case: Case, storages: dict[str, np.ndarray]) -> None:
        g, k, n = _gkn(case)
        shape = (g, ceil_div(k, 32), ceil_div(n, 16), 16, 32)
        size = math.prod(shape)
        start = case.desc("outWeight").offset
        codes = storages["outWeight"].view(np.uint8)
        before = case.tensor("outWeight").storage.view(np.uint8)
        if start + size > codes.size:
            return
        region = codes[start:start + size].reshape(shape)
        new = self.edit(region.copy(), before[start:start + size].reshape(shape), case)
        codes[start:start + size] = np.asarray(new, dtype=np.uint8).reshape(-1)
        self.after(codes, start + size, case)

    def edit(self, nz: np.ndarray, before: np.ndarray, case: Case) -> np.ndarray:
        return nz

    def after(self, codes: np.ndarray, end: int, case: Case) -> None:
        """Anything written past the NZ storage."""


class NibblesSwapped(LayoutMutant):
    name = "mutant-fp4-nibbles-swapped"
    defect = "FP4 packed with the lower K index in the high nibble"
    killed_by = ("WQP-VAL-002",)

    def edit(self, nz, before, case):
        return nz.reshape(-1, 2)[:, ::-1]


class FractalAxesSwapped(LayoutMutant):
    name = "mutant-nz-n0-k0-swapped"
    defect = "inside a fractal the 32 K elements and the 16 N rows swapped ({k0, n0} order)"
    killed_by = ("WQP-VAL-001",)

    def edit(self, nz, before, case):
        return np.ascontiguousarray(nz.swapaxes(-1, -2)).reshape(nz.shape)


class BlockAxesSwapped(LayoutMutant):
    name = "mutant-nz-k1-n1-swapped"
    defect = "the fractals ordered N-block first ({N1, K1}) instead of K-block first"
    killed_by = ("WQP-VAL-001",)

    def edit(self, nz, before, case):
        return np.ascontiguousarray(nz.swapaxes(1, 2)).reshape(nz.shape)


class PaddingNotZeroed(LayoutMutant):
    name = "mutant-nz-padding-not-zeroed"
    defect = "the NZ padding (k >= K or n >= N) left as it was in the buffer, not zeroed"
    killed_by = ("WQP-VAL-003",)

    def edit(self, nz, before, case):
        g, k, n = _gkn(case)
        k_idx = np.arange(nz.shape[1])[:, None, None, None] * 32 + np.arange(32)
        n_idx = (np.arange(nz.shape[2])[:, None] * 16 + np.arange(16))[None, :, :, None]
        pad = np.broadcast_to((k_idx >= k) | (n_idx >= n), nz.shape)
        return np.where(pad, before, nz)


class FirstGroupOnly(LayoutMutant):
    name = "mutant-gmm-first-group-only"
    defect = "GMM: only the first of the G weight groups converted"
    killed_by = ("WQP-VAL-001",)

    def edit(self, nz, before, case):
        nz[1:] = before[1:]
        return nz


class GuardOverwritten(LayoutMutant):
    name = "mutant-nz-written-past-storage"
    defect = "the whole outWeight allocation cleared, past its FRACTAL_NZ_C0_32 storage too"
    killed_by = ("WQP-VAL-007",)

    def after(self, codes, end, case):
        codes[end:] = 0


class ScaleTransposed(OutputsRewritten):
    op = OP
    name = "mutant-scale-transposed"
    defect = "weightScale transposed ({N, ceil(K/64), 2} order) instead of copied view to view"
    killed_by = ("WQP-VAL-005",)

    def rewrite(self, case, storages):
        src = case.tensor("weightScale").values()
        axes = (1, 0, 2) if src.ndim == 3 else (0, 2, 1, 3)
        view = case.tensor("outWeightScale").view_of(storages["outWeightScale"])
        view[...] = np.ascontiguousarray(src.transpose(axes)).reshape(view.shape)


class ScaleCopiedAsBytes(OutputsRewritten):
    op = OP
    name = "mutant-scale-copied-as-storage"
    defect = "weightScale copied as a flat block of bytes from its buffer start (strides and offsets ignored)"
    killed_by = ("WQP-VAL-005",)

    def rewrite(self, case, storages):
        src = case.tensor("weightScale").storage.view(np.uint8)
        dst = storages["outWeightScale"].view(np.uint8)
        count = min(src.size, dst.size, case.desc("outWeightScale").storage_numel)
        dst[:count] = src[:count]


class BiasNotCopied(OutputsRewritten):
    op = OP
    name = "mutant-bias-not-copied"
    defect = "outBiasOptional never written"
    killed_by = ("WQP-VAL-006",)

    def rewrite(self, case, storages):
        if case.tensor("outBiasOptional") is not None:
            storages["outBiasOptional"] = case.tensor("outBiasOptional").storage.copy()


# ---- the first phase ----

KGroupSize64Accepted = RejectedValueAccepted.declare(
    "KGroupSize64Accepted", name="mutant-k-group-size-64-accepted",
    defect="kGroupSize 64 accepted (checked as a multiple of 32)", killed_by=("WQP-ATTR-001",), op=OP,
    attribute="kGroupSize", value=64, runs_as=32)


AtlasA2Accepted = AnotherProductsPath.declare(
    "AtlasA2Accepted", name="mutant-atlas-a2-accepted",
    defect="no 361001 on Atlas A2: the MX A8W4 data flow registered for its architecture too",
    killed_by=("WQP-PRODUCT-001",), op=OP, product="atlas-a2", runs_as="ascend950")


class DtypeBeforeNull(Mutant):
    op = OP
    name = "mutant-dtype-checked-before-null"
    defect = "the data-flow dtype judge runs before the null checks of weight, weightScale, outWeight, outWeightScale"
    killed_by = ("WQP-NULL-003", "WQP-NULL-004", "WQP-NULL-005", "WQP-NULL-006")

    def mutate(self, case, product):
        if (product == "ascend950" and not case.null_outputs
                and any(case.tensor(n) is None for n in MANDATORY)):
            w, s = case.tensor("weight"), case.tensor("weightScale")
            wrong = ((w is not None and w.dtype != DT.FLOAT4_E2M1)
                     or (s is not None and s.dtype != DT.FLOAT8_E8M0)
                     or case.attrs.get("xDtype") != DT.FLOAT8_E4M3FN
                     or case.attrs.get("xScaleDtype") != DT.FLOAT8_E8M0)
            if wrong:
                return self.reject(case, Status.ERR_PARAM_INVALID, "dataflow is UNKNOWN")
        return self.emulate(case, product)


class NonTransposedWeightAccepted(Mutant):
    op = OP
    name = "mutant-non-transposed-weight-accepted"
    defect = "the weight's strides not checked: a non-transposed weight is read as if transposed"
    killed_by = ("WQP-STRIDE-001",)

    def mutate(self, case, product):
        w = case.desc("weight")
        if w is None or w.ndim not in (2, 3) or (w.strides[-2] == 1 and w.strides[-1] == w.shape[-2]):
            return self.emulate(case, product)
        strides = w.strides[:-2] + (1, w.shape[-2])
        return self.run_as(case, case.with_tensor("weight", case.tensor("weight").with_desc(
            strides=strides)), product)


class NzStorageFloor(Mutant):
    op = OP
    name = "mutant-nz-storage-shape-floor"
    defect = "the outWeight storage check computes floor(K/32), floor(N/16) instead of ceil"
    killed_by = ("WQP-SHAPE-011",)

    def mutate(self, case, product):
        w, ow = case.desc("weight"), case.desc("outWeight")
        if w is None or ow is None or w.ndim not in (2, 3) or len(ow.storage_shape) < 4:
            return self.emulate(case, product)
        k, n = w.shape[-2], w.shape[-1]
        ceil_dims = (ceil_div(k, 32), ceil_div(n, 16), 16, 32)
        floor_dims = (k // 32, n // 16, 16, 32)
        have = tuple(ow.storage_shape[-4:])
        if floor_dims == ceil_dims:
            return self.emulate(case, product)
        if have == floor_dims:          # accepted, converted into the too-small storage
            fixed = ow.storage_shape[:-4] + ceil_dims
            return self.run_as(case, case.with_tensor("outWeight", case.tensor("outWeight").with_desc(
                storage_shape=fixed)), product)
        result = self.emulate(case, product)
        if have == ceil_dims and result.status == 0:
            return self.reject(case, Status.ERR_PARAM_INVALID,
                               "outWeight must be FRACTAL_NZ_C0_32 of the weight")
        return result


class Fp32BiasAccepted(Mutant):
    op = OP
    name = "mutant-fp32-bias-accepted"
    defect = "a FLOAT32 bias accepted (the newer generation's A16 bias dtype) and copied"
    killed_by = ("WQP-DTYPE-001",)

    def mutate(self, case, product):
        bias, out = case.tensor("biasOptional"), case.tensor("outBiasOptional")
        if bias is None or bias.dtype != DT.FLOAT:
            return self.emulate(case, product)
        altered = case.with_tensor("biasOptional", bias.with_desc(dtype=DT.FLOAT16))
        if out is not None and out.dtype == DT.FLOAT:
            altered = altered.with_tensor("outBiasOptional", out.with_desc(dtype=DT.FLOAT16))
        result = self.run_as(case, altered, product)
        if result.status == 0 and out is not None and out.dtype == DT.FLOAT:
            storages = copied(result)
            out.view_of(storages["outBiasOptional"])[...] = bias.values().reshape(out.desc.shape)
            result = replace_result(result, storages=storages)
        return result


class NullOutBiasAccepted(Mutant):
    op = OP
    name = "mutant-null-out-bias-accepted"
    defect = "a null outBiasOptional beside a bias accepted (the bias copy silently skipped)"
    killed_by = ("WQP-NULL-007",)

    def mutate(self, case, product):
        if case.tensor("biasOptional") is None or case.tensor("outBiasOptional") is not None:
            return self.emulate(case, product)
        return self.run_as(case, case.with_tensor("biasOptional", None), product)


class NclWeightAccepted(Mutant):
    op = OP
    name = "mutant-mm-ncl-weight-converted"
    defect = "an MM weight in format NCL converted as ND instead of failing in TransData (561103)"
    killed_by = ("WQP-INNER-001",)

    def mutate(self, case, product):
        w = case.desc("weight")
        if w is None or w.ndim != 2 or w.format != F.NCL:
            return self.emulate(case, product)
        return self.run_as(case, case.with_tensor("weight", case.tensor("weight").with_desc(
            format=F.ND)), product)


WQP_MUTANTS = (
    NibblesSwapped, FractalAxesSwapped, BlockAxesSwapped, PaddingNotZeroed, FirstGroupOnly,
    GuardOverwritten, ScaleTransposed, ScaleCopiedAsBytes, BiasNotCopied, KGroupSize64Accepted,
    AtlasA2Accepted, DtypeBeforeNull, NonTransposedWeightAccepted, NzStorageFloor, Fp32BiasAccepted,
    NullOutBiasAccepted, NclWeightAccepted,
)

__all__ = [c.__name__ for c in WQP_MUTANTS] + ["WQP_MUTANTS", "LayoutMutant"]

MUTANT_SET = MutantSet(mutants=WQP_MUTANTS)
