"""How long the main command takes: every suite, both operators, all six products, the ci tier.

    python benchmarks/bench_suite_speed.py [--backend NAME] [--workers 1 2] [--tier ci]

For each worker count it runs ``python -m pytest suites --product all --tier ci -n N --report-dir
TMP`` and prints the wall time, the time the cases spent in check_case (the backend call and the
judgement: the sum of the records' duration_s), what that leaves to the harness (collection, case
building, hypothesis, pytest, xdist, reports), and the time the end-of-run reports take on their
own. The backend is the emulator when it is available here, else the reference. Goal: under
3 minutes with 2 workers.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GOAL_S = 180.0


def default_backend() -> str:
    from aclnn_conformance.backends.registry import UnknownBackend, load_backend
    try:
        ok, _ = load_backend("emulator").available()
    except UnknownBackend:
        ok = False
    return "emulator" if ok else "reference"


def run_once(backend: str, workers: int, tier: str) -> dict:
    from aclnn_conformance.reports.load import load_source
    from aclnn_conformance.reports.summary import finish_report_dir
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pytest", "suites", "--backend", backend, "--product", "all",
               "--tier", tier, "--report-dir", tmp, "-q", "-p", "no:cacheprovider",
               "-n", str(workers)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
        wall = time.perf_counter() - start
        if proc.returncode not in (0, 1):
            raise RuntimeError(f"pytest exited {proc.returncode}:\n"
                               f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
        records = load_source(tmp).records
        start = time.perf_counter()
        finish_report_dir(Path(tmp))
        reports = time.perf_counter() - start
    in_cases = sum(r.duration_s for r in records)
    return {"workers": workers, "wall_s": wall, "records": len(records), "in_cases_s": in_cases,
            "reports_s": reports, "exit": proc.returncode,
            "tail": proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else ""}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--backend", default=None, help="default: emulator if available, else reference")
    p.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    p.add_argument("--tier", default="ci")
    args = p.parse_args(argv)
    backend = args.backend or default_backend()
    print(f"suite speed: backend {backend}, tier {args.tier}, all products, workers {args.workers}")
    results = []
    for n in args.workers:
        r = run_once(backend, n, args.tier)
        results.append(r)
        harness = r["wall_s"] * n - r["in_cases_s"]
        print(f"-n {n}: wall {r['wall_s']:.1f} s, {r['records']} records "
              f"({r['records'] / r['wall_s']:.0f}/s); in check_case (backend + judge) "
              f"{r['in_cases_s']:.1f} s = {100 * r['in_cases_s'] / (r['wall_s'] * n):.0f}% of "
              f"{n} worker(s) x wall; harness and pytest {max(harness, 0):.1f} worker-s; "
              f"end-of-run reports {r['reports_s']:.1f} s; pytest: {r['tail']}")
    if len(results) > 1:
        base = results[0]
        for r in results[1:]:
            print(f"speed-up -n {base['workers']} -> -n {r['workers']}: "
                  f"{base['wall_s'] / r['wall_s']:.2f}x")
    two = next((r for r in results if r["workers"] == 2), None)
    if two is not None:
        verdict = "met" if two["wall_s"] < GOAL_S else "NOT met"
        print(f"goal: under {GOAL_S:.0f} s with 2 workers: {verdict} ({two['wall_s']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
