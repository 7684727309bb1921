"""The aclnn ABI enumerations, with the numeric values the C headers give them.

Sources: aclDataType and aclFormat from the runtime header ``acl_base_rt.h``; the status codes
from opbase ``op_errno.h`` and the aclnn return-code table.
"""
from __future__ import annotations

from enum import IntEnum


class AclDataType(IntEnum):
    UNDEFINED = -1
    FLOAT = 0
    FLOAT16 = 1
    INT8 = 2
    INT32 = 3
    UINT8 = 4
    INT16 = 6
    UINT16 = 7
    UINT32 = 8
    INT64 = 9
    UINT64 = 10
    DOUBLE = 11
    BOOL = 12
    STRING = 13
    COMPLEX64 = 16
    COMPLEX128 = 17
    BF16 = 27
    INT4 = 29
    UINT1 = 30
    COMPLEX32 = 33
    HIFLOAT8 = 34
    FLOAT8_E5M2 = 35
    FLOAT8_E4M3FN = 36
    FLOAT8_E8M0 = 37
    FLOAT6_E3M2 = 38
    FLOAT6_E2M3 = 39
    FLOAT4_E2M1 = 40
    FLOAT4_E1M2 = 41


class AclFormat(IntEnum):
    UNDEFINED = -1
    NCHW = 0
    NHWC = 1
    ND = 2
    NC1HWC0 = 3
    FRACTAL_Z = 4
    NC1HWC0_C04 = 12
    HWCN = 16
    NDHWC = 27
    FRACTAL_NZ = 29
    NCDHW = 30
    NDC1HWC0 = 32
    FRACTAL_Z_3D = 33
    NC = 35
    NCL = 47
    FRACTAL_NZ_C0_16 = 50
    FRACTAL_NZ_C0_32 = 51
    FRACTAL_NZ_C0_2 = 52
    FRACTAL_NZ_C0_4 = 53
    FRACTAL_NZ_C0_8 = 54


# Storage formats that opbase treats as contiguous whatever the strides say.
PRIVATE_FORMATS = frozenset({
    AclFormat.NC1HWC0, AclFormat.FRACTAL_Z, AclFormat.NDC1HWC0, AclFormat.FRACTAL_Z_3D,
    AclFormat.FRACTAL_NZ, AclFormat.NC1HWC0_C04, AclFormat.FRACTAL_NZ_C0_16,
    AclFormat.FRACTAL_NZ_C0_32, AclFormat.FRACTAL_NZ_C0_2, AclFormat.FRACTAL_NZ_C0_4,
    AclFormat.FRACTAL_NZ_C0_8,
})

# Formats the nnopbase runtime rewrites to ND before it matches an op's (dtype, format)
# combinations, in its default format-match mode (notes apply_adam_w_quant.md section 10, N1).
# The runtime's list also names DHWCN, which has no aclFormat value.
ND_LIKE_FORMATS = frozenset({
    AclFormat.NCL, AclFormat.NCDHW, AclFormat.NHWC, AclFormat.NCHW,
})


class Status(IntEnum):
    """aclnnStatus values (the full table of op_errno.h)."""

    SUCCESS = 0
    ERR_PARAM_NULLPTR = 161001
    ERR_PARAM_INVALID = 161002
    ERR_RUNTIME_ERROR = 361001
    ERR_INNER = 561000
    ERR_INNER_INFERSHAPE_ERROR = 561001
    ERR_INNER_TILING_ERROR = 561002
    ERR_INNER_FIND_KERNEL_ERROR = 561003
    ERR_INNER_CREATE_EXECUTOR = 561101
    ERR_INNER_NOT_TRANS_EXECUTOR = 561102
    ERR_INNER_NULLPTR = 561103
    ERR_INNER_WRONG_ATTR_INFO_SIZE = 561104
    ERR_INNER_KEY_CONFLICT = 561105
    ERR_INNER_INVALID_IMPL_MODE = 561106
    ERR_INNER_OPP_PATH_NOT_FOUND = 561107
    ERR_INNER_LOAD_JSON_FAILED = 561108
    ERR_INNER_JSON_VALUE_NOT_FOUND = 561109
    ERR_INNER_JSON_FORMAT_INVALID = 561110
    ERR_INNER_JSON_DTYPE_INVALID = 561111
    ERR_INNER_OPP_KERNEL_PKG_NOT_FOUND = 561112
    ERR_INNER_OP_FILE_INVALID = 561113
    ERR_INNER_ATTR_NUM_OUT_OF_BOUND = 561114
    ERR_INNER_ATTR_LEN_NOT_ENOUGH = 561115
    ERR_INNER_INPUT_NUM_IN_JSON_TOO_LARGE = 561116
    ERR_INNER_INPUT_JSON_IS_NULL = 561117
    ERR_INNER_STATIC_WORKSPACE_INVALID = 561118
    ERR_INNER_STATIC_BLOCK_DIM_INVALID = 561119


def status_code(text: str) -> int:
    """The code of a status as a person writes it: ``ACLNN_ERR_PARAM_INVALID``,
    ``ERR_PARAM_INVALID`` (any case) or ``161002``; ValueError otherwise."""
    name = text.strip().upper().removeprefix("ACLNN_")
    if name.isdigit():
        return int(name)
    try:
        return int(Status[name])
    except KeyError:
        raise ValueError(f"{text!r} is not an aclnn status name or code") from None


def status_name(code: int) -> str:
    """'ACLNN_ERR_PARAM_INVALID (161002)' for a known code, the number alone otherwise."""
    try:
        return f"ACLNN_{Status(code).name} ({int(code)})"
    except ValueError:
        return str(int(code))
