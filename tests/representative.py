"""The operators that stand for all of them in the harness's tests of generic machinery: the
hand-written ones and, per family folder of the extracted data, three chosen by a stable hash of
their names. The count grows with the families, not with the operators; whole runs over every
operator belong to the main job (whose collection checks every operator's case ids, and whose
base calls run every operator on every product)."""
from __future__ import annotations

import hashlib
from pathlib import Path

from aclnn_conformance.spec.registry import is_data_operator, operator, operators

PER_FAMILY = 3


def _family(key: str) -> str:
    """The data file's folder (``math``, ``activation``, ``math/reduction``, ...)."""
    (module,) = operator(key).modules[:1]
    path = Path(module.removeprefix("data:"))
    return path.parent.name


def _hash(key: str) -> str:
    return hashlib.sha1(f"representative:{key}".encode()).hexdigest()


def representative_ops() -> list[str]:
    keys = list(operators())
    chosen = [k for k in keys if not is_data_operator(k)]
    families: dict[str, list[str]] = {}
    for key in keys:
        if is_data_operator(key):
            families.setdefault(_family(key), []).append(key)
    for members in families.values():
        chosen += sorted(members, key=_hash)[:PER_FAMILY]
    return sorted(chosen)


REPRESENTATIVE_OPS = representative_ops()
