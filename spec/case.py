"""A Case: one call of one operator, exactly as a backend will receive it, and its file form.

A tensor argument that is ``None`` is a null pointer. ``null_outputs`` names the API's own out
pointers (``workspaceSize``, ``executor``) passed as NULL.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.dtypes import numpy_dtype
from aclnn_conformance.spec.enums import AclDataType, AclFormat
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc

CASE_FORMAT_VERSION = 1


@dataclass(frozen=True, eq=False)
class Case:
    op: str                                   # operator key, e.g. "apply_adam_w_quant"
    case_id: str                              # stable, unique within the op
    tensors: Mapping[str, TensorArg | None]   # in API parameter order
    attrs: Mapping[str, Any] = field(default_factory=dict)
    null_outputs: frozenset[str] = frozenset()
    rule_ids: tuple[str, ...] = ()            # the rules this case was built to exercise
    origin: str = "table"                     # table | fault | fault-pair | hypothesis | replay
    seed: int | None = None
    note: str = ""

    def tensor(self, name: str) -> TensorArg | None:
        return self.tensors[name]

    def desc(self, name: str) -> TensorDesc | None:
        arg = self.tensors[name]
        return None if arg is None else arg.desc

    def with_tensor(self, name: str, arg: TensorArg | None) -> "Case":
        if name not in self.tensors:
            raise KeyError(f"{self.op} has no tensor {name!r}")
        tensors = dict(self.tensors)
        tensors[name] = arg
        return replace(self, tensors=tensors)

    def with_attrs(self, **attrs: Any) -> "Case":
        return replace(self, attrs={**self.attrs, **attrs})

    def with_(self, **changes: Any) -> "Case":
        return replace(self, **changes)

    def copy_storages(self) -> dict[str, np.ndarray]:
        """Fresh copies of every non-null tensor's storage, keyed by name."""
        return {n: a.storage.copy() for n, a in self.tensors.items() if a is not None}

    def summary(self) -> str:
        parts = []
        for name, arg in self.tensors.items():
            parts.append(f"{name}=NULL" if arg is None else f"{name}={arg.desc.describe()}")
        parts += [f"{k}={v!r}" for k, v in self.attrs.items()]
        parts += [f"{n}=NULL" for n in sorted(self.null_outputs)]
        return f"{self.op}(" + ", ".join(parts) + ")"


# ---- file form: a JSON description plus one .npz of storages (replay, isolation, certification) ----

def case_to_json(case: Case) -> dict[str, Any]:
    tensors = {}
    for name, arg in case.tensors.items():
        if arg is None:
            tensors[name] = None
            continue
        d = arg.desc
        tensors[name] = {"dtype": d.dtype.name, "shape": list(d.shape), "strides": list(d.strides),
                         "offset": d.offset, "format": d.format.name,
                         "storage_shape": list(d.storage_shape)}
    return {"case_format": CASE_FORMAT_VERSION, "op": case.op, "case_id": case.case_id,
            "tensors": tensors, "attrs": _jsonable(dict(case.attrs)),
            "null_outputs": sorted(case.null_outputs), "rule_ids": list(case.rule_ids),
            "origin": case.origin, "seed": case.seed, "note": case.note}


def save_case(case: Case, path: str | Path) -> Path:
    """Write ``path`` (.json) and its storages beside it (.npz, raw bytes of each storage)."""
    path = Path(path).with_suffix(".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {name: arg.storage.view(np.uint8) for name, arg in case.tensors.items()
              if arg is not None}
    np.savez_compressed(path.with_suffix(".npz"), **arrays)
    path.write_text(json.dumps(case_to_json(case), indent=1))
    return path


def load_case(path: str | Path) -> Case:
    path = Path(path).with_suffix(".json")
    doc = json.loads(path.read_text())
    if doc.get("case_format") != CASE_FORMAT_VERSION:
        raise ValueError(f"{path}: case_format {doc.get('case_format')!r}, expected {CASE_FORMAT_VERSION}")
    with np.load(path.with_suffix(".npz")) as npz:
        raw = {k: npz[k] for k in npz.files}
    tensors: dict[str, TensorArg | None] = {}
    for name, t in doc["tensors"].items():
        if t is None:
            tensors[name] = None
            continue
        dtype = AclDataType[t["dtype"]]
        desc = TensorDesc(dtype, tuple(t["shape"]), tuple(t["strides"]), t["offset"],
                          AclFormat[t["format"]], tuple(t["storage_shape"]))
        tensors[name] = TensorArg(desc, raw[name].view(numpy_dtype(dtype)).copy())
    return Case(op=doc["op"], case_id=doc["case_id"], tensors=tensors, attrs=doc["attrs"],
                null_outputs=frozenset(doc["null_outputs"]), rule_ids=tuple(doc["rule_ids"]),
                origin=doc["origin"], seed=doc["seed"], note=doc["note"])


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (AclDataType, AclFormat)):
        return int(value)  # the number the C API takes
    if isinstance(value, np.generic):
        return value.item()
    return value
