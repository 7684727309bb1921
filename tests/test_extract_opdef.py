"""The generated aclnn layer read from its OpDef (tests/fixtures/vendor_style/acts/quux): the null
checks of the REQUIRED tensors, each SoC's (dtype, format) columns (a file-scope list, a config from a
helper method, a config with flags only), the ND-like formats, the products no AddConfig names, and
the OpDefs it leaves unread."""
from __future__ import annotations

from pathlib import Path

import pytest

from aclnn_conformance.extract.build import extract_checkout, open_checkout
from aclnn_conformance.extract.host_code import Unreadable
from aclnn_conformance.extract.opdef import bind, read_opdef
from aclnn_conformance.spec.operator_data import spec_of
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.suites.calls.surface import tensor_arg
from aclnn_conformance.spec.case import Case

FIXTURE = Path(__file__).parent / "fixtures" / "vendor_style"
ALL = ["ascend950", "atlas-a3", "atlas-a2", "atlas-200i-500-a2", "atlas-inference", "atlas-training"]
BF16_SOCS = ["ascend950", "atlas-a3", "atlas-a2"]


@pytest.fixture(scope="module")
def quux() -> dict:
    return next(r for r in extract_checkout(open_checkout(FIXTURE), ("acts",)) if r["api"] == "aclnnQuux")


def _call(x="FLOAT16", scale="FLOAT", out="FLOAT16", count="INT32", fmt="ND") -> Case:
    tensors = {"x": tensor_arg(x, (2, 3), fmt), "scaleOptional": None if scale is None else tensor_arg(scale, (2, 3)),
               "out": tensor_arg(out, (2, 3), fmt), "countOut": tensor_arg(count, (2, 3))}
    return Case(op="quux", case_id="t", tensors=tensors, attrs={"alpha": 1.0})


def _outcome(record: dict, case: Case, product: str) -> tuple[str, int | None, str | None]:
    e = expected_outcome(spec_of(record), case, product, "cann")
    return e.kind, e.status, e.rule_id


def test_the_opdef_gives_null_dtype_format_and_product_rules(quux):
    assert quux["host_code"] == {"path": "acts/quux/op_host/quux_def.cpp", "kind": "generated"}
    assert quux["coverage"]["status"] == "covered" and not quux["unread"]
    code = [(r["template"], r["args"].get("param"), r["expect"]["cann"].get("status"),
             r["expect"]["cann"]["products"]) for r in quux["rules"] if r["known_by"] == "code"]
    # the REQUIRED tensors only, in the prototype's order, on every product (the generated code's own)
    assert code[:3] == [("null", n, 161001, ALL) for n in ("x", "out", "countOut")]
    dtype_sets = {(r["args"]["param"], tuple(r["expect"]["cann"]["products"])): r["args"]["dtypes"]
                  for r in quux["rules"] if r["template"] == "dtype_in" and r["known_by"] == "code"}
    assert dtype_sets[("x", ("atlas-inference",))] == ["FLOAT", "FLOAT16"]        # the helper's config
    assert dtype_sets[("x", tuple(BF16_SOCS))] == ["BF16", "FLOAT", "FLOAT16"]     # the file-scope list
    assert dtype_sets[("countOut", tuple(BF16_SOCS))] == ["INT32", "INT64"]
    product = next(r for r in quux["rules"] if r["template"] == "product" and r["known_by"] == "code")
    assert product["expect"]["cann"] == {"any_error": True, "products": ["atlas-200i-500-a2", "atlas-training"]}
    assert quux["supported"]["cann"] == ["ascend950", "atlas-a3", "atlas-a2", "atlas-inference"]
    empty = next(r for r in quux["rules"] if r["template"] == "empty")
    assert empty["args"] == {"params": ["countOut", "out"], "any": False}


def test_a_call_is_judged_by_the_columns_of_its_soc(quux):
    assert _outcome(quux, _call(), "atlas-a2")[0] == "success"
    assert _outcome(quux, _call(scale=None), "atlas-inference")[0] == "success"     # OPTIONAL: no null check
    # each dtype is in its own list, but no column pairs a FLOAT16 x with an INT64 count
    kind, status, rule = _outcome(quux, _call(count="INT64"), "atlas-a2")
    assert (kind, status) == ("error", 161002) and rule.startswith("XQUUX-DTYPE-") and \
        spec_of(quux).rule(rule).text.startswith("the (dtype, format) columns")
    assert _outcome(quux, _call(x="BF16", out="BF16", count="INT64"), "atlas-a2")[0] == "success"
    assert _outcome(quux, _call(x="BF16", out="BF16", count="INT64"), "atlas-inference")[:2] == ("error", 161002)
    assert _outcome(quux, _call(fmt="NCHW"), "ascend950")[0] == "success"            # rewritten to ND
    assert _outcome(quux, _call(fmt="FRACTAL_NZ"), "ascend950")[:2] == ("error", 161002)
    assert _outcome(quux, _call(), "atlas-training")[0] == "not_supported"         # no kernel serves it
    assert _outcome(quux, _call().with_tensor("x", None), "atlas-inference")[:2] == ("error", 161001)


def test_opdefs_outside_the_subset_are_unread(quux):
    listed = 'this->Input("x").ParamType(REQUIRED).DataTypeList({ge::DT_FLOAT}).FormatList({ge::FORMAT_ND});'
    text = f'class A : public OpDef {{ public: explicit A(const char* name) : OpDef(name) {{ {listed} }} }};'
    with pytest.raises(Unreadable, match="DataTypeList"):
        read_opdef("a_def.cpp", text)
    held = text.replace(listed, 'this->Input("x").ParamType(REQUIRED).DataType(MakeList()).Format(fmt);')
    with pytest.raises(Unreadable, match="DataType list"):
        read_opdef("a_def.cpp", held)
    with pytest.raises(Unreadable, match="no OpDef constructor"):
        read_opdef("qux_def.cpp", "OP_ADD(Qux);")
    quux_def = read_opdef("quux_def.cpp", (FIXTURE / "acts/quux/op_host/quux_def.cpp").read_text())
    with pytest.raises(Unreadable, match="the OpDef has 4 tensors"):
        bind(quux_def, ["x", "out"])
