"""The executable specification: tensor model, rule records, and one module per operator."""
from __future__ import annotations

from aclnn_conformance.spec.rules import OpSpec


def _load() -> dict[str, OpSpec]:
    from aclnn_conformance.spec import (apply_adam_w, apply_adam_w_quant, apply_adam_w_v2,
                                        quant_matmul_weight_nz, weight_quant_preprocess)
    specs = [apply_adam_w_quant.SPEC, weight_quant_preprocess.SPEC, quant_matmul_weight_nz.SPEC,
             apply_adam_w_v2.SPEC, apply_adam_w.SPEC]
    return {s.key: s for s in specs}


OPS: dict[str, OpSpec] = _load()


def op_spec(key: str) -> OpSpec:
    try:
        return OPS[key]
    except KeyError:
        raise ValueError(f"unknown operator {key!r}; valid: {', '.join(OPS)}") from None
