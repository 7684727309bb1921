"""What an extraction covers: each API covered (every check read), partly covered (what is missing)
or not covered (why), as the report's Scope section counts them."""
from __future__ import annotations

from collections import Counter
from typing import Any

# argument kinds the harness builds a call of (spec.params C_KINDS)
BUILDABLE_KINDS = {"tensor", "scalar", "int_array", "bool_array", "float_array", "double", "float", "int64",
                   "bool", "string", "dtype", "workspace_size", "executor"}

# The reductions of ops-math's math folder are the APIs documented in the vendor's own operator
# folders of reduction kernels (reduce_sum, reduce_var, arg_max_v2, arg_min_with_value, ...): a
# family of its own, measured apart from the elementwise and other APIs of the same folder.
REDUCTION_OPERATOR_FOLDERS = ("reduce_", "arg_max", "arg_min")


def family_group(record: dict[str, Any]) -> str:
    """The family an API is measured in: its family folder, and ``<folder>/reduction`` for the APIs
    whose document lies in a reduction kernel's operator folder."""
    operator_folder = record["document"]["path"].split("/")[1]
    if operator_folder.startswith(REDUCTION_OPERATOR_FOLDERS):
        return f"{record['family']}/reduction"
    return record["family"]


def coverage_of(record: dict[str, Any]) -> dict[str, Any]:
    kinds = sorted({p["c_kind"] for p in record["params"]} - BUILDABLE_KINDS)
    if not record["params"]:
        return {"status": "not covered", "missing": ["the document gives no prototype the reader parses"]}
    if kinds:
        return {"status": "not covered",
                "missing": [f"argument kind(s) {', '.join(kinds)}: calls of them are not built yet"]}
    missing = [f"{u['what']} ({u.get('where', {}).get('path', u.get('where')) if isinstance(u.get('where'), dict) else u.get('where')})"
               for u in record["unread"]]
    if missing:
        return {"status": "partly covered", "missing": missing}
    return {"status": "covered", "missing": []}


def scope_of(records: list[dict[str, Any]]) -> dict[str, Any]:
    rows = []
    for rec in records:
        cov = rec.get("coverage") or coverage_of(rec)
        rows.append({"api": rec["api"], "key": rec["key"], "family": rec["family"], "group": family_group(rec),
                     "repository": rec["vendor"]["repository"], "document": rec["document"]["path"],
                     "host_code": rec["host_code"].get("kind"), **cov})
    return {"counts": dict(Counter(r["status"] for r in rows)), "apis": rows}
