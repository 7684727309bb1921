"""Value cases of the elementwise surface: calls built from a value entry (its parameters, its
sample range, attributes and dtypes), whose outputs the oracle judges.

``value_cases(op)`` gives, per sample dtype, a call over random values in the entry's range with
the special values appended (NaN, +-Inf, +-0, a subnormal, the largest finite value), a call whose
inputs broadcast (binary functions), and an empty call. An extracted operator's table cases can
add them (``table_value_cases``); the mutants, tests and benchmarks use them directly.
"""
from __future__ import annotations

import math
from typing import Any, Mapping

import ml_dtypes
import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import ValueEntry, value_entry
from aclnn_conformance.spec.surface_values import LAYER_NORMALIZED
from aclnn_conformance.spec.tensor import TensorArg

SEED = 20261203


def value_rule(entry: ValueEntry) -> str:
    """The value rule a case of this entry exercises (what a killed mutant is named by): the
    operator's ``<prefix>-VALUE-001`` (spec/surface_values.py value_domain_rule)."""
    from aclnn_conformance.spec.operator_data import rule_prefix_of
    return f"{rule_prefix_of(entry.key)}-VALUE-001"


def specials(dtype: np.dtype, skip: tuple[str, ...] = ()) -> np.ndarray:
    """NaN, +-Inf, +-0, a subnormal, the largest finite value and 1 of a float dtype (empty for
    integers); ``skip`` leaves out the named ones (an entry's ``sample.skip_specials``)."""
    if np.dtype(dtype).kind not in "fV" and np.dtype(dtype) != np.dtype(ml_dtypes.bfloat16):
        return np.zeros(0)
    finfo = ml_dtypes.finfo(dtype) if np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    tiny = float(finfo.smallest_normal)
    named = {"nan": [np.nan], "inf": [np.inf, -np.inf], "zero": [0.0, -0.0],
             "subnormal": [tiny / 4, -tiny / 4], "max": [float(finfo.max)], "one": [1.0]}
    return np.array([v for k, vs in named.items() if k not in skip for v in vs])


def sample_values(entry: ValueEntry, dtype: np.dtype, count: int, rng: np.random.Generator,
                  with_specials: bool = True) -> np.ndarray:
    """``count`` values of ``dtype`` in the entry's sample range, the special values last."""
    if np.dtype(dtype).kind in "iu":
        return rng.integers(-50 if np.dtype(dtype).kind == "i" else 0, 50, size=count).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.integers(0, 2, size=count).astype(bool)
    lo, hi = entry.sample.get("range", [-6.0, 6.0])
    values = rng.uniform(lo, hi, size=count)
    extra = specials(dtype, tuple(entry.sample.get("skip_specials", ()))) if with_specials \
        else np.zeros(0)
    if with_specials:   # each scalar attribute's value, and just around it (thresholds, equality)
        near = [float(v) for v in entry.sample.get("attrs", {}).values()
                if isinstance(v, (int, float)) and not isinstance(v, bool)]
        step = [math.fabs(v) * 2.0 ** -20 + 2.0 ** -30 for v in near]
        extra = np.concatenate([extra, near, [v + d for v, d in zip(near, step)],
                                [v - d for v, d in zip(near, step)]])
    if extra.size and count > extra.size:
        values[-extra.size:] = extra
    with np.errstate(over="ignore"):
        return values.astype(np.float32).astype(dtype)


def _tensor(values: np.ndarray, dtype: AclDataType) -> TensorArg:
    return TensorArg.from_array(np.asarray(values), dtype)


def build_case(entry: ValueEntry, op: str, case_id: str, tensors: Mapping[str, np.ndarray],
               dtype: AclDataType, attrs: Mapping[str, Any] | None = None,
               out_dtype: AclDataType | None = None, out_shape: tuple[int, ...] | None = None,
               note: str = "") -> Case:
    """A call of ``entry``'s API: its tensor inputs, its output (a zeroed tensor of the broadcast
    shape, or the first input itself in place) and its attributes."""
    args: dict[str, TensorArg | None] = {}
    for name in entry.inputs:
        if name in tensors:
            args[name] = _tensor(tensors[name], dtype if np.asarray(tensors[name]).dtype != bool
                                 else AclDataType.BOOL)
    if not entry.inplace:
        shape = out_shape if out_shape is not None else np.broadcast_shapes(
            *[np.shape(v) for v in tensors.values()])
        out = out_dtype if out_dtype is not None else (AclDataType.BOOL if _boolean(entry) else dtype)
        args[entry.output] = _tensor(np.zeros(shape, dtype=numpy_dtype(out)), out)
    merged = {**entry.sample.get("attrs", {}), **(attrs or {})}
    merged = {k: v for k, v in merged.items() if k in entry.inputs and k not in tensors}
    return Case(op=op, case_id=case_id, tensors=args, attrs=merged, rule_ids=(value_rule(entry),),
                origin="table", note=note)


def _boolean(entry: ValueEntry) -> bool:
    """Whether the function's result is a truth value (a comparison, a test, a logical op)."""
    return bool(entry.raw.get("boolean_result"))


def tensor_inputs(entry: ValueEntry) -> list[str]:
    """The inputs of the entry that are tensors (the rest are scalar attributes)."""
    attrs = entry.sample.get("attrs", {})
    return [n for n in entry.inputs if n not in attrs]


def with_model_freedom(entry: ValueEntry, values: dict[str, np.ndarray],
                       dtype: np.dtype) -> dict[str, np.ndarray]:
    """``values`` with the entry's ``sample.model_freedom`` inputs (exact quotients and roots, rounding
    midpoints) written at the middle of every array, so that every run judges them."""
    freedom = entry.sample.get("model_freedom", {}).get("inputs", {})
    if np.dtype(dtype).kind in "iu":   # integer calls: the values that wrap, zero divisors, ...
        freedom = entry.sample.get("integer_freedom", {}).get("inputs", {})
    elif not _is_float_dtype(dtype):
        return values
    if not freedom:
        return values
    out = dict(values)
    for name, given in freedom.items():
        v = np.array(out[name], copy=True)
        start = v.size // 2
        picked = np.asarray(given, np.float64)[:max(0, v.size - start)]
        v[start:start + picked.size] = picked.astype(dtype)
        out[name] = v
    return out


def _is_float_dtype(dtype: np.dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == np.dtype(ml_dtypes.bfloat16)


def value_cases(op: str, count: int = 1024, dtypes: tuple[str, ...] | None = None) -> list[Case]:
    """The value cases of an operator (by key or API name)."""
    entry = value_entry(op)
    key = op if not op.startswith("aclnn") else entry.key
    if entry.norms and entry.reduction["kind"] == LAYER_NORMALIZED:   # spec/surface_layer_norm_cases.py
        from aclnn_conformance.spec.surface_layer_norm_cases import layer_norm_value_cases
        return layer_norm_value_cases(entry, key, value_rule(entry), count, dtypes)
    if entry.norms:   # every output by role (spec/surface_norm_cases.py)
        from aclnn_conformance.spec.surface_norm_cases import norm_value_cases
        return norm_value_cases(entry, key, value_rule(entry), count, dtypes)
    if entry.reduction is not None:
        return reduction_value_cases(entry, key, count, dtypes)
    if entry.raw.get("movement"):   # data movement: the output's shape from an attribute
        from aclnn_conformance.spec.surface_movement import movement_value_cases
        return movement_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "rule": value_rule(entry)})
    if entry.raw.get("channel_operands"):   # an operand per channel of an input's dim (surface_channels.py)
        from aclnn_conformance.spec.surface_channels import channel_value_cases
        return channel_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "build_case": build_case})
    if entry.raw.get("conversion"):   # one call per (source, target) pair, the ci tier's pairs
        from aclnn_conformance.spec.surface_conversions import conversion_value_cases
        return conversion_value_cases(entry, key, "ci" if count <= 1024 else "full")
    rng = np.random.default_rng(SEED)
    cases = []
    names = tensor_inputs(entry)
    # an outer product (``columns``: its left operands read as columns): about ``count`` results from
    # vectors of sqrt(count) values, every special meeting every other
    columns = tuple(entry.raw.get("columns", ()))
    each = max(1, math.isqrt(count)) if columns else count
    outer = (lambda vs: np.broadcast_shapes(*[np.shape(v) + ((1,) if n in columns else ())
                                              for n, v in vs.items()])) if columns else (lambda vs: None)
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        values = {}
        for i, name in enumerate(names):
            v = sample_values(entry, dt, each, rng)
            if i and v.size:   # the specials meet every special of the other operand
                v = np.roll(v, i * 3)
                v[::8] = values[names[0]][::8]    # and equal operands meet
            values[name] = v
        for name in entry.sample.get("boolean_inputs", []):
            values[name] = rng.integers(0, 2, size=count).astype(bool)
        for name in entry.sample.get("full_shape", ()):   # an outer product's operand in the output's shape
            values[name] = sample_values(entry, dt, each * each, rng).reshape(each, each)
        values = with_model_freedom(entry, values, dt)
        cases.append(build_case(entry, key, f"values-{dtype_name}", values, acl, out_shape=outer(values)))
        for i, variant in enumerate(entry.sample.get("attr_variants", ()), start=1):
            # the same values under each other documented attribute setting (approximate=1, ...)
            cases.append(build_case(entry, key, f"attrs{i}-{dtype_name}", values, acl, attrs=variant,
                                    note=", ".join(f"{k}={v}" for k, v in variant.items()),
                                    out_shape=outer(values)))
        if len(names) >= 2 and not entry.inplace and not columns:
            shapes = [(32, 1, 4), (1, 8, 4), (32, 8, 1)]
            shaped = {n: sample_values(entry, dt, int(np.prod(shapes[i % 3])), rng, False)
                      .reshape(shapes[i % 3]) for i, n in enumerate(names)}
            for i, name in enumerate(names):
                if name in entry.sample.get("boolean_inputs", []):
                    shaped[name] = rng.integers(0, 2, size=shapes[i % 3]).astype(bool)
            cases.append(build_case(entry, key, f"broadcast-{dtype_name}", shaped, acl))
        empty = {n: np.zeros((0, 3), dtype=bool if n in entry.sample.get("boolean_inputs", [])
                             else dt) for n in names}
        if columns:   # an outer product of an empty vector and a vector of 3
            empty = {n: np.zeros((0,) if n in columns else (3,), dtype=dt) for n in names}
            empty.update({n: np.zeros((0, 3), dtype=dt) for n in entry.sample.get("full_shape", ())})
        if names:
            cases.append(build_case(entry, key, f"empty-{dtype_name}", empty, acl, out_shape=outer(empty)))
    return cases


# a reduction's calls: (kind, input shape for 1024 values, dims, keepdim, noop)
REDUCTION_CALLS = (("values", (8, 16, 8), [1], False, False),      # one middle dim, specials in it
                   ("axes", (6, 6, 4), [0, -1], False, False),      # two dims, one negative
                   ("twin", (6, 6, 4), [1], False, False),          # a dim of the size of another
                   ("keepdim", (4, 6, 5), [-1], True, False),
                   ("all", (4, 6, 5), [], False, False),            # no dims: every dim
                   ("noop", (4, 6, 5), [], False, True),            # no dims and the no-op flag
                   ("empty", (0, 5), [1], False, False))            # an empty kept dim
# the summing reductions add a long reduced dim (1000 terms, not a multiple of any power-of-two
# block, so that a dropped tail block shows), its second row of one sign (a growing partial sum,
# where accumulating in fp16 or bf16 shows)
SUM_CALLS = REDUCTION_CALLS + (("long", (2, 1000), [-1], False, False),)
# the index reductions name one dim (an integer); a dim of the size of another, keepdim, the first dim
INDEX_CALLS = (("values", (8, 16, 8), 1, False, False), ("twin", (6, 6, 4), 1, False, False),
               ("keepdim", (4, 6, 5), -1, True, False), ("first", (4, 6, 5), 0, False, False),
               ("empty", (0, 5), 1, False, False))
# an extreme along one dim (``one_dim``) adds keepdim on a non-negative dim (some host code leaves a
# negative dim's handling unread, where keepdim's call would not be judged)
ONE_DIM_CALLS = INDEX_CALLS + (("keepfirst", (4, 6, 5), 0, True, False),)


# a scan names one dim and keeps the input's shape; a long dim as for the sums
SCAN_CALLS = (("values", (8, 16, 8), 1, False, False), ("twin", (6, 6, 4), 1, False, False),
              ("first", (4, 6, 5), 0, False, False), ("long", (2, 1000), -1, False, False),
              ("empty", (0, 5), 1, False, False))


# a reduction of every element (no dims parameter): the specials (a NaN leaves it open), finite
# values, an extreme that is a subnormal, zeros of both signs as the extreme, an empty input
WHOLE_CALLS = (("values", (8, 16, 8), [], False, False), ("finite", (4, 6, 5), [], False, False),
               ("subnormal", (4, 6, 5), [], False, False), ("zeros", (4, 6, 5), [], False, False),
               ("empty", (0, 5), [], False, False))


# a product of every element: the specials, finite factors, zeros of both signs among them, a long
# input (2000 factors); a product along one dim: the index reductions' calls and a long dim
PRODUCT_WHOLE_CALLS = (("values", (8, 16, 8), [], False, False), ("finite", (4, 6, 5), [], False, False),
                       ("zeros", (4, 6, 5), [], False, False), ("long", (2, 1000), [], False, False),
                       ("empty", (0, 5), [], False, False))
PRODUCT_DIM_CALLS = INDEX_CALLS[:4] + (("long", (2, 1000), -1, False, False), INDEX_CALLS[4])


# a variance adds the long dim and a slice far from 0 against its spread (values + OFFSET, 64 terms),
# where E[x^2] - E[x]^2 cancels
OFFSET = 4096.0
DEVIATION_CALLS = SUM_CALLS + (("offset", (8, 64), [-1], False, False),)


# dims an API fixes (every dim from 2: a global pooling): inputs of rank 4 and 5 and a spatial slice
# of 1000 terms, the reduced dims named for the shapes (the calls carry no dims attribute)
FIXED_CALLS = (("values", (4, 8, 8, 4), [2, 3], True, False), ("channels", (2, 3, 5, 7), [2, 3], True, False),
               ("rank5", (2, 2, 3, 4, 5), [2, 3, 4], True, False), ("single", (3, 4, 1, 1), [2, 3], True, False),
               ("long", (2, 2, 25, 40), [2, 3], True, False), ("empty", (0, 3, 4, 4), [2, 3], True, False))


def _calls(entry: ValueEntry) -> tuple:
    if entry.reduction.get("fixed_dims"):
        return FIXED_CALLS
    if entry.multiplies and not entry.keeps_shape:
        return PRODUCT_DIM_CALLS if entry.reduction.get("dims") else PRODUCT_WHOLE_CALLS
    if not entry.reduction.get("dims"):
        return WHOLE_CALLS
    if entry.keeps_shape:
        return SCAN_CALLS
    if entry.deviates:
        return DEVIATION_CALLS
    one_dim = entry.reduction.get("one_dim")   # dims is one integer dim
    return SUM_CALLS if entry.sums else INDEX_CALLS if entry.indexes else ONE_DIM_CALLS if one_dim \
        else REDUCTION_CALLS


def reduction_value_cases(entry: ValueEntry, key: str, count: int = 1024,
                          dtypes: tuple[str, ...] | None = None) -> list[Case]:
    """A reduction's value cases per sample dtype (``REDUCTION_CALLS``, the no-op one only where
    the entry has the flag): values in the entry's range with the special values, and one slice
    whose result is a subnormal and one whose result is a zero of either sign."""
    red = entry.reduction
    if entry.halves:   # a function of the input's two halves (spec/surface_halves.py)
        from aclnn_conformance.spec.surface_halves import halves_value_cases
        return halves_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "specials": specials, "rule": value_rule(entry)})
    if entry.orders:   # the positions that sort each slice (spec/surface_order.py)
        from aclnn_conformance.spec.surface_order import order_value_cases
        return order_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "rule": value_rule(entry)})
    if entry.runs:   # every prefix's extreme and its position (spec/surface_running.py)
        from aclnn_conformance.spec.surface_running import running_value_cases
        return running_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "rule": value_rule(entry)})
    if entry.normalized_grads:   # softmax's and log-softmax's gradients (spec/surface_normalized_grads.py)
        from aclnn_conformance.spec.surface_normalized_grads import normalized_grad_value_cases
        return normalized_grad_value_cases(entry, key, count, dtypes, {
            "seed": SEED, "sample_values": sample_values, "rule": value_rule(entry)})
    if entry.contracts:   # a dot product, a diagonal's sum (spec/surface_contraction_cases.py)
        from aclnn_conformance.spec.surface_contraction_cases import contraction_value_cases
        return contraction_value_cases(entry, key, value_rule(entry), count, dtypes)
    rng = np.random.default_rng(SEED)
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for kind, shape, dims, keepdim, noop in _calls(entry):
            if noop and not red.get("noop"):
                continue
            scale = max(1, count // 1024) if kind == "values" else 1
            shape = (shape[0] * scale,) + shape[1:]
            size = int(np.prod(shape))
            x = sample_values(entry, dt, size, rng, with_specials=kind == "values").reshape(shape)
            if entry.indexes and kind == "values":
                x = _tied_slice(x, red["kind"], dt)
            elif entry.truths:
                x = _truth_slices(x, red["kind"], dt, entry.sample.get("zero_share", 0.5), rng)
            elif entry.multiplies and _is_float_dtype(dt):
                x = _near_one(x, dt, _factors(shape, dims), specials(dt).size if kind == "values" else 0)
                if kind == "zeros":
                    x.reshape(-1)[[3, 11]] = [dt.type(-0.0), dt.type(0.0)]
                if kind == "values":   # a slice over dim 1 whose product 2^-20 is an fp16 subnormal
                    x[1, :, 0] = dt.type(1.0)
                    x[1, 0, 0] = x[1, 1, 0] = dt.type(2.0 ** -10)
            elif kind in ("subnormal", "zeros") and _is_float_dtype(dt):
                x = _whole_edge(x, red["kind"], dt, kind)
            elif not entry.sums and not entry.normalizes and kind == "values" and _is_float_dtype(dt):
                if red.get("fixed_dims"):   # each slice over the fixed dims as one row
                    lead = int(np.prod(shape[:int(red["fixed_dims"]["from"])]))
                    x = _edge_slices(x.reshape(lead, -1, 1), red["kind"], dt).reshape(shape)
                else:
                    x = _edge_slices(x, red["kind"], dt)
                if entry.paired_index:   # a tie and a near tie for the positions, beside the edges
                    x[2:] = _tied_slice(x[2:], entry.paired_index[0], dt)
            if kind == "long":
                x[1] = np.absolute(x[1])
            if kind == "offset":
                x = (x.astype(np.float64) + OFFSET).astype(dt)
            # the entry's other attributes (a scan's flags, a correction), then the call's dims
            attrs: dict[str, Any] = {**entry.sample.get("attrs", {})}
            if red.get("dims") and not red.get("fixed_dims"):   # (dims an API fixes are no attribute)
                attrs[red["dims"]] = dims if isinstance(dims, int) else list(dims)
            if red.get("keepdim") and not red.get("fixed_dims"):
                attrs[red["keepdim"]] = keepdim
            if red.get("noop"):
                attrs[red["noop"]] = noop
            if red.get("dtype"):     # the dtype the call computes in: the output's
                attrs[red["dtype"]] = int(acl)
            from aclnn_conformance.spec.templates import reduced_shape
            out_shape = shape if entry.keeps_shape else reduced_shape(shape, dims, keepdim, noop)
            out_acl = AclDataType[red["index_dtype"]] if red.get("index_dtype") else \
                AclDataType.BOOL if _boolean(entry) else acl
            # an extreme's positions (``paired_index``) in the index dtype, its values in the input's
            out_acls = {name: AclDataType[red["index_dtype"]] if entry.paired_index and
                        name == entry.paired_index[1] else acl if entry.paired_index else out_acl
                        for name in entry.outputs}
            tensors = {red["input"]: _tensor(x, acl),
                       **{name: _tensor(np.zeros(out_shape, dtype=numpy_dtype(out_acls[name])), out_acls[name])
                          for name in entry.outputs}}
            cases.append(Case(op=key, case_id=f"{kind}-{dtype_name}", tensors=tensors, attrs=attrs,
                              rule_ids=(value_rule(entry),), origin="table"))
            if kind == "values":   # the same values under each other documented attribute setting
                cases += [Case(op=key, case_id=f"attrs{i}-{dtype_name}", tensors=tensors,
                               attrs={**attrs, **variant}, rule_ids=(value_rule(entry),), origin="table",
                               note=", ".join(f"{k}={v}" for k, v in variant.items()))
                          for i, variant in enumerate(entry.sample.get("attr_variants", ()), start=1)]
    return cases


def _tied_slice(x: np.ndarray, kind: str, dtype: np.dtype) -> np.ndarray:
    """A slice (over dim 1) whose extreme occurs twice, x[0, 3, 0] and x[0, 7, 0], beyond every
    other value (the position a tie gives is left open), and one whose extreme 6.5 + 2^-8, at x[1, 5,
    0], is one fp16 step above 6.5 at x[1, 2, 0] (bf16, 2^-5 apart there, rounds both to 6.5: a
    narrower promotion makes a tie and moves the first position)."""
    x = np.array(x, copy=True)
    toward = 1.0 if kind == "argmax" else -1.0     # the extreme's side
    x[0, 3, 0] = x[0, 7, 0] = dtype.type(toward * 7.0)
    x[1, 2, 0], x[1, 5, 0] = dtype.type(toward * 6.5), dtype.type(toward * (6.5 + 2.0 ** -8))
    return x


def _truth_slices(x: np.ndarray, kind: str, dtype: np.dtype, zero_share: float,
                  rng: np.random.Generator) -> np.ndarray:
    """A truth reduction's input: ``zero_share`` of the elements 0 (so that slices of both truths
    occur), and where the input has two rows of a dim 1, a slice over dim 1 whose truth rests on one
    value of 1e-10 (normal in float32, 0 in float16: a narrower cast changes the truth), nonzero
    elsewhere for every and zero elsewhere for some."""
    x = np.array(x, copy=True)
    x[rng.random(x.shape) < zero_share] = 0
    if x.ndim == 3 and x.shape[0] >= 2 and x.shape[1] >= 6 and _is_float_dtype(dtype):
        x[0, :, 0] = dtype.type(1.0) if kind == "all-true" else dtype.type(0.0)
        x[0, 5, 0] = dtype.type(1e-10)
    return x


def _factors(shape: tuple[int, ...], dims: Any) -> int:
    """The number of factors a product's slice holds (no dims: every element)."""
    if isinstance(dims, int):
        return shape[dims]
    return int(np.prod([shape[d] for d in dims])) if dims else int(np.prod(shape))


def _near_one(x: np.ndarray, dtype: np.dtype, factors: int, kept: int) -> np.ndarray:
    """A product's factors: each sample value w (in [lo, hi]) mapped to sign(w) 2^e, e spread evenly
    over +-min(2, 64/factors) by |w|, so that no order's partial product leaves float32's range while
    the product still moves; the last ``kept`` values (the specials) as they are."""
    flat = x.astype(np.float64).reshape(-1).copy()
    stop = flat.size - kept
    random = flat[:stop]
    reach = min(2.0, 64.0 / max(factors, 1))
    scale = max(float(np.max(np.absolute(random), initial=0.0)), 1e-30)
    side = np.where(random < 0, -1.0, 1.0)
    flat[:stop] = side * np.power(2.0, reach * (2.0 * np.absolute(random) / scale - 1.0))
    return flat.reshape(x.shape).astype(dtype)


def _whole_edge(x: np.ndarray, kind: str, dtype: np.dtype, which: str) -> np.ndarray:
    """Every element on the far side of one extreme: a subnormal (``subnormal``), or +0 and -0
    (``zeros``), for a max or min over every element."""
    finfo = ml_dtypes.finfo(dtype)
    side = -1.0 if kind == "max" else 1.0
    far = (side * (1.0 + np.absolute(x.astype(np.float64)))).astype(dtype)
    flat = far.reshape(-1)
    if which == "subnormal":
        flat[7] = dtype.type(-side * float(finfo.smallest_normal) / 4)
    else:
        flat[3], flat[11] = dtype.type(0.0), dtype.type(-0.0)
    return far


def _edge_slices(x: np.ndarray, kind: str, dtype: np.dtype) -> np.ndarray:
    """Slices (over dim 1) whose extreme is a subnormal, and +0 against -0: x[0, :, 0] and x[1, :, 0]."""
    finfo = ml_dtypes.finfo(dtype) if dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(dtype)
    side = -1.0 if kind == "max" else 1.0       # every other value on the far side of the extreme
    x = np.array(x, copy=True)
    n = x.shape[1]
    far = side * (1.0 + np.arange(n, dtype=np.float64))
    x[0, :, 0] = far.astype(dtype)
    x[0, 0, 0] = dtype.type(-side * float(finfo.smallest_normal) / 4)
    x[1, :, 0] = far.astype(dtype)
    x[1, 0, 0], x[1, 1, 0] = dtype.type(0.0), dtype.type(-0.0)
    return x


def table_value_cases(op: str, tier: str = "ci") -> list[Case]:
    """The value cases an extracted operator's table adds (fewer elements in the ci tier)."""
    return value_cases(op, count=1024 if tier == "ci" else 8192)


class _PerOperator:
    """``TABLE_CASES.<key>``: the table-cases piece of an operator with a value entry."""

    def __getattr__(self, key: str):
        if key.startswith("__"):
            raise AttributeError(key)
        return lambda tier="ci": table_value_cases(key, tier)


TABLE_CASES = _PerOperator()


def data_value_cases(key: str, base: Case, tier: str = "ci") -> list[Case]:
    """The value cases of an extracted operator in the dtype of its base call (``values``,
    ``values-broadcast``, ``values-empty``) and, in the full tier, in each other sample dtype of its
    entry (``values-FLOAT16``, ...), completed with the base call's other parameters."""
    entry = value_entry(key)
    if entry.raw.get("conversion"):
        from aclnn_conformance.spec.surface_conversions import conversion_data_cases
        return conversion_data_cases(entry, key, base, tier)
    boolean = entry.sample.get("boolean_inputs", [])
    first = next((base.tensors[n] for n in entry.inputs
                  if base.tensors.get(n) is not None and n not in boolean), None)
    if first is None:
        return []
    dtype = first.desc.dtype.name
    from aclnn_conformance.spec.surface_values import _COMPUTABLE
    if dtype not in _COMPUTABLE and entry.sample.get("dtypes"):
        # a base call in a dtype the harness does not compute (a complex input): the entry's first dtype
        dtype = entry.sample["dtypes"][0]
    dtypes = (dtype,) + (tuple(d for d in entry.sample.get("dtypes", ()) if d != dtype)
                         if tier == "full" else ())
    names = {"values": "values", "broadcast": "values-broadcast", "empty": "values-empty"}
    names.update({kind: f"values-{kind}" for kind, *_ in SUM_CALLS + ONE_DIM_CALLS + SCAN_CALLS + WHOLE_CALLS + DEVIATION_CALLS
                  if kind not in names})
    names.update({f"attrs{i}": f"values-attrs{i}"
                  for i in range(1, len(entry.sample.get("attr_variants", ())) + 1)})
    out = []
    cases = value_cases(key, count=1024 if tier == "ci" else 8192, dtypes=dtypes)
    if (entry.sums or entry.multiplies or entry.norms or entry.deviates or entry.normalized_grads) \
            and tier == "ci":
        # a sum's model is about its accumulator: the ci tier judges the long call in each other
        # float dtype too, where accumulating fp16 or bf16 in its own dtype shows
        narrow = tuple(d for d in entry.sample.get("dtypes", ()) if d in ("FLOAT16", "BF16") and d != dtype)
        # (a product's: its values call too, where an fp16 result below the normal range shows a flush;
        # a softmax gradient's: where fp16's largest values show an input rounded through another dtype)
        kinds = ("long-", "values-") if entry.multiplies or entry.normalized_grads else ("long-",)
        cases += [c for c in value_cases(key, dtypes=narrow) if c.case_id.startswith(kinds)] if narrow else []
    if entry.truths and tier == "ci":
        # a truth's narrow cast shows on a narrow input (a value of bf16 that float16 holds as 0)
        narrow = tuple(d for d in entry.sample.get("dtypes", ()) if d == "BF16" and d != dtype)
        cases += [c for c in value_cases(key, dtypes=narrow) if c.case_id.startswith("values-")] if narrow else []
    for case in cases:
        kind, case_dtype = case.case_id.split("-", 1)
        tensors = {n: case.tensors.get(n, base.tensors[n]) for n in base.tensors}
        attrs = {**base.attrs, **{k: v for k, v in case.attrs.items()}}
        if entry.output in base.tensors and base.tensors[entry.output] is not None \
                and not entry.inplace and case.tensors.get(entry.output) is not None:
            out_dtype = base.tensors[entry.output].desc.dtype
            if out_dtype.name == dtype:   # an output in the inputs' dtype stays in it
                out_dtype = AclDataType[case_dtype]
            shape = case.tensors[entry.output].desc.shape
            tensors[entry.output] = TensorArg.from_array(np.zeros(shape, dtype=numpy_dtype(out_dtype)),
                                                         out_dtype)
        case_id = names.get(kind, f"values-{kind}") + ("" if case_dtype == dtype else f"-{case_dtype}")
        out.append(case.with_(tensors=tensors, attrs=attrs, case_id=case_id,
                              rule_ids=case.rule_ids, note="the value cases of the entry"))
    return out
