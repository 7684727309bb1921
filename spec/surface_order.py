"""Value cases of the sorting positions (``ORDER_KINDS``; oracle/surface_order.py): a middle dim with
the special values (the slices holding NaN are open), a tied slice, a near tie in the order a
narrower dtype reverses, a dim of the size of another, the first dim, a negative dim, a long dim and
an empty input; each under every other setting of the direction attribute (``attr_variants``)."""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.surface_dim_calls import dim_call_inputs
from aclnn_conformance.spec.surface_values import ValueEntry



def _edges(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """Along dim 1: x[0, :, 0] holding 7 twice (their two positions open), x[1, :, 0] holding 6.5 + 2^-8
    at 2 before 6.5 at 5 (one fp16 step apart; bf16 rounds both to 6.5, and a stable sort of the tie
    then keeps 2 first where 5 is due), x[2, :, 0] holding -0 and +0 (a tie)."""
    x = np.array(x, copy=True)
    x[0, 3, 0] = x[0, 7, 0] = dtype.type(7.0)
    x[1, 2, 0], x[1, 5, 0] = dtype.type(6.5 + 2.0 ** -8), dtype.type(6.5)
    x[2, 4, 0], x[2, 9, 0] = dtype.type(-0.0), dtype.type(0.0)
    return x


def order_value_cases(entry: ValueEntry, key: str, count: int, dtypes: tuple[str, ...] | None,
                      helpers: Mapping[str, Any]) -> list[Case]:
    """The value cases per sample dtype (``DIM_CALLS``, spec/surface_dim_calls.py, and
    the values call under each ``attr_variants`` setting)."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    from aclnn_conformance.spec.tensor import TensorArg
    red = entry.reduction
    index = AclDataType[red["index_dtype"]]
    cases = []
    for dtype_name, acl, kind, shape, dim, x in dim_call_inputs(entry, count, dtypes, helpers, _edges):
        tensors = {red["input"]: TensorArg.from_array(x, acl),
                   entry.output: TensorArg.from_array(np.zeros(shape, numpy_dtype(index)), index)}
        attrs = {**entry.sample.get("attrs", {}), red["dims"]: dim}
        cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                          rule_ids=(helpers["rule"],), origin="table"))
        if kind == "values":   # the same values under each other setting of the direction
            cases += [Case(op=key, case_id=f"attrs{i}-{dtype_name}", tensors=tensors,
                           attrs={**attrs, **variant}, rule_ids=(helpers["rule"],), origin="table",
                           note=", ".join(f"{k}={v}" for k, v in variant.items()))
                      for i, variant in enumerate(entry.sample.get("attr_variants", ()), start=1)]
    return cases
