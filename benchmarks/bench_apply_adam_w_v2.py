"""Speed of the ApplyAdamWV2 oracle against a read/write floor, on 2^24 float32 elements.

    python benchmarks/bench_apply_adam_w_v2.py [--log2-n 24] [--repeats 3]

(a) the oracle (``oracle.apply_adam_w_v2``, amsgrad on: five float32 inputs read, four outputs
    written), the bit-faithful result only (``details=False``: no model bound);
(b) a floor: NumPy reads the same five inputs and writes the same four output arrays (plain copies).

Goal: the oracle within 8x of (b). Best of ``--repeats`` for each, measured in the same run.
Exits 0 whether or not the goal is met.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from aclnn_conformance.oracle.apply_adam_w_v2 import apply_adam_w_v2  # noqa: E402

F32 = np.float32
GOAL_VS_FLOOR = 8.0
ATTRS = dict(lr=1e-3, beta1=0.9, beta2=0.999, weight_decay=0.01, eps=1e-8, amsgrad=True, maximize=False)


def make_inputs(n: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    return dict(var=rng.standard_normal(n, dtype=F32), m=rng.standard_normal(n, dtype=F32) * F32(0.01),
                v=rng.uniform(0, 1e-4, n).astype(F32), max_grad_norm=rng.uniform(0, 2e-4, n).astype(F32),
                grad=rng.standard_normal(n, dtype=F32) * F32(0.01), step=np.array([41], np.int64))


def oracle(inp: dict) -> dict:
    return apply_adam_w_v2(inp["var"], inp["m"], inp["v"], inp["max_grad_norm"], inp["grad"], inp["step"],
                           **ATTRS)


def floor(inp: dict) -> list:
    """Read every input once, write four outputs of the same size."""
    outs = [inp[k].copy() for k in ("var", "m", "v", "max_grad_norm")]
    outs.append(float(inp["grad"].sum()))
    return outs


def best_of(fn, inp, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(inp)
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--log2-n", type=int, default=24)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    n = 1 << args.log2_n
    inp = make_inputs(n)
    t_oracle = best_of(oracle, inp, args.repeats)
    t_floor = best_of(floor, inp, args.repeats)
    ratio = t_oracle / t_floor
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"n = 2^{args.log2_n} float32 elements, best of {args.repeats}, load average {load:.1f}")
    print(f"oracle: {t_oracle:.3f} s ({t_oracle / n * 1e9:.1f} ns/element)")
    print(f"floor (read 5 inputs, write 4 outputs): {t_floor:.3f} s")
    print(f"oracle / floor = {ratio:.1f}x (goal <= {GOAL_VS_FLOOR:g}x: {'met' if ratio <= GOAL_VS_FLOOR else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
