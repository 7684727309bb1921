"""Operator knowledge, as data: how a kernel-level TTK row's inputs and attributes map onto the aclnn
API's parameters, per kernel op name. The kernel's order is its OpDef's (``Input(...)`` calls in
``op_host/<op>_def.cpp``); the aclnn names are the spec's parameter names."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class KernelMapping:
    api: str                              # the aclnn API that reaches this kernel
    inputs: tuple[str, ...]               # aclnn parameter of each kernel input, in kernel order
    attrs: Mapping[str, str]              # kernel attribute -> aclnn parameter
    source: str                           # where the kernel order is read


KERNEL_INPUTS: dict[str, KernelMapping] = {
    "apply_adam_w_v2": KernelMapping(
        api="aclnnApplyAdamWV2",
        inputs=("varRef", "mRef", "vRef", "grad", "step", "maxGradNormOptionalRef"),
        attrs={"lr": "lr", "beta1": "beta1", "beta2": "beta2", "weight_decay": "weightDecay",
               "eps": "eps", "amsgrad": "amsgrad", "maximize": "maximize"},
        source="ops-nn optim/apply_adam_w_v2/op_host/apply_adam_w_v2_def.cpp:28-82 "
               "(var, m, v, grad, step, max_grad_norm; attrs lr..maximize)"),
    "apply_adam_w": KernelMapping(
        api="aclnnApplyAdamW",
        inputs=("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1",
                "beta2", "eps", "grad", "maxGradNormOptional"),
        attrs={"amsgrad": "amsgrad", "maximize": "maximize"},
        source="ops-nn optim/apply_adam_w/op_host/apply_adam_w_def.cpp:26-59 "
               "(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, "
               "grad, max_grad_norm; attrs amsgrad, maximize)"),
}
