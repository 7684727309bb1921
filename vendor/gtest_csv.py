"""CSV-driven op_api unit tests (``tests/ut/op_api/test_aclnn_*.csv``): one row per call, read by a
``TEST_P`` of the .cpp beside it, which passes the row's tensors to ``OP_API_UT`` in the column
order and checks ``expectRet`` when ``checkRet`` is true.

A tensor is a group of columns ``<t>Null, <t>Shape, <t>Type, <t>Format, <t>Stride,
<t>StorageShape`` (each but Shape optional); the groups map onto the API's tensor parameters in
order, the other columns onto its attributes by name; ``arch`` names the NPU architecture the row
runs as (an ``NpuArchManager`` in the .cpp), empty for the harness's default.
"""
from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import Any

from aclnn_conformance.spec.enums import Status
from aclnn_conformance.vendor.cases_dir import ImportResult, Problem
from aclnn_conformance.vendor.gtest import first_api
from aclnn_conformance.vendor.model import TensorRecipe, VendorCase, VendorExpectation, spec_params
from aclnn_conformance.vendor.names import dtype_of, format_of
from aclnn_conformance.vendor.soc import product_of_enum
from aclnn_conformance.vendor.values import seed_of, uniform

PARTS = ("Null", "Shape", "Type", "Format", "Stride", "StorageShape")
SPECIAL = ("caseName", "arch", "expectRet", "checkRet")
DEFAULT_RANGE = (-2, 2)


def looks_like_ut_csv(text: str) -> bool:
    head = text.lstrip("\ufeff").split("\n", 1)[0]
    return head.startswith("caseName,") and "expectRet" in head


def _groups(fields: list[str]) -> tuple[list[str], list[str]]:
    """Tensor prefixes in column order, and the attribute columns."""
    prefixes: list[str] = []
    attrs = []
    for f in fields:
        if f in SPECIAL:
            continue
        m = re.fullmatch(r"(\w+?)(Null|StorageShape|Shape|Type|Format|Stride)", f)
        if m:
            if m.group(1) not in prefixes:
                prefixes.append(m.group(1))
        else:
            attrs.append(f)
    return prefixes, attrs


def _ints(cell: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in cell.split())
    except ValueError:
        raise ValueError(f"{cell!r} is not integers separated by spaces") from None


def _bool(cell: str) -> bool:
    return cell.strip().lower() in ("true", "1")


def _status(cell: str) -> int:
    name = cell.strip()
    if name in ("ACLNN_SUCCESS", "ACL_SUCCESS", "0"):
        return 0
    if name.startswith("ACLNN_"):
        return int(Status[name[len("ACLNN_"):]])
    return int(name)


def _attr(cell: str) -> Any:
    text = cell.strip()
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def read_ut_csv(path: Path, display: str, default_product: str | None, default_source: str,
                text: str | None = None, api: str | None = None) -> ImportResult:
    text = path.read_text(encoding="utf-8", errors="replace") if text is None else text
    result = ImportResult(files={display: "gtest-csv"})
    api = api or _api_of(path)
    if api is None:
        result.problems.append(Problem(f"{display}:1", "no OP_API_UT call in the .cpp of the same "
                                                       "name names the API of this table"))
        return result
    reader = csv.DictReader(io.StringIO(text))
    fields = reader.fieldnames or []
    prefixes, attr_columns = _groups(fields)
    params = spec_params(api)
    tensor_names = ([p.name for p in params if p.direction != "attr"] if params is not None
                    else prefixes)
    if len(tensor_names) != len(prefixes):
        result.problems.append(Problem(f"{display}:1", f"{len(prefixes)} tensor column groups for "
                                                       f"the {len(tensor_names)} tensors of {api}"))
        return result
    for row in reader:
        line = reader.line_num
        where = f"{display}:{line}"
        try:
            if None in row:
                raise ValueError(f"more cells than the header's {len(fields)} columns")
            if not row.get("caseName", "").strip() or row["caseName"].startswith("#"):
                continue
            tensors: dict[str, TensorRecipe | None] = {}
            for prefix, name in zip(prefixes, tensor_names):
                if _bool(row.get(f"{prefix}Null") or "false"):
                    tensors[name] = None
                    continue
                stride = _ints(row.get(f"{prefix}Stride") or "")
                storage = _ints(row.get(f"{prefix}StorageShape") or "")
                tensors[name] = TensorRecipe(
                    dtype_of(row[f"{prefix}Type"]), _ints(row.get(f"{prefix}Shape") or ""),
                    format_of(row[f"{prefix}Format"]), stride or None, 0, storage or None,
                    uniform(*DEFAULT_RANGE))
            attrs = {c: _attr(row[c]) for c in attr_columns if row.get(c, "").strip() != ""}
            status = _status(row["expectRet"])
            problems = []
            if "checkRet" in row and not _bool(row["checkRet"] or "true"):
                raise ValueError("checkRet false: the test does not check this row's status")
            arch = (row.get("arch") or "").strip()
            product, product_source = default_product, default_source
            if arch:
                known, product = product_of_enum(f"NpuArch::{arch}")
                product_source = f"the row's arch {arch} ({where})"
                if product is None:
                    product_source += ": no product line the suite knows"
            source = where
            result.cases.append(VendorCase(
                api=api, case_id=f"ut-{row['caseName'].strip()}", source=source, format="gtest-csv",
                tensors=tensors, attrs=attrs,
                expected=VendorExpectation("success" if status == 0 else "status", status),
                product=product, product_source=product_source, seed=seed_of(source),
                problems=tuple(problems)))
        except (ValueError, KeyError, TypeError) as exc:
            result.problems.append(Problem(where, f"row {row.get('caseName') or '?'}: {exc}"))
    return result


def _api_of(path: Path) -> str | None:
    """The API of the first ``OP_API_UT`` of the .cpp of the same name (its ``TEST_P``)."""
    try:
        return first_api(path.with_suffix(".cpp").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return None
