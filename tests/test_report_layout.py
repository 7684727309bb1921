"""The reports' layout: the verdict first, then the failing cases with their reproducers, then the
rest (report.md and report.html, whose banner links to the failing cases); report.html small, its
large tables carried as JSON and drawn by its script, every row still in the page; the matrix pages
styled like the report, with a filter box and an anchor per API."""
from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from aclnn_conformance.reports import html_page, matrix
from aclnn_conformance.reports.report import render_markdown
from aclnn_conformance.spec.outcome import Outcome
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

ROOT = Path(__file__).resolve().parents[1]
OP = "apply_adam_w_quant"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A small NOT CONFORMANT run: a mutant failing two cases, one per product."""
    out = tmp_path_factory.mktemp("layout") / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_operators.py::test_table", "-k",
         "weight-decay--0.5 or doc-example", "--op", OP, "--backend",
         "aclnn_conformance.backends.mutants:DecayWhenWdNonpositive", "--product",
         "atlas-a2,ascend950", "--report-dir", str(out), "-q", "-p", "no:xdist",
         "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:]
    return out


def data_blocks(page: str) -> dict:
    """The JSON blocks of a page, by id: the rows its script draws."""
    return {m.group(1): json.loads(m.group(2)) for m in re.finditer(
        r'<script type="application/json" id="([^"]+)">(.*?)</script>', page, re.S)}


def test_report_md_says_the_verdict_then_the_failing_cases_then_the_rest(report):
    lines = (report / "report.md").read_text().splitlines()
    headings = [line for line in lines if line.startswith("## ")]
    assert headings[:2] == ["## Verdict per product", "## Not certifiable (2)"]
    assert lines.index("## Verdict per product") < 5
    failing = lines.index("## Not certifiable (2)")
    rest = min(lines.index(h) for h in ("## Runs", "## Compliance per operator and product"))
    reproducers = [i for i, line in enumerate(lines) if "aclnn_conformance.reports replay" in line]
    assert len(reproducers) == 2 and all(failing < i < rest for i in reproducers)


def test_report_html_banner_links_to_the_failing_cases_shown_first(report):
    page = (report / "report.html").read_text()
    banner = re.search(r'<section id="verdicts">(.*?)</section>', page, re.S).group(1)
    assert 'href="#failures"' in banner and "2 case(s) not certifiable" in banner
    failing = page.index('<section id="failures">')
    assert page.index('id="verdicts"') < failing < page.index("<h2>Runs</h2>") \
        < page.index("<h2>Compliance per operator and product</h2>")
    section = page[failing:page.index("</section>", failing)]
    assert section.count('<details class="failure" open>') == 2
    assert section.count("aclnn_conformance.reports replay") == 2


def test_report_html_carries_every_row_as_data(report):
    doc = json.loads((report / "report.json").read_text())
    page = (report / "report.html").read_text()
    blocks = data_blocks(page)
    rules = blocks["rules-data"]
    strings = rules["strings"]
    drawn = {(g["op"], strings[r[0]]): (strings[r[2]], rules["results"][r[5]])
             for g in rules["groups"] for r in g["rules"]}
    assert set(drawn) == {(r["op"], r["id"]) for r in doc["rules"]}
    for rule in doc["rules"]:
        text, cells = drawn[(rule["op"], rule["id"])]
        assert text == rule["text"]
        by_product = {res["product"]: res for res in rule["results"]}
        for product, code in zip(rules["products"], cells):
            res = by_product.get(product)
            assert code == (None if res is None else 0 if not res["in_profile"] else 1 if not res["cases"] else
                            [res["worst"], res["cases"], *([] if len(res["counts"]) == 1 else
                                                           [code[2]])])
    compliance = blocks["compliance-rows"]
    assert [[compliance["strings"][i] for i in row[:2]] for row in compliance["rows"]] == \
        [[c["op"], c["product"]] for c in doc["compliance"]]
    assert len(blocks["errata-rows"]["rows"]) == len(doc["errata"])


def test_a_text_never_ends_its_data_block():
    texts = ["</script><script>alert(1)</script>", "<!--", "a & b"]
    assert data_blocks(html_page.data_block("d", texts)) == {"d": texts}


def _many_operators(doc: dict, copies: int) -> dict:
    """``doc`` with its operator's rules and compliance rows repeated under ``copies`` names, each
    rule with an id and text of its own, as in a run of the whole suite."""
    big = copy.deepcopy(doc)
    big["ops"] = [f"{OP}_{n}" for n in range(copies)]
    big["rules"] = [{**r, "op": f"{OP}_{n}", "id": f"{r['id']}-{n}", "text": f"{r['text']} ({n})"}
                    for n in range(copies) for r in doc["rules"]]
    big["compliance"] = [{**c, "op": f"{OP}_{n}"} for n in range(copies) for c in doc["compliance"]]
    big["errata"] = [{**e, "op": f"{OP}_{n}"} for n in range(copies) for e in doc["errata"]]
    return big


def test_report_html_stays_small_as_the_rules_grow(report):
    """Drawn as HTML, a rule costs about a kilobyte (the main job's page was 8.3 MB for 8,466
    rules); carried as data, a fifth of that or less, and the page without its data blocks does
    not grow with the rules."""
    doc = _many_operators(json.loads((report / "report.json").read_text()), 200)
    rules = len(doc["rules"])
    assert rules > 5000
    page = html_page.render_html(doc)
    assert len(page.encode()) < 200 * rules, len(page) / rules
    markup = re.sub(r'<script type="application/json".*?</script>', "", page, flags=re.S)
    assert markup.count("<tr") < 50                 # the tables' rows are the script's to draw
    assert len(markup.encode()) < 60 * rules


def test_matrix_page_is_styled_filterable_and_anchored_per_api():
    rows = matrix.matrix("atlas-a2", "add_relu") + matrix.matrix("atlas-a2", "celu")
    page = matrix.matrix_page("atlas-a2", rows)
    assert html_page.CSS in page and html_page.SCRIPT in page    # the report's style, script
    assert re.search(r'<input type="search" class="filter" data-for="matrix"', page)
    assert '<table id="matrix"' in page
    apis = sorted({r["api"] for r in rows})
    assert len(apis) == 2
    for api in apis:
        assert page.count(f'<tr id="{api}"') == 1 and f'href="#{api}"' in page
    for r in rows:                                    # every column's text whole
        assert r["citation"] in page and r["dtypes"] in page


def test_outcome_colours_cover_every_outcome():
    assert set(html_page.COLOURS) == set(Outcome)
    assert all(f"td.o-{o}," in html_page.CSS for o in Outcome)
