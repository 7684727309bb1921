"""What a fresh process pays before its first case, measured in the same run: the interpreter alone
(the baseline), then importing NumPy, ml_dtypes, and loading every operator record
(``aclnn_conformance.spec.OPS``), each in a new interpreter, the best of five; a run, each of its
xdist workers, and every command the harness's own tests start pay it once.

    python benchmarks/bench_process_start.py
"""
from __future__ import annotations

import subprocess
import sys
import time

STARTS = 5
STEPS = (("interpreter alone (baseline)", "pass"),
         ("import numpy", "import numpy"),
         ("import ml_dtypes", "import ml_dtypes"),
         ("every operator record", "from aclnn_conformance.spec import OPS; len(OPS)"))


def _best(code: str) -> float:
    best = float("inf")
    for _ in range(STARTS):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    import ml_dtypes
    import numpy
    print(f"numpy {numpy.__version__}, ml_dtypes {ml_dtypes.__version__}, best of {STARTS} starts")
    base = _best(STEPS[0][1])
    print(f"{'step':<32}{'seconds':>9}{'x baseline':>12}")
    for name, code in STEPS:
        took = _best(code)
        print(f"{name:<32}{took:>9.2f}{took / base:>12.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
