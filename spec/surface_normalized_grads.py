"""The value cases of the gradients of softmax and log-softmax along one dim (a value entry whose
``reduction.kind`` is ``normalized-exp-grad`` or ``log-normalized-exp-grad``; the oracle:
oracle/surface_normalized_grads.py): the output's gradient drawn in the entry's sample range (the
special values in the ``values`` call) and the forward output in its ``forward_range``, along a
middle dim, a dim of the size of another (``twin``), the first dim, a long dim (1000 terms: the
order of the sum shows) and an empty input."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg

# (kind, shape for 1024 values, dim)
GRAD_CALLS = (("values", (8, 16, 8), 1), ("twin", (6, 6, 4), 1), ("first", (4, 6, 5), 0),
              ("long", (2, 1000), -1), ("empty", (0, 5), 1))


def normalized_grad_value_cases(entry: Any, key: str, count: int, dtypes: tuple[str, ...] | None,
                                helpers: Mapping[str, Any]) -> list[Case]:
    """The value cases per sample dtype; ``helpers`` are spec/surface_cases.py's (``seed``,
    ``sample_values``, ``rule``), passed in so that neither module imports the other."""
    red = entry.reduction
    rng = np.random.default_rng(helpers["seed"])
    lo, hi = entry.sample.get("forward_range", entry.sample.get("range", [-1.0, 1.0]))
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, dim in GRAD_CALLS:
            scale = max(1, count // 1024) if kind == "values" else 1
            shape = (shape[0] * scale,) + shape[1:]
            size = int(np.prod(shape))
            g = helpers["sample_values"](entry, dt, size, rng, kind == "values").reshape(shape)
            with np.errstate(over="ignore"):
                y = rng.uniform(lo, hi, size=shape).astype(np.float32).astype(dt)
            tensors = {red["input"]: TensorArg.from_array(g, acl), red["forward"]: TensorArg.from_array(y, acl),
                       entry.output: TensorArg.from_array(np.zeros(shape, dt), acl)}
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors,
                              attrs={red["dims"]: dim}, rule_ids=(helpers["rule"],), origin="table"))
    return cases
