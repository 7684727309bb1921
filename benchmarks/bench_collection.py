"""How long pytest takes to collect the conformance suites for one operator, against collecting them
for every operator in the same run (the baseline): ``--op`` must build only the selected operator's
cases, not generate every operator's and deselect them.

    python benchmarks/bench_collection.py [--op apply_adam_w_quant] [--repeat 3]

Prints the best wall time of ``pytest suites --collect-only`` with and without ``--op`` and their
ratio. Goal: one operator collects in at most a quarter of the time every operator takes.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_RATIO = 0.25


def collect(extra: list[str]) -> tuple[float, str]:
    """Wall time of one collection of the suites, and pytest's summary line."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "suites", "--collect-only", "-q",
                           "-p", "no:cacheprovider", *extra], cwd=ROOT, capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"collection failed: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    summary = next((line for line in reversed(proc.stdout.splitlines())
                    if re.search(r"\d+ tests? collected", line)), "")
    return took, summary


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op", default="apply_adam_w_quant")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    every = min((collect([]) for _ in range(args.repeat)), key=lambda r: r[0])
    one = min((collect(["--op", args.op]) for _ in range(args.repeat)), key=lambda r: r[0])
    ratio = one[0] / every[0]
    print(f"every operator: {every[0]:.1f} s ({every[1]})")
    print(f"--op {args.op}: {one[0]:.1f} s ({one[1]})")
    print(f"one / every = {ratio:.2f} (goal <= {GOAL_RATIO}: {'met' if ratio <= GOAL_RATIO else 'NOT met'})")
    return 0 if ratio <= GOAL_RATIO else 1


if __name__ == "__main__":
    sys.exit(main())
