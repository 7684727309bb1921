"""Speed of the WeightQuantPreprocess oracle's NZ conversion against a plain NumPy copy.

Run from the repository root: ``python benchmarks/bench_weight_quant_preprocess.py``.

Each case converts a logical FP4 weight view ({K, N} or {G, K, N}, ``float4_e2m1fn``, one element
per byte, C-contiguous) into the packed FRACTAL_NZ_C0_32 bytes, and times ``np.copy`` of the very
same input array as the baseline: the copy reads the input once and writes as many bytes, while the
conversion reads it once and writes half as many (two FP4 per byte). The goal is a conversion
within 3x of the copy. Both are timed in the same run, interleaved, best of ``--repeats``.
The exit status is 0 whether or not the goal is met.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from aclnn_conformance.oracle.weight_quant_preprocess import (  # noqa: E402
    C0, N0, nz_packed_shape, to_fractal_nz_c0_32_packed,
)

GOAL_RATIO = 3.0

CASES = [
    # (label, shape of the logical view)
    ("MM  7168 x 7168 (K x N)", (7168, 7168)),
    # A MoE down-projection stack: 8 experts, K = 2048 (expert intermediate size), N = 7168
    # (hidden size), as in DeepSeek-V3.
    ("GMM 8 x 2048 x 7168 (G x K x N)", (8, 2048, 7168)),
    # A smaller MoE stack: 8 experts of a fused gate/up projection, K = 2048 (hidden size),
    # N = 2 x 768, as in Qwen3-30B-A3B. Its 24 MiB input fits in a large last-level cache, where
    # the copy runs at cache speed.
    ("GMM 8 x 2048 x 1536 (G x K x N)", (8, 2048, 1536)),
]


def _spot_check(weight_codes: np.ndarray, packed: np.ndarray, rng: np.random.Generator) -> None:
    """Check sampled elements of the packed result against the element mapping."""
    w3 = weight_codes.reshape((-1,) + weight_codes.shape[-2:])
    p = packed.reshape(-1)
    g, k, n = w3.shape
    k1, n1 = -(-k // C0), -(-n // N0)
    gi, ki, ni = (rng.integers(0, d, 4096) for d in (g, k, n))
    e = ((((gi * k1 + ki // C0) * n1 + ni // N0) * N0 + ni % N0) * C0 + ki % C0)
    nibble = np.where(e % 2 == 0, p[e // 2] & 0x0F, p[e // 2] >> 4)
    if not np.array_equal(nibble, w3[gi, ki, ni]):
        raise SystemExit("benchmark result does not match the element mapping")


def _bench(shape: tuple[int, ...], repeats: int, rng: np.random.Generator) -> tuple[float, float]:
    codes = rng.integers(0, 16, size=shape, dtype=np.uint8)
    weight = codes.view(ml_dtypes.float4_e2m1fn)
    packed = to_fractal_nz_c0_32_packed(weight)          # warm-up, and result for the spot check
    assert packed.shape == nz_packed_shape(shape[-2], shape[-1], *shape[:-2])
    _spot_check(codes, packed, rng)
    del packed
    np.copy(weight)                                      # warm-up
    copy_times, convert_times = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copy(weight)
        t1 = time.perf_counter()
        to_fractal_nz_c0_32_packed(weight)
        t2 = time.perf_counter()
        copy_times.append(t1 - t0)
        convert_times.append(t2 - t1)
    return min(copy_times), min(convert_times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15,
                        help="timed repeats per case (the best is kept)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)

    print(f"NumPy {np.__version__}, ml_dtypes {ml_dtypes.__version__}; "
          f"best of {args.repeats}; goal: conversion <= {GOAL_RATIO:g} x copy")
    if hasattr(os, "getloadavg"):
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs "
              f"(other work on the machine skews both timings)")
    met_count = 0
    for label, shape in CASES:
        elements = int(np.prod(shape))
        copy_s, convert_s = _bench(shape, args.repeats, rng)
        ratio = convert_s / copy_s
        met = ratio <= GOAL_RATIO
        met_count += met
        print(f"{label}: {elements / 1e6:.1f}M FP4 elements ({elements / 2**20:.1f} MiB as the "
              f"one-per-byte view, {elements / 2 / 2**20:.1f} MiB packed)")
        print(f"    np.copy of the input   {copy_s * 1e3:8.2f} ms")
        print(f"    NZ conversion (packed) {convert_s * 1e3:8.2f} ms   "
              f"ratio {ratio:.2f}x   goal {'met' if met else 'NOT met'}")
    print(f"goal met in {met_count} of {len(CASES)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
