"""The ``torch`` backend: the operators implemented independently with torch tensor operations.

On the CPU every product is emulated: the backend validates each call in the order the vendor's
code checks it (per product) and computes the outputs with torch. Where ``torch_npu`` and an NPU
are present, WeightQuantPreprocess on that NPU's product runs through
``torch_npu.npu_weight_quant_preprocess`` instead (``backends.torch_backend.weight_quant_preprocess_npu``).

torch is an optional extra of the project: nothing here imports it until a call is made.
"""
from __future__ import annotations

import contextlib
import os

from aclnn_conformance.backends.base import OperatorNotImplemented, RunResult, Waiver
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.operator import MissingPiece
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import operator

TORCH_REQUIREMENT = "torch==2.13.0"
BACKEND_REVISION = "1"
# torch intra-op threads while a call runs. The calls are small: spreading one over threads costs
# more than it gains, and the suite already runs one worker per core. ACLNN_TORCH_THREADS overrides.
THREADS_ENV = "ACLNN_TORCH_THREADS"



def _torch_version() -> str | None:
    try:
        import torch
    except ImportError:
        return None
    return str(torch.__version__)


@contextlib.contextmanager
def _intra_op_threads():
    import torch

    wanted = int(os.environ.get(THREADS_ENV, "1"))
    before = torch.get_num_threads()
    if wanted > 0 and wanted != before:
        torch.set_num_threads(wanted)
    try:
        yield
    finally:
        if torch.get_num_threads() != before:
            torch.set_num_threads(before)


class TorchBackend:
    name = "torch"
    waivers: tuple[Waiver, ...] = ()

    @property
    def version(self) -> str:
        torch_version = _torch_version()
        return BACKEND_REVISION + (f"+torch{torch_version}" if torch_version else "")

    def available(self) -> tuple[bool, str]:
        if _torch_version() is None:
            return False, f"torch is not installed (pip install {TORCH_REQUIREMENT})"
        return True, ""

    def products(self) -> tuple[str, ...]:
        return PRODUCT_IDS

    def run(self, case: Case, product: str) -> RunResult:
        try:  # each operator's record names its torch implementation, or why it has none
            implementation = operator(case.op).piece("torch")
        except (KeyError, MissingPiece) as exc:
            raise OperatorNotImplemented(f"the torch backend does not implement {case.op!r}: {exc}") from None
        with _intra_op_threads():
            return implementation(case, product)


__all__ = ["TorchBackend", "TORCH_REQUIREMENT"]
