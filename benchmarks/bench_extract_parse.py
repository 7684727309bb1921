"""Speed of the extraction of ops-math and ops-nn, beside a plain tree-sitter parse of the C++ it reads
(the common headers and every ``.h``/``.cpp`` of the op_api and op_host folders of the families read),
both measured in the same run.

    python benchmarks/bench_extract_parse.py /path/to/ops-math /path/to/ops-nn
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

from bench_extract import timed_extraction   # the sibling benchmark's timing (this folder is on sys.path)

from aclnn_conformance.extract.build import COMMON_HEADERS, open_checkout, taken_families
from aclnn_conformance.extract.syntax import parse_cpp


def cpp_files(root: Path) -> list[Path]:
    """The C++ files of ``root`` the extraction reads from: common headers, op_api and op_host folders."""
    paths = [p for folder in COMMON_HEADERS if (root / folder).is_dir() for p in (root / folder).rglob("*.h")]
    for family in taken_families(open_checkout(root)):
        for folder in ("op_api", "op_host"):
            paths += [p for p in (root / family).glob(f"*/{folder}/**/*") if p.suffix in (".h", ".cpp")]
    return sorted(set(paths))


def main(argv: list[str]) -> int:
    roots = [Path(a) for a in argv] or [Path("/work/vendor/ops-math"), Path("/work/vendor/ops-nn")]
    missing = [str(r) for r in roots if not r.is_dir()]
    if missing:
        print(f"skipped: no checkout at {', '.join(missing)} (pass the ops-math and ops-nn checkouts)")
        return 0
    texts = [p.read_text(errors="replace") for root in roots for p in cpp_files(root)]
    start = time.perf_counter()
    for text in texts:
        parse_cpp(text)
    t_parse = time.perf_counter() - start
    records, t_extract = timed_extraction(roots)
    mbytes = sum(len(t.encode("utf-8")) for t in texts) / 1e6
    print(f"plain parse: {len(texts)} C++ files, {mbytes:.1f} MB in {t_parse:.2f} s")
    print(f"extract:     {len(records)} APIs in {t_extract:.2f} s "
          f"({t_extract / max(t_parse, 1e-9):.0f}x the plain parse; goal under 120 s: "
          f"{'met' if t_extract < 120 else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
