"""A search of an integer array argument for an element failing a test: the array copied to a vector
(``vector<int64_t> v(data, data + dims->Size())`` with ``data = dims->GetData()``), ``auto it =
std::find_if(v.cbegin(), v.cend(), [caps](int64_t d) { return C(d); })`` and the check that none was
found (``OP_CHECK(it == v.cend(), ..., return false)``): C's check of each element of the array
(aclnn_linalg_vector_norm.cpp:122-132). A lambda taking ``int`` converts each element to 32 bits
first: the calls with an element outside that range are left unread."""
from __future__ import annotations

import re

from aclnn_conformance.extract.cpp import SourceFile, Stmt, split_args
from aclnn_conformance.extract.host_code.model import (Event, Opaque, T, Unreadable, Walk, _cite, _enclosing_body,
                                                       _fail_status, _flat, _lin, _macro, _status_of, _strip)
import aclnn_conformance.extract.host_code.reenter as reenter
from aclnn_conformance.extract.host_code.conditions import _data_condition, _guarded_args

FOUND = "found-if"
_INT32 = (-2 ** 31, 2 ** 31 - 1)


def _int_array(w: Walk, held: object) -> T | None:
    return held if isinstance(held, T) and "IntArray" in w.ptypes.get(held.name, "") else None


def _array_copy(w: Walk, text: str, env: dict) -> tuple[str, T] | None:
    """``vector<int64_t> v(d, d + a->Size())`` with ``d`` holding ``a->GetData()`` (or written so)."""
    m = re.fullmatch(r"(?:std::)?vector\s*<\s*(?:int64_t|int32_t|int)\s*>\s+(\w+)\s*\((.*)\)", text, re.S)
    parts = split_args(m.group(2)) if m else []
    if len(parts) != 2:
        return None
    begin = _strip(parts[0])
    held = env.get(begin)
    data = held.text.strip() if isinstance(held, Opaque) else begin
    dm = re.fullmatch(r"(\w+)\s*->\s*GetData\(\)", data)
    arr = _int_array(w, env.get(dm.group(1))) if dm else None
    if arr is None or not re.fullmatch(rf"{re.escape(begin)}\s*\+\s*{re.escape(dm.group(1))}\s*->\s*Size\(\)",
                                       _strip(parts[1])):
        return None
    return m.group(1), arr


def _find_if(w: Walk, text: str, env: dict) -> tuple[str, tuple] | None:
    """``auto it = std::find_if(v.cbegin(), v.cend(), [caps](T d) { return C; })`` over an array copy."""
    m = re.fullmatch(r"(?:const\s+)?auto\s+(\w+)\s*=\s*(?:std::)?find_if\s*\((.*)\)", text, re.S)
    parts = split_args(m.group(2)) if m else []
    if len(parts) != 3:
        return None
    b = re.fullmatch(r"(\w+)\s*\.\s*c?begin\(\)", _strip(parts[0]))
    e = re.fullmatch(r"(\w+)\s*\.\s*c?end\(\)", _strip(parts[1]))
    lam = re.fullmatch(r"\[[\w\s,=&]*\]\s*\(\s*(?:const\s+)?(int64_t|int32_t|int|auto)\s*&?\s*(\w+)\s*\)\s*"
                       r"\{\s*return\s+(.+?)\s*;\s*\}", _strip(parts[2]), re.S)
    arr = _int_array(w, env.get(b.group(1))) if b else None
    if arr is None or not e or e.group(1) != b.group(1) or not lam:
        return None
    return m.group(1), (FOUND, b.group(1), arr, lam.group(1), lam.group(2), lam.group(3))


def _not_found_check(stmt: Stmt, env: dict, fail: int | None) -> tuple[tuple, int] | None:
    """``OP_CHECK(it == v.cend(), log, return X)`` or ``CHECK_RET(it == v.cend(), X)``: the search
    and the status of its failure."""
    mac = _macro(stmt.text.strip()) if stmt.kind == "call" else None
    if not mac or mac[0].split("::")[-1] not in ("OP_CHECK", "CHECK_RET") or len(mac[1]) < 2:
        return None
    m = re.fullmatch(r"(\w+)\s*==\s*(\w+)\s*\.\s*c?end\(\)", _strip(mac[1][0]))
    held = env.get(m.group(1)) if m else None
    if not (isinstance(held, tuple) and held[:1] == (FOUND,) and held[1] == m.group(2)):
        return None
    last = mac[1][-1].strip()
    code = _fail_status(last, fail) if mac[0].endswith("OP_CHECK") else \
        (fail if last == "false" else _status_of(last))
    return (held, code) if code is not None else None


def read_search(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """One statement of the search: the copy, the find_if, or the check (its rules)."""
    text = stmt.text.strip().rstrip(";").strip()
    if stmt.kind in ("decl", "call"):
        for read in (_array_copy, _find_if):
            got = read(w, text, env)
            if got is not None:
                env[got[0]] = got[1]
                return True
    found = _not_found_check(stmt, env, fail)
    if found is None:
        return False
    (_, vec, arr, ctype, param, cond), code = found
    marker = f"__elem_{vec}"
    env2 = dict(env)
    env2[marker] = arr
    if ctype == "int":   # each element converted to int first: the calls with one past 32 bits not judged
        wide = ("int", ("or", ("any-elem", arr.name, ("<", ("each",), _INT32[0])),
                              ("any-elem", arr.name, (">", ("each",), _INT32[1]))))
        path, line = _cite(src, stmt.offset)
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", wide),)), None, path,
                              line, f"an element of {arr.name} converted to int: {stmt.text}"[:160]))
    _data_condition(w, src, stmt.offset, re.sub(rf"\b{re.escape(param)}\b", marker, cond), env2, code,
                           " ".join(stmt.text.split())[:160])
    return True


def set_dup(w: Walk, src: SourceFile, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail ``int64_t x = d; x = (x < 0) ? (x + N) : x; OP_CHECK(s.find(x) == s.end(), ..., return
    false); s.insert(x);`` of a dim loop, ``s`` a ``std::set`` declared empty in the function and used
    nowhere else (aclnn_linalg_vector_norm.cpp:134-142): the wrapped dims are unique. Returns (the
    statements before it, (N's value, its value at rank 0, code)) or (inner, None)."""
    if len(inner) < 4:
        return inner, None
    d, b, c, ins = inner[-4:]
    dm = re.fullmatch(r"(?:const)?(?:auto|int64_t)(\w+)=@", _flat(d.text, elem)) if d.kind == "decl" else None
    x = re.escape(dm.group(1)) if dm else None
    bm = re.fullmatch(rf"{x}=\(?{x}<0\)?\?\(?(?:{x}\+(\w+)|(\w+)\+{x})\)?:{x}", _flat(b.text, elem)) if x else None
    mac = _macro(c.text.strip()) if bm and c.kind == "call" else None
    if not mac or mac[0].split("::")[-1] != "OP_CHECK" or len(mac[1]) != 3:
        return inner, None
    sm = re.fullmatch(rf"(\w+)\.find\({x}\)==(\w+)\.end\(\)", _flat(mac[1][0], elem))
    if not sm or sm.group(1) != sm.group(2) or not re.fullmatch(rf"{re.escape(sm.group(1))}\.insert\({x}\)",
                                                                 _flat(ins.text, elem)):
        return inner, None
    s = re.escape(sm.group(1))
    body = _enclosing_body(src, d.offset)
    if len(re.findall(rf"(?:std::)?set\s*<\s*int64_t\s*>\s+{s}\s*;", body)) != 1 or \
            len(re.findall(rf"\b{s}\b", body)) != 4:
        return inner, None
    try:
        ln = _lin(reenter.value(w, bm.group(1) or bm.group(2), env))
    except Unreadable:
        return inner, None
    code = _fail_status(mac[1][2], fail)
    if not (ln and ln[2] == 1 and ln[3] == 0) or code is None:
        return inner, None
    return inner[:-4], (ln, ln[4], code)
