"""The surface's reduction oracle on 2^24 float32 elements (a 4096 x 4096 tensor) against NumPy's own
``np.sum`` over the same dims, measured in the same run (best of five each).

Per reduction entry and dims: ``np.sum`` (the baseline), ``np.max`` (NumPy's reducer of the same
kind) and the whole ``from_case`` (the reduced values, their cast to the output's dtype and the
slices its standard leaves open). Goal: the oracle within 3x ``np.sum``.

    python benchmarks/bench_surface_reductions.py
"""
from __future__ import annotations

import numpy as np
from bench_surface_oracle import best   # the sibling benchmark's timer (this folder is on sys.path)

from aclnn_conformance.oracle.surface import from_case
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import value_entries
from aclnn_conformance.spec.templates import reduced_shape
from aclnn_conformance.spec.tensor import TensorArg

SIDE = 1 << 12
DIMS = ([1], [0], [], [-1, 0])


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-6.0, 6.0, (SIDE, SIDE)).astype(np.float32)
    print(f"{x.size} float32 elements ({SIDE} x {SIDE}), best of 5")
    print(f"{'API':<12} {'dims':<8} {'np.sum s':>9} {'np.max':>7} {'oracle s':>9} {'ratio':>6}")
    reductions = [e for e in value_entries().values() if e.reduction is not None]
    for entry in sorted(reductions, key=lambda e: e.api):
        red = entry.reduction
        for dims in DIMS:
            axes = tuple(sorted({d % 2 for d in dims})) or (0, 1)
            out = np.zeros(reduced_shape(x.shape, dims, False), np.float32)
            case = Case(op=entry.key, case_id="bench",
                        tensors={red["input"]: TensorArg.from_array(x, AclDataType.FLOAT),
                                 entry.output: TensorArg.from_array(out, AclDataType.FLOAT)},
                        attrs={red["dims"]: dims, red["keepdim"]: False,
                               **({red["noop"]: False} if red.get("noop") else {})})
            base = best(lambda: np.sum(x, axis=axes))
            same = best(lambda: np.max(x, axis=axes))
            oracle = best(lambda: from_case(case, "cann"))
            print(f"{entry.api:<12} {str(dims):<8} {base:9.4f} {same / base:7.2f} {oracle:9.4f} "
                  f"{oracle / base:6.2f}")


if __name__ == "__main__":
    main()
