"""aclnnApplyAdamW: table cases, property-based cases drawn from the spec's parameter rows,
determinism and a multi-step trajectory against float64 AdamW."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.apply_adam_w import OP, PARAMS
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import apply_adam_w as calls
from aclnn_conformance.suites.runner import check_case, check_property

SPEC = op_spec(OP)
# Value rules judged by relations between calls rather than by one call against the oracle.
RELATION_RULES = {"determinism": ("AAW-VAL-015",),
                  "trajectory": ("AAW-VAL-002", "AAW-VAL-003", "AAW-VAL-004", "AAW-VAL-005")}
_ROWS = {p.name: p for p in PARAMS}
_DTYPE_NAMES = {v: k for k, v in calls.DTYPES.items()}
# Trajectory limit per dtype: mean |error| over mean |theta| per step, against float64 AdamW from
# the backend's own state: the output dtype's machine epsilon (one rounding of each output).
TRAJECTORY_LIMIT = {"float32": 2.0 ** -23, "float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}














def _adamw64(p, g, m, v, mgn, b1p, b2p, lr, wd, b1, b2, eps, amsgrad):
    """float64 AdamW with decoupled weight decay, given beta^(t-1) (the independent reference)."""
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    vv = np.maximum(mgn, v) if amsgrad else v
    m_hat, v_hat = m / (1 - b1p * b1), vv / (1 - b2p * b2)
    return p * (1 - lr * wd) - lr * m_hat / (np.sqrt(v_hat) + eps)


@pytest.mark.conformance
@pytest.mark.parametrize("amsgrad", [False, True], ids=["adamw", "amsgrad"])
@pytest.mark.parametrize("dtype", list(calls.DTYPES))
def test_trajectory_50_steps(harness, product, dtype, amsgrad, request):
    """50 steps from a zero state, the caller keeping beta^(t-1) as the document asks; each step is
    compared with float64 AdamW started from the backend's own state, with the same (dtype-rounded)
    hyper-parameters; amsgrad's maximum is kept by the caller (the operator never writes it)."""
    shape, lr, b1, b2, wd, eps = (32, 64), 1e-3, 0.9, 0.99, 0.01, 1e-8
    rng = np.random.default_rng(2026)
    zeros = np.zeros(shape)
    case = calls.make_call(f"trajectory-{dtype}-{'amsgrad' if amsgrad else 'adamw'}", shape, dtype,
                           seed=2026, step=1, amsgrad=amsgrad, var=rng.standard_normal(shape) * 0.1,
                           m=zeros, v=zeros, mgn=zeros, lr=lr, beta1=b1, beta2=b2,
                           weightDecay=wd, eps=eps, rule_ids=RELATION_RULES["trajectory"])
    if product not in SPEC.supported[harness.profile]:
        check_case(harness, case, product, request.node.nodeid)
        return
    dt = case.tensor("varRef").dtype
    hyper = {n: float(case.tensor(n).values().reshape(-1)[0]) for n in
             ("lr", "weightDecay", "beta1", "beta2", "eps")}
    worst, at = 0.0, -1
    for t in range(1, 51):
        grad = rng.standard_normal(shape) * 0.01
        case = case.with_tensor("grad", TensorArg.from_array(grad, dt))
        case = case.with_tensor("beta1Power", TensorArg.from_array(np.array([b1 ** (t - 1)]), dt))
        case = case.with_tensor("beta2Power", TensorArg.from_array(np.array([b2 ** (t - 1)]), dt))
        val = {n: case.tensor(n).values().astype(np.float64) for n in
               ("varRef", "mRef", "vRef", "grad", "beta1Power", "beta2Power", "maxGradNormOptional")
               if case.tensor(n) is not None}
        want = _adamw64(val["varRef"], val["grad"], val["mRef"], val["vRef"],
                        val.get("maxGradNormOptional"), val["beta1Power"][0], val["beta2Power"][0],
                        hyper["lr"], hyper["weightDecay"], hyper["beta1"], hyper["beta2"],
                        hyper["eps"], amsgrad)
        result = harness.execute(case, product)
        if result.status != 0:
            worst, at = np.inf, t
            break
        for name in ("varRef", "mRef", "vRef"):
            case = case.with_tensor(name, TensorArg(case.tensor(name).desc, result.storages[name]))
        if amsgrad:
            kept = np.maximum(val["maxGradNormOptional"], case.tensor("vRef").values())
            case = case.with_tensor("maxGradNormOptional", TensorArg.from_array(kept, dt))
        got = case.tensor("varRef").values().astype(np.float64)
        err = float(np.abs(got - want).mean() / np.abs(want).mean())
        if err > worst:
            worst, at = err, t
    limit = TRAJECTORY_LIMIT[dtype]
    check_property(harness, case, product, "trajectory", worst <= limit,
                   f"worst step {at}: mean |error| / mean |theta| {worst:.3g} (limit {limit:.3g})",
                   RELATION_RULES["trajectory"], request.node.nodeid)
