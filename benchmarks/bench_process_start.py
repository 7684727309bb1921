"""What a fresh process pays before its first case, measured in the same run: the interpreter alone
(the baseline), then importing NumPy, ml_dtypes, one operator's record and every operator record
(``aclnn_conformance.spec.OPS``), each in a new interpreter; then a whole one-operator run
(``aclnn-conformance run --op gelu --product atlas-a2``) with pytest's assertion rewriting, as runs
started before, and as they start now (plain asserts). The best of five each; a run, each of its
xdist workers, and every command the harness's own tests start pay it once.

    python benchmarks/bench_process_start.py
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

STARTS = 5
PYTHON = [sys.executable, "-c"]
ONE_RUN = [sys.executable, "-m", "aclnn_conformance.cli", "run", "--op", "gelu", "--product",
           "atlas-a2", "-q", "-p", "no:xdist"]
STEPS = (("interpreter alone (baseline)", [*PYTHON, "pass"]),
         ("import numpy", [*PYTHON, "import numpy"]),
         ("import ml_dtypes", [*PYTHON, "import ml_dtypes"]),
         ("one operator's record", [*PYTHON, "from aclnn_conformance.spec import OPS; OPS['gelu']"]),
         ("every operator record", [*PYTHON, "from aclnn_conformance.spec import OPS; list(OPS.values())"]),
         ("one-operator run, rewriting", [*ONE_RUN, "--assert=rewrite"]),
         ("one-operator run (plain)", ONE_RUN))


def _best(command: list[str]) -> float:
    best = float("inf")
    for _ in range(STARTS):
        with tempfile.TemporaryDirectory() as tmp:
            report = ["--report-dir", str(Path(tmp) / "out")] if command[:3] == ONE_RUN[:3] else []
            start = time.perf_counter()
            subprocess.run([*command, *report], check=True, cwd=tmp, capture_output=True)
            best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    import ml_dtypes
    import numpy
    print(f"numpy {numpy.__version__}, ml_dtypes {ml_dtypes.__version__}, best of {STARTS} starts")
    base = _best(STEPS[0][1])
    print(f"{'step':<32}{'seconds':>9}{'x baseline':>12}")
    for name, command in STEPS:
        took = _best(command)
        print(f"{name:<32}{took:>9.2f}{took / base:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
