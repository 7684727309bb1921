"""opbase's PromoteType as its table holds it (include/nnopbase/opdev/data_type_utils.h:165-296 at
hicann/opbase@aa3cd74b): 34 initialised rows and columns (DT_FLOAT = 0 to DT_COMPLEX32 = 33) in a
DT_MAX x DT_MAX array, so every pair with one of the eight newest dtypes is the zero entry, DT_FLOAT;
the pairs the table writes as ``ud`` stay DT_UNDEFINED."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.dtype_promotion import ZERO_INITIALISED, promote_type
from aclnn_conformance.spec.enums import AclDataType


def test_the_zero_initialised_dtypes_are_the_enum_values_past_the_tables_initializer():
    assert sorted(AclDataType[d].value for d in ZERO_INITIALISED) == list(range(34, 42))


@pytest.mark.parametrize("a,b", [("FLOAT16", "HIFLOAT8"), ("HIFLOAT8", "FLOAT16"), ("HIFLOAT8", "FLOAT8_E5M2"),
                                 ("BOOL", "FLOAT4_E2M1"), ("COMPLEX64", "FLOAT8_E4M3FN"), ("INT8", "FLOAT8_E8M0")])
def test_a_pair_with_a_newest_dtype_is_float(a, b):
    assert promote_type(a, b) == "FLOAT"


def test_the_written_entries_are_unchanged():
    assert promote_type("HIFLOAT8", "HIFLOAT8") == "HIFLOAT8"      # equal dtypes return early
    assert promote_type("FLOAT16", "BF16") == "FLOAT"               # row f2, column bf
    assert promote_type("UINT16", "FLOAT") is None                  # row u2, column f4: ud
    assert promote_type("INT8", "UINT8") == "INT16"                 # row i1, column u1
