"""The contractions in torch (a value entry whose ``reduction.kind`` is ``inner-product`` or
``diagonal-sum``): the entry's torch function (``torch.dot``, ``torch.trace``) over its operands by
role, fp16 and bf16 computed in float32 and cast back once where the entry says ``accumulate``
float32 (its why), an integer result in the output's dtype."""
from __future__ import annotations

from typing import Any, Callable

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_values import ValueEntry


def contraction_in_torch(case: Case, entry: ValueEntry, operand: Callable[..., Any],
                         resolve: Callable[[str], Any]) -> Any:
    """The 0-d result of the entry's torch function on the call's operands."""
    import torch
    from aclnn_conformance.oracle.surface_contractions import operand_names
    tensors = [operand(case, entry, name) for name in operand_names(entry)]
    narrow = tensors[0].dtype if (tensors[0].dtype in (torch.float16, torch.bfloat16)
                                  and entry.torch.get("accumulate") == "float32") else None
    if narrow:
        tensors = [t.float() for t in tensors]
    if tensors[0].dtype == torch.bool:   # a count of the true elements (torch.trace takes no bool)
        tensors = [t.to(torch.int64) for t in tensors]
    result = resolve(entry.torch["function"])(*tensors)
    return result.to(narrow) if narrow else result
