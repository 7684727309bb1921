"""The host-code reader on a snippet written in the vendor's style: the events of its
GetWorkspaceSize (the one function whose name ends so), each parameter named as the API names it."""
from __future__ import annotations

import json

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api


def walk(body: str, names: list[str], product: str = "atlas-a2") -> list:
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    assert len(fn.params) == len(names)
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


def rules(events) -> list[tuple]:
    """(kind, template, arguments as JSON gives them back, status) of each event."""
    return [(e.kind, e.template, json.loads(json.dumps(e.args_dict())), e.status) for e in events]
