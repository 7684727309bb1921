"""TTK csv cases (``tests/st/[arch35/]ttk_*.csv``): valid calls with the vendor's tolerance.

Two levels: aclnn (``api_name``: tensors in the API's order, ``None`` a null tensor, attributes by
name) and kernel (``op_name``: the kernel's inputs, mapped onto the aclnn parameters by
the ``kernel_inputs`` of the operator's record). Cells are Python literals; a one-element tuple stands for every
tensor (formats, dtypes, ranges).
"""
from __future__ import annotations

import ast
import csv
import io
from pathlib import Path
from typing import Any

from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.spec.registry import operator_of_kernel
from aclnn_conformance.vendor.model import TensorRecipe, VendorCase, VendorExpectation, spec_params
from aclnn_conformance.vendor.names import dtype_of, format_of
from aclnn_conformance.vendor.soc import SOC_VERSION_PRODUCT
from aclnn_conformance.vendor.values import RecipeError, constant, seed_of, uniform

TOLERANCE_COLUMNS = ("precision_tolerances", "absolute_precision")


def literal(cell: str | None) -> Any:
    """A Python-literal cell ('' is None)."""
    if cell is None or not cell.strip():
        return None
    text = cell.strip()
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        try:
            return ast.literal_eval(text.replace("inf", "float('inf')"))
        except (ValueError, SyntaxError):
            pass
        raise ValueError(f"cell {text[:60]!r} is not a Python literal") from None


def _shape(value: Any, what: str) -> tuple[int, ...]:
    """A tensor's shape as whole numbers; a tensor list (a tuple of shapes, aclTensorList) is
    refused with the reason, since a case holds one descriptor per tensor parameter."""
    dims = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in dims):
        kind = "a tensor list" if any(isinstance(d, (tuple, list)) for d in dims) else "no shape"
        raise ValueError(f"{what} {value!r} is {kind}: not imported (one shape per tensor)")
    return dims


def _per_tensor(value: Any, count: int, what: str) -> list:
    """A per-tensor tuple, a one-element tuple standing for all, or nothing."""
    if value is None or value == ():
        return [None] * count
    if not isinstance(value, (tuple, list)):
        return [value] * count
    if len(value) == 1 and count != 1:
        return list(value) * count
    if len(value) != count:
        raise ValueError(f"{what} has {len(value)} entries for {count} tensors")
    return list(value)


def _range(value: Any) -> dict[str, Any]:
    if value is None:
        return uniform(-1, 1)
    if isinstance(value, (int, float)):
        return constant(value)
    if isinstance(value, (tuple, list)) and len(value) == 2:
        if value[0] is None or value[1] is None:
            return uniform(-1, 1)
        if value[0] == value[1]:
            return constant(value[0])
        return uniform(value[0], value[1])
    raise RecipeError(f"input_data_ranges entry {value!r} is not a (low, high) pair")


def product_of_row(row: dict, path_parts: tuple[str, ...], display: str) -> tuple[str | None, str]:
    """The product a row is for: its soc_series, else the arch35 folder, else none."""
    series = literal(row.get("soc_series")) if row.get("soc_series") else None
    if series:
        names = series if isinstance(series, (tuple, list)) else (series,)
        products = set()
        for name in names:
            key = str(name).upper().replace("ASCEND", "ASCEND")
            key = {"ASCEND950PR": "ASCEND950", "ASCEND950DT": "ASCEND950", "ASCEND910_95": "ASCEND950",
                   "ASCEND910B1": "ASCEND910B", "ASCEND910B2": "ASCEND910B",
                   "ASCEND910B3": "ASCEND910B", "ASCEND910B4": "ASCEND910B",
                   "ASCEND910_9391": "ASCEND910_93", "ASCEND910_9392": "ASCEND910_93"}.get(key, key)
            products.add(SOC_VERSION_PRODUCT.get(key))
        if len(products) == 1 and None not in products:
            return products.pop(), f"soc_series {series!r}"
        return None, f"soc_series {series!r} names no single product line the suite knows"
    if "arch35" in path_parts:
        return "ascend950", "the arch35 folder (Ascend 950, DAV_3510)"
    return None, "the TTK file names no product (no soc_series, not under arch35)"


def _tolerance(row: dict) -> dict[str, Any]:
    out = {}
    for column in TOLERANCE_COLUMNS:
        if row.get(column):
            value = literal(row[column])
            out[column] = value
    return out


def _aclnn_row(row: dict, display: str, line: int, product, product_source) -> VendorCase:
    api = row["api_name"].strip()
    source = f"{display}:{line}"
    shapes = literal(row.get("tensor_view_shapes"))
    if not isinstance(shapes, (tuple, list)):
        raise ValueError("tensor_view_shapes is not a tuple of shapes")
    count = len(shapes)
    dtypes = _per_tensor(literal(row.get("tensor_dtypes")), count, "tensor_dtypes")
    formats = _per_tensor(literal(row.get("tensor_formats")), count, "tensor_formats")
    storages = _per_tensor(literal(row.get("tensor_storage_shapes")), count, "tensor_storage_shapes")
    strides = _per_tensor(literal(row.get("tensor_view_strides")), count, "tensor_view_strides")
    offsets = _per_tensor(literal(row.get("tensor_view_offsets")), count, "tensor_view_offsets")
    outputs = set(literal(row.get("output_tensor_indexes")) or ())
    ranges = literal(row.get("input_data_ranges"))
    n_inputs = count - len(outputs)
    ranges = _per_tensor(ranges, n_inputs, "input_data_ranges") if n_inputs else []
    params = spec_params(api)
    problems = []
    tensor_names = ([p.name for p in params if p.direction != "attr"] if params is not None
                    else [f"tensor{k}" for k in range(count)])
    if len(tensor_names) != count:
        raise ValueError(f"{count} tensors for the {len(tensor_names)} tensor parameters of {api}")
    tensors: dict[str, TensorRecipe | None] = {}
    input_index = 0
    for k, name in enumerate(tensor_names):
        is_output = k in outputs or (k - count) in outputs
        if shapes[k] is None:
            tensors[name] = None
            if not is_output:
                input_index += 1
            continue
        rng = uniform(0, 0) if is_output else _range(ranges[input_index] if ranges else None)
        if not is_output:
            input_index += 1
        tensors[name] = TensorRecipe(
            dtype_of(dtypes[k]), _shape(shapes[k], f"tensor {k}"), format_of(formats[k] or "ND"),
            tuple(strides[k]) if strides[k] else None, int(offsets[k] or 0),
            tuple(storages[k]) if storages[k] else None, rng)
    attrs = dict(literal(row.get("attributes")) or {})
    if params is not None:
        known = {p.name for p in params if p.direction == "attr"}
        for name in [n for n in attrs if n not in known]:
            problems.append(f"{source}: attribute {name!r} is not a parameter of {api}")
            attrs.pop(name)
    if row.get("scalar_dtypes") and literal(row["scalar_dtypes"]):
        problems.append(f"{source}: scalar_dtypes {row['scalar_dtypes']} kept as the note only")
    tolerance = _tolerance(row)
    return VendorCase(api=api, case_id=f"ttk-{row['testcase_name']}", source=source,
                      format="ttk-aclnn", tensors=tensors, attrs=attrs,
                      expected=VendorExpectation("success", 0, "", tolerance), product=product,
                      product_source=product_source, seed=seed_of(source),
                      problems=tuple(problems), note=_row_note(row))


def _row_note(row: dict) -> str:
    bits = [f"{k} {row[k]}" for k in ("is_enabled", "remark", "output_inplace_indexes")
            if row.get(k) not in (None, "", "()")]
    return "; ".join(bits)


def _kernel_row(row: dict, display: str, line: int, product, product_source) -> VendorCase:
    op_name = row["op_name"].strip()
    record = operator_of_kernel(op_name)
    source = f"{display}:{line}"
    if record is None:
        raise ValueError(f"kernel op {op_name!r} has no mapping onto an aclnn API (no operator "
                         f"record states it in its kernel_inputs)")
    mapping, api = record.kernel_inputs, record.api
    shapes = literal(row.get("input_ori_shapes")) or literal(row.get("input_shapes"))
    storage_shapes = literal(row.get("input_shapes"))
    if not isinstance(shapes, (tuple, list)):
        raise ValueError("input_shapes is not a tuple of shapes")
    count = len(shapes)
    if count > len(mapping.inputs):
        raise ValueError(f"{count} kernel inputs, the mapping of {op_name} names "
                         f"{len(mapping.inputs)}")
    dtypes = _per_tensor(literal(row.get("input_dtypes")), count, "input_dtypes")
    formats = _per_tensor(literal(row.get("input_ori_formats")) or literal(row.get("input_formats")),
                          count, "input_formats")
    storage = _per_tensor(storage_shapes, count, "input_shapes")
    ranges = _per_tensor(literal(row.get("input_data_ranges")), count, "input_data_ranges")
    params = spec_params(api)
    tensors: dict[str, TensorRecipe | None] = {p.name: None for p in params if p.direction != "attr"}
    for k in range(count):
        if shapes[k] is None:
            continue
        shape = _shape(shapes[k], f"input {k}")
        store = tuple(storage[k]) if storage[k] and tuple(storage[k]) != shape else None
        tensors[mapping.inputs[k]] = TensorRecipe(dtype_of(dtypes[k]), shape,
                                                  format_of(formats[k] or "ND"), None, 0, store,
                                                  _range(ranges[k]))
    problems = []
    attrs = {}
    for name, value in (literal(row.get("attributes")) or {}).items():
        if name in mapping.attrs:
            attrs[mapping.attrs[name]] = value
        else:
            problems.append(f"{source}: kernel attribute {name!r} has no aclnn parameter in the "
                            f"mapping of {op_name}")
    tolerance = _tolerance(row)
    return VendorCase(api=api, case_id=f"ttk-{row['testcase_name']}", source=source,
                      format="ttk-kernel", tensors=tensors, attrs=attrs,
                      expected=VendorExpectation("success", 0, "", tolerance), product=product,
                      product_source=product_source, seed=seed_of(source),
                      problems=tuple(problems),
                      note=f"kernel {op_name}; inputs mapped by {mapping.source}. " + _row_note(row))


def read_ttk(path: Path, display: str, text: str | None = None) -> ImportResult:
    text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
    reader = csv.DictReader(io.StringIO(text))
    fields = reader.fieldnames or []
    level = "aclnn" if "api_name" in fields else "kernel" if "op_name" in fields else ""
    result = ImportResult(files={display: f"ttk-{level or 'unknown'}"})
    if not level:
        result.problems.append(Problem(f"{display}:1", "a TTK header needs api_name or op_name"))
        return result
    parts = Path(display).parts
    line = 1
    for row in reader:
        line = reader.line_num
        try:
            if None in row:
                raise ValueError(f"{len(row[None])} cell(s) more than the header's "
                                 f"{len(fields)} columns")
            if level == "aclnn" and str(row.get("api_name", "")).startswith("torch"):
                raise ValueError("an end-to-end row (torch API): not an aclnn call")
            product, product_source = product_of_row(row, parts, display)
            build = _aclnn_row if level == "aclnn" else _kernel_row
            result.cases.append(build(row, display, line, product, product_source))
        except (ValueError, KeyError, TypeError, RecipeError) as exc:
            result.problems.append(Problem(f"{display}:{line}",
                                           f"row {row.get('testcase_name') or '?'}: {exc}"))
    return result


def looks_like_ttk(text: str) -> bool:
    return text.lstrip("\ufeff").startswith("testcase_name,")
