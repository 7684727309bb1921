"""The device check for the aclnn backend: ``aclnn-conformance doctor`` (or
``python -m aclnn_conformance.backends.aclnn.doctor``).

It prints one line per fact, ``<what> <state> <detail>``, in the order the backend needs them: the
toolkit version, the libraries found, the runtime symbols, the device, its SoC and product, then for
each operator the symbols it needs and one tiny valid call (its record's base call) whose status is compared
with what the spec expects on that product. States: ``ok``; ``MISSING`` (something the backend needs
is not there); ``FAIL`` (it is there but does not work); ``WARN`` (works, with a caveat); ``-`` (not
checked because an earlier line failed). The exit status is 0 only when no line is MISSING or FAIL.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass
from typing import Iterator, Sequence

from aclnn_conformance.backends.aclnn.backend import (AclnnBackend, BackendUnavailable,
                                                      _runtime_for, select_device)
from aclnn_conformance.backends.aclnn.bindings import OPTIONAL_SYMBOLS, REQUIRED_SYMBOLS
from aclnn_conformance.backends.aclnn.libraries import toolkit_version
from aclnn_conformance.spec.soc import UnknownSoc, product_of_soc
from aclnn_conformance.backends.call_layer import signature
from aclnn_conformance.backends.isolation import isolated_executor
from aclnn_conformance.spec.registry import operator, operators
from aclnn_conformance.spec.enums import status_name
from aclnn_conformance.spec.products import product as product_record
from aclnn_conformance.spec.rules import expected_outcome

OK, MISSING, FAIL, WARN, SKIP = "ok", "MISSING", "FAIL", "WARN", "-"
LABEL_WIDTH = 34
CALL_TIMEOUT = 60.0


@dataclass(frozen=True)
class Line:
    what: str
    state: str
    detail: str

    def __str__(self) -> str:
        return f"{self.what:<{LABEL_WIDTH}} {self.state:<8} {self.detail}"


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _operator_lines(op: str, rt, product: str | None, why_not: str, run_call) -> Iterator[Line]:
    api = signature(op)[0]
    needed = (api + "GetWorkspaceSize", api)
    if rt is None:
        yield Line(f"{op} symbols", SKIP, f"needs {', '.join(needed)}; not checked: {why_not}")
        yield Line(f"{op} call", SKIP, f"not run: {why_not}")
        return
    places = {name: rt.libs.where(name) for name in needed}
    absent = [name for name, where in places.items() if where is None]
    if absent:
        yield Line(f"{op} symbols", MISSING, f"{', '.join(absent)} exported by no loaded library: "
                   f"this toolkit does not ship the operator")
        yield Line(f"{op} call", SKIP, "not run: its symbols are missing")
        return
    yield Line(f"{op} symbols", OK, "; ".join(f"{name} in {os.path.basename(where)}"
                                              for name, where in places.items()))
    if product is None:
        yield Line(f"{op} call", SKIP, f"not run: {why_not}")
        return
    record = operator(op)
    if not record.has("base_call"):
        yield Line(f"{op} call", WARN, f"not run: it declares no base call "
                   f"({record.absent_reason('base_call')})")
        return
    case = record.piece("base_call")().with_(case_id="doctor-tiny", origin="doctor")
    start = time.perf_counter()
    try:
        result = run_call(case, product)
    except Exception as exc:  # any failure of the call is reported, never raised
        yield Line(f"{op} call", FAIL, f"{type(exc).__name__}: {_one_line(exc)}")
        return
    elapsed = (time.perf_counter() - start) * 1e3
    yield _judge_call(op, case, product, result, elapsed)


def _judge_call(op: str, case, product: str, result, elapsed_ms: float) -> Line:
    got = f"{status_name(result.status)} in {result.phase}"
    asked = result.workspace_size is not None and result.phase != "GetWorkspaceSize"
    timing = f"{elapsed_ms:.1f} ms" + (f", workspace {result.workspace_size} bytes" if asked else "")
    said = f"; its message: {result.message}" if result.message else ""
    spec = operators()[op].spec if op in operators() else None
    if spec is None:
        state = OK if result.status == 0 else FAIL
        return Line(f"{op} call", state, f"{got} ({timing}); no spec to compare with{said}")
    expected = expected_outcome(spec, case, product, "cann")
    if expected.kind == "success":
        agrees = result.status == 0
    elif expected.kind in ("error", "not_supported"):
        agrees = result.status != 0 and expected.status in (None, result.status)
    else:
        agrees = True
    verdict = "as" if agrees else "but"
    return Line(f"{op} call", OK if agrees else FAIL,
                f"{got} ({timing}), {verdict} the spec expects {expected.describe()} on {product}"
                f"{said}")


def check(device_id: int | None = None, libraries: Sequence[str] | None = None,
          ops: Sequence[str] | None = None, timeout: float | None = CALL_TIMEOUT) -> Iterator[Line]:
    """The doctor's lines, one at a time (so that a crash still leaves the earlier ones printed)."""
    backend = AclnnBackend(device_id=device_id, libraries=libraries)
    ops = list(ops) if ops else list(operators())
    found = backend.search()
    version = toolkit_version(found.toolkit_roots)
    if version:
        yield Line("toolkit version", OK, version)
    else:
        where = (f"no version.cfg/version.info under {', '.join(found.toolkit_roots)}"
                 if found.toolkit_roots else "no toolkit directory found")
        yield Line("toolkit version", WARN if found.ok else MISSING, f"unknown: {where}")
    if not found.ok:
        yield Line("libraries", MISSING, found.reason())
    else:
        origin = "from ACLNN_LIBRARIES" if found.override else "from the CANN environment"
        yield Line("libraries", OK, f"{len(found.libraries)} {origin}: " + ", ".join(found.libraries))

    rt, product, why_not = None, None, "the CANN libraries were not found"
    if found.ok:
        try:
            rt = _runtime_for(found.libraries)
        except BackendUnavailable as exc:
            why_not = "the runtime could not be loaded or initialised"
            yield Line("runtime symbols", FAIL, _one_line(exc))
        else:
            absent = [name for name in OPTIONAL_SYMBOLS if getattr(rt.libs, name) is None]
            yield Line("runtime symbols", OK,
                       f"{len(REQUIRED_SYMBOLS)} required found, aclInit succeeded"
                       + (f"; optional absent: {', '.join(absent)}" if absent else ""))
    if not found.ok:
        yield Line("runtime symbols", SKIP, f"not checked: {why_not}")
    if rt is None:
        for label in ("device", "SoC", "product"):
            yield Line(label, SKIP, f"not checked: {why_not}")
    else:
        product, why_not, lines = _device_lines(backend, rt)
        yield from lines
    run_call, close = _runner(backend, timeout)
    try:
        for op in ops:
            if op not in operators():
                yield Line(f"{op} symbols", FAIL, f"unknown operator; known: {', '.join(operators())}")
                continue
            yield from _operator_lines(op, rt, product, why_not, run_call)
    finally:
        close()


def _device_lines(backend: AclnnBackend, rt) -> tuple[str | None, str, list[Line]]:
    lines = []
    try:
        count = rt.device_count()
        device, source = select_device(backend.device_id, os.environ, count)
        if count is not None and not 0 <= device < count:
            raise BackendUnavailable(f"device {device} (from {source}) does not exist: "
                                     f"{count} device(s) visible")
        rt.open_device(device)
    except BackendUnavailable as exc:
        lines.append(Line("device", FAIL, _one_line(exc)))
        lines += [Line(label, SKIP, "not checked: no device") for label in ("SoC", "product")]
        return None, "no device", lines
    visible = "an unknown number of" if count is None else str(count)
    lines.append(Line("device", OK, f"device {device} ({source}) of {visible} visible; "
                                    f"aclrtSetDevice and aclrtCreateStream succeeded"))
    soc = rt.soc_name()
    if not soc:
        lines.append(Line("SoC", FAIL, "aclrtGetSocName returned NULL"))
        lines.append(Line("product", SKIP, "not checked: no SoC name"))
        return None, "the SoC is unknown", lines
    lines.append(Line("SoC", OK, soc))
    try:
        product = product_of_soc(soc)
    except UnknownSoc as exc:
        lines.append(Line("product", FAIL, _one_line(exc)))
        return None, "the SoC belongs to no known product", lines
    lines.append(Line("product", OK, f"{product} ({product_record(product).name})"))
    return product, "", lines


def _runner(backend: AclnnBackend, timeout: float | None):
    """(make a tiny call, release what it used): in an isolated worker process, so that a crash or
    a hang becomes a line, unless ``timeout`` is None."""
    if timeout is None:
        return backend.run, lambda: None
    executor = isolated_executor(timeout)
    return (lambda case, product: executor(backend, case, product)), executor.close


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="aclnn-conformance doctor",
        description="Check that the aclnn backend can reach the CANN libraries and the device, "
                    "and make one tiny valid call per operator.")
    parser.add_argument("--device", type=int, default=None,
                        help="device id (default: ACLNN_DEVICE_ID, else 0)")
    parser.add_argument("--libraries", default=None,
                        help="library files or directories, colon-separated (as ACLNN_LIBRARIES)")
    parser.add_argument("--op", action="append", default=None, metavar="OPERATOR",
                        help="check only this operator (repeatable); `aclnn-conformance list operators` names them")
    parser.add_argument("--timeout", type=float, default=CALL_TIMEOUT,
                        help="seconds each tiny call may take, in its own worker process "
                             f"(default {CALL_TIMEOUT:g})")
    parser.add_argument("--in-process", action="store_true",
                        help="make the tiny calls in this process (no worker, no timeout)")
    return parser.parse_args(list(argv))


EXIT_USAGE = 2   # argparse's own status for a bad option


def main(argv: list[str]) -> int:
    """Print the check; 0 when the backend is wired, 1 otherwise, 2 a bad option."""
    from aclnn_conformance.backends.isolation import timeout_problem
    args = parse_args(argv)
    problem = "" if args.in_process else timeout_problem(args.timeout)
    if problem:
        print(f"error: --timeout {problem}", file=sys.stderr)
        return EXIT_USAGE
    libraries = [p for p in args.libraries.split(os.pathsep) if p] if args.libraries else None
    failed, product = False, None
    for line in check(args.device, libraries, args.op, None if args.in_process else args.timeout):
        print(line, flush=True)
        if line.what == "product" and line.state == OK:
            product = line.detail.split()[0]
        failed = failed or line.state in (MISSING, FAIL)
    if not failed:
        print(Line("verdict", OK, f"the aclnn backend is wired: run pytest suites --backend aclnn "
                                  f"--product {product}"))
        return 0
    print(Line("verdict", FAIL, "the aclnn backend is not usable here: see the MISSING and FAIL "
                                "lines above"))
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
