"""The gated units' split and value cases (a value entry whose ``reduction.kind`` is ``halves``): the
dim a call splits and the output's shape (the input's with that dim halved), and calls whose input
is split along one dim into two halves (the oracle: oracle/surface_halves.py).

Per sample dtype: the values with the special values in both halves, split along a middle dim; a
dim of the size of another (``twin``: splitting the wrong one shows); the first dim (entries whose
API names the dim); an empty input; and each of the entry's other attribute settings
(``sample.attr_variants``). An entry without a dim attribute splits its fixed dim in every call.
A backward's calls add the output's gradient in the halves' shape (``reduction.gradient``); an entry
with optional row counts (``reduction.rows``) adds a call giving ``sample.rows``.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.tensor import TensorArg

# (kind, input shape for 1024 values, dim): a middle dim with the special values, a dim of the size
# of the next (4, 6, 6), the first dim, an empty input
HALVES_CALLS = (("values", (8, 16, 8), 1), ("twin", (4, 6, 6), 1), ("first", (4, 6, 6), 0),
                ("empty", (0, 6), 1))
# the same for an entry whose API splits a fixed dim (the last): the twin's last two dims alike
FIXED_DIM_CALLS = (("values", (8, 8, 16), -1), ("twin", (4, 6, 6), -1), ("empty", (0, 6), -1))


ROWS = "rows"   # a variant giving the entry's row counts (``sample.rows``) as its optional tensor


def split_axis(case: Case, entry: Any, dim: int | None = None) -> int | None:
    """The input axis the call splits (``dim`` in place of the call's), None when out of range."""
    red = entry.reduction
    rank = case.tensor(red["input"]).desc.ndim
    if dim is None:
        named = red.get("dims")
        dim = case.attrs.get(named) if named and case.attrs.get(named) is not None else red.get("dim", -1)
    dim = int(dim)
    if not -rank <= dim < rank:
        return None
    return dim + rank if dim < 0 else dim


def halved_shape(case: Case, entry: Any, dim: int | None = None) -> tuple[int, ...] | None:
    """The input's shape with the split dim halved (None: no such dim, or an odd length)."""
    shape = tuple(case.tensor(entry.reduction["input"]).desc.shape)
    axis = split_axis(case, entry, dim)
    if axis is None or shape[axis] % 2:
        return None
    return shape[:axis] + (shape[axis] // 2,) + shape[axis + 1:]


def gradient_of(entry: Any) -> str | None:
    """The output gradient's operand of a gated unit's backward (``reduction.gradient``: its shape is
    the halves', and the output is the input's shape, ``function`` its first half and
    ``reduction.second_function`` its second), None for a forward gated unit."""
    return entry.reduction.get("gradient")


def halves_output_shape(case: Case, entry: Any) -> tuple[int, ...] | None:
    """The output's shape the entry defines for the call: the halves' (a forward gated unit) or the
    input's (a backward one, whose gradient operand must have the halves' shape); None outside."""
    halved = halved_shape(case, entry)
    gradient = gradient_of(entry)
    if halved is None or gradient is None:
        return halved
    arg = case.tensors.get(gradient)
    if arg is None or tuple(arg.desc.shape) != halved:
        return None
    return tuple(case.tensor(entry.reduction["input"]).desc.shape)


def _with_specials_in_both_halves(x: np.ndarray, extra: int) -> np.ndarray:
    """The special values (the last ``extra`` of the flat sample) copied to its start too, so that
    each half holds them (the start lies in the first half, the end in the second)."""
    flat = np.array(x, copy=True).reshape(-1)
    if extra and flat.size > 2 * extra:
        flat[:extra] = flat[-extra:][::-1]
    return flat.reshape(x.shape)


def halves_value_cases(entry: Any, key: str, count: int, dtypes: tuple[str, ...] | None,
                       helpers: Mapping[str, Any]) -> list[Case]:
    """A gated unit's value cases per sample dtype (``HALVES_CALLS`` or ``FIXED_DIM_CALLS``);
    ``helpers`` are spec/surface_cases.py's (``seed``, ``sample_values``, ``specials``, ``rule``: the
    value rule's id), passed in so that neither module imports the other."""
    sample_values, specials = helpers["sample_values"], helpers["specials"]
    red = entry.reduction
    rng = np.random.default_rng(helpers["seed"])
    named_dim = red.get("dims")
    calls = HALVES_CALLS if named_dim else FIXED_DIM_CALLS
    variants = [dict()] + [dict(v) for v in entry.sample.get("attr_variants", ())]
    rows = red.get("rows")
    if rows and entry.sample.get("rows"):   # the optional row counts given: a call of their own
        variants.append({ROWS: entry.sample["rows"]})
    cases = []
    for dtype_name in dtypes or entry.sample.get("dtypes", ["FLOAT"]):
        acl = AclDataType[dtype_name]
        dt = numpy_dtype(acl)
        for i, variant in enumerate(variants):
            for kind, shape, dim in calls:
                if i and kind != "values":
                    continue
                scale = max(1, count // 1024) if kind == "values" else 1
                shape = (shape[0] * scale,) + shape[1:]
                with_specials = kind == "values"
                x = sample_values(entry, dt, int(np.prod(shape)), rng, with_specials).reshape(shape)
                if with_specials:
                    x = _with_specials_in_both_halves(
                        x, len(specials(dt, tuple(entry.sample.get("skip_specials", ())))))
                axis = dim + len(shape) if dim < 0 else dim
                out_shape = shape[:axis] + (shape[axis] // 2,) + shape[axis + 1:]
                counts = variant.get(ROWS)
                attrs: dict[str, Any] = {**entry.sample.get("attrs", {}),
                                         **{k: v for k, v in variant.items() if k != ROWS}}
                if named_dim:
                    attrs[named_dim] = dim
                tensors: dict[str, TensorArg | None] = {red["input"]: TensorArg.from_array(x, acl)}
                for name, value in entry.sample.get("operands", {}).items():
                    tensors[name] = TensorArg.from_array(np.full((1,), value, dt), acl)
                gradient = gradient_of(entry)
                if gradient is not None:   # a backward: the gradient has the halves' shape, the output x's
                    size = int(np.prod(out_shape))
                    tensors[gradient] = TensorArg.from_array(
                        sample_values(entry, dt, size, rng, False).reshape(out_shape), acl)
                    out_shape = shape
                if counts is not None:
                    tensors[rows] = TensorArg.from_array(np.asarray(counts, np.int64), AclDataType.INT64)
                out = np.zeros(out_shape, dt)
                tensors[entry.output] = TensorArg.from_array(out, acl)
                case_id = f"{kind if not i else ('rows' if counts is not None else f'attrs{i}')}-{dtype_name}"
                cases.append(Case(op=key, case_id=case_id, tensors=tensors, attrs=attrs,
                                  rule_ids=(helpers["rule"],), origin="table",
                                  note=", ".join(f"{k}={v}" for k, v in variant.items())))
    return cases
