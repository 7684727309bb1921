"""The pytest plugin surface: options, the session's harness, record merging and the summary.

Exit statuses beyond pytest's own (0 every case certifiable, 1 a case not certifiable, 2
interrupted, 3 internal error, 4 a usage error, with a one-line message, 5 nothing collected):
6 nothing judged (every conformance case skipped: the backend is unavailable), 7 the run is
incomplete (a collected case ended without a record, or collected cases never ran).
"""
from __future__ import annotations

import collections
import os
import shutil
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis.configuration import set_hypothesis_home_dir

from aclnn_conformance.backends.base import Backend, ProductUnknown, bound_product
from aclnn_conformance.backends.registry import DEFAULT_BACKEND, UnknownBackend, load_backend
from aclnn_conformance.judging.memory import OVER_BUDGET, MemoryBudget, memory_budget
from aclnn_conformance.judging.records import RecordWriter
from aclnn_conformance.spec.products import PRODUCT_IDS, parse_products
from aclnn_conformance.spec.rules import DEFAULT_PROFILE, PROFILES
from aclnn_conformance.suites.runner import NEEDS_PACKAGE, Harness

TIERS = ("ci", "full")
ISOLATION = ("auto", "on", "off")
NATIVE_CODE_BACKENDS = frozenset({"aclnn"})   # auto isolation: a crash here would kill pytest
ISOLATED_CASE_TIMEOUT = 900.0                  # seconds, when isolation is on without --case-timeout
IN_PROCESS_CASE_TIMEOUT = 900.0                # seconds, a backend run in process (no isolation)
EXIT_NOTHING_JUDGED = 6
EXIT_INCOMPLETE = 7
# The exit status of a run whose backend is tied to a device it cannot identify, without --product.
EXIT_PRODUCT_UNKNOWN = 8

# No explain phase: it replays the minimal failing example about a thousand times to annotate which
# draws did not matter (80 s on one optimizer's failure); the record's reproducer already names the case.
settings.register_profile("ci", max_examples=25, derandomize=True, deadline=None, database=None,
                          print_blob=True, phases=tuple(p for p in Phase if p is not Phase.explain),
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# The ci tier with --hypothesis-seed: drawn from the seed instead of derandomized, so that the seed
# run.json records is the one the examples came from.
settings.register_profile("ci-seeded", settings.get_profile("ci"), derandomize=False)
# The full tier draws more examples, derandomized too: a draw depends on the test and the seed, never
# on the run (two backends that behave alike get the same cases, so `diff` compares like with like).
settings.register_profile("thorough", settings.get_profile("ci"), max_examples=400)
settings.register_profile("thorough-seeded", settings.get_profile("thorough"), derandomize=False)


def _draws_from_no_local_constants() -> None:
    """Hypothesis draws, one time in twenty, a literal mined from the source of the local modules
    loaded (``_get_local_constants``): the imports of a backend's module, or of the options a run
    takes, would change the draws. Its own fixed constants stay; a version without it is left as is."""
    from hypothesis.internal.conjecture import providers
    if hasattr(providers, "_get_local_constants"):
        none_mined = type(providers._local_constants)()
        providers._get_local_constants = lambda: none_mined


_draws_from_no_local_constants()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("aclnn-conformance")
    group.addoption("--backend", default=DEFAULT_BACKEND,
                    help=f"backend under test: a registered name or module:attribute "
                         f"(default {DEFAULT_BACKEND})")
    group.addoption("--product", default=None,
                    help=f"'all', a product id or a comma-separated list: {', '.join(PRODUCT_IDS)} "
                         f"(default: the product the backend is tied to, as the aclnn backend is "
                         f"to its device; else all)")
    # no argparse choices: a bad value is a one-line usage error (pytest_configure), not a usage block
    group.addoption("--profile", default=DEFAULT_PROFILE,
                    help="cann: the contract as the vendor implements it; doc: the document literally")
    group.addoption("--tier", default="ci",
                    help="ci: the fast, derandomized tier (drawn from --hypothesis-seed when given); "
                         "full: every table row, thorough hypothesis")
    group.addoption("--op", default=None,
                    help="run only the cases of these operators (a comma-separated list of keys or "
                         "API names, aclnn-conformance list operators)")
    group.addoption("--report-dir", default=None,
                    help="write records.jsonl, report.md and failing cases here")
    group.addoption("--case-timeout", type=float, default=None,
                    help="run each case in a child process and record TIMEOUT after this many "
                         "seconds (a crash is recorded CRASH); off by default")
    group.addoption("--isolation", default="auto",
                    help="run the backend in a child process, so that a crash or a hang is "
                         "recorded: auto (default) isolates native-code backends (aclnn)")
    group.addoption("--spec-data", action="append", default=[], metavar="DIR",
                    help="a folder of operator-data files (aclnn-conformance extract) whose operators "
                         "join the run (repeatable; also ACLNN_CONFORMANCE_SPEC_DATA)")
    group.addoption("--cases", default=None, metavar="CASES_DIR",
                    help="run the cases an import wrote to CASES_DIR (aclnn-conformance import), "
                         "each on the product its vendor file states unless --product is given")
    group.addoption("--overwrite", action="store_true",
                    help="replace an earlier run in --report-dir (refused without it)")
    group.addoption("--max-case-bytes", default=None, metavar="BYTES",
                    help="the memory one case may need (estimated from its tensors before any is "
                         "allocated: bytes, or with K, M, G, T as powers of 1024; none for no "
                         "limit); a case needing more is recorded SKIPPED with its bytes "
                         "(default: a quarter of the machine's memory)")
    group.addoption("--min-exercised", default=None, metavar="SHARE",
                    help="the share (0 to 1) of a product's applicable rules, and of its value "
                         "rules, the run must exercise for a full CONFORMANT verdict; below it "
                         "the verdict says 'partial' (default 0.8)")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The suite of imported vendor cases is collected only with --cases."""
    if collection_path.name == "test_vendor_cases.py" and not config.getoption("--cases"):
        return True
    return None


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


def hypothesis_home() -> Path:
    """Where hypothesis keeps its database and caches: the user's HYPOTHESIS_STORAGE_DIRECTORY, else
    the user's cache folder, else the temporary folder; never the current directory (its default),
    so that a run started anywhere leaves nothing there."""
    given = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    if given:
        return Path(given)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    for folder in (cache / "aclnn-conformance" / "hypothesis",
                   Path(tempfile.gettempdir()) / f"aclnn-conformance-hypothesis-{os.getuid()}"):
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            continue
        if os.access(folder, os.W_OK):
            return folder
    return folder   # neither is writable: hypothesis then warns and keeps its database in memory


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "conformance: a case judged against the spec")
    set_hypothesis_home_dir(hypothesis_home())   # before any test module draws or caches
    from aclnn_conformance.spec.registry import RegistryError, add_data_folder
    try:
        for folder in config.getoption("--spec-data"):
            add_data_folder(folder)
    except RegistryError as exc:
        raise pytest.UsageError(str(exc)) from None
    try:
        backend = load_backend(config.getoption("--backend"))
        products = _select_products(config, backend)
    except (ValueError, UnknownBackend) as exc:
        raise pytest.UsageError(str(exc)) from None
    _check_choices(config)
    given_min_exercised(config)    # a bad value stops the run before it starts
    budget = case_memory_budget(config)
    if config.getoption("--cases"):     # a folder that is no whole, readable import stops the run
        from aclnn_conformance.vendor.cases_dir import CasesDirError, run_items
        try:
            config._aclnn_vendor_items = run_items(config.getoption("--cases"))
        except CasesDirError as exc:
            raise pytest.UsageError(str(exc)) from None
    tier = config.getoption("--tier")
    settings.load_profile(hypothesis_profile(config))
    from aclnn_conformance.suites.sampling import set_selected_ops, set_tier
    set_tier(tier)
    set_selected_ops(selected_ops(config))
    ok, reason = backend.available()
    run_id = (config.workerinput.get("aclnn_run_id") if _is_worker(config)
              else uuid.uuid4().hex[:12])
    _check_product_list(config.getoption("--product"), products)
    _check_backend_products(backend, ok)
    report_dir = _report_dir(config)
    writer = inflight = None
    if report_dir is not None:
        shard = config.workerinput["workerid"] if _is_worker(config) else "main"
        inflight = report_dir / "inflight" / f"{shard}.json"
        inflight.parent.mkdir(parents=True, exist_ok=True)
        writer = RecordWriter(_shard_path(report_dir / "records", shard))
    executor = _executor(config, backend)
    config._aclnn_products = products
    config._aclnn_harness = Harness(
        backend=backend, profile=config.getoption("--profile"), tier=tier, run_id=run_id,
        report_dir=report_dir, writer=writer,
        unavailable="" if ok else f"backend {backend.name} unavailable: {reason}",
        executor=executor, backend_spec=config.getoption("--backend"), inflight=inflight,
        rootdir=Path(config.rootpath), memory_budget=budget)
    config._aclnn_progress = RunProgress()
    if not _is_worker(config):
        config.pluginmanager.register(RunWatcher(config), "aclnn-conformance-run-watcher")
    if report_dir is not None and not _is_worker(config):
        from aclnn_conformance.reports.run import start_pytest_run  # run.json, complete false until the end
        start_pytest_run(config, config._aclnn_harness, products, hypothesis_profile(config))


def given_min_exercised(config: pytest.Config) -> float | None:
    """--min-exercised as a share (None when not given), or a one-line usage error."""
    given = config.getoption("--min-exercised")
    if given is None:
        return None
    try:
        share = float(given)
    except ValueError:
        share = -1.0
    if not 0.0 <= share <= 1.0:
        raise pytest.UsageError(f"--min-exercised {given!r} is not a share from 0 to 1")
    return share


def min_exercised(config: pytest.Config) -> float:
    """--min-exercised, or the reports' default (pandas is loaded by the report that needs it only:
    an xdist worker writes none)."""
    share = given_min_exercised(config)
    if share is None:
        from aclnn_conformance.reports.tables import MIN_EXERCISED
        return MIN_EXERCISED
    return share


def case_memory_budget(config: pytest.Config) -> MemoryBudget | None:
    """--max-case-bytes as a budget (the default share of the machine without it), or a one-line
    usage error."""
    given = config.getoption("--max-case-bytes")
    try:
        return memory_budget(given)
    except ValueError as exc:
        raise pytest.UsageError(f"--max-case-bytes {exc}") from None


def hypothesis_profile(config: pytest.Config) -> str:
    """The hypothesis settings profile of the run's tier (and seed)."""
    tier = "thorough" if config.getoption("--tier") == "full" else "ci"
    return tier if config.getoption("hypothesis_seed", None) is None else f"{tier}-seeded"


def _check_choices(config: pytest.Config) -> None:
    """--profile, --tier, --isolation and --op name known values, and the counts are in range, or
    the run stops in one line."""
    for option, known in (("--profile", PROFILES), ("--tier", TIERS), ("--isolation", ISOLATION)):
        value = config.getoption(option)
        if value not in known:
            raise pytest.UsageError(f"{option} {value!r} is not one of {', '.join(known)}")
    from aclnn_conformance.spec.registry import UnknownOperator
    try:
        selected_ops(config)
    except UnknownOperator as exc:
        raise pytest.UsageError(f"--op {exc}") from None
    _check_counts(config)


# --hypothesis-seed is a 64-bit whole number: hypothesis itself would take any text as a seed
SEED_LIMIT = 2 ** 64


def _check_counts(config: pytest.Config) -> None:
    """-n (pytest-xdist's workers) and --hypothesis-seed (hypothesis's) are whole numbers in range,
    or the run stops in one line before anything runs: neither plugin refuses a negative count or a
    seed that is no number."""
    workers = config.getoption("numprocesses", None)
    if isinstance(workers, int) and workers < 0:
        raise pytest.UsageError(f"-n {workers}: give a number of workers (0 runs in process), "
                                f"auto or logical")
    seed = config.getoption("hypothesis_seed", None)
    if seed is not None:
        try:
            number = int(str(seed), 10)
        except ValueError:
            number = -1
        if not 0 <= number < SEED_LIMIT:
            raise pytest.UsageError(f"--hypothesis-seed {seed}: give a whole number from 0 to "
                                    f"{SEED_LIMIT - 1}")


def selected_ops(config: pytest.Config) -> tuple[str, ...]:
    """The operator keys --op names, by key or API name (empty: every operator); an unknown name
    raises ``UnknownOperator``, which says what the scope knows of it and what is near."""
    from aclnn_conformance.spec.registry import operator_keys
    return operator_keys(config.getoption("--op") or "")


def item_ops(item: pytest.Item) -> set[str]:
    """The operators a test item calls, as far as its module name (test_<op>.py) or its
    parameters (a case's ``op``, an ``op`` parameter) tell; empty when they do not."""
    from aclnn_conformance.spec import OPS
    # a module of tests chaining several operators names them (OPERATORS)
    ops = set(getattr(getattr(item, "module", None), "OPERATORS", ()))
    stem = Path(str(item.path)).stem.removeprefix("test_")
    if stem in OPS:
        ops.add(stem)
    for name, value in getattr(getattr(item, "callspec", None), "params", {}).items():
        op = value if name == "op" else getattr(value, "op", None)
        if isinstance(op, str) and op in OPS:
            ops.add(op)
    return ops


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """--op: keep the items whose operators are all selected (a test chaining operators it cannot
    name runs only without --op). Then the items of one operator, product and test that lie
    outside the operator's declared domain become one item that records them as one family. An
    empty parametrization (the vendor cases without --cases) is no test to run or record."""
    wanted = set(selected_ops(config))
    keep, drop = [], []
    for item in items:
        ops = item_ops(item)
        empty = any(m.name == "skip" and "empty parameter set" in str(m.kwargs.get("reason", ""))
                    for m in item.iter_markers())
        (keep if not empty and (not wanted or ops and ops <= wanted) else drop).append(item)
    drop += _collapse_out_of_domain(config, keep)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = [item for item in keep if not getattr(item, "_aclnn_collapsed", False)]


@dataclass
class NotCoveredFamily:
    """The out-of-domain items one item stands for: its operator, product, test and call count."""

    op: str
    product: str
    family: str
    rule_id: str
    stands_for: int = 0


def _collapse_out_of_domain(config: pytest.Config, items: list[pytest.Item]) -> list[pytest.Item]:
    """Mark the first item of each (operator, product, test) family outside the operator's domain
    as the family's item and every other one collapsed; returns the collapsed ones."""
    from aclnn_conformance.spec import OPS
    from aclnn_conformance.spec.rules import outside_domain
    profile = config.getoption("--profile")
    families: dict[tuple[str, str, str], NotCoveredFamily] = {}
    collapsed = []
    for item in items:
        ops = item_ops(item)
        product = getattr(getattr(item, "callspec", None), "params", {}).get("product")
        if len(ops) != 1 or not isinstance(product, str):
            continue
        (op,) = ops
        rule_id = outside_domain(OPS[op], product, profile)
        if rule_id is None:
            continue
        family = f"{Path(str(item.path)).stem}::{getattr(item, 'originalname', item.name)}"
        group = families.get((op, product, family))
        # a hypothesis test stands for the examples it would draw, a parametrized case for one
        calls = settings.default.max_examples if getattr(getattr(item, "obj", None),
                                                          "is_hypothesis_test", False) else 1
        if group is None:
            group = families[(op, product, family)] = NotCoveredFamily(op, product, family,
                                                                       rule_id)
            item._aclnn_not_covered = group
        else:
            item._aclnn_collapsed = True
            collapsed.append(item)
        group.stands_for += calls
    return collapsed


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    """A family's item records the family NOT_COVERED instead of running its calls."""
    group: NotCoveredFamily | None = getattr(pyfuncitem, "_aclnn_not_covered", None)
    if group is None:
        return None
    from aclnn_conformance.suites.runner import record_not_covered_family
    record_not_covered_family(pyfuncitem.config._aclnn_harness, group.op, group.product,
                              group.family, group.stands_for, group.rule_id, pyfuncitem.nodeid)
    return True


def _check_product_list(text: str, products: tuple[str, ...]) -> None:
    if not products:
        raise pytest.UsageError(f"--product {text!r} names no product: give 'all', a product id or "
                                f"a comma-separated list")
    twice = sorted({p for p in products if products.count(p) > 1})
    if twice:
        raise pytest.UsageError(f"--product lists {', '.join(twice)} more than once")


def _check_backend_products(backend: Backend, available: bool) -> None:
    """An available backend that lists no products is refused: nothing it runs could be judged
    as any chip (an unavailable one records every case SKIPPED with its reason instead)."""
    if available and not tuple(backend.products()):
        raise pytest.UsageError(f"backend {backend.name} lists no products (its products() is "
                                f"empty): it cannot be run")


def _report_dir(config: pytest.Config) -> Path | None:
    """--report-dir, checked on the controller: a writable folder holding no earlier run (unless
    --overwrite, which removes the earlier run's outputs)."""
    given = config.getoption("--report-dir")
    if given is None:
        return None
    if not given.strip():
        raise pytest.UsageError("--report-dir is empty: give a folder")
    report_dir = Path(given).resolve()
    if _is_worker(config):
        return report_dir
    if report_dir.exists() and not report_dir.is_dir():
        raise pytest.UsageError(f"--report-dir {given} is a file, not a folder")
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
        probe = report_dir / f".write-probe-{os.getpid()}"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise pytest.UsageError(f"--report-dir {given} is not writable: "
                                f"{exc.strerror or exc}") from None
    from aclnn_conformance.reports.run import earlier_run, remove_run_outputs
    earlier = earlier_run(report_dir)
    if earlier and not config.getoption("--overwrite"):
        raise pytest.UsageError(f"--report-dir {given} holds an earlier run ({earlier}); pass "
                                f"--overwrite to replace it, or choose another folder")
    if earlier:
        remove_run_outputs(report_dir)
    return report_dir


def _shard_path(records_dir: Path, shard: str) -> Path:
    """records/<shard>.jsonl; a worker restarted after a crash gets a file of its own."""
    path = records_dir / f"{shard}.jsonl"
    return path if not path.exists() else records_dir / f"{shard}-{os.getpid()}.jsonl"


def _executor(config: pytest.Config, backend):
    """The isolated executor when isolation is on (or auto with a native-code backend)."""
    timeout = config.getoption("--case-timeout")
    isolation = config.getoption("--isolation")
    from aclnn_conformance.backends.isolation import timeout_problem
    problem = "" if timeout is None else timeout_problem(timeout)
    if problem:
        raise pytest.UsageError(f"--case-timeout {problem}")
    if timeout is not None and isolation == "off":
        raise pytest.UsageError("--case-timeout needs process isolation: drop --isolation off")
    native = getattr(backend, "native_code", backend.name in NATIVE_CODE_BACKENDS)
    if timeout is None and (isolation == "off" or isolation == "auto" and not native):
        # in process, yet never a run that hangs forever
        from aclnn_conformance.backends.isolation import in_process_executor
        return in_process_executor(IN_PROCESS_CASE_TIMEOUT)
    from aclnn_conformance.backends.isolation import isolated_executor
    return isolated_executor(timeout or ISOLATED_CASE_TIMEOUT)


@dataclass
class RunProgress:
    """The controller's count of what the run did, from the test reports of every worker."""

    collected: int | None = None
    finished: int = 0
    conformance_items: int = 0
    judged: int = 0
    unrecorded: list[str] = field(default_factory=list)
    crashed: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)   # nodeid -> why pytest skipped it

    def verdict(self, stopped_on_request: bool = False) -> tuple[int | None, str]:
        """(an exit status overriding pytest's, its one-line reason) or (None, ""). A run stopped
        on request (-x, --maxfail) keeps pytest's status: its run.json says it stopped early."""
        if self.unrecorded or (not stopped_on_request and self.collected is not None
                               and self.finished < self.collected):
            return EXIT_INCOMPLETE, "incomplete: " + self.incompleteness()
        if self.conformance_items and not self.judged:
            return EXIT_NOTHING_JUDGED, "nothing judged"
        return None, ""

    def incompleteness(self) -> str:
        parts = []
        if self.collected is not None and self.finished < self.collected:
            parts.append(f"{self.collected - self.finished} of {self.collected} collected test(s) "
                         f"never ran to their end")
        if self.unrecorded:
            parts.append(f"{len(self.unrecorded)} test(s) ended without a record "
                         f"(first: {self.unrecorded[0]})")
        return "; ".join(parts)


def pytest_collection_finish(session: pytest.Session) -> None:
    if not _is_worker(session.config) and not _xdist_active(session.config):
        session.config._aclnn_progress.collected = len(session.items)


def _xdist_active(config: pytest.Config) -> bool:
    return config.pluginmanager.getplugin("dsession") is not None


@pytest.hookimpl(optionalhook=True)  # pytest-xdist: every worker collects the same items
def pytest_xdist_node_collection_finished(node, ids) -> None:
    progress = node.config._aclnn_progress
    progress.collected = max(progress.collected or 0, len(ids))


def pytest_runtest_setup(item: pytest.Item) -> None:
    harness = item.config._aclnn_harness
    harness.current_item = item.nodeid   # for checks called without a nodeid
    harness.item_paths[item.nodeid] = Path(item.path)   # where its reproducer finds it
    harness.item_ops[item.nodeid] = tuple(sorted(item_ops(item)))   # what its reproducer selects


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """At teardown, the item's records become JUnit properties (outcome, rule ids, product,
    profile, records) carried by the report to the controller."""
    if call.when == "teardown" and "harness" in getattr(item, "fixturenames", ()):
        from aclnn_conformance.reports.tables import worst
        done = item.config._aclnn_harness.end_item(item.nodeid)
        item.user_properties += [
            ("outcome", worst(done.outcomes) or "none"), ("rule_ids", " ".join(done.rule_ids)),
            ("product", " ".join(done.products)), ("profile", done.profile or
                                                   item.config._aclnn_harness.profile),
            ("records", done.count), ("judged", done.judged), ("nodeid", item.nodeid)]
    yield


def _skip_reason(report: pytest.TestReport) -> str:
    """The reason of a skipped test's report (pytest keeps (path, line, reason))."""
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return str(reason).removeprefix("Skipped: ")


class RunWatcher:
    """The controller's hooks that see every worker's test reports (registered on the controller
    only): finished items, their records, and the items of workers that died."""

    def __init__(self, config: pytest.Config):
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        progress: RunProgress = self.config._aclnn_progress
        if report.skipped and report.when in ("setup", "call"):
            reason = _skip_reason(report)
            if reason != self.config._aclnn_harness.unavailable:  # else its SKIPPED records say so
                progress.skipped[report.nodeid] = reason
        if report.when == "teardown":
            progress.finished += 1
            props = dict(report.user_properties)
            if int(props.get("records", 0)) and progress.skipped.get(report.nodeid, "").startswith(
                    (NEEDS_PACKAGE, OVER_BUDGET)):
                del progress.skipped[report.nodeid]   # its SKIPPED record names what it needs
            if "records" in props:
                progress.conformance_items += 1
                progress.judged += int(props.get("judged", 0))
                if not int(props["records"]):
                    progress.unrecorded.append(report.nodeid)
        elif report.when not in ("setup", "call"):  # a crashed worker's item (when "???")
            progress.finished += 1
            progress.crashed.append(report.nodeid)

    @pytest.hookimpl(optionalhook=True)  # pytest-xdist: a worker died in the middle of an item
    def pytest_handlecrashitem(self, crashitem: str, report, sched) -> None:
        config = self.config
        h: Harness = config._aclnn_harness
        worker_id = getattr(getattr(getattr(report, "node", None), "gateway", None), "id", "")
        progress: RunProgress = config._aclnn_progress
        progress.conformance_items += 1
        progress.judged += 1
        if h.report_dir is None:
            return
        from aclnn_conformance.reports.run import crash_record
        record = crash_record(h, crashitem, worker_id, config._aclnn_products)
        h.append(record)
        report.longrepr = f"{report.longrepr}\nrecorded CRASH: {record.op} {record.case_id}"


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
    skew = _skew(h.backend)
    if skew:
        lines.append(skew)
    return lines


def _skew(backend) -> str:
    """The skew line when a device-backed backend's CANN is not the spec data's release."""
    environment = getattr(backend, "environment", None)
    if environment is None:
        return ""
    try:
        release = environment().get("cann_version")
    except Exception:  # the backend cannot tell: nothing to compare
        return ""
    from aclnn_conformance.spec.skew import skew_line
    return skew_line(release)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Every test that takes ``product`` runs once per selected product (unless it chooses its own)."""
    own = any("product" in str(m.args[0]).replace(" ", "").split(",")
              for m in metafunc.definition.iter_markers("parametrize") if m.args)
    if "fault_case" in metafunc.fixturenames:   # one-fault cases choose their products (sampling)
        _parametrize_fault_cases(metafunc)
    elif "product" in metafunc.fixturenames and not own:
        metafunc.parametrize("product", metafunc.config._aclnn_products)
    if "table_case" in metafunc.fixturenames:  # the generic suite: every record's table cases
        from aclnn_conformance.spec.registry import operators
        from aclnn_conformance.spec.single_calls import table_cases
        from aclnn_conformance.suites.sampling import keep, selected
        tier = metafunc.config.getoption("--tier")
        cases = [c for op in operators() if selected(op) for c in table_cases(op, tier)
                 if keep(c.op, "table", c.case_id, tier)]
        ids = [f"{c.op}:{c.case_id}" for c in cases]
        _refuse_repeated_ids(ids, "table cases")
        metafunc.parametrize("table_case", cases, ids=ids)


def _refuse_repeated_ids(ids: list[str], what: str) -> None:
    """Records are keyed by (op, case id, product): two calls under one id would leave one record,
    and pytest would silently number the second; every run checks every operator it collects."""
    repeated = sorted(i for i, n in collections.Counter(ids).items() if n > 1)
    if repeated:
        raise pytest.UsageError(f"{what}: case ids used by more than one call: "
                                f"{', '.join(repeated[:10])}")


def _parametrize_fault_cases(metafunc: pytest.Metafunc) -> None:
    """(fault_case, product) pairs: every selected operator's one-fault cases on the products the
    tier runs each on (ids as a product parametrization over the cases would give them)."""
    from aclnn_conformance.spec import OPS
    from aclnn_conformance.spec.faults import fault_cases
    from aclnn_conformance.suites.sampling import fault_products, selected
    config = metafunc.config
    tier, profile = config.getoption("--tier"), config.getoption("--profile")
    pairs = [(case, product) for key in OPS if selected(key)
             for case in fault_cases(OPS[key])
             for product in fault_products(case, config._aclnn_products, profile, tier)]
    ids = [f"{product}-{case.op}:{case.case_id}" for case, product in pairs]
    _refuse_repeated_ids(ids, "one-fault cases")
    metafunc.parametrize("fault_case,product", pairs, ids=ids)


@pytest.fixture(scope="session")
def harness(pytestconfig: pytest.Config) -> Harness:
    return pytestconfig._aclnn_harness


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    h: Harness = config._aclnn_harness
    if h.writer is not None:
        h.writer.close()
    if _is_worker(config) or config.option.collectonly:  # a listing runs nothing, so judges nothing
        return
    progress: RunProgress = config._aclnn_progress
    dsession = config.pluginmanager.getplugin("dsession")
    status, reason = progress.verdict(bool(session.shouldfail or session.shouldstop
                                           or getattr(dsession, "shouldstop", None)))
    if status == EXIT_NOTHING_JUDGED:
        reason += (f": backend {h.backend.name} unavailable ({h.unavailable.split(': ', 1)[-1]})"
                   if h.unavailable else ": every conformance case was skipped")
    if status is not None and int(exitstatus) in (0, 1):
        session.exitstatus = status
        config._aclnn_verdict = f"aclnn-conformance: {reason} (exit status {status})"
    if h.report_dir is None:
        return
    from aclnn_conformance.reports.run import end_pytest_run
    from aclnn_conformance.reports.summary import finish_report_dir
    end_pytest_run(session, int(session.exitstatus), progress)  # run.json: complete, or why not
    shutil.rmtree(h.report_dir / "inflight", ignore_errors=True)
    config._aclnn_summary = finish_report_dir(h.report_dir, min_exercised(config))


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    summary = getattr(config, "_aclnn_summary", None)
    if summary:
        terminalreporter.write_sep("=", "aclnn conformance summary")
        terminalreporter.write_line(summary)
    verdict = getattr(config, "_aclnn_verdict", "")
    if verdict:
        terminalreporter.write_line(verdict, red=True)
