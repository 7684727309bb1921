"""The extracted operators through the harness: --spec-data, the emulator model from the data (agreement
by construction), the interface mutants and their control, the ci tier's fixed sample, the support
matrix and the skew line."""
from __future__ import annotations

from pathlib import Path

import pytest

from aclnn_conformance.extract.build import extract_checkout, open_checkout, write_records
from aclnn_conformance.spec import registry

FIXTURE = Path(__file__).parent / "fixtures" / "vendor_style"


@pytest.fixture()
def fixture_data(tmp_path, monkeypatch):
    """The vendor-style fixture extracted into a data folder that the registry reads."""
    write_records(list(extract_checkout(open_checkout(FIXTURE), ("acts",))), tmp_path)
    monkeypatch.setattr(registry, "_extra_folders", [])
    registry.add_data_folder(tmp_path)
    from aclnn_conformance.spec.operator_data import data_of
    data_of.cache_clear()
    yield tmp_path
    registry.reset()
    monkeypatch.setattr(registry, "_extra_folders", [])
    data_of.cache_clear()


def test_spec_data_adds_the_folder_to_a_command(fixture_data, capsys, monkeypatch):
    from aclnn_conformance.cli import main
    monkeypatch.setattr(registry, "_extra_folders", [])
    registry.reset()
    monkeypatch.setenv(registry.SPEC_DATA_ENV, "")
    assert main(["--spec-data", str(fixture_data), "list", "rules", "foo"]) == 0
    out = capsys.readouterr().out
    assert "XFOO-NULL-003" in out and "acts/foo/op_api/aclnn_foo.cpp" in out
    assert main(["--spec-data", str(fixture_data / "missing"), "list", "operators"]) == 2


def test_emulator_and_expectation_agree_by_construction(fixture_data):
    from aclnn_conformance.backends.emulator import EmulatorBackend
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.single_calls import single_call_cases
    emulator = EmulatorBackend()
    outcomes = set()
    for key in ("foo", "bar"):
        spec = operator(key).spec
        cases = single_call_cases(key)
        assert any(c.origin == "fault" for c in cases) and any(c.origin == "fault-pair" for c in cases)
        for case in cases:
            for product in PRODUCT_IDS:
                j = judge(spec, case, product, "cann", emulator.run(case, product))
                outcomes.add(j.outcome)
                assert j.outcome in ("PASS", "NOT_SUPPORTED"), (key, case.case_id, product, j.detail)
    assert "PASS" in outcomes


def test_a_success_of_a_status_only_operator_says_values_not_judged(fixture_data):
    from aclnn_conformance.backends.emulator import EmulatorBackend
    from aclnn_conformance.judging.judge import judge
    from aclnn_conformance.spec.registry import operator
    from aclnn_conformance.spec.rules import expected_outcome
    spec = operator("foo").spec
    case = operator("foo").piece("base_call")()
    expected = expected_outcome(spec, case, "atlas-a2", "cann")
    assert expected.kind == "success" and not expected.judge_values
    assert expected.describe() == "ACLNN_SUCCESS (values not judged)"
    j = judge(spec, case, "atlas-a2", "cann", EmulatorBackend().run(case, "atlas-a2"))
    assert j.outcome == "PASS" and not j.values_judged and "values not judged" in j.detail


def test_interface_mutants_are_killed_and_named_and_the_control_is_not(fixture_data, monkeypatch):
    from aclnn_conformance.backends.mutants import surface
    from aclnn_conformance.reports.mutate import run_mutant, tier_cases
    monkeypatch.setattr(surface, "MUTANT_SHARE", 1.0)   # every fixture operator in the sample
    surface.mutant_set.cache_clear()
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.spec.registry import operator
    for key in ("foo", "bar"):
        found = operator(key).piece("mutants")
        assert len(found.mutants) >= 2 and found.controls, key
        cases = tier_cases("ci", (key,))
        for cls in found.mutants:
            run = run_mutant(cls(), cases, PRODUCT_IDS, cls.killed_by)
            assert run["killing"] and run["named"], (key, cls.name)
        for cls in found.controls:
            assert not run_mutant(cls(), cases, PRODUCT_IDS, stop_when_named=False)["killing"], cls.name
    surface.mutant_set.cache_clear()


def test_the_ci_sample_is_fixed_and_the_full_tier_keeps_everything(fixture_data):
    from aclnn_conformance.suites.sampling import in_sample, keep
    names = [f"fault:foo:fault-XFOO-{n}" for n in range(400)]
    first = [in_sample(n, 0.2) for n in names]
    assert first == [in_sample(n, 0.2) for n in names] and 40 < sum(first) < 120
    assert keep("foo", "table", "base", tier="ci")
    assert all(keep("foo", "pair", f"pair-{n}", tier="full") for n in range(50))
    assert all(keep("apply_adam_w", "pair", f"x{n}", tier="ci") for n in range(50))   # hand-written



def test_the_ci_tier_breaks_every_faulted_rule_once_on_a_product_that_checks_it(fixture_data):
    from aclnn_conformance.spec import OPS
    from aclnn_conformance.spec.faults import fault_cases
    from aclnn_conformance.spec.products import PRODUCT_IDS
    from aclnn_conformance.suites.sampling import fault_products
    for key in ("foo", "bar"):
        spec = OPS[key]
        cases = list(fault_cases(spec))
        assert len(cases) >= 3
        chosen = {c.case_id: fault_products(c, PRODUCT_IDS, "cann", "ci") for c in cases}
        assert chosen == {c.case_id: fault_products(c, PRODUCT_IDS, "cann", "ci") for c in cases}
        for case in cases:
            (product,) = chosen[case.case_id]        # one product each, not six
            checked = [p for p in PRODUCT_IDS
                       if spec.rule(case.rule_ids[0]).expect_for("cann", p).kind != "unchecked"]
            assert product in (checked or PRODUCT_IDS), (case.case_id, product)
            assert fault_products(case, PRODUCT_IDS, "cann", "full") == PRODUCT_IDS
            assert fault_products(case, ("atlas-a3",), "cann", "ci") == ("atlas-a3",)
        assert len({p for (p,) in chosen.values()}) > 1    # spread over the products
    hand = next(fault_cases(OPS["apply_adam_w"]))
    assert fault_products(hand, PRODUCT_IDS, "cann", "ci") == PRODUCT_IDS

def test_the_support_matrix_rows_and_files(fixture_data, tmp_path):
    from aclnn_conformance.reports.matrix import matrix, write_matrix
    rows = {(r["api"], r["tensor"]): r for r in matrix("atlas-training", "foo")}
    assert rows[("aclnnFoo", "self")]["dtypes"] == "FLOAT FLOAT16"
    assert rows[("aclnnFoo", "out")]["dtypes"] == "FLOAT FLOAT16"    # same as self's
    assert rows[("aclnnFoo", "self")]["formats"] == "all but private formats"
    assert "formats" in rows[("aclnnFoo", "self")]["differs"]       # the document says ND
    a2 = {r["tensor"]: r for r in matrix("atlas-a2", "foo")}
    assert a2["self"]["dtypes"] == "FLOAT FLOAT16 BF16" and "aclnn_foo.cpp" in a2["self"]["citation"]
    baz = {r["tensor"]: r for r in matrix("atlas-a2", "baz")}
    assert baz["self"]["dtypes"] == "unread"
    inference = {r["tensor"]: r for r in matrix("atlas-inference", "bar")}
    assert inference["self"]["dtypes"] == "not supported"
    written = write_matrix(tmp_path / "m", ("atlas-a2",))
    assert [p.name for p in written] == ["matrix_atlas-a2.csv", "matrix_atlas-a2.html"]
    assert "aclnnFoo" in written[0].read_text()


def test_the_matrix_reads_an_operators_data_not_read_yet(fixture_data):
    """The registry reads a data file when its record is first asked for: the support matrix's
    rows of an operator no test has touched yet read it then, in any test order."""
    from aclnn_conformance.reports.matrix import rows_of
    from aclnn_conformance.spec import operator_data
    registry.reset()
    operator_data._PATHS.pop("inplace_bar", None)
    operator_data.data_of.cache_clear()
    assert {r["api"] for r in rows_of("inplace_bar", "atlas-a2")} == {"aclnnInplaceBar"}


def test_skew_is_said_when_the_release_differs(fixture_data):
    from aclnn_conformance.spec.skew import skew_line
    assert skew_line(None) == "" and skew_line("unknown") == ""
    line = skew_line("7.0.0")
    assert line.startswith("skew:") and "7.0.0" in line


def test_the_full_tier_runs_the_generated_mutants_the_ci_sample_leaves_out(fixture_data, monkeypatch):
    from aclnn_conformance.backends.mutants import surface
    from aclnn_conformance.spec.registry import operator
    monkeypatch.setattr(surface, "MUTANT_SHARE", 0.0)   # no fixture operator in the ci sample
    # the fixture's operators in place of the project's: the test's length does not grow with them
    registry.use_project_data(fixture_data)
    surface.mutant_set.cache_clear()
    try:
        assert not operator("foo").piece("mutants").mutants
        outside = surface.outside_sample()
        ops = {cls.op for cls in outside.mutants + outside.controls}
        assert {"foo", "bar"} <= ops and all(cls.op != "apply_adam_w" for cls in outside.mutants)
        from aclnn_conformance.reports.mutate import default_selection
        assert set(outside.mutants + outside.controls) <= set(default_selection("full"))
        assert not set(outside.mutants) & set(default_selection("ci"))
    finally:
        registry.use_project_data(registry.PROJECT_DATA)
        surface.mutant_set.cache_clear()
