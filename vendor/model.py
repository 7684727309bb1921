"""One imported vendor case as data: its call (descriptors, value recipes, attributes), where it
comes from, what the vendor expects, the product it is for, and what could not be read."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import AclDataType, AclFormat, Status, status_name
from aclnn_conformance.spec.tensor import TensorArg, TensorDesc, contiguous_strides
from aclnn_conformance.spec.params import PROTOCOL_KINDS
from aclnn_conformance.vendor.values import draw_storage

FORMATS = ("gtest", "gtest-csv", "atk", "ttk-aclnn", "ttk-kernel")
# the op_api unit tests assert the first phase (TestGetWorkspaceSize) alone
FIRST_PHASE_FORMATS = ("gtest", "gtest-csv")


@dataclass(frozen=True)
class TensorRecipe:
    """One tensor argument: its descriptor and how its values are drawn."""

    dtype: AclDataType
    shape: tuple[int, ...]
    format: AclFormat = AclFormat.ND
    strides: tuple[int, ...] | None = None      # None: contiguous
    offset: int = 0
    storage_shape: tuple[int, ...] | None = None  # None: as the view (or just large enough)
    values: Mapping[str, Any] = field(default_factory=lambda: {"kind": "uniform", "lo": -2, "hi": 2})

    def desc(self) -> TensorDesc:
        strides = self.strides if self.strides is not None else contiguous_strides(self.shape)
        probe = TensorDesc(self.dtype, self.shape, tuple(strides), self.offset, self.format, ())
        if self.storage_shape is not None:
            storage = self.storage_shape
        elif self.strides is None and self.offset == 0:
            storage = self.shape
        else:
            storage = (probe.extent(),)
        return probe.with_(storage_shape=tuple(storage))

    def to_json(self) -> dict[str, Any]:
        return {"dtype": self.dtype.name, "shape": list(self.shape), "format": self.format.name,
                "strides": None if self.strides is None else list(self.strides),
                "offset": self.offset,
                "storage_shape": None if self.storage_shape is None else list(self.storage_shape),
                "values": dict(self.values)}

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "TensorRecipe":
        return TensorRecipe(AclDataType[doc["dtype"]], tuple(doc["shape"]), AclFormat[doc["format"]],
                            None if doc["strides"] is None else tuple(doc["strides"]), doc["offset"],
                            None if doc["storage_shape"] is None else tuple(doc["storage_shape"]),
                            dict(doc["values"]))


@dataclass(frozen=True)
class VendorExpectation:
    """What the vendor's file expects: an exact status, any error, or success with the vendor's
    comparison (ATK ``standard.acc``) or tolerance (TTK columns, gtest ``Precision``)."""

    kind: str                              # status | any_error | success
    status: int | None = None              # the exact status (0 for a gtest success)
    standard: str = ""                     # the vendor's named comparison, if any
    tolerance: Mapping[str, Any] = field(default_factory=dict)

    def describe(self) -> str:
        if self.kind == "status":
            return status_name(self.status)
        if self.kind == "any_error":
            return "any error status"
        how = [f"standard {self.standard}"] if self.standard else []
        how += [f"{k} {v}" for k, v in self.tolerance.items()]
        return "ACLNN_SUCCESS" + (f" ({'; '.join(how)})" if how else "")

    def exact_status(self) -> int | None:
        """The status the vendor names exactly (success counts as 0), or None."""
        if self.kind == "status":
            return self.status
        if self.kind == "success":
            return int(Status.SUCCESS)
        return None

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "status": self.status, "standard": self.standard,
                "tolerance": dict(self.tolerance), "text": self.describe()}

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "VendorExpectation":
        return VendorExpectation(doc["kind"], doc["status"], doc["standard"], dict(doc["tolerance"]))


@dataclass(frozen=True)
class VendorCase:
    """One call a vendor file states, with its expectation."""

    api: str                                          # aclnnX, as the file names it
    case_id: str
    source: str                                       # path:line or path#id
    format: str                                       # one of FORMATS
    tensors: Mapping[str, TensorRecipe | None]        # API parameter order; None is a null pointer
    attrs: Mapping[str, Any]
    expected: VendorExpectation
    product: str | None                               # the product the file states, else None
    product_source: str                               # what says so (a citation), or why none
    seed: int
    problems: tuple[str, ...] = ()                    # file:line: reason, for what was not read
    null_outputs: frozenset[str] = frozenset()
    note: str = ""
    unstated: frozenset[str] = frozenset()           # parameters the file does not state (ATK outputs)
    # attributes whose value the file gives as a range or a distribution: what each was drawn from
    # ({"recipe", "kind"}, vendor/atk.py _attr_value); the framework may draw any value of it
    drawn: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # what the executor's init_by_input_data rewrote before the call (vendor/atk.py _with_rewrite):
    # {"said", "writes": [parameters], "reads_drawn": [drawn attributes whose values it read]}
    rewrite: Mapping[str, Any] = field(default_factory=dict)
    # tensors whose format an item the reader does not apply sets (vendor/atk.py _open_formats):
    # the formats each may be given; the tensors hold ND meanwhile
    open_formats: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # the calls an executor makes as a value of the framework's is one or another (vendor/atk.py
    # _with_rewrite: self.device, the type it gives an argument), where they differ in more than
    # values: each {"assumed": [...], "tensors", "attrs"}; the case's tensors and attrs are the first
    sides: tuple[Mapping[str, Any], ...] = ()

    @property
    def op(self) -> str:
        """The suite's operator key, or the API name for an operator the suite has no spec for."""
        return op_key_of(self.api) or self.api

    @property
    def has_spec(self) -> bool:
        return op_key_of(self.api) is not None

    def to_case(self, draw: bool = True) -> Case:
        """The call; ``draw`` false leaves the storages empty (for the descriptors alone)."""
        tensors = {}
        for index, (name, recipe) in enumerate(self.tensors.items()):
            if recipe is None:
                tensors[name] = None
            elif draw:
                tensors[name] = draw_storage(recipe.desc(), recipe.values, self.seed, index)
            else:
                tensors[name] = TensorArg(recipe.desc(), np.empty(0))
        return Case(op=self.op, case_id=self.case_id, tensors=tensors, attrs=dict(self.attrs),
                    null_outputs=self.null_outputs, origin="vendor", seed=self.seed,
                    note=f"vendor {self.format} {self.source}")

    def to_json(self) -> dict[str, Any]:
        return {"api": self.api, "case_id": self.case_id, "source": self.source,
                "format": self.format, "has_spec": self.has_spec,
                "tensors": {n: None if r is None else r.to_json() for n, r in self.tensors.items()},
                "attrs": _plain(dict(self.attrs)), "expected": self.expected.to_json(),
                "product": self.product, "product_source": self.product_source, "seed": self.seed,
                "problems": list(self.problems), "null_outputs": sorted(self.null_outputs),
                "note": self.note, **({"unstated": sorted(self.unstated)} if self.unstated else {}),
                **({"drawn": _plain(dict(self.drawn))} if self.drawn else {}),
                **({"rewrite": _plain(dict(self.rewrite))} if self.rewrite else {}),
                **({"open_formats": {n: list(f) for n, f in self.open_formats.items()}}
                   if self.open_formats else {}),
                **({"sides": [{"assumed": list(s["assumed"]), "attrs": _plain(dict(s["attrs"])),
                               "tensors": {n: None if r is None else r.to_json() for n, r in s["tensors"].items()}}
                              for s in self.sides]} if self.sides else {})}

    @staticmethod
    def from_json(doc: Mapping[str, Any]) -> "VendorCase":
        return VendorCase(
            api=doc["api"], case_id=doc["case_id"], source=doc["source"], format=doc["format"],
            tensors={n: None if t is None else TensorRecipe.from_json(t)
                     for n, t in doc["tensors"].items()},
            attrs=dict(doc["attrs"]), expected=VendorExpectation.from_json(doc["expected"]),
            product=doc["product"], product_source=doc["product_source"], seed=doc["seed"],
            problems=tuple(doc["problems"]), null_outputs=frozenset(doc["null_outputs"]),
            note=doc.get("note", ""), unstated=frozenset(doc.get("unstated", ())),
            drawn=dict(doc.get("drawn", {})), rewrite=dict(doc.get("rewrite", {})),
            open_formats={n: tuple(f) for n, f in doc.get("open_formats", {}).items()},
            sides=tuple({"assumed": tuple(s["assumed"]), "attrs": dict(s["attrs"]),
                         "tensors": {n: None if t is None else TensorRecipe.from_json(t)
                                     for n, t in s["tensors"].items()}} for s in doc.get("sides", ())))


_API_TO_KEY: tuple[dict | None, dict[str, str]] = (None, {})


def _ops() -> dict:
    """The registry's operators as read now (a re-read registry shows)."""
    from aclnn_conformance.spec.registry import operators
    return operators()


def op_key_of(api: str) -> str | None:
    """The operator key of an API name (``aclnnApplyAdamWV2`` or ``ApplyAdamWV2``), if specified."""
    global _API_TO_KEY
    found = _ops()
    if _API_TO_KEY[0] is not found:
        _API_TO_KEY = (found, {record.api: key for key, record in found.items()})
    name = api if api.startswith("aclnn") else f"aclnn{api}"
    return _API_TO_KEY[1].get(name)


def spec_params(api: str):
    """The parameter rows of a specified API (the protocol's workspace size and executor left out,
    whatever the prototype calls them), or None."""
    key = op_key_of(api)
    if key is None:
        return None
    return tuple(p for p in _ops()[key].spec.params if p.c_kind not in PROTOCOL_KINDS)


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (AclDataType, AclFormat)):
        return int(value)
    return value
