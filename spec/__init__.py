"""The executable specification: tensor model, rule records, the Operator record and its registry.

``OPS`` (key -> OpSpec) is a view of the registry (``spec.registry``), read on first use.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Mapping

if TYPE_CHECKING:
    from aclnn_conformance.spec.rules import OpSpec


def op_spec(key: str) -> "OpSpec":
    """An operator's spec, by key or API name."""
    from aclnn_conformance.spec.registry import operator
    return operator(key).spec


class _Specs(Mapping[str, "OpSpec"]):
    """key -> OpSpec, a view of the registry as it is at each use (a re-read registry shows); an
    operator's record is read when its spec is asked for, so iterate the keys to choose first."""

    def __getitem__(self, key: str) -> "OpSpec":
        from aclnn_conformance.spec.registry import operators
        return operators()[key].spec

    def __contains__(self, key: object) -> bool:   # Mapping's own would read the record
        from aclnn_conformance.spec.registry import operators
        return key in operators()

    def __iter__(self) -> Iterator[str]:
        from aclnn_conformance.spec.registry import operators
        return iter(operators())

    def __len__(self) -> int:
        from aclnn_conformance.spec.registry import operators
        return len(operators())


OPS: Mapping[str, "OpSpec"] = _Specs()
