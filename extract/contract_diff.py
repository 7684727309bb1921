"""The contract between two releases: two extractions (operator-data folders, `aclnn-conformance
extract`) compared per API and product under the `cann` profile, what a user reads before moving a
cluster from one CANN release to the next.

A rule is matched across the two by what it checks, not by its id (ids are numbered in check order,
so one check added shifts the rest): its template and the arguments that name what is checked (the
parameter, the other tensor, the attribute, the condition it holds under). Its other arguments (dtype
and format lists, rank bounds, shapes) and its expectation are what may change. Per API and product:

- ``added``: a check the new release makes that the old did not;
- ``removed``: a check the old release made that the new does not;
- ``changed``: the same check with other values (dtype list, formats, ranks, ...) or another status;
- ``reordered``: checks both make, in another order (the first failing check decides the status).

Each change carries both citations (repository, commit, path, line). Written as Markdown and JSON.
"""
from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from aclnn_conformance.spec.shared_expressions import resolve

# Arguments that hold what a check accepts, not which check it is (they may change between releases).
VALUE_ARGS = frozenset({"dtypes", "formats", "min", "max", "min_rank0", "max_rank0",
                        "combinations", "shape_expr", "dims", "keepdim", "scalar_same", "any",
                        "unless_empty", "expr", "from_expr", "to_expr", "from_promoted", "test"})
# Arguments that cite where a list is written (path:line): they move with the code, and are no contract.
CITING_ARGS = frozenset({"list"})
PROFILE = "cann"


@dataclass(frozen=True)
class ContractRule:
    """One check of one API on one product, as the contract diff compares it."""

    check: str           # the template and the arguments naming what is checked
    accepts: str         # the value arguments, as canonical JSON
    expectation: str     # "status 161002", "any error", "judged", "not judged"
    citation: str        # repository@commit path:line (or the rule's id where none)
    rule_id: str


@dataclass(frozen=True)
class Change:
    api: str
    product: str
    kind: str            # added | removed | changed | reordered
    check: str
    old: str
    new: str
    old_citation: str
    new_citation: str


def _expectation(expect: dict) -> str:
    for kind in ("status", "any_error", "judged", "not_judged"):
        if kind in expect:
            return f"status {expect[kind]}" if kind == "status" else kind.replace("_", " ")
    return "unchecked"


def _citation(rule: dict) -> str:
    cites = rule.get("citations") or []
    if not cites:
        return rule.get("id", "")
    c = cites[0]
    return f"{c.get('repository', '')}@{str(c.get('commit', ''))[:12]} {c.get('path', '')}:{c.get('line', '')}"


def _rule(rule: dict) -> tuple[ContractRule, list[str]]:
    """The rule as compared, and the products it holds on under the profile."""
    args = {k: v for k, v in (rule.get("args") or {}).items() if k not in CITING_ARGS}
    named = {k: v for k, v in sorted(args.items()) if k not in VALUE_ARGS}
    check = rule.get("template", rule.get("kind", "")) + (
        " " + json.dumps(named, sort_keys=True) if named else "")
    accepts = json.dumps({k: v for k, v in sorted(args.items()) if k in VALUE_ARGS}, sort_keys=True)
    expect = (rule.get("expect") or {}).get(PROFILE) or {}
    return (ContractRule(check, accepts, _expectation(expect), _citation(rule), rule.get("id", "")),
            list(expect.get("products", [])))


def load_contract(folder: str | Path) -> dict[str, dict[str, list[ContractRule]]]:
    """API -> product -> its checks in check order, from every operator-data file of ``folder``."""
    contract: dict[str, dict[str, list[ContractRule]]] = {}
    files = sorted(Path(folder).glob("*/*.json"))
    if not files:
        raise ValueError(f"{folder}: no operator-data files (an `aclnn-conformance extract` output)")
    for path in files:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or "rules" not in doc or "api" not in doc:
            continue
        doc = resolve(doc)
        steps = list(doc.get("check_steps") or [])
        ordered = sorted(doc["rules"], key=lambda r: steps.index(r["step"])
                         if r.get("step") in steps else len(steps))
        per_product = contract.setdefault(doc["api"], {})
        for raw in ordered:
            rule, products = _rule(raw)
            for product in products:
                per_product.setdefault(product, []).append(rule)
    return contract


def _compare(api: str, product: str, old: list[ContractRule],
             new: list[ContractRule]) -> list[Change]:
    before = {r.check: r for r in old}
    after = {r.check: r for r in new}
    changes = []
    for check, r in after.items():
        if check not in before:
            changes.append(Change(api, product, "added", check, "", f"{r.accepts} {r.expectation}",
                                  "", r.citation))
    for check, r in before.items():
        if check not in after:
            changes.append(Change(api, product, "removed", check, f"{r.accepts} {r.expectation}",
                                  "", r.citation, ""))
        elif (r.accepts, r.expectation) != (after[check].accepts, after[check].expectation):
            a = after[check]
            changes.append(Change(api, product, "changed", check, f"{r.accepts} {r.expectation}",
                                  f"{a.accepts} {a.expectation}", r.citation, a.citation))
    common_old = [r.check for r in old if r.check in after]
    common_new = [r.check for r in new if r.check in before]
    if common_old != common_new:
        changes.append(Change(api, product, "reordered", "check order", " > ".join(common_old),
                              " > ".join(common_new), "", ""))
    return changes


def contract_diff(old: dict, new: dict) -> list[Change]:
    """Every change between two contracts (``load_contract``), by API, product and kind."""
    changes = []
    for api in sorted(old.keys() | new.keys()):
        products = sorted(old.get(api, {}).keys() | new.get(api, {}).keys())
        for product in products:
            changes += _compare(api, product, old.get(api, {}).get(product, []),
                                new.get(api, {}).get(product, []))
    return changes


def counts(changes: list[Change]) -> dict[str, int]:
    found = {"apis": len({c.api for c in changes})}
    for kind in ("added", "removed", "changed", "reordered"):
        found[kind] = sum(1 for c in changes if c.kind == kind)
    return found


def render_markdown(changes: list[Change], old_name: str, new_name: str) -> str:
    n = counts(changes)
    out = [f"# Contract diff: {old_name} -> {new_name}", "",
           f"{n['apis']} API(s) changed: {n['added']} check(s) added, {n['removed']} removed, "
           f"{n['changed']} changed, {n['reordered']} product(s) with checks reordered "
           f"(profile {PROFILE}).", ""]
    if changes:
        out += ["| API | product | change | check | old | new | old citation | new citation |",
                "|---|---|---|---|---|---|---|---|"]
        for c in changes:
            cells = [c.api, c.product, c.kind, c.check, c.old, c.new, c.old_citation, c.new_citation]
            out.append("| " + " | ".join(str(x).replace("|", "\\|") for x in cells) + " |")
    return "\n".join(out) + "\n"


def write(changes: list[Change], out: str | Path, old_name: str, new_name: str) -> list[Path]:
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    doc: dict[str, Any] = {"old": old_name, "new": new_name, "profile": PROFILE,
                           "counts": counts(changes), "changes": [asdict(c) for c in changes]}
    paths = [folder / "contract_diff.md", folder / "contract_diff.json"]
    paths[0].write_text(render_markdown(changes, old_name, new_name), encoding="utf-8")
    paths[1].write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return paths


def add_command(sub) -> None:
    s = sub.add_parser("contract-diff", help="the rules added, removed and changed between two "
                                             "extractions (two releases)")
    s.add_argument("old", metavar="OLD_DATA", help="an extraction's folder (the older release)")
    s.add_argument("new", metavar="NEW_DATA", help="an extraction's folder (the newer release)")
    s.add_argument("--out", default=None, metavar="DIR",
                   help="write contract_diff.md and contract_diff.json here")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        old, new = load_contract(args.old), load_contract(args.new)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    changes = contract_diff(old, new)
    n = counts(changes)
    print(f"contract diff {args.old} -> {args.new}: {n['apis']} API(s) changed, {n['added']} "
          f"check(s) added, {n['removed']} removed, {n['changed']} changed, {n['reordered']} "
          f"reordered")
    if args.out:
        for path in write(changes, args.out, str(args.old), str(args.new)):
            print(f"written: {path}")
    return 0

