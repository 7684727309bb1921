"""The expression language of the value tables, evaluated with plain NumPy.

A value entry's ``function`` is a Python expression over the API's parameter names: numbers,
``+ - * /``, comparisons, ``& | ^ ~``, and calls of the names listed in the vocabulary
(``spec/data/values/functions.json``): NumPy functions by their NumPy name and the special functions
below. Nothing here names an API: the expressions and the vocabulary are data.

Three evaluations:

- ``evaluate_values``: the function in float64 (floating compute dtypes) or in the compute dtype
  itself (integers and BOOL, whose arithmetic wraps as the device's does);
- ``evaluate_bound``: the float64 value and, per element, a bound on how far any implementation
  inside the arithmetic model of the rounded class can be from it (forward error analysis of the
  expression in its order, each operation rounded in the compute dtype or in float32,
  division and square root within one ulp of the correctly rounded result, constants held in
  either type: spec/surface_models.py DIVISION_AND_ROOT);
- large inputs are evaluated in blocks, so that the float64 temporaries stay in cache.

float64 suffices for every function here: the transcendental class is judged against tolerances
of at least 2^-13 relative, and float64 evaluation of these NumPy functions errs by a few 2^-53; a
single correctly rounded operation (add, multiply, divide, sqrt) of float32 or narrower operands
computed in float64 and rounded once is the correctly rounded result (53 >= 2*24 + 2), so no
result of the rounded class needs more than float64 either.
"""
from __future__ import annotations

import ast
import json
import keyword
import math
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.surface_quotients import QUOTIENT_HELPERS
from aclnn_conformance.oracle.surface_special import log_gamma, psi

VOCABULARY_FILE = Path(__file__).resolve().parents[1] / "spec" / "data" / "values" / "functions.json"
VOCABULARY_SCHEMA = "aclnn-conformance/value-functions/1"
BLOCK = 1 << 14          # elements per block of a large evaluation
_SQRT_PI = math.pi ** 0.5


class _Primitives:
    """The NumPy functions this module computes with, by role: their NumPy names are data of the
    vocabulary (``primitives``), as every function name of the value tables is."""

    def __getattr__(self, role: str) -> Any:
        if role.startswith("__"):
            raise AttributeError(role)
        found = getattr(np, _primitive_names()[role])
        setattr(self, role, found)
        return found


@lru_cache(maxsize=None)
def _primitive_names() -> dict[str, str]:
    return json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))["primitives"]


P = _Primitives()


# ---- special functions that NumPy lacks (vectorized, float64) ----

def error_function(x: np.ndarray) -> np.ndarray:
    """erf in float64: the all-positive series 2/sqrt(pi) e^{-x^2} sum 2^n x^{2n+1}/(2n+1)!!
    below 3 (no cancellation), 1 - the continued fraction of erfc above."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.absolute(x)
    small = ax < 3.0
    out = np.where(ax >= 3.0, 1.0 - _erfc_continued_fraction(np.where(small, 3.0, ax)), 0.0)
    xs = np.where(small, ax, 0.0)
    term = xs.copy()
    total = xs.copy()
    x2 = xs * xs
    for n in range(1, 80):
        term = term * (2.0 * x2) / (2 * n + 1)
        total = total + term
    out = np.where(small, 2.0 / _SQRT_PI * P.exponential(-x2) * total, out)
    out = np.where(np.isnan(x), np.nan, out)
    return np.copysign(out, x)


def _erfc_continued_fraction(x: np.ndarray) -> np.ndarray:
    """erfc(x) for x >= 3: e^{-x^2}/sqrt(pi) * 1/(x + 1/2/(x + 1/(x + 3/2/(x + ...)))),
    evaluated from the tail (60 levels: converged to float64 from x = 3 on)."""
    x = np.asarray(x, dtype=np.float64)
    tail = np.zeros_like(x)
    for k in range(60, 0, -1):
        tail = (k / 2.0) / (x + tail)
    with np.errstate(over="ignore", under="ignore"):
        return P.exponential(-x * x) / _SQRT_PI / (x + tail)


def complementary_error_function(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    big = x >= 3.0
    cf = _erfc_continued_fraction(np.where(big, x, 3.0))
    return np.where(big, cf, 1.0 - error_function(np.where(big, 0.0, x)))


def inverse_error_function(y: np.ndarray) -> np.ndarray:
    """erfinv in float64: Giles' single-precision starting value, then Newton steps on erf
    (quadratic convergence: three steps reach float64 accuracy)."""
    y = np.asarray(y, dtype=np.float64)
    inside = np.absolute(y) < 1.0
    yy = np.where(inside, y, 0.0)
    w = -P.logarithm((1.0 - yy) * (1.0 + yy))
    central = w < 5.0
    wc = w - 2.5
    pc = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
              -0.00417768164, 0.246640727, 1.50140941):
        pc = c + pc * wc
    wt = P.square_root(P.larger(w, 5.0)) - 3.0
    pt = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
              0.00943887047, 1.00167406, 2.83297682):
        pt = c + pt * wt
    x = np.where(central, pc, pt) * yy
    for _ in range(3):
        x = x - (error_function(x) - yy) / (2.0 / _SQRT_PI * P.exponential(-x * x))
    with np.errstate(invalid="ignore"):
        edge = np.where(np.absolute(y) == 1.0, np.copysign(np.inf, y), np.nan)
    return np.where(inside, x, edge)


HELPERS: dict[str, Callable[..., np.ndarray]] = {
    f.__name__: f for f in (error_function, complementary_error_function, inverse_error_function)}
# where floor division, remainder and shifts leave a result open (an entry's open_where)
HELPERS.update(QUOTIENT_HELPERS)
# the gamma family (oracle/surface_special.py)
HELPERS.update({f.__name__: f for f in (log_gamma, psi)})


# ---- the vocabulary ----

@dataclass(frozen=True)
class Word:
    name: str                 # as written in a value entry's function
    implementation: str       # "numpy:<name>" or "helper:<name>"
    bound: str                # how error propagates through it: pass | where | root | fresh | none
    torch: str = ""           # the torch function of the same name, for the torch backend's expressions
    odd_at_zero: bool = False  # f(+-0) = +-0, fixed by IEEE 754 (the vocabulary cites where)

    def callable(self) -> Callable[..., Any]:
        kind, _, target = self.implementation.partition(":")
        if kind == "helper":
            return HELPERS[target]
        return getattr(np, target)


@lru_cache(maxsize=None)
def vocabulary() -> dict[str, Word]:
    doc = json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))
    if doc.get("schema") != VOCABULARY_SCHEMA:
        raise ValueError(f"{VOCABULARY_FILE}: schema {doc.get('schema')!r}")
    return {w["name"]: Word(w["name"], w["implementation"], w["bound"], w.get("torch", ""),
                            bool(w.get("odd_at_zero", False)))
            for w in doc["words"]}


def zero_sign_fixed(expression: str) -> bool:
    """Whether IEEE 754 fixes the sign of every zero the function gives, whatever a correct
    implementation's formula: a product or quotient of operands (the exclusive or of their signs),
    a negation, or a word odd at zero, each applied directly to the operands. Anything else (a sum
    of zeros of both signs, a select, max/min, a formula a device may rewrite) leaves the sign of a
    zero open, and it is not judged."""
    node = parse(expression)

    def operand(n: ast.AST) -> bool:
        return isinstance(n, (ast.Name, ast.Constant))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        return operand(node.left) and operand(node.right)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return operand(node.operand)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and len(node.args) == 1
            and vocabulary()[node.func.id].odd_at_zero and operand(node.args[0]))


@lru_cache(maxsize=None)
def divides_or_roots(expression: str) -> bool:
    """Whether the expression divides or takes a square root (where the rounded class's model
    allows a result one ulp from the correctly rounded one)."""
    for node in ast.walk(parse(expression)):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            return True
        if isinstance(node, ast.Call) and vocabulary()[node.func.id].bound == "root":
            return True
    return False


def parse(expression: str) -> ast.expr:
    tree = ast.parse(expression, mode="eval").body
    words = vocabulary()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in words:
                raise ValueError(f"{expression!r}: {ast.unparse(node.func)} is not in the vocabulary")
        elif not isinstance(node, (ast.Name, ast.Constant, ast.BinOp, ast.UnaryOp, ast.Compare,
                                   ast.IfExp, ast.keyword, ast.Load, ast.operator, ast.unaryop,
                                   ast.cmpop, ast.Call)):
            raise ValueError(f"{expression!r}: {type(node).__name__} is not allowed")
    return tree


def names_of(expression: str) -> set[str]:
    """The parameter names an expression reads (``lambda_`` reads the parameter ``lambda``)."""
    words = vocabulary()
    return {parameter_name(n.id) for n in ast.walk(parse(expression))
            if isinstance(n, ast.Name) and n.id not in words}


def expression_name(parameter: str) -> str:
    """The name an expression reads a parameter by: a Python keyword (``lambda``) cannot be a name
    of an expression, so it takes a trailing underscore (``lambda_``), PEP 8's spelling."""
    return parameter + "_" if keyword.iskeyword(parameter) else parameter


def parameter_name(name: str) -> str:
    """The parameter an expression's name reads (the inverse of ``expression_name``)."""
    return name[:-1] if name.endswith("_") and keyword.iskeyword(name[:-1]) else name


# ---- plain evaluation ----

_BINARY = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
           ast.Div: lambda a, b: a / b, ast.BitAnd: lambda a, b: a & b,
           ast.BitOr: lambda a, b: a | b, ast.BitXor: lambda a, b: a ^ b}
_COMPARE = {ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b, ast.Lt: lambda a, b: a < b,
            ast.LtE: lambda a, b: a <= b, ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b}


def _constant(value: Any, like: np.dtype) -> Any:
    """A literal in the type of the evaluation (float64, a float compute dtype held as such, or
    the integer compute dtype)."""
    if like.kind in "iub" and isinstance(value, (int, bool)) and not isinstance(value, float):
        return like.type(value) if like.kind != "b" else bool(value)
    if like.kind == "f" or like == np.dtype(ml_dtypes.bfloat16):
        return like.type(value)
    return np.float64(value)


def _eval(node: ast.expr, env: Mapping[str, Any], like: np.dtype) -> Any:
    if isinstance(node, ast.Constant):
        return _constant(node.value, like)
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        if node.id in ("nan", "inf"):
            return np.float64(node.id)
        raise KeyError(f"no value for {node.id!r}")
    if isinstance(node, ast.BinOp):
        return _BINARY[type(node.op)](_eval(node.left, env, like), _eval(node.right, env, like))
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand, env, like)
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.Invert):
            return ~value
        return value
    if isinstance(node, ast.Compare):
        left = _eval(node.left, env, like)
        result = None
        for op, comparator in zip(node.ops, node.comparators):
            right = _eval(comparator, env, like)
            step = _COMPARE[type(op)](left, right)
            result = step if result is None else result & step
            left = right
        return result
    if isinstance(node, ast.IfExp):
        return np.where(_eval(node.test, env, like), _eval(node.body, env, like),
                        _eval(node.orelse, env, like))
    if isinstance(node, ast.Call):
        word = vocabulary()[node.func.id]
        args = [_eval(a, env, like) for a in node.args]
        kwargs = {k.arg: _eval(k.value, env, like) for k in node.keywords}
        return word.callable()(*args, **kwargs)
    raise ValueError(f"cannot evaluate {ast.unparse(node)}")


def _widens(value: Any, like: np.dtype) -> bool:
    """Whether an operand is widened to the evaluation type (float inputs to float64)."""
    return isinstance(value, np.ndarray) and value.dtype != like and like == np.dtype(np.float64) \
        and value.dtype.kind in "fV" and value.dtype != np.dtype(np.bool_)


def _in(value: Any, like: np.dtype) -> Any:
    """An operand in the evaluation type (float inputs widened to float64 as they are read)."""
    return value.astype(like) if _widens(value, like) else value


def _blocks(env: Mapping[str, Any], shape: tuple[int, ...], like: np.dtype):
    """Slices of the flattened broadcast shape, and the environment restricted to each (widened
    block by block into one reused buffer per operand, so that the float64 copies stay in cache
    and no block allocates; each block is consumed before the next is yielded)."""
    size = int(np.prod(shape, dtype=np.int64))
    arrays = {k: np.broadcast_to(v, shape).reshape(-1) if isinstance(v, np.ndarray) and v.ndim
              else v for k, v in env.items()}
    widened = {k: np.empty(min(BLOCK, size), like) for k, v in arrays.items()
               if isinstance(v, np.ndarray) and v.ndim and _widens(v, like)}
    for start in range(0, size, BLOCK):
        stop = min(start + BLOCK, size)
        part = {}
        for k, v in arrays.items():
            if k in widened:
                part[k] = widened[k][:stop - start]
                np.copyto(part[k], v[start:stop])
            else:
                part[k] = v[start:stop] if isinstance(v, np.ndarray) and v.ndim else v
        yield slice(start, stop), part


def evaluate_values(expression: str, env: Mapping[str, Any], shape: tuple[int, ...],
                    like: np.dtype = np.dtype(np.float64),
                    result_dtype: np.dtype | None = None) -> np.ndarray:
    """The expression over ``env`` (arrays in the compute dtype or already in the evaluation type
    ``like``), broadcast to ``shape``; with ``result_dtype`` each block is cast to it as it is
    computed."""
    tree = parse(expression)
    size = int(np.prod(shape, dtype=np.int64))
    with np.errstate(all="ignore"):
        if size <= BLOCK:
            value = np.asarray(_eval(tree, {k: _in(v, like) for k, v in env.items()}, like))
            value = np.broadcast_to(value, shape)
            return np.array(value if result_dtype is None else value.astype(result_dtype))
        out = None
        for part, part_env in _blocks(env, shape, like):
            value = np.asarray(_eval(tree, part_env, like))
            if value.shape != (part.stop - part.start,):
                value = np.broadcast_to(value, (part.stop - part.start,))
            if out is None:
                out = np.empty(size, dtype=result_dtype or value.dtype)
            out[part] = value
        return out.reshape(shape)


# ---- the rounded class: value and bound ----

def spacing(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The ulp of ``dtype`` at |x| (float64; subnormal spacing below the normal range; 0 for an
    infinite value, which is not rounded)."""
    finfo = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    ax = np.absolute(np.asarray(x, dtype=np.float64))
    # 2^floor(log2 |x|) is |x| with its float64 significand bits cleared (no frexp: 10x faster)
    power = (ax.view(np.int64) & np.int64(0x7FF0000000000000)).view(np.float64)
    out = P.larger(power, float(finfo.smallest_normal)) * (2.0 ** -finfo.nmant)
    return np.where(np.isfinite(ax), out, 0.0)


@dataclass
class _Bounded:
    value: np.ndarray        # float64
    err: np.ndarray          # |computed - value| for any implementation in the model
    propagated: np.ndarray   # the part of err that comes from the operands
    correctly_rounded: bool  # the node's own rounding is correct (not faithful)
    overflow: Any = False    # an intermediate beyond the compute dtype's range (per element)
    within_one_ulp: bool = False   # the node's own result may be a neighbour of the correct one


def _rounding(value: np.ndarray, compute: np.dtype, faithful: bool) -> np.ndarray:
    """A rounding of ``value`` in the compute dtype or in float32 (the wider error of the two)."""
    unit = spacing(value, np.dtype(np.float32)) if np.dtype(compute) == np.dtype(np.float32) else \
        P.larger(spacing(value, compute), spacing(value, np.dtype(np.float32)))
    return unit if faithful else unit / 2


def _unit(value: np.ndarray, compute: np.dtype) -> np.ndarray:
    """The ulp at ``value`` of the compute dtype or of float32, the wider."""
    if np.dtype(compute) == np.dtype(np.float32):
        return spacing(value, np.dtype(np.float32))
    return P.larger(spacing(value, compute), spacing(value, np.dtype(np.float32)))


def _one_ulp_off(value: np.ndarray, propagated: np.ndarray, compute: np.dtype) -> np.ndarray:
    """The own error of a division or square root within one ulp of the correctly rounded result:
    that rounding's half unit (none where the exact result is held) and a step beyond it, measured
    in the binade above where the correct result may round up to a power of two."""
    unit = _unit(value, compute)
    step = _unit(np.absolute(value) + unit, compute)
    with np.errstate(over="ignore", invalid="ignore"):
        held = (np.asarray(value).astype(compute).astype(np.float64) == value) & \
            (np.asarray(value).astype(np.float32).astype(np.float64) == value)
    return np.where((propagated == 0) & held, step, unit / 2 + step)


def _own(value: np.ndarray, propagated: np.ndarray, compute: np.dtype, faithful: bool) -> np.ndarray:
    """The operation's own rounding: none where its operands are exact and its exact result is a
    value of the compute dtype (and of float32), since every rounding returns it then."""
    with np.errstate(over="ignore", invalid="ignore"):
        held = (np.asarray(value).astype(compute).astype(np.float64) == value) & \
            (np.asarray(value).astype(np.float32).astype(np.float64) == value)
    return np.where((propagated == 0) & held, 0.0, _rounding(value, compute, faithful))


def _scaled(value: np.ndarray, err: np.ndarray) -> np.ndarray:
    """|value| * err, 0 where err is 0 (an infinite operand without error adds none)."""
    with np.errstate(invalid="ignore"):
        return np.where(err == 0, 0.0, np.absolute(value) * err)


def _held(value: Any, compute: np.dtype) -> _Bounded:
    """A scalar or literal, held in the compute dtype or in float32 by the device."""
    v = np.float64(value)
    with np.errstate(over="ignore", invalid="ignore"):
        err = np.float64(0.0) if not np.isfinite(v) else max(
            np.absolute(v - np.float64(np.float32(v))),
            np.absolute(v - np.asarray(v).astype(compute).astype(np.float64)))
    zero = np.float64(0.0)
    return _Bounded(v, np.float64(err), zero, True)


def _bound(node: ast.expr, env: Mapping[str, Any], compute: np.dtype,
           memo: dict | None = None) -> _Bounded:
    """The node's value and bound, and where an intermediate leaves the compute dtype's range
    (a native evaluation overflows there, a float32 one may not: those elements are not judged)."""
    memo = {} if memo is None else memo
    if id(node) in memo:
        return memo[id(node)]
    result = _bound_node(node, env, compute, memo)
    children = ([*node.args, *(k.value for k in node.keywords)] if isinstance(node, ast.Call)
                else [c for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr)])
    if children:
        top = float(ml_dtypes.finfo(compute).max if compute == np.dtype(ml_dtypes.bfloat16)
                    else np.finfo(compute).max)
        inner: Any = False
        for child in children:
            part = _bound(child, env, compute, memo)
            with np.errstate(invalid="ignore"):
                inner = inner | part.overflow | (np.isfinite(part.value) & (np.absolute(part.value) > top))
        result.overflow = inner
    memo[id(node)] = result
    return result


def _bound_node(node: ast.expr, env: Mapping[str, Any], compute: np.dtype,
                memo: dict) -> _Bounded:
    if isinstance(node, ast.Constant):
        return _held(node.value, compute)
    if isinstance(node, ast.Name):
        value = env[node.id] if node.id in env else np.float64(node.id)
        if isinstance(value, np.ndarray) and value.ndim:
            zero = np.zeros(value.shape)
            return _Bounded(np.asarray(value, dtype=np.float64), zero, zero, True)   # no copy of float64
        return _held(value, compute)
    if isinstance(node, ast.UnaryOp):
        inner = _bound(node.operand, env, compute, memo)
        if isinstance(node.op, ast.USub):
            return _Bounded(-inner.value, inner.err, inner.err, True)
        return inner
    if isinstance(node, ast.BinOp):
        a, b = _bound(node.left, env, compute, memo), _bound(node.right, env, compute, memo)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            value = a.value + b.value if isinstance(node.op, ast.Add) else a.value - b.value
            propagated = a.err + b.err
            return _Bounded(value, propagated + _own(value, propagated, compute, False),
                            propagated, True)
        if isinstance(node.op, ast.Mult):
            value = a.value * b.value
            propagated = _scaled(a.value, b.err) + _scaled(b.value, a.err) + _scaled(a.err, b.err)
            return _Bounded(value, propagated + _own(value, propagated, compute, False),
                            propagated, True)
        if isinstance(node.op, ast.Div):
            value = a.value / b.value
            room = np.absolute(b.value) - b.err
            with np.errstate(divide="ignore", invalid="ignore"):
                propagated = np.where((a.err == 0) & (b.err == 0), 0.0,
                                      np.where(room > 0, (a.err + np.absolute(value) * b.err)
                                               / np.where(room > 0, room, 1.0), np.inf))
            return _Bounded(value, propagated + _one_ulp_off(value, propagated, compute),
                            propagated, False, within_one_ulp=True)
        raise ValueError(f"{ast.unparse(node)}: no error bound for this operator")
    if isinstance(node, ast.Compare):
        value = _eval(node, {k: (v.astype(np.float64) if isinstance(v, np.ndarray) else v)
                             for k, v in env.items()}, np.dtype(np.float64))
        sides = [_bound(n, env, compute, memo) for n in (node.left, *node.comparators)]
        slack = sum(s.err for s in sides)
        gap = np.absolute(sides[0].value - sides[-1].value)
        # a condition on computed operands may flip where they are within their errors
        unsure = np.where((slack > 0) & (gap <= slack), np.inf, 0.0)
        return _Bounded(value, unsure, unsure, True)
    if isinstance(node, ast.Call):
        word = vocabulary()[node.func.id]
        args = [_bound(a, env, compute, memo) for a in node.args]
        if word.bound == "pass":
            value = word.callable()(*[a.value for a in args])
            err = P.larger.reduce([np.broadcast_to(a.err, np.shape(value)) for a in args]) \
                if len(args) > 1 else args[0].err
            return _Bounded(value, err, err, True)
        if word.bound == "where":
            cond, yes, no = args
            value = np.where(cond.value, yes.value, no.value)
            err = np.where(cond.value, yes.err, no.err) + cond.err
            return _Bounded(value, err, err, True)
        if word.bound == "root":
            (a,) = args
            value = word.callable()(a.value)
            with np.errstate(invalid="ignore", divide="ignore"):
                low = P.square_root(P.larger(a.value - a.err, 0.0))
                propagated = np.where(a.err == 0, 0.0, a.err / (low + value))
            return _Bounded(value, propagated + _one_ulp_off(value, propagated, compute), propagated,
                            False, within_one_ulp=True)
        if word.bound == "fresh":
            value = word.callable()(*[a.value for a in args])
            zero = np.zeros(np.shape(value))
            return _Bounded(value, zero, zero, True)
        raise ValueError(f"{node.func.id}: not allowed in the rounded class (bound {word.bound!r})")
    raise ValueError(f"cannot bound {ast.unparse(node)}")


@dataclass(frozen=True)
class Rounded:
    value: np.ndarray            # float64, the exact result of the formula on the inputs
    unrounded: np.ndarray        # the float32 rounding of ``value`` (what a float32 compute holds)
    bound: np.ndarray            # per element, around ``unrounded``: the model's reach
    unjudged: np.ndarray         # elements whose intermediates leave the compute dtype's range


def evaluate_bound(expression: str, env: Mapping[str, Any], shape: tuple[int, ...],
                   compute: np.dtype, output: np.dtype) -> Rounded:
    """The rounded class: the formula's value, its float32 rounding and the bound of any
    implementation inside the model around it. Where the formula is a single correctly rounded
    operation of exact operands the bound is 0: a correct result is the correctly rounded one.
    Large inputs are bounded in blocks (the analysis is per element)."""
    tree = parse(expression)
    size = int(np.prod(shape, dtype=np.int64))
    if size <= BLOCK:
        return Rounded(*(np.array(np.broadcast_to(a, shape)) for a in _bound_block(tree, env, compute, output, shape)))
    parts = [np.empty(size, np.float64), np.empty(size, np.float32), np.empty(size, np.float64),
             np.empty(size, bool)]
    for part, part_env in _blocks(env, shape, np.dtype(np.float64)):
        for whole, piece in zip(parts, _bound_block(tree, part_env, compute, output, (part.stop - part.start,))):
            whole[part] = piece
    return Rounded(*(a.reshape(shape) for a in parts))


def _bound_block(tree: ast.expr, env: Mapping[str, Any], compute: np.dtype, output: np.dtype,
                 shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """value, unrounded, bound and unjudged of ``evaluate_bound`` for one block of elements."""
    with np.errstate(all="ignore"):
        node = _bound(tree, env, compute)
        value = np.broadcast_to(np.asarray(node.value, np.float64), shape)
        err = np.broadcast_to(np.asarray(node.err, np.float64), shape)
        propagated = np.broadcast_to(np.asarray(node.propagated, np.float64), shape)
        unrounded = value.astype(np.float32)
        exact_result = (propagated == 0) & node.correctly_rounded
        # a compute dtype narrower than the output: the device may round there (bf16 in, float32 out)
        narrower = np.dtype(compute).itemsize < np.dtype(output).itemsize
        # float32 output: distance from the correctly rounded result; narrower: from the float32 one
        final = spacing(value, np.dtype(compute) if narrower else np.dtype(np.float32)) / 2
        # (a single correct rounding through float32 and a cast is innocuous: 24 >= 2*11 + 2)
        bound = np.where(exact_result & (not narrower), 0.0, err + final)
        # one division or root of exact operands: the correctly rounded result or a neighbour of it
        if node.within_one_ulp and not narrower:
            bound = np.where(propagated == 0, _unit(unrounded.astype(np.float64), compute), bound)
        bound = np.where(np.isfinite(value), bound, 0.0)
        unjudged = np.broadcast_to(np.asarray(node.overflow, dtype=bool), shape)
    return value, unrounded, bound, unjudged
