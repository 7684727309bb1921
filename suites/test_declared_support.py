"""Declared against actual support (the PyTorch OpInfo ``test_dtypes`` idea, for aclnn parameters).

For every tensor parameter of every operator, starting from the operator's valid base call:
- retype that tensor alone to every aclDataType, and to each probed format;
- retype it together with the parameters its table row declares alike (same documented dtypes and
  the same dtype in the base call, e.g. varRef and grad), so that a coupling rule ("same dtype as
  varRef") does not hide a dtype the operator supports.

Every probe is judged by ``check_case`` like any other case: the spec's expectation decides PASS or
FAIL. The four-way table (works but not declared / declared but refused / consistent) is written to
``declared_support.md`` and ``.csv`` in the report directory from these records.
"""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.spec.probe_ids import ORIGIN, probe_case_id
from aclnn_conformance.spec.registry import operator, operators
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType, AclFormat
from aclnn_conformance.spec.tensor import TensorArg
from aclnn_conformance.suites.runner import check_case
from aclnn_conformance.suites.sampling import keep, selected

PROBE_DTYPES = tuple(AclDataType)
PROBE_FORMATS = (AclFormat.ND, AclFormat.NCHW, AclFormat.NHWC, AclFormat.NC1HWC0,
                 AclFormat.FRACTAL_NZ, AclFormat.NCL, AclFormat.FRACTAL_NZ_C0_32)


def _base_call(op: str) -> Case:
    return operator(op).piece("base_call")()


def retype(arg: TensorArg, dtype: AclDataType) -> TensorArg:
    """``arg`` under another dtype; a dtype with no NumPy carrier travels as raw uint8 codes."""
    try:
        with np.errstate(invalid="ignore", over="ignore"):  # NaN/Inf/out of range: any bits do
            return arg.with_desc(dtype=dtype)
    except ValueError:
        desc = arg.desc.with_(dtype=dtype)
        return TensorArg(desc, np.zeros(max(desc.extent(), desc.storage_numel, 1), np.uint8))


def _groups(op: str, base: Case) -> dict[str, tuple[str, ...]]:
    """param -> the tensors of the base call declared alike (itself first when alone)."""
    rows = {p.name: p for p in operator(op).spec.params}
    tensors = [n for n, a in base.tensors.items() if a is not None and n in rows]
    groups = {}
    for name in tensors:
        groups[name] = tuple(n for n in tensors
                             if rows[n].dtypes == rows[name].dtypes
                             and base.desc(n).dtype == base.desc(name).dtype)
    return groups


def probe_cases(op: str, param: str) -> list[Case]:
    """The probes of one parameter; a group's probes belong to the group's first member."""
    base = _base_call(op)
    group = _groups(op, base)[param]
    cases = []
    for dtype in PROBE_DTYPES:
        cases.append(base.with_tensor(param, retype(base.tensor(param), dtype)).with_(
            case_id=probe_case_id((param,), "dtype", dtype.name)))
        if len(group) > 1 and group[0] == param:
            case = base
            for name in group:
                case = case.with_tensor(name, retype(base.tensor(name), dtype))
            cases.append(case.with_(case_id=probe_case_id(group, "dtype", dtype.name)))
    for fmt in PROBE_FORMATS:
        cases.append(base.with_tensor(param, base.tensor(param).with_desc(format=fmt)).with_(
            case_id=probe_case_id((param,), "format", fmt.name)))
    return [c.with_(origin=ORIGIN, rule_ids=(), note="declared-support probe") for c in cases]


def _targets() -> list[tuple[str, str]]:
    """(op, param) of every tensor of every operator's base call; an operator that declares no base
    call gets one target, skipped with its record's reason."""
    out = []
    for op in operators():
        if not selected(op) or not keep(op, "declared"):
            continue
        if not operator(op).has("base_call"):
            out.append((op, ""))
            continue
        out += [(op, name) for name in _groups(op, _base_call(op))]
    return out


TARGETS = _targets()


@pytest.mark.conformance
@pytest.mark.parametrize("op,param", TARGETS, ids=[f"{o}:{p}" for o, p in TARGETS])
def test_declared_support(harness, product, op, param, request):
    if not param:
        pytest.skip(f"{op} declares no base call: {operator(op).absent_reason('base_call')}")
    failed = []
    for case in probe_cases(op, param):
        try:
            check_case(harness, case, product, request.node.nodeid)
        except pytest.fail.Exception as exc:
            failed.append(str(exc))
    if failed:
        pytest.fail(f"{len(failed)} probe(s) of {op}.{param} on {product} disagree with the spec; "
                    f"first:\n" + "\n".join(failed[:3]), pytrace=False)
