"""The long commands say how far they are, on stderr, without touching the output they document on
stdout; ``verify --rerun K`` names each case it ran again and whether it matched the bundle."""
from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import OutcomeRecord, read_records, write_records
from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.certify import MUSTPASS_FORMAT, certify
from aclnn_conformance.reports.progress import Progress, RecordCounter, progress
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.suites.calls.apply_adam_w_quant import table_cases

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = "atlas-a2"
OP = "apply_adam_w_quant"


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_progress_is_a_few_milestone_lines(capsys):
    assert list(progress(range(1000), "counting", "numbers")) == list(range(1000))
    out, err = capsys.readouterr()
    assert out == ""
    assert err.splitlines()[0] == "counting: 1000 numbers to do"
    assert [line.split(" (")[0] for line in err.splitlines()[1:4]] == [
        "counting: 25%", "counting: 50%", "counting: 75%"]
    assert err.splitlines()[-1].startswith("counting: done, 1000 numbers in ")
    assert len(err.splitlines()) == 5


def test_on_a_terminal_progress_is_a_bar_on_stderr(monkeypatch, capsys):
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    with Progress("counting", 10, "numbers") as bar:
        for _ in range(10):
            bar.update()
    assert "\rcounting:   0%|" in terminal.getvalue() and " 0/10 [" in terminal.getvalue()
    assert terminal.getvalue().rstrip().endswith("counting: done, 10 numbers in 0.0 s")
    assert capsys.readouterr().out == ""


def test_the_record_counter_reads_the_shards_on_then_the_merged_file(tmp_path):
    shard = tmp_path / "records" / "gw0.jsonl"
    shard.parent.mkdir()
    shard.write_text("{}\n{}\n")
    count = RecordCounter(tmp_path)
    assert count() == 2
    with open(shard, "a") as fh:
        fh.write("{}\n")
    assert count() == 3
    (tmp_path / "records.jsonl").write_text("{}\n" * 4)   # merged with another worker's shard
    shard.unlink()
    assert count() == 4


def test_a_long_command_writes_progress_to_stderr_and_its_output_to_stdout(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "aclnn_conformance.cli", "mutate", "--mutants",
                           "DecayWhenWdNonpositive", "--products", PRODUCT, "--out",
                           str(tmp_path / "out")], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    err = proc.stderr.splitlines()
    assert err[0] == "mutate: 1 mutants to do" and err[-1].startswith("mutate: done, 1 mutants in ")
    assert "mutate:" not in proc.stdout and "written: " in proc.stdout


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    """A certification of three table cases on the reference backend."""
    base = tmp_path_factory.mktemp("progress")
    chosen = [c.case_id for c in list(table_cases("ci"))[:3]]
    mustpass = base / "mustpass.txt"
    mustpass.write_text(f"# {MUSTPASS_FORMAT}\n"
                        + "".join(f"{PRODUCT} {OP} {case_id}\n" for case_id in chosen))
    suites = tuple(f"suites/test_operators.py::test_table[{PRODUCT}-{OP}:{case_id}]"
                   for case_id in chosen)
    with contextlib.redirect_stderr(io.StringIO()) as err:
        path, errors, _ = certify("reference", PRODUCT, base / "bundle", workers=0,
                                  mustpass=mustpass, suites=suites, ops=(OP,))
    assert errors == [], errors
    return path, mustpass, chosen, err.getvalue()


def test_certify_shows_its_progress_on_stderr(bundle):
    *_, err = bundle
    assert err.splitlines()[0] == f"certify {PRODUCT}: 3 cases to do"
    assert err.splitlines()[-1].startswith(f"certify {PRODUCT}: done, 3 cases in ")


def test_verify_rerun_names_each_case_and_its_result(bundle, tmp_path, capsys):
    path, mustpass, chosen, _ = bundle
    records = list(read_records(path / "results" / "records.jsonl"))
    # the bundle claims another outcome for one case: the re-run must say it differs
    edited = [replace(r, outcome=Outcome.QUALITY_WARNING) if r.case_id == chosen[1] else r
              for r in records]
    write_records(path / "results" / "records.jsonl", edited)
    main(["verify", str(path), "--mustpass", str(mustpass), "--rerun", "3",
          "--backend", "reference"])
    out, err = capsys.readouterr()
    assert "re-ran 3 must-pass case(s): 2 matched, 1 differ" in out
    for case_id in chosen:
        if case_id == chosen[1]:
            assert (f"re-ran {OP} {case_id} on {PRODUCT}: differs (PASS, the bundle records "
                    f"QUALITY_WARNING)") in out
        else:
            assert f"re-ran {OP} {case_id} on {PRODUCT}: matched (PASS)" in out
    assert "verify: re-running 3 case(s): " in err and "re-ran" not in err


def test_more_work_than_foreseen_raises_the_total(capsys):
    with Progress("drawing", 4, "cases") as bar:
        bar.moveto(6)
    assert capsys.readouterr().err.splitlines()[-1].startswith("drawing: done, 6 cases in ")
    assert bar.total == 6


def test_report_says_when_its_records_are_read_and_when_it_is_done(tmp_path, capsys):
    records = [OutcomeRecord(case_id=c, op=OP, product=PRODUCT, profile="cann", backend="b",
                             outcome=Outcome.PASS, run_id="r1") for c in ("a", "b")]
    write_records(tmp_path / "records.jsonl", records)
    assert main(["report", str(tmp_path / "records.jsonl"), "--out", str(tmp_path / "out")]) == 0
    out, err = capsys.readouterr()
    assert err.splitlines()[0] == "report: 2 records read; writing the reports"
    assert err.splitlines()[-1].startswith("report: done in ")
    assert "report:" not in out
