"""The inputs of the value cases of an operator along one dim (the running extremes, the sorting
positions): per sample dtype, a middle dim with the special values and the kind's planted edges, a
dim of the size of another, the first dim, a negative dim, a long dim and an empty input."""
from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import numpy as np

from aclnn_conformance.spec.surface_values import ValueEntry

# (kind of call, the input's shape for 1024 values, dim)
DIM_CALLS = (("values", (8, 16, 8), 1), ("twin", (6, 6, 4), 1), ("first", (4, 6, 5), 0),
             ("negative", (4, 6, 5), -1), ("long", (2, 1000), -1), ("empty", (0, 5), 1))


def dim_call_inputs(entry: ValueEntry, count: int, dtypes: tuple[str, ...] | None,
                    helpers: Mapping[str, Any],
                    edges: Callable[[np.ndarray, np.dtype], np.ndarray]) -> Iterator[tuple[str, Any, str, tuple[int, ...], int, np.ndarray]]:
    """(dtype name, its AclDataType, kind of call, shape, dim, input values) of every ``DIM_CALLS``
    call per sample dtype: the values call's first dim times ``count // 1024``, its float values
    given ``edges``."""
    from aclnn_conformance.spec.dtypes import numpy_dtype
    from aclnn_conformance.spec.enums import AclDataType
    rng = np.random.default_rng(helpers["seed"])
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, dim in DIM_CALLS:
            if kind == "values":
                shape = (shape[0] * max(1, count // 1024),) + shape[1:]
            size = int(np.prod(shape))
            x = helpers["sample_values"](entry, dt, max(size, 1), rng, with_specials=kind == "values")
            x = x[:size].reshape(shape)
            if kind == "values" and dt.kind not in "iub":
                x = edges(x, dt)
            yield dtype_name, acl, kind, shape, dim, x
