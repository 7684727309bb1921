"""`aclnn-conformance compare` of the main job's report folder (every operator on all six products,
about 33,000 records), against a plain read of the same records in the same run (the baseline: each
line of records.jsonl parsed as JSON, nothing else).

    python benchmarks/bench_compare.py [--folder DIR] [--repeat 1]

The folder is reused when it holds records.jsonl; otherwise the main job's run makes it there
(`aclnn-conformance run -n 2 --report-dir DIR`, a few minutes). Prints the seconds of the plain
read and of the command (best of --repeat), and their ratio. Goal: the command under a minute.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOAL_S = 60.0
DEFAULT_FOLDER = Path(tempfile.gettempdir()) / "aclnn-conformance-main-job"


def main_job_folder(folder: Path) -> Path:
    """``folder`` holding a main job's records: reused, or made by the main job's run."""
    if not (folder / "records.jsonl").is_file():
        print(f"running the main job into {folder} (a few minutes) ...", flush=True)
        proc = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "run", "-n", "2",
                               "--report-dir", str(folder), "--overwrite", "-q"],
                              capture_output=True, text=True)
        if not (folder / "records.jsonl").is_file():
            raise SystemExit(f"the main job wrote no records (exit {proc.returncode}):\n"
                             f"{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return folder


def plain_read(folder: Path) -> tuple[float, int]:
    start = time.perf_counter()
    with open(folder / "records.jsonl", encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    return time.perf_counter() - start, len(records)


def compare(folder: Path) -> tuple[float, int]:
    """Wall time of the command as a user runs it, and the length of what it printed."""
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "compare", str(folder)],
                          capture_output=True, text=True)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"compare failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    return took, len(proc.stdout)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", type=Path, default=DEFAULT_FOLDER)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    folder = main_job_folder(args.folder)
    plain, records = min(plain_read(folder) for _ in range(args.repeat))
    took, printed = min(compare(folder) for _ in range(args.repeat))
    print(f"{folder}: {records} records, {(folder / 'records.jsonl').stat().st_size / 1e6:.1f} MB")
    print(f"plain read (baseline): {plain:6.2f} s")
    print(f"compare:               {took:6.2f} s ({printed / 1e6:.1f} MB of Markdown); "
          f"{took / plain:.0f} x the plain read")
    print(f"goal < {GOAL_S:.0f} s: {'met' if took < GOAL_S else 'NOT met'}")
    return 0 if took < GOAL_S else 1


if __name__ == "__main__":
    sys.exit(main())
