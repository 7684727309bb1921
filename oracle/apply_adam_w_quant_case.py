"""aclnnApplyAdamWQuant from a Case: the oracle's outputs, and under the cann profile the arithmetic
model's envelope of them (oracle/apply_adam_w_quant_bounds.py), for the model-derived standards."""
from __future__ import annotations

from typing import Any

import numpy as np

from aclnn_conformance.oracle.apply_adam_w_quant import apply_adam_w_quant
from aclnn_conformance.oracle.apply_adam_w_quant_bounds import apply_adam_w_quant_envelope
from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.spec.apply_adam_w_quant import BLOCK as BLOCK_SIZE
from aclnn_conformance.spec.case import Case


def from_case(case: Case, profile: str, product: str) -> OracleResult:
    """The expected outputs of ``case`` (a call the spec expects to succeed with judged values)."""
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

    aux = {"mRef": code_aux(out["m_normalized"], vals["qmapM"], out["absmax_m"]),
           "vRef": code_aux(out["v_normalized"], vals["qmapV"], out["absmax_v"])}
    if profile == "cann":
        # the arithmetic model's envelope of this call, for the model-derived standards
        env = apply_adam_w_quant_envelope(
            vals["varRef"], vals["grad"], vals["mRef"], vals["vRef"], vals["qmapM"], vals["qmapV"],
            absmax_in["absmaxMRef"], absmax_in["absmaxVRef"], vals["step"], lr=a["lr"],
            beta1=a["beta1"], beta2=a["beta2"], weight_decay=a["weightDecay"], eps=a["eps"],
            gnorm_scale=a["gnormScale"], oracle=out, block_size=BLOCK_SIZE)

        def whole_bound(name: str, computed: np.ndarray) -> np.ndarray:
            full = np.zeros(vals[name].size)      # entries past the blocks: unchanged, exactly
            full[:blocks] = computed
            return full

        aux["varRef"] = {"bound": env.var_bound, "unrounded": env.var_unrounded,
                         "scalar_share": env.var_scalar_share, "evaluation": env.var_evaluation}
        aux["absmaxMRef"] = {"bound": whole_bound("absmaxMRef", env.absmax_m_bound)}
        aux["absmaxVRef"] = {"bound": whole_bound("absmaxVRef", env.absmax_v_bound)}
        aux["mRef"].update(code_lo=env.m_code_lo, code_hi=env.m_code_hi)
        aux["vRef"].update(code_lo=env.v_code_lo, code_hi=env.v_code_hi)
    return OracleResult(
        views={"varRef": out["var"], "mRef": out["m"], "vRef": out["v"],
               "absmaxMRef": whole_absmax("absmaxMRef", out["absmax_m"]),
               "absmaxVRef": whole_absmax("absmaxVRef", out["absmax_v"])},
        aux=aux)
