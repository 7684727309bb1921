"""The executable specification of aclnnApplyAdamWV2.

Document: ../shared/docs/aclnnApplyAdamWV2.md (Chinese, ops-nn e3d14dd4). Vendor behaviour behind
the ``cann`` profile: the hand-written op_api layer, the A2/A3 and Ascend 950 tilings and kernels,
the runtime's launcher and the vendor golden, as summarised in notes/apply_adam_w.md (sections 3.2,
4, 5.2-5.4 and 6.2; the errata E4-E12 are the ones of this operator).

The op_api checks no SoC: on a product without the operator the host checks run as anywhere else
(with the float16/float32 dtype list of the other NPU architectures), an empty var still succeeds,
and only a call that reaches the launcher fails, in phase one or phase two.
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import PRIVATE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.tensor import contiguous_strides
from aclnn_conformance.spec.kernel_mapping import KernelMapping
from aclnn_conformance.spec.operator import Operator
from aclnn_conformance.spec.precision import ArithmeticModel, RNE_CASTS, ROUND_NEAREST_EVEN, ROUND_EITHER_TIE
from aclnn_conformance.spec.rules import (rule_maker, ANY_ERROR, JUDGED, NOT_JUDGED, STATUS, UNCHECKED, ByProduct,
                                          Erratum, OpSpec, Rule)

OP = "apply_adam_w_v2"
API = "aclnnApplyAdamWV2"
DOC = "../shared/docs/aclnnApplyAdamWV2.md"
MAX_GRAD_NORM = "maxGradNormOptionalRef"

TENSORS = ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad", "step")
OUTPUTS = ("varRef", "mRef", "vRef", MAX_GRAD_NORM)
FLOAT_TENSORS = ("varRef", "mRef", "vRef", MAX_GRAD_NORM, "grad")
ATTRS = ("lr", "beta1", "beta2", "weightDecay", "eps", "amsgrad", "maximize")
HYPER_PARAMETERS = ("lr", "beta1", "beta2", "weightDecay", "eps")
VAR_DTYPES = (DT.FLOAT16, DT.BF16, DT.FLOAT)
STEP_DTYPES = (DT.INT64, DT.FLOAT)
# Products whose NPU architecture (DAV_2201, DAV_3510) has BFLOAT16 in the op_api's dtype list;
# every other architecture gets {FLOAT, FLOAT16} (notes section 4).
BF16_PRODUCTS = frozenset({"atlas-a2", "atlas-a3", "ascend950"})
UNSUPPORTED = ("atlas-200i-500-a2", "atlas-inference", "atlas-training")

_SAME_AS_VAR = "与“varRef”参数一致。"
PARAMS = (
    Param("varRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "待计算的权重输入同时也是输出，公式中的θ。", doc_row="FLOAT16、BFLOAT16、FLOAT32 | ND | 1-8 | √"),
    Param("mRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "AdamW优化器中m参数; shape " + _SAME_AS_VAR, doc_row=f"{_SAME_AS_VAR} | ND | = varRef | √"),
    Param("vRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "AdamW优化器中v参数，不能为负数; shape " + _SAME_AS_VAR,
          doc_row=f"{_SAME_AS_VAR} | ND | = varRef | √"),
    Param(MAX_GRAD_NORM, "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "此参数在amsgrad参数为true时必选，在amsgrad参数为false时可选; shape " + _SAME_AS_VAR,
          optional=True, doc_row=f"{_SAME_AS_VAR} | ND | = varRef | √"),
    Param("grad", "input", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "梯度数据，公式中的g_t; shape " + _SAME_AS_VAR, doc_row=f"{_SAME_AS_VAR} | ND | = varRef | √"),
    Param("step", "input", STEP_DTYPES, (F.ND,), (), "no",
          "迭代次数，公式中的t，需要大于0。元素个数为1。", doc_row="INT64、FLOAT32 | ND | - | x"),
    Param("lr", "attr", (DT.FLOAT,), (), (), "-", "学习率，公式中的η。", c_kind="float"),
    Param("beta1", "attr", (DT.FLOAT,), (), (), "-", "β1参数。", c_kind="float"),
    Param("beta2", "attr", (DT.FLOAT,), (), (), "-", "β2参数。", c_kind="float"),
    Param("weightDecay", "attr", (DT.FLOAT,), (), (), "-", "权重衰减系数，公式中的λ。", c_kind="float"),
    Param("eps", "attr", (DT.FLOAT,), (), (), "-", "防止除数为0。", c_kind="float"),
    Param("amsgrad", "attr", (DT.BOOL,), (), (), "-", "是否使用算法的AMSGrad变量。", c_kind="bool"),
    Param("maximize", "attr", (DT.BOOL,), (), (), "-", "是否最大化参数。", c_kind="bool"),
    Param("workspaceSize", "output", (DT.UINT64,), (), (), "-", "返回需要在Device侧申请的workspace大小。", c_kind="workspace_size"),
    Param("executor", "output", (), (), (), "-", "返回op执行器，包含了算子计算流程。", c_kind="executor"),
)

SUPPORTED = {"cann": frozenset({"atlas-a2", "atlas-a3", "ascend950"}),
             "doc": frozenset({"atlas-a2", "atlas-a3", "ascend950"})}


# ---- predicates over a call ----

def _shape(case: Case, name: str) -> tuple[int, ...] | None:
    d = case.desc(name)
    return None if d is None else d.shape


def _numel(case: Case, name: str) -> int:
    return math.prod(_shape(case, name))


def _dtype(case: Case, name: str):
    d = case.desc(name)
    return None if d is None else d.dtype


def _amsgrad(case: Case) -> bool:
    return bool(case.attrs.get("amsgrad", False))


def step_value(case: Case) -> float:
    """The step as the kernel reads it: an INT64 converted to float32 (RNE), a FLOAT32 as it is."""
    return float(np.float32(case.tensor("step").values().reshape(-1)[0]))


def _shape_differs(name: str):
    return lambda c: c.desc(name) is not None and _shape(c, name) != _shape(c, "varRef")


def _dtype_outside(name: str, dtypes):
    return lambda c: c.desc(name) is not None and _dtype(c, name) not in dtypes


def _bf16(name: str):
    return lambda c: _dtype(c, name) == DT.BF16


def _strided(case: Case, name: str) -> bool:
    d = case.desc(name)
    return d.strides != contiguous_strides(d.shape)


def _var_empty(case: Case) -> bool:
    return case.desc("varRef").is_empty()


def _dtypes_mixed(case: Case) -> bool:
    var = _dtype(case, "varRef")
    return any(case.desc(n) is not None and _dtype(case, n) != var
               for n in ("mRef", "vRef", MAX_GRAD_NORM, "grad"))


def _private_format(case: Case) -> bool:
    return any(case.desc(n) is not None and case.desc(n).format in PRIVATE_FORMATS for n in TENSORS)


def _not_nd(case: Case) -> bool:
    return any(case.desc(n) is not None and case.desc(n).format != F.ND for n in TENSORS)


def _nonfinite_inputs(case: Case) -> bool:
    return any(case.desc(n) is not None and not case.desc(n).is_empty()
               and not np.isfinite(case.tensor(n).values().astype(np.float32)).all()
               for n in ("varRef", "mRef", "vRef", "grad", MAX_GRAD_NORM))


def _v_negative(case: Case) -> bool:
    return bool((case.tensor("vRef").values().astype(np.float32) < 0).any())


# ---- the rules ----

_rule = rule_maker(OP)

_NULLPTR = STATUS(Status.ERR_PARAM_NULLPTR)
_INVALID = STATUS(Status.ERR_PARAM_INVALID)
_OP_API = "src: op_api aclnn_apply_adam_w_v2.cpp (notes 5.2)"
_DOC_RET = "doc: 第一段接口 return-code table"
_DOC_PARAMS = "doc: GetWorkspaceSize parameter table"
_BF16_UNSUPPORTED = ByProduct({p: _INVALID for p in UNSUPPORTED}, UNCHECKED)

# The vendor's validation steps in the order the op_api runs them (notes 5.2): null pointers, dtypes,
# shapes, the empty var (success before anything is launched), the out-pointers written, the
# launcher (kernel lookup and tiling; a failure there surfaces in phase two).
CHECK_STEPS = ("product", "null pointers", "dtypes", "formats", "shapes", "rank", "out pointers",
               "launch")

RULES: tuple[Rule, ...] = (
    _rule("AAWV2-PRODUCT-001", "check", "product",
          "产品支持情况: Ascend 950PR/950DT, Atlas A3, Atlas A2: 支持; Atlas 200I/500 A2, Atlas 推理系列, "
          "Atlas 训练系列: 不支持.",
          "doc: 产品支持情况 (read literally: any call on an unsupported product fails)",
          {"doc": ByProduct({p: UNCHECKED for p in SUPPORTED["doc"]}, ANY_ERROR)},
          violated=lambda c: True, step="product"),
    *(_rule(f"AAWV2-NULL-{i + 1:03d}", "check", "nullptr",
            f"ACLNN_ERR_PARAM_NULLPTR 161001: 传入的{name}是空指针时.", _DOC_RET + "; " + _OP_API + " N1-N3",
            {"cann": _NULLPTR, "doc": _NULLPTR},
            violated=(lambda n: lambda c: c.tensor(n) is None)(name), step="null pointers")
      for i, name in enumerate(("varRef", "mRef", "vRef"))),
    _rule("AAWV2-NULL-004", "check", "nullptr",
          "maxGradNormOptionalRef: 此参数在amsgrad参数为true时必选 (NULL with amsgrad = true: 161001).",
          _DOC_PARAMS + "; " + _OP_API + " N4",
          {"cann": _NULLPTR, "doc": _NULLPTR},
          violated=lambda c: c.tensor(MAX_GRAD_NORM) is None and _amsgrad(c), step="null pointers"),
    _rule("AAWV2-NULL-005", "check", "nullptr",
          "161001: 传入的maxGradNormOptionalRef是空指针时 (the return-code table lists it "
          "unconditionally; cann: optional when amsgrad = false, erratum E11).",
          _DOC_RET, {"doc": _NULLPTR},
          violated=lambda c: c.tensor(MAX_GRAD_NORM) is None and not _amsgrad(c), step="null pointers"),
    *(_rule(f"AAWV2-NULL-{i + 6:03d}", "check", "nullptr",
            f"ACLNN_ERR_PARAM_NULLPTR 161001: 传入的{name}是空指针时.", _DOC_RET + "; " + _OP_API + " N5-N6",
            {"cann": _NULLPTR, "doc": _NULLPTR},
            violated=(lambda n: lambda c: c.tensor(n) is None)(name), step="null pointers")
      for i, name in enumerate(("grad", "step"))),
    # dtypes: each float tensor against the architecture's list, in parameter order (D1-D5)
    *(rule for i, name in enumerate(FLOAT_TENSORS) for rule in (
        _rule(f"AAWV2-DTYPE-{2 * i + 1:03d}", "check", "dtype",
              f"{name}: FLOAT16、BFLOAT16、FLOAT32 (161002 when the dtype is not supported"
              + ("; checked whenever maxGradNorm is non-NULL" if name == MAX_GRAD_NORM else "") + ").",
              _DOC_PARAMS + "; " + _DOC_RET + "; " + _OP_API + f" D{i + 1}",
              {"cann": _INVALID, "doc": _INVALID},
              violated=_dtype_outside(name, VAR_DTYPES), step="dtypes"),
        _rule(f"AAWV2-DTYPE-{2 * i + 2:03d}", "check", "dtype",
              f"{name}: BFLOAT16 is only in the dtype list of DAV_2201 and DAV_3510; the other "
              "architectures accept FLOAT and FLOAT16 only.",
              _OP_API + " (dtype list by NPU arch, notes section 4)",
              {"cann": _BF16_UNSUPPORTED},
              violated=_bf16(name), step="dtypes"))),
    _rule("AAWV2-DTYPE-011", "check", "dtype",
          "step: INT64、FLOAT32 (161002 when the dtype is not supported).",
          _DOC_PARAMS + "; " + _OP_API + " D6", {"cann": _INVALID, "doc": _INVALID},
          violated=_dtype_outside("step", STEP_DTYPES), step="dtypes"),
    _rule("AAWV2-DTYPE-012", "check", "dtype",
          "约束说明: varRef、mRef、vRef、grad的数据类型必须一致 (and maxGradNorm: 与varRef一致); "
          "cann accepts any mixture of the list (erratum E7).",
          "doc: 约束说明 and parameter table", {"doc": _INVALID},
          violated=_dtypes_mixed, step="dtypes"),
    _rule("AAWV2-FORMAT-001", "check", "format",
          "161002: varRef、mRef、vRef、maxGradNormOptionalRef、grad、step的数据格式不在支持的范围内时 (ND); "
          "cann: no format check (erratum E8).",
          _DOC_RET, {"doc": _INVALID}, violated=_not_nd, step="formats"),
    # shapes (S1-S5): view shapes, in this order
    _rule("AAWV2-SHAPE-001", "check", "shape", "161002: mRef和varRef的shape不一致时.",
          _DOC_RET + "; " + _OP_API + " S1", {"cann": _INVALID, "doc": _INVALID},
          violated=_shape_differs("mRef"), step="shapes"),
    _rule("AAWV2-SHAPE-002", "check", "shape", "161002: vRef和varRef的shape不一致时.",
          _DOC_RET + "; " + _OP_API + " S2", {"cann": _INVALID, "doc": _INVALID},
          violated=_shape_differs("vRef"), step="shapes"),
    _rule("AAWV2-SHAPE-003", "check", "shape",
          "161002: 当amsgrad为true时，maxGradNormOptionalRef和varRef的shape不一致时.",
          _DOC_RET + "; " + _OP_API + " S3", {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: _shape_differs(MAX_GRAD_NORM)(c) and _amsgrad(c), step="shapes"),
    _rule("AAWV2-SHAPE-004", "check", "shape",
          "maxGradNorm non-NULL with a shape other than varRef's while amsgrad = false: cann 161002 "
          "(checked whenever non-NULL, erratum E4); the document checks it only with amsgrad.",
          _OP_API + " S3", {"cann": _INVALID},
          violated=lambda c: _shape_differs(MAX_GRAD_NORM)(c) and not _amsgrad(c), step="shapes"),
    _rule("AAWV2-SHAPE-005", "check", "shape", "161002: grad和varRef的shape不一致时.",
          _DOC_RET + "; " + _OP_API + " S4", {"cann": _INVALID, "doc": _INVALID},
          violated=_shape_differs("grad"), step="shapes"),
    _rule("AAWV2-SHAPE-006", "check", "shape", "161002: step的shape大小不为1时 (元素个数为1).",
          _DOC_RET + "; " + _OP_API + " S5 (Numel() != 1: any rank, 0-d included)",
          {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: _numel(c, "step") != 1, step="shapes"),
    _rule("AAWV2-STRIDE-001", "check", "stride",
          "step: 非连续Tensor ×; cann: step is made contiguous, a non-contiguous step is accepted "
          "(erratum E9).", _DOC_PARAMS + "; " + _OP_API + " (Contiguous of step)",
          {"doc": ANY_ERROR}, violated=lambda c: _strided(c, "step"), step="shapes",
          note="one element is contiguous for opbase whatever its strides: the doc's x is read as "
               "strides other than the row-major ones"),
    _rule("AAWV2-RANK-001", "check", "rank",
          "varRef, mRef, vRef, maxGradNormOptionalRef, grad: 维度 1-8.",
          _DOC_PARAMS + "; cann: no rank check anywhere (erratum E12), outside the contract",
          {"cann": NOT_JUDGED, "doc": ANY_ERROR},
          violated=lambda c: not 1 <= len(_shape(c, "varRef")) <= 8, step="rank"),
    _rule("AAWV2-NULL-008", "check", "nullptr",
          "A NULL workspaceSize or executor out-pointer is written through without a check.",
          "src: op_api writes *workspaceSize unconditionally (notes 3.2, 5.3): a crash, not judged",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: bool({"workspaceSize", "executor"} & c.null_outputs), step="out pointers"),
    _rule("AAWV2-PRODUCT-002", "check", "product",
          "A non-empty call on a product without the operator's kernel fails when it is launched: any "
          "error status, in phase one or phase two (the host checks and the empty-var success come "
          "first).",
          "doc: 产品支持情况; src: no SoC check in the op_api, the launcher finds no kernel (notes 4, 5.3)",
          {"cann": ByProduct({p: UNCHECKED for p in SUPPORTED["cann"]}, ANY_ERROR)},
          violated=lambda c: not _var_empty(c), step="launch", phase="GetWorkspaceSize or Execute"),
    # ---- preconditions ----
    _rule("AAWV2-PRE-001", "precondition", "value",
          "step: 需要大于0 (the document's t).", _DOC_PARAMS, {"doc": NOT_JUDGED},
          violated=lambda c: step_value(c) <= 0),
    _rule("AAWV2-PRE-002", "precondition", "value",
          "vRef: 不能为负数; cann: not checked, sqrt of a negative v gives NaN (erratum E10).",
          _DOC_PARAMS, {"doc": NOT_JUDGED}, violated=_v_negative),
    _rule("AAWV2-PRE-003", "precondition", "format",
          "Private formats (storage shape other than the view's): no format check lets them through; "
          "what the kernel makes of them is outside the contract.",
          "src: binary configs FormatAgnostic, no op_api format check (notes 5.3)",
          {"cann": NOT_JUDGED}, violated=_private_format),
    # ---- values ----
    _rule("AAWV2-VAL-001", "value", "value",
          "m_t = β1·m_{t-1} + (1-β1)·g_t; v_t = β2·v_{t-1} + (1-β2)·g_t² (cann: torch's lerp and addcmul, "
          "one fused rounding each).", "doc: 计算公式; src: golden executor_aclnnApplyAdamWV2.py",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-002", "value", "value",
          "Bias correction: m̂ = m_t/(1-β1^t), v̂ = v_t/(1-β2^t); cann: lr/(1-β1^t) and "
          "sqrt(v)/sqrt(1-β2^t) + eps.", "doc: 计算公式; src: golden and kernels",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-003", "value", "value",
          "t: cann t = step + 1 (A2 step += 1, 950 Adds(step, 1), golden step + 1); the document: t = step "
          "(erratum E6).", "doc: step row; src: kernels and golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-004", "value", "value",
          "Weight decay: cann θ·(1 - lr·λ) on the current θ before the Adam step, any sign of λ; the "
          "document writes -η·λ·θ_{t-1} (erratum E5).", "doc: 计算公式; src: kernels and golden",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-005", "value", "value",
          "amsgrad: maxGradNormOptionalRef ← max(maxGradNorm, v_t) (NaN propagates), used in the "
          "denominator; vRef gets v_t itself.",
          "doc: maxGradNormOptionalRef row; src: kernels and golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-006", "value", "value",
          "amsgrad = false with maxGradNorm given: it is written back unchanged and not used.",
          "src: op_api ViewCopy of a non-NULL maxGradNorm; kernels", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-007", "value", "value",
          "maximize: g ← -g before the moments.", "doc: maximize row; src: kernels and golden",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-008", "value", "value",
          "Mixed dtypes: every tensor's own dtype from the list; computed in float32 from the exact "
          "up-casts, each output rounded once to its own tensor's dtype (erratum E7).",
          "src: op_api dtype routing (notes 5.2 C), mixed kernel", {"cann": JUDGED}),
    _rule("AAWV2-VAL-009", "value", "value",
          "FLOAT16/BFLOAT16 outputs: computed in float32, rounded once at the end. float16: to nearest "
          "even. bfloat16: Atlas A2/A3 CAST_ROUND (its tie direction is not settled: either neighbour "
          "is accepted at an exact tie), Ascend 950 to nearest even.",
          "src: A2/A3 kernels CAST_RINT / CAST_ROUND, 950 CAST_RINT; golden .to(dtype)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-010", "value", "value",
          "step: INT64 converted to float32 (RNE), FLOAT32 used as it is (fractional steps included); "
          "its value is never checked.", "src: kernels Cast(step), golden float(step)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-011", "value", "value",
          "lr, beta1, beta2, weightDecay, eps are C floats, used as they are: no range check.",
          _DOC_PARAMS + "; src: op_api passes them through", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-012", "value", "value",
          "NaN and Inf in any input propagate through the arithmetic (no special handling).",
          "src: kernels and golden", {"cann": JUDGED, "doc": NOT_JUDGED}, violated=_nonfinite_inputs),
    _rule("AAWV2-VAL-013", "value", "value",
          "varRef empty: success, workspace 0, nothing launched, nothing written (on every product).",
          "src: op_api IsEmpty(varRef) before the launch (notes 5.2 E1)", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-014", "value", "value",
          "Non-contiguous tensors (非连续Tensor √): refs are updated in place through their views, "
          "nothing outside a view is written; cann: a non-contiguous step too.",
          _DOC_PARAMS + "; src: op_api Contiguous/ViewCopy", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-015", "value", "value",
          "Formats other than ND that keep the view's storage shape (NCHW, NHWC, ...) are accepted and "
          "computed element-wise.", "src: no op_api format check (erratum E8)", {"cann": JUDGED}),
    _rule("AAWV2-VAL-016", "value", "value",
          "aclnnApplyAdamWV2默认确定性实现.", "doc: 约束说明, 确定性计算", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-017", "value", "value",
          "Rank: a step of any rank (0-d included) with one element, and tensors of rank 1-8.",
          _OP_API + " (Numel() == 1)", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWV2-VAL-018", "value", "value",
          "The arithmetic is float32 inside the arithmetic model (ARITHMETIC in this "
          "module): faithful sqrt, pow and division, fused or unfused multiply-adds, the "
          "vendor's orders; a correct implementation's errors lean one way only as far as the "
          "per-call scalars and the faithful operations let them (no systematic bias).",
          "src: golden, A2/A3 and 950 kernels (notes 6.2); design: the arithmetic model",
          {"cann": JUDGED}),
)

ERRATA = (
    Erratum("AAWV2-ERRATUM-E4", OP, "maxGradNorm shape mismatch is an error when amsgrad is true",
            "dtype and shape are checked whenever maxGradNorm is non-NULL", "op_api D4, S3"),
    Erratum("AAWV2-ERRATUM-E5", OP, "θ_{t+1} = θ_t - η·m̂/(sqrt(v̂)+ε) - η·λ·θ_{t-1}",
            "θ·(1-ηλ) on the current θ before the Adam step (torch AdamW order)", "kernels, golden"),
    Erratum("AAWV2-ERRATUM-E6", OP, "step is t and must be > 0",
            "t = step + 1; no value check (torch_npu passes step - 1)", "kernels, golden"),
    Erratum("AAWV2-ERRATUM-E7", OP, "var, m, v, grad dtypes must be identical",
            "any dtype of the list per tensor; computed in float32, each output cast to its own dtype",
            "op_api dtype routing"),
    Erratum("AAWV2-ERRATUM-E8", OP, "161002 when the data format is not supported (ND)",
            "no format check", "op_api; binary configs FormatAgnostic"),
    Erratum("AAWV2-ERRATUM-E9", OP, "step non-contiguous: ×", "step is made contiguous: accepted",
            "op_api"),
    Erratum("AAWV2-ERRATUM-E10", OP, "vRef must not be negative", "not checked; sqrt(<0) = NaN",
            "op_api, kernels"),
    Erratum("AAWV2-ERRATUM-E11", OP, "161001 when maxGradNormOptionalRef is NULL",
            "only when amsgrad", "op_api N4"),
    Erratum("AAWV2-ERRATUM-E12", OP, "rank 1-8", "no rank check", "op_api"),
    Erratum("AAWV2-ERRATUM-PRODUCT", OP, "unsupported products: not supported (any call)",
            "no SoC check: host checks run as anywhere (bf16 rejected with 161002), an empty var "
            "succeeds, a valid call fails only at the launch", "op_api; notes section 4"),
)

SPEC = OpSpec(
    key=OP, api=API, rule_prefix="AAWV2", doc=DOC, params=PARAMS, rules=RULES, supported=SUPPORTED,
    outputs=OUTPUTS,
    standards={"cann": {n: "model-bound@3" for n in OUTPUTS},
               "doc": {n: "mere-mare" for n in OUTPUTS}},
    errata=ERRATA,
    check_steps=CHECK_STEPS,
)


# What a correct implementation may and may not do to the arithmetic (the model-derived
# standards accept exactly the results of implementations inside it).
ARITHMETIC = ArithmeticModel(
    OP, "2",
    order="the golden's (torch single-tensor AdamW in float32): t = step + 1; g = -grad if "
          "maximize; p = var*(1 - lr*wd); m1 = lerp(m, g, 1 - beta1); v1 = v*beta2 + "
          "(1 - beta2)*g*g; vv = max(maxGradNorm, v1) with amsgrad; var' = p + "
          "((-lr/(1 - beta1^t))*m1)/(sqrt(vv)/sqrt(1 - beta2^t) + eps); or the A2/A3 "
          "kernels' (m1 = (g - m)*(1 - b1) + m, var' = p - (m1/(sqrt(vv)*(1/sqrt(1 - "
          "beta2^t)) + eps))*(lr/(1 - beta1^t))) and the 950 kernel's (m1 = m*b1 - g*(b1 - 1), "
          "var' = p + (lr/(beta1^t - 1))*(m1/(sqrt(vv)/sqrt(1 - beta2^t) + eps))) orders of "
          "the same real expression; each output cast once to its own tensor's dtype",
    correctly_rounded=("add", "subtract", "multiply", "float32 <- float arguments (exact)",
                       "fp16/bf16 -> float32 (exact)"),
    faithful=("sqrt", "pow", "divide"),
    reciprocal_division=True,
    fused_multiply_add=True,
    # A2/A3 round bf16 with CAST_ROUND in the native kernels, whose tie direction the notes
    # leave open (and the Cast operator of the mixed-dtype route is [INF]); fp16 CAST_RINT; the
    # 950 kernel rounds every output to even (notes apply_adam_w.md section 6.2)
    final_cast={**{p: {"float32": "none", "float16": ROUND_NEAREST_EVEN, "bfloat16": ROUND_EITHER_TIE}
                   for p in ("atlas-a3", "atlas-a2")},
                "ascend950": RNE_CASTS},
    may=("compute sqrt, pow and division faithfully: either float32 neighbour of the exact result",
         "divide as a faithful reciprocal times the dividend",
         "fuse any multiply-add (torch's lerp and addcmul are fused in the golden) or not",
         "evaluate in the golden's or either kernel's order, the per-call scalars (beta^t, "
         "1 - lr*wd, lr/(1 - beta1^t), sqrt(1 - beta2^t)) once per call",
         "round a bfloat16 output of A2/A3 either way at an exact tie"),
    may_not=("t = step, decay after the step or only for wd > 0, eps added before the bias "
             "correction",
             "the amsgrad maximum written into vRef, maximize ignored",
             "round twice or truncate the final cast; round bfloat16 on Ascend 950 other than "
             "to nearest even",
             "a systematic bias beyond what the per-call scalars and faithful operations can lean",
             "other constants (hyper-parameters kept in double, a 32-bit step)"),
    source="notes apply_adam_w.md section 6.2; oracle/apply_adam_w_v2.py")


# The kernel-level vendor tests' input order (the OpDef's), onto the parameters.
KERNEL_INPUTS = KernelMapping(
    kernel_op="apply_adam_w_v2",
    inputs=("varRef", "mRef", "vRef", "grad", "step", "maxGradNormOptionalRef"),
    attrs={"lr": "lr", "beta1": "beta1", "beta2": "beta2", "weight_decay": "weightDecay",
           "eps": "eps", "amsgrad": "amsgrad", "maximize": "maximize"},
    source="ops-nn optim/apply_adam_w_v2/op_host/apply_adam_w_v2_def.cpp:28-82 "
           "(var, m, v, grad, step, max_grad_norm; attrs lr..maximize)")

OPERATOR = Operator(
    spec=SPEC,
    arithmetic_model=ARITHMETIC,
    oracle="aclnn_conformance.oracle.apply_adam_w_v2:from_case",
    base_call="aclnn_conformance.suites.calls.apply_adam_w_v2:base_call",
    table_cases="aclnn_conformance.suites.calls.apply_adam_w_v2:table_cases",
    fault_bases="aclnn_conformance.suites.calls.apply_adam_w_v2:FAULT_BASES",
    faults="aclnn_conformance.suites.faults.apply_adam_w_v2:FAULTS",
    strategies="aclnn_conformance.suites.strategies.apply_adam_w_v2:STRATEGIES",
    emulator="aclnn_conformance.backends.emulator.apply_adam_w_v2:get_workspace_size",
    torch="aclnn_conformance.backends.torch_backend.apply_adam_w_v2:run",
    mutants="aclnn_conformance.backends.mutants.apply_adam_w_v2:MUTANT_SET",
    relations="aclnn_conformance.suites.test_apply_adam_w_v2:RELATION_RULES",
    sensitivity="aclnn_conformance.suites.calls.apply_adam_w_v2:sensitivity_targets",
    kernel_inputs=KERNEL_INPUTS,
    determinism_rules=("AAWV2-VAL-016",),
    modules=(
        "aclnn_conformance.spec.apply_adam_w_v2",
        "aclnn_conformance.oracle.apply_adam_w_v2",
        "aclnn_conformance.suites.calls.apply_adam_w_v2",
        "aclnn_conformance.suites.faults.apply_adam_w_v2",
        "aclnn_conformance.suites.strategies.apply_adam_w_v2",
        "aclnn_conformance.suites.test_apply_adam_w_v2",
        "aclnn_conformance.backends.emulator.apply_adam_w_v2",
        "aclnn_conformance.backends.torch_backend.apply_adam_w_v2",
        "aclnn_conformance.backends.mutants.apply_adam_w_v2",
    ),
)
