"""One row of a document's parameter table, as data."""
from __future__ import annotations

from dataclasses import dataclass

from aclnn_conformance.spec.enums import AclDataType, AclFormat


C_KINDS = ("tensor", "scalar", "int_array", "bool_array", "float_array", "double", "float", "int64",
           "bool", "string", "dtype", "workspace_size", "executor")
PROTOCOL_KINDS = ("workspace_size", "executor")


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
    # How the argument crosses the C boundary (the prototype's type): tensor (aclTensor*), double,
    # float, int64 (int64_t), bool, string (char*, may be NULL), dtype (aclDataType by value),
    # scalar (aclScalar*: the attribute {"dtype", "value"}, None for NULL), int_array, bool_array,
    # float_array (aclIntArray*, aclBoolArray*, aclFloatArray*: a list, None for NULL), and
    # the two protocol outputs workspace_size (uint64_t*) and executor (aclOpExecutor**).
    c_kind: str = "tensor"

    def __post_init__(self) -> None:
        if self.c_kind not in C_KINDS:
            raise ValueError(f"parameter {self.name}: unknown C kind {self.c_kind!r}; "
                             f"valid: {', '.join(C_KINDS)}")
        if self.direction == "attr" and self.c_kind == "tensor":
            raise ValueError(f"attribute row {self.name} needs its C kind (c_kind=...)")

    @property
    def in_signature(self) -> bool:
        """An argument of the first-phase call before workspaceSize and executor."""
        return self.c_kind not in PROTOCOL_KINDS
