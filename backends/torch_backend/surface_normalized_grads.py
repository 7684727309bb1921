"""The gradients of softmax and log-softmax in torch (a value entry whose ``reduction.kind`` is
``normalized-exp-grad`` or ``log-normalized-exp-grad``): the aten function the entry's
``torch.function`` names (``torch.ops.aten._softmax_backward_data``, ``_log_softmax_backward_data``:
grad, output, dim, input dtype), fp16 and bf16 in float32 and cast once where the entry says
``accumulate`` float32 (as the vendor's kernels load them into float32)."""
from __future__ import annotations

from typing import Any, Callable

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry


def normalized_grad_in_torch(case: Case, entry: ValueEntry, operand: Callable[..., Any],
                             resolve: Callable[[str], Any]) -> Any:
    """The entry's torch function on the call; ``operand`` and ``resolve`` are the torch surface's,
    passed in so that neither module imports the other."""
    import torch
    red = entry.reduction
    grad, forward = operand(case, entry, red["input"]), operand(case, entry, red["forward"])
    if grad.dtype in (torch.float16, torch.bfloat16) and entry.torch.get("accumulate") == "float32":
        grad, forward = grad.float(), forward.float()
    shape = grad.shape
    if not grad.dim():   # rank 0: a slice of one element
        grad, forward = grad.reshape(1), forward.reshape(1)
    result = resolve(entry.torch["function"])(grad, forward, case.attrs.get(red["dims"]) if shape else 0,
                                              grad.dtype)
    return result.reshape(shape)
