"""Speed of the QuantMatmulWeightNz (MX A8W4) oracle against NumPy's float32 matmul of the same sizes.

Run from the repository root: ``python benchmarks/bench_quant_matmul_weight_nz.py [--size 4096]``.

The oracle takes FP8 activations (M, K), their E8M0 scales, FP4 weight codes (K, N), their E8M0
scales and a bf16 bias, dequantizes, sums (float32 BLAS where the exact-regime predicate proves the
sum exact, float64 for the rows outside it), decides the regime per element and rounds once to bf16.
The baseline is ``a @ b`` on float32 arrays of the same (M, K) and (K, N), timed in the same run,
interleaved, best of ``--repeats``. The goal is the oracle within 3x of the baseline. Two value
draws: ``exact`` (the suites' default, inside the regime) and ``wide`` (outside it on purpose:
float64 rows). The exit status is 0 whether or not the goal is met.
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

from aclnn_conformance.oracle.quant_matmul_weight_nz import quant_matmul_mx  # noqa: E402

GOAL_RATIO = 3.0


def _inputs(size: int, regime: str, rng: np.random.Generator):
    m = k = n = size
    kb = -(-k // 64)
    if regime == "exact":
        x = rng.choice(np.arange(-16, 17) / 2, (m, k)).astype(np.float32)
        lo, hi = 126, 129
    else:
        x = rng.uniform(-448, 448, (m, k)).astype(np.float32)
        lo, hi = 117, 138
    return (x.astype(ml_dtypes.float8_e4m3fn), rng.integers(lo, hi, (m, kb, 2), dtype=np.uint8),
            rng.integers(0, 16, (k, n), dtype=np.uint8), rng.integers(lo, hi, (n, kb, 2), dtype=np.uint8),
            (rng.integers(-64, 64, n) / 2).astype(ml_dtypes.bfloat16))


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = K")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((args.size, args.size), dtype=np.float32)
    b = rng.standard_normal((args.size, args.size), dtype=np.float32)
    print(f"M = N = K = {args.size}; NumPy {np.__version__}; {os.cpu_count()} CPUs; best of {args.repeats}")
    for regime in ("exact", "wide"):
        x, xs, w, ws, bias = _inputs(args.size, regime, rng)
        result = quant_matmul_mx(x, xs, w, ws, bias, ml_dtypes.bfloat16)
        share = float(result.exact.mean())
        oracle, base = float("inf"), float("inf")
        for _ in range(args.repeats):          # interleaved: both see the same machine state
            base = min(base, _best(lambda: a @ b, 1))
            oracle = min(oracle, _best(lambda: quant_matmul_mx(x, xs, w, ws, bias, ml_dtypes.bfloat16), 1))
        ratio = oracle / base
        verdict = "meets" if ratio <= GOAL_RATIO else "misses"
        print(f"{regime:5s}: oracle {oracle:7.3f} s, float32 matmul {base:7.3f} s, ratio {ratio:5.2f} "
              f"({verdict} the {GOAL_RATIO:g}x goal); {100 * share:.1f} % of elements in the exact regime")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
