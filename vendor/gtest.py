"""The vendor's op_api gtest unit tests: every ``EXPECT_EQ`` on a first-phase call becomes a case.

Read statically: the tensors a test describes (``TensorDesc(shape, dtype, format[, strides, offset,
storage shape])`` with ``.ValueRange``, ``.Value``, ``.Precision``), the scalar, array and tensor-list
helpers, plain C++ constants, ``OP_API_UT(aclnnX, INPUT(...), OUTPUT(...))``, null tensors, the
status each ``TestGetWorkspaceSize`` call is expected to return, and the SoC in force: a
``SocVersionManager`` / ``NpuArchManager`` for the rest of its scope, a ``SetPlatformSocVersion`` /
``SetPlatformNpuArch`` for the rest of the file (the stub platform keeps it), else the harness's
default. A call this reader cannot evaluate is listed with its line and the reason, never guessed.
"""
from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aclnn_conformance.spec.enums import AclDataType, AclFormat, Status
from aclnn_conformance.spec.registry import RegistryError
from aclnn_conformance.spec.params import bare_scalar_dtype
from aclnn_conformance.vendor import soc as vendor_soc
from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.vendor.model import (TensorRecipe, VendorCase, VendorExpectation,
                                            spec_params)
from aclnn_conformance.vendor.values import exact, seed_of, uniform

DEFAULT_SHAPE = (1, 1, 16, 16)            # tensor_desc.h: TensorDesc's default view dims
DEFAULT_FORMAT = AclFormat.NCHW           # tensor_desc.h: its default format
DEFAULT_RANGE = (-2, 2)                   # tensor_desc.h: value_range_ = "[-2,2]"

_TOKEN = re.compile(r"""
    (?P<str>"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')
  | (?P<num>0[xX][0-9a-fA-F]+[uUlL]*|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[fFuUlL]*)
  | (?P<id>(?:::)?[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<op>->|&&|\|\||==|!=|<=|>=|<<|>>|[{}()\[\],;.*&<>=+\-/!:?%|~^])
""", re.VERBOSE)
_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TEST = re.compile(r"^(TEST|TEST_F|HWTEST_F|TYPED_TEST)$")
_SOC_SCOPED = ("SocVersionManager", "NpuArchManager", "NpuArchManagerMock")
_SOC_SETTERS = ("SetPlatformSocVersion", "SetPlatformNpuArch")
_EXPECT = {"EXPECT_EQ": "eq", "ASSERT_EQ": "eq", "EXPECT_NE": "ne", "ASSERT_NE": "ne"}
_DESC_CLASSES = {"TensorDesc", "ScalarDesc", "TensorListDesc", "IntArrayDesc", "BoolArrayDesc",
                 "FloatArrayDesc", "ScalarListDesc", "FloatArrayDesc"}
_PRIMITIVE_KINDS = {"float": "float32", "double": "float64", "bool": "bool", "int": "int",
                    "int8_t": "int", "int16_t": "int", "int32_t": "int", "int64_t": "int",
                    "uint8_t": "int", "uint16_t": "int", "uint32_t": "int", "uint64_t": "int",
                    "size_t": "int", "char": "int", "aclDataType": "enum", "aclFormat": "enum",
                    "string": "str", "char*": "str"}
_LOOPS = {"for", "while", "do", "if", "else", "switch"}


class ReadError(Exception):
    """A part of a test this reader cannot evaluate: the reason, and the offset it is at."""

    def __init__(self, reason: str, pos: int):
        super().__init__(reason)
        self.reason, self.pos = reason, pos


@dataclass(frozen=True)
class Tok:
    kind: str
    text: str
    pos: int


NULL = object()     # a null tensor pointer


@dataclass(frozen=True)
class ScalarVal:
    value: Any
    dtype: str


@dataclass(frozen=True)
class ArrayVal:
    kind: str           # int | bool | float
    values: tuple


@dataclass(frozen=True)
class TensorListVal:
    items: tuple


@dataclass
class TensorVal:
    shape: tuple[int, ...] = DEFAULT_SHAPE
    dtype: str = "ACL_FLOAT"
    format: str = "ACL_FORMAT_NCHW"
    strides: tuple[int, ...] | None = None
    offset: int = 0
    storage: tuple[int, ...] | None = None
    values: dict = field(default_factory=lambda: uniform(*DEFAULT_RANGE))
    precision: tuple = ()

    def copy(self) -> "TensorVal":
        return TensorVal(self.shape, self.dtype, self.format, self.strides, self.offset, self.storage,
                         dict(self.values), self.precision)


@dataclass
class _Var:
    tokens: list[Tok]
    kind: str           # the declared type's kind (float32, int, desc, auto, ...)
    pos: int
    value: Any = None
    done: bool = False


def strip_comments(text: str) -> str:
    """Comments replaced by blanks of the same lines (strings kept), so offsets keep their line."""
    def blank(m: re.Match) -> str:
        s = m.group(0)
        return s if s.startswith('"') else re.sub(r"[^\n]", " ", s)
    return _COMMENT.sub(blank, text)


def tokenize(text: str) -> list[Tok]:
    out = []
    for m in _TOKEN.finditer(text):
        kind = m.lastgroup
        tok = m.group(0)
        if kind == "id" and "::" in tok:
            tok = re.sub(r"\s+", "", tok)
        out.append(Tok(kind, tok, m.start()))
    return out


def _match(toks: list[Tok], i: int, opener: str, closer: str) -> int:
    """The index of the token closing the one at ``i``."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j].text
        if t == opener:
            depth += 1
        elif t == closer:
            depth -= 1
            if depth == 0:
                return j
    raise ReadError(f"unbalanced {opener}{closer}", toks[i].pos)


def _split_args(toks: list[Tok]) -> list[list[Tok]]:
    """Comma-separated arguments at depth 0 (parentheses, braces, brackets and template angles)."""
    args, cur, depth = [], [], 0
    for t in toks:
        if t.text in "({[":
            depth += 1
        elif t.text in ")}]":
            depth -= 1
        if t.text == "," and depth == 0:
            args.append(cur)
            cur = []
        else:
            cur.append(t)
    if cur or args:
        args.append(cur)
    return args


# ---- expressions ----

def _number(text: str) -> int | float:
    t = text.rstrip("uUlL")
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t.lower().startswith("0b"):
        return int(t, 2)
    if re.fullmatch(r"0[0-7]+", t):     # a C++ octal literal: 016 is 14
        return int(t, 8)
    if re.fullmatch(r"\d+", t):
        return int(t)
    return float(t.rstrip("fF"))


class _Eval:
    """Evaluates the expressions of one test, resolving its variables on demand."""

    def __init__(self, variables: dict[str, _Var]):
        self.vars = variables
        self.depth = 0

    def var(self, name: str, pos: int) -> Any:
        v = self.vars.get(name)
        if v is None:
            raise ReadError(f"`{name}` is not a value this test defines", pos)
        if not v.done:
            if self.depth > 40:
                raise ReadError(f"`{name}` refers to itself", pos)
            self.depth += 1
            try:
                v.value = self.expr(v.tokens, v.kind)
            finally:
                self.depth -= 1
            v.done = True
        return v.value

    def expr(self, toks: list[Tok], kind: str = "auto") -> Any:
        if not toks:
            raise ReadError("an empty expression", 0)
        p = _Parser(self, toks)
        value = p.parse_expr()
        if p.i != len(toks):
            raise ReadError(f"cannot read `{_text(toks)[:80]}`", toks[p.i].pos)
        if kind == "float32" and isinstance(value, (int, float)) and not isinstance(value, bool):
            import numpy as np
            return float(np.float32(value))
        if kind == "float64" and isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        if kind == "bool" and isinstance(value, (int, float)):
            return bool(value)
        return value


def _text(toks: list[Tok]) -> str:
    return " ".join(t.text for t in toks)


class _Parser:
    def __init__(self, ev: _Eval, toks: list[Tok]):
        self.ev, self.toks, self.i = ev, toks, 0

    def peek(self, k: int = 0) -> str:
        j = self.i + k
        return self.toks[j].text if j < len(self.toks) else ""

    def pos(self) -> int:
        return self.toks[min(self.i, len(self.toks) - 1)].pos

    def take(self, text: str | None = None) -> Tok:
        if self.i >= len(self.toks):
            raise ReadError(f"expected {text or 'more'} at the end of `{_text(self.toks)[:60]}`",
                            self.toks[-1].pos)
        tok = self.toks[self.i]
        if text is not None and tok.text != text:
            raise ReadError(f"expected `{text}`, found `{tok.text}`", tok.pos)
        self.i += 1
        return tok

    def parse_expr(self) -> Any:
        value = self.parse_term()
        while self.peek() in ("+", "-"):
            op = self.take().text
            rhs = self.parse_term()
            value = _arith(op, value, rhs, self.pos())
        return value

    def parse_term(self) -> Any:
        value = self.parse_unary()
        while self.peek() in ("*", "/", "%"):
            op = self.take().text
            rhs = self.parse_unary()
            value = _arith(op, value, rhs, self.pos())
        return value

    def parse_unary(self) -> Any:
        t = self.peek()
        if t == "-":
            self.take()
            return _arith("-", 0, self.parse_unary(), self.pos())
        if t == "+":
            self.take()
            return self.parse_unary()
        if t == "!":
            self.take()
            return not self.parse_unary()
        if t == "(" and self._is_cast():
            close = _match(self.toks, self.i, "(", ")")
            self.i = close + 1
            return self.parse_unary()
        return self.parse_postfix(self.parse_primary())

    def _is_cast(self) -> bool:
        """``(aclTensor*)``, ``(int64_t)``, ``(float)``: a parenthesised type."""
        j = self.i + 1
        names = 0
        while j < len(self.toks) and self.toks[j].text != ")":
            if self.toks[j].kind == "id":
                names += 1
            elif self.toks[j].text not in ("*", "&", "<", ">"):
                return False
            j += 1
        if j >= len(self.toks) or names == 0:
            return False
        inner = [t.text for t in self.toks[self.i + 1:j]]
        typename = inner[0].split("::")[-1]
        return ("*" in inner or typename in _PRIMITIVE_KINDS or typename.startswith("acl")
                or typename.endswith("_t")) and j + 1 < len(self.toks)

    def parse_postfix(self, value: Any) -> Any:
        while self.peek() == ".":
            self.take(".")
            method = self.take().text
            self.take("(")
            close = _match(self.toks, self.i - 1, "(", ")")
            args = _split_args(self.toks[self.i:close])
            self.i = close + 1
            value = _method(self.ev, value, method, args, self.pos())
        return value

    def parse_primary(self) -> Any:
        tok = self.take()
        if tok.kind == "num":
            return _number(tok.text)
        if tok.kind == "str":
            return tok.text[1:-1]
        if tok.text == "{":
            close = _match(self.toks, self.i - 1, "{", "}")
            items = [self.ev.expr(a) for a in _split_args(self.toks[self.i:close]) if a]
            self.i = close + 1
            return items
        if tok.text == "(":
            close = _match(self.toks, self.i - 1, "(", ")")
            value = self.ev.expr(self.toks[self.i:close])
            self.i = close + 1
            return value
        if tok.kind != "id":
            raise ReadError(f"cannot read `{tok.text}`", tok.pos)
        name = tok.text.lstrip(":")
        short = name.split("::")[-1]
        if short in ("true", "false"):
            return short == "true"
        if short in ("nullptr", "NULL"):
            return NULL
        if self.peek() == "<":          # a template: vector<int64_t>{...}, static_cast<float>(x)
            close = self._template_end()
            targs = [t.text for t in self.toks[self.i + 1:close]]
            self.i = close + 1
            return self._call(short, tok, targs)
        if self.peek() in ("(", "{"):
            return self._call(short, tok, [])
        if short in self.ev.vars:
            return self.ev.var(short, tok.pos)
        if name.startswith("std::numeric_limits"):
            raise ReadError(f"cannot read `{name}`", tok.pos)
        if re.fullmatch(r"(?:ACL|ACLNN)_[A-Z0-9_]+", short) or "::" in name:
            return name   # an enum name: ACL_FLOAT, ACL_FORMAT_ND, SocVersion::ASCEND950
        raise ReadError(f"`{name}` is not a value this test defines", tok.pos)

    def _template_end(self) -> int:
        depth = 0
        for j in range(self.i, len(self.toks)):
            t = self.toks[j].text
            if t == "<":
                depth += 1
            elif t == ">":
                depth -= 1
                if depth == 0:
                    return j
            elif t == ">>":
                depth -= 2
                if depth <= 0:
                    return j
        raise ReadError("unbalanced <>", self.pos())

    def _call(self, name: str, tok: Tok, targs: list[str]) -> Any:
        opener = self.peek()
        closer = ")" if opener == "(" else "}"
        self.take(opener)
        close = _match(self.toks, self.i - 1, opener, closer)
        arg_toks = _split_args(self.toks[self.i:close])
        self.i = close + 1
        return _construct(self.ev, name, targs, arg_toks, opener, tok.pos)


def _arith(op: str, a: Any, b: Any, pos: int) -> Any:
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
        raise ReadError(f"arithmetic on non-numbers ({a!r} {op} {b!r})", pos)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:    # undefined behaviour in C++: no value is read
            raise ReadError(f"integer {'division' if op == '/' else 'remainder'} by zero", pos)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C++ truncates toward zero
        return q if op == "/" else a - q * b
    if op == "%":
        raise ReadError("% on a floating-point operand is not C++", pos)
    if b == 0:        # IEEE 754, as the C++ float arithmetic of the vendor test
        if a == 0 or a != a:
            return float("nan")
        return math.copysign(float("inf"), a) * math.copysign(1.0, b)
    return a / b


def _ints(value: Any, what: str, pos: int) -> tuple[int, ...]:
    if isinstance(value, ArrayVal):
        value = list(value.values)
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                              for v in value):
        raise ReadError(f"{what} is not a list of integers: {value!r}"[:120], pos)
    return tuple(value)


def _construct(ev: _Eval, name: str, targs: list[str], args: list[list[Tok]], opener: str,
               pos: int) -> Any:
    vals = lambda: [ev.expr(a) for a in args if a]   # noqa: E731 (evaluated only when needed)
    if name == "TensorDesc":
        got = vals()
        t = TensorVal()
        if len(got) > 6:
            raise ReadError(f"TensorDesc with {len(got)} arguments", pos)
        if got:
            if isinstance(got[0], TensorVal):    # a copy
                return got[0].copy()
            t.shape = _ints(got[0], "a TensorDesc shape", pos)
        if len(got) > 1:
            t.dtype = _enum(got[1], "ACL_", pos)
        if len(got) > 2:
            t.format = _enum(got[2], "ACL_FORMAT_", pos)
        if len(got) > 3:
            strides = _ints(got[3], "TensorDesc strides", pos)
            t.strides = strides or None
        if len(got) > 4:
            if not isinstance(got[4], int):
                raise ReadError(f"TensorDesc offset {got[4]!r}", pos)
            t.offset = got[4]
        if len(got) > 5:
            storage = _ints(got[5], "a TensorDesc storage shape", pos)
            t.storage = storage or None
        return t
    if name == "TensorListDesc":
        got = vals()
        if len(got) == 2 and isinstance(got[0], int) and isinstance(got[1], TensorVal):
            return TensorListVal(tuple(got[1].copy() for _ in range(got[0])))
        if len(got) == 1 and isinstance(got[0], list):
            return TensorListVal(tuple(got[0]))
        raise ReadError("a TensorListDesc this reader cannot read", pos)
    if name in ("IntArrayDesc", "BoolArrayDesc", "FloatArrayDesc"):
        kind = {"IntArrayDesc": "int", "BoolArrayDesc": "bool", "FloatArrayDesc": "float"}[name]
        got = vals()
        if len(got) == 2 and isinstance(got[0], int) and not isinstance(got[1], list):
            return ArrayVal(kind, tuple([got[1]] * got[0]))
        if len(got) == 1 and isinstance(got[0], (list, ArrayVal)):
            items = got[0].values if isinstance(got[0], ArrayVal) else got[0]
            return ArrayVal(kind, tuple(bool(v) if kind == "bool" else v for v in items))
        raise ReadError(f"a {name} this reader cannot read", pos)
    if name == "ScalarDesc":
        got = vals()
        if not got:
            return ScalarVal(0.0, "ACL_FLOAT")
        value = got[0]
        if isinstance(value, ScalarVal):
            return value
        if len(got) > 1:
            return ScalarVal(value, _enum(got[1], "ACL_", pos))
        bare = bare_scalar_dtype(value)
        if bare is not None:
            return ScalarVal(value, f"ACL_{bare.name}")
        raise ReadError(f"ScalarDesc of {value!r}", pos)
    if name == "ScalarListDesc":
        got = vals()
        return ArrayVal("scalar", tuple(got[0]) if got and isinstance(got[0], list) else tuple(got))
    if name in ("vector", "initializer_list", "array", "make_tuple"):
        got = vals()
        if opener == "{":
            return got
        if len(got) == 1 and isinstance(got[0], list):
            return got[0]
        if len(got) == 2 and isinstance(got[0], int):
            return [got[1]] * got[0]
        if not got:
            return []
        raise ReadError(f"a {name}({', '.join(map(repr, got))[:60]}) this reader cannot read", pos)
    if name in ("static_cast", "int64_t", "int32_t", "float", "double", "int", "bool", "uint64_t",
                "int8_t", "uint8_t", "aclDataType", "aclFormat"):
        got = vals()
        if len(got) != 1:
            raise ReadError(f"a cast of {len(got)} values", pos)
        target = targs[0] if targs else name
        kind = _PRIMITIVE_KINDS.get(target, "auto")
        value = got[0]
        if kind == "int" and isinstance(value, (int, float)):
            return int(value)
        if kind in ("float32", "float64") and isinstance(value, (int, float)):
            return float(value)
        return value
    raise ReadError(f"`{name}(...)` is not a helper this reader knows", pos)


def _enum(value: Any, prefix: str, pos: int) -> str:
    if not isinstance(value, str) or not value.split("::")[-1].startswith(prefix):
        raise ReadError(f"expected an {prefix}* name, found {value!r}", pos)
    return value.split("::")[-1]


def _method(ev: _Eval, value: Any, method: str, args: list[list[Tok]], pos: int) -> Any:
    if not isinstance(value, TensorVal):
        if method in ("ToAclType", "ToAclTypeRawPtr", "get"):
            return value
        raise ReadError(f"`.{method}()` on {type(value).__name__}", pos)
    t = value.copy()
    got = [ev.expr(a) for a in args if a]
    if method == "ValueRange":
        if len(got) != 2 or not all(isinstance(x, (int, float)) for x in got):
            raise ReadError(f"ValueRange{tuple(got)!r}", pos)
        t.values = uniform(got[0], got[1])
    elif method == "Value":
        items = got[0] if len(got) == 1 else got
        if isinstance(items, ArrayVal):
            items = list(items.values)
        if not isinstance(items, list) or not all(isinstance(x, (int, float)) for x in items):
            raise ReadError(f"Value of {str(items)[:60]}", pos)
        t.values = exact([float(x) if not isinstance(x, bool) else float(x) for x in items])
    elif method == "Precision":
        if not 2 <= len(got) <= 3:
            raise ReadError(f"Precision with {len(got)} arguments", pos)
        t.precision = tuple(float(x) for x in got) + ((1e-08,) if len(got) == 2 else ())
    elif method == "ViewDims":
        t.shape = _ints(got[0] if got else None, "ViewDims", pos)
    elif method == "Format":
        t.format = _enum(got[0] if got else None, "ACL_FORMAT_", pos)
    elif method in ("ToAclType", "ToAclTypeRawPtr", "ValidCount"):
        pass    # ValidCount only limits what the vendor harness compares of an output
    else:
        raise ReadError(f"`.{method}()` is not a TensorDesc method this reader knows", pos)
    return t


# ---- one file ----

@dataclass
class _Call:
    api: str
    inputs: list[list[Tok]]
    outputs: list[list[Tok]]
    pos: int


@dataclass
class _Scope:
    depth: int
    soc: tuple[str, str] | None = None      # (enum name, citation) set in this scope
    loop: str = ""                           # for/while/if: the expectations inside vary


@dataclass
class FileContext:
    """What a file's tests share: the vendor checkout it lies in, the harness default product."""

    path: Path
    display: str                              # the path cited in sources: <repo>/<relative path>
    default_product: str | None
    default_source: str


class GtestFile:
    def __init__(self, ctx: FileContext, text: str):
        self.ctx = ctx
        self.text = strip_comments(text)
        self.lines = [i for i, ch in enumerate(self.text) if ch == "\n"]
        self.toks = tokenize(self.text)
        self.result = ImportResult()
        self.persistent: tuple[str, str] | None = None     # SetPlatform* in force for later tests
        self.fixture_soc: dict[str, tuple[str, str]] = {}

    def line(self, pos: int) -> int:
        return bisect.bisect_right(self.lines, pos - 1) + 1

    def where(self, pos: int) -> str:
        return f"{self.ctx.display}:{self.line(pos)}"

    def read(self) -> ImportResult:
        toks = self.toks
        i = 0
        while i < len(toks):
            t = toks[i]
            if t.kind == "id" and t.text in ("class", "struct") and i + 1 < len(toks):
                # a fixture's SetUp may set the SoC for all its tests
                j = i + 2
                while j < len(toks) and toks[j].text not in ("{", ";"):
                    j += 1
                if j < len(toks) and toks[j].text == "{":
                    end = _match(toks, j, "{", "}")
                    self._fixture(toks[i + 1].text, j, end)
                    i = end + 1
                    continue
            if t.kind == "id" and _TEST.match(t.text) and i + 1 < len(toks) and toks[i + 1].text == "(":
                close = _match(toks, i + 1, "(", ")")
                names = [a for a in _split_args(toks[i + 2:close])]
                if close + 1 < len(toks) and toks[close + 1].text == "{" and len(names) == 2:
                    end = _match(toks, close + 1, "{", "}")
                    suite, name = _text(names[0]), _text(names[1])
                    before = (len(self.result.cases), len(self.result.problems))
                    try:
                        self._test(suite, name, close + 2, end, t.pos)
                    except ReadError as exc:
                        self.result.problems.append(Problem(self.where(exc.pos or t.pos),
                                                            f"test {suite}.{name}: {exc.reason}"))
                    if before == (len(self.result.cases), len(self.result.problems)) and any(
                            "GetWorkspaceSize" in k.text for k in toks[close + 2:end]):
                        self.result.problems.append(Problem(
                            self.where(t.pos), f"test {suite}.{name}: its first-phase call is not "
                                               f"an OP_API_UT this reader can follow (a direct call "
                                               f"or a helper function)"))
                    i = end + 1
                    continue
            if t.kind == "id" and t.text == "TEST_P":
                self._parametrized(i)
            if t.kind == "id" and t.text.split("::")[-1] in _SOC_SETTERS:
                self._setter(i)
            i += 1
        return self.result

    def _parametrized(self, i: int) -> None:
        pos = self.toks[i].pos
        self.result.problems.append(Problem(
            self.where(pos), "parametrized test (TEST_P): its calls are built in C++ from a "
                             "parameter table, which this reader does not evaluate"))

    def _fixture(self, name: str, start: int, end: int) -> None:
        toks = self.toks
        for k in range(start, end):
            if toks[k].text.split("::")[-1] in _SOC_SETTERS:
                soc = self._soc_arg(k)
                if soc is not None:
                    self.fixture_soc[name] = soc

    def _soc_arg(self, k: int) -> tuple[str, str] | None:
        """The enum argument of the SoC call at token ``k`` (a name and the line citing it)."""
        toks = self.toks
        for j in range(k, min(k + 12, len(toks))):
            if toks[j].text == ";":
                break
            if re.search(r"(SocVersion|NpuArch)::\w+$", toks[j].text):
                return toks[j].text, self.where(toks[j].pos)
        return ("?", self.where(toks[k].pos))

    def _setter(self, k: int) -> None:
        self.persistent = self._soc_arg(k)

    def _soc_now(self, scopes: list[_Scope], suite: str) -> tuple[str | None, str]:
        for scope in reversed(scopes):
            if scope.soc is not None:
                return self._product(scope.soc, "the test's scope sets")
        if self.persistent is not None:
            return self._product(self.persistent, "an earlier SetPlatform call of the file sets")
        if suite in self.fixture_soc:
            return self._product(self.fixture_soc[suite], "the fixture's SetUp sets")
        return self.ctx.default_product, self.ctx.default_source

    @staticmethod
    def _product(soc: tuple[str, str], how: str) -> tuple[str | None, str]:
        name, where = soc
        if name == "?":
            return None, f"{how} a SoC this reader cannot evaluate ({where})"
        known, product = vendor_soc.product_of_enum(name)
        if product is None:
            what = "no product line the suite knows" if known else "a name this reader does not know"
            return None, f"{how} {name.split('::')[-1]}, {what} ({where})"
        return product, f"{how} {name.split('::')[-1]} ({where})"

    def _test(self, suite: str, name: str, start: int, end: int, test_pos: int) -> None:
        toks = self.toks
        variables: dict[str, _Var] = {}
        calls: dict[str, _Call] = {}
        results: dict[str, tuple[str, int]] = {}    # status variable -> (ut variable, pos)
        scopes: list[_Scope] = [_Scope(0)]
        ev = _Eval(variables)
        stmt: list[Tok] = []
        count = 0
        pending_loop = ""
        i = start
        while i < end:
            t = toks[i]
            if t.text == "{" and (not stmt or stmt[-1].text in (")",) and _is_control(stmt)
                                  or (stmt and stmt[-1].text in ("else", "do", "try"))):
                loop = _control_word(stmt) or pending_loop
                scopes.append(_Scope(len(scopes), loop=loop))
                stmt = []
                i += 1
                continue
            if t.text == "}" and not _open_brace(stmt):
                if len(scopes) > 1:
                    scopes.pop()
                stmt = []
                i += 1
                continue
            if t.text == ";" and _paren_depth(stmt) == 0:
                try:
                    count += self._statement(stmt, variables, calls, results, scopes, ev, suite,
                                             name, count)
                except ReadError as exc:
                    self.result.problems.append(Problem(
                        self.where(exc.pos or (stmt[0].pos if stmt else t.pos)),
                        f"test {suite}.{name}: {exc.reason}"))
                except RegistryError:   # the operator records cannot be read: no file of it can be
                    raise
                except (ValueError, TypeError, KeyError, IndexError, OverflowError,
                        RecursionError) as exc:   # a form the reader does not expect: listed, not fatal
                    self.result.problems.append(Problem(
                        self.where(stmt[0].pos if stmt else t.pos),
                        f"test {suite}.{name}: cannot read this statement "
                        f"({type(exc).__name__}: {str(exc)[:80]})"))
                stmt = []
                i += 1
                continue
            stmt.append(t)
            i += 1

    def _statement(self, stmt: list[Tok], variables, calls, results, scopes, ev, suite, name,
                   count) -> int:
        if not stmt:
            return 0
        head = stmt[0].text.split("::")[-1]
        texts = [t.text.split("::")[-1] for t in stmt]
        # a control statement without braces: `if (x) EXPECT_EQ(...)`
        if head in _LOOPS:
            inner = _strip_control(stmt)
            if inner is None:
                return 0
            scopes.append(_Scope(len(scopes), loop=head))
            try:
                return self._statement(inner, variables, calls, results, scopes, ev, suite, name,
                                       count)
            finally:
                scopes.pop()
        if any(s in texts for s in _SOC_SCOPED):
            soc = next(((t.text, self.where(t.pos)) for t in stmt
                        if re.search(r"(SocVersion|NpuArch)::\w+$", t.text)), None)
            scopes[-1].soc = soc or ("?", self.where(stmt[0].pos))
            return 0
        if any(s in texts for s in _SOC_SETTERS):
            self.persistent = next(((t.text, self.where(t.pos)) for t in stmt
                                    if re.search(r"(SocVersion|NpuArch)::\w+$", t.text)),
                                   ("?", self.where(stmt[0].pos)))
            return 0
        if head in _EXPECT and len(stmt) > 2 and stmt[1].text == "(":
            close = _match(stmt, 1, "(", ")")
            args = _split_args(stmt[2:close])
            if len(args) != 2:
                return 0
            return self._expectation(_EXPECT[head], args, stmt[0].pos, variables, calls, results,
                                     scopes, ev, suite, name, count)
        # a variable whose address a call takes (`CreateAclScalarTensor(..., &self)`) holds what
        # that call sets, which this reader does not follow: reading it is a problem, not its
        # declared value
        if not any(t in texts for t in ("OP_API_UT", "TestGetWorkspaceSize", "TestGetWorkspaceSizeWithNNopbaseInner")):
            for k in range(1, len(stmt) - 1):
                if (stmt[k].text == "&" and stmt[k - 1].text in ("(", ",") and stmt[k + 1].kind == "id"
                        and stmt[k + 1].text in variables):
                    vname = stmt[k + 1].text
                    callee = next((stmt[j].text for j in range(k - 1, -1, -1) if stmt[j].kind == "id"
                                   and stmt[j + 1].text in ("(", "<")), "a call")
                    variables[vname] = _Var([Tok("op", f"{vname} (set through &{vname} by {callee}, "
                                                 f"a call this reader does not follow)", stmt[k].pos)],
                                            variables[vname].kind, stmt[k].pos)
        # declarations and assignments
        eq = _top_level_eq(stmt)
        if eq is not None:
            lhs, rhs = stmt[:eq], stmt[eq + 1:]
            target = next((t for t in reversed(lhs) if t.kind == "id"), None)
            if target is None:
                return 0
            tname = target.text
            kind = _decl_kind(lhs)
            if rhs and rhs[0].text == "OP_API_UT":
                calls[tname] = self._call(rhs)
                return 0
            ws = _workspace_call(rhs)
            if ws is not None:
                results[tname] = (ws, stmt[0].pos)
                return 0
            prior = variables.get(tname)
            if kind == "auto" and prior is not None and len(lhs) == 1:
                kind = prior.kind
            variables[tname] = _Var(rhs, kind, stmt[0].pos)
            return 0
        # constructor declarations: TensorDesc x({2}, ACL_FLOAT, ACL_FORMAT_ND);
        if (len(stmt) >= 3 and head in _DESC_CLASSES and stmt[1].kind == "id"
                and stmt[2].text in ("(", "{")):
            variables[stmt[1].text] = _Var([Tok("id", head, stmt[0].pos)] + stmt[2:], "desc",
                                           stmt[0].pos)
            return 0
        if len(stmt) >= 2 and stmt[-1].kind == "id" and head in _PRIMITIVE_KINDS:
            return 0     # an uninitialised declaration
        return 0

    def _call(self, rhs: list[Tok]) -> _Call:
        close = _match(rhs, 1, "(", ")")
        args = _split_args(rhs[2:close])
        if not args or not args[0]:
            raise ReadError("OP_API_UT without an API", rhs[0].pos)
        api = args[0][0].text
        inputs: list[list[Tok]] = []
        outputs: list[list[Tok]] = []
        for k, part in enumerate(args[1:]):
            if not part:
                continue
            word = part[0].text
            if k < 2 and word in ("INPUT", "OUTPUT") and len(part) > 1 and part[1].text == "(":
                inner_close = _match(part, 1, "(", ")")
                inner = [a for a in _split_args(part[2:inner_close]) if a]
                (inputs if word == "INPUT" else outputs).extend(inner)
            elif k >= 2:
                outputs.append(part)    # OP_API_UT's trailing arguments follow the outputs
            else:
                raise ReadError(f"OP_API_UT argument `{_text(part)[:40]}` is neither INPUT nor OUTPUT",
                                part[0].pos)
        return _Call(api, inputs, outputs, rhs[0].pos)

    def _expectation(self, how, args, pos, variables, calls, results, scopes, ev, suite, name,
                     count) -> int:
        ut = None
        status_side = None
        for k, side in enumerate(args):
            ws = _workspace_call(side)
            if ws is not None:
                ut, status_side = ws, args[1 - k]
                break
            if len(side) == 1 and side[0].text in results:
                ut, status_side = results[side[0].text][0], args[1 - k]
                break
        if ut is None:
            statusy = [side for side in args if _text(side).replace(" ", "").split("::")[-1]
                       .startswith(("ACLNN_", "ACL_SUCCESS", "ACL_ERROR"))]
            if statusy:         # a status expectation on a call this reader cannot follow
                other = args[1] if statusy[0] is args[0] else args[0]
                raise ReadError(f"the expected status is compared with `{_text(other)[:50]}`, not a "
                                f"TestGetWorkspaceSize result of an OP_API_UT of this test", pos)
            return 0            # an expectation on something else (a value, an executor)
        where = self.where(pos)
        label = f"{suite}.{name}"
        if ut not in calls:
            raise ReadError(f"`{ut}` is not an OP_API_UT call this test defines", pos)
        loop = next((s.loop for s in scopes if s.loop), "")
        if loop:
            raise ReadError(f"the expectation sits inside `{loop}`: its call varies at run time",
                            pos)
        status = _status(status_side, ev, pos)
        if how == "eq":
            expected = VendorExpectation("success" if status == 0 else "status", status)
        elif status == 0:
            expected = VendorExpectation("any_error")
        else:
            raise ReadError(f"EXPECT_NE against {_text(status_side)}: no expectation the suite can "
                            f"state", pos)
        product, product_source = self._soc_now(scopes, suite)
        call = calls[ut]
        index = count + 1
        case_id = f"{label}" + (f"#{index}" if index > 1 else "")
        source = where
        vc = build_case(call.api, [ev.expr(a) if a else NULL for a in call.inputs],
                        [ev.expr(a) if a else NULL for a in call.outputs],
                        case_id=f"ut-{case_id}", source=source, fmt="gtest", expected=expected,
                        product=product, product_source=product_source,
                        where=self.where(call.pos), seed=seed_of(source))
        self.result.cases.append(vc)
        return 1


def _is_control(stmt: list[Tok]) -> bool:
    return bool(stmt) and stmt[0].text in _LOOPS | {"else", "do", "try", "catch"}


def _control_word(stmt: list[Tok]) -> str:
    return stmt[0].text if stmt and stmt[0].text in _LOOPS else ""


def _strip_control(stmt: list[Tok]) -> list[Tok] | None:
    """The statement after ``if (...)`` / ``for (...)`` / ``else``, or None."""
    if stmt[0].text in ("else", "do"):
        return stmt[1:] or None
    if len(stmt) > 1 and stmt[1].text == "(":
        close = _match(stmt, 1, "(", ")")
        return stmt[close + 1:] or None
    return None


def _open_brace(stmt: list[Tok]) -> bool:
    depth = 0
    for t in stmt:
        if t.text == "{":
            depth += 1
        elif t.text == "}":
            depth -= 1
    return depth > 0


def _paren_depth(stmt: list[Tok]) -> int:
    depth = 0
    for t in stmt:
        if t.text in "({[":
            depth += 1
        elif t.text in ")}]":
            depth -= 1
    return depth


def _top_level_eq(stmt: list[Tok]) -> int | None:
    depth = 0
    for k, t in enumerate(stmt):
        if t.text in "({[":
            depth += 1
        elif t.text in ")}]":
            depth -= 1
        elif t.text == "=" and depth == 0:
            return k
    return None


def _decl_kind(lhs: list[Tok]) -> str:
    for t in lhs[:-1]:
        short = t.text.split("::")[-1]
        if short in _PRIMITIVE_KINDS:
            return _PRIMITIVE_KINDS[short]
        if short in _DESC_CLASSES:
            return "desc"
    return "auto"


def _workspace_call(side: list[Tok]) -> str | None:
    """``ut.TestGetWorkspaceSize(...)`` (any variant): the ut variable's name."""
    if (len(side) >= 4 and side[0].kind == "id" and side[1].text == "."
            and side[2].text.startswith("TestGetWorkspaceSize")):
        return side[0].text
    return None


def _status(side: list[Tok], ev: _Eval, pos: int) -> int:
    text = _text(side).replace(" ", "")
    short = text.split("::")[-1]
    if short in ("ACL_SUCCESS", "ACLNN_SUCCESS", "0", "OK"):
        return 0
    if short.startswith("ACLNN_"):
        try:
            return int(Status[short[len("ACLNN_"):]])
        except KeyError:
            raise ReadError(f"{short} is not an aclnn status this suite knows", pos) from None
    if re.fullmatch(r"\d+", short):
        return int(short)
    if short.startswith("static_cast<aclnnStatus>(") and short.endswith(")"):
        return _status([Tok("id", short[len("static_cast<aclnnStatus>("):-1], pos)], ev, pos)
    raise ReadError(f"the expected status `{text[:60]}` is not a status name", pos)


# ---- a call to a case ----

def _dtype(name: str, pos_where: str) -> AclDataType:
    short = name[len("ACL_"):] if name.startswith("ACL_") else name
    short = {"FLOAT32": "FLOAT", "BFLOAT16": "BF16", "FLOAT64": "DOUBLE", "HIFLOAT8": "HIFLOAT8",
             "DT_UNDEFINED": "UNDEFINED"}.get(
        short, short)
    try:
        return AclDataType[short]
    except KeyError:
        raise ValueError(f"{name} is not an aclDataType this suite knows") from None


def _format(name: str) -> AclFormat:
    short = name[len("ACL_FORMAT_"):] if name.startswith("ACL_FORMAT_") else name
    try:
        return AclFormat[short]
    except KeyError:
        raise ValueError(f"{name} is not an aclFormat this suite knows") from None


def tensor_recipe(t: TensorVal, where: str) -> TensorRecipe:
    return TensorRecipe(_dtype(t.dtype, where), tuple(t.shape), _format(t.format),
                        tuple(t.strides) if t.strides else None, int(t.offset),
                        tuple(t.storage) if t.storage else None, dict(t.values))


def build_case(api: str, inputs: list, outputs: list, *, case_id: str, source: str, fmt: str,
               expected: VendorExpectation, product: str | None, product_source: str, where: str,
               seed: int) -> VendorCase:
    """A VendorCase from the evaluated arguments of one call, in the API's parameter order; the
    arguments it cannot carry are listed as problems of the case (``where`` is the call's line)."""
    params = spec_params(api)
    args = list(inputs) + list(outputs)
    problems: list[str] = []
    tensors: dict[str, TensorRecipe | None] = {}
    attrs: dict[str, Any] = {}
    precision: dict[str, Any] = {}
    if params is not None and len(params) != len(args):
        raise ReadError(f"{api} takes {len(params)} arguments in the spec, the call passes "
                        f"{len(args)}", 0)
    names = ([p.name for p in params] if params is not None
             else [f"input{k}" for k in range(len(inputs))] + [f"output{k}" for k in range(len(outputs))])
    # an argument that is no aclTensor (aclScalar, arrays, plain values) is an attribute of the case
    is_attr = ([p.direction == "attr" or p.c_kind != "tensor" for p in params] if params is not None
               else [None] * len(args))
    kinds = [p.c_kind for p in params] if params is not None else [None] * len(args)
    for name, value, attr, kind in zip(names, args, is_attr, kinds):
        try:
            if isinstance(value, TensorVal):
                if attr:
                    raise ValueError(f"{name} is an attribute, the call passes a tensor")
                tensors[name] = tensor_recipe(value, where)
                if value.precision:
                    precision[name] = list(value.precision)
            elif value is NULL:
                if attr:
                    attrs[name] = None
                else:
                    tensors[name] = None
            elif isinstance(value, TensorListVal):
                if params is not None:
                    raise ValueError(f"{name} is a tensor list, which the spec's call model has no "
                                     f"place for")
                for k, item in enumerate(value.items):
                    if isinstance(item, TensorVal):
                        tensors[f"{name}[{k}]"] = tensor_recipe(item, where)
                    else:
                        tensors[f"{name}[{k}]"] = None
                attrs[f"{name}.count"] = len(value.items)
            elif isinstance(value, ScalarVal) and kind == "scalar":
                # an aclScalar keeps its dtype: the spec's dtype checks read it
                attrs[name] = {"dtype": AclDataType(int(_dtype(value.dtype, where))).name, "value": value.value}
            elif isinstance(value, ScalarVal):
                attrs[name] = value.value
                if params is None:
                    attrs[f"{name}.dtype"] = value.dtype
            elif isinstance(value, ArrayVal):
                attrs[name] = list(value.values)
            elif isinstance(value, str) and value.split("::")[-1].startswith("ACL_"):
                short = value.split("::")[-1]
                attrs[name] = int(_format(short)) if short.startswith("ACL_FORMAT_") else int(
                    _dtype(short, where))
            elif isinstance(value, (bool, int, float, str, list)):
                if attr is False:
                    raise ValueError(f"{name} is a tensor, the call passes {value!r}")
                attrs[name] = value
            else:
                raise ValueError(f"{name}: an argument this reader cannot carry ({value!r})")
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            if attr is False or attr is None:
                tensors.setdefault(name, None)
    if params is not None:      # a parameter left unread would shift the call: keep its place
        for p in params:
            if p.direction != "attr" and p.c_kind == "tensor":
                tensors.setdefault(p.name, None)
        tensors = {p.name: tensors[p.name] for p in params if p.direction != "attr" and p.c_kind == "tensor"}
    if precision:
        expected = VendorExpectation(expected.kind, expected.status, expected.standard,
                                     {**expected.tolerance, "precision": precision})
    return VendorCase(api=api, case_id=case_id, source=source, format=fmt, tensors=tensors,
                      attrs=attrs, expected=expected, product=product,
                      product_source=product_source, seed=seed, problems=tuple(problems))


def read_gtest(path: Path, display: str, default_product: str | None, default_source: str,
               text: str | None = None) -> ImportResult:
    """Every first-phase expectation of one gtest file."""
    if text is None:
        text = path.read_text(encoding="utf-8", errors="replace")
    ctx = FileContext(path, display, default_product, default_source)
    result = GtestFile(ctx, text).read()
    result.files[display] = "gtest"
    return result


def looks_like_gtest(text: str) -> bool:
    return (("OP_API_UT" in text or "GetWorkspaceSize" in text)
            and ("TEST_F" in text or "TEST(" in text or "TEST_P" in text))
