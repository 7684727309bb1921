"""Finding a backend by name: the built-in ones, entry points, or an import path ``module:attr``."""
from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from aclnn_conformance.backends.base import Backend

ENTRY_POINT_GROUP = "aclnn_conformance.backends"

BUILTIN: dict[str, str] = {
    "reference": "aclnn_conformance.backends.reference:ReferenceBackend",
    "emulator": "aclnn_conformance.backends.emulator:EmulatorBackend",
    "torch": "aclnn_conformance.backends.torch_backend:TorchBackend",
    "aclnn": "aclnn_conformance.backends.aclnn:AclnnBackend",
}
DEFAULT_BACKEND = "emulator"


class UnknownBackend(ValueError):
    pass


def _plugin_entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group=ENTRY_POINT_GROUP)}


def backend_names() -> list[str]:
    return sorted({*BUILTIN, *_plugin_entry_points()})


def _import(target: str):
    module_name, _, attr = target.partition(":")
    obj = importlib.import_module(module_name)
    for part in attr.split(".") if attr else ():
        obj = getattr(obj, part)
    return obj


def load_backend(name: str) -> Backend:
    """A backend instance for a registered name, an entry-point name or ``module:attr`` (a class, a
    factory or an instance)."""
    target = BUILTIN.get(name) or _plugin_entry_points().get(name)
    if target is None and ":" not in name:
        raise UnknownBackend(f"unknown backend {name!r}; valid: {', '.join(backend_names())} "
                             f"or an import path module:attribute")
    try:
        obj = _import(target or name)
    except (ImportError, AttributeError) as exc:
        raise UnknownBackend(f"cannot load backend {name!r} ({target or name}): {exc}") from None
    # a class or a factory function is called; an object with run() is the backend itself
    backend = obj() if isinstance(obj, type) or not hasattr(obj, "run") else obj
    missing = [a for a in ("name", "version", "available", "products", "run") if not hasattr(backend, a)]
    if missing:
        raise UnknownBackend(f"{name!r} is not a backend: it lacks {', '.join(missing)}")
    if not hasattr(backend, "waivers"):
        backend.waivers = ()
    return backend
