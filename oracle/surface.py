"""The oracle of every elementwise API with a value entry (spec/surface_values.py): one adapter from
a Case to its expected output, driven by the entry's function and class and by the operator's
``values`` block (output dtype, promotion, compute dtype, as the extractor read them from the host
code).

The inputs are the Case's views (tensors) and attributes (aclScalar, double, int64 parameters),
cast to the compute dtype, broadcast against each other; the function is evaluated in float64
(floating compute dtypes) or in the compute dtype itself (integers, BOOL), cast to the compute
dtype and then to the output tensor's dtype, as the host code's Cast does. NaN, Inf, signed zero
and subnormal results are NumPy's IEEE float64 results of the document's function; an empty
output is an empty result.
"""
from __future__ import annotations

from dataclasses import replace

import ast
import json
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping

import ml_dtypes
import numpy as np

from aclnn_conformance.oracle.result import OracleResult
from aclnn_conformance.oracle.surface_functions import (evaluate_bound, evaluate_values, expression_name,
                                                       parse, zero_sign_fixed)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import fraction_bits, numpy_dtype
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.surface_values import ValueEntry, operand_shape, tolerance_aux, value_entry

_BF16 = np.dtype(ml_dtypes.bfloat16)
_FLOAT_RANK = {np.dtype(np.float16): 1, _BF16: 1, np.dtype(np.float32): 2, np.dtype(np.float64): 3}


def is_float(dtype: np.dtype) -> bool:
    return np.dtype(dtype) in _FLOAT_RANK


def promote(dtypes: list[np.dtype]) -> np.dtype:
    """aclnn's promotion of tensor dtypes (torch's table): fp16 with bf16 is float32; a float wins
    over any integer; integers and BOOL as NumPy promotes them."""
    floats = [d for d in dtypes if is_float(d)]
    if floats:
        if len({d for d in floats}) > 1 and max(_FLOAT_RANK[d] for d in floats) == 1:
            return np.dtype(np.float32)
        return max(floats, key=lambda d: _FLOAT_RANK[d])
    out = dtypes[0]
    for d in dtypes[1:]:
        out = np.promote_types(out, d)
    return out


# ---- the operator's values block (written by the extractor beside its rules) ----

@lru_cache(maxsize=256)
def _data_file_values(key: str) -> Mapping[str, Any] | None:
    from aclnn_conformance.spec.registry import data_folders
    for folder in data_folders():
        for path in sorted(Path(folder).glob(f"*/{key}.json")) + sorted(Path(folder).glob(f"{key}.json")):
            doc = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(doc, dict) and "values" in doc:
                return doc["values"]
    return None


def values_block(op: str) -> Mapping[str, Any] | None:
    """The ``values`` block of an operator: from its record when the record carries it, else
    from its data file, else None (a hand-built case: the promotion rule below)."""
    try:
        from aclnn_conformance.spec.registry import operator
        record = operator(op)
    except Exception:
        record = None
    for holder in (record, getattr(record, "spec", None)):
        block = getattr(holder, "values", None)
        if isinstance(block, Mapping):
            return block
    return _data_file_values(op)


def _acl_dtype(name: Any) -> np.dtype | None:
    if isinstance(name, str):
        text = name.removeprefix("ACL_").removeprefix("DT_")
        aliases = {"FLOAT32": "FLOAT", "BFLOAT16": "BF16", "FP16": "FLOAT16", "FP32": "FLOAT"}
        try:
            return numpy_dtype(AclDataType[aliases.get(text, text)])
        except (KeyError, ValueError):
            return None
    return None


def _rule_dtype(rule: Any, dtypes: Mapping[str, np.dtype]) -> np.dtype | None:
    """A dtype rule of the values block: a dtype name, same_as, promote, fixed, or a mapping from
    the promoted dtype's name to the compute dtype."""
    if rule is None:
        return None
    if isinstance(rule, str):
        return _acl_dtype(rule)
    if isinstance(rule, Mapping):
        kind = rule.get("rule")
        if kind == "same_as" and rule.get("of") in dtypes:
            return dtypes[rule["of"]]
        if kind == "promote":
            named = [dtypes[n] for n in rule.get("of", []) if n in dtypes]
            return promote(named) if named else None
        if kind == "fixed":
            return _acl_dtype(rule.get("dtype"))
        promoted = promote(list(dtypes.values())) if dtypes else None
        if promoted is not None:
            for name, target in rule.items():
                if _acl_dtype(name) == promoted:
                    return _acl_dtype(target)
    return None


def compute_dtype(case: Case, entry: ValueEntry) -> np.dtype:
    """The dtype the host code computes in: the values block's ``compute_dtype``, else its
    ``promotion``, else the promotion of the tensor inputs (a float scalar makes an integer call
    float32, except in the exact class, whose scalars take the tensor's dtype); the transcendental
    class computes integer inputs in float32."""
    tensors = {n: case.tensor(n).storage.dtype for n in entry.inputs
               if n in case.tensors and case.tensor(n) is not None}
    block = values_block(case.op) or {}
    for key in ("compute_dtype", "promotion"):
        found = _rule_dtype(block.get(key), tensors)
        if found is not None:
            return found
    promoted = promote(list(tensors.values())) if tensors else np.dtype(np.float32)
    scalars = [_scalar(case, entry, n) for n in entry.inputs if n not in tensors]
    # an exact entry whose host code promotes with its scalars says so (``float_scalars_promote``)
    scalars_promote = entry.function_class != "exact" or bool(entry.raw.get("float_scalars_promote"))
    if not is_float(promoted) and promoted.kind != "b" and scalars_promote and any(
            isinstance(s, float) for s in scalars if s is not None):
        promoted = np.dtype(np.float32)
    if entry.function_class == "transcendental" and not is_float(promoted):
        promoted = np.dtype(np.float32)
    return promoted


def _scalar(case: Case, entry: ValueEntry, name: str) -> Any:
    if name in case.attrs:
        value = case.attrs[name]
    elif name in entry.defaults:
        value = entry.defaults[name]
    else:
        return None
    if isinstance(value, Mapping) and "value" in value:     # an aclScalar with its dtype
        value = value["value"]
    if value is None and name in entry.defaults:
        value = entry.defaults[name]
    return value


def inputs(case: Case, entry: ValueEntry, compute: np.dtype,
           evaluate_in: np.dtype | None = None) -> tuple[dict[str, Any], tuple[int, ...]]:
    """The evaluation's environment (arrays in ``evaluate_in``, by default float64 for a floating
    compute dtype, else the compute dtype; scalars as numbers) and the broadcast shape of the
    tensor inputs."""
    env: dict[str, Any] = {}
    shapes = []
    wide = evaluate_in or (np.dtype(np.float64) if is_float(compute) else compute)
    for name in entry.inputs:
        arg = case.tensors.get(name)
        if arg is not None:
            values = np.asarray(arg.values())
            if name in entry.raw.get("columns", ()):   # an outer product's left operand: a column
                values = values.reshape(values.shape + (1,))
            if entry.raw.get("channel_operands") and name in entry.raw["channel_operands"]:
                # one element per channel of the input's dim (spec/surface_values.py operand_shape)
                laid = operand_shape(case, entry, name)
                values = values.reshape(laid) if laid is not None else values
            with np.errstate(all="ignore"):
                values = values.astype(compute) if values.dtype != compute else values
                env[expression_name(name)] = values.astype(wide) if wide != compute else values
            shapes.append(values.shape)
            continue
        value = _scalar(case, entry, name)
        if value is None:
            raise ValueError(f"{case.op}: no value for {name} (neither a tensor nor an attribute)")
        if isinstance(value, bool) or not is_float(compute):
            # a value outside an integer compute dtype wraps as the C conversion does (-4 to UINT8: 252)
            with np.errstate(all="ignore"):
                env[expression_name(name)] = np.asarray(value).astype(compute)[()] if not is_float(compute) \
                    else float(value)
        else:
            env[expression_name(name)] = float(value)   # a keyword's parameter as the expression spells it
    shape = np.broadcast_shapes(*shapes) if shapes else ()
    return env, shape


def from_case(case: Case, profile: str, product: str | None = None) -> OracleResult:
    """The expected output of an elementwise API's call, with what its standard needs (aux); a
    reduction's by oracle/surface_reductions.py."""
    entry = value_entry(case.op)
    if entry.reduction is not None:
        from aclnn_conformance.oracle.surface_reductions import from_case as reduction_from_case
        result = reduction_from_case(case, profile, product)
        if entry.multiplies or not entry.reduction.get("dims"):
            # a product, or an extreme of every element: the product's special-value choices too
            for name in entry.outputs:   # each output of an entry naming several (reduction.outputs)
                result.aux[name].update(device_choices(case, profile, product, replace(entry, output=name),
                                                       np.asarray(result.views[name])))
        return result
    if entry.raw.get("movement"):   # data movement: the output's shape from an attribute
        from aclnn_conformance.oracle.surface_movement import from_case as movement_from_case
        result = movement_from_case(case, entry)
        result.aux[entry.output].update(device_choices(case, profile, product, entry,
                                                       np.asarray(result.views[entry.output])))
        return result
    if entry.raw.get("conversion"):   # a dtype conversion: the target is an attribute
        from aclnn_conformance.oracle.surface_conversions import from_case as conversion_from_case
        expected, open_ = conversion_from_case(case, product)
        aux = {"either_zero_sign": False, "unjudged": open_,
               **device_choices(case, profile, product, entry, expected)}
        return OracleResult(views={entry.output: expected}, aux={entry.output: aux})
    out_arg = case.tensor(entry.output)
    out_dtype = out_arg.storage.dtype
    out_shape = tuple(out_arg.desc.shape)
    compute = compute_dtype(case, entry)
    exact_evaluation = entry.function_class == "exact" or not is_float(compute)
    evaluate_in = native_exact_dtype(case, entry, compute) if exact_evaluation else None
    env, shape = inputs(case, entry, compute, evaluate_in)
    shape = np.broadcast_shapes(shape, out_shape) if out_shape else shape
    aux: dict[str, Any] = {}
    if not is_float(compute):
        result = evaluate_values(entry.function, env, shape, compute)
        with np.errstate(all="ignore"):
            expected = result.astype(compute).astype(out_dtype)
        aux = {"either_zero_sign": entry.zero_sign == "either"}
    elif exact_evaluation:
        result = evaluate_values(entry.function, env, shape, like=evaluate_in or np.dtype(np.float64))
        with np.errstate(all="ignore"):
            expected = result.astype(compute).astype(out_dtype) if result.dtype != np.bool_ \
                else result.astype(out_dtype)
        aux = {"either_zero_sign": entry.zero_sign == "either"}
    elif entry.function_class == "rounded":
        rounded = evaluate_bound(entry.function, env, shape, compute, out_dtype)
        with np.errstate(all="ignore"):
            expected = rounded.unrounded.astype(out_dtype) if out_dtype != np.float32 \
                else rounded.unrounded
        aux = {"bound": rounded.bound, "unrounded": rounded.unrounded,
               "unjudged": rounded.unjudged, "exact": rounded.value}
    else:
        exact = evaluate_values(entry.function, env, shape)
        with np.errstate(all="ignore"):
            expected = exact.astype(compute).astype(out_dtype)
        narrower = fraction_bits(compute) < fraction_bits(out_dtype)   # bf16 into fp16 too
        # a result computed in a narrower dtype is held to that dtype's numbers, the vendor's per-API
        # ones as the published standard, never to the wider output's
        aux = tolerance_aux(entry, compute if narrower else out_dtype)
        aux["exact"] = exact
        if narrower:
            aux["faithful_dtype"] = np.dtype(compute)   # the result is as fine as the compute dtype
    if entry.raw.get("open_where"):   # where the entry says not to judge (its why), in every class
        # evaluated as the function is: an integer call in its dtype, an exact one in its exact type
        like = compute if not is_float(compute) else (evaluate_in or np.dtype(np.float64))
        with np.errstate(all="ignore"):
            left_open = np.broadcast_to(np.asarray(evaluate_values(
                entry.raw["open_where"]["where"], env, shape, like=like), bool), shape)
        aux["unjudged"] = left_open | aux["unjudged"] if "unjudged" in aux else left_open
    if "exact" in aux and entry.zero_sign != "either" and zero_sign_fixed(entry.function):
        aux["zero_sign_fixed"] = True   # the sign of an exact zero is judged (IEEE 754 fixes it)
    expected = np.broadcast_to(expected, out_shape).astype(out_dtype) if out_shape != shape \
        else np.asarray(expected)
    if "exact" in aux and np.shape(aux["exact"]) != out_shape:
        aux["exact"] = np.broadcast_to(aux["exact"], out_shape)
    aux.update(device_choices(case, profile, product, entry, expected))
    return OracleResult(views={entry.output: expected}, aux={entry.output: aux})


def flush_subnormals(values: np.ndarray) -> np.ndarray:
    """Subnormal values of a float array as zeros of their sign."""
    v = np.asarray(values)
    if not is_float(v.dtype):
        return v
    finfo = ml_dtypes.finfo(v.dtype) if v.dtype == np.dtype(ml_dtypes.bfloat16) else np.finfo(v.dtype)
    wide = v.astype(np.float64)
    tiny = (wide != 0) & (np.absolute(wide) < float(finfo.smallest_normal))
    return np.where(tiny, np.copysign(0.0, wide), wide).astype(v.dtype) if tiny.any() else v


def device_choices(case: Case, profile: str, product: str | None, entry: ValueEntry,
                   expected: np.ndarray) -> dict[str, Any]:
    """The other answers the product's special-value model leaves open (spec/special_values.py):
    ``flushed``, the expected output of a device that reads and writes subnormals as zero, and
    ``saturated``, of one that saturates infinities and writes NaN as 0; each only where it differs."""
    from aclnn_conformance.spec.special_values import EITHER, SATURATION, special_values
    from aclnn_conformance.spec.tensor import TensorArg
    model = special_values(product)
    if model is None:
        return {}
    choices: dict[str, Any] = {}
    if model.subnormals == EITHER:   # also where a comparison of flushed inputs gives another truth value
        altered = case
        for name in entry.inputs:
            arg = case.tensors.get(name)
            if arg is not None and name != entry.output or (arg is not None and entry.inplace):
                flushed = flush_subnormals(arg.storage)
                if flushed is not arg.storage:
                    altered = altered.with_tensor(name, TensorArg(arg.desc, flushed))
        other = flush_subnormals(np.asarray(from_case(altered, profile).views[entry.output])
                                 if altered is not case else expected)
        if other is not expected:
            choices["flushed"] = np.broadcast_to(other, np.shape(expected))
    if model.overflow == SATURATION and is_float(np.asarray(expected).dtype):
        wide = np.asarray(expected).astype(np.float64)
        if (~np.isfinite(wide)).any():
            top = float(ml_dtypes.finfo(expected.dtype).max if expected.dtype == np.dtype(ml_dtypes.bfloat16)
                        else np.finfo(expected.dtype).max)
            choices["saturated"] = np.where(np.isnan(wide), 0.0, np.clip(wide, -top, top)).astype(expected.dtype)
    return choices


def native_exact_dtype(case: Case, entry: ValueEntry, compute: np.dtype) -> np.dtype | None:
    """The dtype an exact function of tensors alone is evaluated in without widening to float64:
    float32 for float32 and narrower float compute dtypes (which it holds exactly), float64 for
    float64; every operation of the exact class returns one of its operands or a value they hold,
    and every literal of the function is held exactly too. None when a scalar attribute takes part
    (its comparison is made in float64, as before) or the compute dtype is no float."""
    if not is_float(compute) or any(case.tensors.get(n) is None for n in entry.inputs):
        return None
    held = np.dtype(np.float32) if np.dtype(compute).itemsize <= 4 else np.dtype(np.float64)
    for node in ast.walk(parse(entry.function)):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and \
                not isinstance(node.value, bool) and float(held.type(node.value)) != node.value:
            return None
    return held
