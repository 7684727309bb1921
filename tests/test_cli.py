"""The console script: every command's help, the list command, where outputs go, the product a
device-bound backend runs as, and the reproducer a failure prints, run as printed."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance import cli
from aclnn_conformance.backends.aclnn import AclnnBackend
from aclnn_conformance.backends.base import ProductUnknown, bound_product
from aclnn_conformance.backends.reference import ReferenceBackend
from aclnn_conformance.plugin import EXIT_PRODUCT_UNKNOWN
from aclnn_conformance.reports.certify import PLAIN_ASSERTS
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.products import PRODUCT_IDS
from tests.representative import REPRESENTATIVE_OPS

ROOT = Path(__file__).resolve().parents[1]
COMMANDS = ("run", "list", "report", "diff", "compare", "merge", "replay", "certify", "verify",
            "mutate", "sensitivity", "mustpass", "doctor", "import", "export", "extract", "agreement",
            "contract-diff", "matrix", "scope")


def _main(argv: list[str], capsys) -> tuple[int, str, str]:
    """cli.main in process: (exit status, stdout, stderr); argparse's exits count as returns."""
    try:
        status = cli.main(argv)
    except SystemExit as exc:
        status = exc.code if isinstance(exc.code, int) else 1
    out = capsys.readouterr()
    return status, out.out, out.err


def _subparsers() -> dict:
    parser = cli.parser()
    (sub,) = [a for a in parser._actions if a.dest == "command"]
    return sub.choices


def test_top_level_help_lists_every_command(capsys):
    status, out, _ = _main(["--help"], capsys)
    assert status == 0
    listed = re.findall(r"^    ([\w-]+)", out, flags=re.M)
    assert sorted(listed) == sorted(COMMANDS)
    assert f"{EXIT_PRODUCT_UNKNOWN} the backend is tied" in out


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command, capsys):
    status, out, err = _main([command, "--help"], capsys)
    assert status == 0, err
    assert out.startswith(f"usage: aclnn-conformance {command}"), out[:200]


def test_list_products_backends_operators(capsys):
    status, out, _ = _main(["list", "products"], capsys)
    assert status == 0
    assert [line.split()[0] for line in out.splitlines()] == list(PRODUCT_IDS)
    status, out, _ = _main(["list", "backends"], capsys)
    assert status == 0
    names = {line.split()[0] for line in out.splitlines()[:-1]}
    assert {"aclnn", "emulator", "reference", "torch"} <= names
    status, out, _ = _main(["list", "operators"], capsys)
    assert status == 0
    for spec in OPS.values():
        assert f"{spec.key} " in out and spec.api in out and f"{len(spec.rules)} rules" in out


@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)
def test_list_rules_cites_every_rule_in_spec_order(op, capsys):
    status, out, _ = _main(["list", "rules", op], capsys)
    assert status == 0
    spec = OPS[op]
    heads = [line.split()[0] for line in out.splitlines() if re.match(r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+ ", line)]
    assert heads == [r.id for r in spec.rules] + [e.id for e in spec.errata]
    for rule in spec.rules:
        assert f"    source: {rule.source}" in out
        assert f"    says:   {rule.text}" in out


def test_list_rules_of_an_unknown_operator_is_one_line(capsys):
    status, out, err = _main(["list", "rules", "no_such_op"], capsys)
    assert status == 2 and out == ""
    assert err.count("\n") == 1 and "not an operator key or API name" in err
    assert "aclnn-conformance list operators" in err and "apply_adam_w_quant" not in err


@pytest.mark.parametrize("op", REPRESENTATIVE_OPS)
def test_list_rules_takes_the_api_name_too(op, capsys):
    by_key = _main(["list", "rules", op], capsys)
    by_api = _main(["list", "rules", OPS[op].api], capsys)
    assert by_api[0] == 0 and by_api == by_key


def test_every_api_name_selects_its_own_operator():
    from aclnn_conformance.spec.registry import operator_keys
    wrong = {op: operator_keys(spec.api) for op, spec in OPS.items() if operator_keys(spec.api) != (op,)}
    assert not wrong, wrong


def test_run_help_names_every_suite_option(capsys):
    status, out, _ = _main(["run", "--help"], capsys)
    assert status == 0
    for option in ("--backend", "--product", "--profile", "--tier", "--op", "--report-dir",
                   "--overwrite", "--case-timeout", "--isolation", "--hypothesis-seed"):
        assert f"  {option} " in out, option


def test_output_defaults_never_point_into_the_installation():
    """An output option is required, unset or relative to the current directory."""
    package = Path(cli.__file__).resolve().parent
    for name, sub in _subparsers().items():
        for action in sub._actions:
            if action.dest not in ("out", "readme"):
                continue
            default = action.default
            assert default is None or not Path(default).is_absolute(), (name, default)
            assert package not in Path(default or ".").resolve().parents, (name, default)


def test_mustpass_needs_out_and_sensitivity_leaves_readmes_alone(capsys):
    status, _, err = _main(["mustpass"], capsys)
    assert status == 2 and "--out" in err
    args = cli.parser().parse_args(["sensitivity"])
    assert args.readme is None and args.out == "out"


# ---- the product a backend is tied to ----

BOUND_BACKENDS = '''
from aclnn_conformance.backends.base import ProductUnknown
from aclnn_conformance.backends.reference import ReferenceBackend


class Bound(ReferenceBackend):
    def bound_product(self):
        return "ascend950"


class Lost(ReferenceBackend):
    def bound_product(self):
        raise ProductUnknown("no device here")
'''


def test_bound_product_hook():
    assert bound_product(ReferenceBackend()) is None
    with pytest.raises(ProductUnknown, match="no device can be reached"):
        bound_product(AclnnBackend(libraries=["/nonexistent/libascendcl.so"]))


def _collect(tmp_path: Path, backend: str, *extra: str) -> subprocess.CompletedProcess:
    (tmp_path / "bound_backends.py").write_text(BOUND_BACKENDS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    return subprocess.run([sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_rules.py", "--backend",
                           f"bound_backends:{backend}", "-k", "NULL-001", "--op", "apply_adam_w_quant",
                           "-p", "no:cacheprovider",
                           *extra], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]])
def test_a_bound_backend_runs_as_its_product(tmp_path, workers):
    run = _collect(tmp_path, "Bound", "-v", *workers)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "products=ascend950 " in run.stdout
    ran = re.findall(r"test_one_fault\[([\w-]+?)-(?:apply|weight)", run.stdout)
    assert ran and set(ran) == {"ascend950"}


def test_given_product_wins_over_the_bound_one(tmp_path):
    run = _collect(tmp_path, "Bound", "--product", "atlas-a2", "--collect-only", "-q")
    assert run.returncode == 0, run.stdout[-2000:]
    assert "[atlas-a2-" in run.stdout and "[ascend950-" not in run.stdout


def test_a_bound_backend_that_cannot_tell_needs_product(tmp_path):
    run = _collect(tmp_path, "Lost", "-q")
    assert run.returncode == EXIT_PRODUCT_UNKNOWN
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "no device here; pass --product" in lines[0], lines
    assert _collect(tmp_path, "Lost", "--product", "atlas-a2", "--collect-only", "-q").returncode == 0


# ---- reproducers ----

@pytest.mark.parametrize("started_in", ["checkout", "elsewhere"])
def test_printed_reproducers_run_as_printed(tmp_path, started_in):
    """A failure prints a pytest line and a replay line; pasted into the folder the run started
    in (the checkout, or any folder through the console script), with the environment's scripts
    on PATH (an activated venv), each reproduces the failure."""
    env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")])}
    options = ["-k", "weight-decay--0.5", "--op", "apply_adam_w_quant", "--backend",
               "aclnn_conformance.backends.mutants:DecayWhenWdNonpositive", "--product", "atlas-a2",
               "--report-dir", str(tmp_path / "out"), "-p", "no:cacheprovider", "-q"]
    if started_in == "checkout":
        folder, command = ROOT, [sys.executable, "-m", "pytest",
                                 "suites/test_operators.py::test_table"]
    else:
        folder = tmp_path / "elsewhere"
        folder.mkdir()
        command = [str(Path(sys.executable).parent / "aclnn-conformance"), "run", "-p", "no:xdist"]
        options[1] = "weight-decay--0.5 and test_table"
    first = subprocess.run([*command, *options], cwd=folder, env=env, capture_output=True,
                           text=True, timeout=600)
    assert first.returncode == 1, first.stdout[-3000:]
    block = first.stdout.split("  reproduce:\n", 1)[1].splitlines()
    commands = [line.strip() for line in block[:2]]
    assert commands[0].startswith("python -m pytest --pyargs ")
    assert " --op apply_adam_w_quant " in commands[0]   # the rerun builds only its operator's cases
    assert commands[1].startswith("python -m aclnn_conformance.reports replay ")
    for command in commands:
        again = subprocess.run(command, shell=True, cwd=folder, env=env, capture_output=True,
                               text=True, timeout=600)
        assert again.returncode == 1, (command, again.stdout[-3000:], again.stderr[-2000:])
        assert "FAIL" in again.stdout, (command, again.stdout[-3000:])
        assert "weight-decay--0.5" in again.stdout
