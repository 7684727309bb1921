"""Importing every op_api unit test of ops-math and ops-nn (the gtest files under tests/ut that call
OP_API_UT), beside a plain read of the same files in the same run.

    python benchmarks/bench_vendor_import.py /work/vendor/ops-math /work/vendor/ops-nn [--jobs 2]

Prints the files, the tests and expectations found, the cases imported, what was not imported, and
the seconds of each step; the import writes nothing (the case files are a separate, linear cost).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from aclnn_conformance.extract.syntax import parse_cpp, text_of, walk
from aclnn_conformance.vendor.importer import import_paths

TEST_MACROS = {"TEST", "TEST_F", "TEST_P"}


def test_count(text: str) -> int:
    """The tests a file defines: the test macros its syntax tree names as a function definition or,
    for a name the grammar cannot read (``TEST_F(suite, 001_name)``), as a call."""
    found = 0
    for node in walk(parse_cpp(text).root_node):
        name = (node.child_by_field_name("declarator") if node.type == "function_declarator"
                else node.child_by_field_name("function") if node.type == "call_expression" else None)
        found += name is not None and name.type == "identifier" and text_of(name) in TEST_MACROS
    return found


def unit_test_files(roots: list[str]) -> list[Path]:
    files = []
    for root in roots:
        for path in sorted(Path(root).rglob("*.cpp")):
            if "ut" in path.parts and "tests" in path.parts and "OP_API_UT" in path.read_text(
                    encoding="utf-8", errors="replace"):
                files.append(path)
    return files


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("roots", nargs="+")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    files = unit_test_files(args.roots)
    start = time.perf_counter()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in files]
    plain = time.perf_counter() - start
    tests = sum(test_count(t) for t in texts)
    start = time.perf_counter()
    result = import_paths(files, jobs=args.jobs)
    imported = time.perf_counter() - start
    print(f"{len(files)} unit-test files, {tests} tests (TEST/TEST_F/TEST_P), "
          f"{sum(len(t) for t in texts) / 1e6:.1f} MB")
    print(f"plain read:  {plain:6.2f} s")
    print(f"import:      {imported:6.2f} s with {args.jobs} process(es): {len(result.cases)} cases, "
          f"{len(result.problems)} tests or expectations not imported")
    print(result.summary())


if __name__ == "__main__":
    main()
