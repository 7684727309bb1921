"""Operator-data files: an API's interface contract as facts read from the vendor's document and host
code (``aclnn-conformance extract``), loaded as an ``Operator`` record.

The contract (schema ``aclnn-conformance/operator-data/1``):

- One JSON file per API at ``<data folder>/<family>/<key>.json``; ``key`` is the API name without
  ``aclnn`` in snake_case (``aclnnGelu`` -> ``gelu``), unique across every source of the registry.
- Fields: ``schema``, ``key``, ``api``, ``family``, ``rule_prefix`` (per API, for the rule ids),
  ``vendor`` {``repository``, ``commit``, ``cann_release``, and with an opbase checkout read ``opbase``
  {``repository``, ``commit``, ``named``, ``notice``}}, ``document`` {``path``, lines},
  ``host_code`` {``path``, ``kind``: ``op_api`` | ``generated``}.
- ``params``: in prototype order; ``name``, ``direction`` (input | output | input/output | attr),
  ``c_kind`` (``spec.params.C_KINDS``), ``optional``, ``doc`` (the document's dtypes, per-product
  overrides, formats, ranks, non-contiguity) and ``citations``. The per-product dtype sets of the
  code are the ``dtype_in`` rules' ``dtypes`` with the products their expectation names.
- ``rules``: ``id`` (``<prefix>-<CATEGORY>-<nnn>``), ``kind`` (check | value), ``category``,
  ``step`` (listed in ``check_steps`` in the order the checks run), ``template`` and ``args`` (a
  predicate of ``spec.templates``), ``expect`` per profile (``{"status": code | "any_error": true |
  "not_judged": true | "judged": true, "products": [...]}``; the products not named, and the profiles
  not given, do not check the rule), ``known_by`` (``code``: a construct of the host code, judged under
  ``cann``; ``doc``: the document only, judged under ``doc``; ``unread``: the extractor could not read
  it, every call reaching it is not judged), ``citations`` ({repository, commit, path, line}), ``text``.
- ``check_steps``, ``supported`` (profile -> products), ``outputs``.
- ``values``: for the values engineer: ``output_dtype`` per output (``{"rule": "same_as", "of": p}``,
  ``{"rule": "promote", "of": [...]}``, ``{"rule": "fixed", "dtype": D}`` or ``{"rule": "unread"}``),
  ``promotion``, ``compute_dtype`` (what the host code casts to before the kernel), each with citations
  or ``unread`` and why, and ``empty_return`` (the empty-tensor early return read from the code).
- ``errata`` (document against code) and ``unread`` (what the extractor could not read, where, why),
  ``coverage`` (covered | partly covered, and what is missing).
- ``shared`` (optional): the rules' large repeated expressions, each written once; a rule holds
  ``{"$ref": "#/shared/N"}`` where one stood (``spec.shared_expressions``). ``read_data`` puts them
  back, so every reader of a loaded record sees the rules written out in full.

The record a file becomes: ``spec`` from the data, ``values_judged`` false (status-only) unless a
values table (``<data folder>/values/*.json``, lists of entries with an ``"api"``) names the API; then
``oracle`` and ``torch`` refer to ``aclnn_conformance.oracle.surface:from_case`` and
``aclnn_conformance.backends.torch_backend.surface:run``. Every other piece is a generic module of a
higher layer, reached per operator through its key (``...:PIECE.<key>``).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

from aclnn_conformance.spec.enums import AclDataType, AclFormat
from aclnn_conformance.spec.operator import Absent, Operator
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import (ANY_ERROR, JUDGED, NOT_JUDGED, STATUS, UNCHECKED, ByProduct,
                                          Erratum, Expect, OpSpec, Rule)
from aclnn_conformance.spec.templates import predicate, undecided_predicate, view_of_case
from aclnn_conformance.spec.shared_expressions import SharedExpressionError, resolve

SCHEMA = "aclnn-conformance/operator-data/1"
KNOWN_BY = ("code", "doc", "unread")
STATUS_ONLY = "values are not judged yet: status-only"


class OperatorDataError(ValueError):
    """An operator-data file that does not follow the schema."""


def api_key(api: str) -> str:
    """``aclnnGeluBackward`` -> ``gelu_backward``; ``aclnnAddV3`` -> ``add_v3``."""
    name = api[len("aclnn"):] if api.startswith("aclnn") else api
    name = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    name = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", name)
    return name.lower()


def rule_prefix_of(key: str) -> str:
    """The rule-id prefix of a data operator: its key in capitals without underscores, after ``X``
    (``gelu`` -> ``XGELU``), so that it never meets a hand-written operator's prefix."""
    return "X" + key.upper().replace("_", "")


def _expect(entry: Mapping[str, Any] | None) -> Expect | ByProduct:
    if not entry:
        return UNCHECKED
    if "status" in entry:
        exp = STATUS(int(entry["status"]))
    elif entry.get("any_error"):
        exp = ANY_ERROR
    elif entry.get("not_judged"):
        exp = NOT_JUDGED
    elif entry.get("judged"):
        exp = JUDGED
    else:
        raise OperatorDataError(f"expectation {entry!r} names no status, any_error, not_judged or judged")
    products = entry.get("products")
    if products is None:
        return exp
    unknown = sorted(set(products) - set(PRODUCT_IDS))
    if unknown:
        raise OperatorDataError(f"expectation names unknown products {unknown}")
    return ByProduct({p: exp for p in products}, UNCHECKED)


def _rule(key: str, r: Mapping[str, Any], where: str) -> Rule:
    if r.get("known_by") not in KNOWN_BY:
        raise OperatorDataError(f"{where}: rule {r.get('id')} known_by {r.get('known_by')!r}; "
                                f"valid: {', '.join(KNOWN_BY)}")
    pred = predicate(r["template"], r.get("args", {}))
    open_on = undecided_predicate(r["template"], r.get("args", {}))
    cites = "; ".join(f"{c['repository']}@{c['commit'][:8]} {c['path']}:{c['line']}"
                      for c in r.get("citations", []))
    return Rule(id=r["id"], op=key, kind=r["kind"], category=r["category"], text=r.get("text", ""),
                source=f"{r['known_by']}: {cites}",
                expect={prof: _expect(e) for prof, e in r.get("expect", {}).items()},
                violated=lambda case, pred=pred: pred(view_of_case(case)),
                undecided=None if open_on is None else lambda case, f=open_on: f(view_of_case(case)),
                step=r.get("step", "") if r["kind"] == "check" else "",
                note=f"template {r['template']} {json.dumps(r.get('args', {}), ensure_ascii=False)}")


def _param(p: Mapping[str, Any]) -> Param:
    doc = p.get("doc") or {}
    kind = p["c_kind"]
    dtypes = tuple(AclDataType[d] for d in (doc.get("dtypes") or []) if d in AclDataType.__members__)
    formats = tuple(AclFormat[f] for f in (doc.get("formats") or []) if f in AclFormat.__members__)
    ranks = tuple(range(doc["ranks"][0], doc["ranks"][1] + 1)) if doc.get("ranks") else ()
    return Param(name=p["name"], direction=p["direction"], dtypes=dtypes, formats=formats, ranks=ranks,
                 noncontiguous=doc.get("noncontiguous", "-"), shape_rule=doc.get("rank_cell", ""),
                 optional=bool(p.get("optional")), doc_row=doc.get("dtype_cell", ""), c_kind=kind)


def spec_of(data: Mapping[str, Any], where: str = "", values_judged: bool = False) -> OpSpec:
    key = data["key"]
    rules = tuple(_rule(key, r, where) for r in data["rules"])
    if values_judged:
        rules += (_value_domain(key, data),)
    errata = tuple(Erratum(e["id"], key, json.dumps(e["doc_says"], ensure_ascii=False),
                           json.dumps(e["cann_does"], ensure_ascii=False), e["source"])
                   for e in data.get("errata", []))
    return OpSpec(key=key, api=data["api"], rule_prefix=data["rule_prefix"],
                  doc=f"{data['vendor']['repository']}@{data['vendor']['commit'][:12]} {data['document']['path']}",
                  params=tuple(_param(p) for p in data["params"]), rules=rules,
                  supported={prof: frozenset(ps) for prof, ps in data["supported"].items()},
                  outputs=tuple(data["outputs"]),
                  standards=_standards(data, values_judged),
                  errata=errata, check_steps=tuple(data["check_steps"]), values_judged=values_judged)


def _value_domain(key: str, data: Mapping[str, Any]) -> Rule:
    from aclnn_conformance.spec.surface_values import value_domain_rule, value_entry
    return value_domain_rule(value_entry(data["api"]), key, data["rule_prefix"])


def _class_model(key: str, api: str) -> Any:
    """The arithmetic model of the API's value class (spec/surface_models.py), under its key."""
    from aclnn_conformance.spec.surface_models import arithmetic_model_for
    from aclnn_conformance.spec.surface_values import value_entry
    entry = value_entry(api)
    return arithmetic_model_for(key, entry.function_class, (entry.reduction or {}).get("kind"))


def _standards(data: Mapping[str, Any], values_judged: bool) -> dict[str, dict[str, str]]:
    """bit-exact for a status-only spec; the value class's standard for a value-judged one."""
    chosen = {o: "bit-exact" for o in data["outputs"]}
    if values_judged:
        from aclnn_conformance.spec.surface_models import standards_for
        chosen.update(standards_for(data["api"]))
    return {"cann": chosen, "doc": dict(chosen)}


@lru_cache(maxsize=None)
def _values_apis(folder: str) -> frozenset[str]:
    from aclnn_conformance.spec.surface_values import add_value_folder
    add_value_folder(Path(folder) / "values")
    apis: set[str] = set()
    for path in sorted(Path(folder).glob("values/*.json")):
        for entry in json.loads(path.read_text(encoding="utf-8")):
            if isinstance(entry, dict) and "api" in entry:
                apis.add(entry["api"])
    return frozenset(apis)


def _data_root(path: Path) -> Path:
    """The data folder a file belongs to: the parent of its family folder."""
    return path.parent.parent


def read_data(path: str | Path) -> dict[str, Any]:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise OperatorDataError(f"{path}: {exc}") from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise OperatorDataError(f"{path}: schema {data.get('schema') if isinstance(data, dict) else None!r}, "
                                f"expected {SCHEMA}")
    missing = [k for k in ("key", "api", "family", "rule_prefix", "vendor", "document", "host_code",
                           "params", "rules", "check_steps", "supported", "outputs", "values", "errata",
                           "unread") if k not in data]
    if missing:
        raise OperatorDataError(f"{path}: missing field(s) {', '.join(missing)}")
    try:
        return resolve(data)
    except SharedExpressionError as exc:
        raise OperatorDataError(f"{path}: {exc}") from None


def load_operator_file(path: str | Path) -> Operator:
    """The Operator record of one operator-data file."""
    path = Path(path)
    data = read_data(path)
    key = data["key"]
    judged = data["api"] in _values_apis(str(_data_root(path)))
    try:
        spec = spec_of(data, str(path), values_judged=judged)
    except (KeyError, ValueError) as exc:
        raise OperatorDataError(f"{path}: {type(exc).__name__}: {exc}") from None
    status_only = Absent(STATUS_ONLY)
    _PATHS[key] = path
    data_of.cache_clear()
    return Operator(
        spec=spec,
        arithmetic_model=_class_model(key, data["api"]) if judged else Absent(
            "no arithmetic model: the data states the interface, not the values"),
        oracle="aclnn_conformance.oracle.surface:from_case" if judged else status_only,
        base_call=f"aclnn_conformance.suites.calls.surface:BASE_CALL.{key}",
        table_cases=f"aclnn_conformance.suites.calls.surface:TABLE_CASES.{key}",
        fault_bases=f"aclnn_conformance.suites.calls.surface:FAULT_BASES.{key}",
        faults=f"aclnn_conformance.suites.faults.surface:FAULTS.{key}",
        strategies=f"aclnn_conformance.suites.strategies.surface:STRATEGIES.{key}",
        emulator=f"aclnn_conformance.backends.emulator.surface:MODELS.{key}",
        torch="aclnn_conformance.backends.torch_backend.surface:run" if judged else status_only,
        mutants=f"aclnn_conformance.backends.mutants.surface:MUTANT_SETS.{key}",
        relations=Absent("a data operator has the generic suites only"),
        sensitivity=Absent(STATUS_ONLY),
        modules=(f"data:{path}",),
    )


_PATHS: dict[str, Path] = {}   # key -> the file each loaded data operator came from


@lru_cache(maxsize=None)
def data_of(key: str) -> dict[str, Any]:
    """The raw data of a loaded data operator, by key (for the generic pieces that need more than
    the spec: the doc's ranks and non-contiguity, the empty return)."""
    if key not in _PATHS:
        raise KeyError(f"{key} is not a loaded data operator")
    return read_data(_PATHS[key])
