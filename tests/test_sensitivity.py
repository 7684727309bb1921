"""The sensitivity of the precision standards: every floating standard has a finite threshold, and
the float32 ulp standard sees a realistic defect."""
from __future__ import annotations

import math

import numpy as np
import pytest

from aclnn_conformance.reports.__main__ import main
from aclnn_conformance.judging.sensitivity import judge_injected
from aclnn_conformance.reports.sensitivity import END, MODES, START, run, update_readme
from aclnn_conformance.suites.calls.apply_adam_w_quant import float_target


@pytest.fixture(scope="module")
def doc():
    return run()


def test_every_standard_has_finite_thresholds(doc):
    standards = {(r["standard"], r["output"], r["dtype"]) for r in doc["rows"]}
    for dtype in ("float32", "float16", "bfloat16"):
        assert ("float-ulp", "varRef", dtype) in standards
        assert ("mere-mare", "varRef", dtype) in standards
    assert {("float-ulp", "absmaxMRef", "float32"), ("quant-code", "mRef", "uint8 codes of float32"),
            ("quant-code", "vRef", "uint8 codes of float32")} <= standards
    for row in doc["rows"]:
        what = (row["standard"], row["output"], row["dtype"], row["mode"])
        assert row["at_zero"] == "PASS", what
        assert row["largest_pass"] is not None and math.isfinite(row["largest_pass"]), what
        assert row["smallest_fail"] is not None and math.isfinite(row["smallest_fail"]), what
        assert 0 < row["largest_pass"] < row["smallest_fail"] <= 0.5, what
        assert row["monotone"], what
    assert {r["mode"] for r in doc["rows"]} == set(MODES)


def test_thresholds_follow_the_limits(doc):
    """Tighter standards see smaller errors: float-ulp fp32 (4 ulps) below fp16 and bf16 (1 ulp),
    and below the doc profile's MERE limit 2^-13 for float32."""
    def fail(standard, dtype, mode="every element", output="varRef"):
        return next(r["smallest_fail"] for r in doc["rows"] if r["standard"] == standard
                    and r["dtype"] == dtype and r["mode"] == mode and r["output"] == output)
    assert fail("float-ulp", "float32") <= 2.0 ** -20
    assert fail("float-ulp", "float32") < fail("float-ulp", "float16") < fail("float-ulp", "bfloat16")
    assert fail("float-ulp", "float32") < fail("mere-mare", "float32") <= 2.0 ** -12
    # MERE averages: one wrong element passes until MARE's 10T
    assert fail("mere-mare", "float32", "one element") > fail("mere-mare", "float32")


def test_float_ulp_fp32_sees_a_2_pow_minus_20_error():
    target = float_target("float-ulp", "cann", "float32", "varRef")
    rng = np.random.default_rng(0)
    assert judge_injected(target, 0.0, "every element", rng) == "PASS"
    assert judge_injected(target, 2.0 ** -20, "every element", rng) == "FAIL"


def test_readme_section_is_replaced_in_place(tmp_path, doc):
    path = tmp_path / "README.md"
    path.write_text("# Benchmarks\n\n## Other figures\n\nkept\n", encoding="utf-8")
    update_readme(doc, path)
    update_readme(doc, path)
    text = path.read_text(encoding="utf-8")
    assert text.count(START) == text.count(END) == 1
    assert text.count("## Precision standard sensitivity") == 1
    assert "## Other figures\n\nkept" in text
    assert "| float-ulp@1 | ApplyAdamWQuant varRef (atlas-a2) | float32 |" in text
    # markers placed by someone else under their own heading: only the inside is replaced
    placed = tmp_path / "placed.md"
    placed.write_text(f"# B\n\n## Precision standard sensitivity\n\n{START}\n{END}\n\n## After\n",
                      encoding="utf-8")
    update_readme(doc, placed)
    text = placed.read_text(encoding="utf-8")
    assert text.count("## Precision standard sensitivity") == 1 and text.endswith("## After\n")
    fresh = tmp_path / "new" / "README.md"
    update_readme(doc, fresh)
    assert START in fresh.read_text(encoding="utf-8")


def test_command_line(tmp_path, capsys):
    assert main(["sensitivity", "--out", str(tmp_path), "--no-readme"]) == 0
    assert "float-ulp@1" in capsys.readouterr().out
    assert (tmp_path / "sensitivity.md").exists() and (tmp_path / "sensitivity.json").exists()


def test_model_bound_sees_less_than_the_ulp_budget_and_bias_rows_exist(doc):
    """model-bound@2 judges the envelope of this very call: on the vendor case (well conditioned)
    it fails a relative error far below float-ulp's 4-ulp budget, on var and absmax, every mode."""
    def fail(standard, dtype, mode="every element", output="varRef", version=None):
        return next(r["smallest_fail"] for r in doc["rows"] if r["standard"] == standard
                    and r["dtype"] == dtype and r["mode"] == mode and r["output"] == output
                    and r["op"] == "apply_adam_w_quant"
                    and (version is None or r["version"] == version))
    for dtype in ("float32", "float16", "bfloat16"):
        for mode in MODES:
            assert fail("model-bound", dtype, mode) < fail("float-ulp", dtype, mode)
    assert fail("model-bound", "float32", "bias", "absmaxMRef") <= 2.0 ** -23
    assert {r["mode"] for r in doc["rows"] if r["standard"] == "quant-code" and r["version"] == "3"} == set(MODES)


def test_rounding_mode_injections(doc):
    """A toward-zero cast fails model-bound@2 on every case; ties away from zero fails it where the
    results are exact ties and changes nothing elsewhere; float-ulp@1's one-ulp budget lets both
    through."""
    rows = {(r["standard"], r["case_id"], r["mode"]): r for r in doc["rounding"]}
    for dtype in ("float16", "bfloat16"):
        vendor, ties = f"vendor-st-{dtype}-N17", f"rounding-ties-{dtype}"
        assert rows[("model-bound", vendor, "toward zero")]["verdict"] == "FAIL"
        assert rows[("model-bound", ties, "toward zero")]["verdict"] == "FAIL"
        assert rows[("model-bound", ties, "ties away from zero")]["verdict"] == "FAIL"
        assert rows[("model-bound", ties, "ties away from zero")]["changed"] > 0
        assert rows[("model-bound", vendor, "ties away from zero")]["changed"] == 0
        assert rows[("model-bound", vendor, "ties away from zero")]["verdict"] == "PASS"
        for case_id in (vendor, ties):
            assert rows[("float-ulp", case_id, "toward zero")]["verdict"] != "FAIL"
    text = "\n".join(line for line in __import__("aclnn_conformance.reports.sensitivity",
                                                  fromlist=["x"]).render_markdown(doc).splitlines())
    assert ("| model-bound@2 | ApplyAdamWQuant varRef | bfloat16 | rounding-ties-bfloat16 | "
            "ties away from zero |") in text


def test_family_rows_for_every_float_output(doc):
    """model-bound@3 has rows for every float output of ApplyAdamWV2, ApplyAdamW and
    QuantMatmulWeightNz, in every injection mode, and rounding rows per product: bfloat16 ties away
    from zero pass ApplyAdamWV2 on Atlas A2 (the tie is open there) and fail it on Ascend 950."""
    family = {(r["op"], r["output"], r["mode"]) for r in doc["rows"] if r["version"] == "3"}
    outputs = {"apply_adam_w_v2": ("varRef", "mRef", "vRef", "maxGradNormOptionalRef"),
               "apply_adam_w": ("varRef", "mRef", "vRef"), "quant_matmul_weight_nz": ("out",)}
    for op, names in outputs.items():
        for name in names:
            for mode in MODES:
                assert (op, name, mode) in family
    rows = {(r["case_id"], r["mode"]): r for r in doc["rounding"] if r["version"] == "3"}
    assert rows[("bf16-exact-ties on atlas-a2", "ties away from zero")]["verdict"] == "PASS"
    assert rows[("bf16-exact-ties on ascend950", "ties away from zero")]["verdict"] == "FAIL"
    assert rows[("bf16-exact-ties on ascend950", "ties away from zero")]["changed"] > 0
    for key, row in rows.items():
        if key[1] == "toward zero":
            assert row["verdict"] == "FAIL", key
