"""A record's rules with each large repeated expression stored once.

The host code computes a dtype once (``promoteType``) and tests it in several checks; written out in
full, every test repeats the whole computation, and a chain of such dtypes grows the record
geometrically (a promotion tested by a cast tested by a route). ``share`` writes each such expression
once, in the record's ``shared`` list, and a reference ``{"$ref": "#/shared/N"}`` where it stood;
``resolve`` puts the expressions back, every reference to one the same object, so a reader of the
resolved record sees the rules as the reader of the code wrote them.
"""
from __future__ import annotations

import json
from collections import Counter
from typing import Any

# compact JSON characters from which a repeated expression is worth a reference: a reference costs
# about 25, and below this size the repeats keep the file readable
SHARE_FROM = 1000
REF = "$ref"
PREFIX = "#/shared/"
SHARED_FIELD = "shared"
SHARED_PARTS = ("rules",)   # the parts of a record whose expressions are shared


class SharedExpressionError(ValueError):
    """A reference to no shared expression, or to one written after the expression that uses it."""


def _is_ref(x: Any) -> bool:
    return isinstance(x, dict) and len(x) == 1 and isinstance(x.get(REF), str) and x[REF].startswith(PREFIX)


def share(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with every list expression of its rules of at least SHARE_FROM characters that
    occurs more than once stored once, in ``shared`` (an expression before every one that uses it);
    the record itself when nothing repeats. Deterministic: the same rules give the same file."""
    ident: dict[Any, int] = {}      # a subtree's structure -> its id
    size: dict[int, int] = {}       # id -> its compact JSON length
    is_list: set[int] = set()
    by_object: dict[int, int] = {}  # id() of a list or dict met -> its id: the rules share objects in memory
    keep_alive: list[Any] = []      # the objects by_object names, so that no id() is reused

    def id_of(x: Any) -> int:
        if isinstance(x, (list, tuple, dict)) and id(x) in by_object:
            return by_object[id(x)]
        if isinstance(x, (list, tuple)):   # the reader's expressions are tuples until written
            kids = tuple(id_of(c) for c in x)
            key: Any = ("list", kids)
            length = 2 + sum(size[k] for k in kids) + max(len(kids) - 1, 0)
        elif isinstance(x, dict):
            pairs = tuple((k, id_of(v)) for k, v in x.items())
            key = ("dict", pairs)
            length = 2 + sum(len(json.dumps(k)) + 1 + size[v] for k, v in pairs) + max(len(pairs) - 1, 0)
        else:
            key = ("atom", type(x).__name__, x)
            length = len(json.dumps(x, ensure_ascii=False))
        n = ident.setdefault(key, len(ident))
        size[n] = length
        if isinstance(x, (list, tuple, dict)):
            by_object[id(x)] = n
            keep_alive.append(x)
            if isinstance(x, (list, tuple)):
                is_list.add(n)
        return n

    # how often each large list is written when each is written once and referred to after:
    # one met only inside another's single body stays inline
    refs: Counter = Counter()
    walked: set[int] = set()

    def count_refs(x: Any) -> None:
        n = id_of(x)
        if n in is_list and size[n] >= SHARE_FROM:
            refs[n] += 1
            if n in walked:
                return
            walked.add(n)
        for c in (x if isinstance(x, (list, tuple)) else x.values() if isinstance(x, dict) else ()):
            count_refs(c)

    for part in SHARED_PARTS:
        count_refs(record.get(part))
    chosen = {n for n, c in refs.items() if c > 1}
    if not chosen:
        return record

    order: dict[int, int] = {}     # chosen id -> its index in ``shared``
    written: list[Any] = []

    def write(x: Any) -> Any:
        n = id_of(x)
        if n in chosen:
            if n not in order:
                inner = [write(c) for c in x]
                order[n] = len(written)
                written.append(inner)
            return {REF: f"{PREFIX}{order[n]}"}
        if isinstance(x, (list, tuple)):
            return [write(c) for c in x]
        if isinstance(x, dict):
            return {k: write(v) for k, v in x.items()}
        return x

    out = {k: (write(v) if k in SHARED_PARTS else v) for k, v in record.items() if k != SHARED_FIELD}
    out[SHARED_FIELD] = written
    return out


def resolve(record: dict[str, Any]) -> dict[str, Any]:
    """``record`` with every shared reference replaced by its expression (one object per shared
    expression) and no ``shared`` field; the record itself when it has none."""
    table = record.get(SHARED_FIELD)
    if table is None:
        return record
    built: list[Any] = []

    def put(x: Any) -> Any:
        if _is_ref(x):
            index = x[REF][len(PREFIX):]
            if not index.isdigit() or int(index) >= len(built):
                raise SharedExpressionError(f"{x[REF]}: no shared expression written before its use "
                                            f"({len(built)} so far)")
            return built[int(index)]
        if isinstance(x, list):
            return [put(c) for c in x]
        if isinstance(x, dict):
            return {k: put(v) for k, v in x.items()}
        return x

    if not isinstance(table, list):
        raise SharedExpressionError(f"'{SHARED_FIELD}' is {type(table).__name__}, expected a list")
    for entry in table:
        built.append(put(entry))
    return {k: (put(v) if k in SHARED_PARTS else v) for k, v in record.items() if k != SHARED_FIELD}
