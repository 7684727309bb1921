"""The executable specification of aclnnWeightQuantPreprocess (MX A8W4 data flows).

Document: ../shared/seeds/003_6916251efde07709.txt (Chinese). Vendor behaviour behind the ``cann``
profile: the API layer and its check registry (ops-math master), the TransData FP4 ND -> NZ_C0_32
kernel and the vendor's unit test, as summarised in notes/weight_quant_preprocess.md (section 3 is
the check order this module follows).

Two data flows, chosen by the weight's view rank once the dtype combination matches:
MM_MX_A8W4 (weight view {K, N}) and GMM_MX_A8W4 (weight view {G, K, N}). The weight is FP4 E2M1
stored transposed ({[G,] N, K}, K contiguous); outWeight is its FRACTAL_NZ_C0_32 layout; weightScale
and biasOptional are copied unchanged into outWeightScale and outBiasOptional.

Read top to bottom like the document: the parameter rows (参数说明) and the supported products; the
geometry of a call and the predicates of the checks; the rules, checks in the vendor's check order
(CHECK_STEPS), then the preconditions and the value rules; the errata last.
"""
from __future__ import annotations

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.operator import Absent, Operator
from aclnn_conformance.spec.precision import ArithmeticModel
from aclnn_conformance.spec.rules import rule_maker, JUDGED, NOT_JUDGED, STATUS, UNCHECKED, ByProduct, Erratum, OpSpec, Rule
from aclnn_conformance.spec.mx_a8w4_layout import (nz_storage_shape, scale_rows, scale_storage_shape,
                                                   scale_strides, weight_storage_shape, weight_strides)

OP = "weight_quant_preprocess"
API = "aclnnWeightQuantPreprocess"
DOC = "../shared/seeds/003_6916251efde07709.txt"

TENSORS = ("weight", "weightScale", "weightOffsetOptional", "biasOptional", "outWeight",
           "outWeightScale", "outWeightOffsetOptional", "outBiasOptional")
OUTPUTS = ("outWeight", "outWeightScale", "outBiasOptional")
ATTRS = ("xDtype", "xScaleDtype", "kGroupSize")
MANDATORY = ("weight", "weightScale", "outWeight", "outWeightScale")

WEIGHT_DTYPE = DT.FLOAT4_E2M1
SCALE_DTYPE = DT.FLOAT8_E8M0
X_DTYPE = DT.FLOAT8_E4M3FN
X_SCALE_DTYPE = DT.FLOAT8_E8M0
BIAS_DTYPES = (DT.FLOAT16, DT.BF16)
K_GROUP_SIZE = 32

WEIGHT_FORMATS_CANN = (F.ND, F.NCL)
SCALE_FORMATS_CANN = (F.ND, F.NCL, F.NCHW)

PARAMS = (
    Param("weight", "input", (DT.FLOAT4_E2M1,), (F.ND,), (2, 3), "transposed only",
          "MM {K, N}, storage {N, K}, stride [1, K]; GMM {G, K, N}, storage {G, N, K}, "
          "stride [K*N, 1, K]; K % kGroupSize == 0; not empty",
          doc_row="weight | 输入 | Matmul的权重矩阵 | 不支持空 tensor | float4_e2m1 | ND | 2-3 | 仅转置场景支持"),
    Param("weightScale", "input", (DT.FLOAT8_E8M0,), (F.ND, F.NCL, F.NCHW), (3, 4),
          "transposed only",
          "MM {ceil(K/64), N, 2}, storage {N, ceil(K/64), 2}, stride [2, 2*ceil(K/64), 1]; GMM "
          "{G, ceil(K/64), N, 2}, storage {G, N, ceil(K/64), 2}, stride [2*ceil(K/64)*N, 2, "
          "2*ceil(K/64), 1]; not empty (MM constraints: ND/NCL)",
          doc_row="weightScale | 输入 | 权重的反量化 scale 参数 | 不支持空 tensor | float8_e8m0 | "
                  "ND/NCL/NCHW | 3-4 | 仅转置场景支持"),
    Param("weightOffsetOptional", "input", (), (F.ND,), (1, 2), "transposed only",
          "MM_MX_A8W4/GMM_MX_A8W4: not supported, must be nullptr", optional=True,
          doc_row="weightOffsetOptional | 可选输入 | 权重的反量化 offset 参数 | 当前 MM_MX_A8W4/"
                  "GMM_MX_A8W4 数据流不支持必须为 nullptr | - | ND | 1-2 | 仅转置场景支持"),
    Param("biasOptional", "input", BIAS_DTYPES, (F.ND,), (1, 2), "no",
          "not empty, must be contiguous (the document gives no shape)", optional=True,
          doc_row="biasOptional | 可选输入 | Matmul 的偏置矩阵 | 不支持空 tensor必须 contiguous | "
                  "float16/bfloat16 | ND | 1-2 | 不支持"),
    Param("xDtype", "attr", (DT.FLOAT8_E4M3FN,), (), (), "-",
          "data type of the matmul's activation: FLOAT8_E4M3FN",
          doc_row="xDtype | 输入 | Matmul的激活矩阵的数据类型 | - | aclDataType", c_kind="dtype"),
    Param("xScaleDtype", "attr", (DT.FLOAT8_E8M0,), (), (), "-",
          "data type of the activation's quantization scale: FLOAT8_E8M0",
          doc_row="xScaleDtype | 输入 | 激活的量化 scale 参数的数据类型 | - | aclDataType", c_kind="dtype"),
    Param("kGroupSize", "attr", (DT.INT64,), (), (), "-", "must be 32",
          doc_row="kGroupSize | 输入 | 权重在 per-group 量化时 K 维度的 group的大小 | - | int64", c_kind="int64"),
    Param("outWeight", "output",
          (DT.INT8, DT.INT4, DT.FLOAT8_E4M3FN, DT.HIFLOAT8, DT.FLOAT4_E2M1),
          (F.FRACTAL_NZ_C0_32,), (2, 3, 4, 5), "transposed only",
          "same dtype and view shape as weight; format FRACTAL_NZ_C0_32; storage "
          "{[G,] ceil(K/32), ceil(N/16), 16, 32}",
          doc_row="outWeight | 输出 | 预处理后的 weight | - | int8/int4/fp8_e4m3/hif8/fp4_e2m1 | NZ | "
                  "2-5 | 仅转置场景支持"),
    Param("outWeightScale", "output", (DT.FLOAT16, DT.BF16, DT.FLOAT8_E8M0), (F.ND, F.NCL, F.NCHW),
          (3, 4), "transposed only",
          "same dtype, view shape and storage shape as weightScale (constraints: format ND)",
          doc_row="outWeightScale | 输出 | 预处理后的 weightScale | - | float16/bfloat16/fp8_e8m0 | "
                  "ND/NCL/NCHW | 3-4 | 仅转置场景支持"),
    Param("outWeightOffsetOptional", "output", (DT.FLOAT16, DT.BF16), (F.ND,), (1, 2),
          "transposed only", "MM_MX_A8W4/GMM_MX_A8W4: not supported, must be nullptr", optional=True,
          doc_row="outWeightOffsetOptional | 输出 | 预处理后的 weightOffset | 当前 MM_MX_A8W4/"
                  "GMM_MX_A8W4 数据流不支持必须为 nullptr | float16/bfloat16 | ND | 1-2 | 仅转置场景支持"),
    Param("outBiasOptional", "output", BIAS_DTYPES, (F.ND,), (1, 2), "no",
          "same dtype, view shape and storage shape as biasOptional; ND; contiguous", optional=True,
          doc_row="outBiasOptional | 输出 | 预处理后的 bias | 必须 contiguous | float16/bfloat16 | ND | "
                  "1-2 | 不支持"),
    Param("workspaceSize", "output", (DT.UINT64,), (), (), "-", "returns the workspace size",
          doc_row="workspaceSize | 输出 | 计算所需的workspace大小 | - | uint64*", c_kind="workspace_size"),
    Param("executor", "output", (), (), (), "-", "returns the op executor",
          doc_row="executor | 输出 | 包含算子计算流程的执行器 | - | aclOpExecutor**", c_kind="executor"),
)

SUPPORTED = {"cann": frozenset({"ascend950"}), "doc": frozenset({"ascend950"})}


# ---- the geometry of a call: its data flow, dimensions and arguments ----

def _desc(case: Case, name: str):
    return case.desc(name)


def is_gmm(case: Case) -> bool:
    """GMM_MX_A8W4 (weight view {G, K, N}) rather than MM_MX_A8W4 (weight view {K, N})."""
    return _desc(case, "weight").ndim == 3


def dims(case: Case) -> tuple[int | None, int, int]:
    """(G or None, K, N) from the weight's view shape."""
    shape = _desc(case, "weight").shape
    return (shape[0] if len(shape) == 3 else None), shape[-2], shape[-1]


def _kng(case: Case) -> tuple[int, int, int | None]:
    """(K, N, G or None): the argument order of spec.mx_a8w4_layout's shape functions."""
    g, k, n = dims(case)
    return k, n, g


def _k(case: Case) -> int:
    return dims(case)[1]


def _attr_dtype(case: Case, name: str) -> int | None:
    """An aclDataType attribute as its number (cases loaded from files carry enum names)."""
    value = case.attrs.get(name)
    if value is None:
        return None
    if isinstance(value, str):
        return int(DT[value]) if value in DT.__members__ else None
    return int(value)


def _has_bias(case: Case) -> bool:
    return case.tensor("biasOptional") is not None


def _bias(case: Case):
    return _desc(case, "biasOptional")


def _out_bias(case: Case):
    return _desc(case, "outBiasOptional")


# ---- predicates of the checks, in the vendor's check order (data-flow judge, c, f, g, l, s) ----

def _weight_rank_ok(case: Case) -> bool:
    return _desc(case, "weight").ndim in (2, 3)


def _weight_trans_ok(case: Case) -> bool:
    d = _desc(case, "weight")
    return d.strides[-2] == 1 and d.strides[-1] == d.shape[-2]


def _scale_rank_ok(case: Case) -> bool:
    return _desc(case, "weightScale").ndim == (4 if is_gmm(case) else 3)


def _scale_shape_ok(case: Case) -> bool:
    g, k, n = dims(case)
    return _desc(case, "weightScale").shape[-3:] == (scale_rows(k), n, 2)


def _scale_trans_ok(case: Case) -> bool:
    d = _desc(case, "weightScale")
    i = 1 if is_gmm(case) else 0
    return d.strides[i + 1] == d.strides[i] * d.shape[i]


def _bias_shape_ok(case: Case) -> bool:
    g, k, n = dims(case)
    shape = _bias(case).shape
    if g is None:
        return shape in ((n,), (1, n))
    return shape == (g, n)


def _nz_dims_ok(case: Case) -> bool:
    g, k, n = dims(case)
    return _desc(case, "outWeight").storage_shape[-4:] == nz_storage_shape(k, n)


# ---- the rules ----

_rule = rule_maker(OP)

_INVALID = STATUS(Status.ERR_PARAM_INVALID)
_NULLPTR = STATUS(Status.ERR_PARAM_NULLPTR)
_INNER_NULLPTR = STATUS(Status.ERR_INNER_NULLPTR)
_BOTH = {"cann": _INVALID, "doc": _INVALID}
_DOC_ONLY = {"doc": _INVALID}
_REG = "src: weight_quant_preprocess_registry.cpp"
_API_SRC = "src: aclnn_weight_quant_preprocess.cpp"
_ERRS = "doc: 返回值 error table"
_MM_C = "doc: 约束说明 MM_MX_A8W4"
_GMM_C = "doc: 约束说明 GMM_MX_A8W4"
_BOTH_C = "doc: 约束说明 (MM_MX_A8W4 and GMM_MX_A8W4)"


def _check(id_, category, label, text, source, violated, step, expect=None, note=""):
    """A check of the vendor's ``step``; ``label`` is its letter in the notes' list ('' if doc-only)."""
    step_note = f"step {label} of the vendor's check order" if label else ""
    return _rule(id_, "check", category, text, source, _BOTH if expect is None else expect,
                 violated=violated, step=step,
                 note="; ".join(x for x in (step_note, note) if x))


# The vendor's validation steps, in the order it runs them (notes weight_quant_preprocess.md
# section 3); within a step, the rules below are checked in the order they are listed.
CHECK_STEPS = ("out-pointers", "product", "mandatory tensors", "data-flow judge", "weight",
               "weightScale", "offsets", "bias", "kGroupSize", "outWeight", "outWeightScale",
               "outBias", "conversion")

RULES: tuple[Rule, ...] = (
    # ---- the API's own out-pointers, then the product ----
    _check("WQP-NULL-001", "nullptr", "2",
           "ACLNN_ERR_INNER_NULLPTR 561103: workspaceSize是空指针.", _ERRS + "; " + _API_SRC,
           lambda c: "workspaceSize" in c.null_outputs, "out-pointers",
           expect={"cann": _INNER_NULLPTR, "doc": _INNER_NULLPTR}),
    _check("WQP-NULL-002", "nullptr", "3",
           "ACLNN_ERR_INNER_NULLPTR 561103: executor是空指针.", _ERRS + "; " + _API_SRC,
           lambda c: "executor" in c.null_outputs, "out-pointers",
           expect={"cann": _INNER_NULLPTR, "doc": _INNER_NULLPTR}),
    _rule("WQP-PRODUCT-001", "check", "product",
          "产品支持情况: Ascend 950PR/Ascend 950DT √; Atlas A3, Atlas A2, Atlas 200I/500 A2, Atlas "
          "inference and Atlas training products ×. ACLNN_ERR_RUNTIME_ERROR 361001: 产品型号不支持.",
          "doc: 产品支持情况, 返回值; src: the data-flow registry holds DAV_3510 (Ascend 950) only",
          {"cann": ByProduct({"ascend950": UNCHECKED}, STATUS(Status.ERR_RUNTIME_ERROR)),
           "doc": ByProduct({"ascend950": UNCHECKED}, STATUS(Status.ERR_RUNTIME_ERROR))},
          violated=lambda c: True, step="product", note="step 4 of the vendor's check order"),
    # ---- the four mandatory tensors ----
    *(_check(f"WQP-NULL-{i + 3:03d}", "nullptr", "5",
             f"ACLNN_ERR_PARAM_NULLPTR 161001: weight、weightScale、outWeight或outWeightScale是空指针 "
             f"({name}).", _ERRS + "; " + _API_SRC + " (checked in this order)",
             (lambda n: lambda c: c.tensor(n) is None)(name), "mandatory tensors",
             expect={"cann": _NULLPTR, "doc": _NULLPTR})
      for i, name in enumerate(MANDATORY)),
    # ---- the data-flow judge ----
    _check("WQP-FLOW-001", "dtype", "6",
           "weight: FLOAT4_E2M1. 输入的数据类型组合不支持，无法匹配当前支持的MM_MX_A8W4/GMM_MX_A8W4数据流 "
           "-> 161002.", _ERRS + "; " + _REG + " data-flow judge",
           lambda c: _desc(c, "weight").dtype != WEIGHT_DTYPE, "data-flow judge"),
    _check("WQP-FLOW-002", "dtype", "6", "weightScale: FLOAT8_E8M0 (data-flow judge).",
           _ERRS + "; " + _REG + " data-flow judge",
           lambda c: _desc(c, "weightScale").dtype != SCALE_DTYPE, "data-flow judge"),
    _check("WQP-FLOW-003", "attr", "6", "xDtype: FLOAT8_E4M3FN (data-flow judge).",
           _BOTH_C + "; " + _REG + " data-flow judge",
           lambda c: _attr_dtype(c, "xDtype") != X_DTYPE, "data-flow judge"),
    _check("WQP-FLOW-004", "attr", "6", "xScaleDtype: FLOAT8_E8M0 (data-flow judge).",
           _BOTH_C + "; " + _REG + " data-flow judge",
           lambda c: _attr_dtype(c, "xScaleDtype") != X_SCALE_DTYPE, "data-flow judge"),
    _check("WQP-FLOW-005", "rank", "6",
           "weight: view shape 2-D {K, N} (MM_MX_A8W4) or 3-D {G, K, N} (GMM_MX_A8W4); 其余数据类型与 "
           "shape 组合为预留接口，当前调用将返回 ACLNN_ERR_PARAM_INVALID.",
           "doc: 参数说明 (维度 2-3), 约束说明; " + _REG + " data-flow judge (view rank)",
           lambda c: not _weight_rank_ok(c), "data-flow judge"),
    # ---- weight (checks a..c) ----
    _check("WQP-EMPTY-001", "empty", "a", "weight: 不支持空 tensor (no view dimension is 0).",
           _BOTH_C + "; " + _REG + " CheckWeightNotEmpty",
           lambda c: _desc(c, "weight").is_empty(), "weight"),
    _check("WQP-SHAPE-001", "shape", "",
           "weight: K % kGroupSize == 0 (kGroupSize is 32).", _BOTH_C,
           lambda c: _k(c) % K_GROUP_SIZE != 0, "weight", expect=_DOC_ONLY,
           note="documented, not enforced: cann zero-pads even K (WQP-VAL-004); odd K is undefined "
                "(WQP-PRE-001)"),
    _check("WQP-FORMAT-001", "format", "b",
           "weight: 数据格式 ND (the code accepts ND and NCL).",
           "doc: 参数说明, 约束说明; " + _REG + " CheckWeightFormatND",
           lambda c: _desc(c, "weight").format not in WEIGHT_FORMATS_CANN, "weight"),
    _check("WQP-FORMAT-002", "format", "",
           "weight: 格式 ND only (NCL is not documented).", "doc: 参数说明, 约束说明",
           lambda c: _desc(c, "weight").format != F.ND, "weight",
           expect=_DOC_ONLY,
           note="cann accepts NCL in check b: MM then fails in the conversion (WQP-INNER-001)"),
    _check("WQP-SHAPE-002", "shape", "",
           "weight: storage shape {N, K} (MM) / {G, N, K} (GMM).", _BOTH_C,
           lambda c: _desc(c, "weight").storage_shape != weight_storage_shape(*_kng(c)),
           "weight", expect=_DOC_ONLY,
           note="cann ignores the storage shape argument and rebuilds it from the view"),
    _check("WQP-STRIDE-001", "stride", "c",
           "weight: 最后两维 transposed: stride[-2] == 1 and stride[-1] == K; weight的stride不满足转置要求 "
           "-> 161002.", _ERRS + "; " + _REG + " CheckWeightTrans",
           lambda c: not _weight_trans_ok(c), "weight"),
    _check("WQP-STRIDE-002", "stride", "",
           "weight: stride [1, K] (MM) / [K*N, 1, K] (GMM).", _BOTH_C,
           lambda c: _desc(c, "weight").strides != weight_strides(*_kng(c)),
           "weight", expect=_DOC_ONLY,
           note="cann checks the last two strides only; a GMM stride[0] other than K*N is "
                "outside its contract (WQP-PRE-004)"),
    # ---- weightScale (checks d..g) ----
    _check("WQP-EMPTY-002", "empty", "d", "weightScale: 不支持空 tensor.",
           _BOTH_C + "; " + _REG + " CheckWeightScaleNotEmpty",
           lambda c: _desc(c, "weightScale").is_empty(), "weightScale"),
    _check("WQP-FORMAT-003", "format", "e",
           "weightScale: 数据格式 ND/NCL/NCHW.",
           "doc: 参数说明, 约束说明 GMM_MX_A8W4; " + _REG + " CheckWeightScaleFormatND",
           lambda c: _desc(c, "weightScale").format not in SCALE_FORMATS_CANN, "weightScale"),
    _check("WQP-FORMAT-004", "format", "",
           "MM_MX_A8W4 weightScale: 格式 ND/NCL.", _MM_C,
           lambda c: not is_gmm(c) and _desc(c, "weightScale").format not in (F.ND, F.NCL), "weightScale", expect=_DOC_ONLY,
           note="the parameter table lists ND/NCL/NCHW; the MM constraints table, specific to the "
                "data flow, lists ND/NCL: the doc profile follows the constraints table"),
    _check("WQP-SHAPE-003", "shape", "f",
           "weightScale: view shape 3-D (MM) / 4-D (GMM).",
           _BOTH_C + "; " + _REG + " CheckWeightScaleMx<3/4>",
           lambda c: not _scale_rank_ok(c), "weightScale"),
    _check("WQP-SHAPE-004", "shape", "f",
           "weightScale: view shape {ceildiv(K, 64), N, 2} (GMM: {G, ceildiv(K, 64), N, 2}; the code "
           "compares the last three dimensions).", _BOTH_C + "; " + _REG + " CheckWeightScaleMx",
           lambda c: not _scale_shape_ok(c), "weightScale"),
    _check("WQP-SHAPE-005", "shape", "",
           "GMM_MX_A8W4 weightScale: view shape {G, ceildiv(K, 64), N, 2}, G that of the weight.",
           _GMM_C, lambda c: is_gmm(c) and _desc(c, "weightScale").shape[0] != dims(c)[0], "weightScale", expect=_DOC_ONLY,
           note="cann does not compare the scale's G with the weight's: the scale is copied as it is"),
    _check("WQP-SHAPE-006", "shape", "",
           "weightScale: storage shape {N, ceildiv(K, 64), 2} (GMM: {G, N, ceildiv(K, 64), 2}).",
           _BOTH_C,
           lambda c: _desc(c, "weightScale").storage_shape
           != scale_storage_shape(dims(c)[1], dims(c)[2], _desc(c, "weightScale").shape[0]
                                  if is_gmm(c) else None),
           "weightScale", expect=_DOC_ONLY,
           note="cann only compares outWeightScale's storage shape with it (WQP-SHAPE-013)"),
    _check("WQP-STRIDE-003", "stride", "g",
           "weightScale: 维度0和1交换 (GMM: 维度2和3交换): the code checks stride[1] == stride[0]*shape[0] "
           "(GMM: stride[2] == stride[1]*shape[1]); weightScale的stride不满足转置要求 -> 161002.",
           _ERRS + "; " + _REG + " CheckWeightScaleTrans",
           lambda c: not _scale_trans_ok(c), "weightScale"),
    _check("WQP-STRIDE-004", "stride", "",
           "weightScale: stride [2, 2*ceildiv(K,64), 1] "
           "(GMM: [2*ceildiv(K,64)*N, 2, 2*ceildiv(K,64), 1]).",
           _BOTH_C,
           lambda c: _desc(c, "weightScale").strides != scale_strides(*_kng(c)), "weightScale",
           expect=_DOC_ONLY, note="cann checks one stride equality; the copy is view-wise"),
    # ---- offsets (check h) ----
    _check("WQP-OPT-001", "optional", "h",
           "weightOffsetOptional: 当前 MM_MX_A8W4/GMM_MX_A8W4 数据流不支持，必须为 nullptr.",
           _ERRS + "; " + _BOTH_C + "; " + _REG + " CheckWeightOffsetOptionalNull",
           lambda c: c.tensor("weightOffsetOptional") is not None, "offsets"),
    _check("WQP-OPT-002", "optional", "h",
           "outWeightOffsetOptional 也必须为 nullptr.",
           _ERRS + "; " + _BOTH_C + "; " + _REG + " CheckWeightOffsetOptionalNull",
           lambda c: c.tensor("outWeightOffsetOptional") is not None, "offsets"),
    # ---- bias (checks i..m), skipped when bias is null ----
    _check("WQP-EMPTY-003", "empty", "i", "biasOptional: 不支持空 tensor (若提供).",
           _BOTH_C + "; " + _REG + " CheckBiasOptionalNotEmpty",
           lambda c: _has_bias(c) and _bias(c).is_empty(), "bias"),
    _check("WQP-FORMAT-005", "format", "j", "biasOptional: 格式 ND.",
           _BOTH_C + "; " + _REG + " CheckBiasOptionalFormatND",
           lambda c: _has_bias(c) and _bias(c).format != F.ND, "bias"),
    _check("WQP-DTYPE-001", "dtype", "k", "biasOptional: 数据类型 float16/bfloat16.",
           _BOTH_C + "; " + _REG + " CheckBiasOptionalDtype",
           lambda c: _has_bias(c) and _bias(c).dtype not in BIAS_DTYPES, "bias"),
    _check("WQP-SHAPE-007", "shape", "",
           "biasOptional: 维度 1-2.", "doc: 参数说明",
           lambda c: _has_bias(c) and _bias(c).ndim not in (1, 2), "bias", expect=_DOC_ONLY,
           note="the document states the rank only; cann rejects these shapes in WQP-SHAPE-008"),
    _check("WQP-SHAPE-008", "shape", "l",
           "biasOptional view shape: MM (N) or (1, N); GMM (G, N).",
           _REG + " CheckBiasOptionalViewShape (rank 1 for MM since da2029514)",
           lambda c: _has_bias(c) and not _bias_shape_ok(c), "bias",
           expect={"cann": _INVALID, "doc": NOT_JUDGED},
           note="the document gives no bias shape: not judged in the doc profile"),
    _check("WQP-CONTIG-001", "contiguous", "m", "biasOptional: 必须 contiguous.",
           _ERRS + "; " + _BOTH_C + "; " + _REG + " CheckBiasOptionalContiguous",
           lambda c: _has_bias(c) and not _bias(c).is_contiguous(), "bias"),
    # ---- kGroupSize (check n) ----
    _check("WQP-ATTR-001", "attr", "n", "kGroupSize: 必须等于 32.",
           _ERRS + "; " + _BOTH_C + "; " + _REG + " CheckKGroupSizeMx",
           lambda c: int(c.attrs.get("kGroupSize", 0)) != K_GROUP_SIZE, "kGroupSize"),
    # ---- outWeight (checks o..s) ----
    _check("WQP-EMPTY-004", "empty", "o", "outWeight: 空tensor -> 161002.",
           _ERRS + "; " + _REG + " CheckOutWeightNotNullEmpty",
           lambda c: _desc(c, "outWeight").is_empty(), "outWeight"),
    _check("WQP-DTYPE-002", "dtype", "p", "outWeight: 数据类型与 weight 相同.",
           _BOTH_C + "; " + _REG + " CheckOutWeightDtypeSame",
           lambda c: _desc(c, "outWeight").dtype != _desc(c, "weight").dtype, "outWeight"),
    _check("WQP-SHAPE-009", "shape", "q", "outWeight: view shape 与 weight view shape 相同.",
           _BOTH_C + "; " + _REG + " CheckOutWeightViewShapeSame",
           lambda c: _desc(c, "outWeight").shape != _desc(c, "weight").shape, "outWeight"),
    _check("WQP-SHAPE-010", "shape", "r",
           "outWeight: storage shape 4-D (MM) / 5-D (GMM): weight's view rank + 2.",
           _BOTH_C + "; " + _REG + " CheckOutWeightNzStorageDim",
           lambda c: len(_desc(c, "outWeight").storage_shape) != _desc(c, "weight").ndim + 2, "outWeight"),
    _check("WQP-FORMAT-006", "format", "s", "outWeight: 格式 FRACTAL_NZ_C0_32.",
           _BOTH_C + "; " + _REG + " CheckOutWeightTransNz<32, FRACTAL_NZ_C0_32>",
           lambda c: _desc(c, "outWeight").format != F.FRACTAL_NZ_C0_32, "outWeight"),
    _check("WQP-SHAPE-011", "shape", "s",
           "outWeight: storage shape {ceildiv(K, 32), ceildiv(N, 16), 16, 32} (GMM: led by G; the "
           "code compares the last four dimensions).",
           _BOTH_C + "; " + _REG + " CheckOutWeightTransNz",
           lambda c: not _nz_dims_ok(c), "outWeight"),
    _check("WQP-SHAPE-012", "shape", "",
           "GMM_MX_A8W4 outWeight: storage shape {G, ceildiv(K, 32), ceildiv(N, 16), 16, 32}.", _GMM_C,
           lambda c: is_gmm(c) and _desc(c, "outWeight").storage_shape[0] != dims(c)[0], "outWeight", expect=_DOC_ONLY,
           note="cann does not check the leading G (WQP-PRE-005)"),
    # ---- outWeightScale (checks t..x) ----
    _check("WQP-EMPTY-005", "empty", "t", "outWeightScale: 空tensor -> 161002.",
           _ERRS + "; " + _REG + " CheckOutWeightScaleNotNullEmpty",
           lambda c: _desc(c, "outWeightScale").is_empty(), "outWeightScale"),
    _check("WQP-FORMAT-007", "format", "u",
           "outWeightScale: 数据格式 ND/NCL/NCHW.",
           "doc: 参数说明; " + _REG + " CheckOutWeightScaleFormatND",
           lambda c: _desc(c, "outWeightScale").format not in SCALE_FORMATS_CANN, "outWeightScale"),
    _check("WQP-FORMAT-008", "format", "",
           "outWeightScale: 格式 ND.", _BOTH_C,
           lambda c: _desc(c, "outWeightScale").format != F.ND, "outWeightScale", expect=_DOC_ONLY,
           note="the parameter table lists ND/NCL/NCHW; the constraints tables say ND: the doc "
                "profile follows the constraints tables"),
    _check("WQP-DTYPE-003", "dtype", "v", "outWeightScale: 数据类型与 weightScale 相同.",
           _BOTH_C + "; " + _REG + " CheckOutWeightScaleDtypeSame",
           lambda c: _desc(c, "outWeightScale").dtype != _desc(c, "weightScale").dtype, "outWeightScale"),
    _check("WQP-SHAPE-013", "shape", "w", "outWeightScale: view shape 与 weightScale view shape 相同.",
           _BOTH_C + "; " + _REG + " CheckOutWeightScaleViewShapeSame",
           lambda c: _desc(c, "outWeightScale").shape != _desc(c, "weightScale").shape, "outWeightScale"),
    _check("WQP-SHAPE-014", "shape", "x",
           "outWeightScale: storage shape 与 weightScale storage shape 相同 (strides are not compared).",
           _BOTH_C + "; " + _REG + " CheckOutWeightScaleStorageShapeSame",
           lambda c: _desc(c, "outWeightScale").storage_shape != _desc(c, "weightScale").storage_shape,
           "outWeightScale"),
    # ---- outBias (checks y..dd), skipped when bias is null ----
    _check("WQP-NULL-007", "nullptr", "y",
           "ACLNN_ERR_PARAM_NULLPTR 161001: biasOptional非空但outBiasOptional是空指针.",
           _ERRS + "; " + _REG + " CheckOutBiasOptionalNotNullEmpty",
           lambda c: _has_bias(c) and c.tensor("outBiasOptional") is None, "outBias", expect={"cann": _NULLPTR, "doc": _NULLPTR}),
    _check("WQP-EMPTY-006", "empty", "y", "outBiasOptional: 在提供时为空tensor -> 161002.",
           _ERRS + "; " + _REG + " CheckOutBiasOptionalNotNullEmpty",
           lambda c: _has_bias(c) and _out_bias(c).is_empty(), "outBias"),
    _check("WQP-FORMAT-009", "format", "z", "outBiasOptional: 格式 ND.",
           _BOTH_C + "; " + _REG + " CheckOutBiasOptionalFormatND",
           lambda c: _has_bias(c) and _out_bias(c).format != F.ND, "outBias"),
    _check("WQP-CONTIG-002", "contiguous", "aa", "outBiasOptional: 必须 contiguous.",
           _ERRS + "; " + _BOTH_C + "; " + _REG + " CheckOutBiasOptionalContiguous",
           lambda c: _has_bias(c) and not _out_bias(c).is_contiguous(), "outBias"),
    _check("WQP-DTYPE-004", "dtype", "bb", "outBiasOptional: 数据类型与 biasOptional 相同.",
           _BOTH_C + "; " + _REG + " CheckOutBiasOptionalDtypeSame",
           lambda c: _has_bias(c) and _out_bias(c).dtype != _bias(c).dtype, "outBias"),
    _check("WQP-SHAPE-015", "shape", "cc", "outBiasOptional: view shape 与 biasOptional 相同.",
           _BOTH_C + "; " + _REG + " CheckOutBiasOptionalViewShapeSame",
           lambda c: _has_bias(c) and _out_bias(c).shape != _bias(c).shape, "outBias"),
    _check("WQP-SHAPE-016", "shape", "dd", "outBiasOptional: storage shape 与 biasOptional 相同.",
           _BOTH_C + "; " + _REG + " CheckOutBiasOptionalStorageShapeSame",
           lambda c: _has_bias(c) and _out_bias(c).storage_shape != _bias(c).storage_shape, "outBias"),
    # ---- after every check: building the conversion ----
    _check("WQP-INNER-001", "internal", "",
           "An MM weight in format NCL passes check b, then the ND -> FRACTAL_NZ_C0_32 conversion "
           "finds no 3-D shape for NCL and returns a null tensor: ACLNN_ERR_INNER_NULLPTR 561103 "
           "(API内部构图接口返回空指针).",
           _ERRS + "; " + _REG + " ProcessWeightTransNd2Nz; TransData format/rank check (inferred)",
           lambda c: not is_gmm(c) and _desc(c, "weight").format == F.NCL, "conversion", expect={"cann": _INNER_NULLPTR},
           note="doc: the weight must be ND (WQP-FORMAT-002 decides first)"),
    # ---- preconditions: the call succeeds, its values are outside the contract ----
    _rule("WQP-PRE-001", "precondition", "shape",
          "Odd K: the {N, K} rows of the FP4 storage do not start on byte boundaries and the kernel "
          "converts K/2 bytes per row (rounded down): the result is undefined.",
          "src: TransData arch35 tiling (c = K >> 1); design decision",
          {"cann": NOT_JUDGED}, violated=lambda c: _k(c) % 2 == 1),
    _rule("WQP-PRE-002", "precondition", "stride",
          "weight view offset 0: the code rebuilds the weight's shape from its view and reads a dense "
          "{[G,] N, K} buffer; an offset (half a byte when odd) is not validated.",
          "src: registry.cpp ProcessWeightTransNd2Nz; notes section 7.5",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED}, violated=lambda c: _desc(c, "weight").offset != 0),
    _rule("WQP-PRE-003", "precondition", "stride",
          "outWeight view offset 0: the NZ result is copied to the tensor's address; an offset is "
          "not validated.", "src (inferred): ViewCopy into outWeight",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED}, violated=lambda c: _desc(c, "outWeight").offset != 0),
    _rule("WQP-PRE-004", "precondition", "stride",
          "GMM weight stride[0] = K*N: the code reads a dense {G, N, K} buffer whatever stride[0] says.",
          "src: registry.cpp (stride[0] not checked, storage rebuilt dense)",
          {"cann": NOT_JUDGED},
          violated=lambda c: is_gmm(c) and _desc(c, "weight").strides[0] != dims(c)[1] * dims(c)[2]),
    _rule("WQP-PRE-005", "precondition", "shape",
          "GMM outWeight storage dim 0 = G: the conversion writes G groups whatever the storage says.",
          "src: registry.cpp CheckOutWeightTransNz (leading dimension not checked)",
          {"cann": NOT_JUDGED},
          violated=lambda c: is_gmm(c) and _desc(c, "outWeight").storage_shape[0] != dims(c)[0]),
    _rule("WQP-PRE-006", "precondition", "format",
          "GMM weight in format NCL: accepted by check b; what the conversion makes of a 3-D NCL "
          "tensor is not known.", "src: registry.cpp CheckWeightFormatND; TransData format rules",
          {"cann": NOT_JUDGED},
          violated=lambda c: is_gmm(c) and _desc(c, "weight").format == F.NCL),
    # ---- value rules: what the outputs must be (judged against the oracle) ----
    _rule("WQP-VAL-001", "value", "value",
          "outWeight storage = FRACTAL_NZ_C0_32 of the weight's {[G,] N, K} storage: "
          "NZ[g, k1, n1, n0, k0] = W[g, k1*32 + k0, n1*16 + n0] over the storage "
          "{[G,] ceil(K/32), ceil(N/16), 16, 32}. 将 weight 从 ND 格式转换为 FRACTAL_NZ 格式.",
          "doc: 功能说明, 约束说明; src: TransData arch35 kernel (trans_data_with_simt.h)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-002", "value", "value",
          "FP4 packing: two elements a byte in flat storage order, the lower K index in the low "
          "nibble (bits 3..0); bytes are moved whole, so the order is kept.",
          "src: TransData FP4 tiling (c0 halved, bytes moved); ops-nn PackFp4; catlass gen_data",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-003", "value", "value",
          "Padding of the NZ storage (k >= K or n >= N) is zero: FP4 code 0, bytes 0x00.",
          "src: TransData arch35 kernel writes 0 outside the source", {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-004", "value", "value",
          "Even K that is not a multiple of 32: accepted; the last K block is zero-padded like N.",
          "src: no K % 32 check in the API layer; TransData pads the K/2 bytes of a row",
          {"cann": JUDGED},
          violated=lambda c: _k(c) % K_GROUP_SIZE != 0 and _k(c) % 2 == 0),
    _rule("WQP-VAL-005", "value", "value",
          "outWeightScale = weightScale, copied view to view (bytes unchanged, each tensor through "
          "its own strides and offset). 对 weightScale 进行同步处理.",
          "doc: 功能说明; src: ProcessWeightScaleDirectCopy (INT8 re-view, ViewCopy)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-006", "value", "value",
          "outBiasOptional = biasOptional (a copy) when a bias is given. 对 biasOptional 进行同步处理.",
          "doc: 功能说明; src: ProcessBiasDirectCopy", {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-007", "value", "value",
          "Nothing else is written: the inputs are unchanged, and so is every element of an output "
          "storage outside its view (outWeightScale, outBiasOptional) or beyond outWeight's "
          "FRACTAL_NZ_C0_32 storage.", "design decision (notes section 2.5)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-008", "value", "value",
          "A non-null outBiasOptional with a null biasOptional is ignored: no error, not written.",
          "src: every bias/outBias check and the bias copy are skipped when bias is null",
          {"cann": JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: not _has_bias(c) and c.tensor("outBiasOptional") is not None),
    _rule("WQP-VAL-009", "value", "value",
          "outWeight's own strides are not used: contiguous (nullptr, as the document's example) and "
          "transposed [1, K] describe the same NZ storage.",
          "doc: 调用示例 (nullptr strides); src: no stride check on outWeight; private format",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("WQP-VAL-010", "value", "value",
          "cann: the weight's storage shape argument, a weightScale laid out with other strides that "
          "pass check g, a GMM weightScale of another G, and the formats NCL/NCHW of the scales are "
          "accepted and processed as documented.",
          "src: registry.cpp checks (these are not rejected); the copy is view-wise",
          {"cann": JUDGED}),
)

ERRATA = (
    Erratum("WQP-ERRATUM-1", OP, "weight: K % kGroupSize == 0",
            "not checked: even K is zero-padded to a multiple of 32; odd K gives an undefined result",
            "registry.cpp (no such check); TransData arch35 tiling"),
    Erratum("WQP-ERRATUM-2", OP, "weight storage shape {N, K} / {G, N, K}",
            "the storage shape argument is ignored and rebuilt from the view (last two dims swapped)",
            "registry.cpp ProcessWeightTransNd2Nz"),
    Erratum("WQP-ERRATUM-3", OP, "weight stride [1, K] / [K*N, 1, K]",
            "only stride[-2] == 1 and stride[-1] == K are checked; GMM stride[0] is not",
            "registry.cpp CheckWeightTrans"),
    Erratum("WQP-ERRATUM-4", OP,
            "weightScale stride [2, 2*ceil(K/64), 1] / [2*ceil(K/64)*N, 2, 2*ceil(K/64), 1]",
            "only stride[1] == stride[0]*shape[0] (GMM stride[2] == stride[1]*shape[1]) is checked; "
            "weightScale's storage shape is not checked either",
            "registry.cpp CheckWeightScaleTrans"),
    Erratum("WQP-ERRATUM-5", OP, "weight format ND",
            "ND and NCL pass the check; an MM weight in NCL then fails in the conversion with 561103",
            "registry.cpp CheckWeightFormatND; TransData"),
    Erratum("WQP-ERRATUM-6", OP, "outWeightScale format ND; MM weightScale ND/NCL (constraints tables)",
            "ND, NCL and NCHW are accepted for both scales on both data flows (as the parameter "
            "table says)", "registry.cpp CheckWeightScaleFormatND, CheckOutWeightScaleFormatND"),
    Erratum("WQP-ERRATUM-7", OP, "GMM: weightScale {G, ...}, outWeight storage {G, ...}",
            "G is not compared with the weight's G for either", "registry.cpp CheckWeightScaleMx<4>, "
            "CheckOutWeightTransNz"),
    Erratum("WQP-ERRATUM-8", OP, "biasOptional: dims 1-2, no shape stated",
            "MM: (N) or (1, N); GMM: (G, N); anything else 161002",
            "registry.cpp CheckBiasOptionalViewShape"),
    Erratum("WQP-ERRATUM-9", OP, "weightScale/biasOptional are 'processed in step' (同步处理)",
            "both are copied unchanged (bytes of the view)",
            "registry.cpp ProcessWeightScaleDirectCopy, ProcessBiasDirectCopy"),
    Erratum("WQP-ERRATUM-10", OP, "parameter table: weightScale/outWeightScale ND/NCL/NCHW",
            "the data-flow constraints tables narrow them (MM weightScale ND/NCL, outWeightScale ND); "
            "the code follows the parameter table", "doc 参数说明 vs 约束说明; registry.cpp"),
)

SPEC = OpSpec(
    key=OP, api=API, rule_prefix="WQP", doc=DOC, params=PARAMS, rules=RULES, supported=SUPPORTED,
    outputs=OUTPUTS,
    standards={profile: {name: "bit-exact" for name in OUTPUTS} for profile in ("cann", "doc")},
    errata=ERRATA,
    check_steps=CHECK_STEPS,
)


# What a correct implementation may and may not do to the arithmetic (the model-derived
# standards accept exactly the results of implementations inside it).
ARITHMETIC = ArithmeticModel(
    OP, "1",
    order="no arithmetic: FP4 codes and scales are moved, never computed",
    correctly_rounded=(), faithful=(), reciprocal_division=False, fused_multiply_add=False,
    final_cast={},
    may=("nothing: every output byte is a copy of an input byte",),
    may_not=("any change of a copied value (judged by bit-exact)",),
    source="notes weight_quant_preprocess.md")


OPERATOR = Operator(
    spec=SPEC,
    arithmetic_model=ARITHMETIC,
    oracle="aclnn_conformance.oracle.weight_quant_preprocess:from_case",
    base_call="aclnn_conformance.suites.calls.weight_quant_preprocess:base_call",
    table_cases="aclnn_conformance.suites.calls.weight_quant_preprocess:table_cases",
    fault_bases="aclnn_conformance.suites.calls.weight_quant_preprocess:FAULT_BASES",
    faults="aclnn_conformance.suites.faults.weight_quant_preprocess:FAULTS",
    strategies="aclnn_conformance.suites.strategies.weight_quant_preprocess:STRATEGIES",
    emulator="aclnn_conformance.backends.emulator.weight_quant_preprocess:get_workspace_size",
    torch="aclnn_conformance.backends.torch_backend.weight_quant_preprocess:run",
    mutants="aclnn_conformance.backends.mutants.weight_quant_preprocess:MUTANT_SET",
    relations="aclnn_conformance.suites.test_weight_quant_preprocess:RELATION_RULES",
    sensitivity=Absent("every output is a copy judged bit-exact: no error band to measure"),
    determinism_rules=(),
    modules=(
        "aclnn_conformance.spec.weight_quant_preprocess",
        "aclnn_conformance.oracle.weight_quant_preprocess",
        "aclnn_conformance.suites.calls.weight_quant_preprocess",
        "aclnn_conformance.suites.faults.weight_quant_preprocess",
        "aclnn_conformance.suites.strategies.weight_quant_preprocess",
        "aclnn_conformance.suites.test_weight_quant_preprocess",
        "aclnn_conformance.backends.emulator.weight_quant_preprocess",
        "aclnn_conformance.backends.torch_backend.weight_quant_preprocess",
        "aclnn_conformance.backends.mutants.weight_quant_preprocess",
        "aclnn_conformance.backends.torch_backend.weight_quant_preprocess_npu",
    ),
)
