"""Prototype parameters of the narrower integer types (matmul's ``int8_t cubeMathType``, aclnnOneHot's
``int numClasses``) are read as integer attributes, passed as int64 as int32_t ones are; unknown
types stay unknown (no call is built for them)."""
from __future__ import annotations

from aclnn_conformance.extract.documents import parse_prototypes

PROTOTYPE = """
```cpp
aclnnStatus aclnnMatmulGetWorkspaceSize(
  const aclTensor *self,
  const aclTensor *mat2,
  aclTensor       *out,
  int8_t           cubeMathType,
  int16_t          small,
  int              numClasses,
  SomeStruct       opaque,
  uint64_t        *workspaceSize,
  aclOpExecutor   **executor)
```
"""


def test_narrow_integer_parameters_are_integer_attributes_and_unknown_types_stay_unknown():
    params, _ = parse_prototypes(PROTOTYPE)["aclnnMatmul"]
    kinds = {p.name: p.c_kind for p in params}
    assert kinds["cubeMathType"] == kinds["small"] == kinds["numClasses"] == "int64"
    assert kinds["opaque"] == "" and kinds["self"] == "tensor" and kinds["workspaceSize"] == "workspace_size"
    assert {p.name: p.c_type for p in params}["cubeMathType"].startswith("int8_t")
