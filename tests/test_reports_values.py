"""The report's values section: per operator, whether its values were judged, on which products, by
which standard per output, and which rule left the other value cases unjudged."""
from __future__ import annotations

from types import SimpleNamespace

from aclnn_conformance.judging.records import OutcomeRecord
from aclnn_conformance.reports import values_section


def _spec(values_judged: bool = True, value_rules=("OP-VALUE-001",), outputs=("out",)):
    rules = [SimpleNamespace(id=r, kind="value") for r in value_rules]
    rules.append(SimpleNamespace(id="OP-NULL-001", kind="check"))
    return SimpleNamespace(rules=rules, outputs=outputs, values_judged=values_judged)


def _record(op: str, product: str, **changes) -> OutcomeRecord:
    base = dict(case_id="values", op=op, product=product, profile="cann", backend="emulator",
                outcome="PASS", rule_ids=("OP-VALUE-001",))
    return OutcomeRecord(**{**base, **changes})


SPECS = {"judged": _spec(), "blocked": _spec(), "status": _spec(values_judged=False, value_rules=())}


def _rows(records):
    return {r["op"]: r for r in values_section.build(records, SPECS.get)}


def test_judged_products_standards_and_the_rule_that_blocks_the_rest():
    records = [
        _record("judged", "ascend950", values_judged=True, judged_by="values",
                standards={"out": "surface-tolerance@1", "self": "bit-exact@1"}),
        _record("judged", "ascend950", case_id="values-broadcast", values_judged=True,
                judged_by="values", standards={"out": "surface-tolerance@1", "self": "bit-exact@1"}),
        _record("judged", "atlas-a2", outcome="NOT_JUDGED", deciding_rule="OP-PRODUCT-009",
                judged_by="not_judged"),
        # a relation is no single-call value judgement
        _record("judged", "atlas-a2", case_id="determinism", values_judged=True, judged_by="relation"),
    ]
    row = _rows(records)["judged"]
    assert row["state"] == values_section.JUDGED
    assert row["judged_on"] == {"ascend950": 2}
    assert row["not_judged_on"] == ["atlas-a2"]
    assert row["unjudged_by"] == {"OP-PRODUCT-009": 1}
    assert values_section.standards_text(row) == "out: surface-tolerance@1; inputs unchanged: bit-exact@1"
    assert values_section.products_text(row) == "ascend950 (2); not on atlas-a2"


def test_value_rules_never_judged_name_their_blocking_rule():
    records = [_record("blocked", p, outcome="NOT_JUDGED", deciding_rule="OP-UNREAD-008",
                       judged_by="not_judged") for p in ("ascend950", "atlas-a2")]
    row = _rows(records)["blocked"]
    assert row["state"] == values_section.NOT_JUDGED
    assert values_section.products_text(row) == "none"
    assert values_section.reasons_text(row) == "OP-UNREAD-008 (2)"


def test_a_status_only_spec_says_so_and_the_markdown_counts_each_state():
    records = [_record("status", "ascend950", rule_ids=("OP-NULL-001",)),
               _record("blocked", "ascend950", outcome="NOT_JUDGED", deciding_rule="OP-UNREAD-008"),
               _record("judged", "ascend950", values_judged=True, judged_by="values",
                       standards={"out": "surface-exact@1"})]
    rows = values_section.build(records, SPECS.get)
    assert [r["state"] for r in rows] == [values_section.NOT_JUDGED, values_section.JUDGED,
                                          values_section.STATUS_ONLY]
    text = "\n".join(values_section.markdown(rows))
    assert "1 operator column(s) with values judged, 1 with value rules but no value case judged" in text
    assert "| status | emulator | cann | status only | - | - | the spec judges statuses only |" in text
