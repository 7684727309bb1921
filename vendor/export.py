"""``aclnn-conformance export --format ttk|atk|gtest --out DIR [--op OP]``: the suite's cases in the
vendor's formats, for a device with the vendor's tools.

Valid calls (ACLNN_SUCCESS on the product) become TTK aclnn-level rows or ATK cases with each input's
seeded range (the formats carry no exact values); fault calls become op_api unit-test source in the
vendor's gtest form with the expected status (exact values for small tensors, ``.Value``). A case a
format cannot carry (strides in ATK, a NULL out-pointer in gtest) is listed, not written.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.params import PROTOCOL_KINDS
from aclnn_conformance.spec.enums import AclDataType, AclFormat, Status
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.tensor import contiguous_strides
from aclnn_conformance.vendor.names import ATK_DTYPE, TTK_DTYPE

FORMATS = ("ttk", "atk", "gtest")
EXACT_VALUES_UP_TO = 64          # elements a gtest .Value() carries; larger tensors get a range
# the stub platform's SocVersion of each product, and the SoC name TTK's soc_series uses
SOC_VERSION = {"ascend950": "ASCEND950", "atlas-a2": "ASCEND910B", "atlas-a3": "ASCEND910_93",
               "atlas-training": "ASCEND910", "atlas-inference": "ASCEND310P",
               "atlas-200i-500-a2": "ASCEND310B"}
SOC_SERIES = {"ascend950": "Ascend950", "atlas-a2": "Ascend910B2", "atlas-a3": "Ascend910_9391",
              "atlas-training": "Ascend910A", "atlas-inference": "Ascend310P3",
              "atlas-200i-500-a2": "Ascend310B1"}
TTK_COLUMNS = ("testcase_name", "api_name", "tensor_view_shapes", "tensor_dtypes", "tensor_formats",
               "attributes", "output_tensor_indexes", "output_inplace_indexes",
               "tensor_storage_shapes", "tensor_view_strides", "tensor_view_offsets",
               "input_data_ranges", "precision_tolerances", "absolute_precision", "soc_series")


@dataclass
class ExportResult:
    written: dict[str, int] = field(default_factory=dict)      # file -> cases
    skipped: list[str] = field(default_factory=list)            # case: why

    def summary(self) -> str:
        return (f"exported {sum(self.written.values())} case(s) to {len(self.written)} file(s); "
                f"{len(self.skipped)} case(s) the format cannot carry")


def _value_range(values: np.ndarray) -> tuple[float, float]:
    finite = values.astype(np.float64)
    finite = finite[np.isfinite(finite)]
    if finite.size == 0:
        return (0.0, 0.0)
    return (float(finite.min()), float(finite.max()))


def _tensor_params(case: Case) -> list[tuple[str, str]]:
    spec = op_spec(case.op)
    return [(p.name, p.direction) for p in spec.params
            if p.direction != "attr" and p.name in case.tensors]


def _attr_params(case: Case) -> list[str]:
    spec = op_spec(case.op)
    return [p.name for p in spec.params if p.direction == "attr" and p.name in case.attrs]


def _plain(value: Any) -> Any:
    if isinstance(value, (AclDataType, AclFormat)):
        return int(value)
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def ttk_row(case: Case, product: str) -> dict[str, str]:
    names = _tensor_params(case)
    args = [case.tensors[n] for n, _ in names]
    shapes = tuple(None if a is None else tuple(a.desc.shape) for a in args)
    outputs = tuple(k for k, (_, d) in enumerate(names) if d == "output")
    inplace = tuple(k for k, (_, d) in enumerate(names) if d == "input/output")
    ranges = tuple(None if a is None else _value_range(a.values())
                   for k, a in enumerate(args) if k not in outputs)
    attrs = {n: _plain(case.attrs[n]) for n in _attr_params(case)}
    return {
        "testcase_name": case.case_id, "api_name": op_spec(case.op).api,
        "tensor_view_shapes": repr(shapes),
        "tensor_dtypes": repr(tuple(TTK_DTYPE[a.desc.dtype] if a is not None else "float32"
                                    for a in args)),
        "tensor_formats": repr(tuple(a.desc.format.name if a is not None else "ND" for a in args)),
        "attributes": repr(attrs), "output_tensor_indexes": repr(outputs),
        "output_inplace_indexes": repr(inplace),
        "tensor_storage_shapes": repr(tuple(None if a is None else tuple(a.desc.storage_shape)
                                            for a in args)),
        "tensor_view_strides": repr(tuple(None if a is None else tuple(a.desc.strides) for a in args)),
        "tensor_view_offsets": repr(tuple(0 if a is None else a.desc.offset for a in args)),
        "input_data_ranges": repr(ranges), "precision_tolerances": "", "absolute_precision": "",
        "soc_series": repr((SOC_SERIES[product],)),
    }


def atk_case(case: Case, index: int) -> dict[str, Any]:
    inputs = []
    for name, direction in _tensor_params(case):
        arg = case.tensors[name]
        if arg is None:
            inputs.append({"name": name, "type": "tensor", "required": False, "dtype": None,
                           "shape": None, "range_values": None})
            continue
        if arg.desc.strides != contiguous_strides(arg.desc.shape) or arg.desc.offset \
                or tuple(arg.desc.storage_shape) != tuple(arg.desc.shape):
            raise ValueError("ATK has no strides, offsets or storage shapes")
        inputs.append({"name": name, "type": "tensor", "required": True,
                       "dtype": ATK_DTYPE[arg.desc.dtype], "shape": list(arg.desc.shape),
                       "range_values": list(_value_range(arg.values())),
                       "format": arg.desc.format.name})
    for name in _attr_params(case):
        value = _plain(case.attrs[name])
        dtype = ("bool" if isinstance(value, bool) else "int" if isinstance(value, int)
                 else "double" if isinstance(value, float) else "string")
        inputs.append({"name": name, "type": "attrs" if isinstance(value, list) else "attr",
                       "required": True, "dtype": dtype, "shape": None, "range_values": value})
    return {"id": index, "name": case.case_id, "aclnn_name": op_spec(case.op).api.removeprefix("aclnn"),
            "api_type": "aclnn-conformance", "standard": {"acc": "default", "perf": "not_key"},
            "inputs": inputs}


def _cxx_number(value: float) -> str:
    if np.isnan(value):
        return "NAN"
    if np.isinf(value):
        return "INFINITY" if value > 0 else "-INFINITY"
    return repr(float(value))


def gtest_test(case: Case, product: str, status: int | None, suite: str) -> str:
    if case.null_outputs:
        raise ValueError(f"a NULL {', '.join(sorted(case.null_outputs))} has no OP_API_UT form")
    lines = [f"TEST_F({suite}, {_cxx_name(case.case_id)})", "{"]
    spec = op_spec(case.op)
    args: list[tuple[str, str]] = []        # (C++ argument, direction), in the API's order
    for p in spec.params:
        if p.c_kind in PROTOCOL_KINDS:
            continue
        if p.direction == "attr":
            if p.name not in case.attrs:
                raise ValueError(f"attribute {p.name} is not set")
            args.append((_attr_line(lines, p.name, _plain(case.attrs[p.name])), "attr"))
            continue
        arg = case.tensors.get(p.name)
        if arg is None:
            args.append(("nullptr", p.direction))
            continue
        d = arg.desc
        desc = (f"TensorDesc({{{', '.join(map(str, d.shape))}}}, ACL_{_acl_dtype(d.dtype)}, "
                f"ACL_FORMAT_{d.format.name}, {{{', '.join(map(str, d.strides))}}}, {d.offset}, "
                f"{{{', '.join(map(str, d.storage_shape))}}})")
        values = arg.storage.astype(np.float64)
        if arg.storage.size <= EXACT_VALUES_UP_TO and np.isfinite(values).all():
            desc += f".Value(vector<double>{{{', '.join(_cxx_number(v) for v in values)}}})"
        else:
            lo, hi = _value_range(values)
            desc += f".ValueRange({_cxx_number(lo)}, {_cxx_number(hi)})"
        lines.append(f"    auto t_{p.name} = {desc};")
        args.append((f"t_{p.name}", p.direction))
    first_output = next((k for k, (_, d) in enumerate(args) if d == "output"), len(args))
    inputs = [a for a, _ in args[:first_output]]
    outputs = [a for a, _ in args[first_output:]]
    lines.append(f"    op::SocVersionManager versionManager(op::SocVersion::{SOC_VERSION[product]});")
    lines.append(f"    auto ut = OP_API_UT({op_spec(case.op).api}, INPUT({', '.join(inputs)}), "
                 f"OUTPUT({', '.join(outputs)}));")
    lines.append("    uint64_t workspaceSize = 0;")
    if status is None:
        lines.append("    EXPECT_NE(ut.TestGetWorkspaceSize(&workspaceSize), ACLNN_SUCCESS);")
    else:
        lines.append(f"    EXPECT_EQ(ut.TestGetWorkspaceSize(&workspaceSize), ACLNN_{Status(status).name});")
    lines.append("}")
    return "\n".join(lines)


def _attr_line(lines: list[str], name: str, value: Any) -> str:
    var = f"a_{name}"
    if isinstance(value, bool):
        lines.append(f"    bool {var} = {'true' if value else 'false'};")
    elif isinstance(value, int):
        lines.append(f"    int64_t {var} = {value};")
    elif isinstance(value, float):
        lines.append(f"    double {var} = {_cxx_number(value)};")
    elif isinstance(value, list) and all(isinstance(v, int) for v in value):
        lines.append(f"    auto {var} = IntArrayDesc(vector<int64_t>{{{', '.join(map(str, value))}}});")
    elif isinstance(value, str) and value.isprintable() and '"' not in value and "\\" not in value:
        lines.append(f'    const char* {var} = "{value}";')
    else:
        raise ValueError(f"attribute {name}={value!r} has no gtest form here")
    return var


def _acl_dtype(dtype: AclDataType) -> str:
    return dtype.name


def _cxx_name(case_id: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in case_id)


# parameter kinds (aclScalar*, aclIntArray*, aclBoolArray*, aclFloatArray*) the writers do not carry
UNCARRIED_KINDS = frozenset({"scalar", "int_array", "bool_array", "float_array"})


def export_cases(cases: Iterable[Case], fmt: str, out: str | Path, product: str = "ascend950",
                 profile: str = "cann") -> ExportResult:
    """Write ``cases`` in ``fmt`` under ``out``: one file per operator."""
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}; valid: {', '.join(FORMATS)}")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    result = ExportResult()
    by_op: dict[str, list[Any]] = {}
    for case in cases:
        uncarried = sorted({p.c_kind for p in op_spec(case.op).params} & UNCARRIED_KINDS)
        if uncarried:
            result.skipped.append(f"{case.op} {case.case_id}: {', '.join(uncarried)} parameters, "
                                  f"which the export does not write")
            continue
        expected = expected_outcome(op_spec(case.op), case, product, profile)
        valid = expected.kind == "success"
        try:
            if fmt in ("ttk", "atk"):
                if not valid:
                    continue       # a fault call: exported as a unit test
                item = ttk_row(case, product) if fmt == "ttk" else atk_case(
                    case, len(by_op.get(case.op, [])))
            else:
                if expected.kind not in ("error", "not_supported", "success"):
                    result.skipped.append(f"{case.op} {case.case_id}: {expected.describe()}, "
                                          f"no status to expect")
                    continue
                item = gtest_test(case, product, 0 if valid else expected.status,
                                  f"{case.op}_conformance_test")
        except (ValueError, KeyError) as exc:
            result.skipped.append(f"{case.op} {case.case_id}: {exc}")
            continue
        by_op.setdefault(case.op, []).append(item)
    for op, items in by_op.items():
        api = op_spec(op).api
        if fmt == "ttk":
            path = out / f"ttk_aclnn_{op}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, TTK_COLUMNS)
                writer.writeheader()
                writer.writerows(items)
        elif fmt == "atk":
            # the arch35 folder is how an ATK file names Ascend 950; no other product has a form
            path = out / ("arch35" if product == "ascend950" else "") / api / f"atk_{api}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(items, indent=1) + "\n", encoding="utf-8")
        else:
            path = out / f"test_{api}_conformance.cpp"
            head = (f"// {api}: fault cases of aclnn-conformance ({len(items)}), each with the status "
                    f"its spec expects on {product}.\n#include \"op_api_ut_common/op_api_ut.h\"\n"
                    f"#include \"op_api_ut_common/tensor_desc.h\"\n\n")
            path.write_text(head + "\n\n".join(items) + "\n", encoding="utf-8")
        result.written[str(path)] = len(items)
    return result
