"""python -m reports: compliance reports, comparisons, baseline diffs, replay, merge, certification.

  report   RUN_DIR... [--out DIR]            report.md/.csv/.json/.html from any set of records
  compare  RUN_DIR... [--out FILE]           rules against (backend, product), differences first
  diff     BASELINE CURRENT [--out FILE]     transitions; exit 1 on pass->fail or new/removed cases
  merge    DIR... --out DIR [--overwrite]    shards of runs into one directory (and its reports)
  replay   CASE_FILE --backend NAME [--product P] [--profile X]
  certify  --backend NAME --product P --out BUNDLE_DIR [--op OP] [--sign-key KEY]
  verify   BUNDLE [--allowed-signers FILE] [--rerun K --backend NAME]
  mustpass --out FILE [--from RUN_DIR]       regenerate the must-pass list
  mutate   [--tier T] [--mutants A,B] [--products P,Q] [--out DIR] [--exhaustive]
                                             every mutant against the tier's cases; exit 1 if one
                                             survives or its kill does not name its defect
  sensitivity [--out DIR] [--readme FILE]    the error each precision standard can see

Exit status: 0 success, 1 a failed gate (regression, not certifiable, verification errors),
2 unusable input (malformed records, duplicate cases across runs, missing files).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import NoReturn

from aclnn_conformance.judging.records import RecordError


def _write_or_print(text: str, out: str | None) -> None:
    sys.stdout.write(text)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(text, encoding="utf-8")


EXIT_UNUSABLE = 2


class WouldOverwrite(FileExistsError):
    """An output would replace a file the command did not write, or one of its own inputs."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the command, what is wrong, where its help is)
    instead of a usage block; its subcommands' parsers are of this class too."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_UNUSABLE, f"{self.prog}: error: {message} ({self.prog} --help)\n")


def count(text: str) -> int:
    """An argparse type: a whole number of things (workers, cases), 0 or more."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 0:
        raise argparse.ArgumentTypeError(f"{number} is negative: give 0 or more")
    return number


def _check_output_folder(out: Path) -> None:
    """``--out`` is a folder, or can be made one, before the command does any work."""
    if out.exists() and not out.is_dir():
        raise WouldOverwrite(f"--out {out} is a file, not a folder")
    nearest = next(p for p in (out, *out.absolute().parents) if p.exists())
    if not nearest.is_dir() or not os.access(nearest, os.W_OK):
        raise ValueError(f"--out {out} cannot be made: {nearest} is not a writable folder")


def _input_folders(paths) -> set[Path]:
    return {(Path(p) if Path(p).is_dir() else Path(p).parent).resolve() for p in paths}


def _refuse_foreign_outputs(out: Path, patterns: tuple[str, ...], inputs: set[Path],
                            overwrite: bool) -> None:
    """Refuse to write into ``out`` over files matching ``patterns`` that are not the outputs of
    its own inputs (``out`` is not one of them), unless ``overwrite``."""
    if overwrite or out.resolve() in inputs or not out.is_dir():
        return
    present = sorted(p.name for pattern in patterns for p in out.glob(pattern))
    if present:
        raise WouldOverwrite(f"{out} already holds {', '.join(present[:4])}, which this command "
                             f"did not write: pass --overwrite to replace them, or choose another "
                             f"folder")


def _warn_count_mismatches(runset) -> int:
    """Print a warning for each run whose run.json counts other records than there are; the
    command's exit status (0 or EXIT_UNUSABLE)."""
    from aclnn_conformance.reports.load import count_mismatches
    problems = count_mismatches(runset)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    return EXIT_UNUSABLE if problems else 0


def _writing(command: str, runset):
    """The progress of writing a set's reports (tens of seconds for the main job's records), said
    once the records are read: unusable input stays a one-line error."""
    from aclnn_conformance.reports.progress import Progress
    return Progress(command, unit="records",
                    start=f"{len(runset.records)} records read; writing the reports")


def cmd_report(args) -> int:
    from aclnn_conformance.reports.load import load
    from aclnn_conformance.reports.report import terminal_summary, write_reports
    from aclnn_conformance.reports.summary import settle_unfinished_run
    for run_dir in args.runs:   # a killed run's folder: its shards merged, its last case named
        settled = settle_unfinished_run(Path(run_dir)) if Path(run_dir).is_dir() else ""
        if settled:
            print(f"{run_dir}: INCOMPLETE: {settled}")
    runset = load(args.runs)
    out = Path(args.out) if args.out else (Path(args.runs[0]) if Path(args.runs[0]).is_dir()
                                           else Path(args.runs[0]).parent)
    _refuse_foreign_outputs(out, ("report.*", "rules.csv"), _input_folders(args.runs),
                            args.overwrite)
    with _writing("report", runset):
        doc, paths = write_reports(runset, out)
    print(terminal_summary(doc, paths))
    return _warn_count_mismatches(runset)


def cmd_compare(args) -> int:
    from aclnn_conformance.reports.compare import compare, render
    from aclnn_conformance.reports.load import load
    _write_or_print(render(compare(load(args.runs))), args.out)
    return 0


def cmd_diff(args) -> int:
    from aclnn_conformance.reports.diff import diff, render
    from aclnn_conformance.reports.load import load_source
    baseline, current = load_source(args.baseline), load_source(args.current)
    d = diff(baseline, current)
    _write_or_print(render(d, args.baseline, args.current), args.out)
    mismatch = max(_warn_count_mismatches(baseline), _warn_count_mismatches(current))
    return mismatch or (1 if d.failed else 0)


def cmd_merge(args) -> int:
    from aclnn_conformance.reports.load import check_shards, load_source, merge, write_runset
    from aclnn_conformance.reports.report import terminal_summary, write_reports
    out = Path(args.out)
    if not args.overwrite:
        if out.resolve() in _input_folders(args.dirs):
            raise WouldOverwrite(f"--out {out} is one of the folders being merged: merge into "
                                 f"another folder, or pass --overwrite to rewrite it")
        _refuse_foreign_outputs(out, ("records.jsonl", "run.json", "runs", "report.*"), set(),
                                False)
    sets = [load_source(d) for d in args.dirs]
    check_shards(sets)   # a split run merges whole: no shard missing, none twice
    runset = merge(sets)
    with _writing("merge", runset):
        out = write_runset(out, runset)
        doc, paths = write_reports(runset, out)
    print(f"merged {len(runset.records)} records of {len(runset.runs)} run(s) into {out}")
    print(terminal_summary(doc, paths))
    return 0


def cmd_replay(args) -> int:
    from aclnn_conformance.reports.replay import exit_code, replay
    from aclnn_conformance.spec.products import product as product_info
    if args.product is not None:
        product_info(args.product)  # an unknown product id: one line, before the case is run
    r = replay(args.case_file, args.backend, args.product, args.profile)
    print(r.text)
    return exit_code(r)


def cmd_certify(args) -> int:
    from aclnn_conformance.reports.certify import CertificationError, certify, render_verify
    from aclnn_conformance.spec.registry import operator_keys
    ops = operator_keys(args.op or "")   # keys or API names; an unknown one says what is near
    try:
        bundle, errors, warnings = certify(args.backend, args.product, args.out, args.workers,
                                           args.mustpass, sign_key=args.sign_key, ops=ops)
    except CertificationError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_UNUSABLE
    print(render_verify(bundle, errors, warnings))
    return 1 if errors else 0


def cmd_verify(args) -> int:
    from aclnn_conformance.reports.certify import render_verify, verify
    if not Path(args.bundle).is_dir():
        raise FileNotFoundError(f"{args.bundle}: no such bundle folder")
    reran: list = []
    errors, warnings = verify(Path(args.bundle), args.mustpass,
                              allowed_signers=args.allowed_signers, rerun=args.rerun,
                              backend=args.backend, reran=reran)
    print(render_verify(Path(args.bundle), errors, warnings, reran))
    return 1 if errors else 0


def cmd_mustpass(args) -> int:
    from aclnn_conformance.reports.certify import generate_mustpass
    n = generate_mustpass(args.out, args.workers, args.from_dir)
    print(f"{n} must-pass entries written to {args.out}")
    return 0


def cmd_mutate(args) -> int:
    from aclnn_conformance.backends.mutants import by_name
    from aclnn_conformance.reports.mutate import mutate, render_text, write
    from aclnn_conformance.reports.report import refresh_report
    from aclnn_conformance.spec.products import parse_products
    mutants = None
    if args.mutants:
        mutants = [by_name(m.strip()) for m in args.mutants.split(",") if m.strip()]
    products = parse_products(args.products) if args.products else None
    _check_output_folder(Path(args.out))
    _refuse_foreign_outputs(Path(args.out), ("mutation.*",), set(), args.overwrite)
    doc = mutate(args.tier, mutants, products, exhaustive=args.exhaustive)
    print(render_text(doc), end="")
    paths = write(doc, args.out) + refresh_report(args.out)
    print("written: " + ", ".join(str(p) for p in paths))
    return 0 if doc["passed"] else 1


def cmd_sensitivity(args) -> int:
    from aclnn_conformance.reports.report import refresh_report
    from aclnn_conformance.reports.sensitivity import render_text, run, update_readme, write
    _check_output_folder(Path(args.out))
    _refuse_foreign_outputs(Path(args.out), ("sensitivity.*",), set(), args.overwrite)
    doc = run()
    print(render_text(doc), end="")
    paths = write(doc, args.out) + refresh_report(args.out)
    if args.readme:
        paths.append(update_readme(doc, args.readme))
    print("written: " + ", ".join(str(p) for p in paths))
    return 0


def add_commands(sub: argparse._SubParsersAction) -> None:
    """The reports' commands, as subcommands of ``sub`` (this module's parser and the console
    script's share them)."""
    from aclnn_conformance.reports.certify import MUSTPASS
    s = sub.add_parser("report", help="compliance reports from run directories or records files")
    s.add_argument("runs", nargs="+", metavar="RUN_DIR")
    s.add_argument("--out", help="directory to write into (default: the first RUN_DIR)")
    s.add_argument("--overwrite", action="store_true",
                   help="replace reports in --out that these records did not write")
    s.set_defaults(func=cmd_report)

    s = sub.add_parser("compare", help="rules against (backend, product) columns")
    s.add_argument("runs", nargs="+", metavar="RUN_DIR")
    s.add_argument("--out", help="also write the Markdown to this file")
    s.set_defaults(func=cmd_compare)

    s = sub.add_parser("diff", help="baseline against current run; exit 1 on a regression")
    s.add_argument("baseline", metavar="BASELINE")
    s.add_argument("current", metavar="CURRENT")
    s.add_argument("--out", help="also write the Markdown to this file")
    s.set_defaults(func=cmd_diff)

    s = sub.add_parser("merge", help="merge shards (xdist workers, machines) into one directory")
    s.add_argument("dirs", nargs="+", metavar="DIR")
    s.add_argument("--out", required=True)
    s.add_argument("--overwrite", action="store_true",
                   help="write into --out although it holds records or is one of the inputs")
    s.set_defaults(func=cmd_merge)

    s = sub.add_parser("replay", help="run and judge one saved case")
    s.add_argument("case_file", metavar="CASE_FILE")
    s.add_argument("--backend", required=True, help="a registered name or module:attribute")
    s.add_argument("--product", help="default: the product the case was saved on")
    s.add_argument("--profile", help="default: the profile the case was saved under, else cann")
    s.set_defaults(func=cmd_replay)

    s = sub.add_parser("certify", help="run the must-pass cases with fixed options; write a bundle")
    s.add_argument("--backend", required=True)
    s.add_argument("--product", required=True)
    s.add_argument("--out", required=True, metavar="BUNDLE_DIR")
    s.add_argument("--workers", type=count, default=2, help="pytest-xdist workers (0: in process)")
    s.add_argument("--mustpass", default=str(MUSTPASS), help=argparse.SUPPRESS)
    s.add_argument("--sign-key", metavar="KEY",
                   help="sign the manifest with this OpenSSH private key (ssh-keygen -Y sign)")
    s.add_argument("--op", metavar="OP",
                   help="certify only these operators (comma-separated keys or API names; "
                        "default: all)")
    s.set_defaults(func=cmd_certify)

    s = sub.add_parser("verify", help="check a certification bundle")
    s.add_argument("bundle", metavar="BUNDLE")
    s.add_argument("--mustpass", default=str(MUSTPASS),
                   help="the must-pass list the bundle must match (default: this suite's)")
    s.add_argument("--allowed-signers", metavar="FILE",
                   help="require a good signature of the manifest by a key of this OpenSSH "
                        "allowed-signers file (ssh-keygen -Y verify)")
    s.add_argument("--rerun", type=count, default=0, metavar="K",
                   help="run K randomly chosen must-pass cases again and require the bundle's "
                        "outcomes (needs --backend)")
    s.add_argument("--backend", help="the backend --rerun runs the cases on")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("mustpass", help="regenerate the must-pass list from a reference run")
    s.add_argument("--out", required=True, metavar="FILE",
                   help="where to write the list (the suite's own: reports/mustpass.txt in a checkout)")
    s.add_argument("--from", dest="from_dir", metavar="RUN_DIR",
                   help="use this report directory (a complete reference run) instead of running")
    s.add_argument("--workers", type=count, default=2, help="pytest-xdist workers (0: in process)")
    s.set_defaults(func=cmd_mustpass)

    s = sub.add_parser("mutate", help="run every mutant against the tier's cases (in process)")
    s.add_argument("--tier", default="ci", choices=("ci", "full"))
    s.add_argument("--mutants", help="comma-separated mutant names (default: all)")
    s.add_argument("--products", help="'all' or a comma-separated list (default: all)")
    s.add_argument("--out", default="out",
                   help="write mutation.md/.json here; a run directory's report is refreshed")
    s.add_argument("--exhaustive", action="store_true",
                   help="run every case instead of stopping at a mutant's first named kill")
    s.add_argument("--overwrite", action="store_true",
                   help="replace a mutation table --out already holds")
    s.set_defaults(func=cmd_mutate)

    s = sub.add_parser("sensitivity", help="the relative error each precision standard can see")
    s.add_argument("--out", default="out",
                   help="write sensitivity.md/.json here; a run directory's report is refreshed")
    s.add_argument("--readme", metavar="FILE",
                   help="also put the table into this Markdown file between the sensitivity "
                        "markers (the checkout's benchmarks/README.md)")
    s.add_argument("--overwrite", action="store_true",
                   help="replace a sensitivity table --out already holds")
    s.add_argument("--no-readme", action="store_true", help=argparse.SUPPRESS)  # the default now
    s.set_defaults(func=cmd_sensitivity)


def parser() -> argparse.ArgumentParser:
    p = OneLineParser(prog="python -m reports", description=__doc__.split("\n")[0],
                      formatter_class=argparse.RawDescriptionHelpFormatter,
                      epilog=__doc__.split("\n", 2)[2])
    add_commands(p.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return p


def dispatch(args: argparse.Namespace) -> int:
    """Run a parsed command; unusable input is one line on stderr and exit status 2."""
    from aclnn_conformance.backends.registry import UnknownBackend
    from aclnn_conformance.reports.diff import DiffError
    from aclnn_conformance.reports.load import MergeError
    try:
        return args.func(args)
    except (RecordError, MergeError, DiffError, UnknownBackend, FileNotFoundError,
            FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


def main(argv: list[str] | None = None) -> int:
    return dispatch(parser().parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
