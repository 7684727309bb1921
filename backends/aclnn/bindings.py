"""ctypes bindings of the public ACL / aclnn C API that the aclnn backend calls.

Prototypes (from the ACL runtime headers acl.h / acl_rt.h, opbase's aclCreateTensor and the
operators' documented two-phase functions):

    aclError aclInit(const char *configPath);
    aclError aclFinalize(void);
    aclError aclrtSetDevice(int32_t deviceId);
    aclError aclrtResetDevice(int32_t deviceId);
    aclError aclrtResetDeviceForce(int32_t deviceId);                       (newer toolkits)
    aclError aclrtGetDeviceCount(uint32_t *count);
    aclError aclrtCreateStream(aclrtStream *stream);
    aclError aclrtDestroyStream(aclrtStream stream);
    aclError aclrtSynchronizeStream(aclrtStream stream);
    aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy);
    aclError aclrtFree(void *devPtr);
    aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                         aclrtMemcpyKind kind);
    const char *aclrtGetSocName(void);
    const char *aclGetRecentErrMsg(void);
    aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                               const int64_t *stride, int64_t offset, aclFormat format,
                               const int64_t *storageDims, uint64_t storageDimsNum,
                               void *tensorData);
    aclnnStatus aclDestroyTensor(const aclTensor *tensor);
    aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor);          (newer toolkits)
    aclnnStatus aclnnXxxGetWorkspaceSize(<operator parameters>, uint64_t *workspaceSize,
                                         aclOpExecutor **executor);
    aclnnStatus aclnnXxx(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                         aclrtStream stream);

aclError and aclnnStatus are 32-bit ints; aclDataType, aclFormat, aclrtMemMallocPolicy and
aclrtMemcpyKind are C enums (int). Each symbol is taken from the first loaded library that exports
it, so it does not matter which of libascendcl / libnnopbase / libopapi* holds it.
"""
from __future__ import annotations

import ctypes
from ctypes import (POINTER, c_bool, c_char_p, c_double, c_float, c_int, c_int32, c_int64, c_size_t, c_uint32,
                    c_uint64, c_void_p)
from dataclasses import dataclass
from typing import Callable, Sequence

ACL_SUCCESS = 0
ACL_ERROR_REPEAT_INITIALIZE = 100002
ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2

_I64P = POINTER(c_int64)

# name: (restype, argtypes)
REQUIRED_SYMBOLS: dict[str, tuple[object, tuple]] = {
    "aclInit": (c_int, (c_char_p,)),
    "aclFinalize": (c_int, ()),
    "aclrtSetDevice": (c_int, (c_int32,)),
    "aclrtResetDevice": (c_int, (c_int32,)),
    "aclrtCreateStream": (c_int, (POINTER(c_void_p),)),
    "aclrtDestroyStream": (c_int, (c_void_p,)),
    "aclrtSynchronizeStream": (c_int, (c_void_p,)),
    "aclrtMalloc": (c_int, (POINTER(c_void_p), c_size_t, c_int)),
    "aclrtFree": (c_int, (c_void_p,)),
    "aclrtMemcpy": (c_int, (c_void_p, c_size_t, c_void_p, c_size_t, c_int)),
    "aclrtGetSocName": (c_char_p, ()),
    "aclCreateTensor": (c_void_p, (_I64P, c_uint64, c_int, _I64P, c_int64, c_int, _I64P, c_uint64,
                                   c_void_p)),
    "aclDestroyTensor": (c_int, (c_void_p,)),
}
OPTIONAL_SYMBOLS: dict[str, tuple[object, tuple]] = {
    "aclGetRecentErrMsg": (c_char_p, ()),
    "aclrtGetDeviceCount": (c_int, (POINTER(c_uint32),)),
    "aclDestroyAclOpExecutor": (c_int, (c_void_p,)),
    "aclrtResetDeviceForce": (c_int, (c_int32,)),
    # the argument objects of the other parameter kinds (nnopbase), needed by the APIs that take them
    "aclCreateScalar": (c_void_p, (c_void_p, c_int)),
    "aclDestroyScalar": (c_int, (c_void_p,)),
    "aclCreateIntArray": (c_void_p, (_I64P, c_uint64)),
    "aclDestroyIntArray": (c_int, (c_void_p,)),
    "aclCreateBoolArray": (c_void_p, (POINTER(c_bool), c_uint64)),
    "aclDestroyBoolArray": (c_int, (c_void_p,)),
    "aclCreateFloatArray": (c_void_p, (POINTER(c_float), c_uint64)),
    "aclDestroyFloatArray": (c_int, (c_void_p,)),
}

# How each parameter kind (spec.params C_KINDS, backends.call_layer.signature) crosses the C boundary.
KIND_CTYPES = {"tensor": c_void_p, "scalar": c_void_p, "int_array": c_void_p, "bool_array": c_void_p,
               "float_array": c_void_p, "double": c_double, "float": c_float, "int64": c_int64,
               "bool": c_bool, "string": c_char_p, "dtype": c_int}
# kind -> (constructor, destructor, element ctype) of the objects made for the array kinds
ARRAY_KINDS = {"int_array": ("aclCreateIntArray", "aclDestroyIntArray", c_int64),
               "bool_array": ("aclCreateBoolArray", "aclDestroyBoolArray", c_bool),
               "float_array": ("aclCreateFloatArray", "aclDestroyFloatArray", c_float)}


class LibraryLoadError(RuntimeError):
    """A library could not be loaded, or a required runtime symbol is missing."""


class MissingSymbol(RuntimeError):
    """An operator's aclnn functions are not exported by any loaded library."""


@dataclass(frozen=True)
class OperatorFunctions:
    api: str
    get_workspace_size: Callable[..., int]
    launch: Callable[..., int]
    sources: tuple[str, str]          # the library each came from


class AclLibraries:
    """The loaded libraries and the functions resolved from them."""

    def __init__(self, paths: Sequence[str]):
        self.paths = tuple(paths)
        self._handles: list[tuple[str, ctypes.CDLL]] = []
        for path in self.paths:
            try:
                # global, so that libraries loaded later resolve their references to earlier ones
                self._handles.append((path, ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)))
            except OSError as exc:
                raise LibraryLoadError(f"cannot load {path}: {exc}") from None
        self.sources: dict[str, str] = {}
        missing = []
        for name, (restype, argtypes) in REQUIRED_SYMBOLS.items():
            fn = self._bind(name, restype, argtypes)
            if fn is None:
                missing.append(name)
            setattr(self, name, fn)
        if missing:
            raise LibraryLoadError(f"{', '.join(missing)} not exported by any of "
                                   f"{', '.join(self.paths)}")
        for name, (restype, argtypes) in OPTIONAL_SYMBOLS.items():
            setattr(self, name, self._bind(name, restype, argtypes))
        self._operators: dict[str, OperatorFunctions] = {}

    def _find(self, name: str) -> tuple[str, ctypes._CFuncPtr] | None:
        for path, handle in self._handles:
            try:
                return path, handle[name]    # a fresh function object, not the handle's cached one
            except AttributeError:
                continue
        return None

    def _bind(self, name: str, restype, argtypes) -> Callable | None:
        found = self._find(name)
        if found is None:
            return None
        path, fn = found
        fn.restype = restype
        fn.argtypes = argtypes
        self.sources[name] = path
        return fn

    def has(self, name: str) -> bool:
        return self._find(name) is not None

    def where(self, name: str) -> str | None:
        """The library that exports ``name`` (the first in load order), or None."""
        found = self._find(name)
        return None if found is None else found[0]

    def operator(self, api: str, kinds: Sequence[str]) -> OperatorFunctions:
        """The two phases of ``api`` for a first phase taking parameters of ``kinds``."""
        cached = self._operators.get(api)
        if cached is not None:
            return cached
        first_name = api + "GetWorkspaceSize"
        first = self._bind(first_name, c_int, tuple(KIND_CTYPES[k] for k in kinds)
                           + (POINTER(c_uint64), POINTER(c_void_p)))
        launch = self._bind(api, c_int, (c_void_p, c_uint64, c_void_p, c_void_p))
        if first is None or launch is None:
            absent = [n for n, f in ((first_name, first), (api, launch)) if f is None]
            raise MissingSymbol(f"{' and '.join(absent)} not exported by any loaded library "
                                f"({', '.join(self.paths)}): this toolkit does not ship the operator")
        ops = OperatorFunctions(api, first, launch, (self.sources[first_name], self.sources[api]))
        self._operators[api] = ops
        return ops
