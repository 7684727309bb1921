"""aclnn-conformance: the console script. ``run`` runs the suites (pytest options pass through); the
other commands are the reports' (report, compare, diff, merge, replay, certify, verify, mutate,
sensitivity, mustpass)."""
from __future__ import annotations

import sys


def run(argv: list[str]) -> int:
    """The conformance suites through pytest, from any directory; unknown options go to pytest."""
    import pytest
    if argv[:1] in (["-h"], ["--help"]):
        print("usage: aclnn-conformance run [--backend NAME] [--product P] [--profile X] [--tier T]\n"
              "                             [--report-dir DIR] [pytest options...]\n\n"
              "Runs every conformance suite (pytest --pyargs aclnn_conformance.suites); every option\n"
              "is passed to pytest. See `pytest --help`, group aclnn-conformance, for the suite's own.")
        return 0
    return int(pytest.main(["--pyargs", "aclnn_conformance.suites", "-p", "no:cacheprovider",
                            *argv]))


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["run"]:
        return run(argv[1:])
    from aclnn_conformance.reports.__main__ import main as reports_main
    return reports_main(argv)


if __name__ == "__main__":
    sys.exit(main())
