"""The layer normalizations in torch (a value entry of kind ``layer-normalized``): every output by
role, computed with the entry's ``torch.function`` (``torch.nn.functional.layer_norm``) over the
trailing dims the normalized shape names, fp16 and bf16 operands in float32 and cast once, as the
vendor's kernels compute them; a null weight or bias left to torch (ones, zeros); the mean as
torch.mean and the reciprocal root as the -1/2 power of the biased variance (the mean of the
squared deviations) plus epsilon, both in float32."""
from __future__ import annotations

from typing import Any

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry, norm_reduced_rank


def norm_outputs(case: Case, entry: ValueEntry, operand: Any, resolve: Any) -> dict[str, Any]:
    """{output name: torch tensor} of one call; ``operand`` reads a parameter as torch does,
    ``resolve`` a dotted function name."""
    red = entry.reduction
    x = operand(case, entry, red["input"]).float()
    affine = {}
    for role in ("weight", "bias"):
        name = red.get(role)
        affine[role] = operand(case, entry, name).float() if name and case.tensors.get(name) is not None else None
    eps = float(case.attrs.get(red["epsilon"], entry.defaults.get(red["epsilon"], 0.0)))
    k = norm_reduced_rank(case, entry)
    shape = tuple(x.shape[x.dim() - k:])
    y = resolve(entry.torch["function"])(x, shape, weight=affine["weight"], bias=affine["bias"], eps=eps)
    dims = tuple(range(x.dim() - k, x.dim()))
    found = {entry.output: y}
    average = x.mean(dim=dims, keepdim=True)
    deviation = x - average
    # the biased variance (divisor n), its -1/2 power (torch.Tensor.pow) for rstd
    stats = {"average": average, "rstd": ((deviation * deviation).mean(dim=dims, keepdim=True) + eps).pow(-0.5)}
    for role, name in red.get("outputs", {}).items():
        if case.tensors.get(name) is not None:
            found[name] = stats[role]
    return found
