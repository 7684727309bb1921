"""The one-fault candidates the surface suites try per rule template: each candidate, applied to a
valid call, makes the rule it was made for violated (hand-built calls, the rule as data)."""
from __future__ import annotations

import pytest

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.templates import predicate, view_of_case
from aclnn_conformance.suites.calls.surface import tensor_arg
from aclnn_conformance.suites.faults.surface import _candidates


def _call(shape: tuple[int, ...], **attrs) -> Case:
    return Case(op="snip", case_id="base", tensors={"self": tensor_arg("FLOAT", shape)}, attrs=attrs)


DIM_RANGE = {"attr": "dim", "tensor": "self", "min": [-1, 0], "max": [1, -1], "min_rank0": -1, "max_rank0": 0}


@pytest.mark.parametrize("shape, dim", [((2, 3, 4), 1), ((5,), 0), ((), 0)])
def test_a_dim_range_candidate_is_one_past_each_bound_at_the_calls_rank(shape, dim):
    rule = {"template": "attr_in_rank_range", "args": DIM_RANGE}
    violated = predicate("attr_in_rank_range", DIM_RANGE)
    base = _call(shape, dim=dim)
    assert not violated(view_of_case(base))
    made = [build(base) for build in _candidates(rule)]
    assert [c.attrs["dim"] for c in made] == [max(len(shape), 1), -max(len(shape), 1) - 1]
    assert all(violated(view_of_case(c)) for c in made)


def test_a_dim_range_candidate_sets_every_element_of_an_integer_array():
    args = {"attr": "dims", "tensor": "self", "max": [1, -1]}
    made = [build(_call((2, 3), dims=[0, 1])) for build in _candidates({"template": "attr_in_rank_range",
                                                                         "args": args})]
    assert [c.attrs["dims"] for c in made] == [[2, 2]]
    assert predicate("attr_in_rank_range", args)(view_of_case(made[0]))


def test_a_string_candidate_is_no_accepted_word():
    args = {"attr": "approximate", "values": ["tanh", "none"]}
    made = [build(_call((2,), approximate="tanh")) for build in _candidates({"template": "string_in", "args": args})]
    assert [c.attrs["approximate"] for c in made] == ["tanhx", ""]
    assert all(predicate("string_in", args)(view_of_case(c)) for c in made)
