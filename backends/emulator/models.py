"""The emulator's operator models: each operator's record names its GetWorkspaceSize model
(``Operator.emulator``, a function ``(raw, gen) -> FirstPhase`` in its own emulator module)."""
from __future__ import annotations

from aclnn_conformance.backends.call_layer import RawCall
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import FirstPhase
from aclnn_conformance.spec.operator import MissingPiece
from aclnn_conformance.spec.registry import operator


def call_first_phase(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
    """Dispatch GetWorkspaceSize to the operator's model."""
    try:
        model = operator(raw.op).piece("emulator")
    except (KeyError, MissingPiece) as exc:
        raise ValueError(f"the emulator has no model of {raw.op!r}: {exc}") from None
    return model(raw, gen)
