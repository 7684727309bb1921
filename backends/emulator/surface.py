"""The emulator's model of every data operator: GetWorkspaceSize evaluates the operator's check rules,
under ``cann``, in their order, on the chip generation's product, and returns the first violated
rule's status; otherwise success with an executor that launches nothing (status-only: the values
are not modelled). This is agreement by construction: the model and the expectations come from
the same data, so a run against it tests the harness, not the spec."""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

from aclnn_conformance.backends.emulator.surface_values import values_tasks
from aclnn_conformance.backends.call_layer import RawCall
from aclnn_conformance.backends.emulator.products import ChipGeneration
from aclnn_conformance.backends.emulator.protocol import FirstPhase, OpExecutor, Reject, first_phase
from aclnn_conformance.spec.enums import AclDataType, AclFormat, Status
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.templates import CallView, TensorView, predicate
from aclnn_conformance.spec.tensor import is_contiguous_view


def _name(enum, value: int) -> str:
    try:
        return enum(value).name
    except ValueError:
        return str(value)


def call_view(raw: RawCall, product: str) -> CallView:
    tensors: dict = {}
    attrs: dict = {}
    for name, kind, value in raw.params:
        if kind == "tensor":
            tensors[name] = None if value is None else TensorView(
                _name(AclDataType, value.dtype), tuple(value.view_dims), _name(AclFormat, value.format),
                is_contiguous_view(value.view_dims, value.strides, value.format), tuple(value.storage_dims))
        else:
            attrs[name] = value
            if kind == "scalar" and isinstance(value, dict):
                tensors[name] = TensorView(value["dtype"], (), "ND")
    nulls = frozenset(n for n, flag in (("workspaceSize", raw.null_workspace_size),
                                        ("executor", raw.null_executor)) if flag)
    return CallView(tensors, attrs, nulls, product)


@lru_cache(maxsize=None)
def checks(key: str) -> tuple[tuple[str, Callable[[CallView], bool], dict], ...]:
    """(rule id, predicate, cann expectation) of every check rule, in check order."""
    data = data_of(key)
    order = {s: i for i, s in enumerate(data["check_steps"])}
    rules = sorted((r for r in data["rules"] if r["kind"] == "check"), key=lambda r: order[r["step"]])
    return tuple((r["id"], predicate(r["template"], r["args"]), r["expect"].get("cann") or {}) for r in rules)


def first_violation(key: str, view: CallView, order: tuple | None = None) -> tuple[str, int] | None:
    """(rule id, status) of the first violated check that ``cann`` enforces with a status on the
    product; rules it does not judge (``not_judged``) let the call go on."""
    for rule_id, violated, expect in order or checks(key):
        products = expect.get("products")
        if not expect or (products is not None and view.product not in products):
            continue
        if "status" not in expect and not expect.get("any_error"):
            continue
        if violated(view):
            return rule_id, int(expect.get("status", Status.ERR_PARAM_INVALID))
    return None


def model(key: str) -> Callable[[RawCall, ChipGeneration], FirstPhase]:
    data_of(key)

    def get_workspace_size(raw: RawCall, gen: ChipGeneration) -> FirstPhase:
        def body() -> OpExecutor:
            hit = first_violation(key, call_view(raw, gen.product))
            if hit is not None:
                raise Reject(hit[1], f"{hit[0]} violated")
            return OpExecutor(raw.api, values_tasks(key, raw))  # the oracle's values, if judged
        return first_phase(raw.api, body)
    return get_workspace_size


class _Models:
    def __getattr__(self, key: str):
        if key.startswith("_"):
            raise AttributeError(key)
        return model(key)


MODELS = _Models()
