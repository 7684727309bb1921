"""The generic predicates extracted rules are written in: each template tells, from a rule's ``args``,
whether a call violates the rule. They read a call through ``CallView`` (tensors by name: dtype,
view shape, format, emptiness; attributes; the null protocol outputs), so that the same rule judges a
Case (the spec) and a RawCall (the emulator). Predicates follow the opbase definitions the host code
uses (op_error_check.h, IsPrivateFormat, CheckBroadcastShape, CanCast)."""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import numpy as np

from aclnn_conformance.spec.dtype_promotion import COMPLEX, FLOATING, INTEGRAL, can_cast, promote_type
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import ND_LIKE_FORMATS, PRIVATE_FORMATS, AclDataType, AclFormat


@dataclass(frozen=True)
class TensorView:
    dtype: str                 # aclDataType name
    shape: tuple[int, ...]
    format: str                # aclFormat name
    contiguous: bool = True    # opbase IsContiguous (TensorDesc.is_contiguous)
    storage: tuple[int, ...] | None = None   # the storage shape (aclCreateTensor storageDims); None: the view's


@dataclass(frozen=True)
class CallView:
    tensors: Mapping[str, TensorView | None]
    attrs: Mapping[str, Any]
    null_outputs: frozenset[str]
    product: str = ""

    def tensor(self, name: str) -> TensorView | None:
        return self.tensors.get(name)


_last: list = [None, None]   # the last case viewed and its view: one call's rules share one view


def view_of_case(case, product: str = "") -> CallView:
    """A Case as the templates read it; an aclScalar attribute (``{"dtype", "value"}``) reads as a
    0-d tensor of its dtype, a NULL one (None) as a null tensor."""
    if _last[0] is case and not product:
        return _last[1]
    view = _view_of_case(case, product)
    if not product:
        _last[0], _last[1] = case, view
    return view


def _view_of_case(case, product: str) -> CallView:
    tensors = {}
    for name, arg in case.tensors.items():
        tensors[name] = None if arg is None else TensorView(arg.desc.dtype.name, tuple(arg.desc.shape),
                                                            arg.desc.format.name, arg.desc.is_contiguous(),
                                                            tuple(arg.desc.storage_shape))
    for name, value in case.attrs.items():
        if isinstance(value, dict) and "dtype" in value:
            tensors[name] = TensorView(value["dtype"], (), "ND")
    return CallView(tensors, dict(case.attrs), frozenset(case.null_outputs), product)


class TemplateError(ValueError):
    """A rule names a template that does not exist, or gives it the wrong arguments."""


def _null(call: CallView, a: Mapping) -> bool:
    name = a["param"]
    if name in ("workspaceSize", "executor"):
        return name in call.null_outputs
    if name in call.tensors:
        return call.tensors[name] is None
    return call.attrs.get(name) is None


def _dtype_set(a: Mapping, product: str) -> list[str] | None:
    if "sets" in a:
        return a["sets"].get(product)
    return list(a["dtypes"])


def _dtype_in(call: CallView, a: Mapping) -> bool:
    t = call.tensor(a["param"])
    allowed = _dtype_set(a, call.product)
    return t is not None and allowed is not None and t.dtype not in allowed


def _dtype_not_in(call: CallView, a: Mapping) -> bool:
    t = call.tensor(a["param"])
    banned = _dtype_set(a, call.product)
    return t is not None and banned is not None and t.dtype in banned


def _dtypes_equal(call: CallView, a: Mapping) -> bool:
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    return x is not None and y is not None and x.dtype != y.dtype


def _castable(call: CallView, a: Mapping) -> bool:
    """``param`` (or the promotion of ``from_promoted``) cannot be cast to ``to`` (a tensor) or
    ``to_dtype``; a promotion that does not exist is the ``promotable`` rule's, not this one's."""
    if "from_expr" in a:
        return _castable_expr(call, a)
    if "from_promoted" in a:
        xs = [call.tensor(n) for n in a["from_promoted"]]
        if any(x is None for x in xs):
            return False
        src = promote_type(xs[0].dtype, xs[1].dtype)
        if src is None:
            return False
    else:
        x = call.tensor(a["param"])
        if x is None:
            return False
        src = x.dtype
    if "to_dtype" in a:
        return not can_cast(src, a["to_dtype"])
    y = call.tensor(a["to"])
    return y is not None and not can_cast(src, y.dtype)


def _promotable(call: CallView, a: Mapping) -> bool:
    if "expr" in a:   # a computed dtype (``dtype_value``) that is DT_UNDEFINED
        return dtype_value(call, a["expr"]) == UNDEFINED
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    return x is not None and y is not None and promote_type(x.dtype, y.dtype) is None


def _private_format(call: CallView, a: Mapping) -> bool:
    t = call.tensor(a["param"])
    if t is None:
        return False
    formats = a.get("formats", "opbase")
    private = {f.name for f in PRIVATE_FORMATS} if formats == "opbase" else set(formats)
    return t.format in private


def _rank_range(call: CallView, a: Mapping) -> bool:
    t = call.tensor(a["param"])
    if t is None:
        return False
    rank = len(t.shape)
    return rank < a.get("min", 0) or rank > a.get("max", 1 << 30)


def _shapes_equal(call: CallView, a: Mapping) -> bool:
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    return x is not None and y is not None and x.shape != y.shape


def broadcast_shape(x: tuple[int, ...], y: tuple[int, ...]) -> tuple[int, ...] | None:
    """opbase CheckBroadcastShape / BroadcastInferShape: right-aligned, each pair equal or one of them 1."""
    out = []
    for i in range(1, max(len(x), len(y)) + 1):
        a = x[-i] if i <= len(x) else 1
        b = y[-i] if i <= len(y) else 1
        if a != b and a != 1 and b != 1:
            return None
        out.append(b if a == 1 else a)
    return tuple(reversed(out))


def _broadcastable(call: CallView, a: Mapping) -> bool:
    """The two shapes do not broadcast; with ``drop_last`` K, their shapes without the last K dims
    (a batch of matrices)."""
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    if x is None or y is None:
        return False
    k = a.get("drop_last", 0)
    xs, ys = tuple(x.shape)[:max(len(x.shape) - k, 0)], tuple(y.shape)[:max(len(y.shape) - k, 0)]
    return broadcast_shape(xs, ys) is None


def _broadcast_of(call: CallView, names) -> tuple[int, ...] | None | bool:
    """The broadcast shape of the named tensors; None when it does not exist, False when one is null."""
    ts = [call.tensor(n) for n in names]
    if any(t is None for t in ts):
        return False
    shape: tuple[int, ...] | None = ts[0].shape
    for t in ts[1:]:
        shape = broadcast_shape(shape, t.shape)
        if shape is None:
            return None
    return shape


def _broadcastable_all(call: CallView, a: Mapping) -> bool:
    """The tensors of ``of`` have no common broadcast shape (BroadcastInferShape chained)."""
    return _broadcast_of(call, a["of"]) is None


def _broadcast_equals(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape differs from the broadcast shape of ``of`` (when that broadcast exists:
    one that does not is the ``broadcastable`` rule's)."""
    t = call.tensor(a["param"])
    shape = _broadcast_of(call, a["of"])
    return t is not None and isinstance(shape, tuple) and t.shape != shape


def _shape_size(shape: tuple[int, ...]) -> int:
    size = 1
    for d in shape:
        size *= d
    return size


def _shapes_equal_or_single(call: CallView, a: Mapping) -> bool:
    """OP_CHECK_SHAPE_AND_SCALAR_EQUAL: shapes differ and not both hold exactly one element."""
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    return (x is not None and y is not None and x.shape != y.shape
            and not (_shape_size(x.shape) == 1 and _shape_size(y.shape) == 1))


def _formats_equal(call: CallView, a: Mapping) -> bool:
    """``param``'s storage format differs from ``other``'s."""
    x, y = call.tensor(a["param"]), call.tensor(a["other"])
    return x is not None and y is not None and x.format != y.format


def rank_bound(a: Mapping, key: str, rank: int) -> int | None:
    """A bound ``[scale, offset]`` = scale * rank + offset, or ``<key>_rank0`` at rank 0."""
    if key not in a:
        return None
    if rank == 0 and f"{key}_rank0" in a:
        return a[f"{key}_rank0"]
    scale, offset = a[key]
    return scale * rank + offset


def _int_values(value: Any) -> list[int] | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        return [value]
    if isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        return list(value)
    return None


def _attr_in_rank_range(call: CallView, a: Mapping) -> bool:
    """The integer attribute (each element of an int array) is below ``min`` or above ``max``, bounds
    that depend on ``tensor``'s rank (``rank_bound``)."""
    t = call.tensor(a["tensor"])
    values = _int_values(call.attrs.get(a["attr"]))
    if t is None or values is None:
        return False
    lo, hi = rank_bound(a, "min", len(t.shape)), rank_bound(a, "max", len(t.shape))
    return any((lo is not None and v < lo) or (hi is not None and v > hi) for v in values)


def _empty(call: CallView, a: Mapping) -> bool:
    """Holds (the rule applies) when the named tensors are empty: any of them, or all with any=False."""
    ts = [call.tensor(p) for p in a["params"]]
    empties = [t is not None and any(d == 0 for d in t.shape) for t in ts]
    return any(empties) if a.get("any", True) else all(empties)


def _attr_range(call: CallView, a: Mapping) -> bool:
    """The numeric attribute is below ``min`` or above ``max`` (a value of another kind, as a case may
    give a string parameter a bound read on a number, is not this rule's to judge)."""
    value = call.attrs.get(a["attr"])
    if not isinstance(value, (int, float)):
        return False
    return value < a.get("min", float("-inf")) or value > a.get("max", float("inf"))


def _product(call: CallView, a: Mapping) -> bool:
    """Every call: the rule's expectation names the products it applies to."""
    return True


def _unread(call: CallView, a: Mapping) -> bool:
    """A check the extractor could not read: every call reaching it, except calls that return early
    because they are empty (``unless_empty``)."""
    skip = a.get("unless_empty") or []
    return not (skip and _empty(call, {"params": skip, "any": True}))


TEMPLATES: dict[str, Callable[[CallView, Mapping], bool]] = {
    "null": _null, "dtype_in": _dtype_in, "dtype_not_in": _dtype_not_in, "dtypes_equal": _dtypes_equal,
    "castable": _castable, "promotable": _promotable, "private_format": _private_format,
    "rank_range": _rank_range, "shapes_equal": _shapes_equal, "broadcastable": _broadcastable,
    "empty": _empty, "attr_range": _attr_range, "product": _product, "unread": _unread,
}
def _attr_is(call: CallView, a: Mapping) -> bool:
    """The attribute equals ``value`` (a bool flag, or an integer the code rejects)."""
    value = call.attrs.get(a["attr"])
    want = a["value"]
    return value is not None and type(value) is type(want) and value == want


def _format_in(call: CallView, a: Mapping) -> bool:
    """``param``'s storage format is not one of ``formats``."""
    t = call.tensor(a["param"])
    return t is not None and t.format not in a["formats"]


def _format_not_in(call: CallView, a: Mapping) -> bool:
    t = call.tensor(a["param"])
    return t is not None and t.format in a["formats"]


_ND_LIKE = frozenset(f.name for f in ND_LIKE_FORMATS)


def _as_matched(fmt: str) -> str:
    """A format as the runtime matches it: the ND-like formats rewritten to ND."""
    return "ND" if fmt in _ND_LIKE else fmt


def _combination_in(call: CallView, a: Mapping) -> bool:
    """The (dtype, format) pairs of the tensors ``params`` match none of ``combinations`` (an OpDef's
    columns: one ``[dtype, format]`` per tensor, or ``[dtype]`` for a list of dtype pairs the host
    code searches) once the runtime has rewritten the ND-like formats to ND; a null (optional)
    tensor matches every column."""
    given = [(i, call.tensor(n)) for i, n in enumerate(a["params"])]
    return not any(all(t is None or (t.dtype == column[i][0] and (len(column[i]) == 1 or   # dtype alone: any format
                                                                   _as_matched(t.format) == _as_matched(column[i][1])))
                       for i, t in given) for column in a["combinations"])


TEMPLATES.update({"combination_in": _combination_in, "format_in": _format_in, "format_not_in": _format_not_in, "attr_is": _attr_is, "broadcastable_all": _broadcastable_all, "broadcast_equals": _broadcast_equals,
                  "shapes_equal_or_single": _shapes_equal_or_single, "formats_equal": _formats_equal,
                  "attr_in_rank_range": _attr_in_rank_range})

def _attr_dims_unique(call: CallView, a: Mapping) -> bool:
    """Two elements of the integer array name one dim of ``tensor``: a negative dim wrapped by the
    rank (by ``rank0`` at rank 0, when given), as the host code's mask of the dims seen."""
    t = call.tensor(a["tensor"])
    values = _int_values(call.attrs.get(a["attr"]))
    if t is None or values is None:
        return False
    n = len(t.shape) if t.shape or "rank0" not in a else a["rank0"]
    wrapped = [v + n if v < 0 else v for v in values]
    return len(set(wrapped)) != len(wrapped)


TEMPLATES["attr_dims_unique"] = _attr_dims_unique

# the arguments each template needs
REQUIRED_ARGS = {"null": ("param",), "dtype_in": ("param",), "dtype_not_in": ("param",),
                 "dtypes_equal": ("param", "other"), "castable": (),
                 "promotable": ("param", "other"), "private_format": ("param",), "rank_range": ("param",),
                 "shapes_equal": ("param", "other"), "broadcastable": ("param", "other"),
                 "empty": ("params",), "attr_range": ("attr",), "product": (), "unread": ()}
REQUIRED_ARGS.update({"combination_in": ("params", "combinations"), "format_in": ("param", "formats"), "format_not_in": ("param", "formats"),
                      "attr_is": ("attr", "value"), "broadcastable_all": ("of",), "broadcast_equals": ("param", "of"),
                      "shapes_equal_or_single": ("param", "other"), "formats_equal": ("param", "other"),
                      "attr_in_rank_range": ("attr", "tensor"), "attr_dims_unique": ("attr", "tensor")})


def scalar_as(value: Any, dtype: str, kind: str) -> float:
    """aclScalar::ToFloat (``float``) or ToDouble (``double``) of ``value`` as the scalar holds it: in
    its own dtype first (a FLOAT scalar carries float32 bytes), then converted."""
    try:
        held = np.asarray(value).astype(numpy_dtype(AclDataType[dtype]))
    except (KeyError, ValueError):   # a dtype of no NumPy element type: the value as given
        held = np.asarray(value)
    with np.errstate(all="ignore"):
        return float(held.astype(np.float32 if kind == "float" else np.float64))


def _number_as(v: Any, kind: str) -> float | int | None:
    """An aclScalar's ToFloat/ToDouble/ToInt32/ToInt64, or a plain float/double argument as its C
    type holds it; None for a null scalar, an absent argument or a value with no one reading as a
    number."""
    if isinstance(v, dict):
        if isinstance(v.get("value"), (complex, type(None), str)):
            return None
        if kind in ("int32", "int64"):   # ToInt32/ToInt64: the held value truncated (C++ conversion)
            whole = _held_integer(v["value"], v.get("dtype", "DOUBLE"))
            if whole is None:
                held = scalar_as(v["value"], v.get("dtype", "DOUBLE"), "double")
                if held != held or abs(held) == float("inf"):
                    return None   # undefined in C++: no one reading
                whole = int(held)
            bound = 2 ** (31 if kind == "int32" else 63)
            return whole if -bound <= whole < bound else None
        return scalar_as(v["value"], v.get("dtype", "DOUBLE"), kind)
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if kind == "int":
            return float(v) if isinstance(v, int) else None
        if kind == "float":
            with np.errstate(over="ignore"):   # beyond float32 the C float is infinite, as here
                return float(np.float32(v))
        return float(v)
    return None


def _held_integer(value: Any, dtype: str) -> int | None:
    """The value an integer (or BOOL) aclScalar holds, exactly (an INT64 beyond 2**53 too); None for
    another dtype or a value its dtype does not carry."""
    try:
        np_type = numpy_dtype(AclDataType[dtype])
    except (KeyError, ValueError):
        return None
    if np_type.kind not in "iub":
        return None
    try:
        with np.errstate(all="ignore"):
            return int(np.asarray(value).astype(np_type))
    except (OverflowError, ValueError, TypeError):
        return None


_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
            "!=": operator.ne}


def value_test(call: CallView, t: Any) -> bool | None:
    """A condition on the values of the call's aclScalar, float and bool arguments: ``["cmp", param,
    as, op, number]`` (the scalar's ToFloat/ToDouble/ToInt32/ToInt64, or the float, double or integer
    argument: ``as`` float, double, int32, int64 or int, against a number or ``["arg", param, as]``,
    another argument's value; IEEE comparisons, so NaN fails every one but ``!=``), ``["nan", param, as]`` and ``["inf", param, as]`` (that value is NaN,
    or infinite), ``["flag", attr]`` (a bool argument is true), ``["prefix", attr, [W...]]`` (a string
    argument begins with one of the words, as ``strncmp(s, W, strlen(W)) == 0`` tests), ``["not", t]``, ``["and", t...]``,
    ``["or", t...]``; None when a scalar it reads is null or absent."""
    op = t[0]
    if op in ("cmp", "nan", "inf"):
        held = _number_as(call.attrs.get(t[1]), t[2])
        if held is None:
            return None
        if op == "nan":
            return held != held
        if op == "inf":
            return abs(held) == float("inf")
        if isinstance(t[4], (list, tuple)):   # ["arg", param, as]: another argument's value
            other = _number_as(call.attrs.get(t[4][1]), t[4][2])
            return None if other is None else _COMPARE[t[3]](held, other)
        return _COMPARE[t[3]](held, float(t[4]))
    if op == "flag":
        v = call.attrs.get(t[1])
        return None if v is None else bool(v)
    if op == "prefix":   # ["prefix", attr, [W...]]: the string argument begins with one of the words
        v = call.attrs.get(t[1])
        return None if not isinstance(v, str) else any(v.startswith(x) for x in t[2])
    if op == "not":
        v = value_test(call, t[1])
        return None if v is None else not v
    if op in ("and", "or"):
        vals = [value_test(call, x) for x in t[1:]]
        if None in vals:
            return None
        return all(vals) if op == "and" else any(vals)
    raise TemplateError(f"unknown value test {t!r}")


# the template arguments naming a parameter the rule reads through ``call.tensor`` (an aclScalar as a
# 0-d tensor of its dtype) or tests for null: never its value
_VIEW_ARGS = {"null": ("param",), "dtype_in": ("param",), "dtype_not_in": ("param",),
              "dtypes_equal": ("param", "other"), "castable": ("param", "to", "from_promoted"),
              "promotable": ("param", "other")}


def value_reads(template: str, args: Mapping[str, Any], param: str,
                call: CallView | None = None) -> list[list] | None:
    """The value tests through which a rule reads ``param``'s value: each ``["cmp", param, as, op,
    number]``, ``["nan", param, as]``, ``["inf", param, as]`` or ``["flag", param]`` (value_test) in
    its arguments and guards, and an ``attr_range`` or ``attr_in_rank_range`` (its bounds on ``call``'s
    tensor rank) on ``param`` as the comparisons with its bounds; [] when it names ``param`` only for
    its dtype (``["of", param]``) or as a tensor or null test (``_VIEW_ARGS``); None when it names
    ``param`` anywhere else (a read these tests do not bound, such as a comparison with another
    argument's value)."""
    found: list[list] = []
    if template in ("attr_range", "attr_in_rank_range") and args.get("attr") == param:
        if template == "attr_range":
            lo, hi = args.get("min"), args.get("max")
        elif call is None:
            return None
        else:
            t = call.tensor(args["tensor"])
            rank = None if t is None else len(t.shape)   # a null tensor: the rule never holds
            lo, hi = (None, None) if rank is None else (rank_bound(args, "min", rank),
                                                        rank_bound(args, "max", rank))
        found += [["cmp", param, "double", "<", lo]] if lo is not None else []
        found += [["cmp", param, "double", ">", hi]] if hi is not None else []
        args = {k: v for k, v in args.items() if k not in ("attr", "tensor")}

    def walk(node: Any) -> bool:
        if isinstance(node, str):
            return node != param
        if isinstance(node, Mapping):
            return all(walk(v) for v in node.values())
        if not isinstance(node, (list, tuple)):
            return True
        head = node[0] if node else None
        if head == "of" and len(node) == 2 and isinstance(node[1], str):
            return True
        if head in ("cmp", "nan", "inf", "flag") and len(node) > 1 and node[1] == param:
            if head == "cmp" and not isinstance(node[4], (int, float)):
                return False
            found.append(list(node))
            return True
        return all(walk(v) for v in node)

    view = _VIEW_ARGS.get(template, ())
    for key, value in args.items():
        if key in view and (value == param or isinstance(value, list) and param in value
                            and all(isinstance(v, str) for v in value)):
            continue
        if not walk(value):
            return None
    return found


# the templates that read a tensor's storage format, and the guards that do: opbase IsContiguous reads
# it too (a private format counts as contiguous, spec/tensor.py is_contiguous_view)
FORMAT_TEMPLATES = frozenset({"private_format", "formats_equal", "format_in", "format_not_in",
                              "combination_in"})
FORMAT_GUARDS = frozenset({"format-same", "contiguous"})


def reads_formats(template: str, args: Mapping[str, Any]) -> bool:
    """Whether a rule's verdict on a call may depend on its tensors' formats: its template reads
    them, or a guard in its arguments does."""
    def walk(node: Any) -> bool:
        if isinstance(node, Mapping):
            return any(walk(v) for v in node.values())
        if isinstance(node, (list, tuple)):
            return bool(node) and isinstance(node[0], str) and node[0] in FORMAT_GUARDS \
                or any(walk(v) for v in node)
        return False
    return template in FORMAT_TEMPLATES or walk(args)


def _scalar_test(call: CallView, a: Mapping) -> bool:
    """The call's scalar (and bool) arguments make ``test`` hold; a null scalar is the null rule's."""
    return bool(value_test(call, a["test"]))


def _dtypes_equal_expr(call: CallView, a: Mapping) -> bool:
    """``param``'s dtype differs from the dtype ``expr`` computes (a promotion the code checks the
    output against); not violated while either is unknown (a null tensor)."""
    t, v = call.tensor(a["param"]), dtype_value(call, a["expr"])
    return t is not None and v is not None and t.dtype != v


def _dtype_expr_in(call: CallView, a: Mapping) -> bool:
    """The dtype ``expr`` computes is one of ``dtypes`` (a promotion the code refuses)."""
    v = dtype_value(call, a["expr"])
    return v is not None and v in a["dtypes"]


def _string_in(call: CallView, a: Mapping) -> bool:
    """The string argument (``const char*``) is not one of ``values`` (with ``prefix``, begins with
    none of them, as ``strncmp(s, w, strlen(w))`` compares); a null string is the null rule's."""
    v = call.attrs.get(a["attr"])
    if a.get("prefix"):
        return isinstance(v, str) and not any(v.startswith(x) for x in a["values"])
    return isinstance(v, str) and v not in a["values"]


TEMPLATES.update({"scalar_test": _scalar_test, "dtypes_equal_expr": _dtypes_equal_expr,
                  "dtype_expr_in": _dtype_expr_in, "string_in": _string_in})
REQUIRED_ARGS.update({"scalar_test": ("test",), "dtypes_equal_expr": ("param", "expr"),
                      "dtype_expr_in": ("expr", "dtypes"), "string_in": ("attr", "values")})

# the rule category of each template added after extract/build.py's CATEGORY table
CATEGORIES = {"combination_in": "dtype", "broadcastable_all": "shape", "broadcast_equals": "shape", "shapes_equal_or_single": "shape",
              "formats_equal": "format", "attr_in_rank_range": "attr", "attr_is": "attr",
              "format_in": "format", "format_not_in": "format", "attr_dims_unique": "attr",
              "scalar_test": "attr", "dtypes_equal_expr": "dtype", "dtype_expr_in": "dtype", "string_in": "attr"}


UNDEFINED = "UNDEFINED"
DTYPE_CLASSES = {"complex": COMPLEX, "floating": FLOATING, "integral": INTEGRAL,
                 "integral_bool": INTEGRAL | {"BOOL"}}


def dtype_value(call: CallView, e: Any) -> str | None:
    """A dtype the host code computes, as a list expression: ``["of", param]`` (its dtype; None when the
    tensor is null or absent), ``["dtype", NAME]``, ``["attr_dtype", attr]`` (an aclDataType argument; None when it is
    not one this suite names), ``["promote", e1, e2]`` (opbase PromoteType; an
    undefined operand or pair gives ``UNDEFINED``), ``["if", guard, e1, e2]`` (``guard ? e1 : e2``),
    ``["restrict", e, [NAME...]]`` (e when it is in the list, else ``UNDEFINED``), ``["combine", e1, e2]``
    (``combine_categories``: a tensor's dtype with a rank-0 tensor's)."""
    op = e[0]
    if op == "of":
        t = call.tensor(e[1])
        return None if t is None else t.dtype
    if op == "dtype":
        return e[1]
    if op == "attr_dtype":   # an aclDataType argument (the call's attribute holds its enum value)
        v = call.attrs.get(e[1])
        if isinstance(v, bool) or not isinstance(v, int):
            return None
        try:
            return AclDataType(v).name
        except ValueError:
            return None
    if op == "promote":
        x, y = dtype_value(call, e[1]), dtype_value(call, e[2])
        if x is None or y is None:
            return None
        if x == y:
            return x
        return UNDEFINED if UNDEFINED in (x, y) else promote_type(x, y) or UNDEFINED
    if op == "if":
        held = guard_holds(call, e[1])
        return None if held is None else dtype_value(call, e[2] if held else e[3])
    if op == "restrict":
        x = dtype_value(call, e[1])
        return None if x is None else (x if x in e[2] else UNDEFINED)
    if op == "combine":
        x, y = dtype_value(call, e[1]), dtype_value(call, e[2])
        return None if x is None or y is None else combine_categories(x, y)
    raise TemplateError(f"unknown dtype expression {e!r}")


# ops-math common/inc/op_api/data_type_utils.h:25-46 InnerTypeToComplexType
_TO_COMPLEX = {"BF16": "COMPLEX64", "FLOAT16": "COMPLEX32", "FLOAT": "COMPLEX64", "DOUBLE": "COMPLEX128",
               "COMPLEX32": "COMPLEX32", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128"}
_OPBASE_FLOATING = frozenset({"FLOAT16", "FLOAT", "DOUBLE", "BF16"})   # opbase IsFloatingType


def combine_categories(higher: str, lower: str) -> str:
    """ops-math data_type_utils.h:49-67 CombineCategoriesWithComplex: the dtype of a tensor (``higher``)
    with a rank-0 one (``lower``): complex over floating over integral over bool, a floating tensor
    meeting a complex one mapped to its complex type."""
    if higher in COMPLEX:
        return higher
    if lower in COMPLEX:
        return _TO_COMPLEX.get(higher, UNDEFINED) if higher in _OPBASE_FLOATING else lower
    if higher in _OPBASE_FLOATING:
        return higher
    if higher == "BOOL" or lower in _OPBASE_FLOATING:
        return UNDEFINED if UNDEFINED in (higher, lower) else promote_type(higher, lower) or UNDEFINED
    return higher if higher != UNDEFINED else lower


def guard_holds(call: CallView, g: Any) -> bool | None:
    """A condition on the call's dtypes (a data-dependent branch of the host code): ``["in", e, [NAME
    ...]]`` (names, or the classes ``complex``, ``floating``, ``integral``, ``integral_bool`` of
    data_type_utils.h), ``["cast", e1, e2]`` (opbase CanCast), ``["same", e1, e2]`` (equal dtypes),
    ``["contiguous", [param...]]`` (opbase IsContiguous of each: a null tensor counts as contiguous, as
    there), ``["no-dims", attr]`` (an integer array absent or empty), ``["value", t]`` (value_test t),
    ``["format-same", a, b]`` (equal storage formats), ``["format-in", t, [F...]]`` (t's storage format one of them), ``["pair-in", [e1, e2], [[d1, d2], ...], where]``
    (the two dtypes one of the pairs), ``["null", tensor]`` (the tensor is a null pointer: null or
    absent), ``["rank-zero", tensor]`` (the tensor has no dim), ``["rank", tensor, op, n]`` (its rank compared
    with n), ``["dims", a, op, b]`` (a comparison of dims_compare), ``["zero-dim", tensor, stop]`` (one
    of its dims before rank + stop is 0; stop <= 0), ``["zero-elem", attr]`` (an element of the integer
    array is 0),
    ``["attr-len", attr, op, n]`` (an integer array's length compared with n), ``["int", t]`` (the
    integer test t, ``int_holds``), ``["not", g]``, ``["and", g...]``, ``["or", g...]``; None when a
    tensor it reads is null or absent."""
    op = g[0]
    if op == "int":
        return int_holds(call, g[1])
    if op == "in":
        x = dtype_value(call, g[1])
        if x is None:
            return None
        names = set()
        for n in g[2]:
            names |= DTYPE_CLASSES.get(n, {n})
        return x in names
    if op == "cast":
        x, y = dtype_value(call, g[1]), dtype_value(call, g[2])
        return None if x is None or y is None else can_cast(x, y)
    if op == "same":
        x, y = dtype_value(call, g[1]), dtype_value(call, g[2])
        return None if x is None or y is None else x == y
    if op == "contiguous":
        return all(t is None or t.contiguous for t in (call.tensor(n) for n in g[1]))
    if op == "empty":   # the named tensors are empty (any of them, or all): the empty-tensor return's test
        return _empty(call, {"params": g[1], "any": g[2]})
    if op == "format-in":   # ["format-in", t, [F...]]: the tensor's storage format is one of them
        t = call.tensor(g[1])
        return None if t is None else t.format in g[2]
    if op == "format-same":   # ["format-same", a, b]: the two tensors' storage formats are equal
        x, y = call.tensor(g[1]), call.tensor(g[2])
        return None if x is None or y is None else x.format == y.format
    if op == "pair-in":   # ["pair-in", [e1, e2], [[d1, d2], ...], where]: the two dtypes one of the pairs
        x, y = dtype_value(call, g[1][0]), dtype_value(call, g[1][1])
        return None if x is None or y is None else [x, y] in [list(p) for p in g[2]]
    if op == "null":   # an optional tensor or array not given: the one guard reading a null pointer
        return _null(call, {"param": g[1]})
    if op == "rank-zero":   # the tensor has no dim
        t = call.tensor(g[1])
        return None if t is None else len(t.shape) == 0
    if op == "rank":   # ["rank", tensor, op, n]: the tensor's rank compares with n
        t = call.tensor(g[1])
        return None if t is None else _COMPARE[g[2]](len(t.shape), g[3])
    if op == "dims":   # ["dims", a, op, b]: dims_compare's comparison holds (None where a dim is unknown)
        args = {"a": g[1], "op": g[2], "b": g[3]}
        return _dims_compare(call, args) if _dims_known(call, args) else None
    if op == "zero-dim":   # ["zero-dim", tensor, stop]: a dim among its first rank + stop is 0
        t = call.tensor(g[1])
        return None if t is None else 0 in tuple(t.shape)[:max(len(t.shape) + g[2], 0)]
    if op == "zero-elem":   # ["zero-elem", attr]: an element of the integer array is 0
        values = call.attrs.get(g[1])
        values = _int_values(values) if isinstance(values, (list, tuple)) else None
        return None if values is None else 0 in values
    if op == "value":   # a test of the call's scalar and float argument values (value_test)
        return value_test(call, g[1])
    if op == "no-dims":   # the integer array names no dim: absent (null) or empty
        value = call.attrs.get(g[1])
        return value is None or (isinstance(value, (list, tuple)) and len(value) == 0)
    if op == "attr-len":   # ["attr-len", attr, op, n]: the integer array's length compares with n
        value = call.attrs.get(g[1])
        return None if not isinstance(value, (list, tuple)) else _COMPARE[g[2]](len(value), g[3])
    if op == "int":   # ["int", t]: a test of the call's dims and integer arguments holds
        return int_holds(call, g[1])
    if op == "not":
        v = guard_holds(call, g[1])
        return None if v is None else not v
    if op in ("and", "or"):
        vals = [guard_holds(call, x) for x in g[1:]]
        if op == "and" and False in vals or op == "or" and True in vals:
            return op == "or"
        return None if None in vals else op == "and"
    raise TemplateError(f"unknown guard {g!r}")


def _castable_expr(call: CallView, a: Mapping) -> bool:
    """``from_expr`` (a computed dtype) cannot be cast to ``to`` / ``to_dtype`` / ``to_expr``."""
    src = dtype_value(call, a["from_expr"])
    if "to_expr" in a:
        dst = dtype_value(call, a["to_expr"])
    elif "to_dtype" in a:
        dst = a["to_dtype"]
    else:
        t = call.tensor(a["to"])
        dst = None if t is None else t.dtype
    return src is not None and dst is not None and not can_cast(src, dst)


def predicate(template: str, args: Mapping[str, Any]) -> Callable[[CallView], bool]:
    """``call -> violated`` for one rule."""
    if template not in TEMPLATES:
        raise TemplateError(f"unknown template {template!r}; known: {', '.join(TEMPLATES)}")
    missing = [k for k in REQUIRED_ARGS[template] if k not in args]
    if template in ("dtype_in", "dtype_not_in") and "sets" not in args and "dtypes" not in args:
        missing.append("sets or dtypes")
    if template in ("shape_is", "broadcastable_shape", "expands_to_shape") and "shape" not in args \
            and "shape_expr" not in args:
        missing.append("shape or shape_expr")
    if missing:
        raise TemplateError(f"template {template} needs {', '.join(missing)}")
    fn = TEMPLATES[template]
    frozen = dict(args)
    if "when" in frozen:   # a check inside a data-dependent branch: only calls taking the branch
        when = frozen["when"]
        if template == "unread":   # a call its guard does not decide may reach it: not judged, never guessed
            return lambda call: guard_holds(call, when) is not False and fn(call, frozen)
        return lambda call: bool(guard_holds(call, when)) and fn(call, frozen)
    return lambda call: fn(call, frozen)


def undecided_predicate(template: str, args: Mapping[str, Any]) -> Callable[[CallView], bool] | None:
    """``call -> the rule cannot decide it`` for the templates whose reading may leave a call open
    (an integer test or a dims comparison reading a dim at an index outside a given tensor's shape);
    None for the others."""
    if template not in _OPEN_ON:
        return None
    is_open, when = _OPEN_ON[template], args.get("when")
    return lambda call: (when is None or bool(guard_holds(call, when))) and is_open(call, args)


def _dim_outside(call: CallView, ref: Any) -> bool:
    """A dims comparison's side reads a dim outside a given tensor's rank, or an attribute no integer."""
    if isinstance(ref, str):
        v = call.attrs.get(ref)
        return not isinstance(v, int) or isinstance(v, bool)
    if isinstance(ref, int) or ref[0] in ("numel", "bnumel"):
        return False
    return call.tensor(ref[0]) is not None and dim_size(call, ref) is None


def _value_unread(call: CallView, t: Any) -> bool:
    """A scalar the value test ``t`` reads is given but has no reading as the type the test reads it
    as (ToInt64 of NaN, of infinity or beyond the int64 range: undefined in C++)."""
    if not isinstance(t, (list, tuple)) or not t:
        return False
    if t[0] in ("cmp", "nan", "inf"):
        reads = [(t[1], t[2])] + ([(t[4][1], t[4][2])] if t[0] == "cmp" and isinstance(t[4], (list, tuple))
                                  else [])
        return any(isinstance(v := call.attrs.get(name), dict) and v.get("value") is not None
                   and _number_as(v, kind) is None for name, kind in reads)
    return any(_value_unread(call, x) for x in t[1:])


_OPEN_ON: dict[str, Callable[[CallView, Mapping], bool]] = {
    "int_test": lambda call, a: int_holds(call, a["test"]) is None,
    "shape_is": lambda call, a: "shape_expr" in a and call.tensor(a["param"]) is not None
    and slice_outside(call, a["shape_expr"]),
    "scalar_test": lambda call, a: _value_unread(call, a["test"]),
    "dims_compare": lambda call, a: _dim_outside(call, a["a"]) or _dim_outside(call, a["b"])}


def dtype_names() -> set[str]:
    return {d.name for d in AclDataType}


def format_names() -> set[str]:
    return {f.name for f in AclFormat}


# ---- reductions: the dims a reduction names and the shape it leaves ----

def reduced_shape(shape: tuple[int, ...], dims: Any, keepdim: bool, noop_on_empty: bool = False
                  ) -> tuple[int, ...] | None:
    """The shape a reduction of ``shape`` over ``dims`` leaves: a negative dim wrapped by the rank (by
    1 at rank 0); no dims (an empty or absent list) reduces every dim, or none with ``noop_on_empty``;
    a reduced dim kept as 1 with ``keepdim``. None when a dim is out of range (an earlier check's)."""
    values = _int_values(dims) if dims is not None else []
    if values is None:
        return None
    if not values:
        if noop_on_empty:
            return tuple(shape)
        return (1,) * len(shape) if keepdim else ()
    n = len(shape) if shape else 1
    wrapped = {v + n if v < 0 else v for v in values}
    if any(not 0 <= v < n for v in wrapped):
        return None
    return tuple(1 if i in wrapped else d for i, d in enumerate(shape) if keepdim or i not in wrapped)


def _flag(call: CallView, value: Any) -> bool:
    """A bool argument of a rule: a literal, or the name of a bool attribute (absent reads false)."""
    return value if isinstance(value, bool) else bool(call.attrs.get(value))


def rule_dims(attrs: Mapping[str, Any], dims: Any, rank: int) -> Any:
    """The dims a ``reduced_shape`` rule names: the integer array attribute ``dims``, None (every
    dim), or ``["from", k]``: the dims k .. rank-1 of the tensor reduced (none below rank k + 1)."""
    if dims is None:
        return None
    if isinstance(dims, (list, tuple)) and len(dims) == 2 and dims[0] == "from":
        return list(range(dims[1], rank))
    return attrs.get(dims)


def _reduced_shape(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape is not the reduction of ``of``'s over the attribute ``dims`` (None: every
    dim; ``keepdim``, ``noop``: bool attributes or literals), as the host code's infer-shape helper or
    a reduction kernel's infer function builds it."""
    t, out = call.tensor(a["of"]), call.tensor(a["param"])
    if t is None or out is None:
        return False
    expected = reduced_shape(t.shape, rule_dims(call.attrs, a["dims"], len(t.shape)),
                             _flag(call, a.get("keepdim", False)), _flag(call, a.get("noop", False)))
    if expected is None or tuple(out.shape) == expected:
        return False
    # ``scalar_same``: the host code also accepts two shapes of one element each ([1] for [])
    return not (a.get("scalar_same") and math.prod(expected) == 1 and math.prod(out.shape) == 1)


def _attr_dims_nonzero(call: CallView, a: Mapping) -> bool:
    """A dim the integer array names has size 0 in ``tensor`` (a negative dim wrapped by the rank; at
    rank 0 there is no dim to be empty)."""
    t = call.tensor(a["tensor"])
    values = _int_values(call.attrs.get(a["attr"]))
    if t is None or values is None or not t.shape:
        return False
    n = len(t.shape)
    return any(0 <= (v + n if v < 0 else v) < n and t.shape[v + n if v < 0 else v] == 0 for v in values)


def _attr_dim_index(call: CallView, tensor: str, attr: str) -> tuple[TensorView, int] | None:
    """``tensor`` and the dim the integer attribute names in it (negative wrapped by the rank); None
    when either is absent or the dim is outside the rank (an earlier check's)."""
    t, v = call.tensor(tensor), call.attrs.get(attr)
    if t is None or not isinstance(v, int) or isinstance(v, bool) or not t.shape:
        return None
    d = v + len(t.shape) if v < 0 else v
    return (t, d) if 0 <= d < len(t.shape) else None


def _attr_dim_divisible(call: CallView, a: Mapping) -> bool:
    """The size of ``tensor`` at the dim the integer attribute names is not a multiple of ``by``
    (a dim halved by a split must be even)."""
    got = _attr_dim_index(call, a["tensor"], a["attr"])
    return got is not None and got[0].shape[got[1]] % a["by"] != 0


def _split_shape(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape is not ``of``'s with the dim the integer attribute names divided by
    ``by`` (each of the ``by`` parts of a split)."""
    got, out = _attr_dim_index(call, a["of"], a["attr"]), call.tensor(a["param"])
    if got is None or out is None:
        return False
    t, d = got
    return tuple(out.shape) != tuple(s // a["by"] if i == d else s for i, s in enumerate(t.shape))


def _ranks_equal(call: CallView, a: Mapping) -> bool:
    """``param``'s rank is not ``other``'s (counted as ``other_rank0`` when it is 0, where given)."""
    t, o = call.tensor(a["param"]), call.tensor(a["other"])
    if t is None or o is None:
        return False
    other = len(o.shape) if o.shape or "other_rank0" not in a else a["other_rank0"]
    return len(t.shape) != other


TEMPLATES["ranks_equal"] = _ranks_equal
REQUIRED_ARGS["ranks_equal"] = ("param", "other")
CATEGORIES["ranks_equal"] = "shape"


TEMPLATES.update({"reduced_shape": _reduced_shape, "attr_dims_nonzero": _attr_dims_nonzero,
                  "attr_dim_divisible": _attr_dim_divisible, "split_shape": _split_shape})
REQUIRED_ARGS.update({"attr_dim_divisible": ("attr", "tensor", "by"), "split_shape": ("param", "of", "attr", "by")})
CATEGORIES.update({"attr_dim_divisible": "shape", "split_shape": "shape"})
REQUIRED_ARGS.update({"reduced_shape": ("param", "of", "dims"), "attr_dims_nonzero": ("attr", "tensor")})
CATEGORIES.update({"reduced_shape": "shape", "attr_dims_nonzero": "attr"})


def dim_size(call: CallView, ref: Any) -> int | None:
    """The size of dim scale*rank + offset of a tensor's view shape (``[tensor, scale, offset]``), its
    element count (``["numel", tensor]``), or the element count of several tensors' broadcast shape
    (``["bnumel", [tensor...]]``); None when a tensor is absent, the dim outside its rank, or the
    tensors do not broadcast."""
    if len(ref) == 2 and ref[0] == "numel":
        t = call.tensor(ref[1])
        return None if t is None else int(np.prod(t.shape, dtype=np.int64))
    if len(ref) == 2 and ref[0] == "bnumel":   # the element count of the named tensors' broadcast shape
        shape = _broadcast_of(call, ref[1])
        return int(np.prod(shape, dtype=np.int64)) if isinstance(shape, tuple) else None
    t = call.tensor(ref[0])
    if t is None:
        return None
    index = ref[1] * len(t.shape) + ref[2]
    return t.shape[index] if 0 <= index < len(t.shape) else None


_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt, "<=": operator.le,
            ">=": operator.ge}


def _compared_size(call: CallView, b: Any) -> Any:
    """The right side of a dims comparison: an integer, a dim size or count, or an integer attribute."""
    return b if isinstance(b, int) else dim_size(call, b) if not isinstance(b, str) else call.attrs.get(b)


def _dims_known(call: CallView, a: Mapping) -> bool:
    """Both sides of a dims comparison have a size in this call."""
    y = _compared_size(call, a["b"])
    return dim_size(call, a["a"]) is not None and isinstance(y, int) and not isinstance(y, bool)


def _dims_compare(call: CallView, a: Mapping) -> bool:
    """``a``'s dim size (or element count) compares by ``op`` with ``b``'s (``[tensor, scale,
    offset]`` or ``["numel", tensor]``), the integer ``b`` or the integer attribute named ``b``: the
    host code's failing condition holds. A dim outside its tensor's rank (an earlier check's) does
    not decide."""
    x = dim_size(call, a["a"])
    y = _compared_size(call, a["b"])
    if x is None or not isinstance(y, int) or isinstance(y, bool):
        return False
    return bool(_COMPARE[a["op"]](x, y))


TEMPLATES["dims_compare"] = _dims_compare
REQUIRED_ARGS["dims_compare"] = ("a", "op", "b")
CATEGORIES["dims_compare"] = "shape"


def _dims_nonnegative(call: CallView, a: Mapping) -> bool:
    """A dim of ``param``'s view shape is negative (a loop over its dims rejecting one below 0)."""
    t = call.tensor(a["param"])
    return t is not None and any(d < 0 for d in t.shape)


TEMPLATES["dims_nonnegative"] = _dims_nonnegative
REQUIRED_ARGS["dims_nonnegative"] = ("param",)
CATEGORIES["dims_nonnegative"] = "shape"


def _attr_shape_broadcast(call: CallView, a: Mapping) -> bool:
    """``param``'s shape does not expand to the integer array ``attr`` read as a shape: the array is
    shorter than its rank, or one of its dims, aligned to the right, is neither the array's element
    there nor 1."""
    t, size = call.tensor(a["param"]), _int_values(call.attrs.get(a["attr"]))
    if t is None or size is None:
        return False
    if len(size) < len(t.shape):
        return True
    offset = len(size) - len(t.shape)
    return any(d != size[offset + i] and d != 1 for i, d in enumerate(t.shape))


def _shape_is_attr(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape is not the integer array ``attr``."""
    t, size = call.tensor(a["param"]), _int_values(call.attrs.get(a["attr"]))
    return t is not None and size is not None and tuple(t.shape) != tuple(size)


TEMPLATES.update({"attr_shape_broadcast": _attr_shape_broadcast, "shape_is_attr": _shape_is_attr})
REQUIRED_ARGS.update({"attr_shape_broadcast": ("param", "attr"), "shape_is_attr": ("param", "attr")})
CATEGORIES.update({"attr_shape_broadcast": "shape", "shape_is_attr": "shape"})


def built_shape(call: CallView, a: Mapping) -> tuple[int, ...] | None:
    """The shape ``shape`` names: each dim an integer or a dim of a tensor ([tensor, scale, offset],
    as dims_compare's), then with ``fill`` [value, tensor] that value until the shape has that
    tensor's rank; or the shape ``shape_expr`` computes (``shape_value``); None when a named dim or
    tensor is not in this call."""
    if "shape_expr" in a:
        return shape_value(call, a["shape_expr"])
    dims = []
    for d in a["shape"]:
        size = d if isinstance(d, int) else dim_size(call, d)
        if size is None:
            return None
        dims.append(size)
    if "fill" in a:
        value, tensor = a["fill"]
        t = call.tensor(tensor)
        if t is None:
            return None
        dims += [value] * max(len(t.shape) - len(dims), 0)
    return tuple(dims)


def _shape_is(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape is not the shape ``shape`` (and ``fill``) builds, or ``shape_expr``
    computes (when that shape exists: shapes that do not broadcast are a ``broadcastable_shape``
    rule's); with ``scalar_same``, two shapes of one element each are accepted too (the copy into
    an output, ops-math contiguous.cpp:656-664)."""
    t, shape = call.tensor(a["param"]), built_shape(call, a)
    if t is None or shape is None or tuple(t.shape) == shape:
        return False
    return not (a.get("scalar_same") and math.prod(shape) == 1 and math.prod(t.shape) == 1)


TEMPLATES["shape_is"] = _shape_is
REQUIRED_ARGS["shape_is"] = ("param",)   # and ``shape`` or ``shape_expr`` (predicate checks)
CATEGORIES["shape_is"] = "shape"


def _broadcastable_shape(call: CallView, a: Mapping) -> bool:
    """``param``'s view shape and the shape ``shape`` builds (or ``shape_expr`` computes) do not
    broadcast."""
    t, shape = call.tensor(a["param"]), built_shape(call, a)
    return t is not None and shape is not None and broadcast_shape(tuple(t.shape), shape) is None


def _expands_to_shape(call: CallView, a: Mapping) -> bool:
    """The broadcast of ``param``'s view shape with the shape ``shape`` builds is not that shape:
    ``param`` has more dims, or one of its dims, aligned to the right, is neither the built one nor 1
    (calls that do not broadcast at all are the ``broadcastable_shape`` rule's)."""
    t, shape = call.tensor(a["param"]), built_shape(call, a)
    if t is None or shape is None:
        return False
    return broadcast_shape(tuple(t.shape), shape) not in (None, shape)


TEMPLATES.update({"broadcastable_shape": _broadcastable_shape, "expands_to_shape": _expands_to_shape})
REQUIRED_ARGS.update({"broadcastable_shape": ("param",), "expands_to_shape": ("param",)})   # and a shape
CATEGORIES.update({"broadcastable_shape": "shape", "expands_to_shape": "shape"})


# ---- integer expressions of the host code over dims, ranks and integer attributes ----
# An expression is an integer, ["attr", name], ["elem", name, i] (element i of an integer-array
# argument), ["rank", tensor], ["dim", tensor, scale, offset] (the size of dim scale*rank + offset),
# ["numel", tensor], ["snumel", tensor] (its storage shape's element count), [op, a, b] for op in + - * / % min max & >> (/ and %
# as C's int64 division: truncated toward zero, the remainder taking the dividend's sign; & and >> on
# the two's complement bits, >> arithmetic), or
# ["?", test, a, b], ["i32", a] (a narrowed to a 32-bit int, as C converts it), ["sdim", S, i] (dim i of
# a shape expression S, ``shape_value``) or ["srank", S]
# (its rank). A test is
# [cmp, a, b] for cmp in == != < <= > >=, ["and", t...], ["or", t...], ["not", t], ["same-shape",
# S1, S2], ["guard", g] (a ``guard_holds`` condition) or ["any-elem", attr, t] (t holds for some
# element of the integer array attr, ["each"] in t standing for the element), ["any-dim", S, t] (t holds
# for some dim of the shape expression S, ["each"] standing for it) or ["any-index", n, t] (t holds for
# some integer i from 0 to n - 1, ["each"] standing for i: a loop over dims by their index). A value the call does not give (an absent
# attribute or tensor, an array shorter than the element read, a dim outside its rank, a division by
# zero) is None, and a test reading it does not decide.

def _c_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


_INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "min": min, "max": max,
    "/": _c_div, "%": lambda a, b: a - _c_div(a, b) * b,
    # bits of the two's complement int64 (Python's infinite sign extension keeps its low 64 bits)
    "&": operator.and_, ">>": operator.rshift}


def int_op(op: str, a: int, b: int) -> int | None:
    """``a op b`` as the host code's int64 arithmetic computes it; None for a division by zero and
    for a shift by a negative count or by 64 or more (undefined in C)."""
    if op in ("/", "%") and b == 0 or op == ">>" and not 0 <= b < 64:
        return None
    return _INT_OPS[op](a, b)


def int_value(call: CallView, e: Any) -> int | None:
    """The value of the integer expression ``e`` for ``call``; None where the call does not give it."""
    if isinstance(e, bool):
        return None
    if isinstance(e, int):
        return e
    head = e[0]
    if head == "attr":
        v = call.attrs.get(e[1])
        return v if isinstance(v, int) and not isinstance(v, bool) else None
    if head == "elem":   # element i of an integer array: None for a null array or one of i elements or fewer
        values = call.attrs.get(e[1])
        if isinstance(values, (list, tuple)) and values and all(isinstance(v, bool) for v in values):
            values = [int(v) for v in values]   # a bool array's element: 1 or 0, as C reads it
        values = _int_values(values) if isinstance(values, (list, tuple)) else None
        return values[e[2]] if values is not None and 0 <= e[2] < len(values) else None
    if head == "rank":
        t = call.tensor(e[1])
        return None if t is None else len(t.shape)
    if head == "dim":
        return dim_size(call, list(e[1:]))
    if head == "numel":
        return dim_size(call, ["numel", e[1]])
    if head == "snumel":   # opbase aclTensor::Size(): the element count of the storage shape
        t = call.tensor(e[1])
        return None if t is None else math.prod(t.shape if t.storage is None else t.storage)
    if head == "len":   # an integer array's length: None for a null array
        values = call.attrs.get(e[1])
        return len(values) if isinstance(values, (list, tuple)) else None
    if head == "?":
        held = int_holds(call, e[1])
        return None if held is None else int_value(call, e[2] if held else e[3])
    if head == "srank":   # the rank of a shape expression
        shape = shape_value(call, e[1])
        return None if shape is None else len(shape)
    if head == "prod":   # the product of a shape expression's dims (an element count of some dims)
        shape = shape_value(call, e[1])
        return None if shape is None else math.prod(shape)
    if head == "i32":   # a value a 32-bit int holds, as C converts it (two's complement)
        a = int_value(call, e[1])
        return None if a is None else (a + 2 ** 31) % 2 ** 32 - 2 ** 31
    if head == "sdim":   # a dim of a shape expression
        shape, index = shape_value(call, e[1]), int_value(call, e[2])
        return None if shape is None or index is None or not 0 <= index < len(shape) else shape[index]
    a, b = int_value(call, e[1]), int_value(call, e[2])
    return None if a is None or b is None else int_op(head, a, b)


def int_holds(call: CallView, t: Any) -> bool | None:
    """Whether the integer test ``t`` holds for ``call``; None when a value it reads is not given."""
    head = t[0]
    if head == "guard":   # a branch's condition on dtypes, contiguity or argument values
        return guard_holds(call, t[1])
    if head == "any-elem":   # ["any-elem", attr, t]: t holds for some element of the array (["each"] in t)
        values = call.attrs.get(t[1])
        values = _int_values(values) if isinstance(values, (list, tuple)) else None
        if values is None:
            return None
        held = [int_holds(call, _each(t[2], v)) for v in values]
        return True if True in held else None if None in held else False
    if head == "any-dim":   # ["any-dim", S, t]: t holds for some dim of shape expression S (["each"] in t)
        shape = shape_value(call, t[1])
        if shape is None:
            return None
        held = [int_holds(call, _each(t[2], d)) for d in shape]
        return True if True in held else None if None in held else False
    if head == "any-index":   # ["any-index", n, t]: t holds for some i in [0, n) (["each"] in t standing for i)
        n = int_value(call, t[1])
        if n is None:
            return None
        held = [int_holds(call, _each(t[2], i)) for i in range(max(n, 0))]
        return True if True in held else None if None in held else False
    if head == "same-shape":
        x, y = shape_value(call, t[1]), shape_value(call, t[2])
        return None if x is None or y is None else x == y
    if head == "not":
        held = int_holds(call, t[1])
        return None if held is None else not held
    if head in ("and", "or"):
        held = [int_holds(call, x) for x in t[1:]]
        decided = [h for h in held if h is not None]
        if head == "and" and False in decided or head == "or" and True in decided:
            return head == "or"   # C's short circuit decides without the unknown operands
        return None if len(decided) < len(held) else head == "and"
    a, b = int_value(call, t[1]), int_value(call, t[2])
    return None if a is None or b is None else bool(_COMPARE[head](a, b))


def _each(e: Any, value: int) -> Any:
    """``e`` with each ``["each"]`` (the element an ``any-elem`` test reads) made ``value``."""
    if isinstance(e, (list, tuple)):
        return value if list(e) == ["each"] else type(e)(_each(x, value) for x in e)
    return e


def shape_value(call: CallView, e: Any) -> tuple[int, ...] | None:
    """The shape a shape expression builds for ``call``: ["of", tensor] (its view shape), ["dims",
    [E...]] (each dim an integer expression), ["set-dim", S, i, E] (S with dim i made E, as opbase
    Shape::SetDim; an integer i below 0 counts from the end, as ``GetDimNum() - k``),
    ["broadcast", S1, S2] (opbase BroadcastInferShape), ["slice", S, start, n] (the n dims of S from
    dim start on: a Shape given n dims by SetDimNum, dim i set to S's dim start + i), ["tile", S,
    attr] (ops-math l0op::Tile: S with leading dims of 1 added up to the integer array's length, each
    dim times the array's element at its place), ["concat", S1, S2] (S1's dims, then S2's: AppendDim
    of each), ["?", test, S1, S2]; None where the call does not give it (a null or absent tensor, a
    dim index outside the shape, shapes that do not broadcast, a slice of negative length or reaching
    outside S, an array shorter than S or a product beyond int64), ["array", attr] (an integer array's
    elements as dims)."""
    head = e[0]
    if head == "of":
        t = call.tensor(e[1])
        return None if t is None else tuple(t.shape)
    if head == "dims":
        dims = [int_value(call, d) for d in e[1]]
        return None if None in dims else tuple(dims)
    if head == "set-dim":
        shape, size = shape_value(call, e[1]), int_value(call, e[3])
        if shape is None or size is None:
            return None
        index = e[2] + len(shape) if isinstance(e[2], int) and e[2] < 0 else int_value(call, e[2])
        if index is None or not 0 <= index < len(shape):
            return None
        return shape[:index] + (size,) + shape[index + 1:]
    if head == "broadcast":
        x, y = shape_value(call, e[1]), shape_value(call, e[2])
        return None if x is None or y is None else broadcast_shape(x, y)
    if head == "concat":
        x, y = shape_value(call, e[1]), shape_value(call, e[2])
        return None if x is None or y is None else x + y
    if head == "slice":
        shape, start, n = shape_value(call, e[1]), int_value(call, e[2]), int_value(call, e[3])
        if shape is None or start is None or n is None or n < 0:
            return None
        if n == 0:   # no dim is read: the start does not matter
            return ()
        return shape[start:start + n] if 0 <= start and start + n <= len(shape) else None
    if head == "tile":
        shape, values = shape_value(call, e[1]), call.attrs.get(e[2])
        values = _int_values(values) if isinstance(values, (list, tuple)) else None
        if shape is None or values is None or len(values) < len(shape):
            return None
        dims = tuple(d * r for d, r in zip((1,) * (len(values) - len(shape)) + shape, values))
        return dims if all(-2 ** 63 <= d < 2 ** 63 for d in dims) else None
    if head == "?":
        held = int_holds(call, e[1])
        return None if held is None else shape_value(call, e[2] if held else e[3])
    if head == "array":   # an integer array's elements read as dims (a normalized shape)
        values = call.attrs.get(e[1])
        values = _int_values(values) if isinstance(values, (list, tuple)) else None
        return None if values is None else tuple(values)
    raise TemplateError(f"unknown shape expression {e!r}")


def slice_outside(call: CallView, e: Any) -> bool:
    """A slice in the shape expression ``e`` reads, for ``call``, outside the shape it slices (or has a
    negative length), or a tile of it has no shape (Tile's null result for an array shorter than the
    shape, a dim int64 does not hold): the host code then reads dims the shape does not hold or fails
    before the comparison, so no rule decides on it."""
    if e[0] in ("of", "dims", "array"):
        return False
    if e[0] in ("slice", "tile"):
        return shape_value(call, e[1]) is not None and shape_value(call, e) is None \
            or slice_outside(call, e[1])
    if e[0] == "?":
        held = int_holds(call, e[1])
        return held is not None and slice_outside(call, e[2] if held else e[3])
    return any(slice_outside(call, x) for x in (e[1:2] if e[0] == "set-dim" else e[1:3]))   # a broadcast's or concat's two


def _int_test(call: CallView, a: Mapping) -> bool:
    """The host code's failing integer test ``test`` holds for the call (a test the call's values do
    not decide does not hold: ``undecided_predicate`` leaves that call not judged)."""
    return int_holds(call, a["test"]) is True


MAX_LEAF_RANK = 8   # the passes of an ``any-index`` loop whose leaves a search changes (aclnn's tensors: 8 dims)


def int_leaves(e: Any) -> list[tuple]:
    """The attributes and tensor dims an integer expression or test reads: ("attr", name), ("elem",
    name, i), ("dim", tensor, scale, offset), ("rank", tensor), ("numel", tensor), ("snumel", tensor) or ("len",
    name)
    (an integer array's length a guard compares), in order, without repeats."""
    out: list[tuple] = []
    if isinstance(e, (list, tuple)) and e:
        if e[0] in ("attr", "elem", "dim", "rank", "numel", "snumel", "len"):
            out.append(tuple(e))
        elif e[0] == "of":   # a tensor's whole shape: its rank stands for it
            out.append(("rank", e[1]))
        elif e[0] == "guard":   # only the array lengths a guard compares are integers
            out += [leaf for leaf in _lengths_compared(e[1]) if leaf not in out]
        elif e[0] == "array":   # an integer array's elements as dims: its length stands for it
            out.append(("len", e[1]))
        elif e[0] == "tile":   # a shape tiled by an integer array: the shape's leaves, the array's length
            out += [leaf for leaf in int_leaves(e[1]) + [("len", e[2])] if leaf not in out]
        elif e[0] == "any-index":   # a loop over dims: the count's leaves, then those of each pass up to rank 8
            for x in [e[1]] + [_each(e[2], i) for i in range(MAX_LEAF_RANK)]:
                out += [leaf for leaf in int_leaves(x) if leaf not in out]
        else:
            for x in e[1:]:
                out += [leaf for leaf in int_leaves(x) if leaf not in out]
    return out


def _lengths_compared(g: Any) -> list[tuple]:
    """("len", attr) of each ``["attr-len", attr, op, n]`` atom of a guard, and the array lengths an
    ``["int", t]`` atom compares."""
    if not isinstance(g, (list, tuple)) or not g:
        return []
    if g[0] == "attr-len":
        return [("len", g[1])]
    if g[0] == "int":
        return [leaf for leaf in int_leaves(g[1]) if leaf[0] == "len"]
    return [leaf for x in g[1:] for leaf in _lengths_compared(x)]


TEMPLATES["int_test"] = _int_test
REQUIRED_ARGS["int_test"] = ("test",)
CATEGORIES["int_test"] = "shape"


def _cast_routed(call: CallView, a: Mapping) -> bool:
    """l0op::Cast of ``from_expr`` to ``to_expr`` (computed dtypes) has no route on the rule's products:
    the pair is one of ``refused`` (ops-math cast.cpp: neither an AiCore pair of the arch nor two
    AICPU dtypes; the extraction lists the refused pairs among the dtypes the expressions can take)."""
    src, dst = dtype_value(call, a["from_expr"]), dtype_value(call, a["to_expr"])
    return src is not None and dst is not None and (src, dst) in {tuple(p) for p in a["refused"]}


TEMPLATES["cast_routed"] = _cast_routed
REQUIRED_ARGS["cast_routed"] = ("from_expr", "to_expr", "refused")
CATEGORIES["cast_routed"] = "dtype"
