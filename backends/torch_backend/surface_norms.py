"""The root-mean-square normalizations in torch (a value entry of a ``NORM_KINDS`` kind): every output
by role, computed with ``torch.nn.functional.rms_norm`` (the entry's ``torch.function``) over the
trailing dims the weight covers, fp16 and bf16 operands in float32 and cast once, as the vendor's
kernels compute them; the reciprocal root as the -1/2 power of the float32 mean of squares plus
epsilon, an added input's sum as torch's addition in the input's dtype."""
from __future__ import annotations

from typing import Any

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry


def norm_outputs(case: Case, entry: ValueEntry, operand: Any, resolve: Any) -> dict[str, Any]:
    """{output name: torch tensor} of one call; ``operand`` reads a parameter as torch does,
    ``resolve`` a dotted function name."""
    import torch
    red = entry.reduction
    sources = [operand(case, entry, n) for n in (red.get("addends") or (red["input"],))]
    x = sources[0]
    for other in sources[1:]:
        x = x + other                       # in the inputs' dtype, as the sum output is written
    wide = x.float() if len(sources) == 1 else sum(s.float() for s in sources)
    weight = operand(case, entry, red.get("weight", red["dims"])).float() + float(red.get("weight_offset", 0.0))
    eps = float(operand(case, entry, red["epsilon"]))
    k = weight.dim()
    y = resolve(entry.torch["function"])(wide, tuple(weight.shape), weight=weight, eps=eps)
    dims = tuple(range(wide.dim() - k, wide.dim()))
    rstd = (wide.pow(2).mean(dim=dims, keepdim=True) + eps).pow(-0.5)
    found = {entry.output: y}
    for role, name in red.get("outputs", {}).items():
        found[name] = rstd if role == "rstd" else x
    return found
