# opbase include/nnopbase/opdev/data_type_utils.h:165 (kPromoteTypesLookup), hicann/opbase@aa3cd74b:
# type_a -> type_b -> PromoteType(type_a, type_b) for a != b; pairs not listed are DT_UNDEFINED, except
# those of the eight newest dtypes (ZERO_INITIALISED below).
PROMOTE_TYPES: dict[str, dict[str, str]] = {
    "FLOAT": {"FLOAT16": "FLOAT", "INT8": "FLOAT", "INT32": "FLOAT", "UINT8": "FLOAT", "INT16": "FLOAT", "INT64": "FLOAT", "DOUBLE": "DOUBLE", "BOOL": "FLOAT", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "FLOAT", "COMPLEX32": "COMPLEX64"},
    "FLOAT16": {"FLOAT": "FLOAT", "INT8": "FLOAT16", "INT32": "FLOAT16", "UINT8": "FLOAT16", "INT16": "FLOAT16", "INT64": "FLOAT16", "DOUBLE": "DOUBLE", "BOOL": "FLOAT16", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "FLOAT", "COMPLEX32": "COMPLEX32"},
    "INT8": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT32": "INT32", "UINT8": "INT16", "INT16": "INT16", "INT64": "INT64", "DOUBLE": "DOUBLE", "BOOL": "INT8", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "INT32": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT32", "UINT8": "INT32", "INT16": "INT32", "INT64": "INT64", "DOUBLE": "DOUBLE", "BOOL": "INT32", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "UINT8": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT16", "INT32": "INT32", "INT16": "INT16", "INT64": "INT64", "DOUBLE": "DOUBLE", "BOOL": "UINT8", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "INT16": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT16", "INT32": "INT32", "UINT8": "INT16", "INT64": "INT64", "DOUBLE": "DOUBLE", "BOOL": "INT16", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "UINT16": {"COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128"},
    "UINT32": {"COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128"},
    "INT64": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT64", "INT32": "INT64", "UINT8": "INT64", "INT16": "INT64", "DOUBLE": "DOUBLE", "BOOL": "INT64", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "UINT64": {"COMPLEX64": "COMPLEX128", "COMPLEX128": "COMPLEX128"},
    "DOUBLE": {"FLOAT": "DOUBLE", "FLOAT16": "DOUBLE", "INT8": "DOUBLE", "INT32": "DOUBLE", "UINT8": "DOUBLE", "INT16": "DOUBLE", "INT64": "DOUBLE", "BOOL": "DOUBLE", "COMPLEX64": "COMPLEX128", "COMPLEX128": "COMPLEX128", "BF16": "DOUBLE", "COMPLEX32": "COMPLEX128"},
    "BOOL": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT16", "INT8": "INT8", "INT32": "INT32", "UINT8": "UINT8", "INT16": "INT16", "INT64": "INT64", "DOUBLE": "DOUBLE", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "BF16", "COMPLEX32": "COMPLEX32"},
    "COMPLEX64": {"FLOAT": "COMPLEX64", "FLOAT16": "COMPLEX64", "INT8": "COMPLEX64", "INT32": "COMPLEX64", "UINT8": "COMPLEX64", "INT16": "COMPLEX64", "INT64": "COMPLEX64", "DOUBLE": "COMPLEX128", "BOOL": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "COMPLEX64", "COMPLEX32": "COMPLEX64"},
    "COMPLEX128": {"FLOAT": "COMPLEX128", "FLOAT16": "COMPLEX128", "INT8": "COMPLEX128", "INT32": "COMPLEX128", "UINT8": "COMPLEX128", "INT16": "COMPLEX128", "INT64": "COMPLEX128", "DOUBLE": "COMPLEX128", "BOOL": "COMPLEX128", "COMPLEX64": "COMPLEX128", "BF16": "COMPLEX128", "COMPLEX32": "COMPLEX128"},
    "BF16": {"FLOAT": "FLOAT", "FLOAT16": "FLOAT", "INT8": "BF16", "INT32": "BF16", "UINT8": "BF16", "INT16": "BF16", "INT64": "BF16", "DOUBLE": "DOUBLE", "BOOL": "BF16", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "COMPLEX32": "COMPLEX64"},
    "COMPLEX32": {"FLOAT": "COMPLEX64", "FLOAT16": "COMPLEX32", "INT8": "COMPLEX32", "INT32": "COMPLEX32", "UINT8": "COMPLEX32", "INT16": "COMPLEX32", "INT64": "COMPLEX32", "DOUBLE": "COMPLEX128", "BOOL": "COMPLEX32", "COMPLEX64": "COMPLEX64", "COMPLEX128": "COMPLEX128", "BF16": "COMPLEX64"},
}

COMPLEX = frozenset({"COMPLEX32", "COMPLEX64", "COMPLEX128"})
# data_type_utils.h IsFloatingType
FLOATING = frozenset({"DOUBLE", "FLOAT", "BF16", "FLOAT16", "HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN",
                      "FLOAT8_E8M0", "FLOAT6_E3M2", "FLOAT6_E2M3", "FLOAT4_E2M1", "FLOAT4_E1M2"})
# data_type_utils.h IsIntegralType (without bool)
INTEGRAL = frozenset({"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"})


# The table's initializer holds 34 rows of 34 columns (DT_FLOAT = 0 to DT_COMPLEX32 = 33) in an array of
# DT_MAX x DT_MAX: every entry of a dtype from DT_HIFLOAT8 = 34 to DT_FLOAT4_E1M2 = 41 (data_type_utils.h
# TypeSize:81-124) is zero-initialised, and zero is DT_FLOAT, not DT_UNDEFINED.
ZERO_INITIALISED = frozenset({"HIFLOAT8", "FLOAT8_E5M2", "FLOAT8_E4M3FN", "FLOAT8_E8M0", "FLOAT6_E3M2",
                              "FLOAT6_E2M3", "FLOAT4_E2M1", "FLOAT4_E1M2"})


def promote_type(a: str, b: str) -> str | None:
    """PromoteType(a, b); None for DT_UNDEFINED."""
    if a == b:
        return a
    if a in ZERO_INITIALISED or b in ZERO_INITIALISED:
        return "FLOAT"   # what the table holds there (a zero entry), not a promotion anyone wrote
    return PROMOTE_TYPES.get(a, {}).get(b)


def can_cast(src: str, dst: str) -> bool:
    """CanCast(src, dst): not complex to real, not floating to integral, not non-bool to bool."""
    if src in COMPLEX and dst not in COMPLEX:
        return False
    if src in FLOATING and dst in INTEGRAL:
        return False
    return not (src != "BOOL" and dst == "BOOL")
