"""Value cases of an elementwise entry with a per-channel operand (``channel_operands``: {name: {"of":
input, "dim": 1}}): the operand holds one element, or one per channel of that input's dim, laid
along it (spec/surface_values.py ``operand_shape``; the oracle reshapes it so, oracle/surface.py).

Per sample dtype: the values with the special values, one weight per channel (``values``); a call
whose channel dim has the length of the last dim (``twin``: a weight laid along the wrong dim
shows); one element for every channel (``one``); a rank-1 input, one channel (``rank1``); an empty
input with its channels' weights (``empty``).
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType

# (kind, input shape for 1024 values with the channel dim second, channels of the operand: 0 = the
# input's channel count)
CHANNEL_CALLS = (("values", (16, 16, 4), 0), ("twin", (4, 6, 6), 0), ("one", (8, 16, 8), 1),
                 ("rank1", (1024,), 1), ("empty", (0, 3), 0))


def channel_value_cases(entry: Any, key: str, count: int, dtypes: tuple[str, ...] | None,
                        helpers: Mapping[str, Any]) -> list[Case]:
    """The per-channel entry's value cases (``CHANNEL_CALLS``); ``helpers`` are spec/surface_cases.py's
    (``seed``, ``sample_values``, ``build_case``), passed in so that neither module imports the other."""
    sample_values, build_case = helpers["sample_values"], helpers["build_case"]
    rng = np.random.default_rng(helpers["seed"])
    channels = entry.raw["channel_operands"]
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, per in CHANNEL_CALLS:
            scale = max(1, count // 1024) if kind in ("values", "rank1") else 1
            shape = (shape[0] * scale,) + shape[1:]
            tensors: dict[str, np.ndarray] = {}
            for name, where in channels.items():
                of = shape[where["dim"]] if len(shape) > where["dim"] else 1
                size = per or of
                tensors[name] = sample_values(entry, dt, max(size, 1), rng, False)[:size]
            for name in entry.inputs:
                if name not in channels and name not in entry.sample.get("attrs", {}):
                    tensors[name] = sample_values(entry, dt, int(np.prod(shape)), rng,
                                                  kind == "values").reshape(shape)
            first = next(n for n in entry.inputs if n not in channels)
            cases.append(build_case(entry, key, f"{kind}-{dtype_name}", tensors, acl,
                                    out_shape=tuple(np.shape(tensors[first]))))
    return cases
