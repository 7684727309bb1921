"""Mutants declared in one statement (``Mutant.declare``) keep the identity a class statement gives:
each is found under its own module and class name, and its steps replace exactly the steps named."""
from __future__ import annotations

import importlib

import numpy as np
import pytest

from aclnn_conformance.backends.emulator.apply_adam_w_quant import AawqKernel
from aclnn_conformance.backends.emulator.quant_matmul_weight_nz import MxA8W4Model
from aclnn_conformance.backends.mutants import CONTROLS, EQUIVALENT, GAPS, MUTANTS
from aclnn_conformance.backends.mutants.apply_adam_w_quant import KernelMutant, NoBiasCorrection
from aclnn_conformance.backends.mutants.base import Mutant, MutantSetsByKey, replaced_steps
from aclnn_conformance.backends.mutants.quant_matmul_weight_nz import NibbleOrder


def test_every_class_is_found_under_its_module_and_name():
    """What the mutation report writes as a mutant's ``cls`` (module:class) loads that very class."""
    for cls in MUTANTS + CONTROLS + EQUIVALENT + GAPS:
        if cls.__module__.endswith((".surface", ".surface_kinds")):
            continue     # generated per operator: found through the registry, not a module attribute
        assert getattr(importlib.import_module(cls.__module__), cls.__qualname__) is cls, cls


def test_a_declared_kernel_mutant_replaces_only_its_steps():
    kernel = NoBiasCorrection.kernel
    assert isinstance(kernel, AawqKernel) and type(kernel) is not AawqKernel
    assert kernel.corrections(np.float32(0.9), np.float32(0.999), np.float32(3)) == (1, 1)
    assert AawqKernel().corrections(np.float32(0.9), np.float32(0.999), np.float32(3)) != (1, 1)
    assert type(kernel).eps_term is AawqKernel.eps_term and type(kernel).update is AawqKernel.update
    assert NoBiasCorrection.__module__ == KernelMutant.__module__
    assert NoBiasCorrection.__qualname__ == NoBiasCorrection.__name__ == "NoBiasCorrection"
    assert issubclass(NibbleOrder.model, MxA8W4Model) and NibbleOrder.model.nibble is not MxA8W4Model.nibble


def test_a_misspelt_step_is_refused():
    with pytest.raises(TypeError, match="no step corection"):
        replaced_steps("Misspelt", AawqKernel, {"corection": lambda kernel, b1, b2, t: (1, 1)})
    with pytest.raises(TypeError, match="no arithmetic"):
        Mutant.declare("NoArithmetic", name="mutant-x", defect="x", steps={"sqrt": lambda kernel, x: x})


def test_sets_by_key_make_each_set_and_refuse_private_names():
    made = MutantSetsByKey(lambda key: key.upper())
    assert made.abs == "ABS" and getattr(made, "add") == "ADD"
    with pytest.raises(AttributeError):
        made._private
