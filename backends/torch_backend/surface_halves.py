"""The gated units in torch (a value entry whose ``reduction.kind`` is ``halves``): the function the
entry's ``torch.function`` names, called with the input and the split dim (``torch.nn.functional.glu``),
or the entry's ``torch.expression`` over the two halves (``torch.chunk`` along the dim) and its other
operands, with the torch functions its ``torch.words`` names; fp16 and bf16 in float32 and cast once
(the kernels' order: ``accumulate`` float32). A backward (``reduction.gradient``): the entry's
``torch.function`` called with the gradient, the input and the dim (``torch.ops.aten.glu_backward``),
or the gradient of the forward ``torch.expression`` by autograd."""
from __future__ import annotations

import ast
from typing import Any, Callable

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry


def halves_in_torch(case: Case, entry: ValueEntry, operand: Callable[..., Any],
                    resolve: Callable[[str], Any]) -> Any:
    """The entry's torch mapping on the call (the caller casts the result to the output's dtype);
    ``operand`` and ``resolve`` are the torch surface's (a call's operand as torch holds it, a
    dotted torch name's function), passed in so that neither module imports the other."""
    import torch

    from aclnn_conformance.spec.surface_halves import split_axis
    red = entry.reduction
    x = operand(case, entry, red["input"])
    if x.dtype in (torch.float16, torch.bfloat16) and entry.torch.get("accumulate") == "float32":
        x = x.float()
    axis = split_axis(case, entry)
    gradient = red.get("gradient")
    if gradient is not None:   # a backward: torch's backward function, or autograd of the forward
        g = operand(case, entry, gradient).to(x.dtype)
        if entry.torch.get("function"):
            return resolve(entry.torch["function"])(g, x, axis)
        x = x.detach().clone().requires_grad_(True)
        with torch.enable_grad():
            forward = _forward(case, entry, x, axis, operand, resolve)
            return torch.autograd.grad(forward, x, g)[0]
    if entry.torch.get("function"):
        return resolve(entry.torch["function"])(x, dim=axis)
    return _forward(case, entry, x, axis, operand, resolve)


def _forward(case: Case, entry: ValueEntry, x: Any, axis: int, operand: Callable[..., Any],
             resolve: Callable[[str], Any]) -> Any:
    """The entry's ``torch.expression`` over the halves of ``x`` along ``axis`` and its operands."""
    import torch

    red = entry.reduction
    first, second = torch.chunk(x, 2, dim=axis)
    interleaved = red.get("interleaved")
    if interleaved and case.attrs.get(interleaved, entry.defaults.get(interleaved, False)):
        # the block from the dim on, flattened, in its even and odd elements
        flat = x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)
        first, second = flat[:, 0::2].reshape(first.shape), flat[:, 1::2].reshape(second.shape)
    env: dict[str, Any] = dict(zip(red["halves"], (first, second)))
    for name in red.get("operands", ()):
        arg = case.tensors.get(name)
        if arg is not None:   # a one-element tensor read as a scalar in the input's dtype
            value = operand(case, entry, name).reshape(-1)[:1].to(x.dtype)
            env[name] = float(value.sum()) if value.numel() else 0.0
        else:
            env[name] = case.attrs.get(name, entry.defaults.get(name))
    tree = ast.parse(entry.torch["expression"], mode="eval")
    words = entry.torch.get("words", {})
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in words:
                raise ValueError(f"{entry.torch['expression']!r}: {ast.unparse(node.func)} is not one "
                                 "of the entry's torch words")
            env[node.func.id] = resolve(words[node.func.id])
    return eval(compile(tree, "<torch expression>", "eval"), {}, env)  # the calls are checked above
