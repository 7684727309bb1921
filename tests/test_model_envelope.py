"""The arithmetic model's envelope of an ApplyAdamWQuant call (oracle/apply_adam_w_quant_bounds.py):
it holds the oracle's own results, it is a single value where every step is exact, and it widens
where the formula is ill-conditioned (var + update cancelling, 1 - beta^t near 0) and nowhere else."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.oracle.apply_adam_w_quant import apply_adam_w_quant
from aclnn_conformance.oracle.apply_adam_w_quant_bounds import apply_adam_w_quant_envelope
from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.suites.calls.apply_adam_w_quant import (make_call, midpoint_call,
                                                               rounding_ties_call, table_cases)


def _envelope(case):
    vals = {n: case.tensor(n).values() for n in case.tensors}
    a = case.attrs
    kwargs = dict(lr=a["lr"], beta1=a["beta1"], beta2=a["beta2"], weight_decay=a["weightDecay"],
                  eps=a["eps"], gnorm_scale=a["gnormScale"])
    args = [vals[k] for k in ("varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef",
                              "absmaxVRef", "step")]
    out = apply_adam_w_quant(*args, **kwargs, details=True)
    return out, apply_adam_w_quant_envelope(*args, **kwargs, oracle=out)


def _ulps(x: np.ndarray) -> np.ndarray:
    return np.spacing(np.abs(x.astype(np.float32))).astype(np.float64)


@pytest.mark.parametrize("case_id, conditioned", [
    ("vendor-st-float32-N17", True), ("n1000-bfloat16", True), ("first-steps-step0", True),
    ("sign-fix", True), ("weight-decay-large", True),
    ("attr-float32-rounding", False)])       # 1 - beta1 = 9e-8 at t = 1: a huge, sensitive update
def test_the_envelope_holds_the_oracle_and_is_finite(case_id, conditioned):
    case = next(c for c in table_cases("ci") if c.case_id == case_id)
    out, env = _envelope(case)
    assert np.isfinite(env.var_bound).all() and (env.var_bound >= 0).all()
    assert (env.var_scalar_share <= env.var_bound).all()
    assert (env.m_code_lo <= out["m"].reshape(-1)).all() and (out["m"].reshape(-1) <= env.m_code_hi).all()
    assert (env.v_code_lo <= out["v"].reshape(-1)).all() and (out["v"].reshape(-1) <= env.v_code_hi).all()
    # where the formula is well conditioned most elements keep a bound of at most one ulp
    in_ulps = np.median(env.var_bound / _ulps(env.var_unrounded))
    assert in_ulps <= 1 if conditioned else in_ulps > 1


def test_exact_arithmetic_gives_a_single_value():
    """Dyadic midpoints of the map: x is exact, so the tie's direction is judged; exact ties of the
    final cast: the float32 result is exact, so round-to-nearest-even is required."""
    _, env = _envelope(midpoint_call())
    assert (env.m_code_lo == env.m_code_hi).all()
    for dtype in ("float16", "bfloat16"):
        _, env = _envelope(rounding_ties_call(dtype))
        assert (env.var_bound == 0).all()


def test_cancellation_widens_the_bound_exactly_there():
    """var chosen as minus the update on the first block: var + update nearly cancels there and the
    bound, in ulps of the result, grows by orders of magnitude; the second block keeps its ulp."""
    base = make_call("cancel", (2, 256), "float32", seed=3, weightDecay=0.0)
    update, _ = _envelope(base.with_tensor("varRef", base.tensor("varRef").__class__.from_array(
        np.zeros((2, 256)), base.tensor("varRef").dtype)))
    var = base.tensor("varRef").values().copy()
    var[0] = -update["var_unrounded"].reshape(2, 256)[0]
    case = base.with_tensor("varRef", base.tensor("varRef").__class__.from_array(var, base.tensor("varRef").dtype))
    _, env = _envelope(case)
    in_ulps = env.var_bound / np.maximum(_ulps(env.var_unrounded), 2.0 ** -149)
    assert np.median(in_ulps[:256]) > 100 and np.median(in_ulps[256:]) <= 1


def test_a_small_bias_correction_widens_the_bound():
    """1 - beta1^t near 0 (beta1 = 0.9999, t = 2: beta^t inexact) makes step_size sensitive: relative to the
    update, the bound is wider than at step 10000, where 1 - beta1^t is 0.63."""
    widths = {}
    for step in (1, 10_000):
        case = make_call("bias", (2, 256), "float32", seed=4, beta1=0.9999, beta2=0.99999,
                         step=step, weightDecay=0.0, var=np.zeros((2, 256)))
        _, env = _envelope(case)
        widths[step] = np.median(env.var_bound / np.abs(env.var_unrounded))
    assert widths[1] > 100 * widths[10_000]


def test_the_judge_receives_the_envelope():
    case = next(c for c in table_cases("ci") if c.case_id == "vendor-st-float16-N17")
    aux = oracle_result(case, "cann", "atlas-a2").aux
    assert {"bound", "unrounded", "scalar_share", "evaluation"} <= set(aux["varRef"])
    assert {"code_lo", "code_hi"} <= set(aux["mRef"]) and "bound" in aux["absmaxVRef"]
    assert "bound" not in oracle_result(case, "doc", "atlas-a2").aux.get("varRef", {})
