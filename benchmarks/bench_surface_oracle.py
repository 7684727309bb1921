"""The elementwise surface's oracle on 2^24 float32 elements against NumPy's own float32 ufunc for
the same function, measured in the same run (best of five each).

Two figures per API: the oracle's expected values (``evaluate_values``: float64 evaluation in
blocks of 2^14 elements and the cast back, or for an exact function of tensors the evaluation in
float32 itself, what ``from_case`` returns as the view) and the whole
``from_case`` with what its standard needs (the rounded class's bound, the transcendental class's
exact values), and NumPy's float64 ufunc on the same values (the floor of a float64 evaluation).
Goal: the expected values within 3x the float32 ufunc.

    python benchmarks/bench_surface_oracle.py
"""
from __future__ import annotations

import time

import numpy as np

from aclnn_conformance.oracle.surface import from_case, native_exact_dtype
from aclnn_conformance.oracle.surface_functions import evaluate_values
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_cases import build_case
from aclnn_conformance.spec.surface_values import value_entry

N = 1 << 24
# API, the NumPy ufunc of the same function (its name is data: the vocabulary's)
APIS = (("aclnnExp", "exp"), ("aclnnTanh", "tanh"), ("aclnnSqrt", "sqrt"), ("aclnnAbs", "absolute"))


def best(fn, repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(0.01, 8.0, N).astype(np.float32)
    print(f"{N} float32 elements, best of 5")
    print(f"{'API':<12} {'ufunc s':>8} {'f64 ufunc':>9} {'ratio':>6} {'values s':>9} {'ratio':>6} "
          f"{'from_case s':>12} {'ratio':>6}")
    wide = x.astype(np.float64)
    for api, ufunc_name in APIS:
        entry = value_entry(api)
        name = entry.inputs[0]
        case = build_case(entry, entry.key, "bench", {name: x}, AclDataType.FLOAT)
        ufunc = getattr(np, ufunc_name)
        base = best(lambda: ufunc(x))
        floor = best(lambda: ufunc(wide))      # the float64 evaluation alone, no cast
        like = native_exact_dtype(case, entry, np.dtype(np.float32)) if entry.function_class == "exact" \
            else None   # an exact function of tensors is evaluated without widening, as from_case does
        values = best(lambda: evaluate_values(entry.function, {name: x}, x.shape,
                                              like=like or np.dtype(np.float64),
                                              result_dtype=np.dtype(np.float32)))
        whole = best(lambda: from_case(case, "cann"), repeat=2)
        print(f"{api:<12} {base:8.3f} {floor:9.3f} {floor / base:6.2f} {values:9.3f} "
              f"{values / base:6.2f} {whole:12.3f} {whole / base:6.2f}")


if __name__ == "__main__":
    main()
