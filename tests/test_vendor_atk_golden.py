"""The outputs of an ATK case whose golden is a torch function (vendor/atk_golden.py): dtype and
shape as torch's own rules give them, evaluated on its meta device; why not, where they are not known.
Expected dtypes are torch's documented type promotion (an integer input to a floating function gives
the default float32, true division of integers is float32, a comparison is bool) and broadcasting."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from aclnn_conformance.spec.enums import AclDataType as DT
from aclnn_conformance.vendor.atk_golden import (NEEDS_TORCH, GoldenArgument, GoldenOutput, golden_name,
                                                 golden_outputs)
from aclnn_conformance.vendor.importer import import_paths

pytest.importorskip("torch")
FIXTURES = Path(__file__).parent / "fixtures" / "vendor_atk_inputs"


def _t(dtype: DT, *shape: int, name: str = "") -> GoldenArgument:
    return GoldenArgument(name, tensor=(dtype, tuple(shape)))


@pytest.mark.parametrize("name, arguments, expected", [
    ("torch.cos", [_t(DT.INT16, 1, 17, 1, 7)], (GoldenOutput(DT.FLOAT, (1, 17, 1, 7)),)),
    ("torch.cos", [_t(DT.BF16, 3)], (GoldenOutput(DT.BF16, (3,)),)),
    ("torch.div", [_t(DT.INT32, 2, 1), _t(DT.INT32, 1, 3)], (GoldenOutput(DT.FLOAT, (2, 3)),)),
    ("torch.mul", [_t(DT.INT8, 4), _t(DT.INT16, 4)], (GoldenOutput(DT.INT16, (4,)),)),
    ("torch.eq", [_t(DT.FLOAT16, 2, 1), GoldenArgument("other", value=0.5)], (GoldenOutput(DT.BOOL, (2, 1)),)),
    ("torch.add", [_t(DT.INT32, 5), GoldenArgument("", value=1.5), GoldenArgument("alpha", value=1.0)],
     (GoldenOutput(DT.FLOAT, (5,)),)),
    ("torch.sort", [_t(DT.FLOAT16, 3, 4), GoldenArgument("dim", value=0), GoldenArgument("descending", value=True)],
     (GoldenOutput(DT.FLOAT16, (3, 4)), GoldenOutput(DT.INT64, (3, 4)))),
    ("torch.nn.functional.elu", [_t(DT.FLOAT, 6)], (GoldenOutput(DT.FLOAT, (6,)),)),
    # the framework's own format input is no argument of the golden
    ("torch.mul", [_t(DT.FLOAT, 2, name="input"), _t(DT.FLOAT, 2, name="other"),
                   GoldenArgument("format", value="ND")], (GoldenOutput(DT.FLOAT, (2,)),)),
    # a case of a billion elements costs nothing on the meta device
    ("torch.sqrt", [_t(DT.FLOAT16, 1024, 1024, 1024)], (GoldenOutput(DT.FLOAT16, (1024, 1024, 1024)),)),
])
def test_the_golden_gives_dtype_and_shape_as_torch_does(name, arguments, expected):
    assert golden_outputs(name, arguments) == expected


def test_a_golden_torch_cannot_evaluate_says_why():
    why = golden_outputs("torch.where", [_t(DT.BOOL, 2, name="condition"), _t(DT.FLOAT, 2, name="self"),
                                         _t(DT.FLOAT, 2, name="other")])
    assert isinstance(why, str) and why.startswith("the golden torch.where could not be evaluated")
    assert golden_outputs("torch.no_such_function", [_t(DT.FLOAT, 2)]).startswith(
        "the golden torch.no_such_function could not be evaluated")
    assert golden_outputs("torch.equal", [_t(DT.FLOAT, 2), _t(DT.FLOAT, 2)]) != ()


def test_without_torch_the_reason_is_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)     # import torch raises ImportError
    assert golden_outputs("torch.cos", [_t(DT.FLOAT, 2)]) == NEEDS_TORCH


def test_only_a_function_golden_naming_torch_is_evaluated():
    assert golden_name({"name": "torch.cos", "api_type": "function"}) == "torch.cos"
    assert golden_name({"name": "torch.nn.Sigmoid", "api_type": "aclnn_sigmoid"}) is None
    assert golden_name({"name": "Sinkhorn", "api_type": "function"}) is None


def test_imported_cases_take_the_golden_output_or_say_why_not():
    """An executor's golden is evaluated too (vendor/executor_golden.py): the segsum fixture's
    ``gradOut * gradSelf`` of two float32 (2, 3, 8, 8) tensors places its gradInput. A tensor left
    None is an output with its reason in the note, or an input the case does not map onto the
    prototype (said among its problems)."""
    cases = {(c.api, c.case_id): c for c in import_paths([FIXTURES], jobs=1).cases}
    where = cases[("aclnnSWhere", "atk-3")]        # torch.where(condition, x, y), unnamed
    assert (where.tensors["out"].dtype, where.tensors["out"].shape) == (DT.FLOAT, (4, 2, 8))
    segsum = cases[("aclnnExpSegsumBackward", "atk-0")]
    assert (segsum.tensors["gradInput"].dtype, segsum.tensors["gradInput"].shape) == (DT.FLOAT, (2, 3, 8, 8))
    unplaced = [c for c in cases.values() if c.format == "atk" and any(
        n in c.unstated and t is None for n, t in c.tensors.items())]
    assert unplaced, "the fixtures hold cases whose golden is an executor's own"
    for c in unplaced:
        reasons = [part for part in c.note.split("; ") if part.startswith("output ")]
        for part in reasons:
            assert "the golden is not evaluated" in part or "whether the golden is called with them is not read" in part \
                or "could not be evaluated" in part or "no __call__ registered so is found" in part, part
        if not reasons:
            assert any("the inputs are not mapped onto" in p for p in c.problems), (c.note, c.problems)
