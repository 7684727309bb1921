"""Each product's special values, with their sources: where a choice is left open (Ascend 950's
subnormals: its default Div, Sqrt and Reciprocal flush them, its other algorithms keep them), a
correct device that flushes passes with a quality warning naming the elements set aside; where the
model keeps them (Atlas A2/A3) it fails; a device wrong elsewhere fails everywhere. Counts below
are by hand: every float value case appends two subnormals, +-smallest_normal/4."""
from __future__ import annotations

import numpy as np
import pytest

from aclnn_conformance.backends.mutants.surface_kinds import one_ulp_up
from aclnn_conformance.backends.mutants.surface_values import FlushToZeroDevice, _flushing
from aclnn_conformance.judging.judge import judge
from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.reports.values_section import special_values as report_rows
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.special_values import (EITHER, IEEE, INFINITY, KEPT, SATURATION,
                                                   SPECIAL_VALUES)
from aclnn_conformance.spec.surface_cases import value_cases
from aclnn_conformance.spec.surface_compare import compare_class


def test_every_product_states_its_special_values_with_sources():
    assert set(SPECIAL_VALUES) == set(PRODUCT_IDS)
    for model in SPECIAL_VALUES.values():
        assert model.sources and model.subnormals_evidence and model.overflow_evidence
        assert model.nan_payload == EITHER
    ascend950 = SPECIAL_VALUES["ascend950"]
    assert ascend950.subnormals == EITHER and any("Sqrt.md" in s for s in ascend950.sources)
    assert ascend950.overflow == INFINITY and ascend950.zero_sign == IEEE
    assert {SPECIAL_VALUES[p].subnormals for p in ("atlas-a2", "atlas-a3")} == {KEPT}
    for p in ("atlas-200i-500-a2", "atlas-inference", "atlas-training"):
        assert SPECIAL_VALUES[p].overflow == SATURATION and SPECIAL_VALUES[p].subnormals == EITHER


def _judged(backend, key: str, product: str):
    case = value_cases(key)[0]          # values-FLOAT
    return judge(operator(key).spec, case, product, "cann", backend.run(case, product))


@pytest.mark.parametrize("key", ["sqrt", "abs"])
def test_a_flushing_device_passes_with_a_warning_where_the_model_leaves_it_open(key):
    judgement = _judged(FlushToZeroDevice(), key, "ascend950")
    assert judgement.outcome == Outcome.QUALITY_WARNING
    assert "2 element(s): subnormal inputs or results read or written as zero" in judgement.detail
    out = judgement.metrics["out"]
    assert out["set_aside"] == {"flushed": 2} and out["device_choice"] == {"flushed": "taken"}


@pytest.mark.parametrize("key", ["sqrt", "abs"])
def test_the_same_device_fails_where_the_model_keeps_subnormals(key):
    assert _judged(FlushToZeroDevice(), key, "atlas-a2").outcome == Outcome.FAIL


class _FlushingAndOneUlpUp(FlushToZeroDevice):
    """Flushes, and is wrong elsewhere: every result one ulp up."""

    def run(self, case, product):
        flushing = _flushing(case.op)
        wrong = type("Wrong", (flushing,), {"values": lambda s, c: one_ulp_up(flushing.values(s, c))})
        return wrong().run(case, product)


@pytest.mark.parametrize("key", ["sqrt", "abs"])
def test_a_flushing_device_wrong_elsewhere_still_fails(key):
    assert _judged(_FlushingAndOneUlpUp(), key, "ascend950").outcome == Outcome.FAIL


def test_a_correct_device_records_that_it_kept_them():
    from aclnn_conformance.backends.emulator import EmulatorBackend
    judgement = _judged(EmulatorBackend(), "sqrt", "ascend950")
    assert judgement.outcome == Outcome.PASS
    assert judgement.metrics["out"]["device_choice"] == {"flushed": "not taken"}


def test_a_saturated_infinity_is_set_aside_where_the_product_saturates():
    top = float(np.finfo(np.float32).max)
    expected = np.array([np.inf, 1.0, np.nan], np.float32)
    aux = {"saturated": np.array([top, 1.0, 0.0], np.float32)}
    verdict = compare_class("exact", np.array([top, 1.0, 0.0], np.float32), expected, aux)
    assert verdict.outcome == Outcome.QUALITY_WARNING and verdict.metrics["set_aside"] == {"saturated": 2}
    wrong = compare_class("exact", np.array([top, 2.0, 0.0], np.float32), expected, aux)
    assert wrong.outcome == Outcome.FAIL


def test_the_report_counts_the_elements_set_aside_per_product():
    records = [OutcomeRecord(case_id=f"c{i}", op="sqrt", product=p, backend="flush-to-zero-device",
                             profile="cann",
                             outcome="QUALITY_WARNING",
                             metrics={"out": {"set_aside": {"flushed": 2},
                                              "device_choice": {"flushed": "taken"}}})
               for i, p in enumerate(("ascend950", "ascend950", "atlas-training"))]
    rows = {r["product"]: r for r in report_rows(records)}
    assert rows["ascend950"]["set_aside"] == {"flushed": 4} and rows["ascend950"]["cases"] == 2
    assert rows["atlas-training"]["choice"] == {"flushed": "taken"}
    assert rows["atlas-training"]["overflow"] == SATURATION
