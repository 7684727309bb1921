"""Value mutants: the emulator's own ApplyAdamWQuant kernel (``AawqKernel``, one overridable
method per step) with one step swapped. A mutant subclasses it; that the unmodified kernel agrees
with the emulator bit for bit on every case of the tier is a test of its own (tests/test_mutants.py),
so a mutant differs from the emulator by its one defect only.

``recompute`` replaces the outputs of a successful emulator call with a kernel's: the inputs are
read through their views, the outputs written back through them, as the emulator does.
"""
from __future__ import annotations

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.backends.emulator import apply_adam_w_quant as emu
from aclnn_conformance.backends.emulator.apply_adam_w_quant import AawqKernel
from aclnn_conformance.backends.mutants.base import copied, replace_result, write_view_flat
from aclnn_conformance.spec.case import Case

F32 = np.float32
BLOCK = emu.BLOCK


def recompute(case: Case, result: RunResult, kernel: AawqKernel) -> RunResult:
    """``result`` (a successful emulator call of ``case``) with the outputs ``kernel`` computes."""
    if result.status != 0:
        return result
    var_arg = case.tensor("varRef")
    var = var_arg.values()
    n = var.size
    if n == 0:
        return result
    blocks = -(-n // BLOCK)

    def absmax_in(name: str) -> np.ndarray:
        vals = case.tensor(name).values().astype(F32).reshape(-1)[:blocks]
        return np.concatenate([vals, np.zeros(blocks - vals.size, F32)])

    step = int(case.tensor("step").values().reshape(-1)[0])
    var_out, m_out, v_out, am_out, av_out = kernel.update(
        var, case.tensor("grad").values(), case.tensor("mRef").values(),
        case.tensor("vRef").values(), case.tensor("qmapM").values(), case.tensor("qmapV").values(),
        absmax_in("absmaxMRef"), absmax_in("absmaxVRef"), step, kernel.hyper_parameters(case.attrs))
    storages = copied(result)
    write_view_flat(var_arg, storages["varRef"], var_out)
    write_view_flat(case.tensor("mRef"), storages["mRef"], m_out)
    write_view_flat(case.tensor("vRef"), storages["vRef"], v_out)
    write_view_flat(case.tensor("absmaxMRef"), storages["absmaxMRef"], am_out, blocks)
    write_view_flat(case.tensor("absmaxVRef"), storages["absmaxVRef"], av_out, blocks)
    return replace_result(result, storages=storages)
