"""Export followed by import gives back the same calls and expectations, per format: descriptors,
attributes and the expected status; the values exactly where the format carries them (gtest
``.Value``), else within the exported range."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.cli import suite_cases
from aclnn_conformance.spec import OPS, op_spec
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.vendor.export import EXACT_VALUES_UP_TO, export_cases
from aclnn_conformance.vendor.importer import import_paths
from tests.representative import REPRESENTATIVE_OPS

PRODUCT = "ascend950"


@pytest.fixture(scope="module")
def cases():
    """The representative operators' cases (the formats' writers and readers are generic)."""
    return {(c.op, c.case_id): c for c in suite_cases(list(REPRESENTATIVE_OPS))}


def _gtest_name(case_id: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in case_id)


def _descs(case):
    return {n: None if a is None else a.desc for n, a in case.tensors.items()}


@pytest.mark.parametrize("fmt", ["ttk", "atk", "gtest"])
def test_export_then_import_gives_back_the_calls_and_expectations(fmt, cases, tmp_path):
    result = export_cases(cases.values(), fmt, tmp_path, PRODUCT)
    assert sum(result.written.values()) > 100
    # an operator with an aclScalar or array parameter is skipped with its reason, never half written
    uncarried = {op for op, s in OPS.items()
                 if {p.c_kind for p in s.params} & {"scalar", "int_array", "bool_array", "float_array"}}
    assert {s.split()[0] for s in result.skipped if "parameters, which the export" in s} == \
        {op for op, _ in cases if op in uncarried}
    back = import_paths([tmp_path], jobs=1)
    assert not back.problems, back.problems[:3]
    assert len(back.cases) == sum(result.written.values())
    prefix = {"ttk": "ttk-", "atk": "atk-", "gtest": "ut-"}[fmt]
    by_gtest_name = {(op, _gtest_name(case_id)): c for (op, case_id), c in cases.items()}
    for vc in back.cases:
        if fmt == "atk":
            original = cases[(vc.op, vc.note.split("name ")[1].split(",")[0])]
        elif fmt == "gtest":
            original = by_gtest_name[(vc.op, vc.case_id.rsplit(".", 1)[1])]
        else:
            original = cases[(vc.op, vc.case_id.removeprefix(prefix))]
        case = vc.to_case()
        assert _descs(case) == _descs(original), original.case_id
        assert case.attrs == pytest.approx(dict(original.attrs)) or case.attrs == dict(
            {k: (int(v) if hasattr(v, "value") else v) for k, v in original.attrs.items()})
        want = expected_outcome(op_spec(original.op), original, PRODUCT, "cann")
        status = 0 if want.kind == "success" else want.status
        if status is None:
            assert vc.expected.kind == "any_error"
        else:
            assert vc.expected.exact_status() == status, original.case_id
        assert vc.product == PRODUCT
        written = {p.name for p in op_spec(original.op).params if p.direction == "output"}
        for name, arg in original.tensors.items():
            if arg is None or arg.desc.is_empty() or name in written:
                continue     # an output's prior contents are not an input the formats carry
            # gtest's values cover the whole storage, the other formats' the view
            if fmt == "gtest":
                got = case.tensors[name].storage.astype(np.float64)
                ref = arg.storage.astype(np.float64)
            else:
                got = case.tensors[name].values().astype(np.float64)
                ref = arg.values().astype(np.float64)
            if fmt == "gtest" and arg.storage.size <= EXACT_VALUES_UP_TO and np.isfinite(
                    arg.storage.astype(np.float64)).all():
                assert np.array_equal(got[:ref.size], ref, equal_nan=True), (original.case_id, name)
            elif np.isfinite(ref).any() and arg.desc.dtype.name not in ("BOOL",):
                finite = ref[np.isfinite(ref)]
                assert got.min() >= finite.min() - 1e-3 * abs(finite.min()) - 1e-6
                assert got.max() <= finite.max() + 1e-3 * abs(finite.max()) + 1e-6
