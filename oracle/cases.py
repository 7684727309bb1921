"""From a Case to what the oracle says its outputs must be.

The per-operator oracles take plain arrays; these adapters read a Case's views, call the oracle and
say, for each output, either the expected logical view (``views``: compared through the tensor's
view, everything outside the view must be untouched) or the expected whole storage (``storages``:
layout outputs in private formats, where the storage itself is the result).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from aclnn_conformance.spec.case import Case


@dataclass(frozen=True, eq=False)
class OracleResult:
    views: dict[str, np.ndarray] = field(default_factory=dict)
    storages: dict[str, np.ndarray] = field(default_factory=dict)
    aux: dict[str, dict[str, Any]] = field(default_factory=dict)   # extra inputs of a standard


def _apply_adam_w_quant(case: Case, profile: str) -> OracleResult:
    from aclnn_conformance.oracle.apply_adam_w_quant import apply_adam_w_quant
    from aclnn_conformance.spec.apply_adam_w_quant import BLOCK as BLOCK_SIZE
    vals = {n: case.tensor(n).values() for n in case.tensors}
    a = case.attrs
    n = vals["varRef"].size
    blocks = -(-n // BLOCK_SIZE)
    # Entries past ceil(n/256) (accepted where the count is unchecked) are read by no block.
    absmax_in = {k: vals[k].reshape(-1)[:blocks] for k in ("absmaxMRef", "absmaxVRef")}
    out = apply_adam_w_quant(
        vals["varRef"], vals["grad"], vals["mRef"], vals["vRef"], vals["qmapM"], vals["qmapV"],
        absmax_in["absmaxMRef"], absmax_in["absmaxVRef"], vals["step"], lr=a["lr"], beta1=a["beta1"],
        beta2=a["beta2"], weight_decay=a["weightDecay"], eps=a["eps"], gnorm_scale=a["gnormScale"],
        block_size=BLOCK_SIZE, profile=profile, details=True)
    block_of = np.arange(n) // BLOCK_SIZE

    def whole_absmax(name: str, computed: np.ndarray) -> np.ndarray:
        full = vals[name].reshape(-1).copy()
        full[:blocks] = computed.reshape(-1)
        return full.reshape(vals[name].shape)

    def code_aux(normalized: np.ndarray, qmap: np.ndarray, absmax: np.ndarray) -> dict[str, Any]:
        absmax = absmax.reshape(-1)
        return {"x": normalized.reshape(-1), "qmap": qmap.reshape(-1),
                "zero_block": (absmax[block_of] == 0) if n else np.zeros(0, bool)}

    return OracleResult(
        views={"varRef": out["var"], "mRef": out["m"], "vRef": out["v"],
               "absmaxMRef": whole_absmax("absmaxMRef", out["absmax_m"]),
               "absmaxVRef": whole_absmax("absmaxVRef", out["absmax_v"])},
        aux={"mRef": code_aux(out["m_normalized"], vals["qmapM"], out["absmax_m"]),
             "vRef": code_aux(out["v_normalized"], vals["qmapV"], out["absmax_v"])})


def _weight_quant_preprocess(case: Case, profile: str) -> OracleResult:
    from aclnn_conformance.oracle.weight_quant_preprocess import to_fractal_nz_c0_32
    weight = case.tensor("weight")
    codes = weight.values().view(np.uint8)
    nz = to_fractal_nz_c0_32(codes).reshape(-1)
    out_w = case.tensor("outWeight")
    storage = out_w.storage.copy()  # elements past the NZ storage must stay as they were
    storage.view(np.uint8)[: nz.size] = nz
    views = {"outWeightScale": case.tensor("weightScale").values()}
    if case.tensor("biasOptional") is not None and case.tensor("outBiasOptional") is not None:
        views["outBiasOptional"] = case.tensor("biasOptional").values()
    return OracleResult(views=views, storages={"outWeight": storage})


def _apply_adam_w(case: Case, profile: str) -> OracleResult:
    from aclnn_conformance.oracle.apply_adam_w import apply_adam_w
    from aclnn_conformance.spec.apply_adam_w import TENSORS
    vals = [None if case.tensor(n) is None else case.tensor(n).values() for n in TENSORS]
    out = apply_adam_w(*vals, amsgrad=bool(case.attrs.get("amsgrad", False)),
                       maximize=bool(case.attrs.get("maximize", False)), profile=profile,
                       bounds=profile == "cann")
    names = {"varRef": "var", "mRef": "m", "vRef": "v"}
    aux = {name: {"bound": out[f"bound_{key}"]} for name, key in names.items() if f"bound_{key}" in out}
    return OracleResult(views={name: out[key] for name, key in names.items()}, aux=aux)


ADAPTERS: dict[str, Callable[[Case, str], OracleResult]] = {
    "apply_adam_w": _apply_adam_w,
    "apply_adam_w_quant": _apply_adam_w_quant,
    "weight_quant_preprocess": _weight_quant_preprocess,
}


def oracle_result(case: Case, profile: str) -> OracleResult:
    """The expected outputs of a call that must succeed with judged values."""
    return ADAPTERS[case.op](case, profile)
