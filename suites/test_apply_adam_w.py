"""aclnnApplyAdamW: table cases, property-based cases, determinism and a multi-step trajectory
against float64 AdamW."""
from __future__ import annotations

import pytest

from aclnn_conformance.suites.calls import apply_adam_w as calls
from aclnn_conformance.suites.runner import check_case

# Value rules judged by relations between calls rather than by one call against the oracle.
RELATION_RULES = {"determinism": ("AAW-VAL-015",),
                  "trajectory": ("AAW-VAL-002", "AAW-VAL-003", "AAW-VAL-004", "AAW-VAL-005")}


@pytest.mark.conformance
def test_table(harness, product, table_case, request):
    check_case(harness, table_case, product, request.node.nodeid)
