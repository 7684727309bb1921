"""Running a backend in a child process, so that a crash or a hang becomes a recorded outcome.

``isolated_executor(timeout)`` returns the callable the harness uses in place of ``backend.run``
(``--case-timeout``). Each backend gets one persistent worker process (multiprocessing, "spawn"
context): the case goes to it by pickle, the RunResult comes back the same way. If the worker dies
the call raises BackendCrash (with its exit code or signal); if it does not answer within
``timeout`` seconds it is killed and the call raises BackendTimeout. Either way the next call
starts a fresh worker, so one bad case does not end the run.

The backend reaches the worker as a pickle of the object when it pickles, otherwise by the import
path of its class (``module:Class``, constructed without arguments). An exception raised by the
backend itself comes back as BackendWorkerError carrying the worker's traceback (the harness records
HARNESS_ERROR), or as BackendCrash/BackendTimeout/OperatorNotImplemented when the backend raised those.
"""
from __future__ import annotations

import atexit
import multiprocessing
import pickle
import signal
import threading
import traceback
import weakref
from typing import Any, Callable

from aclnn_conformance.backends.base import (Backend, BackendCrash, BackendTimeout, OperatorNotImplemented,
                                             RunResult)
from aclnn_conformance.spec.case import Case

START_TIMEOUT = 120.0      # seconds a new worker may take to import and build its backend
STOP_TIMEOUT = 5.0
CONTEXT = "spawn"


class BackendWorkerError(RuntimeError):
    """The backend raised an exception inside the worker (the text carries its traceback)."""


# The longest timeout a worker's wait can take (a week): beyond it the wait overflows the clock.
MAX_TIMEOUT = 7 * 24 * 3600.0


def timeout_problem(seconds: float) -> str:
    """Why ``seconds`` cannot be a case timeout ("" when it can): it must be a finite positive
    number no larger than MAX_TIMEOUT."""
    if not seconds > 0:
        return f"must be a positive number of seconds, not {seconds:g}"
    if not seconds <= MAX_TIMEOUT:
        return f"must be at most {MAX_TIMEOUT:g} seconds (a week), not {seconds:g}"
    return ""


def isolated_executor(timeout: float, *, start_timeout: float = START_TIMEOUT,
                      context: str = CONTEXT) -> Callable[[Backend, Case, str], RunResult]:
    """A ``(backend, case, product) -> RunResult`` that runs ``backend.run`` in a worker process
    and gives up after ``timeout`` seconds."""
    problem = timeout_problem(float(timeout or 0))
    if problem:
        raise ValueError(f"the case timeout {problem}")
    return IsolatedExecutor(float(timeout), start_timeout=start_timeout, context=context)


def backend_reference(backend: Backend) -> tuple[str, Any]:
    """How a worker rebuilds ``backend``: ("pickle", bytes) or ("class", "module:QualName")."""
    try:
        return "pickle", pickle.dumps(backend)
    except Exception:  # an unpicklable attribute (a library handle, a lock...)
        cls = type(backend)
        return "class", f"{cls.__module__}:{cls.__qualname__}"


def _load_backend(ref: tuple[str, Any]) -> Backend:
    kind, value = ref
    if kind == "pickle":
        return pickle.loads(value)
    from aclnn_conformance.backends.registry import _import
    return _import(value)()


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "the backend's worker process died (exit status unknown)"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"the backend's worker process was killed by {name} (exit code {code})"
    return f"the backend's worker process exited with status {code}"


def _worker_main(conn, ref) -> None:
    """The worker: build the backend, then answer (case, product) requests until told to stop."""
    try:
        backend = _load_backend(ref)
    except BaseException:
        conn.send(("load_error", traceback.format_exc()))
        return
    conn.send(("ready", getattr(backend, "name", "")))
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if request is None:
            return
        case, product = request
        try:
            reply = ("ok", backend.run(case, product))
        except BackendCrash as exc:
            reply = ("crash", str(exc))
        except BackendTimeout as exc:
            reply = ("timeout", str(exc))
        except OperatorNotImplemented as exc:
            reply = ("not-implemented", str(exc))
        except BaseException as exc:
            reply = ("error", f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}")
        try:
            conn.send(reply)
        except Exception as exc:  # a result that does not pickle
            conn.send(("error", f"the backend's result could not be sent back: {exc!r}"))


class _Worker:
    """One persistent worker process for one backend."""

    def __init__(self, ref: tuple[str, Any], ctx, start_timeout: float):
        self.ref = ref
        self.ctx = ctx
        self.start_timeout = start_timeout
        self.proc = None
        self.conn = None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.is_alive()

    def start(self) -> None:
        parent, child = self.ctx.Pipe(duplex=True)
        proc = self.ctx.Process(target=_worker_main, args=(child, self.ref), daemon=True,
                                name="aclnn-backend-worker")
        proc.start()
        child.close()          # only the worker holds its end: its death reads as EOF here
        self.proc, self.conn = proc, parent
        if not parent.poll(self.start_timeout):
            self.stop(kill=True)
            raise RuntimeError(f"the backend worker did not start within {self.start_timeout:g} s")
        try:
            kind, payload = parent.recv()
        except (EOFError, OSError):
            code = self._reap()
            raise RuntimeError("the backend worker died while starting: "
                               + _describe_exit(code)) from None
        if kind != "ready":
            self.stop(kill=True)
            raise RuntimeError(f"the backend worker could not build the backend:\n{payload}")

    def _reap(self) -> int | None:
        proc = self.proc
        if proc is not None:
            proc.join(STOP_TIMEOUT)
            if proc.is_alive():
                proc.kill()
                proc.join(STOP_TIMEOUT)
        code = proc.exitcode if proc is not None else None
        self._forget()
        return code

    def _forget(self) -> None:
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:
                pass
        self.proc, self.conn = None, None

    def stop(self, kill: bool = False) -> None:
        proc = self.proc
        if proc is None:
            return
        if not kill and proc.is_alive():
            try:
                self.conn.send(None)
            except (OSError, ValueError):
                pass
            proc.join(STOP_TIMEOUT)
        if proc.is_alive():
            proc.kill()
            proc.join(STOP_TIMEOUT)
        self._forget()

    def run(self, case: Case, product: str, timeout: float) -> RunResult:
        if not self.alive():
            if self.proc is not None:
                self._reap()
            self.start()
        try:
            self.conn.send((case, product))
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            raise BackendCrash(_describe_exit(self._reap())) from None
        if not self.conn.poll(timeout):
            self.stop(kill=True)
            raise BackendTimeout(f"no result within {timeout:g} s; the backend's worker process "
                                 f"was killed")
        try:
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            raise BackendCrash(_describe_exit(self._reap())) from None
        if kind == "ok":
            return payload
        if kind == "crash":
            raise BackendCrash(payload)
        if kind == "timeout":
            raise BackendTimeout(payload)
        if kind == "not-implemented":
            raise OperatorNotImplemented(payload)
        raise BackendWorkerError(f"the backend raised in its worker process: {payload}")


class IsolatedExecutor:
    """The harness's executor: one persistent worker per backend object."""

    def __init__(self, timeout: float, *, start_timeout: float = START_TIMEOUT,
                 context: str = CONTEXT):
        self.timeout = timeout
        self.start_timeout = start_timeout
        self.ctx = multiprocessing.get_context(context)
        self._workers: dict[int, tuple[Backend, _Worker]] = {}
        weakref.finalize(self, IsolatedExecutor._stop_all, self._workers)
        atexit.register(IsolatedExecutor._stop_all, self._workers)

    def worker(self, backend: Backend) -> _Worker:
        entry = self._workers.get(id(backend))
        if entry is None or entry[0] is not backend:
            entry = (backend, _Worker(backend_reference(backend), self.ctx, self.start_timeout))
            self._workers[id(backend)] = entry
        return entry[1]

    def __call__(self, backend: Backend, case: Case, product: str) -> RunResult:
        return self.worker(backend).run(case, product, self.timeout)

    def close(self) -> None:
        IsolatedExecutor._stop_all(self._workers)

    @staticmethod
    def _stop_all(workers: dict) -> None:
        for _, worker in list(workers.values()):
            worker.stop()
        workers.clear()


def in_process_executor(timeout: float) -> Callable[[Backend, Case, str], RunResult]:
    """``backend.run`` in this process with a time limit: past ``timeout`` seconds an alarm raises
    BackendTimeout inside the backend's Python code (a hang in native code that never returns to
    the interpreter is out of its reach: isolation covers that). Where no alarm can be set (off
    the main thread, or a platform without SIGALRM) the call runs without one."""
    def execute(backend: Backend, case: Case, product: str) -> RunResult:
        if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
            return backend.run(case, product)

        def expire(signum, frame):
            raise BackendTimeout(f"backend {backend.name} did not return within {timeout:g} s, the "
                                 f"default limit of a case run in process (--case-timeout sets "
                                 f"another and isolates the backend)")
        previous = signal.signal(signal.SIGALRM, expire)
        signal.setitimer(signal.ITIMER_REAL, timeout)
        try:
            return backend.run(case, product)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return execute
