"""Certification: a fixed must-pass list, fixed options, a bundle anyone can verify.

The must-pass list (reports/mustpass.txt) names, per product, the deterministic cases of the suites
run with the fixed options below: table, fault, fault-pair, relation and declared-support cases.
Cases that hypothesis draws are left out (their ids depend on the examples drawn).

``certify`` runs the suites on one backend and one product with the fixed options and writes a
bundle:

    BUNDLE/results/        the run's report directory (run.json, records.jsonl, failures/, reports)
    BUNDLE/mustpass.txt    the list it was certified against
    BUNDLE/pytest.log      what pytest printed
    BUNDLE/results/junit.xml  pytest's JUnit XML (each test's outcome, rules, product, profile)
    BUNDLE/statement.json  product, backend, suite, environment and options
    BUNDLE/MANIFEST.sha256 the sha256 of every other file
    BUNDLE/MANIFEST.sha256.sig  with --sign-key: an OpenSSH signature of the manifest

``verify`` checks a bundle: every must-pass case present exactly once, only certifiable outcomes
(PASS, NOT_SUPPORTED, NOT_JUDGED, NOT_COVERED, QUALITY_WARNING, WAIVED), no file changed, added or
removed since the manifest, the statement complete and consistent with the run and with this
suite's spec (its sha256), and every other place the bundle states its verdict (the JUnit XML, the
statement's and run record's exit status, failures/, pytest.log's summary line) consistent with
the records. The manifest detects accidental change, not forgery (anyone can recompute it): with
``--allowed-signers`` verify checks the manifest's signature (``ssh-keygen -Y verify``), and with
``--rerun K --backend NAME`` it runs K randomly chosen must-pass cases again and requires the
outcomes the bundle records.
"""
from __future__ import annotations

import hashlib
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from aclnn_conformance.judging.records import (CERTIFIABLE, OPERATOR_NEED, RecordError,
                                               read_records, read_run, wanting)
from aclnn_conformance.reports.progress import RecordCounter, run_watched
from aclnn_conformance.reports.run import ROOT, library_versions, now

MUSTPASS = Path(__file__).with_name("mustpass.txt")
MUSTPASS_FORMAT = "aclnn-conformance mustpass 1"
STATEMENT_SCHEMA = "aclnn-conformance/statement/1"
FIXED_OPTIONS = ("--profile", "cann", "--tier", "ci", "-p", "no:cacheprovider")
PLUGIN = ("-p", "aclnn_conformance.plugin")   # named: an unrelated pytest run never loads it
# The suites judge through records, never bare asserts: plain asserts spare every start the rewrite
# of each installed pytest plugin's modules (about 1.5 s where bytecode is not cached).
PLAIN_ASSERTS = ("--assert=plain",)
# The suites' folder is pytest's rootdir, so that the nodeids a bundle records are the same
# installed and in a checkout, and a re-run finds them from there.
ROOTDIR = ("--rootdir", str(ROOT))
SUITES = ("suites",)                 # what a certification runs: every suite
MANIFEST = "MANIFEST.sha256"
SIGNATURE = MANIFEST + ".sig"           # what ssh-keygen -Y sign writes beside the manifest
SIGNING_NAMESPACE = "aclnn-conformance"
JUNIT = "results/junit.xml"
INTEGRITY = ("MANIFEST.sha256 holds the sha256 of every file of the bundle: it detects accidental "
             "change (a damaged copy, an edited file), not forgery, since anyone can recompute it. "
             "verify refuses a bundle whose records, JUnit XML, statement, run record, failures/ "
             "and pytest log disagree, but not one edited consistently. A signature of the "
             "manifest (certify --sign-key, checked by verify --allowed-signers) says who made "
             "it; re-running cases (verify --rerun K --backend NAME) checks the recorded outcomes "
             "themselves.")


class SigningError(ValueError):
    """ssh-keygen could not sign the manifest (or is not installed)."""
STATEMENT_FIELDS = ("schema", "product", "backend", "backend_version", "suite_version",
                    "suite_commit", "python", "numpy", "cann_version", "soc_name", "options",
                    "suites", "command", "run_id", "mustpass_sha256", "mustpass_cases", "created",
                    "ops", "spec", "spec_sha256")


class CertificationError(RuntimeError):
    """The certification run could not start (the bundle folder is removed again)."""


def spec_data(ops: tuple[str, ...] | None = None) -> dict[str, dict]:
    """What a certification is judged against, per operator: its API, document, rule ids and what
    each profile expects of each rule."""
    from aclnn_conformance.spec import OPS
    return {key: {"api": spec.api, "doc": spec.doc, "domain": spec.domain,
                  "rules": {rule.id: {profile: _expect_data(expect)
                                      for profile, expect in sorted(rule.expect.items())}
                            for rule in spec.rules}}
            for key in sorted(OPS) if ops is None or key in ops for spec in (OPS[key],)}


def _expect_data(expect) -> dict:
    """An expectation as plain data, products in sorted order (a ByProduct's mapping may have been
    built in any order)."""
    if hasattr(expect, "by"):
        return {"by": {p: _expect_data(e) for p, e in sorted(expect.by.items())},
                "default": _expect_data(expect.default)}
    return {"kind": expect.kind, "status": expect.status}


def spec_sha256(data: dict[str, dict]) -> str:
    """The sha256 of ``spec_data``'s canonical JSON: equal exactly when the operators, their rule
    ids and the rules' expectations are."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode("utf-8")).hexdigest()


# ---- the must-pass list ----

def is_deterministic(rec) -> bool:
    """A case whose id does not depend on what hypothesis draws."""
    return rec.origin != "hypothesis" and not any(part.startswith("hyp-")
                                                  for part in rec.case_id.split(":"))


NEEDS_PREFIX = "needs="   # a must-pass line's optional last field: the packages its case needs


def _mustpass_lines(path: str | Path) -> list[tuple[tuple[str, str, str], tuple[str, ...]]]:
    """[((product, op, case_id), packages the case needs)] in file order."""
    entries = []
    text = Path(path).read_text(encoding="utf-8")
    if MUSTPASS_FORMAT not in text.split("\n", 1)[0]:
        raise ValueError(f"{path}: not a must-pass list (first line must name {MUSTPASS_FORMAT!r})")
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split(" ")
        needs: tuple[str, ...] = ()
        if len(parts) == 4 and parts[3].startswith(NEEDS_PREFIX):
            needs = tuple(parts.pop().removeprefix(NEEDS_PREFIX).split(","))
        if len(parts) != 3 or not all(parts):
            raise ValueError(f"{path}:{lineno}: expected 'product op case_id [needs=PKG,...]', "
                             f"got {line!r}")
        entries.append(((parts[0], parts[1], parts[2]), needs))
    return entries


def read_mustpass(path: str | Path = MUSTPASS) -> list[tuple[str, str, str]]:
    """[(product, op, case_id)] in file order."""
    return [entry for entry, _ in _mustpass_lines(path)]


def mustpass_needs(path: str | Path = MUSTPASS) -> dict[tuple[str, str, str], tuple[str, ...]]:
    """The must-pass cases that need an optional package (torch): case -> the packages."""
    return {entry: needs for entry, needs in _mustpass_lines(path) if needs}


def write_mustpass(records, path: str | Path, source: str) -> int:
    from aclnn_conformance.reports.run import suite_commit
    needs: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    for r in records:
        if is_deterministic(r):
            needs[(r.product, r.op, r.case_id)].update(r.needs)
    lines = [" ".join(e) + (f" {NEEDS_PREFIX}{','.join(sorted(needs[e]))}" if needs[e] else "")
             for e in sorted(needs)]
    header = [f"# {MUSTPASS_FORMAT}",
              "# The cases every certification must hold, one 'product op case_id' a line; "
              "'needs=PKG' marks a case",
              "# that needs an optional package: without it the case is SKIPPED with that reason, "
              "never an error.",
              f"# Options: {' '.join(FIXED_OPTIONS)} (with --backend and --product of the run).",
              f"# Generated from {source} at suite commit {suite_commit()[0]}.",
              "# Regenerate: python -m reports mustpass --out reports/mustpass.txt"]
    Path(path).write_text("\n".join(header + lines) + "\n", encoding="utf-8")
    return len(lines)


def excused(record, listed_needs: tuple[str, ...]) -> bool:
    """A must-pass case skipped only for want of the optional packages its line lists."""
    return bool(wanting(record.outcome, record.needs)) and set(record.needs) <= set(listed_needs)


def runs_with(needs: tuple[str, ...], ops: tuple[str, ...]) -> bool:
    """Whether a run of ``ops`` (every operator when empty) runs a case that needs ``needs``: a
    test chaining operators runs only when each of them is selected."""
    return not ops or all(n.removeprefix(OPERATOR_NEED) in ops for n in needs
                          if n.startswith(OPERATOR_NEED))


def pytest_command(backend: str, products: str, report_dir: Path, workers: int,
                   suites: tuple[str, ...] = SUITES, junit: Path | None = None,
                   ops: tuple[str, ...] = ()) -> list[str]:
    cmd = [sys.executable, "-m", "pytest", *suites, *PLUGIN, *PLAIN_ASSERTS, *ROOTDIR, "--backend", backend,
           "--product", products, "--report-dir", str(report_dir), "-q", *FIXED_OPTIONS]
    cmd += ["--junitxml", str(junit)] if junit is not None else []
    cmd += ["--op", ",".join(ops)] if ops else []
    return cmd + (["-n", str(workers)] if workers > 0 else ["-p", "no:xdist"])


def generate_mustpass(out: str | Path, workers: int = 2, from_dir: str | Path | None = None,
                      ops: tuple[str, ...] = ()) -> int:
    """Run the reference backend on every product with the fixed options (or read ``from_dir``, a
    report directory of such a run) and write the list; ``ops`` runs only those operators (the
    list then holds only their cases)."""
    from aclnn_conformance.reports.load import load_source
    if from_dir is None:
        with tempfile.TemporaryDirectory() as tmp:
            proc = run_watched(pytest_command("reference", "all", Path(tmp), workers, ops=ops),
                               "mustpass: the reference run", "cases", None,
                               RecordCounter(Path(tmp)), cwd=ROOT)
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
                  if p.is_file() and p.relative_to(bundle).as_posix() not in (MANIFEST, SIGNATURE))


def write_manifest(bundle: str | Path) -> Path:
    bundle = Path(bundle)
    lines = [f"{sha256(bundle / rel)}  {rel}" for rel in _files(bundle)]
    path = bundle / MANIFEST
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ssh_keygen(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    exe = shutil.which("ssh-keygen")
    if exe is None:
        raise SigningError("ssh-keygen (OpenSSH) is not installed: it signs and checks manifests")
    return subprocess.run([exe, *args], input=stdin, capture_output=True, timeout=60)


def sign_manifest(bundle: str | Path, key: str | Path) -> Path:
    """Sign MANIFEST.sha256 with an OpenSSH private key: MANIFEST.sha256.sig beside it."""
    manifest = Path(bundle) / MANIFEST
    (Path(bundle) / SIGNATURE).unlink(missing_ok=True)
    proc = _ssh_keygen("-Y", "sign", "-f", str(key), "-n", SIGNING_NAMESPACE, str(manifest))
    if proc.returncode != 0:
        raise SigningError(f"ssh-keygen could not sign with {key}: "
                           f"{proc.stderr.decode(errors='replace').strip()}")
    return Path(bundle) / SIGNATURE


def check_signature(bundle: Path, allowed_signers: str | Path) -> tuple[list[str], str]:
    """(errors, the signer's principal) of the manifest's signature against an allowed-signers
    file (ssh-keygen -Y find-principals, then -Y verify)."""
    signature, manifest = bundle / SIGNATURE, bundle / MANIFEST
    if not signature.is_file():
        return [f"{SIGNATURE} is missing: the bundle is not signed"], ""
    if not manifest.is_file():
        return [f"{MANIFEST} is missing: nothing to check the signature against"], ""
    found = _ssh_keygen("-Y", "find-principals", "-s", str(signature), "-f", str(allowed_signers))
    principal = found.stdout.decode(errors="replace").strip().splitlines()
    if found.returncode != 0 or not principal:
        return [f"{SIGNATURE}: not made by a key in {allowed_signers}"], ""
    check = _ssh_keygen("-Y", "verify", "-f", str(allowed_signers), "-I", principal[0], "-n",
                        SIGNING_NAMESPACE, "-s", str(signature), stdin=manifest.read_bytes())
    if check.returncode != 0:
        return [f"{SIGNATURE}: does not verify for {principal[0]}: the manifest changed after it "
                f"was signed ({check.stderr.decode(errors='replace').strip()})"], principal[0]
    return [], principal[0]


def certify(backend: str, product: str, out: str | Path, workers: int = 2,
            mustpass: str | Path = MUSTPASS, suites: tuple[str, ...] = SUITES,
            sign_key: str | Path | None = None,
            ops: tuple[str, ...] = ()) -> tuple[Path, list[str], list[str]]:
    """Run, write the bundle, verify it: (bundle, errors, warnings).

    ``suites`` other than every suite makes a bundle that verifies only against that selection
    (the harness's own tests use it to stay fast); certification runs them all. ``ops`` certifies
    those operators only (every operator when empty)."""
    from aclnn_conformance.backends.registry import load_backend
    from aclnn_conformance.spec import OPS
    from aclnn_conformance.spec.products import product as product_info
    product_info(product)  # an unknown product id fails here, before any run
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        raise ValueError(f"--op {', '.join(unknown)}: not an operator of this suite "
                         f"({', '.join(sorted(OPS))})")
    load_backend(backend)  # an unknown backend fails here, before the bundle folder exists
    if sign_key is not None and not Path(sign_key).is_file():
        raise SigningError(f"--sign-key {sign_key}: no such key file")
    bundle = Path(out).resolve()
    if bundle.exists() and any(bundle.iterdir()):
        raise FileExistsError(f"{bundle} exists and is not empty: a bundle is written once")
    results = bundle / "results"
    results.mkdir(parents=True)
    try:
        statement = _certification_run(backend, product, bundle, workers, mustpass, suites, ops)
    except BaseException:
        shutil.rmtree(bundle, ignore_errors=True)   # no half-written bundle blocks the retry
        raise
    statement["signed"] = sign_key is not None
    (bundle / "statement.json").write_text(json.dumps(statement, indent=1, sort_keys=True) + "\n",
                                           encoding="utf-8")
    write_manifest(bundle)
    if sign_key is not None:
        sign_manifest(bundle, sign_key)
    errors, warnings = verify(bundle, mustpass, tuple(suites))
    return bundle, errors, warnings


def _certification_run(backend: str, product: str, bundle: Path, workers: int,
                       mustpass: str | Path, suites: tuple[str, ...],
                       ops: tuple[str, ...]) -> dict:
    """Run the suites into ``bundle`` and return the statement."""
    results = bundle / "results"
    shutil.copyfile(mustpass, bundle / "mustpass.txt")
    cmd = pytest_command(backend, product, results, workers, tuple(suites), bundle / JUNIT, ops)
    expected = sum(1 for (p, op, _), needs in _mustpass_lines(mustpass)
                   if p == product and (not ops or op in ops) and runs_with(needs, ops))
    proc = run_watched(cmd, f"certify {product}", "cases", expected or None,
                       RecordCounter(results), cwd=ROOT)
    (bundle / "pytest.log").write_text(proc.stdout + proc.stderr, encoding="utf-8")
    if not (results / "run.json").exists():
        lines = [x for x in (proc.stdout + proc.stderr).splitlines() if x.strip()]
        raise CertificationError(f"pytest did not start the run (exit {proc.returncode}): "
                                 f"{lines[-1] if lines else 'no output'}")
    run = read_run(results / "run.json")
    versions = library_versions()
    data = spec_data(tuple(ops) or None)
    return {
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
        "mustpass_cases": sum(1 for (p, op, _), needs in _mustpass_lines(bundle / "mustpass.txt")
                              if p == product and (not ops or op in ops) and runs_with(needs, ops)),
        "ops": sorted(data), "spec": {op: {"api": d["api"], "doc": d["doc"],
                                           "rules": len(d["rules"])} for op, d in data.items()},
        "spec_sha256": spec_sha256(data),
        "pytest_exit_status": proc.returncode, "created": now(), "integrity": INTEGRITY,
        "signed": False,
    }


def verify(bundle: str | Path, mustpass: str | Path | None = MUSTPASS,
           suites: tuple[str, ...] = SUITES, allowed_signers: str | Path | None = None,
           rerun: int = 0, backend: str | None = None,
           chooser: random.Random | None = None,
           reran: list[Rerun] | None = None) -> tuple[list[str], list[str]]:
    """(errors, warnings) of a bundle; no errors means it certifies its product.

    ``allowed_signers``: the manifest must carry a good signature by one of those keys.
    ``rerun``/``backend``: run that many randomly chosen must-pass cases again on ``backend`` and
    require the bundle's outcomes (``chooser`` draws them; by default from the system's entropy,
    so that a bundle cannot be prepared for the draw); each case re-run, with its result, is
    appended to ``reran`` when given."""
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
        lines = _mustpass_lines(bundle / "mustpass.txt")
    except (OSError, ValueError) as exc:
        errors.append(f"mustpass.txt: {exc}")
        lines = []
    entries = [entry for entry, _ in lines]
    listed_needs = {entry: needs for entry, needs in lines if needs}

    def accepted(r) -> bool:
        return r.outcome in CERTIFIABLE or excused(r, listed_needs.get((r.product, r.op, r.case_id), ()))
    if entries and statement and sha256(bundle / "mustpass.txt") != statement.get("mustpass_sha256"):
        errors.append("mustpass.txt: does not match the statement's mustpass_sha256")
    if entries and mustpass is not None and Path(mustpass).exists() \
            and sha256(Path(mustpass)) != sha256(bundle / "mustpass.txt"):
        errors.append(f"mustpass.txt: differs from the must-pass list {mustpass} "
                      f"(certified against another list)")
    ops = tuple(statement.get("ops") or ()) if statement else ()
    if statement and ops and statement.get("spec_sha256") != spec_sha256(spec_data(ops)):
        errors.append(f"statement.json: spec_sha256 {statement.get('spec_sha256')!r} is not the "
                      f"digest of this suite's spec of {', '.join(ops)}: judged against other "
                      f"rules or expectations")
    required = [(op, case) for (p, op, case), needs in lines if p == product
                and (not ops or op in ops) and runs_with(needs, ops)]
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
        if not accepted(r):
            errors.append(f"{r.outcome}: {r.op} {r.case_id} on {r.product} "
                          f"({(r.detail or '').strip()[:200]})")
        if product and r.product != product:
            errors.append(f"record of another product: {r.op} {r.case_id} on {r.product}")
        if run is not None and r.run_id != run.run_id:
            errors.append(f"record of another run ({r.run_id}): {r.op} {r.case_id}")
        if ops and r.op not in ops:
            errors.append(f"record of an operator the statement does not certify: {r.op} "
                          f"{r.case_id}")
    wanting = sorted({(r.op, r.case_id, ",".join(r.needs)) for r in records
                      if r.outcome not in CERTIFIABLE and accepted(r)})
    if wanting:
        packages = sorted({p for *_, needs in wanting for p in needs.split(",")})
        warnings.append(f"{len(wanting)} must-pass case(s) SKIPPED for want of "
                        f"{', '.join(packages)} (not installed where the run ran), not certified: "
                        + "; ".join(f"{op} {case} (needs {needs})" for op, case, needs in wanting))
    extra = sum(1 for key in seen if key not in set(required))
    if extra:
        warnings.append(f"{extra} case(s) outside the must-pass list (hypothesis-drawn or new): "
                        f"their outcomes are checked, their presence is not")

    # 6. the records against the JUnit XML pytest wrote beside them, and against every other
    # place the bundle states its verdict
    errors += cross_check_junit(bundle / JUNIT, records, accepted)
    errors += cross_check_verdicts(bundle, records, statement, run, accepted)

    # 7. what the manifest cannot prove: who made it, and whether the outcomes are true
    if allowed_signers is not None:
        sig_errors, principal = check_signature(bundle, allowed_signers)
        errors += sig_errors
        if not sig_errors:
            warnings.append(f"signature: good, by {principal}")
    elif (bundle / SIGNATURE).exists():
        warnings.append(f"signed ({SIGNATURE}), but the signature was not checked: pass "
                        f"--allowed-signers")
    if rerun:
        if backend is None:
            errors.append("--rerun needs --backend: the backend to run the cases on")
        else:
            chosen = [r for r in records if (r.op, r.case_id) in set(required) and r.nodeid]
            try:
                results = rerun_cases(chosen, rerun, backend, product or "", chooser)
            except RerunError as exc:
                results = []
                errors.append(str(exc))
            errors += [r.error() for r in results if not r.matched]
            if reran is not None:
                reran.extend(results)
    if allowed_signers is None and not rerun:
        warnings.append("the manifest detects accidental change, not forgery: check a signature "
                        "(--allowed-signers) or re-run cases (--rerun K --backend NAME) to prove "
                        "more")
    return errors, warnings


def certifiable(record) -> bool:
    return record.outcome in CERTIFIABLE


def cross_check_junit(junit: Path, records, accepted: Callable = certifiable) -> list[str]:
    """Errors where the records and pytest's JUnit XML disagree: every test of the records is in
    the XML, with the worst outcome and the count its records have, failed exactly when one of
    its records is not ``accepted`` (certifiable, or excused by the must-pass list)."""
    from aclnn_conformance.reports.tables import worst
    if not junit.is_file():
        return [f"{JUNIT} is missing: the records cannot be cross-checked"]
    try:
        root = ET.parse(junit).getroot()
    except ET.ParseError as exc:
        return [f"{JUNIT}: unreadable ({exc})"]
    tests: dict[str, tuple[dict[str, str], bool]] = {}
    for case in root.iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        if "nodeid" in props:
            failed = any(child.tag in ("failure", "error") for child in case)
            tests[props["nodeid"]] = (props, failed)
    by_test = defaultdict(list)
    for r in records:
        by_test[r.nodeid].append(r)
    errors = []
    for nodeid, recs in sorted(by_test.items()):
        if nodeid not in tests:
            errors.append(f"{JUNIT}: no test {nodeid} for {len(recs)} record(s)")
            continue
        props, failed = tests[nodeid]
        outcome = worst(r.outcome for r in recs)
        if props.get("outcome") != outcome or props.get("records") != str(len(recs)):
            errors.append(f"{JUNIT}: test {nodeid} says {props.get('records')} record(s), worst "
                          f"{props.get('outcome')}; the records say {len(recs)}, worst {outcome}")
        elif failed != any(not accepted(r) for r in recs):
            errors.append(f"{JUNIT}: test {nodeid} {'failed' if failed else 'passed'} but its "
                          f"records are {outcome}")
    for nodeid, (props, _) in sorted(tests.items()):
        if nodeid not in by_test and props.get("records") not in (None, "0"):
            errors.append(f"{JUNIT}: test {nodeid} has {props['records']} record(s) that "
                          f"records.jsonl lacks")
    return errors


SUMMARY_LINE = re.compile(r"^=*\s*((?:\d+ [a-z]+(?:, )?)+) in [0-9.]+s(?: \([0-9:.]+\))?\s*=*$")


def cross_check_verdicts(bundle: Path, records, statement: dict, run,
                         accepted: Callable = certifiable) -> list[str]:
    """Errors where the statement, run.json, failures/ and pytest.log's summary line do not say
    what the records say: all accepted (exit 0, no failing case saved, nothing failed) or not."""
    bad = [r for r in records if not accepted(r)]
    verdict = "not certifiable" if bad else "all certifiable"
    errors = []
    said = statement.get("pytest_exit_status") if statement else None
    if isinstance(said, int) and (said == 0) == bool(bad):
        errors.append(f"statement.json: pytest_exit_status {said}, but the records are {verdict}")
    if run is not None:
        if run.exit_status is not None and (run.exit_status == 0) == bool(bad):
            errors.append(f"results/run.json: exit_status {run.exit_status}, but the records are "
                          f"{verdict}")
        if run.records_written is not None and run.records_written != len(records):
            errors.append(f"results/run.json: the run wrote {run.records_written} record(s); "
                          f"records.jsonl holds {len(records)}")
    saved = {p.name for p in (bundle / "results" / "failures").glob("*.json")}
    expected = {Path(r.case_file).name for r in bad if r.case_file}
    for name in sorted(saved - expected):
        errors.append(f"results/failures/{name}: a saved failing case no record names as failing")
    for name in sorted(expected - saved):
        errors.append(f"results/failures/{name}: missing, although a record names it")
    errors += _check_pytest_log(bundle, bool(bad))
    return errors


def _check_pytest_log(bundle: Path, any_bad: bool) -> list[str]:
    """pytest.log's last summary line against the JUnit XML's counts and the records' verdict."""
    try:
        log = (bundle / "pytest.log").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ["pytest.log is missing"]
    lines = [m.group(1) for m in map(SUMMARY_LINE.match, log.splitlines()) if m]
    if not lines:
        return ["pytest.log: no pytest summary line"]
    counts = {word: int(n) for n, word in (part.split(" ") for part in lines[-1].split(", "))}
    failed = counts.get("failed", 0) + counts.get("error", 0) + counts.get("errors", 0)
    errors = []
    if bool(failed) != any_bad:
        errors.append(f"pytest.log: says {lines[-1]!r}, but the records are "
                      f"{'not certifiable' if any_bad else 'all certifiable'}")
    try:
        root = ET.parse(bundle / JUNIT).getroot()
    except (OSError, ET.ParseError):
        return errors
    cases = list(root.iter("testcase"))
    junit_failed = sum(any(c.tag in ("failure", "error") for c in case) for case in cases)
    if junit_failed != failed or counts.get("passed", 0) + failed + counts.get("skipped", 0) \
            != len(cases):
        errors.append(f"pytest.log: says {lines[-1]!r}; {JUNIT} has {len(cases)} test(s), "
                      f"{junit_failed} failed")
    return errors


@dataclass(frozen=True)
class Rerun:
    """One must-pass case run again: the outcome the bundle records and the one it got now."""

    op: str
    case_id: str
    product: str
    backend: str
    recorded: str
    got: str | None               # None: the re-run wrote no record of the case

    @property
    def matched(self) -> bool:
        return self.got == self.recorded

    def line(self) -> str:
        """What verify prints of it."""
        if self.matched:
            return f"re-ran {self.op} {self.case_id} on {self.product}: matched ({self.got})"
        return (f"re-ran {self.op} {self.case_id} on {self.product}: differs "
                f"({self.got or 'no record'}, the bundle records {self.recorded})")

    def error(self) -> str:
        return (f"re-run of {self.op} {self.case_id} on {self.product} ({self.backend}): "
                f"{self.got or 'no record'}, the bundle records {self.recorded}")


class RerunError(RuntimeError):
    """The re-run could not be made (nothing to run, or it wrote no records)."""


def rerun_cases(candidates, k: int, backend: str, product: str,
                chooser: random.Random | None = None) -> list[Rerun]:
    """Run ``k`` of the ``candidates`` records again (their tests, with the fixed options) on
    ``backend``: each chosen case with the outcome it got (RerunError when none could be run)."""
    chooser = chooser or random.SystemRandom()
    chosen = chooser.sample(candidates, min(k, len(candidates)))
    if not chosen:
        raise RerunError("--rerun: the bundle has no must-pass case to run again")
    nodeids = sorted({r.nodeid for r in chosen})
    with tempfile.TemporaryDirectory() as tmp:
        # ``--op``: only the chosen cases' operators are collected (not every operator's parameters)
        cmd = [sys.executable, "-m", "pytest", *nodeids, *PLUGIN, *PLAIN_ASSERTS, *ROOTDIR, "--backend", backend,
               "--product", product, "--report-dir", str(Path(tmp) / "rerun"), "-q",
               "--op", ",".join(sorted({r.op for r in chosen})), *FIXED_OPTIONS, "-p", "no:xdist"]
        proc = run_watched(cmd, f"verify: re-running {len(chosen)} case(s)", "records",
                           sum(1 for r in candidates if r.nodeid in nodeids) or None,
                           RecordCounter(Path(tmp) / "rerun"), cwd=ROOT)
        try:
            again = {(r.op, r.case_id): r.outcome
                     for r in read_records(Path(tmp) / "rerun" / "records.jsonl")}
        except (OSError, RecordError) as exc:
            raise RerunError(f"--rerun: the re-run wrote no records (pytest exit "
                             f"{proc.returncode}: {exc}): {(proc.stdout + proc.stderr)[-300:]}") \
                from None
    return [Rerun(r.op, r.case_id, product, backend, r.outcome, again.get((r.op, r.case_id)))
            for r in chosen]


def verdict_basis(bundle: Path, min_exercised: float | None = None) -> dict | None:
    """The bundle's product verdict from its records (reports.tables.product_verdicts): what the
    certification rests on, the rules and value rules it exercised; None without readable records."""
    from aclnn_conformance.reports.load import records_frame
    from aclnn_conformance.reports.tables import MIN_EXERCISED, compliance, product_verdicts
    try:
        records = list(read_records(Path(bundle) / "results" / "records.jsonl"))
    except (OSError, RecordError):
        return None
    verdicts = product_verdicts(compliance(records_frame(records)) if records else [],
                                MIN_EXERCISED if min_exercised is None else min_exercised)
    return verdicts[0] if len(verdicts) == 1 else None


def render_verify(bundle: Path, errors: list[str], warnings: list[str],
                  reran: list[Rerun] = ()) -> str:
    """The verify report: the verdict (partial when the bundle exercised too few of the applicable
    rules), what it rests on, the cases re-run and whether each matched, the errors, the
    warnings."""
    from aclnn_conformance.reports.tables import verdict_text
    basis = verdict_basis(bundle) if not errors else None
    verdict = (f"NOT CONFORMANT ({len(errors)} error(s))" if errors else
               basis["verdict"] if basis and basis["verdict"].startswith("CONFORMANT") else
               "CONFORMANT")
    lines = [f"bundle {bundle}: {verdict}"]
    lines += [f"rests on: {verdict_text(basis)}"] if basis else []
    lines += [f"integrity: {INTEGRITY}"]
    if reran:
        lines.append(f"re-ran {len(reran)} must-pass case(s): "
                     f"{sum(r.matched for r in reran)} matched, "
                     f"{sum(not r.matched for r in reran)} differ")
        lines += [r.line() for r in reran]
    lines += [f"error: {e}" for e in errors[:200]]
    if len(errors) > 200:
        lines.append(f"... {len(errors) - 200} more errors")
    lines += [f"warning: {w}" for w in warnings]
    return "\n".join(lines)


__all__ = ["certify", "verify", "generate_mustpass", "read_mustpass", "mustpass_needs", "write_manifest",
           "sign_manifest", "check_signature", "cross_check_junit", "rerun_cases", "Rerun",
           "render_verify", "FIXED_OPTIONS", "MUSTPASS", "INTEGRITY"]
