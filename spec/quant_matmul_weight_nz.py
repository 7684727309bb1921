"""The executable specification of aclnnQuantMatmulWeightNz, scoped to its MX A8W4 path.

Document: ../shared/docs/aclnnQuantMatmulWeightNz.md. Vendor behaviour behind the ``cann`` profile:
``aclnn_quant_matmul_v4.cpp`` and ``quant_matmul_v4_common.h`` (ops-nn), the MX prologue kernels and
the vendor's golden, as summarised in notes/quant_matmul_weight_nz_mx.md (section 2 is the check
order this module follows, its numbers are the ``step n`` of each rule's note).

The API has about ten quantization modes on four product lines; this spec covers one path and says
so. Its DOMAIN: Ascend 950; x1 FLOAT8_E4M3FN; x2 FLOAT4_E2M1 in an NZ format; x1Scale and x2Scale
FLOAT8_E8M0 (the MX A8W4 pseudo-quantization that consumes aclnnWeightQuantPreprocess's output).

- Every call gets the checks that run before the operator chooses a path (null pointers, offsets).
- The path choice is a set of rules (``category`` ``domain``): a call outside the domain expects
  ``not covered``, never a verdict. Two boundary cases are decided because the path's own checks
  decide them: an FP4 x2 that is not NZ (step 8) and scales that are neither MX nor T-CG (step 18).
  FLOAT8_E5M2 activations with an FP4 weight match no row of the document: any error.
- Inside the domain every host rule of the notes, in code order, with its status.

Geometry after the operator's rewrites: x2 whose strides transpose its last two dims has its view
swapped and transposeX2 flipped (step 12); then, with transposeX2 true, the view is {N, K}. The same
for x1 and transposeX1 (step 16). A transposed x2Scale view {ceil(K/64), N, 2} strides
{2, 2*ceil(K/64), 1} is read as {N, ceil(K/64), 2} (step 17).
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.mx_a8w4_layout import C0, N0, SCALE_K
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.operator import Operator
from aclnn_conformance.spec.precision import ArithmeticModel, ROUND_NEAREST_EVEN
from aclnn_conformance.spec.rules import (rule_maker, ANY_ERROR, JUDGED, NOT_COVERED, NOT_JUDGED, STATUS, UNCHECKED,
                                          ByProduct, Erratum, OpSpec, Rule)
from aclnn_conformance.spec.tensor import ceil_div

OP = "quant_matmul_weight_nz"
API = "aclnnQuantMatmulWeightNz"
DOC = "../shared/docs/aclnnQuantMatmulWeightNz.md"
NOTES = "notes/quant_matmul_weight_nz_mx.md"

DOMAIN = ("Ascend 950; x1 FLOAT8_E4M3FN; x2 FLOAT4_E2M1 in an NZ format (FRACTAL_NZ, "
          "FRACTAL_NZ_C0_4, FRACTAL_NZ_C0_32); x1Scale and x2Scale FLOAT8_E8M0 (the MX A8W4 path)")

TENSORS = ("x1", "x2", "x1Scale", "x2Scale", "yScale", "x1Offset", "x2Offset", "yOffset", "bias", "out")
OUTPUTS = ("out",)
ATTRS = ("transposeX1", "transposeX2", "groupSize")
MANDATORY = ("x1", "x2", "x2Scale", "out")

X1_DTYPE = DT.FLOAT8_E4M3FN
X2_DTYPE = DT.FLOAT4_E2M1
SCALE_DTYPE = DT.FLOAT8_E8M0
OUT_DTYPES = (DT.BF16, DT.FLOAT16)
NZ_FORMATS = (F.FRACTAL_NZ, F.FRACTAL_NZ_C0_4, F.FRACTAL_NZ_C0_32)
MX_BLOCK = 32
GROUP_SIZE = 32                                   # [0, 0, 32]
GROUP_SIZE_111 = (1 << 32) | (1 << 16) | 32       # [1, 1, 32] = 4295032864
K_ALIGN = N_ALIGN = 8

PARAMS = (
    Param("x1", "input", (DT.FLOAT8_E4M3FN,), (F.ND,), (2,), "transposed only",
          "MX A8W4: (m, k), transposeX1 false",
          doc_row="x1 | 输入 | INT4、INT8、HIFLOAT8、FLOAT8_E4M3FN、FLOAT4_E2M1 | ND | 2-6 | ✓"),
    Param("x2", "input", (DT.FLOAT4_E2M1,), (F.FRACTAL_NZ,), (2,), "transposed only",
          "MX A8W4: (n, k), transposeX2 true; storage (k1, n1, n0, k0), k0 = 32, n0 = 16",
          doc_row="x2 | 输入 | INT4、INT8、INT32、HIFLOAT8、FLOAT4_E2M1、FLOAT32、FLOAT8_E4M3FN | NZ | 4-8 | ✓"),
    Param("x1Scale", "input", (DT.FLOAT8_E8M0,), (F.ND,), (3,), "-",
          "MX: (m, ceil(k/64), 2)",
          doc_row="x1Scale | 输入 | FLOAT32、FLOAT8_E8M0 | ND | 1、3~7 | -"),
    Param("x2Scale", "input", (DT.FLOAT8_E8M0,), (F.ND,), (3,), "-",
          "MX: transposeX2 true (n, ceil(k/64), 2)",
          doc_row="x2Scale | 输入 | UINT64、INT64、FLOAT32、BFLOAT16、FLOAT8_E8M0、FLOAT16 | ND | 1、3~7 | -"),
    Param("yScale", "input", (), (F.ND,), (2,), "-", "MX: null", optional=True,
          doc_row="yScale | 输入 | UINT64、INT64 | ND | 2 | -"),
    Param("x1Offset", "input", (), (), (), "-", "not supported: nullptr or an empty tensor",
          optional=True, doc_row="x1Offset | 输入 | 预留参数 | 当前版本不支持，需要传入nullptr或空tensor"),
    Param("x2Offset", "input", (DT.FLOAT,), (F.ND,), (1,), "-", "MX: null", optional=True,
          doc_row="x2Offset | 输入 | FLOAT32 | ND | 1 | -"),
    Param("yOffset", "input", (DT.FLOAT,), (F.ND,), (1,), "-", "must be null or empty", optional=True,
          doc_row="yOffset | 输入 | FLOAT32 | ND | 1 | -"),
    Param("bias", "input", (DT.BF16, DT.FLOAT16), (F.ND,), (2,), "-",
          "MX A8W4: (1, n), dtype equal to out's", optional=True,
          doc_row="bias | 输入 | INT32、BFLOAT16、FLOAT16、FLOAT32 | ND | 1、3 | -"),
    Param("transposeX1", "attr", (DT.BOOL,), (), (), "-", "MX A8W4: false", c_kind="bool"),
    Param("transposeX2", "attr", (DT.BOOL,), (), (), "-", "MX A8W4: true", c_kind="bool"),
    Param("groupSize", "attr", (DT.INT64,), (), (), "-", "[0, 0, 32] or [1, 1, 32]", c_kind="int64"),
    Param("out", "output", OUT_DTYPES, (F.ND,), (2,), "-", "(m, n)",
          doc_row="out | 输出 | FLOAT16、INT8、BFLOAT16、INT32、FLOAT32 | ND | 2-6 | -"),
    Param("workspaceSize", "output", (DT.UINT64,), (), (), "-", "returns the workspace size", c_kind="workspace_size"),
    Param("executor", "output", (), (), (), "-", "returns the op executor", c_kind="executor"),
)

SUPPORTED = {"cann": frozenset({"ascend950"}), "doc": frozenset({"ascend950"})}


# ---- the geometry of a call, after the operator's rewrites ----

def _desc(case: Case, name: str):
    return case.desc(name)


def _given(case: Case, name: str) -> bool:
    return case.tensor(name) is not None


def _non_empty(case: Case, name: str) -> bool:
    return _given(case, name) and not _desc(case, name).is_empty()


def x2_flipped(case: Case) -> bool:
    """Step 12: x2 strides that transpose its last two dims swap the view and flip transposeX2."""
    return _desc(case, "x2").is_last_two_transposed()


def transpose_x2(case: Case) -> bool:
    return bool(case.attrs.get("transposeX2", False)) ^ x2_flipped(case)


def x1_flipped(case: Case) -> bool:
    return _desc(case, "x1").is_last_two_transposed()


def transpose_x1(case: Case) -> bool:
    return bool(case.attrs.get("transposeX1", False)) ^ x1_flipped(case)


def _swapped(shape: tuple[int, ...], flip: bool) -> tuple[int, ...]:
    return shape[:-2] + (shape[-1], shape[-2]) if flip and len(shape) >= 2 else shape


def x2_view(case: Case) -> tuple[int, ...]:
    return _swapped(_desc(case, "x2").shape, x2_flipped(case))


def x1_view(case: Case) -> tuple[int, ...]:
    return _swapped(_desc(case, "x1").shape, x1_flipped(case))


def k_n(case: Case) -> tuple[int, int]:
    """(K, N) of x2's view as the operator reads it."""
    v = x2_view(case)
    return (v[-1], v[-2]) if transpose_x2(case) else (v[-2], v[-1])


def m_k1(case: Case) -> tuple[int, int]:
    """(M, K) of x1's view as the operator reads it."""
    v = x1_view(case)
    return (v[-1], v[-2]) if transpose_x1(case) else (v[-2], v[-1])


def x2_nz_storage_shape(case: Case) -> tuple[int, ...]:
    """Step 13: the NZ storage the operator expects (K0 = 32 for FP4)."""
    k, n = k_n(case)
    batch = x2_view(case)[:-2]
    if transpose_x2(case):
        return batch + (ceil_div(k, C0), ceil_div(n, N0), N0, C0)
    return batch + (ceil_div(n, C0), ceil_div(k, N0), N0, C0)


def is_transposed_scale_view(desc) -> bool:
    """WQP's scale view {a, b, 2} with strides {2, 2a, 1}: the first two dims swapped."""
    return (desc.ndim == 3 and desc.shape[-1] == 2 and desc.strides[-1] == 1
            and desc.strides[-3] == 2 and desc.strides[-2] == 2 * desc.shape[-3])


def x2_scale_view(case: Case) -> tuple[int, ...]:
    """Step 17: a transposed x2Scale view is read as {N, ceil(K/64), 2} without a copy."""
    d = _desc(case, "x2Scale")
    if is_transposed_scale_view(d):
        return (d.shape[1], d.shape[0], 2)
    return d.shape


def group_sizes(case: Case) -> tuple[int, int, int]:
    """(gsM, gsN, gsK): bits 32-47, 16-31 and 0-15 of groupSize."""
    g = int(case.attrs.get("groupSize", 0))
    return (g >> 32) & 0xFFFF, (g >> 16) & 0xFFFF, g & 0xFFFF




def is_mx(case: Case) -> bool:
    return (_given(case, "x1Scale") and _desc(case, "x1Scale").dtype == SCALE_DTYPE
            and _desc(case, "x2Scale").dtype == SCALE_DTYPE)


def is_tcg(case: Case) -> bool:
    """T-CG: FP8 x FP4 with a null x1Scale and a BF16/FP16 x2Scale (another path)."""
    return not _given(case, "x1Scale") and _desc(case, "x2Scale").dtype in (DT.BF16, DT.FLOAT16)


def in_domain(case: Case, product: str) -> bool:
    """Whether the call is inside this spec's domain (the inputs' dtypes and formats, the product)."""
    return (product == "ascend950" and _given(case, "x1") and _given(case, "x2")
            and _desc(case, "x1").dtype == X1_DTYPE and _desc(case, "x2").dtype == X2_DTYPE
            and _desc(case, "x2").format in NZ_FORMATS and _given(case, "x2Scale") and is_mx(case))


def _rank(case: Case, name: str) -> int:
    return _desc(case, name).ndim


def _bias_dtype_differs(case: Case) -> bool:
    return _given(case, "bias") and _desc(case, "bias").dtype != _desc(case, "out").dtype


def _k_values(case: Case) -> tuple[int, int]:
    return m_k1(case)[1], k_n(case)[0]


# ---- rules ----

_rule = rule_maker(OP)

_NULLPTR = STATUS(Status.ERR_PARAM_NULLPTR)
_INVALID = STATUS(Status.ERR_PARAM_INVALID)
_BOTH = {"cann": _INVALID, "doc": _INVALID}
_CANN_ONLY = {"cann": _INVALID, "doc": NOT_JUDGED}
_OUTSIDE = {"cann": NOT_COVERED, "doc": NOT_COVERED}
_API_SRC = "src: aclnn_quant_matmul_v4.cpp"
_COMMON = "src: quant_matmul_v4_common.h"
_ERRS = "doc: 返回值 error table"
_MXROW = "doc: 约束说明, 伪量化场景 MX量化 row"


def _check(id_, category, step_no, text, source, violated, step, expect=None, note=""):
    """A check of the vendor's ``step``; ``step_no`` is its number in the notes' list."""
    step_note = f"step {step_no} of the notes' check order" if step_no else ""
    return _rule(id_, "check", category, text, source, _BOTH if expect is None else expect,
                 violated=violated, step=step, note="; ".join(x for x in (step_note, note) if x))


def _in_a8w4_float(case: Case) -> bool:
    return _desc(case, "x1").dtype == X1_DTYPE and _desc(case, "x2").dtype == X2_DTYPE


# The vendor's validation phases, in the order they run (notes section 2).
CHECK_STEPS = ("out-pointers", "mandatory tensors", "offsets", "path", "weight nz", "executor",
               "attributes", "quant type", "transposes", "ranks", "product", "dtypes", "formats",
               "shapes")

RULES: tuple[Rule, ...] = (
    # ---- before the path choice: every call ----
    _check("QMMNZ-NULL-001", "nullptr", "1", "workspaceSize is a null pointer -> 161001 (CHECK_NOT_NULL).",
           _API_SRC + " (op_error_check.h macro)", lambda c: "workspaceSize" in c.null_outputs,
           "out-pointers", expect={"cann": _NULLPTR, "doc": ANY_ERROR},
           note="the document's error table does not name workspaceSize"),
    _check("QMMNZ-NULL-002", "nullptr", "1", "executor is a null pointer -> 161001.",
           _API_SRC, lambda c: "executor" in c.null_outputs, "out-pointers",
           expect={"cann": _NULLPTR, "doc": ANY_ERROR}),
    *(_check(f"QMMNZ-NULL-{i + 3:03d}", "nullptr", str(i + 2),
             f"ACLNN_ERR_PARAM_NULLPTR 161001: 传入的x1、x2、x2Scale或out是空指针 ({name}).",
             _ERRS + "; " + _API_SRC + " (checked in this order)",
             (lambda n: lambda c: c.tensor(n) is None)(name), "mandatory tensors",
             expect={"cann": _NULLPTR, "doc": _NULLPTR})
      for i, name in enumerate(MANDATORY)),
    _check("QMMNZ-OFFSET-001", "attr", "6",
           "x1Offset: 当前版本不支持，需要传入nullptr或空tensor -> 161002.",
           _ERRS + " (输入的yScale、x1Offset和yOffset不是nullptr并且不是空tensor); " + _API_SRC,
           lambda c: _non_empty(c, "x1Offset"), "offsets"),
    _check("QMMNZ-OFFSET-002", "attr", "7",
           "yOffset: must be nullptr or an empty tensor (except the INT8 x INT4 MSD path) -> 161002.",
           _ERRS + "; " + _API_SRC,
           lambda c: _non_empty(c, "yOffset") and _desc(c, "x1").dtype != DT.INT8, "offsets",
           note="calls with an INT8 x1 are left to the domain rules (the MSD path accepts yOffset)"),
    # ---- the path choice ----
    _check("QMMNZ-DOMAIN-001", "domain", "",
           "Outside this spec: a product other than Ascend 950 (the MX A8W4 path is DAV_3510 only; "
           "the other products run other quantization paths, not encoded here).",
           "doc: 产品支持情况, 伪量化场景 (950 only); " + NOTES + " section 2 (scope)",
           lambda c: True, "path",
           expect={"cann": ByProduct({"ascend950": UNCHECKED}, NOT_COVERED),
                   "doc": ByProduct({"ascend950": UNCHECKED}, NOT_COVERED)}),
    _check("QMMNZ-PATH-001", "dtype", "",
           "x1 FLOAT8_E5M2 with an FP4 x2: isA8W4Float needs FLOAT8_E4M3FN, and no row of the "
           "document pairs E5M2 activations with FP4 weights: an error (its status comes from "
           "another path's checker).",
           _COMMON + " isA8W4Float; doc: 约束说明 (no E5M2 x FP4 row; E5M2 is not an x1 dtype)",
           lambda c: _desc(c, "x1").dtype == DT.FLOAT8_E5M2 and _desc(c, "x2").dtype == X2_DTYPE,
           "path", expect={"cann": ANY_ERROR, "doc": ANY_ERROR}),
    _check("QMMNZ-DOMAIN-002", "domain", "",
           "Outside this spec: x1 not FLOAT8_E4M3FN or x2 not FLOAT4_E2M1 (not A8W4Float: INT8, "
           "HIFLOAT8, FP8 x FP8, FP4 x FP4, the FLOAT-packed FP4 x2 and the other modes).",
           _COMMON + " isA8W4Float; " + NOTES + " section 2 (scope)",
           lambda c: not _in_a8w4_float(c), "path", expect=_OUTSIDE),
    _check("QMMNZ-DOMAIN-003", "domain", "",
           "Outside this spec: T-CG (x1Scale null, x2Scale BFLOAT16/FLOAT16), the other FP8 x FP4 "
           "path.", "doc: 伪量化场景 T-CG量化 rows; " + _API_SRC + " quant type",
           lambda c: is_tcg(c), "path", expect=_OUTSIDE,
           note="decided before the shared A8W4Float checks: their T-CG forms are not encoded"),
    # ---- A8W4Float on Ascend 950: the weight in NZ (steps 8..13) ----
    _check("QMMNZ-FORMAT-001", "format", "8",
           "x2 storage format must be an NZ format (FRACTAL_NZ 29, FRACTAL_NZ_C0_4 53, "
           "FRACTAL_NZ_C0_32 51) -> 161002.",
           "doc: x2 数据格式 NZ; " + _API_SRC + " CheckWeightNzParamsDAV3510 (IsFormatNZ)",
           lambda c: _desc(c, "x2").format not in NZ_FORMATS, "weight nz"),
    _check("QMMNZ-DTYPE-001", "dtype", "9", "out dtype must be BFLOAT16 or FLOAT16 -> 161002.",
           _MXROW + "; " + _API_SRC + " CheckWeightNzParamsDAV3510",
           lambda c: _desc(c, "out").dtype not in OUT_DTYPES, "weight nz"),
    _check("QMMNZ-RANK-001", "rank", "10", "x2 view rank must be at least 2 -> 161002.",
           _API_SRC + " GetWeightNzShape", lambda c: _rank(c, "x2") < 2, "weight nz",
           expect=_CANN_ONLY, note="the document gives x2's rank as that of its NZ storage (4-8)"),
    _check("QMMNZ-SHAPE-001", "shape", "13",
           "x2 storage shape: its element count must equal that of [..., ceil(K/32), ceil(N/16), 16, "
           "32] (transposeX2 true, after the stride flip) / [..., ceil(N/32), ceil(K/16), 16, 32] "
           "(false); only the product of the dimensions is compared -> 161002.",
           "doc: x2 (k1, n1, n0, k0), ceil(k/k0) = k1, ceil(n/n0) = n1; " + _API_SRC
           + " CheckWeightNzStorageShape (product only)",
           lambda c: math.prod(_desc(c, "x2").storage_shape) != math.prod(x2_nz_storage_shape(c)),
           "weight nz"),
    _check("QMMNZ-SHAPE-002", "shape", "",
           "x2 storage shape must be (k1, n1, n0, k0) with k1 = ceil(k/32), n1 = ceil(n/16), "
           "n0 = 16, k0 = 32 (transposeX2 true).",
           "doc: 参数说明 x2", lambda c: tuple(_desc(c, "x2").storage_shape) != x2_nz_storage_shape(c),
           "weight nz", expect={"doc": _INVALID},
           note="cann compares the product only (QMMNZ-VAL-009)"),
    # ---- executor, groupSize, transposes, quant type (steps 14..22) ----
    _check("QMMNZ-INNER-001", "internal", "14",
           "The executor cannot be created -> 561101 (not reachable from the arguments).",
           _API_SRC + " CREATE_EXECUTOR", lambda c: False, "executor",
           expect={"cann": STATUS(Status.ERR_INNER_CREATE_EXECUTOR)}),
    _check("QMMNZ-ATTR-001", "attr", "15",
           "groupSize: (groupSizeM, groupSizeN) (bits 32-47, 16-31) must be (0, 0) or (1, 1) -> 161002.",
           "doc: 伪量化场景 [0, 0, 32] / [1, 1, 32]; " + _API_SRC + " groupSize check",
           lambda c: group_sizes(c)[:2] not in ((0, 0), (1, 1)), "attributes"),
    _check("QMMNZ-QTYPE-001", "dtype", "18",
           "x1Scale and x2Scale must both be FLOAT8_E8M0 (MX) -> 161002 (T-CG is another path).",
           "doc: 伪量化场景 MX量化 row; " + _API_SRC + " quant type (IsMicroScaling)",
           lambda c: not is_mx(c), "quant type"),
    _check("QMMNZ-ATTR-002", "attr", "19",
           "transposeX1 must be false (after the stride flip of step 16: a transposed x1 view "
           "flips it to true) -> 161002.",
           "doc: 伪量化场景 x1 (m, k); " + _API_SRC + " transposeX1 check",
           lambda c: transpose_x1(c), "transposes"),
    _check("QMMNZ-FORMAT-011", "format", "20",
           "x2 primary format must be NZ after SetTensorToNZFormat (not reachable: step 8 decides).",
           _API_SRC + " CheckA8W4Format", lambda c: False, "transposes"),
    _check("QMMNZ-ATTR-003", "attr", "21",
           "MX: transposeX2 must be true after the stride flip of step 12 (x2 (n, k), or the "
           "(k, n) view with strides (1, k) that WeightQuantPreprocess returns) -> 161002.",
           "doc: 伪量化场景 x2 (n, k); " + _API_SRC + " GetTransposeAttrValue, MX transposeX2 check",
           lambda c: not transpose_x2(c), "transposes"),
    _check("QMMNZ-ATTR-004", "attr", "22", "groupSizeK (bits 0-15) must be 32 -> 161002.",
           "doc: 伪量化场景 [.., .., 32]; " + _API_SRC, lambda c: group_sizes(c)[2] != MX_BLOCK,
           "transposes"),
    # ---- ranks (steps 23..29) ----
    *(_check(f"QMMNZ-RANK-{i + 2:03d}", "rank", str(23 + i),
             f"{name}: rank must be {want} -> 161002.", _MXROW + "; " + _API_SRC + " rank checks",
             (lambda n, w: lambda c: _given(c, n) and _rank(c, n) != w)(name, want), "ranks")
      for i, (name, want) in enumerate((("x1", 2), ("x2", 2), ("bias", 2), ("out", 2),
                                        ("x1Scale", 3), ("x2Scale", 3), ("yScale", 2)))),
    _check("QMMNZ-PRODUCT-001", "product", "30",
           "SoC not in {DAV_2201, DAV_3510, DAV_2002} -> 361001 (not reachable inside the domain).",
           _API_SRC, lambda c: False, "product",
           expect={"cann": STATUS(Status.ERR_RUNTIME_ERROR)}),
    _check("QMMNZ-DTYPE-002", "dtype", "31", "MX: bias dtype must equal out dtype -> 161002.",
           "doc: MX量化模式下，bias数据类型与out数据类型需要一致; " + _API_SRC,
           _bias_dtype_differs, "dtypes"),
    _check("QMMNZ-NULL-007", "nullptr", "32", "MX: yScale must be null -> 161002.",
           _MXROW + " (yScale null); " + _API_SRC, lambda c: _given(c, "yScale"), "dtypes"),
    _check("QMMNZ-OFFSET-003", "attr", "",
           "x2Offset: MX x2Offset null.", "doc: MX量化场景约束 (x2Offset null)",
           lambda c: _given(c, "x2Offset"), "dtypes", expect={"doc": ANY_ERROR},
           note="documented, not enforced: the code passes nullptr to the kernel (QMMNZ-VAL-008)"),
    # ---- formats (steps 33..37): after SetTensorToNDFormat only FRACTAL_NZ is left to reject ----
    *(_check(f"QMMNZ-FORMAT-{i + 2:03d}", "format", "33-37",
             f"{name}: storage format FRACTAL_NZ -> 161002; any other format is rewritten to ND "
             "first and passes.",
             "doc: 数据格式 ND; " + _API_SRC + " SetTensorToNDFormat, CheckFormat",
             (lambda n: lambda c: _given(c, n) and _desc(c, n).format == F.FRACTAL_NZ)(name),
             "formats")
      for i, name in enumerate(("x1", "x2Scale", "x1Scale", "bias"))),
    _check("QMMNZ-FORMAT-006", "format", "33-37",
           "out: storage format must be ND (checked as given) -> 161002.",
           "doc: out 数据格式 ND; " + _API_SRC + " CheckFormat",
           lambda c: _desc(c, "out").format != F.ND, "formats"),
    *(_check(f"QMMNZ-FORMAT-{i + 7:03d}", "format", "",
             f"{name}: 数据格式 ND.", "doc: 参数说明",
             (lambda n: lambda c: _given(c, n) and _desc(c, n).format != F.ND)(name), "formats",
             expect={"doc": _INVALID},
             note="cann rewrites every format but FRACTAL_NZ to ND (QMMNZ-VAL-010)")
      for i, name in enumerate(("x1", "x2Scale", "x1Scale", "bias"))),
    # ---- shapes (steps 38..47) ----
    _check("QMMNZ-SHAPE-003", "shape", "38", "M must be positive -> 161002.",
           _ERRS + " (空tensor); " + _API_SRC, lambda c: m_k1(c)[0] <= 0, "shapes"),
    _check("QMMNZ-SHAPE-004", "shape", "39", "K must be positive -> 161002.",
           _ERRS + "; " + _API_SRC, lambda c: _k_values(c)[0] <= 0, "shapes"),
    _check("QMMNZ-SHAPE-005", "shape", "40", "N must be positive -> 161002.",
           _ERRS + "; " + _API_SRC, lambda c: k_n(c)[1] <= 0, "shapes"),
    _check("QMMNZ-SHAPE-006", "shape", "41", "K of x1 must equal K of x2 -> 161002.",
           "doc: x1 (m, k), x2 (n, k); " + _API_SRC, lambda c: _k_values(c)[0] != _k_values(c)[1],
           "shapes"),
    _check("QMMNZ-SHAPE-007", "shape", "42", "MX量化模式下, k要求8对齐 -> 161002.",
           "doc: 约束说明; " + _API_SRC, lambda c: k_n(c)[0] % K_ALIGN != 0, "shapes"),
    _check("QMMNZ-SHAPE-008", "shape", "43", "MX量化模式下, n要求8对齐 -> 161002.",
           "doc: 约束说明; " + _API_SRC, lambda c: k_n(c)[1] % N_ALIGN != 0, "shapes"),
    _check("QMMNZ-SHAPE-009", "shape", "44",
           "x1Scale shape must be (m, ceil(k/64), 2) -> 161002.",
           _MXROW + "; " + _API_SRC,
           lambda c: tuple(_desc(c, "x1Scale").shape) != (m_k1(c)[0], ceil_div(k_n(c)[0], SCALE_K), 2),
           "shapes"),
    _check("QMMNZ-SHAPE-010", "shape", "45",
           "x2Scale shape must be (n, ceil(k/64), 2) (a transposed (ceil(k/64), n, 2) view is read "
           "as such) -> 161002.", _MXROW + "; " + _API_SRC + " MxScaleContiguousProcess",
           lambda c: tuple(x2_scale_view(c)) != (k_n(c)[1], ceil_div(k_n(c)[0], SCALE_K), 2),
           "shapes"),
    _check("QMMNZ-SHAPE-011", "shape", "46", "bias shape must be (1, n) -> 161002.",
           _MXROW + "; " + _API_SRC,
           lambda c: _given(c, "bias") and tuple(_desc(c, "bias").shape) != (1, k_n(c)[1]), "shapes"),
    _check("QMMNZ-SHAPE-012", "shape", "47", "out shape must be (m, n) -> 161002.",
           "doc: out (m, n); " + _API_SRC,
           lambda c: tuple(_desc(c, "out").shape) != (m_k1(c)[0], k_n(c)[1]), "shapes"),
    _check("QMMNZ-INNER-002", "internal", "48",
           "The L0 op returns null (tiling or kernel lookup failed, or InferShape): GetWorkspaceSize "
           "still returns 0 (the stale ret); the launch reruns the tiling and returns 561103, or "
           "561000 without a kernel binary (not reachable from the arguments of a valid call).",
           _API_SRC + " L1857-1881; opbase op_executor.cpp, op_kernel.h, kernel_mgr.h",
           lambda c: False, "shapes", expect={"cann": ANY_ERROR}),
    # ---- preconditions: the call succeeds, its values are outside the contract ----
    _rule("QMMNZ-PRE-001", "precondition", "value",
          "A NaN (0xFF) E8M0 scale anywhere in x1Scale or x2Scale (the unused tail slot included): "
          "the vendor never tests it (customize_inputs replaces NaN scales); not judged.",
          NOTES + " section 3 (c)", {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: _any_nan_scale(c)),
    _rule("QMMNZ-PRE-002", "precondition", "value",
          "A result beyond the output dtype's largest finite value: the golden gives inf, the "
          "fixpipe's saturation is not known; not judged.", NOTES + " section 3 (d)",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED}, violated=lambda c: _may_overflow(c)),
    _rule("QMMNZ-PRE-003", "precondition", "stride",
          "Views with an offset, or x1/x1Scale/bias views that are neither contiguous nor a "
          "last-two transposition, are not validated by the path; not judged.",
          _API_SRC + " (offsets and strides not checked on the MX path)",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED}, violated=lambda c: _odd_views(c)),
    _rule("QMMNZ-PRE-004", "precondition", "value",
          "doc: an fp16 bias with 0 < |b| < 2^-8 (the kernel's fp16 prescale rounds it, "
          "QMMNZ-VAL-005): the document's exact formula is not judged there.", NOTES + " section 3 (a)",
          {"doc": NOT_JUDGED}, violated=lambda c: _tiny_fp16_bias(c)),
    # ---- value rules ----
    _rule("QMMNZ-VAL-001", "value", "value",
          "out[m, n] = cast(bias[n] + sum_j x1Scale[m, j] * x2Scale[j, n] * sum_{k in block j} "
          "x1[m, k] * x2[k, n]) with blocks of 32 along K, one rounding (RNE) to bf16/fp16; "
          "inside the exact regime (every fp32 partial sum exact in any order) bit-exact.",
          "doc: 功能说明 MX公式; " + NOTES + " section 3 (kernel, exact regime)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("QMMNZ-VAL-002", "value", "value",
          "Outside the exact regime: within the bound of fp32 accumulation of K + 1 exact terms in "
          "any order (fused or not) plus the final rounding (standard model-bound); the vendor's "
          "own tolerance is isclose(rtol 1e-3, atol 1e-3) with <= 0.1 % mismatches.",
          NOTES + " section 3 (vendor precision standard); spec/precision.py model-bound",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("QMMNZ-VAL-003", "value", "value",
          "x2 is read as FRACTAL_NZ_C0_32: element (k, n) at [k // 32, n // 16, n % 16, k % 32] "
          "of the storage, two FP4 a byte, the lower index in the low nibble.",
          "doc: x2 (k1, n1, n0, k0); WeightQuantPreprocess layout; " + NOTES + " section 1",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("QMMNZ-VAL-004", "value", "value",
          "MX scales: block j of K takes scale[.., j // 2, j % 2]; when ceil(K/32) is odd the last "
          "slot of each pair row is not read.",
          "doc: x1Scale/x2Scale (.., ceil(k/64), 2); " + NOTES + " section 3",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("QMMNZ-VAL-005", "value", "value",
          "fp16 bias enters the fp32 accumulator as fp16(bias / 64) * 64 (the kernel scales it by "
          "0.015625 in fp16): a bias below 2^-8 in magnitude loses bits; bf16 bias is exact.",
          NOTES + " section 3 (a); kernel prologue bias * 0.015625 in the bias dtype",
          {"cann": JUDGED}),
    _rule("QMMNZ-VAL-006", "value", "value",
          "The stride-driven transpose: x2 (k, n) with strides (1, k) and transposeX2 false computes "
          "what x2 (n, k) contiguous with transposeX2 true does.",
          _API_SRC + " GetTransposeAttrValue; doc example (WeightQuantPreprocess's outWeight as x2)",
          {"cann": JUDGED}),
    _rule("QMMNZ-VAL-007", "value", "value",
          "x2Scale as WeightQuantPreprocess returns it (view (ceil(k/64), n, 2), strides "
          "(2, 2*ceil(k/64), 1)) is read as the (n, ceil(k/64), 2) storage it describes.",
          _API_SRC + " MxScaleContiguousProcess", {"cann": JUDGED}),
    _rule("QMMNZ-VAL-008", "value", "value",
          "A non-null x2Offset is ignored on the MX path (passed to the kernel as nullptr).",
          _API_SRC + " (x2Offset not forwarded)", {"cann": JUDGED},
          violated=lambda c: _given(c, "x2Offset")),
    _rule("QMMNZ-VAL-009", "value", "value",
          "An x2 storage shape of the right element count but other dimensions is accepted and "
          "read as the NZ layout of (k, n).", _API_SRC + " CheckWeightNzStorageShape",
          {"cann": JUDGED},
          violated=lambda c: tuple(_desc(c, "x2").storage_shape) != x2_nz_storage_shape(c)),
    _rule("QMMNZ-VAL-010", "value", "value",
          "x1, x1Scale, x2Scale and bias in a storage format other than ND and FRACTAL_NZ are "
          "rewritten to ND and computed as ND.", _API_SRC + " SetTensorToNDFormat",
          {"cann": JUDGED},
          violated=lambda c: any(_given(c, n) and _desc(c, n).format not in (F.ND, F.FRACTAL_NZ)
                                 for n in ("x1", "x1Scale", "x2Scale", "bias"))),
    _rule("QMMNZ-VAL-011", "value", "value",
          "Nothing but out is written: every input storage is unchanged, and so is out's storage "
          "outside its view.", "design decision", {"cann": JUDGED, "doc": JUDGED}),
)


def _scale_codes(case: Case, name: str) -> np.ndarray:
    arg = case.tensor(name)
    return np.ascontiguousarray(arg.values()).view(np.uint8)


def _any_nan_scale(case: Case) -> bool:
    return any(_given(case, n) and _desc(case, n).dtype == SCALE_DTYPE
               and bool((_scale_codes(case, n) == 0xFF).any()) for n in ("x1Scale", "x2Scale"))


def magnitude_bound(case: Case) -> float:
    """An upper bound of every |out| element: max|bias| + max over m of sum_k |x1[m, k]| *
    x1Scale(m, k) times 6 (the largest |FP4|) times the largest x2Scale (no x2 unpacking needed)."""
    x = np.abs(case.tensor("x1").values().astype(np.float64))
    if transpose_x1(case) or x.ndim != 2:
        return float("inf")
    m, k = x.shape
    xs = _scale_codes(case, "x1Scale").astype(np.float64).reshape(m, -1)
    block_scale = np.exp2(xs - 127.0)[:, : ceil_div(k, MX_BLOCK)]
    per_k = np.repeat(block_scale, MX_BLOCK, axis=1)[:, :k]
    with np.errstate(over="ignore", invalid="ignore"):
        rows = (x * per_k).sum(axis=1).max(initial=0.0)
        w_codes = _scale_codes(case, "x2Scale")
        if is_transposed_scale_view(_desc(case, "x2Scale")):
            w_codes = w_codes.transpose(1, 0, 2)
        used = w_codes.reshape(w_codes.shape[0], -1)[:, : ceil_div(k, MX_BLOCK)]
        weight = 6.0 * float(np.exp2(used.astype(np.float64).max(initial=0.0) - 127.0))
        bias = (float(np.abs(case.tensor("bias").values().astype(np.float64)).max(initial=0.0))
                if _given(case, "bias") else 0.0)
        return float(rows * weight + bias)


_E2M1_MAGNITUDES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0] * 2)


def magnitude_max(case: Case) -> float:
    """max over (m, n) of |bias[n]| + sum_k |x1[m, k]| x1Scale * |x2[k, n]| x2Scale: x2's codes read
    from its FRACTAL_NZ_C0_32 storage ([k // 32, n // 16, n % 16, k % 32])."""
    k, n = k_n(case)
    x = np.abs(case.tensor("x1").values().astype(np.float64))
    m = x.shape[0]
    blocks = ceil_div(k, MX_BLOCK)
    xs = np.exp2(_scale_codes(case, "x1Scale").astype(np.float64).reshape(m, -1)[:, :blocks] - 127.0)
    w_codes = _scale_codes(case, "x2Scale")
    if is_transposed_scale_view(_desc(case, "x2Scale")):
        w_codes = w_codes.transpose(1, 0, 2)
    ws = np.exp2(w_codes.reshape(n, -1)[:, :blocks].astype(np.float64) - 127.0)
    k1, n1 = ceil_div(k, C0), ceil_div(n, N0)
    nz = np.ascontiguousarray(case.tensor("x2").storage).view(np.uint8)[: k1 * n1 * N0 * C0]
    codes = nz.reshape(k1, n1, N0, C0).transpose(0, 3, 1, 2).reshape(k1 * C0, n1 * N0)[:k, :n]
    with np.errstate(over="ignore", invalid="ignore"):
        xa = x * np.repeat(xs, MX_BLOCK, axis=1)[:, :k]
        wa = _E2M1_MAGNITUDES[codes & 0x0F] * np.repeat(ws, MX_BLOCK, axis=1)[:, :k].T
        total = xa @ wa
        if _given(case, "bias"):
            total = total + np.abs(case.tensor("bias").values().astype(np.float64)).reshape(1, -1)
    return float(total.max(initial=0.0))


def _may_overflow(case: Case) -> bool:
    limit = _max_finite(_desc(case, "out").dtype)
    return magnitude_bound(case) > limit and magnitude_max(case) > limit


def _tiny_fp16_bias(case: Case) -> bool:
    if not _given(case, "bias") or _desc(case, "bias").dtype != DT.FLOAT16:
        return False
    b = np.abs(case.tensor("bias").values().astype(np.float64))
    return bool(((b > 0) & (b < 2.0 ** -8)).any())


def _max_finite(dtype: DT) -> float:
    return 65504.0 if dtype == DT.FLOAT16 else 3.3895313892515355e38


def _odd_views(case: Case) -> bool:
    for name in ("x1", "x2", "x1Scale", "x2Scale", "bias", "out"):
        d = _desc(case, name)
        if d is None:
            continue
        if d.offset != 0:
            return True
        if name in ("x1", "x1Scale", "bias", "out") and not (
                d.is_contiguous() or (name == "x1" and d.is_last_two_transposed())):
            return True
    return False


ERRATA = (
    Erratum("QMMNZ-ERRATUM-1", OP, "x2Offset: MX x2Offset null",
            "not enforced: a non-null x2Offset is accepted and ignored (passed to the kernel as nullptr)",
            _API_SRC + "; " + NOTES + " section 2"),
    Erratum("QMMNZ-ERRATUM-2", OP, "x2 (n, k) with transposeX2 true; x2 is a const aclTensor *",
            "an x2 whose strides transpose its last two dims (WeightQuantPreprocess's (k, n) view, "
            "strides (1, k)) is accepted with transposeX2 false: the operator swaps the view, resets "
            "the strides to contiguous and flips transposeX2 on the caller's descriptor, so a second "
            "GetWorkspaceSize with the same x2 and transposeX2 false returns 161002",
            _API_SRC + " GetTransposeAttrValue (aclTensor::SetViewShape); " + NOTES + " section 1"),
    Erratum("QMMNZ-ERRATUM-3", OP, "x2 shape (k1, n1, n0, k0), ceil(k/k0) = k1, ceil(n/n0) = n1",
            "only the element count of x2's storage shape is compared with the expected NZ shape",
            _API_SRC + " CheckWeightNzStorageShape"),
    Erratum("QMMNZ-ERRATUM-4", OP, "x1, x1Scale, x2Scale, bias: 数据格式 ND",
            "SetTensorToNDFormat rewrites every format but FRACTAL_NZ to ND before the check (through "
            "a const_cast: the caller's descriptors change); only out is checked as given",
            _API_SRC + " SetTensorToNDFormat"),
    Erratum("QMMNZ-ERRATUM-5", OP, "out = sum_j (x1 . x2)_j * x1Scale * x2Scale + bias (exact)",
            "an fp16 bias is scaled by 1/64 in fp16 before accumulation: |bias| < 2^-8 loses bits "
            "(the vendor's golden adds it exactly)", NOTES + " section 3 (a)"),
    Erratum("QMMNZ-ERRATUM-6", OP, "x2 维度 4-8 (its NZ storage)",
            "the code reads x2's view: rank 2, (n, k) or (k, n) with strides (1, k); the storage "
            "shape is the NZ one", _API_SRC + " GetWeightNzShape; doc example"),
    Erratum("QMMNZ-ERRATUM-7", OP, "workspaceSize/executor null: not in the error table",
            "161001", _API_SRC + " CHECK_NOT_NULL"),
)

SPEC = OpSpec(
    key=OP, api=API, rule_prefix="QMMNZ", doc=DOC, params=PARAMS, rules=RULES, supported=SUPPORTED,
    outputs=OUTPUTS,
    standards={"cann": {"out": "model-bound@3"}, "doc": {"out": "model-bound@1"}},
    errata=ERRATA,
    check_steps=CHECK_STEPS,
    domain=DOMAIN,
    domain_products=("ascend950",),
)


# What a correct implementation may and may not do to the arithmetic (the model-derived
# standards accept exactly the results of implementations inside it).
ARITHMETIC = ArithmeticModel(
    OP, "2",
    order="out[m, n] = cast(bias[n] + sum_k x[m, k]*x1Scale[m, k//32]*w[k, n]*"
          "x2Scale[n, k//32]); the sum in float32 in any order (the kernel: block by block "
          "of 32), an fp16 bias prescaled by 1/64 in fp16",
    correctly_rounded=("add", "multiply", "the one cast to bf16/fp16"),
    faithful=(),
    reciprocal_division=False,
    fused_multiply_add=True,
    final_cast={"ascend950": {"float16": ROUND_NEAREST_EVEN, "bfloat16": ROUND_NEAREST_EVEN}},
    may=("sum the K products in any order and grouping, fused or not, block-wise or not "
         "(inside the exact regime every order gives the same bits)",),
    may_not=("read another scale block or the unused tail slot", "add the bias after the cast",
             "round twice", "swap the FP4 nibbles", "prescale an fp16 bias other than in fp16",
             "a systematic bias: float32 round-to-nearest sums lean no way"),
    source="notes quant_matmul_weight_nz_mx.md section 3; oracle/quant_matmul_weight_nz.py")


OPERATOR = Operator(
    spec=SPEC,
    arithmetic_model=ARITHMETIC,
    oracle="aclnn_conformance.oracle.quant_matmul_weight_nz:from_case",
    base_call="aclnn_conformance.suites.calls.quant_matmul_weight_nz:base_call",
    table_cases="aclnn_conformance.suites.calls.quant_matmul_weight_nz:table_cases",
    fault_bases="aclnn_conformance.suites.calls.quant_matmul_weight_nz:FAULT_BASES",
    faults="aclnn_conformance.suites.faults.quant_matmul_weight_nz:FAULTS",
    strategies="aclnn_conformance.suites.strategies.quant_matmul_weight_nz:STRATEGIES",
    emulator="aclnn_conformance.backends.emulator.quant_matmul_weight_nz:get_workspace_size",
    torch="aclnn_conformance.backends.torch_backend.quant_matmul_weight_nz:run",
    mutants="aclnn_conformance.backends.mutants.quant_matmul_weight_nz:MUTANT_SET",
    relations="aclnn_conformance.suites.test_quant_matmul_weight_nz:RELATION_RULES",
    sensitivity="aclnn_conformance.suites.calls.quant_matmul_weight_nz:sensitivity_targets",
    determinism_rules=(),
    modules=(
        "aclnn_conformance.spec.quant_matmul_weight_nz",
        "aclnn_conformance.oracle.quant_matmul_weight_nz",
        "aclnn_conformance.suites.calls.quant_matmul_weight_nz",
        "aclnn_conformance.suites.faults.quant_matmul_weight_nz",
        "aclnn_conformance.suites.strategies.quant_matmul_weight_nz",
        "aclnn_conformance.suites.test_quant_matmul_weight_nz",
        "aclnn_conformance.backends.emulator.quant_matmul_weight_nz",
        "aclnn_conformance.backends.torch_backend.quant_matmul_weight_nz",
        "aclnn_conformance.backends.mutants.quant_matmul_weight_nz",
        "aclnn_conformance.suites.test_mx_a8w4_pipeline",
    ),
)
