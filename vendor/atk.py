"""ATK json cases (``tests/st/aclnnX/atk_aclnnX.json``): valid calls with the vendor's comparison.

A case is ``{id, name, aclnn_name, api_type, standard: {acc, perf}, inputs: [...]}``; an input is
``{name, type (tensor|tensors|attr|attrs|scalar|...), required, dtype, shape, range_values, format,
outlier_values}``, a list of such inputs is a tensor list. ``range_values`` is a pair, a number,
"inf"/"nan", a distribution ``{"name": "nd", "mean", "std"}`` or an enum string; values are drawn
from it with the case's seed.
"""
from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.vendor.model import (TensorRecipe, VendorCase, VendorExpectation, op_key_of,
                                            spec_params)
from aclnn_conformance.spec.enums import AclFormat
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.vendor.atk_golden import GoldenArgument, GoldenOutput, golden_name, golden_outputs
from aclnn_conformance.vendor.atk_outputs import place_outputs
from aclnn_conformance.vendor.names import dtype_of, format_of
from aclnn_conformance.vendor.executor_golden import ExecutorGolden, executor_scope
from aclnn_conformance.vendor.executor_rewrite import (BuiltTensor, CValue, ExecutorRewrite,
                                                       InputTensor, NotEvaluated)
from aclnn_conformance.vendor.values import (RecipeError, constant, draw_scalar, exact, number,
                                             seed_of, span_of, uniform)

TENSOR_TYPES = ("tensor", "tensors", "tensor_tuple")
ATTR_TYPES = ("attr", "attrs", "attr_tuple", "scalar", "scalars")


NORMAL_NAMES = ("nd", "normal", "norm", "gauss")


def range_recipe(value: Any) -> dict[str, Any]:
    """The value recipe of an ATK ``range_values``."""
    if isinstance(value, dict):
        name = str(value.get("name", "")).lower()
        if name in NORMAL_NAMES:
            return {"kind": "normal", "mean": number(value.get("mean", 0)),
                    "std": number(value.get("std", 1))}
        if name in ("uniform", "ud") and "low" in value:
            return uniform(number(value["low"]), number(value["high"]))
        raise RecipeError(f"distribution {value!r} is not one this reader knows")
    if isinstance(value, bool):
        return constant(value)
    if isinstance(value, (int, float)):
        return constant(value)
    if isinstance(value, str):
        return constant(number(value))
    if isinstance(value, list):
        if len(value) == 1:
            return range_recipe(value[0])
        if len(value) == 2 and all(not isinstance(v, (list, dict)) for v in value):
            lo, hi = number(value[0]), number(value[1])
            if math.isfinite(lo) and math.isfinite(hi):
                return uniform(value[0], value[1])
            return {"kind": "choice", "values": list(value)}
        if value and all(not isinstance(v, (list, dict)) for v in value):
            return {"kind": "choice", "values": list(value)}
    raise RecipeError(f"range_values {value!r} is not a form this reader knows")


def _attr_kind(dtype: str) -> str:
    d = str(dtype).lower()
    if d == "bool":
        return "bool"
    if d in ("float32", "fp32", "float", "fp16", "bf16", "float16"):
        return "float32"
    if d in ("double", "float64", "fp64"):
        return "float64"
    if d.startswith("int") or d.startswith("uint"):
        return "int"
    return "raw"


def ranged_normal(value: Any) -> dict[str, Any] | None:
    """A normal distribution whose mean and std are themselves ranges (``{"name": "nd", "mean":
    [-100, 100], "std": [1, 25]}``, the form many ATK files give a scalar): both drawn from their
    ranges, then the value. Read for scalars alone (what matters there is which values can come
    out: the whole line); a tensor's values of this form stay unread (they decide no check)."""
    if not (isinstance(value, dict) and str(value.get("name", "")).lower() in NORMAL_NAMES):
        return None
    mean, std = value.get("mean", 0), value.get("std", 1)
    if not any(isinstance(v, list) for v in (mean, std)):
        return None
    if any(isinstance(v, list) and len(v) != 2 for v in (mean, std)):
        raise RecipeError(f"distribution {value!r} is not one this reader knows")
    for end in [e for v in (mean, std) for e in (v if isinstance(v, list) else [v])]:
        number(end)                           # raises on what is no number
    return {"kind": "normal", "mean": mean, "std": std}


def _attr_value(item: dict, seed: int, index: int) -> tuple[Any, dict[str, Any] | None]:
    """The value of an attr or scalar item, and, for a value drawn from a range or a distribution,
    what it was drawn from (``{"recipe", "kind"}``: the values the framework may give instead)."""
    rv = item.get("range_values")
    kind = _attr_kind(item.get("dtype", ""))
    if item.get("type") in ("attrs", "attr_tuple", "scalars"):
        return rv, None                        # a list attribute: the list itself
    if kind == "raw" or isinstance(rv, str) and not re.fullmatch(r"[+-]?(inf|nan)", rv.lower()):
        return rv, None                        # an enum string or a type name
    if isinstance(rv, bool):
        return rv, None
    recipe = ranged_normal(rv) or range_recipe(rv)
    try:
        value = draw_scalar(recipe, kind, seed, index)
    except OverflowError:   # an integer attribute drawn from a range with inf
        raise RecipeError(f"the {item.get('dtype')} value from {rv!r} is infinite, which no integer "
                          f"holds") from None
    return value, None if recipe["kind"] == "constant" else {"recipe": recipe, "kind": kind}


VALUES_UNREAD = "its values are not read"


class ValuesUnread(ValueError):
    """A tensor whose descriptor is read and whose value recipe is not."""

    def __init__(self, why: str, recipe: TensorRecipe):
        super().__init__(why)
        self.recipe = recipe


def tensor_from_item(item: dict) -> TensorRecipe | None:
    if item.get("shape") is None and not item.get("required", True):
        return None
    if item.get("range_values") is None and item.get("shape") is None:
        return None
    shape = tuple(int(d) for d in item["shape"])
    named = item.get("format")
    if isinstance(named, list) and len(named) == 1:    # "format": ["ND"], the one format of the case
        named = named[0]
    fmt = format_of(named) if named else format_of("ND")
    try:
        recipe = range_recipe(item.get("range_values"))
    except RecipeError as exc:    # the descriptor stands; only the values are not read
        raise ValuesUnread(str(exc), TensorRecipe(dtype_of(item["dtype"]), shape, fmt,
                                                  values={"unread": str(exc)})) from None
    if item.get("outlier_values"):
        recipe = {**recipe, "outliers": list(item["outlier_values"])}
    return TensorRecipe(dtype_of(item["dtype"]), shape, fmt, values=recipe)


def _stem(name: str) -> str:
    """A parameter name without the Optional/Ref suffixes the files sometimes leave out."""
    stem = name.lower()
    for suffix in ("ref", "optional"):
        stem = stem.removesuffix(suffix)
    return stem.removesuffix("ref").removesuffix("optional")


# How the ATK framework turns a case's ``inputs`` into the aclnn call, as the vendor's executors show
# it (ops-nn e5c3fa9327ea):
# - norm/quantized_batch_norm/tests/st/aclnnQuantizedBatchNorm/executor_aclnnQuantizedBatchNorm.py
#   :172-194 builds the arguments as the unnamed inputs (``input_data.args``) in order, then the named
#   ones (``input_data.kwargs``) in order, then the outputs; :219-259 converts each input: a list to
#   one xxxList/xxxArray, a tensor to an aclTensor, a value of ``"dtype": "non_param"`` to no argument
#   at all, a value whose type says ``attr`` to its C type, any other value to an aclScalar, None to
#   a null pointer;
# - the executors that index the arguments agree with that order: activation/clipped_swiglu/.../
#   executor_aclnnClippedSwiglu.py:31-34 (inputs x, group_index, dim at input_args[0], [1], [2]),
#   activation/situ_glu/.../executor_aclnnSituGlu.py:85-86 (beta, linearBeta: inputs 2 and 3),
#   norm/batch_norm_v3/.../executor_aclnnBatchNorm.py:30 (training: input 5),
#   optim/advance_step/.../executor_aclnnAdvanceStep.py:29 (the Ref inputs 0, 2, 3, 4), and ops-math
#   conversion/tril/.../executor_aclnnTril.py:46 (diagonal: input_args[-2], before the output);
#   math/trace/.../executor_aclnnTrace.py:24 reads an input named null as ``input_data.args[0]``.
# So the argument items of a case, in order, are the API's non-output parameters in order: this
# reader maps them so only when the counts and every item's kind agree with the prototype, or when
# the items are fewer and every parameter after them is a tensor the API writes (the framework's
# outputs fill them) and no executor beside the file builds the argument list itself; an executor
# whose init_by_input_data edits the list in ways read here maps them through its edits (ArgumentEdits).
NON_ARGUMENT = "non_param"
ARRAY_C_KINDS = {"int_array": "int", "bool_array": "bool", "float_array": "float"}
LIST_ATTR_TYPES = ("attrs", "attr_tuple", "attr")


def is_argument(item: Any) -> bool:
    """False for an item the framework passes as no argument (``"dtype": "non_param"``)."""
    return not (isinstance(item, dict) and str(item.get("dtype", "")).lower() == NON_ARGUMENT)


def _item_name(item: Any) -> str:
    """The name an input item (or a list's first item) gives, '' when it gives none."""
    first = item[0] if isinstance(item, list) and item else item
    return str(first.get("name") or "") if isinstance(first, dict) else ""


def _is_output(param) -> bool:
    # the documents' own words survive in a few rows: 输出 is output, 输入|输出 an in-place input
    return param.direction == "output" or str(param.direction).startswith("输出")


def _value_kind(dtype: Any) -> str:
    """What an attr item's dtype makes of its value: int, bool, float, string, dtype or unknown."""
    d = str(dtype).lower().removeprefix("attr_")
    if d == "bool":
        return "bool"
    if d in ("string", "str"):
        return "string"
    if d == "torch_dtype":
        return "dtype"
    kind = _attr_kind(d)
    return {"int": "int", "float32": "float", "float64": "float"}.get(kind, "unknown")


# the C kinds an attr value of each kind can be (the C type follows the item's dtype, :243-247); an
# int may be an aclDataType: ops-math math/reduce_mean/tests/st/aclnnMean/executor_aclnnMean.py:21-27
# reads the case's dtype 0, 1, 11, 27 as float32, float16, float64, bfloat16 (the aclDataType codes)
C_KINDS_OF_VALUE = {"int": ("int64", "dtype"), "bool": ("bool",), "float": ("double", "float"),
                    "string": ("string",), "dtype": ("dtype",)}


def _fits(item: Any, param) -> bool:
    """Whether an input item can be the argument ``param`` (by the conversion above)."""
    if isinstance(item, list):                # one xxxArray of attr values (a tensor list has no kind)
        return param.c_kind in ARRAY_C_KINDS and bool(item) and all(
            isinstance(sub, dict) and sub.get("type") in LIST_ATTR_TYPES
            and _value_kind(sub.get("dtype")) == ARRAY_C_KINDS[param.c_kind] for sub in item)
    kind = str(item.get("type", ""))
    if kind in ("tensor", "tensor_tuple"):
        return param.c_kind == "tensor"
    if kind == "scalar":                      # a value without attr in its type: an aclScalar
        return param.c_kind == "scalar"
    if kind == "attr":
        return param.c_kind in C_KINDS_OF_VALUE.get(_value_kind(item.get("dtype")), ())
    if kind in ("attrs", "attr_tuple"):       # one item holding a whole list
        return ARRAY_C_KINDS.get(param.c_kind) == _value_kind(item.get("dtype"))
    return False


def positional_names(inputs: list, params, api: str, written: frozenset[str] = frozenset()
                     ) -> tuple[list[str] | None, str]:
    """The parameter each argument item of ``inputs`` stands for, by position (see above), or None
    and the reason the position does not establish it. The items may be fewer than the non-output
    parameters where every parameter after them is in ``written`` (tensors the API writes, which the
    framework's outputs fill after the items: they are the leading arguments whatever follows)."""
    items = [item for item in inputs if is_argument(item)]
    targets = [p for p in params if not _is_output(p)]
    if len(items) < len(targets) and all(p.name in written for p in targets[len(items):]):
        targets = targets[:len(items)]
    if len(items) != len(targets):
        return None, (f"its {len(items)} argument inputs are not the {len(targets)} non-output "
                      f"parameters of {api} ({', '.join(p.name for p in targets)})")
    names = [_item_name(item) for item in items]
    named = [n for n in names if n]
    if any(not n for n in names[names.index(named[0]):]) if named else False:
        return None, "an unnamed input follows a named one (the framework passes the unnamed first)"
    if len(set(named)) != len(named):
        return None, "two inputs share a name (the framework keeps one of them)"
    by_stem = {_stem(p.name): p.name for p in params}
    for position, (item, name, param) in enumerate(zip(items, names, targets)):
        if not _fits(item, param):
            kind = "a list" if isinstance(item, list) else f"a {item.get('type')!r} input"
            return None, (f"argument {position} ({name!r}) is {kind}, which cannot be "
                          f"{param.name} ({param.c_kind})")
        claimed = by_stem.get(_stem(name)) if name else None
        if claimed is not None and claimed != param.name:
            return None, f"argument {position} is named {name!r} but stands where {param.name} is"
    return [p.name for p in targets], ""


def array_of(items: list, c_kind: str) -> list:
    """An aclIntArray/aclBoolArray/aclFloatArray given as a list of attr items, one per element:
    each element must be one value of the array's type (a range would be drawn by the framework)."""
    want = ARRAY_C_KINDS[c_kind]
    out = []
    for k, sub in enumerate(items):
        value = sub.get("range_values")
        if isinstance(value, list) and len(value) == 1:
            value = value[0]
        if want == "bool" and isinstance(value, bool) and _attr_kind(sub.get("dtype", "")) == "bool":
            out.append(value)
        elif want == "int" and isinstance(value, int) and not isinstance(value, bool) \
                and _attr_kind(sub.get("dtype", "")) == "int":
            out.append(value)
        elif want == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
            out.append(float(value))
        else:
            raise RecipeError(f"element {k} ({value!r}, dtype {sub.get('dtype')!r}) is not one "
                              f"{want} value of the {c_kind}")
    return out


FORMAT_APPLIED = "sets the tensors' formats through the executor"


def _format_item(inputs: list) -> tuple[int, Any] | None:
    """The index and value of the case's non-argument ``format`` item, if it has one."""
    return next(((index, item.get("range_values")) for index, item in enumerate(inputs)
                 if not is_argument(item) and item.get("name") == "format"), None)


def _format_problem(inputs: list) -> str | None:
    """A non-argument ``format`` item tells the executor the tensors' formats (e.g.
    ops-math math/minimum/tests/st/aclnnMinimum/executor_aclnnMinimum.py:35-44): only ND, the
    format this reader gives a tensor that names none, agrees with the case as read."""
    found = _format_item(inputs)
    if found is None:
        return None
    index, value = found
    if not (isinstance(value, str) and value.strip().upper() == "ND"):
        return (f"input {index} (format) {FORMAT_APPLIED} ({value!r}), which this reader "
                f"does not apply")
    return None


def _open_formats(value: Any) -> tuple[str, ...] | None:
    """The formats a ``format`` item may give each tensor where no executor says how it applies it:
    ND (a tensor it leaves alone) or a format one of its parts names (``"NCL_ND"`` gives each tensor
    one of them: ops-math math/select/tests/st/aclnnSWhere/executor_aclnnSWhere.py:40-53); None where
    a part is no format this suite knows."""
    if not isinstance(value, str):
        return None
    try:
        named = [format_of(part).name for part in value.split("_")]
    except ValueError:
        return None
    return tuple(dict.fromkeys(["ND", *named]))


def written_tensors(api: str) -> frozenset[str]:
    """The parameters of ``api`` its prototype declares as a non-const ``aclTensor *`` (a tensor the
    API writes: an output, whatever the document's direction column says, or an in-place input)."""
    key = op_key_of(api)
    if key is None or not operator(key).modules[0].startswith("data:"):
        return frozenset()
    # as extract/build.py _params tells a writable tensor: no const before the pointer
    return frozenset(p["name"] for p in data_of(key)["params"] if p.get("c_kind") == "tensor"
                     and "const" not in str(p.get("c_type", "")).split("*")[0])


def case_of(doc: dict, display: str, product: str | None, product_source: str,
            own_arguments: bool = False, edits: "ArgumentEdits | None" = None,
            goldens: dict[str, ExecutorGolden] | None = None) -> VendorCase:
    """The call an ATK case makes; ``own_arguments`` when no executor beside the file changes the
    argument list the framework builds (then inputs fewer than the parameters may stand for the
    leading ones: positional_names); ``edits``, the changes its executor makes to that list;
    ``goldens``, the executors' ``__call__`` beside the file by registered name."""
    case_id = doc.get("id")
    source = f"{display}#{case_id}"
    api = "aclnn" + str(doc["aclnn_name"]).removeprefix("aclnn")
    seed = seed_of(source)
    params = spec_params(api)
    problems: list[str] = []
    tensors: dict[str, TensorRecipe | None] = {}
    attrs: dict[str, Any] = {}
    drawn: dict[str, dict[str, Any] | None] = {}     # attribute -> what its value was drawn from
    inputs = list(doc["inputs"])
    kind_of = {p.name: p.c_kind for p in params or ()}
    # the parameter each item stands for: by its name, else (some name is no parameter) by position
    names = [_item_name(item) for item in inputs]
    unmapped = ""
    open_formats: tuple[str, ...] | None = None     # what an unapplied format item may give a tensor
    nulls: set[str] = set()                         # parameters the executor passes a null pointer
    converted: dict[str, str] = {}                  # parameters it passes an input's value as a C value
    if params is not None:
        known = {p.name for p in params}
        by_stem = {_stem(p.name): p.name for p in params}
        unknown = [n for n, item in zip(names, inputs) if is_argument(item)
                   and n not in known and by_stem.get(_stem(n)) is None]
        if edits is not None:       # the executor's edits say which argument each input is
            mapped, nulls, converted, why = edited_names(inputs, params, edits)
            if mapped is not None:
                arguments = iter(mapped)
                names = [next(arguments) if is_argument(item) else n for n, item in zip(names, inputs)]
            else:
                unmapped = (f"{source}: the inputs are not mapped onto {api} through the executor's "
                            f"edits ({edits.where}): {why}")
        elif unknown:
            mapped, why = positional_names(inputs, params, api,
                                           written_tensors(api) if own_arguments else frozenset())
            if mapped is not None:
                arguments = iter(mapped)
                names = [next(arguments) if is_argument(item) else n for n, item in zip(names, inputs)]
            else:   # said after the inputs that name no parameter
                unmapped = f"{source}: the inputs are not mapped onto {api} by position: {why}"
        fmt = _format_problem(inputs)
        if fmt:
            problems.append(f"{source}: {fmt}")
            open_formats = _open_formats(_format_item(inputs)[1])
    for index, item in enumerate(inputs):
        if not is_argument(item):
            continue
        if isinstance(item, list):       # a tensor list, or an array given element by element
            name = names[index] or f"list{index}"
            target = name if name in kind_of else (by_stem.get(_stem(name)) if params else None)
            if target is not None and kind_of[target] in ARRAY_C_KINDS:
                try:
                    attrs[name] = array_of(item, kind_of[target])
                except RecipeError as exc:
                    problems.append(f"{source}: input {index} ({name}): {exc}")
                continue
            if params is not None:
                problems.append(f"{source}: input {index} ({name}) is a tensor list, which the "
                                f"spec's call model has no place for")
                continue
            for k, sub in enumerate(item):
                tensors[f"{name}[{k}]"] = tensor_from_item(sub)
            continue
        name = names[index] or f"input{index}"    # unnamed and unmapped: a key of its own
        kind = item.get("type", "")
        try:
            if kind in TENSOR_TYPES:
                tensors[name] = tensor_from_item(item)
            elif kind in ATTR_TYPES:
                attrs[name], drawn[name] = _attr_value(item, seed, 1000 + index)
            else:
                problems.append(f"{source}: input {index} ({name}) has type {kind!r}, which this "
                                f"reader does not know")
        except ValuesUnread as exc:
            problems.append(f"{source}: input {index} ({name}): {VALUES_UNREAD}: {exc}")
            tensors[name] = exc.recipe
        except (RecipeError, ValueError, TypeError, KeyError, OverflowError) as exc:
            problems.append(f"{source}: input {index} ({name}): {exc}")
            if kind in TENSOR_TYPES:
                tensors[name] = None
    tensors.update({name: None for name in nulls})
    for name, c_kind in [(n, k) for n, k in converted.items() if n in attrs]:
        try:
            attrs[name] = as_c_value(attrs[name], c_kind)
        except RecipeError as exc:
            problems.append(f"{source}: input {name}: {exc}")
            attrs.pop(name)
    if params is not None:
        known = {p.name for p in params}
        by_stem = {_stem(p.name): p.name for p in params}
        for name in [n for n in list(tensors) + list(attrs) if n not in known]:
            target = by_stem.get(_stem(name))
            pool = tensors if name in tensors else attrs
            if target is not None and target not in tensors and target not in attrs:
                pool[target] = pool.pop(name)    # quantMode is quantModeOptional
                drawn[target] = drawn.pop(name, None)
                continue
            shown = "''" if re.fullmatch(r"(input|list)\d+", name) else repr(name)
            problems.append(f"{source}: input {shown} is not a parameter of {api}")
            pool.pop(name, None)
        if unmapped:
            problems.append(unmapped)
    stated = set(tensors) | set(attrs)
    unplaced_why: list[str] = []      # an output the import could not make, and why (the case's note)
    if params is not None:
        # as the gtest reader: an argument that is no aclTensor (aclScalar, arrays, plain values) is
        # an attribute of the case; an aclScalar keeps its dtype (the spec's dtype checks read it)
        is_attr = {p.name: p.direction == "attr" or p.c_kind != "tensor" for p in params}
        scalar_items = {n: it for n, it in zip(names, inputs) if isinstance(it, dict)
                        and it.get("type") in ("scalar",)}
        for p in params:
            if p.c_kind == "scalar" and p.name in attrs and not isinstance(attrs[p.name], dict):
                item = scalar_items.get(p.name) or next(
                    (it for n, it in scalar_items.items() if _stem(str(n)) == _stem(p.name)), None)
                if item is None or not item.get("dtype"):
                    problems.append(f"{source}: the aclScalar {p.name} names no dtype")
                    continue
                attrs[p.name] = {"dtype": dtype_of(item["dtype"]).name, "value": attrs[p.name]}
        tensors = {p.name: tensors.get(p.name) for p in params if not is_attr[p.name]}
        attrs = {p.name: attrs[p.name] for p in params if is_attr[p.name] and p.name in attrs}
        tensors, unplaced_why = place_outputs(api, tensors, attrs,
                                         frozenset(p.name for p in params if p.name not in stated and (
                                             _is_output(p) or p.name in written_tensors(api))),
                                         _golden(doc, seed, goldens or {}) if own_arguments else
                                         "an executor beside the file builds the call's arguments "
                                         "(init_by_input_data), and whether the golden is called with "
                                         "them is not read")
    if any(t is not None and t.format != AclFormat.ND for t in tensors.values()):
        open_formats = None         # an item's own format and the format item's: which one holds is not read
    standard = doc.get("standard") or {}
    expected = VendorExpectation("success", 0, str(standard.get("acc", "")),
                                 {"perf": standard["perf"]} if "perf" in standard else {})
    note = "; ".join([", ".join(f"{k} {doc[k]}" for k in ("name", "api_type", "aclnn_api_type", "is_boundary")
                                if k in doc), *unplaced_why])
    return VendorCase(api=api, case_id=f"atk-{case_id}", source=source, format="atk",
                      tensors=tensors, attrs=attrs, unstated=frozenset(
                          p.name for p in params or () if p.name not in stated), expected=expected, product=product,
                      product_source=product_source, seed=seed, problems=tuple(problems), note=note,
                      drawn={n: d for n, d in drawn.items() if d is not None and n in attrs},
                      open_formats={n: open_formats for n, t in tensors.items() if t is not None and n in stated}
                      if open_formats else {})


def _golden(doc: dict, seed: int, goldens: dict[str, ExecutorGolden]) -> tuple[GoldenOutput, ...] | str:
    """What the case's golden gives, or why it is not known: a torch function (atk_golden) or the
    ``__call__`` of the executor registered as the case's api_type (executor_golden), on the case's
    inputs as the framework passes them, each value the one this import draws for the case."""
    name = golden_name(doc)
    if name is not None:
        arguments = _golden_arguments(doc, seed, name, every_item=False)
        return arguments if isinstance(arguments, str) else golden_outputs(name, arguments)
    registered = next((k for k in (doc.get("api_type"), doc.get("aclnn_api_type")) if k in goldens), None)
    if registered is None:
        return (f"the golden is the repository's executor registered as {doc.get('api_type')!r}, "
                f"and no __call__ registered so is found beside the file")
    # the executor reads every input the case states, also those passed to no aclnn argument
    arguments = _golden_arguments(doc, seed, f"executor {registered!r}", every_item=True)
    if isinstance(arguments, str):
        return arguments
    return goldens[registered].evaluate(arguments, str(doc.get("name") or ""))


def _golden_arguments(doc: dict, seed: int, golden: str, every_item: bool) -> list[GoldenArgument] | str:
    """The case's inputs as the framework passes them to the golden, or why one is not read."""
    arguments = []
    for index, item in enumerate(doc["inputs"]):
        if not every_item and not is_argument(item):
            continue
        try:
            if isinstance(item, list) and all(isinstance(sub, dict) and sub.get("type") in TENSOR_TYPES
                                              for sub in item):
                parts = [tensor_from_item(sub) for sub in item]
                arguments.append(GoldenArgument(_item_name(item), tensors=tuple(
                    (t.dtype, t.shape) for t in parts if t is not None)))
            elif isinstance(item, list):     # an array given element by element (dims), as array_of reads it
                arguments.append(GoldenArgument(_item_name(item), value=[_typed_value(sub, _array_element(
                    sub.get("range_values"))) for sub in item]))
            elif item.get("type") in TENSOR_TYPES:
                t = tensor_from_item(item)
                arguments.append(GoldenArgument(str(item.get("name") or ""),
                                                tensor=None if t is None else (t.dtype, t.shape)))
            else:
                arguments.append(GoldenArgument(str(item.get("name") or ""),
                                                value=_typed_value(item, _attr_value(item, seed, 1000 + index)[0])))
        except ValuesUnread as exc:
            t = exc.recipe
            arguments.append(GoldenArgument(str(item.get("name") or ""), tensor=(t.dtype, t.shape)))
        except (RecipeError, ValueError, TypeError, KeyError, OverflowError) as exc:
            return f"the golden {golden}'s input {index} is not read ({exc})"
    return arguments


def _array_element(value: Any) -> Any:
    """An array element's value: one value, or a list of one (a range is the framework's draw)."""
    if isinstance(value, list) and len(value) == 1:
        value = value[0]
    if isinstance(value, (list, dict)):
        raise RecipeError(f"an array element given as {value!r} is drawn by the framework")
    return value


def _typed_value(item: dict, value: Any) -> Any:
    """A scalar or attr as a Python value of the kind its dtype names (a float scalar stays a float
    for torch's promotion even where its value is whole)."""
    kind = _attr_kind(item.get("dtype", ""))
    if value is None or isinstance(value, (list, tuple, dict, str)):
        return value
    return {"bool": bool, "float32": float, "float64": float, "int": int}.get(kind, lambda v: v)(value)


def _line_of_ids(text: str) -> dict[int, int]:
    """The line each case's ``"id"`` sits on (for the errors that name a case)."""
    out = {}
    for m in re.finditer(r'"id"\s*:\s*(\d+)', text):
        out.setdefault(int(m.group(1)), text.count("\n", 0, m.start()) + 1)
    return out


def _rewritten(target: ast.expr) -> tuple[str, str] | None:
    """What an assignment target in an executor rewrites: an input by name (input_data.kwargs[...]),
    an argument by position (input_data.args[...], input_args[...]), or None (something else); with
    its key as ExecutorRewrite.targets gives it."""
    if not isinstance(target, ast.Subscript):
        return None
    constant = isinstance(target.slice, ast.Constant)
    key = target.slice.value if constant else ast.unparse(target.slice)
    holder = ast.unparse(target.value)
    if holder.endswith("input_data.kwargs"):
        return f"input {key!r}", key if constant and isinstance(key, str) else "?"
    if holder.endswith("input_data.args") or holder.endswith("input_args"):
        return f"argument {key}", f"#{key}" if constant and isinstance(key, int) and \
            holder.endswith("input_args") else "?"
    return None


def executor_rewrites(folder: Path, display_folder: str) -> dict[str, ExecutorRewrite]:
    """Registered executor name -> its ``init_by_input_data`` where it rewrites inputs before the
    aclnn call, for the ``executor_*.py`` beside an ATK file: such a case's inputs are not the call
    the vendor makes until the rewrite is applied (ops-math math/reduce_std_v2/tests/st/aclnnStd/
    executor_aclnnStd.py:35-36 replaces the case's dim by its unique values)."""
    found: dict[str, ExecutorRewrite] = {}
    for executor, names, method in registered_methods(folder, "init_by_input_data"):
        writes = [(what, node.lineno) for node in ast.walk(method)
                  if isinstance(node, (ast.Assign, ast.AugAssign))
                  for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                  if (what := _rewritten(target)) is not None]
        if writes:
            said = ", ".join(dict.fromkeys(what for (what, _), _ in writes))
            targets = tuple(dict.fromkeys(key for (_, key), _ in writes))
            for name in names:
                found[name] = ExecutorRewrite(
                    method, f"{said} ({display_folder}/{executor.name}:{writes[0][1]})", targets)
    return found


def executor_goldens(folder: Path, display_folder: str) -> dict[str, ExecutorGolden]:
    """Registered executor name -> its ``__call__``, for the ``executor_*.py`` beside an ATK file:
    the golden of the cases whose api_type names it (vendor/executor_golden.py)."""
    goldens = {}
    for executor, names, method in registered_methods(folder, "__call__"):
        module, methods = executor_scope(executor, method)
        goldens.update({name: ExecutorGolden(method, f"{display_folder}/{executor.name}", module, methods)
                        for name in names})
    return goldens


def registered_methods(folder: Path, method: str) -> list[tuple[Path, list[str], ast.FunctionDef]]:
    """Each class of the ``executor_*.py`` beside an ATK file that defines ``method``: its file, the
    executor names it registers (``@register("...")``) and the method."""
    found = []
    for executor in sorted(folder.glob("executor_*.py")):
        try:
            tree = ast.parse(executor.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        for cls in [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]:
            names = [str(d.args[0].value) for d in cls.decorator_list if isinstance(d, ast.Call)
                     and ast.unparse(d.func).endswith("register") and d.args
                     and isinstance(d.args[0], ast.Constant)]
            body = next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == method), None)
            if names and body is not None:
                found.append((executor, names, body))
    return found


# The value an input item gives the executor's code (input_data.kwargs[name]): a tensor's
# descriptor (its values are drawn), an aclScalar's or attribute's value, None for a null pointer.
def _executor_value(vc: VendorCase, param: str) -> Any:
    if param in vc.tensors:
        t = vc.tensors[param]
        return None if t is None else InputTensor(t.dtype, t.shape)
    value = vc.attrs.get(param)
    return value["value"] if isinstance(value, dict) and "value" in value else value


def _rewritten_value(vc: VendorCase, param: str, value: Any, kind: str) -> Any:
    """``value`` as the call holds parameter ``param`` (of C kind ``kind``); raises NotEvaluated for
    a value the parameter cannot hold."""
    if param in vc.tensors:
        if value is None:
            return None
        if isinstance(value, BuiltTensor):
            old = vc.tensors[param]
            return TensorRecipe(value.dtype, value.shape, old.format if old is not None else AclFormat.ND,
                                values=exact(list(value.values)))
        if isinstance(value, InputTensor) and vc.tensors[param] is not None and \
                value == InputTensor(vc.tensors[param].dtype, vc.tensors[param].shape):
            return vc.tensors[param]
        raise NotEvaluated(f"it gives the tensor {param} {value!r}")
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    fits = {"int64": isinstance(value, int) and not isinstance(value, bool),
            "double": number, "float": number, "bool": isinstance(value, bool),
            "scalar": number or isinstance(value, bool),
            "int_array": isinstance(value, list) and all(isinstance(v, int) and not isinstance(v, bool)
                                                        for v in value)}.get(kind, False)
    if not fits:
        raise NotEvaluated(f"it gives {param} ({kind}) the value {value!r}")
    old = vc.attrs.get(param)
    return {**old, "value": value} if isinstance(old, dict) and "value" in old else value


# the problem a case carries whose executor makes calls differing in more than values as a value of
# the framework's is one or another (VendorCase.sides: extract/agreement.py judges each)
CALL_SIDES = "the call the executor makes depends on what the framework gives"


def _same_call(one: tuple[dict, dict], other: tuple[dict, dict]) -> bool:
    """Whether two (tensors, attrs) make the same call but for tensor values."""
    (t1, a1), (t2, a2) = one, other
    return a1 == a2 and t1.keys() == t2.keys() and all(
        (t1[n] is None) == (t2[n] is None) and (t1[n] is None or t1[n].desc() == t2[n].desc()) for n in t1)


def _one_value(how: dict[str, Any]) -> bool:
    """Whether a drawn attribute (VendorCase.drawn) is drawn from a span of one value."""
    span = span_of(how["recipe"], how["kind"])
    return len(span.points) == 1 if span.points else span.lo == span.hi


def _with_rewrite(vc: VendorCase, doc: dict, rewrite: ExecutorRewrite) -> VendorCase:
    """The case as the executor's ``init_by_input_data`` makes it before the call (see
    vendor/executor_rewrite.py), or the case with a problem naming what is not evaluated."""
    params = spec_params(vc.api)
    try:
        if params is None:
            raise NotEvaluated("the API has no spec to map the inputs onto")
        kind_of = {p.name: p.c_kind for p in params}
        by_stem = {_stem(p.name): p.name for p in params}
        items = [item for item in doc["inputs"] if is_argument(item)]
        mapped, _ = positional_names(doc["inputs"], params, vc.api)
        param_of: dict[str, str] = {}     # item name (or #k for argument k) -> parameter
        arguments: list[tuple[str | None, Any]] = []
        for k, item in enumerate(items):
            name = _item_name(item)
            param = (name if name in kind_of else by_stem.get(_stem(name))) if name else None
            param = param or (mapped[k] if mapped is not None else None)
            if param is not None:
                if name:
                    param_of[name] = param
                param_of[f"#{k}"] = mapped[k] if mapped is not None else param
            value = _executor_value(vc, param) if param else None
            if param and kind_of[param] == "int64" and isinstance(value, int) and not isinstance(value, bool):
                value = CValue(value)      # the framework passes an int64_t as a ctypes integer
            arguments.append((name or None, value))
        kwargs = {name: _executor_value(vc, param) for name, param in param_of.items()
                  if not name.startswith("#")}
        outcomes = rewrite.evaluate(kwargs, arguments if mapped is not None else None)
        made = []
        for outcome in outcomes:
            tensors, attrs = dict(vc.tensors), dict(vc.attrs)
            for key, value in outcome.written.items():
                param = param_of.get(key)
                if param is None:
                    raise NotEvaluated(f"it writes {key!r}, which is no parameter of {vc.api}")
                (tensors if param in tensors else attrs)[param] = _rewritten_value(
                    vc, param, value, kind_of[param])
            made.append((tensors, attrs))
        tensors, attrs = made[0]
        problems = vc.problems
        sides: list[dict[str, Any]] = []      # each call the paths make, where they differ in more than values
        if any(not _same_call(m, made[0]) for m in made):
            for outcome, (t, a) in zip(outcomes, made):
                path = " and ".join(f"{what} {'==' if equal else '!='} {constant!r}"
                                    for what, constant, equal in outcome.assumed)
                side = next((s for s in sides if _same_call((s["tensors"], s["attrs"]), (t, a))), None)
                if side is None:
                    sides.append({"assumed": (path,), "tensors": t, "attrs": a})
                else:
                    side["assumed"] += (path,)
            unknown = sorted({what for o in outcomes for what, _, _ in o.assumed})
            problems += (f"{vc.source}: {CALL_SIDES} ({', '.join(unknown)}): the call is judged as each "
                         f"side makes it",)
        elif any(m != made[0] for m in made):
            differ = [n for n, t in tensors.items() if any(m[0][n] != t for m in made)]
            why = "the executor gives them as a value the framework gives is one or another"
            tensors = {n: replace(t, values={"unread": why}) if n in differ else t
                       for n, t in tensors.items()}
            problems += tuple(f"{vc.source}: input {n}: {VALUES_UNREAD}: {why}" for n in differ)
        written = sorted({param_of[key] for o in outcomes for key in o.written})
        read = {param_of[key] for o in outcomes for key in o.reads if key in param_of}
        # a value drawn from a span of one value is that value on every draw: the path taken stands
        reads_drawn = sorted(n for n in read & set(vc.drawn) if not _one_value(vc.drawn[n]))
        if reads_drawn:     # on other drawn values it may take another path: all it may write
            unknown = [key for key in rewrite.targets if key not in param_of]
            if unknown:
                raise NotEvaluated(f"it reads the drawn {', '.join(reads_drawn)} and may write "
                                   f"{', '.join(map(repr, unknown))}, no parameter named here")
            may_write = sorted(set(written) | {param_of[key] for key in rewrite.targets})
        drawn = dict(vc.drawn) if reads_drawn else {n: d for n, d in vc.drawn.items() if n not in written}
    except NotEvaluated as exc:
        return replace(vc, problems=vc.problems + (
            f"{vc.source}: the executor's rewrite is not evaluated ({exc}): it rewrites "
            f"{rewrite.said} before the call, so the case's inputs are not the call made",))
    said = ", ".join(written) or "nothing"
    return replace(vc, tensors=tensors, attrs=attrs, problems=problems, drawn=drawn, sides=tuple(sides),
                   rewrite={"said": rewrite.said, "writes": may_write if reads_drawn else written,
                            "reads_drawn": reads_drawn},
                   note=(vc.note + "; " if vc.note else "") +
                   f"{said} as the executor's init_by_input_data sets them ({rewrite.said})")


# The C type each ctypes constructor gives an argument (the prototype's c_kind it must be)
CTYPES_KINDS = {"c_int64": "int64", "c_double": "double", "c_bool": "bool", "c_float": "float"}
_OUTPUT = object()       # an output the framework makes from the golden
_NULL = object()         # a null pointer (``TensorPtr()``)


@dataclass(frozen=True)
class ArgumentEdits:
    """An aclnn executor's ``init_by_input_data`` read as edits of the argument list the framework
    builds (the case's argument items in order, then its outputs): ``input_args[k] =
    ctypes.c_T(input_data.kwargs["name"])`` (argument k becomes that input's value as a C T) and
    ``input_args.insert(k, TensorPtr())`` (a null pointer at k); ``output_packages[:] = ...`` changes
    what is compared, not the call (e.g. ops-math math/add_lora/tests/st/aclnnAddLora/
    executor_aclnnAddLora.py:106-113, 134-144). None of anything else (``executor_arguments``)."""

    edits: tuple[tuple[str, int, Any], ...]      # ("value", k, (name, c_kind)) | ("null", k, None)
    where: str                                   # path:line of the method

    def parameters(self, items: list, params) -> tuple[dict[str, Any] | None, str]:
        """Parameter -> what the call passes for it: an argument item, ("value", item, c_kind), None
        (a null pointer) or the output; None and why where the edited list is not the prototype."""
        outputs = len(params) - len(items) - sum(kind == "null" for kind, _, _ in self.edits)
        if outputs < 0:
            return None, (f"its {len(items)} argument inputs and the executor's null pointers are more "
                          f"than the {len(params)} parameters")
        arguments: list[Any] = list(items) + [_OUTPUT] * outputs
        by_name = {_item_name(item): item for item in items if _item_name(item)}
        for kind, k, what in self.edits:
            if kind == "null":
                arguments.insert(k, _NULL)
                continue
            if not -len(arguments) <= k < len(arguments) or what[0] not in by_name:
                return None, f"the executor sets argument {k} from input {what[0]!r}, which it does not have"
            arguments[k] = ("value", by_name[what[0]], what[1])
        out: dict[str, Any] = {}
        for position, (argument, param) in enumerate(zip(arguments, params)):
            fits = (param.c_kind == "tensor" if argument is _NULL or argument is _OUTPUT else
                    param.c_kind == argument[2] if isinstance(argument, tuple) else _fits(argument, param))
            if not fits or (argument is _OUTPUT) != _is_output(param):
                return None, f"the executor's argument {position} cannot be {param.name} ({param.c_kind})"
            out[param.name] = None if argument is _NULL else argument
        return out, ""


def edited_names(inputs: list, params, edits: ArgumentEdits
                 ) -> tuple[list[str] | None, set[str], dict[str, str], str]:
    """The parameter each argument item of ``inputs`` stands for in the call ``edits`` makes, the
    parameters it passes a null pointer, and those it passes an input's value as a C value (their C
    kind); None (and why) where an item is passed twice or not at all, a tensor item as a C value,
    or an item's name names another parameter."""
    items = [item for item in inputs if is_argument(item)]
    passed, why = edits.parameters(items, params)
    if passed is None:
        return None, set(), {}, why
    by_item: dict[int, str] = {}
    for name, argument in passed.items():
        if argument is None or argument is _OUTPUT:
            continue
        item = argument[1] if isinstance(argument, tuple) else argument
        if isinstance(argument, tuple) and (isinstance(item, list) or item.get("type") not in ATTR_TYPES):
            return None, set(), {}, f"the executor passes input {_item_name(item)!r} as a C value"
        if id(item) in by_item:
            return None, set(), {}, f"the executor passes input {_item_name(item)!r} twice"
        by_item[id(item)] = name
    by_stem = {_stem(p.name): p.name for p in params}
    for item in items:
        if id(item) not in by_item:
            return None, set(), {}, f"the executor passes input {_item_name(item)!r} as no argument"
        claimed = by_stem.get(_stem(_item_name(item))) if _item_name(item) else None
        if claimed is not None and claimed != by_item[id(item)]:
            return None, set(), {}, f"input {_item_name(item)!r} stands where {by_item[id(item)]} is"
    return ([by_item[id(item)] for item in items], {n for n, a in passed.items() if a is None},
            {n: a[2] for n, a in passed.items() if isinstance(a, tuple)}, "")


def as_c_value(value: Any, c_kind: str) -> Any:
    """``value`` as the ctypes constructor of ``c_kind`` passes it (CTYPES_KINDS); raises
    RecipeError for a value it is not read for (a float to an integer: ctypes refuses it)."""
    if c_kind in ("double", "float") and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if c_kind == "int64" and isinstance(value, int) and not isinstance(value, bool):
        return value
    if c_kind == "bool" and isinstance(value, bool):
        return value
    raise RecipeError(f"the value {value!r} is not one this reader makes a C {c_kind} of")


def executor_arguments(folder: Path, display_folder: str) -> dict[str, ArgumentEdits]:
    """Registered executor name -> its ``init_by_input_data`` read as ArgumentEdits, for the executors
    beside an ATK file whose method is such edits alone."""
    found: dict[str, ArgumentEdits] = {}
    for executor, names, method in registered_methods(folder, "init_by_input_data"):
        edits = _argument_edits(method)
        if edits:       # an executor that edits nothing leaves the framework's list as it is
            for name in names:
                found[name] = ArgumentEdits(edits, f"{display_folder}/{executor.name}:{method.lineno}")
    return found


def _argument_edits(method: ast.FunctionDef) -> tuple | None:
    edits = []
    for stmt in method.body:
        text = ast.unparse(stmt)
        if isinstance(stmt, (ast.ImportFrom, ast.Import)) or text in (
                "input_args, output_packages = super().init_by_input_data(input_data)",
                "return (input_args, output_packages)") or text.startswith("output_packages[:] = "):
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue                              # a docstring
        m = re.fullmatch(r"input_args\[(-?\d+)\] = ctypes\.(c_\w+)\(input_data\.kwargs\[['\"](\w+)['\"]\]\)", text)
        if m and m.group(2) in CTYPES_KINDS:
            edits.append(("value", int(m.group(1)), (m.group(3), CTYPES_KINDS[m.group(2)])))
            continue
        m = re.fullmatch(r"input_args\.insert\((-?\d+), TensorPtr\(\)\)", text)
        if m:
            edits.append(("null", int(m.group(1)), None))
            continue
        return None
    return tuple(edits)


class _NotRead(ValueError):
    """A get_format construct this reader does not evaluate."""


_FALLS_THROUGH = object()     # a block that ends without a return


@dataclass(frozen=True)
class ExecutorFormat:
    """An executor's ``get_format(self, input_data, index=None, name=None)`` (the ATK framework asks
    it the format of each tensor it builds), read as a function of the case's ``format`` item and the
    tensor's index: ``if``/``else`` on ``input_data.kwargs["format"] == "..."`` and ``index == k``
    (``and``, ``or``, ``!=``), returns of ``AclFormat.ACL_FORMAT_X``, a docstring; nothing else."""

    method: ast.FunctionDef
    where: str                                  # path:line of the method

    @property
    def reads_index(self) -> bool:
        return any(isinstance(n, ast.Name) and n.id == "index" for n in ast.walk(self.method))

    def format_for(self, value: str, index: int | None) -> str:
        """The format the method returns for the item ``value`` and a tensor at ``index``; raises
        _NotRead where it does not read or returns no format."""
        got = self._run(self.method.body, value, index)
        if got is _FALLS_THROUGH:
            raise _NotRead("it returns no format for it")
        return got

    def _run(self, body: list[ast.stmt], value: str, index: int | None):
        for stmt in body:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
                    and isinstance(stmt.value.value, str):
                continue                         # a docstring
            if isinstance(stmt, ast.Pass):
                continue
            if isinstance(stmt, ast.Return):
                m = re.fullmatch(r"AclFormat\.ACL_FORMAT_(\w+)", ast.unparse(stmt.value)) \
                    if stmt.value is not None else None
                if m is None:
                    raise _NotRead(f"line {stmt.lineno} returns {ast.unparse(stmt)[7:]!r}")
                return m.group(1)
            if isinstance(stmt, ast.If):
                got = self._run(stmt.body if self._holds(stmt.test, value, index) else stmt.orelse,
                                value, index)
                if got is not _FALLS_THROUGH:
                    return got
                continue
            raise _NotRead(f"line {stmt.lineno} is no if or return")
        return _FALLS_THROUGH

    def _holds(self, test: ast.expr, value: str, index: int | None) -> bool:
        if isinstance(test, ast.BoolOp):
            held = [self._holds(v, value, index) for v in test.values]
            return all(held) if isinstance(test.op, ast.And) else any(held)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
            left, right = (self._operand(x, value, index) for x in (test.left, test.comparators[0]))
            return (left == right) == isinstance(test.ops[0], ast.Eq)
        raise _NotRead(f"line {test.lineno} tests {ast.unparse(test)!r}")

    @staticmethod
    def _operand(node: ast.expr, value: str, index: int | None) -> Any:
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name) and node.id == "index":
            return index
        if re.fullmatch(r"input_data\.kwargs\[['\"]format['\"]\]", ast.unparse(node)):
            if not isinstance(value, str):
                raise _NotRead("the case has no format item" if value is None else
                               f"the format item is {value!r}, no string")
            return value
        raise _NotRead(f"line {node.lineno} reads {ast.unparse(node)!r}")


def executor_formats(folder: Path, display_folder: str) -> dict[str, ExecutorFormat]:
    """Registered executor name -> its ``get_format``, for the ``executor_*.py`` beside an ATK file
    (e.g. ops-math math/select/tests/st/aclnnSWhere/executor_aclnnSWhere.py:26-84)."""
    return {name: ExecutorFormat(method, f"{display_folder}/{executor.name}:{method.lineno}")
            for executor, names, method in registered_methods(folder, "get_format") for name in names}


# Which tensor is at which index: the framework passes a case's unnamed inputs as ``input_data.args``
# and its named ones as ``input_data.kwargs`` (the format item is read as ``input_data.kwargs
# ["format"]``), and builds the argument of the unnamed input i with ``index=i`` (ops-nn
# norm/quantized_batch_norm/tests/st/aclnnQuantizedBatchNorm/executor_aclnnQuantizedBatchNorm.py:
# 172-174, a named input with ``name=name`` and no index, :176-182). So a get_format whose answer
# depends on the index is read only for a case whose argument inputs are all unnamed: input i is
# index i. (The outputs' formats are not known: the ATK cases do not state their outputs.)
def _with_executor_format(vc: VendorCase, doc: dict, formats: dict[str, ExecutorFormat]) -> VendorCase:
    """The case with each tensor in the format its executor's get_format gives it (and the problem
    that said the format item was not applied dropped); the case unchanged where no executor beside
    the file has a get_format, and read in part where its get_format is not read for the case."""
    reader = next((formats[k] for k in (doc.get("api_type"), doc.get("aclnn_api_type")) if k in formats), None)
    if reader is None:
        return vc
    vc = replace(vc, open_formats={})     # the executor's get_format says which format each tensor gets
    unread_outputs: tuple[str, ...] = ()
    beyond: list[str] = []     # outputs the golden makes, which get_format's index does not reach
    value = next((item.get("range_values") for item in doc["inputs"]
                  if isinstance(item, dict) and not is_argument(item) and item.get("name") == "format"), None)
    items = [item for item in doc["inputs"] if is_argument(item)]
    try:
        indices = {None, *range(len(items)), *(n.value for n in ast.walk(reader.method) if isinstance(
            n, ast.Constant) and isinstance(n.value, int) and not isinstance(n.value, bool))}
        answers = {reader.format_for(value, i) for i in indices}
        if len(answers) == 1:     # one format whatever the index
            fmt = format_of(answers.pop())
            tensors = {n: None if t is None else replace(t, format=fmt) for n, t in vc.tensors.items()}
        else:
            params = spec_params(vc.api)
            if params is None or any(isinstance(item, list) or _item_name(item) for item in items):
                raise _NotRead("its answer depends on the tensor's index and the case names its "
                               "inputs (a named input is passed with no index)")
            mapped, why = positional_names(doc["inputs"], params, vc.api)
            if mapped is None:
                raise _NotRead(f"its answer depends on the tensor's index and {why}")
            at = {name: i for i, name in enumerate(mapped)}
            beyond = [n for n, t in vc.tensors.items() if t is not None and n not in at]
            if [n for n in beyond if n not in vc.unstated]:
                raise _NotRead("its answer depends on the tensor's index and a tensor is no input")
            tensors = {n: t if t is None or n in beyond else
                       replace(t, format=format_of(reader.format_for(value, at[n])))
                       for n, t in vc.tensors.items()}
            if beyond:   # an output the golden makes: the index its format is asked at is not read
                unread_outputs = (f"{vc.source}: the executor's get_format ({reader.where}) answers "
                                  f"{value!r} by the tensor's index, and the index it is asked at for "
                                  f"the output {', '.join(beyond)} is not read",)
        named = [n for n, t in vc.tensors.items() if t is not None and t.format != AclFormat.ND
                 and t.format != tensors[n].format]
        if named:   # an input item's own format and the executor's differ: which one is made is not read
            raise _NotRead(f"the case gives {', '.join(named)} a format of its own")
    except (_NotRead, ValueError) as exc:
        why = f"the executor's get_format ({reader.where}) is not read for {value!r}: {exc}"
        if any(FORMAT_APPLIED in p for p in vc.problems):
            return replace(vc, problems=tuple(p.split(", which")[0] + f"; {why}" if FORMAT_APPLIED in p
                                              else p for p in vc.problems))
        return replace(vc, problems=vc.problems + (f"{vc.source}: {why}",))
    kept = tuple(p for p in vc.problems if FORMAT_APPLIED not in p) + unread_outputs
    said = ", ".join(f"{n} {t.format.name}" for n, t in tensors.items() if t is not None and n not in beyond)
    return replace(vc, tensors=tensors, problems=kept,
                   note=(vc.note + "; " if vc.note else "") +
                   f"{said}, as the executor's get_format gives them for {value!r} ({reader.where})")


def read_atk(path: Path, display: str, product: str | None, product_source: str,
             text: str | None = None) -> ImportResult:
    result = ImportResult(files={display: "atk"})
    text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
    try:
        docs = json.loads(text)
    except json.JSONDecodeError as exc:
        result.problems.append(Problem(f"{display}:{exc.lineno}", f"not valid JSON: {exc.msg}"))
        return result
    if isinstance(docs, dict):
        docs = docs.get("cases", [docs])
    lines = _line_of_ids(text)
    rewrites = executor_rewrites(path.parent, str(Path(display).parent))
    formats = executor_formats(path.parent, str(Path(display).parent))
    # the executors that may change the argument list the framework builds for the call
    builders = {name for _, names, _ in registered_methods(path.parent, "init_by_input_data")
                for name in names}
    edited = executor_arguments(path.parent, str(Path(display).parent))
    goldens = executor_goldens(path.parent, str(Path(display).parent))
    for n, doc in enumerate(docs):
        case_id = doc.get("id", n) if isinstance(doc, dict) else n
        where = f"{display}:{lines.get(case_id, 1)}"
        try:
            if not isinstance(doc, dict) or "inputs" not in doc or "aclnn_name" not in doc:
                raise ValueError("an ATK case needs aclnn_name and inputs")
            own = not builders & {doc.get("api_type"), doc.get("aclnn_api_type")}
            # the executor of the aclnn call, where its init_by_input_data is read as edits
            caller = doc.get("aclnn_api_type") or doc.get("api_type")
            edits = edited.get(caller)
            vc = _with_executor_format(case_of(doc, display, product, product_source, own, edits, goldens),
                                       doc, formats)
            # an executor whose method is read as argument edits is not read a second time
            found = list(dict.fromkeys(rewrites[k] for k in (doc.get("api_type"), doc.get("aclnn_api_type"))
                                       if k in rewrites and not (edits is not None and k == caller)))
            if len(found) > 1:    # which of the two runs first is the framework's: not read
                vc = replace(vc, problems=vc.problems + (
                    f"{vc.source}: the executors rewrite {found[0].said} and {found[1].said} before "
                    f"the call, so the case's inputs are not the call made",))
            elif found:
                vc = _with_rewrite(vc, doc, found[0])
            result.cases.append(vc)
        except (ValueError, KeyError, TypeError, RecipeError) as exc:
            result.problems.append(Problem(where, f"case {case_id}: {exc}"))
    return result


def looks_like_atk(text: str) -> bool:
    head = text[:4000]
    return '"aclnn_name"' in head and '"inputs"' in head
