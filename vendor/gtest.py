"""The vendor's op_api gtest unit tests: every ``EXPECT_EQ`` on a first-phase call becomes a case.

Read statically from the C++ syntax tree (extract/syntax.py: tree-sitter's C++ grammar): the tensors
a test describes (``TensorDesc(shape, dtype, format[, strides, offset, storage shape])`` with
``.ValueRange``, ``.Value``, ``.Precision``), the scalar, array and tensor-list helpers, plain C++
constants, ``OP_API_UT(aclnnX, INPUT(...), OUTPUT(...))``, null tensors, the status each
``TestGetWorkspaceSize`` call is expected to return, and the SoC in force: a ``SocVersionManager`` /
``NpuArchManager`` for the rest of its scope, a ``SetPlatformSocVersion`` / ``SetPlatformNpuArch``
for the rest of the file (the stub platform keeps it), else the harness's default. A test whose name
the grammar cannot read (``TEST_F(suite, 001_name)``, a number starting a name) is read from its
tokens (``syntax.macro_call``). A test also reads the constants declared before it in its file and
in the headers it includes. A ``for (auto x : list)`` over a list the test states is read once a
pass, and an ``if`` whose condition the test states takes its one branch; an expectation inside any
other loop or branch is refused (its call varies at run time). A call this reader cannot evaluate is
listed with its line and the reason, never guessed.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from aclnn_conformance.extract.syntax import (Node, leaves, line_of, macro_call, parse_cpp,
                                              text_of, walk)
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

_TESTS = frozenset({"TEST", "TEST_F", "HWTEST_F", "TYPED_TEST"})
_SOC_SCOPED = ("SocVersionManager", "NpuArchManager", "NpuArchManagerMock")
_SOC_SETTERS = ("SetPlatformSocVersion", "SetPlatformNpuArch")
_SOC_ENUMS = ("SocVersion", "NpuArch")
_EXPECT = {"EXPECT_EQ": "eq", "ASSERT_EQ": "eq", "EXPECT_NE": "ne", "ASSERT_NE": "ne"}
_DESC_CLASSES = {"TensorDesc", "ScalarDesc", "TensorListDesc", "IntArrayDesc", "BoolArrayDesc",
                 "FloatArrayDesc", "ScalarListDesc"}
_PRIMITIVE_KINDS = {"float": "float32", "double": "float64", "bool": "bool", "int": "int",
                    "int8_t": "int", "int16_t": "int", "int32_t": "int", "int64_t": "int",
                    "uint8_t": "int", "uint16_t": "int", "uint32_t": "int", "uint64_t": "int",
                    "size_t": "int", "char": "int", "aclDataType": "enum", "aclFormat": "enum",
                    "string": "str", "char*": "str"}
# ScalarDesc's constructor per argument type (ops-nn tests/ut/op_api/op_api_ut_common/inc/op_api_ut_common/
# scalar_desc.h:23-33): a value cast to one of these types picks that overload's dtype
_SCALAR_DESC_OVERLOADS = {"bool": "ACL_BOOL", "int8_t": "ACL_INT8", "uint8_t": "ACL_UINT8", "int16_t": "ACL_INT16",
                          "uint16_t": "ACL_UINT16", "int32_t": "ACL_INT32", "uint32_t": "ACL_UINT32",
                          "int64_t": "ACL_INT64", "uint64_t": "ACL_UINT64", "float": "ACL_FLOAT",
                          "double": "ACL_DOUBLE"}
# the primitive names that are the fixed-width types under LP64 (int32_t is int, int64_t is long)
_C_INT_NAMES = {"int": "int32_t", "long": "int64_t", "long int": "int64_t", "unsigned": "uint32_t",
                "unsigned int": "uint32_t", "unsigned long": "uint64_t", "short": "int16_t"}
_CAST_TYPE = re.compile(r"(?:static_cast\s*<\s*(?:std::)?(?P<t>\w+)\s*>|(?:std::)?(?P<f>\w+))\s*\(.*\)", re.S)
_CASTS = ("static_cast", "int64_t", "int32_t", "float", "double", "int", "bool", "uint64_t",
          "int8_t", "uint8_t", "aclDataType", "aclFormat")
# the statements whose body the reader enters, and the word an expectation inside one is refused by
_CONTROL_WORDS = {"if_statement": "if", "for_statement": "for", "for_range_loop": "for",
                  "while_statement": "while", "do_statement": "do", "switch_statement": "switch"}
# the words of a statement that may be the test's call or its expectation
_CALL_WORDS = ("EXPECT_", "ASSERT_", "OP_API_UT", "TestGetWorkspaceSize")
_WORKSPACE_WORDS = ("OP_API_UT", "TestGetWorkspaceSize", "TestGetWorkspaceSizeWithNNopbaseInner")
# the nodes whose declarations are at file scope (a namespace's body, a preprocessor branch)
_FILE_SCOPES = frozenset({"translation_unit", "declaration_list", "preproc_if", "preproc_ifdef",
                          "preproc_else", "preproc_elif"})
# what declares a constant at file scope: a declaration, an enum, an object-like macro
_FILE_DECLARATIONS = frozenset({"declaration", "enum_specifier", "preproc_def"})
_IDENTIFIER_TOKENS = frozenset({"identifier", "type_identifier", "namespace_identifier",
                                "field_identifier"})


class ReadError(Exception):
    """A part of a test this reader cannot evaluate: the reason, and the node it is at."""

    def __init__(self, reason: str, at: Node | None = None):
        super().__init__(reason)
        self.reason = reason
        self.at = at if isinstance(at, Node) else None


NULL = object()     # a null tensor pointer


@dataclass(frozen=True)
class ScalarVal:
    value: Any
    dtype: str


@dataclass(frozen=True)
class ArrayVal:
    kind: str           # int | bool | float | scalar
    values: tuple


@dataclass(frozen=True)
class TensorListVal:
    items: tuple


@dataclass(frozen=True)
class TensorVal:
    shape: tuple[int, ...] = DEFAULT_SHAPE
    dtype: str = "ACL_FLOAT"
    format: str = "ACL_FORMAT_NCHW"
    strides: tuple[int, ...] | None = None
    offset: int = 0
    storage: tuple[int, ...] | None = None
    values: dict = field(default_factory=lambda: uniform(*DEFAULT_RANGE))
    precision: tuple = ()


@dataclass(frozen=True)
class _Var:
    """How a test defines a name: the expression it is read from (evaluated when first used)."""
    node: Node | None
    kind: str                   # the declared type's kind (float32, int, desc, auto, ...)
    at: Node
    constructed: str = ""       # `TensorDesc x(...)`: the class the arguments in `node` construct
    type_arguments: tuple[str, ...] = ()
    unreadable: str = ""        # why its value is not the one declared (a call sets it)
    elsewhere: bool = False     # `node` is a re-parse of the declaration: errors cite `at`
    header: bool = False        # declared in a header the file includes: errors cite the use
    before: "_Var | None" = None   # `v.push_back(x)`: the definition `node` changes
    constant: tuple = ()        # a value known as it is read: an enumerator's, a loop pass's item


# ---- literals ----

def _literal_c_type(text: str) -> str | None:
    """The C type of a number literal (LP64): a floating one double, with ``f`` float; an integer one
    int when its value fits, else long (a decimal) or the first of unsigned int, long, unsigned long
    it fits (a hex one), with ``l`` long, ``u`` unsigned, ``ul`` unsigned long; None for ``ll`` (long
    long is none of the fixed-width types the harness's ScalarDesc overloads) and anything else."""
    t = text.strip().lower().replace("'", "")
    m = re.fullmatch(r"(0x[0-9a-f]+|[0-9]+)([ul]*)", t)
    if m:
        value, suffix, hexa = int(m.group(1), 0 if m.group(1).startswith("0x") else 10), m.group(2), \
            m.group(1).startswith("0x")
        if suffix == "":
            for bound, ctype in ((2**31 - 1, "int32_t"), (2**32 - 1, "uint32_t" if hexa else None),
                                 (2**63 - 1, "int64_t"), (2**64 - 1, "uint64_t" if hexa else None)):
                if ctype is not None and value <= bound:
                    return ctype
            return None
        return {"l": "int64_t", "u": "uint32_t" if value <= 2**32 - 1 else "uint64_t", "ul": "uint64_t",
                "lu": "uint64_t"}.get(suffix)
    number = r"(?:[0-9]+\.[0-9]*|\.[0-9]+|[0-9]+(?=e))(?:e[+-]?[0-9]+)?"
    if re.fullmatch(number + "f", t):
        return "float"
    return "double" if re.fullmatch(number, t) else None


def _is_octal(text: str) -> bool:
    return len(text) > 1 and text[0] == "0" and all(c in "01234567" for c in text)


def _number(text: str) -> int | float:
    """A C++ number literal's value (``016`` is octal 14, ``0x1F`` 31, ``0.5f`` 0.5)."""
    t = text.replace("'", "").rstrip("uUlL")
    if t[:1] in ("-", "+"):     # the grammar reads `-1` as one literal
        magnitude = _number(t[1:])
        return -magnitude if t[0] == "-" else magnitude
    if t.lower().startswith("0x"):
        return int(t, 16)
    if t.lower().startswith("0b"):
        return int(t, 2)
    if _is_octal(t):
        return int(t, 8)
    if t.isdigit():
        return int(t)
    return float(t.rstrip("fF"))


def _is_enum_name(name: str) -> bool:
    """``ACL_FLOAT``, ``ACLNN_SUCCESS``: the harness's enum constants (upper-case ACL names)."""
    return (name.startswith(("ACL_", "ACLNN_")) and len(name) > name.index("_") + 1
            and all(c.isupper() or c.isdigit() or c == "_" for c in name))


def _compact(text: str) -> str:
    """A name or expression's text without whitespace (``op :: X`` is ``op::X``)."""
    return "".join(text.split())


def _parts(node: Node) -> list[Node]:
    """A node's named children, comments left out."""
    return [c for c in node.named_children if c.type != "comment"]


# ---- arithmetic ----

def _arith(op: str, a: Any, b: Any, at: Node | int | None) -> Any:
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in (a, b)):
        raise ReadError(f"arithmetic on non-numbers ({a!r} {op} {b!r})", at)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    if isinstance(a, int) and isinstance(b, int):
        if b == 0:    # undefined behaviour in C++: no value is read
            raise ReadError(f"integer {'division' if op == '/' else 'remainder'} by zero", at)
        q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)   # C++ truncates toward zero
        return q if op == "/" else a - q * b
    if op == "%":
        raise ReadError("% on a floating-point operand is not C++", at)
    if b == 0:        # IEEE 754, as the C++ float arithmetic of the vendor test
        if a == 0 or a != a:
            return float("nan")
        return math.copysign(float("inf"), a) * math.copysign(1.0, b)
    return a / b


_COMPARISONS = {"==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
                "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b}


def _compare(op: str, a: Any, b: Any, at: Node | None) -> bool:
    """Numbers compared as numbers; enum names (``dtype == ACL_COMPLEX128``) for equality by name."""
    numbers = [isinstance(x, (int, float)) for x in (a, b)]
    if all(numbers):
        return _COMPARISONS[op](a, b)
    if all(isinstance(x, str) for x in (a, b)) and op in ("==", "!="):
        return _COMPARISONS[op](a.split("::")[-1], b.split("::")[-1])
    raise ReadError(f"a comparison this reader cannot evaluate ({a!r} {op} {b!r})"[:120], at)


def _ints(value: Any, what: str, at: Node | None) -> tuple[int, ...]:
    if isinstance(value, ArrayVal):
        value = list(value.values)
    if isinstance(value, list) and len(value) == 1 and isinstance(value[0], list):
        value = value[0]        # `{shape}` of a vector<int64_t> shape copies it
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool)
                                              for v in value):
        raise ReadError(f"{what} is not a list of integers: {value!r}"[:120], at)
    return tuple(value)


def _convert(kind: str, value: Any) -> Any:
    """A value as a declaration of that kind stores it (``float x = 0.001`` rounds to float32)."""
    if kind == "float32" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(np.float32(value))
    if kind == "float64" and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind == "bool" and isinstance(value, (int, float)):
        return bool(value)
    return value


def _cast(target: str, value: Any) -> Any:
    """``static_cast<T>(v)``, ``T(v)``, ``(T)v`` of a number: an integer type truncates."""
    kind = _PRIMITIVE_KINDS.get(target, "auto")
    if kind == "int" and isinstance(value, (int, float)):
        return int(value)
    if kind in ("float32", "float64") and isinstance(value, (int, float)):
        return float(value)
    return value


# the limits std::numeric_limits<T> names, by T
_FLOAT_TYPES = {"float": np.float32, "double": np.float64}
_INT_TYPES = {"int8_t": np.int8, "int16_t": np.int16, "int32_t": np.int32, "int64_t": np.int64,
              "uint8_t": np.uint8, "uint16_t": np.uint16, "uint32_t": np.uint32,
              "uint64_t": np.uint64, "int": np.int32, "size_t": np.uint64}


def _numeric_limit(type_name: str, member: str, at: Node) -> int | float:
    """``std::numeric_limits<T>::member()`` for the harness's number types."""
    short = type_name.split("::")[-1]
    if short in _FLOAT_TYPES:
        info = np.finfo(_FLOAT_TYPES[short])
        table = {"infinity": math.inf, "quiet_NaN": math.nan, "signaling_NaN": math.nan,
                 "max": float(info.max), "lowest": float(info.min), "min": float(info.tiny),
                 "epsilon": float(info.eps), "denorm_min": float(info.smallest_subnormal)}
    elif short in _INT_TYPES:
        iinfo = np.iinfo(_INT_TYPES[short])
        table = {"max": int(iinfo.max), "min": int(iinfo.min), "lowest": int(iinfo.min)}
    else:
        table = {}
    if member not in table:
        raise ReadError(f"cannot read `std::numeric_limits<{type_name}>::{member}()`", at)
    return table[member]


# the items of a for-range loop read one pass each, at the most (a longer list is left as a loop)
_UNROLLED_AT_MOST = 64
# <cmath>'s macros for the float special values
_CMATH_CONSTANTS = {"INFINITY": math.inf, "NAN": math.nan}
# the methods of a std::vector local a test calls to fill it, and how each changes it
_VECTOR_MUTATORS = ("push_back", "emplace_back", "resize", "clear")


# ---- expressions ----

def _callee(node: Node) -> tuple[str, tuple[str, ...]]:
    """The short name a call or a compound literal names, and its template arguments' texts."""
    if node.type == "qualified_identifier":
        name = node.child_by_field_name("name")
        return _callee(name) if name is not None else (_compact(text_of(node)).split("::")[-1], ())
    if node.type in ("template_function", "template_type"):
        name = node.child_by_field_name("name")
        arguments = node.child_by_field_name("arguments")
        targs = tuple(_compact(text_of(a)) for a in _parts(arguments)) if arguments else ()
        return (_compact(text_of(name)).split("::")[-1] if name is not None else ""), targs
    return _compact(text_of(node)).split("::")[-1], ()


def _numeric_limits_call(function: Node) -> tuple[str, str] | None:
    """``std::numeric_limits<T>::member``: (T, member), else None."""
    scope_types = [n for n in walk(function) if n.type == "template_type"
                   and _callee(n)[0] == "numeric_limits"]
    if function.type != "qualified_identifier" or not scope_types:
        return None
    targs = _callee(scope_types[0])[1]
    member = _compact(text_of(function)).split("::")[-1]
    return (targs[0] if targs else ""), member


class _Eval:
    """Evaluates the expressions of one test, resolving its variables on demand."""

    def __init__(self, variables: dict[str, _Var]):
        self.vars = variables
        self.values: dict[int, Any] = {}          # id of a _Var -> its value, once evaluated
        self.kept: list[_Var] = []                 # the evaluated _Vars (their ids stay theirs)
        self.depth = 0

    def c_type(self, node: Node) -> str | None:
        """The C type of an argument where C++ gives it one the reader can name: a number literal's
        (``1`` int, ``1L`` long, ``1.0`` double, ``1.0f`` float, the data model LP64, so int is int32_t
        and long int64_t), a negated one's, a name's declared primitive type (or, declared ``auto``,
        its initializer's); None for anything else."""
        if node.type == "unary_expression" and text_of(node.child_by_field_name("operator")) in "+-":
            return self.c_type(node.child_by_field_name("argument"))
        if node.type == "parenthesized_expression" and len(_parts(node)) == 1:
            return self.c_type(_parts(node)[0])
        if node.type == "number_literal":
            return _literal_c_type(text_of(node))
        v = self.vars.get(text_of(node)) if node.type == "identifier" else None
        declared = v.at.child_by_field_name("type") if v is not None and v.at.type == "declaration" else None
        if declared is None or v.before is not None or v.constructed:
            return None
        words = [text_of(t).split("::")[-1] for t in leaves(declared)]
        named = [w for w in words if w not in ("const", "static", "constexpr", "volatile")]
        if named == ["auto"] and isinstance(v.node, Node):
            return self.c_type(v.node)
        return _C_INT_NAMES.get(" ".join(named), " ".join(named))

    def var(self, name: str, at: Node) -> Any:
        v = self.vars.get(name)
        if v is None:
            raise ReadError(f"`{name}` is not a value this test defines", at)
        return self.resolve(v, name, at)

    def resolve(self, v: _Var, name: str, at: Node) -> Any:
        """The value of one definition of ``name`` (used at ``at``), evaluated once."""
        if id(v) in self.values:
            return self.values[id(v)]
        if v.unreadable:
            raise ReadError(f"cannot read `{v.unreadable}`", v.at)
        if self.depth > 40:
            raise ReadError(f"`{name}` refers to itself", at)
        self.depth += 1
        try:
            if v.constant:
                value = v.constant[0]
            elif v.before is not None:
                value = _mutated(self, self.resolve(v.before, name, at), v.node)
            elif v.constructed:
                value = _construct(self, v.constructed, v.type_arguments,
                                   _parts(v.node) if v.node is not None else [],
                                   "{" if v.node is not None and v.node.type == "initializer_list"
                                   else "(", v.at)
                value = _convert(v.kind, value)
            else:
                value = self.expr(v.node, v.kind)
        except ReadError as exc:
            if v.header:        # a header's line is no line of this file: cite the use
                raise ReadError(exc.reason, at) from None
            if v.elsewhere:     # the re-parsed text has no line of the file: cite the declaration
                raise ReadError(exc.reason, v.at) from None
            raise
        finally:
            self.depth -= 1
        self.values[id(v)] = value
        self.kept.append(v)
        return value

    def expr(self, node: Node | None, kind: str = "auto") -> Any:
        if node is None:
            raise ReadError("an empty expression")
        return _convert(kind, self.value(node))

    def value(self, node: Node) -> Any:
        handler = _EXPRESSIONS.get(node.type)
        if handler is None:
            raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
        return handler(self, node)

    def name(self, node: Node) -> Any:
        name = _compact(text_of(node)).lstrip(":")
        short = name.split("::")[-1]
        if short in ("true", "false"):
            return short == "true"
        if short in ("nullptr", "NULL"):
            return NULL
        if short in self.vars:
            return self.var(short, node)
        if name in _CMATH_CONSTANTS:
            return _CMATH_CONSTANTS[name]
        if name.startswith("std::numeric_limits"):
            raise ReadError(f"cannot read `{name}`", node)
        if _is_enum_name(short) or "::" in name:
            return name   # an enum name: ACL_FLOAT, ACL_FORMAT_ND, SocVersion::ASCEND950
        raise ReadError(f"`{name}` is not a value this test defines", node)

    def unary(self, node: Node) -> Any:
        op = text_of(node.child_by_field_name("operator"))
        operand = node.child_by_field_name("argument")
        if op == "-":
            return _arith("-", 0, self.value(operand), node)
        if op == "+":
            return self.value(operand)
        if op == "!":
            return not self.value(operand)
        raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)

    def binary(self, node: Node) -> Any:
        op = text_of(node.child_by_field_name("operator"))
        if op not in ("+", "-", "*", "/", "%") and op not in _COMPARISONS and op not in ("&&", "||"):
            raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
        left = self.value(node.child_by_field_name("left"))
        if op in ("&&", "||") and bool(left) == (op == "||"):
            return bool(left)       # C++ does not evaluate the right side
        right = self.value(node.child_by_field_name("right"))
        if op in ("&&", "||"):
            return bool(right)
        if op in _COMPARISONS:
            return _compare(op, left, right, node)
        return _arith(op, left, right, node)

    def cast(self, node: Node) -> Any:
        value = self.value(node.child_by_field_name("value"))
        target = node.child_by_field_name("type")
        if target is not None and any(n.type == "abstract_pointer_declarator" for n in walk(target)):
            return value            # (aclTensor*)nullptr: a pointer cast keeps the pointer
        return _cast(_compact(text_of(target)).split("::")[-1] if target is not None else "", value)

    def call(self, node: Node) -> Any:
        function = node.child_by_field_name("function")
        arguments = _parts(node.child_by_field_name("arguments"))
        if function.type == "field_expression":
            operator = function.child_by_field_name("operator")
            if operator is None or text_of(operator) != ".":
                raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
            target = self.value(function.child_by_field_name("argument"))
            method = text_of(function.child_by_field_name("field"))
            return _method(self, target, method, arguments, node)
        limit = _numeric_limits_call(function)
        if limit is not None:
            return _numeric_limit(limit[0], limit[1], node)
        if function.type not in ("identifier", "qualified_identifier", "template_function",
                                 "primitive_type", "type_identifier"):
            raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
        name, targs = _callee(function)
        return _construct(self, name, targs, arguments, "(", node)

    def compound_literal(self, node: Node) -> Any:
        name, targs = _callee(node.child_by_field_name("type"))
        return _construct(self, name, targs, _parts(node.child_by_field_name("value")), "{", node)

    def initializer_list(self, node: Node) -> list:
        return [self.value(item) for item in _parts(node)]

    def subscript(self, node: Node) -> Any:
        target = self.value(node.child_by_field_name("argument"))
        indices = node.child_by_field_name("indices")
        index = [self.value(i) for i in _parts(indices)] if indices is not None else []
        if isinstance(target, ArrayVal):
            target = list(target.values)
        if (not isinstance(target, list) or len(index) != 1 or not isinstance(index[0], int)
                or not 0 <= index[0] < len(target)):
            raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
        return target[index[0]]

    def parenthesized(self, node: Node) -> Any:
        inner = _parts(node)
        if len(inner) != 1:
            raise ReadError(f"cannot read `{text_of(node)[:80]}`", node)
        return self.value(inner[0])


_EXPRESSIONS: dict[str, Callable[[_Eval, Node], Any]] = {
    "number_literal": lambda ev, n: _number(text_of(n)),
    "string_literal": lambda ev, n: text_of(n)[1:-1],
    "char_literal": lambda ev, n: text_of(n)[1:-1],
    "true": lambda ev, n: True,
    "false": lambda ev, n: False,
    "null": lambda ev, n: NULL,
    "identifier": _Eval.name,
    "qualified_identifier": _Eval.name,
    "unary_expression": _Eval.unary,
    "binary_expression": _Eval.binary,
    "cast_expression": _Eval.cast,
    "call_expression": _Eval.call,
    "compound_literal_expression": _Eval.compound_literal,
    "initializer_list": _Eval.initializer_list,
    "subscript_expression": _Eval.subscript,
    "parenthesized_expression": _Eval.parenthesized,
}


# acl's array constructors (first the elements, then their count), as the ops-transformer tests call them
_RUNTIME_ARRAYS = {"aclCreateIntArray": "int", "aclCreateBoolArray": "bool", "aclCreateFloatArray": "float"}


def _construct(ev: _Eval, name: str, targs: tuple[str, ...], args: list[Node], opener: str,
               at: Node) -> Any:
    """The value of a harness descriptor (``TensorDesc(...)``, ``IntArrayDesc(...)``), a container
    (``vector<T>{...}``) or a cast, from its argument nodes."""
    vals = lambda: [ev.value(a) for a in args]   # noqa: E731 (evaluated only when needed)
    if name == "TensorDesc":
        got = vals()
        if len(got) > 6:
            raise ReadError(f"TensorDesc with {len(got)} arguments", at)
        if got and isinstance(got[0], TensorVal):    # a copy
            return got[0]
        fields: dict[str, Any] = {}
        if got:
            fields["shape"] = _ints(got[0], "a TensorDesc shape", at)
        if len(got) > 1:
            fields["dtype"] = _enum(got[1], "ACL_", at)
        if len(got) > 2:
            fields["format"] = _enum(got[2], "ACL_FORMAT_", at)
        if len(got) > 3:
            fields["strides"] = _ints(got[3], "TensorDesc strides", at) or None
        if len(got) > 4:
            if not isinstance(got[4], int):
                raise ReadError(f"TensorDesc offset {got[4]!r}", at)
            fields["offset"] = got[4]
        if len(got) > 5:
            fields["storage"] = _ints(got[5], "a TensorDesc storage shape", at) or None
        return TensorVal(**fields)
    if name == "TensorListDesc":
        got = vals()
        if len(got) == 2 and isinstance(got[0], int) and isinstance(got[1], TensorVal):
            return TensorListVal(tuple(got[1] for _ in range(got[0])))
        if len(got) == 1 and isinstance(got[0], list):
            return TensorListVal(tuple(got[0]))
        raise ReadError("a TensorListDesc this reader cannot read", at)
    if name in ("IntArrayDesc", "BoolArrayDesc", "FloatArrayDesc"):
        kind = {"IntArrayDesc": "int", "BoolArrayDesc": "bool", "FloatArrayDesc": "float"}[name]
        got = vals()
        if len(got) == 2 and isinstance(got[0], int) and not isinstance(got[1], list):
            return ArrayVal(kind, tuple([got[1]] * got[0]))
        if len(got) == 1 and isinstance(got[0], (list, ArrayVal)):
            items = got[0].values if isinstance(got[0], ArrayVal) else got[0]
            return ArrayVal(kind, tuple(bool(v) if kind == "bool" else v for v in items))
        raise ReadError(f"a {name} this reader cannot read", at)
    if name in _RUNTIME_ARRAYS:   # the runtime's constructor, ``aclCreateIntArray(v.data(), v.size())``
        got = vals()
        if len(got) == 2 and isinstance(got[0], list) and isinstance(got[1], int) and 0 <= got[1] <= len(got[0]):
            kind = _RUNTIME_ARRAYS[name]
            return ArrayVal(kind, tuple(bool(v) if kind == "bool" else v for v in got[0][:got[1]]))
        raise ReadError(f"a {name} this reader cannot read", at)
    if name == "ScalarDesc":
        got = vals()
        if not got:
            return ScalarVal(0.0, "ACL_FLOAT")
        value = got[0]
        if isinstance(value, ScalarVal):
            return value
        if len(got) > 1:
            return ScalarVal(value, _enum(got[1], "ACL_", at))
        cast = _CAST_TYPE.fullmatch(text_of(args[0]).strip())
        typed = (cast.group("t") or cast.group("f")) if cast else ev.c_type(args[0])
        if typed in _SCALAR_DESC_OVERLOADS:   # the constructor overload of that type
            return ScalarVal(value, _SCALAR_DESC_OVERLOADS[typed])
        bare = bare_scalar_dtype(value)
        if bare is not None:
            return ScalarVal(value, f"ACL_{bare.name}")
        raise ReadError(f"ScalarDesc of {value!r}", at)
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
        raise ReadError(f"a {name}({', '.join(map(repr, got))[:60]}) this reader cannot read", at)
    if name in _CASTS:
        got = vals()
        if len(got) != 1:
            raise ReadError(f"a cast of {len(got)} values", at)
        return _cast(targs[0] if targs else name, got[0])
    raise ReadError(f"`{name}(...)` is not a helper this reader knows", at)


def _enum(value: Any, prefix: str, at: Node | None) -> str:
    if not isinstance(value, str) or not value.split("::")[-1].startswith(prefix):
        raise ReadError(f"expected an {prefix}* name, found {value!r}", at)
    return value.split("::")[-1]


def _method(ev: _Eval, value: Any, method: str, args: list[Node], at: Node) -> Any:
    if not isinstance(value, TensorVal):
        if method in ("ToAclType", "ToAclTypeRawPtr", "get"):
            return value
        if method == "size" and isinstance(value, (list, ArrayVal)) and not args:
            return len(value) if isinstance(value, list) else len(value.values)
        if method == "data" and isinstance(value, list) and not args:
            return value   # the pointer to a vector's elements: the elements an array constructor copies
        raise ReadError(f"`.{method}()` on {type(value).__name__}", at)
    got = [ev.value(a) for a in args]
    if method == "ValueRange":
        if len(got) != 2 or not all(isinstance(x, (int, float)) for x in got):
            raise ReadError(f"ValueRange{tuple(got)!r}", at)
        return replace(value, values=uniform(got[0], got[1]))
    if method == "Value":
        items = got[0] if len(got) == 1 else got
        if isinstance(items, ArrayVal):
            items = list(items.values)
        if not isinstance(items, list) or not all(isinstance(x, (int, float)) for x in items):
            raise ReadError(f"Value of {str(items)[:60]}", at)
        return replace(value, values=exact([float(x) for x in items]))
    if method == "Precision":
        if not 2 <= len(got) <= 3:
            raise ReadError(f"Precision with {len(got)} arguments", at)
        return replace(value, precision=tuple(float(x) for x in got) + ((1e-08,) if len(got) == 2 else ()))
    if method == "ViewDims":
        return replace(value, shape=_ints(got[0] if got else None, "ViewDims", at))
    if method == "Format":
        return replace(value, format=_enum(got[0] if got else None, "ACL_FORMAT_", at))
    if method in ("ToAclType", "ToAclTypeRawPtr", "ValidCount"):
        return value    # ValidCount only limits what the vendor harness compares of an output
    raise ReadError(f"`.{method}()` is not a TensorDesc method this reader knows", at)


def _mutated(ev: _Eval, value: Any, call: Node) -> Any:
    """A vector after ``v.push_back(x)``, ``v.emplace_back(x)``, ``v.resize(n[, x])``, ``v.clear()``."""
    method = text_of(call.child_by_field_name("function").child_by_field_name("field"))
    got = [ev.value(a) for a in _parts(call.child_by_field_name("arguments"))]
    if not isinstance(value, list):
        raise ReadError(f"`.{method}()` on {type(value).__name__}", call)
    if method in ("push_back", "emplace_back") and len(got) == 1:
        return value + got
    if method == "clear" and not got:
        return []
    if method == "resize" and 1 <= len(got) <= 2 and isinstance(got[0], int) and got[0] >= 0:
        fill = got[1] if len(got) == 2 else 0
        return value[:got[0]] + [fill] * max(0, got[0] - len(value))
    raise ReadError(f"cannot read `{text_of(call)[:80]}`", call)


# ---- statements ----

def _tokens(node: Node) -> list[str]:
    """The names a statement mentions, each as its last ``::`` part."""
    return [text_of(t).split("::")[-1] for t in leaves(node) if t.type in _IDENTIFIER_TOKENS]


def _soc_enum(node: Node) -> Node | None:
    """The first ``SocVersion::X`` / ``NpuArch::X`` name under ``node``."""
    for n in walk(node):
        if n.type in ("qualified_identifier", "qualified_type_identifier"):
            parts = _compact(text_of(n)).split("::")
            if len(parts) >= 2 and parts[-2] in _SOC_ENUMS:
                return n
    return None


def _declared_name(declarator: Node | None) -> Node | None:
    """The identifier a declarator declares (``x``, ``*x``, ``x[]``, ``&x``)."""
    while declarator is not None and declarator.type != "identifier":
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            named = _parts(declarator)
            inner = named[0] if named else None
        declarator = inner
    return declarator


def _type_kind(type_node: Node | None) -> str:
    """The kind of a declaration's type: its first primitive or descriptor name (``vector<int64_t>``
    reads as int: the conversions apply to numbers only)."""
    for token in (leaves(type_node) if type_node is not None else ()):
        short = text_of(token).split("::")[-1]
        if short in _PRIMITIVE_KINDS:
            return _PRIMITIVE_KINDS[short]
        if short in _DESC_CLASSES:
            return "desc"
    return "auto"


def _workspace_call(node: Node) -> str | None:
    """``ut.TestGetWorkspaceSize(...)`` (any variant): the ut variable's name."""
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    target = function.child_by_field_name("argument")
    operator = function.child_by_field_name("operator")
    field_name = function.child_by_field_name("field")
    if (target is not None and target.type == "identifier" and operator is not None
            and text_of(operator) == "." and field_name is not None
            and text_of(field_name).startswith("TestGetWorkspaceSize")):
        return text_of(target)
    return None


def _called(node: Node, names: frozenset[str] | tuple[str, ...] | dict) -> str | None:
    """The short name of the function ``node`` calls when it is one of ``names``."""
    if node.type != "call_expression":
        return None
    function = node.child_by_field_name("function")
    if function is None or function.type not in ("identifier", "qualified_identifier"):
        return None
    short = _compact(text_of(function)).split("::")[-1]
    return short if short in names else None


def _status(side: Node, at: Node) -> int:
    text = _compact(text_of(side))
    short = text.split("::")[-1]
    if short in ("ACL_SUCCESS", "ACLNN_SUCCESS", "0", "OK"):
        return 0
    if short.startswith("ACLNN_"):
        try:
            return int(Status[short[len("ACLNN_"):]])
        except KeyError:
            raise ReadError(f"{short} is not an aclnn status this suite knows", at) from None
    if short.isdigit():
        return int(short)
    if (side.type == "call_expression" and _callee(side.child_by_field_name("function"))
            == ("static_cast", ("aclnnStatus",))):
        inner = _parts(side.child_by_field_name("arguments"))
        if len(inner) == 1:
            return _status(inner[0], at)
    raise ReadError(f"the expected status `{text[:60]}` is not a status name", at)


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
                        f"{len(args)}")
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


# ---- one file ----

@dataclass(frozen=True)
class _Call:
    """An ``OP_API_UT(api, INPUT(...), OUTPUT(...))``: its argument expressions."""
    api: str
    inputs: tuple[Node, ...]
    outputs: tuple[Node, ...]
    at: Node


@dataclass
class _Scope:
    """A block of a test: the SoC a manager sets for the rest of it, and the control word it is
    the body of (an expectation inside a for/while/if varies at run time)."""
    soc: tuple[str, str] | None = None      # (enum name, citation) set in this scope
    loop: str = ""


@dataclass
class _TestState:
    """What one test has defined so far, as its statements are read in order."""
    suite: str
    name: str
    variables: dict[str, _Var] = field(default_factory=dict)
    calls: dict[str, _Call] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)    # status variable -> its ut variable
    scopes: list[_Scope] = field(default_factory=lambda: [_Scope()])
    count: int = 0
    passes: list[int] = field(default_factory=list)   # the scope depth each loop read a pass at a time starts at

    def __post_init__(self) -> None:
        self.ev = _Eval(self.variables)


class _Jump(Exception):
    """A ``break`` or ``continue`` the branches the test states lead to, in a loop read a pass at a
    time."""

    def __init__(self, word: str):
        super().__init__(word)
        self.word = word


class _RunTimePath(Exception):
    """A jump (``break``, ``continue``, ``return``) in a loop read a pass at a time that a branch
    decided at run time, or the end of the test, guards: the passes are not one call each."""


@dataclass(frozen=True)
class FileContext:
    """What a file's tests share: the vendor checkout it lies in, the harness default product."""

    path: Path
    display: str                              # the path cited in sources: <repo>/<relative path>
    default_product: str | None
    default_source: str


@dataclass(frozen=True)
class _TestHeader:
    """A ``TEST_F(suite, name)`` and its body, however the grammar shaped them."""
    macro: str
    args: tuple[str, ...]
    at: Node
    body: Node | None


def _test_header(node: Node, following: Node | None) -> _TestHeader | None:
    """A test macro as a function definition (``TEST_F(a, b) {...}``), or as the call statement and
    block the grammar makes of a name it cannot read (``TEST_F(a, 001_b)`` then ``{...}``)."""
    if node.type == "function_definition":
        declarator = node.child_by_field_name("declarator")
        name = declarator.child_by_field_name("declarator") if declarator is not None else None
        params = declarator.child_by_field_name("parameters") if declarator is not None else None
        if (declarator is None or declarator.type != "function_declarator" or name is None
                or name.type != "identifier" or params is None):
            return None
        return _TestHeader(text_of(name), tuple(_compact(text_of(p)) for p in _parts(params)), name,
                           node.child_by_field_name("body"))
    if node.type == "expression_statement":
        inner = _parts(node)
        if len(inner) != 1 or not _called(inner[0], _TESTS | {"TEST_P"}):
            return None
        call = macro_call(text_of(inner[0]), line_of(node))
        if call is None:
            return None
        body = following if following is not None and following.type == "compound_statement" else None
        return _TestHeader(call.name, tuple(_compact(a) for a in call.args), inner[0], body)
    return None


class GtestFile:
    def __init__(self, ctx: FileContext, text: str):
        self.ctx = ctx
        self.tree = parse_cpp(text)
        self.result = ImportResult()
        self.persistent: tuple[str, str] | None = None     # SetPlatform* in force for later tests
        self.fixture_soc: dict[str, tuple[str, str]] = {}
        self.file_scope = _TestState("", "")     # the constants declared before a test, for it

    def where(self, node: Node) -> str:
        return f"{self.ctx.display}:{line_of(node)}"

    def read(self) -> ImportResult:
        self._visit(self.tree.root_node)
        return self.result

    def _visit(self, node: Node) -> None:
        """The file's parts in source order: tests, fixtures, and SoC setters outside both."""
        children = node.children
        skip = None
        for k, child in enumerate(children):
            if child is skip:
                continue
            following = children[k + 1] if k + 1 < len(children) else None
            header = _test_header(child, following)
            if header is not None and header.macro in _TESTS and len(header.args) == 2 \
                    and header.body is not None:
                self._read_test(header)
                skip = header.body
                continue
            if header is not None and header.macro == "TEST_P":
                self.result.problems.append(Problem(
                    self.where(header.at), "parametrized test (TEST_P): its calls are built in C++ "
                                           "from a parameter table, which this reader does not evaluate"))
            if child.type in ("class_specifier", "struct_specifier") \
                    and child.child_by_field_name("body") is not None:
                self._fixture(child)
                continue
            if _called(child, _SOC_SETTERS):
                self.persistent = self._soc_arg(child)
            if child.type in _FILE_DECLARATIONS and node.type in _FILE_SCOPES:
                self._file_declaration(child, header=False)
                continue
            if child.type == "preproc_include" and node.type in _FILE_SCOPES:
                self._include(child)
                continue
            self._visit(child)

    def _file_declaration(self, node: Node, header: bool) -> None:
        """A constant at file or namespace scope (``const int8_t cubeMathType = 1;``), which the
        tests after it read."""
        before = dict(self.file_scope.variables)
        try:
            if node.type == "declaration":
                self._declaration(self.file_scope, node)
            elif node.type == "enum_specifier":
                self._enumerators(node)
            else:
                self._macro_constant(node)
        except ReadError:
            return      # a declaration no test needs to be read
        if header:
            for name, var in self.file_scope.variables.items():
                if before.get(name) is not var:
                    self.file_scope.variables[name] = replace(var, header=True)

    def _enumerators(self, node: Node) -> None:
        """``enum Reduction { None, Mean, Sum };``: each enumerator's value, counted from the last
        one stated (an enumerator this reader cannot count ends the reading of the enum)."""
        body = node.child_by_field_name("body")
        ev = _Eval(self.file_scope.variables)
        following = 0
        for enumerator in (_parts(body) if body is not None else []):
            if enumerator.type != "enumerator":
                continue
            value = enumerator.child_by_field_name("value")
            number = ev.value(value) if value is not None else following
            if not isinstance(number, int) or isinstance(number, bool):
                return
            self.file_scope.variables[text_of(enumerator.child_by_field_name("name"))] = _Var(
                None, "int", enumerator, constant=(number,))
            following = number + 1

    def _macro_constant(self, node: Node) -> None:
        """``#define USE_HF32 3``: an object-like macro whose text is an expression."""
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if name is not None and value is not None and text_of(value).strip():
            self.file_scope.variables[text_of(name)] = _Var(_expression_of(text_of(value).strip()),
                                                            "auto", node, elsewhere=True)

    def _include(self, node: Node) -> None:
        """The constants a header beside the file or in the checkout's common/inc declares."""
        path = _included(self.ctx.path, node)
        if path is None:
            return
        stack = [_header_tree(path).root_node]
        while stack:
            scope = stack.pop()
            for child in scope.children:
                if child.type in _FILE_DECLARATIONS:
                    self._file_declaration(child, header=True)
                elif child.type in _FILE_SCOPES or child.type in ("namespace_definition",
                                                                  "linkage_specification"):
                    stack.append(child)

    def _read_test(self, header: _TestHeader) -> None:
        suite, name = header.args
        before = (len(self.result.cases), len(self.result.problems))
        try:
            self._test(_TestState(suite, name, dict(self.file_scope.variables)), header.body)
        except ReadError as exc:
            self.result.problems.append(Problem(self.where(exc.at or header.at),
                                                f"test {suite}.{name}: {exc.reason}"))
        if before == (len(self.result.cases), len(self.result.problems)) and any(
                "GetWorkspaceSize" in word for word in _tokens(header.body)):
            self.result.problems.append(Problem(
                self.where(header.at), f"test {suite}.{name}: its first-phase call is not an "
                                       f"OP_API_UT this reader can follow (a direct call or a "
                                       f"helper function)"))

    def _fixture(self, node: Node) -> None:
        """A fixture's SetUp may set the SoC for all its tests."""
        name = node.child_by_field_name("name")
        for n in walk(node.child_by_field_name("body")):
            if name is not None and _called(n, _SOC_SETTERS):
                self.fixture_soc[_compact(text_of(name))] = self._soc_arg(n)

    def _soc_arg(self, node: Node) -> tuple[str, str]:
        """The SoC enum a setter or manager names (a name and the line citing it), or "?"."""
        found = _soc_enum(node)
        if found is None:
            return ("?", self.where(node))
        return _compact(text_of(found)), self.where(found)

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

    # -- a test's statements --

    def _test(self, state: _TestState, body: Node) -> None:
        for statement in _parts(body):
            self._statement(state, statement)

    def _block(self, state: _TestState, node: Node | None, loop: str) -> None:
        """A nested statement or block, read in a scope of its own."""
        if node is None:
            return
        state.scopes.append(_Scope(loop=loop))
        try:
            for statement in (_parts(node) if node.type == "compound_statement" else [node]):
                self._statement(state, statement)
        finally:
            state.scopes.pop()

    def _statement(self, state: _TestState, node: Node) -> None:
        if node.type == "compound_statement":
            self._block(state, node, "")
        elif node.type == "if_statement":
            alternative = node.child_by_field_name("alternative")
            otherwise = next(iter(_parts(alternative)), None) if alternative is not None else None
            taken = self._condition(state, node)
            if taken is None:       # a condition decided at run time: neither branch is one call
                self._block(state, node.child_by_field_name("consequence"), "if")
                self._block(state, otherwise, "else")
            else:
                self._block(state, node.child_by_field_name("consequence") if taken else otherwise, "")
        elif node.type == "for_range_loop":
            items = self._range_items(state, node)
            if items is None:
                self._block(state, node.child_by_field_name("body"), "for")
            else:
                self._unrolled(state, node, items)
        elif node.type in ("break_statement", "continue_statement", "return_statement") and state.passes:
            decided = all(not scope.loop for scope in state.scopes[state.passes[-1]:])
            if node.type == "return_statement" or not decided:
                raise _RunTimePath()
            raise _Jump(node.type.split("_")[0])
        elif node.type in _CONTROL_WORDS:
            self._block(state, node.child_by_field_name("body"), _CONTROL_WORDS[node.type])
        elif node.type == "try_statement":
            self._block(state, node.child_by_field_name("body"), "")
            for clause in _parts(node):
                if clause.type == "catch_clause":
                    self._block(state, clause.child_by_field_name("body"), "")
        elif node.type in ("case_statement", "labeled_statement"):
            for statement in _parts(node):     # its value or label is no statement: passed over
                self._statement(state, statement)
        elif node.type in ("declaration", "expression_statement"):
            self._simple(state, node)
        elif node.type == "ERROR" and any(w.startswith(_CALL_WORDS) for w in _tokens(node)):
            # what the grammar cannot read may hold the test's call: listed, never passed over
            call = macro_call(text_of(node), line_of(node))
            self.result.problems.append(Problem(self.where(node), (
                f"test {state.suite}.{state.name}: a statement the C++ grammar cannot read: "
                + (f"`{call.name}(...)`" if call is not None else f"`{text_of(node)[:60]}`"))))

    def _condition(self, state: _TestState, node: Node) -> bool | None:
        """An ``if``'s condition when the test states all it reads (``dtype == ACL_COMPLEX128`` in a
        loop over dtypes), else None."""
        clause = node.child_by_field_name("condition")
        value = clause.child_by_field_name("value") if clause is not None else None
        if value is None:
            return None
        try:
            result = state.ev.value(value)
        except (ReadError, ValueError, TypeError, KeyError, IndexError, RecursionError):
            return None
        return result if isinstance(result, bool) else None

    def _range_items(self, state: _TestState, node: Node) -> list | None:
        """The items a ``for (auto x : list)`` walks, when the list is one the test states (a
        vector of dtypes, of shapes); None where it is not read, or its variable is no plain name."""
        name = _declared_name(node.child_by_field_name("declarator"))
        if name is None or node.child_by_field_name("declarator").type not in (
                "identifier", "reference_declarator"):
            return None
        try:
            items = state.ev.value(node.child_by_field_name("right"))
        except (ReadError, ValueError, TypeError, KeyError, IndexError, RecursionError):
            return None
        if isinstance(items, ArrayVal):
            items = list(items.values)
        return items if isinstance(items, list) and len(items) <= _UNROLLED_AT_MOST else None

    def _unrolled(self, state: _TestState, node: Node, items: list) -> None:
        """The body of a ``for (auto x : list)`` read once for each item, ``x`` bound to it: each
        expectation in it is one case a pass (their source is the expectation's line). A jump the
        passes cannot tell apart undoes them: the loop is then read as one whose call varies."""
        target = text_of(_declared_name(node.child_by_field_name("declarator")))
        kind = _type_kind(node.child_by_field_name("type"))
        body = node.child_by_field_name("body")
        before = (len(self.result.cases), len(self.result.problems), state.count, self.persistent,
                  dict(state.variables), dict(state.calls), dict(state.results))
        state.passes.append(len(state.scopes))
        try:
            for item in items:
                state.variables[target] = _Var(None, kind, node, constant=(_convert(kind, item),))
                try:
                    self._block(state, body, "")
                except _Jump as jump:
                    if jump.word == "break":
                        break
        except _RunTimePath:
            cases, problems, state.count, self.persistent = before[:4]
            del self.result.cases[cases:], self.result.problems[problems:]
            for now, then in zip((state.variables, state.calls, state.results), before[4:]):
                now.clear()
                now.update(then)
            state.passes.pop()
            self._block(state, body, "for")
            return
        state.passes.pop()
        if target in before[4]:     # the loop's variable is its own: the name is the earlier one again
            state.variables[target] = before[4][target]
        else:
            state.variables.pop(target, None)

    def _simple(self, state: _TestState, node: Node) -> None:
        """A declaration or expression statement; what it cannot read becomes a problem."""
        try:
            counted = self._read_simple(state, node)
            state.count += counted
        except ReadError as exc:
            self.result.problems.append(Problem(
                self.where(exc.at or node), f"test {state.suite}.{state.name}: {exc.reason}"))
        except RegistryError:   # the operator records cannot be read: no file of it can be
            raise
        except (ValueError, TypeError, KeyError, IndexError, OverflowError,
                RecursionError) as exc:   # a form the reader does not expect: listed, not fatal
            self.result.problems.append(Problem(
                self.where(node), f"test {state.suite}.{state.name}: cannot read this statement "
                                  f"({type(exc).__name__}: {str(exc)[:80]})"))

    def _read_simple(self, state: _TestState, node: Node) -> int:
        words = _tokens(node)
        if any(w.startswith(_CALL_WORDS) for w in words) and any(n.type == "ERROR" for n in walk(node)):
            raise ReadError(f"a statement the C++ grammar cannot read: `{text_of(node)[:60]}`", node)
        if any(w in words for w in _SOC_SCOPED):
            state.scopes[-1].soc = self._soc_arg(node)
            return 0
        if any(w in words for w in _SOC_SETTERS):
            self.persistent = self._soc_arg(node)
            return 0
        expression = _parts(node)[0] if node.type == "expression_statement" and _parts(node) else None
        while expression is not None and expression.type == "binary_expression" and \
                text_of(expression.child_by_field_name("operator")) == "<<":
            expression = expression.child_by_field_name("left")     # EXPECT_EQ(a, b) << "why"
        if expression is not None and _called(expression, _EXPECT):
            args = _parts(expression.child_by_field_name("arguments"))
            if len(args) != 2:
                return 0
            return self._expectation(state, _EXPECT[_called(expression, _EXPECT)], args, expression)
        if not any(w in words for w in _WORKSPACE_WORDS):
            self._addresses_taken(state, node)
        if node.type == "declaration":
            self._declaration(state, node)
        elif expression is not None and expression.type == "assignment_expression":
            self._assignment(state, expression)
        elif expression is not None and _mutator_target(expression) in state.variables:
            target = _mutator_target(expression)
            prior = state.variables[target]
            state.variables[target] = _Var(expression, prior.kind, node, before=prior)
        return 0

    def _addresses_taken(self, state: _TestState, node: Node) -> None:
        """A variable whose address a call takes (``CreateAclScalarTensor(..., &self)``) holds what
        that call sets, which this reader does not follow: reading it is a problem, not its
        declared value."""
        for n in walk(node):
            operand = n.child_by_field_name("argument") if n.type == "pointer_expression" else None
            if (operand is None or text_of(n.child_by_field_name("operator")) != "&"
                    or operand.type != "identifier" or text_of(operand) not in state.variables
                    or n.parent is None or n.parent.type != "argument_list"):
                continue
            vname = text_of(operand)
            call = n.parent.parent
            callee = (_callee(call.child_by_field_name("function"))[0]
                      if call is not None and call.type == "call_expression" else "a call")
            state.variables[vname] = _Var(None, state.variables[vname].kind, n, unreadable=(
                f"{vname} (set through &{vname} by {callee}, a call this reader does not follow)"))

    def _define(self, state: _TestState, target: str, value: Node, kind: str, at: Node) -> None:
        """``target`` as ``value`` defines it: an OP_API_UT call, a status, or a variable."""
        if _called(value, ("OP_API_UT",)):
            state.calls[target] = self._call(value)
        elif _workspace_call(value) is not None:
            state.results[target] = _workspace_call(value)
        else:
            state.variables[target] = _Var(value, kind, at)

    def _declaration(self, state: _TestState, node: Node) -> None:
        type_node = node.child_by_field_name("type")
        kind = _type_kind(type_node)
        type_name, targs = _callee(type_node) if type_node is not None else ("", ())
        for declarator in node.children_by_field_name("declarator"):
            target = _declared_name(declarator)
            if target is None:
                continue
            value = declarator.child_by_field_name("value") if declarator.type == "init_declarator" \
                else None
            if value is not None and value.type not in ("argument_list", "initializer_list"):
                self._define(state, text_of(target), value, kind, node)
            elif value is not None:     # TensorDesc x({2}, ...); vector<int64_t> v{1, 2};
                state.variables[text_of(target)] = _Var(value, kind, node, constructed=type_name,
                                                        type_arguments=targs)
            elif declarator.type == "identifier" and type_name == "vector":
                # `vector<float> v;` is empty until a test fills it (push_back, resize)
                state.variables[text_of(target)] = _Var(None, kind, node, constructed=type_name,
                                                        type_arguments=targs)
            elif declarator.type == "function_declarator" and type_name in _DESC_CLASSES:
                # the grammar reads `TensorDesc x(shape, ACL_FLOAT, ACL_FORMAT_ND)` as a function
                # declaration: its parameters are the constructor's arguments, read as expressions
                params = declarator.child_by_field_name("parameters")
                reparsed = _expression_of(f"{type_name}{text_of(params)}")
                state.variables[text_of(target)] = _Var(reparsed, kind, node, elsewhere=True)

    def _assignment(self, state: _TestState, node: Node) -> None:
        left = node.child_by_field_name("left")
        operator = text_of(node.child_by_field_name("operator"))
        base = left
        while base is not None and base.type in ("subscript_expression", "field_expression"):
            base = base.child_by_field_name("argument")
        if base is None or base.type != "identifier":
            return
        target = text_of(base)
        prior = state.variables.get(target)
        if base is not left:        # `dims[k] = n`, `desc.x = n`: a part of the variable changes
            if prior is not None:
                state.variables[target] = _Var(None, prior.kind, node, unreadable=(
                    f"{target} (a part set by `{text_of(left)}`, which this reader does not follow)"))
            return
        if operator != "=":
            state.variables[target] = _Var(None, prior.kind if prior else "auto", node, unreadable=(
                f"{target} (changed by `{operator}`, which this reader does not follow)"))
            return
        self._define(state, target, node.child_by_field_name("right"),
                     prior.kind if prior is not None else "auto", node)

    def _call(self, node: Node) -> _Call:
        args = _parts(node.child_by_field_name("arguments"))
        if not args:
            raise ReadError("OP_API_UT without an API", node)
        api = text_of(next(iter(leaves(args[0])), args[0]))
        inputs: list[Node] = []
        outputs: list[Node] = []
        for k, part in enumerate(args[1:]):
            word = _called(part, ("INPUT", "OUTPUT"))
            if k < 2 and word is not None:
                (inputs if word == "INPUT" else outputs).extend(
                    _parts(part.child_by_field_name("arguments")))
            elif k >= 2:
                outputs.append(part)    # OP_API_UT's trailing arguments follow the outputs
            else:
                raise ReadError(f"OP_API_UT argument `{text_of(part)[:40]}` is neither INPUT nor "
                                f"OUTPUT", part)
        return _Call(api, tuple(inputs), tuple(outputs), node)

    def _expectation(self, state: _TestState, how: str, args: list[Node], at: Node) -> int:
        ut = None
        status_side = None
        for k, side in enumerate(args):
            ws = _workspace_call(side)
            if ws is not None:
                ut, status_side = ws, args[1 - k]
                break
            if side.type == "identifier" and text_of(side) in state.results:
                ut, status_side = state.results[text_of(side)], args[1 - k]
                break
        if ut is None:
            statusy = [side for side in args if _compact(text_of(side)).split("::")[-1]
                       .startswith(("ACLNN_", "ACL_SUCCESS", "ACL_ERROR"))]
            if statusy:         # a status expectation on a call this reader cannot follow
                other = args[1] if statusy[0] is args[0] else args[0]
                raise ReadError(f"the expected status is compared with `{text_of(other)[:50]}`, not "
                                f"a TestGetWorkspaceSize result of an OP_API_UT of this test", at)
            return 0            # an expectation on something else (a value, an executor)
        if ut not in state.calls:
            raise ReadError(f"`{ut}` is not an OP_API_UT call this test defines", at)
        loop = next((s.loop for s in state.scopes if s.loop), "")
        if loop:
            raise ReadError(f"the expectation sits inside `{loop}`: its call varies at run time", at)
        status = _status(status_side, at)
        if how == "eq":
            expected = VendorExpectation("success" if status == 0 else "status", status)
        elif status == 0:
            expected = VendorExpectation("any_error")
        else:
            raise ReadError(f"EXPECT_NE against {text_of(status_side)}: no expectation the suite "
                            f"can state", at)
        product, product_source = self._soc_now(state.scopes, state.suite)
        call = state.calls[ut]
        index = state.count + 1
        case_id = f"{state.suite}.{state.name}" + (f"#{index}" if index > 1 else "")
        source = self.where(at)
        ev = state.ev
        vc = build_case(call.api, [ev.expr(a) for a in call.inputs],
                        [ev.expr(a) for a in call.outputs],
                        case_id=f"ut-{case_id}", source=source, fmt="gtest", expected=expected,
                        product=product, product_source=product_source,
                        where=self.where(call.at), seed=seed_of(source))
        self.result.cases.append(vc)
        return 1


def _mutator_target(expression: Node) -> str | None:
    """``v.push_back(x)`` and the other vector mutators: the name of ``v``."""
    if expression.type != "call_expression":
        return None
    function = expression.child_by_field_name("function")
    if function is None or function.type != "field_expression":
        return None
    target, field_name = function.child_by_field_name("argument"), function.child_by_field_name("field")
    if (target is None or target.type != "identifier" or field_name is None
            or text_of(field_name) not in _VECTOR_MUTATORS
            or text_of(function.child_by_field_name("operator")) != "."):
        return None
    return text_of(target)


@lru_cache(maxsize=64)
def _header_tree(path: Path) -> Any:
    """A header's syntax tree, parsed once for all the files that include it."""
    return parse_cpp(path.read_text(encoding="utf-8", errors="replace"))


def _included(source: Path, include: Node) -> Path | None:
    """The header a quoted ``#include`` names: beside the file, else in the ``common/inc`` of a
    folder above it (the vendor's ``op_api/op_api_def_nn.h``)."""
    path = include.child_by_field_name("path")
    if path is None or path.type != "string_literal":
        return None
    name = text_of(path)[1:-1]
    for candidate in [source.parent / name] + [folder / "common" / "inc" / name
                                               for folder in source.parents]:
        if candidate.is_file():
            return candidate
    return None


def _expression_of(text: str) -> Node:
    """The expression ``text`` as the grammar reads it on its own (a node of a tree of its own)."""
    tree = parse_cpp(f"auto _value = {text};")
    found = [n for n in walk(tree.root_node) if n.type == "init_declarator"]
    value = found[0].child_by_field_name("value") if found else None
    if value is None:
        raise ReadError(f"cannot read `{text[:80]}`")
    return value


def first_api(text: str) -> str | None:
    """The API the first ``OP_API_UT(aclnnX, ...)`` of a unit-test file calls, or None."""
    for node in walk(parse_cpp(text).root_node):
        if _called(node, ("OP_API_UT",)):
            args = _parts(node.child_by_field_name("arguments"))
            if args and args[0].type == "identifier" and text_of(args[0]).startswith("aclnn"):
                return text_of(args[0])
    return None


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
