"""The executable specification: tensor model, rule records, the Operator record and its registry.

``OPS`` (key -> OpSpec) is a view of the registry (``spec.registry``), read on first use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aclnn_conformance.spec.rules import OpSpec


def op_spec(key: str) -> "OpSpec":
    """An operator's spec, by key or API name."""
    from aclnn_conformance.spec.registry import operator
    return operator(key).spec


def __getattr__(name: str) -> Any:
    if name == "OPS":  # a fresh view each time, so that a re-read registry shows
        from aclnn_conformance.spec.registry import operators
        return {key: record.spec for key, record in operators().items()}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
