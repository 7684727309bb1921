"""aclnnApplyAdamWV2: table cases, property-based cases from the spec, determinism, a multi-step
trajectory against float64 AdamW, and the relation to torch.optim.AdamW (torch's fused path passes
its step count minus one)."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.oracle.cases import oracle_result
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.apply_adam_w_v2 import MAX_GRAD_NORM, OP, PARAMS
from aclnn_conformance.spec.precision import standard
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.calls import apply_adam_w_v2 as calls
from aclnn_conformance.suites.runner import check_case, check_property, import_optional

SPEC = op_spec(OP)
ROWS = {p.name: p for p in PARAMS}
_DTYPE_NAMES = {v: k for k, v in calls.DTYPES.items()}
_STEP_NAMES = {v: k for k, v in calls.STEP_DTYPES.items()}
# Value rules judged by relations between calls rather than by one call against the oracle.
RELATION_RULES = {"determinism": ("AAWV2-VAL-016",),
                  "trajectory": ("AAWV2-VAL-001", "AAWV2-VAL-002", "AAWV2-VAL-004"),
                  "torch-adamw": ("AAWV2-VAL-003", "AAWV2-VAL-005", "AAWV2-VAL-007")}










def _succeeds(harness, case, product) -> bool:
    """Whether the spec expects ``case`` to succeed with judged values (else the relation is moot)."""
    expected = expected_outcome(SPEC, case, product, harness.profile)
    return expected.kind == "success" and expected.judge_values






def _adamw64(p, g, m, v, t, lr, b1, b2, wd, eps):
    """Plain float64 AdamW, torch's order: decay on the current parameter, then the Adam step."""
    m = b1 * m + (1 - b1) * g
    v = b2 * v + (1 - b2) * g * g
    return p * (1 - lr * wd) - (lr / (1 - b1 ** t)) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)


@pytest.mark.conformance
@pytest.mark.parametrize("dtype", list(calls.DTYPES))
def test_trajectory_50_steps(harness, product, dtype, request):
    """50 steps from a zero state (step 0, 1, ...: t = step + 1); each step compared with float64
    AdamW started from the backend's own state, with the trajectory standard's error limits."""
    shape, lr, b1, b2, wd, eps = (64, 128), 1e-3, 0.9, 0.999, 0.01, 1e-8
    rng = np.random.default_rng(2025)
    zeros = np.zeros(shape)
    case = calls.make_call(f"trajectory-{dtype}", shape, dtype, seed=2025, step=0,
                           var=rng.standard_normal(shape) * 0.1, m=zeros, v=zeros, lr=lr, beta1=b1,
                           beta2=b2, weightDecay=wd, eps=eps, rule_ids=RELATION_RULES["trajectory"])
    check_case(harness, case, product, request.node.nodeid)
    if not _succeeds(harness, case, product):
        return
    limits = standard("bnb-8bit-adamw-trajectory").limits[dtype]
    worst = (0.0, 0.0, -1)
    for step in range(50):
        case = calls.with_step(case.with_tensor("grad", TensorArg.from_array(
            rng.standard_normal(shape) * 0.01, case.tensor("grad").dtype)), step)
        p0, g, m0, v0 = (case.tensor(n).values().astype(np.float64) for n in ("varRef", "grad", "mRef", "vRef"))
        want = _adamw64(p0, g, m0, v0, step + 1, lr, b1, b2, wd, eps)
        result = harness.execute(case, product)
        if result.status != 0:
            worst = (np.inf, np.inf, step)
            break
        for name in ("varRef", "mRef", "vRef"):
            case = case.with_tensor(name, TensorArg(case.tensor(name).desc, result.storages[name]))
        err = np.abs(case.tensor("varRef").values().astype(np.float64) - want)
        mean_abs, mean_rel = float(err.mean()), float((err / (np.abs(want) + 1e-12)).mean())
        worst = (max(mean_abs, worst[0]), max(mean_rel, worst[1]), step if mean_abs > worst[0] else worst[2])
    holds = worst[0] < limits["mean_abs"] and worst[1] < limits["mean_rel"]
    check_property(harness, case, product, "trajectory", holds,
                   f"worst step {worst[2]}: mean abs error {worst[0]:.3g} (limit {limits['mean_abs']}), "
                   f"mean relative {worst[1]:.3g} (limit {limits['mean_rel']})",
                   RELATION_RULES["trajectory"], request.node.nodeid)


@pytest.mark.conformance
@pytest.mark.parametrize("amsgrad,maximize", [(False, False), (True, False), (False, True), (True, True)])
def test_torch_adamw_relation(harness, product, amsgrad, maximize, request):
    """aclnnApplyAdamWV2 with step = k - 1 is torch.optim.AdamW's update at its step count k (torch's
    fused path on Ascend passes state_steps - 1): both are evaluations of the arithmetic model, so
    they agree within the model's bound (twice the oracle's, one side each)."""
    k, shape = 7, (16, 40)
    attrs = dict(lr=1e-2, beta1=0.9, beta2=0.99, weightDecay=0.05, eps=1e-8)
    case = calls.make_call(f"torch-adamw-{'ams' if amsgrad else 'plain'}-{'max' if maximize else 'min'}",
                           shape, "float32", seed=4242, step=k - 1, amsgrad=amsgrad, maximize=maximize,
                           rule_ids=RELATION_RULES["torch-adamw"], **attrs)
    check_case(harness, case, product, request.node.nodeid)  # the call is judged with or without torch
    if not _succeeds(harness, case, product):
        return
    torch = import_optional(harness, case, product, "torch-adamw", "torch",
                            RELATION_RULES["torch-adamw"], request.node.nodeid)
    param = torch.nn.Parameter(torch.from_numpy(case.tensor("varRef").values().copy()))
    opt = torch.optim.AdamW([param], lr=attrs["lr"], betas=(attrs["beta1"], attrs["beta2"]),
                            eps=attrs["eps"], weight_decay=attrs["weightDecay"], amsgrad=amsgrad,
                            maximize=maximize, foreach=False)
    param.grad = torch.from_numpy(case.tensor("grad").values().copy())
    state = {"step": torch.tensor(float(k - 1)),
             "exp_avg": torch.from_numpy(case.tensor("mRef").values().copy()),
             "exp_avg_sq": torch.from_numpy(case.tensor("vRef").values().copy())}
    if amsgrad:
        state["max_exp_avg_sq"] = torch.from_numpy(case.tensor(MAX_GRAD_NORM).values().copy())
    opt.state[param] = state
    opt.step()
    torch_out = {"varRef": param.detach().numpy(), "mRef": state["exp_avg"].numpy(),
                 "vRef": state["exp_avg_sq"].numpy()}
    if amsgrad:
        torch_out[MAX_GRAD_NORM] = state["max_exp_avg_sq"].numpy()
    bound = oracle_result(case, "cann", product).aux
    result = harness.execute(case, product)
    beyond = []
    for name, want in torch_out.items():
        got = case.tensor(name).view_of(result.storages[name]).astype(np.float64)
        if np.any(np.abs(got - want) > 2 * bound[name]["bound"]):
            beyond.append(name)
    check_property(harness, case, product, "torch-adamw", result.status == 0 and not beyond,
                   f"status {result.status}; beyond the model's bound of torch.optim.AdamW: {beyond}",
                   RELATION_RULES["torch-adamw"], request.node.nodeid, needs=("torch",))
