"""The vendor's own cases, imported by ``aclnn-conformance import``, run with the same judge as every
suite: ``--cases CASES_DIR`` (nothing is collected without it).

Each case runs on the product its vendor file states, or on every product ``--product`` names; a
case naming no product without ``--product``, a case of an operator the suite has no spec for, and
a case for a product a device-bound backend is not are SKIPPED with the reason. Every record carries
the vendor's source, its expectation and whether the spec agrees with it.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

import pytest

from aclnn_conformance.backends.base import bound_product
from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec import op_spec
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.case import Case
from aclnn_conformance.suites.runner import (Harness, check_case, fail_unless_certifiable,
                                             skip_over_budget)
from aclnn_conformance.vendor.agreement import vendor_agrees
from aclnn_conformance.vendor.atk_outputs import UNPLACED, unplaced
from aclnn_conformance.vendor.model import FIRST_PHASE_FORMATS, VendorCase
from aclnn_conformance.vendor.cases_dir import VENDOR_KEY, read_case

pytestmark = pytest.mark.conformance


class VendorItem(NamedTuple):
    """One imported case file on one product; ``op`` (the folder the import wrote it in, the
    operator's key) lets ``--op`` select it."""

    path: str
    product: str | None
    op: str


def _items(config: pytest.Config) -> list[VendorItem]:
    if not config.getoption("--cases"):
        return []
    given = config.getoption("--product")
    products = config._aclnn_products if given is not None else None
    items = []
    for path, stated in config._aclnn_vendor_items:    # read and checked by the plugin
        op = Path(path).parent.name
        items += [VendorItem(str(path), p, op) for p in (products if products is not None
                                                         else [stated])]
    return items


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "vendor_item" in metafunc.fixturenames:
        items = _items(metafunc.config)
        metafunc.parametrize("vendor_item", items,
                             ids=[f"{Path(p).parent.name}/{Path(p).stem}-{prod or 'no-product'}"
                                  for p, prod, _ in items])


def _record_and_stop(harness: Harness, case, vc, product: str, reason: str,
          outcome: Outcome = Outcome.SKIPPED) -> None:
    record = OutcomeRecord(
        case_id=case.case_id, op=case.op, product=product, profile=harness.profile,
        backend=harness.backend.name, backend_version=str(harness.backend.version),
        run_id=harness.run_id, origin=case.origin, seed=case.seed, tier=harness.tier,
        nodeid=harness.current_item, outcome=outcome, detail=reason,
        vendor_source=vc.source, vendor_expected=vc.expected.describe())
    harness.emit(record, case)
    if outcome == Outcome.SKIPPED:
        pytest.skip(reason)
    pytest.fail(reason, pytrace=False)


def test_vendor_case(harness: Harness, vendor_item: VendorItem) -> None:
    path, product, _ = vendor_item
    # the descriptors first: a case skipped (or over the memory budget) never reads or draws its
    # storages, which for the vendor's largest cases are gigabytes
    vc = VendorCase.from_json(json.loads(Path(path).read_text())[VENDOR_KEY])
    try:
        described = vc.to_case(draw=False)
    except (ValueError, KeyError, TypeError, OverflowError) as exc:   # the call cannot be built
        _cannot_build(harness, vc, product, exc)
    if not vc.has_spec:
        _record_and_stop(harness, described, vc, product or vc.product or "none",
              f"the suite has no spec for {vc.api}: imported, not judged")
    if product is None:
        _record_and_stop(harness, described, vc, "none", f"{vc.source}: the vendor file names no "
                                              f"product ({vc.product_source}); pass --product")
    unread = {n: r.values["unread"] for n, r in vc.tensors.items()
              if r is not None and "unread" in r.values}
    if unread:   # the import read the descriptor, not the values: no call to make
        _record_and_stop(harness, described, vc, product, f"{vc.source}: the import did not read "
                         f"the values of {', '.join(unread)} ({next(iter(unread.values()))}): "
                         f"the call cannot be made")
    missing = unplaced(vc)
    if missing:
        said = [p for p in vc.note.split("; ") if any(p.startswith(f"output {n}:") for n in missing)]
        _record_and_stop(harness, described, vc, product, f"{vc.source}: " + "; ".join(said) if said else
                         f"{vc.source}: output {', '.join(missing)}: {UNPLACED}")
    bound = bound_product(harness.backend)
    if bound is not None and bound != product:
        _record_and_stop(harness, described, vc, product, f"the case is for {product}; backend "
                                               f"{harness.backend.name} runs as {bound}")
    annotate = {"vendor_source": vc.source, "vendor_expected": vc.expected.describe()}
    skip_over_budget(harness, described, product, annotate=annotate)
    try:
        case, vc = read_case(path)
    except (ValueError, KeyError, TypeError, OverflowError) as exc:   # the call cannot be built
        _cannot_build(harness, vc, product, exc)
    expected = expected_outcome(op_spec(case.op), case, product, harness.profile)
    annotate["vendor_agrees"] = vendor_agrees(expected, vc.expected,
                                              vc.format in FIRST_PHASE_FORMATS)
    record = check_case(harness, case, product, defer=True, annotate=annotate)
    fail_unless_certifiable((record, case))


def _cannot_build(harness: Harness, vc: VendorCase, product: str | None, exc: Exception) -> None:
    """Record HARNESS_ERROR for a case file whose call cannot be built, and fail the test."""
    described = Case(op=vc.op, case_id=vc.case_id, tensors={}, origin="vendor", seed=vc.seed)
    _record_and_stop(harness, described, vc, product or vc.product or "none",
                     f"{vc.source}: the call cannot be built from the case file "
                     f"({type(exc).__name__}: {str(exc)[:160]})", Outcome.HARNESS_ERROR)
