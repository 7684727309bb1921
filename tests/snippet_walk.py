"""The host-code reader on a snippet written in the vendor's style: the events of its
GetWorkspaceSize (the one function whose name ends so), each parameter named as the API names it."""
from __future__ import annotations

import json

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, T, walk_api


# the shape-or-one-element check of ops-math common/inc/op_api/aclnn_check.h, which op_api files include
CHECK_HEADER = """
static bool CheckShapeAndScalarSame(const aclTensor* t0, const aclTensor* t1)
{
    auto const& t0Shape = t0->GetViewShape();
    auto const& t1Shape = t1->GetViewShape();
    if (t0Shape == t1Shape) {
        return true;
    }
    if (t0Shape.GetShapeSize() == 1 && t1Shape.GetShapeSize() == 1) {
        return true;
    }
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "The tensor's shape is not equal.");
    return false;
}
"""


def walk(body: str, names: list[str], product: str = "atlas-a2") -> list:
    src = read_source("snippet.cpp", body)
    fn = [f for f in src.functions.values() if f.name.endswith("GetWorkspaceSize")][0]
    assert len(fn.params) == len(names)
    return walk_api(Index(src, []), fn, {p: T(n) for p, n in zip(fn.params, names)}, product)


def rules(events) -> list[tuple]:
    """(kind, template, arguments as JSON gives them back, status) of each event."""
    return [(e.kind, e.template, json.loads(json.dumps(e.args_dict())), e.status) for e in events]


def read_checks(body: str, names: list[str]) -> list:
    """The check events of a snippet the reader reads whole (no unread event)."""
    events = walk(body, names)
    assert [e.text for e in events if e.kind == "unread"] == []
    return [e for e in events if e.kind == "check"]


def violated(checks, call) -> list[int]:
    """The indices of the checks ``call`` violates: its ``when`` guard holding and its rule violated."""
    from aclnn_conformance.spec.templates import TEMPLATES, guard_holds
    out = []
    for i, c in enumerate(checks):
        args = dict(c.args)
        when = args.pop("when", None)
        if (when is None or guard_holds(call, when) is True) and TEMPLATES[c.template](call, args):
            out.append(i)
    return out
