"""What the main job's suite run costs per operator, and what it would take at 1,000 and 2,000
operators: the conformance suites (ci tier, every product, the emulator, two workers as the main
job runs them) timed on two fixed samples of the extracted operators, a line fitted through the two,
and the fit checked against a run of every operator in the same session (the baseline).

    python benchmarks/bench_ci_projection.py [--small 20] [--large 80] [--workers 2]

Prints each run's wall time, the fitted cost per operator, the projection for today's count (beside
the measured run of every operator: their ratio says how far the line can be trusted) and for 1,000
and 2,000 operators. Goal: the suite run of the main job within 5 minutes at 1,000 operators.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOAL_SECONDS = 300.0
TARGETS = (1000, 2000)


def suite_run(ops: list[str] | None, workers: int) -> float:
    """Wall time of the conformance suites on ``ops`` (every operator when None)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pytest", "--pyargs", "aclnn_conformance.suites", "-p",
               "aclnn_conformance.plugin", "-p", "no:cacheprovider", "-q", "--report-dir",
               str(Path(tmp) / "out"), "-n", str(workers)]
        cmd += ["--op", ",".join(ops)] if ops else []
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=tmp, capture_output=True, text=True)
        took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"the suite run failed: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=20)
    parser.add_argument("--large", type=int, default=80)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    from aclnn_conformance.spec.registry import is_data_operator, operators
    every = sorted(operators())
    data = [op for op in every if is_data_operator(op)]
    # a fixed, spread sample: every k-th extracted operator
    sample = {n: data[::max(1, len(data) // n)][:n] for n in (args.small, args.large)}
    times = {n: suite_run(ops, args.workers) for n, ops in sample.items()}
    whole = suite_run(None, args.workers)
    per_op = (times[args.large] - times[args.small]) / (args.large - args.small)
    fixed = times[args.small] - per_op * args.small
    for n, took in times.items():
        print(f"{n} operators: {took:.1f} s")
    print(f"every operator ({len(every)}): {whole:.1f} s (baseline)")
    print(f"fit: {fixed:.1f} s + {per_op:.3f} s per operator")
    today = fixed + per_op * len(every)
    print(f"projected for {len(every)}: {today:.1f} s; measured / projected = {whole / today:.2f}")
    worst = 0.0
    for target in TARGETS:
        projected = fixed + per_op * target
        worst = projected if target == TARGETS[0] else worst
        print(f"projected for {target} operators: {projected:.0f} s ({projected / 60:.1f} min)")
    met = worst <= GOAL_SECONDS
    print(f"goal: the suite run within {GOAL_SECONDS:.0f} s at {TARGETS[0]} operators: "
          f"{'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
