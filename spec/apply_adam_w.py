"""The executable specification of aclnnApplyAdamW (the AdamW step whose hyper-parameters are
one-element tensors and whose caller passes beta^(t-1)).

Document: ../shared/docs/aclnnApplyAdamW.md. Vendor behaviour behind the ``cann`` profile: the
hand-written op_api layer, the Ascend 950 tiling and kernel, the numpy golden and the runtime's
launcher, as summarised in notes/apply_adam_w.md (sections 2-6; the errata are section 5.4).

The op_api checks run in this order (notes 5.1): null pointers (161001), dtypes in the NPU
architecture's list then equal to varRef's (161002), view shapes (161002), then an empty varRef
returns success with nothing launched. ``CREATE_EXECUTOR()`` failing (561101) cannot be provoked by
a call and has no rule. Nothing checks the product: on a product without a kernel every host check
runs as on Ascend 950 and a valid call fails in the launch (notes 4, 5.3).
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import PRIVATE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.kernel_mapping import KernelMapping
from aclnn_conformance.spec.operator import Operator
from aclnn_conformance.spec.precision import ArithmeticModel, RNE_CASTS
from aclnn_conformance.spec.rules import (rule_maker, ANY_ERROR, JUDGED, LAUNCH_ERROR, NOT_JUDGED, STATUS, UNCHECKED,
                                          ByProduct, Erratum, OpSpec, Rule)

OP = "apply_adam_w"
API = "aclnnApplyAdamW"
DOC = "../shared/docs/aclnnApplyAdamW.md"
NOTES = "notes/apply_adam_w.md"

# The eleven required tensors in the op_api's null-check order, then the optional one.
REQUIRED = ("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1",
            "beta2", "eps", "grad")
MAX_GRAD_NORM = "maxGradNormOptional"
TENSORS = REQUIRED + (MAX_GRAD_NORM,)
# The seven hyper-parameter tensors: one element each, in varRef's dtype.
SCALARS = ("beta1Power", "beta2Power", "lr", "weightDecay", "beta1", "beta2", "eps")
# Tensors shaped like varRef, in the op_api's shape-check order (maxGradNorm between vRef and grad).
SHAPED = ("mRef", "vRef", MAX_GRAD_NORM, "grad")
OUTPUTS = ("varRef", "mRef", "vRef")
ATTRS = ("amsgrad", "maximize")
VAR_DTYPES = (DT.FLOAT16, DT.BF16, DT.FLOAT)

# The op_api picks its dtype list by NPU architecture (notes 4): DAV_1001 (Atlas training) has no
# BFLOAT16; DAV_2201, DAV_3510 and every other architecture have all three.
ARCH_DTYPES: dict[str, tuple[DT, ...]] = {"atlas-training": (DT.FLOAT, DT.FLOAT16)}


def arch_dtypes(product: str) -> tuple[DT, ...]:
    return ARCH_DTYPES.get(product, VAR_DTYPES)


_DOC_ROW = "doc: GetWorkspaceSize parameter table"
_SAME = "与varRef保持一致 (same as varRef)"
PARAMS = (
    Param("varRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "theta in the formula, updated in place", doc_row="FLOAT16、BFLOAT16、FLOAT32 | ND | 1-8 | √"),
    Param("mRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "shape要求与输入varRef保持一致 (shape as varRef)", doc_row=f"{_SAME} | ND | 1-8 | √"),
    Param("vRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "shape要求与输入varRef保持一致 (shape as varRef)", doc_row=f"{_SAME} | ND | 1-8 | √"),
    *(Param(name, "input", VAR_DTYPES, (F.ND,), (1,), "yes", f"{what}; shape要求为[1] (shape [1])",
            doc_row=f"{_SAME} | ND | 1 | √")
      for name, what in (("beta1Power", "beta1^(t-1)"), ("beta2Power", "beta2^(t-1)"),
                         ("lr", "learning rate eta, usually 1e-3, 1e-6, 1e-9"),
                         ("weightDecay", "weight decay lambda"), ("beta1", "beta1"),
                         ("beta2", "beta2"), ("eps", "guards the division against 0"))),
    Param("grad", "input", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "g in the formula; shape as varRef", doc_row=f"{_SAME} | ND | 1-8 | √"),
    Param(MAX_GRAD_NORM, "input", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "required when amsgrad is true, optional otherwise; shape as varRef", optional=True,
          doc_row=f"{_SAME} | ND | 1-8 | √"),
    Param("amsgrad", "attr", (DT.BOOL,), (), (), "-", "whether maxGradNormOptional is used", c_kind="bool"),
    Param("maximize", "attr", (DT.BOOL,), (), (), "-", "negate grad: gradient ascent", c_kind="bool"),
    Param("workspaceSize", "output", (DT.UINT64,), (), (), "-", "the workspace size on the device", c_kind="workspace_size"),
    Param("executor", "output", (), (), (), "-", "the op executor", c_kind="executor"),
)

SUPPORTED = {"cann": frozenset({"ascend950"}), "doc": frozenset({"ascend950"})}


# ---- predicates over a call ----

def _dtype(case: Case, name: str) -> DT | None:
    d = case.desc(name)
    return None if d is None else d.dtype


def _amsgrad(case: Case) -> bool:
    return bool(case.attrs.get("amsgrad", False))


def _mgn_given(case: Case, amsgrad: bool) -> bool:
    return case.tensor(MAX_GRAD_NORM) is not None and _amsgrad(case) == amsgrad


def _var_empty(case: Case) -> bool:
    return case.desc("varRef").is_empty()


def _nonfinite_inputs(case: Case) -> bool:
    return any(case.tensor(n) is not None
               and not np.isfinite(case.tensor(n).values().astype(np.float32)).all()
               for n in ("varRef", "mRef", "vRef", "grad", MAX_GRAD_NORM))


def _unit_beta_power(case: Case) -> bool:
    def one_element(name: str) -> np.float32:
        return np.float32(case.tensor(name).values().reshape(-1)[0])
    with np.errstate(all="ignore"):
        return any(one_element(p) * one_element(b) == np.float32(1)
                   for p, b in (("beta1Power", "beta1"), ("beta2Power", "beta2")))


def _private_format(case: Case) -> bool:
    return any(case.desc(n) is not None and case.desc(n).format in PRIVATE_FORMATS for n in TENSORS)


# ---- the rules ----

_rule = rule_maker(OP)

_NULLPTR = STATUS(Status.ERR_PARAM_NULLPTR)
_INVALID = STATUS(Status.ERR_PARAM_INVALID)
_OP_API = f"src: op_api aclnn_apply_adam_w.cpp ({NOTES} 5.1)"

# What a valid call returns on Atlas A2/A3, from the vendor's source (repository, commit, path, line).
_OPS_NN = "hicann/ops-nn@e5c3fa9327ea95ba26d06227e746923580d10921"
_OPBASE = "hicann/opbase@aa3cd74b7f6d772acd64ff48292a7e65a9bc8142"
A2_A3_EVIDENCE = (
    f"{_OPS_NN} optim/apply_adam_w/CMakeLists.txt:12 (SUPPORT_COMPUTE_UNIT \"ascend950\": the "
    f"built-in package compiles the op for Ascend 950 only)",
    f"{_OPS_NN} scripts/kernel/binary_config/ascendc_config.json:551 (ApplyAdamW compute_units "
    f"[\"ascend950\"]: no kernel binary for ascend910b or ascend910_93)",
    f"{_OPS_NN} optim/apply_adam_w/op_host/apply_adam_w_def.cpp:63 (AICore AddConfig ascend950 only)",
    f"{_OPS_NN} experimental/optim/apply_adam_w/op_host/apply_adam_w_def.cpp:61 (AddConfig "
    f"ascend910b), built only with ENABLE_EXPERIMENTAL: CMakeLists.txt:63 (default OFF), "
    f"cmake/func.cmake:405-406, build.sh:509 (not with the built-in package types)",
    f"{_OPS_NN} optim/apply_adam_w/op_api/aclnn_apply_adam_w.cpp:42-59 (the NPU arch only picks a "
    f"dtype list), :208-210 (l0op::ApplyAdamW), :231 (returns ACLNN_SUCCESS)",
    f"{_OPS_NN} optim/apply_adam_w/op_api/apply_adam_w.cpp:37-44 (the launcher's status only "
    f"logged, the outputs returned)",
    f"{_OPBASE} src/nnopbase/composite_op/aclnn_engine/op_executor.cpp:1104-1116 (the kernel "
    f"lookup's status returned after the launcher is added)",
    f"{_OPBASE} src/nnopbase/common/inc/kernel_mgr.h:49-69 (phase 2: the kernel looked up again, "
    f"ACLNN_ERR_INNER when not found), src/nnopbase/composite_op/aclnn_engine/op_kernel.h:648-650 "
    f"(ACLNN_ERR_INNER_NULLPTR when its tiling fails)",
)
_DOC_CODES = "doc: 返回值 table"

CHECK_STEPS = ("null pointers", "dtypes", "shapes", "documented layout", "out-pointers", "product")

RULES: tuple[Rule, ...] = (
    # ---- null pointers (N1..N12) ----
    *(_rule(f"AAW-NULL-{i + 1:03d}", "check", "nullptr",
            f"ACLNN_ERR_PARAM_NULLPTR 161001: 传入的计算输入参数是空指针时 ({name} is NULL).",
            f"{_DOC_CODES}; {_OP_API} N{i + 1}",
            {"cann": _NULLPTR, "doc": _NULLPTR},
            violated=(lambda n: lambda c: c.tensor(n) is None)(name), step="null pointers")
      for i, name in enumerate(REQUIRED)),
    _rule("AAW-NULL-012", "check", "nullptr",
          "161001: 当amsgrad为true时，maxGradNormOptional为空指针时 (NULL maxGradNorm with amsgrad).",
          f"{_DOC_CODES}; {_OP_API} N12",
          {"cann": _NULLPTR, "doc": _NULLPTR},
          violated=lambda c: _amsgrad(c) and c.tensor(MAX_GRAD_NORM) is None, step="null pointers"),
    # ---- dtypes: in the architecture's list (D1..D11), equal to varRef's (D12..D21) ----
    *(_rule(f"AAW-DTYPE-{i + 1:03d}", "check", "dtype",
            f"{name}: FLOAT16, BFLOAT16, FLOAT32 (传入的计算输入的数据类型不在支持的范围内时 161002).",
            f"{_DOC_ROW}; {_DOC_CODES}; {_OP_API} D{i + 1}",
            {"cann": _INVALID, "doc": _INVALID},
            violated=(lambda n: lambda c: _dtype(c, n) not in VAR_DTYPES)(name), step="dtypes")
      for i, name in enumerate(REQUIRED)),
    _rule("AAW-DTYPE-012", "check", "dtype",
          "On Atlas training products (DAV_1001) the op_api's dtype list is FLOAT32, FLOAT16: a "
          "BFLOAT16 tensor is rejected by the list check.",
          f"{_OP_API} D1..D11, arch list (notes 4)",
          {"cann": ByProduct({"atlas-training": _INVALID}, UNCHECKED)},
          violated=lambda c: any(_dtype(c, n) == DT.BF16 for n in TENSORS), step="dtypes",
          note="status-equivalent to the per-tensor list checks, which run first"),
    *(_rule(f"AAW-DTYPE-{i + 13:03d}", "check", "dtype",
            f"{name}: 与varRef保持一致 (传入的计算输入的数据类型不一致时 161002).",
            f"{_DOC_ROW}; {_DOC_CODES}; {_OP_API} D{i + 12}",
            {"cann": _INVALID, "doc": _INVALID},
            violated=(lambda n: lambda c: _dtype(c, n) != _dtype(c, "varRef"))(name), step="dtypes")
      for i, name in enumerate(REQUIRED[1:])),
    _rule("AAW-DTYPE-023", "check", "dtype",
          "amsgrad true: maxGradNormOptional dtype in the list and equal to varRef's "
          "(当amsgrad为true时，maxGradNormOptional和varRef的数据类型不一致时 161002).",
          f"{_DOC_CODES}; {_OP_API} D22, D23",
          {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: _mgn_given(c, True) and _dtype(c, MAX_GRAD_NORM) != _dtype(c, "varRef"),
          step="dtypes"),
    _rule("AAW-DTYPE-024", "check", "dtype",
          "amsgrad false: a given maxGradNormOptional is dtype-checked all the same (the document "
          "names the check for amsgrad true only).",
          f"{_OP_API} D22, D23 (whatever amsgrad); erratum E4",
          {"cann": _INVALID},
          violated=lambda c: _mgn_given(c, False) and _dtype(c, MAX_GRAD_NORM) != _dtype(c, "varRef"),
          step="dtypes"),
    # ---- shapes (S1..S5) ----
    *(_rule(f"AAW-SHAPE-{i + 1:03d}", "check", "shape",
            f"{name}: shape要求与输入varRef保持一致 (传入的计算输入的shape不一致时 161002).",
            f"{_DOC_ROW}; {_DOC_CODES}; {_OP_API} S{idx}",
            {"cann": _INVALID, "doc": _INVALID},
            violated=(lambda n: lambda c: c.desc(n).shape != c.desc("varRef").shape)(name),
            step="shapes")
      for i, (name, idx) in enumerate((("mRef", 1), ("vRef", 2)))),
    _rule("AAW-SHAPE-003", "check", "shape",
          "amsgrad true: maxGradNormOptional shape equal to varRef's "
          "(当amsgrad为true时，maxGradNormOptional和varRef的shape不一致时 161002).",
          f"{_DOC_CODES}; {_OP_API} S3",
          {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: _mgn_given(c, True) and c.desc(MAX_GRAD_NORM).shape != c.desc("varRef").shape,
          step="shapes"),
    _rule("AAW-SHAPE-004", "check", "shape",
          "amsgrad false: a given maxGradNormOptional is shape-checked all the same.",
          f"{_OP_API} S3 (whatever amsgrad); erratum E4",
          {"cann": _INVALID},
          violated=lambda c: _mgn_given(c, False) and c.desc(MAX_GRAD_NORM).shape != c.desc("varRef").shape,
          step="shapes"),
    _rule("AAW-SHAPE-005", "check", "shape",
          "grad: shape要求与输入varRef保持一致 (161002).",
          f"{_DOC_ROW}; {_DOC_CODES}; {_OP_API} S4",
          {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: c.desc("grad").shape != c.desc("varRef").shape, step="shapes"),
    _rule("AAW-SHAPE-006", "check", "shape",
          "beta1Power、beta2Power、lr、weightDecay、beta1、beta2、eps的shape大小不为1时 161002 "
          "(one combined element-count check).",
          f"{_DOC_CODES}; {_OP_API} S5 (Numel() != 1)",
          {"cann": _INVALID, "doc": _INVALID},
          violated=lambda c: any(c.desc(n).numel != 1 for n in SCALARS), step="shapes"),
    # ---- what the document states and nothing checks ----
    _rule("AAW-SHAPE-007", "check", "shape",
          "beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps: shape要求为[1], rank 1.",
          f"{_DOC_ROW}; cann: only the element count is checked ([], [1], [1,1] pass), erratum E3",
          {"doc": ANY_ERROR},
          violated=lambda c: any(c.desc(n).shape != (1,) for n in SCALARS), step="documented layout"),
    _rule("AAW-FORMAT-001", "check", "format",
          "Every tensor: data format ND.",
          f"{_DOC_ROW}; cann: no format check anywhere (binary configs FormatAgnostic), erratum E8",
          {"doc": ANY_ERROR},
          violated=lambda c: any(c.desc(n) is not None and c.desc(n).format != F.ND for n in TENSORS),
          step="documented layout"),
    _rule("AAW-RANK-001", "check", "rank",
          "varRef, mRef, vRef, grad, maxGradNormOptional: dimension 1-8.",
          f"{_DOC_ROW}; cann: no rank check, erratum E12",
          {"doc": ANY_ERROR},
          violated=lambda c: any(c.desc(n) is not None and not 1 <= c.desc(n).ndim <= 8
                                 for n in ("varRef", "mRef", "vRef", "grad", MAX_GRAD_NORM)),
          step="documented layout"),
    # ---- out-pointers: dereferenced without a check ----
    _rule("AAW-NULL-013", "check", "nullptr",
          "A NULL workspaceSize out-pointer is written without a check (a crash).",
          f"{_OP_API} (*workspaceSize written unconditionally, notes 3.1 and 5.3)",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: "workspaceSize" in c.null_outputs, step="out-pointers",
          note="no fault case: a crash is never a conformance outcome"),
    _rule("AAW-NULL-014", "check", "nullptr",
          "A NULL executor out-pointer is used without a check (a crash).",
          f"{_OP_API} (notes 5.3)",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: "executor" in c.null_outputs, step="out-pointers",
          note="no fault case: a crash is never a conformance outcome"),
    # ---- product ----
    _rule("AAW-PRODUCT-001", "check", "product",
          "产品支持情况: Ascend 950PR/950DT 支持; Atlas A3, Atlas A2, Atlas 200I/500 A2, Atlas "
          "inference, Atlas training 不支持.",
          "doc: 产品支持情况",
          {"doc": ByProduct({"ascend950": UNCHECKED}, ANY_ERROR)},
          violated=lambda c: True, step="product"),
    _rule("AAW-PRODUCT-002", "check", "product",
          "No SoC check: on a product without the kernel every host check runs as on Ascend 950, an "
          "empty varRef succeeds, and a valid call fails when launched. Atlas A2/A3: the built-in "
          "package has no ApplyAdamW kernel for them, so GetWorkspaceSize returns 0 and the launch "
          "fails (any error code: the runtime's lookup fails with 561000, or its tiling with "
          "561103, depending on what the installed kernel store holds for the op); the experimental "
          "A2 kernel exists only in a custom package built with --experimental, outside the cann "
          "profile. Other products: any error, in either phase.",
          "; ".join(A2_A3_EVIDENCE) + f"; {NOTES} 4, 5.3; erratum E1",
          {"cann": ByProduct({"ascend950": UNCHECKED, "atlas-a2": LAUNCH_ERROR,
                              "atlas-a3": LAUNCH_ERROR}, ANY_ERROR)},
          violated=lambda c: not _var_empty(c), step="product", phase="Execute",
          note="the launcher's kernel lookup and tiling fail in phase 1 without effect on its "
               "status (the L0 function only logs it); the second phase looks the kernel up again "
               "and fails"),
    # ---- preconditions ----
    _rule("AAW-PRE-001", "precondition", "format",
          "A private format (NC1HWC0, FRACTAL_NZ...) has a storage shape other than its view: "
          "accepted (no format check), its values are not judged.",
          f"{NOTES} 5.3 [INF]: formats are not checked; private formats treated as not judged",
          {"cann": NOT_JUDGED}, violated=_private_format),
    _rule("AAW-PRE-002", "precondition", "value",
          "beta1Power*beta1 and beta2Power*beta2 differ from 1 in float32 (1 - beta^t is a divisor). "
          "A BFLOAT16 beta2 = 0.999 is 1.0, so 1 - beta2^t = 0: the golden's v/(+0) gives var_t, the "
          "Ascend 950 kernel's (-v)/(+0) gives NaN; nothing checks it.",
          f"{NOTES} 6.1 (the two orders); design: values not judged",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED}, violated=_unit_beta_power),
    # ---- value rules ----
    _rule("AAW-VAL-001", "value", "value",
          "maximize: g_t = -g_t when maximize is true, g_t otherwise.", "doc: 计算公式; src: golden, kernel",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-002", "value", "value",
          "m_t = beta1*m_{t-1} + (1-beta1)*g_t; v_t = beta2*v_{t-1} + (1-beta2)*g_t^2 "
          "(cann: m*b1 - (b1-1)*g and v*b2 - ((b2-1)*g)*g in float32).",
          "doc: 计算公式; src: golden.py", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-003", "value", "value",
          "beta1^t = beta1Power*beta1, beta2^t = beta2Power*beta2: the caller passes beta^(t-1); "
          "the kernel multiplies once more and never writes the powers back.",
          "doc: beta1Power row 'beta1^(t-1)', 计算公式; src: kernel DAG, golden",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-004", "value", "value",
          "Bias correction and eps: denom = sqrt(v_t/(1-beta2^t)) + eps; the step is "
          "lr*(m_t/(beta1^t - 1))/denom, added to theta.",
          "doc: 计算公式 (m_hat, v_hat); src: golden.py order", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-005", "value", "value",
          "Weight decay: theta*(1 - lr*weightDecay) before the Adam step is added, applied for every "
          "sign of weightDecay (the document writes - eta*lambda*theta_{t-1}).",
          "doc: 计算公式; src: golden, kernel (erratum E5)", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-006", "value", "value",
          "amsgrad (cann): max(maxGradNorm, v_t) enters the denominator only; vRef receives the "
          "un-maxed v_t and maxGradNorm is never written. doc: vRef stores max(maxGradNorm, v_t).",
          "doc: maxGradNormOptional row; src: kernel DAG, golden, experimental kernel (erratum E2)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-007", "value", "value",
          "amsgrad false: a given maxGradNormOptional is neither used nor written.",
          "doc: 如果amsgrad=false，在vRef中的值不做额外计算; src: golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-008", "value", "value",
          "FLOAT16/BFLOAT16: every tensor up-cast to float32 (the hyper-parameters with their "
          "16-bit values), computed in float32, var/m/v rounded once to the dtype at the end "
          "(Ascend 950: CAST_RINT, to nearest even).",
          "src: kernel Vec::Cast<T, float, 1>, golden (notes 6.1)", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-009", "value", "value",
          "NaN and Inf in the inputs propagate through the arithmetic; max() with NaN gives NaN.",
          "src: golden np.maximum, kernel (notes 6.3)", {"cann": JUDGED, "doc": NOT_JUDGED},
          violated=_nonfinite_inputs),
    _rule("AAW-VAL-010", "value", "value",
          "Empty varRef (0 elements): success, workspace 0, nothing launched, nothing written.",
          f"{_OP_API} E1", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-011", "value", "value",
          "Non-contiguous tensors (every row √): refs updated in place through their views, "
          "nothing outside the views written.", f"{_DOC_ROW}; {_OP_API} ViewCopy",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-012", "value", "value",
          "The hyper-parameter tensors take any shape of one element ([], [1], [1,1]) and any "
          "strides.", f"{_OP_API} S5 only counts elements; erratum E3", {"cann": JUDGED}),
    _rule("AAW-VAL-013", "value", "value",
          "Any data format is accepted and computed (element-wise over the view).",
          f"{NOTES} 5.3: no format check; erratum E8", {"cann": JUDGED}),
    _rule("AAW-VAL-014", "value", "value",
          "The inputs (grad, the seven hyper-parameters, maxGradNorm) are never written.",
          "doc: 输入 rows; src: op_api copies back var, m, v only", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-015", "value", "value",
          "aclnnApplyAdamW默认确定性实现 (deterministic).", "doc: 约束说明", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAW-VAL-016", "value", "value",
          "The arithmetic is float32 inside the arithmetic model (ARITHMETIC in this "
          "module): faithful sqrt and division, fused or unfused multiply-adds, the "
          "golden's or a kernel's order; a correct implementation's errors lean one way only as "
          "far as the per-call scalars and the faithful operations let them (no systematic bias).",
          "src: golden, 950 kernel (notes 6.1); design: the arithmetic model", {"cann": JUDGED}),
)

ERRATA = (
    Erratum("AAW-ERRATUM-E1", OP, "Atlas A2, A3 不支持 (the README says supported)",
            "OpDef ascend950 only, no SoC check: host checks everywhere; valid calls fail at the "
            "launch (A2/A3: GetWorkspaceSize returns 0, the launch fails: no kernel in the built-in "
            "package)", f"{NOTES} 4; " + A2_A3_EVIDENCE[1]),
    Erratum("AAW-ERRATUM-E2", OP, "amsgrad: vRef stores max(maxGradNorm, v)",
            "vRef gets v_t; the max only feeds the denominator; maxGradNorm never written",
            "kernel DAG, golden, experimental kernel"),
    Erratum("AAW-ERRATUM-E3", OP, "hyper-parameter tensors: shape [1], rank 1",
            "only the element count is checked ([], [1,1] pass)", "op_api S5"),
    Erratum("AAW-ERRATUM-E4", OP, "maxGradNorm dtype/shape mismatch is an error when amsgrad is true",
            "checked whenever maxGradNorm is non-NULL", "op_api D22, D23, S3"),
    Erratum("AAW-ERRATUM-E5", OP, "decay term -eta*lambda*theta_{t-1}",
            "theta*(1-lr*wd) on the current theta, before adding the Adam step", "golden, kernel"),
    Erratum("AAW-ERRATUM-E8", OP, "data format ND", "no format check at all", "op_api, binary configs"),
    Erratum("AAW-ERRATUM-E12", OP, "rank 1-8", "no rank check", "op_api"),
)

SPEC = OpSpec(
    key=OP, api=API, rule_prefix="AAW", doc=DOC, params=PARAMS, rules=RULES, supported=SUPPORTED,
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
    order="the golden's: g = -grad if maximize; m1 = m*b1 - (b1 - 1)*g; v1 = v*b2 - "
          "((b2 - 1)*g)*g; var_t = var*(1 - lr*wd); b1t = beta1Power*b1; b2t = "
          "beta2Power*b2; vv = max(maxGradNorm, v1) with amsgrad; var' = var_t + "
          "(lr*(m1/(b1t - 1)))/(sqrt(vv/(1 - b2t)) + eps); or the 950 kernel's order "
          "(((lr/(b1t - 1))*m1)/denom, (-vv)/(b2t - 1)) or the experimental A2 kernel's "
          "(m*b1 + g*(1 - b1), sqrt(vv*(1/(1 - b2t))), (m1/denom)*(lr/(b1t - 1)))",
    correctly_rounded=("add", "subtract", "multiply", "fp16/bf16 -> float32 (exact)"),
    faithful=("sqrt", "divide"),
    reciprocal_division=True,
    fused_multiply_add=True,
    # only Ascend 950 runs a kernel (ops-nn ascendc_config.json: ApplyAdamW compute_units
    # ascend950); its Vec::Cast<T, float, 1> is CAST_RINT (notes apply_adam_w.md section 6.1)
    final_cast={"ascend950": RNE_CASTS},
    may=("compute sqrt and division faithfully", "divide as a reciprocal times",
         "fuse any multiply-add or not",
         "evaluate in the golden's, the 950 kernel's or the experimental A2 kernel's order"),
    may_not=("decay after the step or only for wd > 0, beta^t instead of beta^(t-1)*beta, eps "
             "under the square root",
             "the amsgrad maximum written into vRef, maximize ignored",
             "round twice or truncate the final cast",
             "a systematic bias beyond what the per-call scalars and faithful operations can lean",
             "other constants (hyper-parameter tensors read as another dtype)"),
    source="notes apply_adam_w.md section 6.1; oracle/apply_adam_w.py")


# The kernel-level vendor tests' input order (the OpDef's), onto the parameters.
KERNEL_INPUTS = KernelMapping(
    kernel_op="apply_adam_w",
    inputs=("varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay", "beta1",
            "beta2", "eps", "grad", "maxGradNormOptional"),
    attrs={"amsgrad": "amsgrad", "maximize": "maximize"},
    source="ops-nn optim/apply_adam_w/op_host/apply_adam_w_def.cpp:26-59 "
           "(var, m, v, beta1_power, beta2_power, lr, weight_decay, beta1, beta2, epsilon, "
           "grad, max_grad_norm; attrs amsgrad, maximize)")

OPERATOR = Operator(
    spec=SPEC,
    arithmetic_model=ARITHMETIC,
    oracle="aclnn_conformance.oracle.apply_adam_w:from_case",
    base_call="aclnn_conformance.suites.calls.apply_adam_w:base_call",
    table_cases="aclnn_conformance.suites.calls.apply_adam_w:table_cases",
    fault_bases="aclnn_conformance.suites.calls.apply_adam_w:FAULT_BASES",
    faults="aclnn_conformance.suites.faults.apply_adam_w:FAULTS",
    strategies="aclnn_conformance.suites.strategies.apply_adam_w:STRATEGIES",
    emulator="aclnn_conformance.backends.emulator.apply_adam_w:get_workspace_size",
    torch="aclnn_conformance.backends.torch_backend.apply_adam_w:run",
    mutants="aclnn_conformance.backends.mutants.apply_adam_w:MUTANT_SET",
    relations="aclnn_conformance.suites.test_apply_adam_w:RELATION_RULES",
    sensitivity="aclnn_conformance.suites.calls.apply_adam_w:sensitivity_targets",
    kernel_inputs=KERNEL_INPUTS,
    determinism_rules=("AAW-VAL-015",),
    modules=(
        "aclnn_conformance.spec.apply_adam_w",
        "aclnn_conformance.oracle.apply_adam_w",
        "aclnn_conformance.suites.calls.apply_adam_w",
        "aclnn_conformance.suites.faults.apply_adam_w",
        "aclnn_conformance.suites.strategies.apply_adam_w",
        "aclnn_conformance.suites.test_apply_adam_w",
        "aclnn_conformance.backends.emulator.apply_adam_w",
        "aclnn_conformance.backends.torch_backend.apply_adam_w",
        "aclnn_conformance.backends.mutants.apply_adam_w",
    ),
)
