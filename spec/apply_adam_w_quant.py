"""The executable specification of aclnnApplyAdamWQuant.

Document: ../shared/seeds/000_275af1729615bdac.txt (English, the older revision). Vendor behaviour
behind the ``cann`` profile: the op definition, the generated aclnn layer, the nnopbase runtime that
runs it, the A2/A3 and Ascend 950 tilings and the vendor golden, as summarised in
notes/apply_adam_w_quant.md; where its section 10 (the runtime) corrects sections 3 and 5, the
rules follow section 10 and cite it.
"""
from __future__ import annotations

import math

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import ND_LIKE_FORMATS
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.enums import AclFormat as F
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.params import Param
from aclnn_conformance.spec.operator import Operator
from aclnn_conformance.spec.precision import ArithmeticModel, RNE_CASTS
from aclnn_conformance.spec.rules import (rule_maker, ANY_ERROR, JUDGED, NOT_JUDGED, STATUS, UNCHECKED, ByProduct, Erratum, OpSpec,
                        Rule)

OP = "apply_adam_w_quant"
API = "aclnnApplyAdamWQuant"
DOC = "../shared/seeds/000_275af1729615bdac.txt"
BLOCK = 256

TENSORS = ("varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef", "absmaxVRef", "step")
OUTPUTS = ("varRef", "mRef", "vRef", "absmaxMRef", "absmaxVRef")
ATTRS = ("lr", "beta1", "beta2", "weightDecay", "eps", "gnormScale", "quantModeOptional", "blockSize")
STATE = ("varRef", "grad", "mRef", "vRef")
VAR_DTYPES = (DT.FLOAT16, DT.BF16, DT.FLOAT)
# Every tensor's one documented dtype, besides var/grad.
FIXED_DTYPE = {"mRef": DT.UINT8, "vRef": DT.UINT8, "qmapM": DT.FLOAT, "qmapV": DT.FLOAT,
               "absmaxMRef": DT.FLOAT, "absmaxVRef": DT.FLOAT, "step": DT.INT64}
# Documented recommendation ranges (not checked by the implementation).
ATTR_RANGES = {"lr": (0.0, 1.0), "beta1": (0.0, 1.0), "beta2": (0.0, 1.0),
               "weightDecay": (0.0, 1.0), "gnormScale": (0.0, 1.0)}

PARAMS = (
    Param("varRef", "input/output", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "the weight theta; shape = grad = mRef = vRef"),
    Param("grad", "input", VAR_DTYPES, (F.ND,), tuple(range(1, 9)), "yes",
          "The shape must be consistent with the input varRef. Same dtype as varRef."),
    Param("mRef", "input/output", (DT.UINT8,), (F.ND,), tuple(range(1, 9)), "yes",
          "The shape must be consistent with the input varRef."),
    Param("vRef", "input/output", (DT.UINT8,), (F.ND,), tuple(range(1, 9)), "yes",
          "The shape must be consistent with the input varRef."),
    Param("qmapM", "input", (DT.FLOAT,), (F.ND,), (1,), "yes",
          "Quantization mapping table in ascending order. The shape must be [256,]."),
    Param("qmapV", "input", (DT.FLOAT,), (F.ND,), (1,), "yes",
          "Sorted in ascending order. The shape requirement is [256,]."),
    Param("absmaxMRef", "input/output", (DT.FLOAT,), (F.ND,), (1,), "yes",
          "absmaxMRef.size = mRef.size/blockSize"),
    Param("absmaxVRef", "input/output", (DT.FLOAT,), (F.ND,), (1,), "yes",
          "absmaxVRef.size = vRef.size/blockSize"),
    Param("step", "input", (DT.INT64,), (F.ND,), (1,), "yes",
          "t in the formula, the number of iterations, greater than 0. The shape must be [1]."),
    Param("lr", "attr", (DT.DOUBLE,), (), (), "-", "Recommendation 1e-3, 1e-5, 1e-8. Range 0 to 1.", c_kind="double"),
    Param("beta1", "attr", (DT.DOUBLE,), (), (), "-", "Recommended 0.9, range 0 to 1.", c_kind="double"),
    Param("beta2", "attr", (DT.DOUBLE,), (), (), "-", "Recommended 0.999, range 0 to 1.", c_kind="double"),
    Param("weightDecay", "attr", (DT.DOUBLE,), (), (), "-", "Recommended 0.999, range 0 to 1.", c_kind="double"),
    Param("eps", "attr", (DT.DOUBLE,), (), (), "-", "Recommended 1e-8.", c_kind="double"),
    Param("gnormScale", "attr", (DT.DOUBLE,), (), (), "-", "Recommended 0.999, range 0 to 1.", c_kind="double"),
    # the prototype's order (the document's table lists blockSize before quantModeOptional)
    Param("quantModeOptional", "attr", (), (), (), "-", "Reserved parameter with no current significance.", c_kind="string"),
    Param("blockSize", "attr", (DT.INT64,), (), (), "-", "Fixed to 256.", c_kind="int64"),
    Param("workspaceSize", "output", (DT.UINT64,), (), (), "-", "Returns the workspace size.", c_kind="workspace_size"),
    Param("executor", "output", (), (), (), "-", "Returns the op executor.", c_kind="executor"),
)

# Formats the runtime accepts on every tensor: ND, and the ND-like formats it rewrites to ND.
ACCEPTED_FORMATS = frozenset({F.ND}) | ND_LIKE_FORMATS

SUPPORTED = {"cann": frozenset({"atlas-a2", "atlas-a3", "ascend950"}),
             "doc": frozenset({"atlas-a2", "atlas-a3"})}


# ---- predicates over a call ----

def _shape(case: Case, name: str) -> tuple[int, ...] | None:
    d = case.desc(name)
    return None if d is None else d.shape


def _numel(case: Case, name: str) -> int:
    return math.prod(_shape(case, name))


def absmax_count(n: int) -> int:
    """Blocks of 256 over n elements; the last one may be partial."""
    return -(-n // BLOCK)


def _values(case: Case, name: str) -> np.ndarray:
    return case.tensor(name).values().reshape(-1)


def _ascending(values: np.ndarray) -> bool:
    """Non-decreasing and free of NaN. Equal neighbours are allowed: their codes dequantize to the
    same value, and the tie-aware code standard accepts either."""
    v = values.astype(np.float64)
    return bool(np.all(v[1:] >= v[:-1])) and not np.isnan(v).any()


def _step_value(case: Case) -> int:
    return int(_values(case, "step")[0])


def _all_outputs_empty(case: Case) -> bool:
    """The runtime skips tiling (and every tiling check) when every output is empty."""
    return all(case.desc(n).is_empty() for n in OUTPUTS)


def _tiling(check):
    """A tiling check: it runs only when some output is non-empty."""
    return lambda case: not _all_outputs_empty(case) and check(case)


def _var_empty_beside_an_output(case: Case) -> bool:
    """var has no element while some other output has one: the tiling runs and has no block."""
    return case.desc("varRef").is_empty() and not _all_outputs_empty(case)


def _absmax_empty_beside_var(case: Case) -> bool:
    return not case.desc("varRef").is_empty() and any(
        case.desc(n).is_empty() for n in ("absmaxMRef", "absmaxVRef"))


def _never_in_a_case(case: Case) -> bool:
    """A second-phase argument: a Case holds only the first phase's, and the harness launches with
    the first phase's executor and a workspace of the size it asked for."""
    return False


def _nonfinite_inputs(case: Case) -> bool:
    return any(not np.isfinite(_values(case, n).astype(np.float32)).all()
               for n in ("varRef", "grad"))


def _attr_outside_range(case: Case) -> bool:
    return any(not lo <= float(case.attrs[a]) <= hi for a, (lo, hi) in ATTR_RANGES.items())


# ---- the rules ----

_rule = rule_maker(OP)

_SHAPE_CANN = STATUS(Status.ERR_INNER_TILING_ERROR)
_TILING = "src: A2/A3 tiling (arch22) shape checks; nnopbase maps a tiling failure to 561002"
_DOC_PARAMS = "doc: GetWorkspaceSize parameter table"
_RUNTIME = "src: the nnopbase runtime, notes apply_adam_w_quant.md section 10"
# The second phase, as backends name it in RunResult.phase.
SECOND_PHASE = "Execute"

# The vendor's validation steps, in the order it runs them (notes apply_adam_w_quant.md sections 3
# and 10): the generated aclnn layer, the runtime, the tiling, the runtime's own check after the
# tiling (an empty var), then the second phase; within a step, rules are checked in the order listed.
CHECK_STEPS = ("product", "null pointers", "dtypes", "formats", "rank", "tiling", "emptiness",
               "launch")

RULES: tuple[Rule, ...] = (
    _rule("AAWQ-PRODUCT-001", "check", "product",
          "Applicable Products: Atlas A2 and Atlas A3 training/inference products: Yes; "
          "Ascend 950PR/950DT, Atlas 200I/500 A2, Atlas inference, Atlas training: No.",
          "doc: Applicable Products; cann: the op's current README adds Ascend 950 (arch35 kernel)",
          {"cann": ByProduct({p: UNCHECKED for p in SUPPORTED["cann"]}, ANY_ERROR),
           "doc": ByProduct({p: UNCHECKED for p in SUPPORTED["doc"]}, ANY_ERROR)},
          violated=lambda c: True, step="product"),
    *(_rule(f"AAWQ-NULL-{i + 1:03d}", "check", "nullptr",
            f"ACLNN_ERR_PARAM_NULLPTR 161001: the input and output tensors are null pointers ({name}).",
            "doc: return codes; src: generated aclnn layer checks inputs in parameter order",
            {"cann": STATUS(Status.ERR_PARAM_NULLPTR), "doc": STATUS(Status.ERR_PARAM_NULLPTR)},
            violated=(lambda n: lambda c: c.tensor(n) is None)(name), step="null pointers")
      for i, name in enumerate(TENSORS)),
    _rule("AAWQ-NULL-010", "check", "nullptr",
          "A null executor out-pointer is rejected.",
          "src: generated aclnn layer, executor == NULL returns 161001 after the tensor checks",
          {"cann": STATUS(Status.ERR_PARAM_NULLPTR), "doc": ANY_ERROR},
          violated=lambda c: "executor" in c.null_outputs, step="null pointers"),
    _rule("AAWQ-NULL-011", "check", "nullptr",
          "A null workspaceSize out-pointer is rejected.",
          "doc: return codes (null pointers are errors); cann: " + _RUNTIME + ", G4: the "
          "runtime's NULL check returns 161001 inside NnopbaseRunForWorkspace, but inside the bool "
          "NnopbaseMatchArgs the same 161001 reads as true and the call returns ACLNN_SUCCESS",
          {"cann": NOT_JUDGED, "doc": ANY_ERROR},
          violated=lambda c: "workspaceSize" in c.null_outputs, step="null pointers",
          note="cann: success and an error are both the vendor's (AAWQ-ERRATUM-8): not certifiable"),
    _rule("AAWQ-DTYPE-001", "check", "dtype",
          "varRef: FLOAT16, BFLOAT16, FLOAT32.", _DOC_PARAMS + "; src: op definition, 3 dtype combos",
          {"cann": STATUS(Status.ERR_PARAM_INVALID), "doc": STATUS(Status.ERR_PARAM_INVALID)},
          violated=lambda c: c.desc("varRef").dtype not in VAR_DTYPES, step="dtypes"),
    _rule("AAWQ-DTYPE-002", "check", "dtype",
          "grad: same data type as varRef.", _DOC_PARAMS + "; src: no mixed var/grad combo",
          {"cann": STATUS(Status.ERR_PARAM_INVALID), "doc": STATUS(Status.ERR_PARAM_INVALID)},
          violated=lambda c: c.desc("grad").dtype != c.desc("varRef").dtype, step="dtypes"),
    *(_rule(f"AAWQ-DTYPE-{i + 3:03d}", "check", "dtype", f"{name}: {dt.name} only.", _DOC_PARAMS,
            {"cann": STATUS(Status.ERR_PARAM_INVALID), "doc": STATUS(Status.ERR_PARAM_INVALID)},
            violated=(lambda n, d: lambda c: c.desc(n).dtype != d)(name, dt), step="dtypes")
      for i, (name, dt) in enumerate(FIXED_DTYPE.items())),
    # The runtime's format match (cann) is listed first, so that a format outside it is decided by
    # it under cann; the document's ND-only reading (doc) follows.
    *(_rule(f"AAWQ-FORMAT-{i + 10:03d}", "check", "format",
            f"{name}: ND, or an ND-like format (NCL, NCDHW, DHWCN, NHWC, NCHW) that the runtime "
            "rewrites to ND before matching the op's (dtype, format) combinations; any other "
            "format matches none of them.",
            _RUNTIME + ", N1 and N4 (the op asks for no strict format match)",
            {"cann": STATUS(Status.ERR_PARAM_INVALID)},
            violated=(lambda n: lambda c: c.desc(n).format not in ACCEPTED_FORMATS)(name),
            step="formats",
            note="DHWCN has no aclFormat value: no aclTensor carries it")
      for i, name in enumerate(TENSORS)),
    *(_rule(f"AAWQ-FORMAT-{i + 1:03d}", "check", "format", f"{name}: data format ND.",
            _DOC_PARAMS + "; cann: " + _RUNTIME + ", N1: NCL, NCDHW, DHWCN, NHWC and NCHW are "
            "rewritten to ND and accepted",
            {"cann": UNCHECKED, "doc": STATUS(Status.ERR_PARAM_INVALID)},
            violated=(lambda n: lambda c: c.desc(n).format != F.ND)(name), step="formats",
            note="cann: a call in an ND-like format is valid and judged on its values")
      for i, name in enumerate(TENSORS)),
    _rule("AAWQ-RANK-001", "check", "rank",
          "varRef, grad, mRef, vRef: dimension 1-8.", _DOC_PARAMS,
          {"cann": NOT_JUDGED, "doc": ANY_ERROR},
          violated=lambda c: not 1 <= len(_shape(c, "varRef")) <= 8, step="rank",
          note="cann: nothing in the vendor code checks the rank; outside the contract"),
    _rule("AAWQ-SHAPE-001", "check", "attr",
          "blockSize: size of each block participating in the computation, fixed to 256.",
          _DOC_PARAMS + "; " + _TILING,
          {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
          violated=_tiling(lambda c: int(c.attrs["blockSize"]) != BLOCK), step="tiling"),
    *(_rule(f"AAWQ-SHAPE-{i + 2:03d}", "check", "shape",
            f"varRef.shape = {name}.shape (the same dims, not only the same element count).",
            "doc: Constraints; " + _TILING,
            {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
            violated=_tiling((lambda n: lambda c: _shape(c, n) != _shape(c, "varRef"))(name)),
            step="tiling")
      for i, name in enumerate(("grad", "mRef", "vRef"))),
    _rule("AAWQ-SHAPE-005", "check", "shape",
          "qmapM: the shape must be [256,] (the implementation checks 256 elements).",
          _DOC_PARAMS + "; " + _TILING,
          {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
          violated=_tiling(lambda c: _numel(c, "qmapM") != 256), step="tiling"),
    _rule("AAWQ-SHAPE-006", "check", "shape",
          "qmapV: the shape requirement is [256,] (the implementation checks qmapV.shape == qmapM.shape).",
          _DOC_PARAMS + "; " + _TILING,
          {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
          violated=_tiling(lambda c: _shape(c, "qmapV") != _shape(c, "qmapM")), step="tiling"),
    _rule("AAWQ-SHAPE-008", "check", "shape",
          "absmaxMRef.size = mRef.size/blockSize (cann: ceil(n/256); checked on Ascend 950 only).",
          "doc: parameter table and Constraints; src: arch35 tiling checks the count, arch22 does not",
          {"cann": ByProduct({"ascend950": _SHAPE_CANN}, UNCHECKED), "doc": ANY_ERROR},
          violated=_tiling(lambda c: _numel(c, "absmaxMRef") != absmax_count(_numel(c, "varRef"))),
          step="tiling"),
    _rule("AAWQ-SHAPE-009", "check", "shape",
          "absmaxVRef.size = vRef.size/blockSize (cann: ceil(n/256); checked on Ascend 950 only).",
          "doc: parameter table and Constraints; src: arch35 tiling checks the count, arch22 does not",
          {"cann": ByProduct({"ascend950": _SHAPE_CANN}, UNCHECKED), "doc": ANY_ERROR},
          violated=_tiling(lambda c: _numel(c, "absmaxVRef") != absmax_count(_numel(c, "varRef"))),
          step="tiling"),
    # Ascend 950 compares the absmax counts before the step shape (T35-6 before T-6).
    _rule("AAWQ-SHAPE-007", "check", "shape",
          "step: the shape must be [1].",
          _DOC_PARAMS + "; " + _TILING + "; order: " + _RUNTIME + ", T35-6 before T-6",
          {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
          violated=_tiling(lambda c: _shape(c, "step") != (1,)), step="tiling"),
    _rule("AAWQ-SHAPE-010", "check", "shape",
          "qmapM, qmapV: the shape must be exactly [256,] (rank 1).",
          "doc: parameter table; cann accepts any shape of 256 elements, equal for both maps",
          {"doc": ANY_ERROR},
          violated=lambda c: _shape(c, "qmapM") != (256,) or _shape(c, "qmapV") != (256,),
          step="tiling"),
    # ---- after the tiling function, in the runtime's DoTiling ----
    _rule("AAWQ-EMPTY-001", "check", "empty",
          "varRef has 0 elements while another output has some: the tiling has no block to give a "
          "core and the call fails with 561002, after every other tiling check.",
          _RUNTIME + ", N3 and T-7 (every output empty skips the tiling; otherwise an empty var "
          "fails last, in DoTiling)",
          {"cann": _SHAPE_CANN, "doc": ANY_ERROR},
          violated=_var_empty_beside_an_output, step="emptiness",
          note="on Ascend 950 an absmax with entries beside an empty var fails earlier, by the "
               "absmax count (AAWQ-SHAPE-008/009)"),
    _rule("AAWQ-EMPTY-002", "check", "empty",
          "varRef has elements while absmaxMRef or absmaxVRef is empty: Atlas A2/A3 check nothing "
          "of it (the kernel reads and writes absmax out of bounds); Ascend 950 rejects the "
          "absmax count with 561002.",
          "doc: parameter table (absmax.size = size/blockSize); cann: " + _RUNTIME
          + ", consequences (A2/A3: no check sees it; Ascend 950: T35-6)",
          {"cann": ByProduct({"ascend950": _SHAPE_CANN}, NOT_JUDGED), "doc": ANY_ERROR},
          violated=_absmax_empty_beside_var, step="emptiness",
          note="listed last: on A2/A3 every check runs as if absmax were right; on Ascend 950 and "
               "under doc the absmax count (AAWQ-SHAPE-008/009) decides first"),
    # ---- the second phase, aclnnApplyAdamWQuant(workspace, workspaceSize, executor, stream) ----
    *(_rule(f"AAWQ-LAUNCH-{i + 1:03d}", "check", "launch", text,
            "doc: aclnnApplyAdamWQuant return value (no code given); cann: " + _RUNTIME + ", P2",
            {"cann": cann, "doc": ANY_ERROR}, violated=_never_in_a_case, step="launch",
            phase=SECOND_PHASE,
            note="not exercised: a case holds only first-phase arguments, and the harness launches "
                 "with the first phase's executor and a workspace of the size it asked for (0 "
                 "bytes for this op, so a short or NULL workspace cannot be offered)")
      for i, (text, cann) in enumerate((
          ("The second phase rejects a NULL executor.", STATUS(Status.ERR_PARAM_NULLPTR)),
          ("The second phase rejects a NULL workspace when workspaceSize > 0.",
           STATUS(Status.ERR_PARAM_NULLPTR)),
          ("The second phase rejects a workspaceSize below what GetWorkspaceSize asked for.",
           ANY_ERROR)))),
    # ---- preconditions: the call succeeds, its values are outside the contract ----
    _rule("AAWQ-PRE-001", "precondition", "value",
          "qmapM: quantization mapping table in ascending order.",
          _DOC_PARAMS + "; nothing checks it; the kernel's bisection assumes it",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: not _ascending(_values(c, "qmapM"))),
    _rule("AAWQ-PRE-002", "precondition", "value",
          "qmapV: sorted in ascending order.", _DOC_PARAMS + "; nothing checks it",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: not _ascending(_values(c, "qmapV"))),
    _rule("AAWQ-PRE-003", "precondition", "value",
          "qmapV >= 0 (v is a second moment; golden and kernel disagree on negative maps).",
          "src: golden max(v) vs kernel max|v|; design decision",
          {"cann": NOT_JUDGED, "doc": NOT_JUDGED},
          violated=lambda c: bool((_values(c, "qmapV") < 0).any())),
    _rule("AAWQ-PRE-006", "precondition", "value",
          "Where the absmax count is not checked (Atlas A2/A3), at least ceil(n/256) absmax entries "
          "(fewer would be read out of bounds); entries past ceil(n/256) are left untouched.",
          "src: arch22 tiling does not compare the counts; the kernel indexes absmax by block",
          {"cann": NOT_JUDGED},
          violated=lambda c: min(_numel(c, "absmaxMRef"), _numel(c, "absmaxVRef"))
          < absmax_count(_numel(c, "varRef"))),
    _rule("AAWQ-PRE-004", "precondition", "value",
          "step >= 0 (t = step + 1 >= 1; step = -1 divides by zero in the bias correction).",
          "src: kernel adds one to step; nothing validates it",
          {"cann": NOT_JUDGED}, violated=lambda c: _step_value(c) < 0),
    _rule("AAWQ-PRE-005", "precondition", "value",
          "step: t in the formula, representing the number of iterations, greater than 0.",
          _DOC_PARAMS, {"doc": NOT_JUDGED}, violated=lambda c: _step_value(c) <= 0),
    _rule("AAWQ-ATTR-001", "value", "attr",
          "lr, beta1, beta2, weightDecay, gnormScale: documented ranges 0 to 1 are recommendations: "
          "values outside them are accepted and computed.",
          "src: no attribute is range-checked; doc: 'Range: 0 to 1'",
          {"cann": JUDGED, "doc": NOT_JUDGED}, violated=_attr_outside_range),
    _rule("AAWQ-ATTR-002", "value", "attr",
          "quantModeOptional: reserved parameter with no current significance (NULL and any string accepted).",
          _DOC_PARAMS, {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-ATTR-003", "value", "attr",
          "lr, beta1, beta2, weightDecay, eps, gnormScale are rounded from double to float32 (RNE) "
          "before any use.", "src: generated aclnn layer casts every double attribute to float",
          {"cann": JUDGED, "doc": JUDGED}),
    # ---- value rules: what the outputs must be (judged against the oracle) ----
    _rule("AAWQ-VAL-001", "value", "value",
          "m_t = beta1*m_{t-1} + (1-beta1)*g_t; v_t = beta2*v_{t-1} + (1-beta2)*g_t^2, on the "
          "dequantized states qmap[code]*absmax[block].", "doc: Optimizer Formula; Function",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-002", "value", "value",
          "Bias correction: m_hat = m_t/(1-beta1^t), v_hat = v_t/(1-beta2^t); cann computes "
          "step_size = -lr*sqrt(1-beta2^t)/(1-beta1^t) and eps*sqrt(1-beta2^t).",
          "doc: Optimizer Formula; src: kernel and golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-003", "value", "value",
          "t: cann uses t = step + 1 (the kernel and golden add one); the document uses t = step.",
          "doc: step parameter; src: kernel step += 1, golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-004", "value", "value",
          "Weight decay: cann theta = (theta + delta)*(1 - lr*wd), applied after the Adam step; "
          "the document writes theta - lr*wd*theta_{t-1}.",
          "doc: Optimizer Formula; src: kernel and golden (decoupled decay after the update)",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-005", "value", "value",
          "Weight decay is skipped when weightDecay <= 0 (cann).", "src: kernel and golden",
          {"cann": JUDGED}),
    _rule("AAWQ-VAL-006", "value", "value",
          "gnormScale: scaling parameter for grad, applied to grad before the moments.",
          _DOC_PARAMS + "; src: kernel and golden", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-007", "value", "value",
          "absmax out: one maximum per block of 256 updated elements: max|m_t| for m, max v_t for v.",
          "doc: absmaxMRef/absmaxVRef rows", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-008", "value", "value",
          "The last block may be partial (n % 256 != 0): its absmax and codes use its valid elements only.",
          "src: golden and arch35 validSize; design decision", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-009", "value", "value",
          "New codes: the nearest qmap entry to m_t/absmax (v_t/absmax), lowest index on a tie.",
          "doc: 'binary search is used to find the indices'; src: golden argmin, kernel bisection",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-010", "value", "value",
          "Sign fix: when qmapM has negative entries and the chosen code's sign is opposite to m's, "
          "the code moves one step toward m's sign.", "src: golden and arch35 kernel",
          {"cann": JUDGED}),
    _rule("AAWQ-VAL-011", "value", "value",
          "A block whose new absmax is 0: its codes are implementation-defined (qmap[code]*0 = 0).",
          "design decision: golden nearest(0), kernel 0/0 -> code 0", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-012", "value", "value",
          "FLOAT16/BFLOAT16 var: computed in float32, rounded once to the var dtype at the end (RNE).",
          "src: kernel Cast CAST_RINT / CAST_NONE; golden .to(dtype)", {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-013", "value", "value",
          "NaN and Inf in var or grad propagate through the arithmetic (no special handling).",
          "src: kernel and golden", {"cann": JUDGED, "doc": NOT_JUDGED}, violated=_nonfinite_inputs),
    _rule("AAWQ-VAL-014", "value", "value",
          "All outputs empty: success, nothing computed, nothing written.",
          "src: the runtime skips tiling and launch when every output is empty",
          {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-015", "value", "value",
          "Non-contiguous tensors are supported (every row: Non-contiguous Tensor √); refs are "
          "updated in place through their views and nothing outside the views is written.",
          _DOC_PARAMS, {"cann": JUDGED, "doc": JUDGED}),
    _rule("AAWQ-VAL-016", "value", "value",
          "aclnnApplyAdamWQuant defaults to a deterministic implementation.",
          "doc: Constraints, deterministic computation", {"cann": JUDGED, "doc": JUDGED}),
)

ERRATA = (
    Erratum("AAWQ-ERRATUM-1", OP, "t = step (step 'greater than 0'); the example passes step = 0",
            "t = step + 1: the kernel and the golden add one, so step = 0 is the first step",
            "kernel step += 1; golden"),
    Erratum("AAWQ-ERRATUM-2", OP, "theta_{t+1} = theta_t - eta*m_hat/(sqrt(v_hat)+eps) - eta*lambda*theta_{t-1}",
            "theta = (theta + delta)*(1 - lr*wd), skipped when wd <= 0; gnormScale scales grad first",
            "kernel and golden"),
    Erratum("AAWQ-ERRATUM-3", OP, "absmax.size = size/blockSize",
            "ceil(size/256); Ascend 950 checks it, Atlas A2/A3 do not",
            "arch35 tiling; the op's current Chinese doc"),
    Erratum("AAWQ-ERRATUM-4", OP, "errors: 161001 (null) and 161002 (dtype/format) only",
            "shape violations and blockSize != 256 return 561002 from tiling",
            "nnopbase tiling failure code"),
    Erratum("AAWQ-ERRATUM-5", OP, "Ascend 950PR/950DT: not supported",
            "supported by the arch35 kernel in the vendor's newer revision", "the op's README"),
    Erratum("AAWQ-ERRATUM-6", OP, "qmapM/qmapV shape [256,]",
            "any shape of 256 elements, equal for both maps", "arch22 tiling"),
    Erratum("AAWQ-ERRATUM-7", OP, "weightDecay, gnormScale recommended 0.999; ranges 0 to 1",
            "no attribute is range-checked; op default weight_decay is 1.0", "op definition"),
    Erratum("AAWQ-ERRATUM-8", OP, "a null pointer is an error (161001)",
            "a NULL workspaceSize may return ACLNN_SUCCESS: the runtime's NULL check returns 161001 "
            "inside NnopbaseMatchArgs, a bool function, where it reads as 'cache matched'; inside "
            "NnopbaseRunForWorkspace it returns 161001. Not judged under cann",
            "nnopbase runtime (notes apply_adam_w_quant.md section 10, G4)"),
    Erratum("AAWQ-ERRATUM-9", OP, "every tensor: data format ND; another format is 161002",
            "NCL, NCDHW, DHWCN, NHWC and NCHW are rewritten to ND and accepted on every tensor; "
            "other formats are 161002",
            "nnopbase runtime (notes apply_adam_w_quant.md section 10, N1)"),
    Erratum("AAWQ-ERRATUM-10", OP, "errors: 161001 and 161002 only; absmax.size = size/blockSize",
            "an empty var beside a non-empty output fails with 561002 after every other check; an "
            "empty absmax beside a non-empty var is not checked on Atlas A2/A3 (the kernel reads "
            "out of bounds: not judged) and is 561002 on Ascend 950",
            "nnopbase runtime and tilings (notes apply_adam_w_quant.md section 10, T35-6, T-7)"),
)

SPEC = OpSpec(
    key=OP, api=API, rule_prefix="AAWQ", doc=DOC, params=PARAMS, rules=RULES, supported=SUPPORTED,
    outputs=OUTPUTS,
    standards={
        # the arithmetic model's standards (the ARITHMETIC model of spec/apply_adam_w_quant.py)
        "cann": {"varRef": "model-bound@2", "mRef": "quant-code@3", "vRef": "quant-code@3",
                 "absmaxMRef": "model-bound@2", "absmaxVRef": "model-bound@2"},
        "doc": {"varRef": "mere-mare", "mRef": "quant-code@2", "vRef": "quant-code@2",
                "absmaxMRef": "mere-mare", "absmaxVRef": "mere-mare"},
    },
    errata=ERRATA,
    check_steps=CHECK_STEPS,
)


# What a correct implementation may and may not do to the arithmetic (the model-derived
# standards accept exactly the results of implementations inside it).
ARITHMETIC = ArithmeticModel(
    OP, "1",
    order="the golden's: t = step + 1; c1 = 1 - beta1^t; c2 = sqrt(1 - beta2^t); "
          "step_size = (-lr*c2)/c1; eps_c2 = eps*c2; wd_factor = 1 - lr*wd; per element "
          "g = grad*gs, m1 = m0*b1 + g*(1-b1), v1 = v0*b2 + (g*g)*(1-b2), "
          "p = var + (m1*step_size)/(sqrt(v1) + eps_c2), p = p*wd_factor if wd > 0, one cast; "
          "absmax = max|m1| and max v1 per block; x = state/absmax; code = nearest(x)",
    correctly_rounded=("add", "subtract", "multiply", "float32 <- double attributes",
                       "fp16/bf16 -> float32 (exact)"),
    faithful=("sqrt", "pow", "divide"),
    reciprocal_division=True,
    fused_multiply_add=True,
    # every product that has the kernel casts the float32 result once, RNE (notes section 4
    # "fp16/bf16": fp16 CAST_NONE = RINT, bf16 CAST_RINT)
    final_cast={p: RNE_CASTS for p in ("ascend950", "atlas-a3", "atlas-a2")},
    may=("compute sqrt, pow and division faithfully: the exact result when it is a float32 "
         "value, else either float32 neighbour of it",
         "divide as a reciprocal (faithful) followed by a multiply",
         "fuse any multiply-add of the formula (one rounding), or not",
         "any of these together, element by element differently"),
    may_not=("another evaluation order that changes the mathematics (decay before the step, "
             "t = step, eps not scaled, ...)",
             "round twice: the float32 result reaches fp16/bf16 by one cast only, and no "
             "intermediate goes through a narrower type",
             "round the final cast other than by the product's mode (round-to-nearest-even "
             "for ApplyAdamWQuant on every product)",
             "a systematic bias: errors of a correct implementation do not all lean one way",
             "other constants (hyper-parameters kept in double, another block size, map or "
             "absmax)"),
    source="notes apply_adam_w_quant.md sections 4, 9 and 11; the vendor golden and kernels")


OPERATOR = Operator(
    spec=SPEC,
    arithmetic_model=ARITHMETIC,
    oracle="aclnn_conformance.oracle.apply_adam_w_quant_case:from_case",
    base_call="aclnn_conformance.suites.calls.apply_adam_w_quant:base_call",
    table_cases="aclnn_conformance.suites.calls.apply_adam_w_quant:table_cases",
    fault_bases="aclnn_conformance.suites.calls.apply_adam_w_quant:FAULT_BASES",
    faults="aclnn_conformance.suites.faults.apply_adam_w_quant:FAULTS",
    strategies="aclnn_conformance.suites.strategies.apply_adam_w_quant:STRATEGIES",
    emulator="aclnn_conformance.backends.emulator.apply_adam_w_quant:get_workspace_size",
    torch="aclnn_conformance.backends.torch_backend.apply_adam_w_quant:run",
    mutants="aclnn_conformance.backends.mutants.apply_adam_w_quant:MUTANT_SET",
    relations="aclnn_conformance.suites.test_apply_adam_w_quant:RELATION_RULES",
    sensitivity="aclnn_conformance.suites.calls.apply_adam_w_quant:sensitivity_targets",
    determinism_rules=("AAWQ-VAL-016",),
    modules=(
        "aclnn_conformance.spec.apply_adam_w_quant",
        "aclnn_conformance.oracle.apply_adam_w_quant",
        "aclnn_conformance.suites.calls.apply_adam_w_quant",
        "aclnn_conformance.suites.faults.apply_adam_w_quant",
        "aclnn_conformance.suites.strategies.apply_adam_w_quant",
        "aclnn_conformance.suites.test_apply_adam_w_quant",
        "aclnn_conformance.backends.emulator.apply_adam_w_quant",
        "aclnn_conformance.backends.torch_backend.apply_adam_w_quant",
        "aclnn_conformance.backends.mutants.apply_adam_w_quant",
        "aclnn_conformance.oracle.apply_adam_w_quant_bounds",
        "aclnn_conformance.oracle.apply_adam_w_quant_case",
        "aclnn_conformance.backends.mutants.apply_adam_w_quant_kernel",
    ),
)
