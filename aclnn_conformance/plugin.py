"""The pytest plugin surface: options, the session's harness, record merging and the summary."""
from __future__ import annotations

import shutil
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from aclnn_conformance.backends.base import Backend, ProductUnknown, bound_product
from aclnn_conformance.backends.registry import DEFAULT_BACKEND, UnknownBackend, load_backend
from aclnn_conformance.judging.records import RecordWriter
from aclnn_conformance.spec.products import PRODUCT_IDS, parse_products
from aclnn_conformance.spec.rules import DEFAULT_PROFILE, PROFILES
from aclnn_conformance.suites.runner import Harness

TIERS = ("ci", "full")
# The exit status of a run whose backend is tied to a device it cannot identify, without --product.
EXIT_PRODUCT_UNKNOWN = 6

settings.register_profile("ci", max_examples=25, derandomize=True, deadline=None, database=None,
                          print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("thorough", max_examples=400, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("aclnn-conformance")
    group.addoption("--backend", default=DEFAULT_BACKEND,
                    help=f"backend under test: a registered name or module:attribute "
                         f"(default {DEFAULT_BACKEND})")
    group.addoption("--product", default=None,
                    help=f"'all', a product id or a comma-separated list: {', '.join(PRODUCT_IDS)} "
                         f"(default: the product the backend is tied to, as the aclnn backend is "
                         f"to its device; else all)")
    group.addoption("--profile", default=DEFAULT_PROFILE, choices=PROFILES,
                    help="cann: the contract as the vendor implements it; doc: the document literally")
    group.addoption("--tier", default="ci", choices=TIERS,
                    help="ci: the fast, derandomized tier; full: every table row, thorough hypothesis")
    group.addoption("--report-dir", default=None,
                    help="write records.jsonl, report.md and failing cases here")
    group.addoption("--case-timeout", type=float, default=None,
                    help="run each case in a child process and record TIMEOUT after this many "
                         "seconds (a crash is recorded CRASH); off by default")


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def _select_products(config: pytest.Config, backend: Backend) -> tuple[str, ...]:
    """--product as given; without it, the product a device-bound backend is tied to, else every
    product. Workers take the controller's choice (one device query per run)."""
    if _is_worker(config) and "aclnn_products" in config.workerinput:
        return tuple(config.workerinput["aclnn_products"].split(","))
    given = config.getoption("--product")
    if given is not None:
        return parse_products(given)
    try:
        bound = bound_product(backend)
    except ProductUnknown as exc:
        pytest.exit(f"backend {backend.name} cannot tell its device's product: {exc}; "
                    f"pass --product", returncode=EXIT_PRODUCT_UNKNOWN)
    return (bound,) if bound else PRODUCT_IDS


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a case judged against the spec")
    try:
        backend = load_backend(config.getoption("--backend"))
        products = _select_products(config, backend)
    except (ValueError, UnknownBackend) as exc:
        raise pytest.UsageError(str(exc)) from None
    tier = config.getoption("--tier")
    settings.load_profile("thorough" if tier == "full" else "ci")
    ok, reason = backend.available()
    run_id = (config.workerinput.get("aclnn_run_id") if _is_worker(config)
              else uuid.uuid4().hex[:12])
    report_dir = config.getoption("--report-dir")
    report_dir = Path(report_dir).resolve() if report_dir else None
    writer = None
    if report_dir is not None:
        shard = config.workerinput["workerid"] if _is_worker(config) else "main"
        if not _is_worker(config) and (report_dir / "records").exists():
            shutil.rmtree(report_dir / "records")
            shutil.rmtree(report_dir / "failures", ignore_errors=True)
        writer = RecordWriter(report_dir / "records" / f"{shard}.jsonl")
    executor = None
    timeout = config.getoption("--case-timeout")
    if timeout:
        from aclnn_conformance.backends.isolation import isolated_executor
        executor = isolated_executor(timeout)
    config._aclnn_products = products
    config._aclnn_harness = Harness(
        backend=backend, profile=config.getoption("--profile"), tier=tier, run_id=run_id,
        report_dir=report_dir, writer=writer,
        unavailable="" if ok else f"backend {backend.name} unavailable: {reason}",
        executor=executor, backend_spec=config.getoption("--backend"))
    if report_dir is not None and not _is_worker(config):
        from aclnn_conformance.reports.run import start_pytest_run  # run.json, complete false until the end
        start_pytest_run(config, config._aclnn_harness, products,
                         "thorough" if tier == "full" else "ci")


@pytest.hookimpl(optionalhook=True)  # defined by pytest-xdist; absent under -p no:xdist
def pytest_configure_node(node) -> None:  # pytest-xdist hook: one run id and product set for all
    node.workerinput["aclnn_run_id"] = node.config._aclnn_harness.run_id
    node.workerinput["aclnn_products"] = ",".join(node.config._aclnn_products)


def pytest_report_header(config: pytest.Config) -> list[str]:
    h: Harness = config._aclnn_harness
    lines = [f"aclnn-conformance: backend={h.backend.name} v{h.backend.version} "
             f"profile={h.profile} tier={h.tier} products={','.join(config._aclnn_products)} "
             f"run={h.run_id}"]
    if h.unavailable:
        lines.append(h.unavailable + " -- every case will be SKIPPED")
    return lines


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that takes ``product`` runs once per selected product (unless it chooses its own)."""
    own = any("product" in str(m.args[0]).replace(" ", "").split(",")
              for m in metafunc.definition.iter_markers("parametrize") if m.args)
    if "product" in metafunc.fixturenames and not own:
        metafunc.parametrize("product", metafunc.config._aclnn_products)
    if "table_case" in metafunc.fixturenames:  # an operator suite: its module's `calls.table_cases`
        cases = list(metafunc.module.calls.table_cases(metafunc.config.getoption("--tier")))
        metafunc.parametrize("table_case", cases, ids=[c.case_id for c in cases])


@pytest.fixture(scope="session")
def harness(pytestconfig: pytest.Config) -> Harness:
    return pytestconfig._aclnn_harness


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    h: Harness = session.config._aclnn_harness
    if h.writer is not None:
        h.writer.close()
    if _is_worker(session.config) or h.report_dir is None:
        return
    from aclnn_conformance.reports.run import end_pytest_run
    from aclnn_conformance.reports.summary import finish_report_dir
    end_pytest_run(session, exitstatus)  # run.json: complete, or why it stopped early
    session.config._aclnn_summary = finish_report_dir(h.report_dir)


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    summary = getattr(config, "_aclnn_summary", None)
    if summary:
        terminalreporter.write_sep("=", "aclnn conformance summary")
        terminalreporter.write_line(summary)
