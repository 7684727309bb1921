"""Reading runs: report directories, merged directories or bare records files, and merging them.

A source is
- a report directory: ``records.jsonl`` (merged at the end of the run) or, when the run never got to
  merge, its shards ``records/*.jsonl``; ``run.json`` and, in a merged directory, ``runs/*.json``;
- a ``.jsonl`` file of outcome records (a ``run.json`` beside it is read too).

Records are keyed by (op, case_id, product, profile, backend). Merging refuses one key that comes
from two different runs: shards of one run merge, two runs of the same cases do not.
"""
from __future__ import annotations

import json
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import pandas as pd

from aclnn_conformance.judging.records import (CERTIFIABLE, OutcomeRecord, RecordError, RunRecord, read_records,
                             read_run)
from aclnn_conformance.spec.outcome import Outcome

RECORD_KEY = ("op", "case_id", "product", "profile", "backend")


class MergeError(ValueError):
    """Records that cannot be merged into one set."""


@dataclass
class RunSet:
    """Outcome records and the run records they come from."""

    records: list[OutcomeRecord] = field(default_factory=list)
    runs: dict[str, RunRecord] = field(default_factory=dict)     # run_id -> run record
    sources: list[str] = field(default_factory=list)
    repeats: int = 0            # records of one case seen again in the same run (collapsed)

    def frame(self) -> pd.DataFrame:
        return records_frame(self.records)


def record_key(rec: OutcomeRecord) -> tuple[str, ...]:
    return tuple(getattr(rec, k) for k in RECORD_KEY)


def records_frame(records: Iterable[OutcomeRecord]) -> pd.DataFrame:
    rows = [r.to_json() for r in records]
    columns = list(OutcomeRecord.__dataclass_fields__)
    # object columns keep None as None (not NaN) for the optional fields
    df = pd.DataFrame(rows, columns=columns, dtype=object)
    df["duration_s"] = df["duration_s"].astype(float)
    df["certifiable"] = df["outcome"].isin(CERTIFIABLE)
    return df


def _record_files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    merged = path / "records.jsonl"
    if merged.exists():
        return [merged]
    shards = sorted((path / "records").glob("*.jsonl"))
    if shards or (path / "run.json").exists():
        return shards
    raise RecordError(f"{path}: not a run directory (no records.jsonl, records/ or run.json)")


def _run_files(path: Path) -> list[Path]:
    base = path if path.is_dir() else path.parent
    files = [base / "run.json"] if (base / "run.json").exists() else []
    return files + sorted((base / "runs").glob("*.json"))


def load_source(path: str | Path) -> RunSet:
    path = Path(path)
    if not path.exists():
        raise RecordError(f"{path}: no such file or directory")
    out = RunSet(sources=[str(path)])
    for f in _record_files(path):
        # a shard of a run that never merged may end in a record cut by a killed writer
        out.records.extend(read_records(f, partial_tail=f.parent.name == "records"))
    for f in _run_files(path):
        run = read_run(f)
        out.runs[run.run_id] = run
    if path.is_dir():
        out.records.extend(inflight_crashes(path, out.runs))
    return out


def inflight_crashes(report_dir: Path, runs: dict[str, RunRecord]) -> list[OutcomeRecord]:
    """CRASH records of the cases a process was running when it died without any record or
    controller to write one (an in-process backend that killed pytest): its in-flight markers,
    left in an incomplete run's folder."""
    crashes = []
    for marker in sorted((report_dir / "inflight").glob("*.json")):
        if marker_alive(marker):   # a run still going: its case is running, not crashed
            continue
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
            base = dict(doc["record"])
            run = runs.get(base.get("run_id", ""))
            if run is None or run.complete:
                continue
            base["rule_ids"] = tuple(base.get("rule_ids", ()))
            crashes.append(OutcomeRecord(
                outcome=Outcome.CRASH, reproducer=str(doc.get("reproducer", "")),
                detail=f"the process ({marker.stem}) died while running this case; no record was "
                       f"written (from its in-flight marker {marker.name})", **base))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise RecordError(f"{marker}: unreadable in-flight marker ({exc})") from None
    return crashes


def marker_alive(marker: Path) -> bool:
    """The process an in-flight marker names is alive on this machine (its run is not dead)."""
    try:
        doc = json.loads(marker.read_text(encoding="utf-8"))
        if doc.get("host") != socket.gethostname():
            return False
        os.kill(int(doc["pid"]), 0)
    except PermissionError:      # alive, and another user's
        return True
    except (OSError, ValueError, KeyError, TypeError):   # no such process, or an older marker
        return False
    return True


def merge(sets: Iterable[RunSet]) -> RunSet:
    """One set from many. A key seen twice in one run (the same case run twice, e.g. an example
    hypothesis replays) is one case: the worst of its records is kept and counted in ``repeats``.
    One key from two different runs is refused with a MergeError."""
    from aclnn_conformance.reports.tables import severity
    out = RunSet()
    seen: dict[tuple[str, ...], tuple[int, str]] = {}
    for s in sets:
        for run_id, run in s.runs.items():
            out.runs.setdefault(run_id, run)
        out.sources.extend(s.sources)
        out.repeats += s.repeats
        source = ", ".join(s.sources)
        for rec in s.records:
            key = record_key(rec)
            prior = seen.get(key)
            if prior is None:
                seen[key] = (len(out.records), source)
                out.records.append(rec)
                continue
            index, other_source = prior
            other = out.records[index]
            if other.run_id != rec.run_id:
                raise MergeError(
                    f"duplicate case {_key_text(key)}: in run {other.run_id} ({other_source}) and "
                    f"in run {rec.run_id} ({source}); shards of one run merge, two runs of the "
                    f"same cases do not (diff or compare them instead)")
            if other != rec:
                out.repeats += 1
                if severity(rec.outcome) < severity(other.outcome):
                    out.records[index] = rec
    return out


def count_mismatches(runset: RunSet) -> list[str]:
    """Where the records and the run records disagree: a run that wrote N records, of which the
    set holds another number (lines lost or added after the run)."""
    held: dict[str, int] = {}
    for rec in runset.records:
        held[rec.run_id] = held.get(rec.run_id, 0) + 1
    return [f"run {run_id}: run.json says the run wrote {run.records_written} record(s); "
            f"{held.get(run_id, 0)} are here (records lost or added after the run)"
            for run_id, run in sorted(runset.runs.items())
            if run.records_written is not None and run.records_written != held.get(run_id, 0)]


def load(paths: Iterable[str | Path]) -> RunSet:
    return merge(load_source(p) for p in paths)


def _shard_family(run: RunRecord) -> tuple:
    """What the shards of one split run share: the suite, the options and the split itself."""
    return (run.suite_commit, run.backend, tuple(run.products), run.profile, run.tier,
            str(run.hypothesis.get("seed")), run.shard["plugin"], run.shard["splits"],
            run.shard.get("algorithm", ""))


def check_shards(sets: list[RunSet]) -> None:
    """Refuse (MergeError) a merge of a split run with a shard missing or given twice: every group
    1..N of the same split (same suite commit, backend, products, profile, tier, seed, N) once."""
    families: dict[tuple, dict[int, list[str]]] = {}
    for s in sets:
        for run in s.runs.values():
            if run.shard is None:
                continue
            where = f"run {run.run_id} ({', '.join(s.sources)})"
            families.setdefault(_shard_family(run), {}).setdefault(int(run.shard["group"]), []).append(where)
    problems = []
    for family, groups in families.items():
        splits = family[7]
        for group, where in sorted(groups.items()):
            if len(where) > 1:
                problems.append(f"shard {group} of {splits} given {len(where)} times: {'; '.join(where)}")
            if not 1 <= group <= splits:
                problems.append(f"shard {group} is outside 1..{splits}: {where[0]}")
        missing = [g for g in range(1, splits + 1) if g not in groups]
        if missing:
            problems.append(f"shard(s) {', '.join(map(str, missing))} of {splits} missing "
                            f"(split by {family[6]} at suite commit {family[0][:12]}, backend "
                            f"{family[1]}); merge every shard of the run")
    if problems:
        raise MergeError("; ".join(problems))


def _key_text(key: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"{k}={v}" for k, v in zip(RECORD_KEY, key)) + ")"


def write_runset(out_dir: str | Path, runset: RunSet) -> Path:
    """Write a merged directory: records.jsonl, run.json when there is exactly one run, and every
    run record under runs/<run_id>.json."""
    from aclnn_conformance.judging.records import write_records, write_run
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    write_records(out / "records.jsonl", runset.records)
    for run_id, run in runset.runs.items():
        write_run(out / "runs" / f"{run_id}.json", run)
    if len(runset.runs) == 1:
        write_run(out / "run.json", next(iter(runset.runs.values())))
    (out / "sources.json").write_text(json.dumps(runset.sources, indent=1) + "\n")
    return out
