"""An ATK executor's ``__call__`` read as the golden of its cases: the dtype and shape of each tensor
it returns, evaluated on torch's meta device.

An ATK case whose ``api_type`` is no torch function names an executor of the repository
(``@register("aclnn_sigmoid")`` on a class beside the case file); the framework calls its
``__call__(input_data, with_output)`` and makes each output of the aclnn call from the result
(vendor/atk_golden.py says how). The executor's file is read, never imported or run: the method's
syntax tree is evaluated over a small subset of Python with the case's inputs as torch meta tensors
(dtype and shape, no values) and its attrs and scalars as the values the import reads.

The subset: ``input_data.kwargs[name]`` (and ``.get``), ``input_data.args[k]``, locals (and names
unpacked from a tuple), dict, list and tuple literals, ``if``/``else`` and ``x if c else y`` on values
known here (an attr's value, a dtype or shape comparison), comparisons, ``and``/``or``/``not``,
arithmetic on numbers and tensors, ``len``/``tuple``/``list``/``int``/``float``/``bool``/``abs``/
``min``/``max``/``range``, list comprehensions over known values, ``try`` (its body: every exception
here is a refusal), ``return``; functions the method defines, the other methods of its class, and
the file's own undecorated functions, top-level assignments and ``torch.nn.Module`` subclasses (built
by their ``__init__``, called through ``forward``), all read from the same file; attribute paths into
torch (``torch.nn.functional.softmax``, ``torch.ops.aten.gelu_backward``, module aliases such as
``import torch.nn.functional as F``), called where torch counts them as tensor operations (its
``torch.overrides`` list, the ``aten`` operators and their ``torch.X`` bindings, the tensor factories),
``torch.nn`` modules constructed and called, tensor methods and attributes as torch gives them on
meta tensors, ``eval(self.api_name)`` of a case naming a torch path. The golden is the benchmark run,
``atk node --backend cpu`` in the vendor's documented command (ops-nn experimental/activation/
sigmoid_v2/README.md:177-178), so ``self.device`` is ``"cpu"``; the framework asks it for its result,
so ``with_output`` is true (executors return nothing without it: ops-nn norm/lp_norm_v2/tests/st/
aclnnNorm/executor_aclnnNorm.py:32-37). Everything else (numpy, loops, ``.item()``/``.tolist()``/
``.numpy()`` and whatever else needs values, the framework's objects and methods, other modules,
files and processes) is refused with NotEvaluated naming the construct and its line, and the case's
outputs stay unplaced with that reason."""
from __future__ import annotations

import ast
import builtins
import functools
import importlib
import operator
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from aclnn_conformance.vendor.atk_golden import (NEEDS_TORCH, GoldenArgument, GoldenOutput, argument_value,
                                                 result_outputs)
from aclnn_conformance.vendor.executor_rewrite import ARITHMETIC, COMPARISONS, NotEvaluated, is_plain

GOLDEN_DEVICE = "cpu"
# tensor methods that hand values to Python, take Python callables or touch memory outside torch
_VALUE_METHODS = frozenset({"item", "tolist", "numpy", "data_ptr", "storage", "untyped_storage", "apply_",
                            "map_", "map2_", "register_hook", "share_memory_", "pin_memory", "record_stream",
                            "__bool__", "__int__", "__float__", "__index__", "__complex__", "__array__"})
_DEVICE_MOVES = frozenset({"cpu", "cuda", "npu"})      # the same tensor: the golden's device is not judged
_TENSOR_FACTORIES = ("tensor", "as_tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "eye",
                     "Size")
_TENSOR_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "device", "grad", "T", "mT", "requires_grad",
                                "is_leaf", "layout"})
_DTYPE_ATTRIBUTES = frozenset({"is_floating_point", "is_complex", "is_signed", "itemsize"})
_BUILTINS = frozenset({"len", "tuple", "list", "int", "float", "bool", "abs", "min", "max", "range"})
_OPERATORS: dict[type, Callable[[Any, Any], Any]] = {
    **ARITHMETIC, ast.Pow: operator.pow, ast.MatMult: operator.matmul, ast.BitAnd: operator.and_,
    ast.BitOr: operator.or_, ast.BitXor: operator.xor, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift}
_IDENTITY = {ast.Is: operator.is_, ast.IsNot: operator.is_not}
_MEMBERSHIP = {ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b}
_DEPTH = 20                       # calls of the method's own functions, nested
_MOST_ITEMS = 1 << 16             # a list the golden builds of known values (a shape's indices are few)
_MOST_BITS = 1 << 12              # an exponent or shift of known integers


# operators whose meta kernel follows an argument for the result's dtype where the CPU kernel does
# not (torch/_decomp/decompositions.py _softmax_backward_data: "CPU kernel doesn't respect input_dtype")
_CPU_DTYPE_OPERATORS = frozenset({"_softmax_backward_data", "_log_softmax_backward_data"})


def _operator_name(function: Any) -> str:
    """``aten::_softmax_backward_data`` and ``torch._softmax_backward_data`` alike: the operator's name."""
    qualified = getattr(function, "_qualified_op_name", None) or getattr(function, "__name__", "")
    return str(qualified).removeprefix("aten::").split(".")[0]


def _too_large(op: ast.operator, left: Any, right: Any) -> bool:
    """Whether Python would spend unbounded time or memory on this operation of known values."""
    if isinstance(op, (ast.Pow, ast.LShift)) and isinstance(right, int) and isinstance(left, int):
        return abs(right) > _MOST_BITS or isinstance(op, ast.Pow) and abs(left).bit_length() * abs(right) > _MOST_BITS
    if isinstance(op, ast.Mult) and any(isinstance(v, (list, tuple)) for v in (left, right)):
        count = next((v for v in (left, right) if isinstance(v, int)), 1)
        items = next((len(v) for v in (left, right) if isinstance(v, (list, tuple))), 0)
        return count * max(items, 1) > _MOST_ITEMS
    return False


class _Refused(NotEvaluated):
    """A construct outside the subset, at a line of the executor's file."""

    def __init__(self, line: int, what: str):
        super().__init__(f"line {line} {what}")
        self.line, self.what = line, what


class _Returned(Exception):
    """``return``: leaves the function being evaluated with its value."""

    def __init__(self, value: Any):
        super().__init__()
        self.value = value


class _Instance:
    """An object of a class the file defines: the executor (``self``: the framework's attributes
    the golden reads, what its methods set, its class's other methods) or a ``torch.nn.Module``
    subclass of the file, built and called."""

    def __init__(self, name: str, methods: dict[str, ast.FunctionDef], known: dict[str, Any]):
        self.name, self.methods, self.known = name, methods, known


@dataclass(frozen=True)
class _FileClass:
    """A class the file defines at its top level (not registered): built where it is a torch.nn.Module."""

    node: ast.ClassDef


@dataclass(frozen=True)
class _BoundMethod:
    """``instance.method``: a method of a class of the file, with its object."""

    function: "_LocalFunction"
    instance: _Instance


class _InputData:
    """``input_data``: the case's named inputs (``kwargs``) and unnamed ones (``args``)."""

    def __init__(self, kwargs: dict[str, Any], args: list[Any]):
        self.fields: dict[str, Any] = {"kwargs": kwargs, "args": args}


@dataclass(frozen=True)
class _Foreign:
    """A module other than torch that the file imports (numpy, the framework's): any use is refused."""

    module: str


@dataclass(frozen=True)
class _LocalFunction:
    """A function the method defines, evaluated where it is called, with the names it sees."""

    node: ast.FunctionDef
    scope: dict[str, Any] = field(compare=False)
    defaults: tuple[Any, ...] | None = None     # None: evaluated at each call (a function of the file)


@dataclass(frozen=True)
class _Deferred:
    """A name the file assigns at its top level: evaluated when the golden first reads it."""

    value: ast.expr


def executor_scope(source: Path, method: ast.FunctionDef) -> tuple[tuple[ast.stmt, ...], tuple[ast.FunctionDef, ...]]:
    """What a registered method of an executor's file may call beyond itself (read, never
    imported): the file's top-level statements that bind names (imports, undecorated functions and
    classes, assignments to a name) and the other methods of the method's class."""
    try:
        tree = ast.parse(source.read_text(encoding="utf-8", errors="replace"))
    except SyntaxError:
        return (), ()
    module = tuple(stmt for stmt in tree.body if isinstance(stmt, (ast.Import, ast.ImportFrom))
                   or isinstance(stmt, (ast.FunctionDef, ast.ClassDef)) and not stmt.decorator_list
                   or isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                   and isinstance(stmt.targets[0], ast.Name))
    owner = next((cls for cls in ast.walk(tree) if isinstance(cls, ast.ClassDef) and any(
        isinstance(f, ast.FunctionDef) and f.name == method.name and f.lineno == method.lineno
        for f in cls.body)), None)
    siblings = () if owner is None else tuple(
        f for f in owner.body if isinstance(f, ast.FunctionDef) and f.lineno != method.lineno)
    return module, siblings


def _imported(body: Sequence[ast.stmt]) -> dict[str, str]:
    names: dict[str, str] = {}
    for stmt in body:
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                # ``import torch.nn`` binds ``torch``; ``import torch.nn as nn`` binds the submodule
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else alias.name.split(".")[0]
        elif isinstance(stmt, ast.ImportFrom) and stmt.module and not stmt.level:
            for alias in stmt.names:
                names[alias.asname or alias.name] = f"{stmt.module}.{alias.name}"
    return names


@dataclass(frozen=True)
class ExecutorGolden:
    """A registered executor's ``__call__``, with the names its file binds at its top level."""

    method: ast.FunctionDef = field(compare=False, repr=False)
    where: str                          # the executor's file as the case names it
    module: tuple[ast.stmt, ...] = field(default=(), compare=False, repr=False)
    methods: tuple[ast.FunctionDef, ...] = field(default=(), compare=False, repr=False)

    def evaluate(self, arguments: Sequence[GoldenArgument], api_name: str) -> tuple[GoldenOutput, ...] | str:
        """The golden's result tensors for the case's inputs (a named input in ``input_data.kwargs``,
        an unnamed one in ``input_data.args``); or why not, naming the refused construct's line."""
        try:
            torch = importlib.import_module("torch")
        except ImportError:
            return NEEDS_TORCH
        try:
            kwargs = {a.name: argument_value(torch, a) for a in arguments if a.name}
            args = [argument_value(torch, a) for a in arguments if not a.name]
        except LookupError as exc:
            return f"the golden's input is no torch tensor ({exc})"
        evaluator = _Evaluator(torch, self.module)
        try:
            with torch.device("meta"):     # a tensor the golden builds holds no storage either
                executor = _Instance("the executor", {f.name: f for f in self.methods},
                                     {"device": GOLDEN_DEVICE, "api_name": api_name})
                result = evaluator.call_method(self.method, executor, _InputData(kwargs, args))
        except _Refused as exc:
            return f"the golden is not evaluated: {self.where}:{exc.line} {exc.what}"
        except RecursionError:
            return f"the golden is not evaluated: {self.where}:{self.method.lineno} nests deeper than Python's stack"
        except NotEvaluated as exc:
            return f"the golden is not evaluated: {self.where}: {exc}"
        return result_outputs(torch, result, f"the golden ({self.where}:{self.method.lineno})")


@functools.lru_cache(maxsize=1)
def _tensor_operations() -> frozenset[Any]:
    """The functions and tensor methods torch lists as operations on tensors (``torch.overrides``):
    no file, process, seed or global setting among them."""
    from torch.overrides import get_overridable_functions
    return frozenset(f for fs in get_overridable_functions().values() for f in fs)


class _Evaluator:
    def __init__(self, torch: Any, module: Sequence[ast.stmt]):
        self.torch = torch
        self.globals: dict[str, Any] = {}
        for stmt in module:      # in the file's order: a later binding of a name stands
            if isinstance(stmt, ast.FunctionDef):
                self.globals[stmt.name] = _LocalFunction(stmt, self.globals)
            elif isinstance(stmt, ast.ClassDef):
                self.globals[stmt.name] = _FileClass(stmt)
            elif isinstance(stmt, ast.Assign):
                self.globals[stmt.targets[0].id] = _Deferred(stmt.value)
            else:
                self.globals.update({name: self._module(path) for name, path in _imported([stmt]).items()})
        self.depth = 0
        self.input_data: _InputData | None = None
        self.tensor_operations = _tensor_operations()

    def _module(self, path: str) -> Any:
        """What an imported name stands for: a torch namespace or object, else a foreign module."""
        if path != "torch" and not path.startswith("torch."):
            return _Foreign(path)
        value: Any = self.torch
        for part in path.split(".")[1:]:
            value = getattr(value, part, None)
            if value is None:
                return _Foreign(path)
        return value

    # functions ----------------------------------------------------------------------------------
    def call_method(self, method: ast.FunctionDef, executor: _Instance, input_data: _InputData) -> Any:
        names = [a.arg for a in method.args.posonlyargs + method.args.args]
        if len(names) < 2:
            raise _Refused(method.lineno, f"takes {ast.unparse(method.args)!r}, not (self, input_data, ...)")
        self.input_data = input_data
        scope: dict[str, Any] = {names[0]: executor, names[1]: input_data}
        if len(names) > 2:
            scope[names[2]] = True          # with_output: the framework wants the result
        return self._run(method.body, scope)

    def _run(self, body: list[ast.stmt], scope: dict[str, Any]) -> Any:
        try:
            self._block(body, scope)
        except _Returned as returned:
            return returned.value
        return None

    def _call_local(self, function: _LocalFunction, args: list[Any], kwargs: dict[str, Any], line: int) -> Any:
        node = function.node
        if node.args.vararg or node.args.kwarg or node.args.kwonlyargs or node.args.posonlyargs:
            raise _Refused(line, f"calls {node.name!r}, whose parameters this reader does not bind")
        names = [a.arg for a in node.args.args]
        if len(args) > len(names) or set(kwargs) - set(names):
            raise _Refused(line, f"calls {node.name!r} with arguments it does not take")
        bound = dict(zip(names, args)) | kwargs
        given = function.defaults if function.defaults is not None else tuple(
            self._expr(d, function.scope) for d in node.args.defaults)
        defaults = dict(zip(names[len(names) - len(given):], given))
        missing = [n for n in names if n not in bound and n not in defaults]
        if missing:
            raise _Refused(line, f"calls {node.name!r} without {', '.join(missing)}")
        if self.depth >= _DEPTH:
            raise _Refused(line, f"calls {node.name!r} {_DEPTH} deep")
        self.depth += 1
        try:
            return self._run(node.body, {**function.scope, **defaults, **bound})
        finally:
            self.depth -= 1

    # statements ---------------------------------------------------------------------------------
    def _block(self, body: list[ast.stmt], scope: dict[str, Any]) -> None:
        for stmt in body:
            self._stmt(stmt, scope)

    def _stmt(self, stmt: ast.stmt, scope: dict[str, Any]) -> None:
        line = stmt.lineno
        if isinstance(stmt, ast.Pass) or isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            return
        if isinstance(stmt, ast.Expr):
            self._expr(stmt.value, scope)
        elif isinstance(stmt, ast.Return):
            raise _Returned(None if stmt.value is None else self._expr(stmt.value, scope))
        elif isinstance(stmt, ast.If):
            self._block(stmt.body if self._truth(self._expr(stmt.test, scope), stmt.test) else stmt.orelse, scope)
        elif isinstance(stmt, ast.Assign):
            value = self._expr(stmt.value, scope)
            for target in stmt.targets:
                self._assign(target, value, scope, line)
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            self._assign(stmt.target, self._expr(stmt.value, scope), scope, line)
        elif isinstance(stmt, ast.AugAssign) and isinstance(stmt.target, ast.Name):
            current = self._expr(stmt.target, scope)
            self._assign(stmt.target, self._binary(stmt.op, current, self._expr(stmt.value, scope), stmt), scope, line)
        elif isinstance(stmt, ast.FunctionDef) and not stmt.decorator_list:
            defaults = tuple(self._expr(d, scope) for d in stmt.args.defaults)
            scope[stmt.name] = _LocalFunction(stmt, scope, defaults)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            scope.update({name: self._module(path) for name, path in _imported([stmt]).items()})
        elif isinstance(stmt, ast.Try) and not stmt.finalbody:
            # a handler runs on an exception, and every exception here is a refusal: the body goes on
            self._block(stmt.body, scope)
            self._block(stmt.orelse, scope)
        elif isinstance(stmt, ast.Delete) and all(isinstance(t, ast.Name) for t in stmt.targets):
            for target in stmt.targets:
                scope.pop(target.id, None)
        else:
            raise _Refused(line, f"runs {ast.unparse(stmt).splitlines()[0]!r}")

    def _assign(self, target: ast.expr, value: Any, scope: dict[str, Any], line: int) -> None:
        if isinstance(target, ast.Name):
            scope[target.id] = value
            return
        if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
            if self._is_tensor(value) or not isinstance(value, (tuple, list)) or len(value) != len(target.elts):
                raise _Refused(line, f"unpacks {ast.unparse(target)!r} from a {type(value).__name__}")
            for element, item in zip(target.elts, value):
                self._assign(element, item, scope, line)
            return
        if isinstance(target, ast.Attribute):
            holder = self._expr(target.value, scope)
            if isinstance(holder, _Instance):
                holder.known[target.attr] = value
                return
            if isinstance(holder, _InputData) and target.attr in holder.fields:
                holder.fields[target.attr] = value
                return
        if isinstance(target, ast.Subscript):
            holder = self._expr(target.value, scope)
            key = self._expr(target.slice, scope)
            if isinstance(holder, dict) and is_plain(key) or isinstance(holder, list) and type(key) is int:
                try:
                    holder[key] = value
                except IndexError:
                    raise _Refused(line, f"writes {ast.unparse(target)!r} out of range") from None
                return
        raise _Refused(line, f"assigns to {ast.unparse(target)!r}")

    # expressions --------------------------------------------------------------------------------
    def _is_tensor(self, value: Any) -> bool:
        return isinstance(value, self.torch.Tensor)

    def _known(self, value: Any) -> bool:
        """A value known here (no tensor in it): what a test or a plain operation may use."""
        if isinstance(value, (self.torch.dtype, self.torch.Size, self.torch.device, slice)) or value is Ellipsis:
            return True
        if isinstance(value, (list, tuple)):
            return all(self._known(v) for v in value)
        if isinstance(value, dict):
            return all(self._known(k) and self._known(v) for k, v in value.items())
        return is_plain(value)

    def _truth(self, value: Any, node: ast.expr) -> bool:
        if not self._known(value):
            raise _Refused(node.lineno, f"tests {ast.unparse(node)!r}, which needs values")
        return bool(value)

    def _expr(self, node: ast.expr, scope: dict[str, Any]) -> Any:
        try:
            return self._eval(node, scope)
        except (NotEvaluated, _Returned):
            raise
        except (ArithmeticError, TypeError, ValueError, IndexError, KeyError, AttributeError) as exc:
            raise _Refused(node.lineno, f"evaluates {ast.unparse(node)!r}, which raises "
                                        f"{type(exc).__name__}") from None

    def _eval(self, node: ast.expr, scope: dict[str, Any]) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self._name(node, scope)
        if isinstance(node, (ast.List, ast.Tuple)):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                raise _Refused(node.lineno, f"unpacks into {ast.unparse(node)!r}")
            items = [self._expr(e, scope) for e in node.elts]
            return items if isinstance(node, ast.List) else tuple(items)
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise _Refused(node.lineno, f"unpacks into {ast.unparse(node)!r}")
            return {self._expr(k, scope): self._expr(v, scope) for k, v in zip(node.keys, node.values)}
        if isinstance(node, ast.Subscript):
            return self._subscript(node, scope)
        if isinstance(node, ast.Slice):
            ends = [None if e is None else self._expr(e, scope) for e in (node.lower, node.upper, node.step)]
            if not all(e is None or type(e) is int for e in ends):
                raise _Refused(node.lineno, f"slices by {ast.unparse(node)!r}")
            return slice(*ends)
        if isinstance(node, ast.Compare):
            return self._compare(node, scope)
        if isinstance(node, ast.BoolOp):
            value = None
            for operand in node.values:
                value = self._expr(operand, scope)
                if self._truth(value, operand) == isinstance(node.op, ast.Or):
                    return value          # Python's short circuit: the operand itself
            return value
        if isinstance(node, ast.UnaryOp):
            value = self._expr(node.operand, scope)
            if isinstance(node.op, ast.Not):
                return not self._truth(value, node.operand)
            if not (self._is_tensor(value) or isinstance(value, (int, float))):
                raise _Refused(node.lineno, f"applies {ast.unparse(node)!r} to no number")
            return {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert}[type(node.op)](value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return self._binary(node.op, self._expr(node.left, scope), self._expr(node.right, scope), node)
        if isinstance(node, ast.IfExp):
            return self._expr(node.body if self._truth(self._expr(node.test, scope), node.test) else node.orelse, scope)
        if isinstance(node, ast.Attribute):
            return self._attribute(self._expr(node.value, scope), node)
        if isinstance(node, ast.Call):
            return self._call(node, scope)
        if isinstance(node, ast.ListComp) and len(node.generators) == 1:
            return self._list_comprehension(node, scope)
        raise _Refused(node.lineno, f"evaluates {ast.unparse(node)!r}")

    def _list_comprehension(self, node: ast.ListComp, scope: dict[str, Any]) -> list[Any]:
        """``[e for x in known if c]``: a loop over values known here (a shape, a range), never a tensor's."""
        loop = node.generators[0]
        items = self._expr(loop.iter, scope)
        if loop.is_async or self._is_tensor(items) or not isinstance(items, (list, tuple)) or not self._known(items):
            raise _Refused(node.lineno, f"loops in {ast.unparse(node)!r} over no known list")
        out = []
        for item in items:
            inner = dict(scope)        # the loop's names stay in the comprehension, as in Python
            self._assign(loop.target, item, inner, node.lineno)
            if all(self._truth(self._expr(test, inner), test) for test in loop.ifs):
                out.append(self._expr(node.elt, inner))
        return out

    def _name(self, node: ast.Name, scope: dict[str, Any]) -> Any:
        if node.id in scope and not isinstance(scope[node.id], _Deferred):
            return scope[node.id]
        if node.id in self.globals:
            if isinstance(self.globals[node.id], _Deferred):
                # out of the globals while evaluated: an assignment reading its own name is refused
                deferred = self.globals.pop(node.id)
                self.globals[node.id] = self._expr(deferred.value, self.globals)
            return self.globals[node.id]
        if node.id in _BUILTINS or node.id == "eval":
            return getattr(builtins, node.id)
        if hasattr(builtins, node.id):
            raise _Refused(node.lineno, f"uses the builtin {node.id!r}, outside this reader's subset")
        raise _Refused(node.lineno, f"reads {node.id!r}, which neither the method nor the file's top level sets")

    def _binary(self, op: ast.operator, left: Any, right: Any, node: ast.AST) -> Any:
        numbers = all(isinstance(v, (int, float)) for v in (left, right))
        tensors = any(self._is_tensor(v) for v in (left, right)) and all(
            self._is_tensor(v) or isinstance(v, (int, float)) for v in (left, right))
        sequences = isinstance(op, (ast.Add, ast.Mult)) and self._known(left) and self._known(right) and \
            any(isinstance(v, (list, tuple)) for v in (left, right))
        if not (numbers or tensors or sequences):
            raise _Refused(node.lineno, f"computes {ast.unparse(node)!r} on {type(left).__name__} and "
                                        f"{type(right).__name__}")
        if not tensors and _too_large(op, left, right):
            raise _Refused(node.lineno, f"computes {ast.unparse(node)!r}, a value past this reader's bound")
        return self._torch_call(_OPERATORS[type(op)], [left, right], {}, node) if tensors else \
            _OPERATORS[type(op)](left, right)

    def _compare(self, node: ast.Compare, scope: dict[str, Any]) -> Any:
        left = self._expr(node.left, scope)
        result: Any = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self._expr(right_node, scope)
            if type(op) in _IDENTITY:
                step = _IDENTITY[type(op)](left, right)
            elif self._known(left) and self._known(right) and type(op) in {**COMPARISONS, **_MEMBERSHIP}:
                step = {**COMPARISONS, **_MEMBERSHIP}[type(op)](left, right)
            elif type(op) in COMPARISONS and len(node.ops) == 1 and any(self._is_tensor(v) for v in (left, right)):
                return self._torch_call(COMPARISONS[type(op)], [left, right], {}, node)   # a tensor of bools
            else:
                raise _Refused(node.lineno, f"compares {ast.unparse(node)!r}")
            if not step:
                return False
            result, left = step, right
        return result

    def _subscript(self, node: ast.Subscript, scope: dict[str, Any]) -> Any:
        holder = self._expr(node.value, scope)
        key = self._expr(node.slice, scope)
        if isinstance(holder, dict) and self._known(key):
            if key not in holder:
                given = self.input_data is not None and holder is self.input_data.fields["kwargs"]
                raise _Refused(node.lineno, f"reads {ast.unparse(node)!r}, " + (
                    "which the case does not give" if given else "a key the dict does not hold"))
            return holder[key]
        if isinstance(holder, (list, tuple)) and (type(key) is int or isinstance(key, slice)):
            return holder[key]
        if self._is_tensor(holder) and self._known(key):
            return self._torch_call(operator.getitem, [holder, key], {}, node)
        raise _Refused(node.lineno, f"indexes {ast.unparse(node)!r}")

    def _attribute(self, holder: Any, node: ast.Attribute) -> Any:
        return self._member(holder, node.attr, node.lineno, ast.unparse(node))

    def _member(self, holder: Any, name: str, line: int, text: str) -> Any:
        if isinstance(holder, _Instance):
            if name in holder.known:
                return holder.known[name]
            if name in holder.methods:
                return _BoundMethod(_LocalFunction(holder.methods[name], self.globals), holder)
            raise _Refused(line, f"reads {text!r}, which {holder.name}'s class neither sets nor defines "
                                 f"(the framework's)")
        if isinstance(holder, _InputData) and name in holder.fields:
            return holder.fields[name]
        if self._is_tensor(holder) and name in _TENSOR_ATTRIBUTES:
            return getattr(holder, name)
        if isinstance(holder, self.torch.dtype) and name in _DTYPE_ATTRIBUTES:
            return getattr(holder, name)
        if self._is_torch_namespace(holder) and not name.startswith("__"):
            value = getattr(holder, name)
            return value if not isinstance(value, types.ModuleType) or self._is_torch_namespace(value) \
                else _Foreign(value.__name__)
        if isinstance(holder, _Foreign):
            raise _Refused(line, f"uses {text!r} ({holder.module}, no torch)")
        raise _Refused(line, f"reads {text!r}")

    @staticmethod
    def _is_torch_namespace(value: Any) -> bool:
        return isinstance(value, types.ModuleType) and (value.__name__ == "torch" or value.__name__.startswith("torch."))

    # calls --------------------------------------------------------------------------------------
    def _arguments(self, node: ast.Call, scope: dict[str, Any]) -> tuple[list[Any], dict[str, Any]]:
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                value = self._expr(a.value, scope)
                if not isinstance(value, (list, tuple)):
                    raise _Refused(node.lineno, f"unpacks {ast.unparse(a)!r}, no list")
                args.extend(value)
            else:
                args.append(self._expr(a, scope))
        kwargs: dict[str, Any] = {}
        for k in node.keywords:
            value = self._expr(k.value, scope)
            if k.arg is not None:
                kwargs[k.arg] = value
            elif isinstance(value, dict) and all(isinstance(key, str) for key in value):
                kwargs.update(value)
            else:
                raise _Refused(node.lineno, f"unpacks {ast.unparse(k)!r}, no dict")
        return args, kwargs

    def _call(self, node: ast.Call, scope: dict[str, Any]) -> Any:
        text = ast.unparse(node.func)
        if isinstance(node.func, ast.Attribute):
            if node.func.attr == "__init__" and self._is_super(node.func.value, scope):
                return None       # torch.nn.Module's own set-up: nothing the result depends on
            holder = self._expr(node.func.value, scope)
            if self._is_tensor(holder):
                args, kwargs = self._arguments(node, scope)
                return self._tensor_method(holder, node.func.attr, args, kwargs, node)
            if isinstance(holder, (dict, list)):
                args, kwargs = self._arguments(node, scope)
                return self._container_method(holder, node.func.attr, args, kwargs, node)
            function = self._attribute(holder, node.func)
        else:
            function = self._expr(node.func, scope)
        args, kwargs = self._arguments(node, scope)
        if isinstance(function, _LocalFunction):
            return self._call_local(function, args, kwargs, node.lineno)
        if isinstance(function, _BoundMethod):
            return self._call_local(function.function, [function.instance, *args], kwargs, node.lineno)
        if isinstance(function, _FileClass):
            return self._build(function, args, kwargs, node)
        if isinstance(function, _Instance) and "forward" in function.methods and function.name != "the executor":
            forward = _LocalFunction(function.methods["forward"], self.globals)
            return self._call_local(forward, [function, *args], kwargs, node.lineno)
        if function is builtins.eval:
            return self._eval_api_name(node, args, kwargs, scope)
        if any(function is getattr(builtins, name) for name in _BUILTINS):
            return self._builtin(function, args, kwargs, node)
        if isinstance(function, type) and issubclass(function, self.torch.nn.Module):
            if not function.__module__.startswith("torch.nn.modules"):
                raise _Refused(node.lineno, f"builds {text!r}, no module of torch.nn")
            return self._torch_call(function, args, kwargs, node)
        if isinstance(function, self.torch.nn.Module):
            return self._torch_call(function, args, kwargs, node)
        if self._is_tensor_operation(function):
            return self._torch_call(function, args, kwargs, node)
        if isinstance(function, _Foreign):
            raise _Refused(node.lineno, f"calls {text!r} ({function.module}, no torch)")
        raise _Refused(node.lineno, f"calls {text!r}, which is no tensor operation of torch")

    def _is_super(self, node: ast.expr, scope: dict[str, Any]) -> bool:
        """``super()`` or ``super(Cls, self)`` inside a method of a class of the file."""
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" \
            and "super" not in scope and not node.keywords and len(node.args) in (0, 2)

    def _build(self, cls: _FileClass, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> _Instance:
        """A torch.nn.Module subclass of the file, built by its ``__init__`` (its ``forward`` is what
        calling it runs); any other class of the file is refused."""
        bases = [self._expr(b, self.globals) for b in cls.node.bases]
        if not bases or any(b is not self.torch.nn.Module for b in bases) or cls.node.keywords:
            raise _Refused(node.lineno, f"builds {cls.node.name!r}, a class of the file that is no torch.nn.Module")
        methods = {f.name: f for f in cls.node.body if isinstance(f, ast.FunctionDef) and not f.decorator_list}
        instance = _Instance(f"{cls.node.name!r}", methods, {})
        if "__init__" in methods:
            self._call_local(_LocalFunction(methods["__init__"], self.globals), [instance, *args], kwargs, node.lineno)
        return instance

    def _is_tensor_operation(self, function: Any) -> bool:
        torch = self.torch
        if isinstance(function, torch._ops.OpOverloadPacket):
            return function._qualified_op_name.startswith("aten::")
        if isinstance(function, torch._ops.OpOverload):
            return function.namespace == "aten"
        try:
            if function in self.tensor_operations:
                return True
        except TypeError:      # unhashable: no function
            return False
        name = getattr(function, "__name__", "")
        if getattr(torch, name, None) is not function:
            return False
        return name in _TENSOR_FACTORIES or hasattr(torch.ops.aten, name)

    def _eval_api_name(self, node: ast.Call, args: list[Any], kwargs: dict[str, Any], scope: dict[str, Any]) -> Any:
        """``eval(self.api_name)``: the torch object the case's ``name`` spells (read, not evaluated)."""
        if kwargs or len(args) != 1 or not isinstance(args[0], str) or ast.unparse(node.args[0]) != "self.api_name":
            raise _Refused(node.lineno, f"calls {ast.unparse(node)!r}")
        path = args[0]
        if not path.startswith("torch.") or not all(p.isidentifier() for p in path.split(".")):
            raise _Refused(node.lineno, f"evaluates the case's name {path!r}, no torch path")
        value: Any = self.torch
        for part in path.split(".")[1:]:
            value = self._member(value, part, node.lineno, path)
        return value

    def _builtin(self, function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        name = function.__name__
        if kwargs:
            raise _Refused(node.lineno, f"calls {ast.unparse(node.func)!r}")
        if name == "len" and len(args) == 1 and (self._is_tensor(args[0]) or isinstance(args[0], (list, tuple, dict))):
            return len(args[0])
        if not all(self._known(a) for a in args):
            raise _Refused(node.lineno, f"calls {ast.unparse(node)!r} on a tensor")
        if name == "range":
            if len(range(*args)) > _MOST_ITEMS:
                raise _Refused(node.lineno, f"builds {ast.unparse(node)!r}, longer than this reader's bound")
            return list(range(*args))
        return function(*args)

    def _container_method(self, holder: Any, name: str, args: list[Any], kwargs: dict[str, Any],
                          node: ast.Call) -> Any:
        if isinstance(holder, dict) and name == "get" and not kwargs and 1 <= len(args) <= 2:
            return holder.get(*args)
        if isinstance(holder, dict) and name in ("keys", "values", "items") and not args and not kwargs:
            return list(getattr(holder, name)())
        if isinstance(holder, list) and name == "append" and len(args) == 1 and not kwargs:
            holder.append(args[0])
            return None
        raise _Refused(node.lineno, f"calls {ast.unparse(node.func)!r}")

    def _tensor_method(self, tensor: Any, name: str, args: list[Any], kwargs: dict[str, Any], node: ast.Call) -> Any:
        if name in _DEVICE_MOVES and not args:
            return tensor
        if name == "to":       # the golden's device is not judged: only a dtype moves the result
            args = [a for a in args if not (isinstance(a, (str, self.torch.device)))]
            kwargs = {k: v for k, v in kwargs.items() if k not in ("device", "non_blocking", "copy")}
            if not args and not kwargs:
                return tensor
        method = getattr(self.torch.Tensor, name, None)
        if name in _VALUE_METHODS or method is None or method not in self.tensor_operations:
            raise _Refused(node.lineno, f"calls {ast.unparse(node.func)!r}, which needs values or is no tensor operation")
        return self._torch_call(getattr(tensor, name), args, kwargs, node)

    def _torch_call(self, function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any], node: ast.AST) -> Any:
        """A call into torch on meta tensors; what torch raises says why the golden is not known."""
        try:
            result = function(*args, **kwargs)
            if _operator_name(function) in _CPU_DTYPE_OPERATORS and self._is_tensor(result):
                result = result.to(self._cpu_dtype(function, args, kwargs))
            return result
        except Exception as exc:   # noqa: BLE001 - any failure in torch leaves the golden unknown, said why
            message = " ".join(str(exc).split())[:100]
            raise _Refused(node.lineno, f"{ast.unparse(node)!r} is not evaluated by torch on its meta device "
                                        f"({type(exc).__name__}: {message})") from None

    def _cpu_dtype(self, function: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
        """The dtype the CPU kernel gives, from the same call on one-element CPU tensors of the
        same dtypes and ranks (the golden runs on the CPU)."""
        def on_cpu(value: Any) -> Any:
            if self._is_tensor(value):
                return self.torch.zeros((1,) * value.dim(), dtype=value.dtype, device="cpu")
            return value
        return function(*[on_cpu(a) for a in args], **{k: on_cpu(v) for k, v in kwargs.items()}).dtype
