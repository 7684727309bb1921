"""Coverage weighted by use: which of the APIs a workload calls the suite covers, by APIs and by call
sites, and the uncovered ones in order of use.

The shipped table (``reports/data/aclnn_usage.tsv``) counts, for every aclnn API, the public projects
that call it and their call sites; a user's own list (a profiler's op list: one API per line,
optionally with a count) takes its place. An API counts as covered under the scope's rule: the
extraction left no unread part of it (``scope.json`` status "covered"), its family holds the agreement
bar, and where it has at least ``OWN_EXPECTATIONS`` vendor expectations of its own, at least
``OWN_SHARE`` of them agree; an operator record written by hand covers its API unless it declares a
narrower domain (then the API is partly covered)."""
from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping

from aclnn_conformance.extract.agreement import holds_bar

SHIPPED_USAGE = Path(__file__).resolve().parent / "data" / "aclnn_usage.tsv"
OWN_EXPECTATIONS = 5    # an API with this many vendor expectations of its own is measured alone
OWN_SHARE = 0.90        # ... and must agree on this share of them
MIN_CONSUMERS = 2       # the shipped table's default: APIs called by at least this many projects
COVERED, PARTLY, NOT_COVERED = "covered", "partly covered", "not covered"
WHY_SHOWN = 110         # characters of the reason on the terminal (--json keeps it whole)


@dataclass(frozen=True)
class Used:
    """One API a workload calls, and how much: call sites (the shipped table) or calls (a user's list)."""
    api: str
    weight: int
    consumers: int = 0
    repository: str = ""


@dataclass(frozen=True)
class Coverage:
    """Where one API stands, and why."""
    api: str
    status: str
    why: str


def shipped_usage(min_consumers: int = MIN_CONSUMERS, path: Path = SHIPPED_USAGE) -> list[Used]:
    """The shipped table's APIs called by at least ``min_consumers`` projects, weighted by call sites."""
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [Used(r["api"], int(r["call_sites"]), int(r["n_consumers"]), r["vendor_repo"])
            for r in rows if int(r["n_consumers"]) >= min_consumers]


def is_usage_table(path: Path) -> bool:
    """Whether ``path`` is a usage table of the shipped kind (its tab-separated header names the
    ``api``, ``n_consumers`` and ``call_sites`` columns), rather than a plain list of APIs."""
    with path.open(encoding="utf-8", newline="") as f:
        header = f.readline().rstrip("\r\n").split("\t")
    return {"api", "n_consumers", "call_sites", "vendor_repo"} <= set(header)


_LINE = re.compile(r"\s*(?P<api>aclnn\w+)(?:[\s,;:=]+(?P<count>\d+))?\s*")


def read_usage_list(path: Path) -> list[Used]:
    """A user's list: one API per line, optionally followed by a count (space, tab, comma or colon
    between); ``#`` starts a comment; a line naming no ``aclnn...`` API is refused with its number."""
    out: dict[str, int] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _LINE.fullmatch(line)
        if m is None:
            raise ValueError(f"{path}:{number}: {raw.strip()!r} is no aclnn API name (optionally "
                             f"followed by a count)")
        out[m["api"]] = out.get(m["api"], 0) + int(m["count"] or 1)
    if not out:
        raise ValueError(f"{path}: names no aclnn API")
    return [Used(api, weight) for api, weight in out.items()]


def _scopes(folders: Iterable[Path]) -> tuple[dict[str, dict], dict[str, dict], set[str], dict[str, str]]:
    """API -> scope row, family -> per-status agreement, the APIs whose own expectations fall
    short (at least OWN_EXPECTATIONS of them, under OWN_SHARE agreeing), and repository -> the
    commit its census was read at."""
    rows: dict[str, dict] = {}
    families: dict[str, dict] = {}
    short: set[str] = set()
    read: dict[str, str] = {}
    for folder in folders:
        scope_path, agreement_path = Path(folder) / "scope.json", Path(folder) / "agreement.json"
        if not scope_path.is_file():
            continue
        scope = json.loads(scope_path.read_text(encoding="utf-8"))
        rows.update({r["api"]: r for r in scope["apis"]})
        read.update(scope.get("read") or {})
        if agreement_path.is_file():
            measured = json.loads(agreement_path.read_text(encoding="utf-8"))
            families.update(measured.get("per_family") or {})
            own: dict[str, list[bool]] = defaultdict(list)
            for r in measured.get("rows", ()):
                if isinstance(r.get("agree"), bool):    # a row not judged counts neither way
                    own[r["api"]].append(r["agree"])
            short |= {api for api, agreed in own.items()
                      if len(agreed) >= OWN_EXPECTATIONS and sum(agreed) < OWN_SHARE * len(agreed)}
    return rows, families, short, read


def _absent(repository: str, read: Mapping[str, str]) -> str:
    """Why an API no scope row names is not covered: the usage table's ``repository`` (``ops-nn``,
    empty for a user's list) against the repositories whose documents the scope read."""
    full = next((name for name in read if name.split("/")[-1] == repository), None) if repository else None
    if full is not None:
        return f"no document of {full} at {read[full][:12]} (the snapshot read) names it: newer than that commit"
    if repository:
        return f"its repository ({repository}) is not read"
    return "no document of the repositories read names it" + (f" ({', '.join(sorted(read))})" if read else "")


def coverage(apis: Iterable[str], folders: Iterable[Path] | None = None,
             hand_written: Mapping[str, str] | None = None,
             repositories: Mapping[str, str] | None = None) -> dict[str, Coverage]:
    """Each API's coverage under the scope's rule. ``hand_written``: API -> the domain its hand-written
    record declares ("" for the whole API); default, the registry's records that are not extracted.
    ``repositories``: API -> the repository a usage table gives it (why an API no scope row names is
    not covered)."""
    from aclnn_conformance.spec.registry import data_folders, is_data_operator, operator, operators
    if hand_written is None:   # the extracted operators' files are not read for it
        hand_written = {operator(k).spec.api: operator(k).spec.domain for k in operators()
                        if not is_data_operator(k)}
    rows, families, short, read = _scopes(data_folders() if folders is None else folders)
    out = {}
    for api in apis:
        if api in hand_written:
            domain = hand_written[api]
            out[api] = Coverage(api, PARTLY, f"its record covers {domain} only") if domain else \
                Coverage(api, COVERED, "specified by hand")
            continue
        row = rows.get(api)
        if row is None:
            out[api] = Coverage(api, NOT_COVERED, _absent((repositories or {}).get(api, ""), read))
            continue
        family = row.get("group", row["family"])
        if row["status"] != COVERED:
            out[api] = Coverage(api, row["status"], "; ".join(row.get("missing", ())[:2]))
        elif family not in families or not holds_bar(families[family]):
            out[api] = Coverage(api, PARTLY, f"its family {family} does not hold the agreement bar")
        elif api in short:
            out[api] = Coverage(api, PARTLY, f"under {OWN_SHARE:.0%} of its own vendor expectations agree")
        else:
            out[api] = Coverage(api, COVERED, "extracted")
    return out


def usage_report(used: list[Used], folders: Iterable[Path] | None = None,
                 hand_written: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The shares covered by APIs and by weight, and the APIs not covered in order of use."""
    found = coverage([u.api for u in used], folders, hand_written, {u.api: u.repository for u in used})
    covered = [u for u in used if found[u.api].status == COVERED]
    total_weight = sum(u.weight for u in used)
    rest = sorted((u for u in used if found[u.api].status != COVERED), key=lambda u: (-u.weight, u.api))
    return {"apis": len(used), "covered_apis": len(covered),
            "weight": total_weight, "covered_weight": sum(u.weight for u in covered),
            "not_covered": [{"api": u.api, "weight": u.weight, "repository": u.repository,
                             "status": found[u.api].status, "why": found[u.api].why} for u in rest]}


def headline(doc: Mapping[str, Any], unit: str) -> str:
    """``N of M APIs (x%), C of D <unit> (y%)``: the one number a user asks for, both ways."""
    return (f"{doc['covered_apis']} of {doc['apis']} APIs covered ({doc['covered_apis'] / max(doc['apis'], 1):.0%}), "
            f"{doc['covered_weight']} of {doc['weight']} {unit} ({doc['covered_weight'] / max(doc['weight'], 1):.0%})")


def add_command(sub) -> None:
    s = sub.add_parser("scope", help="coverage weighted by use: the shipped usage table or your "
                                     "workload's API list, by APIs and call sites")
    s.add_argument("--usage", default=None, metavar="FILE",
                   help="your workload's APIs: one aclnn API per line, optionally with a count, or a usage "
                        "table of the shipped kind (default: the shipped table of public projects' call sites)")
    s.add_argument("--min-consumers", type=int, default=MIN_CONSUMERS, metavar="N",
                   help=f"the shipped table: APIs called by at least N projects (default {MIN_CONSUMERS})")
    s.add_argument("--show", type=int, default=20, metavar="K",
                   help="uncovered APIs listed, most used first (default 20; 0 lists all)")
    s.add_argument("--json", default=None, metavar="FILE", help="also write the whole answer as JSON")
    s.set_defaults(func=run_scope)


def run_scope(args) -> int:
    import sys
    if args.min_consumers < 0 or args.show < 0:
        print("error: --min-consumers and --show take a whole number >= 0", file=sys.stderr)
        return 2
    table = False
    try:
        table = bool(args.usage) and is_usage_table(Path(args.usage))
        if table:   # a table of the shipped kind (a newer count)
            used = shipped_usage(args.min_consumers, Path(args.usage))
        else:
            used = read_usage_list(Path(args.usage)) if args.usage else shipped_usage(args.min_consumers)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    doc = usage_report(used)
    unit = "calls" if args.usage and not table else "call sites"
    source = args.usage or (f"the shipped usage table (APIs called by at least {args.min_consumers} "
                            f"public projects)")
    print(f"{source}: {headline(doc, unit)}")
    repositories = sorted({u.repository for u in used if u.repository})
    for repository in repositories if len(repositories) > 1 else ():
        print(f"  {repository}: {headline(usage_report([u for u in used if u.repository == repository]), unit)}")
    shown = doc["not_covered"] if args.show == 0 else doc["not_covered"][:args.show]
    if shown:
        print(f"not covered, most used first ({len(shown)} of {len(doc['not_covered'])}):")
        for r in shown:
            print(f"  {r['api']:<36} {r['weight']:>5} {unit:<10} {r['status']}: {r['why'][:WHY_SHOWN]}")
    if args.json:
        Path(args.json).write_text(json.dumps({"source": source, "unit": unit, **doc}, indent=1) + "\n",
                                   encoding="utf-8")
        print(f"written: {args.json}")
    return 0
