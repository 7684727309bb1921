"""The calls of every data operator (``spec.operator_data``), built from its rules alone: the base
call (the smallest call that every code-read check of every product accepts), its table cases
(the base call, a non-contiguous and an ND-like-format variant where the rules allow them, an empty
call where the code returns early) and its fault bases. Each record reaches its pieces here through
its key: ``BASE_CALL.<key>``, ``TABLE_CASES.<key>``, ``FAULT_BASES.<key>``."""
from __future__ import annotations

import itertools
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType, AclFormat
from aclnn_conformance.spec.surface_cases import data_value_cases
from aclnn_conformance.spec.surface_values import has_value_entry
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc

# the dtypes a base call tries first, most common first
PREFERRED = ("FLOAT", "FLOAT16", "BF16", "INT32", "INT64", "DOUBLE", "INT8", "UINT8", "INT16", "BOOL",
             "COMPLEX64", "COMPLEX128", "UINT16", "UINT32", "UINT64")
TENSOR_KINDS = ("tensor",)
BASE_DIMS = (2, 3, 4, 5, 2, 3, 2, 2)
MAX_COMBINATIONS = 400


class NoValidCall(ValueError):
    """The rules admit no call the builder can find (an operator whose base call is not judged)."""


def code_checks(key: str) -> list[dict]:
    return [r for r in data_of(key)["rules"] if r["kind"] == "check" and r["known_by"] == "code"]


def signature_params(key: str) -> list[dict]:
    return [p for p in data_of(key)["params"] if p["c_kind"] not in ("workspace_size", "executor")]


def _allowed(key: str, name: str) -> list[str]:
    """The dtypes every product's code-read checks accept for ``name`` (intersection), best first."""
    sets = [set(r["args"]["dtypes"]) for r in code_checks(key)
            if r["template"] == "dtype_in" and r["args"]["param"] == name]
    banned = set().union(*[set(r["args"]["dtypes"]) for r in code_checks(key)
                           if r["template"] == "dtype_not_in" and r["args"]["param"] == name])
    if sets:
        common = set.intersection(*sets)
        if not common:   # no dtype serves every product: the most widely accepted ones
            common = set.union(*sets)
    else:
        doc = next((p.get("doc") or {} for p in data_of(key)["params"] if p["name"] == name), {})
        common = set(doc.get("dtypes") or PREFERRED[:1])
    order = [d for d in PREFERRED if d in common] + sorted(d for d in common - set(PREFERRED) if has_storage(d))
    return [d for d in order if d not in banned] or order


def has_storage(dtype: str) -> bool:
    """A dtype a case can hold storage of (a NumPy element type)."""
    try:
        numpy_dtype(AclDataType[dtype])
    except (KeyError, ValueError):
        return False
    return True


def _rank(key: str, param: str | None = None) -> int:
    """A rank every code-read rank rule (of ``param``, or of any tensor) accepts: 2 if it can be."""
    lo, hi = 0, 8
    for r in code_checks(key):
        if r["template"] == "rank_range" and (param is None or r["args"]["param"] == param):
            lo = max(lo, r["args"].get("min", 0))
            hi = min(hi, r["args"].get("max", 8))
    return min(max(2, lo), hi) if lo <= hi else 2


def tensor_arg(dtype: str, shape: tuple[int, ...], fmt: str = "ND", seed: int = 0) -> TensorArg:
    """A contiguous tensor of ``shape`` with small positive values (integers 0..4, booleans 0/1); its
    values a fresh copy (a backend may write into a tensor it is given)."""
    desc, values = _tensor_made(dtype, tuple(shape), fmt, seed)
    return TensorArg(desc, values.copy())


@lru_cache(maxsize=4096)
def _tensor_made(dtype: str, shape: tuple[int, ...], fmt: str, seed: int) -> tuple[TensorDesc, np.ndarray]:
    """The descriptor and values of ``tensor_arg``, drawn once: the shape search of a valid call
    makes the same tensors thousands of times."""
    dt = AclDataType[dtype]
    desc = TensorDesc.contiguous(shape, dt, AclFormat[fmt])
    count = int(np.prod(shape)) if shape else 1
    rng = np.random.default_rng(seed)
    npdt = numpy_dtype(dt)
    if npdt.kind in "iub":
        values = rng.integers(0, 2 if npdt.kind == "b" else 5, size=count).astype(npdt)
    elif npdt.kind == "c":
        values = (rng.uniform(0.5, 1.5, count) + 1j * rng.uniform(0.5, 1.5, count)).astype(npdt)
    else:
        values = rng.uniform(0.5, 1.5, count).astype(np.float32).astype(npdt)
    values.flags.writeable = False   # the cached draw; each tensor_arg gets a copy
    return desc, values


def _attr_value(p: dict, dtype: str | None) -> Any:
    kind = p["c_kind"]
    if kind == "scalar":
        return {"dtype": dtype or "FLOAT", "value": 1.0}
    return {"double": 1.0, "float": 1.0, "int64": 0, "bool": False, "string": "", "dtype": 0,
            "int_array": [0], "bool_array": [False], "float_array": [1.0]}.get(kind)


def _accepted_everywhere(key: str, case: Case) -> bool:
    """No code-read check rejects ``case`` on a product that supports the API under cann (a check
    the extraction could not read leaves the call not judged, not rejected)."""
    spec = operator(key).spec
    for product in sorted(spec.supported["cann"]):
        if expected_outcome(spec, case, product, "cann").kind not in ("success", "not_judged"):
            return False
    return True


def build_call(key: str, dtypes: dict[str, str], shape: tuple[int, ...], case_id: str,
               fmt: str = "ND", origin: str = "table") -> Case:
    tensors, attrs = {}, {}
    for i, p in enumerate(signature_params(key)):
        if p["c_kind"] in TENSOR_KINDS:
            own = _rank(key, p["name"])
            mine = shape if len(shape) == own or own == _rank(key) else tuple(BASE_DIMS[:own])
            tensors[p["name"]] = tensor_arg(dtypes[p["name"]], mine, fmt, seed=i)
        else:
            attrs[p["name"]] = _in_range(key, p["name"], _attr_value(p, dtypes.get(p["name"])))
    case = Case(op=key, case_id=case_id, tensors=tensors, attrs=attrs, origin=origin)
    return reshaped_outputs(key, with_dims_agreeing(key, reshaped_outputs(key, case)))


def with_dims_agreeing(key: str, case: Case) -> Case:
    """``case`` changed, one dim or integer attribute at a time, so that no code-read ``dims_compare``
    or ``int_test`` rule rejects it, and no ``shapes_equal`` rule: a dim made the size it is compared
    with (or one more or less), alone or with the tensors of its shape, or the attribute made the
    dim's size; for an integer test, each change ``int_test_changes`` lists; for two tensors of one
    shape, either given the other's; a change is kept only when it breaks no shape rule that held,
    or when the steps after it leave fewer rules broken (a guard it brings into force). A rule no
    such change satisfies is left violated (the call is then not valid)."""
    from aclnn_conformance.spec.templates import predicate, undecided_predicate, view_of_case
    shaping = _shaping_rules(key)
    found_key = (key, _shapes_fingerprint(case)) if _shaping_ignores_dtypes(key) else None
    if found_key in _SHAPES_FOUND:   # the same shapes and attributes with other dtypes: the same changes
        return _with_found(case, _SHAPES_FOUND[found_key])

    # the steps below meet the same calls again and again (each lookahead reruns the greedy steps):
    # what a call breaks, and where the greedy steps take it, are computed once per call
    broken_of: dict[tuple, frozenset[str]] = {}
    greedy_of: dict[tuple, Case] = {}

    def broken(c: Case) -> frozenset[str]:   # violated, or left undecided (an integer test reading outside a shape)
        key = _fingerprint(c)
        if key not in broken_of:
            broken_of[key] = frozenset(
                r["id"] for r in shaping
                if ("when" not in r["args"] or _guard_holds(c, r["args"]["when"]))
                and (predicate(r["template"], r["args"])(view_of_case(c))
                     or (undecided_predicate(r["template"], r["args"]) or (lambda _: False))(view_of_case(c))))
        return broken_of[key]

    fixable = [r for r in shaping if r["template"] in ("dims_compare", "int_test", "shapes_equal")]

    def fixes(c: Case, r: dict):
        return _dims_fixes(c, r["args"]) if r["template"] == "dims_compare" else \
            _changed(c, int_test_changes(r["args"]["test"])) if r["template"] == "int_test" else \
            _changed(c, _shape_taken(r["args"]))

    def greedy(c: Case) -> Case:
        start = _fingerprint(c)
        if start in greedy_of:
            return greedy_of[start]
        for r in fixable * 3:   # three passes: a fix may bring rules skipped under their guard into force
            now = broken(c)
            if r["id"] not in now:
                continue
            for candidate in fixes(c, r):
                if candidate is not None and broken(candidate) <= now - {r["id"]}:
                    c = candidate   # this rule satisfied, and none broken that held before
                    break
        greedy_of[start] = c
        return c

    given = case
    case = greedy(case)
    for r in fixable:   # one step of lookahead: a change that breaks rules the greedy steps then mend
        left = broken(case)
        if r["id"] not in left:
            continue
        for candidate in fixes(case, r):
            tried = greedy(candidate) if candidate is not None else None
            if tried is not None and len(broken(tried)) < len(left):
                case = tried
                break
    if found_key is not None:
        _SHAPES_FOUND[found_key] = (
            {n: (a.desc.shape, a.desc.format.name) for n, a in case.tensors.items() if a is not given.tensors[n]},
            {k: v for k, v in case.attrs.items() if k not in given.attrs or given.attrs[k] != v})
    return case


# (key, what the shape search reads of a call) -> the tensors it remade (shape, format) and the
# attributes it set: the search reads no dtype where _shaping_ignores_dtypes, so a call differing
# only in dtypes takes the same changes (valid_dtype_choices tries up to MAX_COMBINATIONS of them)
_SHAPES_FOUND: dict[tuple, tuple[dict, dict]] = {}
_DTYPE_HEADS = frozenset({"in", "same", "cast", "pair-in", "promote", "combine", "restrict", "dtype", "attr_dtype"})


@lru_cache(maxsize=None)
def _shaping_rules(key: str) -> tuple[dict, ...]:
    """The code-read rules on shapes and integers that a valid call is fitted to."""
    return tuple(r for r in code_checks(key)
                 if r["template"] in ("dims_compare", "shapes_equal", "broadcast_equals", "reduced_shape",
                                      "int_test", "rank_range", "ranks_equal"))


@lru_cache(maxsize=None)
def _shaping_ignores_dtypes(key: str) -> bool:
    """No shaping rule of ``key`` (its test or its guard) reads a dtype."""
    def reads(x: Any) -> bool:
        if isinstance(x, dict):
            return any(reads(v) for v in x.values())
        if isinstance(x, (list, tuple)):
            return bool(x) and isinstance(x[0], str) and x[0] in _DTYPE_HEADS or any(reads(v) for v in x)
        return False
    return not any(reads(r["args"]) for r in _shaping_rules(key))


def _shapes_fingerprint(case: Case) -> tuple:
    """``_fingerprint`` without the tensors' dtypes."""
    return (tuple((n, None if a is None else (a.desc.shape, a.desc.strides, a.desc.offset, a.desc.format,
                                              a.desc.storage_shape)) for n, a in sorted(case.tensors.items())),
            repr(sorted(case.attrs.items())), tuple(sorted(case.null_outputs)))


def _with_found(case: Case, found: tuple[dict, dict]) -> Case:
    """``case`` with the tensors and attributes the shape search changed in a call of its shapes."""
    tensors, attrs = found
    for name, (shape, fmt) in tensors.items():
        case = case.with_tensor(name, tensor_arg(case.tensors[name].desc.dtype.name, shape, fmt))
    return case.with_attrs(**attrs) if attrs else case


def _fingerprint(case: Case) -> tuple:
    """What the shape rules read of a call: each tensor's descriptor, the attributes, the null outputs."""
    return (tuple((name, None if arg is None else arg.desc) for name, arg in sorted(case.tensors.items())),
            repr(sorted(case.attrs.items())), tuple(sorted(case.null_outputs)))


def _shape_taken(a: dict) -> list[Callable[[Case], Case]]:
    """Each of two tensors a ``shapes_equal`` rule ties given the other's shape."""
    return [lambda c, x=x, y=y: with_shape(c, x, tuple(c.tensors[y].desc.shape))
            for x, y in ((a["param"], a["other"]), (a["other"], a["param"]))]


def _changed(case: Case, changes: list[Callable[[Case], Case]]):
    """``case`` under each change that applies to it, in order."""
    for change in changes:
        try:
            yield change(case)
        except (KeyError, TypeError, ValueError):
            continue


def _dims_fixes(case: Case, a: dict):
    """Changes of ``case`` that may satisfy the ``dims_compare`` arguments ``a``, in order."""
    from aclnn_conformance.spec.templates import dim_size, view_of_case
    size = lambda ref: dim_size(view_of_case(case), ref)   # noqa: E731

    def resized(ref, n, along=False):
        """The dim resized in its tensor (``along``: in every tensor of the same shape too); an
        element count: the last dim made n, the others 1 (the rank kept)."""
        name0 = ref[1] if ref[0] == "numel" else ref[0]
        old = tuple(case.tensors[name0].desc.shape)
        if ref[0] == "numel":
            if not old:
                return None
            shape = [1] * (len(old) - 1) + [max(n, 1)]
        else:
            shape = list(old)
            shape[ref[1] * len(shape) + ref[2]] = max(n, 1)
        out = case
        for name, t in case.tensors.items():
            if t is not None and (name == name0 or (along and tuple(t.desc.shape) == old)):
                out = out.with_tensor(name, tensor_arg(t.desc.dtype.name, tuple(shape), t.desc.format.name))
        return out

    mine, other = size(a["a"]), a["b"]
    if mine is None:
        return
    target = other if isinstance(other, int) else case.attrs.get(other) if isinstance(other, str) \
        else size(other)
    for along in (False, True):
        if isinstance(target, int) and not isinstance(target, bool):
            for n in (target, target + 1, target - 1):
                yield resized(a["a"], n, along)
        if isinstance(other, str) and not along:
            for n in (mine, mine + 1, mine - 1):
                yield case.with_attrs(**{other: n})
        elif isinstance(other, (list, tuple)) and size(other) is not None:
            for n in (mine, mine + 1, mine - 1):
                yield resized(other, n, along)


INT_TEST_SIZES = (1, 2, 3, 4, 7, 8, 9, 16, 17)


def int_test_changes(test: Any) -> list[Callable[[Case], Case]]:
    """One value or dim the integer test reads changed at a time: an attribute (or an element of an
    integer array) to a neighbour of its value, 0, -1 or a small size; a dim (alone, then in every
    tensor of its shape) to a small size; a tensor one dim longer or shorter, or of each rank up to 8;
    an integer array a guard measures, of each length up to 8 (a fault keeps the first that decides;
    a valid call the first that satisfies)."""
    from aclnn_conformance.spec.templates import int_leaves
    out: list[Callable[[Case], Case]] = _array_shape_changes(test)   # decisive, so tried first
    for leaf in int_leaves(test):
        if leaf[0] == "attr":
            out += [lambda c, n=leaf[1], step=step: c.with_attrs(**{n: c.attrs[n] + step}) for step in (1, -1)]
            out += [lambda c, n=leaf[1], v=v: c.with_attrs(**{n: v}) for v in (0, -1) + INT_TEST_SIZES]
        elif leaf[0] == "elem":
            out += [lambda c, n=leaf[1], i=leaf[2], step=step: _with_element(c, n, i, step=step)
                    for step in (1, -1)]
            out += [lambda c, n=leaf[1], i=leaf[2], v=v: _with_element(c, n, i, v) for v in (0, -1) + INT_TEST_SIZES]
        elif leaf[0] == "dim":
            out += [lambda c, ref=leaf[1:], n=n, along=along: _with_dim_size(c, ref, n, along)
                    for along in (False, True) for n in INT_TEST_SIZES]
        elif leaf[0] in ("rank", "numel", "snumel"):
            out += [lambda c, t=leaf[1]: with_shape(c, t, tuple(c.tensors[t].desc.shape) + (2,)),
                    lambda c, t=leaf[1]: with_shape(c, t, tuple(c.tensors[t].desc.shape)[1:])]
            out += [lambda c, t=leaf[1], r=r, along=along: _with_rank(c, t, r, along)
                    for along in (False, True) for r in range(9)]
        elif leaf[0] == "len":   # the array cut or padded to each length up to 8 (2s, or its last element's kind)
            out += [lambda c, n=leaf[1], r=r: c.with_attrs(**{n: _resized_array(c.attrs.get(n), r)})
                    for r in range(9)]
    return out


def _resized_array(values: Any, length: int) -> list:
    """``values`` cut or padded to ``length``: padded with 2s, or with its last element where that is a
    bool or a float (a bool array stays a bool array)."""
    values = list(values or [])
    pad = values[-1] if values and isinstance(values[-1], (bool, float)) else 2
    return (values + [pad] * length)[:length]


def _array_shape_changes(test: Any) -> list[Callable[[Case], Case]]:
    """For each shape an integer test compares with an integer array's elements (``["same-shape", S,
    ["array", a]]``, a normalized shape): the array made S's dims, and the tensor S slices given the
    array as its trailing dims, or as its whole shape."""
    from aclnn_conformance.spec.templates import shape_value, view_of_case
    out: list[Callable[[Case], Case]] = []

    def walk(e: Any) -> None:
        if not isinstance(e, (list, tuple)) or not e:
            return
        if e[0] == "any-dim" and e[1][0] == "slice" and e[1][1][0] == "of" and len(e[2]) == 3 \
                and e[2][0] == "!=" and list(e[2][1]) == ["each"] and isinstance(e[2][2], int):
            # dims of a tensor that must all be one value (a mean's reduced dims of 1): made it
            out.append(lambda c, side=e[1], value=e[2][2]: _dims_made(c, side, value))
        if e[0] == "same-shape":
            for side, other in ((e[1], e[2]), (e[2], e[1])):
                if isinstance(other, (list, tuple)) and other and other[0] == "slice" and other[1][0] == "array" \
                        and side[0] == "slice" and side[1][0] == "of":
                    # part of the array against part of a tensor's shape (a loop from an offset): the
                    # array made the tensor's trailing dims, as many as it has (one at least)
                    out.append(lambda c, t=side[1][1], attr=other[1][1]: c.with_attrs(**{attr: list(
                        tuple(c.tensors[t].desc.shape)[-max(len(c.attrs.get(attr) or ()), 1):])}))
                if isinstance(other, (list, tuple)) and other and other[0] == "array":
                    attr = other[1]
                    out.append(lambda c, side=side, attr=attr: c.with_attrs(
                        **{attr: list(shape_value(view_of_case(c), side))}))
                    if side[0] == "slice" and side[1][0] == "of":
                        t = side[1][1]
                        out.append(lambda c, t=t, attr=attr: with_shape(
                            c, t, _trailing(tuple(c.tensors[t].desc.shape), list(c.attrs[attr]))))
                        out.append(lambda c, t=t, attr=attr: with_shape(c, t, tuple(c.attrs[attr])))
        for x in e[1:]:
            walk(x)
    walk(test)
    return out


def _dims_made(case: Case, side: Any, value: int) -> Case:
    """``case`` with the dims the slice ``side`` of a tensor's shape reads made ``value``."""
    from aclnn_conformance.spec.templates import int_value, view_of_case
    t = side[1][1]
    shape = list(case.tensors[t].desc.shape)
    start, n = int_value(view_of_case(case), side[2]), int_value(view_of_case(case), side[3])
    if start is None or n is None or not 0 <= start <= start + n <= len(shape):
        raise ValueError("the slice is outside the shape")
    shape[start:start + n] = [value] * n
    return with_shape(case, t, tuple(shape))


def _trailing(shape: tuple[int, ...], dims: list[int]) -> tuple[int, ...]:
    """``shape`` with its last len(dims) dims made ``dims`` (ValueError when it has fewer)."""
    if len(shape) < len(dims):
        raise ValueError("the shape has fewer dims than the array")
    return shape[:len(shape) - len(dims)] + tuple(dims)


def _with_element(case: Case, name: str, i: int, value: int | None = None, step: int = 0) -> Case:
    """``case`` with element ``i`` of the integer array ``name`` made ``value`` (or moved by ``step``);
    ValueError when the array is shorter: no such change."""
    values = list(case.attrs[name])
    if not 0 <= i < len(values):
        raise ValueError("the array has no such element")
    values[i] = values[i] + step if value is None else value
    return case.with_attrs(**{name: values})


def _with_rank(case: Case, name: str, rank: int, along: bool) -> Case:
    """``case`` with tensor ``name`` of ``rank`` dims (its dims kept, 2s added; ``along``: every
    tensor of its shape too)."""
    old = tuple(case.tensors[name].desc.shape)
    new = (old + (2,) * rank)[:rank]
    for other, arg in case.tensors.items():
        if arg is not None and (other == name or along and tuple(arg.desc.shape) == old):
            case = with_shape(case, other, new)
    return case


def _with_dim_size(case: Case, ref, n: int, along: bool) -> Case:
    """``case`` with dim scale*rank + offset of tensor ``ref[0]`` made ``n`` (``along``: in every
    tensor of the same shape too)."""
    name, scale, offset = ref
    old = tuple(case.tensors[name].desc.shape)
    index = scale * len(old) + offset
    if not 0 <= index < len(old):
        raise ValueError("the dim is outside the tensor's rank")
    new = old[:index] + (n,) + old[index + 1:]
    for other, arg in case.tensors.items():
        if arg is not None and (other == name or along and tuple(arg.desc.shape) == old):
            case = with_shape(case, other, new)
    return case


def with_shape(case: Case, name: str, shape: tuple[int, ...]) -> Case:
    """``case`` with tensor ``name`` given ``shape`` (its dtype and format kept)."""
    arg = case.tensors[name]
    return case.with_tensor(name, tensor_arg(arg.desc.dtype.name, shape, arg.desc.format.name))


def reshaped_outputs(key: str, case: Case) -> Case:
    """``case`` with each tensor a code-read ``reduced_shape`` or ``split_shape`` rule shapes given
    that shape (the reduction of its source over the call's dims; its source split along the dim an
    attribute names), each dim an ``attr_dim_divisible`` rule names made a multiple of its parts (in
    every tensor of its source's shape), a tensor a ``ranks_equal`` rule ties to another given
    that one's shape where their ranks differ, an integer array a tensor must expand to
    (``attr_shape_broadcast``) made its shape, and a tensor given the shape a ``shape_is_attr`` or
    ``shape_is`` rule names (or a ``broadcastable_shape`` or ``expands_to_shape`` rule, where it does
    not expand to it), so that the call is valid."""
    from aclnn_conformance.spec.templates import built_shape, predicate, reduced_shape, rule_dims, view_of_case
    first = ("ranks_equal", "attr_dim_divisible", "attr_shape_broadcast")   # before the shapes built on them
    rules = [r for r in code_checks(key) if r["template"] in first + ("reduced_shape", "split_shape",
                                                                       "shape_is_attr", "shape_is",
                                                                       "broadcastable_shape", "expands_to_shape")]
    for r in sorted(rules, key=lambda r: r["template"] not in first):
        a = r["args"]
        if "when" in a and not _guard_holds(case, a["when"]):
            continue
        if r["template"] == "attr_dim_divisible":
            case = _divisible_dim(case, a)
            continue
        if r["template"] == "attr_shape_broadcast":   # an array the tensor does not expand to made its shape
            if predicate("attr_shape_broadcast", a)(view_of_case(case)):
                case = case.with_attrs(**{a["attr"]: list(case.tensors[a["param"]].desc.shape)})
            continue
        if r["template"] in ("shape_is", "broadcastable_shape", "expands_to_shape"):
            # the tensor given the shape the rule builds (where it does not already broadcast to it)
            t, shape = case.tensors.get(a["param"]), built_shape(view_of_case(case), a)
            if t is not None and shape is not None and tuple(t.desc.shape) != shape and \
                    (r["template"] == "shape_is" or predicate(r["template"], a)(view_of_case(case))):
                case = case.with_tensor(a["param"], tensor_arg(t.desc.dtype.name, shape, t.desc.format.name))
            continue
        if r["template"] == "shape_is_attr":   # the tensor given the array as its shape
            t, size = case.tensors.get(a["param"]), case.attrs.get(a["attr"])
            if t is not None and isinstance(size, (list, tuple)) and all(
                    isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in size):
                case = case.with_tensor(a["param"], tensor_arg(t.desc.dtype.name, tuple(size), t.desc.format.name))
            continue
        if r["template"] == "ranks_equal":   # the tensor given the other's shape where their ranks differ
            t, o = case.tensors.get(a["param"]), case.tensors.get(a["other"])
            if t is not None and o is not None and predicate("ranks_equal", a)(view_of_case(case)):
                shape = tuple(o.desc.shape) if o.desc.shape or "other_rank0" not in a else (1,) * a["other_rank0"]
                case = case.with_tensor(a["param"], tensor_arg(t.desc.dtype.name, shape, t.desc.format.name))
            continue
        src, out = case.tensors.get(a["of"]), case.tensors.get(a["param"])
        if src is None or out is None:
            continue
        if r["template"] == "split_shape":
            d = _dim_of_attr(case, a["of"], a["attr"])
            shape = None if d is None else tuple(n // a["by"] if i == d else n
                                                 for i, n in enumerate(src.desc.shape))
        else:
            flag = lambda v: v if isinstance(v, bool) else bool(case.attrs.get(v))   # noqa: E731
            dims = rule_dims(case.attrs, a["dims"], len(src.desc.shape))
            shape = reduced_shape(tuple(src.desc.shape), dims, flag(a.get("keepdim", False)),
                                  flag(a.get("noop", False)))
        if shape is not None and shape != tuple(out.desc.shape):
            case = _reshaped(key, case, a["param"], shape)
    return case


def _reshaped(key: str, case: Case, name: str, shape: tuple[int, ...]) -> Case:
    """``case`` with tensor ``name`` given ``shape``, and so every tensor a code-read ``shapes_equal``
    rule ties to it that had its old shape (``gelu`` to ``gradOutput``)."""
    old = tuple(case.tensors[name].desc.shape)
    tied, todo = {name}, [name]
    while todo:
        n = todo.pop()
        for r in code_checks(key):
            if r["template"] != "shapes_equal" or "when" in r["args"]:
                continue
            pair = {r["args"]["param"], r["args"]["other"]}
            for m in pair - {n} if n in pair else ():
                t = case.tensors.get(m)
                if m not in tied and t is not None and tuple(t.desc.shape) == old:
                    tied.add(m)
                    todo.append(m)
    for n in sorted(tied):
        t = case.tensors[n]
        case = case.with_tensor(n, tensor_arg(t.desc.dtype.name, shape, t.desc.format.name))
    return case


def _dim_of_attr(case: Case, tensor: str, attr: str) -> int | None:
    """The dim of ``tensor`` the integer attribute names (negative wrapped by the rank), if in range."""
    t, v = case.tensors.get(tensor), case.attrs.get(attr)
    if t is None or not isinstance(v, int) or isinstance(v, bool) or not t.desc.shape:
        return None
    d = v + len(t.desc.shape) if v < 0 else v
    return d if 0 <= d < len(t.desc.shape) else None


def _divisible_dim(case: Case, a: dict) -> Case:
    """``case`` with the dim an ``attr_dim_divisible`` rule names a multiple of ``by`` in its tensor
    and in every tensor of the same shape."""
    d, src = _dim_of_attr(case, a["tensor"], a["attr"]), case.tensors.get(a["tensor"])
    if d is None or src.desc.shape[d] % a["by"] == 0:
        return case
    old = tuple(src.desc.shape)
    shape = tuple(a["by"] * max(1, n // a["by"]) if i == d else n for i, n in enumerate(old))
    for name, t in case.tensors.items():
        if t is not None and tuple(t.desc.shape) == old:
            case = case.with_tensor(name, tensor_arg(t.desc.dtype.name, shape, t.desc.format.name))
    return case


def _in_range(key: str, name: str, value: Any) -> Any:
    """A number moved into the ranges the code-read attr_range rules of ``name`` allow; a string
    made the first word a string_in rule of ``name`` accepts."""
    if isinstance(value, str):
        for r in code_checks(key):
            if r["template"] == "string_in" and r["args"].get("attr") == name and value not in r["args"]["values"]:
                value = r["args"]["values"][0]
        return value
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return value
    for r in code_checks(key):
        if r["template"] == "attr_range" and r["args"].get("attr") == name and "when" not in r["args"]:
            lo, hi = r["args"].get("min"), r["args"].get("max")
            if lo is not None and value < lo:
                value = type(value)(lo)
            if hi is not None and value > hi:
                value = type(value)(hi)
    return value


@lru_cache(maxsize=None)
def valid_dtype_choices(key: str) -> tuple[tuple[tuple[str, str], ...], ...]:
    """Dtype assignments (param -> dtype) that every product's code-read checks accept, best first."""
    typed = [p["name"] for p in signature_params(key) if p["c_kind"] in TENSOR_KINDS + ("scalar",)]
    options = [_allowed(key, n)[:4] for n in typed]
    shape = tuple(BASE_DIMS[:_rank(key)])
    found = []
    for combo in itertools.islice(itertools.product(*options), MAX_COMBINATIONS):
        dtypes = dict(zip(typed, combo))
        if _accepted_everywhere(key, build_call(key, dtypes, shape, "probe")):
            found.append(tuple(dtypes.items()))
            if len(found) >= 8:
                break
    return tuple(found)


def base_call(key: str) -> Case:
    choices = valid_dtype_choices(key)
    if not choices:
        typed = [p["name"] for p in signature_params(key) if p["c_kind"] in TENSOR_KINDS + ("scalar",)]
        dtypes = {n: _allowed(key, n)[0] for n in typed}
        note = "no dtype assignment passes every product's checks: the first of each list"
    else:
        dtypes, note = dict(choices[0]), "accepted by every code-read check of every product"
    case = build_call(key, dtypes, tuple(BASE_DIMS[:_rank(key)]), "base")
    return case.with_(note=note)


def _noncontiguous(case: Case) -> Case | None:
    """Every tensor viewed through the transpose of its last two dims (same view shape); None when
    some tensor has rank below 2."""
    tensors = {}
    for i, (name, arg) in enumerate(case.tensors.items()):
        if arg is None or arg.desc.ndim < 2:
            return None
        shape = arg.desc.shape
        memory = tensor_arg(arg.desc.dtype.name, shape[:-2] + (shape[-1], shape[-2]), seed=i)
        strides = list(memory.desc.strides)
        strides[-1], strides[-2] = strides[-2], strides[-1]
        desc = TensorDesc(arg.desc.dtype, shape, tuple(strides), 0, arg.desc.format, memory.desc.storage_shape)
        tensors[name] = TensorArg(desc, memory.storage)
    return case.with_(tensors=tensors, case_id="noncontiguous", note="every tensor transposed in its last two dims")


def table_cases(key: str, tier: str = "ci") -> list[Case]:
    base = base_call(key)
    cases = [base]
    nc = _noncontiguous(base)
    if nc is not None and not nc.tensors == {}:
        cases.append(nc)
    if base.tensors and all(a is not None and a.desc.ndim == 4 for a in base.tensors.values()) or \
            _rank(key) <= 4:
        shape = (2, 3, 2, 2)
        dtypes = {n: a.desc.dtype.name for n, a in base.tensors.items()}
        dtypes.update({n: v["dtype"] for n, v in base.attrs.items() if isinstance(v, dict)})
        if _rank(key) <= 4:
            cases.append(build_call(key, dtypes, shape, "format-nchw", fmt="NCHW").with_(
                note="every tensor NCHW: only private formats are rejected by the code"))
    empty = (data_of(key).get("values") or {}).get("empty_return")
    if empty and base.tensors:
        dtypes = {n: a.desc.dtype.name for n, a in base.tensors.items()}
        dtypes.update({n: v["dtype"] for n, v in base.attrs.items() if isinstance(v, dict)})
        shape = (0,) + tuple(BASE_DIMS[1:_rank(key)])
        cases.append(build_call(key, dtypes, shape, "empty").with_(note="empty tensors: the early return"))
    if tier == "full":
        for i, choice in enumerate(valid_dtype_choices(key)[1:], 1):
            cases.append(build_call(key, dict(choice), tuple(BASE_DIMS[:_rank(key)]), f"dtypes-{i}"))
    values: tuple[str, ...] = ()
    if has_value_entry(key):  # special values, broadcasting and an empty call, judged on their values
        cases += data_value_cases(key, base, tier)
        from aclnn_conformance.spec.surface_cases import value_rule
        from aclnn_conformance.spec.surface_values import value_entry
        values = (value_rule(value_entry(key)),)   # every valid call's outputs are judged by it
    return [c.with_(rule_ids=values + accepted_lists(key, c)) for c in cases]


def accepted_lists(key: str, case: Case) -> tuple[str, ...]:
    """The code-read dtype lists a valid call exercises by being in them (a defect that drops its
    dtype from a list is named by them)."""
    out = []
    for r in code_checks(key):
        if r["template"] != "dtype_in":
            continue
        name = r["args"]["param"]
        arg = case.tensors.get(name)
        dtype = arg.desc.dtype.name if arg is not None else (case.attrs.get(name) or {}).get("dtype") \
            if isinstance(case.attrs.get(name), dict) else None
        if dtype in r["args"]["dtypes"] and ("when" not in r["args"] or _guard_holds(case, r["args"]["when"])):
            out.append(r["id"])   # a list under a data branch counts only for calls taking it
    return tuple(out)


def _guard_holds(case: Case, guard: Any) -> bool:
    from aclnn_conformance.spec.templates import guard_holds, view_of_case
    return bool(guard_holds(view_of_case(case), guard))


class PerOperator:
    """``PIECE.<key>``: the piece of one data operator, bound to its key."""

    def __init__(self, make: Callable[[str], Any], what: str):
        self._make = make
        self._what = what

    def __getattr__(self, key: str) -> Any:
        if key.startswith("_"):
            raise AttributeError(key)
        try:
            data_of(key)
        except Exception as exc:
            raise AttributeError(f"{self._what}: {key} is not a data operator ({exc})") from None
        return self._make(key)


BASE_CALL = PerOperator(lambda key: (lambda: base_call(key)), "base call")
TABLE_CASES = PerOperator(lambda key: (lambda tier="ci": table_cases(key, tier)), "table cases")
FAULT_BASES = PerOperator(lambda key: {"base": lambda: base_call(key)}, "fault bases")


def decides_somewhere(key: str, case: Case, rule_id: str) -> bool:
    spec = operator(key).spec
    return any(expected_outcome(spec, case, p, prof).rule_id == rule_id
               for p in PRODUCT_IDS for prof in ("cann", "doc"))
