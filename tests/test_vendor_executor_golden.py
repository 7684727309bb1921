"""The golden of an ATK case whose api_type names an executor of the repository (vendor/
executor_golden.py): the executor's ``__call__`` read and evaluated on torch's meta device, never
imported or run; the dtype and shape of each tensor it returns, or the construct and line it is not
evaluated at. Expected dtypes and shapes are torch's documented rules: an integer input to sigmoid
gives the default float32, ``.to(dtype)`` is that dtype, ``torch.trace`` is a 0-d tensor,
``torch.topk`` gives values of the input's dtype and int64 indices with ``k`` along ``dim``,
``Tensor.chunk(2, dim)`` halves ``dim``, a reduction with ``reduction="sum"`` is 0-d, ``torch.mean``
over ``dim`` drops those dims (keeps them as 1 with ``keepdim=True``).
Fixtures: tests/fixtures/vendor_atk_goldens, written for these tests in the vendor's style."""
from __future__ import annotations

from pathlib import Path

import pytest

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.vendor.atk import executor_goldens
from aclnn_conformance.vendor.atk_golden import GoldenArgument, GoldenOutput
from aclnn_conformance.vendor.importer import import_paths

pytest.importorskip("torch")
FIXTURES = Path(__file__).parent / "fixtures" / "vendor_atk_goldens"
EXECUTORS = FIXTURES / "executors"
FILE = "fixtures/executor_goldens.py"


def _t(name: str, dtype: DT, *shape: int) -> GoldenArgument:
    return GoldenArgument(name, tensor=(dtype, tuple(shape)))


def _v(name: str, value) -> GoldenArgument:
    return GoldenArgument(name, value=value)


@pytest.fixture(scope="module")
def goldens():
    return executor_goldens(EXECUTORS, "fixtures")


def _line(text: str) -> int:
    """The line of the fixture file a construct is on (so the test states where the reason points)."""
    lines = (EXECUTORS / "executor_goldens.py").read_text().splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


@pytest.mark.parametrize("registered, arguments, api_name, expected", [
    ("module_sigmoid", [_t("x", DT.FLOAT16, 4, 5)], "", (GoldenOutput(DT.FLOAT16, (4, 5)),)),
    ("module_sigmoid", [_t("x", DT.INT32, 3)], "", (GoldenOutput(DT.FLOAT, (3,)),)),
    # an attr's value picks the dtype from the executor's own map
    ("cast_by_map", [_t("self", DT.INT16, 2, 3), _v("dtype", 12)], "", (GoldenOutput(DT.BOOL, (2, 3)),)),
    ("cast_by_map", [_t("self", DT.FLOAT, 7), _v("dtype", 27)], "", (GoldenOutput(DT.BF16, (7,)),)),
    # a map the file assigns at its top level
    ("cast_by_module_map", [_t("self", DT.FLOAT, 7), _v("dtype", 1)], "", (GoldenOutput(DT.FLOAT16, (7,)),)),
    # the golden's device is the benchmark's (cpu); an unnamed input is input_data.args[0]
    ("trace_by_device", [_t("", DT.FLOAT16, 3, 4)], "", (GoldenOutput(DT.FLOAT16, ()),)),
    ("trace_by_device", [_t("", DT.BOOL, 3, 3)], "", (GoldenOutput(DT.INT64, ()),)),
    ("trace_by_device", [_t("", DT.INT32, 2, 2)], "", (GoldenOutput(DT.INT64, ()),)),
    ("softmax_upcast", [_t("self", DT.BF16, 2, 9), _v("dim", -1)], "", (GoldenOutput(DT.BF16, (2, 9)),)),
    ("topk_pair", [_t("self", DT.FLOAT, 5, 8), _v("k", 3), _v("dim", 1)], "",
     (GoldenOutput(DT.FLOAT, (5, 3)), GoldenOutput(DT.INT64, (5, 3)))),
    ("aten_gelu_backward", [_t("gradOutput", DT.FLOAT, 2, 3), _t("self", DT.FLOAT, 2, 3)], "",
     (GoldenOutput(DT.FLOAT, (2, 3)),)),
    # a function the method defines, called inside try; kwargs.get's default for the absent dim
    ("local_functions", [_t("input", DT.FLOAT16, 4, 6)], "",
     (GoldenOutput(DT.FLOAT16, (4, 3)), GoldenOutput(DT.FLOAT, (4, 3)))),
    # a function of the file, its default argument read from its definition
    ("module_function", [_t("input", DT.FLOAT, 2, 10)], "", (GoldenOutput(DT.FLOAT, (2, 5)),)),
    # eval(self.api_name): the case's name read as a torch path; with_output is true
    ("api_name_module", [_t("self", DT.FLOAT, 3, 4)], "torch.nn.LogSoftmax", (GoldenOutput(DT.FLOAT, (3, 4)),)),
    # a list comprehension over the shape's indices; arithmetic on tensors and numbers
    ("mean_dims", [_t("input", DT.FLOAT, 8, 3, 5)], "", (GoldenOutput(DT.FLOAT, (3,)), GoldenOutput(DT.FLOAT, (3,)))),
    # a torch.nn.Module subclass of the file: its __init__ builds it, its forward is the call
    ("file_module", [_t("self", DT.FLOAT16, 3, 4), _v("alpha", 0.5)], "", (GoldenOutput(DT.FLOAT16, (3, 4)),)),
    # another method of the executor's class, on the benchmark's device
    ("own_method", [_t("gradOut", DT.FLOAT16, 2, 3, 8, 8), _t("gradSelf", DT.FLOAT16, 2, 3, 8, 8)], "",
     (GoldenOutput(DT.FLOAT16, (2, 3, 8)),)),
    ("own_method", [_t("gradOut", DT.FLOAT, 4, 4), _t("gradSelf", DT.FLOAT, 4, 4)], "", (GoldenOutput(DT.FLOAT, (4,)),)),
    # the CPU kernel's dtype (the golden's device) where torch's meta kernel follows input_dtype (1 is
    # int8) and its CPU kernel keeps the gradient's dtype (torch/_decomp/decompositions.py says so)
    ("softmax_backward_input_dtype", [_t("gradOutput", DT.FLOAT, 4, 6), _t("output", DT.FLOAT, 4, 6), _v("dim", 0)],
     "", (GoldenOutput(DT.FLOAT, (4, 6)),)),
    ("softmax_backward_input_dtype", [_t("gradOutput", DT.BF16, 2, 3, 5), _t("output", DT.BF16, 2, 3, 5),
                                      _v("dim", -1)], "", (GoldenOutput(DT.BF16, (2, 3, 5)),)),
    ("kl_div_reduction", [_t("self", DT.FLOAT, 4, 4), _t("target", DT.FLOAT, 4, 4), _v("reduction", 2)], "",
     (GoldenOutput(DT.FLOAT, ()),)),
])
def test_the_golden_gives_dtype_and_shape_as_torch_does(goldens, registered, arguments, api_name, expected):
    assert goldens[registered].evaluate(arguments, api_name) == expected


@pytest.mark.parametrize("registered, arguments, line_text, said", [
    ("refuses_numpy", [_t("self", DT.FLOAT, 1, 3), _v("size", [2, 3])], "size = np.array",
     "uses 'np.array' (numpy, no torch)"),
    ("refuses_item", [_t("self", DT.FLOAT, 3), _t("threshold", DT.FLOAT, 1)], "threshold.item()",
     "calls 'threshold.item', which needs values"),
    ("refuses_loop", [_t("cost", DT.FLOAT, 3)], "for _ in range(3)", "runs 'for _ in range(3):'"),
    ("refuses_value_test", [_t("self", DT.FLOAT, 3)], "if x.sum() > 0", "tests 'x.sum() > 0', which needs values"),
    ("refuses_own_method", [_t("self", DT.FLOAT16, 3)], "self.change_data_dtype",
     "reads 'self.change_data_dtype', which the executor's class neither sets nor defines (the framework's)"),
    ("refuses_torch_load", [], "torch.load(", "calls 'torch.load', which is no tensor operation of torch"),
    ("refuses_open", [], 'with open("golden.bin"', 'runs "with open(\'golden.bin\', \'rb\') as f:"'),
    ("refuses_os", [_t("self", DT.FLOAT, 3)], 'os.system("true")', "uses 'os.system' (os, no torch)"),
    ("refuses_import", [_t("self", DT.FLOAT, 3)], 'subprocess.run', "uses 'subprocess.run' (subprocess, no torch)"),
    ("refuses_framework_state", [_t("self", DT.FLOAT, 3)], "kwargs[self.output]",
     "reads 'self.output', which the executor's class neither sets nor defines (the framework's)"),
    ("refuses_plain_class", [_t("self", DT.FLOAT, 3)], "return PlainHolder(",
     "builds 'PlainHolder', a class of the file that is no torch.nn.Module"),
    ("refuses_meta", [_t("self", DT.FLOAT, 3), _t("other", DT.FLOAT, 3)], "torch.equal(",
     "is not evaluated by torch on its meta device (NotImplementedError"),
    # known values past a bound: no unbounded time or memory on the reader's side
    ("refuses_long_range", [_t("self", DT.FLOAT, 3)], "list(range(10 ** 9))",
     "builds 'range(10 ** 9)', longer than this reader's bound"),
    ("refuses_huge_power", [_t("self", DT.FLOAT, 3)], "2 ** 100000", "computes '2 ** 100000', a value past"),
    ("refuses_print", [_t("self", DT.FLOAT, 3)], "print(input_data", "uses the builtin 'print', outside this reader's subset"),
    # a top-level assignment reading its own name (as Python would, it raises: the name is unbound)
    ("refuses_unbound_name", [_t("self", DT.FLOAT, 3)], "SELF_REFERENCE = SELF_REFERENCE",
     "reads 'SELF_REFERENCE', which neither the method nor the file's top level sets"),
    # a key the executor's map does not hold: the golden itself raises
    ("cast_by_map", [_t("self", DT.FLOAT, 3), _v("dtype", 5)], "cast_map[input_data",
     "reads \"cast_map[input_data.kwargs['dtype']]\", a key the dict does not hold"),
])
def test_a_construct_outside_the_subset_is_named_with_its_line(goldens, registered, arguments, line_text, said):
    why = goldens[registered].evaluate(arguments, "")
    assert isinstance(why, str)
    assert why.startswith(f"the golden is not evaluated: {FILE}:{_line(line_text)} "), why
    assert said in why, why


def test_a_golden_returning_values_or_a_missing_input_says_so(goldens):
    why = goldens["returns_value"].evaluate([_v("alpha", 1.5)], "")
    assert why == f"the golden ({FILE}:{_line('class ReturnsValue') + 1}) returns a float, not a tensor"
    assert goldens["module_function"].evaluate([_t("input", DT.FLOAT, 2, 9)], "") == \
        f"the golden ({FILE}:{_line('class ModuleFunction') + 1}) returns a str, not a tensor"
    why = goldens["module_sigmoid"].evaluate([_t("y", DT.FLOAT, 2)], "")
    assert "reads \"input_data.kwargs['x']\", which the case does not give" in why
    assert goldens["api_name_module"].evaluate([_t("self", DT.FLOAT, 2, 2)], "Sinkhorn").endswith(
        "evaluates the case's name 'Sinkhorn', no torch path")


def test_the_executor_file_is_read_never_imported(goldens):
    # the file raises on import; evaluating its goldens works, so nothing of it ran
    assert "executor_goldens" not in " ".join(__import__("sys").modules)
    assert goldens["module_sigmoid"].evaluate([_t("x", DT.FLOAT, 1)], "") == (GoldenOutput(DT.FLOAT, (1,)),)
    assert not Path("golden.bin").exists() and not Path("golden.pt").exists()


@pytest.fixture(scope="module")
def cases():
    result = import_paths([FIXTURES], jobs=1)
    return {(c.api, c.case_id): c for c in result.cases}


def test_imported_cases_take_their_outputs_from_the_executor_golden(cases):
    sigmoid = cases[("aclnnSigmoid", "atk-0")]
    assert (sigmoid.tensors["out"].dtype, sigmoid.tensors["out"].shape) == (DT.FLOAT16, (4, 5))
    integer = cases[("aclnnSigmoid", "atk-1")]
    assert (integer.tensors["out"].dtype, integer.tensors["out"].shape) == (DT.FLOAT, (3,))
    topk = cases[("aclnnTopk", "atk-0")]
    assert [(topk.tensors[n].dtype, topk.tensors[n].shape) for n in ("valuesOut", "indicesOut")] == \
        [(DT.FLOAT, (5, 3)), (DT.INT64, (5, 3))]
    topk = cases[("aclnnTopk", "atk-1")]
    assert [(topk.tensors[n].dtype, topk.tensors[n].shape) for n in ("valuesOut", "indicesOut")] == \
        [(DT.BF16, (2, 2, 4)), (DT.INT64, (2, 2, 4))]
    for c in (sigmoid, integer, topk):
        assert "output" not in c.note, c.note


def test_an_output_the_executor_golden_does_not_give_stays_unplaced_with_why(cases):
    numpy = cases[("aclnnSigmoid", "atk-2")]
    assert numpy.tensors["out"] is None
    reason = numpy.note.split("; ")[1]
    assert reason.startswith("output out: the golden is not evaluated: ")
    # the display path begins at the checkout's folder, whatever its name
    assert ("vendor_atk_goldens/activation/sigmoid/tests/st/aclnnSigmoid/executor_aclnnSigmoid.py:21 calls "
            "\"input_data.kwargs['x'].numpy\", which needs values") in reason
    elsewhere = cases[("aclnnSigmoid", "atk-3")]
    assert elsewhere.tensors["out"] is None
    assert "executor registered as 'aclnn_sigmoid_elsewhere', and no __call__ registered so is found" in elsewhere.note
    values_only = cases[("aclnnTopk", "atk-2")]
    assert values_only.tensors["valuesOut"] is None and values_only.tensors["indicesOut"] is None
    assert "the golden gives 1 tensors for 2 unstated outputs (valuesOut, indicesOut)" in values_only.note
