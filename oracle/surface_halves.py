"""The oracle of the gated units (a value entry whose ``reduction.kind`` is ``halves``): the input split
along one dim into its first and second half, and the entry's function, an elementwise expression
over the halves' names (``reduction.halves``, e.g. ``["a", "b"]``) and its other operands, evaluated in
float64 (oracle/surface_functions.py), cast to the compute dtype (the input's) and then to the output's.

- The dim: the call's attribute the entry names (``reduction.dims``), or the entry's fixed ``dim``
  (the last, where the API takes none); wrapped by the rank. A dim of odd length, out of range or a
  rank-0 input has no halves: outside the function (``halved_shape`` is None).
- Other operands (``reduction.operands``): a tensor of one element read as a scalar in the input's
  dtype (a kernel reading its first element), or an attribute; a string attribute as the number
  ``reduction.words`` gives it (an unlisted word is outside the function: every element open).
- ``open_where`` (an expression over the same names) leaves elements open where the entry's model of
  the kernel says not to judge them, with its why in the entry.
- A backward (``reduction.gradient``: the output's gradient, of the halves' shape) writes the input's
  shape: ``function`` gives the first half, ``reduction.second_function`` the second, joined along
  the dim; ``open_where.second`` is the second half's open elements (``where`` the first's). The
  name ``fraction_bits`` reads the compute dtype's fraction bits (an entry opening more elements
  where a kernel computes natively in a narrow dtype).
- ``reduction.interleaved`` names a bool attribute: true splits the block from the dim on (the dims
  after it merged) into its even and odd elements; ``reduction.rows`` an optional integer tensor
  whose sum is how many leading rows (the dims before the dim, merged) are computed: the rest open.
- The standard is the transcendental class's (the vendor's TTK rtol/atol for the output dtype, else
  the published standard; on a product outside the entry's ``ttk_products``, whose host code takes
  another kernel than the one TTK measured, the published standard); a result computed in a dtype of fewer fraction bits than the output's is
  held to the compute dtype's numbers.
"""
from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_functions import evaluate_values
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import fraction_bits
from aclnn_conformance.spec.surface_halves import gradient_of, halved_shape, halves_output_shape, split_axis
from aclnn_conformance.spec.surface_values import ValueEntry, tolerance_aux


def operands(case: Case, entry: ValueEntry, compute: np.dtype) -> tuple[dict[str, Any], bool]:
    """The function's other operands as numbers, and whether the call is inside the function (a
    one-element tensor, a listed word)."""
    red = entry.reduction
    env: dict[str, Any] = {}
    inside = True
    for name in red.get("operands", ()):
        arg = case.tensors.get(name)
        if arg is not None:
            values = np.asarray(arg.values())
            inside &= values.size == 1
            with np.errstate(all="ignore"):
                env[name] = float(values.reshape(-1)[:1].astype(compute).astype(np.float64).sum())
            continue
        value = case.attrs.get(name, entry.defaults.get(name))
        if value is None:
            value = entry.defaults.get(name)
        words: Mapping[str, Any] = red.get("words", {}).get(name, {})
        if isinstance(value, str) or words:
            inside &= value in words
            value = words.get(value, 0)
        env[name] = value
    return env, inside


def split(values: np.ndarray, axis: int, names: tuple[str, str], interleaved: bool = False) -> dict[str, np.ndarray]:
    """The two halves of ``values`` along ``axis`` by name; ``interleaved``: the block from ``axis`` on,
    flattened, in its even and its odd elements (each of the halves' shape)."""
    if not interleaved:
        first, second = np.split(values, 2, axis=axis)
        return {names[0]: first, names[1]: second}
    shape = values.shape
    half = shape[:axis] + (shape[axis] // 2,) + shape[axis + 1:]
    flat = values.reshape(int(np.prod(shape[:axis], dtype=np.int64)), -1)
    return {names[0]: flat[:, 0::2].reshape(half), names[1]: flat[:, 1::2].reshape(half)}


def interleaved_of(case: Case, entry: ValueEntry) -> bool:
    """Whether the call splits into even and odd elements (the attribute ``reduction.interleaved``
    names; false where the entry names none)."""
    name = entry.reduction.get("interleaved")
    return bool(case.attrs.get(name, entry.defaults.get(name, False))) if name else False


def rows_beyond(case: Case, entry: ValueEntry, shape: tuple[int, ...], axis: int) -> tuple[np.ndarray, bool]:
    """The output's elements past the rows the call defines (``reduction.rows``: an optional integer
    tensor whose sum is how many rows of the dims before ``axis``, merged, are computed; the rest
    the document leaves undefined), and whether the tensor is inside the function (no negative
    count)."""
    name = entry.reduction.get("rows")
    arg = case.tensors.get(name) if name else None
    if arg is None:
        return np.zeros(shape, bool), True
    counts = np.asarray(arg.values()).astype(np.int64).reshape(-1)
    rows = int(np.prod(shape[:axis], dtype=np.int64))
    beyond = np.arange(rows) >= int(counts.sum())
    flat = np.broadcast_to(beyond[:, None], (rows, int(np.prod(shape[axis:], dtype=np.int64))))
    return flat.reshape(shape), bool((counts >= 0).all())


def functions_of(entry: ValueEntry) -> tuple[str, ...]:
    """The expressions of the output: one (a forward gated unit), or the first half's and the second
    half's (a backward: ``function`` and ``reduction.second_function``)."""
    second = entry.reduction.get("second_function")
    return (entry.function, second) if gradient_of(entry) else (entry.function,)


def evaluate_halves(case: Case, entry: ValueEntry, axis: int, env: dict[str, Any], shape: tuple[int, ...],
                    like: np.dtype = np.dtype(np.float64), forms: tuple[str, ...] | None = None,
                    open_: bool = False) -> np.ndarray:
    """The entry's expressions (or ``forms``; with ``open_`` its ``open_where`` ones) over the halves
    and operands in ``env``, in ``like``: the halves' shape, or a backward's two halves joined along
    ``axis`` in the input's shape."""
    if open_:
        where = entry.raw["open_where"]
        forms = (where["where"],) + ((where.get("second", where["where"]),) if gradient_of(entry) else ())
    forms = forms or functions_of(entry)
    half = np.shape(env[entry.reduction["halves"][0]])
    with np.errstate(all="ignore"):
        parts = [np.broadcast_to(np.asarray(evaluate_values(f, env, half, like=like)), half) for f in forms]
    return np.concatenate(parts, axis=axis) if len(parts) > 1 else parts[0].reshape(shape)


def environment(case: Case, entry: ValueEntry, axis: int, compute: np.dtype,
                like: np.dtype = np.dtype(np.float64)) -> tuple[dict[str, Any], bool]:
    """The halves of the input, a backward's gradient and the other operands, each held in the compute
    dtype and read in ``like``; and whether the call is inside the function."""
    red = entry.reduction
    env, inside = operands(case, entry, compute)
    arg = case.tensor(red["input"])
    with np.errstate(all="ignore"):
        wide = np.asarray(arg.view_of(arg.storage)).astype(compute).astype(like)
        env.update(split(wide, axis, tuple(red["halves"]), interleaved_of(case, entry)))
        gradient = gradient_of(entry)
        if gradient is not None:
            g = case.tensor(gradient)
            env[gradient] = np.asarray(g.view_of(g.storage)).astype(compute).astype(like)
    env["fraction_bits"] = fraction_bits(compute)   # the compute dtype's precision, for open_where
    return env, inside


def from_case(case: Case, entry: ValueEntry, product: str | None = None) -> OracleResult:
    """The expected output of a gated unit's call (or of its backward), the vendor's numbers for it
    and the elements left open."""
    red = entry.reduction
    arg = case.tensor(red["input"])
    out_arg = case.tensor(entry.output)
    out_dtype = np.dtype(out_arg.storage.dtype)
    out_shape = tuple(out_arg.desc.shape)
    compute = compute_dtype_of(case, entry)
    shape = halves_output_shape(case, entry)
    if shape is None or shape != out_shape:   # no halves of the output's shape: nothing to judge
        return OracleResult(views={entry.output: np.zeros(out_shape, out_dtype)},
                            aux={entry.output: {"unjudged": np.ones(out_shape, bool)}})
    axis = split_axis(case, entry)
    env, inside = environment(case, entry, axis, compute)
    with np.errstate(all="ignore"):
        exact = evaluate_halves(case, entry, axis, env, shape).astype(np.float64)
        expected = exact.astype(compute).astype(out_dtype)
    narrower = fraction_bits(compute) < fraction_bits(out_dtype)   # bf16 into fp16 too
    aux: dict[str, Any] = tolerance_aux(entry, compute if narrower else out_dtype)
    limited = entry.raw.get("ttk_products")
    if limited and product is not None and product not in limited["products"]:
        # another kernel or composition of kernels than the one TTK measured: the published standard
        aux = {"source": (entry.published_standard or {}).get("source", "published standard")}
    if narrower:
        aux["faithful_dtype"] = compute
    beyond, counted = rows_beyond(case, entry, shape, axis)
    open_ = np.full(shape, not (inside and counted)) | beyond
    if entry.raw.get("open_where") and exact.size:
        open_ = open_ | np.asarray(evaluate_halves(case, entry, axis, env, shape, open_=True), bool)
    aux.update({"exact": exact, "unjudged": open_, "either_zero_sign": entry.zero_sign == "either"})
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})


def compute_dtype_of(case: Case, entry: ValueEntry) -> np.dtype:
    """The input's dtype (every kernel of a gated unit computes in it or in float32 from it); a
    backward whose gradient has a wider dtype than the input computes in their promotion."""
    compute = np.dtype(case.tensor(entry.reduction["input"]).storage.dtype)
    gradient = gradient_of(entry)
    if gradient is not None and case.tensors.get(gradient) is not None:
        other = np.dtype(case.tensor(gradient).storage.dtype)
        if other != compute:   # aclnn's promotion of two floats: the finer, fp16 with bf16 float32
            both_narrow = max(compute.itemsize, other.itemsize) == 2
            compute = np.dtype(np.float32) if both_narrow else max(compute, other, key=fraction_bits)
    return compute
