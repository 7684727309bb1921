"""Mutants of aclnnQuantMatmulWeightNz (MX A8W4): the emulator's own model
(``backends.emulator.quant_matmul_weight_nz.MxA8W4Model``) with one step changed.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator import run_phases
from aclnn_conformance.backends.emulator.products import chip
from aclnn_conformance.backends.emulator.quant_matmul_weight_nz import MxA8W4Model, get_workspace_size
from aclnn_conformance.backends.mutants.base import Mutant, MutantSet, replaced_steps
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.quant_matmul_weight_nz import OP


class ModelMutant(Mutant):
    """Runs the call through the emulator's phases with ``model`` instead of the emulator's own."""

    op = OP
    model: type[MxA8W4Model] = MxA8W4Model
    # three distinct single calls must fail each defect (Ascend 950, the one product it covers)
    killing_cases_wanted = 3

    @classmethod
    def with_steps(cls, class_name: str, steps: Mapping[str, Callable[..., Any]]) -> dict[str, Any]:
        return {"model": replaced_steps(class_name, MxA8W4Model, steps)}

    def mutate(self, case: Case, product: str) -> RunResult:
        gen = chip(product)
        return run_phases(case, lambda raw: get_workspace_size(raw, gen, self.model()))


def _next_block_scale(model: MxA8W4Model, block, blocks):
    nxt = min(block + 1, blocks - 1)
    return nxt // 2, nxt % 2


def _tail_second_slot(model: MxA8W4Model, block, blocks):
    if blocks % 2 and block == blocks - 1:
        return block // 2, 1
    return block // 2, block % 2


def _bias_after_cast(model: MxA8W4Model, acc, bias, out_dtype):
    rounded = (acc * np.float32(64.0)).astype(out_dtype)
    return rounded if bias is None else (rounded + bias.astype(out_dtype)).astype(out_dtype)


def _sequential_block_products(model: MxA8W4Model, xb, wb):
    acc = np.zeros((xb.shape[0], wb.shape[1]), np.float32)
    for i in range(xb.shape[1]):          # one product at a time, each sum rounded to float32
        acc += np.outer(xb[:, i], wb[i]).astype(np.float32)
    return acc


NibbleOrder = ModelMutant.declare(
    "NibbleOrder", name="mutant-qmm-nibble-order",
    defect="FP4 weight read with the even element in the high nibble", killed_by=("QMMNZ-VAL-003",),
    steps={"nibble": lambda model, byte, odd: np.where(odd, byte & 0x0F, byte >> 4)})
ScaleBlockOffByOne = ModelMutant.declare(
    "ScaleBlockOffByOne", name="mutant-qmm-scale-block-off-by-one",
    defect="K block j scaled by the scale of block j + 1", killed_by=("QMMNZ-VAL-004",),
    steps={"scale_slot": _next_block_scale})
TailSlotRead = ModelMutant.declare(
    "TailSlotRead", name="mutant-qmm-tail-slot-read",
    defect="the last scale pair row read at its second slot, the unused one when ceil(K/32) is odd",
    killed_by=("QMMNZ-VAL-004",), steps={"scale_slot": _tail_second_slot})
BiasAfterCast = ModelMutant.declare(
    "BiasAfterCast", name="mutant-qmm-bias-after-cast",
    defect="bias added to the rounded output instead of to the fp32 accumulator", killed_by=("QMMNZ-VAL-001",),
    steps={"bias_in_accumulator": lambda model: False, "finish": _bias_after_cast})
TransposeNotFlipped = ModelMutant.declare(
    "TransposeNotFlipped", name="mutant-qmm-transpose-x2-not-flipped",
    defect="x2 strides that transpose (k, n) do not flip transposeX2",
    killed_by=("QMMNZ-VAL-006", "QMMNZ-ATTR-003"), steps={"flips_transpose": lambda model: False})
E5M2Accepted = ModelMutant.declare(
    "E5M2Accepted", name="mutant-qmm-e5m2-accepted",
    defect="FLOAT8_E5M2 activations accepted on the MX A8W4 path", killed_by=("QMMNZ-PATH-001",),
    steps={"accepts_e5m2": lambda model: True})
StorageShapeByDims = ModelMutant.declare(
    "StorageShapeByDims", name="mutant-qmm-storage-shape-by-dims",
    defect="x2's NZ storage shape compared dim by dim instead of by element count",
    killed_by=("QMMNZ-VAL-009", "QMMNZ-SHAPE-001"),
    steps={"storage_matches": lambda model, storage_dims, nz: tuple(storage_dims) == tuple(nz)})
Fp16BiasPrescaledInFloat32 = ModelMutant.declare(
    "Fp16BiasPrescaledInFloat32", name="mutant-qmm-fp16-bias-prescaled-in-fp32",
    defect="fp16 bias scaled by 1/64 in float32 instead of in fp16", killed_by=("QMMNZ-VAL-005",),
    steps={"prescale_bias": lambda model, values, dtype: values.astype(np.float32) * np.float32(0.015625)})
ScalePerPairRow = ModelMutant.declare(
    "ScalePerPairRow", name="mutant-qmm-one-scale-per-64",
    defect="one scale per 64 K elements (the first slot of each pair row) instead of per 32",
    killed_by=("QMMNZ-VAL-004",), steps={"scale_slot": lambda model, block, blocks: (block // 2, 0)})

# controls: the model the mutants are built from with nothing changed, and another float32 summation order
QmmUnmutatedModel = ModelMutant.declare(
    "QmmUnmutatedModel", name="mutant-qmm-control-unmutated-model",
    defect="none: the emulator's MX A8W4 model run through the mutant machinery")
QmmReversedSequentialSum = ModelMutant.declare(
    "QmmReversedSequentialSum", name="control-qmm-reversed-sequential-float32-sum",
    defect="none: the K blocks summed last to first, each product added to the float32 sum alone",
    steps={"block_order": lambda model, blocks: range(blocks - 1, -1, -1),
           "block_products": _sequential_block_products})


QMM_MUTANTS = (NibbleOrder, ScaleBlockOffByOne, TailSlotRead, BiasAfterCast, TransposeNotFlipped,
               E5M2Accepted, StorageShapeByDims, Fp16BiasPrescaledInFloat32, ScalePerPairRow)
QMM_CONTROLS = (QmmUnmutatedModel, QmmReversedSequentialSum)

__all__ = ["QMM_MUTANTS", "QMM_CONTROLS", *(c.__name__ for c in QMM_MUTANTS + QMM_CONTROLS)]

MUTANT_SET = MutantSet(mutants=QMM_MUTANTS, controls=QMM_CONTROLS)
