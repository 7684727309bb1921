"""aclnn-conformance: the console script.

``run`` runs the suites (every option passes through to pytest), ``list`` shows what the suite knows
(backends, products, operators, an operator's rules with their citations), ``doctor`` checks the
aclnn backend on this machine, and the reports' commands (report, compare, diff, merge, replay,
certify, verify, mutate, sensitivity, mustpass) work on records. Every output goes where the command
line says (a relative path is taken from the current directory), never into the installation.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from aclnn_conformance.spec.rules import Expect

PROG = "aclnn-conformance"
EXIT_STATUS = """exit status:
  run       pytest's: 0 all passed, 1 failures, 2 interrupted, 3 internal error, 4 usage error
            (an unknown backend, product or profile, a bad --report-dir), 5 no test collected;
            6 nothing judged, 7 incomplete (a collected test ended without a record);
            8 the backend is tied to a device whose product it cannot tell and no --product
  doctor    0 the aclnn backend is wired, 1 something is missing or failing
  reports   0 success, 1 a failed gate (regression, not certifiable, a surviving mutant),
            2 unusable input (malformed records, missing files, unknown names)
"""
RUN_HELP = f"""usage: {PROG} run [--backend NAME] [--product P] [--profile X] [--tier T]
                         [--op OP] [--report-dir DIR [--overwrite]] [--case-timeout S]
                         [--isolation auto|on|off] [--hypothesis-seed N] [pytest options...]

Runs every conformance suite (pytest --pyargs aclnn_conformance.suites) from any directory; every
option is passed to pytest (-n 2, -x, -q, -k EXPR ...).

suite options:
  --backend NAME     emulator (default), reference, torch, aclnn, a plug-in's entry-point name, or
                     module:attribute (a class, a factory or an instance)
  --product P        all, one product id or a comma-separated list (aclnn-conformance list products);
                     default: the product the backend is tied to (the aclnn backend: the device's),
                     else all
  --profile X        cann (default) or doc
  --tier T           ci (default) or full
  --op OP            only these operators' cases (comma-separated keys or API names: {PROG} list
                     operators)
  --report-dir DIR   write records.jsonl, run.json, the reports and every failing case into DIR
                     (a folder holding an earlier run or reports is refused)
  --overwrite        let --report-dir replace the earlier run or reports it holds
  --case-timeout S   run each case in a child process; record CRASH, or TIMEOUT after S seconds
                     (a positive number, at most a week)
  --isolation M      auto (default: native-code backends run in a child process), on, off
  --hypothesis-seed N  draw hypothesis examples from this seed, a whole number from 0 to 2**64-1
                     (the ci tier is derandomized without it); run.json records it. Hypothesis
                     keeps its files in $HYPOTHESIS_STORAGE_DIRECTORY, else ~/.cache/aclnn-conformance,
                     never in the current directory
  --cases DIR        run only the vendor cases `aclnn-conformance import` wrote to DIR, each on
                     the product its file states (or --product)

{EXIT_STATUS}"""
DESCRIPTION = ("A conformance suite and validation harness for Huawei CANN aclnn operators. Every "
               "output goes where the command line says (relative paths from the current "
               "directory), never into the installation.")


def pytest_usage_error() -> int:
    """pytest's exit status of a usage error (4), the one run documents for a bad option."""
    import pytest
    return int(pytest.ExitCode.USAGE_ERROR)


def run(argv: list[str]) -> int:
    """The conformance suites through pytest, from any directory; unknown options go to pytest."""
    if argv[:1] in (["-h"], ["--help"]):
        print(RUN_HELP, end="")
        return 0
    import pytest
    # --cases runs the imported vendor cases alone, not every suite
    target = ("aclnn_conformance.suites.test_vendor_cases"
              if any(a == "--cases" or a.startswith("--cases=") for a in argv)
              else "aclnn_conformance.suites")
    from aclnn_conformance.reports.certify import PLAIN_ASSERTS
    # the plugin by name as well as by entry point: a checkout on the path runs without installing
    return int(pytest.main(["--pyargs", target, "-p", "aclnn_conformance.plugin",
                            "-p", "no:cacheprovider", *PLAIN_ASSERTS, *argv]))


def doctor(argv: list[str]) -> int:
    from aclnn_conformance.backends.aclnn.doctor import main as doctor_main
    return doctor_main(argv)


# ---- list ----

def _expect_text(expect) -> str:
    """A profile's expectation: one status, or one per product and the rest."""
    from aclnn_conformance.spec.rules import ByProduct
    if isinstance(expect, ByProduct):
        parts = [f"{product} {e.describe()}" for product, e in expect.by.items()]
        return ", ".join(parts + [f"else {expect.default.describe()}"])
    return expect.describe()


def list_backends() -> list[str]:
    from aclnn_conformance.backends.registry import BUILTIN, DEFAULT_BACKEND, _plugin_entry_points
    plugins = _plugin_entry_points()
    lines = []
    for name in sorted({*BUILTIN, *plugins}):
        target = BUILTIN.get(name) or plugins[name]
        origin = "built in" if name in BUILTIN else "entry point"
        default = ", the default" if name == DEFAULT_BACKEND else ""
        lines.append(f"{name:<12} {target}  ({origin}{default})")
    lines.append("or any module:attribute naming a backend class, factory or instance")
    return lines


def list_products() -> list[str]:
    from aclnn_conformance.spec.products import PRODUCTS
    return [f"{p.id:<18} {p.name}  [{p.arch}]" for p in PRODUCTS]


def list_operators() -> list[str]:
    from aclnn_conformance.spec import OPS
    lines = []
    for spec in OPS.values():
        supported = "; ".join(f"{profile}: {', '.join(sorted(products)) or 'none'}"
                              for profile, products in spec.supported.items())
        lines.append(f"{spec.key:<22} {spec.api}  {len(spec.rules)} rules, "
                     f"{len(spec.errata)} errata  (supported on {supported})")
        lines.append(f"{'':<22} document: {spec.doc}")
    return lines


# what --status takes beside a status: the kinds of expectation that name no status
EXPECT_KINDS = ("any_error", "not_judged", "not_covered", "judged", "unchecked")


def status_filter(text: str) -> Callable[[Expect], bool]:
    """--status as a test of one expectation: a status (name or code) or a kind of expectation."""
    from aclnn_conformance.spec.enums import status_code
    kind = text.strip().lower().replace(" ", "_").replace("-", "_")
    if kind in EXPECT_KINDS:
        return lambda expect: expect.kind == kind
    try:
        code = status_code(text)
    except ValueError:
        raise ValueError(f"--status {text}: give a status name (ACLNN_ERR_PARAM_INVALID), its code "
                         f"(161002) or one of {', '.join(EXPECT_KINDS)}") from None
    return lambda expect: expect.kind == "status" and expect.status == code


def list_rules(op: str, product: str | None = None, status: str | None = None) -> list[str]:
    """Every rule of ``op`` (its key or API name) in the spec's order: id, kind, category, step,
    what each profile expects when it is broken, the document's sentence and where it comes from;
    then the errata. ``product``: only the rules enforced there, with what each profile expects
    there; ``status``: only the rules that expect it (there, or on some product)."""
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.products import product as product_info
    from aclnn_conformance.spec.rules import ByProduct
    spec = op_spec(op)
    if product is not None:
        product_info(product)   # an unknown product: one line, valid ids named
    wanted = status_filter(status) if status is not None else None

    def expectations(rule) -> list:
        """Each profile's expectation on ``product``, or on every product and the rest."""
        if product is not None:
            return [rule.expect_for(profile, product) for profile in rule.expect]
        return [e for exp in rule.expect.values()
                for e in ((*exp.by.values(), exp.default) if isinstance(exp, ByProduct) else (exp,))]

    lines = [f"{spec.api} ({spec.key}): {spec.doc}", ""]
    shown = 0
    for rule in spec.rules:
        expects = expectations(rule)
        if product is not None and all(e.kind == "unchecked" for e in expects):
            continue
        if wanted is not None and not any(wanted(e) for e in expects):
            continue
        shown += 1
        where = f", step {rule.step}" if rule.step else ""
        lines.append(f"{rule.id}  {rule.kind}, {rule.category}{where}, {rule.phase}")
        for profile, expect in rule.expect.items():
            text = (rule.expect_for(profile, product).describe() if product is not None
                    else _expect_text(expect))
            lines.append(f"    {profile}: {text}")
        lines.append(f"    says:   {rule.text}")
        lines.append(f"    source: {rule.source}")
        if rule.note:
            lines.append(f"    note:   {rule.note}")
    if product is not None or status is not None:   # the count, under the operator's line
        on = f" on {product}" if product is not None else f" on any of {len(PRODUCT_IDS)} products"
        lines[1:1] = [f"{shown} of {len(spec.rules)} rules"
                      + (f" expect {status}" if status is not None else " are enforced") + on]
    for erratum in spec.errata:
        lines += ["", f"{erratum.id}  erratum", f"    doc says:  {erratum.doc_says}",
                  f"    cann does: {erratum.cann_does}", f"    source:    {erratum.source}"]
    return lines


def cmd_list(args: argparse.Namespace) -> int:
    if args.what != "rules" and (args.product or args.status or args.op):
        print(f"error: list {args.what} takes no operator, --product or --status (they filter "
              f"list rules)", file=sys.stderr)
        return 2
    if args.what == "rules":
        if not args.op:
            print("error: list rules needs an operator (aclnn-conformance list operators)",
                  file=sys.stderr)
            return 2
        try:
            lines = list_rules(args.op, args.product, args.status)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    else:
        lines = {"backends": list_backends, "products": list_products,
                 "operators": list_operators}[args.what]()
    print("\n".join(lines))
    return 0


def suite_cases(ops: list[str]) -> list:
    """Every operator's table cases (ci tier) and one-fault cases, as the suites build them."""
    from aclnn_conformance.spec import op_spec
    from aclnn_conformance.spec.faults import fault_cases
    from aclnn_conformance.spec.single_calls import table_cases
    return [case for op in ops for case in (*table_cases(op, "ci"), *fault_cases(op_spec(op)))]


def cmd_export(args: argparse.Namespace) -> int:
    from aclnn_conformance.spec import OPS, op_spec
    from aclnn_conformance.spec.products import product
    from aclnn_conformance.vendor.export import export_cases
    try:
        ops = [op_spec(args.op).key] if args.op else list(OPS)
        product(args.product)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    result = export_cases(suite_cases(ops), args.format, args.out, args.product)
    for line in result.skipped[:10]:
        print(f"not exported: {line}", file=sys.stderr)
    print(result.summary())
    return 0


def parser() -> argparse.ArgumentParser:
    from aclnn_conformance.reports.__main__ import OneLineParser, add_commands
    p = OneLineParser(prog=PROG, description=DESCRIPTION,
                      formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog=EXIT_STATUS + f"\n`{PROG} COMMAND --help` describes a command.")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    # run and doctor are listed here for the help; main() hands their arguments on untouched
    sub.add_parser("run", help="run the conformance suites (pytest options pass through)",
                   add_help=False)
    s = sub.add_parser("list", help="backends, products, operators, or an operator's rules")
    s.add_argument("what", choices=("backends", "products", "operators", "rules"))
    s.add_argument("op", nargs="?", metavar="OP",
                   help="the operator whose rules to list (rules): its key or API name")
    s.add_argument("--product", metavar="P",
                   help="rules: only those enforced on this product, with what each profile "
                        "expects there")
    s.add_argument("--status", metavar="S",
                   help="rules: only those expecting this status (ACLNN_ERR_PARAM_INVALID or "
                        f"161002) or kind ({', '.join(EXPECT_KINDS)})")
    s.set_defaults(func=cmd_list)
    sub.add_parser("doctor", help="check the aclnn backend: libraries, device, one call per operator",
                   add_help=False)
    s = sub.add_parser("import", help="the vendor's own cases (gtest unit tests, their CSV tables, "
                                      "ATK json, TTK csv) as case files")
    s.add_argument("paths", nargs="+", metavar="PATH", help="vendor files or folders")
    s.add_argument("--out", required=True, metavar="CASES_DIR", help="where the case files go")
    s.add_argument("--storages", action="store_true",
                   help="also write each case's storages (.npz); without it the case file's seed "
                        "and value recipes rebuild them")
    s.add_argument("--jobs", type=int, default=None, help="processes (default: up to 2)")
    s.add_argument("--overwrite", action="store_true",
                   help="let --out replace the earlier import it holds (refused without it)")
    s = sub.add_parser("export", help="the suite's cases in the vendor's formats: valid calls as TTK "
                                      "rows or ATK cases, fault calls as op_api gtest source")
    s.add_argument("--format", required=True, choices=("ttk", "atk", "gtest"))
    s.add_argument("--out", required=True, metavar="DIR")
    s.add_argument("--op", default=None, help="one operator (default: every operator)")
    s.add_argument("--product", default="ascend950",
                   help="the product whose expectations are written (default ascend950)")
    add_commands(sub)
    from aclnn_conformance.extract.cli import add_command
    add_command(sub)
    from aclnn_conformance.extract import agreement, contract_diff
    agreement.add_command(sub)
    contract_diff.add_command(sub)
    from aclnn_conformance.reports import matrix, usage
    matrix.add_command(sub)
    usage.add_command(sub)
    return p


def take_spec_data(argv: list[str]) -> list[str]:
    """Remove every ``--spec-data DIR`` (any command, any position) from ``argv`` and add each folder
    to the registry and to ACLNN_CONFORMANCE_SPEC_DATA, so that pytest and its workers see it too."""
    import os
    from pathlib import Path
    from aclnn_conformance.spec.registry import SPEC_DATA_ENV, add_data_folder
    rest, folders = [], []
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg == "--spec-data":
            if i + 1 == len(argv) or argv[i + 1].startswith("-"):
                raise ValueError("--spec-data needs a folder of operator-data files")
            folders.append(argv[i + 1])
            i += 2
            continue
        if arg.startswith("--spec-data="):
            folders.append(arg.split("=", 1)[1])
            i += 1
            continue
        rest.append(arg)
        i += 1
    for folder in folders:
        add_data_folder(folder)
        present = [p for p in os.environ.get(SPEC_DATA_ENV, "").split(os.pathsep) if p]
        os.environ[SPEC_DATA_ENV] = os.pathsep.join([*present, str(Path(folder).resolve())])
    return rest


def _command(argv: list[str]) -> str:
    """The command word of ``argv``, past any ``--spec-data`` given before it."""
    i = 0
    while i < len(argv) and argv[i].startswith("--spec-data"):
        i += 1 if "=" in argv[i] else 2
    return argv[i] if i < len(argv) else ""


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] != ["extract"]:
        try:
            argv = take_spec_data(argv)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            # run's statuses are pytest's, where 2 means interrupted and 4 a usage error
            return pytest_usage_error() if _command(argv) == "run" else 2
    if argv[:1] == ["run"]:
        return run(argv[1:])
    if argv[:1] == ["doctor"]:
        return doctor(argv[1:])
    args = parser().parse_args(argv)
    if args.command == "list":
        return cmd_list(args)
    if args.command == "export":
        return cmd_export(args)
    if args.command in ("extract", "agreement", "contract-diff", "matrix", "scope"):
        return args.func(args)
    if args.command == "import":
        from aclnn_conformance.vendor.importer import cli_import
        return cli_import(args.paths, args.out, args.storages, args.jobs, args.overwrite)
    from aclnn_conformance.reports.__main__ import dispatch
    return dispatch(args)


if __name__ == "__main__":
    sys.exit(main())
