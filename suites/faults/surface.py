"""One-fault cases of every data operator, derived from each check rule's template: the base call
with that rule broken. A fault is kept only when, on at least one product under one profile, its
rule is the one that decides the call (so nothing checked before it is broken there)."""
from __future__ import annotations

import itertools
import math
from functools import lru_cache
from typing import Callable

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtype_promotion import can_cast, promote_type
from aclnn_conformance.spec.faults import Fault
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.templates import predicate, view_of_case
from aclnn_conformance.suites.calls.surface import (PREFERRED, PerOperator, base_call, decides_somewhere,
                                                    has_storage, int_test_changes, tensor_arg,
                                                    with_shape)

FAULT_DTYPES = PREFERRED + ("HIFLOAT8", "FLOAT8_E4M3FN")
PRIVATE = "FRACTAL_NZ"


def _dtype_of(case: Case, name: str) -> str | None:
    if name in case.tensors:
        arg = case.tensors[name]
        return None if arg is None else arg.desc.dtype.name
    value = case.attrs.get(name)
    return value["dtype"] if isinstance(value, dict) else None


def _with_dtype(case: Case, name: str, dtype: str) -> Case:
    if name in case.tensors:
        arg = case.tensors[name]
        return case.with_tensor(name, tensor_arg(dtype, arg.desc.shape, arg.desc.format.name))
    if isinstance(case.attrs.get(name), dict):
        return case.with_attrs(**{name: {**case.attrs[name], "dtype": dtype}})
    raise KeyError(name)


def _with_shape_all(case: Case, shape: tuple[int, ...]) -> Case:
    for name, arg in case.tensors.items():
        if arg is not None:
            case = case.with_tensor(name, tensor_arg(arg.desc.dtype.name, shape, arg.desc.format.name))
    return case


def _candidates(rule: dict) -> list[Callable[[Case], Case]]:
    """Ways to break ``rule`` alone, tried in order."""
    t, a = rule["template"], rule["args"]
    if t == "null":
        p = a["param"]
        if p in ("workspaceSize", "executor"):
            return [lambda c: c.with_(null_outputs=c.null_outputs | {p})]
        return [lambda c: c.with_tensor(p, None) if p in c.tensors else c.with_attrs(**{p: None})]
    if t == "dtype_in":
        return [lambda c, d=d: _with_dtype(c, a["param"], d) for d in FAULT_DTYPES if d not in a["dtypes"]]
    if t == "dtype_not_in":   # a dtype without storage (UNDEFINED) makes no case
        return [lambda c, d=d: _with_dtype(c, a["param"], d) for d in a["dtypes"] if has_storage(d)]
    if t == "dtypes_equal":
        return [lambda c, d=d: _with_dtype(c, a["param"], d) for d in FAULT_DTYPES]
    if t in ("dtypes_equal_expr", "dtype_expr_in"):
        # the checked tensor's own dtype, then each dtype the expression reads
        names = ([a["param"]] if "param" in a else []) + _dtype_operands(a)
        return [lambda c, n=n, d=d: _with_dtype(c, n, d) for n in names for d in FAULT_DTYPES]
    if t == "cast_routed":   # one operand's dtype, then two at once, kept where the pair has no route
        names = _dtype_operands(a)
        changes = [((n, d),) for n in names for d in FAULT_DTYPES]
        changes += [((n, d), (m, e)) for n, m in itertools.combinations(names, 2) for d in FAULT_DTYPES
                    for e in FAULT_DTYPES]
        return [lambda c, ch=ch: _without_route(c, ch, a) for ch in changes]
    if (t == "castable" and "to" not in a and "to_dtype" not in a) or (t == "promotable" and "other" not in a):
        # a computed dtype (``from_expr``/``to_expr``/``expr``): each dtype of each tensor it reads,
        # kept only where it decides (faults() checks every candidate)
        return [lambda c, n=n, d=d: _with_dtype(c, n, d) for n in _dtype_operands(a) for d in FAULT_DTYPES]
    if t == "castable":
        target = a.get("to")
        if target is None:
            src = a.get("param")
            return [lambda c, d=d: _with_dtype(c, src, d) for d in FAULT_DTYPES
                    if not can_cast(d, a["to_dtype"])]
        return [lambda c, d=d: _with_dtype(c, target, d) for d in FAULT_DTYPES]
    if t == "promotable":
        def unpromotable(c: Case) -> Case:
            mine = _dtype_of(c, a["param"]) or "FLOAT"
            return _with_dtype(c, a["other"], next(d for d in FAULT_DTYPES if promote_type(mine, d) is None))
        return [unpromotable]
    if t == "combination_in":   # one tensor's dtype changed: kept where no single list rejects it first
        return [lambda c, n=n, d=d: _with_dtype(c, n, d) for n in a["params"] for d in FAULT_DTYPES]
    if t == "format_in":
        return [lambda c, f=f: c.with_tensor(a["param"], tensor_arg(
            c.tensors[a["param"]].desc.dtype.name, c.tensors[a["param"]].desc.shape, f))
            for f in (PRIVATE, "NC1HWC0", "NHWC", "ND") if f not in a["formats"]]
    if t == "private_format":
        fmts = a["formats"] if isinstance(a.get("formats"), list) else [PRIVATE, "NC1HWC0"]
        return [lambda c, f=f: c.with_tensor(a["param"], tensor_arg(
            c.tensors[a["param"]].desc.dtype.name, c.tensors[a["param"]].desc.shape, f)) for f in fmts]
    if t == "rank_range":
        out = []
        if "max" in a:
            out.append(lambda c: _with_shape_all(c, (1,) * (a["max"] + 1)))
            out.append(lambda c: with_shape(c, a["param"], (1,) * (a["max"] + 1)))
        if a.get("min", 0) > 0:
            out.append(lambda c: _with_shape_all(c, (2,) * (a["min"] - 1)))
            out.append(lambda c: with_shape(c, a["param"], (2,) * (a["min"] - 1)))
        return out
    if t == "shapes_equal":
        def one_dim(c: Case) -> Case:
            shape = c.tensors[a["param"]].desc.shape
            return with_shape(c, a["param"], (1,) + shape[1:] if shape else (2,))
        def longer(c: Case) -> Case:
            shape = c.tensors[a["param"]].desc.shape
            return with_shape(c, a["param"], (shape[0] + 1,) + shape[1:] if shape else (2,))
        return [one_dim, longer]
    if t == "broadcastable":
        def clash(c: Case) -> Case:
            shape = c.tensors[a["param"]].desc.shape
            return with_shape(c, a["param"], (shape[0] + 1,) + shape[1:] if shape else (3,))
        def batch_clash(c: Case) -> Case:   # a leading batch dim of 2 against one of 3
            x, y = (tuple(c.tensors[n].desc.shape) for n in (a["param"], a["other"]))
            return with_shape(with_shape(c, a["param"], (2,) + x), a["other"], (3,) + y)
        return [batch_clash] if a.get("drop_last") else [clash]
    if t == "scalar_test":
        return _value_test_candidates(a["test"])
    if t == "dims_compare":   # the compared dim of either tensor made 1 larger, or made equal
        return [lambda c, ref=ref, grow=grow: _with_dim(c, ref, a, grow)
                for ref in ([a["a"]] + ([a["b"]] if not isinstance(a["b"], (int, str)) else [])) for grow in (1, 0)]
    if t == "attr_in_rank_range":   # one past the bound the base call's tensor rank gives
        return [lambda c, key=key, step=step: _with_rank_bound(c, a, key, step)
                for key, step in (("max", 1), ("min", -1)) if key in a]
    if t == "string_in":   # a word the code accepts with its last letter changed, and the empty string
        word = a["values"][0]
        changed = word[:-1] + ("y" if word.endswith("x") else "x")
        refused = [v for v in (changed, "") if v not in a["values"]
                   and not (a.get("prefix") and any(v.startswith(x) for x in a["values"]))]
        return [lambda c, v=v: c.with_attrs(**{a["attr"]: v}) for v in refused]
    if t == "attr_range":
        bad = [a["min"] - 1] if "min" in a else []
        bad += [a["max"] + 1] if "max" in a else []
        return [lambda c, v=v: c.with_attrs(**{a["attr"]: v}) for v in bad]
    if t in ("reduced_shape", "split_shape"):   # the output given its source's shape, one dim more
        return [lambda c: with_shape(c, a["param"], tuple(c.tensors[a["of"]].desc.shape) + (2,)),
                lambda c: with_shape(c, a["param"], tuple(c.tensors[a["of"]].desc.shape))]
    if t == "ranks_equal":   # one dim more than the other tensor (than its rank-0 count, where given)
        def longer(c: Case) -> Case:
            other = tuple(c.tensors[a["other"]].desc.shape)
            base = other if other or "other_rank0" not in a else (1,) * a["other_rank0"]
            return with_shape(c, a["param"], base + (1,))
        return [longer]
    if t == "attr_dim_divisible":   # the named dim one past a multiple of the parts, in its shape's tensors
        return [lambda c: _with_split_dim(c, a)]
    if t == "attr_shape_broadcast":   # the array one element short, or its last element clashing
        return [lambda c, clash=clash: _with_expand_size(c, a, clash) for clash in (False, True)]
    if t == "shape_is":   # one dim more than the shape built
        return [lambda c: with_shape(c, a["param"], _built(c, a) + (2,))]
    if t in ("broadcastable_shape", "expands_to_shape"):
        def clash(c: Case) -> Case:   # a dim of the built shape that is not 1 met by another size
            shape = _built(c, a)
            i = next((i for i, d in enumerate(shape) if d != 1), None)
            if i is None:
                raise ValueError("every dim of the built shape is 1: any size broadcasts with it")
            return with_shape(c, a["param"], shape[:i] + (shape[i] + 1 if shape[i] else 2,) + shape[i + 1:])
        if t == "broadcastable_shape" and "shape_expr" in a:
            return [clash, lambda c: _batch_clash_expr(c, a)]
        if t == "broadcastable_shape":
            return [clash]
        return [lambda c: with_shape(c, a["param"], (2,) + _built(c, a))]   # one leading dim more
    if t == "int_test":   # each attribute and dim the test reads set to small sizes and to neighbours of its own
        return int_test_changes(a["test"])
    if t == "shape_is_attr":   # the tensor one dim longer than the array
        return [lambda c: with_shape(c, a["param"], tuple(c.attrs.get(a["attr"]) or ()) + (2,))]
    return []


def _batch_clash_expr(case: Case, a: dict) -> Case:
    """``case`` with a leading batch dim of 2 on ``param`` and of 3 on each other tensor the rule's
    ``shape_expr`` reads (their shapes otherwise kept: the dims compared between them still agree)."""
    names: set[str] = set()

    def read(e) -> None:   # the tensors whose shapes the expression starts from
        if e[0] == "of":
            names.add(e[1])
        for x in e[1:2] if e[0] in ("set-dim", "slice", "tile") else e[1:3] if e[0] in ("broadcast", "concat") else \
                e[2:4] if e[0] == "?" else ():
            read(x)
    read(a["shape_expr"])
    case = with_shape(case, a["param"], (2,) + tuple(case.tensors[a["param"]].desc.shape))
    for name in sorted(names - {a["param"]}):
        case = with_shape(case, name, (3,) + tuple(case.tensors[name].desc.shape))
    return case


def _built(case: Case, a: dict) -> tuple[int, ...]:
    """The shape a rule's ``shape`` (and ``fill``) builds for ``case``; ValueError (no candidate)
    when it names a dim outside its tensor."""
    from aclnn_conformance.spec.templates import built_shape, view_of_case
    shape = built_shape(view_of_case(case), a)
    if shape is None:
        raise ValueError("the built shape names a dim outside its tensor")
    return shape


def _with_expand_size(case: Case, a: dict, clash: bool) -> Case:
    """``case`` with the integer array ``attr`` made ``param``'s shape without its first dim, or with its
    last dim one larger where that dim is not 1; every tensor of the old array's shape given the new."""
    shape = tuple(case.tensors[a["param"]].desc.shape)
    if not shape or (clash and shape[-1] == 1):
        return case
    size = shape[:-1] + (shape[-1] + 1,) if clash else shape[1:]
    old = tuple(case.attrs.get(a["attr"]) or ())
    for name, t in case.tensors.items():
        if t is not None and tuple(t.desc.shape) == old and name != a["param"]:
            case = with_shape(case, name, size)
    return case.with_attrs(**{a["attr"]: list(size)})


def _with_split_dim(case: Case, a: dict) -> Case:
    """``case`` with the dim ``attr`` names in ``tensor`` (and in every tensor of its shape) made one
    more than a multiple of ``by``; outputs that are its parts keep their size."""
    shape = tuple(case.tensors[a["tensor"]].desc.shape)
    v = case.attrs[a["attr"]]
    d = v + len(shape) if v < 0 else v
    new = tuple(a["by"] * max(1, n // a["by"]) + 1 if i == d else n for i, n in enumerate(shape))
    for name, arg in case.tensors.items():
        if arg is not None and tuple(arg.desc.shape) == shape:
            case = with_shape(case, name, new)
    return case


def _with_rank_bound(case: Case, args: dict, key: str, step: int) -> Case:
    """``case`` with the integer attribute (or each element of an integer array) one past the
    ``key`` bound of ``attr_in_rank_range`` at the rank of its tensor in ``case``."""
    from aclnn_conformance.spec.templates import rank_bound
    tensor = case.tensors[args["tensor"]]
    value = rank_bound(args, key, len(tensor.desc.shape)) + step
    held = case.attrs.get(args["attr"])
    return case.with_attrs(**{args["attr"]: [value] * len(held) if isinstance(held, (list, tuple)) else value})


def _with_dim(case: Case, ref, args: dict, grow: int) -> Case:
    """``case`` with dim scale*rank + offset of the tensor ``ref`` names resized: one larger
    (``grow``), or to the size it is compared with (the other side's, or the integer)."""
    if ref[0] == "bnumel":
        raise ValueError("a broadcast's element count is changed through the tensor compared with it")
    if ref[0] == "numel":   # an element count: its last dim changed (the rank kept)
        name = ref[1]
        shape = list(case.tensors[name].desc.shape)
        if not shape:
            raise ValueError("a rank-0 tensor's element count is 1")
        index = len(shape) - 1
        if not grow:
            shape[:index] = [1] * index
    else:
        name, scale, offset = ref
        shape = list(case.tensors[name].desc.shape)
        index = scale * len(shape) + offset
        if not 0 <= index < len(shape):
            raise ValueError("the compared dim is outside the tensor's rank")
    if grow:
        shape[index] += 1
    else:
        other = args["b"] if ref == args["a"] else args["a"]
        if isinstance(other, str):
            other = case.attrs.get(other)
            if not isinstance(other, int):
                raise ValueError("the compared attribute is no integer")
        if isinstance(other, int):
            shape[index] = other
        else:
            from aclnn_conformance.spec.templates import dim_size, view_of_case
            shape[index] = dim_size(view_of_case(case), other)
    return with_shape(case, name, tuple(shape))


def _value_test_candidates(test: list) -> list[Callable[[Case], Case]]:
    """Scalar values at, beside and across each number the test compares with (NaN too), with every
    setting of the bool flags it reads (faults() keeps the first that decides)."""
    numbers: dict[str, set[float]] = {}
    integral: dict[str, bool] = {}   # an integer argument: integer values, no NaN
    relative: list[tuple[str, str]] = []   # (argument, the argument it is compared with)
    flags: list[str] = []

    def walk(t) -> None:
        if t[0] == "cmp" and isinstance(t[4], (list, tuple)):   # against another argument's value
            numbers.setdefault(t[1], set())
            integral[t[1]] = t[2] == "int"
            relative.append((t[1], t[4][1]))
        elif t[0] == "cmp":
            numbers.setdefault(t[1], set()).add(float(t[4]))
            integral[t[1]] = t[2] == "int"
        elif t[0] in ("nan", "inf"):
            numbers.setdefault(t[1], set())
            integral[t[1]] = False
        elif t[0] == "flag":
            flags.append(t[1])
        else:
            for x in t[1:]:
                walk(x)
    walk(test)
    out = []
    for name, nums in numbers.items():
        # the midpoints too: a value inside a narrow interval (``fabs(p - c) < eps``)
        mids = {(x + y) / 2 for x in nums for y in nums if x < y}
        values = sorted({v for x in nums for v in (x, x - 1.0, x + 1.0, -x)} | mids) + \
            [float("inf"), float("-inf"), float("nan")]
        if integral[name]:
            values = sorted({int(v) for v in values if math.isfinite(v) and v == int(v)})
        for v in values:
            for setting in itertools.product((True, False), repeat=len(flags)):
                def build(c: Case, name=name, v=v, setting=setting) -> Case:
                    return _with_value(c, name, v).with_attrs(**dict(zip(flags, setting)))
                out.append(build)
    for name, other in relative:   # the other argument's value, and one either side of it
        for step in (-1.0, 0.0, 1.0):
            out.append(lambda c, name=name, other=other, step=step: _with_value(c, name, _value_of(c, other) + step))
    return out


def _value_of(case: Case, name: str) -> float:
    held = case.attrs[name]
    return float(held["value"] if isinstance(held, dict) else held)


def _with_value(case: Case, name: str, v: float) -> Case:
    """``case`` with the aclScalar (``{dtype, value}``) or plain argument ``name`` set to ``v``."""
    held = case.attrs[name]
    if isinstance(held, dict):
        return case.with_attrs(**{name: {**held, "value": v}})
    return case.with_attrs(**{name: int(v) if isinstance(held, int) else v})


def _without_route(case: Case, changes: tuple, args: dict) -> Case:
    """``case`` with each (operand, dtype) of ``changes``; ValueError (no candidate) unless the
    rule's cast then meets a pair without a route (checked before the costlier search for the
    rule deciding the call)."""
    for name, dtype in changes:
        case = _with_dtype(case, name, dtype)
    if not predicate("cast_routed", args)(view_of_case(case)):
        raise ValueError("the cast has a route")
    return case


def _dtype_operands(args: dict) -> list[str]:
    """The tensors whose dtypes a rule's dtype expressions read (``["of", name]``), in order."""
    found: list[str] = []

    def walk(e) -> None:
        if isinstance(e, list):
            if len(e) == 2 and e[0] == "of" and isinstance(e[1], str):
                if e[1] not in found:
                    found.append(e[1])
                return
            for x in e:
                walk(x)
    for key in ("expr", "from_expr", "to_expr"):
        walk(args.get(key))
    return found


@lru_cache(maxsize=None)
def faults(key: str) -> dict[str, Fault]:
    """Rule id -> Fault for every check rule that has a one-fault case."""
    out: dict[str, Fault] = {}
    base = base_call(key)
    for rule in data_of(key)["rules"]:
        if rule["kind"] != "check" or rule["template"] in ("unread", "product"):
            continue
        for build in _candidates(rule):
            try:
                case = build(base)
            except (KeyError, AttributeError, ValueError, TypeError):
                continue
            if decides_somewhere(key, case, rule["id"]):
                out[rule["id"]] = Fault(build, "base")
                break
    return out


FAULTS = PerOperator(faults, "faults")
