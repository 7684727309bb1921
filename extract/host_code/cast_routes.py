"""The routes ``l0op::Cast`` has, per NPU architecture, read from the vendor's own cast.cpp (ops-math
``math/cast/op_api/cast.cpp``): a cast between two different dtypes runs on AiCore when the
architecture's pair lists hold the pair (``IsAiCoreSupport``), else on AICPU when both dtypes are in
the AICPU list (``IsAiCpuSupport``), else Cast returns null and the caller's ``CHECK_RET(x !=
nullptr, ...)`` fails with its status (ACLNN_ERR_INNER_NULLPTR for most). A cast to its own dtype
returns its input. The lists are read from the file; the dispatch of ``IsAiCoreSupport`` (which
lists an architecture reaches, in order) is interpreted from its statements; a shape of either that
this module does not know leaves the routes unread (None), and the reader keeps its older reading."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, statements
from aclnn_conformance.extract.opbase import Citation
from aclnn_conformance.extract.host_code.model import Unreadable, Walk, _Stop, _args, _check
from aclnn_conformance.extract.host_code.promotion import _dtype_values
from aclnn_conformance.spec.dtype_promotion import promote_type
from aclnn_conformance.spec.enums import AclDataType

CAST_FILE = "math/cast/op_api/cast.cpp"
EVERY_DTYPE = tuple(d.name for d in AclDataType)
REGBASE_ARCH = "DAV_3510"   # aclnn_check.h IsRegBase: arch == DAV_3510


@dataclass(frozen=True)
class CastRoutes:
    """What ``l0op::Cast`` can convert on each architecture the products run (``arch -> pairs``)."""
    repository: str
    commit: str
    path: str
    cast_line: int
    aicore: dict[str, frozenset[tuple[str, str]]]     # arch -> the AiCore pairs its dispatch reaches
    aicore_lines: dict[str, tuple[int, ...]]           # arch -> the lines of those lists
    aicpu: frozenset[str]
    aicpu_line: int

    def routed(self, arch: str, src: str, dst: str) -> bool:
        """Whether Cast(src -> dst) returns a tensor on ``arch`` (cast.cpp Cast: same dtype, AiCore,
        or two AICPU dtypes)."""
        return src == dst or (src, dst) in self.aicore.get(arch, frozenset()) or \
            (src in self.aicpu and dst in self.aicpu)

    def knows(self, arch: str) -> bool:
        return arch in self.aicore

    def citations(self, arch: str) -> tuple[Citation, ...]:
        lines = (self.cast_line, *self.aicore_lines.get(arch, ()), self.aicpu_line)
        return tuple(Citation(self.repository, self.commit, self.path, n) for n in lines)


def read_cast_routes(root: Path, repository: str, commit: str, archs: tuple[str, ...]) -> CastRoutes | None:
    """The routes of the checkout's cast.cpp for ``archs``; None when the checkout has no cast.cpp or
    its Cast, IsAiCoreSupport or IsAiCpuSupport is not of the shape read here."""
    path = root / CAST_FILE
    if not path.is_file():
        return None
    from aclnn_conformance.extract.cpp import read_source
    src = read_source(CAST_FILE, path.read_text(errors="replace"))
    cast = next((f for f in src.overloads.get("Cast", ()) if len(f.params) == 3), None)
    core, cpu = src.functions.get("IsAiCoreSupport"), src.functions.get("IsAiCpuSupport")
    if cast is None or core is None or cpu is None or not _cast_dispatches(cast):
        return None
    aicpu = _aicpu_list(src, cpu)
    if aicpu is None:
        return None
    aicore, lines = {}, {}
    for arch in archs:
        names = _aicore_lists(src, core, arch)
        if names is None:
            return None
        aicore[arch] = frozenset(p for n in names for p in src.pair_lists[n][0])
        lines[arch] = tuple(src.pair_lists[n][1] for n in names)
    return CastRoutes(repository, commit, CAST_FILE, cast.line, aicore, lines, frozenset(aicpu[0]), aicpu[1])


def _cast_dispatches(cast: Function) -> bool:
    """Cast(self, dstDtype, executor) returns self for its own dtype, then AiCore when
    IsAiCoreSupport, else null unless IsAiCpuSupport (cast.cpp:380-394)."""
    body = " ".join(cast.body.split())
    return bool(re.search(r"if \(self->GetDataType\(\) == dstDtype\) \{ return self; \}", body)) and \
        "if (IsAiCoreSupport(self, dstDtype))" in body and "CHECK_RET(IsAiCpuSupport(self, dstDtype), nullptr)" in body


def _aicpu_list(src: SourceFile, cpu: Function) -> tuple[tuple[str, ...], int] | None:
    """The one dtype list IsAiCpuSupport requires both dtypes in."""
    names = [n for n in src.lists if re.search(rf"\b{n}\b", cpu.body)]
    body = " ".join(cpu.body.split())
    # two searches of it, one for each dtype (cast.cpp:325-333)
    if len(names) != 1 or any(f"std::find({names[0]}.begin(), {names[0]}.end(), {x})" not in body
                              for x in ("self->GetDataType()", "dstDtype")):
        return None
    return src.lists[names[0]]


def _aicore_lists(src: SourceFile, core: Function, arch: str) -> list[str] | None:
    """The pair lists IsAiCoreSupport reaches on ``arch``, from its statements: a bool local set by a
    search of a list, ``if (arch test [&& local]) { return true; }`` (that list routes too, and the
    function goes on), ``if (arch test) { return search or local; }`` and a last ``return search``."""
    locals_: dict[str, str] = {}
    reached: list[str] = []
    for stmt in statements(core.body, core.body_offset):
        text = " ".join(stmt.text.split())
        if stmt.kind == "decl":
            m = re.match(r"(?:const )?(?:bool|auto) (\w+) =", text)
            named = _lists_in(src, text)
            if m and len(named) == 1:
                locals_[m.group(1)] = named[0]
            continue
        if stmt.kind == "if":
            holds, flag = _arch_test(stmt.cond, arch, locals_)
            if holds is None:
                return None
            if not holds:
                continue
            if len(stmt.then) != 1 or stmt.then[0].kind != "return" or stmt.orelse:
                return None
            returned = " ".join(stmt.then[0].text.split())
            if returned == "return true":
                if flag is None:
                    return None   # every pair routed on an arch: not a shape read here
                reached.append(flag)
                continue
            final = _returned_list(src, returned, locals_)
            return None if final is None else reached + ([flag] if flag else []) + [final]
        if stmt.kind == "return":
            final = _returned_list(src, text, locals_)
            return None if final is None else reached + [final]
        return None
    return None


def _lists_in(src: SourceFile, text: str) -> list[str]:
    return [n for n in src.pair_lists if re.search(rf"\b{n}\b", text)]


def _returned_list(src: SourceFile, text: str, locals_: dict[str, str]) -> str | None:
    """The list ``return std::find(L.begin(), L.end(), pair) != L.end()`` or ``return local`` names."""
    m = re.fullmatch(r"return (\w+);?", text)
    if m:
        return locals_.get(m.group(1))
    named = _lists_in(src, text)
    return named[0] if len(named) == 1 and "std::find" in text else None


def _arch_test(cond: str, arch: str, locals_: dict[str, str]) -> tuple[bool | None, str | None]:
    """Whether ``cond`` (a conjunction of arch tests and at most one list local) holds on ``arch``
    apart from the local, and the local's list; (None, None) for any other condition."""
    holds, flag = True, None
    for part in (p.strip() for p in cond.split("&&")):
        m = re.fullmatch(r"curArch == (?:op::)?NpuArch::(DAV_\d+)", part)
        if m:
            holds = holds and m.group(1) == arch
        elif re.fullmatch(r"(?:op::)?IsRegBase\(curArch\)", part):
            holds = holds and arch == REGBASE_ARCH
        elif part in locals_ and flag is None:
            flag = locals_[part]
        else:
            return None, None
    return holds, flag


def route_check(w: Walk, src: SourceFile, stmt: Stmt, held: tuple, code: int) -> bool:
    """``CHECK_RET(c != nullptr, code)`` with c ``l0op::Cast`` of ``held`` (("cast-of", source,
    destination, ...)): the rule that the pairs without a route on this product's arch fail with
    ``code``, among the dtypes each side can take past the checks read before. True when read (a
    rule, or no pair refused), False when the routes or either side's dtypes are not known."""
    routes = w.index.cast_routes
    if routes is None or not routes.knows(w.arch) or held[1] is None or held[2] is None:
        return False
    sources, targets = _reaching_dtypes(w, held[1]), _reaching_dtypes(w, held[2])
    if sources is None or targets is None:
        return False   # a side no check bounds: the pairs a call can bring there are not known
    refused = tuple((s, d) for s in sorted(sources) for d in sorted(targets) if not routes.routed(w.arch, s, d))
    if refused:
        mark = len(w.events)
        try:
            _check(w, src, stmt.offset, "cast_routed", _args(from_expr=held[1], to_expr=held[2], refused=refused),
                   code, stmt.text, cites=routes.citations(w.arch))
        except (Unreadable, _Stop):   # a dtype chosen on a condition not read: the routes stay unread
            del w.events[mark:]
            return False
    return True


def _reaching_dtypes(w: Walk, e: tuple) -> set[str] | None:
    """The dtypes ``e`` may take at the cast (``_dtype_values``), an API tensor's bounded also by the
    dtype checks read before that spare only some dtypes or the empty calls (``dtype_in`` of out
    "unless it is BOOL": its list and BOOL), which return before any cast; every dtype for an API
    tensor no check bounds; None for a computed dtype not bounded."""
    if e[0] == "if":
        a, b = _reaching_dtypes(w, e[2]), _reaching_dtypes(w, e[3])
        return None if a is None or b is None else a | b
    if e[0] == "promote":   # a pair not promoting (DT_UNDEFINED) leaves it unbounded
        a, b = _reaching_dtypes(w, e[1]), _reaching_dtypes(w, e[2])
        out = None if a is None or b is None else {promote_type(x, y) for x in a for y in b}
        return None if out is None or None in out else out
    if e[0] != "of":
        return _dtype_values(w, e)
    bounds = []
    for ev in w.events:
        a = ev.args_dict() if ev.kind == "check" and ev.template == "dtype_in" else {}
        if a.get("param") != e[1]:
            continue
        spared = _spared(a.get("when"), e[1])
        if spared is not None:
            bounds.append(set(a["dtypes"]) | spared)
    # an API tensor no check bounds may come with any dtype: the pairs a check before refuses are
    # refused there first, so naming them here changes no call's outcome
    return set.intersection(*bounds) if bounds else set(EVERY_DTYPE)


def _spared(when: tuple | None, name: str) -> set[str] | None:
    """The dtypes of ``name`` a check's guard spares when it is only "not empty" and "``name`` not one
    of S" conjuncts (S's union); None for any other guard."""
    if when is None:
        return set()
    parts = when[1:] if when[0] == "and" else (when,)
    spared: set[str] = set()
    for part in parts:
        inner = part[1] if part[0] == "not" and len(part) == 2 else None
        if inner is not None and inner[0] == "empty":
            continue
        if inner is not None and inner[0] == "in" and tuple(inner[1]) == ("of", name):
            spared |= set(inner[2])
            continue
        return None
    return spared
