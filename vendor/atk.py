"""ATK json cases (``tests/st/aclnnX/atk_aclnnX.json``): valid calls with the vendor's comparison.

A case is ``{id, name, aclnn_name, api_type, standard: {acc, perf}, inputs: [...]}``; an input is
``{name, type (tensor|tensors|attr|attrs|scalar|...), required, dtype, shape, range_values, format,
outlier_values}``, a list of such inputs is a tensor list. ``range_values`` is a pair, a number,
"inf"/"nan", a distribution ``{"name": "nd", "mean", "std"}`` or an enum string; values are drawn
from it with the case's seed.
"""
from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.vendor.model import TensorRecipe, VendorCase, VendorExpectation, spec_params
from aclnn_conformance.vendor.names import dtype_of, format_of
from aclnn_conformance.vendor.values import (RecipeError, constant, draw_scalar, number, seed_of,
                                             uniform)

TENSOR_TYPES = ("tensor", "tensors", "tensor_tuple")
ATTR_TYPES = ("attr", "attrs", "attr_tuple", "scalar", "scalars")


def range_recipe(value: Any) -> dict[str, Any]:
    """The value recipe of an ATK ``range_values``."""
    if isinstance(value, dict):
        name = str(value.get("name", "")).lower()
        if name in ("nd", "normal", "norm", "gauss"):
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


def _attr_value(item: dict, seed: int, index: int) -> Any:
    rv = item.get("range_values")
    kind = _attr_kind(item.get("dtype", ""))
    if item.get("type") in ("attrs", "attr_tuple", "scalars"):
        return rv                              # a list attribute: the list itself
    if kind == "raw" or isinstance(rv, str) and not re.fullmatch(r"[+-]?(inf|nan)", rv.lower()):
        return rv                              # an enum string or a type name
    if isinstance(rv, bool):
        return rv
    return draw_scalar(range_recipe(rv), kind, seed, index)


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
    fmt = format_of(item["format"]) if item.get("format") else format_of("ND")
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


def case_of(doc: dict, display: str, product: str | None, product_source: str) -> VendorCase:
    case_id = doc.get("id")
    source = f"{display}#{case_id}"
    api = "aclnn" + str(doc["aclnn_name"]).removeprefix("aclnn")
    seed = seed_of(source)
    params = spec_params(api)
    problems: list[str] = []
    tensors: dict[str, TensorRecipe | None] = {}
    attrs: dict[str, Any] = {}
    for index, item in enumerate(doc["inputs"]):
        if isinstance(item, list):       # a tensor list
            name = item[0]["name"] if item and isinstance(item[0], dict) else f"list{index}"
            if params is not None:
                problems.append(f"{source}: input {index} ({name}) is a tensor list, which the "
                                f"spec's call model has no place for")
                continue
            for k, sub in enumerate(item):
                tensors[f"{name}[{k}]"] = tensor_from_item(sub)
            continue
        name = item.get("name", f"input{index}")
        kind = item.get("type", "")
        if params is not None and name not in {p.name for p in params}:
            # an input the API does not name (unnamed, or the torch function's name: x, input):
            # only the one input of an API with one input is certain (the torch function's order of
            # several need not be the API's)
            ins = [p.name for p in params if p.direction in ("input", "attr")]
            if len(ins) == 1 and len(doc["inputs"]) == 1 and kind in TENSOR_TYPES:
                name = ins[0]
        try:
            if kind in TENSOR_TYPES:
                tensors[name] = tensor_from_item(item)
            elif kind in ATTR_TYPES:
                attrs[name] = _attr_value(item, seed, 1000 + index)
            else:
                problems.append(f"{source}: input {index} ({name}) has type {kind!r}, which this "
                                f"reader does not know")
        except ValuesUnread as exc:
            problems.append(f"{source}: input {index} ({name}): {VALUES_UNREAD}: {exc}")
            tensors[name] = exc.recipe
        except (RecipeError, ValueError, TypeError, KeyError) as exc:
            problems.append(f"{source}: input {index} ({name}): {exc}")
            if kind in TENSOR_TYPES:
                tensors[name] = None
    if params is not None:
        known = {p.name for p in params}
        by_stem = {_stem(p.name): p.name for p in params}
        for name in [n for n in list(tensors) + list(attrs) if n not in known]:
            target = by_stem.get(_stem(name))
            pool = tensors if name in tensors else attrs
            if target is not None and target not in tensors and target not in attrs:
                pool[target] = pool.pop(name)    # quantMode is quantModeOptional
                continue
            problems.append(f"{source}: input {name!r} is not a parameter of {api}")
            pool.pop(name, None)
    stated = set(tensors) | set(attrs)
    if params is not None:
        # as the gtest reader: an argument that is no aclTensor (aclScalar, arrays, plain values) is
        # an attribute of the case; an aclScalar keeps its dtype (the spec's dtype checks read it)
        is_attr = {p.name: p.direction == "attr" or p.c_kind != "tensor" for p in params}
        scalar_items = {it.get("name"): it for it in doc["inputs"] if isinstance(it, dict)
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
    standard = doc.get("standard") or {}
    expected = VendorExpectation("success", 0, str(standard.get("acc", "")),
                                 {"perf": standard["perf"]} if "perf" in standard else {})
    note = ", ".join(f"{k} {doc[k]}" for k in ("name", "api_type", "aclnn_api_type", "is_boundary")
                     if k in doc)
    return VendorCase(api=api, case_id=f"atk-{case_id}", source=source, format="atk",
                      tensors=tensors, attrs=attrs, unstated=frozenset(
                          p.name for p in params or () if p.name not in stated), expected=expected, product=product,
                      product_source=product_source, seed=seed, problems=tuple(problems), note=note)


def _line_of_ids(text: str) -> dict[int, int]:
    """The line each case's ``"id"`` sits on (for the errors that name a case)."""
    out = {}
    for m in re.finditer(r'"id"\s*:\s*(\d+)', text):
        out.setdefault(int(m.group(1)), text.count("\n", 0, m.start()) + 1)
    return out


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
    for n, doc in enumerate(docs):
        case_id = doc.get("id", n) if isinstance(doc, dict) else n
        where = f"{display}:{lines.get(case_id, 1)}"
        try:
            if not isinstance(doc, dict) or "inputs" not in doc or "aclnn_name" not in doc:
                raise ValueError("an ATK case needs aclnn_name and inputs")
            result.cases.append(case_of(doc, display, product, product_source))
        except (ValueError, KeyError, TypeError, RecipeError) as exc:
            result.problems.append(Problem(where, f"case {case_id}: {exc}"))
    return result


def looks_like_atk(text: str) -> bool:
    head = text[:4000]
    return '"aclnn_name"' in head and '"inputs"' in head
