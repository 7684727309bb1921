"""Why a vendor unit test disagrees with the extracted spec where the spec's rules alone cannot
tell: each entry investigated by hand against the vendor's code (hicann/ops-math@c4193324,
hicann/ops-nn@e5c3fa93) and the reader (extract/host_code.py), per API. A row's cause names the
check the reader does not reach (vendor file:line) and the reader's site that drops it."""
from __future__ import annotations

# the reader's sites (extract/host_code.py at this branch's base)
DROPS_UNKNOWN_MACRO = ("extract/host_code.py:289 (_run_stmt: a macro call that is neither a check "
                       "macro nor CHECK_RET is taken for a call of the compute path and dropped "
                       "without an unread rule)")
DROPS_INNER_STATUS = ("extract/host_code.py:347 (_run_check_ret: a CHECK_RET whose status is not "
                      "161001/161002, e.g. ACLNN_ERR_INNER_NULLPTR 561103, is dropped as a compute-path "
                      "failure although it checks a parameter)")
KEEPS_CALLEE_STATUS = ("extract/host_code.py:339-355 (_run_check_ret on `CHECK_RET(F(...) == "
                       "ACLNN_SUCCESS, CODE)`: F's own returned status is kept where the caller "
                       "returns CODE for any failure of F)")


def _unread(check: str, where: str, site: str) -> str:
    return f"a check in code the reader does not reach: {check} at {where}; dropped by {site}"


_CHECK_COND = "CHECK_COND(cond, code, msg) (the same as CHECK_RET with a message)"
_NOT_NULL = "CHECK_NOT_NULL(...) (common/inc/op_api/aclnn_check.h:30: OP_CHECK_NULL(p, return ACLNN_ERR_PARAM_NULLPTR) per argument)"
_CAST = "OP_CHECK_RESULT_DTYPE_CAST_FAILED (the result dtype cannot be cast to out's: 161002)"
_BCAST = "OP_CHECK_BROADCAST_AND_INFER_SHAPE / OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE (161002)"
_SAME = "OP_CHECK_DTYPE_NOT_SAME (161002)"

_LOG_910 = ("a vendor test contradicting its code under the harness's product: the tests named *_910 expect the "
            "Ascend910 output list's rejection of BF16 (ops-math/math/log/op_api/aclnn_log.cpp:64-66), while "
            "the harness runs as ASCEND910B, whose list holds BF16 (:68-70, selected by GetDtypeSupportListV2 "
            "at :90); no SoC setting in the test file was found")

# API -> the cause of its "a check no rule covers" rows
NO_RULE_COVERS: dict[str, str] = {
    "aclnnLerps": _unread(_CHECK_COND, "ops-math/math/lerp/op_api/aclnn_lerp_scalar.cpp:118-124", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceLerps": _unread(_CHECK_COND, "ops-math/math/lerp/op_api/aclnn_lerp_scalar.cpp:118-124", DROPS_UNKNOWN_MACRO),
    "aclnnAddcmul": _unread(_CHECK_COND, "ops-math/math/addcmul/op_api/aclnn_addcmul.cpp:183-186", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceAddcmul": _unread(_CHECK_COND, "ops-math/math/addcmul/op_api/aclnn_addcmul.cpp:183-186", DROPS_UNKNOWN_MACRO),
    "aclnnAsin": _unread(_NOT_NULL, "ops-math/math/asin/op_api/aclnn_asin.cpp:116", DROPS_UNKNOWN_MACRO),
    "aclnnAsinh": _unread(_NOT_NULL, "ops-math/math/asinh/op_api/aclnn_asinh.cpp:106", DROPS_UNKNOWN_MACRO),
    "aclnnAtan": _unread(_NOT_NULL, "ops-math/math/atan/op_api/aclnn_atan.cpp:82", DROPS_UNKNOWN_MACRO),
    "aclnnAtanh": _unread(_NOT_NULL, "ops-math/math/atanh/op_api/aclnn_atanh.cpp:103", DROPS_UNKNOWN_MACRO),
    "aclnnCeil": _unread(_NOT_NULL, "ops-math/math/ceil/op_api/aclnn_ceil.cpp:59", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceCeil": _unread(_NOT_NULL, "ops-math/math/ceil/op_api/aclnn_ceil.cpp:59", DROPS_UNKNOWN_MACRO),
    "aclnnExp": _unread(_CAST, "ops-math/math/exp/op_api/aclnn_exp.cpp:65", DROPS_UNKNOWN_MACRO),
    "aclnnExp2": _unread(_CAST, "ops-math/math/pow/op_api/aclnn_exp2.cpp:77,99", DROPS_UNKNOWN_MACRO),
    "aclnnLeTensor": _unread(f"{_CAST}; {_BCAST}", "ops-math/math/less_equal/op_api/aclnn_le_tensor.cpp:141-142,157", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceLeTensor": _unread(f"{_CAST}; {_BCAST}", "ops-math/math/less_equal/op_api/aclnn_le_tensor.cpp:141-142,157", DROPS_UNKNOWN_MACRO),
    "aclnnNeTensor": _unread(_BCAST, "ops-math/math/not_equal/op_api/aclnn_ne_tensor.cpp:158", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceNeTensor": _unread(_BCAST, "ops-math/math/not_equal/op_api/aclnn_ne_tensor.cpp:158", DROPS_UNKNOWN_MACRO),
    "aclnnAtan2": _unread(_BCAST, "ops-math/math/atan2/op_api/aclnn_atan2.cpp:85-86", DROPS_UNKNOWN_MACRO),
    "aclnnInplaceAtan2": _unread(_BCAST, "ops-math/math/atan2/op_api/aclnn_atan2.cpp:85-86", DROPS_UNKNOWN_MACRO),
    "aclnnBitwiseAndTensor": _unread(_BCAST, "ops-math/math/bitwise_and/op_api/aclnn_bitwise_and_tensor.cpp:120", DROPS_UNKNOWN_MACRO),
    "aclnnBitwiseXorTensor": _unread(_BCAST, "ops-math/math/bitwise_xor/op_api/aclnn_bitwise_xor_tensor.cpp:81", DROPS_UNKNOWN_MACRO),
    "aclnnComplex": _unread(_SAME, "ops-math/math/complex/op_api/aclnn_complex.cpp:64", DROPS_UNKNOWN_MACRO),
    "aclnnLogSigmoidBackward": _unread(f"{_SAME}; {_BCAST}", "ops-nn/activation/logsigmoid_grad/op_api/aclnn_logsigmoid_backward.cpp:87-98", DROPS_UNKNOWN_MACRO),
    "aclnnSiluBackward": _unread(f"{_SAME}; {_BCAST}", "ops-nn/activation/silu_grad/op_api/aclnn_silu_backward.cpp:73", DROPS_UNKNOWN_MACRO),
    "aclnnBitwiseNot": _unread("CHECK_RET(CheckNotNull(self, y), ACLNN_ERR_INNER_NULLPTR)", "ops-math/math/bitwise_not/op_api/aclnn_bitwise_not.cpp:110", DROPS_INNER_STATUS),
    "aclnnSinc": _unread("CHECK_RET(CheckNotNull(...), ACLNN_ERR_INNER_NULLPTR)", "ops-math/math/sinc/op_api/aclnn_sinc.cpp:105", DROPS_INNER_STATUS),
    "aclnnLog": _LOG_910,
    "aclnnInplaceLog": _LOG_910,
}

# rule id prefix -> the cause of its "decides with another status" rows
OTHER_STATUS: dict[str, str] = {
    "XREMAINDER": "the status the caller decides: CHECK_RET(CheckNotNull...(...) == ACLNN_SUCCESS, "
                  "ACLNN_ERR_PARAM_NULLPTR) at ops-math/math/floor_mod/op_api/aclnn_remainder.cpp:420,437 returns "
                  "161001 for the callee's ACLNN_ERR_INNER_NULLPTR (:155-168); misread by " + KEEPS_CALLEE_STATUS,
    "XINPLACEREMAINDER": "the status the caller decides: CHECK_RET(CheckNotNull...(...) == ACLNN_SUCCESS, "
                         "ACLNN_ERR_PARAM_NULLPTR) at ops-math/math/floor_mod/op_api/aclnn_remainder.cpp:420,437 "
                         "returns 161001 for the callee's ACLNN_ERR_INNER_NULLPTR (:155-168); misread by "
                         + KEEPS_CALLEE_STATUS,
    "XLTSCALAR": "CHECK_RET(self != nullptr, ACLNN_ERR_INNER_NULLPTR) at ops-math/math/less/op_api/"
                 "aclnn_lt_scalar.cpp:382-383 (off Ascend 950) decides first with 561103; dropped by "
                 + DROPS_INNER_STATUS,
    "XINPLACELTSCALAR": "CHECK_RET(self != nullptr, ACLNN_ERR_INNER_NULLPTR) at ops-math/math/less/op_api/"
                        "aclnn_lt_scalar.cpp:382-383 (off Ascend 950; the inplace API calls it) decides first "
                        "with 561103; dropped by " + DROPS_INNER_STATUS,
}
