"""aclnnApplyAdamWQuant: table cases, property-based cases, determinism, metamorphic relations and a
multi-step trajectory against float64 AdamW."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.apply_adam_w_quant import BLOCK, OP
from aclnn_conformance.spec.precision import standard
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import apply_adam_w_quant as calls
from aclnn_conformance.suites.runner import (check_case, check_property,
                                             fail_unless_certifiable, ran)

SPEC = op_spec(OP)
# Value rules judged by relations between calls rather than by one call against the oracle.
RELATION_RULES = {"determinism": ("AAWQ-VAL-016",),
                  "block-permutation": ("AAWQ-VAL-007", "AAWQ-VAL-009"),
                  "trajectory": ("AAWQ-VAL-001", "AAWQ-VAL-002", "AAWQ-VAL-004")}














@pytest.mark.conformance
@pytest.mark.parametrize("dtype", list(calls.DTYPES))
def test_block_permutation(harness, product, dtype, request):
    """Blocks are independent: permuting whole blocks of every state permutes the outputs."""
    blocks = 6
    case = calls.make_call(f"block-permutation-{dtype}", (blocks, BLOCK), dtype, seed=77)
    if product not in SPEC.supported[harness.profile]:
        check_case(harness, case, product, request.node.nodeid)
        return
    perm = np.random.default_rng(7).permutation(blocks)
    permuted = case.with_(case_id=case.case_id + "-permuted")
    for name in ("varRef", "grad", "mRef", "vRef", "absmaxMRef", "absmaxVRef"):
        arg = case.tensor(name)
        permuted = permuted.with_tensor(name, TensorArg.from_array(arg.values()[perm], arg.dtype))
    a, b = harness.execute(case, product), harness.execute(permuted, product)
    bad = [n for n in ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef")
           if a.storages[n].reshape(blocks, -1)[perm].view(np.uint8).tobytes()
           != b.storages[n].reshape(blocks, -1).view(np.uint8).tobytes()]
    check_property(harness, case, product, "block-permutation", a.status == b.status == 0 and not bad,
                   f"outputs not permuted with the blocks: {bad}; statuses {a.status}, {b.status}",
                   RELATION_RULES["block-permutation"], request.node.nodeid)


def _adamw64(p, g, m, v, t, lr, b1, b2, wd, eps):
    """Plain float64 AdamW with decoupled weight decay (the independent reference of the trajectory)."""
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    mhat, vhat = m / (1 - b1 ** t), v / (1 - b2 ** t)
    return p * (1 - lr * wd) - lr * mhat / (np.sqrt(vhat) + eps)


@pytest.mark.conformance
@pytest.mark.parametrize("dtype", list(calls.DTYPES))
def test_trajectory_50_steps(harness, product, dtype, request):
    """50 steps from a zero state; each step is compared with float64 AdamW started from the
    backend's own (dequantized) state, with the 8-bit AdamW test's error limits."""
    shape, lr, b1, b2, wd, eps = (128, 256), 1e-3, 0.9, 0.999, 0.01, 1e-8
    rng = np.random.default_rng(2024)
    zeros = np.zeros(shape, int)
    case = calls.make_call(f"trajectory-{dtype}", shape, dtype, seed=2024, step=0,
                           var=rng.standard_normal(shape) * 0.1, m=zeros, v=zeros,
                           absmax_m=np.zeros(shape[0]), absmax_v=np.zeros(shape[0]),
                           lr=lr, beta1=b1, beta2=b2, weightDecay=wd, eps=eps)
    first = check_case(harness, case, product, request.node.nodeid, defer=True)
    if not ran(first):
        fail_unless_certifiable((first, case))
        return
    limits = standard("bnb-8bit-adamw-trajectory").limits[dtype]
    qm, qv = case.tensor("qmapM").values(), case.tensor("qmapV").values()
    worst = (0.0, 0.0, -1)
    for step in range(50):
        grad = rng.standard_normal(shape) * 0.01
        case = case.with_tensor("grad", TensorArg.from_array(grad, case.tensor("grad").dtype)
                                ).with_tensor("step", TensorArg.from_array(np.array([step]),
                                                                           case.tensor("step").dtype))
        p0 = case.tensor("varRef").values().astype(np.float64)
        am = np.repeat(case.tensor("absmaxMRef").values(), BLOCK)[: p0.size].reshape(shape)
        av = np.repeat(case.tensor("absmaxVRef").values(), BLOCK)[: p0.size].reshape(shape)
        m0 = qm[case.tensor("mRef").values()].astype(np.float64) * am
        v0 = qv[case.tensor("vRef").values()].astype(np.float64) * av
        g64 = case.tensor("grad").values().astype(np.float64)
        want = _adamw64(p0, g64, m0, v0, step + 1, lr, b1, b2, wd, eps)
        result = harness.execute(case, product)
        if result.status != 0:
            worst = (np.inf, np.inf, step)
            break
        for name in ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef"):
            case = case.with_tensor(name, TensorArg(case.tensor(name).desc, result.storages[name]))
        got = case.tensor("varRef").values().astype(np.float64)
        err = np.abs(got - want)
        mean_abs, mean_rel = float(err.mean()), float((err / (np.abs(want) + 1e-12)).mean())
        if mean_abs > worst[0] or mean_rel > worst[1]:
            worst = (max(mean_abs, worst[0]), max(mean_rel, worst[1]), step)
    holds = worst[0] < limits["mean_abs"] and worst[1] < limits["mean_rel"]
    check_property(harness, case, product, "trajectory", holds,
                   f"worst step {worst[2]}: mean abs error {worst[0]:.3g} (limit {limits['mean_abs']}), "
                   f"mean relative {worst[1]:.3g} (limit {limits['mean_rel']})",
                   RELATION_RULES["trajectory"], request.node.nodeid, also=(first,))
