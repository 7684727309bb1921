"""Certification: a fixed must-pass list, fixed options, a bundle anyone can verify.

The must-pass list (reports/mustpass.txt) names, per product, the deterministic cases of the suites
run with the fixed options below: table, fault, fault-pair, relation and declared-support cases.
Cases that hypothesis draws are left out (their ids depend on the examples drawn).

``certify`` runs the suites on one backend and one product with the fixed options and writes a
bundle:

    BUNDLE/results/        the run's report directory (run.json, records.jsonl, failures/, reports)
    BUNDLE/mustpass.txt    the list it was certified against
    BUNDLE/pytest.log      what pytest printed
    BUNDLE/statement.json  product, backend, suite, environment and options
    BUNDLE/MANIFEST.sha256 the sha256 of every other file

``verify`` checks a bundle: every must-pass case present exactly once, only certifiable outcomes
(PASS, NOT_SUPPORTED, QUALITY_WARNING, WAIVED), no file changed, added or removed since the
manifest, the statement complete and consistent with the run.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from aclnn_conformance.judging.records import CERTIFIABLE, RecordError, read_records, read_run
from aclnn_conformance.reports.run import ROOT, library_versions, now

MUSTPASS = Path(__file__).with_name("mustpass.txt")
MUSTPASS_FORMAT = "aclnn-conformance mustpass 1"
STATEMENT_SCHEMA = "aclnn-conformance/statement/1"
FIXED_OPTIONS = ("--profile", "cann", "--tier", "ci", "-p", "no:cacheprovider")
SUITES = ("suites",)                 # what a certification runs: every suite
MANIFEST = "MANIFEST.sha256"
STATEMENT_FIELDS = ("schema", "product", "backend", "backend_version", "suite_version",
                    "suite_commit", "python", "numpy", "cann_version", "soc_name", "options",
                    "suites", "command", "run_id", "mustpass_sha256", "mustpass_cases", "created")


# ---- the must-pass list ----

def is_deterministic(rec) -> bool:
    """A case whose id does not depend on what hypothesis draws."""
    return rec.origin != "hypothesis" and not any(part.startswith("hyp-")
                                                  for part in rec.case_id.split(":"))


def read_mustpass(path: str | Path = MUSTPASS) -> list[tuple[str, str, str]]:
    """[(product, op, case_id)] in file order."""
    entries = []
    text = Path(path).read_text(encoding="utf-8")
    if MUSTPASS_FORMAT not in text.split("\n", 1)[0]:
        raise ValueError(f"{path}: not a must-pass list (first line must name {MUSTPASS_FORMAT!r})")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" ", 2)
        if len(parts) != 3:
            raise ValueError(f"{path}:{lineno}: expected 'product op case_id', got {line!r}")
        entries.append(tuple(parts))
    return entries


def write_mustpass(records, path: str | Path, source: str) -> int:
    from aclnn_conformance.reports.run import suite_commit
    entries = sorted({(r.product, r.op, r.case_id) for r in records if is_deterministic(r)})
    header = [f"# {MUSTPASS_FORMAT}",
              "# The cases every certification must hold, one 'product op case_id' a line.",
              f"# Options: {' '.join(FIXED_OPTIONS)} (with --backend and --product of the run).",
              f"# Generated from {source} at suite commit {suite_commit()[0]}.",
              "# Regenerate: python -m reports mustpass --out reports/mustpass.txt"]
    Path(path).write_text("\n".join(header + [" ".join(e) for e in entries]) + "\n",
                          encoding="utf-8")
    return len(entries)


def pytest_command(backend: str, products: str, report_dir: Path, workers: int,
                   suites: tuple[str, ...] = SUITES) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", *suites, "--backend", backend, "--product", products,
           "--report-dir", str(report_dir), "-q", *FIXED_OPTIONS]
    return cmd + (["-n", str(workers)] if workers > 0 else [])


def generate_mustpass(out: str | Path, workers: int = 2, from_dir: str | Path | None = None) -> int:
    """Run the reference backend on every product with the fixed options (or read ``from_dir``, a
    report directory of such a run) and write the list."""
    from aclnn_conformance.reports.load import load_source
    if from_dir is None:
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.run(pytest_command("reference", "all", Path(tmp), workers),
                                  cwd=ROOT, capture_output=True, text=True)
            if proc.returncode != 0:
                raise RuntimeError("the reference run failed; no list written\n"
                                   + proc.stdout[-3000:] + proc.stderr[-2000:])
            runset = load_source(tmp)
            return write_mustpass(runset.records, out, "a reference run on every product")
    runset = load_source(from_dir)
    for run in runset.runs.values():
        if (run.backend, run.profile, run.tier, run.complete) != ("reference", "cann", "ci", True):
            raise ValueError(f"{from_dir}: a must-pass list comes from a complete reference run "
                             f"with profile cann and tier ci")
    return write_mustpass(runset.records, out, f"{from_dir}")


# ---- the bundle ----

def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _files(bundle: Path) -> list[str]:
    return sorted(p.relative_to(bundle).as_posix() for p in bundle.rglob("*")
                  if p.is_file() and p.name != MANIFEST)


def write_manifest(bundle: str | Path) -> Path:
    bundle = Path(bundle)
    lines = [f"{sha256(bundle / rel)}  {rel}" for rel in _files(bundle)]
    path = bundle / MANIFEST
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def certify(backend: str, product: str, out: str | Path, workers: int = 2,
            mustpass: str | Path = MUSTPASS,
            suites: tuple[str, ...] = SUITES) -> tuple[Path, list[str], list[str]]:
    """Run, write the bundle, verify it: (bundle, errors, warnings).

    ``suites`` other than every suite makes a bundle that verifies only against that selection
    (the harness's own tests use it to stay fast); certification runs them all."""
    from aclnn_conformance.spec.products import product as product_info
    product_info(product)  # an unknown product id fails here, before any run
    bundle = Path(out).resolve()
    if bundle.exists() and any(bundle.iterdir()):
        raise FileExistsError(f"{bundle} exists and is not empty: a bundle is written once")
    results = bundle / "results"
    results.mkdir(parents=True)
    shutil.copyfile(mustpass, bundle / "mustpass.txt")
    cmd = pytest_command(backend, product, results, workers, tuple(suites))
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    (bundle / "pytest.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if not (results / "run.json").exists():
        raise RuntimeError(f"pytest did not start the run (exit {proc.returncode}):\n"
                           + (proc.stdout + proc.stderr)[-3000:])
    shutil.rmtree(results / "records", ignore_errors=True)   # merged into records.jsonl
    run = read_run(results / "run.json")
    versions = library_versions()
    statement = {
        "schema": STATEMENT_SCHEMA, "product": product, "backend": run.backend,
        "backend_version": run.backend_version, "backend_spec": backend,
        "suite_version": run.suite_version, "suite_commit": run.suite_commit,
        "suite_dirty": run.suite_dirty, "python": versions["python"], "numpy": versions["numpy"],
        "ml_dtypes": versions["ml_dtypes"], "pandas": versions["pandas"],
        "cann_version": run.cann_version, "soc_name": run.soc_name,
        "backend_environment": run.backend_environment, "platform": run.platform,
        "options": list(FIXED_OPTIONS), "suites": list(suites), "workers": workers,
        "command": ["python", "-m", "pytest", *cmd[3:]], "run_id": run.run_id,
        "mustpass_sha256": sha256(bundle / "mustpass.txt"),
        "mustpass_cases": sum(1 for e in read_mustpass(bundle / "mustpass.txt") if e[0] == product),
        "pytest_exit_status": proc.returncode, "created": now(),
    }
    (bundle / "statement.json").write_text(json.dumps(statement, indent=1, sort_keys=True) + "\n",
                                           encoding="utf-8")
    write_manifest(bundle)
    errors, warnings = verify(bundle, mustpass, tuple(suites))
    return bundle, errors, warnings


def verify(bundle: str | Path, mustpass: str | Path | None = MUSTPASS,
           suites: tuple[str, ...] = SUITES) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a bundle; no errors means it certifies its product."""
    bundle = Path(bundle)
    errors: list[str] = []
    warnings: list[str] = []
    if not bundle.is_dir():
        return [f"{bundle}: not a directory"], warnings

    # 1. no file changed, added or removed since the manifest
    manifest = bundle / MANIFEST
    listed: dict[str, str] = {}
    if not manifest.exists():
        errors.append(f"{MANIFEST} is missing")
    else:
        for lineno, line in enumerate(manifest.read_text(encoding="utf-8").splitlines(), 1):
            digest, sep, rel = line.partition("  ")
            if not sep or len(digest) != 64:
                errors.append(f"{MANIFEST}:{lineno}: malformed line {line!r}")
                continue
            listed[rel] = digest
        for rel, digest in listed.items():
            path = bundle / rel
            if not path.is_file():
                errors.append(f"{rel}: listed in the manifest but missing")
            elif sha256(path) != digest:
                errors.append(f"{rel}: changed since the manifest (sha256 differs)")
        for rel in _files(bundle):
            if rel not in listed:
                errors.append(f"{rel}: not in the manifest (added after the bundle was made)")

    # 2. the statement
    statement: dict = {}
    try:
        statement = json.loads((bundle / "statement.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        errors.append(f"statement.json: unreadable ({exc})")
    for key in STATEMENT_FIELDS if statement else ():
        if key not in statement:
            errors.append(f"statement.json: missing field {key!r}")
        elif statement[key] in (None, "", []) and key not in ("cann_version", "soc_name"):
            errors.append(f"statement.json: field {key!r} is empty")
    if statement and statement.get("schema") != STATEMENT_SCHEMA:
        errors.append(f"statement.json: schema {statement.get('schema')!r}, expected "
                      f"{STATEMENT_SCHEMA!r}")
    if statement and list(statement.get("options", [])) != list(FIXED_OPTIONS):
        errors.append(f"statement.json: options {statement.get('options')} are not the fixed "
                      f"options {list(FIXED_OPTIONS)}")
    if statement and list(statement.get("suites", [])) != list(suites):
        errors.append(f"statement.json: suites {statement.get('suites')} are not {list(suites)}")
    if statement and statement.get("suite_dirty"):
        warnings.append("the suite's checkout had uncommitted changes: review required")
    product = statement.get("product")

    # 3. the must-pass list
    try:
        entries = read_mustpass(bundle / "mustpass.txt")
    except (OSError, ValueError) as exc:
        errors.append(f"mustpass.txt: {exc}")
        entries = []
    if entries and statement and sha256(bundle / "mustpass.txt") != statement.get("mustpass_sha256"):
        errors.append("mustpass.txt: does not match the statement's mustpass_sha256")
    if entries and mustpass is not None and Path(mustpass).exists() \
            and sha256(Path(mustpass)) != sha256(bundle / "mustpass.txt"):
        errors.append(f"mustpass.txt: differs from the must-pass list {mustpass} "
                      f"(certified against another list)")
    required = [(op, case) for p, op, case in entries if p == product]
    if entries and product and not required:
        errors.append(f"mustpass.txt: has no case for product {product!r}")

    # 4. the run
    run = None
    try:
        run = read_run(bundle / "results" / "run.json")
    except (OSError, RecordError) as exc:
        errors.append(f"results/run.json: {exc}")
    if run is not None:
        if not run.complete:
            errors.append(f"results/run.json: the run is not complete "
                          f"({run.stop_reason or 'it never finished'})")
        if run.profile != "cann" or run.tier != "ci":
            errors.append(f"results/run.json: profile {run.profile}, tier {run.tier}; "
                          f"certification runs profile cann, tier ci")
        if product and list(run.products) != [product]:
            errors.append(f"results/run.json: products {list(run.products)}, statement {product}")
        for key in ("backend", "backend_version", "run_id", "suite_commit"):
            if statement and statement.get(key) != getattr(run, key):
                errors.append(f"statement.json: {key} {statement.get(key)!r} differs from the "
                              f"run's {getattr(run, key)!r}")

    # 5. the records: every must-pass case exactly once, only certifiable outcomes
    records = []
    try:
        records = list(read_records(bundle / "results" / "records.jsonl"))
    except (OSError, RecordError) as exc:
        errors.append(f"results/records.jsonl: {exc}")
    seen = Counter((r.op, r.case_id) for r in records if r.product == product)
    for op, case in required:
        if seen[(op, case)] == 0:
            errors.append(f"must-pass case missing: {op} {case} on {product}")
        elif seen[(op, case)] > 1:
            errors.append(f"must-pass case duplicated: {op} {case} on {product} "
                          f"({seen[(op, case)]} records)")
    for r in records:
        if r.outcome not in CERTIFIABLE:
            errors.append(f"{r.outcome}: {r.op} {r.case_id} on {r.product} "
                          f"({(r.detail or '').strip()[:200]})")
        if product and r.product != product:
            errors.append(f"record of another product: {r.op} {r.case_id} on {r.product}")
        if run is not None and r.run_id != run.run_id:
            errors.append(f"record of another run ({r.run_id}): {r.op} {r.case_id}")
    extra = sum(1 for key in seen if key not in set(required))
    if extra:
        warnings.append(f"{extra} case(s) outside the must-pass list (hypothesis-drawn or new): "
                        f"their outcomes are checked, their presence is not")
    return errors, warnings


def render_verify(bundle: Path, errors: list[str], warnings: list[str]) -> str:
    lines = [f"bundle {bundle}: " + ("CONFORMANT" if not errors else
                                     f"NOT CONFORMANT ({len(errors)} error(s))")]
    lines += [f"error: {e}" for e in errors[:200]]
    if len(errors) > 200:
        lines.append(f"... {len(errors) - 200} more errors")
    lines += [f"warning: {w}" for w in warnings]
    return "\n".join(lines)


__all__ = ["certify", "verify", "generate_mustpass", "read_mustpass", "write_manifest",
           "render_verify", "FIXED_OPTIONS", "MUSTPASS"]
