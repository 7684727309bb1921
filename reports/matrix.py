"""The support matrix: for every extracted API and tensor, on one product, the dtypes, formats, ranks
and non-contiguity accepted under ``cann``, the document's claim beside wherever the two differ, and
the citation of each entry. ``matrix_<product>.csv`` and ``.html`` per product (a run writes them
into its report folder, for the extracted operators and the products it ran); ``aclnn-conformance
matrix --product P [--op OP]`` prints rows.

Under ``cann`` an entry is what the code-read checks accept on the product. A check the extractor
could not read before it leaves the entry ``unread`` (the extraction says where)."""
from __future__ import annotations

import argparse
import csv
import html
import sys
from pathlib import Path
from typing import Any, Iterator, Sequence

from aclnn_conformance.reports.html_page import filter_box, page
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import UnknownOperator, is_data_operator, operator, operators

COLUMNS = ("api", "tensor", "dtypes", "doc_dtypes", "formats", "doc_formats", "ranks", "doc_ranks",
           "noncontiguous", "doc_noncontiguous", "differs", "citation")


def _on(rule: dict, product: str, profile: str = "cann") -> bool:
    exp = rule["expect"].get(profile)
    return bool(exp) and product in exp.get("products", PRODUCT_IDS)


def _cite(rule: dict) -> str:
    c = rule["citations"][0] if rule["citations"] else {}
    return f"{c.get('repository', '')}@{c.get('commit', '')[:8]} {c.get('path', '')}:{c.get('line', '')}"


def rows_of(key: str, product: str) -> Iterator[dict[str, Any]]:
    operator(key)    # the registry reads a data file when its record is first asked for
    data = data_of(key)
    checks = [r for r in data["rules"] if r["kind"] == "check"]
    first_unread = next((i for i, r in enumerate(checks) if r["template"] == "unread" and _on(r, product)), None)
    read = checks if first_unread is None else checks[:first_unread]
    supported = product in data["supported"]["cann"]
    for p in data["params"]:
        if p["c_kind"] != "tensor":
            continue
        name = p["name"]
        doc = p.get("doc") or {}
        # a rule under a data branch (``when``) holds only for some calls: not an entry of the matrix
        mine = [r for r in read if r["known_by"] == "code" and r["args"].get("param") == name and _on(r, product)
                and "when" not in r["args"]]
        dtype_rule = next((r for r in mine if r["template"] == "dtype_in"), None)
        same = next((r for r in mine if r["template"] == "dtypes_equal"), None)
        if dtype_rule is None and same is not None:   # out's dtype must be another tensor's
            other = same["args"]["other"]
            dtype_rule = next((r for r in read if r["known_by"] == "code" and r["template"] == "dtype_in"
                               and r["args"].get("param") == other and _on(r, product)
                               and "when" not in r["args"]), None)
        if not supported:
            dtypes = "not supported"
        elif dtype_rule is not None:
            dtypes = " ".join(dtype_rule["args"]["dtypes"]) or "none"
        else:
            dtypes = "unread" if first_unread is not None else "no dtype check read"
        fmt_rule = next((r for r in mine if r["template"] == "private_format"), None)
        formats = ("all but private formats" if fmt_rule is not None else
                   "unread" if first_unread is not None else "no format check")
        rank_rule = next((r for r in mine if r["template"] == "rank_range"), None)
        shape_same = next((r for r in mine if r["template"] == "shapes_equal"), None)
        if rank_rule is None and shape_same is not None:   # the shape of another tensor: its ranks
            rank_rule = next((r for r in read if r["known_by"] == "code" and r["template"] == "rank_range"
                              and r["args"].get("param") == shape_same["args"]["other"] and _on(r, product)
                              and "when" not in r["args"]), None)
        ranks = (f"{rank_rule['args'].get('min', 0)}-{rank_rule['args'].get('max', '')}" if rank_rule else
                 "unread" if first_unread is not None else "no rank check")
        doc_dtypes = " ".join(doc.get("dtypes_by_product", {}).get(product) or doc.get("dtypes") or []) or "-"
        doc_ranks = "-".join(map(str, doc["ranks"])) if doc.get("ranks") else (doc.get("rank_cell") or "-")
        differs = [what for what, a, b in (("dtypes", dtypes, doc_dtypes), ("ranks", ranks, doc_ranks))
                   if a not in ("unread", "no dtype check read", "no rank check") and b != "-"
                   and sorted(a.split()) != sorted(b.split())]
        if fmt_rule is not None and doc.get("formats") == ["ND"]:
            differs.append("formats")
        yield {"api": data["api"], "tensor": name, "dtypes": dtypes, "doc_dtypes": doc_dtypes,
               "formats": formats, "doc_formats": " ".join(doc.get("formats") or []) or "-",
               "ranks": ranks, "doc_ranks": doc_ranks,
               "noncontiguous": "no stride check" if first_unread is None else "unread",
               "doc_noncontiguous": doc.get("noncontiguous", "-"), "differs": " ".join(differs),
               "citation": _cite(dtype_rule) if dtype_rule else
               f"{data['vendor']['repository']}@{data['vendor']['commit'][:8]} {data['host_code']['path']}"}


def data_operators() -> list[str]:
    return [k for k in operators() if is_data_operator(k)]


class NotInMatrix(ValueError):
    """An operator the matrix has no rows for: unknown, or specified by hand rather than extracted."""


def matrix_key(op: str) -> str:
    """The key of ``op`` (its key or API name) when it is an extracted API; else NotInMatrix, saying
    what the scope knows of it or where its rules are."""
    try:
        record = operator(op)
    except UnknownOperator as exc:
        raise NotInMatrix(str(exc)) from None
    if record.key not in data_operators():
        raise NotInMatrix(f"{op}: {record.api} ({record.key}) is specified by hand, not extracted, so "
                          f"the support matrix has no rows for it; aclnn-conformance list rules "
                          f"{record.key} lists what it accepts")
    return record.key


def matrix(product: str, op: str | None = None) -> list[dict[str, Any]]:
    keys = [matrix_key(op)] if op else data_operators()
    return [row for key in keys for row in rows_of(key, product)]


# every column in view: the long names and citations break anywhere rather than run off the page
WRAPPED = ("api", "tensor", "citation")


def matrix_page(product: str, rows: list[dict[str, Any]]) -> str:
    """The matrix of one product as a page styled like report.html: a filter box, each API's first
    row its anchor (``#<api>``), the cells the document disagrees with marked."""
    body, seen = [], set()
    for r in rows:
        anchor = "" if r["api"] in seen else f' id="{html.escape(r["api"])}"'
        seen.add(r["api"])
        differs = r["differs"].split()
        cells = []
        for c in COLUMNS:
            text = html.escape(str(r[c]))
            cls = " ".join(k for k, on in (("wrap", c in WRAPPED), ("d", c in differs)) if on)
            cells.append((f'<td class="{cls}">' if cls else "<td>")
                         + (f'<a href="#{text}">{text}</a>' if c == "api" else text) + "</td>")
        body.append(f'<tr{anchor} data-api="{html.escape(r["api"])}">{"".join(cells)}</tr>')
    head = "".join(f"<th>{c.replace('_', '_<wbr>')}</th>" for c in COLUMNS)
    return page(f"support matrix: {product}", [
        f"<h1>What each API accepts on {html.escape(product)} (cann), the document beside</h1>",
        f"<p>{len(seen)} APIs, {len(rows)} tensors. A marked cell is one the document disagrees "
        f"with; each API's name links to its rows.</p>",
        filter_box("matrix", "APIs, tensors, dtypes, citations"),
        f'<table id="matrix" class="support"><thead><tr>{head}</tr></thead>'
        f'<tbody>{"".join(body)}</tbody></table>'])


def write_matrix(out: Path, products: Sequence[str] = PRODUCT_IDS,
                 keys: Sequence[str] | None = None) -> list[Path]:
    """``matrix_<product>.csv`` and ``.html`` per product, of the extracted operators ``keys``
    (default: every one)."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for product in products:
        rows = [row for key in (data_operators() if keys is None else keys)
                for row in rows_of(key, product)]
        path = out / f"matrix_{product}.csv"
        with path.open("w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=COLUMNS)
            writer.writeheader()
            writer.writerows(rows)
        page = out / f"matrix_{product}.html"
        page.write_text(matrix_page(product, rows), encoding="utf-8")
        written += [path, page]
    return written


def add_command(sub) -> None:
    s = sub.add_parser("matrix", help="what each extracted API accepts on a product (cann), the document beside")
    s.add_argument("--product", required=True, choices=PRODUCT_IDS)
    s.add_argument("--op", default=None, help="one operator (key or API name)")
    s.add_argument("--out", default=None,
                   help="write matrix_<product>.csv/.html of the product (and --op) here")
    s.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        op = matrix_key(args.op) if args.op else None
        if args.out and Path(args.out).exists() and not Path(args.out).is_dir():
            raise NotInMatrix(f"--out {args.out} is a file, not a folder")
    except NotInMatrix as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.out:
        for path in write_matrix(Path(args.out), (args.product,), None if op is None else (op,)):
            print(path)
        return 0
    rows = matrix(args.product, op)
    shown = ("api", "tensor", "dtypes", "doc_dtypes", "formats", "ranks", "differs")
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) if rows else len(c) for c in shown}
    print("  ".join(c.ljust(widths[c]) for c in shown))
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in shown))
    return 0
