"""The extracted spec against the vendor's own unit tests: every op_api gtest expectation of the
covered APIs, replayed under ``cann`` on the product the unit-test harness runs as, counted strictly
(a different status, "not judged" or "any error" where the test names a code all count against),
per expected status; every disagreement listed with its cause.

``aclnn-conformance agreement REPO_CHECKOUT... --out DIR`` writes ``agreement.md`` and
``agreement.json``."""
from __future__ import annotations

import argparse
import itertools
import json
import re
from dataclasses import replace
from functools import lru_cache
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from aclnn_conformance.extract.build import DEFAULT_FAMILIES, HELD_OUT, open_checkout
from aclnn_conformance.extract.host_code.kernels import VIEW_COPY_ROUTE
from aclnn_conformance.extract.scope import REDUCTION_OPERATOR_FOLDERS, family_group
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.registry import operator, operators
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.enums import AclFormat
from aclnn_conformance.spec.templates import reads_formats, value_reads, view_of_case
from aclnn_conformance.vendor.atk import CALL_SIDES, FORMAT_APPLIED, VALUES_UNREAD
from aclnn_conformance.vendor.importer import collect, read_file
from aclnn_conformance.vendor.values import span_of, span_points

STATUS_CLASSES = {0: "success", 161001: "161001", 161002: "161002"}
ANY_ERROR = "any error"
STATUS_ORDER = ("161001", "161002", "other", ANY_ERROR, "success")
BAR = 0.97      # the share of every expected status a family holds before its verdicts are trusted



CAUSES_FILE = Path(__file__).resolve().parents[1] / "spec" / "data" / "agreement_causes.json"


@lru_cache(maxsize=None)
def _known_causes() -> dict[str, dict[str, str]]:
    """The causes investigated by hand (facts about vendor tests and code, as data)."""
    return json.loads(CAUSES_FILE.read_text(encoding="utf-8"))

def _class(status: int | None) -> str:
    """The expected status a row is counted under; None is a test expecting any error (``EXPECT_NE(ret,
    ACLNN_SUCCESS)``), counted apart from the named statuses."""
    return ANY_ERROR if status is None else STATUS_CLASSES.get(status, "other")


def agrees(vendor_any_error: bool, vendor_status: int | None, expected_kind: str, ours: int | None) -> bool:
    """Whether the spec's expectation meets the vendor test's: the same status where the test names one,
    any failure (a named status or any error status, ``ours`` None) where it asserts only that the call
    fails."""
    if vendor_any_error:
        return expected_kind in ("error", "not_supported")
    return ours is not None and ours == vendor_status


def unit_test_folders(root: Path, families: tuple[str, ...]) -> list[Path]:
    """The op_api unit-test folders of the families: ``<op>/tests/ut/op_api`` and, where the op_api
    sits in op_host, ``<op>/tests/ut/op_host/op_api`` (ops-nn norm/add_rms_norm, ops-transformer)."""
    return [p for f in families for layout in ("*/tests/ut/op_api", "*/tests/ut/op_host/op_api")
            for p in sorted((root / f).glob(layout))]


def st_files(root: Path, families: tuple[str, ...]) -> list[Path]:
    """The vendor's ATK json and TTK csv files (``<op>/tests/st/**``) of the families."""
    return [p for f in families for p in sorted((root / f).glob("*/tests/st/**/*"))
            if p.suffix in (".json", ".csv") and p.is_file()]


def measured_families(repository: str, folder: str, data: Path | None) -> tuple[str, ...]:
    """The families of a checkout the operator data holds (its scope.json: an extraction of other
    families is measured on theirs), else the default families of part one."""
    scope = data / "scope.json" if data is not None else None
    if scope is not None and scope.is_file():
        rows = json.loads(scope.read_text(encoding="utf-8")).get("apis", [])
        return tuple(sorted({r["family"] for r in rows if r.get("repository") == repository
                             and r.get("family_taken", True)}))
    return DEFAULT_FAMILIES.get(folder, ())


def st_validity(checkouts: list[str], data: Path | None = None) -> dict[str, Any]:
    """Every ATK and TTK case of the covered APIs judged under ``cann`` on its product: valid (the
    spec expects success), invalid (it expects an error: the case and the spec disagree), or not
    judged (an unread construct decides). A case naming no product is valid when the spec accepts it
    on some documented product (see `_st_case`). Cases the importer could
    not read in full are listed apart: they are no call the spec can judge."""
    cases: list[dict[str, Any]] = []
    unread: list[str] = []
    for path in checkouts:
        checkout = open_checkout(path)
        for f in st_files(checkout.root, measured_families(checkout.repository, checkout.root.name, data)):
            try:
                result = read_file(f)
            except Exception as exc:   # one unreadable vendor file is listed, not fatal
                unread.append(f"{f}: {type(exc).__name__}: {exc}")
                continue
            unread += [p.text() for p in result.problems]
            for vc in result.cases:
                if vc.format not in ("atk", "ttk-aclnn", "ttk-kernel") or not vc.has_spec or \
                        not operator(vc.op).modules[0].startswith("data:"):
                    continue
                cases.append({**_st_case(vc), "family": family_group(data_of(vc.op))})
    counts = Counter(c["verdict"] for c in cases)
    per_family: dict[str, Counter] = defaultdict(Counter)
    for c in cases:
        per_family[c["family"]][c["verdict"]] += 1
    judged = counts["valid"] + counts["invalid"]
    return {"cases": len(cases), "valid": counts["valid"], "invalid": counts["invalid"],
            "valid_on_some_products": sum(c.get("valid_on_every") is False for c in cases),
            "not_judged": counts["not judged"], "share_valid": counts["valid"] / max(len(cases), 1),
            "share_valid_of_judged": counts["valid"] / max(judged, 1),
            "per_family": {f: {"cases": sum(n.values()), "valid": n["valid"], "invalid": n["invalid"],
                               "not_judged": n["not judged"]} for f, n in sorted(per_family.items())},
            "exceptions": [c for c in cases if c["verdict"] == "invalid"] + _grouped_not_judged(cases),
            "not_read": _grouped_problems(unread)}


def _grouped_not_judged(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The not-judged cases, one row per API and cause with its count and first case (thousands of
    ATK cases share a handful of causes)."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for c in cases:
        if c["verdict"] != "not judged":
            continue
        key = (c["api"], c.get("cause", "").split(":")[0])   # the rule or the kind of cause
        if key not in groups:
            groups[key] = {"api": c["api"], "source": c["source"], "product": c["product"],
                           "verdict": "not judged", "cause": c.get("cause", ""), "cases": 0}
        groups[key]["cases"] += 1
    return list(groups.values())


def _grouped_problems(problems: list[str]) -> list[str]:
    """What the importer could not read, one line per kind of problem in each file: its first
    instance and how many more."""
    seen: dict[str, list[str]] = {}
    for text in problems:
        where, _, what = text.partition(": ")
        kind = re.sub(r"\brow \S+|'[^']*'|\d+", "#", what)
        seen.setdefault(where.split(":")[0] + " " + kind, []).append(text)
    return [items[0] + (f" (and {len(items) - 1} more like it)" if len(items) > 1 else "")
            for items in seen.values()]


def _st_case(vc) -> dict[str, Any]:
    row = {"api": vc.api, "source": vc.source, "format": vc.format, "product": vc.product,
           "product_source": vc.product_source}
    if vc.sides:
        return _sides_case(vc, row)
    # values decide no first-phase check; the formats a format item may give are judged below
    problems = [p for p in vc.problems if VALUES_UNREAD not in p
                and not (vc.open_formats and FORMAT_APPLIED in p)]
    if problems:
        row.update(verdict="not judged", cause="the importer read the case only in part: "
                   + "; ".join(problems)[:200])
        return row
    spec = operator(vc.op).spec
    if vc.unstated:
        # the ATK files list the inputs only; the framework makes the outputs from the golden:
        # the checks that read an unstated parameter are left out (the case is judged on what it states)
        spec = replace(spec, rules=tuple(r for r in spec.rules
                                         if not _rule_params(vc.op, r.id) & vc.unstated))
        row["unstated"] = sorted(vc.unstated)
    case = vc.to_case(draw=False)
    if not vc.drawn and not vc.open_formats:
        return {**row, **_verdict(vc, spec, case)}
    rewrite = vc.rewrite
    if rewrite.get("reads_drawn"):
        # the executor set these from drawn values (the case holds them for the values drawn): the
        # verdict stands for every drawn value when no check reads what it set
        for name in rewrite["writes"]:
            tests, unbounded = _value_tests(vc, spec, case, name) if name in case.attrs else ([], "")
            if name not in case.attrs or tests or unbounded:
                return {**row, "verdict": "not judged", "cause": f"the executor ({rewrite['said']}) "
                        f"sets {name} from the drawn value of {', '.join(rewrite['reads_drawn'])}, and "
                        f"{unbounded or 'a check'} reads it"}
    # a value drawn from a range or a distribution, a format the executor may give: the verdict
    # must be the one for every value and every format
    variants, said = _drawn_variants(vc, spec, case)
    if variants is None:
        return {**row, "verdict": "not judged", "cause": said[-1], "drawn": said[:-1]}
    if vc.drawn:
        row["drawn"] = said
    open_on = []        # what the verdict may depend on
    if vc.drawn:
        open_on.append(f"the value drawn for {', '.join(vc.drawn)}")
    if vc.open_formats:
        variants, row["formats"], read = _format_variants(vc, spec, variants)
        if read:
            open_on.append(f"the formats the format item may give {', '.join(vc.open_formats)}")
    verdicts = [_verdict(vc, spec, v) for v in variants]
    if any(v != verdicts[0] for v in verdicts):
        return {**row, "verdict": "not judged", "cause": f"the verdict depends on {' or '.join(open_on)}: "
                + "; ".join(dict.fromkeys(v.get("cause") or v["verdict"] for v in verdicts))[:240]}
    return {**row, **verdicts[0]}


def _sides_case(vc, row: dict[str, Any]) -> dict[str, Any]:
    """A case whose executor makes one call or another as a value of the framework's is one or
    another (``vc.sides``): the call made is one of them, so the case has a verdict where every side
    has the same one (valid on every product where each side is)."""
    kept = tuple(p for p in vc.problems if CALL_SIDES not in p)
    rows = [_st_case(replace(vc, tensors=s["tensors"], attrs=s["attrs"], problems=kept, sides=()))
            for s in vc.sides]
    said = [" or ".join(s["assumed"]) for s in vc.sides]
    if any(r["verdict"] != rows[0]["verdict"] for r in rows):
        return {**row, "verdict": "not judged", "cause": "the verdict depends on what the framework "
                "gives: " + "; ".join(f"{w}: {r['verdict']}" + (f" ({r['cause']})" if r.get("cause") else "")
                                       for w, r in zip(said, rows))[:300]}
    out = {**rows[0], "sides": said}
    if "valid_on_every" in out:
        out["valid_on_every"] = all(r["valid_on_every"] for r in rows)
        out["judged_on"] = [p for p in out["judged_on"] if all(p in r["judged_on"] for r in rows)]
    return out


def _format_variants(vc, spec, variants: list) -> tuple[list, str, bool]:
    """The calls that stand for every format a format item no executor applies may give the tensors
    (``vc.open_formats``: each tensor any of its formats), what was found, and whether any check
    reads a format. Where none of the API's checks reads a tensor's format (spec/templates.py
    reads_formats), the verdict is the same whatever formats the tensors get: the calls stay as
    they are; else each call stands under every assignment of the formats to the tensors."""
    rules = {r["id"]: r for r in data_of(vc.op)["rules"]}
    readers = [rule.id for rule in spec.rules if rule.kind == "check" and (
        (r := rules.get(rule.id)) is None or reads_formats(r["template"], r.get("args", {})))]
    if not readers:
        return variants, "no check reads the tensors' formats", False
    names = [n for n in vc.open_formats if variants[0].tensors.get(n) is not None]
    out = []
    for choice in itertools.product(*(vc.open_formats[n] for n in names)):
        for v in variants:
            out.append(replace(v, tensors={**v.tensors, **{
                n: replace(v.tensors[n], desc=v.tensors[n].desc.with_(format=AclFormat[f]))
                for n, f in zip(names, choice)}}))
    return out, (f"judged with each of {', '.join(names)} in each format the format item may give "
                 f"({'/'.join(dict.fromkeys(f for n in names for f in vc.open_formats[n]))}): "
                 f"{', '.join(readers[:3])} read formats"), True


def _verdict(vc, spec, case) -> dict[str, Any]:
    """The verdict on ``case`` (the call of ``vc``): valid, invalid or not judged, with its cause."""
    row: dict[str, Any] = {}
    if vc.product is None:
        # no product named (no vendor file says which products an ATK file runs on): the case
        # claims the call is valid where the vendor runs it, so it agrees with the spec when the
        # spec accepts it on some product the API is documented for and cann supports, and
        # contradicts it when every one of them rejects it; the products it is valid on are kept
        supported = data_of(vc.op)["supported"]
        products = [p for p in supported["cann"] if p in supported["doc"]] or supported["cann"]
        outcomes = {p: expected_outcome(spec, case, p, "cann") for p in products}
        kinds = {p: ("valid" if e.kind == "success" else "invalid" if e.kind in ("error", "not_supported")
                     else "not judged") for p, e in outcomes.items()}
        row["expected"] = {p: e.describe() for p, e in outcomes.items()}
        valid_on = [p for p in products if kinds[p] == "valid"]
        if valid_on:
            row.update(verdict="valid", judged_on=valid_on, valid_on_every=len(valid_on) == len(products))
        elif set(kinds.values()) == {"invalid"}:
            first = next(iter(outcomes.values()))
            row.update(verdict="invalid", cause=f"rejected on every product ({vc.product_source}): "
                       f"{first.rule_id}")
        else:
            row.update(verdict="not judged", cause=f"no product ({vc.product_source}), and the "
                       "spec accepts it on none and does not judge it on some: " + "; ".join(
                           f"{p}: {_described(e)}" for p, e in outcomes.items())[:300])
        return row
    expected = expected_outcome(spec, case, vc.product, "cann")
    row["expected"] = expected.describe()
    if expected.kind == "success":
        row["verdict"] = "valid"
    elif expected.kind in ("error", "not_supported", "any_error"):
        row.update(verdict="invalid", cause=f"{expected.rule_id} rejects a call the vendor's "
                   f"{vc.format.upper()} case makes: {spec.rule(expected.rule_id).text[:120]}"
                   if expected.rule_id else "the spec rejects it")
    else:
        rule = spec.rule(expected.rule_id) if expected.rule_id else None
        row.update(verdict="not judged", cause=f"{expected.rule_id}: {rule.text[:120]}" if rule
                   else expected.describe())
    return row


def _drawn_variants(vc, spec, case) -> tuple[list | None, list[str]]:
    """The calls that stand for every value the framework may draw for the case's attributes given
    as a range or a distribution (``vc.drawn``), and what was found for each attribute; None (and
    the cause, last) where some check reads such a value in a way not bounded here.
    Each check's reading of the value is one of value_reads' tests (a comparison with a constant,
    NaN, infinity, a flag), so it gives one answer between two of the constants it compares with:
    the verdict is the same for every value when it is the same at the span's ends, at each such
    constant inside the span and at a value inside it (values.span_points); an attribute no check
    reads stays at the value drawn."""
    said: list[str] = []
    choices: list[tuple[str, list[Any]]] = []
    for name, how in vc.drawn.items():
        span = span_of(how["recipe"], how["kind"])
        tests, unbounded = _value_tests(vc, spec, case, name)
        if unbounded:
            return None, said + [f"{name} is drawn from {span.describe()} and {unbounded} reads its "
                                 f"value in a way not bounded over it"]
        if not tests:
            said.append(f"{name} drawn from {span.describe()}: no check reads its value")
            continue
        constants = [float(t[4]) for t in tests if t[0] == "cmp"]
        points = span_points(span, constants)
        held = _as_held(case.attrs.get(name), how["kind"], points)
        if held is None:
            return None, said + [f"{name} is drawn from {span.describe()}, an integer without bounds, "
                                 f"and a check reads its value"]
        said.append(f"{name} drawn from {span.describe()}: judged at {', '.join(f'{x:g}' for x in points)} "
                    f"(the ends, the constants {len(tests)} value tests compare it with inside, a value "
                    f"inside)")
        choices.append((name, held))
    variants = [case]
    for name, values in choices:
        variants = [replace(v, attrs={**v.attrs, name: x}) for v in variants for x in values]
    return variants, said


def _value_tests(vc, spec, case, name: str) -> tuple[list[list], str]:
    """The value tests (value_reads) the checks of ``spec`` make of attribute ``name``, and the
    first check that reads it in a way not bounded ('' when none does)."""
    rules = {r["id"]: r for r in data_of(vc.op)["rules"]}
    tests: list[list] = []
    for rule in spec.rules:
        r = rules.get(rule.id)
        reads = None if r is None else value_reads(r["template"], r.get("args", {}), name,
                                                   view_of_case(case))
        if reads is None:
            if rule.kind != "check":    # a precondition or value rule decides no status
                continue
            return tests, rule.id
        if rule.kind == "check":
            tests += [t for t in reads if t not in tests]
    return tests, ""


def _as_held(value: Any, kind: str, points: list[Any]) -> list[Any] | None:
    """``points`` as the call holds the attribute: an aclScalar (``{"dtype", "value"}``) with each
    value, a plain value converted as vendor/values.py draw_scalar converts it; None when one has no
    such value (an infinite integer)."""
    out = []
    for x in points:
        try:
            v = bool(x) if kind == "bool" else int(x) if kind == "int" else \
                float(np.float32(x)) if kind == "float32" else float(x)
        except (OverflowError, ValueError):
            return None
        out.append({**value, "value": v} if isinstance(value, dict) else v)
    return out


def _described(expected) -> str:
    """The expectation, and for a call not judged the rule that leaves it so."""
    why = expected.rule_id or ", ".join(expected.reasons)
    return expected.describe() + (f" ({why})" if expected.kind == "not_judged" and why else "")


def _rule_params(key: str, rule_id: str) -> set[str]:
    """The parameters a data rule reads (every name in its args), from the operator-data file."""
    table = _RULE_PARAMS.get(key)
    if table is None:
        table = {}
        data = data_of(key)
        names = {p["name"] for p in data["params"]}
        for r in data["rules"]:
            found: set[str] = set()
            stack = [r.get("args", {})]
            while stack:
                v = stack.pop()
                if isinstance(v, dict):
                    stack += list(v.values())
                elif isinstance(v, list):
                    stack += v
                elif isinstance(v, str) and v in names:
                    found.add(v)
            table[r["id"]] = found
        _RULE_PARAMS[key] = table
    return table.get(rule_id, set())


_RULE_PARAMS: dict[str, dict[str, set[str]]] = {}


# the vendor's CMake compiles only the op_api unit-test files named test_aclnn_*.cpp (ops-math
# cmake/ut.cmake:342, ops-nn cmake/ut.cmake:370-372 at c41933244c31 / e5c3fa9327ea): the others never run
BUILT_TEST_FILE = re.compile(r"test_aclnn_[^/]*\.cpp")
NOT_BUILT = ("a vendor test the vendor does not run (its file is not a test_aclnn_*.cpp, the only op_api "
             "unit-test files the vendor's CMake compiles, or its op_host/op_api folder has no CMakeLists.txt)")


def vendor_builds(source: str, unbuilt_folders: frozenset[str] = frozenset()) -> bool:
    """Whether the vendor's CI compiles the unit-test file of ``source`` (``path:line``): a
    test_aclnn_*.cpp outside ``unbuilt_folders`` (``unbuilt_test_folders``)."""
    path = source.rsplit(":", 1)[0]
    return BUILT_TEST_FILE.fullmatch(path.rsplit("/", 1)[-1]) is not None and \
        path.rsplit("/", 1)[0] not in unbuilt_folders


def unbuilt_test_folders(root: Path, folders: list[Path]) -> frozenset[str]:
    """The ``tests/ut/op_host/op_api`` folders without a CMakeLists.txt, as sources name them
    (``<checkout>/<path>``): the op_host folder's CMakeLists.txt adds only the subfolders that have
    one (ops-math math/logical_or/tests/ut/op_host/CMakeLists.txt:11-16, whose op_api copy of the
    unit test is never compiled)."""
    return frozenset(f"{root.name}/{f.relative_to(root).as_posix()}" for f in folders
                     if f.parent.name == "op_host" and not (f / "CMakeLists.txt").is_file())


def family_of_test(source: str) -> str:
    """The family a vendor unit-test file's expectations are measured in, from its path
    (``repository/family/operator folder/tests/...``), as ``family_group`` groups an API."""
    parts = source.split("/")
    if len(parts) < 3:
        return ""
    return f"{parts[1]}/reduction" if parts[2].startswith(REDUCTION_OPERATOR_FOLDERS) else parts[1]


def cause(row: dict[str, Any], spec) -> str:
    """Why the spec and the vendor's test differ, from what decided the spec's expectation; a test
    the vendor's CI never compiles is classified so first."""
    why = _cause(row, spec)
    return why if row.get("built", True) else f"{NOT_BUILT}: {why}"


def _cause(row: dict[str, Any], spec) -> str:
    if row["problems"]:
        return "the importer read the vendor test only in part: " + "; ".join(row["problems"])[:200]
    rule_id = row["rule"]
    if row["ours"] is None and rule_id:
        rule = spec.rule(rule_id)
        if rule.category == "unread":
            return f"a construct the extractor could not read decides first ({rule_id}: {rule.text[:120]})"
        if rule.category == "product":
            return f"the product's support is not read under cann ({rule_id})"
        return f"{rule_id} expects any error"
    if row["ours"] == 0:
        known = _known_causes()["no_rule_covers"].get(row["api"])
        return "a check no rule covers (the vendor rejects a call every read check accepts)" + (
            f": {known}" if known else ": not yet investigated")
    if row["vendor"] == 0:
        known = _known_causes().get("vendor_accepts", {}).get(row["api"])
        return f"{rule_id} rejects a call the vendor accepts: " + (
            known or "a construct misread, or a vendor test contradicting its code")
    prefix = rule_id.split("-")[0]
    known = next((v for k, v in sorted(_known_causes()["other_status"].items(), key=lambda kv: -len(kv[0]))
                  if prefix.startswith(k)), None)
    if known:
        return f"{rule_id} decides with another status than the vendor's: {known}"
    return f"{rule_id} decides with another status than the vendor's (check order or status misread)"


def measure(checkouts: list[str], data: Path | None = None) -> dict[str, Any]:
    rows: list[dict[str, Any]] = []
    crashed: list[str] = []
    not_read: list[str] = []     # what the importer could not read (a test or a statement of one)
    held: dict[str, Counter] = defaultdict(Counter)   # held-out API -> its expectations per status
    commits = {}
    for path in checkouts:
        checkout = open_checkout(path)
        commits[checkout.repository] = checkout.commit
        folders = unit_test_folders(checkout.root, measured_families(checkout.repository, checkout.root.name, data))
        unbuilt = unbuilt_test_folders(checkout.root, folders)
        files, _ = collect([str(f) for f in folders])
        for f in files:
            try:
                result = read_file(f)
            except Exception as exc:   # one unreadable vendor file is listed, not fatal
                crashed.append(f"{f}: {type(exc).__name__}: {exc}")
                continue
            not_read += [p.text() for p in result.problems]
            for vc in result.cases:
                if vc.api in HELD_OUT:   # read, counted apart: a held-out API has no data to judge by
                    held[vc.api][_class(vc.expected.exact_status())] += 1
                    continue
                if not vc.has_spec or not operator(vc.op).modules[0].startswith("data:"):
                    continue
                rows.append(_row(vc, unbuilt))
    families = sorted({r["family"] for r in rows})
    built = [r for r in rows if r["built"]]
    return {"schema": "aclnn-conformance/agreement/1", "vendor": commits, "rows": rows,
            "st_validity": st_validity(checkouts, data),
            "per_status": per_status(rows),
            "per_family": {f: per_status([r for r in rows if r["family"] == f]) for f in families},
            "per_status_built": per_status(built),
            "per_family_built": {f: per_status([r for r in built if r["family"] == f]) for f in families},
            "not_read_per_family": {f: sum(1 for x in not_read if family_of_test(x) == f) for f in families},
            "routes": lower_layer_routes(),
            "held_out": [{"api": api, "why": HELD_OUT[api], "expectations": dict(sorted(held[api].items()))}
                         for api in sorted(held)],
            "files_not_read": crashed, "not_read": not_read}


# the lower-layer routes whose failures the extraction reads as rules (routes_of_rule -> the route it reads)
ROUTES = {"cast": "l0op::Cast (ops-math math/cast/op_api/cast.cpp)",
          "view_copy": "l0op::ViewCopy, its shape test "
                       "(ops-math conversion/contiguous/op_host/op_api/contiguous.cpp:656-664)",
          "promote": "PromoteType (opbase include/nnopbase/opdev/data_type_utils.h:165-296, kPromoteTypesLookup)"}


def lower_layer_routes() -> dict[str, list[str]]:
    """Per lower-layer route, the APIs of the measured data with a rule of it, sorted."""
    found: dict[str, set[str]] = {route: set() for route in ROUTES.values()}
    for key, op in operators().items():
        if not op.modules[0].startswith("data:"):
            continue
        record = data_of(key)
        for rule in record["rules"]:
            for route in routes_of_rule(rule):
                found[ROUTES[route]].add(record["api"])
    return {route: sorted(apis) for route, apis in found.items()}


def routes_of_rule(rule: dict[str, Any]) -> set[str]:
    """The lower-layer routes a rule of the operator data reads (keys of ROUTES)."""
    routes = set()
    if rule["template"] == "cast_routed":
        routes.add("cast")
    if rule["args"].get("route") == VIEW_COPY_ROUTE:
        routes.add("view_copy")
    if rule["template"] == "promotable" or _names_dtype_op(rule["args"], ("promote", "combine")):
        routes.add("promote")
    return routes


def _names_dtype_op(value: Any, ops: tuple[str, ...]) -> bool:
    """A dtype expression of ``ops`` (``["promote", a, b]``) anywhere in a rule's arguments."""
    if isinstance(value, dict):
        return any(_names_dtype_op(v, ops) for v in value.values())
    if isinstance(value, (list, tuple)):
        return (bool(value) and value[0] in ops) or any(_names_dtype_op(v, ops) for v in value)
    return False


def per_status(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Agreeing rows and all rows per expected status."""
    per: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for r in rows:
        per[r["class"]][0] += r["agree"]
        per[r["class"]][1] += 1
    return {k: {"agree": a, "of": n} for k, (a, n) in sorted(per.items())}


def holds_bar(per: dict[str, dict[str, int]]) -> bool:
    """Every expected status at the bar, and the whole."""
    agree, total = sum(v["agree"] for v in per.values()), sum(v["of"] for v in per.values())
    return total > 0 and agree >= BAR * total and all(v["agree"] >= BAR * v["of"] for v in per.values())


def _row(vc, unbuilt: frozenset[str] = frozenset()) -> dict[str, Any]:
    spec = operator(vc.op).spec
    vendor = vc.expected.exact_status()
    product = vc.product or "atlas-a2"
    case = vc.to_case(draw=False)
    expected = expected_outcome(spec, case, product, "cann")
    ours = 0 if expected.kind == "success" else (
        expected.status if expected.kind in ("error", "not_supported") else None)
    agree = agrees(vc.expected.kind == "any_error", vendor, expected.kind, ours)
    row = {"api": vc.api, "family": family_group(data_of(vc.op)), "source": vc.source, "product": product,
           "vendor": vendor,
           "class": _class(vendor), "ours": ours, "expected": expected.describe(),
           "rule": expected.rule_id, "problems": list(vc.problems), "agree": agree,
           "built": vendor_builds(vc.source, unbuilt)}
    if not agree:
        row["cause"] = cause(row, spec)
    return row


def _cause_key(text: str) -> str:
    """A cause's group in the summary: its head, with the reader's site where one is named."""
    head = text.split(" (")[0].split(":")[0]
    site = re.search(r"dropped by (extract/host_code\.py:\d+)|misread by (extract/host_code\.py:[\d-]+)", text)
    if site:
        return f"{head}: {site.group(1) or site.group(2)}"
    if text.endswith("not yet investigated"):
        return f"{head}: not yet investigated"
    return head


def render(doc: dict[str, Any]) -> str:
    lines = ["# Strict agreement with the vendor's unit tests", "",
             "Vendor commits: " + ", ".join(f"{r}@{c[:12]}" for r, c in doc["vendor"].items()),
             "Operator data: " + doc.get("data", "the project's spec/data"), "",
             f"Read: {len(doc['rows'])} expectations; not read: {len(doc.get('not_read', []))} unit-test "
             "parts (listed at the end, not in any share)"
             + (f"; held out: {sum(sum(h['expectations'].values()) for h in doc['held_out'])} expectations of "
                f"{len(doc['held_out'])} APIs held out of the operator data (listed with the reason, not in any "
                "share)" if doc.get("held_out") else "")
             + ". *Built files*: the rows of the test files the "
             "vendor's CMake compiles (`test_aclnn_*.cpp`), beside the figure on all rows (the bar is on "
             "all rows).", "",
             "| expected status | agree | of | share | built files |", "|---|---|---|---|---|"]
    built = doc.get("per_status_built", {})
    for k, v in doc["per_status"].items():
        lines.append(f"| {k} | {v['agree']} | {v['of']} | {v['agree'] / max(v['of'], 1):.1%} | "
                     f"{_share(built.get(k))} |")
    agree, of = _total(doc["per_status"])
    lines.append(f"| all | {agree} | {of} | {agree / max(of, 1):.1%} | {_share(_total_cell(built))} |")
    if doc.get("per_family"):
        lines += ["", "## Per family", "",
                  f"A family holds the bar when every expected status agrees in at least {BAR:.0%} of its "
                  "rows. `math/reduction`: the APIs documented in ops-math's reduction-kernel operator "
                  "folders (`reduce_*`, `arg_max*`, `arg_min*`).", "",
                  "| family | " + " | ".join(STATUS_ORDER) + " | all | read | not read | built files | "
                  "ATK/TTK valid calls | holds the bar |",
                  "|---|" + "---|" * (len(STATUS_ORDER) + 6)]
        st_family = (doc.get("st_validity") or {}).get("per_family", {})
        for family, per in doc["per_family"].items():
            cells = [_share(per.get(k)) for k in STATUS_ORDER]
            built_family = _total_cell(doc.get("per_family_built", {}).get(family, {}))
            st = st_family.get(family)
            lines.append(f"| {family} | " + " | ".join(cells) + f" | {_share(_total_cell(per))} | "
                         f"{_total(per)[1]} | {doc.get('not_read_per_family', {}).get(family, '-')} | "
                         f"{_share(built_family)} | "
                         + (_share({"agree": st["valid"], "of": st["cases"]}) if st else "-") + " | "
                         + ("yes" if holds_bar(per) else "no") + " |")
    if doc.get("routes"):
        lines += ["", "## Lower-layer routes read", "",
                  "A call that passes every parameter check can still fail in the first phase where a lower "
                  "layer has no route for it; the APIs with a rule of each route read:", "",
                  "| route | APIs | which |", "|---|---|---|"]
        lines += [f"| {route} | {len(apis)} | {', '.join(apis)} |" for route, apis in doc["routes"].items()]
    if doc.get("held_out"):
        lines += ["", "## APIs held out of the operator data", "",
                  "Read by the extraction but not written to the operator data, so no share counts their "
                  "vendor expectations; the scope lists them as not covered with the same reason.", "",
                  "| API | vendor expectations | why |", "|---|---|---|"]
        lines += [f"| {h['api']} | " + ", ".join(f"{k}: {n}" for k, n in h["expectations"].items())
                  + f" | {h['why'].replace('|', '/')} |" for h in doc["held_out"]]
    causes = Counter(_cause_key(r["cause"]) for r in doc["rows"] if not r["agree"])
    lines += ["", "## Causes", "", "| cause | disagreements |", "|---|---|"]
    lines += [f"| {c} | {n} |" for c, n in causes.most_common()]
    lines += ["", "## Every disagreement", "", "| API | vendor test | product | vendor | spec | cause |",
              "|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        if not r["agree"]:
            lines.append(f"| {r['api']} | {r['source']} | {r['product']} | {r['vendor']} | {r['expected']} | "
                         f"{r['cause'].replace('|', '/')} |")
    st = doc.get("st_validity")
    if st is not None:
        lines += ["", "## ATK and TTK cases: valid calls under cann", "",
                  f"{st['valid']} of {st['cases']} cases of the covered APIs are valid calls under the "
                  f"extracted `cann` spec on their product ({st['share_valid']:.1%}); {st['invalid']} "
                  f"rejected, {st['not_judged']} not judged ({st['share_valid_of_judged']:.1%} valid of "
                  f"the judged). A case whose file names no product is valid when the spec accepts it "
                  f"on some product the API is documented for ({st.get('valid_on_some_products', 0)} "
                  f"of the valid are so on some products only), and rejected when every one rejects it.",
                  "", "| API | case | product | verdict | cause |", "|---|---|---|---|---|"]
        lines += [f"| {c['api']} | {c['source']}" + (f" (and {c['cases'] - 1} more)" if c.get("cases", 1) > 1
                                                     else "")
                  + f" | {c['product']} | {c['verdict']} | {c['cause'].replace('|', '/')} |"
                  for c in st["exceptions"]]
    if doc.get("not_read"):
        lines += ["", f"## Unit-test parts the importer could not read ({len(doc['not_read'])})", "",
                  "Not in the measure's denominator: no expectation of them was read.", ""]
        lines += [f"- {x}" for x in doc["not_read"]]
    if doc["files_not_read"]:
        lines += ["", "## Vendor files the importer could not read", ""] + [f"- {x}" for x in doc["files_not_read"]]
    return "\n".join(lines) + "\n"


def _total(per: dict[str, dict[str, int]]) -> tuple[int, int]:
    return sum(v["agree"] for v in per.values()), sum(v["of"] for v in per.values())


def _total_cell(per: dict[str, dict[str, int]]) -> dict[str, int]:
    agree, of = _total(per)
    return {"agree": agree, "of": of}


def _share(cell: dict[str, int] | None) -> str:
    """``agree/of (share)``, or ``-`` where no row falls."""
    return f"{cell['agree']}/{cell['of']} ({cell['agree'] / cell['of']:.1%})" if cell and cell["of"] else "-"


def add_command(sub) -> None:
    s = sub.add_parser("agreement", help="the extracted spec against the vendor's op_api unit tests")
    s.add_argument("checkouts", nargs="+", metavar="REPO_CHECKOUT")
    s.add_argument("--out", required=True, metavar="DIR")
    s.add_argument("--data", default=None, metavar="DATA_DIR",
                   help="the operator-data folder measured, in place of the project's spec/data/ "
                        "(default: --out when it holds an extraction's scope.json)")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    data = Path(args.data) if args.data else (out if (out / "scope.json").is_file() else None)
    if data is not None:
        from aclnn_conformance.spec.registry import use_project_data
        use_project_data(data)
    doc = measure(args.checkouts, data)
    doc["data"] = str(data) if data is not None else "the project's spec/data"
    out.mkdir(parents=True, exist_ok=True)
    (out / "agreement.json").write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (out / "agreement.md").write_text(render(doc), encoding="utf-8")
    agree, total = _total(doc["per_status"])
    built_agree, built_total = _total(doc["per_status_built"])
    print(f"agreement: {agree} of {total} vendor unit-test expectations ({agree / max(total, 1):.1%}; "
          f"{len(doc['not_read'])} unit-test parts not read; on the files the vendor builds {built_agree} of "
          f"{built_total}); {out / 'agreement.md'}")
    for family, per in doc["per_family"].items():
        f_agree, f_total = _total(per)
        b_agree, b_total = _total(doc["per_family_built"][family])
        print(f"  {family}: {f_agree} of {f_total} ({f_agree / max(f_total, 1):.1%}; "
              f"{doc['not_read_per_family'][family]} not read; built files {b_agree} of {b_total})"
              + ("" if holds_bar(per) else f", below the bar of {BAR:.0%}"))
    return 0
