"""One row of a document's parameter table, as data."""
from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

from aclnn_conformance.spec.dtype_promotion import COMPLEX, FLOATING, INTEGRAL
from aclnn_conformance.spec.enums import AclDataType, AclFormat


C_KINDS = ("tensor", "scalar", "int_array", "bool_array", "float_array", "double", "float", "int64",
           "bool", "string", "dtype", "workspace_size", "executor")
PROTOCOL_KINDS = ("workspace_size", "executor")
def bare_scalar_dtype(value: Any) -> AclDataType | None:
    """The dtype of an aclScalar made from a bare number whose C type is not known: BOOL for a bool,
    INT64 for an integer, FLOAT for a floating number, as the documents' example code makes it
    (``aclCreateScalar(&v, ACL_FLOAT)`` over a float). The gtest reader gives ``ScalarDesc(v)`` the
    overload of v's C type where it can name it (``1`` int: INT32, ``1.0`` double: DOUBLE); this is
    its fallback for an expression of another kind. None for a value that is no number."""
    if isinstance(value, bool):
        return AclDataType.BOOL
    if isinstance(value, numbers.Integral):
        return AclDataType.INT64
    if isinstance(value, numbers.Real):
        return AclDataType.FLOAT
    return None


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

    def scalar_argument(self, value: Any) -> dict[str, Any] | None:
        """What this aclScalar* row receives for ``value``: ``{"dtype", "value"}`` and None (NULL) as
        given; a bare number (a value table's sample) in ``bare_scalar_dtype`` when the row documents
        that dtype or none, else in the row's first documented dtype of the same category."""
        if value is None or isinstance(value, dict):
            return value
        dtype = bare_scalar_dtype(value)
        if dtype is None:
            raise ValueError(f"aclScalar {self.name}: {value!r} is neither a number nor "
                             f'{{"dtype", "value"}}')
        if self.dtypes and dtype not in self.dtypes:
            category = next(c for c in (INTEGRAL, FLOATING, COMPLEX, {"BOOL"}) if dtype.name in c)
            dtype = next((d for d in self.dtypes if d.name in category), None)
            if dtype is None:
                raise ValueError(f"aclScalar {self.name}: no documented dtype "
                                 f"({', '.join(d.name for d in self.dtypes)}) holds {value!r}")
        return {"dtype": dtype.name, "value": value}

    @property
    def in_signature(self) -> bool:
        """An argument of the first-phase call before workspaceSize and executor."""
        return self.c_kind not in PROTOCOL_KINDS
