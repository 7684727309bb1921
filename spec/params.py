"""One row of a document's parameter table, as data."""
from __future__ import annotations

from dataclasses import dataclass

from aclnn_conformance.spec.enums import AclDataType, AclFormat


@dataclass(frozen=True)
class Param:
    name: str                           # as the API names it (varRef, weightScale...)
    direction: str                      # input | output | input/output | attr
    dtypes: tuple[AclDataType, ...]     # documented data types (empty for scalar attrs)
    formats: tuple[AclFormat, ...]      # documented formats
    ranks: tuple[int, ...]              # documented ranks (empty: not a tensor)
    noncontiguous: str                  # "yes", "no", "transposed only", "-"
    shape_rule: str                     # the document's shape sentence
    optional: bool = False
    doc_row: str = ""                   # the row as the document prints it (for the report)
