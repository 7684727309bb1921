"""Operator records of the elementwise surface built from the value tables alone, for calls built
by hand: no rules but the value rule (every call in the function's domain is valid), every product supported, the class's standard and
arithmetic model. The extracted operators (spec/data/<family>/) replace them with the rules the
extractor read; these let the oracle, torch and the mutants be exercised without them."""
from __future__ import annotations

from aclnn_conformance.spec.operator import Absent, Operator
from aclnn_conformance.spec.products import PRODUCT_IDS
from aclnn_conformance.spec.rules import OpSpec
from aclnn_conformance.spec.surface_models import arithmetic_model_for, standards_for
from aclnn_conformance.spec.operator_data import rule_prefix_of
from aclnn_conformance.spec.surface_values import ValueEntry, value_domain_rule, value_entries

CASES = "aclnn_conformance.spec.surface_cases"
NOT_HERE = Absent("a record built from the value table alone: the extracted record has it")


def hand_built_record(entry: ValueEntry) -> Operator:
    standards = standards_for(entry.api)
    prefix = rule_prefix_of(entry.key)
    spec = OpSpec(key=entry.key, api=entry.api, rule_prefix=prefix,
                  doc=entry.source["document"], params=(),
                  rules=(value_domain_rule(entry, entry.key, prefix),),
                  supported={"cann": frozenset(PRODUCT_IDS), "doc": frozenset(PRODUCT_IDS)},
                  outputs=(entry.output,), standards={"cann": standards, "doc": standards})
    return Operator(spec=spec, arithmetic_model=arithmetic_model_for(entry.key, entry.function_class,
                                                                    (entry.reduction or {}).get("kind")),
                    oracle="aclnn_conformance.oracle.surface:from_case",
                    base_call=NOT_HERE,
                    table_cases=f"{CASES}:TABLE_CASES.{entry.key}",
                    fault_bases=NOT_HERE, faults=NOT_HERE,
                    strategies=NOT_HERE, emulator=NOT_HERE,
                    torch="aclnn_conformance.backends.torch_backend.surface:run",
                    mutants=f"aclnn_conformance.backends.mutants.surface_values:MUTANT_SETS.{entry.key}",
                    relations=NOT_HERE, sensitivity=NOT_HERE,
                    modules=("aclnn_conformance.oracle.surface",))


def hand_built_records() -> dict[str, Operator]:
    """key -> record of every value entry."""
    return {e.key: hand_built_record(e) for e in value_entries().values()}
