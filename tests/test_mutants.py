"""The suite's detection power, both sides: every mutant is failed by the CI tier on a case that
names its defect; the defect-free variants, among them implementations correct under the arithmetic
model that compute otherwise than the oracle, are failed by nothing; and the mutants run through
pytest like any backend."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.backends.base import Backend
from aclnn_conformance.backends.emulator import EmulatorBackend
from aclnn_conformance.backends.mutants import CONTROLS, EQUIVALENT, GAPS, MUTANTS, Mutant, by_name
from aclnn_conformance.backends.mutants.apply_adam_w_quant import AAWQ_CONTROLS, ModelControl, OneUlpUp
from aclnn_conformance.backends.registry import load_backend
from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.reports.mutate import default_selection, mutate, render_markdown, tier_cases
from aclnn_conformance.spec import OPS
from aclnn_conformance.spec.registry import is_data_operator
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

ROOT = Path(__file__).resolve().parents[1]
NEW_SINGLE_CALL_MUTANTS = ("mutant-var-one-ulp-up", "mutant-var-one-ulp-down",
                           "mutant-fp16-cast-toward-zero", "mutant-bf16-cast-toward-zero",
                           "mutant-bf16-cast-half-away", "mutant-update-through-bf16")


def _sample_key(cls: type) -> str:
    """The kind of a generated mutant or control (its base class for a rule's mutant)."""
    return getattr(cls, "kind", "") or cls.__mro__[1].__name__


def _harness_sample(selection: list[type]) -> list[type]:
    """Every hand-written operator's mutants and controls, and of the extracted operators' generated
    ones one of each kind (the first by a stable hash of their names): the sample grows with the
    kinds, not with the operators. The main job's ``mutate`` gates on every one of them; the harness
    tests the gate itself."""
    def rank(cls: type) -> str:
        return hashlib.sha1(f"harness-sample:{cls.name}".encode()).hexdigest()
    first: dict[str, type] = {}
    for cls in sorted((c for c in selection if getattr(c, "op", "") and is_data_operator(c.op)), key=rank):
        first.setdefault(_sample_key(cls), cls)
    chosen = set(first.values())
    return [cls for cls in selection
            if not getattr(cls, "op", "") or not is_data_operator(cls.op) or cls in chosen]


SAMPLED = _harness_sample(default_selection("ci"))
SAMPLED_MUTANTS = [cls for cls in MUTANTS if cls in SAMPLED]
SAMPLED_CONTROLS = [cls for cls in CONTROLS if cls in SAMPLED]


@pytest.fixture(scope="module")
def ci_run() -> dict:
    """The mutation command's CI run on the harness's sample, once: its mutants, then its controls on
    every case."""
    return mutate("ci", mutants=SAMPLED)


def test_registry():
    # the registry's views now, not at import: a test that reloads the registry makes new classes
    from aclnn_conformance.backends import mutants as views
    MUTANTS, EQUIVALENT, GAPS, CONTROLS = views.MUTANTS, views.EQUIVALENT, views.GAPS, views.CONTROLS
    names = [cls.name for cls in MUTANTS]
    assert len(MUTANTS) >= 30
    assert len(set(names)) == len(names)
    for cls in MUTANTS + EQUIVALENT + GAPS:
        assert cls.name.startswith("mutant-") and cls.defect and "\n" not in cls.defect, cls
        assert cls.op in OPS, cls
        for rule_id in cls.killed_by:
            OPS[cls.op].rule(rule_id)            # raises on an unknown rule id
        backend = load_backend(f"aclnn_conformance.backends.mutants:{cls.__name__}")
        assert isinstance(backend, Backend) and backend.name == cls.name
        assert by_name(cls.name) is cls and by_name(cls.__name__) is cls
    assert not set(MUTANTS) & set(EQUIVALENT + GAPS)
    assert all(cls.equivalent for cls in EQUIVALENT) and all(cls.gap for cls in GAPS)
    assert set(AAWQ_CONTROLS) <= set(CONTROLS) and not set(CONTROLS) & set(MUTANTS)
    assert {c.name for c in AAWQ_CONTROLS} >= {"control-faithful-sqrt", "control-faithful-pow",
                                               "control-fused-multiply-add",
                                               "control-reciprocal-division",
                                               "control-torch-cpu-sqrt", "control-all-model-freedoms"}
    assert set(NEW_SINGLE_CALL_MUTANTS) <= set(names)


def test_every_mutant_is_killed_by_a_case_naming_its_defect(ci_run):
    """The gate: on the CI tier, in process, every mutant is killed, and by a case that exercises
    (or whose status is decided by) one of its killed_by rules; the mutants no case can kill today
    (equivalent by design, or a gap in a standard) stay unkilled, so that the day one is killed it
    moves to MUTANTS."""
    doc = ci_run
    by = {m["name"]: m for m in doc["mutants"]}
    survived = [n for n, m in by.items() if m["status"] == "survived"]
    unnamed = {n: [(k["case_id"], k["product"], k["rules"]) for k in m["kills"][:3]]
               for n, m in by.items() if m["status"] == "killed" and not m["named"]}
    now_killed = {n: m["kills"][:2] for n, m in by.items()
                  if m["status"] in ("equivalent-killed", "gap-killed")}
    assert not survived, f"mutants no CI case fails: {survived}"
    assert not unnamed, f"mutants killed only by cases that do not name their defect: {unnamed}"
    assert not now_killed, f"killed now: move them from EQUIVALENT/GAPS to MUTANTS: {now_killed}"
    assert doc["summary"]["killed"] == len(SAMPLED_MUTANTS)
    assert any(is_data_operator(cls.op) for cls in SAMPLED_MUTANTS)   # the extracted side is sampled too
    for cls in SAMPLED_MUTANTS:
        named = [k for k in by[cls.name]["kills"] if k["names_defect"]]
        assert set(named[0]["rules"]) & set(cls.killed_by)
    assert "| mutant-decay-before-step |" in render_markdown(doc)


def test_every_control_scores_only_certifiable_outcomes(ci_run):
    """Detection power is two-sided: every implementation that is correct under the arithmetic
    model (and the emulator's kernel as it is) passes every case of the tier on every product it
    runs as (a flush-to-zero control: where the product's model leaves flushing open), and the
    command's gate and summary say so."""
    by = {m["name"]: m for m in ci_run["mutants"]}
    for control in SAMPLED_CONTROLS:
        result = by[control.name]
        if result["status"] == "skipped":
            assert control.unavailable(), control
            continue
        assert result["status"] == "control" and result["killing_cases"] == 0, (
            control.name, [(k["case_id"], k["product"], k["detail"][:200]) for k in result["kills"][:3]])
        own = [p for p in ci_run["products"] if p in control().products()]   # where it runs as
        assert result["cases_run"] == len(tier_cases("ci", (control.op,))) * len(own)
    assert ci_run["summary"]["false_alarms"] == 0 and not ci_run["summary"]["falsely_failed_controls"]
    assert ci_run["passed"]
    assert "false alarm" in render_markdown(ci_run)


def test_new_mutants_are_killed_by_a_single_call(ci_run):
    """One ulp on every var element either way, toward-zero fp16/bf16 casts, ties away from zero
    in bf16 and a bf16 round trip of the update: each is failed by a table case (a single call),
    not only by a relation between calls."""
    table = {c.case_id for _, c in tier_cases("ci", ("apply_adam_w_quant",)) if c.origin == "table"}
    by = {m["name"]: m for m in ci_run["mutants"]}
    for name in NEW_SINGLE_CALL_MUTANTS:
        m = by[name]
        assert m["status"] == "killed" and m["named"], name
        killing = {k["case_id"] for k in m["kills"] if k["names_defect"]}
        assert killing & table, (name, killing)
    assert {k["case_id"] for k in by["mutant-bf16-cast-half-away"]["kills"]} == {"rounding-ties-bfloat16"}


def test_the_emulator_is_not_killed():
    """The same runner, every case of the tier of the representative operators, finds nothing wrong
    with the emulator (the main job's run judges it on every operator's cases)."""
    from tests.representative import REPRESENTATIVE_OPS
    controls = [type(f"EmulatorOn_{op}", (EmulatorBackend,), {"op": op, "name": f"emulator-{op}"})
                for op in REPRESENTATIVE_OPS]
    doc = mutate("ci", mutants=controls, exhaustive=True)
    assert len(doc["mutants"]) == len(REPRESENTATIVE_OPS)
    for op, result in zip(REPRESENTATIVE_OPS, doc["mutants"]):
        assert result["status"] == "control" and result["killing_cases"] == 0, (op, result["kills"][:3])
        assert result["cases_run"] == len(tier_cases("ci", (op,))) * len(doc["products"]), op


class _Survivor(Mutant):
    """A "mutant" with no defect at all: nothing can kill it."""

    op = "apply_adam_w_quant"
    name = "mutant-test-survivor"
    defect = "none"
    killed_by = ("AAWQ-VAL-004",)


class _Misnamed(Mutant):
    """Killed (every call of ApplyAdamWQuant is rejected), but it claims a rule no killing case
    carries."""

    op = "apply_adam_w_quant"
    name = "mutant-test-misnamed"
    defect = "every call rejected with 161002"
    killed_by = ("AAWQ-PRE-004",)

    def mutate(self, case, product):
        return self.reject(case, 161002, "rejected")


def test_the_gate_fails_survivors_and_unnamed_kills():
    doc = mutate("ci", mutants=[_Survivor, _Misnamed], products=("atlas-a2",))
    by = {m["name"]: m for m in doc["mutants"]}
    assert by["mutant-test-survivor"]["status"] == "survived" and not by["mutant-test-survivor"]["ok"]
    misnamed = by["mutant-test-misnamed"]
    assert misnamed["status"] == "killed" and not misnamed["named"] and not misnamed["ok"]
    assert not doc["passed"]
    assert doc["summary"]["failing_gate"] == ["mutant-test-survivor", "mutant-test-misnamed"]


class _FalseControl(ModelControl):
    """Declared a control, but its var is one ulp high everywhere: the command reports its failing
    cases as false alarms and fails."""

    name = "control-test-one-ulp-high"
    defect = "none claimed"
    kernel = OneUlpUp.kernel


def test_the_gate_fails_on_a_failed_control():
    doc = mutate("ci", mutants=[_FalseControl], products=("atlas-a2",))
    (result,) = doc["mutants"]
    assert result["status"] == "control-killed" and not result["ok"] and result["killing_cases"] > 0
    assert doc["summary"]["falsely_failed_controls"] == ["control-test-one-ulp-high"]
    assert doc["summary"]["false_alarms"] == result["killing_cases"] and not doc["passed"]
    assert "FALSE ALARM" in render_markdown(doc)


def test_command_line(tmp_path, capsys):
    assert main(["mutate", "--mutants", "decay-before-step,NzStorageFloor", "--products",
                 "atlas-a2,ascend950", "--out", str(tmp_path)]) == 0
    printed = capsys.readouterr().out
    assert "mutant-decay-before-step" in printed and "WQP-SHAPE-011" in printed
    assert (tmp_path / "mutation.md").exists() and (tmp_path / "mutation.json").exists()
    assert "mm-k40-n20-out-weight-storage-floor" in (tmp_path / "mutation.md").read_text()


def test_a_mutant_through_the_suites():
    """--backend backends.mutants:<Class> works in pytest, and the failure names the case."""
    cmd = [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_operators.py::test_table",
           "-k", "weight-decay-large", "--op", "apply_adam_w_quant", "--backend", "aclnn_conformance.backends.mutants:DecayBeforeStep",
           "--product", "atlas-a2", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[-2000:]
    assert "FAIL: apply_adam_w_quant case weight-decay-large on atlas-a2" in proc.stdout
    assert "backend mutant-decay-before-step" in proc.stdout


FAMILY = ("apply_adam_w_v2", "apply_adam_w", "quant_matmul_weight_nz")


def test_every_family_mutant_is_killed_by_three_single_calls(ci_run):
    """ApplyAdamWV2, ApplyAdamW and QuantMatmulWeightNz: each mutant is failed, naming its defect,
    by at least three distinct single-call cases, and ApplyAdamWV2's on two products or more
    where the defect exists on more than one; the command reports those cases."""
    by = {m["name"]: m for m in ci_run["mutants"]}
    for cls in MUTANTS:
        if cls.op not in FAMILY:
            continue
        m = by[cls.name]
        named = {(k["case_id"], k["product"]) for k in m["kills"] if k["names_defect"]}
        assert m["named_cases"] >= 3 and len({c for c, _ in named}) >= 3, (cls.name, named)
        assert len(m["named_products"]) >= cls.killing_products_wanted, (cls.name, m["named_products"])
        if cls.op == "apply_adam_w_v2" and cls.name != "mutant-v2-bf16-ties-away-on-950":
            assert cls.killing_products_wanted == 2
    row = next(r for r in render_markdown(ci_run).splitlines() if "| mutant-v2-var-two-ulps-up |" in r)
    assert "killed by 3 cases" in row and row.count(" on ") >= 3


def test_the_two_ulp_var_bias_and_the_950_tie_are_killed_by_table_cases(ci_run):
    """Two float32 ulps on every var element (each inside its bound) fail single float32 calls of
    ApplyAdamWV2 on every product with its kernel and of ApplyAdamW on Ascend 950; bfloat16 ties
    away from zero fail ApplyAdamWV2 on Ascend 950 only."""
    by = {m["name"]: m for m in ci_run["mutants"]}
    every = mutate("ci", mutants=[by_name("mutant-v2-var-two-ulps-up"),
                                  by_name("mutant-apply-adam-w-var-two-ulps-up")],
                   products=("atlas-a2", "ascend950"), exhaustive=True)
    for m in every["mutants"]:
        # the tiny doc example may fail it element by element (a var of 0); the float32 vendor
        # cases of 1000 elements fail it by the bias check alone
        bias = {(k["case_id"], k["product"]) for k in m["kills"]
                if k["names_defect"] and "systematic error" in k["detail"]}
        assert len({c for c, _ in bias}) >= 3, (m["name"], m["kills"])
        if m["op"] == "apply_adam_w_v2":
            assert {p for _, p in bias} == {"atlas-a2", "ascend950"}
    ties = [k for k in by["mutant-v2-bf16-ties-away-on-950"]["kills"] if k["names_defect"]]
    assert {k["product"] for k in ties} == {"ascend950"} and len({k["case_id"] for k in ties}) >= 3
