"""From a vendor checkout to operator-data files: each documented API of the chosen families, its
document and its host code read, merged into one JSON record (``spec.operator_data``'s schema)."""
from __future__ import annotations

import json
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from aclnn_conformance.extract.cpp import SourceFile, read_source
from aclnn_conformance.extract.documents import ApiDoc, Document, api_names_of, parse_document, parse_prototypes
from aclnn_conformance.extract.scope import coverage_of
from aclnn_conformance.spec.templates import CATEGORIES as TEMPLATE_CATEGORIES
from aclnn_conformance.extract.host_code import Event, Index, KernelIndex, T, Unreadable, walk_api
from aclnn_conformance.extract.host_code.cast_routes import CastRoutes, read_cast_routes
from aclnn_conformance.extract.host_code.model import PRODUCT_PLATFORM
from aclnn_conformance.extract.opdef import bind, generated_events, read_opdef
from aclnn_conformance.extract.opbase import Opbase, OpbaseChoice, OpbaseSource, choose_opbase
from aclnn_conformance.spec.operator_data import SCHEMA, api_key, rule_prefix_of
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.shared_expressions import share

# repository folder name -> the families in the operator data (its main tree, never experimental/):
# each joined when its strict agreement with the vendor's op_api unit tests held the bar
DEFAULT_FAMILIES = {"ops-math": ("math",), "ops-nn": ("activation", "norm"),
                    # read for the scope's census only: none of its families holds the bar yet
                    "ops-transformer": ()}
# APIs of a joined family left out of the operator data, each with its reason (extract/held_out.json,
# data: the scope says it): what the reader cannot yet decide for them would put their family below the bar
HELD_OUT: dict[str, str] = {row["api"]: row["why"] for row in json.loads(
    (Path(__file__).resolve().parent / "held_out.json").read_text(encoding="utf-8"))["apis"]}
COMMON_HEADERS = ("common/inc/op_api", "common/stub/op_api", "common/inc/external/aclnn_kernels")
CATEGORY = {"null": "nullptr", "dtype_in": "dtype", "dtype_not_in": "dtype", "dtypes_equal": "dtype",
            "castable": "dtype", "promotable": "dtype", "private_format": "format", "rank_range": "shape",
            "shapes_equal": "shape", "broadcastable": "shape", "empty": "empty", "attr_range": "attr",
            "product": "product"} | TEMPLATE_CATEGORIES   # the later templates name their own


class CheckoutError(ValueError):
    """A folder that is not a readable vendor operator checkout."""


@dataclass(frozen=True)
class Checkout:
    root: Path
    repository: str        # hicann/ops-math
    commit: str
    cann_release: str
    opbase: OpbaseChoice | None = None   # where the functions it declares OPBASE_API are read


def open_checkout(path: str | Path, opbases: list[Opbase] | None = None) -> Checkout:
    root = Path(path)
    if not root.is_dir():
        raise CheckoutError(f"{path}: not a folder")
    if not any((root / f).is_dir() for fams in DEFAULT_FAMILIES.values() for f in fams) and \
            not list(root.glob("*/*/docs/aclnn*.md")):
        raise CheckoutError(f"{path}: no <family>/<op>/docs/aclnn*.md documents: not an operator checkout")
    commit = ""
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        pass
    release = ""
    version = root / "version.cmake"
    if version.is_file():
        m = re.search(r'set_cann_package\s*\(\s*[\w-]+\s+VERSION\s+"([^"]+)"', version.read_text(errors="replace"))
        release = m.group(1) if m else ""
    repository = f"hicann/{root.name}" if root.name.startswith("ops-") else root.name
    return Checkout(root, repository, commit, release, choose_opbase(root, repository, opbases or []))


_KERNELS: dict[tuple, KernelIndex] = {}


def _kernels(checkout: Checkout) -> KernelIndex:
    """The checkout's l0op functions, one index per checkout and opbase (read on first use)."""
    opbase = checkout.opbase.opbase if checkout.opbase else None
    key = (checkout.root.resolve(), opbase.root.resolve() if opbase else None)
    if key not in _KERNELS:
        _KERNELS[key] = KernelIndex(checkout.root, OpbaseSource(opbase) if opbase else None)
    return _KERNELS[key]


def _common(checkout: Checkout) -> list[SourceFile]:
    out = []
    for folder in COMMON_HEADERS:
        base = checkout.root / folder
        if base.is_dir():
            for h in sorted(base.rglob("*.h")):
                out.append(read_source(str(h.relative_to(checkout.root)), h.read_text(errors="replace")))
    return out


def _op_api_files(family_dir: Path) -> list[Path]:
    files = [p for p in family_dir.glob("*/op_api/aclnn_*.cpp")]
    files += [p for p in family_dir.glob("*/op_host/op_api/aclnn_*.cpp")]
    return sorted(files)


def cast_routes_of(checkouts: list[Checkout]) -> CastRoutes | None:
    """l0op::Cast's routes, from the first checkout holding ops-math's cast.cpp (ops-nn's APIs call
    the Cast ops-math builds)."""
    archs = tuple(dict.fromkeys(arch for _, arch in PRODUCT_PLATFORM.values()))
    return next((r for c in checkouts if (r := read_cast_routes(c.root, c.repository, c.commit, archs))), None)


def extract_checkout(checkout: Checkout, families: tuple[str, ...] | None = None,
                     cast_routes: CastRoutes | None = None) -> Iterator[dict[str, Any]]:
    """One operator-data record per documented API of ``families`` (default: part one's); with
    ``cast_routes``, every null check of a Cast's result reads its routes."""
    families = families or taken_families(checkout)
    common = _common(checkout)
    for family in families:
        fdir = checkout.root / family
        if not fdir.is_dir():
            raise CheckoutError(f"{checkout.root}: no family folder {family}/")
        sources: dict[Path, SourceFile] = {}
        definers: dict[str, Path] = {}
        for path in _op_api_files(fdir):
            text = path.read_text(errors="replace")
            for m in re.finditer(r"aclnnStatus\s+(aclnn\w+)GetWorkspaceSize\s*\(", text):
                definers.setdefault(m.group(1), path)
            sources[path] = None  # read on demand
        for doc_path in sorted(fdir.glob("*/docs/aclnn*.md")):
            rel = str(doc_path.relative_to(checkout.root))
            document = parse_document(rel, doc_path.read_text(errors="replace"))
            wanted = api_names_of(doc_path.name)
            for api_doc in document.apis:
                if api_doc.api not in wanted:
                    continue
                op_dir = doc_path.parent.parent
                host = definers.get(api_doc.api)
                yield build_record(checkout, family, document, api_doc, host, sources, common, op_dir, cast_routes)


# family folders whose APIs are specified by hand or not at all, never extracted (their paths run
# through the matmul and attention kernels part two leaves to hand-written specs)
HAND_FAMILIES = ("matmul",)
NOT_TAKEN = ("its family ({family}/) is not extracted: a family joins the operator data only when its "
             "strict agreement with the vendor's op_api unit tests holds the bar in every expected "
             "status (the README's per-family figures)")
HAND_ONLY = "its family ({family}/) stays specified by hand (matmul, grouped matmul and attention paths)"
# family folders of operators fused with collective communication, never extracted
COLLECTIVE_FAMILIES = ("mc2",)
COLLECTIVE = ("its family ({family}/) fuses its kernel with collective communication across devices (an HCCL "
              "group argument, ops-transformer mc2/*/docs): no single-device call decides its checks or values")


def taken_families(checkout: Checkout) -> tuple[str, ...]:
    """The families read when none is named: part one's for the vendor's repositories, else every
    main-tree folder holding documented operators (``<family>/<op>/docs/aclnn*.md``) but the collective ones."""
    if checkout.root.name in DEFAULT_FAMILIES:
        return DEFAULT_FAMILIES[checkout.root.name]
    return tuple(sorted(
        {p.parts[-4] for p in checkout.root.glob("*/*/docs/aclnn*.md")} - {"experimental", *COLLECTIVE_FAMILIES}))


def document_census(checkout: Checkout, taken: tuple[str, ...]) -> list[dict[str, Any]]:
    """A scope row for every API documented in the checkout's main-tree family folders other than
    ``taken``: not covered, and why (its family not extracted, or left to hand-written specs)."""
    rows = []
    for doc_path in sorted(checkout.root.glob("*/*/docs/aclnn*.md")):
        family = doc_path.parts[-4]
        if family in taken or family == "experimental":
            continue
        why = (HAND_ONLY if family in HAND_FAMILIES else COLLECTIVE if family in COLLECTIVE_FAMILIES
               else NOT_TAKEN).format(family=family)
        for api in api_names_of(doc_path.name):
            rows.append({"api": api, "key": api_key(api), "family": family, "group": family,
                         "repository": checkout.repository,
                         "document": str(doc_path.relative_to(checkout.root)), "host_code": None,
                         "status": "not covered", "missing": [why], "family_taken": False})
    return rows


NO_PROTOTYPE = ("its document ({document}) states no prototype ({api}GetWorkspaceSize): nothing in it to "
                "read (the vendor's page pointing to its community site instead)")
NO_SECTION = ("its document ({document}) states the prototype ({api}GetWorkspaceSize, line {line}) but no "
              "section headed so, where the reader takes its parameter table: not read")


def prototype_census(checkout: Checkout, taken: tuple[str, ...]) -> list[dict[str, Any]]:
    """A scope row for every API a document of the families ``taken`` names in its file name but gives
    no prototype for (ops-transformer moe/moe_init_routing_v2/docs/aclnnMoeInitRoutingV2.md:3, a page
    reworked elsewhere), or no section of it (ops-nn activation/softmax_cross_entropy_with_logits/docs:
    its parameters under ``## aclnnSoftmaxCrossEntropyWithLogits``): not covered, and why."""
    rows = []
    for family in taken:
        for doc_path in sorted((checkout.root / family).glob("*/docs/aclnn*.md")):
            rel = str(doc_path.relative_to(checkout.root))
            text = doc_path.read_text(errors="replace")
            stated, prototypes = {doc.api for doc in parse_document(rel, text).apis}, parse_prototypes(text)
            for api in api_names_of(doc_path.name):
                if api not in stated:
                    why = NO_SECTION.format(document=rel, api=api, line=prototypes[api][1]) if api in prototypes \
                        else NO_PROTOTYPE.format(document=rel, api=api)
                    rows.append({"api": api, "key": api_key(api), "family": family, "group": family,
                                 "repository": checkout.repository, "document": rel, "host_code": None,
                                 "status": "not covered", "missing": [why], "family_taken": True})
    return rows


def _own_headers(checkout: Checkout, host: Path, sources: dict) -> list[SourceFile]:
    """The headers ``#include "x.h"`` of the op_api file found from its folder: its own API header beside
    it, and a header of another operator's folder it names by a relative path (ops-math
    conversion/pad_v4_grad/op_host/op_api/aclnn_reflection_pad1d_backward.cpp:12
    ``../../../pad_v3_grad_replicate/op_host/op_api/pad1d_backward_common.h``), inside the checkout."""
    found = []
    root = checkout.root.resolve()
    for name in re.findall(r'(?m)^[ \t]*#[ \t]*include[ \t]+"([^"]+\.h)"', host.read_text(errors="replace")):
        path = (host.parent / name).resolve()
        if not path.is_file() and name.split("/")[0] == host.relative_to(checkout.root).parts[0]:
            # a header of the op's own family named from the checkout's root (ops-nn
            # matmul/addmv/op_host/op_api/aclnn_addmv.cpp:22 ``matmul/common/op_host/op_api/cube_util.h``),
            # with the definitions of the same-named source beside it (cube_util.cpp)
            path = (root / name).resolve()
            paths = [path, path.with_suffix(".cpp")]
        else:
            paths = [path]
        for path in paths:
            if path.is_file() and root in path.parents:
                if sources.get(path) is None:
                    sources[path] = read_source(str(path.relative_to(root)), path.read_text(errors="replace"))
                found.append(sources[path])
    return found


def build_record(checkout: Checkout, family: str, document: Document, doc: ApiDoc, host: Path | None,
                 sources: dict, common: list[SourceFile], op_dir: Path,
                 cast_routes: CastRoutes | None = None) -> dict[str, Any]:
    key = api_key(doc.api)
    prefix = rule_prefix_of(key)
    cite = _citer(checkout)
    params = _params(doc, cite)
    unread: list[dict[str, Any]] = []
    name_errata: list[dict[str, Any]] = []
    per_product: dict[str, list[Event]] = {}
    host_code: dict[str, Any]
    if host is not None:
        if sources.get(host) is None:
            sources[host] = read_source(str(host.relative_to(checkout.root)), host.read_text(errors="replace"))
        src = sources[host]
        fn = src.functions.get(f"{doc.api}GetWorkspaceSize")
        host_code = {"path": src.path, "kind": "op_api", "line": fn.line if fn else 0}
        if fn is None:
            unread.append({"what": "GetWorkspaceSize", "where": cite(src.path, 1),
                           "why": "its definition is not a function the reader finds"})
        else:
            index = Index(src, common, _own_headers(checkout, host, sources), _kernels(checkout), cast_routes)
            documented = [p.name for p in doc.prototype]
            if len(documented) == len(fn.params):
                # by position: the document's names are the API's (the code may name them otherwise)
                bindings = {c: T(d) for c, d in zip(fn.params, documented)}
                renamed = [(c, d) for c, d in zip(fn.params, documented) if c != d]
                if renamed:
                    name_errata.append({"doc_says": [d for _, d in renamed], "cann_does": [c for c, _ in renamed],
                                        "source": f"{src.path}:{fn.line}", "param": ",".join(d for _, d in renamed),
                                        "product": "all"})
                for product in PRODUCT_IDS:
                    per_product[product] = walk_api(index, fn, bindings, product)
            else:
                unread.append({"what": f"{doc.api}GetWorkspaceSize", "where": cite(src.path, fn.line),
                               "why": f"the code takes {len(fn.params)} parameters, the document's prototype "
                                      f"{len(documented)}: no rule is read"})
    else:
        gen = sorted(op_dir.glob("op_host/*_def.cpp"))
        host_code = {"path": str(gen[0].relative_to(checkout.root)) if gen else "", "kind": "generated"}
        if not gen:
            unread.append({"what": "the generated aclnn layer", "where": "",
                           "why": "the operator folder has no op_host/*_def.cpp"})
        else:
            per_product = _generated(checkout, doc, params, gen, host_code, unread, cite)
    rules, empty = _code_rules(prefix, per_product, cite, unread)
    if not per_product:   # nothing of the host code read: every call is not judged under cann
        rules.append(_rule(prefix, len(rules) + 1, "check", "unread", "unread", {},
                           {"cann": {"not_judged": True}}, "unread",
                           [cite(host_code["path"], host_code.get("line") or 1)] if host_code["path"] else [],
                           unread[-1]["why"] if unread else "the host code is not read"))
    doc_rules = _doc_rules(prefix, len(rules), doc, document, params, cite)
    rules += doc_rules
    supported_doc = sorted(p for p, ok in document.supported.items() if ok)
    # a product on which a code-read check rejects every call (an error on the product itself, or an
    # empty dtype list) does not support the API under cann
    refused = {p for r in rules if r["known_by"] == "code" and r["kind"] == "check"
               and "when" not in r["args"]   # a check under a data branch refuses only the calls taking it
               and (r["template"] == "product" or (r["template"] == "dtype_in" and not r["args"]["dtypes"]))
               for p in r["expect"]["cann"].get("products", PRODUCT_IDS)}
    errata = _errata(prefix, rules, doc, document)
    for e in name_errata:   # the document's parameter names against the code's
        errata.append({"id": f"{prefix}-ERRATUM-{len(errata) + 1}", **e})
    record = {
        "schema": SCHEMA,
        "key": key, "api": doc.api, "family": family, "rule_prefix": prefix,
        "vendor": {"repository": checkout.repository, "commit": checkout.commit,
                   "cann_release": checkout.cann_release,
                   **({"opbase": checkout.opbase.provenance()} if checkout.opbase else {})},
        "document": {"path": document.path, "prototype_line": doc.prototype_line,
                     "table_line": doc.table_line, "products_line": document.products_line},
        "host_code": host_code,
        "params": params,
        "rules": rules,
        "check_steps": [r["step"] for r in rules if r["kind"] == "check"],
        "supported": {"doc": supported_doc, "cann": [p for p in PRODUCT_IDS if p not in refused]},
        "outputs": [p["name"] for p in params if p["direction"] in ("output", "input/output")
                    and p["c_kind"] == "tensor"],
        "values": _values(rules, params, empty),
        "errata": errata,
        "unread": unread + [{"what": u, "where": document.path, "why": "the document's table does not parse"}
                            for u in doc.unparsed],
    }
    record["coverage"] = coverage_of(record)
    return record


def _generated(checkout: Checkout, doc: ApiDoc, params: list, gen: list[Path], host_code: dict,
               unread: list, cite) -> dict[str, list[Event]]:
    """The events of a generated aclnn layer on each product, read from its OpDef; none (and an
    unread entry) when the OpDef is outside what ``extract.opdef`` reads."""
    try:
        defs = [read_opdef(str(g.relative_to(checkout.root)), g.read_text(errors="replace")) for g in gen]
        wanted = doc.api.removeprefix("aclnn")
        chosen = [d for d in defs if d.name == wanted] or (defs if len(defs) == 1 else [])
        if not chosen:
            raise Unreadable(f"none of the OpDefs ({', '.join(d.name for d in defs)}) is named {wanted}")
        opdef = chosen[0]
        host_code["path"] = opdef.path
        names = bind(opdef, [p["name"] for p in params if p["c_kind"] in ("tensor", "tensor_list")])
        return {product: generated_events(opdef, names, product) for product in PRODUCT_IDS}
    except Unreadable as exc:
        unread.append({"what": "the generated aclnn layer", "where": cite(host_code["path"], 1),
                       "why": f"the OpDef is not read: {exc}"})
        return {}


def _citer(checkout: Checkout):
    def cite(path: str, line: int) -> dict[str, Any]:
        return {"repository": checkout.repository, "commit": checkout.commit, "path": path, "line": line}
    return cite


def _params(doc: ApiDoc, cite) -> list[dict[str, Any]]:
    out = []
    for p in doc.prototype:
        row = doc.rows.get(p.name)
        direction = row.direction if row else ("output" if p.c_kind in ("workspace_size", "executor") else "input")
        if p.c_kind in ("workspace_size", "executor"):
            direction = "output"
        if direction == "input" and p.c_kind == "tensor" and "const" not in p.c_type.split("*")[0]:
            # a writable tensor (no const in the prototype) named as a result that its row calls 输入:
            # the row's slip (aclnnTrace.md's out: 输入, "表示输出张量"; 9 in-place documents' selfRef)
            if p.name.endswith("Ref"):
                direction = "input/output"
            elif p.name in ("out", "result") or p.name.endswith("Out"):
                direction = "output"
        entry: dict[str, Any] = {
            "name": p.name, "c_type": p.c_type, "c_kind": p.c_kind or "unknown",
            "direction": direction if p.c_kind not in ("double", "float", "int64", "bool", "string", "dtype",
                                                       "int_array", "bool_array", "float_array") else "attr",
            "optional": "Optional" in p.name or "可选" in (row.usage if row else ""),
            "citations": [cite(doc.path, row.line if row else doc.prototype_line)],
        }
        if row is not None:
            entry["doc"] = {"dtypes": list(row.dtypes) if row.dtypes else None, "dtype_cell": row.dtype_cell,
                            "formats": list(row.formats) if row.formats else None,
                            "ranks": list(row.rank) if row.rank else None, "rank_cell": row.rank_cell,
                            "noncontiguous": row.noncontiguous}
            per = {pid: list(ov.get(p.name) or ov.get("*")) for pid, ov in doc.overrides.items()
                   if (ov.get(p.name) or ov.get("*")) and row.dtypes}
            if per:
                entry["doc"]["dtypes_by_product"] = per
        out.append(entry)
    return out


def _key(e: Event) -> tuple:
    return (e.kind, e.template, e.args, e.status)


def _merge_orders(per_product: dict[str, list[Event]]) -> list[tuple]:
    merged: list[tuple] = []
    for product in PRODUCT_IDS:
        prev = -1
        for e in per_product.get(product, []):
            k = _key(e)
            if k in merged:
                at = merged.index(k)
                if at < prev:
                    return []   # two products order the same checks differently
                prev = at
            else:
                merged.insert(prev + 1, k)
                prev += 1
    return merged


def _code_rules(prefix: str, per_product: dict[str, list[Event]], cite, unread: list) -> tuple[list, dict]:
    if not per_product:
        return [], {}
    # the same check twice on one product: the second can never decide a call
    per_product = {p: [e for i, e in enumerate(es) if _key(e) not in {_key(x) for x in es[:i]}]
                   for p, es in per_product.items()}
    merged = _merge_orders(per_product)
    split = not merged
    keys: list[tuple] = []
    if split:
        for product in PRODUCT_IDS:
            for e in per_product[product]:
                keys.append(_key(e) + (product,))
    else:
        keys = merged
    rules, empty = [], {}
    for n, k in enumerate(keys, 1):
        kind, template, args, status = k[:4]
        products = [k[4]] if split else [p for p in PRODUCT_IDS if any(_key(e) == k for e in per_product[p])]
        events = [e for p in products for e in per_product[p] if _key(e) == k[:4]]
        first = events[0]
        citations = _dedupe([cite(e.path, e.line) for e in events] + [c.as_dict() for e in events for c in e.cites])
        args_d = first.args_dict()
        if kind == "empty":
            empty = {"params": args_d["params"], "any": args_d["any"], "products": products}
            rules.append(_rule(prefix, n, "value", "empty", "empty", {"params": args_d["params"],
                               "any": args_d["any"]}, {"cann": {"judged": True, "products": products}},
                               "code", citations, f"if ({first.text}) returns ACLNN_SUCCESS before the kernel"))
            continue
        if kind in ("unread", "unread-values"):
            # unread-values: a success return on an unread condition: statuses read on, values not judged
            why = ("a success return on a condition the reader does not read: statuses are judged, values are "
                   "not") if kind == "unread-values" else \
                "a construct the reader does not recognise: every call that passes the checks before it is not judged"
            unread.append({"what": first.text, "where": citations[0], "why": why, "products": products})
            rules.append(_rule(prefix, n, "value" if kind == "unread-values" else "check", "unread", "unread",
                               {"unless_empty": empty.get("params", []) if empty else [],
                                **({"when": args_d["when"]} if "when" in args_d else {})},
                               {"cann": {"not_judged": True, "products": products}}, "unread", citations,
                               first.text))
            continue
        # no status: an error the code does not name (a SoC no kernel serves)
        expect = {"cann": {"status": status, "products": products} if status is not None
                  else {"any_error": True, "products": products}}
        rules.append(_rule(prefix, n, "check", CATEGORY[template], template, args_d, expect, "code",
                           citations, first.text))
    return rules, empty


def _dedupe(items: list[dict]) -> list[dict]:
    seen, out = set(), []
    for c in items:
        k = (c["repository"], c["path"], c["line"])
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def _rule(prefix: str, n: int, kind: str, category: str, template: str, args: dict, expect: dict,
          known_by: str, citations: list, text: str) -> dict[str, Any]:
    tag = {"nullptr": "NULL", "dtype": "DTYPE", "format": "FORMAT", "shape": "SHAPE", "empty": "EMPTY",
           "attr": "ATTR", "product": "PRODUCT", "unread": "UNREAD"}[category]
    return {"id": f"{prefix}-{tag}-{n:03d}", "kind": kind, "category": category, "step": f"s{n:03d}",
            "template": template, "args": args, "expect": expect, "known_by": known_by,
            "citations": citations, "text": text}


def _doc_rules(prefix: str, start: int, doc: ApiDoc, document: Document, params: list, cite) -> list:
    """What the document states, judged under ``doc`` only (the code's rules carry ``cann``)."""
    rules: list = []
    n = start
    supported = sorted(p for p, ok in document.supported.items() if ok)
    unsupported = sorted(p for p, ok in document.supported.items() if not ok)
    if unsupported:
        n += 1
        rules.append(_rule(prefix, n, "check", "product", "product", {},
                           {"doc": {"any_error": True, "products": unsupported},
                            "cann": {"not_judged": True, "products": unsupported}}, "doc",
                           [cite(document.path, document.products_line)],
                           "the product block says not supported (under cann: whether a kernel serves "
                           "the product is not read)"))
    null_rows = [e for e in doc.errors if e.code == 161001]
    tensors = [p for p in params if p["c_kind"] in ("tensor", "scalar") and p["direction"] != "attr"]
    for p in tensors:
        named = [e for e in null_rows if re.search(rf"(?<![A-Za-z]){re.escape(p['name'])}(?![A-Za-z])", e.text)]
        if named and not p["optional"]:
            n += 1
            rules.append(_rule(prefix, n, "check", "nullptr", "null", {"param": p["name"]},
                               {"doc": {"status": 161001, "products": supported}}, "doc",
                               [cite(document.path, named[0].line)], named[0].text))
    for p in tensors:
        d = p.get("doc") or {}
        if p["c_kind"] != "tensor" or not d.get("dtypes"):
            continue
        groups: dict[tuple, list[str]] = {}
        for pid in supported:
            groups.setdefault(tuple(d.get("dtypes_by_product", {}).get(pid, d["dtypes"])), []).append(pid)
        for dtypes, products in groups.items():
            n += 1
            cites = list(p["citations"])
            if len(groups) > 1 and doc.override_lines.get(products[0]):
                cites.append(cite(document.path, doc.override_lines[products[0]]))
            rules.append(_rule(prefix, n, "check", "dtype", "dtype_in", {"param": p["name"], "dtypes": list(dtypes)},
                               {"doc": {"status": 161002, "products": products}}, "doc",
                               cites, f"{p['name']}: 数据类型 {', '.join(dtypes)}"))
    for p in tensors:
        d = p.get("doc") or {}
        if p["c_kind"] != "tensor" or not d.get("ranks"):
            continue
        n += 1
        lo, hi = d["ranks"]
        rules.append(_rule(prefix, n, "check", "shape", "rank_range", {"param": p["name"], "min": lo, "max": hi},
                           {"doc": {"status": 161002, "products": supported}}, "doc",
                           p["citations"], f"{p['name']}: 维度 {d['rank_cell']}"))
    return rules


def _errata(prefix: str, rules: list, doc: ApiDoc, document: Document) -> list:
    out = []
    code_sets: dict[tuple[str, str], list] = {}
    for r in rules:
        if r["known_by"] == "code" and r["template"] == "dtype_in" and "when" not in r["args"]:
            for pid in r["expect"]["cann"]["products"]:
                code_sets.setdefault((r["args"]["param"], pid), r["args"]["dtypes"])
    for r in rules:
        if r["known_by"] == "doc" and r["template"] == "dtype_in":
            for pid, dset in ((pid, r["args"]["dtypes"]) for pid in r["expect"]["doc"]["products"]):
                cset = code_sets.get((r["args"]["param"], pid))
                if cset is not None and sorted(cset) != sorted(dset):
                    out.append({"id": f"{prefix}-ERRATUM-{len(out) + 1}", "param": r["args"]["param"],
                                "product": pid, "doc_says": sorted(dset), "cann_does": sorted(cset),
                                "source": r["citations"][0]["path"] + f":{r['citations'][0]['line']}"})
    if any(r["template"] == "private_format" for r in rules):
        docs_nd = [r for r in doc.rows.values() if r.formats == ("ND",)]
        if docs_nd:
            out.append({"id": f"{prefix}-ERRATUM-{len(out) + 1}", "param": ",".join(r.name for r in docs_nd),
                        "product": "all", "doc_says": ["ND"],
                        "cann_does": "rejects private formats only; other formats are accepted",
                        "source": f"{doc.path}:{doc.table_line}"})
    return out


def _values(rules: list, params: list, empty: dict) -> dict[str, Any]:
    outputs = [p["name"] for p in params if p["direction"] in ("output", "input/output") and p["c_kind"] == "tensor"]
    out_rules = {}
    for o in outputs:
        # rules under a data branch (``when``) hold for some calls only: no output dtype rule of the API
        same = [r for r in rules if r["known_by"] == "code" and r["template"] == "dtypes_equal"
                and "when" not in r["args"] and o in (r["args"]["param"], r["args"]["other"])]
        if same:
            r = same[0]
            other = r["args"]["other"] if r["args"]["param"] == o else r["args"]["param"]
            out_rules[o] = {"rule": "same_as", "of": other, "citations": r["citations"]}
            continue
        fixed = [r for r in rules if r["known_by"] == "code" and r["template"] == "dtype_in"
                 and r["args"]["param"] == o and len(r["args"]["dtypes"]) == 1 and "when" not in r["args"]]
        if fixed:
            out_rules[o] = {"rule": "fixed", "dtype": fixed[0]["args"]["dtypes"][0],
                            "citations": fixed[0]["citations"]}
            continue
        out_rules[o] = {"rule": "unread", "why": "the output's dtype is the caller's, bounded by the checks "
                        "above; no same-as or fixed rule was read"}
    return {"output_dtype": out_rules,
            "promotion": {"rule": "unread", "why": "PromoteType paths are not read by this version"},
            "compute_dtype": {"rule": "unread", "why": "the casts before the kernel are not read by this version"},
            "empty_return": empty or None}


def write_records(records: list[dict], out: Path) -> list[Path]:
    written = []
    for rec in records:
        path = out / rec["family"] / f"{rec['key']}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(share(rec), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
