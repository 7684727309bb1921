"""Every outcome in the project's code is the ``Outcome`` enum: no module outside the one that defines
it spells an outcome as a bare string (a typo there would be a new, silent outcome)."""
from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from aclnn_conformance.spec.outcome import Outcome

ROOT = Path(__file__).resolve().parent.parent
DEFINES = "spec/outcome.py"
# the doctor's own line states (ok, MISSING, FAIL, WARN, -) are a checklist's words, not outcomes
OTHER_VOCABULARY = {"backends/aclnn/doctor.py": {"FAIL"}}


def _modules() -> list[str]:
    listed = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True)
    return [p for p in listed.stdout.split() if not p.startswith("tests/") and p != DEFINES]


def bare_outcomes(source: str) -> list[tuple[int, str]]:
    names = {o.value for o in Outcome}
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]


def test_no_bare_outcome_string_outside_the_enum():
    found = []
    for path in _modules():
        allowed = OTHER_VOCABULARY.get(path, set())
        found += [f"{path}:{line}: {value!r}" for line, value in
                  bare_outcomes((ROOT / path).read_text(encoding="utf-8")) if value not in allowed]
    assert not found, "bare outcome strings (use Outcome.<NAME>):\n" + "\n".join(found)


def test_the_check_finds_a_planted_one():
    assert bare_outcomes('x = "PASS"\ny = Outcome.PASS\nif r.outcome == "CRASH": pass\n') == \
        [(1, "PASS"), (3, "CRASH")]
