"""The aclnn backend: the real CANN operator libraries, called through ctypes on an Ascend device.

Per case it does what the vendor's example host code does, over the Case's raw call
(backends.call_layer.to_raw_call): for every non-null tensor aclrtMalloc + aclrtMemcpy of its byte
buffer to the device and aclCreateTensor with its view dims, strides, offset, format and storage
dims; the first phase with NULL for null tensors and for the out-pointers the case nulls; the
workspace; the launch on the process's stream; aclrtSynchronizeStream; every buffer copied back to
the host; then the tensors destroyed and the memory freed.

Process state: aclInit runs once per process; the device and its stream are opened at the first
case and closed at exit. The device is ``device_id`` if given, else ACLNN_DEVICE_ID, else the
pytest-xdist worker index (worker gwN drives device N, modulo the device count), else 0.

The device is one product: ``products()`` and ``device_product()`` give the product of its SoC
(aclrtGetSocName, matched by the exact names of soc.py; an unknown SoC makes the backend
unavailable with a reason naming it), and running a case for another product raises ValueError.
Run the suite with ``--product <that id>``.

A failing status carries only the error text its own call added (recent_error.py). After a failed
launch or synchronize the device is reset and a new stream created before the call returns, and
the result's message says so: a kernel fault can leave the context broken, and the cases after it
must not fail for a reason that is not theirs.
"""
from __future__ import annotations

import atexit
import ctypes
import os
import threading
from dataclasses import replace
from ctypes import byref, c_uint32, c_uint64, c_void_p
from typing import Any, Mapping, Sequence

import numpy as np

from aclnn_conformance.backends.aclnn.bindings import (ACL_ERROR_REPEAT_INITIALIZE, ACL_MEM_MALLOC_HUGE_FIRST,
                                     ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE,
                                     ARRAY_KINDS, AclLibraries, LibraryLoadError, MissingSymbol,
                                     OperatorFunctions)
from aclnn_conformance.backends.aclnn.libraries import (OVERRIDE_ENV, LibrarySearch, find_libraries,
                                      toolkit_version)
from aclnn_conformance.backends.aclnn.recent_error import RecentErrors
from aclnn_conformance.spec.soc import UnknownSoc, product_of_soc
from aclnn_conformance.backends.base import ProductUnknown, RunResult, Waiver
from aclnn_conformance.backends.call_layer import (RawCall, RawTensor, read_back, signature, to_raw_call,
                                                    with_scalar_dtypes)
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType

DEVICE_ENV = "ACLNN_DEVICE_ID"
WORKER_ENV = "PYTEST_XDIST_WORKER"
DEVICE_ALIGNMENT = 32          # aclCreateTensor wants 32-byte aligned data; sizes are rounded too
FAULT_PHASES = ("Execute", "Synchronize")   # a failure there may leave the device context broken


class BackendUnavailable(RuntimeError):
    """The libraries or the device cannot be used here (the message is one line)."""


def select_device(option: int | None, env: Mapping[str, str], count: int | None) -> tuple[int, str]:
    """(device id, where it came from): the option, ACLNN_DEVICE_ID, the xdist worker, or 0."""
    if option is not None:
        return int(option), "option"
    text = env.get(DEVICE_ENV, "").strip()
    if text:
        try:
            return int(text), DEVICE_ENV
        except ValueError:
            raise BackendUnavailable(f"{DEVICE_ENV}={text!r} is not an integer") from None
    worker = env.get(WORKER_ENV, "")
    if worker.startswith("gw") and worker[2:].isdigit():
        index = int(worker[2:])
        return (index % count if count else index), f"{WORKER_ENV}={worker}"
    return 0, "default"


class _Runtime:
    """One process's use of one set of loaded libraries: aclInit, one device, one stream."""

    def __init__(self, libs: AclLibraries):
        self.libs = libs
        self.lock = threading.RLock()
        self.owns_init = False
        self.device: int | None = None
        self.stream = c_void_p()
        self.closed = False
        self.unusable = ""          # why the device cannot be used again in this process
        self.errors = RecentErrors(self._read_error_text)
        status = libs.aclInit(None)
        if status not in (0, ACL_ERROR_REPEAT_INITIALIZE):
            raise BackendUnavailable(f"aclInit failed with {status}{self.error_suffix()}")
        self.owns_init = status == 0
        atexit.register(self.close)

    # -- errors --
    def _read_error_text(self) -> str:
        if self.libs.aclGetRecentErrMsg is None:
            return ""
        text = self.libs.aclGetRecentErrMsg()
        return text.decode("utf-8", "replace") if text else ""

    def recent_error(self) -> str:
        """The error text added since this thread last asked, on one line."""
        return self.errors.new()

    def error_suffix(self) -> str:
        msg = self.recent_error()
        return f": {msg}" if msg else ""

    # -- device --
    def device_count(self) -> int | None:
        if self.libs.aclrtGetDeviceCount is None:
            return None
        count = c_uint32(0)
        return int(count.value) if self.libs.aclrtGetDeviceCount(byref(count)) == 0 else None

    def open_device(self, device_id: int) -> None:
        with self.lock:
            if self.unusable:
                raise BackendUnavailable(self.unusable)
            if self.device is not None:
                if self.device != device_id:
                    raise BackendUnavailable(f"this process already drives device {self.device}; "
                                             f"one device per process (asked for {device_id})")
                return
            status = self.libs.aclrtSetDevice(device_id)
            if status != 0:
                raise BackendUnavailable(f"aclrtSetDevice({device_id}) failed with {status}"
                                         f"{self.error_suffix()}")
            stream = c_void_p()
            status = self.libs.aclrtCreateStream(byref(stream))
            if status != 0:
                self.libs.aclrtResetDevice(device_id)
                raise BackendUnavailable(f"aclrtCreateStream failed with {status}{self.error_suffix()}")
            self.device, self.stream = device_id, stream

    def reset_device(self, after: str) -> str:
        """Reset the device and open a new stream; the sentence that says what was done.

        Every runtime of this process on the device (through the same ACL runtime) loses its stream
        and its aclrtSetDevice reference too: the reset is the process's, and without releasing
        all references a plain aclrtResetDevice leaves the broken context in place."""
        with self.lock:
            device = self.device
            if device is None:
                return ""
            holders = [self] + [rt for rt in _runtimes_on(device, self.libs) if rt is not self]
            for rt in holders:
                if rt.stream.value:
                    rt.libs.aclrtDestroyStream(rt.stream)
            force = self.libs.aclrtResetDeviceForce
            how = "aclrtResetDeviceForce" if force is not None else "aclrtResetDevice"
            statuses = [force(device)] if force is not None else [
                rt.libs.aclrtResetDevice(device) for rt in holders]
            status = next((s for s in statuses if s != 0), 0)
            for rt in holders:
                rt.device, rt.stream = None, c_void_p()
            if status != 0:
                reason = (f"device {device} could not be reset after the failed {after}: {how} "
                          f"returned {status}{self.error_suffix()}; no further case runs in this "
                          f"process")
                for rt in holders:
                    rt.unusable = reason
                return reason
            try:
                self.open_device(device)
            except BackendUnavailable as exc:
                return f"device {device} reset after the failed {after}, but reopening it failed: {exc}"
            return (f"device {device} reset ({how}) and a new stream created after the failed "
                    f"{after}, before the next case")

    def soc_name(self) -> str | None:
        name = self.libs.aclrtGetSocName()
        return name.decode("utf-8", "replace") if name else None

    def close(self) -> None:
        with self.lock:
            if self.closed:
                return
            self.closed = True
            if self.device is not None:
                if self.stream.value:
                    self.libs.aclrtDestroyStream(self.stream)
                self.libs.aclrtResetDevice(self.device)
                self.device = None
            if self.owns_init:
                self.libs.aclFinalize()

    # -- memory --
    def malloc(self, nbytes: int) -> int:
        size = max(DEVICE_ALIGNMENT, -(-int(nbytes) // DEVICE_ALIGNMENT) * DEVICE_ALIGNMENT)
        ptr = c_void_p()
        status = self.libs.aclrtMalloc(byref(ptr), size, ACL_MEM_MALLOC_HUGE_FIRST)
        if status != 0 or not ptr.value:
            raise RuntimeError(f"aclrtMalloc({size}) failed with {status}{self.error_suffix()}")
        return ptr.value

    def free(self, ptr: int) -> None:
        self.libs.aclrtFree(ptr)

    def to_device(self, dst: int, buffer: bytearray) -> None:
        if not buffer:
            return
        src = (ctypes.c_char * len(buffer)).from_buffer(buffer)
        status = self.libs.aclrtMemcpy(dst, len(buffer), src, len(buffer), ACL_MEMCPY_HOST_TO_DEVICE)
        if status != 0:
            raise RuntimeError(f"aclrtMemcpy host->device of {len(buffer)} bytes failed with "
                               f"{status}{self.error_suffix()}")

    def to_host(self, buffer: bytearray, src: int) -> int:
        if not buffer:
            return 0
        dst = (ctypes.c_char * len(buffer)).from_buffer(buffer)
        return self.libs.aclrtMemcpy(dst, len(buffer), src, len(buffer), ACL_MEMCPY_DEVICE_TO_HOST)

    def create_tensor(self, t: RawTensor, data: int) -> int:
        def arr(values: Sequence[int]):
            return (ctypes.c_int64 * len(values))(*(int(v) for v in values)) if values else None
        view, storage = arr(t.view_dims), arr(t.storage_dims)
        strides = arr(t.strides)
        handle = self.libs.aclCreateTensor(view, len(t.view_dims), int(t.dtype), strides,
                                           int(t.offset), int(t.format), storage,
                                           len(t.storage_dims), data)
        if not handle:
            raise RuntimeError(f"aclCreateTensor returned NULL for {t.name}{self.error_suffix()}")
        return handle


_RUNTIMES: dict[tuple[str, ...], _Runtime] = {}
_RUNTIMES_LOCK = threading.Lock()


def _runtimes_on(device: int, libs: AclLibraries) -> list[_Runtime]:
    """The open runtimes of this process that drive ``device`` through the same ACL runtime."""
    source = libs.sources.get("aclrtResetDevice")
    with _RUNTIMES_LOCK:
        return [rt for rt in _RUNTIMES.values() if not rt.closed and rt.device == device
                and rt.libs.sources.get("aclrtResetDevice") == source]


def _runtime_for(paths: tuple[str, ...]) -> _Runtime:
    with _RUNTIMES_LOCK:
        rt = _RUNTIMES.get(paths)
        if rt is None or rt.closed:
            try:
                libs = AclLibraries(paths)
            except LibraryLoadError as exc:
                raise BackendUnavailable(" ".join(str(exc).split())) from None
            rt = _RUNTIMES[paths] = _Runtime(libs)
        return rt


OBJECT_KINDS = ("scalar", "int_array", "bool_array", "float_array")   # made, passed, destroyed per call


def _argument_object(libs, name: str, kind: str, value: Any) -> tuple[Any, Any, Any]:
    """(handle, its destructor, the host memory it was made from) for an aclScalar* (``{"dtype",
    "value"}``; call_layer.with_scalar_dtypes gives a bare number its dtype) or an
    aclIntArray*/aclBoolArray*/aclFloatArray* (a list); (None, None, None) for NULL. The memory is
    kept alive until the call has returned."""
    if value is None:
        return None, None, None
    if kind == "scalar":
        create, destroy = libs.aclCreateScalar, libs.aclDestroyScalar
        if create is None or destroy is None:
            raise MissingSymbol(f"parameter {name} is an aclScalar*, and aclCreateScalar/aclDestroyScalar "
                                f"are not exported by any loaded library")
        dtype = AclDataType[value["dtype"]] if isinstance(value["dtype"], str) else AclDataType(value["dtype"])
        element = np.array([value["value"]]).astype(numpy_dtype(dtype))
        memory = ctypes.create_string_buffer(element.tobytes(), max(element.nbytes, 1))
        handle = create(ctypes.cast(memory, c_void_p), int(dtype))
    else:
        create_name, destroy_name, ctype = ARRAY_KINDS[kind]
        create, destroy = getattr(libs, create_name), getattr(libs, destroy_name)
        if create is None or destroy is None:
            raise MissingSymbol(f"parameter {name} is a {kind}, and {create_name}/{destroy_name} are not "
                                f"exported by any loaded library")
        items = list(value)
        memory = (ctype * max(len(items), 1))(*items)
        handle = create(memory, len(items))
    if not handle:
        raise RuntimeError(f"creating the {kind} argument {name} from {value!r} returned NULL")
    return handle, destroy, memory


def _scalar(name: str, kind: str, value: Any) -> Any:
    if kind == "string":
        if value is None:
            return None
        return value if isinstance(value, bytes) else str(value).encode()
    if value is None:
        raise ValueError(f"parameter {name} ({kind}) has no value and cannot be passed as NULL")
    if kind in ("double", "float"):
        return float(value)       # ctypes rounds a "float" argument to C float
    if kind == "bool":
        return bool(value)
    if kind == "int64":
        return int(value)
    if kind == "bool":
        return bool(value)
    if kind == "dtype":
        return int(AclDataType[value]) if isinstance(value, str) else int(value)
    raise ValueError(f"unknown parameter kind {kind!r} for {name}")


class AclnnBackend:
    """The vendor's aclnn operators on the local Ascend device."""

    name = "aclnn"
    waivers: tuple[Waiver, ...] = ()

    def __init__(self, device_id: int | None = None, libraries: Sequence[str] | str | None = None):
        """``libraries``: library files or directories, with the meaning of ACLNN_LIBRARIES (which
        it overrides); ``device_id``: overrides ACLNN_DEVICE_ID and the xdist worker index."""
        self.device_id = device_id
        if isinstance(libraries, str):
            libraries = [p for p in libraries.split(os.pathsep) if p]
        self.libraries = tuple(str(p) for p in libraries) if libraries else None
        self._version: str | None = None

    # ---- discovery ----
    def search(self) -> LibrarySearch:
        env = dict(os.environ)
        if self.libraries is not None:
            env[OVERRIDE_ENV] = os.pathsep.join(self.libraries)
        return find_libraries(env)

    def _runtime(self) -> _Runtime:
        found = self.search()
        if not found.ok:
            raise BackendUnavailable(found.reason())
        return _runtime_for(found.libraries)

    def _device_runtime(self) -> tuple[_Runtime, int]:
        rt = self._runtime()
        device, _ = select_device(self.device_id, os.environ, rt.device_count())
        rt.open_device(device)
        return rt, device

    def _soc_name(self, rt: _Runtime) -> str | None:
        name = rt.soc_name()
        if name is None and rt.device is None:        # some runtimes answer only with a device set
            self._device_runtime()
            name = rt.soc_name()
        return name

    # ---- the contract ----
    @property
    def version(self) -> str:
        if self._version is None:
            self._version = toolkit_version(self.search().toolkit_roots) or "unknown"
        return self._version

    def available(self) -> tuple[bool, str]:
        try:
            rt = self._runtime()
            count = rt.device_count()
            device, source = select_device(self.device_id, os.environ, count)
            if count is not None and not 0 <= device < count:
                return False, (f"device {device} (from {source}) does not exist: "
                               f"{count} device(s) visible")
            self._product_of(rt)
        except (BackendUnavailable, UnknownSoc) as exc:
            return False, str(exc)
        return True, ""

    def _product_of(self, rt: _Runtime) -> str:
        soc = self._soc_name(rt)
        if not soc:
            raise BackendUnavailable("aclrtGetSocName returned NULL: the device's SoC is unknown")
        return product_of_soc(soc)

    def device_product(self) -> str | None:
        """The product id of the device's SoC; None when no device can be reached here. An SoC
        that belongs to no known product line raises UnknownSoc (a one-line ValueError)."""
        try:
            return self._product_of(self._runtime())
        except BackendUnavailable:
            return None

    def bound_product(self) -> str:
        """The contract's hook: the device is the product under test."""
        try:
            product = self.device_product()
        except UnknownSoc as exc:
            raise ProductUnknown(str(exc)) from None
        if product is None:
            raise ProductUnknown(f"no device can be reached to tell its product ({self.available()[1]})")
        return product

    def products(self) -> tuple[str, ...]:
        try:
            product = self.device_product()
        except UnknownSoc:
            return ()
        return (product,) if product else ()

    def environment(self) -> dict[str, Any]:
        """What is known about the toolkit and device: cann_version, soc_name, product, device_id,
        libraries (the keys that could not be determined are left out)."""
        found = self.search()
        info: dict[str, Any] = {}
        version = toolkit_version(found.toolkit_roots)
        if version:
            info["cann_version"] = version
        if not found.ok:
            return info
        info["libraries"] = list(found.libraries)
        try:
            rt = self._runtime()
            soc = self._soc_name(rt)
            device, _ = select_device(self.device_id, os.environ, rt.device_count())
        except BackendUnavailable:
            return info
        if soc:
            info["soc_name"] = soc
            try:
                info["product"] = product_of_soc(soc)
            except UnknownSoc:
                pass
        info["device_id"] = device
        return info

    def run(self, case: Case, product: str) -> RunResult:
        rt, _ = self._device_runtime()
        soc = rt.soc_name()
        device_product = self._product_of(rt)
        if product != device_product:
            raise ValueError(f"device is {soc} ({device_product}), not {product}: "
                             f"run with --product {device_product}")
        raw = with_scalar_dtypes(to_raw_call(case))
        kinds = [kind for _, kind in signature(case.op)[1]]
        ops = rt.libs.operator(raw.api, kinds)
        with rt.lock:
            result = self._call(rt, ops, raw, case)
            if result.status != 0 and result.phase in FAULT_PHASES:
                note = rt.reset_device(result.phase)
                result = replace(result, message=f"{result.message}; {note}" if result.message
                                 else note)
        return result

    # ---- one call ----
    def _call(self, rt: _Runtime, ops: OperatorFunctions, raw: RawCall, case: Case) -> RunResult:
        rt.recent_error()            # mark what the text holds now: the call's message is what it adds
        device_buffers: dict[str, int] = {}
        handles: dict[str, int] = {}
        objects: list[tuple[Any, Any, Any]] = []     # aclScalar*/aclIntArray*...: destroyed after
        workspace: int | None = None
        try:
            args = []
            for name, kind, value in raw.params:
                if kind in OBJECT_KINDS:
                    made = _argument_object(rt.libs, name, kind, value)
                    if made[0] is not None:
                        objects.append(made)
                    args.append(made[0])
                    continue
                if kind != "tensor":
                    args.append(_scalar(name, kind, value))
                    continue
                if value is None:
                    args.append(None)
                    continue
                device_buffers[name] = rt.malloc(len(value.buffer))
                rt.to_device(device_buffers[name], value.buffer)
                handles[name] = rt.create_tensor(value, device_buffers[name])
                args.append(handles[name])

            size, executor = c_uint64(0), c_void_p()
            status = ops.get_workspace_size(
                *args, None if raw.null_workspace_size else byref(size),
                None if raw.null_executor else byref(executor))
            phase, message = "GetWorkspaceSize", ""
            workspace_size = None if raw.null_workspace_size else int(size.value)
            if status != 0:
                message = rt.recent_error()
            elif raw.null_workspace_size or raw.null_executor:
                # the first phase accepted a NULL out-pointer: there is nothing sound to launch
                if executor.value and rt.libs.aclDestroyAclOpExecutor is not None:
                    rt.libs.aclDestroyAclOpExecutor(executor)
            else:
                if size.value:
                    workspace = rt.malloc(size.value)
                status, phase = ops.launch(workspace, size.value, executor, rt.stream), "Execute"
                if status == 0:
                    sync = rt.libs.aclrtSynchronizeStream(rt.stream)
                    if sync != 0:
                        status, phase = sync, "Synchronize"
                if status != 0:
                    message = rt.recent_error()

            for name, ptr in device_buffers.items():
                tensor = raw.tensors()[name]
                copied = rt.to_host(tensor.buffer, ptr)
                if copied != 0:
                    detail = (f"aclrtMemcpy device->host of {name} failed with {copied}"
                              f"{rt.error_suffix()}")
                    if status == 0:
                        raise RuntimeError(detail)
                    message = f"{message}; {detail}" if message else detail
            return RunResult(int(status), read_back(raw), workspace_size=workspace_size,
                             phase=phase, message=message)
        finally:
            for handle, destroy, _ in objects:
                destroy(handle)
            for handle in handles.values():
                rt.libs.aclDestroyTensor(handle)
            for ptr in device_buffers.values():
                rt.free(ptr)
            if workspace is not None:
                rt.free(workspace)
