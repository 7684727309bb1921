"""Progress of the long commands, on stderr: a tqdm bar on a terminal, a few milestone lines (start,
each quarter, end) when stderr is a file or a pipe. stdout, the commands' documented output, is
never written here.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Iterable, Iterator, TypeVar

from tqdm import tqdm

T = TypeVar("T")
POLL_S = 0.5           # how often a watched subprocess's count is read again
MILESTONES = (25, 50, 75)


def _on_terminal() -> bool:
    return bool(getattr(sys.stderr, "isatty", lambda: False)())


class Progress:
    """One task's progress: ``update``/``moveto`` as it goes, ``close`` at its end (also as a
    context manager)."""

    def __init__(self, desc: str, total: int | None = None, unit: str = "it",
                 start: str | None = None):
        self.desc, self.total, self.unit = desc, total, unit
        self.n = 0
        self._start = time.monotonic()
        self._passed = 0          # milestones already written
        self._closed = False
        self._bar = tqdm(total=total, desc=desc, unit=f" {unit}", file=sys.stderr, leave=False,
                         dynamic_ncols=True) if _on_terminal() else None
        if start is not None or self._bar is None:
            self.note(start or (f"{total} {unit} to do" if total is not None else "started"))

    def note(self, text: str) -> None:
        """A milestone line, shown on a terminal too (above the bar)."""
        line = f"{self.desc}: {text}"
        if self._bar is not None:
            self._bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def update(self, n: int = 1) -> None:
        self.moveto(self.n + n)

    def moveto(self, n: int) -> None:
        if n == self.n:
            return
        if self.total is not None and n > self.total:   # more than foreseen (drawn cases)
            self.total = n
            if self._bar is not None:
                self._bar.total = n
        if self._bar is not None:
            self._bar.update(n - self.n)
        self.n = n
        if self._bar is None and self.total:
            while self._passed < len(MILESTONES) and 100 * n >= MILESTONES[self._passed] * self.total:
                self.note(f"{MILESTONES[self._passed]}% ({n} of {self.total} {self.unit}, "
                          f"{self.elapsed():.0f} s)")
                self._passed += 1

    def elapsed(self) -> float:
        return time.monotonic() - self._start

    def close(self, text: str | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        if self._bar is not None:
            self._bar.close()
        counted = f", {self.n} {self.unit}" if self.n or self.total is not None else ""
        self.note(text or f"done{counted} in {self.elapsed():.1f} s")

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close("stopped" if exc[0] is not None else None)


def progress(items: Iterable[T], desc: str, unit: str = "it", total: int | None = None) -> Iterator[T]:
    """``items`` one by one, counted on stderr."""
    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    with Progress(desc, total, unit) as bar:
        for item in items:
            yield item
            bar.update()


class RecordCounter:
    """The records a run has written so far into its report folder: the lines of its shards
    (records/*.jsonl, read on from where the last count stopped) while it runs, those of
    records.jsonl once it is merged (written whole, so complete when it is there)."""

    def __init__(self, report_dir: Path):
        self.shards, self.merged = Path(report_dir) / "records", Path(report_dir) / "records.jsonl"
        self._seen: dict[Path, tuple[int, int]] = {}   # shard -> (bytes read, lines in them)
        self._final: int | None = None

    def __call__(self) -> int:
        if self._final is not None:
            return self._final
        if self.merged.is_file():
            with open(self.merged, "rb") as fh:
                self._final = sum(chunk.count(b"\n") for chunk in iter(lambda: fh.read(1 << 20), b""))
            return self._final
        for path in self.shards.glob("*.jsonl"):
            offset, lines = self._seen.get(path, (0, 0))
            try:
                with open(path, "rb") as fh:
                    fh.seek(offset)
                    chunk = fh.read()
            except OSError:   # merged and removed between the listing and the read
                continue
            self._seen[path] = (offset + len(chunk), lines + chunk.count(b"\n"))
        return sum(lines for _, lines in self._seen.values())


def run_watched(cmd: list[str], desc: str, unit: str, total: int | None,
                count: Callable[[], int], **popen) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True)`` with its progress on stderr:
    ``count()`` (what the process has done so far) read every POLL_S seconds against ``total``."""
    with tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as out, \
            tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace") as err, \
            Progress(desc, total, unit) as bar:
        # files, not pipes: a chatty pytest never blocks on a full pipe while we poll
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, **popen)
        try:
            while proc.poll() is None:
                time.sleep(POLL_S)
                bar.moveto(count())
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        bar.moveto(count())
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, proc.returncode, out.read(), err.read())
