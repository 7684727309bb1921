"""An ATK executor's ``init_by_input_data`` read as a function of the case: the inputs it rewrites
before the aclnn call, evaluated exactly on the case as read.

The method is evaluated over a small subset of Python: assignments to ``input_data.kwargs[...]``
(an input by its item name), to ``input_args[k]`` after ``input_args, outputs =
super().init_by_input_data(input_data)`` (argument k: the framework converts the case's argument
items in order, see vendor/atk.py), and to locals; ``if``/``else``, ``x if c else y``, comparisons,
``and``/``or``/``not``, arithmetic, ``abs``/``min``/``max``/``int``/``float``/``bool``/``len``,
``dict(input_data.kwargs)`` and ``.get``; a tensor input's ``.shape``, ``.dtype``, ``.ndim``,
``.size(k)``, ``.dim()``; ``numpy.unique(x).tolist()``; ``ctypes.c_double(x)``; the tensors built by
``torch.tensor(list)`` and ``torch.linspace(a, b, steps=n)`` with ``.to(dtype)``, ``.round()``,
``.cpu()``, ``.npu()`` (a device move: the same tensor), ``.item()``; ``torch.sum``/``torch.prod`` of
a built tensor, and of an integer input tensor a number not known (its values are drawn: it may be
kept in a local or on ``self``, any other use is refused); ``self.backend.acl_tensor_to_torch(t)``
of a tensor argument (the same dtype and shape); ``input_args[k].value`` of an ``int64_t`` argument
(the ctypes integer the framework passes); slices of lists and tuples, ``list(...)``; attributes
the method sets on ``self`` (its own state: the golden's, the comparison's); a null aclTensor
pointer made by ``ctypes.cast(ctypes.c_void_p(None), ctypes.POINTER(AclTensor))``.
``self.device`` and the type the framework gives an argument (``type(input_args[k]).__name__``)
are the framework's and not known here: a test of one against a constant evaluates both sides
(the same test on one path takes the same side), and each side's call is kept (Outcome.assumed).
Every other construct raises NotEvaluated naming it (the case then stays read in part).
"""
from __future__ import annotations

import ast
import copy
import ctypes
import math
import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from aclnn_conformance.spec.enums import AclDataType


class NotEvaluated(ValueError):
    """A construct outside the subset (the message names it and its line)."""


@dataclass(frozen=True)
class _Framework:
    """A value the framework gives and this reader does not know: ``self.device`` (its run: aclnn,
    pyaclnn, ...), the type name of an argument it builds."""

    what: str


@dataclass(frozen=True)
class _Test:
    """``what == constant`` (``equal``) or ``!=`` of a value the framework gives: an ``if`` on it
    takes both sides, each path holding its answer (_State.assumed)."""

    what: str
    constant: Any
    equal: bool


DEVICE = _Framework("self.device")


@dataclass(frozen=True)
class _Unknown:
    """A finite number (or a one-element tensor of one) computed from a tensor input's drawn values:
    not known here; it may be stored, any use that could decide the call is refused."""

    what: str


@dataclass(frozen=True)
class CValue:
    """An argument the framework passes as a C integer (an ``int64_t`` parameter): ``.value`` is the
    value (every ctypes integer of 32 bits or more holds one of int32's range as it is)."""

    value: Any


class _Marker:
    """An object of the framework's the method holds, known by its identity."""

    def __init__(self, what: str):
        self.what = what

    def __deepcopy__(self, memo: dict) -> "_Marker":    # one object on every path
        return self


class _Built(_Marker):
    """What ``super().init_by_input_data(input_data)`` returns: the argument list (indexed and
    written by position alone) and the outputs (not read)."""


ARGUMENTS, OUTPUTS = _Built("arguments"), _Built("outputs")

# ctypes.c_void_p(None): a null pointer not yet of a pointer type; the pointer type
# ctypes.POINTER(AclTensor) (AclTensor imported from the framework's acl_wrapper)
_NULL_VOID = _Marker("ctypes.c_void_p(None)")
_ACL_TENSOR_TYPE = _Marker("AclTensor")
_ACL_TENSOR_POINTER = _Marker("ctypes.POINTER(AclTensor)")
_ACL_WRAPPER = "atk.tasks.backends.lib_interface.acl_wrapper"

# torch's dtypes by the names the executors write, and the aclDataType each is
TORCH_DTYPES = {"float32": AclDataType.FLOAT, "float": AclDataType.FLOAT, "float16": AclDataType.FLOAT16,
                "half": AclDataType.FLOAT16, "bfloat16": AclDataType.BF16, "float64": AclDataType.DOUBLE,
                "double": AclDataType.DOUBLE, "int8": AclDataType.INT8, "uint8": AclDataType.UINT8,
                "int16": AclDataType.INT16, "int32": AclDataType.INT32, "int": AclDataType.INT32,
                "int64": AclDataType.INT64, "long": AclDataType.INT64, "bool": AclDataType.BOOL}


@dataclass(frozen=True)
class InputTensor:
    """A tensor input of the case: its descriptor is known, its values are not (they are drawn)."""

    dtype: AclDataType
    shape: tuple[int, ...]


@dataclass(frozen=True)
class BuiltTensor:
    """A tensor the method builds from plain values: descriptor and values both known."""

    dtype: AclDataType
    shape: tuple[int, ...]
    values: tuple[Any, ...]          # flattened, in the dtype


def _torch():
    try:
        import torch
    except ImportError:               # the [torch] extra is not installed
        raise NotEvaluated("a tensor is built with torch, which is not installed") from None
    return torch


def _to_torch_dtype(dtype: AclDataType):
    torch = _torch()
    name = next((n for n, d in TORCH_DTYPES.items() if d == dtype and hasattr(torch, n)), None)
    if name is None:
        raise NotEvaluated(f"no torch dtype is {dtype.name}")
    return getattr(torch, name)


def _built(t) -> BuiltTensor:
    """A torch tensor as a BuiltTensor."""
    name = str(t.dtype).removeprefix("torch.")
    if name not in TORCH_DTYPES:
        raise NotEvaluated(f"a tensor of torch dtype {name}")
    return BuiltTensor(TORCH_DTYPES[name], tuple(int(d) for d in t.shape),
                       tuple(t.flatten().tolist()))


COMPARISONS: dict[type, Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge}
ARITHMETIC: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod}
_PLAIN = (bool, int, float, str, type(None))


def _is_finite(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _as_argument(value: Any, start: Any) -> Any:
    """An input's value as the framework passes it: as a C integer where the parameter is one."""
    return CValue(value) if isinstance(start, CValue) else value


def _reaches(holder: Any, target: list) -> bool:
    """Whether ``target`` is ``holder`` or held in it (lists, tuples, dicts, at any depth)."""
    if holder is target:
        return True
    items = holder.values() if isinstance(holder, dict) else holder if isinstance(holder, (list, tuple)) else ()
    return any(_reaches(item, target) for item in items)


def _is_self_attribute(node: ast.expr) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"


def is_plain(value: Any) -> bool:
    if isinstance(value, AclDataType):    # a torch dtype, no number (an IntEnum here)
        return False
    if isinstance(value, (list, tuple)):
        return all(is_plain(v) for v in value)
    return isinstance(value, _PLAIN)


class _Inputs:
    """``input_data.kwargs`` (writable: a rewrite) or a copy of it by ``dict(...)`` (read only);
    each read records the item name."""

    def __init__(self, values: dict[str, Any], reads: set[str], writable: bool):
        self.values, self.reads, self.writable = values, reads, writable

    def __deepcopy__(self, memo: dict) -> "_Inputs":   # reads are recorded for the whole run
        return self

    def read(self, key: Any, line: int, default: Any = None, has_default: bool = False) -> Any:
        if key not in self.values:
            if has_default:
                return default
            raise NotEvaluated(f"line {line} reads input {key!r}, which the case gives no argument")
        self.reads.add(key)
        return self.values[key]


@dataclass
class _State:
    """One path through the method: its locals (and what it sets on ``self``, as ``self.name``),
    the inputs, the arguments once built, the answers it takes to the framework's tests."""

    locals: dict[str, Any]
    kwargs: dict[str, Any]
    args: list[Any] | None = None
    written: dict[str, int] = field(default_factory=dict)    # input name or "#k" -> line
    done: bool = False
    assumed: dict[tuple[str, Any], bool] = field(default_factory=dict)    # (what, constant) -> equal

    def fork(self) -> "_State":
        # a deep copy: a list a path changes in place is its own
        return _State(copy.deepcopy(self.locals), dict(self.kwargs),
                      None if self.args is None else list(self.args), dict(self.written), self.done,
                      dict(self.assumed))


@dataclass(frozen=True)
class Outcome:
    """What one path makes of the inputs: the value of each input and argument it writes (by item
    name, or ``#k`` for argument k), the inputs it reads."""

    written: dict[str, Any]
    lines: dict[str, int]
    reads: frozenset[str]
    # the answers the path takes to the framework's tests: (what, constant, equal)
    assumed: tuple[tuple[str, Any, bool], ...] = ()


class _Evaluator:
    def __init__(self, kwargs: dict[str, Any], args: list[Any] | None):
        self.reads: set[str] = set()
        self.start_kwargs = kwargs
        self.start_args = args

    # statements ---------------------------------------------------------------------------------
    def run(self, method: ast.FunctionDef) -> list[_State]:
        states = [_State({}, dict(self.start_kwargs))]
        for stmt in method.body:
            states = [s for state in states for s in self._stmt(stmt, state)]
        return states

    def _block(self, body: list[ast.stmt], state: _State) -> list[_State]:
        states = [state]
        for stmt in body:
            states = [s for st in states for s in self._stmt(stmt, st)]
        return states

    def _stmt(self, stmt: ast.stmt, state: _State) -> list[_State]:
        if state.done:
            return [state]
        if isinstance(stmt, ast.ImportFrom) and stmt.module == _ACL_WRAPPER:
            for alias in stmt.names:      # the framework's aclTensor type (for a null pointer of it)
                if alias.name == "AclTensor":
                    state.locals[alias.asname or alias.name] = _ACL_TENSOR_TYPE
            return [state]
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            return [state]    # binds a module's name only (a use of it is refused below)
        if isinstance(stmt, ast.Pass) or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                                          and isinstance(stmt.value.value, str)):
            return [state]
        if isinstance(stmt, ast.Return):
            if stmt.value is not None and not self._returns_arguments(stmt.value):
                self._expr(stmt.value, state)       # evaluated: it may raise
            state.done = True
            return [state]
        if isinstance(stmt, ast.If):
            test = self._expr(stmt.test, state)
            if isinstance(test, _Test):     # the framework's value is not known: both sides
                key = (test.what, test.constant)
                if key in state.assumed:
                    return self._block(stmt.body if state.assumed[key] == test.equal else stmt.orelse, state)
                out = []
                for equal in (test.equal, not test.equal):
                    side = state.fork()
                    side.assumed[key] = equal
                    out += self._block(stmt.body if equal == test.equal else stmt.orelse, side)
                return out
            return self._block(stmt.body if self._truth(test, stmt) else stmt.orelse, state)
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if self._is_super_init(stmt.value):
                return [self._build_arguments(target, state, stmt.lineno)]
            value = self._expr(stmt.value, state)
            self._assign(target, value, state, stmt.lineno)
            return [state]
        raise NotEvaluated(f"line {stmt.lineno}: {ast.unparse(stmt).splitlines()[0]!r} is outside "
                           f"the statements this reader evaluates")

    @staticmethod
    def _is_super_init(node: ast.expr) -> bool:
        return ast.unparse(node) == "super().init_by_input_data(input_data)"

    @staticmethod
    def _returns_arguments(node: ast.expr) -> bool:
        return isinstance(node, ast.Tuple) and all(isinstance(e, ast.Name) for e in node.elts)

    def _build_arguments(self, target: ast.expr, state: _State, line: int) -> _State:
        if self.start_args is None:
            raise NotEvaluated(f"line {line} builds the arguments, and the case's inputs are not "
                               f"mapped onto them by position")
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2
                and all(isinstance(e, ast.Name) for e in target.elts)):
            raise NotEvaluated(f"line {line} unpacks the arguments as {ast.unparse(target)!r}")
        # the arguments are converted from the inputs as they stand now (a later input write is
        # no argument: it is refused below)
        state.args = [_as_argument(state.kwargs[name], value) if isinstance(name, str) and name in state.kwargs
                      else value for name, value in self.start_args]
        state.locals[target.elts[0].id] = ARGUMENTS
        state.locals[target.elts[1].id] = OUTPUTS
        return state

    def _assign(self, target: ast.expr, value: Any, state: _State, line: int) -> None:
        if isinstance(target, ast.Name):
            state.locals[target.id] = value
            return
        if _is_self_attribute(target) and target.attr not in ("device", "backend"):
            state.locals[ast.unparse(target)] = value      # the executor's own state
            return
        if isinstance(target, ast.Subscript):
            holder = ast.unparse(target.value)
            key = self._expr(target.slice, state)
            if holder == "input_data.kwargs":
                if state.args is not None:
                    raise NotEvaluated(f"line {line} writes input {key!r} after the arguments are built")
                if key not in state.kwargs:
                    raise NotEvaluated(f"line {line} writes input {key!r}, which the case gives no argument")
                state.kwargs[key] = value
                state.written[key] = line
                return
            if isinstance(target.value, ast.Name) and state.locals.get(target.value.id) is ARGUMENTS:
                if not (isinstance(key, int) and 0 <= key < len(state.args)):
                    raise NotEvaluated(f"line {line} writes argument {key!r} of {len(state.args)}")
                state.args[key] = value
                state.written[f"#{key}"] = line
                return
            if isinstance(target.value, ast.Name) or _is_self_attribute(target.value):
                items = self._expr(target.value, state)
                # a list the inputs or arguments hold would change them unrecorded: refused
                if isinstance(items, list) and isinstance(key, int) and not isinstance(key, bool) and \
                        not _reaches([self.start_kwargs, self.start_args or [], state.kwargs,
                                      state.args or []], items):
                    try:
                        items[key] = value       # in place: Python's meaning for a list
                    except IndexError:
                        raise NotEvaluated(f"line {line}: {ast.unparse(target)!r} raises IndexError") from None
                    return
        raise NotEvaluated(f"line {line} assigns to {ast.unparse(target)!r}")

    # expressions --------------------------------------------------------------------------------
    def _truth(self, value: Any, node: ast.AST) -> bool:
        if not is_plain(value):
            raise NotEvaluated(f"line {node.lineno} tests {ast.unparse(node.test if isinstance(node, ast.If) else node)!r}, "
                               f"no plain value")
        return bool(value)

    def _expr(self, node: ast.expr, state: _State) -> Any:
        try:
            return self._eval(node, state)
        except NotEvaluated:
            raise
        except (ArithmeticError, TypeError, ValueError, IndexError, KeyError) as exc:
            raise NotEvaluated(f"line {node.lineno}: {ast.unparse(node)!r} raises "
                               f"{type(exc).__name__}") from None

    def _eval(self, node: ast.expr, state: _State) -> Any:
        text = ast.unparse(node)
        if isinstance(node, ast.Constant):
            return node.value
        if text == "self.device":
            return DEVICE
        if _is_self_attribute(node) and text in state.locals:
            return state.locals[text]
        if text == "input_data.kwargs":
            return _Inputs(state.kwargs, self.reads, writable=True)
        if isinstance(node, ast.Name):
            if node.id not in state.locals:
                raise NotEvaluated(f"line {node.lineno} reads {node.id!r}, which it does not set")
            return state.locals[node.id]
        if isinstance(node, (ast.List, ast.Tuple)):
            items = [self._expr(e, state) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, state)
        if isinstance(node, ast.Compare):
            left = self._expr(node.left, state)
            for op, right_node in zip(node.ops, node.comparators):
                right = self._expr(right_node, state)
                if isinstance(left, _Framework) or isinstance(right, _Framework):
                    value, constant = (left, right) if isinstance(left, _Framework) else (right, left)
                    if len(node.ops) != 1 or not isinstance(op, (ast.Eq, ast.NotEq)) or \
                            not isinstance(constant, _PLAIN):
                        raise NotEvaluated(f"line {node.lineno} compares {text!r}")
                    return _Test(value.what, constant, isinstance(op, ast.Eq))
                if isinstance(left, AclDataType) and isinstance(right, AclDataType) and \
                        isinstance(op, (ast.Eq, ast.NotEq)):
                    if (left == right) != isinstance(op, ast.Eq):
                        return False
                    left = right
                    continue
                if type(op) not in COMPARISONS or not (is_plain(left) and is_plain(right)):
                    raise NotEvaluated(f"line {node.lineno} compares {text!r}")
                if not COMPARISONS[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.BoolOp):
            values = []
            for v in node.values:
                x = self._expr(v, state)
                if not is_plain(x):
                    raise NotEvaluated(f"line {node.lineno} combines {text!r}")
                values.append(x)
                if isinstance(node.op, ast.And) and not x or isinstance(node.op, ast.Or) and x:
                    return x          # Python's short circuit: the operand itself
            return values[-1]
        if isinstance(node, ast.UnaryOp):
            x = self._expr(node.operand, state)
            if not is_plain(x):
                raise NotEvaluated(f"line {node.lineno} applies {text!r}")
            if isinstance(node.op, ast.Not):
                return not x
            if isinstance(node.op, ast.USub):
                return -x
            if isinstance(node.op, ast.UAdd):
                return +x
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            left, right = self._expr(node.left, state), self._expr(node.right, state)
            if not (isinstance(left, (int, float)) and isinstance(right, (int, float))):
                raise NotEvaluated(f"line {node.lineno} computes {text!r} on no numbers")
            return ARITHMETIC[type(node.op)](left, right)
        if isinstance(node, ast.IfExp):
            test = self._expr(node.test, state)
            if isinstance(test, _Inputs):     # a dict's truth: whether it holds an item
                test = bool(test.values)
            return self._expr(node.body if self._truth(test, node.test) else node.orelse, state)
        if isinstance(node, ast.Dict) and not node.keys:
            return _Inputs({}, self.reads, writable=False)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, state)
        if isinstance(node, ast.Call):
            return self._call(node, state)
        raise NotEvaluated(f"line {node.lineno}: {text!r} is outside the expressions this reader evaluates")

    def _subscript(self, node: ast.Subscript, state: _State) -> Any:
        holder = self._expr(node.value, state)
        key = self._slice(node.slice, state) if isinstance(node.slice, ast.Slice) else self._expr(node.slice, state)
        if isinstance(holder, _Inputs):
            return holder.read(key, node.lineno)
        if holder is ARGUMENTS:
            if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key < len(state.args):
                raise NotEvaluated(f"line {node.lineno} reads argument {key!r}")
            self.reads.add(f"#{key}")
            return state.args[key]
        if isinstance(holder, (list, tuple)) and isinstance(key, int) and not isinstance(key, bool):
            return holder[key]
        if isinstance(holder, (list, tuple)) and isinstance(key, slice):
            return holder[key]
        raise NotEvaluated(f"line {node.lineno} indexes {ast.unparse(node)!r}")

    def _slice(self, node: ast.Slice, state: _State) -> slice:
        ends = [None if e is None else self._expr(e, state) for e in (node.lower, node.upper, node.step)]
        if not all(e is None or isinstance(e, int) and not isinstance(e, bool) for e in ends):
            raise NotEvaluated(f"line {node.lineno} slices by {ast.unparse(node)!r}")
        return slice(*ends)

    def _argument_type(self, node: ast.Attribute, state: _State) -> _Framework | None:
        """``type(input_args[k]).__name__``: the type the framework gives argument k, not known."""
        call = node.value
        if not (node.attr == "__name__" and isinstance(call, ast.Call) and ast.unparse(call.func) == "type"
                and len(call.args) == 1 and not call.keywords and isinstance(call.args[0], ast.Subscript)
                and self._expr(call.args[0].value, state) is ARGUMENTS):
            return None
        key = self._expr(call.args[0].slice, state)
        if not isinstance(key, int) or isinstance(key, bool) or not 0 <= key < len(state.args):
            raise NotEvaluated(f"line {node.lineno} reads the type of argument {key!r}")
        return _Framework(f"the type name of argument {key}")

    def _attribute(self, node: ast.Attribute, state: _State) -> Any:
        text = ast.unparse(node)
        if text.startswith("torch.") and node.attr in TORCH_DTYPES and isinstance(node.value, ast.Name):
            return TORCH_DTYPES[node.attr]
        argument_type = self._argument_type(node, state)
        if argument_type is not None:
            return argument_type
        holder = self._expr(node.value, state)
        if isinstance(holder, CValue) and node.attr == "value":
            if isinstance(holder.value, int) and not isinstance(holder.value, bool) and \
                    -2 ** 31 <= holder.value < 2 ** 31:
                return holder.value
            raise NotEvaluated(f"line {node.lineno} reads {text!r} of {holder.value!r}")
        if isinstance(holder, (InputTensor, BuiltTensor)):
            if node.attr == "shape":
                return holder.shape
            if node.attr == "dtype":
                return holder.dtype
            if node.attr == "ndim":
                return len(holder.shape)
        raise NotEvaluated(f"line {node.lineno} reads {text!r}")

    def _call(self, node: ast.Call, state: _State) -> Any:
        func = ast.unparse(node.func)
        line = node.lineno
        if func == "self.backend.acl_tensor_to_torch":
            [tensor] = self._args(node, state, 1)
            if isinstance(tensor, (InputTensor, BuiltTensor)) and tensor.dtype in TORCH_DTYPES.values():
                return tensor         # the tensor as torch holds it: its dtype and shape
            raise NotEvaluated(f"line {line}: {func} of {tensor!r}")
        if func.startswith("self."):    # the framework's objects (its backend, its helpers)
            raise NotEvaluated(f"line {line} calls {func!r}")
        if isinstance(node.func, ast.Attribute):
            method = node.func.attr
            if func in ("np.unique", "numpy.unique"):
                [x] = self._args(node, state, 1)
                if not (isinstance(x, (list, tuple)) and is_plain(x)):
                    raise NotEvaluated(f"line {line}: {func} of no plain list")
                return np.unique(np.asarray(x))
            if func in ("torch.tensor", "torch.linspace"):
                return self._torch_build(node, state, func)
            if func in ("torch.sum", "torch.prod"):
                return self._torch_reduce(node, state, func)
            if func in ("ctypes.c_void_p", "ctypes.POINTER", "ctypes.cast"):
                return self._null_pointer(node, state, func)
            if func == "ctypes.c_double":
                [x] = self._args(node, state, 1)
                if not isinstance(x, (int, float)) or isinstance(x, bool):
                    raise NotEvaluated(f"line {line}: ctypes.c_double of {x!r}")
                return ctypes.c_double(x).value
            holder = self._expr(node.func.value, state)
            if isinstance(holder, _Inputs) and method == "get" and 1 <= len(node.args) <= 2 and not node.keywords:
                key = self._expr(node.args[0], state)
                default = self._expr(node.args[1], state) if len(node.args) == 2 else None
                return holder.read(key, line, default, has_default=True)
            if isinstance(holder, np.ndarray) and method == "tolist" and not node.args and not node.keywords:
                return holder.tolist()
            if isinstance(holder, (InputTensor, BuiltTensor)) and method in ("size", "dim") and not node.keywords:
                args = self._args(node, state, len(node.args))
                if method == "dim" and not args:
                    return len(holder.shape)
                if method == "size" and len(args) == 1 and isinstance(args[0], int):
                    return holder.shape[args[0]]
                if method == "size" and not args:
                    return holder.shape
            if isinstance(holder, BuiltTensor) and method in ("to", "round", "cpu", "npu"):
                return self._torch_method(holder, method, node, state)
            if method == "item" and not node.args and not node.keywords:
                if isinstance(holder, _Unknown):
                    return holder
                if isinstance(holder, BuiltTensor) and len(holder.values) == 1:
                    return holder.values[0]
            raise NotEvaluated(f"line {line} calls {func!r}")
        if isinstance(node.func, ast.Name) and node.func.id in ("abs", "min", "max", "int", "float",
                                                                "bool", "len", "dict", "list") and not node.keywords:
            args = self._args(node, state, len(node.args))
            if node.func.id == "dict":
                if len(args) == 1 and isinstance(args[0], _Inputs):
                    return _Inputs(dict(args[0].values), self.reads, writable=False)
                raise NotEvaluated(f"line {line}: dict of {ast.unparse(node)!r}")
            if node.func.id in ("len", "list") and len(args) == 1 and isinstance(args[0], (list, tuple)):
                return len(args[0]) if node.func.id == "len" else list(args[0])
            if all(is_plain(a) for a in args) and args:
                return {"abs": abs, "min": min, "max": max, "int": int, "float": float,
                        "bool": bool}[node.func.id](*args)
            # a number not known, with finite ones: min, max and int of finite numbers cannot raise
            if node.func.id in ("min", "max", "int") and any(isinstance(a, _Unknown) for a in args) and \
                    all(isinstance(a, _Unknown) or _is_finite(a) for a in args) and \
                    (node.func.id != "int" or len(args) == 1) and (node.func.id == "int" or len(args) >= 2):
                return next(a for a in args if isinstance(a, _Unknown))
        raise NotEvaluated(f"line {line} calls {func!r}")

    def _args(self, node: ast.Call, state: _State, count: int) -> list[Any]:
        if len(node.args) != count or node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
            raise NotEvaluated(f"line {node.lineno} calls {ast.unparse(node)!r}")
        return [self._expr(a, state) for a in node.args]

    def _torch_build(self, node: ast.Call, state: _State, func: str) -> BuiltTensor:
        torch = _torch()
        args = [self._expr(a, state) for a in node.args]
        keywords = {k.arg: self._expr(k.value, state) for k in node.keywords}
        if not all(is_plain(a) for a in [*args, *keywords.values()]):
            raise NotEvaluated(f"line {node.lineno}: {func} of no plain values")
        if func == "torch.tensor" and len(args) == 1 and not keywords and isinstance(args[0], (list, tuple)):
            return _built(torch.tensor(args[0]))
        if func == "torch.linspace" and len(args) + len(keywords) == 3 and set(keywords) <= {"steps"} \
                and len(args) >= 2:
            return _built(torch.linspace(*args, **keywords))
        raise NotEvaluated(f"line {node.lineno} calls {ast.unparse(node)!r}")

    def _torch_reduce(self, node: ast.Call, state: _State, func: str) -> BuiltTensor | _Unknown:
        """``torch.sum(t)``/``torch.prod(t)``: of a built tensor its value; of an input tensor of
        integers a finite integer not known (its values are drawn)."""
        [tensor] = self._args(node, state, 1)
        if isinstance(tensor, BuiltTensor):
            torch = _torch()
            t = torch.tensor(list(tensor.values), dtype=_to_torch_dtype(tensor.dtype)).reshape(tensor.shape)
            return _built(getattr(torch, func.split(".")[1])(t))
        if isinstance(tensor, InputTensor) and tensor.dtype in (
                AclDataType.INT8, AclDataType.UINT8, AclDataType.INT16, AclDataType.INT32,
                AclDataType.INT64, AclDataType.BOOL):
            return _Unknown(f"line {node.lineno}: {ast.unparse(node)}")
        raise NotEvaluated(f"line {node.lineno} calls {ast.unparse(node)!r}")

    def _null_pointer(self, node: ast.Call, state: _State, func: str) -> Any:
        """``ctypes.cast(ctypes.c_void_p(None), ctypes.POINTER(AclTensor))``: a null aclTensor pointer
        (None: what a tensor parameter holds for a null pointer)."""
        args = self._args(node, state, 2 if func == "ctypes.cast" else 1)
        if func == "ctypes.c_void_p" and args[0] is None:
            return _NULL_VOID
        if func == "ctypes.POINTER" and args[0] is _ACL_TENSOR_TYPE:
            return _ACL_TENSOR_POINTER
        if func == "ctypes.cast" and args[0] is _NULL_VOID and args[1] is _ACL_TENSOR_POINTER:
            return None
        raise NotEvaluated(f"line {node.lineno} calls {ast.unparse(node)!r}")

    def _torch_method(self, tensor: BuiltTensor, method: str, node: ast.Call, state: _State) -> BuiltTensor:
        if method in ("cpu", "npu") and not node.args and not node.keywords:
            return tensor           # a device move: the same tensor
        torch = _torch()
        t = torch.tensor(list(tensor.values), dtype=_to_torch_dtype(tensor.dtype)).reshape(tensor.shape)
        if method == "round" and not node.args and not node.keywords:
            return _built(t.round())
        if method == "to":
            [dtype] = self._args(node, state, 1)
            if isinstance(dtype, AclDataType):
                return _built(t.to(_to_torch_dtype(dtype)))
        raise NotEvaluated(f"line {node.lineno} calls {ast.unparse(node)!r}")


@dataclass(frozen=True)
class ExecutorRewrite:
    """An executor's ``init_by_input_data`` that writes inputs or arguments (see the module)."""

    method: ast.FunctionDef = field(compare=False, repr=False)
    said: str       # what it writes and where: "input 'dim' (path/executor_x.py:36)"
    # every input (item name) and argument ("#k") it may write, on any path; "?" for a key not
    # written as a constant
    targets: tuple[str, ...] = ()

    def evaluate(self, kwargs: dict[str, Any], args: list[tuple[str | None, Any]] | None) -> list[Outcome]:
        """The outcomes of the method on inputs ``kwargs`` (item name -> value: a plain value, an
        InputTensor or None) and the arguments by position (the item name each comes from, and its
        value), one per side of each test of ``self.device``; raises NotEvaluated."""
        evaluator = _Evaluator(kwargs, args)
        outcomes = []
        for state in evaluator.run(self.method):
            written: dict[str, Any] = {}
            for key in state.written:
                written[key] = state.kwargs[key] if not key.startswith("#") else state.args[int(key[1:])]
            assumed = tuple((what, constant, equal) for (what, constant), equal in state.assumed.items())
            outcomes.append(Outcome(written, dict(state.written), frozenset(evaluator.reads), assumed))
        return outcomes
