"""``if (C) { log; return false; } else { return true; }`` in a check function fails where C holds and
ends the function otherwise. The shape of ops-nn v9.0.0
index/gather_v2/op_api/aclnn_embedding_renorm.cpp:124-135."""
from __future__ import annotations

from snippet_walk import read_checks

API = """
static bool CheckFormatValid(const aclTensor *self, const aclTensor *indices) {
  if (self->GetStorageFormat() == op::Format::FORMAT_FRACTAL_NZ) {
    OP_LOGE(ACLNN_ERR_PARAM_INVALID, "Input and output format only support [ND].");
    return false;
  } else {
    return true;
  }
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* indices, uint64_t* workspaceSize,
                                      aclOpExecutor** executor)
{
    CHECK_RET(CheckFormatValid(self, indices), ACLNN_ERR_PARAM_INVALID);
    OP_CHECK_MAX_DIM(indices, 2, return ACLNN_ERR_PARAM_INVALID);
    return ACLNN_SUCCESS;
}
"""


def test_the_format_check_and_the_checks_after_it_are_read():
    checks = read_checks(API, ["self", "indices", "workspaceSize", "executor"])
    assert [(c.template, dict(c.args), c.status) for c in checks] == [
        ("format_not_in", {"formats": ("FRACTAL_NZ",), "param": "self"}, 161002),
        ("rank_range", {"max": 2, "param": "indices"}, 161002)]
