"""``aclnn-conformance extract REPO_CHECKOUT... --out DIR [--family F] [--opbase DIR]``: every documented
API of the chosen families (default: ops-math's math, ops-nn's activation and norm) read and written as one
operator-data file each (``DIR/<family>/<key>.json``), plus ``DIR/scope.json``, what was read in
full, in part (what is missing) or not at all (why). With ``--opbase``, the functions a checkout only
declares (``OPBASE_API``) are read in hicann/opbase (``extract/opbase.py``)."""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from aclnn_conformance.extract.build import (HELD_OUT, CheckoutError, cast_routes_of, document_census,
                                             prototype_census,
                                             extract_checkout, open_checkout, taken_families, write_records)
from aclnn_conformance.extract.opbase import OpbaseError, open_opbase
from aclnn_conformance.extract.scope import scope_of
from aclnn_conformance.spec.registry import hand_specified_apis


def add_command(sub) -> None:
    s = sub.add_parser("extract", help="read vendor checkouts into operator-data files")
    s.add_argument("checkouts", nargs="+", metavar="REPO_CHECKOUT",
                   help="a checkout of hicann/ops-math, hicann/ops-nn or a repository laid out like them")
    s.add_argument("--out", required=True, metavar="DIR", help="where the data files go")
    s.add_argument("--family", action="append", default=None, metavar="F",
                   help="a family folder to read in each checkout that has it (repeatable; default: math for ops-math, activation "
                        "and norm for ops-nn, every family folder with documents otherwise)")
    s.add_argument("--opbase", action="append", default=[], metavar="DIR",
                   help="a checkout of hicann/opbase (repeatable), where the functions a checkout declares "
                        "OPBASE_API are read: each checkout reads the one at the commit its "
                        "cmake/third_party/opbase.cmake names, else the first given, and says so")
    s.set_defaults(func=run)


def _held_out_row(rec: dict) -> dict:
    """The scope row of a read API its family holds out: not covered, and why."""
    return {"api": rec["api"], "key": rec["key"], "family": rec["family"], "group": rec["family"],
            "repository": rec["vendor"]["repository"], "document": rec["document"]["path"],
            "host_code": rec["host_code"].get("kind"), "status": "not covered",
            "missing": [HELD_OUT[rec["api"]]], "family_taken": True}


def run(args: argparse.Namespace) -> int:
    start = time.perf_counter()
    out = Path(args.out)
    records, census, opbase_read = [], [], []
    try:
        opbases = [open_opbase(path) for path in args.opbase]
        checkouts = [open_checkout(path, opbases) for path in args.checkouts]
        routes = cast_routes_of(checkouts)
        for checkout in checkouts:
            if checkout.opbase is not None:
                opbase_read.append({"for": checkout.repository, **checkout.opbase.provenance()})
                if checkout.opbase.notice:
                    print(f"extract: {checkout.opbase.notice} ({checkout.opbase.opbase.root}); read all the same")
            # a named family is read in each checkout that has its folder (ops-math's conversion/,
            # ops-nn's index/, ...)
            families = tuple(f for f in args.family if (checkout.root / f).is_dir()) if args.family \
                else taken_families(checkout)
            if families:
                records += list(extract_checkout(checkout, families, routes))
            census += document_census(checkout, families) + prototype_census(checkout, families)
        missing = [f for f in args.family or () if not any((Path(c) / f).is_dir() for c in args.checkouts)]
        if missing:
            raise CheckoutError(f"no checkout has the family folder {', '.join(m + '/' for m in missing)}")
    except (CheckoutError, OpbaseError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    seen: dict[str, str] = {}
    kept = []
    for rec in records:
        if rec["key"] in seen:   # an API documented twice: the first document read wins
            continue
        seen[rec["key"]] = rec["document"]["path"]
        kept.append(rec)
    hand = hand_specified_apis()   # a deep hand-written spec stays the operator's one record
    left = sorted(r["api"] for r in kept if r["api"] in hand)
    kept = [r for r in kept if r["api"] not in hand]
    held = [r for r in kept if r["api"] in HELD_OUT]   # read, but not written: the scope says why
    kept = [r for r in kept if r["api"] not in HELD_OUT]
    written = write_records([r for r in kept if r["coverage"]["status"] != "not covered"], out)
    scope = scope_of(kept)
    # the APIs of the families not extracted, each once, so that the scope names every documented API
    others = []
    for row in census:
        if row["key"] not in seen and row["api"] not in hand:
            seen[row["key"]] = row["document"]
            others.append(row)
    left += sorted({row["api"] for row in census if row["api"] in hand} - set(left))
    others += [_held_out_row(r) for r in held]
    scope["apis"] += others
    scope["counts"]["not covered"] = scope["counts"].get("not covered", 0) + len(others)
    if left:
        scope["hand_specified"] = left
    # the commit of each checkout read: an API its census lacks is newer than that snapshot
    scope["read"] = {c.repository: c.commit for c in checkouts}
    if opbase_read:
        scope["opbase"] = opbase_read
    out.mkdir(parents=True, exist_ok=True)
    (out / "scope.json").write_text(json.dumps(scope, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    counts = scope["counts"]
    print(f"extract: {len(scope['apis'])} documented APIs in {time.perf_counter() - start:.1f} s: "
          f"{counts.get('covered', 0)} covered, {counts.get('partly covered', 0)} partly covered, "
          f"{counts.get('not covered', 0)} not covered; {len(written)} data files in {out}"
          + (f"; left to their hand-written spec: {', '.join(left)}" if left else ""))
    return 0
