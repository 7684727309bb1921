"""The elementwise surface in torch: each API with a value entry computed by the torch function its
ATK cases name (the entry's ``torch.function`` and ``args``), or, where torch has none, by the
entry's ``torch.expression``: the document's formula written with torch functions.

The statuses come from the spec (``spec.rules.expected_outcome`` over the operator's rules): torch
is evidence about the values only. torch applies its own type promotion to the inputs (aclnn's
table is torch's) and the result is cast to the output tensor's dtype, written through the output's
view (in place: into the first operand's).
"""
from __future__ import annotations

import ast
import importlib
from typing import Any

import numpy as np

from aclnn_conformance.backends.base import RunResult
from aclnn_conformance.spec.case import Case
from aclnn_conformance.spec.enums import Status
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.rules import expected_outcome
from aclnn_conformance.spec.surface_values import ValueEntry, value_entry
from aclnn_conformance.spec.surface_values import LAYER_NORMALIZED

PROFILE = "cann"


def _resolve(dotted: str) -> Any:
    """``torch.nn.functional.gelu`` -> the function (the module path is data of the entry)."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for part in parts[cut:]:
            obj = getattr(obj, part)
        return obj
    raise ValueError(f"{dotted} does not resolve")


def _operand(case: Case, entry: ValueEntry, name: str) -> Any:
    import torch

    from aclnn_conformance.backends.torch_backend._tensors import as_torch
    arg = case.tensors.get(name)
    if arg is not None:   # in the view's shape (a 0-d tensor's values are one element)
        if name in (entry.raw.get("channel_operands") or {}):   # laid along its input's channel dim
            from aclnn_conformance.spec.surface_values import operand_shape
            return as_torch(np.ascontiguousarray(arg.values())).clone().reshape(operand_shape(case, entry, name))
        return as_torch(np.ascontiguousarray(arg.values())).clone().reshape(tuple(arg.desc.shape))
    if name in case.attrs:
        value = case.attrs[name]
    else:
        value = entry.defaults.get(name)
    if isinstance(value, dict) and "value" in value:    # an aclScalar: its number in its dtype's kind
        value = _scalar_number(value["value"], value.get("dtype"))
    if value is None:
        raise ValueError(f"{case.op}: no value for {name}")
    return value if not isinstance(value, np.generic) else value.item()


def _scalar_number(value: Any, dtype: str | None) -> Any:
    """An aclScalar's number as the Python type of its dtype (torch promotes by the type)."""
    if value is None or dtype is None:
        return value
    if dtype == "BOOL":
        return bool(value)
    if dtype.startswith(("INT", "UINT")):
        return int(value)
    return float(value)


def _literal_or_operand(text: str, case: Case, entry: ValueEntry) -> Any:
    if text in entry.inputs or text in case.tensors or text in case.attrs or text in entry.defaults:
        return _operand(case, entry, text)
    return ast.literal_eval(text)


def _reduction(case: Case, entry: ValueEntry):
    """A reduction by its torch function over the call's dims (none given: every dim, or with the
    entry's no-op flag none); a BOOL input reduced as uint8 (torch's max/min take no bool); fp16 and
    bf16 computed in float32 and cast back where the entry says ``accumulate`` float32 (its why)."""
    import torch
    from aclnn_conformance.spec.surface_values import fixed_call
    red = entry.reduction
    case = fixed_call(case, entry)   # the dims and keepdim an API fixes (``fixed_dims``), as a call's
    if entry.halves:   # a function of the input's two halves (backends/torch_backend/surface_halves.py)
        from aclnn_conformance.backends.torch_backend.surface_halves import halves_in_torch
        return halves_in_torch(case, entry, _operand, _resolve)
    if entry.normalized_grads:   # softmax's and log-softmax's gradients (surface_normalized_grads.py)
        from aclnn_conformance.backends.torch_backend.surface_normalized_grads import normalized_grad_in_torch
        return normalized_grad_in_torch(case, entry, _operand, _resolve)
    if entry.contracts:   # a dot product, a diagonal's sum (backends/torch_backend/surface_contractions.py)
        from aclnn_conformance.backends.torch_backend.surface_contractions import contraction_in_torch
        return contraction_in_torch(case, entry, _operand, _resolve)
    x = _operand(case, entry, red["input"])
    if entry.orders:   # the sorting positions, in the direction the call's attribute names
        return _resolve(entry.torch["function"])(x, dim=case.attrs.get(red["dims"]),
                                                 descending=bool(case.attrs.get(red["descending"])))
    dims = _dims(case, red)
    if not dims and red.get("noop") and case.attrs.get(red["noop"]):
        return x
    if entry.sums or entry.normalizes or entry.multiplies:
        # the host code casts the input to the compute dtype before the kernel (the entry's why)
        from aclnn_conformance.backends.torch_backend._tensors import as_torch
        from aclnn_conformance.oracle.surface_softmax import compute_dtype as normalized_dtype
        from aclnn_conformance.oracle.surface_sums import compute_dtype as summed_dtype
        work = (summed_dtype if entry.sums or entry.multiplies else normalized_dtype)(case, entry)
        x = x.to(as_torch(np.zeros(0, work)).dtype)
    if red["kind"] == "average" and not (x.is_floating_point() or x.is_complex()):
        # torch.mean takes no integer; an integer mean is not judged (the entry's domain)
        x = x.to(torch.float64)
    narrow = x.dtype if (x.dtype in (torch.float16, torch.bfloat16)
                         and entry.torch.get("accumulate") == "float32") else None
    result = _reduced(_resolve(entry.torch["function"]), x.float() if narrow else x, case, entry)
    if isinstance(result, tuple):   # one tensor per output (torch.var_mean: the variance, the mean)
        return tuple(r.to(narrow) for r in result) if narrow else result
    return result.to(narrow) if narrow else result


def _dims(case: Case, red: dict) -> list[int]:
    dims = case.attrs.get(red["dims"])     # an integer dim 0 is a dim, not none
    return [] if dims is None else [dims] if isinstance(dims, int) else list(dims)


def _reduced(fn, x, case: Case, entry: ValueEntry):
    """``fn`` of ``x`` as the entry's kind calls it: a scan or a normalized exponential along one dim
    (the input's shape), an index reduction along one dim, or a reduction over the call's dims
    (none given: every dim) keeping them as the call says."""
    import torch
    red = entry.reduction
    if entry.keeps_shape:   # rank 0: a slice of one element
        x = x.reshape(tuple(case.tensor(red["input"]).desc.shape))
        if not x.dim():
            return fn(x, dim=0) if entry.normalizes else x.clone()
        return _flagged(fn, x, case.attrs.get(red["dims"]), case, entry)
    if entry.indexes or red.get("one_dim"):    # one dim, an integer (rank 0: the scalar's own position)
        dim = case.attrs.get(red["dims"])
        return fn(x, dim=dim if x.dim() else None, keepdim=bool(case.attrs.get(red["keepdim"])))
    boolean = x.dtype == torch.bool
    dims = _dims(case, red)
    if entry.multiplies:    # torch.prod takes one dim: the reduced dims one after another
        n = x.dim() if x.dim() else 1
        for d in sorted({d + n if d < 0 else d for d in dims} if dims else range(x.dim()), reverse=True):
            x = fn(x, dim=d, keepdim=bool(case.attrs.get(red["keepdim"])))
        return x
    if not x.numel() and not dims and red["kind"] in ("max", "min"):
        # every element of an empty input: no extreme (the host code returns before the kernel and
        # the oracle leaves the output open), which torch refuses to reduce
        zeros = tuple(torch.zeros(tuple(case.tensor(name).desc.shape), dtype=x.dtype) for name in entry.outputs)
        return zeros if len(zeros) > 1 else zeros[0]
    if not dims and red.get("outputs") and red["kind"] in ("max", "min"):
        return fn(x)   # an extreme with other outputs over every element: the function without dims
    extra = {}
    if entry.deviates:   # a variance's divisor n - correction (a bool flag read as 1 or 0)
        from aclnn_conformance.oracle.surface_variance import correction_of
        extra["correction"] = correction_of(case, entry)
    result = fn(x.to(torch.uint8) if boolean else x, dim=dims if dims else list(range(x.dim())),
                keepdim=bool(case.attrs.get(red["keepdim"])), **extra)
    return result.to(torch.bool) if boolean else result


def _flagged(fn, x, dim: int, case: Case, entry: ValueEntry):
    """``fn`` along ``dim`` under a scan's ``exclusive`` and ``reverse`` settings (the roles its
    reduction block names: torch's scans have neither): the input flipped along dim for reverse, the
    scan shifted by one with the empty prefix's 0 first for exclusive, flipped back."""
    import torch
    from aclnn_conformance.oracle.surface_sums import scan_flags
    exclusive, reverse = scan_flags(case, entry) if entry.scans else (False, False)
    found = fn(x.flip(dim) if reverse else x, dim=dim)
    if exclusive and found.shape[dim]:
        empty = torch.zeros_like(found.narrow(dim, 0, 1))
        found = torch.cat([empty, found.narrow(dim, 0, found.shape[dim] - 1)], dim=dim)
    return found.flip(dim) if reverse else found


def _call(case: Case, entry: ValueEntry):
    mapping = entry.torch
    if entry.reduction is not None:
        return _reduction(case, entry)
    if mapping.get("function"):
        fn = _resolve(mapping["function"])
        args, kwargs = [], {}
        for item in mapping.get("args", []):
            name, eq, value = item.partition("=")
            if eq and name.isidentifier() and not value.startswith("="):
                kwargs[name] = _literal_or_operand(value, case, entry)
            else:
                args.append(_literal_or_operand(item, case, entry))
        return fn(*args, **kwargs)
    return _expression(mapping["expression"], case, entry)


def _expression(text: str, case: Case, entry: ValueEntry):
    """A formula with torch functions (the vocabulary's ``torch_words``) over the operands."""
    import torch

    from aclnn_conformance.oracle.surface_functions import VOCABULARY_FILE
    import json
    allowed = set(json.loads(VOCABULARY_FILE.read_text(encoding="utf-8"))["torch_words"])
    tree = ast.parse(text, mode="eval")
    env: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in allowed:
                raise ValueError(f"{text!r}: {ast.unparse(node.func)} is not a torch word")
            env[node.func.id] = getattr(torch, node.func.id)
        elif isinstance(node, ast.Name) and node.id not in env and node.id not in allowed:
            from aclnn_conformance.oracle.surface_functions import parameter_name
            env[node.id] = _operand(case, entry, parameter_name(node.id))   # lambda_ reads lambda
    # fp16/bf16 operands in float32, one cast at the end (the arithmetic model allows it)
    env = {k: v.float() if isinstance(v, torch.Tensor) and v.dtype in (torch.float16, torch.bfloat16)
           else v for k, v in env.items()}
    return eval(compile(tree, "<torch expression>", "eval"), {}, env)  # the tree is checked above


def run(case: Case, product: str) -> RunResult:
    """The call on ``product``: the spec's status; on success torch's values in the output."""
    import torch

    from aclnn_conformance.backends.torch_backend._tensors import as_torch
    spec = operator(case.op).spec
    expected = expected_outcome(spec, case, product, PROFILE)
    storages = case.copy_storages()
    if expected.kind in ("error", "not_supported"):
        status = expected.status if expected.status is not None else Status.ERR_INNER
        return RunResult(int(status), storages, message=f"rule {expected.rule_id}")
    if expected.kind in ("not_judged", "not_covered") or not expected.judge_values:
        return RunResult(Status.SUCCESS, storages, workspace_size=0)
    entry = value_entry(case.op)
    if entry.norms:   # every output by role (backends/torch_backend/surface_norms.py, surface_layer_norms.py)
        from aclnn_conformance.backends.torch_backend.surface_norms import norm_outputs
        if entry.reduction["kind"] == LAYER_NORMALIZED:
            from aclnn_conformance.backends.torch_backend.surface_layer_norms import norm_outputs
        with torch.no_grad():
            for name, result in norm_outputs(case, entry, _operand, _resolve).items():
                arg = case.tensor(name)
                if arg.desc.numel:
                    view = as_torch(storages[name]).as_strided(tuple(arg.desc.shape), tuple(arg.desc.strides),
                                                               int(arg.desc.offset))
                    view.copy_(result.reshape(view.shape).to(view.dtype))
        return RunResult(Status.SUCCESS, storages, workspace_size=0)
    with torch.no_grad():
        found = _call(case, entry)
        # an API with two outputs gets a tuple, in the entry's order of its outputs
        for name, result in zip(entry.outputs, found if isinstance(found, tuple) else (found,)):
            out_arg = case.tensor(name)
            target = as_torch(storages[name])
            if not isinstance(result, torch.Tensor):
                result = torch.tensor(result)
            out_view = target.as_strided(tuple(out_arg.desc.shape), tuple(out_arg.desc.strides),
                                         int(out_arg.desc.offset)) if out_arg.desc.numel else None
            if out_view is not None:
                out_view.copy_(torch.broadcast_to(result, out_view.shape).to(out_view.dtype))
    return RunResult(Status.SUCCESS, storages, workspace_size=0)
