"""Speed of ``aclnn-conformance extract`` on the vendor checkouts, beside a plain read of the same
files (every document and op_api source of the families read, nothing parsed).

    python benchmarks/bench_extract.py /path/to/ops-math /path/to/ops-nn
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from aclnn_conformance.extract.build import (COMMON_HEADERS, DEFAULT_FAMILIES, extract_checkout, open_checkout,
                                             write_records)


def plain_read(roots: list[Path]) -> tuple[int, int]:
    files = nbytes = 0
    for root in roots:
        paths = [p for folder in COMMON_HEADERS if (root / folder).is_dir() for p in (root / folder).rglob("*.h")]
        for family in DEFAULT_FAMILIES.get(root.name, ()):
            paths += list((root / family).glob("*/docs/aclnn*.md"))
            paths += list((root / family).glob("*/op_api/aclnn_*.cpp"))
            paths += list((root / family).glob("*/op_host/op_api/aclnn_*.cpp"))
        for p in paths:
            nbytes += len(p.read_text(errors="replace"))
            files += 1
    return files, nbytes


def timed_extraction(roots: list[Path]) -> tuple[list, float]:
    """The records of extracting ``roots`` and writing them, and the seconds it took."""
    t0 = time.perf_counter()
    records = [r for root in roots for r in extract_checkout(open_checkout(root))]
    with tempfile.TemporaryDirectory() as out:
        write_records(records, Path(out))
    return records, time.perf_counter() - t0


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [Path("/work/vendor/ops-math"), Path("/work/vendor/ops-nn")]
    t0 = time.perf_counter()
    files, nbytes = plain_read(roots)
    t_read = time.perf_counter() - t0
    records, t_extract = timed_extraction(roots)
    print(f"plain read: {files} files, {nbytes / 1e6:.1f} MB in {t_read:.2f} s")
    print(f"extract:    {len(records)} APIs in {t_extract:.2f} s ({t_extract / max(t_read, 1e-9):.0f}x the plain read)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
