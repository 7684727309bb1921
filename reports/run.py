"""The run record of a pytest session: written at the start with ``complete`` false, rewritten at
the end.

The environment comes from three places: the interpreter and libraries (versions), the suite's own
checkout (version from pyproject, git commit), and the backend. A backend may expose an optional
hook ``environment() -> dict``; the keys ``cann_version`` and ``soc_name`` are lifted into the run
record's fields of the same names, everything it returns is kept in ``backend_environment``.
A backend without the hook, or whose hook raises, simply has no environment recorded.
"""
from __future__ import annotations

import datetime as _dt
import json
import platform
import re
import shutil
import subprocess
from dataclasses import replace
from importlib import metadata
from pathlib import Path
from typing import Any

from aclnn_conformance.judging.records import RunRecord, read_run, write_run

ROOT = Path(__file__).resolve().parents[1]
DIST_NAME = "aclnn-conformance"
RUN_FILE = "run.json"
# What the end of a run writes into the report directory (besides records/ and failures/).
STALE_OUTPUTS = ("records.jsonl", "report.*", "rules.csv", "declared_support.*")
# Everything a run and the commands run on its folder (mutate, sensitivity) leave there.
RUN_OUTPUTS = (RUN_FILE, *STALE_OUTPUTS, "mutation.*", "sensitivity.*")
RUN_FOLDERS = ("records", "failures", "inflight")


def now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def suite_version() -> str:
    """The installed distribution's version, else the checkout's pyproject version."""
    pyproject = ROOT / "pyproject.toml"
    if pyproject.exists():
        match = re.search(r'(?m)^version\s*=\s*"([^"]+)"', pyproject.read_text(encoding="utf-8"))
        if match:
            return match.group(1)
    try:
        return metadata.version(DIST_NAME)
    except metadata.PackageNotFoundError:
        return "unknown"


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def suite_commit() -> tuple[str, bool | None]:
    """(commit, dirty): the checkout's HEAD and whether tracked files differ from it."""
    head = _git("rev-parse", "HEAD")
    if not head or not re.fullmatch(r"[0-9a-f]{40}", head.strip()):
        return "unknown", None
    status = _git("status", "--porcelain", "--untracked-files=no")
    return head.strip(), (None if status is None else bool(status.strip()))


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("numpy", "ml_dtypes", "pandas", "pytest", "pytest-xdist", "hypothesis"):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return versions


def backend_environment(backend: Any) -> dict[str, Any]:
    """What the backend's optional ``environment()`` hook reports (``{}`` without one)."""
    hook = getattr(backend, "environment", None)
    if not callable(hook):
        return {}
    try:
        env = hook()
    except Exception as exc:  # the hook is informative only: never stop a run for it
        return {"error": f"environment() raised {type(exc).__name__}: {exc}"}
    if not isinstance(env, dict):
        return {"error": f"environment() returned {type(env).__name__}, not a dict"}
    return {str(k): _jsonable(v) for k, v in env.items()}


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except (TypeError, ValueError):
        return str(value)


def _opt_str(value: Any) -> str | None:
    return None if value in (None, "") else str(value)


def new_run_record(*, run_id: str, backend: Any, products, profile: str, tier: str,
                   hypothesis: dict[str, Any], workers: int = 0,
                   command: list[str] | tuple[str, ...] = (), cwd: str = "",
                   shard: dict[str, Any] | None = None) -> RunRecord:
    commit, dirty = suite_commit()
    env = backend_environment(backend)
    return RunRecord(
        run_id=run_id, suite_version=suite_version(), suite_commit=commit, suite_dirty=dirty,
        backend=str(backend.name), backend_version=str(backend.version), products=tuple(products),
        profile=profile, tier=tier, started=now(), hypothesis=hypothesis,
        versions=library_versions(), cann_version=_opt_str(env.get("cann_version")),
        soc_name=_opt_str(env.get("soc_name")), backend_environment=env,
        platform=platform.platform(), workers=int(workers), command=tuple(command), cwd=cwd,
        shard=shard)


def finished_run_record(run: RunRecord, exit_status: int, stop_reason: str = "") -> RunRecord:
    """The run as it ended: complete unless it stopped early (interrupt, -x/--maxfail, error)."""
    reason = stop_reason
    if not reason and exit_status == 2:
        reason = "interrupted"
    elif not reason and exit_status not in (0, 1, 5, 6):  # 6: ran to its end, judged nothing
        reason = f"pytest exit status {exit_status}"
    return replace(run, finished=now(), exit_status=int(exit_status), stopped_early=bool(reason),
                   stop_reason=reason, complete=not reason)


# ---- the pytest side (called from conftest.py on the controller process) ----

def hypothesis_settings(profile_name: str) -> dict[str, Any]:
    from hypothesis import settings
    current = settings.default
    return {"profile": profile_name, "max_examples": current.max_examples,
            "derandomize": current.derandomize}


SHARD_PLUGIN = "pytest-split"


def shard_of(config) -> dict[str, Any] | None:
    """The shard this session is when pytest-split divides the run (``--splits N --group G``)."""
    if not config.pluginmanager.hasplugin("pytest-split"):
        return None
    splits, group = config.getoption("splits", None), config.getoption("group", None)
    if splits is None or group is None:
        return None
    return {"plugin": SHARD_PLUGIN, "group": int(group), "splits": int(splits),
            "algorithm": str(config.getoption("splitting_algorithm", "") or "")}


def start_pytest_run(config, harness, products, hypothesis_profile: str) -> RunRecord:
    """Write <report-dir>/run.json with complete false; returns the record."""
    inv = config.invocation_params
    hyp = hypothesis_settings(hypothesis_profile)
    seed = config.getoption("hypothesis_seed", None)
    hyp["seed"] = None if seed is None else str(seed)
    workers = config.getoption("numprocesses", None) if config.pluginmanager.hasplugin("xdist") \
        else None
    try:
        workers = int(workers or 0)
    except (TypeError, ValueError):  # "auto" / "logical": resolved by xdist later
        workers = 0
    run = new_run_record(run_id=harness.run_id, backend=harness.backend, products=products,
                         profile=harness.profile, tier=harness.tier, hypothesis=hyp,
                         workers=workers, command=["pytest", *inv.args],
                         cwd=str(inv.dir), shard=shard_of(config))
    for stale in STALE_OUTPUTS:  # a run that never finishes must not show the last run's results
        for path in harness.report_dir.glob(stale):
            path.unlink()
    write_run(harness.report_dir / RUN_FILE, run)
    return run


def end_pytest_run(session, exitstatus: int, progress=None) -> RunRecord | None:
    """Rewrite <report-dir>/run.json as the session ended; ``progress`` (the plugin's count of
    collected, finished and unrecorded items) makes a run with a case left unrecorded incomplete."""
    harness = session.config._aclnn_harness
    path = harness.report_dir / RUN_FILE
    if not path.exists():
        return None
    reason = ""
    dsession = session.config.pluginmanager.getplugin("dsession")
    for source in (getattr(dsession, "shouldstop", None), session.shouldfail, session.shouldstop):
        if source:
            reason = str(source)
            break
    if not reason and progress is not None and int(exitstatus) != 2:  # 2: interrupted, said so
        reason = progress.incompleteness()
    run = finished_run_record(read_run(path), int(exitstatus), reason)
    if progress is not None:
        run = replace(run, collected=progress.collected, items_finished=progress.finished,
                      unrecorded=tuple(progress.unrecorded),
                      skipped=tuple(f"{nodeid}: {reason}"
                                    for nodeid, reason in sorted(progress.skipped.items())))
    write_run(path, run)
    return run


def earlier_run(report_dir: Path) -> str:
    """What earlier run a report folder holds ("" when none): its run id, or the files it left."""
    report_dir = Path(report_dir)
    if (report_dir / RUN_FILE).exists():
        try:
            return f"run {read_run(report_dir / RUN_FILE).run_id}"
        except (OSError, ValueError):
            return f"an unreadable {RUN_FILE}"
    left = [name for name in ("records.jsonl", "records", "failures")
            if (report_dir / name).exists()]
    # files a run would write there (a user's own report.md among them): never replaced unasked
    left += sorted(p.name for pattern in RUN_OUTPUTS for p in report_dir.glob(pattern))
    return ", ".join(left)


def remove_run_outputs(report_dir: Path) -> None:
    """Remove an earlier run's files from its folder (--overwrite); other files stay."""
    report_dir = Path(report_dir)
    for folder in RUN_FOLDERS:
        shutil.rmtree(report_dir / folder, ignore_errors=True)
    for pattern in RUN_OUTPUTS:
        for path in report_dir.glob(pattern):
            path.unlink()


def crash_record(harness, nodeid: str, worker_id: str, products: tuple[str, ...]):
    """The CRASH record of a test item whose worker process died: the case its in-flight marker
    names (or, when the worker died before any case, the item itself)."""
    from aclnn_conformance.judging.records import OutcomeRecord
    from aclnn_conformance.spec.outcome import Outcome
    marker = harness.report_dir / "inflight" / f"{worker_id}.json"
    base: dict[str, Any] = {}
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
        if doc.get("nodeid") == nodeid:
            base = dict(doc["record"])
        marker.unlink()
    except (OSError, ValueError, KeyError, TypeError):
        pass
    detail = (f"the worker process {worker_id or '?'} died while running this case "
              f"(pytest-xdist restarted it)")
    if not base:
        module = nodeid.split("::", 1)[0].rsplit("/", 1)[-1].removesuffix(".py")
        base = dict(case_id=nodeid.split("::", 1)[-1], op=module.removeprefix("test_"),
                    product=products[0] if len(products) == 1 else "unknown",
                    profile=harness.profile, backend=harness.backend.name,
                    backend_version=str(harness.backend.version), run_id=harness.run_id,
                    tier=harness.tier, nodeid=nodeid)
        detail += " before its case was known"
    base["rule_ids"] = tuple(base.get("rule_ids", ()))
    return OutcomeRecord(outcome=Outcome.CRASH, detail=detail,
                         reproducer=harness.reproducer(nodeid, base["product"], None), **base)
