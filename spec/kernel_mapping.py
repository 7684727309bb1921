"""How a kernel-level vendor test row (TTK csv, kernel level) maps onto an aclnn API's parameters.

The kernel's inputs come in its OpDef's order (the ``Input(...)`` calls of ``op_host/<op>_def.cpp``),
its attributes by their kernel names; an operator's record states the mapping (its
``kernel_inputs``) so that the importer reads those rows as calls of the API.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping


@dataclass(frozen=True)
class KernelMapping:
    kernel_op: str                        # the kernel op name a TTK row gives in ``op_name``
    inputs: tuple[str, ...]               # aclnn parameter of each kernel input, in kernel order
    attrs: Mapping[str, str]              # kernel attribute -> aclnn parameter
    source: str                           # where the kernel order is read
