"""report.html in a real headless browser: Chromium driven through chromedriver's WebDriver HTTP
interface (plain JSON over the standard library), the page rendered at 1280 px wide.

The page must load without console errors, say a verdict for every product at its top with a link
to the failing cases that follow it, and show the compliance table's key columns (compliance of
judged, value rules exercised) inside the viewport, with no horizontal scrolling; the rules an
operator's section holds are drawn when it opens, and the filter boxes keep the matching rows. A
matrix page shows every column inside the viewport, filters its rows and scrolls to an API's
anchor. Skipped, with the reason, where Chromium or its driver is
not installed (Debian: ``apt-get install chromium chromium-driver``; CI installs them)."""
from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from aclnn_conformance.judging.records import read_records
from aclnn_conformance.spec import OPS
from aclnn_conformance.reports.certify import PLAIN_ASSERTS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
WIDTH, HEIGHT = 1280, 900
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--window-size={WIDTH},{HEIGHT}"]
PRODUCTS = ("atlas-a2", "ascend950")

pytestmark = pytest.mark.skipif(CHROMIUM is None or CHROMEDRIVER is None,
                                reason="Chromium and chromedriver are not installed "
                                       "(apt-get install chromium chromium-driver)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class WebDriver:
    """The few WebDriver commands the test needs, as JSON over HTTP to a local chromedriver."""

    def __init__(self, profile_dir: Path):
        self.port = _free_port()
        self.process = subprocess.Popen([CHROMEDRIVER, f"--port={self.port}"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.base = f"http://127.0.0.1:{self.port}"
        self._wait_ready()
        options = {"binary": CHROMIUM, "args": [*CHROMIUM_ARGS, f"--user-data-dir={profile_dir}"]}
        created = self._call("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "goog:chromeOptions": options,
            "goog:loggingPrefs": {"browser": "ALL"}}}})
        self.session = f"/session/{created['sessionId']}"

    def _wait_ready(self, seconds: float = 30) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                if self._call("GET", "/status").get("ready"):
                    return
            except (urllib.error.URLError, ConnectionError):
                time.sleep(0.1)
        raise RuntimeError("chromedriver did not start")

    def _call(self, method: str, path: str, body: dict | None = None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            return json.loads(response.read())["value"]

    def open(self, url: str) -> None:
        self._call("POST", self.session + "/url", {"url": url})

    def script(self, source: str):
        return self._call("POST", self.session + "/execute/sync", {"script": source, "args": []})

    def console(self) -> list[dict]:
        return self._call("POST", self.session + "/se/log", {"type": "browser"})

    def close(self) -> None:
        try:
            self._call("DELETE", self.session)
        finally:
            self.process.terminate()
            self.process.wait(timeout=30)


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> Path:
    """A real report of a small run with failures on two products."""
    out = tmp_path_factory.mktemp("browser") / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *PLAIN_ASSERTS, "suites/test_operators.py::test_table", "-k",
         "weight-decay--0.5 or doc-example", "--op", "apply_adam_w_quant", "--backend",
         "aclnn_conformance.backends.mutants:DecayWhenWdNonpositive", "--product",
         ",".join(PRODUCTS), "--report-dir", str(out), "-q", "-p", "no:xdist",
         "-p", "no:cacheprovider"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:]
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = WebDriver(tmp_path_factory.mktemp("chromium-profile"))
    yield driver
    driver.close()


def test_report_html_renders_at_1280_px_with_verdicts_and_key_columns(report, browser):
    browser.open((report / "report.html").as_uri())
    page = browser.script("""
        const width = document.documentElement.clientWidth;
        const boxes = [...document.querySelectorAll('table.compliance [data-key]')].map(cell => {
            const r = cell.getBoundingClientRect();
            return {key: cell.dataset.key, left: r.left, right: r.right, width: r.width};
        });
        const verdicts = [...document.querySelectorAll('#verdicts p.verdict')].map(
            p => ({product: p.dataset.product, verdict: p.dataset.verdict,
                   top: p.getBoundingClientRect().top}));
        const failures = [...document.querySelectorAll('details.failure')].map(d => ({
            call: (d.querySelector('p.call code') || {}).textContent,
            rules: [...d.querySelectorAll('p.rule-text')].map(p => p.textContent)}));
        const link = document.querySelector('#verdicts a[href="#failures"]');
        const top = s => document.querySelector(s).getBoundingClientRect().top;
        return {width, scrollWidth: document.documentElement.scrollWidth, boxes, verdicts,
                failures, link: link && link.textContent,
                order: [top('#failures'), top('table.compliance')]};""")
    assert page["width"] <= WIDTH and page["width"] > WIDTH - 40, page["width"]
    errors = [entry for entry in browser.console() if entry.get("level") == "SEVERE"]
    assert errors == []

    verdicts = {v["product"]: v for v in page["verdicts"]}
    assert set(verdicts) == set(PRODUCTS)
    assert {v["verdict"] for v in verdicts.values()} == {"NOT CONFORMANT"}
    assert all(v["top"] < HEIGHT for v in verdicts.values())     # at the top, without scrolling
    assert page["link"].startswith(f"{len(PRODUCTS)} case(s) not certifiable")
    assert page["order"][0] < page["order"][1]           # the failing cases before the tables

    assert {b["key"] for b in page["boxes"]} == {"compliance", "value-rules"}
    assert len(page["boxes"]) == 2 * len(PRODUCTS)
    for box in page["boxes"]:
        assert box["width"] > 0 and 0 <= box["left"] and box["right"] <= page["width"], box

    records = [r for r in read_records(report / "records.jsonl") if r.outcome == "FAIL"]
    assert len(page["failures"]) == len(records) == len(PRODUCTS)
    texts = {rule.id: rule.text for rule in OPS["apply_adam_w_quant"].rules}
    for failure, record in zip(page["failures"], records):
        assert failure["call"].startswith("apply_adam_w_quant(varRef=FLOAT[")
        assert "weightDecay=-0.5" in failure["call"]
        assert failure["rules"] == [f"{i}: {texts[i]}" for i in record.rule_ids[:4]]


def test_report_html_draws_the_rules_on_opening_and_filters(report, browser):
    browser.open((report / "report.html").as_uri())
    page = browser.script("""
        const type = (id, text) => { const box = document.querySelector(`input[data-for="${id}"]`);
            box.value = text; box.dispatchEvent(new Event('input')); };
        const section = document.querySelector('details.rules[data-op="apply_adam_w_quant"]');
        const before = section.querySelectorAll('tr[data-rule]').length;
        section.open = true;
        await new Promise(done => setTimeout(done, 50));
        const rules = [...section.querySelectorAll('tr[data-rule]')].map(tr => tr.dataset.rule);
        const outcomes = [...section.querySelectorAll('td[data-outcome]')].map(
            td => td.dataset.outcome);
        type('rules', 'AAWQ-DTYPE-001');
        const shown = [...section.querySelectorAll('tr[data-rule]')].filter(
            tr => !tr.hidden).map(tr => tr.dataset.rule);
        type('compliance', 'ascend950');
        const compliance = [...document.querySelectorAll('table.compliance tbody tr')].map(
            tr => tr.dataset.product);
        return {before, rules, outcomes, shown, compliance};""")
    assert page["before"] == 0
    assert page["rules"] == [rule.id for rule in OPS["apply_adam_w_quant"].rules]
    assert "FAIL" in page["outcomes"]
    assert page["shown"] == ["AAWQ-DTYPE-001"]
    assert page["compliance"] == ["ascend950"]
    assert [e for e in browser.console() if e.get("level") == "SEVERE"] == []


def test_matrix_page_shows_every_column_filters_and_anchors(tmp_path, browser):
    from aclnn_conformance.reports.matrix import matrix, matrix_page
    rows = matrix("atlas-a2")
    path = tmp_path / "matrix_atlas-a2.html"
    path.write_text(matrix_page("atlas-a2", rows), encoding="utf-8")
    last = rows[-1]["api"]
    browser.open(path.as_uri() + "#" + last)
    page = browser.script("""
        const width = document.documentElement.clientWidth;
        const scrollWidth = document.documentElement.scrollWidth;
        const outside = [...document.querySelectorAll('#matrix th, #matrix td')].filter(cell => {
            const r = cell.getBoundingClientRect();
            return r.left < 0 || r.right > width || cell.scrollWidth > cell.clientWidth + 1; }
        ).map(cell => cell.textContent).slice(0, 5);
        const target = document.getElementById(location.hash.slice(1)).getBoundingClientRect();
        const box = document.querySelector('input.filter[data-for="matrix"]');
        box.value = 'aclnnCelu';
        box.dispatchEvent(new Event('input'));
        const shown = new Set([...document.querySelectorAll('#matrix tbody tr')].filter(
            tr => !tr.hidden).map(tr => tr.dataset.api));
        return {width, scrollWidth, outside, target: target.top, shown: [...shown]};""")
    assert page["scrollWidth"] <= page["width"] and page["outside"] == [], page
    # the anchor's row scrolled into view (to within a pixel's rounding of the top)
    assert -1 < page["target"] < HEIGHT / 2
    assert page["shown"] == ["aclnnCelu"]
