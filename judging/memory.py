"""How much memory a case needs, estimated from its tensor descriptors before any storage exists,
and the budget a run holds every case to (``--max-case-bytes``).

The model, per case run in process (the reference backend's, the heaviest: it runs the oracle too):

- the storages of every tensor argument, inputs and outputs, as their descriptors size them
  (``max(storage shape, view extent)`` elements of the dtype's NumPy element), held twice: the
  case's own and the copies the backend writes its outputs into (``RunResult.storages``);
- ``WORKING_BYTES_PER_ELEMENT`` per view element of every tensor for the oracle (run by the
  reference backend, and again by the judge) and the comparison, which work in float64.

Measured peaks, above the process's size before the case, at 4 million elements per tensor on
the reference backend: aclnnAbs FLOAT 25 bytes per tensor element, aclnnAddRelu FLOAT 65,
aclnnApplyAdamWV2 FLOAT (amsgrad) 61, aclnnApplyAdamW FLOAT 64; the model gives 72, 72, 72 and 72
(with the storages twice): conservative by at most three times, never below a measured peak.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype

# eight float64 arrays per tensor element: the measured peaks above are 25 to 65 bytes
WORKING_BYTES_PER_ELEMENT = 64
STORAGE_COPIES = 2                 # the case's storages and the backend's output copies
UNKNOWN_ELEMENT_BYTES = 8          # a dtype with no NumPy element (UNDEFINED): the widest
DEFAULT_SHARE = 4                  # the default budget: a quarter of the machine's memory
OVER_BUDGET = "over the case memory budget"   # how an over-budget SKIPPED record's detail begins
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
NO_BUDGET = ("none", "off")        # --max-case-bytes none: every case runs, whatever its size


@dataclass(frozen=True)
class CaseMemory:
    """A case's estimated memory: its storages (once) and its tensors' view elements."""

    storage_bytes: int
    elements: int

    @property
    def total(self) -> int:
        return STORAGE_COPIES * self.storage_bytes + WORKING_BYTES_PER_ELEMENT * self.elements


@dataclass(frozen=True)
class MemoryBudget:
    """The most bytes one case may need, and where the figure comes from (for the records)."""

    limit: int
    source: str


def _element_bytes(dtype) -> int:
    try:
        return numpy_dtype(dtype).itemsize
    except ValueError:
        return UNKNOWN_ELEMENT_BYTES


def case_memory(case: Case) -> CaseMemory:
    """The estimate of ``case`` from its descriptors alone (its storages may be empty: a case file
    read without them)."""
    storage = elements = 0
    for arg in case.tensors.values():
        if arg is None:
            continue
        desc = arg.desc
        storage_elements = max(desc.storage_numel, desc.extent())
        storage += storage_elements * _element_bytes(desc.dtype)
        elements += max(desc.numel, storage_elements)
    return CaseMemory(storage, elements)


def format_bytes(count: int) -> str:
    """``count`` bytes in the largest binary unit that keeps a figure of at least 1."""
    for unit in ("T", "G", "M", "K"):
        if count >= UNITS[unit]:
            return f"{count / UNITS[unit]:.1f} {unit}iB"
    return f"{count} B"


def over_budget(case: Case, budget: MemoryBudget | None) -> str:
    """The SKIPPED detail of a case whose estimate exceeds ``budget``; "" when it fits (or there is
    no budget)."""
    if budget is None:
        return ""
    need = case_memory(case)
    if need.total <= budget.limit:
        return ""
    return (f"{OVER_BUDGET}: needs an estimated {need.total} bytes ({format_bytes(need.total)}: "
            f"storages of {need.storage_bytes} bytes twice, {WORKING_BYTES_PER_ELEMENT} bytes for "
            f"each of {need.elements} tensor elements in the oracle and the judge), the budget is "
            f"{budget.limit} bytes ({format_bytes(budget.limit)}, {budget.source}); not attempted")


def parse_bytes(text: str) -> int:
    """A count of bytes: a whole number, optionally followed by K, M, G or T (powers of 1024, as
    `free` and `ulimit` count; a trailing B or iB is allowed); ValueError with the reason."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:i?B)?\s*", text, flags=re.IGNORECASE)
    if not match:
        raise ValueError(f"{text!r} is not a count of bytes: give a whole number, optionally with "
                         f"K, M, G or T (powers of 1024), or none")
    count = int(match.group(1)) * UNITS[match.group(2).upper()]
    if count <= 0:
        raise ValueError(f"{text!r}: give more than 0 bytes, or none for no budget")
    return count


def machine_memory() -> int | None:
    """The memory this process may use: the machine's physical memory, or its control group's
    limit when smaller (a container's); None when neither can be read."""
    total = None
    try:
        total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        try:
            meminfo = Path("/proc/meminfo").read_text(encoding="ascii")
            total = int(re.search(r"^MemTotal:\s+(\d+) kB", meminfo, re.M).group(1)) * 1024
        except (OSError, AttributeError, ValueError):
            pass
    for limit_file in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            limit = int(Path(limit_file).read_text(encoding="ascii").strip())
        except (OSError, ValueError):   # absent, or "max": no limit of its own
            continue
        total = limit if total is None else min(total, limit)
    return total


def memory_budget(given: str | None) -> MemoryBudget | None:
    """The budget ``--max-case-bytes`` gives (None for none); without it a quarter of the
    machine's memory, or no budget when that cannot be read. ValueError for a bad value."""
    if given is not None:
        if given.strip().lower() in NO_BUDGET:
            return None
        return MemoryBudget(parse_bytes(given), f"--max-case-bytes {given.strip()}")
    total = machine_memory()
    if total is None:
        return None
    return MemoryBudget(total // DEFAULT_SHARE,
                        f"a quarter of this machine's {format_bytes(total)}, the default")
