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
    assert [c.attrs["approximate"] for c in made] == ["tanx", ""]
    assert all(predicate("string_in", args)(view_of_case(c)) for c in made)


def test_a_string_prefix_candidate_begins_with_no_accepted_word():
    """``strncmp(s, "NHWC", strlen("NHWC")) == 0`` accepts "NHWCx": the candidate changes a letter of
    the word itself, so that it begins with none of them."""
    args = {"attr": "dataFormat", "values": ["NHWC", "NCHW"], "prefix": True}
    made = [build(_call((2,), dataFormat="NCHW")) for build in _candidates({"template": "string_in", "args": args})]
    assert [c.attrs["dataFormat"] for c in made] == ["NHWx", ""]
    violated = predicate("string_in", args)
    assert all(violated(view_of_case(c)) for c in made)
    assert not violated(view_of_case(_call((2,), dataFormat="NHWCx")))   # begins with an accepted word


OUTER = {"param": "self", "shape": [["vec1", 0, 0], ["vec2", 0, 0]]}


def _outer(self_shape: tuple[int, ...], n: int, m: int) -> Case:
    return Case(op="snip", case_id="base", tensors={"self": tensor_arg("FLOAT", self_shape),
                                                    "vec1": tensor_arg("FLOAT", (n,)),
                                                    "vec2": tensor_arg("FLOAT", (m,))}, attrs={})


@pytest.mark.parametrize("template, n, m, shapes", [
    ("broadcastable_shape", 3, 4, [(4, 4)]),      # the first dim not 1 met by one more
    ("broadcastable_shape", 1, 0, [(1, 2)]),      # a 0 met by 2 (1 would broadcast with it)
    ("expands_to_shape", 3, 4, [(2, 3, 4)]),      # one leading dim more
])
def test_a_built_shape_candidate_breaks_its_rule_only(template, n, m, shapes):
    args, base = dict(OUTER), _outer((n, m), n, m)
    assert not predicate(template, args)(view_of_case(base))
    made = [build(base) for build in _candidates({"template": template, "args": args})]
    assert [tuple(c.tensors["self"].desc.shape) for c in made] == shapes
    assert all(predicate(template, args)(view_of_case(c)) for c in made)
    if template == "expands_to_shape":   # it still broadcasts: the other rule does not take it
        assert not any(predicate("broadcastable_shape", args)(view_of_case(c)) for c in made)


def test_a_built_shape_of_ones_has_no_clash():
    with pytest.raises(ValueError):
        [build(_outer((1, 1), 1, 1)) for build in _candidates({"template": "broadcastable_shape", "args": OUTER})]


SOLVE = {"param": "A", "shape_expr": ["set-dim", ["of", "self"], -1, ["dim", "self", 1, -2]]}


def test_a_computed_shape_candidate_clashes_in_a_leading_batch_dim():
    """A (2, 2) against b (2, 3) made (2, 2): A given a batch dim of 2, b one of 3, their matrices kept."""
    base = Case(op="snip", case_id="base", tensors={"self": tensor_arg("FLOAT", (2, 3)),
                                                    "A": tensor_arg("FLOAT", (2, 2))}, attrs={})
    assert not predicate("broadcastable_shape", SOLVE)(view_of_case(base))
    made = [build(base) for build in _candidates({"template": "broadcastable_shape", "args": SOLVE})]
    assert [(tuple(c.tensors["A"].desc.shape), tuple(c.tensors["self"].desc.shape)) for c in made] == \
        [((3, 2), (2, 3)), ((2, 2, 2), (3, 2, 3))]
    assert all(predicate("broadcastable_shape", SOLVE)(view_of_case(c)) for c in made)
