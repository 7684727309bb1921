"""What the main job and CI cost per operator, and what they would take at 1,000 and 2,000
operators, printed beside today's measured times.

    python benchmarks/bench_ci_projection.py [--workers 2] [--harness]

Each part is measured twice in the same session, at today's count and without the extracted
operators' share, and only the difference is scaled with the operator count (so the projection
assumes the new operators cost what today's cost on average):

- the suite run (ci tier, every product, the emulator, as the main job runs it): every operator,
  then one operator (``--op``); the difference is the extracted operators' share;
- ``mutate`` (ci tier, in process): every mutant, then the hand-written operators' mutants alone;
  the difference is the extracted operators' generated sets;
- ``sensitivity``: measured once and counted fixed (its rows are per arithmetic class);
- with ``--harness``, the harness's own tests (``pytest tests -n 2``, about 15 minutes), while every
  interpreter they start logs whether it read every operator-data file (the registry reads a file
  when its record is first asked for); their per-operator share is the read time per operator times
  those interpreters, plus the tests that loop over every record (timed here). Without
  ``--harness`` give ``--harness-seconds`` from a CI log.

CI (``.ci/run``) is the install and the harness's tests; the main job is measured apart.
Goals (issue 47): the main job within 5 minutes and CI within 20 at three times today's count.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGETS = (1000, 2000)
MAIN_GOAL_S, CI_GOAL_S = 300.0, 1200.0
INSTALL_S = 90.0   # .ci/run's install of .[torch,docs] on a fresh machine (at most 1.5 min seen)
# every interpreter the harness starts writes one line at exit: whether it read every data file
_SITE = """import atexit, os, sys
def _log():
    with open(os.environ["ACLNN_BENCH_PROCESS_LOG"], "a") as fh:
        registry = sys.modules.get("aclnn_conformance.spec.registry")
        found = registry and registry._found
        read, known = found.files_read() if hasattr(found, "files_read") else (0, 1)
        # "spec": it read every operator-data file (its share grows with the operator count)
        fh.write(("spec" if read == known else "other") + "\\n")
atexit.register(_log)
"""


def _timed(cmd: list[str], cwd: Path, env: dict | None = None) -> float:
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, env=env)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:6])} ... failed:\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return took


def suite_run(op: str | None, workers: int) -> float:
    """Wall time of the conformance suites on ``op`` (every operator when None)."""
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "pytest", "--pyargs", "aclnn_conformance.suites", "-p",
               "aclnn_conformance.plugin", "-p", "no:cacheprovider", "-q", "--report-dir",
               str(Path(tmp) / "out"), "-n", str(workers)]
        cmd += ["--op", op] if op else []
        return _timed(cmd, Path(tmp))


def mutate_times() -> tuple[float, float]:
    """(every mutant, the hand-written operators' mutants alone), ci tier, in process."""
    from aclnn_conformance.reports.mutate import default_selection, mutate
    from aclnn_conformance.spec.registry import is_data_operator
    hand = [cls for cls in default_selection("ci") if not is_data_operator(cls.op)]
    start = time.perf_counter()
    mutate("ci")
    every = time.perf_counter() - start
    start = time.perf_counter()
    mutate("ci", mutants=hand)
    return every, time.perf_counter() - start


def sensitivity_time() -> float:
    from aclnn_conformance.reports.sensitivity import run
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def registry_load_per_operator(count: int) -> float:
    """Seconds per operator an interpreter spends loading the registry (its imports subtracted)."""
    base = [sys.executable, "-c", "import numpy, ml_dtypes, pytest, hypothesis"]
    load = [sys.executable, "-c", "import numpy, ml_dtypes, pytest, hypothesis; "
                                  "from aclnn_conformance.spec import OPS; list(OPS.values())"]
    bare = min(_timed(base, ROOT) for _ in range(3))
    full = min(_timed(load, ROOT) for _ in range(3))
    return max(0.0, full - bare) / count


def record_loops() -> float:
    """The harness's tests that loop over every record (the rest run representative operators)."""
    return _timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                   "tests/test_spec_records.py::test_rule_ids_are_unique_cited_and_listed_in_check_order",
                   "tests/test_cli.py::test_every_api_name_selects_its_own_operator"], ROOT)


def harness_run(workers: int) -> tuple[float, int]:
    """(wall time of the harness's tests, interpreters that loaded the registry)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "sitecustomize.py").write_text(_SITE)
        log = Path(tmp) / "processes.log"
        env = {**os.environ, "ACLNN_BENCH_PROCESS_LOG": str(log),
               "PYTHONPATH": os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))}
        took = _timed([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n",
                       str(workers)], ROOT, env)
        return took, log.read_text().split().count("spec") if log.exists() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--harness", action="store_true", help="run the harness's tests too")
    parser.add_argument("--harness-seconds", type=float, default=None,
                        help="today's harness time from a CI log, when not run here")
    args = parser.parse_args()
    from aclnn_conformance.spec.registry import is_data_operator, operators
    every = sorted(operators())
    data = [op for op in every if is_data_operator(op)]
    n_data = len(data)

    whole, one = suite_run(None, args.workers), suite_run(data[0], args.workers)
    run_per_op = (whole - one) / (n_data - 1)
    mutate_all, mutate_hand = mutate_times()
    mutate_per_op = (mutate_all - mutate_hand) / n_data
    sens = sensitivity_time()
    main_today = whole + mutate_all + sens
    print(f"suite run: every operator ({len(every)}) {whole:.1f} s, one {one:.1f} s: "
          f"{run_per_op:.3f} s per extracted operator")
    print(f"mutate: every mutant {mutate_all:.1f} s, the hand-written operators' {mutate_hand:.1f} s: "
          f"{mutate_per_op:.3f} s per extracted operator")
    print(f"sensitivity: {sens:.1f} s (fixed)")
    print(f"main job today: {main_today:.0f} s (install and report writing aside)")

    harness = processes = None
    if args.harness:
        harness, processes = harness_run(args.workers)
    elif args.harness_seconds is not None:
        harness = args.harness_seconds
    per_load = registry_load_per_operator(len(every))
    loops = record_loops()
    if harness is not None:
        print(f"harness today: {harness:.0f} s" + (f", {processes} interpreters loaded the registry "
                                                   f"({per_load * 1000:.2f} ms per operator each)"
                                                   if processes is not None else ""))
        print(f"CI today (the harness with {INSTALL_S:.0f} s of install): {INSTALL_S + harness:.0f} s")
    ok = True
    for target in (3 * len(every), *TARGETS):
        extra = target - len(every)
        main_job = main_today + extra * (run_per_op + mutate_per_op)
        line = f"at {target} operators: main job {main_job:.0f} s ({main_job / 60:.1f} min)"
        if harness is not None:
            grown = harness + extra * (per_load * (processes or 0) / args.workers
                                       + loops / len(every))
            ci = INSTALL_S + grown   # .ci/run runs the test command; the main job is not in it
            line += f", harness {grown:.0f} s, CI {ci:.0f} s ({ci / 60:.1f} min)"
            ok &= target != 3 * len(every) or ci <= CI_GOAL_S
        ok &= target != 3 * len(every) or main_job <= MAIN_GOAL_S
        print(line)
    print(f"goals at three times today's count: main job within {MAIN_GOAL_S:.0f} s"
          + (f", CI within {CI_GOAL_S:.0f} s" if harness is not None else "")
          + f": {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
