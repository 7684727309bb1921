"""Size and load time of the operator-data files whose rules repeat large dtype expressions, written
with each expression once (``shared``, as the project ships them) beside the same records written out
in full (the baseline), both measured in the same run: the bytes on disk and the time of
``load_operator_file`` (parse, resolve, build the record), the best of five loads each; both copies
sit in folders without value tables, so each builds the same status-only record.

    python benchmarks/bench_shared_expressions.py
"""
from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

from aclnn_conformance.spec.operator_data import load_operator_file, read_data
from aclnn_conformance.spec.registry import PROJECT_DATA

LOADS = 5


def _best_load(path: Path) -> float:
    best = float("inf")
    for _ in range(LOADS):
        start = time.perf_counter()
        load_operator_file(path)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    data = Path(PROJECT_DATA)
    shared = sorted(p for p in data.glob("*/*.json") if p.parent.name != "values"
                    and "shared" in json.loads(p.read_text(encoding="utf-8")))
    if not shared:
        print("skipped: no operator-data file holds shared expressions")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        rows, total = [], [0, 0, 0.0, 0.0]
        for path in shared:
            full, compact = (Path(tmp) / form / path.parent.name / path.name for form in ("full", "shared"))
            for copy in (full, compact):
                copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, compact)
            full.write_text(json.dumps(read_data(path), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
            t_shared, t_full = _best_load(compact), _best_load(full)
            sizes = (full.stat().st_size, compact.stat().st_size)
            rows.append((path.stem, *sizes, t_full, t_shared))
            total = [total[0] + sizes[0], total[1] + sizes[1], total[2] + t_full, total[3] + t_shared]
    print(f"{'operator':<34} {'full KB':>9} {'shared KB':>9} {'ratio':>7} {'full ms':>8} {'shared ms':>9} {'ratio':>6}")
    for name, full_b, shared_b, t_full, t_shared in sorted(rows, key=lambda r: -r[1])[:8]:
        print(f"{name:<34} {full_b / 1e3:>9.0f} {shared_b / 1e3:>9.0f} {full_b / shared_b:>6.1f}x "
              f"{t_full * 1e3:>8.1f} {t_shared * 1e3:>9.1f} {t_full / t_shared:>5.1f}x")
    print(f"{'all ' + str(len(rows)) + ' files':<34} {total[0] / 1e3:>9.0f} {total[1] / 1e3:>9.0f} "
          f"{total[0] / total[1]:>6.1f}x {total[2] * 1e3:>8.1f} {total[3] * 1e3:>9.1f} {total[2] / total[3]:>5.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
