"""``(int64_t)(x->GetViewShape().GetDimNum())`` is the rank; a success return on ``self->IsEmpty() ||
outputSize == 0`` (an empty tensor or an integer argument) leaves the checks after it to the other calls.
The shape of ops-nn index/repeat_interleave/op_api/aclnn_repeat_interleave.cpp:122,166-173,525-534."""
from __future__ import annotations

from aclnn_conformance.extract.cpp import read_source
from aclnn_conformance.extract.host_code import Index, KernelIndex, T, walk_api
from aclnn_conformance.spec.templates import TEMPLATES, CallView, TensorView, guard_holds

API = """
static inline int64_t GetTensorDimNum(const aclTensor* self) { return (int64_t)(self->GetViewShape().GetDimNum()); }

static bool CheckDimRange(const aclTensor* self, int64_t dim)
{
    auto selfDim = GetTensorDimNum(self);
    if (selfDim == 0) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "tensor has no dimensions.");
        return false;
    }
    return true;
}

aclnnStatus aclnnSnipGetWorkspaceSize(const aclTensor* self, const aclTensor* repeats, int64_t dim,
                                      int64_t outputSize, uint64_t* workspaceSize, aclOpExecutor** executor)
{
    CHECK_RET(CheckDimRange(self, dim), ACLNN_ERR_PARAM_INVALID);
    if (self->IsEmpty() || outputSize == 0) {
        *workspaceSize = 0;
        return ACLNN_SUCCESS;
    }
    if (repeats->IsEmpty()) {
        OP_LOGE(ACLNN_ERR_PARAM_INVALID, "repeats must have the same size as input along dim.");
        return ACLNN_ERR_PARAM_INVALID;
    }
    return ACLNN_SUCCESS;
}
"""


def test_the_checks_after_an_empty_or_zero_return(tmp_path):
    (tmp_path / "math").mkdir()
    src = read_source("snippet.cpp", API)
    fn = src.functions["aclnnSnipGetWorkspaceSize"]
    names = ["self", "repeats", "dim", "outputSize", "workspaceSize", "executor"]
    events = walk_api(Index(src, [], [], KernelIndex(tmp_path)), fn, {p: T(n) for p, n in zip(fn.params, names)},
                      "atlas-a2")
    assert [e.text for e in events if e.kind == "unread"] == []
    checks = [e for e in events if e.kind == "check"]

    def fails(self: tuple, repeats: tuple, size: int) -> bool:
        call = CallView({"self": TensorView("FLOAT", self, "ND"), "repeats": TensorView("INT64", repeats, "ND")},
                        {"dim": 0, "outputSize": size}, frozenset())
        for c in checks:
            args = dict(c.args)
            when = args.pop("when", None)
            if (when is None or guard_holds(call, when) is True) and TEMPLATES[c.template](call, args):
                return True
        return False
    assert fails((), (1,), 1) and not fails((2,), (1,), 1)
    assert fails((2,), (0,), 1) and not fails((2,), (0,), 0) and not fails((0,), (0,), 1)
