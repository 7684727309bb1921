"""``run --cases DIR --op OP`` runs the imported cases of that operator (its key or API name) and no
other: each imported case is selected by the operator whose folder the import wrote it in."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from aclnn_conformance.reports.certify import PLAIN_ASSERTS

REPO = Path(__file__).resolve().parent.parent
CASES = REPO / "tests" / "vendor_cases"


def _collected(*extra: str) -> list[str]:
    proc = subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_vendor_cases.py", "--cases",
                           str(CASES), "--product", "ascend950", "--collect-only", "-q",
                           "-p", "no:cacheprovider", *extra], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return [line for line in proc.stdout.splitlines() if "::test_vendor_case[" in line]


def test_op_selects_the_imported_cases_of_one_operator():
    every = _collected()
    folders = {Path(p).name for p in CASES.iterdir() if p.is_dir()}
    assert len(folders) >= 2 and every
    for op in ("apply_adam_w", "aclnnApplyAdamWV2"):
        key = "apply_adam_w_v2" if op.startswith("aclnn") else op
        chosen = _collected("--op", op)
        assert chosen and all(f"[{key}/" in line for line in chosen), chosen[:3]
        assert len(chosen) == sum(f"[{key}/" in line for line in every)
