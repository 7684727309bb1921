"""What the reader works with: the product table and status names, the events it yields
(``Event``), the argument wrappers (``T``, ``DList``, ``Opaque``), the index of an op_api file's
functions and of the checkout's kernels (``Index``, ``KernelIndex``), the walk's state (``Walk``), the
constants of a file (``#define``, ``enum``) and the small text helpers every family shares."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclnn_conformance.extract.infershape import InferShapeIndex
from aclnn_conformance.extract.opbase import OpbaseSource
from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close, read_source, split_args
from aclnn_conformance.extract.syntax import closes_no_unopened_block, split_top, ternary_branches
from aclnn_conformance.spec.enums import Status
import aclnn_conformance.extract.host_code.reenter as reenter

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
# OP_LOGE_FOR_INVALID_*: opbase include/op_common/log/log.h:721 (a report, nothing else)
IGNORED_CALLS = re.compile(r"^(?:OP_LOG[A-Z]*|L2_DFX_PHASE_\d|OP_LOGE_WITH_INVALID_INPUT\w*|OP_LOGE_FOR_INVALID_\w+|"
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
    cites: tuple = ()             # Citations of bodies read outside the checkout (opbase) it rests on

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
    cast_routes: "CastRoutes | None" = None   # l0op::Cast's routes per arch (ops-math cast.cpp), when read
    # function-pointer parameters of the functions being inlined, bound to the function passed
    aliases: dict[str, Function] = field(default_factory=dict)

    def function(self, name: str) -> Function | None:
        name = name.split("::")[-1]
        if name in self.aliases:
            return self.aliases[name]
        if name in self.own.functions:
            return self.own.functions[name]
        # then the op's own headers beside the file (ops-math conversion/pad_v3/op_api/op_replication_pad.h:40
        # CheckNotNull, called by aclnn_replication_pad1d.cpp:58), then the repository's common helpers
        for src in (*self.headers, *self.common):
            if name in src.functions:
                return src.functions[name]
        return None

    def source(self, fn: Function) -> SourceFile:
        return self.own if fn.path == self.own.path else \
            next(s for s in (*self.headers, *self.common) if s.path == fn.path)

    def _named_list(self, table: str, name: str) -> tuple[tuple, str] | None:
        """A list constant of the file or its common helpers by name (the first found), from the
        source table ``table`` (dtype, pair or format lists), and where it is defined."""
        name = name.split("::")[-1]
        for src in (self.own, *self.headers, *self.common):
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
    beside the aclnn files, not the unit tests' doubles under ``common/stub``), read on first use. Overloads in one file are told apart by their
    parameter count; a name defined in two files, or twice with one count, is none."""

    def __init__(self, root: Path, opbase: OpbaseSource | None = None):
        self.root = root
        self._functions: dict[str, list[Function] | None] | None = None
        self._sources: dict[str, SourceFile] = {}
        self.infers = InferShapeIndex(root, opbase)   # the op_host infer functions (a reduction's result shape)

    def function(self, name: str, arity: int | None = None) -> Function | None:
        if self._functions is None:
            self._functions = {}
            files = sorted({*self.root.glob("*/*/op_api/*.cpp"), *self.root.glob("*/*/op_host/op_api/*.cpp")})
            for path in files:
                if path.name.startswith("aclnn_") or "experimental" in path.parts or \
                        path.relative_to(self.root).parts[:2] == ("common", "stub"):
                    continue   # ops-nn common/stub/op_api/op_api_stub.cpp: the unit tests' doubles (Cast returns self)
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
    # a value held (a reduction's shape) -> the Citations of the bodies outside the checkout it was read from
    read_elsewhere: dict[tuple, tuple] = field(default_factory=dict)
    # (array, index) of an element the statement being read reads past the length the checks keep
    element_outside: tuple | None = None

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


def guard_held(w: "Walk", g: Any) -> bool:
    """Every call reaching here satisfies guard ``g``: a guard of the walk is ``g``, or has it among
    its conjuncts (at any depth)."""
    def says(x: Any) -> bool:
        return x == g or isinstance(x, tuple) and x[:1] == ("and",) and any(says(y) for y in x[1:])
    return any(says(x) for x in w.guards)


def _cite(src: SourceFile, offset: int) -> tuple[str, int]:
    return src.path, src.line_of(offset)


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


def _guard_of_nulls_and_lengths(g: Any) -> bool:
    """``g`` tests only which pointers are null and integer arrays' lengths against constants."""
    if g[0] in ("and", "or", "not"):
        return all(_guard_of_nulls_and_lengths(x) for x in g[1:])
    if g[0] == "null":
        return True
    if g[0] == "int" and len(g[1]) == 3 and g[1][0] in ("==", "!=", "<", "<=", ">", ">="):
        sides = g[1][1:]
        return any(isinstance(x, tuple) and x[:1] == ("len",) for x in sides) and \
            all(isinstance(x, tuple) and x[:1] == ("len",) or isinstance(x, int) for x in sides)
    return False


def _check(w: Walk, src: SourceFile, offset: int, template: str, args: tuple, status: int | None,
           text: str, cites: tuple = ()) -> None:
    path, line = _cite(src, offset)
    if template == "product" and w.guards:   # every call taking the branches: the rule their guards say
        g = w.guards[0] if len(w.guards) == 1 else ("and", *w.guards)
        atom = reenter.guard_atom(g) or reenter.rank_int_rule(g)   # guard_rules.py: ranks and integers
        if atom is None and _guard_of_nulls_and_lengths(g):
            # the guards themselves the failing test (ops-nn norm/add_rms_norm_dynamic_quant/op_host/
            # op_api/aclnn_add_rms_norm_dynamic_quant_v2.cpp:61-63: an array given with another length)
            atom = ("int_test", _args(test=("guard", g)))
        if atom is None:
            raise Unreadable("a failure of every call taking a data-dependent branch")
        template, args = atom
    elif w.guards:
        args = reenter.guarded_args(w, template, args)
    reenter.decided(args)
    w.events.append(Event("check", template, args, status, path, line, " ".join(text.split())[:160], cites))


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


def _enclosing_function(src: SourceFile, offset: int) -> Function | None:
    """The function of ``src`` whose body holds ``offset``."""
    return next((f for f in src.functions.values() if f.body_offset <= offset < f.body_offset + len(f.body)), None)


def _enclosing_body(src: SourceFile, offset: int) -> str:
    fn = _enclosing_function(src, offset)
    return fn.body if fn is not None else ""
    # a branch of the compute path: nothing is checked there


# ---- values and conditions ----

def _strip(expr: str) -> str:
    expr = expr.strip()
    while expr.startswith("(") and match_close(expr, 0) == len(expr) - 1:
        expr = expr[1:-1].strip()
    return expr


def _split_top(expr: str, op: str) -> list[str]:
    """The parts of ``expr`` between its top-level ``op`` operators (the parser's tokens)."""
    return split_top(expr, op)


def array_param(w: "Walk", held: Any, kinds: tuple[str, ...] = ("Int",)) -> bool:
    """``held`` is an API argument of one of the array types ``kinds`` (``"Int"``: aclIntArray,
    ``"Bool"``: aclBoolArray, ``"Float"``: aclFloatArray), read from its C type."""
    return isinstance(held, T) and any(f"{k}Array" in w.ptypes.get(held.name, "") for k in kinds)


def _tensor(env: dict, expr: str) -> str:
    expr = _strip(expr)
    value = env.get(expr)
    if isinstance(value, T):
        return value.name
    raise Unreadable(f"{expr!r} is not a parameter of the API")


# ---- product lists: switches on the product, lists written in place, list sizes, map lookups ----

def _split_colon(expr: str) -> list[str]:
    """The two branches of a ternary's ``a : b``, split at the top-level ``:`` (the parser's tokens)."""
    return ternary_branches(expr)


def _block_open(text: str) -> bool:
    """No brace in ``text`` closes a block it did not open: its start is in scope at its end."""
    return closes_no_unopened_block(text)


# ---- integers depending on a rank: ("lin", tensor, scale, offset, at_rank0) ----

def _lin(v: Any) -> tuple | None:
    return v if isinstance(v, tuple) and v and v[0] == "lin" else None


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _names_in(args: tuple) -> set:
    out = set()
    for _, v in args:
        if isinstance(v, str):
            out.add(v)
        elif isinstance(v, tuple):
            out.update(x for x in v if isinstance(x, str))
    return out


def _mentions(value: Any, name: str) -> bool:
    """``name`` appears anywhere in a rule's arguments (a when guard's dtype of it included)."""
    if isinstance(value, str):
        return value == name
    return isinstance(value, (tuple, list)) and any(_mentions(x, name) for x in value)


def _flat(text: str, elem: re.Pattern) -> str:
    """A statement's text with the array element as ``@`` and no blanks, outer parentheses off."""
    return re.sub(r"\s+", "", _strip(elem.sub("@", text)))


# ---- the shape a reduction leaves, built by an infer-shape helper ----

def _loop(var: str, bound: str) -> str:
    """``for(size_t i=0;i<bound;i++){`` (blanks removed) with the index named ``var``."""
    return rf"for\((?:size_t|int64_t|uint64_t)(?P<{var}>\w+)=0;(?P={var})<{bound};(?:\+\+(?P={var})|(?P={var})\+\+)\)\{{"


def _called(w: Walk, m: re.Match | None, group: str, arity: int) -> Function | None:
    """The function of the checkout a body pattern's ``group`` names, when it takes ``arity`` parameters."""
    fn = w.index.function(m.group(group)) if m else None
    return fn if fn is not None and len(fn.params) == arity else None
