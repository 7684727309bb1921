"""The ``torch`` backend: the operators implemented independently with torch tensor operations.

On the CPU every product is emulated: the backend validates each call in the order the vendor's
code checks it (per product) and computes the outputs with torch. Where ``torch_npu`` and an NPU
are present, WeightQuantPreprocess on that NPU's product runs through
``torch_npu.npu_weight_quant_preprocess`` instead (``backends.torch_backend.npu``).

torch is an optional extra of the project: nothing here imports it until a call is made.
"""
from __future__ import annotations

import contextlib
import importlib
import os

from aclnn_conformance.backends.base import RunResult, Waiver
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.products import PRODUCT_IDS

TORCH_REQUIREMENT = "torch==2.13.0"
BACKEND_REVISION = "1"
# torch intra-op threads while a call runs. The calls are small: spreading one over threads costs
# more than it gains, and the suite already runs one worker per core. ACLNN_TORCH_THREADS overrides.
THREADS_ENV = "ACLNN_TORCH_THREADS"

# operator key -> module of this package that runs it
_OPERATORS = {
    "apply_adam_w_quant": "aclnn_conformance.backends.torch_backend.apply_adam_w_quant",
    "weight_quant_preprocess": "aclnn_conformance.backends.torch_backend.weight_quant_preprocess",
    "quant_matmul_weight_nz": "aclnn_conformance.backends.torch_backend.quant_matmul_weight_nz",
    "apply_adam_w_v2": "aclnn_conformance.backends.torch_backend.apply_adam_w_v2",
    "apply_adam_w": "aclnn_conformance.backends.torch_backend.apply_adam_w",
}


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
        module = _OPERATORS.get(case.op)
        if module is None:
            raise ValueError(f"the torch backend does not implement {case.op!r}")
        with _intra_op_threads():
            return importlib.import_module(module).run(case, product)


__all__ = ["TorchBackend", "TORCH_REQUIREMENT"]
