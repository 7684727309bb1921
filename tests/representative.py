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


def representative_ops(per_family: int = PER_FAMILY, hand_written: tuple[str, ...] | None = None) -> list[str]:
    """The hand-written operators (or those of ``hand_written``) and ``per_family`` data operators of
    each family folder."""
    keys = list(operators())
    chosen = [k for k in keys if not is_data_operator(k) and (hand_written is None or k in hand_written)]
    families: dict[str, list[str]] = {}
    for key in keys:
        if is_data_operator(key):
            families.setdefault(_family(key), []).append(key)
    for members in families.values():
        chosen += sorted(members, key=_hash)[:per_family]
    return sorted(chosen)


REPRESENTATIVE_OPS = representative_ops()
# what an installation must carry to run at all: one operator of each family's data, and one
# hand-written operator with its own suite module (the others' modules are imported by collection)
INSTALLED_SAMPLE_OPS = representative_ops(per_family=1, hand_written=("weight_quant_preprocess",))
