"""How the importer maps an ATK case's inputs onto the aclnn prototype (vendor/atk.py): by name, else
by position where the counts and kinds agree (the vendor's executors pass the inputs in order); arrays
given element by element; items that are no argument; the formats an executor's get_format gives;
scalars drawn from a range or a distribution, and formats a format item no executor applies may
give, and when their case is judged (extract/agreement.py _st_case); inputs fewer than the parameters
standing for the leading ones; an executor's edits of the argument list; the inputs an executor's
init_by_input_data rewrites (vendor/executor_rewrite.py), judged on each side where they depend on
a value the framework gives (self.device, the type of an argument); and the cases that must stay
read in part.
Fixtures: tests/fixtures/vendor_atk_inputs, written for these tests in the vendor's layout and style."""
from __future__ import annotations

import ast
import math
import re
from pathlib import Path

import pytest

from aclnn_conformance.extract.agreement import _st_case
from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.spec.templates import CallView, TensorView, reads_formats, value_reads
from aclnn_conformance.vendor.atk import CALL_SIDES, VALUES_UNREAD
from aclnn_conformance.vendor.executor_rewrite import CValue, ExecutorRewrite, InputTensor, NotEvaluated
from aclnn_conformance.vendor.importer import import_paths
from aclnn_conformance.vendor.model import VendorCase
from aclnn_conformance.vendor.values import Span, span_of, span_points

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


def test_an_executor_rewrite_outside_the_evaluated_subset_leaves_the_case_read_in_part(cases):
    vc = cases[("aclnnStd", "atk-0")]
    assert vc.attrs["dim"] == [1, 1]          # read as written ...
    [problem] = _blocking(vc)                  # ... but the call made is another: sorted() is not evaluated
    assert problem.startswith("the executor's rewrite is not evaluated (line 10 calls 'sorted'): it "
                              "rewrites input 'dim' (") and problem.endswith(
        "math/reduce_std_v2/tests/st/aclnnStd/executor_aclnnStd.py:10) before the call, so the "
        "case's inputs are not the call made")
    assert not vc.rewrite


def test_an_executor_rewrite_by_numpy_unique_is_applied(cases):
    vc = cases[("aclnnStd", "atk-1")]          # dim [1, 0, 1]: numpy.unique gives [0, 1], sorted
    assert vc.attrs["dim"] == [0, 1] and not _blocking(vc)
    assert vc.rewrite["writes"] == ["dim"] and vc.rewrite["reads_drawn"] == []
    assert "executor_aclnnStdUnique.py:13" in vc.note
    assert _st_case(vc)["verdict"] == "valid"  # the dims now unique: XSTDMEANCORRECTION-ATTR-016 holds


def test_an_executor_rewrite_by_tests_comparisons_and_locals_is_applied(cases):
    # start 5, end 1, step 0: step becomes 1 (an int); end >= start is False, step > 0 True: swapped
    vc = cases[("aclnnArange", "atk-0")]
    assert vc.attrs == {"start": {"dtype": "FLOAT", "value": 1.0}, "end": {"dtype": "FLOAT", "value": 5.0},
                        "step": {"dtype": "FLOAT", "value": 1}}
    assert not _blocking(vc) and vc.rewrite["writes"] == ["end", "start", "step"]


def test_an_executor_rewrite_by_arithmetic_abs_min_max_is_applied(cases):
    # start -3 < 0 and not 10 > 100: max(abs(-3) * 2 + 1, 10 // 3) = max(7, 3) = 7
    assert cases[("aclnnArange", "atk-1")].attrs["end"] == {"dtype": "FLOAT", "value": 7.0}
    # start 2: the else side, min(10, 7) - 5 % 3 = 7 - 2 = 5 (the int of min's operands)
    assert cases[("aclnnArange", "atk-2")].attrs["end"] == {"dtype": "FLOAT", "value": 5}


def test_an_executor_rewrite_reading_a_drawn_value_records_all_it_may_write(cases):
    vc = cases[("aclnnArange", "atk-3")]       # start drawn from [-10, 10], end 4, step 1
    assert vc.rewrite["reads_drawn"] == ["start"]
    assert vc.rewrite["writes"] == ["end", "start", "step"]     # on every path, not the one taken
    assert "start" in vc.drawn


def test_a_rewrite_setting_a_value_no_check_reads_from_a_drawn_one_is_judged(cases):
    # scale = max(alpha, 1.0): no check reads scale; alpha itself is judged over its range as before
    row = _st_case(cases[("aclnnEluBackward", "atk-6")])
    assert row["verdict"] == "valid"
    assert row["drawn"][0].startswith("alpha drawn from [0.5, 2]: judged at 0.5, 2, 1.25 ")


def test_a_rewrite_setting_a_value_a_check_reads_from_a_drawn_one_is_not_judged(cases):
    # alpha = abs(alpha) over [-1, 1]: XELUBACKWARD-ATTR-019 compares alpha with 0
    row = _st_case(cases[("aclnnEluBackward", "atk-5")])
    assert row["verdict"] == "not judged"
    assert row["cause"].startswith("the executor (input 'alpha' (") and row["cause"].endswith(
        "executor_aclnnEluBackward.py:10)) sets alpha from the drawn value of alpha, and a check reads it")


def test_an_executor_rewrite_building_a_tensor_gives_its_dtype_shape_and_values(cases):
    # 6 rows, 3 groups: linspace(6 // 3, 6, steps=3) = [2, 4, 6], rounded, as the index's int64;
    # the device move on one side leaves the same tensor
    vc = cases[("aclnnGroupedBiasAddGrad", "atk-0")]
    t = vc.tensors["groupIdxOptional"]
    assert (t.dtype, t.shape, dict(t.values)) == (DT.INT64, (3,), {"kind": "values", "values": [2, 4, 6]})
    assert not _blocking(vc)
    # an empty index: the executor passes no tensor (a null pointer)
    vc = cases[("aclnnGroupedBiasAddGrad", "atk-1")]
    assert vc.tensors["groupIdxOptional"] is None and not _blocking(vc)


def test_a_rewrite_on_one_device_is_read_where_both_sides_make_the_same_descriptors(cases):
    # on "aclnn" the buffer is torch.tensor([1, 1]) as self's float32, else the case's [2] float32:
    # the same descriptor, values not read (they decide no first-phase check)
    vc = cases[("aclnnLogSigmoidBackward", "atk-0")]
    assert (vc.tensors["buffer"].dtype, vc.tensors["buffer"].shape) == (DT.FLOAT, (2,))
    assert _blocking(vc) == [] and any(VALUES_UNREAD in p for p in vc.problems) and not vc.sides
    assert _st_case(vc)["verdict"] == "valid"


def test_a_rewrite_on_one_device_making_two_calls_is_judged_where_both_have_one_verdict(cases):
    # the case's buffer is [3]: on "aclnn" a float32 [2], else the case's; no check of
    # aclnnLogSigmoidBackward reads buffer but for null (logsigmoid_grad op_api CheckNotNull)
    vc = cases[("aclnnLogSigmoidBackward", "atk-1")]
    [problem] = _blocking(vc)
    assert problem == f"{CALL_SIDES} (self.device): the call is judged as each side makes it"
    assert [(s["assumed"], s["tensors"]["buffer"].shape) for s in vc.sides] == [
        (("self.device == 'aclnn'",), (2,)), (("self.device != 'aclnn'",), (3,))]
    row = _st_case(vc)
    assert row["verdict"] == "valid" and row["sides"] == ["self.device == 'aclnn'", "self.device != 'aclnn'"]
    # on "aclnn" self becomes an int32 tensor, which XLOGSIGMOIDBACKWARD's dtype check rejects: the
    # verdict depends on the device
    row = _st_case(cases[("aclnnLogSigmoidBackward", "atk-2")])
    assert row["verdict"] == "not judged"
    assert row["cause"].startswith("the verdict depends on what the framework gives: self.device == "
                                   "'aclnn': invalid (") and row["cause"].endswith("; self.device != 'aclnn': valid")


def test_an_executor_testing_the_type_of_an_argument_is_judged_on_both_sides(cases):
    """executor_aclnnClippedSwiglu.py (a fixture) converts x to torch (its dtype and shape), reads
    dim as the C integer argument 2, folds x's shape around it on self, and passes a null group index
    where the framework gives argument 1 as a void pointer: the two tests of that type take one side
    per path, so the calls are two, the case's and one with a null index."""
    vc = cases[("aclnnClippedSwiglu", "atk-0")]         # x fp16 [4, 6], an int64 [2] index, dim -1
    assert [(s["assumed"], s["tensors"]["groupIndexOptional"]) for s in vc.sides] == [
        (("the type name of argument 1 != 'c_void_p'",), vc.tensors["groupIndexOptional"]),
        (("the type name of argument 1 == 'c_void_p'",), None)]
    assert vc.tensors["groupIndexOptional"].dtype == DT.INT64
    # dim is drawn from [-1, -1]: one value, so the path read stands for every draw
    assert vc.rewrite["reads_drawn"] == [] and vc.rewrite["writes"] == ["groupIndexOptional"]
    row = _st_case(vc)
    assert row["verdict"] == "valid" and row["valid_on_every"]
    assert VendorCase.from_json(vc.to_json()) == vc         # the sides are kept with the case
    # an int32 index: XCLIPPEDSWIGLU-DTYPE-005 rejects it, the null side is valid: not judged
    row = _st_case(cases[("aclnnClippedSwiglu", "atk-1")])
    assert row["verdict"] == "not judged" and "invalid (" in row["cause"] and "XCLIPPEDSWIGLU-DTYPE-005" in row["cause"]


@pytest.mark.parametrize("case_id, named", [
    # dim 2 of a rank-2 x: the executor's own list raises IndexError before the call
    ("atk-2", "line 34: 'self.out_shape[split]' raises IndexError"),
    # the sum of a float index may be NaN (int() of it raises): not evaluated
    ("atk-3", "line 32 calls 'torch.sum(groups)'"),
])
def test_an_executor_testing_the_type_of_an_argument_stays_read_in_part_where_a_side_is_not_evaluated(
        cases, case_id, named):
    vc = cases[("aclnnClippedSwiglu", case_id)]
    [problem] = _blocking(vc)
    assert problem.startswith(f"the executor's rewrite is not evaluated ({named}): it rewrites argument 1 (")
    assert not vc.sides and _st_case(vc)["verdict"] == "not judged"


def test_an_argument_rewrite_after_the_framework_builds_them_is_applied(cases):
    # argument 2 is beta (as drawn, as a double), argument 3 linearBeta: 2 * the default 0.5 of a
    # key the case does not give
    vc = cases[("aclnnSituGlu", "atk-0")]
    assert 0.1 <= vc.attrs["beta"] <= 10.0 and vc.attrs["linearBeta"] == 1.0
    assert vc.rewrite == {"said": vc.rewrite["said"], "writes": ["beta", "linearBeta"],
                          "reads_drawn": ["beta"]}
    row = _st_case(vc)
    assert row["verdict"] == "valid" and row["drawn"] == ["beta drawn from [0.1, 10]: no check reads its value"]


def test_a_call_on_the_frameworks_objects_is_not_evaluated(cases):
    [problem] = _blocking(cases[("aclnnSituGlu", "atk-1")])
    assert problem.startswith("the executor's rewrite is not evaluated (line 24 calls "
                              "'self.backend.contiguous'): it rewrites argument 0 (")


def test_an_executor_that_gives_every_tensor_the_format_item_applies_it(cases):
    """executor_aclnnMaxDim.py's get_format maps the case's format item onto every tensor, using
    neither the tensor's index nor its name: the case is read with that format (ND for a value it
    does not name); a get_format that looks at the index leaves the case read in part."""
    ncl, other = cases[("aclnnMaxDim", "atk-0")], cases[("aclnnMaxDim", "atk-1")]
    assert ncl.tensors["self"].format.name == "NCL" and not _blocking(ncl)
    assert "executor_aclnnMaxDim.py:8" in ncl.note
    assert other.tensors["self"].format.name == "ND" and not _blocking(other)      # NCDHW: the last return
    per_tensor = cases[("aclnnMaxDim", "atk-2")]      # index 0 NCL, any other ND; the input is named
    [problem] = _blocking(per_tensor)
    assert problem.startswith("input 3 (format) sets the tensors' formats through the executor ('NCL_ND'); "
                              "the executor's get_format (") and problem.endswith(
        "executor_aclnnMaxDim.py:18) is not read for 'NCL_ND': its answer depends on the tensor's index "
        "and the case names its inputs (a named input is passed with no index)")


def test_a_get_format_by_index_gives_each_unnamed_input_its_format(cases):
    """executor_aclnnSWhere.py's get_format answers 'NCL_ND_NCL' by the tensor's index (0 and 2 NCL,
    else ND): the unnamed inputs are passed in order, input i at index i, so condition (0) and other
    (2) are NCL and self (1) ND; a docstring and an else branch are read. The output, made from the
    golden torch.where's result, is asked its format at an index this reader does not read: the case
    stays read in part for it alone."""
    vc = cases[("aclnnSWhere", "atk-0")]
    assert {n: t.format.name for n, t in vc.tensors.items() if t is not None and n != "out"} == {
        "condition": "NCL", "self": "ND", "other": "NCL"}
    assert (vc.tensors["out"].dtype, vc.tensors["out"].shape) == (DT.FLOAT, (4, 2, 8))
    assert "executor_aclnnSWhere.py:10" in vc.note
    [blocking] = _blocking(vc)
    assert re.fullmatch(r"the executor's get_format \(\S+/executor_aclnnSWhere\.py:10\) answers 'NCL_ND_NCL' "
                        r"by the tensor's index, and the index it is asked at for the output out is not read",
                        blocking)


def test_a_get_format_by_index_leaves_named_inputs_read_in_part(cases):
    """A named input is passed with a name and no index: the answer by index is not read for it."""
    vc = cases[("aclnnSWhere", "atk-1")]
    [problem] = _blocking(vc)
    assert problem.endswith("is not read for 'NCL_ND_NCL': its answer depends on the tensor's index "
                            "and the case names its inputs (a named input is passed with no index)")


def test_a_get_format_answering_one_format_whatever_the_index_applies_to_named_inputs(cases):
    vc = cases[("aclnnSWhere", "atk-2")]       # 'NCHW' returns before any index is read
    assert _blocking(vc) == []
    assert {t.format.name for t in vc.tensors.values() if t is not None} == {"NCHW"}


def test_a_get_format_reading_the_tensor_name_is_not_read(cases):
    vc = cases[("aclnnSWhere", "atk-3")]
    [problem] = _blocking(vc)
    assert problem.endswith("executor_aclnnSWhere.py:24) is not read for 'NCL': line 25 reads 'name'")
    assert {t.format.name for t in vc.tensors.values() if t is not None} == {"ND"}


# A scalar given as a normal distribution whose mean and std are ranges: the framework may draw any
# value; the case is judged where the verdict is the same for every value of the span.

def test_a_scalar_drawn_from_a_ranged_normal_distribution_is_read_with_what_it_is_drawn_from(cases):
    vc = cases[("aclnnAddV3", "atk-0")]
    assert _blocking(vc) == []
    assert vc.attrs["self"]["dtype"] == "FLOAT16" and vc.attrs["alpha"]["dtype"] == "FLOAT16"
    normal = {"kind": "normal", "mean": [-100, 100], "std": [1, 25]}
    assert vc.drawn == {"self": {"recipe": normal, "kind": "float32"},
                        "alpha": {"recipe": normal, "kind": "float32"}}
    assert span_of(normal, "float32") == Span()          # the whole line, its ends included


def test_a_drawn_scalar_no_check_reads_is_judged(cases):
    # aclnnAddV3's checks read self and alpha as dtypes (promotion, casts) and nulls, never values
    row = _st_case(cases[("aclnnAddV3", "atk-0")])
    assert row["verdict"] == "valid"
    assert row["drawn"] == ["self drawn from [-inf, inf]: no check reads its value",
                            "alpha drawn from [-inf, inf]: no check reads its value"]


def test_a_drawn_scalar_a_check_compares_is_judged_where_the_check_answers_one_way(cases):
    # XELUBACKWARD-ATTR-019 rejects isResult && alpha->ToFloat() < 0: over [0.5, 2] never (taken at
    # 0.5, 2 and 1.25); over [-1, 1] with isResult false never (taken at -1, 1 and 0)
    for case_id, points in (("atk-0", "0.5, 2, 1.25"), ("atk-2", "-1, 1, 0")):
        row = _st_case(cases[("aclnnEluBackward", case_id)])
        assert row["verdict"] == "valid"
        assert row["drawn"][0].startswith(f"alpha drawn from [{points.split(', ')[0]}, "
                                          f"{points.split(', ')[1]}]: judged at {points} ")


def test_a_drawn_scalar_whose_check_answers_both_ways_is_not_judged(cases):
    # isResult true: alpha -1 is rejected, alpha 1 accepted; a normal draw may be either
    for case_id in ("atk-1", "atk-3"):
        row = _st_case(cases[("aclnnEluBackward", case_id)])
        assert row["verdict"] == "not judged"
        assert row["cause"].startswith("the verdict depends on the value drawn for alpha: rejected on "
                                       "every product") and "XELUBACKWARD-ATTR-019; valid" in row["cause"]
    row = _st_case(cases[("aclnnEluBackward", "atk-4")])    # isResult false: any alpha is accepted
    assert row["verdict"] == "valid" and row["drawn"][0].startswith(
        "alpha drawn from [-inf, inf]: judged at -inf, inf, 0 ")


def test_value_reads_bounds_each_reading_of_a_value_or_none():
    test = ["and", ["flag", "isResult"], ["cmp", "alpha", "float", "<", 0.0]]
    assert value_reads("scalar_test", {"test": test}, "alpha") == [["cmp", "alpha", "float", "<", 0.0]]
    assert value_reads("scalar_test", {"test": test}, "isResult") == [["flag", "isResult"]]
    # a dtype read, a null test, a cast of its dtype: no value read
    assert value_reads("castable", {"from_expr": ["of", "alpha"], "to_expr": ["dtype", "FLOAT"]}, "alpha") == []
    assert value_reads("null", {"param": "alpha"}, "alpha") == []
    # one value against another argument's, or a name in an integer expression: not bounded
    assert value_reads("scalar_test", {"test": ["cmp", "min", "float", ">", ["arg", "max", "float"]]},
                       "max") is None
    assert value_reads("int_test", {"test": ["<", ["attr", "dim"], 0]}, "dim") is None
    # a range on an integer attribute: its bounds; on the tensor's rank: the bounds at its rank
    assert value_reads("attr_range", {"attr": "n", "min": 0}, "n") == [["cmp", "n", "double", "<", 0]]
    call = CallView({"self": TensorView("FLOAT", (2, 3, 4), "ND")}, {"dim": 1}, frozenset())
    rank_range = {"attr": "dim", "min": [-1, 0], "max": [1, -1], "tensor": "self"}
    assert value_reads("attr_in_rank_range", rank_range, "dim", call) == [
        ["cmp", "dim", "double", "<", -3], ["cmp", "dim", "double", ">", 2]]
    assert value_reads("attr_in_rank_range", rank_range, "dim") is None


def test_span_points_take_every_answer_a_comparison_can_give():
    assert span_points(Span(-1.0, 1.0), [0.0, 5.0]) == [-1.0, 1.0, 0.0]      # 5 is outside
    assert span_points(Span(0.5, 2.0), [0.0]) == [0.5, 2.0, 1.25]
    assert span_points(Span(), [3.0]) == [-math.inf, math.inf, 3.0, 0.0]
    assert span_points(Span(1, 100), []) == [1, 100, 50.5]
    assert span_points(Span(points=(False, True)), [0.0]) == [False, True]
    assert span_of({"kind": "uniform", "lo": 3.5, "hi": -2}, "int") == Span(-2, 3)
    assert span_of({"kind": "choice", "values": ["-inf", "inf"]}, "float32") == Span(points=(-math.inf, math.inf))


def _rewrite_of(body: str) -> ExecutorRewrite:
    source = "def init_by_input_data(self, input_data):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    return ExecutorRewrite(ast.parse(source).body[0], "fixture")


def test_the_evaluator_follows_pythons_meaning_of_each_construct():
    run = lambda body, **kw: [o.written for o in _rewrite_of(body).evaluate(kw, None)]
    # a chained comparison, not, unary minus, true division of ints, a conditional expression
    assert run('input_data.kwargs["a"] = -input_data.kwargs["a"] / 2 if 0 < input_data.kwargs["a"] <= 4 '
               'and not input_data.kwargs["b"] else 9', a=3, b=False) == [{"a": -1.5}]
    assert run('input_data.kwargs["a"] = input_data.kwargs["b"] or 5', a=1, b=0) == [{"a": 5}]
    assert run('input_data.kwargs["a"] = len(input_data.kwargs["b"]) // 2', a=0, b=[4, 5, 6]) == [{"a": 1}]
    # a tensor input's dtype against torch's names (no number), its shape and size
    assert run('if input_data.kwargs["t"].dtype == torch.float32 and input_data.kwargs["t"].size(0) == 2:\n'
               '    input_data.kwargs["a"] = input_data.kwargs["t"].shape[-1] * 10',
               a=0, t=InputTensor(DT.FLOAT, (2, 3))) == [{"a": 30}]
    assert run('if input_data.kwargs["t"].dtype != torch.float16:\n    input_data.kwargs["a"] = 1',
               a=0, t=InputTensor(DT.FLOAT16, (2,))) == [{}]
    # a test of the framework's device: both sides
    assert run('if self.device == "npu":\n    input_data.kwargs["a"] = 2', a=1) == [{"a": 2}, {}]
    # the same test again on one path takes that path's side: two paths, not four
    assert run('if self.device != "npu":\n    input_data.kwargs["a"] = 2\n'
               'if self.device == "npu":\n    input_data.kwargs["b"] = 3', a=1, b=0) == [{"a": 2}, {"b": 3}]
    # a list of the method's own, changed in place through an alias; a slice; torch.prod of a slice
    # of a shape (s[:1] = [2] -> 2; an empty slice is torch's float 1.0)
    assert run('s = list(input_data.kwargs["t"].shape)\nu = s\nu[-1] = 7\n'
               'input_data.kwargs["a"] = [s[0], s[1:][0], torch.prod(torch.tensor(s[:1])).item(), '
               'torch.prod(torch.tensor(s[:0])).item()]', a=0, t=InputTensor(DT.FLOAT, (2, 3))) == [
        {"a": [2, 7, 2, 1.0]}]
    # self's attributes the method sets are its own; the sum of integer values not known may be kept there
    assert run('self.n = min(int(torch.sum(input_data.kwargs["t"]).item()), 4)\ninput_data.kwargs["a"] = 5',
               a=0, t=InputTensor(DT.INT64, (3,))) == [{"a": 5}]
    # an int64_t argument's .value
    args = [("a", CValue(-2)), ("t", InputTensor(DT.FLOAT, (2,)))]
    assert [o.written for o in _rewrite_of('input_args, out = super().init_by_input_data(input_data)\n'
                                           'input_args[1] = input_args[0].value + 3').evaluate(
        {"a": -2, "t": args[1][1]}, args)] == [{"#1": 1}]


@pytest.mark.parametrize("body, named", [
    ('input_data.kwargs["a"] = input_data.kwargs["a"] // input_data.kwargs["b"]', "raises ZeroDivisionError"),
    ('for k in [1]:\n    input_data.kwargs["a"] = k', "'for k in [1]:' is outside the statements"),
    ('input_args, out = super().init_by_input_data(input_data)\ninput_data.kwargs["a"] = 1',
     "writes input 'a' after the arguments are built"),
    ('input_data.kwargs["c"] = 1', "writes input 'c', which the case gives no argument"),
    ('x = input_data.kwargs["t"].sum()\ninput_data.kwargs["a"] = 1', "calls \"input_data.kwargs['t'].sum\""),
    ('if input_data.kwargs["t"].shape:\n    input_data.kwargs["a"] = 1', None),
    # a number from drawn values decides nothing: not tested, not written, not computed with
    ('if torch.sum(input_data.kwargs["i"]) + 1:\n    input_data.kwargs["a"] = 1', "computes"),
    ('n = torch.sum(input_data.kwargs["i"]).item()\nif n > 1:\n    input_data.kwargs["a"] = 1', "compares"),
    ('self.n = int(torch.sum(input_data.kwargs["t"]).item())', 'calls "torch.sum'),
    # an input's own list changed in place would change the input unrecorded
    ('d = input_data.kwargs["d"]\nd[0] = 2', "assigns to 'd[0]'"),
    ('d = input_data.kwargs["d"]\ninput_data.kwargs["d"] = [0]\nd[0] = 2', "assigns to 'd[0]'"),
    # the framework's objects stay the framework's
    ('self.device = "npu"', "assigns to 'self.device'"),
    ('x = self.backend.acl_tensor_to_torch(input_data.kwargs["a"])', "acl_tensor_to_torch of 1"),
    ('if self.device > "a":\n    input_data.kwargs["a"] = 1', "compares"),
])
def test_the_evaluator_refuses_what_is_outside_its_subset(body, named):
    rewrite = _rewrite_of(body)
    kwargs = {"a": 1, "b": 0, "t": InputTensor(DT.FLOAT, (2,)), "i": InputTensor(DT.INT64, (3,)), "d": [1, 2]}
    if named is None:      # a tuple's truth is plain: evaluated
        assert [o.written for o in rewrite.evaluate(kwargs, [("a", 1), ("b", 0), ("t", kwargs["t"])])] == [{"a": 1}]
        return
    with pytest.raises(NotEvaluated, match=re.escape(named)):
        rewrite.evaluate(kwargs, [("a", 1), ("b", 0), ("t", kwargs["t"])])


# A format item no executor beside the file applies (no get_format): the verdict is judged where it is
# the same whatever format of the item's each tensor gets (ND, or a format the item names).

def test_a_format_item_no_check_reads_is_judged(cases):
    # aclnnAdd's checks read dtypes, shapes and nulls, never a format
    vc = cases[("aclnnAdd", "atk-3")]
    assert vc.open_formats == {"self": ("ND", "NCL"), "other": ("ND", "NCL")}
    row = _st_case(vc)
    assert row["verdict"] == "valid" and row["formats"] == "no check reads the tensors' formats"


def test_a_format_item_a_check_reads_is_judged_where_every_format_gives_one_verdict(cases):
    # XABS-FORMAT-009 rejects a private format of self: NCL and ND are none (formats_equal reads out,
    # which the case does not state)
    vc = cases[("aclnnAbs", "atk-0")]
    assert vc.open_formats == {"self": ("ND", "NCL")}
    row = _st_case(vc)
    assert row["verdict"] == "valid"
    assert row["formats"] == ("judged with each of self in each format the format item may give (ND/NCL): "
                              "XABS-FORMAT-009 read formats")


def test_a_format_item_whose_formats_give_two_verdicts_is_not_judged(cases):
    # NC1HWC0 is a private format: self in it is rejected, in ND or NCHW accepted
    row = _st_case(cases[("aclnnAbs", "atk-1")])
    assert row["verdict"] == "not judged"
    assert row["cause"].startswith("the verdict depends on the formats the format item may give self: ")
    assert "XABS-FORMAT-009" in row["cause"] and "valid" in row["cause"]


@pytest.mark.parametrize("case_id", ["atk-2", "atk-3"])
def test_a_format_item_naming_an_unknown_format_or_beside_a_tensor_format_is_not_judged(cases, case_id):
    # 'NCL_BLOCKED' names no format this suite knows; a tensor naming its own format beside the item:
    # which of the two the tensor is made with is not read
    vc = cases[("aclnnAbs", case_id)]
    assert vc.open_formats == {}
    row = _st_case(vc)
    assert row["verdict"] == "not judged" and "sets the tensors' formats through the executor" in row["cause"]


def test_reads_formats_finds_format_templates_and_guards():
    assert reads_formats("private_format", {"param": "self"})
    assert reads_formats("combination_in", {"params": ["self"], "combinations": []})
    assert reads_formats("dtype_in", {"param": "self", "dtypes": ["FLOAT"],
                                      "when": ["not", ["format-same", "self", "out"]]})
    assert reads_formats("null", {"param": "out", "when": ["contiguous", ["self"]]})
    assert not reads_formats("dtype_in", {"param": "self", "dtypes": ["FLOAT"],
                                          "when": ["in", ["of", "self"], ["complex"]]})
    assert not reads_formats("shapes_equal", {"param": "self", "other": "out"})


# Inputs fewer than the non-output parameters: the framework passes the inputs first and its outputs
# after them, so the inputs stand for the leading parameters where every later one is a tensor the
# prototype declares writable (gradInput: ``aclTensor *``, its document row says 输入).

def test_fewer_inputs_stand_for_the_leading_parameters_when_the_rest_are_written(cases):
    vc = cases[("aclnnExpSegsumBackward", "atk-0")]
    assert _blocking(vc) == []
    assert vc.tensors["gradOutput"].shape == (2, 3, 8, 8) and vc.tensors["gradSelf"].shape == (2, 3, 8, 8)
    assert vc.unstated == frozenset({"gradInput"})
    assert _st_case(vc)["verdict"] == "valid"


def test_fewer_inputs_under_an_executor_that_builds_the_arguments_stay_read_in_part(cases):
    vc = cases[("aclnnExpSegsumBackward", "atk-1")]     # its aclnn class has an init_by_input_data
    assert _blocking(vc) == [
        "input 'gradOut' is not a parameter of aclnnExpSegsumBackward",
        "the inputs are not mapped onto aclnnExpSegsumBackward by position: its 2 argument inputs are "
        "not the 3 non-output parameters of aclnnExpSegsumBackward (gradOutput, gradSelf, gradInput)"]
    assert _st_case(vc)["verdict"] == "not judged"


def test_fewer_inputs_whose_names_contradict_their_positions_stay_read_in_part(cases):
    vc = cases[("aclnnExpSegsumBackward", "atk-2")]
    assert ("the inputs are not mapped onto aclnnExpSegsumBackward by position: argument 0 is named "
            "'gradSelf' but stands where gradOutput is") in _blocking(vc)


# An aclnn executor whose init_by_input_data edits the framework's argument list (the inputs in order,
# then the output): ``input_args[k] = ctypes.c_T(input_data.kwargs[name])`` passes that input's value
# as a C T at argument k (counted from the end: the prototype's 10 parameters less the inputs are the
# outputs), ``input_args.insert(k, TensorPtr())`` a null pointer; the rest map by position.

def test_executor_edits_map_inputs_named_otherwise_onto_the_prototype(cases):
    vc = cases[("aclnnAddLora", "atk-0")]
    assert _blocking(vc) == []
    assert {n: t.shape for n, t in vc.tensors.items() if t is not None} == {
        "y": (17, 16), "x": (17, 16), "weightB": (1, 1, 16, 16), "indices": (17,),
        "weightAOptional": (1, 1, 16, 16)}
    # argument -5 of 10 is layerIdx (5), -4 scale (a C double: 2 passes as 2.0), -3 yOffset, -2 ySliceSize
    assert vc.attrs == {"layerIdx": 0, "scale": 2.0, "yOffset": 0, "ySliceSize": 16}
    assert vc.unstated == frozenset({"out"})
    assert _st_case(vc)["verdict"] == "valid"


def test_an_inserted_null_pointer_is_a_stated_null_parameter(cases):
    # 8 inputs, a null at 4 and one output: weightAOptional is null, the C values still at -5..-2
    vc = cases[("aclnnAddLora", "atk-1")]
    assert _blocking(vc) == []
    assert "weightAOptional" in vc.tensors and vc.tensors["weightAOptional"] is None
    assert vc.unstated == frozenset({"out"})
    assert vc.attrs == {"layerIdx": 0, "scale": 2.0, "yOffset": 0, "ySliceSize": 16}
    assert _st_case(vc)["verdict"] == "valid"


def test_an_executor_edit_computing_a_value_leaves_the_case_read_in_part(cases):
    vc = cases[("aclnnAddLora", "atk-2")]        # y_slice_size // 2: not an edit this reader reads
    assert "input 'input' is not a parameter of aclnnAddLora" in _blocking(vc)
    # the rewrite evaluator cannot place its writes either: the inputs are not mapped by position
    assert any(p.startswith("the executor's rewrite is not evaluated (line 43 builds the arguments, ")
               and "it rewrites argument -5, argument -4, argument -3, argument -2 (" in p
               for p in _blocking(vc))
    assert _st_case(vc)["verdict"] == "not judged"


def test_a_float_passed_as_a_c_integer_is_not_read(cases):
    vc = cases[("aclnnAddLora", "atk-3")]        # ctypes.c_int64(0.5) is refused
    assert _blocking(vc) == ["input layerIdx: the value 0.5 is not one this reader makes a C int64 of"]
    assert _st_case(vc)["verdict"] == "not judged"
