"""The hand-written op_api, read per product: ``aclnnXxxGetWorkspaceSize`` walked statement by statement
(CheckParams and the helpers it calls inlined, the common helpers read from the checkout's headers),
with the product branches (``GetCurNpuArch()``, ``GetSocVersion()``, ``IsRegBase``) decided for one
product at a time. The walk yields, per product, the checks in the order they run, each a template of
``spec.templates`` with its arguments, status and citation, the empty-tensor early return, and
``unread`` wherever a construct is outside what the reader recognises (never a guess)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from aclnn_conformance.extract.infershape import InferShapeIndex, kernel_reduce_shape
from aclnn_conformance.extract.shape_helpers import (expand_to_size, leading_ones_to, normalised, one_dim_at_rank0,
                                                     reduced_dims_fill, split_half_of, split_halves,
                                                     wraps_dim_by_rank)
from aclnn_conformance.extract.cpp import (Function, SourceFile, Stmt, match_close, read_source, split_args,
                                           statements)
from aclnn_conformance.spec.dtype_promotion import promote_type
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.templates import int_leaves as templates_int_leaves, int_op

# product id -> (SocVersion, NpuArch) as opbase's platform.h names them
PRODUCT_PLATFORM: dict[str, tuple[str, str]] = {
    "ascend950": ("ASCEND950", "DAV_3510"),
    "atlas-a3": ("ASCEND910_93", "DAV_2201"),
    "atlas-a2": ("ASCEND910B", "DAV_2201"),
    "atlas-200i-500-a2": ("ASCEND310B", "DAV_3002"),
    "atlas-inference": ("ASCEND310P", "DAV_2002"),
    "atlas-training": ("ASCEND910", "DAV_1001"),
}
# opbase platform.h: enum class SocVersion, in declaration order (ASCEND950 = ASCEND910_95)
SOC_ORDER = ("ASCEND910", "ASCEND910B", "ASCEND910_93", "ASCEND950", "ASCEND910E", "ASCEND310",
             "ASCEND310P", "ASCEND310B", "ASCEND310C", "ASCEND610LITE", "KIRINX90", "KIRIN9030", "ASCEND350")
SOC_ALIASES = {"ASCEND910_95": "ASCEND950"}
REGBASE_HELPERS = {"IsRegBase", "IsRegbase"}   # aclnn_check.h / aclnn_util.h: arch == DAV_3510

STATUS_NAMES = {"ACLNN_SUCCESS": 0, "ACLNN_ERR_PARAM_NULLPTR": int(Status.ERR_PARAM_NULLPTR),
                "ACLNN_ERR_PARAM_INVALID": int(Status.ERR_PARAM_INVALID),
                "ACLNN_ERR_RUNTIME_ERROR": int(Status.ERR_RUNTIME_ERROR)}
for _s in Status:
    STATUS_NAMES.setdefault("ACLNN_" + _s.name, int(_s))
# the runtime's success code, which the vendor's own op_api unit tests compare every successful
# GetWorkspaceSize with (e.g. ops-math math/cross/tests/ut/op_api/test_aclnn_linalg_cross.cpp:57)
STATUS_NAMES["ACL_SUCCESS"] = 0
SUCCESS_NAMES = ("ACLNN_SUCCESS", "ACL_SUCCESS")
# A tensor's format: aclCreateTensor gives the view and the storage the one format it takes (opbase
# src/nnopbase/common/utils/common_types.cpp:195 and :208, ToOpFormat an identity), so the two are read alike.
FORMAT_OF = r"(\w+)\s*->\s*Get(?:Storage|View)Format\(\)"
PARAM_CODES = {int(Status.ERR_PARAM_NULLPTR), int(Status.ERR_PARAM_INVALID)}
IGNORED_CALLS = re.compile(r"^(?:OP_LOG[A-Z]*|L2_DFX_PHASE_\d|OP_LOGE_WITH_INVALID_INPUT\w*|"
                           r"OP_LOGW|OP_LOGI|OP_LOGD|ACL_LOG\w*|OP_API_\w*LOG\w*)\s*\(")


@dataclass(frozen=True)
class Event:
    kind: str                     # check | unread | unread-values | empty
    template: str                 # a spec.templates name ("" for unread)
    args: tuple                   # sorted (key, value) pairs, values JSON-able
    status: int | None
    path: str
    line: int
    text: str                     # the construct, one line

    def args_dict(self) -> dict[str, Any]:
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.args}


def _args(**kw: Any) -> tuple:
    return tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in kw.items()))


class Unreadable(Exception):
    """A construct outside the recognised subset."""


class FalseStatus(Unreadable):
    """A check whose failure is ``return false`` outside a bool check function: the status is the
    caller's to decide (in GetWorkspaceSize itself, false is 0: ACLNN_SUCCESS)."""


@dataclass(frozen=True)
class T:                          # a tensor (or scalar pointer) argument, by API parameter name
    name: str


@dataclass(frozen=True)
class DList:
    dtypes: tuple[str, ...]
    where: str


@dataclass(frozen=True)
class Opaque:
    text: str


@dataclass
class Index:
    """The functions, dtype lists and constants an op_api file can see: its own, then the common
    helpers of its repository."""

    own: SourceFile
    common: list[SourceFile]
    headers: list[SourceFile] = field(default_factory=list)   # the op's own headers it includes
    kernels: "KernelIndex | None" = None   # the checkout's l0op functions (their results' dtypes)

    def function(self, name: str) -> Function | None:
        name = name.split("::")[-1]
        if name in self.own.functions:
            return self.own.functions[name]
        for src in self.common:
            if name in src.functions:
                return src.functions[name]
        return None

    def source(self, fn: Function) -> SourceFile:
        return self.own if fn.path == self.own.path else next(s for s in self.common if s.path == fn.path)

    def _named_list(self, table: str, name: str) -> tuple[tuple, str] | None:
        """A list constant of the file or its common helpers by name (the first found), from the
        source table ``table`` (dtype, pair or format lists), and where it is defined."""
        name = name.split("::")[-1]
        for src in (self.own, *self.common):
            found = getattr(src, table)
            if name in found:
                items, line = found[name]
                return items, f"{src.path}:{line}"
        return None

    def dlist(self, name: str) -> DList | None:
        found = self._named_list("lists", name)
        return None if found is None else DList(*found)

    def pair_list(self, name: str) -> tuple[tuple[tuple[str, str], ...], str] | None:
        """A list of (dtype, dtype) pairs by name and where it is defined."""
        return self._named_list("pair_lists", name)

    def format_list(self, name: str) -> tuple[tuple[str, ...], str] | None:
        """A list of formats by name and where it is defined."""
        return self._named_list("format_lists", name)

    def constant(self, name: str) -> int | None:
        name = name.split("::")[-1]
        for src in (self.own, *self.common):
            if name in src.constants:
                return src.constants[name]
        found = _defined_constant(name, (self.own, *self.headers))
        return STANDARD_LIMITS.get(name) if found is None else found


# <cstdint> and <climits> limits the host code compares with (int 32 bits, the ABI the op_api builds for)
STANDARD_LIMITS = {"INT8_MIN": -2**7, "INT8_MAX": 2**7 - 1, "UINT8_MAX": 2**8 - 1,
                   "INT16_MIN": -2**15, "INT16_MAX": 2**15 - 1, "UINT16_MAX": 2**16 - 1,
                   "INT32_MIN": -2**31, "INT32_MAX": 2**31 - 1, "UINT32_MAX": 2**32 - 1,
                   "INT64_MIN": -2**63, "INT64_MAX": 2**63 - 1, "INT_MIN": -2**31, "INT_MAX": 2**31 - 1}


class KernelIndex:
    """The l0op functions of a checkout (``<family>/<op>/op_api/<name>.cpp`` and ``op_host/op_api``
    beside the aclnn files), read on first use. Overloads in one file are told apart by their
    parameter count; a name defined in two files, or twice with one count, is none."""

    def __init__(self, root: Path):
        self.root = root
        self._functions: dict[str, list[Function] | None] | None = None
        self._sources: dict[str, SourceFile] = {}
        self.infers = InferShapeIndex(root)   # the op_host infer functions (a reduction's result shape)

    def function(self, name: str, arity: int | None = None) -> Function | None:
        if self._functions is None:
            self._functions = {}
            files = sorted({*self.root.glob("*/*/op_api/*.cpp"), *self.root.glob("*/*/op_host/op_api/*.cpp")})
            for path in files:
                if path.name.startswith("aclnn_") or "experimental" in path.parts:
                    continue
                text = path.read_text(errors="replace")
                if "namespace l0op" not in text:
                    continue
                src = read_source(str(path.relative_to(self.root)), text)
                for fname, fns in src.overloads.items():
                    defined = len(re.findall(r"(?m)^[\w:<>\s\*&,]*?\b" + re.escape(fname) + r"\s*\(", text))   # a tuple's , too
                    self._functions[fname] = None if fname in self._functions or defined != len(fns) else fns
                    self._sources[fname] = src
        fns = self._functions.get(name.split("::")[-1])
        if not fns:
            return None
        fitting = [f for f in fns if arity is None or len(f.params) == arity]
        if not fitting and arity is not None:   # trailing parameters defaulted in the kernel's header
            fitting = [f for f in fns if len(f.params) > arity]
        return fitting[0] if len(fitting) == 1 else None

    def source_of(self, name: str) -> SourceFile | None:
        """The file that defines the kernel function ``name`` (its static helpers are there)."""
        return self._sources.get(name.split("::")[-1])


_DEFINE = r"(?m)^[ \t]*#[ \t]*define[ \t]+{}[ \t]+(\d+)[uUlL]*[ \t]*$"


def _defined_constant(name: str, sources) -> int | None:
    """``#define NAME 8``, or a member of an ``enum`` (its value given, or one more than the member
    before it, the first 0), in the op_api file or the op's own headers it includes (the first found)."""
    for src in sources:
        m = re.search(_DEFINE.format(re.escape(name)), src.text)
        if m:
            return int(m.group(1))
        value = _enum_member(name, src.text)
        if value is not None:
            return value
    return None


def _enum_member(name: str, text: str) -> int | None:
    """The value of the enumerator ``name`` of an ``enum`` of ``text`` whose enumerators before it are
    each given a decimal integer or none; None when no such enum names it, or two do."""
    found = []
    for m in re.finditer(r"\benum\s+(?:class\s+|struct\s+)?(?:\w+\s*)?(?::\s*[\w:]+\s*)?\{([^{}]*)\}", text):
        value = -1
        for member in (x.strip() for x in m.group(1).split(",") if x.strip()):
            one = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:=\s*(-?\d+))?", member)
            if not one:
                break   # an enumerator given an expression: those after it are not read
            value = int(one.group(2)) if one.group(2) is not None else value + 1
            if one.group(1) == name:
                found.append(value)
                break
    return found[0] if len(found) == 1 else None


@dataclass
class Walk:
    product: str
    index: Index
    events: list[Event] = field(default_factory=list)
    guards: list = field(default_factory=list)   # data-dependent branches taken (dtype guards)
    fn_guards: int = 0                             # len(guards) when the function walked began
    pending: list = field(default_factory=list)    # (guards, dtype) of its returns in such branches
    depth: int = 0
    ptypes: dict[str, str] = field(default_factory=dict)   # API parameter -> its C type
    api_depth: int = 1   # the depth of GetWorkspaceSize's body: deeper through ``return Common(...)``
    api_top: frozenset = frozenset()   # the offsets of GetWorkspaceSize's top-level statements
    top_guards: int = 0   # len(guards) when the top-level statement being walked began
    param_types: dict[str, str] = field(default_factory=dict)   # the walked function's parameter -> its C type

    @property
    def soc(self) -> str:
        return PRODUCT_PLATFORM[self.product][0]

    @property
    def arch(self) -> str:
        return PRODUCT_PLATFORM[self.product][1]


class _End(Exception):
    """An unconditional return: the function being walked ends here."""

    def __init__(self, value: Any = None):
        self.value = value


class _Stop(Exception):
    """The checks end: at the empty-tensor early return (``empty``), or at an unread construct."""

    def __init__(self, empty: bool = False):
        self.empty = empty


def walk_api(index: Index, fn: Function, bindings: dict[str, Any], product: str) -> list[Event]:
    """The events of GetWorkspaceSize ``fn`` on ``product``, in order."""
    w = Walk(product, index)
    w.ptypes = {b.name: t for p, t in zip(fn.params, fn.param_types) if isinstance(b := bindings.get(p), T)}
    w.api_top = frozenset(s.offset for s in statements(fn.body, fn.body_offset))
    try:
        _run_function(w, fn, bindings, fail=None, top=True)
    except _Stop:
        pass
    return w.events


# ---- functions and statements ----

def _call_fn(w: Walk, fn: Function, args: list[str], env: dict, fail: int | None) -> Any:
    """Inline a call of a function the checkout defines: its checks are events. A local passed to a
    non-const reference parameter (``DataType& promoteType``) holds, after the call, what the callee
    left in it."""
    if _recognised_helper(w, fn, args, env, fail):
        return True
    left: dict[str, Any] = {}
    result = _run_function(w, fn, _bind(w, fn, args, env), fail=fail, left=left)
    for param, arg, ctype in zip(fn.params, args, fn.param_types):
        name = arg.strip()
        if param in left and "&" in ctype and not ctype.lstrip().startswith("const") \
                and re.fullmatch(r"[A-Za-z_]\w*", name) and not isinstance(env.get(name), T):
            env[name] = left[param]
    return result


def _recognised_helper(w: Walk, fn: Function, args: list[str], env: dict, fail: int | None) -> bool:
    """A bool helper read whole (extract/shape_helpers.py), its parameters the API's own tensors and
    arguments (or what the reading requires of them: a wrapped dim, a rank): its rules, failing with
    the caller's status."""
    if fail is None or len(args) != len(fn.params):
        return False
    read = expand_to_size(fn) or split_halves(fn, w.index.function, w.index.constant) or \
        split_half_of(fn, w.index.constant)
    if read is None:
        return False
    held = {p: env.get(_strip(a)) for p, a in zip(fn.params, args)}
    names = {p: v.name for p, v in held.items() if isinstance(v, T)}
    attr_of = {}
    for p, t in read.wraps:   # the API's integer argument's dim of that tensor, wrapped by max(rank, 1)
        v = held.get(p)
        if not (isinstance(v, tuple) and v[:1] == ("wrapped-dim-max1",) and v[2] == names.get(t)):
            return False
        attr_of[p] = v[1]
    if any(held.get(p) != ("lin", names.get(t), 1, 0, 1) for p, t in read.ranks):
        return False

    def resolve(value: Any) -> Any:
        if isinstance(value, tuple) and value[:1] == ("attr-of",):
            return attr_of[value[1]]
        return names.get(value, value) if isinstance(value, str) else value
    used = [v for _, a in read.rules for v in a.values() if isinstance(v, str)]
    if any(v in fn.params and v not in names for v in used):
        return False
    src = w.index.source(fn)
    path, line = _cite(src, fn.body_offset)
    for i, (template, a) in enumerate(read.rules):
        if read.unread is not None and i == read.unread_at:
            guard = ("rank-zero", names[read.unread[1]])
            w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", guard),)), None, path, line,
                                  f"{fn.name}: {read.unread[0]}"))
        _check(w, src, fn.body_offset, template, _args(**{k: resolve(v) for k, v in a.items()}), fail,
               f"{fn.name}: {template}")
    return True


def _run_function(w: Walk, fn: Function, bindings: dict[str, Any], fail: int | None, top: bool = False,
                  left: dict | None = None) -> Any:
    if w.depth > 12:
        raise Unreadable(f"calls nested deeper than 12 at {fn.name}")
    w.depth += 1
    src = w.index.source(fn)
    env = dict(bindings)
    guards, outer = len(w.guards), (w.fn_guards, w.pending)
    w.fn_guards, w.pending = guards, []
    returns, w.returns = getattr(w, "returns", ""), fn.returns
    param_types, w.param_types = w.param_types, dict(zip(fn.params, fn.param_types))
    try:
        _run_block(w, src, statements(fn.body, fn.body_offset), env, fail, top)
    except _End as end:
        return _returned(w, end.value)
    except _Stop as stop:
        stop.returned = False   # the caller's statements after this call are reachable again
        raise
    finally:
        w.depth -= 1
        del w.guards[guards:]
        w.fn_guards, w.pending = outer
        w.returns = returns
        w.param_types = param_types
        if left is not None:
            left.update(env)
    return None


def _cite(src: SourceFile, offset: int) -> tuple[str, int]:
    return src.path, src.line_of(offset)


def _true_unless_false(stmt: Stmt, rest: tuple[Stmt, ...]) -> bool:
    """``if (C) { return true; }`` followed (or else-ed) only by logs and ``return false;``: a bool
    check of C."""
    if stmt.kind != "if" or len(stmt.then) != 1 or stmt.then[0].kind != "return" \
            or stmt.then[0].text.strip().rstrip(";").strip() != "return true":
        return False
    after = stmt.orelse or rest
    if not after:
        return False
    *logs, last = after
    return last.kind == "return" and last.text.strip().rstrip(";").strip() == "return false" and \
        all(s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) for s in logs)


def _unread(w: Walk, src: SourceFile, stmt_offset: int, text: str, status: int | None = None,
            reached: Any = None) -> None:
    """An unread construct: every call reaching it is not judged (``reached``: the guard of the calls
    that do, where the others returned before it)."""
    path, line = _cite(src, stmt_offset)
    args = (("when", reached),) if reached is not None else ()
    w.events.append(Event("unread", "", args, status, path, line, " ".join(text.split())[:160]))


def _reaching(w: Walk) -> Any:
    """The guard of the calls that reach the top-level statement of GetWorkspaceSize being walked: each
    guard in force when it began is the negation of a branch that returned before it (the empty-tensor
    return aside: the unread rule's ``unless_empty``); None when there is none (a guard pushed inside
    the statement, in a branch or a callee, says which calls take that side, not which reach what
    follows)."""
    if w.api_depth != 1:
        return None
    guards = [g for g in w.guards[:w.top_guards] if not (g[:1] == ("not",) and g[1][:1] == ("empty",))]
    return None if not guards else guards[0] if len(guards) == 1 else ("and", *guards)


def _check(w: Walk, src: SourceFile, offset: int, template: str, args: tuple, status: int | None,
           text: str) -> None:
    path, line = _cite(src, offset)
    if template == "product" and w.guards:   # every call taking the branches: the rule their guards say
        atom = _guard_atom(w.guards[0] if len(w.guards) == 1 else ("and", *w.guards))
        if atom is None:
            raise Unreadable("a failure of every call taking a data-dependent branch")
        template, args = atom
    elif w.guards:
        args = _guarded_args(w, template, args)
    _decided(args)
    w.events.append(Event("check", template, args, status, path, line, " ".join(text.split())[:160]))


def _decided(args: Any) -> None:
    """No rule carries a dtype chosen on an undecided condition (spec.templates has no reading of it)."""
    if isinstance(args, tuple) and args[:1] == ("undecided",):
        raise Unreadable(f"a dtype chosen on the condition {args[1]!r}")
    for x in args if isinstance(args, tuple) else ():
        _decided(x)


def _run_block(w: Walk, src: SourceFile, stmts: tuple[Stmt, ...], env: dict, fail: int | None,
               top: bool) -> None:
    for i, stmt in enumerate(stmts):
        if w.depth == 1 and stmt.offset in w.api_top:
            w.top_guards = len(w.guards)
        guard = _null_guard(w, stmt, env) or _false_status_null_guard(w, stmt, env, fail)
        if guard is not None:
            _run_guarded(w, src, stmts[i + 1:], env, fail, top, guard)
            return
        if _true_unless_false(stmt, stmts[i + 1:]) and fail is not None:
            # ``if (C) { return true; } log; return false;``: the function fails when C does not hold
            _data_condition(w, src, stmt.offset, f"!({stmt.cond.strip()})", env, fail, f"if ({stmt.cond.strip()})")
            raise _End(True)
        try:
            _run_stmt(w, src, stmt, env, fail, top)
        except _Stop as stop:
            stop.at = stmt   # the statement of this block where the checks end (an outer block's overrides)
            if stmt.kind == "return":   # the stop came through a return: the rest of the function is not reached
                stop.returned = True
            if getattr(stop, "returned", False):
                raise
            if stop.empty and _run_after_empty(w, src, stmt, stmts[i + 1:], env, fail, top, stop):
                return
            if stop.empty:
                _scan_after_empty(w, src, stmts[i + 1:])
            raise
        except Unreadable as exc:
            if isinstance(exc, FalseStatus) and top and w.depth == w.api_depth:
                # GetWorkspaceSize returning false returns 0: a call failing the check succeeds
                # without the kernel; the statuses after it are read on, the values are not judged
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", (), None, path, line,
                                      f"returns false (ACLNN_SUCCESS) from GetWorkspaceSize: {stmt.text}"[:160]))
                continue
            if _status_neutral_return(w, src, stmt, stmts[i + 1:], env, fail, top):
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", (), None, path, line,
                                      " ".join(f"a branch on {stmt.cond.strip()!r} that returns success "
                                               f"before the kernel, no parameter check after it".split())[:160]))
                continue
            _unread(w, src, stmt.offset, f"{exc}: {stmt.text}", reached=_reaching(w))
            stop = _Stop()
            stop.at = stmt
            raise stop from None


def _status_neutral_return(w: Walk, src: SourceFile, stmt: Stmt, rest: tuple[Stmt, ...], env: dict,
                           fail: int | None, top: bool) -> bool:
    """``if (C) { *workspaceSize = 0; ...; return ACLNN_SUCCESS; }`` in GetWorkspaceSize on a condition
    the reader does not read, with no parameter check after it: every call succeeds either way, so the
    statuses are read on; whether the kernel runs (the values) depends on C: not judged."""
    after_empty = all(g[:1] == ("not",) and g[1][:1] == ("empty",) for g in w.guards)   # or no guard
    return (stmt.kind == "if" and w.depth == w.api_depth and after_empty and _success_exits(stmt, w)
            and (_first_param_check(rest, w) is None or _reads_no_check(w, src, rest, env, fail, top)))


def _reads_no_check(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None,
                    top: bool) -> bool:
    """The reader walks ``rest`` to its end and finds no check in it (the text names a parameter
    status only for what the reader knows is none: a kernel's result, a cast it bounds). The trial's
    events are dropped; the walk goes on from the caller."""
    mark, guards, pending = len(w.events), list(w.guards), list(w.pending)
    clean = True
    try:
        _run_block(w, src, rest, dict(env), fail, top)
    except (_Stop, _End):
        pass
    except Unreadable:
        clean = False
    finally:
        clean = clean and not any(e.kind in ("check", "unread", "empty") for e in w.events[mark:])
        del w.events[mark:]
        w.guards[:], w.pending[:] = guards, pending
    return clean


def _success_exits(stmt: Stmt, w: Walk) -> bool:
    """``if (A) {...; return ACLNN_SUCCESS;} else if (B) {...; return ACLNN_SUCCESS;}``: every branch a
    success return with no parameter check before it (a missing else falls through)."""
    if not _empty_exit(stmt.then, w):
        return False
    if not stmt.orelse:
        return True
    if len(stmt.orelse) == 1 and stmt.orelse[0].kind == "if":
        return _success_exits(stmt.orelse[0], w)
    return _empty_exit(stmt.orelse, w)


def _run_after_empty(w: Walk, src: SourceFile, stmt: Stmt, rest: tuple[Stmt, ...], env: dict,
                     fail: int | None, top: bool, stop: _Stop) -> bool:
    """The empty-tensor return of GetWorkspaceSize itself, or of a status function its body calls
    (``CheckParams`` returning success early: GetWorkspaceSize goes on for both): the checks after it
    are read for the calls not taking it (``when`` not empty). Kept only when the reading gets at least
    as far as the scan's first parameter check; else (an unread construct of the compute path before
    it) the scan's reading stands."""
    if not (w.depth in (w.api_depth, w.api_depth + 1) and getattr(stop, "origin", None) is stmt
            and not w.guards):
        return False
    first = _first_param_check(rest, w)
    if first is None:
        return False
    mark, guards = len(w.events), len(w.guards)
    w.guards.append(("not", stop.guard))
    ended = None
    try:
        _run_block(w, src, rest, env, fail, top)
    except (_Stop, _End) as exc:
        ended = exc
    finally:
        del w.guards[guards:]
    unread = [e for e in w.events[mark:] if e.kind == "unread"]
    at = getattr(ended, "at", None)   # the statement of ``rest`` where the reading stopped
    before = rest.index(at) < rest.index(first) if at in rest else \
        unread and (unread[0].path != src.path or unread[0].line < src.line_of(first.offset))
    if unread and before:
        del w.events[mark:]
        return False
    if ended is not None:
        raise ended
    return True


def _checks_params(w: Walk | None, text: str, depth: int = 0) -> bool:
    """``text`` makes a parameter check: by itself, or in a function of the checkout it calls that
    fails with a parameter status (followed three calls deep; a bool helper's ``return false`` is no
    failure by itself)."""
    pattern = r"ACLNN_ERR_PARAM_\w+|OP_CHECK_(?!ADD_TO|INFERSHAPE)\w+|\breturn\s+false\b" if depth == 0 \
        else r"ACLNN_ERR_PARAM_\w+"
    if re.search(pattern, text):
        return True
    if w is None or depth >= 3:
        return False
    for callee in set(re.findall(r"([A-Za-z_][\w:]*)\s*\(", text)):
        fn = w.index.function(callee)
        # a status named in a log (OP_LOGE(ACLNN_ERR_PARAM_INVALID, ...)) is no failure by itself; the
        # log alone is dropped, a check's return after it inside the macro's arguments is kept
        if fn is not None and _checks_params(w, normalised(fn), depth + 1):
            return True
    return False


def _first_param_check(rest: tuple[Stmt, ...], w: Walk | None = None) -> Stmt | None:
    for stmt in rest:
        if _checks_params(w, stmt.text + "".join(s.text for s in _flatten(stmt.then + stmt.orelse))):
            return stmt
    return None


def _scan_after_empty(w: Walk, src: SourceFile, rest: tuple[Stmt, ...]) -> None:
    """Parameter checks after the empty-tensor return (or after the reader stopped) are unread,
    those made in a function it calls too."""
    stmt = _first_param_check(rest, w)
    if stmt is not None:
        _unread(w, src, stmt.offset, "a parameter check after the checks the reader follows: " + stmt.text)


def _flatten(stmts: tuple[Stmt, ...]) -> list[Stmt]:
    out = []
    for s in stmts:
        out.append(s)
        out += _flatten(s.then + s.orelse)
    return out


def _status_of(text: str) -> int | None:
    text = text.strip().split("::")[-1]
    return STATUS_NAMES.get(text)


def _fail_status(ret_expr: str, fail: int | None) -> int | None:
    """The status a macro's ``return_expr`` gives: ``return false`` -> the caller's, else the code."""
    m = re.match(r"\s*return\s+(.*?)\s*;?\s*$", ret_expr, re.S)
    if not m:
        raise Unreadable(f"return expression {ret_expr.strip()!r}")
    value = m.group(1).strip()
    if value in ("false", "nullptr"):
        if fail is None:
            raise FalseStatus("a failure whose status the caller decides, outside a checked call")
        return fail
    code = _status_of(value)
    if code is None:
        raise Unreadable(f"return of {value!r}")
    return code


def _macro(text: str) -> tuple[str, list[str]] | None:
    m = re.match(r"([A-Za-z_][\w:]*)\s*\(", text)
    if not m:
        return None
    close = match_close(text, m.end() - 1)
    if close < 0:
        return None
    return m.group(1), split_args(text[m.end():close])


def _run_stmt(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> None:
    text = stmt.text.strip()
    if stmt.kind == "block":
        _run_block(w, src, stmt.then, env, fail, top)
        return
    if stmt.kind == "if":
        _run_if(w, src, stmt, env, fail, top)
        return
    if stmt.kind == "other":
        if (text.startswith("switch") and _run_switch(w, src, stmt, env, fail, top)) or \
                _run_array_loop(w, src, stmt, env, fail) or _numel_loop(w, stmt, env) or \
                _copy_loop(w, src, stmt, env) or _slice_loop(w, src, stmt, env) or \
                _slice_compare_loop(w, src, stmt, env, fail) or \
                _batch_broadcast_loop(w, src, stmt, env, fail) or _append_dims_loop(w, src, stmt, env) or \
                _negative_dim_loop(w, src, stmt, env, fail):
            return
        if re.search(r"ACLNN_ERR_PARAM_\w+|OP_CHECK_\w+|return\s+false", text):
            raise Unreadable("a loop or switch with checks")
        _forget_in_text(text, env)
        return
    if stmt.kind == "return":
        _run_return(w, src, stmt, env, fail)
        return
    if IGNORED_CALLS.match(text) or text.startswith(("(void)", "static_cast<void>")):
        return
    if _set_dim(w, stmt, env) or _append_dim(w, stmt, env):
        return
    mac = _macro(text) if stmt.kind == "call" else None
    if mac:
        name, args = mac
        short = name.split("::")[-1]
        if short in CHECK_MACROS:
            CHECK_MACROS[short](w, src, stmt, env, fail, args)
            return
        if short == "CHECK_RET":
            _run_check_ret(w, src, stmt, env, args, fail)
            return
        if short == "OP_CHECK_COMM_INPUT":
            for a, p in zip(args, ("workspaceSize", "executor")):
                _check(w, src, stmt.offset, "null", _args(param=p), int(Status.ERR_PARAM_NULLPTR), text)
            return
        if short == "OP_CHECK":
            cond, ret = args[0], args[-1]
            code = _fail_status(ret, fail)
            if code not in PARAM_CODES:
                return  # an inner failure (561xxx, e.g. the executor's creation): not a parameter check
            if _infer_broadcast(w, src, stmt, env, "!" + _strip(cond), code):
                return
            _data_condition(w, src, stmt.offset, f"!({cond})", env, code, text)
            return
        if short == "BroadcastInferShape" and _dropped_broadcast(w, src, stmt, env, args):
            return
        fn = w.index.function(name)
        if fn is not None and _reduce_shape_call(w, fn, args, env):
            _forget_if_mutated(src, stmt, env, _strip(args[-1]))
            return
        if fn is not None and _reduced_dims_call(w, fn, args, env):
            return
        if fn is not None and _is_checker(fn) and not _warns_only(fn):
            raise Unreadable(f"a checking call {short} whose result is dropped")
        _unknown_call(w, short, text)
        return  # a call of the compute path (l0op::..., executor setup)
    _run_decl(w, src, stmt, env)


def _warns_only(fn: Function) -> bool:
    """A void function whose every statement is a log or ``OP_CHECK_NO_RETURN(cond, OP_LOGx(...))``
    (op_log.h: if (!(cond)) log_func): it only logs, it never fails."""
    if fn.returns.split()[-1] != "void":
        return False
    for stmt in statements(fn.body, fn.body_offset):
        text = stmt.text.strip()
        mac = _macro(text) if stmt.kind == "call" else None
        if mac and mac[0] == "OP_CHECK_NO_RETURN" and len(mac[1]) == 2 and \
                re.fullmatch(r"OP_LOG[DIWE]\s*\(.*\)", mac[1][1].strip(), re.S) and "return" not in text:
            continue
        if stmt.kind == "call" and IGNORED_CALLS.match(text) and "return" not in text:
            continue
        return False
    return True


def _is_checker(fn: Function) -> bool:
    return bool(re.search(r"OP_CHECK_\w+|ACLNN_ERR_PARAM|return\s+false", fn.body))


def _run_decl(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> None:
    text = stmt.text.strip()
    compound = re.fullmatch(r"([A-Za-z_]\w*)\s*([-+*/%]|<<|>>|[|&^])=\s*(.+?);?", text, re.S)
    if compound and compound.group(1) in env:   # ``x += e``: x = x + (e), unknown when not arithmetic read
        name, op, rhs = compound.groups()
        try:
            env[name] = _value(w, f"{name} {op} ({rhs})", env) if op in "+-*/%" else Opaque(text)
        except Unreadable:
            env[name] = Opaque(text)
        return
    # a type with template arguments (``op::FVector<int64_t, op::MAX_DIM_NUM> v = ...``) too
    m = re.match(r"(?:(?:static|const|constexpr|auto|[\w:]+<[^<>;=(){}]*>|std::[\w:<>]+|op::\w+|[\w:]+)[\s\*&]+)*"
                 r"([A-Za-z_]\w*)\s*=\s*(.+)$", text, re.S)
    if not m and _string_local(w, text, env) is not None:   # std::string mode(approximate);
        name, held = _string_local(w, text, env)
        env[name] = held
        return
    if not m:
        if re.search(r"ACLNN_ERR_PARAM_\w+|OP_CHECK_\w+", text):
            raise Unreadable("a statement with checks")
        return
    name, rhs = m.group(1), m.group(2).strip()
    built = _brace_shape(w, text, rhs, env)
    if built is not None:
        env[name] = built
        _forget_if_mutated(src, stmt, env, name)
        return
    string = _string_local(w, text, env)
    if string is not None:
        env[string[0]] = string[1]
        return
    for read in (lambda: _select_local(w, rhs, env), lambda: _scalar_local(text, env),
                 lambda: _view_copy(rhs, env), lambda: _shape_vector(w, rhs, env),
                 lambda: _kernel_result(w, rhs, env), lambda: _broadcast_to_helper(w, rhs, env),
                 lambda: _one_dim_at_rank0_local(w, rhs, env), lambda: _helper_tensor(w, rhs, env),
                 lambda: _made_local(w, rhs, env, name),
                 lambda: _vector_array(rhs, env),
                 lambda: _dims_local(w, src, stmt, rhs, env), lambda: _lambda_like(rhs, env),
                 lambda: _kernel_choice(w, rhs, env), lambda: _choice_like(w, rhs, env)):
        held = read()
        if held is not None:
            env[name] = held
            _forget_if_mutated(src, stmt, env, name)
            return
    call = _macro(rhs)
    if call:
        fn = w.index.function(call[0])
        if fn is not None and fn.returns.endswith("aclnnStatus"):
            env[name] = ("status-of", _call_status(w, fn, call[1], env, src, stmt))
            return
        reduced = _reduce_shape_value(w, fn, call[1], env) if fn is not None else None
        if reduced is not None:
            env[name] = reduced
            _forget_if_mutated(src, stmt, env, name)
            return
        if fn is not None:   # a helper filling a vector with reduced dims: its value is read below
            _reduced_dims_call(w, fn, call[1], env)
    try:
        env[name] = _value(w, rhs, env)
    except Unreadable:
        env[name] = _dtype_or_opaque(w, rhs, env)
    if not _split_shape(w, src, stmt, env, name):
        _forget_if_mutated(src, stmt, env, name)


def _brace_shape(w: Walk, text: str, rhs: str, env: dict) -> tuple | None:
    """``op::Shape s = {a, b};`` (or ``auto s = op::Shape{a, b};``) with each dim a constant or a dim
    of an API tensor: ("built-shape", dims), each dim an int or (tensor, scale, offset) as
    ``shape_is`` takes them; None otherwise."""
    typed = re.fullmatch(r"(?:op|gert)::Shape\s*(\{.*\})", rhs, re.S)   # ``auto s = op::Shape{0};``
    rhs = typed.group(1) if typed else rhs
    if not (typed or re.match(r"(?:const\s+)?(?:op|gert)::Shape\s", text)) or \
            not (rhs.startswith("{") and rhs.endswith("}")) or rhs.count("{") != 1 or rhs.count("}") != 1:
        return None
    dims = []
    for a in split_args(rhs[1:-1]):
        d = _int_constant(w, a) if _int_constant(w, a) is not None else _dim_value(w, _strip(a), env)
        if d is None:
            return None
        dims.append(d if _is_int(d) else tuple(d[1:]))
    return ("built-shape", tuple(dims)) if dims else None


def _split_shape(w: Walk, src: SourceFile, stmt: Stmt, env: dict, name: str) -> bool:
    """``op::Shape s = t->GetViewShape();`` followed by ``int64_t v = s.GetDim(d) / N; s.SetDim(d, v);``
    with d an integer argument's dim of t, wrapped, and no other change of s: ``s`` holds t's shape
    with that dim divided by N (``("split-shape", t, attr, N)``)."""
    value = env.get(name)
    fn = _enclosing_function(src, stmt.offset)
    if not (isinstance(value, tuple) and value[:1] == ("shape-of",)) or fn is None:
        return False
    rest = fn.body[stmt.offset - fn.body_offset + len(stmt.text):]
    n, idx = re.escape(name), r"(?:static_cast<\s*size_t\s*>\(\s*)?(\w+)\s*\)?"
    m = re.match(rf";?\s*(?:int64_t|auto)\s+(\w+)\s*=\s*{n}\s*\.\s*GetDim\(\s*{idx}\)\s*/\s*(\w+)\s*;"
                 rf"\s*{n}\s*\.\s*SetDim\(\s*{idx}\s*,\s*\1\s*\)\s*;", rest)
    if not m or m.group(2) != m.group(4):
        return False
    after = rest[m.end():]
    if re.search(rf"\b{n}\s*(?:\.\s*(?:Set\w*|Append\w*)\s*\(|=(?!=)|\[)|&\s*{n}\b", after):
        return False
    held = env.get(m.group(2))
    by = int(m.group(3)) if m.group(3).isdigit() else w.index.constant(m.group(3))
    if not (isinstance(held, tuple) and held[:1] == ("wrapped-dim",) and held[2] == value[1] and by):
        return False
    env[name] = ("split-shape", value[1], held[1], by)
    return True


def _expr_rank_tensor(expr: tuple) -> str | None:
    """The tensor whose rank a shape expression has, when it is one tensor's shape with dims set."""
    while expr[0] == "set-dim":
        expr = expr[1]
    return expr[1] if expr[0] == "of" else None


def _expr_min_rank(w: Walk, expr: tuple) -> int:
    """The least rank the shape expression has on every call reaching this point (its tensors' ranks
    refused below a bound by earlier checks; a broadcast has the larger rank of its two, a choice the
    smaller)."""
    if expr[0] == "of":
        return _min_rank_checked(w, expr[1])
    if expr[0] == "set-dim":
        return _expr_min_rank(w, expr[1])
    if expr[0] == "dims":
        return len(expr[1])
    if expr[0] == "slice":   # its length where that is a constant (a slice exists only in its shape)
        return max(expr[3], 0) if _is_int(expr[3]) else 0
    if expr[0] == "?":   # either side
        return min(_expr_min_rank(w, expr[2]), _expr_min_rank(w, expr[3]))
    if expr[0] == "tile":   # at least the shape's rank (the array's length where it has a tile)
        return _expr_min_rank(w, expr[1])
    if expr[0] == "concat":   # the dims of both
        return _expr_min_rank(w, expr[1]) + _expr_min_rank(w, expr[2])
    return max(_expr_min_rank(w, expr[1]), _expr_min_rank(w, expr[2]))   # a broadcast


def _set_dim_index(w: Walk, text: str, name: str, expr: tuple, env: dict) -> int | None:
    """The dim ``s.SetDim`` names, as ``shape_value`` counts it (negative: from the end): a constant,
    ``s.GetDimNum() - k``, or ``rank - k`` with rank that of the tensor whose rank s has."""
    m = re.fullmatch(rf"(?:static_cast<\s*size_t\s*>\s*)?\(?\s*{re.escape(name)}\s*\.\s*GetDimNum\(\)\s*-\s*(\d+)\s*\)?",
                     _strip(text))
    if m:
        return -int(m.group(1)) if int(m.group(1)) > 0 else None
    constant = _int_constant(w, text)
    if constant is not None:
        return constant if constant >= 0 else None
    try:
        index = _value(w, text, env)
    except Unreadable:
        return None
    li = _lin(index)
    if li and li[1] == _expr_rank_tensor(expr) and li[2] == 1 and li[3] < 0:
        return li[3]
    return None


# ops-math math/cast/op_api/cast.cpp:276-279: l0op::Cast falls back to AICPU for any pair of these
# (:387-392), so a cast between two of them is never null; outside them it depends on the arch's
# AICORE pairs (:283-323), which the reader does not model
CAST_ALWAYS = frozenset({"BOOL", "FLOAT", "FLOAT16", "INT8", "INT16", "UINT16", "UINT8", "INT32", "INT64",
                         "UINT32", "UINT64", "DOUBLE", "COMPLEX64", "COMPLEX128", "BF16"})


def _kernel_result(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``l0op::K(args...)``: ("tensor-dtype", dtype expression) when K allocates the one tensor it
    returns with an argument's dtype or a constant (``executor->AllocTensor(..., self->GetDataType(),
    ...)``); ``l0op::Cast(x, D, executor)``: ("cast-of", x's dtype or None, D). None otherwise."""
    converted = _converted_scalar(w, rhs, env) or _scalar_tensor(w, rhs, env)
    if converted is not None:
        return converted
    call = _macro(rhs)
    if not call or not call[0].startswith("l0op::") or match_close(rhs, rhs.index("(")) != len(rhs) - 1:
        return None
    args = call[1]
    if call[0] == "l0op::Reshape" and len(args) == 3:   # a new shape, the same dtype (reshape.h:18-34)
        d, shape = _tensor_dtype(w, args[0], env), env.get(_strip(args[1]))
        if isinstance(shape, tuple) and shape[:1] == ("dims-vector",):
            return ("tensor-dtype", d, shape[1])   # reshaped to the dims a helper computed
        if _shape_expr_of(shape) is not None and shape[0] == "shape-expr":
            return ("tensor-dtype", d, shape)   # reshaped to a shape local the walk holds
        return None if d is None else ("tensor-dtype", d)
    if call[0] == "l0op::BroadcastTo" and len(args) == 3:
        broadcast = _broadcast_to_shape(w, args, env)
        if broadcast is not None:
            return broadcast
    if call[0] == "l0op::Fill" and len(args) == 4:
        # a tensor of the dims the int array holds, of the value's dtype (fill.cpp:85-93)
        shape = env.get(_strip(args[2]))
        if isinstance(shape, tuple) and shape[:1] == ("dims-vector",):
            return ("tensor-dtype", _tensor_dtype(w, args[1], env), shape[1])
        return None
    if call[0] == "l0op::UnsqueezeNd" and len(args) == 3:
        # x itself or a view of it (unsqueeze.cpp:55-74): x's dtype, its shape read for rank 0 only
        d = _tensor_dtype(w, args[0], env)
        return _unsqueezed_rank0(w, args, env) or _unsqueezed_at(w, args, env) or \
            (None if d is None else ("tensor-dtype", d))
    if call[0] == "l0op::Tile" and len(args) == 3:
        return _tiled(w, args, env)
    if call[0] == "l0op::Cast" and len(args) == 3:
        like = _shape_like(env.get(_strip(args[0])))
        if like is None and _tensor_shape_expr(env.get(_strip(args[0]))) is not None:
            like = ("shape-expr", _tensor_shape_expr(env.get(_strip(args[0]))))   # a cast keeps the shape
        try:
            dst = _dexpr_of(w, args[1], env)
        except Unreadable:   # a dtype not read: the cast still keeps its source's shape
            return None if like is None else ("cast-of", _tensor_dtype(w, args[0], env), None, like)
        return ("cast-of", _tensor_dtype(w, args[0], env), dst, like)
    fn = w.index.kernels.function(call[0], len(args)) if w.index.kernels is not None else None
    if fn is None or len(fn.params) < len(args):
        return None
    result = _allocated_dtype(fn, w.index.kernels.source_of(call[0]))
    shape = _kernel_shape(w, fn, args, env) or _kernel_chosen_shape(w, fn, args, env) or \
        _kernel_alloc_shape(w, fn, args, env) or _kernel_broadcast_shape(w, fn, args, env)
    elements = _tuple_dtypes(fn, w.index.kernels.source_of(call[0])) if result is None else None
    if elements is not None:   # a tuple of tensors: each element's dtype from the arguments
        return ("tensor-tuple", tuple(_argument_dtype(w, fn, args, env, e) for e in elements), shape)
    if result is None:   # a dtype chosen on the arguments' dtypes (Mul's mixed float types), or not read
        chosen = _chosen_alloc_dtype(w, fn, args, env)
        return ("tensor-dtype", chosen, shape) if chosen is not None else \
            None if shape is None else ("tensor-dtype", None, shape)
    if result[0] == "dtype":
        return ("tensor-dtype", result, shape)
    param = fn.params.index(result[1])
    if param >= len(args):   # a defaulted parameter decides it: not read
        return None
    if result[0] == "of":
        d = _tensor_dtype(w, args[param], env)
    else:   # a DataType argument
        try:
            d = _dexpr_of(w, args[param], env)
        except Unreadable:
            d = None
    if d is None:   # its dtype unknown: its shape may still be
        return None if shape is None else ("tensor-dtype", None, shape)
    return ("tensor-dtype", d, shape)


def _broadcast_to_shape(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::BroadcastTo(x, a, executor)`` with ``a`` an int array of dims the walk holds as a shape
    expression: a tensor of x's dtype and those dims (ops-math conversion/broadcast_to/op_api/
    broadcast_to.cpp:94-104 infers it; op_host/broadcast_to_infershape.cpp:55-100 gives the array's
    dims where x broadcasts to them, and else the kernel fails: a kernel's failure, not read); None
    otherwise."""
    held = env.get(_strip(args[1]))
    shape = held[1][1] if isinstance(held, tuple) and held[:1] == ("dims-vector",) and \
        isinstance(held[1], tuple) and held[1][:1] == ("shape-expr",) else None
    return None if shape is None else ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", shape))


_BROADCAST_INTO = (r"OP_CHECK_BROADCAST_AND_INFER_SHAPE\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(\w+)\s*,\s*return\s+nullptr\s*\)\s*;?"
                   r"|if\s*\(\s*!\s*(?:op::)?BroadcastInferShape\(\s*(\w+)\s*->\s*GetViewShape\(\)\s*,\s*(\w+)\s*->\s*"
                   r"GetViewShape\(\)\s*,\s*(\w+)\s*\)\s*\)")


def _kernel_broadcast_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("shape-expr", ["broadcast", A, B]) when kernel ``fn`` returns one tensor, allocated once with
    the shape its first statements infer by broadcasting two tensor parameters' view shapes (``Shape
    s; OP_CHECK_BROADCAST_AND_INFER_SHAPE(a, b, s, return nullptr);`` or ``if (!BroadcastInferShape(
    a->GetViewShape(), b->GetViewShape(), s)) { ...; return nullptr; }``, ops-math math/mul/op_api/
    mul.cpp:136-146, add.cpp:101-117), A and B the arguments' held shapes, and nothing sets that shape
    or tensor anew (where they do not broadcast the kernel returns null: its failure). None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    stmts = statements(fn.body, fn.body_offset)
    m = re.fullmatch(_BROADCAST_INTO, stmts[1].text.strip() if stmts[1].kind != "if" else
                     "if (" + stmts[1].cond.strip() + ")", re.S) if len(stmts) > 2 else None
    if local is None or local in fn.params or m is None or re.search(
            rf"\bINFER_SHAPE\b|\b{local}\s*->\s*Set\w*Shape|&\s*{local}\b", fn.body):
        return None
    a, b, shape = [g for g in m.groups() if g is not None]
    if not re.fullmatch(rf"(?:op::|gert::)?Shape\s+{shape}\s*;?", stmts[0].text.strip()) or \
            stmts[1].kind == "if" and (stmts[1].orelse or [x.text.strip().rstrip(";") for x in stmts[1].then
                                                            if x.kind == "return"] != ["return nullptr"]):
        return None
    allocs = re.findall(r"AllocTensor\(\s*([^,()]*)", fn.body)
    sets = re.findall(rf"\b{local}\s*=(?!=)", fn.body)
    if not allocs or any(x.strip() != shape for x in allocs) or len(sets) != 1 or \
            len(re.findall(rf"\b{shape}\b", fn.body)) != 2 + len(allocs) or \
            any(p not in fn.params or fn.params.index(p) >= len(args) or re.search(rf"\b{p}\s*=(?!=)", fn.body)
                for p in (a, b)):
        return None
    held = [_tensor_shape_expr(env.get(_strip(args[fn.params.index(p)]))) for p in (a, b)]
    return None if None in held else ("shape-expr", ("broadcast", *held))


def _kernel_chosen_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """The shape of the tensor kernel ``fn`` returns when it is allocated on each side of one branch on
    a string parameter (``if (mode == "none") { r = executor->AllocTensor(self->GetViewShape(), ..); }
    else { r = executor->AllocTensor({}, ..); }``), each shape a tensor parameter's view shape or
    ``{}`` (rank 0), and nothing reshapes it after: ("shape-expr", ["?", the call's integer test for
    that word, one shape, the other]); None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    if local is None or local in fn.params or re.search(
            rf"INFER_SHAPE|\b{local}\s*->\s*Set\w*Shape|&\s*{local}\b", fn.body):
        return None
    branches = [s for s in statements(fn.body, fn.body_offset) if s.kind == "if" and any(
        re.search(rf"\b{local}\s*=(?!=)", x.text) for x in _flatten(s.then + s.orelse))]
    sets = re.findall(rf"\b{local}\s*=(?!=)\s*([^;]+);", fn.body)
    if len(branches) != 1 or len(sets) != 2 + ("nullptr" in [x.strip() for x in sets]) or \
            any(x.strip() != "nullptr" and "AllocTensor" not in x for x in sets):
        return None
    branch = branches[0]
    shapes = []
    for side in (branch.then, branch.orelse):
        m = re.fullmatch(rf"{local}\s*=\s*executor\s*->\s*AllocTensor\((.*)\)", side[0].text.strip(), re.S) \
            if len(side) == 1 and side[0].kind == "decl" else None
        first = _strip(split_args(m.group(1))[0]) if m and len(split_args(m.group(1))) in (2, 3) else None
        view = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", first or "")
        if first == "{}":
            shapes.append(("dims", ()))
        elif view and view.group(1) in fn.params and fn.params.index(view.group(1)) < len(args) and \
                not re.search(rf"\b{view.group(1)}\s*=(?!=)", fn.body):   # the argument as given
            shapes.append(_tensor_shape_expr(env.get(_strip(args[fn.params.index(view.group(1))]))))
        else:
            return None
    two = next((_split_top(_strip(branch.cond), op) + [op] for op in ("==", "!=")
                if len(_split_top(_strip(branch.cond), op)) == 2), None)
    if None in shapes or two is None:
        return None
    word = [x for x in two[:2] if re.fullmatch(r'"\w*"', _strip(x))]
    param = [_strip(x) for x in two[:2] if x not in word]
    if len(word) != 1 or param[0] not in fn.params or fn.params.index(param[0]) >= len(args) or \
            not re.fullmatch(r"const\s+(?:std::)?string\s*&|(?:const\s+)?(?:std::)?string",
                             fn.param_types[fn.params.index(param[0])].strip()):
        return None
    chosen = _string_choice(w, args[fn.params.index(param[0])], env)
    test = None if chosen is None else _string_is(chosen, _strip(word[0])[1:-1])
    if test is None:
        return None
    then, orelse = shapes if two[2] == "==" else shapes[::-1]
    return ("shape-expr", ("?", test, then, orelse))


def _string_choice(w: Walk, expr: str, env: dict) -> tuple | None:
    """``F(n)`` with F a function of the op_api file taking one integer and returning a string by a
    chain of tests of it against constants (``if (n == K1) { return A; } else if (n == K2) { return B;
    } return C;``), each word a literal or a file string (``static std::string A = "mean";``) that
    only F's returns name, F called nowhere but as an argument, n an integer the walk knows:
    ("string-choice", ((test, word) in order...), the word returned when none holds); None otherwise."""
    expr = _strip(expr)
    call = _macro(expr)
    fn = w.index.own.functions.get(call[0]) if call and match_close(expr, expr.index("(")) == len(expr) - 1 \
        else None
    if fn is None or len(fn.params) != 1 or len(call[1]) != 1 or \
            not _INT_TYPE.fullmatch(fn.param_types[0].strip()) or not re.search(r"\bstring\b", fn.returns):
        return None
    text = w.index.own.text
    defined = sum(len(x) + 1 for x in text.split("\n")[:fn.line - 1])   # where F's definition begins
    for use in re.finditer(rf"\b{re.escape(fn.name)}\s*\(", text):   # an argument, never assigned or changed
        end = match_close(text, use.end() - 1)
        if not defined <= use.start() < fn.body_offset and not re.match(r"\s*[,)]", text[end + 1:]):
            return None
    try:
        n = _iexpr_of(w, _value(w, call[1][0], env))
    except Unreadable:
        return None
    chain = _string_chain(w, fn, statements(fn.body, fn.body_offset))
    if n is None or chain is None or chain[1] is None:
        return None
    return ("string-choice", tuple((("==", n, k), word) for k, word in chain[0]), chain[1])


def _string_chain(w: Walk, fn: Function, stmts: tuple[Stmt, ...]) -> tuple[list, str | None] | None:
    """The (constant, word) tests of ``if (p == K) { return W; }`` (else-if) statements in order, and
    the word of the return ending them (None when they fall off the end)."""
    tests: list = []
    for i, s in enumerate(stmts):
        if s.kind == "return":
            word = _file_word(w, fn, s.text.strip()[len("return"):])
            return None if word is None or i != len(stmts) - 1 else (tests, word)
        if s.kind != "if" or len(s.then) != 1 or s.then[0].kind != "return":
            return None
        two = _split_top(_strip(s.cond), "==")
        k = [_int_constant(w, x) for x in two if _strip(x) != fn.params[0]] if len(two) == 2 else []
        word = _file_word(w, fn, s.then[0].text.strip()[len("return"):])
        if len(k) != 1 or k[0] is None or word is None:
            return None
        tests.append((k[0], word))
        if s.orelse:
            inner = _string_chain(w, fn, s.orelse)
            if inner is None or inner[1] is not None and i != len(stmts) - 1:
                return None
            tests += inner[0]
            if inner[1] is not None:
                return tests, inner[1]
    return tests, None


def _file_word(w: Walk, fn: Function, expr: str) -> str | None:
    """A string literal, or a file string ``static std::string A = "w";`` that only ``fn`` returns."""
    expr = _strip(expr)
    if re.fullmatch(r'"\w*"', expr):
        return expr[1:-1]
    text = w.index.own.text
    decl = re.findall(rf'\bstatic\s+(?:const\s+)?std::string\s+{re.escape(expr)}\s*=\s*"(\w*)"\s*;', text) \
        if re.fullmatch(r"[A-Za-z_]\w*", expr) else []
    named = len(re.findall(rf"\b{re.escape(expr)}\b", text)) if decl else 0
    returned = len(re.findall(rf"\breturn\s+{re.escape(expr)}\s*;", fn.body)) if decl else 0
    return decl[0] if len(decl) == 1 and named == 1 + returned else None


def _string_is(chosen: tuple, word: str) -> tuple | None:
    """The integer test that a ("string-choice", ...) gives ``word``: its first test naming it holding
    after the earlier ones fail, or none holding for the last word."""
    _, tests, last = chosen
    ways, failed = [], []
    for test, said in tests:
        if said == word:
            ways.append(("and", *failed, test) if failed else test)
        failed.append(("!=", *test[1:]))
    if last == word:
        ways.append(("and", *failed) if len(failed) > 1 else failed[0] if failed else None)
    if None in ways or not ways:
        return None
    return ways[0] if len(ways) == 1 else ("or", *ways)


def _unsqueezed_rank0(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::UnsqueezeNd(x, d, executor)`` with x of an API tensor's view shape, that tensor of rank 0
    on every call reaching here (a branch's guard) and d the integer 0 or -1: a tensor of x's dtype and
    shape [1] (ops-math conversion/unsqueeze/op_host/op_api/unsqueeze.cpp:19-53: one dim inserted into
    rank 0, -1 wrapped by the new rank 1); None otherwise."""
    like = _shape_like(env.get(_strip(args[0])))
    try:
        dim = _value(w, args[1], env)
    except Unreadable:
        return None
    if like is None or ("rank-zero", like) not in w.guards or not _is_int(dim) or dim not in (0, -1):
        return None
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", ("dims", (1,))))


def _unsqueezed_at(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::UnsqueezeNd(x, a, executor)`` with x of a shape S the walk holds and a an int array of
    one constant d: a tensor of x's dtype and S with a dim of 1 inserted at d, wrapped by rank + 1
    (ops-math conversion/unsqueeze/op_host/op_api/unsqueeze.cpp:19-53), as ["concat", ["concat",
    ["slice", S, 0, d], [1]], ["slice", S, d, rank - d]]; a d outside [-rank - 1, rank] (the kernel's
    null result) makes a slice reach outside S, which no rule judges. None otherwise."""
    held, shape = env.get(_strip(args[1])), _tensor_shape_expr(env.get(_strip(args[0])))
    one = held[1][1] if isinstance(held, tuple) and held[:1] == ("dims-vector",) and \
        held[1][:1] == ("shape-expr",) and held[1][1][:1] == ("dims",) else None
    if shape is None or one is None or len(one[1]) != 1 or not _is_int(one[1][0]):
        return None
    d = one[1][0]
    at = d if d >= 0 else ("+", ("srank", shape), d + 1)
    unsqueezed = ("concat", ("concat", ("slice", shape, 0, at), ("dims", (1,))),
                  ("slice", shape, at, ("-", ("srank", shape), at)))
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", unsqueezed))


def _tiled(w: Walk, args: list[str], env: dict) -> tuple | None:
    """``l0op::Tile(x, a, executor)`` with a the API's integer array and x of a shape the walk holds (or
    that shape with leading dims of 1 up to a's length, which tile the same): a tensor of x's dtype,
    of the shape ("tile", x's shape, a) (ops-math math/tile/op_api/tile.cpp:95-110: a's first
    len(a) - rank dims, then each of x's dims times a's element at its place; null for a shorter a)."""
    arr = env.get(_strip(args[1]))
    if not isinstance(arr, T) or "IntArray" not in w.ptypes.get(arr.name, ""):
        return None
    held = env.get(_strip(args[0]))
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 and \
            isinstance(held[2], tuple) and held[2][:1] == ("lead-ones",):
        shape = held[2][1] if held[2][2] == arr.name else None
    else:
        shape = _tensor_shape_expr(held)
    if shape is None:
        return None
    return ("tensor-dtype", _tensor_dtype(w, args[0], env), ("shape-expr", ("tile", shape, arr.name)))


def _one_dim_at_rank0_local(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(x, executor)`` with H a helper shape_helpers.one_dim_at_rank0 recognises and x of an API
    tensor's view shape: a tensor of x's dtype, of that shape, or [1] where the tensor has rank 0."""
    rhs = _strip(rhs)
    call = _macro(rhs)
    if not call or match_close(rhs, rhs.index("(")) != len(rhs) - 1 or len(call[1]) != 2:
        return None
    fn = w.index.function(call[0])
    tensor = _shape_like(env.get(_strip(call[1][0])))
    if fn is None or tensor is None or not one_dim_at_rank0(fn, w.index.function):
        return None
    shape = ("?", ("guard", ("rank-zero", tensor)), ("dims", (1,)), ("of", tensor))
    return ("tensor-dtype", _tensor_dtype(w, call[1][0], env), ("shape-expr", shape))


def _leading_ones_branch(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (x->GetViewShape().GetDimNum() < a->Size()) { y = H(x, a, executor); CHECK_RET(y !=
    nullptr, S); }`` with H a helper shape_helpers.leading_ones_to recognises, a the API's integer
    array, x of a shape the walk holds and y holding x before it: after it y has x's shape with
    leading dims of 1 up to a's length (x's own shape where it has as many dims: the branch not
    taken), held as ("lead-ones", shape, a), which only Tile reads (_tiled). A null view (x not
    contiguous) is the kernel's failure, as _kernel_made's, whatever status S names."""
    m = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*<\s*(\w+)\s*->\s*Size\(\)",
                     _strip(stmt.cond))
    if not m or stmt.orelse or not 1 <= len(stmt.then) <= 2:
        return False
    x, arr = m.group(1), env.get(m.group(2))
    d = re.fullmatch(r"(\w+)\s*=\s*(\w+)\s*\((.*)\)\s*;?", stmt.then[0].text.strip(), re.S)
    if not isinstance(arr, T) or "IntArray" not in w.ptypes.get(arr.name, "") or not d:
        return False
    y, fn = d.group(1), w.index.function(d.group(2))
    args = [_strip(a) for a in split_args(d.group(3))]
    if fn is None or not leading_ones_to(fn) or args[:2] != [x, m.group(2)] or len(args) != 3:
        return False
    if len(stmt.then) == 2 and not re.fullmatch(rf"CHECK_RET\(\s*{y}\s*!=\s*nullptr\s*,\s*\w+\s*\)\s*;?",
                                                 stmt.then[1].text.strip()):
        return False
    shape = _tensor_shape_expr(env.get(x))
    if shape is None or y not in env or env[y] != env.get(x):
        return False
    env[y] = ("tensor-dtype", _tensor_dtype(w, x, env), ("lead-ones", shape, arr.name))
    return True


def _kernel_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("rshape", tensor, dims, keepdim, noop) when the kernel's result is a reduction
    (extract/infershape.py) of a tensor with an API tensor's shape over the API's dims (None: every
    dim), its flags the API's bool arguments or literals; None otherwise."""
    ks = kernel_reduce_shape(fn, w.index.kernels.source_of(fn.name), w.index.kernels.infers)
    if ks is None or max(ks.data, ks.axes) >= len(args):
        return None
    tensor = _shape_like(env.get(_strip(args[ks.data])))
    if tensor is None:
        return None
    dims = env.get(_strip(args[ks.axes]))
    if ks.wrapped_dim and not (isinstance(dims, tuple) and dims[:1] == ("wrapped-dim-max1",)):
        return None   # the kernel indexes the shape by the dim as given: a negative one is not read
    if isinstance(dims, T) and ("IntArray" in w.ptypes.get(dims.name, "")
                                or re.search(r"int(?:64|32)_t", w.ptypes.get(dims.name, ""))
                                and re.search(r"int(?:64|32)_t", fn.param_types[ks.axes])):
        dims = dims.name   # the API's int array, or its one int passed to a kernel's int
    elif isinstance(dims, tuple) and dims[:1] == ("all-dims",) and dims[1] == tensor:
        dims = None
    elif isinstance(dims, tuple) and dims[:1] == ("dims-of",):
        dims = dims[1]
    elif isinstance(dims, tuple) and dims[:1] == ("dims-from",) and dims[1] == tensor:
        dims = ("from", dims[2])   # the tensor's dims from k on
    elif isinstance(dims, tuple) and dims[:1] == ("wrapped-dim-max1",) and dims[2] == tensor \
            and re.search(r"int(?:64|32)_t", fn.param_types[ks.axes]):
        dims = dims[1]   # the API's one int, wrapped as the reduction wraps it (by max(rank, 1))
    elif isinstance(dims, tuple) and dims[:1] == ("every-if-empty",) and dims[2] == tensor:
        dims, ks = dims[1], replace(ks, noop=False)   # never empty: empty reduces every dim
    else:
        return None
    flags = []
    for flag in (ks.keepdim, ks.noop):
        if isinstance(flag, bool):
            flags.append(flag)
            continue
        if flag >= len(args):
            return None
        text, v = _strip(args[flag]), env.get(_strip(args[flag]))
        if isinstance(v, T) and w.ptypes.get(v.name, "").replace("const", "").strip() == "bool":
            flags.append(v.name)
        elif text in ("true", "false"):
            flags.append(text == "true")
        elif isinstance(v, bool):   # a literal passed down to a helper's parameter
            flags.append(v)
        else:
            return None
    # every dim named: a rank-0 tensor's list is empty and keeps its shape, which reducing it gives too
    shape = ("rshape", tensor, dims, flags[0], False if dims is None else flags[1])
    return shape + ("one-element",) if ks.one_element else shape


def _kernel_alloc_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("shape-expr", S) when the kernel ``fn`` allocates the tensor it returns as ``executor->
    AllocTensor(s, ...)`` with ``Shape s;`` set before only by ``s = H(params...);`` in the branch this
    product takes of an if/else-if on the product (cdist.cpp:82-90), H a helper of its file walked
    over the arguments' held shapes; and on this product's path after it no INFER_SHAPE (which would
    set the shape anew) and every return is nullptr, that tensor, or a helper of the file returning
    its parameter given it. None otherwise."""
    src = w.index.kernels.source_of(fn.name)
    if src is None or len(args) != len(fn.params):
        return None
    local: dict = {p: env.get(_strip(a)) for p, a in zip(fn.params, args)}
    stmts = list(statements(fn.body, fn.body_offset))
    alloc = [i for i, st in enumerate(stmts) if re.search(r"->\s*AllocTensor\(", st.text)]
    if len(alloc) != 1:
        return None
    m = re.fullmatch(r"(?:auto|aclTensor\s*\*)\s*(\w+)\s*=\s*\w+\s*->\s*AllocTensor\(\s*(\w+)\s*,[^;]*\)\s*;?",
                     stmts[alloc[0]].text.strip())
    if not m:
        return None
    out, shape_name, shape = m.group(1), m.group(2), None
    for st in stmts[:alloc[0]]:
        text = st.text.strip()
        if st.kind == "decl" and re.fullmatch(rf"(?:op::|gert::)?Shape\s+{shape_name}\s*;?", text):
            shape = ("dims", ())
        elif st.kind == "decl" and re.fullmatch(r"(?:op::)?SocVersion\s+\w+\s*=\s*GetCurrentPlatformInfo\(\)\s*\.\s*"
                                                r"GetSocVersion\(\)\s*;?", text):
            _run_decl(w, src, st, local)
        elif st.kind == "if" and shape is not None:
            taken = _product_path(w, st, local)
            sets = [x for x in taken or () if not re.fullmatch(r"OP_LOG\w*\(.*\)\s*;?", x.text.strip(), re.S)]
            if taken is None or len(sets) > 1:
                return None
            if sets:
                call = re.fullmatch(rf"{shape_name}\s*=\s*(\w+)\((.*)\)\s*;?", sets[0].text.strip(), re.S)
                helper = src.functions.get(call.group(1)) if call else None
                if helper is None:
                    return None
                shape = _helper_shape(w, src, helper, [_strip(a) for a in split_args(call.group(2))], local)
                if shape is None:
                    return None
        else:
            return None
    if shape is None or shape == ("dims", ()):
        return None   # not set on this product (an empty shape: the kernel then returns null)
    after = _product_flat(w, stmts[alloc[0] + 1:], local)
    if after is None or any("INFER_SHAPE" in st.text or re.search(rf"\b{out}\s*->\s*Set\w*(?:Shape|Format)\b", st.text)
                            for st in after):
        return None   # its shape set anew
    for st in after:
        if st.kind == "return" and not _returns_tensor(src, st.text, out):
            return None
    return ("shape-expr", shape)


def _product_path(w: Walk, stmt: Stmt, env: dict) -> list[Stmt] | None:
    """The statements an if/else-if chain on the product runs on this product; None when a condition
    is not decided by the product."""
    decided = _product_bool(w, stmt.cond, env)
    if decided is None:
        return None
    side = stmt.then if decided else stmt.orelse
    if len(side) == 1 and side[0].kind == "if":
        return _product_path(w, side[0], env)
    return list(side)


def _product_flat(w: Walk, stmts: list[Stmt], env: dict) -> list[Stmt] | None:
    """The statements this product may run among ``stmts``: the taken side of a branch on the product,
    both sides of any other branch; None for a loop or switch."""
    out: list[Stmt] = []
    for st in stmts:
        if st.kind == "if":
            decided = _product_bool(w, st.cond, env)
            sides = [st.then, st.orelse] if decided is None else [st.then if decided else st.orelse]
            for side in sides:
                inner = _product_flat(w, list(side), env)
                if inner is None:
                    return None
                out += inner
        elif st.kind == "other":
            return None
        else:
            out.append(st)
    return out


def _returns_tensor(src: SourceFile, text: str, name: str) -> bool:
    """``return nullptr;``, ``return name;`` or ``return F(..., name, ...);`` with F a function of the
    file whose every return is nullptr or the parameter given ``name``."""
    value = re.sub(r"^return\s*", "", text.strip()).rstrip(";").strip()
    if value in ("nullptr", name):
        return True
    call = _macro(value)
    fns = [f for f in src.overloads.get(call[0], ()) if len(f.params) == len(call[1])] if call else []
    fn = fns[0] if len(fns) == 1 else None
    if fn is None or not re.search(r"\)\s*$", value):
        return False
    given = [i for i, a in enumerate(call[1]) if _strip(a) == name]
    if len(given) != 1 or given[0] >= len(fn.params):
        return False
    returned = re.findall(r"\breturn\b\s*(\w*)", fn.body)   # also inside OP_CHECK(..., return nullptr)
    return bool(returned) and all(r in ("nullptr", fn.params[given[0]]) for r in returned)


def _helper_shape(w: Walk, src: SourceFile, helper: Function, args: list[str], env: dict) -> tuple | None:
    """The shape expression a kernel file's helper returns (``Shape H(const aclTensor* x) { ...;
    return outShape; }``), its statements walked over the arguments' held values; None when it checks
    anything, or its statements or result are not read."""
    if len(args) != len(helper.params):
        return None
    stmts = list(statements(helper.body, helper.body_offset))
    last = re.fullmatch(r"return\s+(\w+)\s*;?", stmts[-1].text.strip()) if stmts else None
    if not last or re.search(r"OP_CHECK|CHECK_RET|return\s+(?!\w+\s*;)", helper.body.replace(stmts[-1].text, "")):
        return None
    local = {p: env.get(a) for p, a in zip(helper.params, args)}
    mark, depth, guards, pending = len(w.events), w.depth, list(w.guards), list(w.pending)
    w.depth += 1
    try:
        _run_block(w, src, tuple(stmts[:-1]), local, None, False)
    except (Unreadable, _End, _Stop):
        return None
    finally:   # nothing of the helper's walk stays in the caller's
        changed = len(w.events) != mark or w.guards != guards or w.pending != pending
        w.depth, w.guards[:], w.pending[:] = depth, guards, pending
        del w.events[mark:]
    if changed:
        return None
    return _shape_expr_of(local.get(last.group(1)))


def _shape_like(held: Any) -> str | None:
    """The API tensor whose view shape a tensor of the compute path has: the tensor itself, a
    contiguous copy, a cast of one."""
    if isinstance(held, T):
        return held.name
    if isinstance(held, tuple) and held[:1] in (("copy-of",), ("like",)):
        return held[1]
    if isinstance(held, tuple) and held[:1] == ("cast-of",) and len(held) == 4 and isinstance(held[3], str):
        return held[3]
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 \
            and isinstance(held[2], tuple) and held[2][:1] == ("like",):
        return held[2][1]
    return None


def _argument_dtype(w: Walk, fn: Function, args: list[str], env: dict, result: tuple) -> tuple | None:
    """The dtype expression ``result`` (as _allocated_dtype gives it) takes for this call's arguments."""
    if result[0] == "dtype":
        return result
    param = fn.params.index(result[1])
    if param >= len(args):   # a defaulted parameter decides it: not read
        return None
    if result[0] == "of":
        return _tensor_dtype(w, args[param], env)
    try:   # a DataType argument
        return _dexpr_of(w, args[param], env)
    except Unreadable:
        return None


def _tuple_dtypes(fn: Function, src: SourceFile | None) -> list[tuple] | None:
    """The dtype of each element of the tuple a kernel function returns (every non-null return: a
    ``std::tuple<...>(a, b)`` of locals set once by ``AllocTensor`` or of tensor parameters, directly
    or through a function of the file returning its parameters so), when every return agrees."""
    found = set()
    for expr in re.findall(r"\breturn\s+([^;]+);", fn.body):
        expr = expr.strip()
        if expr == "{}" or re.match(r"nullptr\b", expr):
            continue
        call = _macro(expr) if src is not None else None
        names = _tuple_names(expr)
        if names is None and call and match_close(expr, expr.index("(")) == len(expr) - 1:
            callee = src.functions.get(call[0])
            if callee is None or len(callee.params) != len(call[1]):
                return None
            backs = {tuple(n) for e in re.findall(r"\breturn\s+([^;]+);", callee.body)
                     if (n := _tuple_names(e.strip()))}
            if len(backs) != 1 or any(p not in callee.params for p in next(iter(backs))):
                return None
            names = [call[1][callee.params.index(p)].strip() for p in backs.pop()]
        if not names:
            return None
        dtypes = []
        for n in names:
            if n in fn.params and "aclTensor" in fn.param_types[fn.params.index(n)]:
                dtypes.append(("of", n))
            else:
                dtypes.append(_alloc_local_dtype(fn, n))
        if None in dtypes:
            return None
        found.add(tuple(dtypes))
    return list(found.pop()) if len(found) == 1 else None


def _tuple_names(expr: str) -> list[str] | None:
    """``std::tuple<...>(a, b)``: [a, b] (names only, not nullptr); None otherwise."""
    m = re.fullmatch(r"std::tuple<[^()]*>\((.*)\)", expr, re.S)
    names = [a.strip() for a in split_args(m.group(1))] if m else []
    return names if names and all(re.fullmatch(r"\w+", n) and n != "nullptr" for n in names) else None


def _allocated_dtype(fn: Function, src: SourceFile | None = None) -> tuple | None:
    """The dtype of what a kernel function returns (every return but ``nullptr``), when every return
    gives the same: a local set once by ``AllocTensor`` (("of", parameter) for ``p->GetDataType()``,
    ("dtype-param", parameter) for a DataType parameter, ("dtype", NAME) for a constant), a tensor
    parameter itself (("of", it): ``return self;`` for a rank-0 input), or a call of a function of the
    same file that returns one of its parameters, given one of those (``return ReduceMeanAiCore(self,
    dim, keepDim, true, meanOut, executor);``). None for anything else."""
    names = _returned_names(fn, src)
    if names is None:
        return None
    found = set()
    for expr in sorted(names):
        if expr in fn.params:
            if "aclTensor" not in fn.param_types[fn.params.index(expr)]:
                return None
            found.add(("of", expr))
            continue
        alloc = _alloc_local_dtype(fn, expr)
        if alloc is None:
            return None
        found.add(alloc)
    return found.pop() if len(found) == 1 else None


def _returned_names(fn: Function, src: SourceFile | None) -> set[str] | None:
    """The names every non-null return of kernel function ``fn`` gives, directly or through a function
    of the same file returning one of its parameters; None when a return gives anything else."""
    names = set()
    for expr in re.findall(r"\breturn\s+([^;]+);", fn.body):
        expr = expr.strip()
        if re.match(r"nullptr\b", expr):   # also a macro's ``return nullptr, "message")``
            continue
        call = _macro(expr) if src is not None else None
        if call and match_close(expr, expr.index("(")) == len(expr) - 1:
            callee = src.functions.get(call[0])
            back = _returned_param(callee) if callee is not None and len(callee.params) == len(call[1]) else None
            if back is None:
                return None
            expr = call[1][callee.params.index(back)].strip()
        if not re.fullmatch(r"[A-Za-z_]\w*", expr):
            return None
        names.add(expr)
    return names


def _chosen_alloc_dtype(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """The dtype of the one local every return of kernel ``fn`` gives, set once as ``flag ?
    executor->AllocTensor(.., A) : executor->AllocTensor(.., B)`` with ``bool flag`` set once to a
    condition on its tensor parameters' dtypes (ops-math math/mul/op_api/mul.cpp:141-146): ("if", that
    condition on this call's arguments, A, B) as dtype expressions; None otherwise."""
    names = _returned_names(fn, w.index.kernels.source_of(fn.name))
    local = next(iter(names)) if names and len(names) == 1 else None
    sets = re.findall(r"\b" + local + r"\s*=(?!=)\s*(.+?);", fn.body, re.S) \
        if local is not None and local not in fn.params else []
    q = _split_top(sets[0].strip(), "?") if len(sets) == 1 else []
    sides = _split_colon(q[1]) if len(q) == 2 else []
    flag = _strip(q[0]) if len(sides) == 2 else ""
    conds = re.findall(r"\bbool\s+" + flag + r"\s*=(?!=)\s*(.+?);", fn.body, re.S) \
        if re.fullmatch(r"[A-Za-z_]\w*", flag) else []
    if len(conds) != 1 or len(re.findall(r"\b" + flag + r"\s*=(?!=)", fn.body)) != 1:
        return None
    kenv = {p: env[_strip(a)] for p, t, a in zip(fn.params, fn.param_types, args)
            if "aclTensor" in t and _tensor_dtype(w, a, env) is not None}
    guard = _guard(w, conds[0], kenv)
    dtypes = [_alloc_local_dtype(replace(fn, body=f"{local} = {side.strip()};"), local) for side in sides]
    if guard is None or None in dtypes:
        return None
    chosen = [_argument_dtype(w, fn, args, env, d) for d in dtypes]
    return None if None in chosen else ("if", guard, chosen[0], chosen[1])


def _returned_param(fn: Function) -> str | None:
    """The parameter every non-null return of ``fn`` gives back (``return meanOut;``), if one."""
    # the word after each return (a macro's ``return nullptr, "..."`` too)
    one = set(re.findall(r"\breturn\s+(\w+)\b", fn.body)) - {"nullptr"}
    if re.search(r"\breturn\s+(?!\w+\s*[;,)])", fn.body):
        return None   # a return of some other expression
    return one.pop() if len(one) == 1 and next(iter(one)) in fn.params else None


def _alloc_local_dtype(fn: Function, local: str) -> tuple | None:
    """The dtype of ``local``, set once in ``fn`` by ``executor->AllocTensor(...)``, or as a view of a
    tensor parameter (``executor->CreateView(x, ...)``, ``const_cast<aclTensor*>(x)``: x's dtype)."""
    sets = re.findall(r"\b" + local + r"\s*=(?!=)\s*(.+?);", fn.body, re.S)
    if len(sets) > 1:   # set again (a new shape): the one dtype every allocation gives, if one
        each = {_alloc_local_dtype(replace(fn, body=f"{local} = {x};"), local) for x in sets}
        return each.pop() if len(each) == 1 and None not in each else None
    if len(sets) != 1:
        return None
    q = _split_top(sets[0].strip(), "?")
    views = {_view_of_param(fn, c) for c in (_split_colon(q[1]) if len(q) == 2 else [sets[0]])}
    if len(views) == 1 and None not in views:
        return ("of", views.pop())
    m = re.fullmatch(r"executor\s*->\s*AllocTensor\((.*)\)", sets[0].strip(), re.S)
    if not m:
        return None
    found = []
    for arg in split_args(m.group(1)):
        arg = arg.strip()
        g = re.fullmatch(r"(\w+)\s*->\s*GetDataType\(\)", arg)
        c = re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)", arg)
        if g and g.group(1) in fn.params:
            found.append(("of", g.group(1)))
        elif c:
            found.append(("dtype", c.group(1)))
        elif arg in fn.params and "DataType" in fn.param_types[fn.params.index(arg)]:
            found.append(("dtype-param", arg))
    return found[0] if len(found) == 1 else None


def _view_of_param(fn: Function, expr: str) -> str | None:
    """The tensor parameter ``expr`` views (same dtype): ``executor->CreateView(x, ...)``,
    ``const_cast<aclTensor*>(x)`` or ``x``; None otherwise."""
    expr = expr.strip()
    m = re.fullmatch(r"executor\s*->\s*CreateView\(\s*(\w+)\s*,.*\)", expr, re.S) or \
        re.fullmatch(r"const_cast<\s*(?:const\s+)?aclTensor\s*\*\s*>\(\s*(\w+)\s*\)", expr) or \
        re.fullmatch(r"(\w+)", expr)
    name = m.group(1) if m else None
    return name if name in fn.params and "aclTensor" in fn.param_types[fn.params.index(name)] else None


def _tensor_dtype(w: Walk, expr: str, env: dict) -> tuple | None:
    """The dtype expression of a tensor the compute path holds: an API tensor, a contiguous copy, a
    kernel's result or a cast; None when not known."""
    held = env.get(_strip(expr))
    if isinstance(held, T):
        return ("of", held.name)
    if isinstance(held, tuple) and held[:1] == ("copy-of",):
        return ("of", held[1])
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",):
        return held[1]
    if isinstance(held, tuple) and held[:1] == ("cast-of",):
        return held[2]
    if isinstance(held, tuple) and held[:1] in (("converted",), ("scalar-tensor",)):
        return held[2]
    return None


def _dtype_values(w: Walk, e: tuple | None) -> set[str] | None:
    """The dtype names ``e`` may take on the calls that reach here: a constant, a choice, or an API
    tensor's dtype bounded by the dtype checks read before (unguarded, this product); None when not
    bounded."""
    if e is None:
        return None
    if e[0] == "dtype":
        return {e[1]}
    if e[0] == "if":
        a, b = _dtype_values(w, e[2]), _dtype_values(w, e[3])
        return None if a is None or b is None else a | b
    if e[0] == "of":
        sets = [set(ev.args_dict()["dtypes"]) for ev in w.events
                if ev.kind == "check" and ev.template == "dtype_in" and ev.args_dict().get("param") == e[1]
                and "when" not in ev.args_dict()]
        return set.intersection(*sets) if sets else None
    if e[0] == "promote":   # PromoteType of each pair; a pair not promoting (DT_UNDEFINED) leaves it unbounded
        a, b = _dtype_values(w, e[1]), _dtype_values(w, e[2])
        out = None if a is None or b is None else {promote_type(x, y) for x in a for y in b}
        return None if out is None or None in out else out
    return None


def _converted_scalar(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``executor->ConvertToTensor(s, D)`` of an aclScalar argument s whose null check was read
    before: ("converted", s, D). opbase's ConvertToTensor (op_executor.cpp:568-574) returns nullptr
    only when the tensor cannot be allocated; the aclTensor it builds (common_types.cpp:284-370)
    stores the scalar's value in any dtype. None for anything else."""
    m = re.fullmatch(r"[\w.]+(?:\.get\(\))?\s*->\s*ConvertToTensor\((.*)\)", _strip(rhs), re.S)
    args = split_args(m.group(1)) if m else []
    if len(args) != 2 or not isinstance(env.get(_strip(args[0])), T):
        return None
    scalar = env[_strip(args[0])].name
    if not any(e.kind == "check" and e.template == "null" and e.args_dict().get("param") == scalar
               for e in w.events) and not _nonnull_guarded(w, scalar):
        return None
    try:
        dtype = _dexpr_of(w, args[1], env)
    except Unreadable:
        dtype = None
    return ("converted", scalar, dtype)


def _scalar_tensor(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``executor->ConvertToTensor(s, D)`` of an aclScalar argument s not known non-null here:
    ("scalar-tensor", s, D), a tensor of rank 0 where it returns one (opbase common_types.cpp:284-285);
    a null check of it stays the reader's to read (no kernel made it). None for anything else."""
    m = re.fullmatch(r"[\w.]+(?:\.get\(\))?\s*->\s*ConvertToTensor\((.*)\)", _strip(rhs), re.S)
    args = split_args(m.group(1)) if m else []
    held = env.get(_strip(args[0])) if len(args) == 2 else None
    if not isinstance(held, T) or "aclScalar" not in w.ptypes.get(held.name, ""):
        return None
    try:
        dtype = _dexpr_of(w, args[1], env)
    except Unreadable:
        dtype = None
    return ("scalar-tensor", held.name, dtype)


def _nonnull_guarded(w: Walk, name: str) -> bool:
    """Every call reaching here has the argument ``name`` non-null: a guard of the walk, or a conjunct
    of one, says so (``if (alpha != nullptr && ...)``)."""
    def says(g: Any) -> bool:
        return g == ("not", ("null", name)) or isinstance(g, tuple) and g[:1] == ("and",) and any(says(x) for x in g[1:])
    return any(says(g) for g in w.guards)


def _cast_cannot_fail(w: Walk, held: tuple) -> bool:
    """``l0op::Cast`` of ``held`` (("cast-of", source, destination)) returns a tensor on every call
    reaching it: both dtypes bounded inside CAST_ALWAYS."""
    src, dst = _dtype_values(w, held[1]), _dtype_values(w, held[2])
    return src is not None and dst is not None and src <= CAST_ALWAYS and dst <= CAST_ALWAYS


_TO_KIND = {"Float": "float", "Double": "double", "Int32": "int32", "Int64": "int64"}


def _rank_guard(w: Walk, cond: str, env: dict) -> tuple | None:
    """``t->GetViewShape().GetDimNum() <op> n``: the guard ``("rank", t, op, n)``; None otherwise."""
    cmp = _compare_split(_strip(cond))
    if cmp is None:
        return None
    try:
        r, n = _value(w, cmp[0], env), _value(w, cmp[2], env)
    except Unreadable:
        return None
    lr = _lin(r)
    if not lr or lr[2:] != (1, 0, 0) or not _is_int(n):
        return None
    return ("rank", lr[1], cmp[1], int(n))


def _select_local(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``rank <op> n ? a : b`` with a and b integers or dim sizes (Prelu's channel count):
    ``("select", guard, a, b)``; None for anything else."""
    q = _split_top(_strip(rhs), "?")
    branches = _split_colon(q[1]) if len(q) == 2 else []
    if len(branches) != 2:
        return None
    three = (q[0], *branches)
    guard = _rank_guard(w, three[0], env)
    if guard is None:
        return None
    try:
        a, b = _value(w, three[1], env), _value(w, three[2], env)
    except Unreadable:
        return None
    sized = lambda v: _is_int(v) or isinstance(v, tuple) and v[:1] in (("dim",), ("numel",))   # noqa: E731
    return ("select", guard, a, b) if sized(a) and sized(b) else None


def _dims_conjunction(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                      text: str) -> bool:
    """A failure when several dim comparisons hold together, a local chosen by the rank among their
    operands (``weightSize != channels && weightSize != 1``): per choice, one dims_compare rule, the
    other comparisons and the choice's rank test its ``when``. False when it is not one."""
    selects = sorted({n for p in parts for n in re.findall(r"\b\w+\b", p)
                      if isinstance(env.get(n), tuple) and env[n][:1] == ("select",)})
    if len(selects) > 1:
        return False
    choices = [((), env)]
    if selects:
        name = selects[0]
        _, guard, a, b = env[name]
        choices = [((guard,), {**env, name: a}), ((("not", guard),), {**env, name: b})]
    rules = []
    for guards, scope in choices:
        atoms, values = [], []
        for p in parts:
            cmp = _compare_split(_strip(p))
            try:
                x, y = (_value(w, cmp[0], scope), _value(w, cmp[2], scope)) if cmp else (None, None)
            except Unreadable:
                return False
            if _is_int(x) and _is_int(y):   # decided in this choice
                if not _COMPARE_INT[cmp[1]](int(x), int(y)):
                    atoms = None
                    break
                continue
            atom = _dims_atom(w, _strip(p), False, scope)
            if atom is None or atom[0] != "dims_compare":
                test = _value_test(w, p, scope)   # a test of an argument's value beside them
                if test is None:
                    return False
                values.append(("value", test))
                continue
            if atom not in atoms:
                atoms.append(atom)
        if atoms is None:
            continue
        if not atoms:
            return False
        first, rest = dict(atoms[0][1]), [dict(x[1]) for x in atoms[1:]]
        when = [*guards, *values, *(("dims", r["a"], r["op"], r["b"]) for r in rest)]
        if when:
            first["when"] = when[0] if len(when) == 1 else ("and", *when)
        rules.append(first)
    if not rules:
        return False
    for args in rules:
        _check(w, src, offset, "dims_compare", tuple(sorted(args.items())), code, text)
    return True


_COMPARE_INT = {"==": lambda x, y: x == y, "!=": lambda x, y: x != y, "<": lambda x, y: x < y,
                ">": lambda x, y: x > y, "<=": lambda x, y: x <= y, ">=": lambda x, y: x >= y}


def _string_of(w: Walk, expr: str, env: dict) -> str | None:
    """The string argument (``const char*``) ``expr`` holds: the argument, ``std::string(arg)``, or a
    local holding one; None for anything else."""
    expr = _strip(expr)
    m = re.fullmatch(r"(?:std::)?string\(\s*(\w+)\s*\)", expr)
    held = env.get(m.group(1) if m else expr)
    if isinstance(held, tuple) and held[:1] == ("string-of",):
        return held[1]
    if isinstance(held, T) and re.search(r"\bchar\s*\*", w.ptypes.get(held.name, "")):
        return held.name
    return None


def _string_local(w: Walk, text: str, env: dict) -> tuple[str, tuple] | None:
    """``std::string mode(arg);`` (or ``= arg``, ``= std::string(arg)``, ``{arg}``) of a string
    argument: (local, ("string-of", argument)); None for anything else."""
    m = re.fullmatch(r"(?:const\s+)?(?:std::)?string\s+(\w+)\s*(?:\((.+)\)|\{(.+)\}|=(.+?))\s*;?", text.strip(),
                     re.S)
    if not m:
        return None
    arg = _string_of(w, m.group(2) or m.group(3) or m.group(4), env)
    return None if arg is None else (m.group(1), ("string-of", arg))


def _string_test(w: Walk, cond: str, env: dict) -> tuple[str, list[str]] | None:
    """A failure condition that a string argument is none of some words: ``s != "a" && s != "b"``
    or ``!(s == "a" || s == "b")``: (argument, the words); None for anything else."""
    cond = _strip(cond)
    if cond.startswith("!(") and match_close(cond, 1) == len(cond) - 1:
        parts, op = _split_top(_strip(cond[2:-1]), "||"), "=="
    else:
        parts, op = _split_top(cond, "&&"), "!="
    names, words = set(), []
    for part in parts:
        two = _split_top(part, op)
        if len(two) != 2:
            return None
        lit = [x for x in two if re.fullmatch(r'"\w+"', _strip(x))]
        other = [x for x in two if x not in lit]
        if len(lit) != 1 or len(other) != 1:
            return None
        name = _string_of(w, other[0], env)
        if name is None:
            return None
        names.add(name)
        words.append(_strip(lit[0])[1:-1])
    return (names.pop(), words) if len(names) == 1 else None


def _scalar_local(text: str, env: dict) -> tuple | None:
    """``float v = x->ToFloat();`` of an aclScalar argument: ("number", x, how v holds it); None for
    anything else, and where the local's type changes the value (``int32_t v = x->ToFloat()``)."""
    m = re.fullmatch(r"(?:const\s+)?(float|double|auto|int32_t|int64_t)\s+\w+\s*=\s*(\w+)\s*->\s*"
                     r"To(Float|Double|Int32|Int64)\(\)\s*;?", text)
    if not m or not isinstance(env.get(m.group(2)), T):
        return None
    kind = _TO_KIND[m.group(3)]
    declared = {"float": "float", "double": "double", "int32_t": "int32", "int64_t": "int64"}.get(m.group(1), kind)
    if declared != kind and not (declared == "float" and kind == "double"):
        return None   # a double read into a float holds what ToFloat gives; other mixes are not read
    return ("number", env[m.group(2)].name, declared)


def _call_status(w: Walk, fn: Function, args: list[str], env: dict, src: SourceFile, stmt: Stmt) -> Any:
    """Inline an aclnnStatus function: its failures are events; returns the value it ended with."""
    return _call_fn(w, fn, args, env, fail=None)


def _bind(w: Walk, fn: Function, args: list[str], env: dict) -> dict[str, Any]:
    if len(args) != len(fn.params):
        raise Unreadable(f"call of {fn.name} with {len(args)} arguments for {len(fn.params)} parameters")
    out = {}
    for p, a in zip(fn.params, args):
        held = env.get(a.strip())
        if isinstance(held, tuple) and held[:1] == ("numel-if-nonnull",):
            out[p] = held   # read as a count where the callee uses it, after its null checks
            continue
        try:
            out[p] = _value(w, a, env)
        except Unreadable:
            out[p] = _dtype_or_opaque(w, a, env)
    return out


def _run_check_ret(w: Walk, src: SourceFile, stmt: Stmt, env: dict, args: list[str],
                   fail: int | None = None) -> None:
    cond, code_text = args[0].strip(), args[1].strip() if len(args) > 1 else ""
    code = _status_of(code_text)
    if code_text == "false" and fail is not None and _check_ret_false(w, cond, env, fail):
        return
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    if null and code is not None and _view_copy_check(w, src, stmt, env.get(null.group(1) or null.group(2)), code):
        return
    m = re.match(r"(\w+)\s*==\s*ACLNN_SUCCESS$", cond)
    if m and code_text == m.group(1):
        held = env.get(m.group(1))
        if isinstance(held, tuple) and held and held[0] == "status-of":
            return  # its failures were recorded when it was called
        raise Unreadable(f"the status {m.group(1)} of a call the reader did not follow")
    if code is None and code_text == "nullptr" and null and _kernel_made(env.get(null.group(1) or null.group(2))):
        return   # a kernel's null result passed on to the caller, which checks what it is given
    if code is None:
        raise Unreadable(f"CHECK_RET with status {code_text!r}")
    if code not in PARAM_CODES:
        inner_call = _macro(cond)
        fn = w.index.function(inner_call[0]) if inner_call and not cond.startswith("!") else None
        if fn is not None and fn.returns.split()[-1] == "bool" and _is_checker(fn) and \
                all(isinstance(env.get(_strip(a)), T) for a in inner_call[1]):
            # a check function of the API's arguments failing with an inner status (CheckNotNull
            # with ACLNN_ERR_INNER_NULLPTR): its checks, with that status
            _call_fn(w, fn, inner_call[1], env, fail=code)
            return
        null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
        if null and isinstance(env.get(null.group(1) or null.group(2)), T):
            # an API argument checked with an inner status (ACLNN_ERR_INNER_NULLPTR): a null rule
            _check(w, src, stmt.offset, "null", _args(param=env[null.group(1) or null.group(2)].name), code,
                   stmt.text)
        return  # otherwise an inner failure of the compute path (561xxx): not a parameter check
    if _contiguous_null_check(cond, env):
        return
    if _scalar_same_check(w, src, stmt, cond, env, code):
        return
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    held = env.get(null.group(1) or null.group(2)) if null else None
    if isinstance(held, tuple) and held[:1] == ("converted",):
        return   # a scalar argument made a tensor: allocated, never refused (no parameter check)
    if _kernel_made(held):
        return   # a kernel's result: it fails only by the kernel's own checks, which no rule reads
    names = _nonnull_names(cond)
    if names and all(_kernel_made(env.get(n)) for n in names):
        return   # several kernel results, or elements of one's tuple: the same
    if isinstance(held, tuple) and held[:1] == ("cast-of",):
        if _cast_cannot_fail(w, held):
            return   # the cast of two dtypes AICPU converts: no parameter check
        if held[1] is not None and held[2] is not None:
            # the calls casting between two dtypes AICPU converts pass it; the others are not judged
            always = tuple(sorted(CAST_ALWAYS))
            sides = [("in", e, always) for e in dict.fromkeys(held[1:3])
                     if not (_dtype_values(w, e) is not None and _dtype_values(w, e) <= CAST_ALWAYS)]
            guard = ("not", sides[0] if len(sides) == 1 else ("and", *sides))
            path, line = _cite(src, stmt.offset)
            w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", guard),)), None, path, line,
                                  " ".join(f"a Cast whose dtypes the reader bounds only inside the AICPU "
                                           f"conversions: {stmt.text}".split())[:160]))
            return
        raise Unreadable("a Cast whose dtypes the reader does not bound")
    succeeded = re.fullmatch(r"(.+?)\s*==\s*ACLNN_SUCCESS", cond, re.S)
    if succeeded and _remapped_call(w, succeeded.group(1), env, code):
        return
    call = _macro(cond)
    neg = False
    if cond.startswith("!"):
        neg, call = True, _macro(cond[1:].strip())
    if call:
        fn = w.index.function(call[0])
        if fn is not None and not neg:
            _call_fn(w, fn, call[1], env, fail=code)
            return
    _data_condition(w, src, stmt.offset, f"!({cond})", env, code, stmt.text)


_KERNEL_CALL = r"l0op::(?!Cast\b)\w+\s*\("   # a kernel call (a Cast is read apart: _cast_cannot_fail)


def _kernel_on_every_path(stmts: tuple[Stmt, ...], name: str) -> bool:
    """``name`` is set from a kernel call on every path through ``stmts``: by one of them, or by both
    sides of an if/else among them (an else-if chain ending in an else)."""
    for st in stmts:
        if st.kind == "decl" and re.fullmatch(rf"{re.escape(name)}\s*=\s*{_KERNEL_CALL}.*", st.text.strip(), re.S):
            return True
        if st.kind == "if" and st.orelse and _kernel_on_every_path(st.then, name) and \
                _kernel_on_every_path(st.orelse, name):
            return True
    return False


def _nonnull_names(cond: str) -> list[str] | None:
    """The names ``cond`` checks non-null, one or a conjunction (``a != nullptr && b != nullptr``,
    ``std::get<0>(r) != nullptr`` naming ``r``); None for any other condition."""
    names = []
    for part in _split_top(_strip(cond), "&&"):
        m = re.fullmatch(r"(?:std::get<\d+>\(\s*(\w+)\s*\)|(\w+))\s*!=\s*nullptr", _strip(part))
        if not m:
            return None
        names.append(m.group(1) or m.group(2))
    return names


def _compute_helper(w: Walk, name: str) -> bool:
    """``name`` is a function of the checkout that calls a kernel and checks no parameter (``AllMinMax``
    building a tuple of two kernels' results): what it returns fails only as its kernels do."""
    fn = w.index.function(name)
    if fn is None or not re.search(_KERNEL_CALL, fn.body) or "aclnnStatus" in fn.returns \
            or fn.returns.split()[-1] == "bool":
        return False
    return not _checks_params(w, _compute_only(fn.body)) and not re.search(r"CHECK_RET|OP_CHECK", fn.body)


def _broadcast_to_helper(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(shape, t, executor)``, H a helper of the file allocating a tensor of ``shape`` with t's dtype
    and returning ``l0op::BroadcastTo(t, that tensor, ...)`` (which returns its second argument, ops-math
    conversion/broadcast_to/op_api/broadcast_to.cpp:86-92): ("tensor-dtype", t's dtype, that shape)."""
    call = _macro(_strip(rhs))
    fn = w.index.function(call[0]) if call and match_close(_strip(rhs), _strip(rhs).index("(")) == \
        len(_strip(rhs)) - 1 else None
    if fn is None or len(call[1]) != len(fn.params):
        return None
    body = normalised(fn)
    alloc = re.search(r"\b(\w+)\s*=\s*\w+\s*->\s*AllocTensor\(\s*(\w+)\s*,\s*(\w+)\s*->\s*GetDataType\(\)\s*\)", body)
    if not alloc or alloc.group(2) not in fn.params or alloc.group(3) not in fn.params:
        return None
    dst, src = alloc.group(1), alloc.group(3)
    made = rf"l0op::BroadcastTo\(\s*{src}\s*,\s*{dst}\s*,[^;]*\)"
    returned = re.findall(r"\breturn\b([^;]*);", body)
    local = re.search(rf"\b(\w+)\s*=\s*{made}\s*;", body)
    if len(returned) != 1 or not re.fullmatch(
            rf"\s*(?:const_cast<[^>]*>\s*\(\s*)?(?:{local.group(1) if local else made}|{made})\s*\)?\s*",
            returned[0]):
        return None
    shape = _shape_expr_at(w, call[1][fn.params.index(alloc.group(2))], env)
    dtype = _tensor_dtype(w, call[1][fn.params.index(src)], env)
    if shape is None or dtype is None:
        return None
    return ("tensor-dtype", dtype, ("like", shape[1]) if shape[0] == "of" else ("shape-expr", shape))


def _tensor_shape_expr(held: Any) -> tuple | None:
    """The shape expression of a tensor of the compute path whose view shape the walk knows."""
    if isinstance(held, tuple) and held[:1] in (("tensor-dtype",), ("cast-of",)) and len(held) == len(held[:1]) + \
            (2 if held[0] == "tensor-dtype" else 3) and isinstance(held[-1], tuple) and held[-1][:1] == ("shape-expr",):
        return held[-1][1]
    if isinstance(held, tuple) and held[:1] in (("converted",), ("scalar-tensor",)):
        return ("dims", ())   # a scalar made a tensor: rank 0 (opbase common_types.cpp:284-285)
    like = _shape_like(held)
    return None if like is None else ("of", like)


def _helper_tensor(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``H(args)`` with H a function of the file returning a tensor, every return of it null or the one
    local its last statement returns (``return r;``), and no parameter check in it: what the walk of
    H's body over the arguments holds for that local, when that is a tensor of a known shape and the
    walk records nothing; None otherwise."""
    rhs = _strip(rhs)
    call = _macro(rhs)
    fn = w.index.function(call[0]) if call and match_close(rhs, rhs.index("(")) == len(rhs) - 1 else None
    if fn is None or not re.search(r"aclTensor\s*\*", fn.returns) or len(call[1]) != len(fn.params) or \
            re.search(r"ACLNN_ERR_PARAM|OP_CHECK_", fn.body):
        return None
    stmts = statements(fn.body, fn.body_offset)
    last = re.fullmatch(r"return\s+(\w+)\s*;?", stmts[-1].text.strip()) if stmts and stmts[-1].kind == "return" \
        else None
    if last is None or any(r not in ("nullptr", last.group(1)) for r in re.findall(r"\breturn\b\s*(\w*)", fn.body)):
        return None
    left: dict = {}
    read, _ = _checks_nothing(w, lambda: _run_function(w, fn, _bind(w, fn, call[1], env), fail=None, left=left))
    if not read:
        return None
    held = left.get(last.group(1))
    return held if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and \
        _tensor_shape_expr(held) is not None else None


def _checks_nothing(w: Walk, run: Callable[[], Any]) -> tuple[bool, Any]:
    """(True, what ``run`` returns) where ``run`` (a walk of a helper's body) reads through and emits
    no event: a helper that computes without checking a parameter; (False, None), its events
    undone, otherwise."""
    mark = len(w.events)
    try:
        result = run()
    except (Unreadable, _Stop):
        del w.events[mark:]
        return False, None
    if len(w.events) != mark:
        del w.events[mark:]
        return False, None
    return True, result


def _made_local(w: Walk, rhs: str, env: dict, name: str) -> tuple | None:
    """``std::get<k>(r)`` of a kernel's result, or what a compute helper returns: a kernel result."""
    m = re.fullmatch(r"std::get<(\d+)>\(\s*(\w+)\s*\)", _strip(rhs))
    held = env.get(m.group(2)) if m else None
    if isinstance(held, tuple) and held[:1] == ("tensor-tuple",) and int(m.group(1)) < len(held[1]):
        return ("tensor-dtype", held[1][int(m.group(1))], held[2])   # its elements share the shape
    if isinstance(held, tuple) and held[:1] == ("tensor-dtype",) and len(held) == 3 and held[2] is not None:
        return ("tensor-dtype", None, held[2])   # an element of a tuple whose results share a shape
    if m and _kernel_made(held):
        return ("kernel-result", name)
    call = _macro(_strip(rhs))
    if call and match_close(_strip(rhs), _strip(rhs).index("(")) == len(_strip(rhs)) - 1 \
            and _compute_helper(w, call[0]):
        return ("kernel-result", name)
    return None


def _scalar_same_check(w: Walk, src: SourceFile, stmt: Stmt, cond: str, env: dict, code: int) -> bool:
    """``CheckShapeAndScalarSame(r, out)`` (or another function of that body: true when the view
    shapes are equal or both hold one element) with ``r`` a reduction kernel's result, or a tensor
    whose shape the walk knows, and ``out`` the API's tensor: the reduced-shape rule or the shape
    rule, with the one-element exemption."""
    call = _macro(cond)
    if not call or len(call[1]) != 2:
        return False
    fn = w.index.function(call[0])
    if fn is None or not _shape_or_scalar_body(fn):
        return False
    chosen = [h for h in (env.get(_strip(a)) for a in call[1]) if isinstance(h, tuple) and h[:1] == ("shape-choice",)]
    if len(chosen) == 1:   # each side's kernel checked for the calls taking that side
        _, g, then, orelse, _ = chosen[0]
        for guard, value in ((g, then), (("not", g), orelse)):
            w.guards.append(guard)
            try:
                _scalar_same_check(w, src, stmt, cond, {**env, **{_strip(a): value for a in call[1]
                                                                   if env.get(_strip(a)) is chosen[0]}}, code)
            finally:
                w.guards.pop()
        return True
    held = [_known_side(w, src, stmt, env.get(_strip(a))) for a in call[1]]
    shapes = [h[2] if isinstance(h, tuple) and h[:1] == ("tensor-dtype",) and len(h) == 3
              and isinstance(h[2], tuple) and h[2][:1] == ("rshape",) else None for h in held]
    if all(isinstance(h, T) for h in held):   # two of the API's tensors: their shapes, or one element each
        _check(w, src, stmt.offset, "shapes_equal_or_single", _args(param=held[0].name, other=held[1].name),
               code, stmt.text)
        return True
    for mine, other in ((0, 1), (1, 0)):
        if shapes[mine] is not None and isinstance(held[other], T):
            _, tensor, dims, keepdim, noop = shapes[mine][:5]   # one-element only: the check exempts it
            _check(w, src, stmt.offset, "reduced_shape",
                   _args(param=held[other].name, of=tensor, dims=dims, keepdim=keepdim, scalar_same=True,
                         **({"noop": noop} if noop is not False else {})), code, stmt.text)
            return True
    for mine, other in ((0, 1), (1, 0)):
        expr = None if isinstance(held[mine], T) else _tensor_shape_expr(held[mine])
        if expr is not None and isinstance(held[other], T):
            _shape_or_one_element(w, src, stmt, held[other].name, expr, code)
            return True
    raise Unreadable(f"the shape of a kernel's result the reader does not know: {cond}")


def _shape_or_one_element(w: Walk, src: SourceFile, stmt: Stmt, param: str, shape: tuple, code: int) -> None:
    """``param``'s view shape equals the shape expression ``shape``, unless both hold one element
    (opbase Shape::GetShapeSize: the product of the dims, 1 at rank 0): ``shape_is`` with
    ``scalar_same``, the same exemption as the copy into an output."""
    target = {"shape": ()} if shape == ("dims", ()) else {"shape_expr": shape}
    _check(w, src, stmt.offset, "shape_is", _args(param=param, scalar_same=True, **target), code, stmt.text)


def _known_side(w: Walk, src: SourceFile, stmt: Stmt, held: Any) -> Any:
    """A kernel's result whose shape a branch left known on one side only (``("shape-unless", g,
    known, cond)``): the check reading it is unread for the calls taking the other side (guard g),
    and reads the known side's result for the rest. Anything else as it is."""
    if not (isinstance(held, tuple) and held[:1] == ("shape-unless",)):
        return held
    path, line = _cite(src, stmt.offset)
    w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", held[1]),)), None, path, line,
                          f"the shape of a kernel's result on the side of a branch on {held[3]!r} "
                          f"that reshapes it: {stmt.text.strip()}"[:160]))
    return held[2]


def _shape_or_scalar_body(fn: Function) -> bool:
    """``fn(t0, t1)``: true when the view shapes are equal, or when both have one element; else false."""
    if len(fn.params) != 2:
        return False
    b = re.sub(r"\s+", " ", re.sub(r"\bOP_LOG\w*\s*\([^;]*\)\s*;", "", fn.body)).strip()
    t0, t1 = (re.escape(p) for p in fn.params)
    shapes = rf"auto const& (\w+) = {t0}->GetViewShape\(\); auto const& (\w+) = {t1}->GetViewShape\(\); "
    one_each = r"\1\.GetShapeSize\(\) == 1 && \2\.GetShapeSize\(\) == 1"
    return bool(re.fullmatch(
        shapes + rf"if \(\1 == \2\) {{ return true; }} if \({one_each}\) {{ return true; }} return false;", b)
        # ops-math common/inc/external/aclnn_kernels/common/op_error_check.h:58-71 CheckReduceOutShape
        or re.fullmatch(shapes + rf"if \(\1 != \2\) {{ if \(!\({one_each}\)\) {{ return false; }} }} return true;", b))


def _product_side(w: Walk, stmts: tuple[Stmt, ...], env: dict) -> tuple[Stmt, ...]:
    """``stmts`` when they are one if decided by the product: the side taken (again, when it is one)."""
    while len(stmts) == 1 and stmts[0].kind == "if":
        decided = _product_bool(w, stmts[0].cond.strip(), env)
        if decided is None:
            break
        stmts = stmts[0].then if decided else stmts[0].orelse
    return stmts


def _enclosing_function(src: SourceFile, offset: int) -> Function | None:
    """The function of ``src`` whose body holds ``offset``."""
    return next((f for f in src.functions.values() if f.body_offset <= offset < f.body_offset + len(f.body)), None)


def _enclosing_body(src: SourceFile, offset: int) -> str:
    fn = _enclosing_function(src, offset)
    return fn.body if fn is not None else ""


def _all_dims_of(body: str, arr: str, count: str) -> str | None:
    """``arr`` holds 0 .. n-1 for ``count`` set to a tensor's rank in ``body`` (``dimNum =
    self->GetViewShape().GetDimNum(); for (i = 0; i < dimNum; i++) { dims[i] = i; }``, or the rank of
    a shape local set once to the tensor's view shape): that tensor."""
    c = re.escape(count)
    m = re.search(rf"\b{c}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*;", body)
    tensor = m.group(1) if m else None
    via = re.search(rf"\b{c}\s*=\s*(\w+)\s*\.\s*GetDimNum\(\)\s*;", body) if not m else None
    if via:
        local = re.escape(via.group(1))
        shapes = re.findall(rf"\b{local}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*;", body)
        if len(shapes) == 1 and len(re.findall(rf"\b{local}\s*=(?!=)", body)) == 1:
            tensor = shapes[0]
    loop = re.search(rf"for\s*\([^;]*\b(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(?:static_cast<\s*\w+\s*>\(\s*)?"
                     rf"{c}\s*\)?\s*;[^)]*\)\s*\{{?\s*{re.escape(arr)}\s*\[\s*\1\s*\]\s*=\s*\1\s*;\s*\}}?",
                     body)
    writes = re.findall(rf"\b{re.escape(arr)}\s*\[[^\]]*\]\s*=(?!=)", body)
    return tensor if tensor and loop and len(writes) == 1 else None


def _dims_from_of(body: str, vec: str, count: str, start: int) -> str | None:
    """``vec`` holds start .. n-1 for ``count`` set to a tensor's rank in ``body`` (``for (i = start; i <
    dimNum; i++) { vec.push_back(i); }``, nothing else put in it): that tensor."""
    c, v = re.escape(count), re.escape(vec)
    m = re.search(rf"\b{c}\s*=\s*(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*;", body)
    loop = re.search(rf"for\s*\(\s*(?:u?int(?:64|32)_t|size_t|int)\s+(\w+)\s*=\s*{start}\s*;\s*\1\s*<\s*{c}\s*;"
                     rf"\s*\1\s*\+\+\s*\)\s*\{{\s*{v}\s*\.\s*(?:push_back|emplace_back)\(\s*\1\s*\)\s*;\s*\}}", body)
    puts = re.findall(rf"\b{v}\s*(?:\.\s*(?:push_back|emplace_back|insert|resize|assign)\s*\(|\[|=(?!=))", body)
    declared = re.search(rf"std::vector<int64_t>\s+{v}\s*(?:=\s*\{{\s*\}})?\s*;", body)
    return m.group(1) if m and loop and declared and len(puts) == 1 + bool(re.search(rf"{v}\s*=\s*\{{", body)) \
        else None


_ALLOC_DIMS = r"(?:\w+(?:\.get\(\))?\s*->\s*)?AllocIntArray\(\s*(\w+)(?:\s*\.\s*data\(\))?\s*,\s*(\w+)\s*\)"
_CONVERT = r"(?:\w+(?:\.get\(\))?\s*->\s*)?ConvertToTensor\((.*)\)"


def _dims_local(w: Walk, src: SourceFile, stmt: Stmt, rhs: str, env: dict) -> tuple | None:
    """The dims a reduction kernel is given: ("all-dims", tensor) for an int array of every dim of
    an API tensor (built here, or returned by a helper building it from its tensor parameter);
    ("dims-of", name) for a tensor made of the API's int array or its one int."""
    rhs = _strip(rhs)
    m = re.fullmatch(_ALLOC_DIMS, rhs)
    if m and m.group(2) == "1":   # ``int64_t a[1] = {dim}; AllocIntArray(a, 1)``: the API's one int as dims
        body = _enclosing_body(src, stmt.offset)
        one = re.findall(rf"int64_t\s+{re.escape(m.group(1))}\s*\[\s*1?\s*\]\s*=\s*\{{\s*(\w+)\s*\}}\s*;", body)
        v = env.get(one[0]) if len(one) == 1 else None
        written = re.findall(rf"\b{re.escape(m.group(1))}\s*(?:\[[^\]]*\]\s*)?=(?!=)", body)
        if isinstance(v, T) and len(written) == 1 and re.search(r"int64_t|int32_t", w.ptypes.get(v.name, "")):
            return ("dims-of", v.name)
        if _is_int(v) and len(written) == 1:   # a helper's int parameter given a constant: that one element
            return ("dims-vector", ("shape-expr", ("dims", (v,))))
        return None
    if m:
        t = _all_dims_of(_enclosing_body(src, stmt.offset), m.group(1), m.group(2))
        return ("all-dims", env[t].name) if t and isinstance(env.get(t), T) else None
    m = re.fullmatch(r"(?:op::)?aclCreateIntArray\(\s*(\w+)\s*\.\s*data\(\)\s*,\s*(\w+)\s*-\s*(\d+)\s*\)", rhs)
    if m:   # the dims k .. rank-1 of a tensor, pushed in a loop (aclnn_global_average_pool.cpp:153-158)
        t = _dims_from_of(_enclosing_body(src, stmt.offset), m.group(1), m.group(2), int(m.group(3)))
        return ("dims-from", env[t].name, int(m.group(3))) if t and isinstance(env.get(t), T) else None
    m = re.fullmatch(_CONVERT, rhs, re.S)
    if m:
        args = [a.strip() for a in split_args(m.group(1))]
        one = re.fullmatch(r"&\s*(\w+)", args[0]) if len(args) == 3 and args[1] == "1" else None
        v = env.get(one.group(1) if one else args[0])
        if one and isinstance(v, T) and re.search(r"int64_t|int32_t", w.ptypes.get(v.name, "")):
            return ("dims-of", v.name)
        if len(args) == 2 and isinstance(v, T) and "IntArray" in w.ptypes.get(v.name, ""):
            return ("dims-of", v.name)
        if len(args) == 2 and isinstance(v, tuple) and v[:1] == ("all-dims",):
            return v
        return None
    call = _macro(rhs)
    fn = w.index.function(call[0]) if call and match_close(rhs, rhs.index("(")) == len(rhs) - 1 else None
    if fn is None or len(fn.params) != len(call[1]):
        return None
    back = re.findall(r"\breturn\s+(\w+)\s*;", fn.body)
    sets = re.findall(rf"\b{back[0]}\s*=\s*({_ALLOC_DIMS})\s*;", fn.body) if len(back) == 1 else \
        re.findall(rf"\breturn\s+({_ALLOC_DIMS})\s*;", fn.body) if not back else []   # returned as made
    if len(sets) != 1 or re.search(r"ACLNN_ERR_PARAM|OP_CHECK|CHECK_RET", fn.body):
        return None
    t = _all_dims_of(fn.body, sets[0][1], sets[0][2])
    arg = call[1][fn.params.index(t)].strip() if t in fn.params else None
    return ("all-dims", env[arg].name) if arg and isinstance(env.get(arg), T) else None


def _kernel_choice(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``G ? l0op::A(..) : l0op::B(..)`` with G a condition on dtypes and both kernels' result dtypes
    read: ("tensor-dtype", ("if", G, A's, B's) or their one dtype, the one shape both have or None)."""
    q = _split_top(_strip(rhs), "?")
    branches = [_strip(b) for b in _split_colon(q[1])] if len(q) == 2 else []
    if len(branches) != 2 or not all(re.fullmatch(_KERNEL_CALL + r".*\)", b, re.S) for b in branches):
        return None
    held = [_kernel_result(w, b, env) for b in branches]
    if not all(isinstance(h, tuple) and h[:1] == ("tensor-dtype",) and h[1] is not None for h in held):
        return None
    guard = _guard(w, q[0], env)
    if guard is None:
        return None
    shapes = {h[2] if len(h) == 3 else None for h in held}
    dtype = held[0][1] if held[0][1] == held[1][1] else ("if", guard, held[0][1], held[1][1])
    return ("tensor-dtype", dtype, shapes.pop() if len(shapes) == 1 else None)


def _choice_like(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``C ? A : B`` choosing between tensors of the compute path with one API tensor's shape (``self
    is BOOL ? Cast(x, UINT8) : x``): ("like", that tensor); its dtype is not held."""
    q = _split_top(_strip(rhs), "?")
    branches = _split_colon(q[1]) if len(q) == 2 else []
    if len(branches) != 2:
        return None
    likes = set()
    for b in branches:
        b = _strip(b)
        held = env.get(b) if re.fullmatch(r"[A-Za-z_]\w*", b) else _kernel_result(w, b, env)
        likes.add(_shape_like(held))
    return ("like", likes.pop()) if len(likes) == 1 and None not in likes else None


def _lambda_like(rhs: str, env: dict) -> tuple | None:
    """An immediately invoked lambda every return of which gives one tensor of the compute path or a
    Cast of it (the dtype chosen in branches): ("like", the API tensor whose shape it has). A local
    it reassigns must be a view of that tensor (``const_cast``)."""
    m = re.fullmatch(r"\[[^\]]*\]\s*\(\s*\)\s*(?:->\s*[^{]+)?\{(.*)\}\s*\(\s*\)", _strip(rhs), re.S)
    if not m or re.search(r"ACLNN_ERR_PARAM|OP_CHECK|CHECK_RET", m.group(1)):
        return None
    body = m.group(1)
    sources = {r.group(1) or r.group(2) for r in re.finditer(
        r"\breturn\s+(?:(\w+)\s*;|l0op::Cast\(\s*(\w+)\s*,[^;]*\)\s*;)", body)}
    if len(sources) != 1 or len(re.findall(r"\breturn\b", body)) != len(re.findall(
            r"\breturn\s+(?:\w+\s*;|l0op::Cast\(\s*\w+\s*,[^;]*\)\s*;)", body)):
        return None
    v = sources.pop()
    for a in re.finditer(rf"(?<![\w>.])\b{re.escape(v)}\s*=(?!=)\s*(\w+)\s*;", body):
        if not re.search(rf"\b{a.group(1)}\s*=\s*const_cast<[^>]*>\(\s*{re.escape(v)}\s*\)", body):
            return None
    if re.search(rf"(?<![\w>.])\b{re.escape(v)}\s*=(?!=)(?!\s*\w+\s*;)", body):
        return None
    tensor = _shape_like(env.get(v))
    return ("like", tensor) if tensor else None


def _view_copy(rhs: str, env: dict) -> tuple | None:
    """``l0op::ViewCopy(r, out, executor)`` with ``out`` an API tensor: ("view-copy", what r holds,
    out). It returns null when the view shapes of r and out differ unless both hold one element
    (ops-math conversion/contiguous/op_host/op_api/contiguous.cpp:656-664)."""
    call = _macro(_strip(rhs))
    if not call or call[0] != "l0op::ViewCopy" or len(call[1]) != 3 or \
            match_close(_strip(rhs), _strip(rhs).index("(")) != len(_strip(rhs)) - 1:
        return None
    out = env.get(_strip(call[1][1]))
    return ("view-copy", env.get(_strip(call[1][0])), out.name) if isinstance(out, T) else None


def _view_copy_check(w: Walk, src: SourceFile, stmt: Stmt, held: Any, code: int) -> bool:
    """``CHECK_RET(v != nullptr, code)`` with v a ViewCopy into an API tensor (``_view_copy``): where the
    walk knows the copied result's view shape, ``shape_is`` of the output with the one-element
    exemption; otherwise no rule (a kernel's result whose shape is not read, as ``_kernel_made``)."""
    if not (isinstance(held, tuple) and held[:1] == ("view-copy",)):
        return False
    result, other = held[1], None
    if isinstance(result, tuple) and result[:1] == ("shape-unless",):   # known on one side of a branch:
        result, other = result[2], result[1]   # the rule for the calls taking that side, none for the rest
    shape = _tensor_shape_expr(result)
    if isinstance(result, tuple) and result[:1] == ("shape-choice",):   # a shape on each side of a branch
        sides = [_tensor_shape_expr(v) for v in result[2:4]]
        shape = None if None in sides else ("?", ("guard", result[1]), *sides)
    if shape is not None:
        w.guards.extend([("not", other)] if other is not None else [])
        try:
            _check(w, src, stmt.offset, "shape_is", _args(param=held[2], shape_expr=shape, scalar_same=True),
                   code, stmt.text)
        finally:
            del w.guards[len(w.guards) - (other is not None):]
    return True


def _kernel_made(held: Any) -> bool:
    """A local holding what a kernel call (``l0op::K(...)``, not a Cast) returned: a null result is
    that kernel's failure (its infer-shape and checks are read for no API, like the tiling), whatever
    status the op_api names for it (ACLNN_ERR_INNER_NULLPTR mostly, ACLNN_ERR_PARAM_NULLPTR in some)."""
    if isinstance(held, tuple) and held[:1] in (("tensor-dtype",), ("kernel-result",), ("tensor-tuple",),
                                                 ("shape-unless",), ("shape-choice",), ("view-copy",)):
        return True
    if not isinstance(held, Opaque):
        return False
    q = _split_top(held.text, "?")   # a choice between two kernels' results
    choices = _split_colon(q[1]) if len(q) == 2 else [held.text]
    return len(choices) in (1, 2) and all(re.fullmatch(_KERNEL_CALL + r".*\)", c.strip(), re.S) for c in choices)


def _check_ret_false(w: Walk, cond: str, env: dict, fail: int) -> bool:
    """``CHECK_RET(C, false)`` in a bool check function (``if (!C) return false``: the caller's status):
    C a call of a check function, or a local holding one's result (``ok = F(...); CHECK_RET(ok, false)``,
    F read here with its arguments' values now). F's checks are read with the caller's status."""
    held = env.get(cond) if re.fullmatch(r"\w+", cond) else None
    text = held.text.strip() if isinstance(held, Opaque) else cond
    call = _macro(text)
    if not call or match_close(text, text.index("(")) != len(text) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or not _is_checker(fn):
        return False
    _call_fn(w, fn, call[1], env, fail=fail)
    return True


_CONTIGUOUS = re.compile(r"(?:l0op::)?Contiguous\(\s*(\w+)\s*,[^()]*(?:\([^()]*\))?[^()]*\)")
# ``executor->CreateView(t, t->GetViewShape(), ...)``: a view of an API tensor with its own view shape
_SAME_VIEW = re.compile(r"(?:\w+(?:\.get\(\))?\s*->\s*)?CreateView\(\s*(\w+)\s*,\s*\1\s*->\s*GetViewShape\(\)\s*,"
                        r"[^;]*\)", re.S)


def _contiguous_null_check(cond: str, env: dict) -> bool:
    """``CHECK_RET(xContiguous != nullptr, ACLNN_ERR_PARAM_NULLPTR)`` after ``xContiguous =
    l0op::Contiguous(x, executor)`` of an API argument x (checked non-null before): Contiguous returns
    nullptr only for a view outside its storage (opbase Validate) or an inner failure; a tensor of a
    shape (all the templates describe) always passes it: no parameter check."""
    null = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", cond)
    held = env.get(null.group(1) or null.group(2)) if null else None
    return isinstance(held, tuple) and held[:1] == ("copy-of",)


def _remapped_call(w: Walk, expr: str, env: dict, code: int, only: int | None = None) -> bool:
    """``CHECK_RET(F(...) == ACLNN_SUCCESS, code)``: every failure of F returns ``code``, whatever
    status F itself returns (its checks are read with that status). With ``only``, the caller fails
    on F's status ``only`` alone (``if (F(...) == only)``): read where every check of F fails with it.
    F may be a function template called with a number type (``F<float>(a, b)``): read where each
    parameter of that type receives a scalar value the caller read as that type (``_scalar_local``)."""
    expr = _strip(expr)
    m = _TEMPLATE_CALL.match(expr)
    call = (m.group(1), split_args(expr[m.end():-1])) if m else _macro(expr)
    if not call or match_close(expr, expr.index("(")) != len(expr) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or not fn.returns.endswith("aclnnStatus"):
        return False
    if m:
        _template_numbers(w, fn, m.group(2), call[1], env)
    mark = len(w.events)
    _call_fn(w, fn, call[1], env, fail=code)
    if only is not None and any(e.kind == "check" and e.status != only for e in w.events[mark:]):
        raise Unreadable(f"{fn.name} failing with a status other than the one its caller tests")
    w.events[mark:] = [replace(e, status=code) if e.kind == "check" and e.status else e
                       for e in w.events[mark:]]
    return True


_TEMPLATE_CALL = re.compile(r"([A-Za-z_]\w*)\s*<\s*([\w:]+)\s*>\s*\(")
_NUMBER_TYPES = {"float": "float", "double": "double", "int64_t": "int64", "int32_t": "int32"}


def _template_numbers(w: Walk, fn: Function, type_arg: str, args: list[str], env: dict) -> None:
    """A call ``fn<type_arg>(args)`` of ``template <typename T>`` fn: each parameter of type T must
    receive a scalar value read as ``type_arg`` (a ``float`` local of ``x->ToFloat()`` for
    ``F<float>``), so that the callee compares the values the C++ compares; Unreadable otherwise."""
    tm = re.match(r"template\s*<\s*(?:typename|class)\s+(\w+)\s*>", fn.returns)
    kind = _NUMBER_TYPES.get(type_arg.split("::")[-1])
    if tm is None or kind is None or len(args) != len(fn.params):
        raise Unreadable(f"the call {fn.name}<{type_arg}>(...)")
    for arg, ctype in zip(args, fn.param_types):
        if re.sub(r"\bconst\b|&", "", ctype).strip() != tm.group(1):
            continue
        held = env.get(_strip(arg))
        if not (isinstance(held, tuple) and held[:1] == ("number",) and held[2] == kind):
            raise Unreadable(f"{arg.strip()!r} passed as {type_arg} to {fn.name}")


def _run_status_compare(w: Walk, cond: str, env: dict, code: int) -> bool:
    """``if (F(...) != ACLNN_SUCCESS) { return <error>; }`` with F an aclnnStatus function (as
    CHECK_RET(F(...) == ACLNN_SUCCESS, error)), or ``if (F(...) == E)`` failing on F's status E:
    F inlined with its failures at ``code``."""
    m = re.fullmatch(r"(.+?)\s*(==|!=)\s*((?:\w+::)*ACLNN_\w+)", _strip(cond), re.S)
    status = _status_of(m.group(3)) if m else None
    if status is None or (m.group(2) == "!=") != (status == 0):
        return False
    return _remapped_call(w, m.group(1), env, code, only=status or None)


def _run_return(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> None:
    value = stmt.text.strip()[len("return"):].strip()
    if value == "true" or value in SUCCESS_NAMES:
        raise _End(True)
    if value == "false" and fail is None:
        raise _End(False)   # a plain bool function (a product test) returning false
    if value == "false" or _status_of(value) in PARAM_CODES:
        # reached on this product whatever the call: every call of the product fails here
        code = fail if value == "false" else _status_of(value)
        _check(w, src, stmt.offset, "product", (), code, stmt.text)
        raise _End(False)
    call = _macro(value)
    if call:
        fn = w.index.function(call[0])
        if fn is not None and (fn.returns.endswith("aclnnStatus") or fn.name.endswith("GetWorkspaceSize")):
            if w.depth == w.api_depth and not w.guards:   # the API's body continues in the callee
                w.api_depth += 1
                try:
                    _call_fn(w, fn, call[1], env, fail=None)
                finally:
                    w.api_depth -= 1
            else:
                _call_fn(w, fn, call[1], env, fail=None)
            raise _End(True)
        if fn is not None and _is_checker(fn) and fail is not None:
            _call_fn(w, fn, call[1], env, fail=fail)
            raise _End(True)
    names = _nonnull_names(value) if fail is not None else None
    if names and all(_kernel_made(env.get(n)) for n in names):
        raise _End(True)   # kernel results (or a kernel tuple's elements) checked non-null: no parameter check
    held = env.get(value) if re.fullmatch(r"\w+", value) else None
    if isinstance(held, tuple) and held[:1] == ("guard",) and fail is not None:
        # a check function returning a condition on the call's dtypes: it fails where that does not hold
        atom = _guard_atom(("not", held[1]))
        if atom is None:
            raise Unreadable(f"a check function returning {value!r}")
        _check(w, src, stmt.offset, atom[0], atom[1], fail, stmt.text)
        raise _End(True)
    if isinstance(held, tuple) and _dexpr(held) is None:
        raise _End(True)
    found = _list_find(w, _split_top(value, "!=")[0], env) if fail is not None and \
        len(_split_top(value, "!=")) == 2 and re.fullmatch(r"[\w:]+\s*\.\s*end\(\)", _split_top(value, "!=")[1].strip()) \
        else None
    if found is not None and found[1][1][0] == "of":
        # ``return std::find(L.begin(), L.end(), t->GetDataType()) != L.end();`` in a check function
        _check(w, src, stmt.offset, "dtype_in", _args(param=found[1][1][1], dtypes=list(found[1][2]),
                                                      list=found[1][3]), fail, stmt.text)
        raise _End(True)
    if isinstance(held, Opaque) and fail is not None:
        # a check function returning a bool local set once to a condition: it fails where that does
        # not hold (each conjunct a check, read as a failing condition or left unread)
        fn = _enclosing_function(src, stmt.offset)
        sets = re.findall(rf"\b{re.escape(value)}\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)", fn.body) if fn is not None else []
        if len(sets) != 1 or re.fullmatch(rf"{re.escape(value)}\s*=.*", held.text.strip(), re.S):
            raise Unreadable(f"a check function returning {value!r}")
        _data_condition(w, src, stmt.offset, f"!({held.text})", env, fail, stmt.text)
        raise _End(True)
    try:
        returned = _value(w, value, env)
    except Unreadable:
        if fail is not None:
            raise Unreadable(f"a check function returning {value!r}") from None
        raise _End(Opaque(value)) from None
    if fail is not None and returned is False:   # a check function's local false on this product
        _check(w, src, stmt.offset, "product", (), fail, stmt.text)
        raise _End(False)
    if fail is not None and returned is not True:   # a check's result the reader does not know
        raise Unreadable(f"a check function returning {value!r}")
    raise _End(returned)


def _returns_success_only(stmt: Stmt, logs: bool = False) -> bool:
    """An ``if`` without else whose branch is ``return true;`` (or success) alone, or with ``logs``
    after log calls only."""
    then = stmt.then
    if stmt.orelse or not then or then[-1].kind != "return" or \
            then[-1].text.strip().rstrip(";").split()[-1] not in ("true", *SUCCESS_NAMES):
        return False
    if not logs:
        return len(then) == 1
    return all(s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) for s in then[:-1])


def _no_dims_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (dim == nullptr || dim->Size() == 0) { return true; }`` (or the size test alone) on an
    integer array argument: the rest of the function checks only the calls that name dims (its
    checks carry ``when`` not ``no-dims``)."""
    if not _returns_success_only(stmt):
        return False
    flat = re.sub(r"\s+", "", _strip(stmt.cond))
    m = re.fullmatch(r"(?:(\w+)==nullptr\|\|)?(\w+)->Size\(\)==0", flat)
    if not m or (m.group(1) and m.group(1) != m.group(2)):
        return False
    v = env.get(m.group(2))
    if not isinstance(v, T) or "IntArray" not in w.ptypes.get(v.name, ""):
        return False
    w.guards.append(("not", ("no-dims", v.name)))   # popped when the function ends (_run_function)
    return True


def _rank0_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { return true; }`` on a tensor's rank: the rest of the function checks the
    calls whose tensor has a dim (its checks carry ``when`` not ``rank-zero``)."""
    if not _returns_success_only(stmt):
        return False
    tensor = _rank_zero_test(w, stmt.cond, env)
    if tensor is None:
        return False
    w.guards.append(("not", ("rank-zero", tensor)))   # popped when the function ends (_run_function)
    return True


def _rank0_value_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { if (dim == 0 || dim == -1) { return true; } }``, or the two tests in one
    conjunction: the rest of the function checks the calls other than a rank-0 tensor with such a
    value (``when`` not both)."""
    parts = _split_top(_strip(stmt.cond), "&&")
    if len(parts) == 2 and _returns_success_only(stmt):   # ``if (rank == 0 && (dim == 0 || dim == -1))``
        for rank_part, value_part in (parts, parts[::-1]):
            tensor = _rank_zero_test(w, rank_part, env)
            test = _value_test(w, value_part, env) if tensor is not None else None
            if test is not None:
                w.guards.append(("not", ("and", ("rank-zero", tensor), ("value", test))))
                return True
    tensor = _rank_zero_test(w, stmt.cond, env)
    if tensor is None or stmt.orelse or len(stmt.then) != 1 or stmt.then[0].kind != "if" or \
            not _returns_success_only(stmt.then[0]):
        return False
    test = _value_test(w, stmt.then[0].cond, env)
    if test is None:
        return False
    w.guards.append(("not", ("and", ("rank-zero", tensor), ("value", test))))   # popped by _run_function
    return True


def _rank_zero_test(w: Walk, cond: str, env: dict) -> str | None:
    """``rank == 0`` (or ``rank <= 0``: a rank is never negative) on a tensor's rank: the tensor."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] not in ("==", "<="):
        return None
    try:
        r, zero = _value(w, cmp[0], env), _value(w, cmp[2], env)
    except Unreadable:
        return None
    lr = _lin(r)
    return lr[1] if lr and lr[2] == 1 and lr[3] == 0 and lr[4] == 0 and zero == 0 else None


def _wrap_negative_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (d < 0) { d = d + rank; }`` (or ``d += rank``) with d holding an integer argument and rank a
    tensor's: d holds that argument's dim of the tensor, wrapped (``("wrapped-dim", attr, tensor)``)."""
    cmp = _compare_split(_strip(stmt.cond))
    if stmt.orelse or len(stmt.then) != 1 or cmp is None or cmp[1] != "<" or cmp[2].strip() != "0":
        return False
    d = cmp[0].strip()
    held = env.get(d)
    if not (isinstance(held, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)",
                                                   w.ptypes.get(held.name, "").strip())):
        return False
    m = re.fullmatch(r"(\w+)\s*(?:\+=\s*(.+)|=\s*\1\s*\+\s*(.+))", stmt.then[0].text.strip().rstrip(";"))
    # the tested value, or a local copy of the same argument (``positive = dim; if (dim < 0) positive += n``)
    if not m or not (m.group(1) == d or env.get(m.group(1)) == held):
        return False
    d = m.group(1)
    m = re.fullmatch(r"\w+\s*(?:\+=\s*(.+)|=\s*\w+\s*\+\s*(.+))", stmt.then[0].text.strip().rstrip(";"))
    try:
        rank = _lin(_value(w, m.group(1) or m.group(2), env))
    except Unreadable:
        return False
    if not (rank and rank[2] == 1 and rank[3] == 0 and rank[4] == 0):
        return False
    env[d] = ("wrapped-dim", held.name, rank[1])
    return True


def _run_fill_empty(w: Walk, src: SourceFile, stmt: Stmt, env: dict, empties: list[str]) -> None:
    """``if (self->IsEmpty()) { ret = FillScalar(out, v, executor); ...; return ret; }`` in
    GetWorkspaceSize: the checks of the status function it calls hold for the empty calls (``when``
    empty; a return of the callee on an empty ``out`` ends it), and the branch is the empty-tensor
    return. Returns without effect when the branch is anything else."""
    body = list(stmt.then)
    last = body[-1].text.strip().rstrip(";") if body and body[-1].kind == "return" else ""
    rm = re.fullmatch(r"return\s+(\w+)", last)
    calls = [(i, st) for i, st in enumerate(body[:-1]) if st.kind == "decl"
             and re.match(r"(?:auto\s+|aclnnStatus\s+)?(\w+)\s*=\s*[A-Za-z_][\w:]*\s*\(", st.text.strip())]
    if not rm or len(calls) != 1:
        return
    i, call_stmt = calls[0]
    cm = re.match(r"(?:auto\s+|aclnnStatus\s+)?(\w+)\s*=\s*(.+)$", call_stmt.text.strip(), re.S)
    call = _macro(cm.group(2).strip())
    fn = w.index.function(call[0]) if call else None
    if fn is None or not fn.returns.endswith("aclnnStatus") or rm.group(1) not in (cm.group(1), *SUCCESS_NAMES):
        return
    others = [st for k, st in enumerate(body[:-1]) if k != i]
    if any(_checks_params(w, st.text + "".join(x.text for x in _flatten(st.then + st.orelse))) for st in others):
        return
    mark = len(w.events)
    guard = ("empty", tuple(sorted(empties)), " || " in stmt.cond or len(empties) == 1)
    w.guards.append(guard)
    try:
        _call_fn(w, fn, call[1], dict(env), fail=None)
    except _Stop as stop:
        if not stop.empty:   # an unread construct in the callee: it stands, the walk ends
            raise
    except _End:
        pass
    finally:
        w.guards.pop()
    # the callee's own empty return (an empty ``out``) ends the fill, not the API's checks
    w.events[mark:] = [e for e in w.events[mark:] if e.kind != "empty"]
    if any(e.kind == "unread" for e in w.events[mark:]):
        raise _Stop()
    path, line = _cite(src, stmt.offset)
    w.events.append(Event("empty", "empty", _args(params=sorted(empties), any=guard[2]), 0, path, line,
                          stmt.cond.strip()))
    stop = _Stop(empty=True)
    stop.origin, stop.guard = stmt, guard
    raise stop


def _error_exit(stmts: tuple[Stmt, ...], fail: int | None) -> int | None:
    """The status a branch fails with when it only logs and returns an error; None otherwise."""
    if not stmts:
        return None
    *logs, last = stmts
    if any(not (s.kind == "call" and IGNORED_CALLS.match(s.text.strip()) or
                s.kind == "if" and all(x.kind == "call" and IGNORED_CALLS.match(x.text.strip())
                                       for x in _flatten(s.then + s.orelse))) for s in logs):
        return None   # a log, or a branch choosing between logs
    if last.kind != "return":
        return None
    try:
        code = _fail_status(last.text, fail)
    except Unreadable:
        return None
    return code if code != 0 else None


def _empty_exit(stmts: tuple[Stmt, ...], w: Walk | None = None) -> bool:
    """A branch that returns success: with the walk, only when the statements before that return
    check no parameter (a compute path: an inner status checked on the tensors it builds, a fill,
    the workspace size set)."""
    if not (stmts and stmts[-1].kind == "return"):
        return False
    last = stmts[-1].text.strip().rstrip(";")
    if last not in tuple(f"return {n}" for n in SUCCESS_NAMES) and not (w is not None and _status_local(last, stmts)):
        return False
    if len(stmts) == 1 or w is None:
        return True
    body = "".join(s.text + ";" for s in _flatten(stmts[:-1]))
    return not _checks_params(w, _compute_only(body)) and not re.search(r"CHECK_RET", _compute_only(body))


def _without_true_product_terms(w: Walk, cond: str, env: dict) -> str:
    """``!IsRegbase() && (a->IsEmpty() || b->IsEmpty())`` on a product where the product term holds:
    the rest of the conjunction (on the others the whole condition was decided false before)."""
    parts = _split_top(_strip(cond), "&&")
    if len(parts) < 2:
        return cond
    kept = [p for p in parts if _product_bool(w, p, env) is not True]
    return " && ".join(kept) if kept and len(kept) < len(parts) else cond


def _status_local(last: str, stmts: tuple[Stmt, ...]) -> bool:
    """``return ret;`` with ``ret`` set in the branch only from calls (``ret = Fill(...)``): the status
    of a compute path (the caller checks that no parameter check is made there)."""
    m = re.fullmatch(r"return\s+(\w+)", last)
    if not m:
        return False
    sets = [s for s in _flatten(stmts[:-1]) if re.match(r"(?:auto\s+|aclnnStatus\s+)?" + m.group(1) + r"\s*=", s.text.strip())]
    return bool(sets) and all(re.match(r"(?:auto\s+|aclnnStatus\s+)?\w+\s*=\s*[A-Za-z_][\w:]*\s*\(", s.text.strip())
                              for s in sets)


def _compute_only(text: str, w: Walk | None = None, env: dict | None = None) -> str:
    """``text`` without the inner-status checks of a compute path (``CHECK_RET(x != nullptr,
    ACLNN_ERR_INNER_NULLPTR)``) and the statuses of calls passed on: what is left is what could
    check a parameter."""
    text = re.sub(r"CHECK_RET\s*\([^;]*,\s*ACLNN_ERR_INNER_\w+\s*\)", "", text)
    # a kernel's result checked with a parameter status (``auto r = l0op::Mul(...); CHECK_RET(r !=
    # nullptr, ACLNN_ERR_PARAM_NULLPTR)``): the kernel's own failure, as _kernel_made says; so are
    # an element of one (``std::get<0>(r)``) and what a compute helper of the file returns
    made = set(re.findall(r"\b(\w+)\s*=\s*" + _KERNEL_CALL, text))
    made |= {k for k, v in (env or {}).items() if _kernel_made(v)}
    if w is not None:
        made |= {m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*([A-Za-z_][\w:]*)\s*\(", text)
                 if _compute_helper(w, m.group(2))}
    for _ in range(2):   # an element of a made tuple, taken after it
        made |= {m.group(1) for m in re.finditer(r"\b(\w+)\s*=\s*std::get<\d+>\(\s*(\w+)\s*\)", text)
                 if m.group(2) in made}
    text = re.sub(r"CHECK_RET\s*\(([^;]*?),\s*ACLNN_ERR_PARAM_NULLPTR\s*\)",
                  lambda m: "" if _nonnull_names(m.group(1)) and set(_nonnull_names(m.group(1))) <= made
                  else m.group(0), text)
    # a call's status passed on (``ret = FillScalar(...); CHECK_RET(ret == ACLNN_SUCCESS, ret)``): the
    # call stays in the text, so a parameter check it makes is still found
    return re.sub(r"CHECK_RET\s*\(\s*(\w+)\s*==\s*ACLNN_SUCCESS\s*,\s*\1\s*\)", "", text)


def _run_if(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> None:
    cond = stmt.cond.strip()
    decided = _product_bool(w, cond, env)
    if decided is not None:
        _run_block(w, src, stmt.then if decided else stmt.orelse, env, fail, top)
        return
    # a branch holding only a product branch (``if (IsRegBase()) { error } else { warn }``): the side
    # this product takes, so a data branch failing on some products only reads as one that fails
    then, orelse = _product_side(w, stmt.then, env), _product_side(w, stmt.orelse, env)
    if (then, orelse) != (stmt.then, stmt.orelse):
        stmt = replace(stmt, then=then, orelse=orelse)
    if _no_dims_return(w, stmt, env) or _value_return(w, stmt, env) or _rank0_return(w, stmt, env) \
            or _rank0_value_return(w, stmt, env) or _wrap_negative_dim(w, stmt, env) \
            or _leading_ones_branch(w, stmt, env):
        return
    cond = _without_true_product_terms(w, cond, env)
    empties = _empty_params(cond, env)
    if not empties and _empty_exit(stmt.then):
        cond, empties = _empty_helper(w, cond, env)
    if empties and not stmt.orelse and not _empty_exit(stmt.then, w) and w.depth == w.api_depth and not w.guards:
        _run_fill_empty(w, src, stmt, env, empties)
    if empties and _empty_exit(stmt.then, w):
        path, line = _cite(src, stmt.offset)
        w.events.append(Event("empty", "empty", _args(params=sorted(empties), any=" || " in cond or
                                                       len(empties) == 1), 0, path, line, stmt.cond.strip()))
        stop = _Stop(empty=True)
        stop.origin, stop.guard = stmt, ("empty", tuple(sorted(empties)), " || " in cond or len(empties) == 1)
        raise stop
    code = _error_exit(stmt.then, fail)
    if code is not None and not stmt.orelse and (_infer_broadcast(w, src, stmt, env, cond, code)
                                                 or _run_negated_checker(w, cond, env, code)
                                                 or _run_status_compare(w, cond, env, code)):
        return
    if code is not None and not stmt.orelse:
        _data_condition(w, src, stmt.offset, cond, env, code, "if (" + stmt.cond.strip() + ")")
        return
    call = _macro(cond[1:].strip()) if cond.startswith("!") else None
    if call and code is not None:
        fn = w.index.function(call[0])
        if fn is not None:
            _call_fn(w, fn, call[1], env, fail=code)
            return
    if _rank0_branch(w, stmt, env) or _every_dim_if_empty(w, src, stmt, env) or \
            _run_guarded_if(w, src, stmt, env, fail, top) or _run_nonnull_branch(w, src, stmt, env, fail, top):
        return
    if all(s.kind == "call" and re.fullmatch(r"OP_LOG\w*\s*\(.*\)\s*;?", s.text.strip(), re.S)
           for s in _flatten(stmt.then + stmt.orelse)):
        return   # a branch that only logs (``if (!valid) { OP_LOGE(...); }``): no check
    inner = "".join(s.text + ";" for s in _flatten(stmt.then + stmt.orelse))
    compute = _compute_only(inner, w, env)   # an inner status checked on the compute path is no parameter check
    if _checks_params(w, compute) or re.search(r"CHECK_RET", compute):
        if stmt.orelse and _same_checks_both_sides(w, src, stmt, env, fail, top):
            return
        raise Unreadable(f"a branch on {cond!r} holding checks")
    if any(s.kind == "return" for s in _flatten(stmt.then + stmt.orelse)):
        raise Unreadable(f"a branch on {cond!r} that returns")
    _forget_assigned(stmt, env)
    # a branch of the compute path: nothing is checked there


# ---- values and conditions ----

def _strip(expr: str) -> str:
    expr = expr.strip()
    while expr.startswith("(") and match_close(expr, 0) == len(expr) - 1:
        expr = expr[1:-1].strip()
    return expr


def _split_top(expr: str, op: str) -> list[str]:
    parts, depth, cur, i = [], 0, [], 0
    while i < len(expr):
        c = expr[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        if depth == 0 and expr.startswith(op, i):
            parts.append("".join(cur))
            cur = []
            i += len(op)
            continue
        cur.append(c)
        i += 1
    parts.append("".join(cur))
    return [p.strip() for p in parts]


_CAST = re.compile(r"^(?:const_cast|static_cast|reinterpret_cast)\s*<[^<>]*(?:<[^<>]*>[^<>]*)?>\s*\(")


def _value(w: Walk, expr: str, env: dict) -> Any:
    expr = _strip(expr)
    cm = _CAST.match(expr)
    if cm and match_close(expr, cm.end() - 1) == len(expr) - 1:
        return _value(w, expr[cm.end():-1], env)
    cm = re.match(r"^\((?:const\s+)?(?:op::)?acl\w+\s*\*\)\s*", expr)
    if cm:
        return _value(w, expr[cm.end():], env)
    q = _split_top(expr, "?")
    if len(q) == 2:
        branches = _split_colon(q[1])
        if len(branches) == 2:
            decided = _product_bool(w, q[0], env)
            if decided is None and _rank_choice(w, q[0], branches, env) is not None:
                return _rank_choice(w, q[0], branches, env)
            if decided is None and _wrapped_choice(w, q[0], branches, env) is not None:
                return _wrapped_choice(w, q[0], branches, env)
            if decided is None and _int_choice(w, q[0], branches, env) is not None:
                return _int_choice(w, q[0], branches, env)
            if decided is None:
                return _data_choice(w, q[0], branches, env)
            return _value(w, branches[0] if decided else branches[1], env)
    pm = re.fullmatch(r"(?:op::)?PromoteType\((.*)\)", expr, re.S)
    if pm and match_close(expr, expr.index("(")) == len(expr) - 1:
        two = split_args(pm.group(1))
        try:
            vals = [_value(w, x, env) for x in two] if len(two) == 2 else []
        except Unreadable:   # a dtype the compute path made (a cast, a scalar made a tensor)
            vals = []
        if len(vals) == 2 and all(isinstance(v, tuple) and v[0] == "dtype-of" for v in vals):
            return ("promote", vals[0][1], vals[1][1])
        return _promote_expr(w, two, env, expr)
    bm = re.fullmatch(r"(?:op::)?BinaryOpTypePromote\((.*)\)", expr, re.S)
    if bm and match_close(expr, expr.index("(")) == len(expr) - 1:
        return ("dexpr", _binary_op_promote(split_args(bm.group(1)), env, expr))
    if re.fullmatch(r"[A-Za-z_]\w*", expr) and expr in env:
        held = env[expr]
        if isinstance(held, tuple) and held[:1] == ("numel-if-nonnull",):
            if not _null_checked(w, held[1]):
                raise Unreadable(f"{expr!r}, 0 for a null {held[1]}, read before {held[1]}'s null check")
            return ("numel", held[1])
        return held
    extra = _list_value(w, expr, env)
    if extra is not None:
        return extra
    element = _array_element(w, expr, env)
    if element is not None:
        return element
    m = re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_([A-Z0-9_]+)", expr)
    if m:
        return ("dtype", m.group(1))
    size = _tuple_size(w, expr)
    if size is not None:
        return size
    if re.fullmatch(r"\d+[uUlL]*", expr):
        return int(re.sub(r"\D", "", expr))
    if re.fullmatch(r"[\w:]+", expr):
        lst = w.index.dlist(expr)
        if lst is not None:
            return lst
        const = w.index.constant(expr)
        if const is not None:
            return const
        am = re.fullmatch(r"(?:op::)?NpuArch::(DAV_\d+)", expr)
        if am:
            return ("arch", am.group(1))
        sm = re.fullmatch(r"(?:op::)?SocVersion::(\w+)", expr)
        if sm:
            return ("soc", SOC_ALIASES.get(sm.group(1), sm.group(1)))
        if expr in ("true", "false"):
            return expr == "true"
        raise Unreadable(f"the value of {expr!r}")
    if re.fullmatch(r"(?:op::)?GetCurrentPlatformInfo\(\)\s*\.\s*GetCurNpuArch\(\)", expr):
        return ("arch", w.arch)
    if re.fullmatch(r"(?:op::)?GetCurrentPlatformInfo\(\)\s*\.\s*GetSocVersion\(\)", expr):
        return ("soc", w.soc)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetDataType\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("dtype-of", env[m.group(1)].name)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][:1] == ("copy-of",):
        return ("dtype-of", env[m.group(1)][1])
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][:1] in (("tensor-dtype",), ("cast-of",)):
        return ("dexpr", _tensor_dtype(w, m.group(1), env))
    cm = _CONTIGUOUS.fullmatch(expr) or _SAME_VIEW.fullmatch(expr)
    if cm and isinstance(env.get(cm.group(1)), T):   # a contiguous copy (or a view of the same shape)
        return ("copy-of", env[cm.group(1)].name)     # keeps the argument's dtype and view shape
    got = _shape_value(w, expr, env)
    if got is not None:
        return got
    b = _product_bool(w, expr, env)
    if b is not None:
        return b
    call = _macro(expr)
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        fn = w.index.function(call[0])
        if fn is not None and re.search(r"initializer_list|vector|DataType", fn.returns):
            result = _call_fn(w, fn, call[1], env, fail=None)
            if isinstance(result, DList) or _dexpr(result) is not None:
                return result
            raise Unreadable(f"the list {call[0]}(...) returns on this product")
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        got = _dim_wrap_value(w, call, env)
        if got is not None:
            return got
        got = _one_return_value(w, call, env)
        if got is not None:
            return got
    got = _arith(w, expr, env)
    if got is not None:
        return got
    raise Unreadable(f"the value of {expr!r}")


def _tuple_size(w: Walk, expr: str) -> int | None:
    """``std::tuple_size<decltype(p)>::value`` with p a parameter of the walked function declared by
    value as ``std::tuple<A, B, ...>``: the number of its element types, a compile-time constant;
    None for anything else (a local's ``auto`` type, a reference, which tuple_size does not take)."""
    m = re.fullmatch(r"std::tuple_size\s*<\s*decltype\(\s*(\w+)\s*\)\s*>\s*::\s*value", expr)
    ctype = w.param_types.get(m.group(1), "") if m else ""
    # element types without templates or parentheses of their own, so each top-level comma parts two
    t = re.fullmatch(r"(?:const\s+)?std::tuple\s*<([^<>()]*)>", ctype.strip())
    return len(t.group(1).split(",")) if t and t.group(1).strip() else None


def _dim_wrap_value(w: Walk, call: tuple[str, list[str]], env: dict) -> tuple | None:
    """``f(d, t->GetViewShape().GetDimNum())`` with f a dim wrap by max(rank, 1) (shape_helpers
    ``wraps_dim_by_rank``) and d the API's integer argument: ("wrapped-dim-max1", d, t)."""
    fn = w.index.function(call[0])
    if fn is None or len(call[1]) != 2 or wraps_dim_by_rank(fn) is None:
        return None
    d = env.get(_strip(call[1][0]))
    if not (isinstance(d, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    try:
        rank = _lin(_value(w, call[1][1], env))
    except Unreadable:
        return None
    return ("wrapped-dim-max1", d.name, rank[1]) if rank and rank[2:] in ((1, 0, 0), (1, 0, 1)) else None


def _one_return_value(w: Walk, call: tuple[str, list[str]], env: dict) -> Any:
    """The value of a call of a checkout function whose body is one ``return expr;`` (``GetTensorDim
    (self)``), its parameters bound to the call's arguments; None for any other callee."""
    fn = w.index.function(call[0])
    body = re.fullmatch(r"\s*return\s+([^;]+);\s*", fn.body) if fn is not None else None
    if body is None or len(fn.params) != len(call[1]):
        return None
    inner = {p: env[a.strip()] if a.strip() in env else _value(w, a, env) for p, a in zip(fn.params, call[1])}
    return _value(w, body.group(1), inner)


def _product_bool(w: Walk, expr: str, env: dict) -> bool | None:
    """A condition on the product only, decided; None when it depends on the call's data."""
    expr = _strip(expr)
    if ".end()" in expr and re.fullmatch(r"\w+\s*[!=]=\s*[\w:]+\s*\.\s*end\(\)", expr):
        return _map_end_compare(expr, env)
    for op, combine in (("||", any), ("&&", all)):
        parts = _split_top(expr, op)
        if len(parts) > 1:
            vals = [_product_bool(w, p, env) for p in parts]
            if None in vals:
                if op == "&&" and False in vals:
                    return False
                if op == "||" and True in vals:
                    return True
                return None
            return combine(vals)
    if expr.startswith("!") and not expr.startswith("!="):
        inner = _product_bool(w, expr[1:], env)
        return None if inner is None else not inner
    if re.fullmatch(r"[A-Za-z_]\w*", expr) and isinstance(env.get(expr), bool):
        return env[expr]
    same = _same_pointer(w, expr, env)
    if same is not None:
        return same
    for op in ("==", "!=", ">=", "<=", ">", "<"):
        parts = _split_top(expr, op)
        if len(parts) == 2 and not (op in (">", "<") and "->" in expr and parts[0].endswith("-")):
            try:
                a, b = _value(w, parts[0], env), _value(w, parts[1], env)
            except Unreadable:
                return None
            if _is_int(a) and _is_int(b):   # constants (``mode == MODE_REAL_DIV`` with mode bound to one)
                return {"==": a == b, "!=": a != b, ">=": a >= b, "<=": a <= b, ">": a > b, "<": a < b}[op]
            if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] and a[0] in ("arch", "soc"):
                if a[0] == "arch":
                    x, y = int(a[1][4:]), int(b[1][4:])
                else:
                    if a[1] not in SOC_ORDER or b[1] not in SOC_ORDER:
                        return None
                    x, y = SOC_ORDER.index(a[1]), SOC_ORDER.index(b[1])
                return {"==": x == y, "!=": x != y, ">=": x >= y, "<=": x <= y, ">": x > y, "<": x < y}[op]
            return _list_size_compare(parts, a, b, op)
    call = _macro(expr)
    if call and match_close(expr, expr.index("(")) == len(expr) - 1:
        short = call[0].split("::")[-1]
        if short in REGBASE_HELPERS:
            if call[1] and call[1][0]:
                try:
                    a = _value(w, call[1][0], env)
                except Unreadable:
                    return None
                return isinstance(a, tuple) and a == ("arch", "DAV_3510")
            return w.arch == "DAV_3510"
        fn = w.index.function(call[0])
        if fn is not None and fn.returns.split()[-1] == "bool" and not _touches_data(fn) \
                and not any(_is_call_data(env.get(_strip(a))) for a in call[1]):
            _, result = _checks_nothing(w, lambda: _call_fn(w, fn, call[1], env, fail=None))
            return result if isinstance(result, bool) else None
        if fn is not None and fn.returns.split()[-1] == "bool":
            return _product_return(w, fn, call[1], env)
    return None


def _product_return(w: Walk, fn: Function, args: list[str], env: dict) -> bool | None:
    """The bool ``fn(args)`` returns when each branch its body reaches is decided by the product and
    a return of a decided value ends it (``if (IsRegBase()) { return CheckType(d, L); } return
    false;`` off RegBase: false whatever ``d``); None when any statement on the way is anything else."""
    if w.depth > 12:
        return None
    try:
        local = _bind(w, fn, args, env)
    except Unreadable:
        return None
    stmts = statements(fn.body, fn.body_offset)
    w.depth += 1
    try:
        while stmts:
            stmt, stmts = stmts[0], stmts[1:]
            if stmt.kind == "if":
                decided = _product_bool(w, stmt.cond.strip(), local)
                if decided is None:
                    return None
                stmts = (stmt.then if decided else stmt.orelse) + stmts   # a side not returning falls through
                continue
            if stmt.kind != "return":
                return None
            value = stmt.text.strip()[len("return"):].strip()
            return value == "true" if value in ("true", "false") else _product_bool(w, value, local)
        return None
    finally:
        w.depth -= 1


def _is_call_data(value: Any) -> bool:
    """An API argument, a local holding a scalar argument's value or a dtype of the call: no product
    fact (a helper on it is a guard, not decided)."""
    if isinstance(value, T) or isinstance(value, tuple) and value[:1] == ("number",):
        return True
    d = _dexpr(value)
    return d is not None and d[0] != "dtype"


def _touches_data(fn: Function) -> bool:
    return bool(re.search(r"->\s*Get|IsEmpty|OP_CHECK|nullptr", fn.body))


def _empty_params(cond: str, env: dict) -> list[str]:
    """The tensors an emptiness test names: ``a->IsEmpty() || b->IsEmpty()`` (any) or with ``&&``
    (all; the caller reads which from the condition)."""
    parts = _split_top(_strip(cond), "||")
    if len(parts) == 1:
        parts = _split_top(_strip(cond), "&&")
    out = []
    for p in parts:
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*IsEmpty\(\)", _strip(p))
        if not m or not isinstance(env.get(m.group(1)), T):
            return []
        out.append(env[m.group(1)].name)
    return out


def _empty_helper(w: Walk, cond: str, env: dict) -> tuple[str, list[str]]:
    """``if (HasEmptyTensor(self, other))``: a bool helper whose whole body is ``if (C) { return true; }
    return false;`` (or ``return C;``) with C an ``x->IsEmpty()`` disjunction of its parameters: the
    condition C on the call's arguments. Anything else: no empties (the branch is read as before)."""
    helper = _bool_helper_condition(w, cond, env)
    if helper is None or not all(isinstance(v, T) for v in helper[1].values()):
        return cond, []
    inner, bound = helper
    empties = _empty_params(inner, bound)
    return (inner, empties) if empties else (cond, [])


def _bool_helper_condition(w: Walk, cond: str, env: dict) -> tuple[str, dict] | None:
    """``F(a, b)`` with F a bool helper whose whole body is ``return C;`` or ``if (C) { return true; }
    return false;``, each argument an API argument or a local holding a scalar's value: (C, F's
    parameters bound to them); None for anything else."""
    call = _macro(_strip(cond))
    if not call or match_close(_strip(cond), _strip(cond).index("(")) != len(_strip(cond)) - 1:
        return None
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or len(call[1]) != len(fn.params):
        return None
    body = statements(fn.body, fn.body_offset)
    inner = None
    if len(body) == 1 and body[0].kind == "return":
        inner = body[0].text.strip()[len("return"):].strip().rstrip(";")
    elif (len(body) == 2 and body[0].kind == "if" and not body[0].orelse and len(body[0].then) == 1
          and body[0].then[0].kind == "return" and body[0].then[0].text.strip().rstrip(";") == "return true"
          and body[1].kind == "return" and body[1].text.strip().rstrip(";") == "return false"):
        inner = body[0].cond.strip()
    if inner is None:
        return None
    bound = {}
    for p, a in zip(fn.params, call[1]):
        held = env.get(_strip(a))
        if not (isinstance(held, T) or isinstance(held, tuple) and held[:1] == ("number",)):
            return None
        bound[p] = held
    return inner, bound


def _product_chosen(w: Walk, body: list[Stmt], env: dict) -> list[Stmt]:
    """A helper's statements (after its locals) with its product branches taken: ``if (P) { return
    C1; }`` with P decided for this product replaced by its return (P true) or dropped (P false)."""
    local, out = env, []
    for stmt in body:
        if stmt.kind == "if" and not stmt.orelse and len(stmt.then) == 1 and stmt.then[0].kind == "return":
            decided = _product_bool(w, stmt.cond, local)
            if decided is True:
                return out + [stmt.then[0]]
            if decided is False:
                continue
        out.append(stmt)
    return out


def _value_return(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (C) { return true; }`` (or success) with C a test of scalar or float argument values, or a
    bool helper of such a test: the rest of the function checks the calls where C does not hold (its
    checks carry ``when`` not C)."""
    if not _returns_success_only(stmt, logs=True):
        return False
    cond, scope = _strip(stmt.cond), env
    helper = _bool_helper_condition(w, cond, env)
    if helper is not None:
        cond, scope = helper
    test = _value_test(w, cond, scope)
    if test is None:
        return False
    w.guards.append(("not", ("value", test)))   # popped when the function ends (_run_function)
    return True


def _tensor(env: dict, expr: str) -> str:
    expr = _strip(expr)
    value = env.get(expr)
    if isinstance(value, T):
        return value.name
    raise Unreadable(f"{expr!r} is not a parameter of the API")


def _dtype_owner(w: Walk, env: dict, expr: str) -> str:
    """The API tensor whose dtype ``expr`` has on every path: itself, or a tensor of the compute path
    holding exactly that dtype (a contiguous copy, a broadcast of one)."""
    d = _tensor_dtype(w, expr, env)
    if d is not None and d[0] == "of":
        return d[1]
    return _tensor(env, expr)


def _dlist(w: Walk, env: dict, expr: str) -> DList:
    value = _value(w, expr, env)
    if isinstance(value, DList):
        return value
    raise Unreadable(f"{expr!r} is not a dtype list the reader can resolve")


_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?[fFlL]?")
_ZERO_CAST = re.compile(r"\bstatic_cast\s*<\s*[\w:]+\s*>\s*\(\s*0\s*\)")


def _value_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """``cond`` as a spec.templates.value_test over the API's aclScalar values (``x->ToFloat()``,
    ``x->ToDouble()`` against a number) and bool arguments; None when any part is something else."""
    cond = _strip(cond)
    if cond.startswith("!") and not cond.startswith("!="):
        inner = _value_test(w, cond[1:], env)
        return None if inner is None else ("not", inner)
    for op, name in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            tests = [_value_test(w, p, env) for p in parts]
            return None if None in tests else (name, *tests)
    if isinstance(env.get(cond), T) and w.ptypes.get(env[cond].name, "").strip() == "bool":
        return ("flag", env[cond].name)
    flag = re.fullmatch(r"(\w+)\s*([!=]=)\s*(true|false)", cond)
    if flag and isinstance(env.get(flag.group(1)), T) and w.ptypes.get(env[flag.group(1)].name, "").strip() == "bool":
        holds = (flag.group(2) == "==") == (flag.group(3) == "true")   # training == false: not the flag
        return ("flag", env[flag.group(1)].name) if holds else ("not", ("flag", env[flag.group(1)].name))
    special = re.fullmatch(r"(?:std::)?is(nan|inf)\((.+)\)", cond)
    if special:
        held = _number_read(w, special.group(2), env)
        return None if held is None else (special.group(1), *held)
    cmp = _compare_split(_ZERO_CAST.sub("0", cond))   # static_cast<T>(0) is 0 in any arithmetic T
    if cmp is None:
        return None
    a, op, b = cmp
    for x, y, o in ((a, b, op), (b, a, _FLIP[op])):
        held = _number_read(w, x, env)
        if held is not None and _NUMBER.fullmatch(_strip(y)):
            return ("cmp", *held, o, float(_strip(y).rstrip("fFlL")))
        limit = w.index.constant(_strip(y)) if held is not None and re.fullmatch(r"[A-Z_][A-Z0-9_]*", _strip(y)) \
            else None
        if limit is not None and abs(limit) <= 2 ** 53:   # a named integer constant, exact as a float
            return ("cmp", *held, o, float(limit))
        other = _number_read(w, y, env) if held is not None else None
        if other is not None and other[1] == held[1]:   # two values read alike: compared as they are held
            return ("cmp", *held, o, ("arg", *other))
        near = _near_test(w, x, y, o, env)
        if near is not None:
            return near
    return None


def _near_test(w: Walk, x: str, y: str, op: str, env: dict) -> tuple | None:
    """``std::fabs(p - c) < eps``: c - eps < p < c + eps (the difference is exact near c, Sterbenz)."""
    m = re.fullmatch(r"(?:std::)?fabs\((.+?)\s*-\s*(" + _NUMBER.pattern + r")\)", _strip(x))
    if not m or op != "<" or not _NUMBER.fullmatch(_strip(y)):
        return None
    held = _number_read(w, m.group(1), env)
    if held is None or held[1] == "int":
        return None
    c, eps = float(m.group(2).rstrip("fFlL")), float(_strip(y).rstrip("fFlL"))
    return ("and", ("cmp", *held, ">", c - eps), ("cmp", *held, "<", c + eps))


def _number_read(w: Walk, expr: str, env: dict) -> tuple[str, str] | None:
    """(parameter, how it is read): ``x->ToFloat()`` (and ToDouble, ToInt32, ToInt64) of an aclScalar
    argument or a local holding one, or a float, double or integer argument itself (``float& p`` too);
    None for anything else."""
    expr = _strip(expr)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*To(Float|Double|Int32|Int64)\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return env[m.group(1)].name, _TO_KIND[m.group(2)]
    held = env.get(expr)
    if isinstance(held, tuple) and held[:1] == ("number",):
        return held[1], held[2]
    if isinstance(env.get(expr), T):
        ctype = re.sub(r"\bconst\b|&", "", w.ptypes.get(env[expr].name, "")).strip()
        if ctype in ("float", "double"):
            return env[expr].name, ctype
        if ctype in ("int64_t", "int32_t", "int", "uint64_t", "int8_t"):
            return env[expr].name, "int"
    return None


def _has_compare(t: tuple) -> bool:
    """A value test with a float or scalar comparison in it (one on integers alone is an attr rule)."""
    return (t[0] in ("cmp", "nan", "inf") and t[2] != "int") or \
        any(isinstance(x, tuple) and _has_compare(x) for x in t[1:])


def _data_condition(w: Walk, src: SourceFile, offset: int, cond: str, env: dict, code: int,
                    text: str) -> None:
    """The checks of a failure taken when ``cond`` holds: an OR of atoms, each one check."""
    cond = _strip(cond)
    string = _string_test(w, cond, env)
    if string is not None:   # a string argument none of the words the code accepts
        _check(w, src, offset, "string_in", _args(attr=string[0], values=string[1]), code, text)
        return
    test = _value_test(w, cond, env)
    if test is not None and _has_compare(test):   # a condition on scalar values: one rule
        _check(w, src, offset, "scalar_test", _args(test=test), code, text)
        return
    raw = _raw_dim_size_zero(w, cond, env)
    if raw is not None:   # a dim read at the integer argument as given: a negative one is not read
        attr, tensor = raw
        path, line = _cite(src, offset)
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", (
            "or", ("value", ("cmp", attr, "int", "<", 0.0)), ("rank-zero", tensor))),)), None, path, line,
            f"a dim of {tensor} read at {attr} not wrapped (a negative {attr}, or rank 0, reads outside the "
            f"shape): {text}"[:160]))
        _check(w, src, offset, "attr_dims_nonzero", _args(attr=attr, tensor=tensor), code, text)
        return
    if cond.startswith("!(") and match_close(cond, 1) == len(cond) - 1:
        inner = _strip(cond[2:-1])
        if inner.startswith("!") and not inner.startswith("!="):
            _data_condition(w, src, offset, inner[1:], env, code, text)
            return
        for a, b in (("!=", "=="), ("==", "!=")):
            two = _split_top(inner, a)
            if len(two) == 2 and len(_split_top(inner, "&&")) == 1 and len(_split_top(inner, "||")) == 1:
                _data_condition(w, src, offset, f"{two[0]} {b} {two[1]}", env, code, text)
                return
        parts = _split_top(inner, "&&")
        if len(parts) > 1:   # !(a && b) = !a || !b
            for p in parts:
                _data_condition(w, src, offset, f"!({p})", env, code, text)
            return
        if len(_split_top(inner, "||")) > 1:
            raise Unreadable(f"the condition {cond!r}")
    parts = _split_top(cond, "||")
    if len(parts) > 1:
        for p in parts:
            _data_condition(w, src, offset, p, env, code, text)
        return
    ands = _split_top(cond, "&&")
    if len(ands) > 1:
        data = []
        for p in ands:
            b = _product_bool(w, p, env)
            if b is False:
                return
            if b is None:
                data.append(p)
        if len(data) > 1:
            data = _drop_nonnull(w, data, env)
        if len(data) != 1 and (_dtype_conjunction(w, src, offset, data, env, code, text)
                               or _dims_conjunction(w, src, offset, data, env, code, text)):
            return
        if len(data) != 1:
            g = _guard(w, " && ".join(data), env)
            rule = _guard_atom(g) if g is not None and g[0] == "and" else None
            test = _int_test(w, " && ".join(data), env) if rule is None else None
            if test is not None and templates_int_leaves(test):   # comparisons of integers, joined
                rule = "int_test", _args(test=test)
            if rule is None:
                raise Unreadable(f"the condition {cond!r}")
            _check(w, src, offset, rule[0], rule[1], code, text)   # one part the rule, the others its when
            return
        cond = data[0]
    b = _product_bool(w, cond, env)
    if b is False:
        return
    if b is True:
        _check(w, src, offset, "product", (), code, text)
        return
    if _undecided_check(w, src, offset, cond, env, code, text):
        return
    template, args = _dtype_atom(w, cond, env) or _atom(w, cond, env)
    _check(w, src, offset, template, args, code, text)


def _undecided_check(w: Walk, src: SourceFile, offset: int, cond: str, env: dict, code: int, text: str) -> bool:
    """A failure condition on a dtype chosen on one undecided condition U (``U ? a : b``): g_a, the
    condition with a chosen, and g_b, with b. The call fails when both hold (the rule of g_a, g_b its
    when), passes when neither does, and is not judged when one does (an unread rule, that its
    ``when``). False when ``cond`` reads no such dtype."""
    g = _guard(w, cond, env, undecided=True)
    if g is None or not _has_atom(g, "undecided"):
        return False
    atoms = set(_undecided_atoms(g))
    if len(atoms) != 1:
        raise Unreadable(f"the condition {cond!r} on dtypes chosen on {len(atoms)} undecided conditions")
    atom = atoms.pop()
    ga, gb = _decide(g, atom, True), _decide(g, atom, False)
    if ga == gb:   # the same either way
        rule = _guard_atom(ga)
    else:
        rule = _guard_atom(("and", ga, gb))
        path, line = _cite(src, offset)
        w.events.append(Event("unread", "", _guarded_args(w, "unread", (("when", (
            "or", ("and", ga, ("not", gb)), ("and", ("not", ga), gb))),)), None, path, line,
            " ".join(f"a dtype chosen on {atom[1]!r}, the check's answer differing between its "
                     f"choices: {text}".split())[:160]))
    if rule is None:
        raise Unreadable(f"the condition {cond!r}")
    _check(w, src, offset, rule[0], rule[1], code, text)
    return True


def _undecided_atoms(e: Any) -> list[tuple]:
    """The undecided conditions (("undecided", text)) ``e`` chooses on."""
    if not isinstance(e, tuple):
        return []
    if e[:1] == ("undecided",):
        return [e]
    return [a for x in e for a in _undecided_atoms(x)]


def _decide(e: Any, atom: tuple, holds: bool) -> Any:
    """``e`` with each choice on ``atom`` taken as ``holds`` says; a choice between two equal dtypes
    made that dtype."""
    if not isinstance(e, tuple):
        return e
    if e[:2] == ("if", atom):
        return _decide(e[2] if holds else e[3], atom, holds)
    out = tuple(_decide(x, atom, holds) for x in e)
    return out[2] if out[:1] == ("if",) and len(out) == 4 and out[2] == out[3] else out


def _atom(w: Walk, cond: str, env: dict) -> tuple[str, tuple]:
    """One violated-when atom: (template, args)."""
    cond = _strip(cond)
    neg = cond.startswith("!") and not cond.startswith("!=")
    body = _strip(cond[1:]) if neg else cond
    m = re.fullmatch(r"(?:op::|::)?IsPrivateFormat\(\s*" + FORMAT_OF + r"\s*\)", body)
    if m and not neg:
        local = w.index.own.functions.get("IsPrivateFormat")
        if local is not None and not cond.lstrip("!").startswith("op::"):
            formats = re.findall(r"FORMAT_([A-Z0-9_]+)", local.body)
            return "private_format", _args(param=_tensor(env, m.group(1)), formats=formats,
                                           source=f"{local.path}:{local.line}")
        return "private_format", _args(param=_tensor(env, m.group(1)), formats="opbase")
    m = re.fullmatch(r"(?:op::)?CanCast\(\s*(\w+)\s*->\s*GetDataType\(\)\s*,\s*(.+)\)", body, re.S)
    if m and neg:
        to = _value(w, m.group(2), env)
        if isinstance(to, tuple) and to[0] == "dtype-of":
            return "castable", _args(param=_tensor(env, m.group(1)), to=to[1])
        if isinstance(to, tuple) and to[0] == "dtype":
            return "castable", _args(param=_tensor(env, m.group(1)), to_dtype=to[1])
        raise Unreadable(f"the cast target {m.group(2)!r}")
    m = re.fullmatch(r"(?:op::)?CheckType\(\s*(\w+)\s*->\s*GetDataType\(\)\s*,\s*(.+)\)", body, re.S)
    if m:
        lst = _dlist(w, env, m.group(2))
        return ("dtype_in" if neg else "dtype_not_in",
                _args(param=_tensor(env, m.group(1)), dtypes=list(lst.dtypes), list=lst.where))
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)", body)
    if m and not neg:
        return "null", _args(param=_tensor(env, m.group(1) or m.group(2)))
    m = re.fullmatch(r"(.+?)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", body, re.S)
    found = (env.get(_strip(m.group(1))) if re.fullmatch(r"\w+", _strip(m.group(1))) else
             _list_find(w, m.group(1), env)) if m and not neg else None
    if isinstance(found, tuple) and found[:1] == ("format-found-in",):   # a format not found in a list
        return ("format_in" if m.group(2) == "==" else "format_not_in",
                _args(param=found[1], formats=list(found[2])))
    for op in ("==", "!="):
        parts = _split_top(body, op)
        if len(parts) == 2 and not neg:
            a, b = parts
            pa = env.get(_strip(a))
            d = _dexpr(pa)
            if d is not None and d[0] == "promote" and d[1][0] == d[2][0] == "of":   # a helper returned it
                pa = ("promote", d[1][1], d[2][1])
            if isinstance(pa, tuple) and pa and pa[0] == "promote" and op == "==" and \
                    re.fullmatch(r"(?:op::)?(?:DataType::)?DT_UNDEFINED", _strip(b)):
                return "promotable", _args(param=pa[1], other=pa[2])
            ma = re.fullmatch(r"(\w+)\s*->\s*GetDataType\(\)", _strip(a))
            if ma:
                other = _value(w, b, env)
                if isinstance(other, tuple) and other[0] == "dtype":
                    return ("dtype_not_in" if op == "==" else "dtype_in",
                            _args(param=_dtype_owner(w, env, ma.group(1)), dtypes=[other[1]], list="literal"))
                if isinstance(other, tuple) and other[0] == "dtype-of" and op == "!=":
                    return "dtypes_equal", _args(param=_dtype_owner(w, env, ma.group(1)), other=other[1])
            sa = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", _strip(a))
            sb = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)", _strip(b))
            if sa and sb and op == "!=":
                return "shapes_equal", _args(param=_tensor(env, sa.group(1)), other=_tensor(env, sb.group(1)))
    for op in (">=", "<=", ">", "<", "!="):
        parts = _split_top(body, op)
        if len(parts) == 2 and not neg:
            md = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)|(\w+)\s*->\s*GetDimNum\(\)",
                              _strip(parts[0]))
            if md:
                n = _value(w, parts[1], env)
                if not isinstance(n, int) or isinstance(n, bool):
                    raise Unreadable(f"the rank bound {parts[1]!r}")
                name = _tensor(env, md.group(1) or md.group(2))
                bounds = {">": dict(max=n), ">=": dict(max=n - 1), "<": dict(min=n), "<=": dict(min=n + 1),
                          "!=": dict(min=n, max=n)}[op]
                return "rank_range", _args(param=name, **bounds)
    got = _shape_atom(w, body, neg, env) or _dims_atom(w, body, neg, env) or _int_atom(w, body, neg, env) \
        or _flag_atom(w, body, neg, env) or _iexpr_atom(w, body, neg, env)
    if got is not None:
        return got
    raise Unreadable(f"the condition {cond!r}")


def _dims_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A comparison of a tensor's dim size with another's, a constant or an integer argument
    (``self.GetDim(0) != other.GetDim(0)``, ``x1.GetDim(rank - 1) != x2.GetDim(rank - 1)``,
    ``out.GetDim(0) != n``): ``dims_compare``, violated when the comparison holds."""
    cmp = _comparison(body, neg)
    if cmp is None:
        return None
    a, op, b = cmp
    wrapped = _wrapped_dim_size(w, a, env)
    if wrapped is not None and op == "==" and _strip(b) == "0":
        return "attr_dims_nonzero", _args(attr=wrapped[0], tensor=wrapped[1])
    mod = re.fullmatch(r"(\w+)\s*%\s*(\w+)", _strip(a))
    if mod and op == "!=" and _strip(b) == "0":   # ``size % 2 != 0``: the size at the dim not even
        held = env.get(mod.group(1))
        size = _wrapped_dim_size(w, held.text if isinstance(held, Opaque) else mod.group(1), env)
        by = int(mod.group(2)) if mod.group(2).isdigit() else w.index.constant(mod.group(2))
        if size is not None and by:
            return "attr_dim_divisible", _args(attr=size[0], tensor=size[1], by=by)
    try:
        x, y = _value(w, a, env), _value(w, b, env)
    except Unreadable:
        return None
    is_dim = lambda v: isinstance(v, tuple) and v[:1] in (("dim",), ("numel",), ("bnumel",))
    int_attr = lambda v: isinstance(v, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)",
                                                            w.ptypes.get(v.name, "").strip())
    if not is_dim(x) and is_dim(y):
        x, y, op = y, x, _FLIP[op]
    if not is_dim(x) or not (is_dim(y) or _is_int(y) or int_attr(y)):
        return None
    ref = lambda v: list(v[1:]) if v[0] == "dim" else [v[0], v[1]]   # noqa: E731 (a bnumel's names a tuple)
    other = ref(y) if is_dim(y) else y.name if isinstance(y, T) else int(y)
    return "dims_compare", _args(a=ref(x), op=op, b=other)


# ---- the OP_CHECK_* macros (op_error_check.h) ----

def _converted(env: dict, expr: str) -> bool:
    """``expr`` holds a scalar argument made a tensor (ConvertToTensor): never null, rank 0."""
    held = env.get(_strip(expr))
    return isinstance(held, tuple) and held[:1] == ("converted",)


def _m_null(w, src, stmt, env, fail, args):
    if _converted(env, args[0]):
        return   # allocated from a scalar checked before: never null
    _check(w, src, stmt.offset, "null", _args(param=_tensor(env, args[0])), _fail_status(args[1], fail), stmt.text)


def _m_dtype_support(w, src, stmt, env, fail, args):
    lst = _dlist(w, env, args[1])
    computed = None if isinstance(env.get(_strip(args[0])), T) else _tensor_dtype(w, args[0], env)
    if computed is not None and computed[0] == "of" and _converted(env, args[0]):
        # a scalar made a tensor of its own dtype: the scalar's dtype is checked
        _check(w, src, stmt.offset, "dtype_in", _args(param=computed[1], dtypes=list(lst.dtypes), list=lst.where),
               _fail_status(args[2], fail), stmt.text)
        return
    if computed is not None and _computed(computed):
        # a cast or kernel result of the compute path: its dtype, the expression, must be in the list
        atom = _guard_atom(("not", ("in", computed, tuple(lst.dtypes), lst.where)))
        if atom is None:
            raise Unreadable(f"the dtype of {args[0].strip()!r} against a list")
        _check(w, src, stmt.offset, atom[0], atom[1], _fail_status(args[2], fail), stmt.text)
        return
    _check(w, src, stmt.offset, "dtype_in", _args(param=_tensor(env, args[0]), dtypes=list(lst.dtypes),
                                                  list=lst.where), _fail_status(args[2], fail), stmt.text)


def _m_dtype_match(w, src, stmt, env, fail, args):
    name = _tensor(env, args[0])
    try:
        other = _value(w, args[1], env)
    except Unreadable:
        other = None
    if _dexpr(other) is None or _computed(_dexpr(other)):
        return _m_dtype_match_expr(w, src, stmt, env, fail, args, name)
    if isinstance(other, tuple) and other[0] == "dtype-of":
        _check(w, src, stmt.offset, "dtypes_equal", _args(param=name, other=other[1]),
               _fail_status(args[2], fail), stmt.text)
    elif isinstance(other, tuple) and other[0] == "dtype":
        _check(w, src, stmt.offset, "dtype_in", _args(param=name, dtypes=[other[1]], list="literal"),
               _fail_status(args[2], fail), stmt.text)
    else:
        raise Unreadable(f"the expected dtype {args[1]!r}")


def _m_dtype_same(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "dtypes_equal", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


def _m_cast(w, src, stmt, env, fail, args):
    try:
        a, b = _value(w, args[0], env), _value(w, args[1], env)
    except Unreadable:
        return _m_cast_expr(w, src, stmt, env, fail, args)
    if isinstance(a, tuple) and a[0] == "promote" and isinstance(b, tuple) and b[0] == "dtype-of":
        _check(w, src, stmt.offset, "castable", _args(from_promoted=[a[1], a[2]], to=b[1]),
               _fail_status(args[2], fail), stmt.text)
        return
    if not (isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0] == "dtype-of"):
        return _m_cast_expr(w, src, stmt, env, fail, args)
    _check(w, src, stmt.offset, "castable", _args(param=a[1], to=b[1]), _fail_status(args[2], fail), stmt.text)


def _rank(kind):
    def run(w, src, stmt, env, fail, args):
        n = _value(w, args[1], env)
        if kind == "eq" and _lin(n) and n[2:] == (1, 0, 0):   # another tensor's rank, exactly
            _check(w, src, stmt.offset, "ranks_equal", _args(param=_tensor(env, args[0]), other=n[1]),
                   _fail_status(args[2], fail), stmt.text)
            return
        if not isinstance(n, int) or isinstance(n, bool):
            raise Unreadable(f"the rank bound {args[1]!r}")
        bounds = {"max": dict(max=n), "min": dict(min=n), "eq": dict(min=n, max=n)}[kind]
        if _converted(env, args[0]):   # a scalar made a tensor has rank 0
            if bounds.get("min", 0) > 0 or bounds.get("max", 0) < 0:
                raise Unreadable(f"a rank bound {n} on a scalar made a tensor")
            return
        _check(w, src, stmt.offset, "rank_range", _args(param=_tensor(env, args[0]), **bounds),
               _fail_status(args[2], fail), stmt.text)
    return run


def _m_shape_equal(w, src, stmt, env, fail, args):
    held = [env.get(_strip(a)) for a in args[:2]]
    if sum(isinstance(h, T) for h in held) == 1:   # an API tensor against a tensor of a shape the walk holds
        param = next(h.name for h in held if isinstance(h, T))
        shape = _tensor_shape_expr(next(h for h in held if not isinstance(h, T)))
        if shape is not None:
            template, targs = _shape_compare(param, ("shape-of", shape[1]) if shape[0] == "of" else
                                             ("shape-expr", shape))
            _check(w, src, stmt.offset, template, targs, _fail_status(args[2], fail), stmt.text)
            return
    _check(w, src, stmt.offset, "shapes_equal", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


def _m_broadcast(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "broadcastable", _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])),
           _fail_status(args[2], fail), stmt.text)


CHECK_MACROS = {
    "OP_CHECK_NULL": _m_null,
    "OP_CHECK_DTYPE_NOT_SUPPORT": _m_dtype_support,
    "OP_CHECK_DTYPE_NOT_MATCH": _m_dtype_match,
    "OP_CHECK_DTYPE_NOT_SAME": _m_dtype_same,
    "OP_CHECK_RESULT_DTYPE_CAST_FAILED": _m_cast,
    "OP_CHECK_MAX_DIM": _rank("max"),
    "OP_CHECK_MIN_DIM": _rank("min"),
    "OP_CHECK_WRONG_DIMENSION": _rank("eq"),
    "OP_CHECK_SHAPE_NOT_EQUAL": _m_shape_equal,
    "OP_CHECK_BROADCAST": _m_broadcast,
}


# ---- computed dtypes and data-dependent dtype branches ----
# A computed dtype (PromoteType of tensors' dtypes, a choice on a dtype condition, a constant) is held
# as ("dexpr", E), E a spec.templates.dtype_value expression as nested tuples; a condition on computed
# dtypes (or on the contiguity of the API's tensors) is a spec.templates.guard_holds guard. A branch
# on such a condition runs with the guard (its checks apply only to calls taking it: the rule's
# ``when``); the path after a branch that returns runs with the guard negated.

_DCLASS = {"IsComplexType": "complex", "IsFloatingType": "floating", "IsIntegralType": "integral"}
_UNDEF = ("dtype", "UNDEFINED")


def _dexpr(v: Any) -> tuple | None:
    """The dtype expression of a value, None when it is no dtype."""
    if isinstance(v, tuple) and v:
        if v[0] == "dexpr":
            return v[1]
        if v[0] == "dtype-of":
            return ("of", v[1])
        if v[0] == "dtype":
            return ("dtype", v[1])
        if v[0] == "promote":
            return ("promote", ("of", v[1]), ("of", v[2]))
    return None


def _dexpr_of(w: Walk, expr: str, env: dict) -> tuple:
    e = _strip(expr)
    m = re.fullmatch(r"(?:op::)?DataType\((.*)\)", e, re.S)   # DataType(alpha->GetDataType())
    if m and match_close(e, e.index("(")) == len(e) - 1:
        e = m.group(1)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetDataType\(\)", _strip(e))
    if m and isinstance(env.get(m.group(1)), T):
        return ("of", env[m.group(1)].name)
    if m and _tensor_dtype(w, m.group(1), env) is not None:   # a kernel's result, a cast, a copy
        return _tensor_dtype(w, m.group(1), env)
    sec = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*second", _strip(e))
    if sec and isinstance(env.get(sec.group(1)), tuple) and env[sec.group(1)][:1] == ("map-find",):
        _, key, pairs = env[sec.group(1)]
        out = _UNDEF     # read only under the guard it != end(): the last value is never taken otherwise
        for k, v in reversed(pairs):
            out = ("if", ("in", key, (k,)), v, out)
        return out
    m = re.fullmatch(r"(?:op::)?ToOpDataType\(\s*([A-Za-z_]\w*)\s*\)", _strip(e))
    if m and isinstance(env.get(m.group(1)), T):   # an aclDataType argument of the API
        return ("attr_dtype", env[m.group(1)].name)
    if re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_UNDEFINED", _strip(e)):
        return _UNDEF
    d = _dexpr(_value(w, e, env))
    if d is None:
        raise Unreadable(f"{expr.strip()!r} is not a dtype the reader computes")
    return d


def _binary_op_promote(args: list[str], env: dict, expr: str) -> tuple:
    """``op::BinaryOpTypePromote(a, b[, promoteInt2Float])`` of two API tensors (ops-math
    common/inc/op_api/data_type_utils.h:71-98): PromoteType when both have dims or neither has,
    else the tensor with dims combined with the rank-0 one (spec.templates.combine_categories);
    an integral or bool result made FLOAT with the flag."""
    held = [env.get(_strip(a)) for a in args[:2]]
    flag = args[2].strip() if len(args) == 3 else "false"
    if len(args) not in (2, 3) or not all(isinstance(h, T) for h in held) or flag not in ("true", "false"):
        raise Unreadable(f"the promotion {expr!r}")
    a, b = held[0].name, held[1].name
    alike = ("or", ("and", ("rank", a, ">", 0), ("rank", b, ">", 0)), ("and", ("rank-zero", a), ("rank-zero", b)))
    mixed = ("if", ("rank", a, ">", 0), ("combine", ("of", a), ("of", b)), ("combine", ("of", b), ("of", a)))
    e = ("if", alike, ("promote", ("of", a), ("of", b)), mixed)
    return ("if", ("in", e, ("integral_bool",)), ("dtype", "FLOAT"), e) if flag == "true" else e


def _promote_expr(w: Walk, two: list[str], env: dict, expr: str) -> tuple:
    if len(two) != 2:
        raise Unreadable(f"the promotion {expr!r}")
    try:
        a, b = _dexpr_of(w, two[0], env), _dexpr_of(w, two[1], env)
    except Unreadable:
        raise Unreadable(f"the promotion {expr!r}") from None
    return ("dexpr", ("promote", a, b))


def _data_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple:
    """``cond ? a : b`` with both branches dtypes: a choice on ``cond`` as a guard when it is one on
    computed dtypes, else on ("undecided", cond) (a scalar's value: IsDoubleEqual of it), which no rule
    carries (_undecided_check reads a check whose answer is the same either way)."""
    try:
        a, b = _dexpr_of(w, branches[0], env), _dexpr_of(w, branches[1], env)
    except Unreadable:
        raise Unreadable(f"a choice on the call's data ({cond.strip()!r})") from None
    g = _guard(w, cond, env)
    return ("dexpr", ("if", ("undecided", " ".join(cond.split())) if g is None else g, a, b))


def _guard(w: Walk, cond: str, env: dict, undecided: bool = False) -> tuple | None:
    """A condition on the dtypes of the call (computed or of tensors), or on a tensor being empty or of
    rank 0, as a guard; None otherwise, and when it reads a dtype chosen on an undecided condition
    (unless ``undecided``: _undecided_check's reading)."""
    g = _guard_read(w, cond, env)
    return g if undecided or g is None or not _has_atom(g, "undecided") else None


def _guard_read(w: Walk, cond: str, env: dict) -> tuple | None:
    cond = _strip(cond)
    shape_guard = _shape_guard(cond, env)
    if shape_guard is not None:
        return shape_guard
    rank_compare = _rank_compare(w, cond, env)
    if rank_compare is not None:
        return rank_compare
    nm = re.fullmatch(r"(\w+)\s*(?:->\s*Size\(\)\s*)?(==|!=)\s*0", cond)
    held = env.get(nm.group(1)) if nm else None
    if isinstance(held, Opaque) and re.fullmatch(r"\w+\s*->\s*Size\(\)", held.text.strip()) and \
            not re.search(r"->\s*Size", nm.group(0)):   # a local holding the array's size
        held = env.get(held.text.split("->")[0].strip())
    elif nm and not re.search(r"->\s*Size", nm.group(0)):
        held = None
    if isinstance(held, T) and "IntArray" in w.ptypes.get(held.name, ""):
        g = ("no-dims", held.name)   # an integer array naming no dim
        return g if nm.group(2) == "==" else ("not", g)
    lm = re.fullmatch(r"(\w+)\s*->\s*Size\(\)\s*(==|!=|<=|>=|<|>)\s*(\d+)", cond)
    if lm and isinstance(env.get(lm.group(1)), T) and "IntArray" in w.ptypes.get(env[lm.group(1)].name, ""):
        return ("attr-len", env[lm.group(1)].name, lm.group(2), int(lm.group(3)))   # the array's length
    if re.fullmatch(r"[A-Za-z_]\w*", cond) and isinstance(env.get(cond), tuple) and env[cond][:1] == ("guard",):
        return env[cond][1]
    fm = re.fullmatch(r"(\w+)\s*->\s*GetStorageFormat\(\)\s*([!=]=)\s*(\w+)\s*->\s*GetStorageFormat\(\)", cond)
    if fm and isinstance(env.get(fm.group(1)), T) and isinstance(env.get(fm.group(3)), T):
        g = ("format-same", env[fm.group(1)].name, env[fm.group(3)].name)   # two tensors' storage formats
        return g if fm.group(2) == "==" else ("not", g)
    me = re.fullmatch(r"(\w+)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", cond)
    if me and isinstance(env.get(me.group(1)), tuple) and env[me.group(1)][:1] == ("map-find",):
        g = ("in", env[me.group(1)][1], tuple(k for k, _ in env[me.group(1)][2]))
        return g if me.group(2) == "!=" else ("not", g)
    if me and isinstance(env.get(me.group(1)), tuple) and env[me.group(1)][:1] == ("found-in",):
        g = env[me.group(1)][1]
        return g if me.group(2) == "!=" else ("not", g)
    fe = re.fullmatch(r"(.+?)\s*([!=]=)\s*([\w:]+)\s*\.\s*end\(\)", cond, re.S)
    found = _list_find(w, fe.group(1), env) if fe else None
    if found is not None:
        return found[1] if fe.group(2) == "!=" else ("not", found[1])
    q = _split_top(cond, "?")
    if len(q) == 2 and len(_split_colon(q[1])) == 2:   # a choice on the product between two conditions
        decided = _product_bool(w, q[0], env)
        return None if decided is None else _guard(w, _split_colon(q[1])[0 if decided else 1], env)
    for op, name in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            decided = [_product_bool(w, p, env) for p in parts]
            if (op == "&&" and False in decided) or (op == "||" and True in decided):
                return None   # decided on this product: no guard (the caller reads it as decided)
            parts = [p for p, d in zip(parts, decided) if d is None]   # the product terms that hold drop
            gs = [_guard(w, p, env) for p in parts]
            if None in gs or not gs:
                return None
            return gs[0] if len(gs) == 1 else (name, *gs)
    if cond.startswith("!") and not cond.startswith("!="):
        g = _guard(w, cond[1:], env)
        return None if g is None else ("not", g)
    for op in ("==", "!="):
        parts = _split_top(cond, op)
        if len(parts) == 2:
            try:
                a, b = _dexpr_of(w, parts[0], env), _dexpr_of(w, parts[1], env)
            except Unreadable:
                return _int_guard(w, cond, env)
            if b[0] != "dtype":
                if a[0] != "dtype":
                    g = ("same", a, b)   # two dtypes of the call compared
                    return g if op == "==" else ("not", g)
                a, b = b, a
            g = ("in", a, (b[1],))
            return g if op == "==" else ("not", g)
    call = _macro(cond)
    if call and match_close(cond, cond.index("(")) == len(cond) - 1:
        short, args = call[0].split("::")[-1], call[1]
        try:
            if short in _DCLASS and len(args) in (1, 2):
                cls = _DCLASS[short]
                if short == "IsIntegralType" and len(args) == 2:
                    if args[1].strip() not in ("true", "false"):
                        return None
                    cls = "integral_bool" if args[1].strip() == "true" else cls
                return ("in", _dexpr_of(w, args[0], env), (cls,))
            if short == "CheckType" and len(args) == 2:
                lst = _value(w, args[1], env)
                if isinstance(lst, DList):
                    return ("in", _dexpr_of(w, args[0], env), tuple(lst.dtypes), lst.where)
            if short == "CanCast" and len(args) == 2:
                return ("cast", _dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env))
            if short == "IsContiguous" and len(args) == 1:   # opbase tensor_view_utils.h, of an API tensor
                return ("contiguous", (_tensor(env, args[0]),))
        except Unreadable:
            return None
        return _guard_function(w, call[0], args, env)
    return _int_guard(w, cond, env)


def _int_guard(w: Walk, cond: str, env: dict) -> tuple | None:
    """A comparison of integers or of two shapes the walk knows, as a guard (``["int", test]``), when
    every dim it reads is one of its tensor on each call reaching it (``_dims_decided``: a guard a
    call cannot evaluate would leave that call's side guessed); a test of the call's argument values
    alone is the value test's (``_value_test``)."""
    if _value_test(w, cond, env) is not None:
        return None
    test = _int_test(w, cond, env)
    ok = test is not None and (templates_int_leaves(test) and _dims_decided(w, test)
                               or not templates_int_leaves(test) and _reads_guard(test))
    return ("int", test) if ok else None


def _reads_guard(e: Any) -> bool:
    """The integer expression or test ``e`` holds a branch's guard (``["?", ["guard", g], 2, 0]``: a
    local set by branches on the call's argument values), so its value is the call's, not a constant."""
    return isinstance(e, tuple) and bool(e) and (e[0] == "guard" or any(_reads_guard(x) for x in e[1:]))


def _same_checks_both_sides(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (C) {A} else {B}`` on a condition the reader does not read, both sides reading into the
    same checks in the same order with the same statuses (``IsNonContiguousSupport``: a view or a
    contiguous copy, then one kernel and one shape check): those checks hold whichever side a call
    takes. A local the sides leave differently is unknown after; a side that returns, stops or is
    unread declines."""
    mark, guards, pending = len(w.events), list(w.guards), list(w.pending)
    sides = []
    try:
        for branch in (stmt.then, stmt.orelse):
            local, start = dict(env), len(w.events)
            _run_block(w, src, branch, local, fail, top)
            sides.append((w.events[start:], local))
    except (Unreadable, _Stop, _End):
        del w.events[mark:]
        w.guards[:], w.pending[:] = guards, pending
        return False
    (e0, l0), (e1, l1) = sides
    key = lambda e: (e.kind, e.template, e.args, e.status)   # noqa: E731
    if [key(e) for e in e0] != [key(e) for e in e1]:
        del w.events[mark:]
        return False
    del w.events[mark + len(e0):]   # one side's events: the same checks
    for k in set(l0) | set(l1):
        if l0.get(k) == l1.get(k):
            env[k] = l0[k]
        elif k in env:
            env[k] = ("kernel-result", k) if _kernel_made(l0.get(k)) and _kernel_made(l1.get(k)) else \
                Opaque(f"{k}, set differently on the two sides of a branch on {stmt.cond.strip()}")
    return True


def _has_atom(g: Any, name: str) -> bool:
    return isinstance(g, tuple) and bool(g) and (g[0] == name or any(_has_atom(x, name) for x in g[1:]))


def _rank_compare(w: Walk, cond: str, env: dict) -> tuple | None:
    """An API tensor's rank (``x->GetViewShape().GetDimNum()`` or a local holding it) compared with a
    constant: ("rank-zero", t) for ``== 0`` (negated for ``!= 0``), else ("rank", t, op, n)."""
    rm = re.fullmatch(r"(.+?)\s*(==|!=|<=|>=|<|>)\s*([\w:]+)", cond, re.S)
    if rm is None or not re.fullmatch(r"\w+|\w+(?:\s*->\s*GetViewShape\(\))?\s*\.\s*GetDimNum\(\)", rm.group(1).strip()):
        return None
    try:
        rank, bound = _lin(_value(w, rm.group(1), env)), _value(w, rm.group(3), env)
    except Unreadable:
        return None
    if rank is None or rank[2:] != (1, 0, 0) or not isinstance(rank[1], str) or \
            not isinstance(bound, int) or isinstance(bound, bool):
        return None
    if bound == 0 and rm.group(2) in ("==", "!="):
        return ("rank-zero", rank[1]) if rm.group(2) == "==" else ("not", ("rank-zero", rank[1]))
    return ("rank", rank[1], rm.group(2), bound)


def _plain_exit(stmt: Stmt) -> bool:
    """The branches call no kernel and every return in them gives a literal: true, false, or a status
    name."""
    for s in _flatten(stmt.then + stmt.orelse):
        if re.search(r"\bl0op::", s.text):
            return False
        if s.kind == "return":
            value = s.text.strip()[len("return"):].strip().rstrip(";").strip()
            if value not in ("true", "false") and _status_of(value) is None:
                return False
    return True


def _shape_guard(cond: str, env: dict) -> tuple | None:
    """An API tensor empty (``x->IsEmpty()``) or of rank 0 (``x->GetViewShape().GetDimNum() == 0``, or
    ``!= 0`` negated) as a guard; None for anything else."""
    m = re.fullmatch(r"(\w+)\s*->\s*IsEmpty\(\)", cond)
    if m and isinstance(env.get(m.group(1)), T):
        return ("empty", (env[m.group(1)].name,), True)
    m = re.fullmatch(r"(\w+)\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*([!=]=)\s*0", cond)
    if m and isinstance(env.get(m.group(1)), T):
        g = ("rank-zero", env[m.group(1)].name)
        return g if m.group(2) == "==" else ("not", g)
    return None


def _guard_function(w: Walk, name: str, args: list[str], env: dict) -> tuple | None:
    """A bool helper on dtypes, inlined: its body ``return C;`` or ``if (C) { return true; } return
    false;``, after locals it declares (``auto it = std::find(L.begin(), L.end(), d);``)."""
    fn = w.index.function(name)
    if fn is not None and fn.returns.split()[-1] in ("bool", "aclnnStatus") and _zero_elem_loop(fn):
        # a status-typed helper returning only true (1) or false (0): as a condition, the same test
        array = env.get(_strip(args[0])) if len(args) == 1 else None
        return ("zero-elem", array.name) if isinstance(array, T) and \
            "IntArray" in w.ptypes.get(array.name, "") else None
    if fn is None or fn.returns.split()[-1] != "bool" or w.depth > 12:
        return None
    zero = _zero_dim_loop(fn)
    if zero is not None:
        tensor = env.get(_strip(args[0])) if len(args) == 1 else None
        return ("zero-dim", tensor.name, zero) if isinstance(tensor, T) else None
    body = list(statements(fn.body, fn.body_offset))
    try:
        bindings = _bind(w, fn, args, env)
    except Unreadable:
        return None
    while len(body) > 1 and body[0].kind == "decl":
        m = re.match(r"(?:auto|const|[\w:]+|\s|[*&])*?\b([A-Za-z_]\w*)\s*=\s*(.+?);?$", body[0].text.strip(), re.S)
        if not m:
            return None
        try:
            bindings[m.group(1)] = _value(w, m.group(2), bindings)
        except Unreadable:
            bindings[m.group(1)] = _dtype_or_opaque(w, m.group(2), bindings)
        body.pop(0)
    body = _product_chosen(w, body, bindings)
    if len(body) == 1 and body[0].kind == "return":
        cond = body[0].text.strip()[len("return"):]
    elif (len(body) == 2 and body[0].kind == "if" and not body[0].orelse and len(body[0].then) == 1
          and body[0].then[0].text.strip().rstrip(";") == "return true"
          and body[1].text.strip().rstrip(";") == "return false"):
        cond = body[0].cond
    else:
        return None
    w.depth += 1
    try:
        return _guard(w, cond, bindings)
    finally:
        w.depth -= 1


def _zero_dim_loop(fn: Function) -> int | None:
    """``fn(x)``: true when one of x's dims before its rank + stop is 0 (``n = x->GetViewShape().
    GetDimNum(); for (i = 0; i < n - 1; i++) { if (x->GetViewShape().GetDim(i) == 0) { return true; } }
    return false;``): stop (0 or -1); None for any other body."""
    if len(fn.params) != 1:
        return None
    x = re.escape(fn.params[0])
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(
        rf"auto (\w+) = {x}->GetViewShape\(\)\.GetDimNum\(\); "
        rf"for ?\((?:int64_t|size_t|uint64_t|int) (\w+) = 0; \2 < (?:static_cast<int64_t>\()?\(?\1( - 1)?\)?\)?; \2\+\+\) ?{{ "
        rf"if ?\({x}->GetViewShape\(\)\.GetDim\(\2\) == 0\) ?{{ return true; }} }} return false;", body)
    return None if m is None else (-1 if m.group(3) else 0)


def _zero_elem_loop(fn: Function) -> bool:
    """``fn(a)`` with a an integer array: true when one of its elements is 0 (``for (i = 0; i <
    a->Size(); ++i) { if ((*a)[i] == 0) { return true; } } return false;``)."""
    if len(fn.params) != 1:
        return False
    a = re.escape(fn.params[0])
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(
        rf"for ?\((?:int64_t|size_t|uint64_t) (\w+) = 0; \1 < {a}->Size\(\); (?:\+\+\1|\1\+\+)\) ?{{ "
        rf"if ?\(\(\*{a}\)\[\1\] == 0\) ?{{ return true; }} }} return false;", body)
    return m is not None


_DCLASS_NAMES = ("complex", "floating", "integral", "integral_bool")


def _expand(names: tuple) -> list[str]:
    """Dtype names with the data_type_utils.h classes written out (spec.templates.DTYPE_CLASSES)."""
    from aclnn_conformance.spec.templates import DTYPE_CLASSES
    out: list[str] = []
    for n in names:
        for d in sorted(DTYPE_CLASSES.get(n, {n})):
            if d not in out:
                out.append(d)
    return out


def _leaves(e: Any) -> list[str]:
    if isinstance(e, tuple) and e and e[0] in ("of", "attr_dtype"):
        return [e[1]]
    out: list[str] = []
    for x in (e if isinstance(e, tuple) else ()):
        for n in _leaves(x):
            if n not in out:
                out.append(n)
    return out


def _computed(e: tuple) -> bool:
    return e[0] not in ("of", "dtype")


def _dtype_atom(w: Walk, cond: str, env: dict) -> tuple[str, tuple] | None:
    """A violated-when atom on a computed dtype: ``E == DT_UNDEFINED`` (promotable with ``expr``),
    ``!CheckType(E, LIST)`` (promotable of E restricted to LIST), ``!CanCast(E1, E2)`` (castable with
    ``from_expr``/``to_expr``); None for an atom of another kind (the caller reads it)."""
    cm = re.fullmatch(r"!\s*(?:op::)?CheckType\((.*)\)", _strip(cond), re.S)
    if cm and len(split_args(cm.group(1))) == 2:
        x, lst = split_args(cm.group(1))
        try:
            e, dl = _dexpr_of(w, x, env), _value(w, lst, env)
        except Unreadable:
            e, dl = None, None
        if e is not None and e[0] == "of" and isinstance(dl, DList):
            return "dtype_in", _args(param=e[1], dtypes=list(dl.dtypes), list=dl.where)
    g = _guard(w, cond, env)
    if g is None:
        return None
    return _guard_atom(g)


def _guard_atom(g: tuple) -> tuple[str, tuple] | None:
    """The rule violated exactly when guard ``g`` holds, when a template expresses it."""
    if _lengths_only(g):   # integer arrays' lengths: the integer test of that guard
        return "int_test", _args(test=("guard", g))
    if g[0] == "and":   # the first part a template expresses (arrays' lengths last), the others its when
        g = ("and", *[x for part in g[1:] for x in (part[1:] if part[0] == "and" else (part,))])
        for i, part in sorted(enumerate(g[1:]), key=lambda p: _lengths_only(p[1])):
            r = _guard_atom(part)
            if r is not None:
                rest = g[1:i + 1] + g[i + 2:]
                when = rest[0] if len(rest) == 1 else ("and", *rest)
                if any(k == "when" for k, _ in r[1]):
                    return None
                return r[0], tuple(sorted(r[1] + (("when", when),)))
        return None
    if g[0] == "empty":   # the named tensors empty (any of them, or all)
        return "empty", _args(params=tuple(g[1]), any=g[2])
    if g[0] == "in" and g[2] == ("UNDEFINED",) and _computed(g[1]):
        e = g[1]
        if e[0] == "promote" and e[1][0] == e[2][0] == "of":   # the plain form _atom reads
            return None
        return "promotable", _promotable_args(e)
    if g[0] == "in" and _computed(g[1]) and "UNDEFINED" not in g[2] and \
            not any(n in _DCLASS_NAMES for n in g[2]):   # a computed dtype in a list the code refuses
        return "dtype_expr_in", _args(expr=g[1], dtypes=list(g[2]), list=g[3] if len(g) > 3 else "literal")
    if g[0] == "in" and g[1][0] == "of" and ("UNDEFINED" not in g[2] or g[2] == ("UNDEFINED",)):
        # a tensor's own dtype against DT_UNDEFINED too: aclCreateTensor takes ACL_DT_UNDEFINED
        return "dtype_not_in", _args(param=g[1][1], dtypes=_expand(g[2]), list="literal")
    if g[0] != "not":
        return None
    g = g[1]
    if g[0] == "in" and g[1][0] == "of" and "UNDEFINED" not in g[2] and \
            (any(n in _DCLASS_NAMES for n in g[2]) or len(g) > 3):
        return "dtype_in", _args(param=g[1][1], dtypes=_expand(g[2]), list=g[3] if len(g) > 3 else "literal")
    if g[0] == "in" and _computed(g[1]) and "UNDEFINED" not in g[2] and \
            not any(n in _DCLASS_NAMES for n in g[2]):
        return "promotable", _promotable_args(("restrict", g[1], g[2]))
    ins = g[1:] if g[0] == "or" else ()
    if ins and all(x[0] == "in" and x[1] == ins[0][1] and x[1][0] == "of" and len(x) == 3 and
                   not any(n == "UNDEFINED" or n in _DCLASS_NAMES for n in x[2]) for x in ins):
        # a tensor's dtype none of several (a dtype switch's default): its dtype one of them all
        return "dtype_in", _args(param=ins[0][1][1], dtypes=[n for x in ins for n in x[2]], list="literal")
    if g[0] == "cast" and (_computed(g[1]) or _computed(g[2]) or g[1][0] == "dtype"):
        return "castable", _cast_args(g[1], g[2])
    if g[0] == "format-same":
        return "formats_equal", _args(param=g[1], other=g[2])
    if g[0] == "same" and all(e[0] == "of" for e in g[1:]):   # two tensors of one dtype
        return "dtypes_equal", _args(param=g[1][1], other=g[2][1])
    if g[0] == "same" and sum(e[0] == "of" for e in g[1:]) == 1 and any(_computed(e) for e in g[1:]):
        tensor, expr = (g[1], g[2]) if g[1][0] == "of" else (g[2], g[1])
        return "dtypes_equal_expr", _args(param=tensor[1], expr=expr)
    if g[0] == "pair-in" and all(e[0] == "of" for e in g[1]):   # the pair of dtypes in none of the pairs
        return "combination_in", _args(params=[e[1] for e in g[1]],
                                       combinations=tuple(tuple((d,) for d in pair) for pair in g[2]), list=g[3])
    return None


def _lengths_only(g: tuple) -> bool:
    """Guard ``g`` tests nothing but integer arrays' lengths (``a->Size() == n``)."""
    if g[0] in ("and", "or", "not"):
        return all(_lengths_only(x) for x in g[1:])
    return g[0] == "attr-len"


def _promotable_args(e: tuple) -> tuple:
    names = _leaves(e)
    if not names:
        raise Unreadable("a computed dtype of no tensor")
    return _args(param=names[0], other=names[1] if len(names) > 1 else names[0], expr=e)


def _cast_args(a: tuple, b: tuple) -> tuple:
    if b[0] == "of":
        return _args(from_expr=a, to=b[1])
    if b[0] == "dtype":
        return _args(from_expr=a, to_dtype=b[1])
    return _args(from_expr=a, to_expr=b)


def _m_cast_expr(w, src, stmt, env, fail, args):
    """OP_CHECK_RESULT_DTYPE_CAST_FAILED of computed dtypes (or a constant): castable with from_expr."""
    try:
        a, b = _dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env)
    except Unreadable:
        raise Unreadable("a cast check of computed dtypes") from None
    if a == _UNDEF or b == _UNDEF:
        raise Unreadable("a cast check of computed dtypes")
    _check(w, src, stmt.offset, "castable", _cast_args(a, b), _fail_status(args[2], fail), stmt.text)


def _guarded_args(w: Walk, template: str, args: tuple) -> tuple:
    _decided(args)
    if template == "product":
        raise Unreadable("a failure of every call taking a data-dependent branch")
    guards = list(w.guards) + [v for k, v in args if k == "when"]
    when = guards[0] if len(guards) == 1 else ("and", *guards)
    return tuple(sorted(tuple((k, v) for k, v in args if k != "when") + (("when", when),)))


def _run_guarded_if(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (G) {...} else {...}`` with G on the call's dtypes: each branch's checks under its guard;
    a branch that returns leaves the rest of the function to the calls not taking it. G may also be
    a test of the call's bool and scalar argument values (``if (scaleFromBlob)``), or a conjunction of
    guards and such tests, when neither branch returns success, or in GetWorkspaceSize itself (the
    calls returning success there keep their statuses, their values are not judged); elsewhere a
    success return skipping the kernel leaves the values to _status_neutral_return. A kernel's result
    whose shape differs between the sides is held per side (a check of it made under each guard), or
    known on one side only (a check of it unread for the other side's calls)."""
    g = _guard(w, _without_true_product_terms(w, stmt.cond, env), env) or _null_test_guard(w, stmt, env)
    success = {"return true", *(f"return {n}" for n in SUCCESS_NAMES)}
    returns_success = any(s.kind == "return" and s.text.strip().rstrip(";").strip() in success
                          for s in _flatten(stmt.then + stmt.orelse))
    by_value = False
    if g is None and (not returns_success or w.depth == w.api_depth):
        # a success return on a value test in GetWorkspaceSize itself: the calls taking it succeed,
        # their values are not judged (whatever that side computes)
        test = _value_test(w, stmt.cond, env)
        g, by_value = (None, False) if test is None else (("value", test), returns_success)
        if g is None:   # a conjunction of guards and value tests (``dimSize == 0 && noop == true``)
            parts = _split_top(_strip(stmt.cond), "&&")
            atoms = [_guard(w, p, env) or (("value", t) if (t := _value_test(w, p, env)) is not None else None)
                     or (("not", ("null", n)) if (n := _nonnull_param(p, env)) is not None else None)
                     for p in parts] if len(parts) > 1 else [None]
            if None not in atoms:
                g, by_value = ("and", *atoms), returns_success
    if g is None or (_has_atom(g, "empty") and not _plain_exit(stmt)):
        return False   # an empty tensor's branch computing something is the empty return's to read
    ended, changed, partly = [], [], []
    for branch, guard in ((stmt.then, g), (stmt.orelse, ("not", g))):
        if not branch:
            continue
        mark = len(w.guards)
        w.guards.append(guard)
        local = dict(env)
        try:
            _run_block(w, src, branch, local, fail, top)
        except _End as end:
            if end.value not in (True, False):
                d = _dexpr(end.value)
                if d is None:
                    raise Unreadable(f"a data-dependent branch on {stmt.cond.strip()!r} returning a value") \
                        from None
                w.pending.append((tuple(w.guards[w.fn_guards:]), d))
            if end.value is True and w.depth == w.api_depth and \
                    (by_value or not any(re.search(r"\bl0op::", s.text) for s in _flatten(branch))):
                # the API returning success without running a kernel: the calls taking it keep the
                # statuses read, their values are not judged
                path, line = _cite(src, stmt.offset)
                w.events.append(Event("unread-values", "", _guarded_args(w, "unread", ()), None, path, line,
                                      " ".join(f"a branch on {stmt.cond.strip()!r} that returns success "
                                               f"before the kernel".split())[:160]))
            ended.append(guard)
        except _Stop as stop:
            if stop.empty:
                raise Unreadable(f"an empty-tensor return inside a branch on {stmt.cond.strip()!r}") \
                    from None
            raise
        finally:
            # a return inside the branch (``if (E) return ...;``) left the rest of it to the calls
            # not taking that return (guard ("not", E)): after the branch, the calls that returned
            # there are those taking the branch and E
            inner = w.guards[mark + 1:]
            del w.guards[mark:]
        if guard not in ended:
            changed.append((guard, local))
            if inner:
                if not all(isinstance(x, tuple) and x[:1] == ("not",) for x in inner):
                    raise Unreadable(f"a return inside a branch on {stmt.cond.strip()!r}")
                returned = [x[1] for x in inner]
                partly.append(("and", guard, returned[0] if len(returned) == 1 else ("or", *returned)))
    both = len(changed) == 2
    made = {k for k in env if (both or _kernel_made(env[k])) and all(
        _kernel_made(local.get(k)) for _, local in changed)}
    both_set = set()
    if both:   # a tensor set on both sides from one (``if (C) x = Cast(y, D); else x = y;``): its dtype a
        # choice on the guard, its shape that tensor's
        (g0, l0), (_, l1) = changed
        for k in made:   # kernels of one shape on both sides (``r = A(x, dims) ... else r = B(x, dims)``)
            values = (l0.get(k), l1.get(k))
            if values[0] == values[1]:   # the same value whichever side ran (neither side set it)
                env[k] = values[0]
                both_set.add(k)
                continue
            shapes = [v[2] if isinstance(v, tuple) and v[:1] == ("tensor-dtype",) and len(v) == 3 else None
                      for v in values]
            if shapes[0] is not None and shapes[0] == shapes[1]:
                d0, d1 = l0[k][1], l1[k][1]
                env[k] = ("tensor-dtype", ("if", g0, d0, d1) if d0 and d1 else None, shapes[0])
                both_set.add(k)
            elif shapes[0] is not None and shapes[1] is not None:
                # a kernel of another shape on each side: a check of it is made per side, under its guard
                env[k] = ("shape-choice", g0, values[0], values[1], stmt.cond.strip())
                both_set.add(k)
            elif (shapes[0] is None) != (shapes[1] is None):
                # its shape known on one side only: a check of it holds for the calls taking that
                # side and is unread for the others (``if (rank 8) { r = Reshape(K(..)) } else r = K(..)``)
                side = 0 if shapes[0] is not None else 1
                env[k] = ("shape-unless", changed[1 - side][0], values[side], stmt.cond.strip())
                both_set.add(k)
            elif all(isinstance(v, tuple) and v[:1] == ("tensor-dtype",) and v[1] is not None for v in values):
                # kernels of shapes not read, of dtypes read: the dtype a choice on the guard
                d0, d1 = values[0][1], values[1][1]
                env[k] = ("tensor-dtype", d0 if d0 == d1 else ("if", g0, d0, d1), None)
                both_set.add(k)
        for k in set(l0) & set(l1) - made:
            if env.get(k) == l0[k] == l1[k]:
                continue
            like = {_shape_like(l0[k]), _shape_like(l1[k])}
            d0, d1 = _tensor_dtype(w, k, l0), _tensor_dtype(w, k, l1)
            if len(like) == 1 and None not in like:
                shape = ("like", like.pop())
                env[k] = ("tensor-dtype", ("if", g0, d0, d1), shape) if d0 and d1 else shape
                both_set.add(k)
    if ended and len(changed) == 1:   # the other side returned: the rest runs on this side's values
        env.update(changed[0][1])
        changed = []
    for guard, local in changed:   # a dtype assigned in a branch: a choice on the branch's guard after it
        for k, v in local.items():
            if k in both_set:
                continue
            if k in made and env[k] != v:   # a kernel's result on every path: one still
                shapes = (_tensor_shape_expr(v), _tensor_shape_expr(env[k]))   # of the shape of the side taken
                tnew, told = _tensor_dtype(w, k, local), _tensor_dtype(w, k, env)
                env[k] = ("kernel-result", k) if None in shapes else \
                    ("tensor-dtype", ("if", guard, tnew, told) if tnew is not None and told is not None else None,
                     ("shape-expr", shapes[0] if shapes[0] == shapes[1] else ("?", ("guard", guard), *shapes)))
                continue
            if k in env and env[k] != v:
                tnew, told = _tensor_dtype(w, k, local), _tensor_dtype(w, k, env)
                if tnew is not None and told is not None:   # a tensor of the compute path: its dtype a choice
                    like = _shape_like(v)   # and its shape an API tensor's when both sides have it
                    shapes = (_tensor_shape_expr(v), _tensor_shape_expr(env[k]))   # or a choice of two known
                    shape = shapes[0] if shapes[0] == shapes[1] else ("?", ("guard", guard), *shapes)
                    env[k] = ("tensor-dtype", ("if", guard, tnew, told), ("like", like)) \
                        if like is not None and like == _shape_like(env[k]) else \
                        ("tensor-dtype", ("if", guard, tnew, told), ("shape-expr", shape)) \
                        if None not in shapes else ("tensor-dtype", ("if", guard, tnew, told))
                    continue
                choice = _int_or_shape_choice(w, guard, v, env[k])
                if choice is not None:
                    env[k] = choice
                    continue
                if _kernel_made(env[k]) and _recast_only(stmt, k):
                    # a kernel's result cast in place: one still, of the shape it had (a cast keeps it)
                    kept = _tensor_shape_expr(env[k])
                    same = kept is not None and kept[0] != "of" and kept == _tensor_shape_expr(v)
                    env[k] = ("tensor-dtype", None, ("shape-expr", kept)) if same else ("kernel-result", k)
                    continue
                new, old = _dexpr(v), _dexpr(env[k])
                if new is None or old is None:   # unknown after the branch: a check on it is unread
                    env[k] = Opaque(f"{k}, assigned in a branch on {stmt.cond.strip()}")
                    continue
                env[k] = ("dexpr", ("if", guard, new, old))
    if len(ended) == 2:
        if w.pending and len(w.pending[-1][0]) > len(w.guards) - w.fn_guards:
            raise _End(("dexpr", w.pending.pop()[1]))   # both branches return a dtype
        raise _End(True)
    if ended:
        w.guards.append(("not", ended[0]))   # popped when the function ends (_run_function)
    w.guards.extend(("not", p) for p in partly)   # popped when the function ends (_run_function)
    return True


def _recast_only(stmt: Stmt, name: str) -> bool:
    """Every assignment of ``name`` in the branch ``stmt`` casts it in place (``r = l0op::Cast(r, D,
    executor)``)."""
    sets = [s.text.strip() for s in _flatten(stmt.then + stmt.orelse) if s.kind == "decl"
            and re.match(rf"{re.escape(name)}\s*=(?!=)", s.text.strip())]
    return bool(sets) and all(re.fullmatch(rf"{re.escape(name)}\s*=\s*l0op::Cast\(\s*{re.escape(name)}\s*,[^;]*\)\s*;?",
                                           t, re.S) for t in sets)


def _int_or_shape_choice(w: Walk, guard: Any, new: Any, old: Any) -> tuple | None:
    """A shape or an integer a guarded branch set: the choice of its new value and the one from
    before on the branch's guard; None when either is no shape or integer the walk knows."""
    s_new, s_old = _shape_expr_of(new), _shape_expr_of(old)
    if s_new is not None and s_old is not None:
        return ("shape-expr", ("?", ("guard", guard), s_new, s_old))
    i_new, i_old = _iexpr_of(w, new), _iexpr_of(w, old)
    if i_new is not None and i_old is not None:
        return ("iexpr", ("?", ("guard", guard), i_new, i_old))
    return None


def _returned(w: Walk, value: Any) -> Any:
    """The value a function returns, with its returns in data-dependent branches (``w.pending``)
    folded in: ``G1 ? E1 : G2 ? E2 : value``."""
    if not w.pending:
        return value
    d = _dexpr(value)
    if d is None:
        raise Unreadable("a function returning a dtype in a data-dependent branch and another value after it")
    for guards, e in reversed(w.pending):
        g = guards[0] if len(guards) == 1 else ("and", *guards)
        d = ("if", g, e, d)
    return ("dexpr", d)


def _every_dim_if_empty(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``if (dims->Size() == 0) { ...; dims = <an int array of every dim of t>; }`` on the API's int
    array ``dims``, the block assigning nothing else the walk holds: ("every-if-empty", dims, t)."""
    m = re.fullmatch(r"\s*(\w+)\s*->\s*Size\(\)\s*==\s*0\s*", stmt.cond)
    held = env.get(m.group(1)) if m else None
    if stmt.orelse or not isinstance(held, T) or "IntArray" not in w.ptypes.get(held.name, ""):
        return False
    name, made = m.group(1), None
    inner_null = re.compile(r"CHECK_RET\(\s*\w+\s*!=\s*nullptr\s*,\s*ACLNN_ERR_INNER_\w+\s*\);?")
    if re.search(r"ACLNN_ERR|OP_CHECK|CHECK_RET|\breturn\b",
                 "".join(s.text for s in _flatten(stmt.then) if not inner_null.fullmatch(s.text.strip()))):
        return False   # a branch that checks or returns is more than the dims' replacement (an inner
        # status on a null result is the compute path's)
    for s in _flatten(stmt.then):
        a = re.match(r"([A-Za-z_]\w*)\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)\s*(.*)", s.text.strip(), re.S)
        if s.kind != "decl" or not a or a.group(1) not in env:
            continue   # a local of the block
        if a.group(1) != name or made is not None:
            return False
        made = _dims_local(w, src, s, a.group(2).rstrip(";"), env)
    if not (isinstance(made, tuple) and made[:1] == ("all-dims",)):
        return False
    env[name] = ("every-if-empty", held.name, made[1])
    return True


def _forget_assigned(stmt: Stmt, env: dict) -> None:
    """A branch the reader does not follow: the locals it assigns are unknown after it (a check on
    them is unread, never read with the value from before the branch)."""
    assigned = [s for s in _flatten(stmt.then + stmt.orelse) if s.kind == "decl"]
    for s in assigned:
        m = re.match(r"([A-Za-z_]\w*)\s*(?:[-+*/%|&^]|<<|>>)?=(?!=)", s.text.strip())   # ``+=`` too
        if not m or m.group(1) not in env:
            continue
        name = m.group(1)
        reshaped = re.match(rf"{name}\s*=\s*l0op::Reshape\(\s*{name}\s*,", s.text.strip())
        others = [x for x in assigned if x is not s and re.match(rf"{name}\s*=(?!=)", x.text.strip())]
        if reshaped and not others and _tensor_dtype(None, name, env) is not None:
            continue   # a tensor reshaped in place keeps its dtype (reshape.h:18-34)
        env[name] = ("kernel-result", name) if _kernel_on_every_path((stmt,), name) else Opaque(s.text.strip())


def _switch_labels(text: str, close: int) -> tuple[str, list[tuple[int, int, str | None]], int] | None:
    """A switch's body (after the condition closing at ``close``), its top-level labels (start, end,
    label value or None for default) and the offset of its opening brace; None when the body does
    not close."""
    ob = text.find("{", close)
    cb = match_close(text, ob, "{", "}") if ob >= 0 else -1
    if cb < 0:
        return None
    body = text[ob + 1:cb]
    labels, depth, i = [], 0, 0
    while i < len(body):
        c = body[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif depth == 0:
            lm = _LABEL.match(body, i)
            if lm and (i == 0 or not (body[i - 1].isalnum() or body[i - 1] == "_")):
                labels.append((lm.start(), lm.end(), lm.group(1)))
                i = lm.end()
                continue
        i += 1
    return body, labels, ob


def _run_dtype_switch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool,
                      subject: str, close: int) -> bool:
    """``switch`` on a dtype: each label group a branch on ``subject == label`` (the default on none of
    them), run as data-dependent branches; a group falling through into the next is unread."""
    text = stmt.text
    found = _switch_labels(text, close)
    if found is None:
        return False
    body, labels, ob = found
    groups: list[tuple[list, int, int]] = []   # (labels, body start, body end)
    for k, (start, end, label) in enumerate(labels):
        nxt = labels[k + 1][0] if k + 1 < len(labels) else len(body)
        if groups and not body[groups[-1][1]:start].strip():
            groups[-1][0].append(label)
            groups[-1] = (groups[-1][0], end, nxt)
        else:
            groups.append(([label], end, nxt))
    named = [lb for g in groups for lb in g[0] if lb is not None]
    subject = subject.strip()
    for n, (group, start, end) in enumerate(groups):
        run = list(statements(body[start:end], stmt.offset + ob + 1 + start))
        if len(run) == 1 and run[0].kind == "block":   # case X: { ...; break; }: the braces scope locals only
            run = list(run[0].then)
        if run and run[-1].kind == "decl" and run[-1].text.strip() == "break":
            run.pop()
        elif not run or (run[-1].kind != "return" and n + 1 < len(groups)):
            raise Unreadable("a switch case falling through into the next")
        if any(s.kind == "decl" and s.text.strip() == "break" for s in _flatten(tuple(run))):
            raise Unreadable("a break inside a switch case")
        if None in group:
            cond = "!(" + " || ".join(f"({subject}) == {lb}" for lb in named) + ")" if named else "true"
            if not named:
                _run_block(w, src, tuple(run), env, fail, top)
                continue
        else:
            cond = " || ".join(f"({subject}) == {lb}" for lb in group)
        branch = Stmt("if", f"switch ({subject}) case", stmt.offset, cond=cond, then=tuple(run))
        mark = len(w.pending)
        if not _run_guarded_if(w, src, branch, env, fail, top):
            raise Unreadable(f"the case labels of a switch on {subject!r}")
        returned = run and run[-1].kind == "return"
        if None in group and returned and all(r[-1].kind == "return" for r in
                                              (statements(body[a:b]) for _, a, b in groups) if r):
            if len(w.pending) > mark:   # every case returns a dtype: the default's is the last choice
                raise _End(("dexpr", w.pending.pop()[1]))
            raise _End(True)
    return True


def _dtype_conjunction(w: Walk, src: SourceFile, offset: int, parts: list[str], env: dict, code: int,
                       text: str) -> bool:
    """A failure when several dtype conditions hold together (``a->GetDataType() == DT_BOOL &&
    b->GetDataType() == DT_BOOL``): one rule, the others its ``when``. False when it is not one."""
    present = [p for p in parts if re.fullmatch(r"(\w+)\s*!=\s*nullptr", _strip(p))
               and isinstance(env.get(_strip(p).split("!=")[0].strip()), T)]
    rest = [p for p in parts if p not in present]
    tested = {_nonnull_param(p, env, w) for p in rest} - {None}
    if tested and len(rest) > len(tested) + 1:   # p && <dtype conditions reading p>: silent on a null p
        conds = [p for p in rest if _nonnull_param(p, env, w) is None]
        r = _dtype_atom(w, " && ".join(f"({p})" for p in conds), env)
        if r is None or r[0] not in _VACUOUS_ON_NULL or not all(_mentions(r[1], n) for n in tested):
            return False
        _check(w, src, offset, r[0], r[1], code, text)
        return True
    if present and len(rest) == 1:   # x != nullptr && <a dtype atom reading x>: the atom (silent on null)
        try:
            r = _dtype_atom(w, rest[0], env) or _atom(w, rest[0], env)
        except Unreadable:
            return False
        names = {_strip(p).split("!=")[0].strip() for p in present}
        read = {env[n].name for n in names}
        if r[0] in ("castable", "dtype_in", "dtype_not_in") and dict(r[1]).get("param") in read and len(read) == 1:
            _check(w, src, offset, r[0], r[1], code, text)
            return True
        return False
    r = _dtype_atom(w, " && ".join(f"({p})" for p in parts), env)
    if r is None or not any(k == "when" for k, _ in r[1]):
        return False
    _check(w, src, offset, r[0], r[1], code, text)
    return True


def _list_find(w: Walk, expr: str, env: dict) -> tuple | None:
    """``std::find(L.begin(), L.end(), d)`` with L a dtype list and d a dtype of the call:
    ``("found-in", guard d in L)`` (compared with ``L.end()`` it is that guard); None otherwise."""
    m = re.fullmatch(r"(?:std::)?find\(\s*([\w:]+)\s*\.\s*begin\(\)\s*,\s*([\w:]+)\s*\.\s*end\(\)\s*,(.+)\)",
                     _strip(expr), re.S)
    if not m or m.group(1) != m.group(2):
        return None
    formats = w.index.format_list(m.group(1))
    fm = re.fullmatch(FORMAT_OF, _format_local(m.group(3).strip(), env)) if formats is not None else None
    if fm and isinstance(env.get(fm.group(1)), T):   # a tensor's storage format searched in a format list
        return ("format-found-in", env[fm.group(1)].name, formats[0])
    pairs = w.index.pair_list(m.group(1))
    if pairs is not None:   # a list of (dtype, dtype) pairs searched for a pair of the call's dtypes
        two = _pair_of(w, m.group(3), env)
        return None if two is None else ("found-in", ("pair-in", two, pairs[0], pairs[1]))
    try:
        lst = _value(w, m.group(1), env)
        d = _dexpr_of(w, m.group(3), env)
    except Unreadable:
        return None
    if not isinstance(lst, DList):
        return None
    return ("found-in", ("in", d, tuple(lst.dtypes), lst.where))


def _pair_of(w: Walk, expr: str, env: dict) -> tuple | None:
    """``std::pair<DataType, DataType>(a->GetDataType(), b->GetDataType())`` (or a local holding
    one): the two dtype expressions; None otherwise."""
    e = _strip(expr)
    held = env.get(e) if re.fullmatch(r"[A-Za-z_]\w*", e) else None
    if isinstance(held, tuple) and held[:1] == ("dtype-pair",):
        return held[1]
    m = re.fullmatch(r"(?:std::)?(?:make_pair|pair\s*<[^<>]*>)\s*\((.*)\)", e, re.S)
    if not m or match_close(e, e.index("(", m.start(1) - 1)) != len(e) - 1:
        return None
    args = split_args(m.group(1))
    try:
        return (_dexpr_of(w, args[0], env), _dexpr_of(w, args[1], env)) if len(args) == 2 else None
    except Unreadable:
        return None


def _dtype_or_opaque(w: Walk, expr: str, env: dict) -> Any:
    """A value the reader keeps for a local or an argument: a condition on the call's dtypes
    (``("guard", g)``), a computed dtype, or Opaque."""
    found = _map_find(w, expr, env) or _list_find(w, expr, env)
    if found is not None:
        return found
    two = _pair_of(w, expr, env)
    if two is not None:
        return ("dtype-pair", two)
    g = _guard(w, expr, env)
    if g is not None:
        return ("guard", g)
    try:
        return ("dexpr", _dexpr_of(w, expr, env))
    except Unreadable:
        return Opaque(expr)


def _list_size_compare(parts: list[str], a: Any, b: Any, op: str) -> bool | None:
    """``LIST.size() == 0`` with the list chosen for the product: decided."""
    sizes = [v[1] if isinstance(v, tuple) and v[:1] == ("list-size",) else v for v in (a, b)]
    if not any(isinstance(v, tuple) and v[:1] == ("list-size",) for v in (a, b)):
        return None
    x, y = sizes
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (x, y)):
        return None
    return {"==": x == y, "!=": x != y, ">=": x >= y, "<=": x <= y, ">": x > y, "<": x < y}[op]


def _m_dtype_match_expr(w, src, stmt, env, fail, args, name):
    """OP_CHECK_DTYPE_NOT_MATCH(t, E) with E a computed dtype (an aclDataType argument, a promotion):
    violated when t's dtype is not E, read as the promotable rule of ``t == E ? t : DT_UNDEFINED``."""
    try:
        e = _dexpr_of(w, args[1], env)
    except Unreadable:
        raise Unreadable(f"the expected dtype {args[1]!r}") from None
    if e == _UNDEF:
        raise Unreadable(f"the expected dtype {args[1]!r}")
    mine = ("of", name)
    expr = ("if", ("same", mine, e), mine, _UNDEF)
    _check(w, src, stmt.offset, "promotable", _args(param=name, other=(_leaves(e) or [name])[0], expr=expr),
           _fail_status(args[2], fail), stmt.text)


def _run_negated_checker(w: Walk, cond: str, env: dict, code: int) -> bool:
    """``if (!Checker(...)) { return <error>; }`` with Checker a bool function holding checks (as
    CHECK_RET(Checker(...), error)): inlined with its failures at ``code``."""
    cond = _strip(cond)
    call = _macro(cond[1:].strip()) if cond.startswith("!") and not cond.startswith("!=") else None
    if not call or match_close(cond, cond.index("(")) != len(cond) - 1:
        return False
    fn = w.index.function(call[0])
    if fn is None or fn.returns.split()[-1] != "bool" or not _is_checker(fn):
        return False
    _call_fn(w, fn, call[1], env, fail=code)
    return True


_MAP = re.compile(r"std::(?:unordered_)?map\s*<\s*([\w:]+)\s*,\s*([\w:<>\s]+?)\s*>\s*([A-Za-z_]\w*)\s*=\s*\{")


def _map_entries(w: Walk, name: str, env: dict) -> list[tuple[Any, Any]] | None:
    """The entries of a constant ``std::map``/``unordered_map`` named ``name``, values read."""
    for src in (w.index.own, *w.index.common):
        for m in _MAP.finditer(src.text):
            if m.group(3) != name:
                continue
            end = match_close(src.text, m.end() - 1, "{", "}")
            if end < 0:
                return None
            out = []
            for item in split_args(src.text[m.end():end]):
                if not item:
                    continue
                if not (item.startswith("{") and item.endswith("}")):
                    return None
                kv = split_args(item[1:-1])
                if len(kv) != 2:
                    return None
                try:
                    out.append((_value(w, kv[0], env), _value(w, kv[1], env)))
                except Unreadable:
                    return None
            return out
    return None


def _map_find(w: Walk, expr: str, env: dict) -> tuple | None:
    """``MAP.find(key)``: on a product key, the entry found (decided); on a dtype key, the lookup as a
    choice on the key (``("map-find", key, ((dtype, value dtype), ...))``)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*find\((.*)\)", _strip(expr), re.S)
    if not m:
        return None
    entries = _map_entries(w, m.group(1), env)
    if entries is None:
        return None
    try:
        key = _value(w, m.group(2), env)
    except Unreadable:
        key = None
    if isinstance(key, tuple) and key[:1] in (("arch",), ("soc",)):
        if not all(isinstance(k, tuple) and k[:1] == key[:1] for k, _ in entries):
            return None
        return ("map-it", next((v for k, v in entries if k == key), None))
    try:
        e = _dexpr_of(w, m.group(2), env)
    except Unreadable:
        return None
    pairs = []
    for k, v in entries:
        dk, dv = _dexpr(k), _dexpr(v)
        if dk is None or dk[0] != "dtype" or dv is None:
            return None
        pairs.append((dk[1], dv))
    return ("map-find", e, tuple(pairs))


def _map_end_compare(expr: str, env: dict) -> bool | None:
    m = re.fullmatch(r"(\w+)\s*([!=]=)\s*[\w:]+\s*\.\s*end\(\)", expr)
    held = env.get(m.group(1)) if m else None
    if not (isinstance(held, tuple) and held[:1] == ("map-it",)):
        return None
    return (held[1] is None) == (m.group(2) == "==")


def _forget_in_text(text: str, env: dict) -> None:
    """A loop or switch the reader does not follow: the locals it assigns are unknown after it."""
    for m in re.finditer(r"(?<![\w.>])([A-Za-z_]\w*)\s*(?:[+\-*/|&]?=)(?!=)", text):
        if m.group(1) in env and not isinstance(env[m.group(1)], T):
            env[m.group(1)] = Opaque(f"{m.group(1)}, assigned in a loop or switch")


# ---- product lists: switches on the product, lists written in place, list sizes, map lookups ----

def _split_colon(expr: str) -> list[str]:
    """The two branches of a ternary's ``a : b``, split at the top-level ``:`` that is no ``::``."""
    depth, nested = 0, 0
    for i, c in enumerate(expr):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "?" and depth == 0:
            nested += 1
        elif c == ":" and depth == 0 and expr[i - 1:i] != ":" and expr[i + 1:i + 2] != ":":
            if nested:
                nested -= 1
                continue
            return [expr[:i].strip(), expr[i + 1:].strip()]
    return [expr.strip()]


_LABEL = re.compile(r"\b(?:case\s+((?:[A-Za-z_]\w*::)*[A-Za-z_]\w*)|default)\s*:(?!:)")


def _run_switch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """A ``switch`` on the product (``GetCurNpuArch()``, ``GetSocVersion()``): the statements of the
    label this product takes, up to its ``break`` (falling through the labels after it). False when the
    switch is not on a product value (the caller decides)."""
    text = stmt.text
    m = re.match(r"switch\s*\(", text)
    if not m:
        return False
    close = match_close(text, m.end() - 1)
    try:
        value = _value(w, text[m.end():close], env)
    except Unreadable:
        return False
    if _dexpr(value) is not None:
        return _run_dtype_switch(w, src, stmt, env, fail, top, text[m.end():close], close)
    if not (isinstance(value, tuple) and value and value[0] in ("arch", "soc")):
        return False
    found = _switch_labels(text, close)
    if found is None:
        return False
    body, labels, ob = found
    chosen = None
    for start, end, label in labels:
        if label is None:
            continue
        try:
            lv = _value(w, label, env)
        except Unreadable:
            raise Unreadable(f"the case label {label!r}") from None
        if not (isinstance(lv, tuple) and lv[0] == value[0]):
            raise Unreadable(f"the case label {label!r}")
        if lv == value:
            chosen = end
            break
    if chosen is None:
        chosen = next((end for start, end, label in labels if label is None), None)
    if chosen is None:
        return True   # no label taken: nothing runs
    blanked = list(body)
    for start, end, _ in labels:
        for k in range(start, end):
            blanked[k] = " "
    rest = "".join(blanked)[chosen:]
    base = stmt.offset + ob + 1 + chosen
    run = []
    for s in statements(rest, base):
        if s.kind == "decl" and s.text.strip() == "break":
            break
        run.append(s)
    _run_block(w, src, tuple(run), env, fail, top)
    return True


def _list_value(w: Walk, expr: str, env: dict) -> Any:
    """A braced dtype list written in place, ``LIST.size()``, ``it->second`` of a product-keyed map
    lookup; None for another expression."""
    if re.fullmatch(r"\{[\s\w:,]*\}", expr):
        names = re.findall(r"[\w:]+", expr[1:-1])
        if all(re.fullmatch(r"(?:op::|ge::)?(?:DataType::)?DT_[A-Z0-9_]+", n) for n in names):
            return DList(tuple(n.split("DT_", 1)[1] for n in names), "literal")
    sec = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*second", expr)
    if sec and isinstance(env.get(sec.group(1)), tuple) and env[sec.group(1)][:1] == ("map-it",):
        if env[sec.group(1)][1] is None:
            raise Unreadable(f"{expr!r} of a key the map does not hold")
        return env[sec.group(1)][1]
    sz = re.fullmatch(r"([\w:]+)\s*\.\s*size\(\)", expr)
    if sz:
        lst = _value(w, sz.group(1), env)
        if isinstance(lst, DList):
            return ("list-size", len(lst.dtypes))
        raise Unreadable(f"the value of {expr!r}")
    return None


def _array_element(w: Walk, expr: str, env: dict) -> tuple | None:
    """``(*a)[i]`` with ``a`` the API's integer array and ``i`` a constant the guards the walk runs
    under keep below the array's length: ("iexpr", ("elem", a, i)); Unreadable for an element those
    guards do not keep in the array (aclIntArray's operator[] does not check); None for another
    expression."""
    m = re.fullmatch(r"\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\[(.+)\]", expr, re.S)
    held = env.get(m.group(1)) if m else None
    if not (isinstance(held, T) and "IntArray" in w.ptypes.get(held.name, "")):
        return None
    index = _value(w, m.group(2), env)
    if not _is_int(index) or index < 0 or _least_length(w.guards, held.name) <= index:
        raise Unreadable(f"{expr!r}, an element the code does not keep inside the array")
    return ("iexpr", ("elem", held.name, index))


_NEGATED = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


def _least_length(guards: list, attr: str) -> int:
    """The least length of the integer array ``attr`` on the calls the guards hold for (0 when
    none bounds it): an ``attr-len`` test, its negation, or an array naming a dim."""
    least = 0
    for g in guards:
        neg = g[0] == "not"
        atom = g[1] if neg else g
        if atom[0] == "and" and not neg:
            least = max(least, _least_length(list(atom[1:]), attr))
        elif atom[0] == "no-dims" and neg and atom[1] == attr:
            least = max(least, 1)
        elif atom[0] == "attr-len" and atom[1] == attr:
            op, n = _NEGATED[atom[2]] if neg else atom[2], atom[3]
            least = max(least, {"==": n, ">=": n, ">": n + 1}.get(op, 0))
    return least


# ---- shapes, ranks and broadcast shapes ----
# values: ("shape-of", tensor) a tensor's view shape; ("bshape", (tensors...)) the broadcast shape of
# tensors whose broadcast was checked; ("lin", tensor, scale, offset, at_rank0) an integer that is
# scale * rank(tensor) + offset (at_rank0 at rank 0).

_CHECKING_MACRO = re.compile(r"^(?:OP_)?CHECK|CHECK_|_CHECK")


def _unknown_call(w: Walk, short: str, text: str) -> None:
    """A call the reader does not implement: unread when it carries a check (a parameter error code,
    ``return false``, a checking macro's name, or a call of a checking function)."""
    if short in ("OP_CHECK_ADD_TO_LAUNCHER_LIST_AICORE", "OP_CHECK_INFERSHAPE", "OP_CHECK_NO_RETURN"):
        return
    if re.search(r"ACLNN_ERR_PARAM_\w+|\breturn\s+false\b", text):
        raise Unreadable(f"the call {short} carrying a parameter check")
    if _CHECKING_MACRO.search(short) and short.isupper():
        raise Unreadable(f"the checking macro {short}")
    for callee in re.findall(r"([A-Za-z_][\w:]*)\s*\(", text[len(short):]):
        fn = w.index.function(callee)
        if fn is not None and _is_checker(fn):
            raise Unreadable(f"the call {short} of the checking function {callee}")


def _reachable_after(fn: Function, stmt: Stmt) -> str:
    """The text of ``fn`` after ``stmt`` that the walk can reach from it: up to the end of its block
    when that block ends in a return (``if (IsRegBase()) { ...; return true; }``), else to the end
    of the function."""
    start = stmt.offset - fn.body_offset + len(stmt.text)
    body, depth, i = fn.body, 0, stmt.offset - fn.body_offset
    while i > 0:   # the brace opening the block holding the statement
        i -= 1
        if body[i] == "}":
            depth += 1
        elif body[i] == "{":
            if depth == 0:
                break
            depth -= 1
    close = match_close(body, i, "{", "}") if i > 0 and body[i] == "{" else -1
    if close > start and re.search(r"(?:^|[;{}])\s*return\b[^;{}]*;\s*$", body[start:close]) and \
            not re.search(r"\b(?:break|continue|goto)\b", body[start:close]):
        return body[start:close]
    return body[start:]


def _forget_if_mutated(src: SourceFile, stmt: Stmt, env: dict, name: str) -> None:
    """A shape or rank local that the rest of its function changes (SetDim, an assignment, an output
    argument of a call other than a checked BroadcastInferShape) is not held: it becomes opaque."""
    value = env.get(name)
    if not (isinstance(value, tuple) and value and value[0] in ("shape-of", "bshape", "lin", "rshape",
                                                                 "built-shape", "bshape-built", "shape-expr",
                                                                 "dims-vector")):
        return
    fn = _enclosing_function(src, stmt.offset)
    if fn is None:
        env[name] = Opaque(name)
        return
    rest = _reachable_after(fn, stmt)
    if value[0] == "lin":   # the rank-0 branches _rank0_branch reads
        rest = re.sub(r"\bif\s*\(\s*\w+\s*(?:==|<=)\s*0\s*\)\s*\{(?:\s*(?:\w+\s*=\s*(?:-?\s*\d+|true|false)|\w+\s*\+\+|"
                      r"\+\+\s*\w+)\s*;)+\s*\}", "", rest)
    n = re.escape(name)
    if value[0] in ("shape-of", "built-shape", "shape-expr") and \
            not re.search(rf"&\s*{n}\s*=", stmt.text):   # set in order, in branches the walk merges (no reference)
        start = stmt.offset - fn.body_offset + len(stmt.text)
        for s in _in_order_mutations(statements(fn.body, fn.body_offset), name):
            at = s.offset - fn.body_offset - start
            if 0 <= at and at + len(s.text) <= len(rest) and rest[at:at + len(s.text)] == s.text:
                rest = rest[:at] + " " * len(s.text) + rest[at + len(s.text):]
    for m in re.finditer(rf"(?m)^[ \t]*{n}\s*=(?!=)[^;{{}}]*;", rest):
        if rest[:m.start()].count("{") == rest[:m.start()].count("}"):   # read in order, where it stands
            rest = rest[:m.start()] + " " * (m.end() - m.start()) + rest[m.end():]
    for m in re.finditer(rf"(?m)^[ \t]*{n}\s*=\s*\(?\s*{n}\s*(?:<=|==)\s*0\s*\)?\s*\?\s*-?\d+\s*:\s*{n}\s*;", rest):
        if value[0] == "lin" and rest[:m.start()].count("{") == rest[:m.start()].count("}"):
            rest = rest[:m.start()] + " " * (m.end() - m.start()) + rest[m.end():]   # read by _rank_choice
    # a dim read by ``s[i]`` (Shape::operator[]) is no change: one assigned, stepped or bound to a reference is
    changed = re.search(rf"\b{n}\s*(?:\.\s*(?:Set\w*|Append\w*|\w*Insert\w*|push_back|emplace_back|"
                        rf"resize|clear|erase)\s*\(|\[[^\[\];]*\]\s*(?:=(?!=)|\+\+|--|[-+*/]=)|=(?!=)|\+\+|--|[-+*/]=)|"
                        rf"(?<!&)&(?!&)\s*{n}\b|\+\+\s*{n}\b|&\s*\w+\s*=\s*{n}\s*\[|\b{n}\s*\[[^\]]*\[", rest)
    for m in re.finditer(rf"([!(,]?)\s*((?:op::)?BroadcastInferShape|[A-Za-z_][\w:]*)\s*\(([^;]*?)\b{n}\s*\)", rest):
        if m.group(2).split("::")[-1] == "BroadcastInferShape" and m.group(1) == "!":
            continue
        # opbase shape_utils.h:25 ToShapeVector(const op::Shape&) reads the shape only
        if m.group(2).split("::")[-1] in ("if", "while", "GetDimNum", "ToString", "GetDim", "ToShapeVector") \
                or m.group(2) in ("std::max", "std::min") \
                or m.group(2).startswith("OP_") \
                or _last_param_by_value(src, m.group(2)):
            continue
        changed = changed or m
    if changed:
        env[name] = Opaque(name)


def _in_order_mutations(stmts: tuple[Stmt, ...], name: str) -> list[Stmt]:
    """The statements ``name.SetDim(i, v);`` and ``name = e;`` standing in plain blocks and if/else
    branches (no loop or switch around them): the walk runs each where it stands."""
    n, out = re.escape(name), []
    for s in stmts:
        if s.kind in ("if", "block"):
            out += _in_order_mutations(s.then + s.orelse, name)
        elif s.kind in ("call", "decl") and re.fullmatch(rf"{n}\s*\.\s*(?:SetDim|AppendDim)\s*\([^;{{}}]*\)\s*;?",
                                                         s.text.strip()) or \
                s.kind == "decl" and re.fullmatch(rf"{n}\s*=(?!=)[^;{{}}]*;?", s.text.strip()):
            out.append(s)
    return out


def _view_shape_held(holder: str, env: dict) -> Any:
    """What ``t->GetViewShape()`` holds (("shape-of", t) for an API tensor or a tensor with one's view
    shape: a contiguous copy, a cast; ("shape-expr", S) for a tensor whose shape the walk built), or
    a shape local."""
    holder = _strip(holder)
    mv = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", holder)
    if not mv:
        return env.get(holder)
    held = env.get(mv.group(1))
    computed = _tensor_shape_expr(held)
    if computed is not None and computed[0] != "of":
        return ("shape-expr", computed)
    like = _shape_like(held)
    return None if like is None else ("shape-of", like)


def _raw_dim_size_zero(w: Walk, cond: str, env: dict) -> tuple[str, str] | None:
    """``s.GetDim((size_t)d) == 0`` (or ``t->GetViewShape().GetDim(d)``) with s a tensor's view shape and
    d the API's integer argument used as given: (d, tensor)."""
    m = re.fullmatch(r"(.+?)\s*\.\s*GetDim\(\s*(?:\(\s*(?:size_t|uint64_t)\s*\)|static_cast<\s*(?:size_t|uint64_t)\s*>)?"
                     r"\s*\(?\s*(\w+)\s*\)?\s*\)\s*==\s*0", _strip(cond))
    if not m:
        return None
    shape = _view_shape_held(m.group(1), env)
    d = env.get(m.group(2))
    if not (isinstance(shape, tuple) and shape[:1] == ("shape-of",) and isinstance(d, T)
            and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    return d.name, shape[1]


def _wrapped_dim_size(w: Walk, expr: str, env: dict) -> tuple[str, str] | None:
    """``t->GetViewShape().GetDim(d)`` with d an integer argument's dim of t, wrapped, read where t has
    a dim (after a rank-0 return): (attr, tensor)."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)\s*\.\s*GetDim\s*\(\s*(\w+)\s*\)", _strip(expr))
    held = env.get(m.group(2)) if m else None
    if not (isinstance(held, tuple) and held[:1] == ("wrapped-dim",) and isinstance(env.get(m.group(1)), T)
            and env[m.group(1)].name == held[2] and (("not", ("rank-zero", held[2])) in w.guards
                                                     or _rank_one_checked(w, held[2]))):
        return None
    return held[1], held[2]


def _rank_one_checked(w: Walk, tensor: str) -> bool:
    """An unguarded check read before refuses every call where ``tensor`` has rank 0."""
    return _min_rank_checked(w, tensor) >= 1


def _dims_decided(w: Walk, test: Any) -> bool:
    """Every dim the integer test reads is, on each call reaching it, a dim of its tensor: each is
    ``("sdim", ("of", t), a wrapped by t's rank)`` for an integer argument ``a`` that an unguarded
    check before keeps in [-rank, rank - 1], with rank-0 calls returned before or refused; and it
    reads no other dim."""
    if not isinstance(test, tuple) or not test:
        return True
    if test[0] == "dim":   # a fixed dim (from the start or the end) inside the rank earlier checks leave
        _, t, scale, offset = test
        need = -offset if scale == 1 and offset < 0 else offset + 1 if scale == 0 and offset >= 0 else None
        return need is not None and _min_rank_checked(w, t) >= need
    if test[0] != "sdim":
        return all(_dims_decided(w, x) for x in test[1:])
    if not (test[1][:1] == ("of",) and isinstance(test[2], tuple) and test[2][:1] == ("?",)):
        return False
    t, (_, cond, wrapped, plain) = test[1][1], test[2]
    if not (isinstance(plain, tuple) and plain[:1] == ("attr",) and cond == ("<", plain, 0)
            and wrapped == ("+", plain, ("rank", t))):
        return False
    bounds = {(k, tuple(a[k])) for e in w.events if e.kind == "check" and e.template == "attr_in_rank_range"
              and "when" not in (a := e.args_dict()) and a.get("attr") == plain[1] and a.get("tensor") == t
              for k in ("min", "max") if isinstance(a.get(k), (list, tuple))}
    in_range = {("min", (-1, 0)), ("max", (1, -1))} <= bounds   # -rank <= a <= rank - 1
    rank0_gone = ("not", ("rank-zero", t)) in w.guards or _min_rank_checked(w, t) >= 1
    return bool(in_range) and rank0_gone


def _min_rank_checked(w: Walk, tensor: str) -> int:
    """The least rank of ``tensor`` on the calls that pass the unguarded checks read before (0 when
    none bounds it)."""
    return max([e.args_dict().get("min") or 0 for e in w.events if e.kind == "check" and e.template == "rank_range"
                and e.args_dict().get("param") == tensor and "when" not in e.args_dict()], default=0)


def _dim_value(w: Walk, expr: str, env: dict) -> tuple | None:
    """``shape.GetDim(i)``, ``t->GetViewShape().GetDim(i)`` or ``shape[i]``: with ``i`` a constant or
    an integer depending on t's rank (``rank - 1``), ``("dim", t, scale, offset)``, the size of dim
    scale*rank + offset of t's view shape; with another integer the walk computes (a wrapped dim
    argument), or on a shape expression, ("iexpr", ("sdim", S, i))."""
    m = re.fullmatch(r"(.+?)\s*\.\s*GetDim\s*\((.+)\)", expr, re.S)
    if not m or match_close(expr, expr.rindex("GetDim") + len("GetDim")) != len(expr) - 1:
        m = re.fullmatch(r"(.+?)\s*\[([^\[\]]+)\]", expr, re.S)   # ``shape[i]``: Shape::operator[]
        if not m:
            return None
    shape = _view_shape_held(m.group(1), env)
    if not (isinstance(shape, tuple) and shape[:1] in (("shape-of",), ("shape-expr",))):
        return None
    try:
        index = _value(w, m.group(2), env)
    except Unreadable:
        return None
    if _is_int(index) and shape[0] == "shape-of":
        return ("dim", shape[1], 0, index)
    li = _lin(index)
    if li and shape[0] == "shape-of" and li[1] == shape[1] and li[4] == li[3]:   # no other value at rank 0
        return ("dim", shape[1], li[2], li[3])
    at = _iexpr_of(w, index)   # a dim at an index the walk computes: read where it is inside the shape
    return None if at is None else ("iexpr", ("sdim", _shape_expr_of(shape), at))


def _shape_value(w: Walk, expr: str, env: dict) -> Any:
    dim = _dim_value(w, expr, env)
    if dim is not None:
        return dim
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("shape-of", env[m.group(1)].name)
    held = _view_shape_held(expr, env) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-expr",):   # a tensor whose shape the walk computed
        return held
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*(?:GetViewShape\(\)\s*\.\s*GetShapeSize|Numel)\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):   # opbase Shape::GetShapeSize, aclTensor::Numel: the element count
        return ("numel", env[m.group(1)].name)
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*GetShapeSize\(\)", expr)
    held = env.get(m.group(1)) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-of",):
        return ("numel", held[1])
    if isinstance(held, tuple) and held[:1] == ("bshape",):   # the element count of a broadcast shape
        return ("bnumel", tuple(held[1]))
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*(?:->\s*GetViewShape\(\)\s*\.|->)\s*GetDimNum\(\)", expr)
    if m and isinstance(env.get(m.group(1)), T):
        return ("lin", env[m.group(1)].name, 1, 0, 0)
    held = _view_shape_held(f"{m.group(1)}->GetViewShape()", env) if m else None
    if isinstance(held, tuple) and held[:1] == ("shape-of",):   # a copy or cast of an API tensor
        return ("lin", held[1], 1, 0, 0)
    if isinstance(held, tuple) and held[:1] == ("shape-expr",):
        return ("iexpr", ("srank", held[1]))
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*GetDimNum\(\)", expr)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][0] == "shape-of":
        return ("lin", env[m.group(1)][1], 1, 0, 0)
    if m and isinstance(env.get(m.group(1)), tuple) and env[m.group(1)][0] == "shape-expr":
        return ("iexpr", ("srank", env[m.group(1)][1]))
    return None


def _shape_of(w: Walk, expr: str, env: dict) -> Any:
    try:
        v = _value(w, expr, env)
    except Unreadable:   # the view shape of a tensor the compute path made
        v = _view_shape_held(expr, env)
    return v if isinstance(v, tuple) and v and v[0] in ("shape-of", "bshape", "rshape", "split-shape",
                                                        "built-shape", "bshape-built", "shape-expr") else None


def _infer_broadcast(w: Walk, src: SourceFile, stmt: Stmt, env: dict, cond: str, code: int) -> bool:
    """``if (!BroadcastInferShape(a, b, out)) return <code>``: the broadcast check, and ``out`` held
    as the broadcast shape of the tensors."""
    m = re.fullmatch(r"!\s*(?:op::)?BroadcastInferShape\((.*)\)", _strip(cond), re.S)
    if not m:
        return False
    args = split_args(m.group(1))
    if len(args) != 3 or not re.fullmatch(r"[A-Za-z_]\w*", args[2].strip()):
        raise Unreadable(f"the broadcast {cond!r}")
    _broadcast_check(w, src, stmt, env, args[0], args[1], args[2].strip(), code)
    return True


def _broadcast_check(w, src, stmt, env, a: str, b: str, out: str | None, code: int) -> None:
    values = [_shape_of(w, x, env) for x in (a, b)]
    for x, v in zip((a, b), values):
        if v is None or v[0] in ("bshape-built", "rshape", "split-shape"):
            raise Unreadable(f"the broadcast of {x.strip()!r}")
    kinds = sorted(v[0] for v in values)
    if kinds == ["shape-expr", "shape-of"]:   # a tensor with a shape computed from tensors' shapes
        tensor, held = sorted(values, key=lambda v: v[0] != "shape-of")
        _check(w, src, stmt.offset, "broadcastable_shape", _args(param=tensor[1], shape_expr=held[1]), code,
               stmt.text)
        if out is not None:
            env[out] = ("shape-expr", ("broadcast", *(_shape_expr_of(v) for v in values)))
            _forget_if_mutated(src, stmt, env, out)
        return
    if kinds == ["shape-expr", "shape-expr"]:   # two computed shapes, one broadcasting as a tensor's does
        exprs = [v[1] for v in values]
        side = next((i for i, e in enumerate(exprs) if _broadcasts_as(e) is not None), None)
        if side is None:
            raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
        _check(w, src, stmt.offset, "broadcastable_shape",
               _args(param=_broadcasts_as(exprs[side]), shape_expr=exprs[1 - side]), code, stmt.text)
        if out is not None:
            env[out] = ("shape-expr", ("broadcast", *exprs))
            _forget_if_mutated(src, stmt, env, out)
        return
    if "shape-expr" in kinds:
        raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
    if kinds == ["built-shape", "shape-of"]:   # a tensor with a shape built of dims (aclnnAddr's outer shape)
        tensor, built = sorted(values, key=lambda v: v[0] != "shape-of")
        _check(w, src, stmt.offset, "broadcastable_shape", _args(param=tensor[1], shape=built[1]), code, stmt.text)
        if out is not None:
            env[out] = ("bshape-built", tensor[1], built[1])
            _forget_if_mutated(src, stmt, env, out)
        return
    if "built-shape" in kinds:
        raise Unreadable(f"the broadcast of {a.strip()!r} and {b.strip()!r}")
    names = []
    for v in values:
        names += [v[1]] if v[0] == "shape-of" else list(v[1])
    if len(names) == 2:
        _check(w, src, stmt.offset, "broadcastable", _args(param=names[0], other=names[1]), code, stmt.text)
    else:
        _check(w, src, stmt.offset, "broadcastable_all", _args(of=names), code, stmt.text)
    if out is not None:
        env[out] = ("bshape", tuple(names))
        _forget_if_mutated(src, stmt, env, out)


def _broadcasts_as(expr: tuple) -> str | None:
    """The API tensor a shape expression broadcasts with every shape as: its view shape, or that shape
    made all ones of some rank when the tensor is of rank 0 (a rank-0 shape and a shape of ones both
    broadcast with any shape); None otherwise."""
    if expr[0] == "of":
        return expr[1]
    if expr[0] == "?" and expr[1][:1] == ("guard",) and expr[1][1][:1] == ("rank-zero",) and \
            expr[3] == ("of", expr[1][1][1]) and expr[2][0] == "dims" and all(d == 1 for d in expr[2][1]):
        return expr[1][1][1]
    return None


def _dropped_broadcast(w: Walk, src: SourceFile, stmt: Stmt, env: dict, args: list[str]) -> bool:
    """``BroadcastInferShape(a, b, out);`` with its result dropped: ``out`` is the broadcast shape only
    for calls whose tensors broadcast, so it is held when an earlier check of this walk, under no
    branch, refused every other call (broadcastable over the same tensors); else it is unknown."""
    if len(args) != 3 or not re.fullmatch(r"[A-Za-z_]\w*", args[2].strip()):
        return False
    out, names = args[2].strip(), []
    for x in args[:2]:
        v = _shape_of(w, x, env)
        if v is None or v[0] not in ("shape-of", "bshape"):
            env[out] = Opaque(f"{out}, the broadcast of {x.strip()}")
            return True
        names += [v[1]] if v[0] == "shape-of" else list(v[1])
    for e in w.events:
        a = e.args_dict()
        if e.kind != "check" or "when" in a or e.template not in ("broadcastable", "broadcastable_all"):
            continue
        if sorted([a["param"], a["other"]] if e.template == "broadcastable" else a["of"]) == sorted(names):
            env[out] = ("bshape", tuple(names))
            _forget_if_mutated(src, stmt, env, out)
            return True
    env[out] = Opaque(f"{out}, the broadcast of tensors no earlier check showed broadcastable")
    return True


def _m_broadcast_infer(w, src, stmt, env, fail, args):
    converted = [a for a in args[:2] if _converted(env, a)]
    if len(converted) == 1:   # a rank-0 tensor broadcasts with any shape: the other's shape
        other = next(a for a in args[:2] if a not in converted)
        env[args[2].strip()] = ("shape-of", _tensor(env, other))
        _forget_if_mutated(src, stmt, env, args[2].strip())
        return
    for arg in args[:2]:   # the API's tensors, or tensors whose view shape the walk knows (else unread)
        if not isinstance(env.get(_strip(arg)), T) and _view_shape_held(f"{arg}->GetViewShape()", env) is None:
            _tensor(env, arg)
    _broadcast_check(w, src, stmt, env, f"{args[0]}->GetViewShape()", f"{args[1]}->GetViewShape()",
                     args[2].strip(), _fail_status(args[3], fail))


def _shape_compare(param: str, other: Any) -> tuple[str, tuple]:
    if other[0] == "built-shape":
        return "shape_is", _args(param=param, shape=other[1])
    if other[0] == "shape-expr":
        return "shape_is", _args(param=param, shape_expr=other[1])
    if other[0] == "rshape":
        _, tensor, dims, keepdim, noop = other
        return "reduced_shape", _args(param=param, of=tensor, dims=dims, keepdim=keepdim,
                                      **({"noop": noop} if noop is not False else {}))
    if other[0] == "shape-of":
        return "shapes_equal", _args(param=param, other=other[1])
    if other[0] == "split-shape":
        return "split_shape", _args(param=param, of=other[1], attr=other[2], by=other[3])
    if other[0] == "shape-expr":
        return "shape_expr_is", _args(param=param, shape=other[1])
    return "broadcast_equals", _args(param=param, of=list(other[1]))


def _built_shape(w: Walk, src: SourceFile, stmt: Stmt, name: str, env: dict) -> tuple[list, Any] | None:
    """A shape local built in the function before ``stmt`` from its dims (``op::Shape s = {a, b};``) or
    from nothing (``op::Shape s;``) by ``s.SetDimNum(n)``, ``s.SetDim(i, v)``, ``s.AppendDim(v)`` alone,
    each dim an integer the walk knows, and at most a last loop ``for (i = k; i < t.GetDimNum(); i++) { s.AppendDim(c); }``
    once s holds k dims: (its dims, each an int, [tensor, scale, offset] or an integer expression
    ("iexpr", E); the fill [c, tensor] or None); None otherwise."""
    fn = _enclosing_function(src, stmt.offset)
    if fn is None or not re.fullmatch(r"[A-Za-z_]\w*", name):
        return None
    whole = fn.body[:max(stmt.offset - fn.body_offset, 0)]
    n = re.escape(name)
    decls = list(re.finditer(rf"(?:op|gert)::Shape\s+{n}\s*[;=]", whole))
    if not decls or not _block_open(whole[decls[-1].start():]):
        return None
    before = whole[decls[-1].start():]   # the local compared: the last declared, in a block still open
    init = re.findall(rf"(?:op|gert)::Shape\s+{n}\s*=\s*\{{([^;{{}}]*)\}}\s*;", before)
    compared = re.sub(rf"OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE\(\s*\w+\s*,\s*{n}\s*,|ToString\(\s*{n}\s*\)",
                      "", before)
    if len(init) == 1 and len(re.findall(rf"\b{n}\b", compared)) == 1:   # ``op::Shape s = {a, b};``, only compared after
        dims = [_built_dim(w, a, env, whole) for a in split_args(init[0])]
        return None if None in dims else (dims, None)
    if len(re.findall(rf"(?:op|gert)::Shape\s+{n}\s*;", before)) != 1:
        return None
    fill, fills = None, list(re.finditer(
        rf"for\s*\(\s*(?:size_t|u?int(?:64|32)_t|int)\s+(\w+)\s*=\s*(\d+)\s*;\s*\1\s*<\s*([^;]+?)\s*;\s*\1\s*\+\+\s*\)"
        rf"\s*\{{\s*{n}\s*\.\s*AppendDim\(\s*([^;()]+?)\s*\)\s*;\s*\}}", before))
    if len(fills) > 1:
        return None
    if fills:   # the fill loop: last, starting where the dims built before it end
        f = fills[0]
        rank = _shape_value(w, f.group(3), env)
        value = _int_constant(w, f.group(4))
        if not (_lin(rank) and rank[2:] == (1, 0, 0) and value is not None) or \
                re.search(rf"\b{n}\b", before[f.end():]):
            return None
        fill, start = [value, rank[1]], int(f.group(2))
        before = before[:f.start()]
    dims: list = []
    for use in re.finditer(rf"\b{n}\b(?!\s*;)", before):
        m = re.match(rf"{n}\s*\.\s*(SetDimNum|SetDim|AppendDim)\s*\(([^;]*)\)\s*;", before[use.start():])
        args = [_built_dim(w, a, env, whole) for a in split_args(m.group(2))] if m else [None]
        if None in args:
            return None
        if m.group(1) == "SetDimNum" and len(args) == 1 and _is_int(args[0]):
            dims = (dims + [0] * args[0])[:args[0]]
        elif m.group(1) == "SetDim" and len(args) == 2 and _is_int(args[0]) and 0 <= args[0] < len(dims):
            dims[args[0]] = args[1]
        elif m.group(1) == "AppendDim" and len(args) == 1:
            dims.append(args[0])
        else:
            return None
    if fill is not None and (len(dims) != start or any(isinstance(d, tuple) for d in dims)):
        return None
    return dims, fill


def _block_open(text: str) -> bool:
    """No brace in ``text`` closes a block it did not open: its start is in scope at its end."""
    depth = 0
    for c in re.findall(r"[{}]", text):
        depth += 1 if c == "{" else -1
        if depth < 0:
            return False
    return True


def _built_dim(w: Walk, text: str, env: dict, before: str) -> Any:
    """A dim given to a built shape: an int, a dim of an API tensor [tensor, scale, offset], another
    integer the walk knows as ("iexpr", E); None for anything else. The walk's values are those at
    the comparison, so a name ``before`` (the function's text up to it) assigns twice is refused."""
    constant = _int_constant(w, text)
    if constant is not None:
        return constant
    dim = _dim_value(w, text.strip(), env)
    if dim is not None and dim[0] == "dim":
        return list(dim[1:])
    if any(len(re.findall(rf"\b{name}\s*(?:[-+*/%|&^]?=(?!=)|\+\+|--)|(?:\+\+|--)\s*{name}\b", before)) > 1
           for name in set(re.findall(r"(?<![\w.>:])[A-Za-z_]\w*\b(?!\s*\()", text))):
        return None
    try:
        held = _iexpr_of(w, dim if dim is not None else _value(w, text, env))
    except Unreadable:
        return None
    return None if held is None else ("iexpr", held)


def _int_constant(w: Walk, text: str) -> int | None:
    t = text.strip()
    if re.fullmatch(r"-?\d+", t):
        return int(t)
    return w.index.constant(t) if re.fullmatch(r"[A-Za-z_][\w:]*", t) else None


def _m_shape_expected(w, src, stmt, env, fail, args):
    name = _tensor(env, args[0])
    other = _shape_of(w, args[1], env)
    built = _built_shape(w, src, stmt, args[1].strip(), env) if other is None else None
    if built is not None and any(isinstance(d, tuple) for d in built[0]):   # a dim computed: a shape expression
        dims = tuple(d[1] if isinstance(d, tuple) else d if _is_int(d) else ("dim", *d) for d in built[0])
        _check(w, src, stmt.offset, "shape_is", _args(param=name, shape_expr=("dims", dims)),
               _fail_status(args[2], fail), stmt.text)
        return
    if built is not None:
        shape = tuple(d if _is_int(d) else tuple(d) for d in built[0])
        _check(w, src, stmt.offset, "shape_is", _args(param=name, shape=shape,
                                                      **({"fill": tuple(built[1])} if built[1] else {})),
               _fail_status(args[2], fail), stmt.text)
        return
    if other is None:
        raise Unreadable(f"the expected shape {args[1].strip()!r}")
    template, targs = _shape_compare(name, other)
    _check(w, src, stmt.offset, template, targs, _fail_status(args[2], fail), stmt.text)


def _m_broadcast_with_shape(w, src, stmt, env, fail, args):
    _broadcast_check(w, src, stmt, env, f"{args[0]}->GetViewShape()", args[1], None, _fail_status(args[2], fail))


def _m_shape_scalar_equal(w, src, stmt, env, fail, args):
    _check(w, src, stmt.offset, "shapes_equal_or_single",
           _args(param=_tensor(env, args[0]), other=_tensor(env, args[1])), _fail_status(args[2], fail), stmt.text)


def _m_check_not_null(w, src, stmt, env, fail, args):
    for a in args:
        _check(w, src, stmt.offset, "null", _args(param=_tensor(env, a)), int(Status.ERR_PARAM_NULLPTR), stmt.text)


def _m_check_shape_all_equal(w, src, stmt, env, fail, args):
    """aclnn_check.h CHECK_SHAPE_ALL_EQUAL(p1..pn): shapes (p1,p2)..(pn-1,pn), then p(n-1) at most
    MAX_SUPPORT_DIMS_NUMS dimensions."""
    names = [_tensor(env, a) for a in args]
    code = int(Status.ERR_PARAM_INVALID)
    if len(names) < 2:
        raise Unreadable("CHECK_SHAPE_ALL_EQUAL of one tensor")
    for x, y in zip(names, names[1:]):
        _check(w, src, stmt.offset, "shapes_equal", _args(param=x, other=y), code, stmt.text)
    n = w.index.constant("MAX_SUPPORT_DIMS_NUMS")
    if n is None:
        raise Unreadable("MAX_SUPPORT_DIMS_NUMS is not defined in the checkout's headers")
    _check(w, src, stmt.offset, "rank_range", _args(param=names[-2], max=n), code, stmt.text)


def _m_check_cond(w, src, stmt, env, fail, args):
    """op_log.h CHECK_COND(cond, ret, ...): ``if (!(cond)) return ret``, as CHECK_RET."""
    if len(args) < 2:
        raise Unreadable("CHECK_COND without a status")
    _run_check_ret(w, src, stmt, env, args[:2])


def _format_local(expr: str, env: dict) -> str:
    """``selfFormat`` declared as ``auto selfFormat = self->GetStorageFormat();``: that expression."""
    held = env.get(_strip(expr))
    if isinstance(held, Opaque) and re.fullmatch(FORMAT_OF, held.text.strip()):
        return held.text.strip()
    return _strip(expr)


def _shape_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A shape comparison: view shapes and broadcast shapes (!=); storage formats (!=)."""
    if neg:
        return None
    parts = _split_top(body, "!=")
    fm = [re.fullmatch(FORMAT_OF, _format_local(p, env)) for p in parts] if len(parts) == 2 else []
    if fm and all(fm):
        return "formats_equal", _args(param=_tensor(env, fm[0].group(1)), other=_tensor(env, fm[1].group(1)))
    for op in ("!=", "=="):
        two = _split_top(body, op)
        lit = re.fullmatch(r"(?:op::|ge::)?(?:Format::)?FORMAT_([A-Z0-9_]+)", two[1]) if len(two) == 2 else None
        fx = re.fullmatch(FORMAT_OF, two[0]) if len(two) == 2 else None
        if lit and fx:
            return ("format_in" if op == "!=" else "format_not_in",
                    _args(param=_tensor(env, fx.group(1)), formats=[lit.group(1)]))
    if len(parts) == 2:
        a, b = _shape_of(w, parts[0], env), _shape_of(w, parts[1], env)
        if a is not None and b is not None and sorted((a[0], b[0])) == ["bshape-built", "built-shape"]:
            expanded, built = (a, b) if a[0] == "bshape-built" else (b, a)
            # the broadcast of t with a built shape differs from that shape: t does not expand to it
            return ("expands_to_shape", _args(param=expanded[1], shape=expanded[2])) \
                if expanded[2] == built[1] else None
        if a is not None and b is not None:
            if a[0] == "bshape" and b[0] == "bshape":
                return None
            if a[0] != "shape-of" and b[0] == "shape-of":   # the tensor's own shape first
                a, b = b, a
            if a[0] != "shape-of":
                return None
            return _shape_compare(a[1], b)
    return None


CHECK_MACROS.update({
    "OP_CHECK_BROADCAST_AND_INFER_SHAPE": _m_broadcast_infer,
    "OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE": _m_shape_expected,
    "OP_CHECK_BROADCAST_WITH_SHAPE": _m_broadcast_with_shape,
    "OP_CHECK_SHAPE_AND_SCALAR_EQUAL": _m_shape_scalar_equal,
    "CHECK_NOT_NULL": _m_check_not_null,
    "CHECK_SHAPE_ALL_EQUAL": _m_check_shape_all_equal,
    "CHECK_COND": _m_check_cond,
})


# ---- integers depending on a rank: ("lin", tensor, scale, offset, at_rank0) ----

def _lin(v: Any) -> tuple | None:
    return v if isinstance(v, tuple) and v and v[0] == "lin" else None


def _binary_split(expr: str) -> tuple[str, str, str] | None:
    """The last top-level binary + or - (left-associative), else the last *, / or % ; None if none."""
    for ops in ("+-", "*/%"):
        depth, found = 0, None
        for i, c in enumerate(expr):
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth -= 1
            elif depth == 0 and c in ops and i > 0:
                if c == "-" and expr[i + 1:i + 2] in (">", "-", "="):
                    continue
                if c == "+" and expr[i + 1:i + 2] in ("+", "="):
                    continue
                prev = expr[:i].rstrip()
                if not prev or prev[-1] in "+-*/(,<>=!&|?:":
                    continue       # a unary sign
                found = i
        if found is not None:
            return expr[:found].strip(), expr[found], expr[found + 1:].strip()
    return None


def _arith(w: Walk, expr: str, env: dict) -> Any:
    """Integer arithmetic over constants and rank-dependent integers; None when it is not such."""
    m = re.fullmatch(r"std::(min|max)\((.*)\)", expr, re.S)
    if m and match_close(expr, expr.index("(")) == len(expr) - 1:
        two = split_args(m.group(2))
        if len(two) != 2:
            return None
        a, b = _value(w, two[0], env), _value(w, two[1], env)
        try:
            return _minmax(m.group(1), a, b)
        except Unreadable:
            ea, eb = _iexpr_of(w, a), _iexpr_of(w, b)
            if ea is None or eb is None:
                raise
            return ("iexpr", (m.group(1), ea, eb))
    if expr.startswith("-") and not expr.startswith("->"):
        inner = _value(w, expr[1:], env)
        try:
            return _scale(inner, -1)
        except Unreadable:
            held = _iexpr_of(w, inner)
            if held is None:
                raise
            return ("iexpr", ("-", 0, held))
    split = _binary_split(expr)
    if split is None:
        return None
    a, op, b = _value(w, split[0], env), split[1], _value(w, split[2], env)
    try:
        return _linear_arith(a, op, b, expr)
    except Unreadable:
        ea, eb = _iexpr_of(w, a), _iexpr_of(w, b)
        if ea is None or eb is None:
            raise
        return ("iexpr", (op, ea, eb))


def _int_test(w: Walk, cond: str, env: dict) -> tuple | None:
    """A condition over integers (comparisons joined by ``&&``, ``||``, ``!``) as a spec.templates
    integer test; None when a part is no comparison of integers the walker knows."""
    cond = _strip(cond)
    for op, head in (("||", "or"), ("&&", "and")):
        parts = _split_top(cond, op)
        if len(parts) > 1:
            tests = [_int_test(w, p, env) for p in parts]
            return None if None in tests else (head, *tests)
    if cond.startswith("!") and not cond.startswith("!="):
        inner = _int_test(w, cond[1:], env)
        return None if inner is None else ("not", inner)
    cmp = _compare_split(cond)
    if cmp is None:
        return None
    shapes = [_shape_expr_at(w, x, env) for x in (cmp[0], cmp[2])] if cmp[1] in ("==", "!=") else [None]
    if None not in shapes:   # two shapes compared
        same = ("same-shape", *shapes)
        return same if cmp[1] == "==" else ("not", same)
    try:
        x, y = (_array_length(w, s, env) or _iexpr_of(w, _value(w, s, env)) for s in (cmp[0], cmp[2]))
    except Unreadable:
        return None
    return None if x is None or y is None else (cmp[1], x, y)


def _array_length(w: Walk, expr: str, env: dict) -> tuple | None:
    """``a->Size()`` of an integer array argument (cast to a signed integer or not), or a local holding
    it: ("len", a); None otherwise."""
    expr = _strip(expr)
    cast = re.fullmatch(r"(?:static_cast<\s*(?:int64_t|size_t|uint64_t)\s*>|\(\s*(?:int64_t|size_t|uint64_t)\s*\))\s*\((.*)\)",
                        expr, re.S) or re.fullmatch(r"\(\s*(?:int64_t|size_t|uint64_t)\s*\)\s*(\w+\s*->\s*Size\(\))", expr)
    expr = _strip(cast.group(1)) if cast else expr
    held = env.get(expr)
    if isinstance(held, Opaque):   # ``int64_t n = a->Size();``
        expr = held.text.strip()
    m = re.fullmatch(r"(\w+)\s*->\s*Size\(\)", expr)
    array = env.get(m.group(1)) if m else None
    return ("len", array.name) if isinstance(array, T) and "IntArray" in w.ptypes.get(array.name, "") else None


def _shape_expr_at(w: Walk, expr: str, env: dict) -> Any:
    """The shape expression ``expr`` holds: a shape local, or the view shape of an API tensor, of a
    copy of one or of a tensor whose shape the walk knows (``t->GetViewShape()``); None otherwise."""
    if re.fullmatch(r"[A-Za-z_]\w*(?:\s*->\s*GetViewShape\(\))?", _strip(expr)):
        return _shape_expr_of(_view_shape_held(expr, env))
    return None


def _iexpr_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """A comparison of integers no narrower atom reads (a dim's size in arithmetic, a quotient, a
    remainder, attributes combined): ``int_test``, violated when the comparison holds."""
    test = _int_test(w, body, env) if _compare_split(body) is not None else None
    if test is None or not templates_int_leaves(test):
        return None
    return "int_test", _args(test=("not", test) if neg else test)


def _shape_expr_of(v: Any) -> Any:
    """A held shape as a spec.templates shape expression: an API tensor's view shape, a shape built
    of constants and dims, an expression; None for anything else."""
    if not isinstance(v, tuple) or not v:
        return None
    if v[0] == "shape-of":
        return ("of", v[1])
    if v[0] == "built-shape":
        return ("dims", tuple(d if _is_int(d) else ("dim", *d) for d in v[1]))
    return v[1] if v[0] == "shape-expr" else None


def _set_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``s.SetDim(i, v);`` on a shape local the walk holds, i a constant, ``s.GetDimNum() - k`` or
    ``rank - k`` of the tensor whose rank s has, inside the rank earlier checks leave s, and v an
    integer the walk knows: s becomes that shape with dim i made v; unknown otherwise."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*SetDim\s*\((.*)\)\s*;?", stmt.text.strip(), re.S)
    shape = _shape_expr_of(env.get(m.group(1))) if m else None
    if shape is None:
        return False
    two, index, size = split_args(m.group(2)), None, None
    if len(two) == 2:
        index = _set_dim_index(w, two[0], m.group(1), shape, env)
        try:
            size = _iexpr_of(w, _value(w, two[1], env))
        except Unreadable:
            size = None
    if index is None and size is not None:
        index = _rank_less_index(w, two[0], shape, env)
        if index is not None:
            env[m.group(1)] = ("shape-expr", ("set-dim", shape, index, size))
            return True
    if index is None or size is None or _expr_min_rank(w, shape) < (-index if index < 0 else index + 1):
        env[m.group(1)] = Opaque(stmt.text.strip())
    else:
        env[m.group(1)] = ("shape-expr", ("set-dim", shape, index, size))
    return True


def _rank_less_index(w: Walk, text: str, shape: tuple, env: dict) -> tuple | None:
    """A SetDim index ``n - k`` (k >= 1) with n the rank of a shape X that ``shape`` starts with (X itself,
    or X with dims appended or set) and X of rank k or more on every call: inside ``shape``, as the
    integer expression ("-", ("srank", X), k); None otherwise."""
    try:
        index = _iexpr_of(w, _value(w, text, env))
    except Unreadable:
        return None
    if not (isinstance(index, tuple) and len(index) == 3 and index[0] == "-" and _is_int(index[2])
            and index[2] >= 1 and isinstance(index[1], tuple) and index[1][:1] == ("srank",)):
        return None
    x, y = _rank_form(index[1][1]), _rank_form(shape)
    inside = x is not None and y is not None and x[0] == y[0] and y[1] >= x[1]   # rank(shape) >= rank(X)
    return index if inside and _expr_min_rank(w, index[1][1]) >= index[2] else None


def _rank_form(shape: tuple) -> tuple | None:
    """A shape expression's rank as (the parts of unknown rank, a constant added): dims and slices of a
    constant length count as constants, a concat adds, a set-dim keeps; None for any other part than
    a tensor's shape or a broadcast (kept whole)."""
    head = shape[0] if isinstance(shape, tuple) and shape else None
    if head in ("of", "broadcast"):
        return ((shape,), 0)
    if head == "dims":
        return ((), len(shape[1]))
    if head == "slice" and _is_int(shape[3]) and shape[3] >= 0:
        return ((), shape[3])
    if head == "set-dim":
        return _rank_form(shape[1])
    if head == "concat":
        a, b = _rank_form(shape[1]), _rank_form(shape[2])
        return None if a is None or b is None else (a[0] + b[0], a[1] + b[1])
    return None


def _append_dim(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``s.AppendDim(v);`` on a shape local the walk holds, v an integer it knows: s becomes
    ("concat", s, ("dims", (v,))); unknown otherwise."""
    m = re.fullmatch(r"([A-Za-z_]\w*)\s*\.\s*AppendDim\s*\((.*)\)\s*;?", stmt.text.strip(), re.S)
    shape = _shape_expr_of(env.get(m.group(1))) if m else None
    if shape is None:
        return False
    try:
        size = _iexpr_of(w, _value(w, m.group(2), env))
    except Unreadable:
        size = None
    env[m.group(1)] = Opaque(stmt.text.strip()) if size is None else \
        ("shape-expr", ("concat", shape, ("dims", (size,))))
    return True


def _iexpr_of(w: Walk, v: Any) -> Any:
    """A held integer as a spec.templates integer expression (an int, a rank-linear integer, a dim
    size, an element count, an integer argument, an expression); None for anything else."""
    if _is_int(v):
        return v
    if isinstance(v, T):
        return ("attr", v.name) if _INT_TYPE.fullmatch(w.ptypes.get(v.name, "").strip()) else None
    if not isinstance(v, tuple) or not v:
        return None
    if v[0] == "iexpr":
        return v[1]
    if v[0] == "dim":
        return ("dim", v[1], v[2], v[3])
    if v[0] == "numel":
        return ("numel", v[1])
    if v[0] == "lin":
        _, t, k, c, c0 = v
        scaled = ("rank", t) if k == 1 else ("*", k, ("rank", t))
        line = c if k == 0 else ("+", scaled, c) if c else scaled
        return line if c0 == c else ("?", ("==", ("rank", t), 0), c0, line)
    return None


_INT_TYPE = re.compile(r"(?:const\s+)?(?:u?int(?:64|32|16|8)?_t|int|long)")


def _linear_arith(a: Any, op: str, b: Any, expr: str) -> Any:
    """``a op b`` over integers and rank-linear integers ("lin"); Unreadable when it is not such."""
    if op in "/%":
        if _is_int(a) and _is_int(b) and b != 0:
            return int_op(op, a, b)
        raise Unreadable(f"the quotient {expr!r}")
    if op == "*":
        if _is_int(a) and (_is_int(b) or _lin(b)):
            return _scale(b, a)
        if _is_int(b) and _lin(a):
            return _scale(a, b)
        raise Unreadable(f"the product {expr!r}")
    if op == "-":
        b = _scale(b, -1)
    if _is_int(a) and _is_int(b):
        return a + b
    la, lb = _lin(a), _lin(b)
    if la and _is_int(b):
        return ("lin", la[1], la[2], la[3] + b, la[4] + b)
    if lb and _is_int(a):
        return ("lin", lb[1], lb[2], lb[3] + a, lb[4] + a)
    if la and lb and la[1] == lb[1]:
        return ("lin", la[1], la[2] + lb[2], la[3] + lb[3], la[4] + lb[4])
    raise Unreadable(f"the sum {expr!r}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _scale(v: Any, k: int) -> Any:
    if _is_int(v):
        return v * k
    lv = _lin(v)
    if lv:
        return ("lin", lv[1], lv[2] * k, lv[3] * k, lv[4] * k)
    raise Unreadable(f"the product of {v!r}")


def _minmax(kind: str, a: Any, b: Any) -> Any:
    if _is_int(a) and _is_int(b):
        return min(a, b) if kind == "min" else max(a, b)
    la = _lin(a) or (("lin", _lin(b)[1], 0, a, a) if _is_int(a) and _lin(b) else None)
    lb = _lin(b) or (("lin", la[1], 0, b, b) if _is_int(b) and la else None)
    if not la or not lb or la[1] != lb[1]:
        raise Unreadable("a min/max of integers of different tensors")
    r0 = min(la[4], lb[4]) if kind == "min" else max(la[4], lb[4])
    # for ranks >= 1 one of the two lines must bound the other everywhere
    a_le = la[2] <= lb[2] and la[2] + la[3] <= lb[2] + lb[3]
    b_le = lb[2] <= la[2] and lb[2] + lb[3] <= la[2] + la[3]
    if not (a_le or b_le):
        raise Unreadable("a min/max of crossing rank bounds")
    pick = (la if a_le else lb) if kind == "min" else (lb if a_le else la)
    return ("lin", pick[1], pick[2], pick[3], r0)


def _int_attr(w: Walk, env: dict, expr: str) -> str | None:
    v = env.get(_strip(expr))
    if isinstance(v, T) and _strip(expr).startswith("__elem_"):
        return v.name          # each element of an integer array (_run_array_loop)
    if isinstance(v, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32|16|8)?_t|int|long|size_t)",
                                         w.ptypes.get(v.name, "").strip()):
        return v.name
    return None


_FLIP = {">": "<", "<": ">", ">=": "<=", "<=": ">=", "==": "==", "!=": "!="}
_NEG = {">": "<=", "<": ">=", ">=": "<", "<=": ">", "==": "!=", "!=": "=="}


def _compare_split(body: str) -> tuple[str, str, str] | None:
    """The one top-level comparison of ``body`` (``->``, shifts and template brackets are no comparison)."""
    depth, found = 0, []
    i = 0
    while i < len(body):
        c = body[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0 and c in "<>=!":
            two = body[i:i + 2]
            if two in (">=", "<=", "==", "!="):
                found.append((i, two))
                i += 2
                continue
            if two in ("<<", ">>") or (c == ">" and i > 0 and body[i - 1] == "-"):
                i += 2 if two in ("<<", ">>") else 1
                continue
            cast = re.search(r"\b(?:static|const|reinterpret)_cast\s*$", body[:i]) if c == "<" else None
            if cast and ">" in body[i:]:   # a cast's type in brackets
                i = body.index(">", i) + 1
                continue
            if c in "<>":
                found.append((i, c))
        i += 1
    if len(found) != 1 or re.search(r"&&|\|\||\?", body):
        return None
    at, op = found[0]
    return body[:at].strip(), op, body[at + len(op):].strip()


def _comparison(body: str, neg: bool) -> tuple[str, str, str] | None:
    """(left, operator, right) of the one comparison of ``body``, the operator negated with ``neg``."""
    cmp = _compare_split(body)
    return None if cmp is None else (cmp[0], _NEG[cmp[1]] if neg else cmp[1], cmp[2])


def _int_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``attr <op> bound`` (bound an integer, or one depending on a tensor's rank) and
    ``rank <op> n``: violated-when atoms over integers."""
    cmp = _comparison(body, neg)
    if cmp is None:
        return None
    a, op, b = cmp
    attr = _int_attr(w, env, a)
    other = b
    if attr is None and _int_attr(w, env, b) is not None:
        attr, other, op = _int_attr(w, env, b), a, _FLIP[op]
    if attr is not None:
        try:
            bound = _value(w, other, env)
        except Unreadable:
            return None
        # violated when attr <op> bound
        if _is_int(bound) and op in ("==", "!="):
            return ("attr_range", _args(attr=attr, min=bound, max=bound)) if op == "!=" else \
                ("attr_is", _args(attr=attr, value=bound))
        if op in ("==", "!="):
            return None
        if _is_int(bound):
            lim = {">": dict(max=bound), ">=": dict(max=bound - 1), "<": dict(min=bound),
                   "<=": dict(min=bound + 1)}[op]
            return "attr_range", _args(attr=attr, **lim)
        lb = _lin(bound)
        if lb:
            shift = {">": 0, ">=": -1, "<": 0, "<=": 1}[op]
            key = "max" if op in (">", ">=") else "min"
            kw = {key: [lb[2], lb[3] + shift]}
            if lb[4] != lb[3]:
                kw[f"{key}_rank0"] = lb[4] + shift
            return "attr_in_rank_range", _args(attr=attr, tensor=lb[1], **kw)
        return None
    try:
        x, y = _value(w, a, env), _value(w, b, env)
    except Unreadable:
        return None
    if _lin(y) and _is_int(x):
        x, y, op = y, x, _FLIP[op]
    lx = _lin(x)
    if lx and _is_int(y) and lx[2] == 1 and lx[4] == lx[3] and op == "==" and y - lx[3] == 0:
        return "rank_range", _args(param=lx[1], min=1)   # a rank of 0 refused: at least 1
    if lx and _is_int(y) and lx[2] == 1 and lx[4] == lx[3] and op != "==":
        n = y - lx[3]          # rank <op> n
        bounds = {">": dict(max=n), ">=": dict(max=n - 1), "<": dict(min=n), "<=": dict(min=n + 1),
                  "!=": dict(min=n, max=n)}[op]
        return "rank_range", _args(param=lx[1], **bounds)
    ly = _lin(y)
    if lx and ly and op == "!=" and lx[1] != ly[1] and lx[2:4] == ly[2:4] == (1, 0) and (lx[4] == 0 or ly[4] == 0):
        # two tensors' ranks differ (one of them counted as ly[4] / lx[4] at rank 0)
        (mine, other) = (lx, ly) if lx[4] == 0 else (ly, lx)
        return "ranks_equal", _args(param=mine[1], other=other[1],
                                    **({"other_rank0": other[4]} if other[4] != 0 else {}))
    return None


def _rank0_branch(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``if (rank == 0) { lo = -1; hi = 0; }`` (or ``rank <= 0``) over rank-dependent locals: their
    value at rank 0."""
    tensor = _rank_zero_test(w, stmt.cond, env) if not stmt.orelse else None
    if tensor is None:
        return False
    lr = ("lin", tensor, 1, 0, 0)
    updates, flags = {}, {}
    for st in stmt.then:
        m = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(-?\s*\d+)|([A-Za-z_]\w*)\s*\+\+|\+\+\s*([A-Za-z_]\w*)",
                         st.text.strip())
        name = m and (m.group(1) or m.group(3) or m.group(4))
        fm = re.fullmatch(r"([A-Za-z_]\w*)\s*=\s*(true|false)", st.text.strip())
        if fm and isinstance(env.get(fm.group(1)), bool) and (fm.group(2) == "true") != env[fm.group(1)] \
                and fm.group(1) not in flags:
            flags[fm.group(1)] = fm.group(2) == "true"   # a bool local set at rank 0 only: rank == 0
            continue
        if not m or not _lin(env.get(name)) or env[name][1] != lr[1] or name in updates:
            return False
        updates[name] = int(m.group(2).replace(" ", "")) if m.group(1) else env[name][4] + 1
    for name, v in updates.items():
        old = env[name]
        env[name] = ("lin", old[1], old[2], old[3], v)
    for name, at_rank0 in flags.items():
        env[name] = ("rank0-flag", lr[1], at_rank0)
    return bool(updates)


# ---- optional arguments and integer arrays ----

_VACUOUS_ON_NULL = {"dtype_in", "dtype_not_in", "dtypes_equal", "shapes_equal", "broadcastable", "rank_range",
                    "private_format", "formats_equal", "attr_in_rank_range", "attr_range", "broadcast_equals",
                    "broadcastable_all", "shapes_equal_or_single", "castable", "promotable", "attr_is",
                    "format_in", "format_not_in", "string_in", "shape_is", "broadcastable_shape", "expands_to_shape"}


def _null_guard(w: Walk, stmt: Stmt, env: dict) -> str | None:
    """``if (x == nullptr) { return true; }`` (or ``if (!x)`` on a pointer) on an API parameter: the
    rest runs only when x is given."""
    if stmt.kind != "if" or not _returns_success_only(stmt):
        return None
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)|!\s*(\w+)", _strip(stmt.cond))
    if not m:
        return None
    v = env.get(m.group(1) or m.group(2) or m.group(3))
    if m.group(3) and not (isinstance(v, T) and "*" in w.ptypes.get(v.name, "")):
        return None   # ``!x`` on a pointer argument only (not a bool)
    return v.name if isinstance(v, T) else None


def _false_status_null_guard(w: Walk, stmt: Stmt, env: dict, fail: int | None) -> str | None:
    """``OP_CHECK_NULL(x, return false)`` in a function returning aclnnStatus, called for its status:
    false converts to 0, ACLNN_SUCCESS; a null x ends the function successfully (the caller goes on):
    a null guard like ``if (x == nullptr) return ACLNN_SUCCESS``."""
    if fail is not None or stmt.kind != "call" or not getattr(w, "returns", "").endswith("aclnnStatus"):
        return None
    mac = _macro(stmt.text.strip())
    if not mac or mac[0] != "OP_CHECK_NULL" or len(mac[1]) != 2 or \
            re.sub(r"\s+", " ", mac[1][1]).strip().rstrip(";") != "return false":
        return None
    v = env.get(_strip(mac[1][0]))
    return v.name if isinstance(v, T) and w.depth > 1 else None


def _names_in(args: tuple) -> set:
    out = set()
    for _, v in args:
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, tuple):
            out.update(x for x in v if isinstance(x, str))
    return out


def _only_null_vacuous(w: Walk, mark: int, guard: str) -> None:
    """The checks made since ``mark`` under a null guard on ``guard`` must name it in a template a
    null argument does not violate; from the first that does not, unread (and the walk stops)."""
    for k in range(mark, len(w.events)):
        e = w.events[k]
        if e.kind == "unread" or (e.kind == "check" and e.template in _VACUOUS_ON_NULL
                                  and guard in _names_in(e.args)):
            continue
        del w.events[k:]
        w.events.append(Event("unread", "", (), None, e.path, e.line,
                              f"a check made only when {guard} is not null: {e.text}"[:160]))
        raise _Stop()


def _run_guarded(w: Walk, src: SourceFile, rest: tuple[Stmt, ...], env: dict, fail: int | None, top: bool,
                 guard: str) -> None:
    """The statements after a null guard: kept when every check they make names the guarded argument
    in a template that a null argument does not violate; otherwise unread from the first other."""
    mark = len(w.events)
    pending: BaseException | None = None
    try:
        _run_block(w, src, rest, env, fail, top)
    except (_End, _Stop) as exc:
        pending = exc
    _only_null_vacuous(w, mark, guard)
    if pending is not None:
        raise pending


def _copy_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``for (size_t i = 0; i < a->Size(); i++) { v.emplace_back((*a)[i]); }`` with ``a`` an integer
    array argument and ``v`` a vector declared empty just before and written nowhere else in its
    function: ``v`` holds that array."""
    m = re.fullmatch(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*\1\s*<\s*(\w+)\s*->\s*Size\(\)\s*;"
                     r"\s*(?:\+\+\s*\1|\1\s*\+\+)\s*\)\s*\{\s*(\w+)\s*\.\s*(?:emplace_back|push_back)\s*\("
                     r"\s*(?:\(\s*\*\s*\2\s*\)\s*\[\s*\1\s*\]|\2\s*->\s*operator\[\]\(\s*\1\s*\))\s*\)\s*;\s*\}",
                     stmt.text.strip(), re.S)
    array = env.get(m.group(2)) if m else None
    if not (isinstance(array, T) and "IntArray" in w.ptypes.get(array.name, "")):
        return False
    v = re.escape(m.group(3))
    body = _enclosing_body(src, stmt.offset)
    declared = re.findall(rf"(?:op::)?FVector<[^;]*>\s+{v}\s*;|std::vector<[^;]*>\s+{v}\s*;", body)
    writes = re.findall(rf"\b{v}\s*(?:\.\s*(?:emplace_back|push_back|resize|clear|erase|insert)\s*\(|=(?!=)|\[)", body)
    if len(declared) != 1 or len(writes) != 1:
        return False
    env[m.group(3)] = array
    return True


def _batch_broadcast_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """The batch dims of two matrices checked broadcastable, right-aligned (aclnn_cdist.cpp:196-218):
    ``for (i = 0; i < maxRank - K; i++) { d1 = (r1 < maxRank) ? ((i < maxRank - minRank) ? 1 :
    a->GetViewShape().GetDim(i - maxRank + minRank)) : a->GetViewShape().GetDim(i); d2 = (the same of
    b); if (d1 != d2) { if (d1 != 1 && d2 != 1) { log; return ERR; } } ... }`` with r1, r2 the ranks
    of a and b, maxRank and minRank their max and min: ``broadcastable`` of the shapes without their
    last K dims."""
    t = re.sub(r"\s+", " ", stmt.text.strip())
    head = re.match(r"for ?\((?:int64_t|size_t|int) (\w+) = 0; \1 < (?:static_cast<int64_t>)?\((\w+) - (\w+)\); "
                    r"\1\+\+\) ?\{ (.*) \}$", t)
    if not head:
        return False
    i, mx, k, body = (head.group(n) for n in (1, 2, 3, 4))
    ie, mxe = re.escape(i), re.escape(mx)
    side = (rf"int64_t (\w+) = \((\w+) < {mxe}\) \? \(\({ie} < {mxe} - (\w+)\) \? 1 : "
            rf"(\w+)->GetViewShape\(\)\.GetDim\({ie} - {mxe} \+ \3\)\) : \4->GetViewShape\(\)\.GetDim\({ie}\); ")
    m = re.match(side + side.replace("\\3", "\\7").replace("\\4", "\\8")
                 .replace("(\\w+) < ", "(\\w+) < ", 1) + r"if ?\((\w+) != (\w+)\) ?\{ if ?\((\w+) != 1 && (\w+) != 1\) ?\{ "
                 r"(?:OP_LOGE\([^;]*\); )?return (ACLNN_ERR_PARAM_\w+); (?://[^}]*)?\} \}", body)
    if not m:
        return False
    d1, r1, mn, a, d2, r2, mn2, b = (m.group(n) for n in range(1, 9))
    if mn2 != mn or (m.group(9), m.group(10)) != (d1, d2) or (m.group(11), m.group(12)) != (d1, d2):
        return False
    rest = body[m.end():]
    if re.search(r"\breturn\b|ACLNN_ERR|OP_CHECK|CHECK_RET", rest):
        return False
    encl = re.sub(r"\s+", " ", _enclosing_body(src, stmt.offset))
    ranks = {}
    for r, x in ((r1, a), (r2, b)):
        if not re.search(rf"\b{re.escape(r)} = {re.escape(x)}->GetViewShape\(\)\.GetDimNum\(\);", encl):
            return False
    if not (re.search(rf"\b{mxe} = std::max\({re.escape(r1)}, {re.escape(r2)}\);", encl)
            and re.search(rf"\b{re.escape(mn)} = std::min\({re.escape(r1)}, {re.escape(r2)}\);", encl)):
        return False
    tensors = [_shape_like(env.get(x)) for x in (a, b)]
    try:
        drop = _value(w, k, env)
    except Unreadable:
        return False
    if None in tensors or not isinstance(drop, int) or isinstance(drop, bool) or drop < 0:
        return False
    _check(w, src, stmt.offset, "broadcastable", _args(param=tensors[0], other=tensors[1], drop_last=drop),
           _status_of(m.group(13)), stmt.text)
    if not _batch_shapes(w, src, stmt, rest, (d1, d2), tensors, drop, env):
        _forget_in_text(rest, env)   # what the loop builds beside the check is not held
    return True


def _batch_shapes(w: Walk, src: SourceFile, stmt: Stmt, rest: str, dims: tuple[str, str], tensors: list[str],
                  drop: int, env: dict) -> bool:
    """The rest of the batch-broadcast loop (``_batch_broadcast_loop``) being ``int64_t d = std::max(d1,
    d2); s1.AppendDim(d); s2.AppendDim(d);`` with s1, s2 shapes declared empty (``op::Shape s;``) and
    untouched before it: both hold the broadcast of the two tensors' shapes without their last
    ``drop`` dims (right-aligned, as the loop pads the shorter with 1s). std::max is the broadcast's
    size only without a 0 among those dims (max(1, 0) = 1): held only where the walk's guards leave
    no 0 there (a success return on a zero batch dim before, aclnn_cdist.cpp:183-187)."""
    m = re.fullmatch(r"\s*int64_t (\w+) = std::max\((\w+), (\w+)\); (\w+)\.AppendDim\(\1\); (\w+)\.AppendDim\(\1\);\s*",
                     rest)
    if not m or {m.group(2), m.group(3)} != set(dims) or m.group(4) == m.group(5):
        return False
    fn = _enclosing_function(src, stmt.offset)
    before = fn.body[:stmt.offset - fn.body_offset] if fn is not None else ""
    for s in (m.group(4), m.group(5)):
        decl = list(re.finditer(rf"(?:op|gert)::Shape\s+{s}\s*;", before))
        if len(decl) != 1 or re.search(rf"\b{s}\b", before[decl[0].end():]) or s in env:
            return False
    if not all(_no_zero_dim(w, t, -drop) for t in tensors):
        return False
    batch = ("broadcast", *(("slice", ("of", t), 0, ("-", ("rank", t), drop)) for t in tensors))
    env[m.group(4)] = env[m.group(5)] = ("shape-expr", batch)
    return True


def _append_dims_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """A loop appending dims of held shapes to shapes: ``for (i = 0; i < n; i++) { int64_t d =
    x.GetDim(i); s.AppendDim(d); }`` (or ``s.AppendDim(x.GetDim(i))``) appends x's first n dims (none
    for n <= 0); ``for (i = c; i >= 0; i--) { s.AppendDim(x.GetDim(k - i - 1)); ... }`` with c a
    constant appends x's dims k - c - 1 .. k - 1 in order. Each s holds a shape, or is declared empty
    (``op::Shape s;``) and untouched before: it then holds ("concat", s, ("slice", x, start, count))."""
    t = re.sub(r"\s+", " ", stmt.text.strip())
    up = re.fullmatch(r"for ?\((?:int64_t|size_t|int|uint64_t) (\w+) = 0; \1 < (.+?); (?:\1\+\+|\+\+\1)\) ?"
                      r"\{ (.*) \}", t)
    down = re.fullmatch(r"for ?\((?:int64_t|int) (\w+) = (\d+); \1 >= 0; (?:\1--|--\1)\) ?\{ (.*) \}", t)
    if not (up or down):
        return False
    i, body = (up or down).group(1), (up or down).group(3)
    ie = re.escape(i)
    parts = [p.strip() for p in body.split(";")]
    if parts[-1] != "":
        return False
    parts, appended, local = parts[:-1], [], {}
    for part in parts:
        dim = re.fullmatch(r"(?:int64_t|auto) (\w+) = (.+?) ?\. ?GetDim\((.+)\)", part)
        if dim and dim.group(1) not in local and dim.group(1) != i:
            local[dim.group(1)] = (dim.group(2), dim.group(3))
            continue
        app = re.fullmatch(r"(\w+) ?\. ?AppendDim\((.+)\)", part)
        if not app:
            return False
        read = local.pop(app.group(2).strip(), None)
        if read is None:
            got = re.fullmatch(r"(.+?) ?\. ?GetDim\((.+)\)", app.group(2).strip())
            read = (got.group(1), got.group(2)) if got else None
        if read is None:
            return False
        appended.append((app.group(1), read[0], read[1].strip()))
    if local or not appended or len({a[0] for a in appended}) != len(appended):
        return False
    fn = _enclosing_function(src, stmt.offset)
    before = fn.body[:stmt.offset - fn.body_offset] if fn is not None else ""
    new = {}
    for s, x, index in appended:
        shape = _shape_expr_at(w, x, env)
        if shape is None or s == _strip(x) or re.search(rf"\b{ie}\b", x):
            return False
        held = _shape_expr_of(env.get(s))
        if held is None:   # a shape declared empty just before
            decl = list(re.finditer(rf"(?<![\w:])(?:(?:op|gert)::)?Shape\s+{re.escape(s)}\s*;", before))
            if s in env or len(decl) != 1 or re.search(rf"\b{re.escape(s)}\b", before[decl[0].end():]):
                return False
            held = ("dims", ())
        try:
            if up:
                n = _iexpr_of(w, _value(w, up.group(2), env))
                if index != i or re.match(r"for ?\((?:size_t|uint64_t)", t) and not _never_negative(w, n):
                    return False   # an unsigned count below 0 wraps: read only where it cannot
                start, count = 0, ("max", n, 0)
            else:
                k = re.fullmatch(rf"(.+?) - {ie} - 1", index)
                if not k:
                    return False
                last = _iexpr_of(w, _value(w, k.group(1), env))
                c = int(down.group(2))
                start, count = ("-", last, c + 1) if last is not None else None, c + 1
        except Unreadable:
            return False
        if start is None or None in (count if isinstance(count, tuple) else (count,)):
            return False
        new[s] = ("shape-expr", ("concat", held, ("slice", shape, start, count)))
    env.update(new)
    return True


def _never_negative(w: Walk, n: Any) -> bool:
    """The integer expression ``n`` is 0 or more on every call reaching here: a constant, or a rank
    (of a tensor or a shape expression) less a constant k no greater than its least rank."""
    if _is_int(n):
        return n >= 0
    if isinstance(n, tuple) and len(n) == 3 and n[0] == "-" and _is_int(n[2]) and isinstance(n[1], tuple):
        if n[1][:1] == ("srank",):
            return _expr_min_rank(w, n[1][1]) >= n[2]
        if n[1][:1] == ("rank",):
            return _min_rank_checked(w, n[1][1]) >= n[2]
    return n[:1] in (("srank",), ("rank",)) if isinstance(n, tuple) else False


def _no_zero_dim(w: Walk, tensor: str, stop: int) -> bool:
    """A guard of the walk leaves no 0 among ``tensor``'s first rank + ``stop`` dims: it refuses
    ("zero-dim", tensor, s) for an s >= stop, alone or as a term of a disjunction."""
    for g in w.guards:
        if isinstance(g, tuple) and len(g) == 2 and g[0] == "not" and isinstance(g[1], tuple):
            terms = g[1][1:] if g[1][:1] == ("or",) else (g[1],)
            if any(isinstance(x, tuple) and x[:2] == ("zero-dim", tensor) and x[2] >= stop for x in terms):
                return True
    return False


def _negative_dim_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = 0; i < x->GetViewShape().GetDimNum(); i++) { if (x->GetViewShape().GetDim(i) < 0)
    { log; return ERR; } }``: ``dims_nonnegative`` of x."""
    m = re.fullmatch(
        r"for ?\((?:size_t|int64_t|uint64_t|int) (\w+) = 0; \1 < (\w+)->GetViewShape\(\)\.GetDimNum\(\); \1\+\+\) ?\{ "
        r"if ?\(\2->GetViewShape\(\)\.GetDim\(\1\) < 0\) ?\{ (?:OP_LOGE\([^;]*\); )?(return [^;]+;) \} \}",
        re.sub(r"\s+", " ", stmt.text.strip()))
    held = env.get(m.group(2)) if m else None
    if not isinstance(held, T):
        return False
    _check(w, src, stmt.offset, "dims_nonnegative", _args(param=held.name), _fail_status(m.group(3), fail),
           stmt.text)
    return True


_COUNTED_LOOP = (r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int)\s+(?P<i>\w+)\s*=\s*0\s*;\s*(?P=i)\s*<\s*(?P<n>[^;]+?)\s*;"
                 r"\s*(?:\+\+\s*(?P=i)|(?P=i)\s*\+\+)\s*\)\s*")


def _slice_index(index: str, i: str) -> str | None:
    """The start ``a`` of an index ``a + i``, ``i + a`` or ``i`` ("0") over a loop's counter ``i``."""
    index = _strip(index)
    if index == i:
        return "0"
    two = _split_top(index, "+")
    if len(two) == 2 and i in (two[0].strip(), two[1].strip()) and two[0].strip() != two[1].strip():
        return two[1].strip() if two[0].strip() == i else two[0].strip()
    return None


def _slice_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict) -> bool:
    """``op::Shape s; s.SetDimNum(n); for (i = 0; i < n; i++) { s.SetDim(i, x.GetDim(a + i)); }``, the
    three in a row, with x a shape the walk holds and n, a integers it knows: ``s`` holds the n dims of
    x from dim a on (("slice", x, a, n))."""
    m = re.fullmatch(_COUNTED_LOOP + r"\{?\s*(?P<s>\w+)\s*\.\s*SetDim\s*\(\s*(?P=i)\s*,\s*(?P<x>.+?)\s*\.\s*GetDim\s*"
                     r"\((?P<at>[^;]+)\)\s*\)\s*;\s*\}?", stmt.text.strip(), re.S)
    fn = _enclosing_function(src, stmt.offset)
    if not m or fn is None or m.group(0).count("{") != m.group(0).count("}"):
        return False
    name, n = re.escape(m.group("s")), re.escape(m.group("n"))
    before = fn.body[:stmt.offset - fn.body_offset]
    start = _slice_index(m.group("at"), m.group("i"))
    shape = _shape_expr_at(w, m.group("x"), env)
    if start is None or shape is None or m.group("x").strip() == m.group("s") or \
            not re.search(rf"(?:op|gert)::Shape\s+{name}\s*;\s*{name}\s*\.\s*SetDimNum\s*\(\s*{n}\s*\)\s*;\s*$", before):
        return False
    try:
        at, count = (_iexpr_of(w, _value(w, x, env)) for x in (start, m.group("n")))
    except Unreadable:
        return False
    if at is None or count is None:
        return False
    env[m.group("s")] = ("shape-expr", ("slice", shape, at, count))
    _forget_if_mutated(src, stmt, env, m.group("s"))
    return True


def _slice_compare_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (i = 0; i < n; i++) { if (x.GetDim(a + i) != y.GetDim(b + i)) { log; return ERR; } }`` with
    x, y shapes the walk holds and n, a, b integers it knows: refused where the n dims of x from a on
    differ from those of y from b on (a tensor's n dims from 0 with n its rank are its whole shape)."""
    m = re.fullmatch(_COUNTED_LOOP + r"\{\s*if\s*\((?P<x>[^;]+?)\s*\.\s*GetDim\s*\((?P<a>[^;]+?)\)\s*!=\s*"
                     r"(?P<y>[^;]+?)\s*\.\s*GetDim\s*\((?P<b>[^;]+?)\)\s*\)\s*\{\s*(?:OP_LOGE\s*\([^;]*\)\s*;\s*)?"
                     r"(?P<ret>return\s[^;]+;)\s*\}\s*\}", stmt.text.strip(), re.S)
    if not m:
        return False
    starts = [_slice_index(m.group(k), m.group("i")) for k in ("a", "b")]
    shapes = [_shape_expr_at(w, m.group(k), env) for k in ("x", "y")]
    if None in starts or None in shapes:
        return False
    try:
        count, *at = (_iexpr_of(w, _value(w, x, env)) for x in (m.group("n"), *starts))
    except Unreadable:
        return False
    if count is None or None in at:
        return False
    sides = [shape if shape[0] == "of" and a == 0 and count == ("rank", shape[1]) else ("slice", shape, a, count)
             for shape, a in zip(shapes, at)]   # a rank is never negative: the whole shape
    whole = [side[1] for side in sides if side[0] == "of"]
    if whole:
        other = sides[1] if sides[0][0] == "of" else sides[0]
        template, args = "shape_is", _args(param=whole[0], shape_expr=other)
    else:
        template, args = "int_test", _args(test=("not", ("same-shape", *sides)))
    _check(w, src, stmt.offset, template, args, _fail_status(m.group("ret"), fail), stmt.text)
    return True


def _numel_loop(w: Walk, stmt: Stmt, env: dict) -> bool:
    """``for (size_t i = 0; i < shape.GetDimNum(); i++) { n *= shape.GetDim(i); }`` with ``n`` 1
    before it and ``shape`` a tensor's view shape: ``n`` holds the tensor's element count."""
    m = re.fullmatch(r"for\s*\(\s*(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*(\w+)\s*<\s*(.+?)\s*;"
                     r"\s*(?:\+\+\s*(\w+)|(\w+)\s*\+\+)\s*\)\s*\{\s*(\w+)\s*\*=\s*(.+?)\s*;\s*\}",
                     stmt.text.strip(), re.S)
    if not m or m.group(2) != m.group(1) or (m.group(4) or m.group(5)) != m.group(1) or env.get(m.group(6)) != 1:
        return False
    try:
        bound = _value(w, m.group(3), env)
    except Unreadable:
        return False
    dim = re.fullmatch(r"(.+?)\s*\.\s*GetDim\s*\(\s*" + m.group(1) + r"\s*\)", m.group(7), re.S)
    holder = env.get(_strip(dim.group(1))) if dim else None
    mv = re.fullmatch(r"([A-Za-z_]\w*)\s*->\s*GetViewShape\(\)", _strip(dim.group(1))) if dim else None
    if mv and isinstance(env.get(mv.group(1)), T):
        holder = ("shape-of", env[mv.group(1)].name)
    if not (isinstance(holder, tuple) and holder[:1] == ("shape-of",) and bound == ("lin", holder[1], 1, 0, 0)):
        return False
    env[m.group(6)] = ("numel", holder[1])
    return True


def _run_array_loop(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None) -> bool:
    """``for (size_t i = 0; i < dim->Size(); i++) { if (<dim[i] ...>) return <code>; }`` over an
    integer array argument: the checks of each element, as checks of the array."""
    m = re.fullmatch(r"for\s*\(\s*(?:const\s+)?(?:size_t|u?int(?:64|32)?_t|int|auto)\s+(\w+)\s*=\s*0\s*;\s*"
                     r"(\w+)\s*<\s*(\w+)\s*->\s*Size\(\)\s*;\s*(?:\+\+\s*(\w+)|(\w+)\s*\+\+)\s*\)\s*\{(.*)\}",
                     stmt.text.strip(), re.S)
    if not m or m.group(2) != m.group(1) or (m.group(4) or m.group(5)) != m.group(1):
        return False
    i, arr = m.group(1), m.group(3)
    v = env.get(arr)
    if not isinstance(v, T) or "IntArray" not in w.ptypes.get(v.name, ""):
        return False
    body_offset = stmt.offset + stmt.text.index("{", m.start(6) - 1) + 1
    inner = statements(m.group(6), body_offset)
    a, ii = re.escape(arr), re.escape(i)
    elem = re.compile(rf"\(\s*\*\s*{a}\s*\)\s*\[\s*{ii}\s*\]|{a}\s*->\s*operator\s*\[\s*\]\s*\(\s*{ii}\s*\)|"
                      rf"\(\s*\*\s*{a}\s*\)\s*\.\s*operator\s*\[\s*\]\s*\(\s*{ii}\s*\)")
    decl = r"(?:const\s+)?(?:auto|int64_t|int32_t|int)\s*&?\s*(\w+)\s*=\s*(.+)"
    inner, wrapped_dup = _wrapped_local_dup(w, inner, elem, env, fail)
    if wrapped_dup is None:
        inner, wrapped_dup = _wrapped_alias_dup(w, inner, elem, env, fail)
    aliases = [dm.group(1) for st in inner if st.kind == "decl"
               and (dm := re.fullmatch(decl, st.text.strip(), re.S)) and elem.fullmatch(_strip(dm.group(2)))]
    body = "".join(st.text + ";" for st in _flatten(inner))   # what is left of it after the tails read
    if any(len(re.findall(rf"\b{re.escape(n)}\s*(?:[-+*/]?=(?!=)|\+\+|--)", body)) != 1 for n in aliases):
        return False   # an element's local assigned again: not the element throughout
    if aliases:   # a local holding the element reads as the element
        elem = re.compile(elem.pattern + "|" + "|".join(rf"\b{re.escape(n)}\b" for n in aliases))
    inner, nonzero = _pos_dim_checks(w, inner, elem, env, fail)
    inner, dup = _mask_dup(w, inner, elem, env, fail)
    dup = dup or wrapped_dup
    if nonzero and dup is None:   # the wrapped index served only the size checks
        inner = tuple(st for st in inner if st is not nonzero[0])
    marker = f"__elem_{arr}"
    env2 = dict(env)
    env2[marker] = v
    checks: list[tuple[Stmt, str, int]] = []
    locals_: list[str] = []
    for st in inner:
        text = st.text.strip()
        if st.kind == "call" and IGNORED_CALLS.match(text):
            continue
        dm = re.fullmatch(decl, text, re.S)
        if st.kind == "decl" and dm and elem.fullmatch(_strip(dm.group(2))):
            locals_.append(dm.group(1))
            continue
        if st.kind == "if" and not st.orelse:
            code = _error_exit(st.then, fail)
            if code is None:
                return False
            cond = elem.sub(marker, st.cond)
            for name in locals_:
                cond = re.sub(rf"\b{re.escape(name)}\b", marker, cond)
            if re.search(rf"\b{ii}\b|\b{a}\b", cond):
                return False
            checks.append((st, cond, code))
            continue
        return False
    sized = nonzero[1] if nonzero else []
    codes = {c for _, _, c in checks} | ({dup[2]} if dup else set()) | {c for _, _, c in sized}
    if not (checks or dup or sized) or len(codes) != 1:
        return False
    for st, cond, code in checks:
        _data_condition(w, src, st.offset, cond, env2, code, "if (" + st.cond.strip() + ")")
    for st, tensor, code in sized:
        _check(w, src, st.offset, "attr_dims_nonzero", _args(attr=v.name, tensor=tensor), code,
               "if (" + " ".join(st.cond.split()) + ")")
    if dup:
        _emit_dims_unique(w, src, stmt, v, dup)
    return True


def _rank_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``rank <= 0 ? c : rank`` (or ``== 0``) over a rank local: the rank, c at rank 0."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] not in ("<=", "=="):
        return None
    try:
        r, zero = _value(w, cmp[0], env), _value(w, cmp[2], env)
        c, other = _value(w, branches[0], env), _value(w, branches[1], env)
    except Unreadable:
        return None
    lr = _lin(r)
    if not (lr and lr[2] == 1 and lr[3] == 0 and lr[4] == 0 and zero == 0 and other == r and _is_int(c)):
        return None
    return ("lin", lr[1], 1, 0, c)


def _int_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``test ? a : b`` over integers: ("iexpr", ["?", test, a, b])."""
    test = _int_test(w, cond, env)
    if test is None:
        return None
    try:
        a, b = (_iexpr_of(w, _value(w, x, env)) for x in branches)
    except Unreadable:
        return None
    return None if a is None or b is None else ("iexpr", ("?", test, a, b))


def _wrapped_choice(w: Walk, cond: str, branches: list[str], env: dict) -> tuple | None:
    """``d < 0 ? n + d : d`` with d an integer argument and n a tensor's rank counted 1 at rank 0:
    ("wrapped-dim-max1", d, tensor)."""
    cmp = _compare_split(_strip(cond))
    if cmp is None or cmp[1] != "<" or cmp[2].strip() != "0":
        return None
    d = env.get(cmp[0].strip())
    if not (isinstance(d, T) and re.fullmatch(r"(?:const\s+)?(?:u?int(?:64|32)_t|int)", w.ptypes.get(d.name, "").strip())):
        return None
    if _strip(branches[1]) != cmp[0].strip():
        return None
    m = re.fullmatch(rf"(\w+)\s*\+\s*{re.escape(cmp[0].strip())}", _strip(branches[0]))
    try:
        rank = _lin(_value(w, m.group(1), env)) if m else None
    except Unreadable:
        return None
    if rank is None or rank[2:] != (1, 0, 1):
        return None
    return ("wrapped-dim-max1", d.name, rank[1])


def _flag_atom(w: Walk, body: str, neg: bool, env: dict) -> tuple[str, tuple] | None:
    """``!p`` on a pointer argument that is no tensor (char*, aclScalar*, arrays): p is null;
    ``b`` / ``!b`` on a bool argument: b is true / false."""
    v = env.get(_strip(body))
    if not isinstance(v, T):
        return None
    ptype = w.ptypes.get(v.name, "").strip()
    if neg and "*" in ptype and "aclTensor" not in ptype:
        return "null", _args(param=v.name)
    if re.fullmatch(r"(?:const\s+)?bool", ptype):
        return "attr_is", _args(attr=v.name, value=not neg)
    return None


def _nonnull_count(w: Walk, stmt: Stmt, env: dict, guard: str) -> bool:
    """``int64_t n = 0; if (p != nullptr) { n = p->Numel(); }``: n holds p's element count where p is
    not null, 0 where it is (``("numel-if-nonnull", p)``; read as the count once a null check of p
    has decided every null call)."""
    if len(stmt.then) != 1:
        return False
    m = re.fullmatch(r"(\w+)\s*=\s*(.+?);?", stmt.then[0].text.strip(), re.S)
    if not m or env.get(m.group(1)) != 0:
        return False
    held = _shape_value(w, _strip(m.group(2)), env)
    if held != ("numel", guard):
        return False
    env[m.group(1)] = ("numel-if-nonnull", guard)
    return True


def _null_checked(w: Walk, param: str) -> bool:
    """An unguarded null check of ``param`` was read: no call with a null ``param`` gets further."""
    return any(e.kind == "check" and e.template == "null" and e.args_dict().get("param") == param
               and "when" not in e.args_dict() for e in w.events)


def _null_test_guard(w: Walk, stmt: Stmt, env: dict) -> tuple | None:
    """``if (p == nullptr) {...} [else {...}]``, or ``p != nullptr`` with an else, of a pointer argument
    p: the guard ("null", p) (negated for ``!=``); the branch without else on ``p != nullptr`` is
    _run_nonnull_branch's."""
    cond = _strip(stmt.cond)
    m = re.fullmatch(r"(\w+)\s*==\s*nullptr|nullptr\s*==\s*(\w+)", cond)
    v = env.get(m.group(1) or m.group(2)) if m else None
    if isinstance(v, T):
        return ("null", v.name)
    name = _nonnull_param(cond, env, w) if stmt.orelse else None
    return None if name is None else ("not", ("null", name))


def _nonnull_param(cond: str, env: dict, w: Walk | None = None) -> str | None:
    """The argument ``cond`` tests for not null: ``p != nullptr``, or with the walk, a pointer
    argument alone (``if (beta && ...)``)."""
    m = re.fullmatch(r"(\w+)\s*!=\s*nullptr|nullptr\s*!=\s*(\w+)", _strip(cond))
    if m is None and w is not None:
        bare = re.fullmatch(r"\w+", _strip(cond))
        v = env.get(bare.group(0)) if bare else None
        return v.name if isinstance(v, T) and "*" in w.ptypes.get(v.name, "") else None
    v = env.get(m.group(1) or m.group(2)) if m else None
    return v.name if isinstance(v, T) else None


def _same_pointer(w: Walk, expr: str, env: dict) -> bool | None:
    """``a == b`` (or ``!=``) of two pointer arguments: the same argument only where an in-place API
    passes one tensor as both (``self == out`` of aclnnInplaceAddr); distinct arguments are distinct
    objects in every call the suite builds. None for any other expression."""
    m = re.fullmatch(r"(\w+)\s*(==|!=)\s*(\w+)", expr)
    if m is None:
        return None
    a, b = env.get(m.group(1)), env.get(m.group(3))
    if not (isinstance(a, T) and isinstance(b, T)) or \
            not all("*" in w.ptypes.get(t.name, "") for t in (a, b)):
        return None
    return (a.name == b.name) == (m.group(2) == "==")


def _mentions(value: Any, name: str) -> bool:
    """``name`` appears anywhere in a rule's arguments (a when guard's dtype of it included)."""
    if isinstance(value, str):
        return value == name
    return isinstance(value, (tuple, list)) and any(_mentions(x, name) for x in value)


def _drop_nonnull(w: Walk, conds: list[str], env: dict) -> list[str]:
    """``p != nullptr && <atom on p>``: the atom alone, when its template is not violated by a null p."""
    guards = [c for c in conds if _nonnull_param(c, env)]
    rest = [c for c in conds if not _nonnull_param(c, env)]
    if len(guards) != 1 or len(rest) != 1:
        return conds
    try:
        template, args = _atom(w, rest[0], env)
    except Unreadable:
        return conds
    if template in _VACUOUS_ON_NULL and _nonnull_param(guards[0], env) in _names_in(args):
        return rest
    return conds


def _run_nonnull_branch(w: Walk, src: SourceFile, stmt: Stmt, env: dict, fail: int | None, top: bool) -> bool:
    """``if (p != nullptr) { checks }`` without else: its checks, when each names p in a template a
    null p does not violate (so that they hold whatever p is); unread otherwise."""
    guard = _nonnull_param(stmt.cond, env, w)   # ``p != nullptr``, or the pointer alone (``if (weights)``)
    if guard is None or stmt.orelse:
        return False
    if _nonnull_count(w, stmt, env, guard):
        return True
    mark = len(w.events)
    local = dict(env)
    try:
        _run_block(w, src, stmt.then, local, fail, top)
    except _End:
        del w.events[mark:]
        raise Unreadable(f"a branch on {stmt.cond.strip()!r} that returns") from None
    _only_null_vacuous(w, mark, guard)
    before = dict(env)
    _forget_assigned(stmt, env)   # the branch ran on a copy: what it assigns is unknown after it
    _keep_unchanged_dtypes(w, before, local, env)
    return True


def _keep_unchanged_dtypes(w: Walk, before: dict, after: dict, env: dict) -> None:
    """A tensor a branch reassigned (``after``: its values on the branch's side) holding the dtype it
    held before on every path: that dtype whichever side a call takes (its shape is not held)."""
    for name, held in env.items():
        if held == before.get(name):
            continue
        old, new = _tensor_dtype(w, name, before), _tensor_dtype(w, name, after)
        if old is not None and _one_sided(old) == _one_sided(new):
            env[name] = ("tensor-dtype", _one_sided(old))


def _one_sided(d: Any) -> Any:
    """A dtype expression with each choice between two equal dtypes made that dtype."""
    if not isinstance(d, tuple):
        return d
    out = tuple(_one_sided(x) for x in d)
    return out[2] if out[:1] == ("if",) and len(out) == 4 and out[2] == out[3] else out


# ---- duplicate dims of an integer array (a mask of the dims seen) ----

_VACUOUS_ON_NULL.add("attr_dims_unique")


def _flat(text: str, elem: re.Pattern) -> str:
    """A statement's text with the array element as ``@`` and no blanks, outer parentheses off."""
    return re.sub(r"\s+", "", _strip(elem.sub("@", text)))


def _mask_set(text: str, mask: str, idx: str) -> bool:
    return text in (f"{mask}[{idx}]=1", f"{mask}[{idx}]=true", f"{mask}.set({idx})")


def _mask_test(cond: str, idx: str) -> str | None:
    m = re.fullmatch(rf"([A-Za-z_]\w*)\[{re.escape(idx)}\](?:==(?:1|true))?|([A-Za-z_]\w*)\.test\({re.escape(idx)}\)",
                     cond)
    return m and (m.group(1) or m.group(2))


def _mask_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail of a dim loop's body that rejects a dim already seen, after wrapping a negative one by
    a rank local N: ``if (d < 0) { if (mask[N + d] == 1) fail; else mask[N + d] = 1; continue; }
    if (mask[d] == 1) fail; else mask[d] = 1;`` or ``index = GetPosDim(d, N); if (mask[index]) fail;
    mask.set(index);``. Returns (the statements before it, (N's value, wrap at rank 0 or None, code))."""
    def rank_local(expr):
        try:
            n = _value(w, expr, env)
        except Unreadable:
            return None
        ln = _lin(n)
        return ln if ln and ln[2] == 1 and ln[3] == 0 else None

    def test_then_set(stmts, idx):
        """``if (mask[idx] == 1) fail; [else] mask[idx] = 1;`` as the whole of stmts: (mask, code)."""
        if not stmts or stmts[0].kind != "if":
            return None
        t, rest = stmts[0], list(stmts[1:])
        if len(t.orelse) == 1 and not rest:
            rest = [t.orelse[0]]
        elif t.orelse:
            return None
        mask = _mask_test(_flat(t.cond, elem), idx)
        code = _error_exit(t.then, fail)
        if mask is None or code is None or len(rest) != 1 or not _mask_set(_flat(rest[0].text, elem), mask, idx):
            return None
        return mask, code

    for k in (len(inner) - 1, len(inner) - 2):
        a = inner[k - 1] if k >= 1 else None
        if a is None or a.kind != "if" or a.orelse or _flat(a.cond, elem) != "@<0" or len(a.then) < 2 \
                or a.then[-1].text.strip() != "continue":
            continue
        tail = test_then_set(inner[k:], "@")
        first = a.then[0]
        m = first.kind == "if" and re.fullmatch(r"\w+\[(\w+)\+@\](?:==(?:1|true))?", _flat(first.cond, elem))
        if not (tail and m):
            continue
        ln = rank_local(m.group(1))
        neg = test_then_set(a.then[:-1], f"{m.group(1)}+@")
        if ln and neg == tail:
            return inner[:k - 1], (ln, ln[4], tail[1])
    if len(inner) >= 3:
        d, t, s = inner[-3], inner[-2], inner[-1]
        dm = re.fullmatch(r"(?:const)?(?:uint64_t|int64_t|size_t|auto)(\w+)=(?:op::)?(GetPosDim|GetPosDimWithStd)"
                          r"\(@,(\w+)\)", _flat(d.text, elem))
        if d.kind == "decl" and dm and t.kind == "if" and not t.orelse:
            idx = dm.group(1)
            mask = _mask_test(_flat(t.cond, elem), idx)
            code = _error_exit(t.then, fail)
            ln = rank_local(dm.group(3))
            fn = w.index.function(dm.group(2))
            # GetPosDim(dim, n): n <= 0 taken as 1, then dim + n for a negative dim (level2_base_caculation.h)
            if mask and code is not None and ln and fn is not None and _mask_set(_flat(s.text, elem), mask, idx) \
                    and _pos_dim_body(fn):
                return inner[:-3], (ln, ln[4] if ln[4] > 0 else 1, code)
    return inner, None


_VACUOUS_ON_NULL.update({"attr_dims_nonzero", "reduced_shape"})
_POS_DIM_DECL = re.compile(r"(?:const)?(?:uint64_t|int64_t|size_t|auto)(\w+)=(?:op::)?(GetPosDim|GetPosDimWithStd)"
                           r"\(@,(\w+)\)")


def _pos_dim_checks(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """``index = GetPosDim(d, N); ... if (!isScalar && shape.GetDim(index) == 0) fail;`` in a dim
    loop: the dim an element names must not be empty (``isScalar`` the flag set at rank 0 only).
    Returns the statements without those checks and (the index's declaration, [(stmt, tensor,
    code)]), or the statements unchanged and None."""
    for k, d in enumerate(inner):
        dm = _POS_DIM_DECL.fullmatch(_flat(d.text, elem)) if d.kind == "decl" else None
        fn = w.index.function(dm.group(2)) if dm else None
        if not dm or fn is None or not _pos_dim_body(fn):
            continue
        idx, found, keep = dm.group(1), [], list(inner[:k + 1])
        for st in inner[k + 1:]:
            flat = _flat(st.cond, elem) if st.kind == "if" else ""
            if flat and not st.orelse and re.search(rf"\b{idx}\b", flat) and not _mask_test(flat, idx):
                tensor, code = _empty_dim_test(flat, idx, env), _error_exit(st.then, fail)
                if tensor is None or code is None:
                    return inner, None
                found.append((st, tensor, code))
                continue
            keep.append(st)
        return (tuple(keep), (d, found)) if found else (inner, None)
    return inner, None


def _empty_dim_test(flat: str, idx: str, env: dict) -> str | None:
    """``!isScalar&&S.GetDim(idx)==0`` (S a tensor's view shape, or ``t->GetViewShape()``) with
    ``isScalar`` true at rank 0 only: the tensor whose dim is tested."""
    m = re.fullmatch(rf"!(\w+)&&(?:(\w+)\.|(\w+)->GetViewShape\(\)\.)GetDim\({re.escape(idx)}\)==0", flat)
    if not m:
        return None
    flag = env.get(m.group(1))
    shape = env.get(m.group(2)) if m.group(2) else ("shape-of", env[m.group(3)].name) \
        if isinstance(env.get(m.group(3)), T) else None
    if not (isinstance(flag, tuple) and flag[:1] == ("rank0-flag",) and flag[2] is True):
        return None
    if not (isinstance(shape, tuple) and shape[:1] == ("shape-of",) and shape[1] == flag[1]):
        return None
    return shape[1]


def _wrapped_local_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail ``x = d; if (d < 0) { x = d + N; } if (mask[x] == 1) fail; else mask[x] = 1;`` of a
    dim loop (a local wrapped by a rank local N, then a mask of the dims seen). Returns (the
    statements before it, (N's value, its value at rank 0, code)) or (inner, None)."""
    if len(inner) < 3:
        return inner, None
    d, b = inner[-3], inner[-2]
    dm = re.fullmatch(r"(?:const)?(?:auto|int64_t|int32_t|int)(\w+)=@", _flat(d.text, elem)) if d.kind == "decl" else None
    ln = _wrap_by_rank(w, b, dm.group(1), elem, env, from_element=True) if dm else None
    if ln is None:
        return inner, None
    t = inner[-1]
    if t.kind != "if" or len(t.orelse) != 1:
        return inner, None
    mask = _mask_test(_flat(t.cond, elem), dm.group(1))
    code = _error_exit(t.then, fail)
    if mask is None or code is None or not _mask_set(_flat(t.orelse[0].text, elem), mask, dm.group(1)):
        return inner, None
    return inner[:-3], (ln, ln[4], code)


def _wrap_by_rank(w: Walk, b: Stmt, name: str, elem: re.Pattern, env: dict, from_element: bool) -> tuple | None:
    """``if (x < 0) { x = x + N; }`` with N a rank local (its value, a ``lin``); with
    ``from_element`` the element ``@`` may stand for x in the test and the sum. None otherwise."""
    if b.kind != "if" or b.orelse or len(b.then) != 1:
        return None
    x = re.escape(name)
    ref = rf"(?:@|{x})" if from_element else x
    if not re.fullmatch(rf"{ref}<0", _flat(b.cond, elem)):
        return None
    am = re.fullmatch(rf"{x}=(?:{ref}\+(\w+)|(\w+)\+{ref})", _flat(b.then[0].text, elem))
    if not am:
        return None
    try:
        ln = _lin(_value(w, am.group(1) or am.group(2), env))
    except Unreadable:
        return None
    return ln if ln and ln[2] == 1 and ln[3] == 0 else None


def _wrapped_alias_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail ``if (x < 0) { x = x + N; } if (mask[x]) fail; mask[x] = true;`` of a dim loop whose
    local ``x = d`` (the element, checked before the tail as itself) is wrapped in place by a rank
    local N (ops-math aclnn_std_mean_correction.cpp CheckDimValid). Returns (the statements before
    the tail, (N's value, its value at rank 0, code)) or (inner, None)."""
    alias = next((m.group(1) for st in inner if st.kind == "decl"
                  and (m := re.fullmatch(r"(?:const)?(?:auto|int64_t|int32_t|int)(\w+)=@", _flat(st.text, elem)))),
                 None)
    if alias is None or len(inner) < 4:
        return inner, None
    wrap, test, setter = inner[-3], inner[-2], inner[-1]
    ln = _wrap_by_rank(w, wrap, alias, elem, env, from_element=False)
    if ln is None or test.kind != "if" or test.orelse:
        return inner, None
    mask = _mask_test(_flat(test.cond, elem), alias)
    code = _error_exit(test.then, fail)
    if mask is None or code is None or not _mask_set(_flat(setter.text, elem), mask, alias):
        return inner, None
    return inner[:-3], (ln, ln[4], code)


def _pos_dim_body(fn: Function) -> bool:
    """``{ if (n <= 0) { n = 1; } return d >= 0 ? d : d + n; }`` exactly."""
    if len(fn.params) != 2:
        return False
    d, n = fn.params
    return re.sub(r"\s+", "", fn.body) == f"if({n}<=0){{{n}=1;}}return{d}>=0?{d}:{d}+{n};"


# ---- the shape a reduction leaves, built by an infer-shape helper ----

def _loop(var: str, bound: str) -> str:
    """``for(size_t i=0;i<bound;i++){`` (blanks removed) with the index named ``var``."""
    return rf"for\((?:size_t|int64_t|uint64_t)(?P<{var}>\w+)=0;(?P={var})<{bound};(?:\+\+(?P={var})|(?P={var})\+\+)\)\{{"


def _mask_helper_pattern(S: str, D: str, K: str, R: str, N: str | None) -> re.Pattern:
    """The mask form (amax, amin, logsumexp, max_v2's with ``N``, a no-op flag): reduce the dims of
    ``D`` (every dim when D is empty, or with N none), keep each as 1 with ``K``, append to ``R``."""
    s, d, k, r = (re.escape(x) for x in (S, D, K, R))
    mask = r"(?:std::)?bitset<\w+>(?P<m>\w+)=(?:std::)?bitset<\w+>\(\);"
    if N == "":      # no branch on an empty list: no dims mark nothing, so nothing is reduced
        empty = ""
    elif N is None:
        empty = rf"if\({d}->Size\(\)==0\)\{{(?P=m)\.flip\(\);\}}"
    else:
        n = re.escape(N)
        empty = (rf"if\({d}->Size\(\)==0\)\{{if\({n}\)\{{" + _loop("a", rf"{s}\.GetDimNum\(\)") +
                 rf"{r}\.AppendDim\({s}\.GetDim\((?P=a)\)\);\}}return;\}}else\{{if\({k}\)\{{" +
                 _loop("b", rf"{s}\.GetDimNum\(\)") + rf"{r}\.AppendDim\(1\);\}}\}}return;\}}\}}")
    elem = rf"(?:{d}->operator\[\]\((?P=i)\)|\(\*{d}\)\[(?P=i)\])"
    mark = (_loop("i", rf"{d}->Size\(\)") + rf"(?:int64_t|uint64_t|size_t|auto)(?P<x>\w+)=(?:op::)?"
            rf"(?P<pos>GetPosDim\w*)\({elem},{s}\.GetDimNum\(\)\);(?P=m)\.set\((?P=x)\);\}}")
    build = (_loop("j", rf"{s}\.GetDimNum\(\)") + rf"if\(!(?P=m)\[(?P=j)\]\)\{{{r}\.AppendDim\({s}\.GetDim"
             rf"\((?P=j)\)\);\}}elseif\({k}\)\{{{r}\.AppendDim\(1\);\}}\}}")
    return re.compile(mask + empty + mark + build)


def _array_helper_pattern(t: str, D: str, K: str) -> re.Pattern:
    """The array form (level2_base_caculation.h ReduceShapeGetWithVar): a bool per dim of ``t``,
    every dim reduced when ``D`` is null or empty, each reduced dim kept as 1 with ``K``."""
    t, d, k = (re.escape(x) for x in (t, D, K))
    return re.compile(
        rf"auto(?P<s>\w+)={t}->GetViewShape\(\);int64_t(?P<n>\w+)=(?P=s)\.GetDimNum\(\);"
        rf"bool(?P<a>\w+)\[\w+\]=\{{(?:false,)*false\}};int64_t(?P<x>\w+);op::Shape(?P<r>\w+);"
        rf"(?P=r)\.SetDimNum\(0\);if\({d}!=nullptr&&{d}->Size\(\)!=0\)\{{"
        + _loop("i", rf"static_cast<int64_t>\({d}->Size\(\)\)") +
        rf"(?P=x)={d}->operator\[\]\((?P=i)\);if\((?P=x)<0\)\{{(?P=x)=(?P=x)\+(?P=n);\}}(?P=a)\[(?P=x)\]=true;\}}"
        + _loop("j", "(?P=n)") +
        rf"if\(!(?P=a)\[(?P=j)\]\)\{{(?P=r)\.AppendDim\((?P=s)\.GetDim\((?P=j)\)\);\}}elseif\({k}\)\{{"
        rf"(?P=r)\.AppendDim\(1\);\}}\}}\}}elseif\({k}\)\{{" + _loop("k", "(?P=n)") +
        rf"(?P=r)\.AppendDim\(1\);\}}\}}return(?P=r);")


def _reduce_helper_roles(w: Walk, fn: Function) -> dict[str, Any] | None:
    """A function of the checkout that builds a reduction's shape, by its parameters' roles: the
    mask form ``(shape, dims, keepdim[, noop], out&)`` (without a branch on an empty list: no dims
    reduce nothing, ``noop`` True) or the array form ``(tensor, dims, keepdim)`` returning the
    shape; None for any other body (not read)."""
    body = re.sub(r"\s+", "", fn.body)
    p = fn.params
    if len(p) in (4, 5) and fn.returns.split()[-1] == "void":
        noop = p[3] if len(p) == 5 else None
        for form in ((noop, ""), ) if noop else ((None, ""), ("", "literal")):
            m = _mask_helper_pattern(p[0], p[1], p[2], p[-1], form[0]).fullmatch(body)
            pos = w.index.function(m.group("pos")) if m else None
            if m and pos is not None and _pos_dim_body(pos):
                extra = {"noop": 3} if noop else ({"noop": True} if form[1] else {})
                return {"shape": 0, "dims": 1, "keepdim": 2, "out": len(p) - 1, **extra}
    if len(p) == 3 and fn.returns.split()[-1].endswith("Shape") and _array_helper_pattern(*p).fullmatch(body):
        return {"tensor": 0, "dims": 1, "keepdim": 2}
    if len(p) == 3 and fn.returns.split()[-1].endswith("Shape") and _output_size_helper(w, fn):
        return {"tensor": 0, "dims": 1, "keepdim": 2}
    return None


def _called(w: Walk, m: re.Match | None, group: str, arity: int) -> Function | None:
    """The function of the checkout a body pattern's ``group`` names, when it takes ``arity`` parameters."""
    fn = w.index.function(m.group(group)) if m else None
    return fn if fn is not None and len(fn.params) == arity else None


def _output_size_helper(w: Walk, fn: Function) -> bool:
    """The npu-output-size form (reduce_all's ``output_shape``): a shape made of the vector a helper
    builds from ``t``'s dims, each one a mask of the dims marks erased (or kept as 1 with ``k``); the
    mask every dim when the dims are empty, else each dim wrapped by the rank (at least 1)."""
    t, d, k = fn.params
    nows = lambda f: re.sub(r"\s+", "", f.body)   # noqa: E731
    each_v, each_s = _loop("i", r"(?P=v)\.size\(\)"), _loop("i", r"(?P=s)\.GetDimNum\(\)")
    m = re.fullmatch(rf"op::Shape(?P<o>\w+);auto(?P<v>\w+)=(?P<h>\w+)\({t},{d},{k}\);(?P=o)\.SetDimNum\((?P=v)\.size\(\)\);"
                     rf"{each_v}(?P=o)\.SetDim\((?P=i),(?P=v)\.at\((?P=i)\)\);\}}return(?P=o);",
                     nows(fn))
    size = _called(w, m, "h", 3)
    if size is None:
        return False
    t2, d2, k2 = size.params
    m = re.fullmatch(
        rf"auto(?P<s>\w+)={t2}->GetViewShape\(\);int64_t(?P<n>\w+)={t2}->GetViewShape\(\)\.GetDimNum\(\);"
        rf"(?:std::)?bitset<\w+>(?P<m>\w+)=(?P<mk>\w+)\({d2},(?P=n)\);op::FVector<[\w:,]+>(?P<r>\w+);"
        rf"{each_s}(?P=r)\.push_back\((?P=s)\.GetDim\((?P=i)\)\);\}}"
        rf"for\(int(?P<x>\w+)=(?P=r)\.size\(\)-1;(?P=x)>=0;(?P=x)--\)\{{if\((?P=m)\[(?P=x)\]\)\{{if\({k2}\)\{{"
        rf"(?P=r)\[(?P=x)\]=1;\}}else\{{(?P=r)\.erase\((?P=r)\.begin\(\)\+(?P=x)\);\}}\}}\}}return(?P=r);", nows(size))
    mask = _called(w, m, "mk", 2)
    if mask is None:
        return False
    d3, n3 = mask.params
    m = re.fullmatch(rf"(?:std::)?bitset<\w+>(?P<m>\w+)=(?:std::)?bitset<\w+>\(\);if\({d3}\.empty\(\)\)\{{(?P=m)\.flip\(\);\}}"
                     rf"else\{{for\(int64_t(?P<x>\w+):{d3}\)\{{(?P=m)\.set\((?P<wrap>\w+)\((?P=x),{n3}\)\);\}}\}}return(?P=m);",
                     nows(mask))
    wrap = _called(w, m, "wrap", 2)
    if wrap is None:
        return False
    a, b = wrap.params
    return nows(wrap) == f"if({b}<=0){{{b}=1;}}if({a}<0){{{a}+={b};}}return{a};"


def _reduce_shape_value(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """``("rshape", tensor, dims, keepdim, noop)`` for a call of a reduction's shape helper whose
    arguments are the API's tensor (or its view shape), int array and bool flags (or literals)."""
    roles = _reduce_helper_roles(w, fn)
    if roles is None or len(args) != len(fn.params):
        return None
    if "shape" in roles:
        shape = _shape_of(w, args[roles["shape"]], env)
        tensor = shape[1] if shape and shape[0] == "shape-of" else None
    else:
        v = env.get(_strip(args[roles["tensor"]]))
        tensor = v.name if isinstance(v, T) else None
    dims = env.get(_strip(args[roles["dims"]]))
    if tensor is None or not isinstance(dims, T) or "IntArray" not in w.ptypes.get(dims.name, ""):
        return None
    flags = []
    for role in ("keepdim", "noop"):
        if role not in roles or isinstance(roles[role], bool):   # absent, or the helper's own
            flags.append(roles.get(role, False))
            continue
        text = _strip(args[roles[role]])
        v = env.get(text)
        if isinstance(v, T) and w.ptypes.get(v.name, "").strip() in ("bool", "const bool"):
            flags.append(v.name)
        elif text in ("true", "false"):
            flags.append(text == "true")
        else:
            return None
    return ("rshape", tensor, dims.name, flags[0], flags[1])


def _reduced_dims_call(w: Walk, fn: Function, args: list[str], env: dict) -> bool:
    """``F(x, ..., outShape, d, keepdim)`` with F pushing into outShape x's dims but the one d names
    (shape_helpers ``reduced_dims_fill``), called where the guards fix x's rank at the loop's bound and
    earlier checks keep d inside that rank: outShape holds ("dims-vector", the reduced shape), the
    helper's other reference arguments are unknown after it. False (nothing changed) otherwise."""
    fill = reduced_dims_fill(fn, w.index.constant) if len(args) == len(fn.params) else None
    if fill is None:
        return False
    arg = dict(zip(fn.params, (_strip(a) for a in args)))
    tensor = _shape_like(env.get(arg[fill.of]))
    dim, keep = env.get(arg[fill.dim]), env.get(arg[fill.keepdim])
    if fill.wraps:   # the helper wraps the dim: the API's integer as given
        attr = dim.name if isinstance(dim, T) and _INT_TYPE.fullmatch(w.ptypes.get(dim.name, "").strip()) else None
    else:   # the dim as given: the API's integer wrapped by max(rank, 1), the rank here never 0
        attr = dim[1] if isinstance(dim, tuple) and dim[:1] == ("wrapped-dim-max1",) and dim[2] == tensor else None
    keepdim = keep.name if isinstance(keep, T) and w.ptypes.get(keep.name, "").replace("const", "").strip() == "bool" \
        else keep if isinstance(keep, bool) else None
    if tensor is None or attr is None or keepdim is None or not _rank_fixed(w.guards, tensor, fill.rank) \
            or not _dim_range_checked(w, attr, tensor):
        return False
    for p, t in zip(fn.params, fn.param_types):
        if "&" in t and "const" not in t:
            env[arg[p]] = Opaque(f"{arg[p]}, set by {fn.name}")
    env[arg[fill.out]] = ("dims-vector", ("rshape", tensor, attr, keepdim, False))
    return True


def _rank_fixed(guards: list, tensor: str, rank: int) -> bool:
    """The guards the walk runs under hold only where ``tensor`` has rank ``rank``."""
    return any(g == ("rank", tensor, "==", rank) or (g[0] == "and" and _rank_fixed(list(g[1:]), tensor, rank))
               for g in guards)


def _dim_range_checked(w: Walk, attr: str, tensor: str) -> bool:
    """Unguarded checks read before refuse the integer argument ``attr`` below -rank and past rank - 1
    of ``tensor`` (``attr_in_rank_range``)."""
    bounds = {b for e in w.events if e.kind == "check" and e.template == "attr_in_rank_range"
              for a in [e.args_dict()] if a.get("attr") == attr and a.get("tensor") == tensor and "when" not in a
              for b, want in (("min", [-1, 0]), ("max", [1, -1])) if list(a.get(b) or ()) == want}
    return bounds == {"min", "max"}


def _shape_vector(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``op::ToShapeVector(s)`` (opbase shape_utils.h:25: the dims of s in order) of a shape the walk
    holds: ("dims-vector", ("shape-expr", S))."""
    m = re.fullmatch(r"(?:op::)?ToShapeVector\((.*)\)", _strip(rhs), re.S)
    shape = _shape_expr_at(w, m.group(1), env) if m and match_close(_strip(rhs), _strip(rhs).index("(")) == \
        len(_strip(rhs)) - 1 else None
    return None if shape is None else ("dims-vector", ("shape-expr", shape))


def _vector_array(rhs: str, env: dict) -> tuple | None:
    """``executor->AllocIntArray(v.data(), v.size())`` of a vector the walk holds dims of: those dims."""
    m = re.fullmatch(r"(?:[\w.]+(?:\(\))?\s*->\s*)?AllocIntArray\(\s*(\w+)\s*\.\s*data\(\)\s*,\s*\1\s*\.\s*size\(\)\s*\)",
                     rhs)
    held = env.get(m.group(1)) if m else None
    return held if isinstance(held, tuple) and held[:1] == ("dims-vector",) else None


def _reduce_shape_call(w: Walk, fn: Function, args: list[str], env: dict) -> bool:
    """``Helper(self->GetViewShape(), dim, keepDim, reduceShape);``: ``reduceShape`` holds the
    reduced shape after it."""
    value = _reduce_shape_value(w, fn, args, env)
    out = _strip(args[-1]) if args else ""
    if value is None or not re.fullmatch(r"[A-Za-z_]\w*", out) or isinstance(env.get(out), T):
        return False
    env[out] = value
    return True


def _emit_dims_unique(w: Walk, src: SourceFile, stmt: Stmt, arr: T, dup) -> None:
    ln, rank0, code = dup
    kw = {} if rank0 == 0 else {"rank0": rank0}
    _check(w, src, stmt.offset, "attr_dims_unique", _args(attr=arr.name, tensor=ln[1], **kw), code,
           " ".join(stmt.text.split())[:160])


def _last_param_by_value(src: SourceFile, callee: str) -> bool:
    """The file's own function ``callee`` takes its last parameter by value (``int64_t n``): a local
    passed there is not changed by the call."""
    fn = src.functions.get(callee.split("::")[-1])
    if fn is None or not fn.params:
        return False
    head = src.text[:fn.body_offset]
    close = head.rfind(")")
    decl = head[:close].rsplit(",", 1)[-1] if close > 0 else ""
    return bool(re.fullmatch(rf"\s*(?:const\s+)?(?:u?int(?:64|32)_t|size_t|int)\s+{re.escape(fn.params[-1])}\s*", decl))
