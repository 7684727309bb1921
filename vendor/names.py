"""Data-type and format names as the vendor's ATK and TTK files write them."""
from __future__ import annotations

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat

DTYPE_NAMES: dict[str, DT] = {
    "fp16": DT.FLOAT16, "float16": DT.FLOAT16, "half": DT.FLOAT16,
    "bf16": DT.BF16, "bfloat16": DT.BF16,
    "fp32": DT.FLOAT, "float32": DT.FLOAT, "float": DT.FLOAT,
    "fp64": DT.DOUBLE, "float64": DT.DOUBLE, "double": DT.DOUBLE,
    "int8": DT.INT8, "uint8": DT.UINT8, "int16": DT.INT16, "uint16": DT.UINT16,
    "int32": DT.INT32, "uint32": DT.UINT32, "int64": DT.INT64, "uint64": DT.UINT64, "int": DT.INT64,
    "bool": DT.BOOL, "complex64": DT.COMPLEX64, "complex128": DT.COMPLEX128,
    "float8_e4m3fn": DT.FLOAT8_E4M3FN, "float8_e5m2": DT.FLOAT8_E5M2,
    "float8_e8m0": DT.FLOAT8_E8M0, "float8_e8m0fnu": DT.FLOAT8_E8M0,
    "float4_e2m1": DT.FLOAT4_E2M1, "float4_e2m1fn": DT.FLOAT4_E2M1, "float4_e1m2": DT.FLOAT4_E1M2,
    "hifloat8": DT.HIFLOAT8, "int4": DT.INT4,
}
# the name each type is written back as (TTK uses NumPy-like names, ATK short ones)
TTK_DTYPE = {DT.FLOAT16: "float16", DT.BF16: "bfloat16", DT.FLOAT: "float32", DT.DOUBLE: "float64",
             DT.INT8: "int8", DT.UINT8: "uint8", DT.INT16: "int16", DT.UINT16: "uint16",
             DT.INT32: "int32", DT.UINT32: "uint32", DT.INT64: "int64", DT.UINT64: "uint64",
             DT.BOOL: "bool", DT.COMPLEX64: "complex64", DT.COMPLEX128: "complex128",
             DT.FLOAT8_E4M3FN: "float8_e4m3fn", DT.FLOAT8_E5M2: "float8_e5m2",
             DT.FLOAT8_E8M0: "float8_e8m0", DT.FLOAT4_E2M1: "float4_e2m1",
             DT.FLOAT4_E1M2: "float4_e1m2", DT.HIFLOAT8: "hifloat8", DT.INT4: "int4"}
ATK_DTYPE = {**TTK_DTYPE, DT.FLOAT16: "fp16", DT.BF16: "bf16", DT.FLOAT: "fp32", DT.DOUBLE: "fp64"}


def dtype_of(name: str) -> DT:
    key = str(name).strip().lower()
    if key.startswith("acl_"):
        key = key[4:]
    if key in DTYPE_NAMES:
        return DTYPE_NAMES[key]
    try:
        return DT[key.upper()]
    except KeyError:
        raise ValueError(f"data type {name!r} is not one this suite knows") from None


def format_of(name: str) -> AclFormat:
    key = str(name).strip().upper()
    if key.startswith("ACL_FORMAT_"):
        key = key[len("ACL_FORMAT_"):]
    try:
        return AclFormat[key]
    except KeyError:
        raise ValueError(f"format {name!r} is not one this suite knows") from None
