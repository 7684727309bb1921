"""Speed of the ApplyAdamW oracle on 2^24 float32 elements against a read/write floor measured in
the same run.

    python benchmarks/bench_apply_adam_w.py [--log2-n 24] [--repeats 3]

(a) the oracle's values (``oracle.apply_adam_w.apply_adam_w``, amsgrad on, cann profile);
(b) the oracle with the model's per-element bounds as the suites ask for them (``bounds=True``);
(c) a floor: NumPy only reads the same inputs (var, m, v, grad, maxGradNorm) and writes the same
    output bytes (var, m, v), as plain copies.

Goal: (a) within 8x of (c). (b) is reported beside it. Exits 0 whether or not the goal is met.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aclnn_conformance.oracle.apply_adam_w import apply_adam_w  # noqa: E402

F32 = np.float32
GOAL_VS_FLOOR = 8.0
SCALARS = dict(beta1_power=F32(0.9 ** 40), beta2_power=F32(0.999 ** 40), lr=F32(1e-3),
               weight_decay=F32(0.01), beta1=F32(0.9), beta2=F32(0.999), eps=F32(1e-8))


def make_inputs(n: int, seed: int = 0) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return dict(var=rng.standard_normal(n, dtype=F32), m=rng.standard_normal(n, dtype=F32) * F32(1e-2),
                v=rng.random(n, dtype=F32) * F32(1e-3), grad=rng.standard_normal(n, dtype=F32) * F32(3e-2),
                max_grad_norm=rng.random(n, dtype=F32) * F32(2e-3))


def floor(inp: dict[str, np.ndarray], outs: list[np.ndarray]) -> None:
    """Read every input once and write every output once."""
    np.copyto(outs[0], inp["var"])
    np.copyto(outs[1], inp["m"])
    np.copyto(outs[2], inp["v"])
    float(inp["grad"].sum()) + float(inp["max_grad_norm"].sum())   # reads the other two


def oracle(inp: dict[str, np.ndarray], bounds: bool) -> dict[str, np.ndarray]:
    return apply_adam_w(inp["var"], inp["m"], inp["v"], SCALARS["beta1_power"], SCALARS["beta2_power"],
                        SCALARS["lr"], SCALARS["weight_decay"], SCALARS["beta1"], SCALARS["beta2"],
                        SCALARS["eps"], inp["grad"], inp["max_grad_norm"], amsgrad=True,
                        bounds=bounds)


def best_of(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2-n", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    n = 2 ** args.log2_n
    inp = make_inputs(n)
    outs = [np.empty(n, F32) for _ in range(3)]
    t_floor = best_of(lambda: floor(inp, outs), args.repeats)
    t_oracle = best_of(lambda: oracle(inp, False), args.repeats)
    t_bounds = best_of(lambda: oracle(inp, True), args.repeats)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    ratio = t_oracle / t_floor
    print(f"n = 2^{args.log2_n} float32 elements, best of {args.repeats}, load average {load:.1f}")
    print(f"floor (read 5 inputs, write 3 outputs): {t_floor:.3f} s")
    print(f"oracle values:                          {t_oracle:.3f} s "
          f"({t_oracle / n * 1e9:.1f} ns/element) = {ratio:.1f}x the floor "
          f"(goal <= {GOAL_VS_FLOOR:g}x: {'met' if ratio <= GOAL_VS_FLOOR else 'NOT met'})")
    print(f"oracle values + model bounds:           {t_bounds:.3f} s = {t_bounds / t_floor:.1f}x the floor")
    return 0


if __name__ == "__main__":
    sys.exit(main())
