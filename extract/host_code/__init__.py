"""The hand-written op_api's reader, a package: the walk in ``walk``; the names the rest of the project
imports, re-exported here."""
from __future__ import annotations

from aclnn_conformance.extract.host_code.walk import CAST_ALWAYS, Event, Index, KernelIndex, T, Unreadable, _args, walk_api

__all__ = ["CAST_ALWAYS", "Event", "Index", "KernelIndex", "T", "Unreadable", "_args", "walk_api"]
