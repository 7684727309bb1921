"""How the importer maps an ATK case's inputs onto the aclnn prototype (vendor/atk.py): by name, else
by position where the counts and kinds agree (the vendor's executors pass the inputs in order); arrays
given element by element; items that are no argument; and the cases that must stay read in part.
Fixtures: tests/fixtures/vendor_atk_inputs, written for these tests in the vendor's layout and style."""
from __future__ import annotations

from pathlib import Path

import pytest

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.vendor.atk import VALUES_UNREAD
from aclnn_conformance.vendor.importer import import_paths

FIXTURES = Path(__file__).parent / "fixtures" / "vendor_atk_inputs"


@pytest.fixture(scope="module")
def cases():
    result = import_paths([FIXTURES], jobs=1)
    assert not result.problems
    return {(c.api, c.case_id): c for c in result.cases}


def _blocking(vc) -> list[str]:
    """The problems that keep a case from being judged (unread tensor values do not)."""
    return [p.split(": ", 1)[1] for p in vc.problems if VALUES_UNREAD not in p]


def test_unnamed_inputs_map_by_position_and_a_non_param_item_is_no_argument(cases):
    vc = cases[("aclnnAdd", "atk-0")]
    assert _blocking(vc) == []
    assert (vc.tensors["self"].shape, vc.tensors["other"].shape) == ((2, 3), (3,))
    assert vc.tensors["self"].values == {"kind": "uniform", "lo": -1, "hi": 1}
    assert vc.attrs == {"alpha": {"dtype": "FLOAT", "value": 3.0}}
    assert vc.unstated == frozenset({"out"})


def test_null_names_map_by_position(cases):
    vc = cases[("aclnnAdd", "atk-5")]
    assert _blocking(vc) == []
    assert vc.tensors["self"].dtype == DT.FLOAT16 and vc.tensors["other"].shape == (3,)
    assert vc.attrs == {"alpha": {"dtype": "FLOAT16", "value": 2.0}}


def test_fewer_inputs_than_parameters_stay_read_in_part(cases):
    vc = cases[("aclnnAdd", "atk-1")]
    assert _blocking(vc) == [
        "input '' is not a parameter of aclnnAdd",
        "input '' is not a parameter of aclnnAdd",
        "the inputs are not mapped onto aclnnAdd by position: its 2 argument inputs are not the 3 "
        "non-output parameters of aclnnAdd (self, other, alpha)"]


def test_an_attr_item_is_no_aclscalar(cases):
    # "attr" in the type makes a C value, anything else an aclScalar: alpha is an aclScalar
    vc = cases[("aclnnAdd", "atk-2")]
    assert (
        "the inputs are not mapped onto aclnnAdd by position: argument 2 ('alpha') is a 'attr' "
        "input, which cannot be alpha (scalar)") in _blocking(vc)


def test_a_format_item_other_than_nd_is_reported(cases):
    vc = cases[("aclnnAdd", "atk-3")]
    assert _blocking(vc) == ["input 3 (format) sets the tensors' formats through the executor "
                             "('NCL_ND'), which this reader does not apply"]
    assert set(vc.tensors) == {"self", "other", "out"}     # the mapping itself stands


def test_an_unnamed_input_after_a_named_one_is_not_mapped(cases):
    vc = cases[("aclnnAdd", "atk-4")]
    assert (
        "the inputs are not mapped onto aclnnAdd by position: an unnamed input follows a named one "
        "(the framework passes the unnamed first)") in _blocking(vc)


def test_an_int_array_given_element_by_element(cases):
    vc = cases[("aclnnMean", "atk-0")]
    assert _blocking(vc) == []
    assert vc.tensors["self"].shape == (4, 5)
    # [-1] is one element written as a one-element list; dtype 1 is the aclDataType FLOAT16
    assert vc.attrs == {"dim": [0, -1], "keepDim": True, "dtype": 1}


def test_an_array_element_given_as_a_range_is_not_read(cases):
    vc = cases[("aclnnMean", "atk-1")]
    assert _blocking(vc) == ["input 1 (dim): element 0 ([0, 1], dtype 'int') is not one int value "
                             "of the int_array"]
    assert "dim" not in vc.attrs


def test_inputs_out_of_the_prototype_order_are_not_mapped(cases):
    vc = cases[("aclnnMean", "atk-2")]
    assert (
        "the inputs are not mapped onto aclnnMean by position: argument 1 ('keepdim') is a 'attr' "
        "input, which cannot be dim (int_array)") in _blocking(vc)


def test_an_executor_that_rewrites_an_input_leaves_the_case_read_in_part(cases):
    vc = cases[("aclnnStd", "atk-0")]
    assert vc.attrs["dim"] == [1, 1]          # read as written ...
    [problem] = _blocking(vc)                  # ... but the call made is another
    assert problem.startswith("the executor rewrites input 'dim' (") and problem.endswith(
        "math/reduce_std_v2/tests/st/aclnnStd/executor_aclnnStd.py:10) before the call, so the "
        "case's inputs are not the call made")


def test_an_executor_that_gives_every_tensor_the_format_item_applies_it(cases):
    """executor_aclnnMaxDim.py's get_format maps the case's format item onto every tensor, using
    neither the tensor's index nor its name: the case is read with that format (ND for a value it
    does not name); a get_format that looks at the index leaves the case read in part."""
    ncl, other = cases[("aclnnMaxDim", "atk-0")], cases[("aclnnMaxDim", "atk-1")]
    assert ncl.tensors["self"].format.name == "NCL" and not _blocking(ncl)
    assert "executor_aclnnMaxDim.py:8" in ncl.note
    assert other.tensors["self"].format.name == "ND" and not _blocking(other)      # NCDHW: the last return
    per_tensor = cases[("aclnnMaxDim", "atk-2")]
    assert _blocking(per_tensor) == ["input 3 (format) sets the tensors' formats through the executor "
                                     "('NCL_ND'), which this reader does not apply"]
