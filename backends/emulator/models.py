"""The emulator's operator models: one GetWorkspaceSize per operator, registered by op name.

A new operator's emulator module defines ``get_workspace_size(raw, gen)`` and gets one line here; the
protocol module stays below every model so that the models can use it without a cycle.
"""
from __future__ import annotations

from typing import Callable

from aclnn_conformance.backends.call_layer import RawCall
from aclnn_conformance.backends.emulator import (apply_adam_w, apply_adam_w_quant, apply_adam_w_v2,
                                                 quant_matmul_weight_nz, weight_quant_preprocess)
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import FirstPhase

MODELS: dict[str, Callable[[RawCall, ChipGeneration], FirstPhase]] = {
    "apply_adam_w_quant": apply_adam_w_quant.get_workspace_size,
    "weight_quant_preprocess": weight_quant_preprocess.get_workspace_size,
    "quant_matmul_weight_nz": quant_matmul_weight_nz.get_workspace_size,
    "apply_adam_w_v2": apply_adam_w_v2.get_workspace_size,
    "apply_adam_w": apply_adam_w.get_workspace_size,
}


def call_first_phase(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    """Dispatch GetWorkspaceSize to the operator's model."""
    try:
        model = MODELS[raw.op]
    except KeyError:
        raise ValueError(f"the emulator has no model of {raw.op!r}") from None
    return model(raw, gen)
