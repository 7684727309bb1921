"""The outputs an ATK case's golden makes, for a case whose golden is a torch function.

An ATK case of ``api_type`` ``function`` names its golden (``"name": "torch.cos"``): the framework
calls it with the case's inputs (an unnamed input by position, a named one by keyword) and makes each
output tensor of the aclnn call from the golden's result, in order (ops-nn
norm/quantized_batch_norm/tests/st/aclnnQuantizedBatchNorm/executor_aclnnQuantizedBatchNorm.py:187-190:
``convert_output_data`` of each entry of ``task_result.output_info_list``). The result's dtype and
shape are what the output needs, and torch gives both without computing a value on its ``meta``
device, so the largest cases cost nothing. Only the golden's own rules decide (torch's type
promotion: ``torch.div`` of two integer tensors is float32, ``torch.eq`` is bool): nothing here is
inferred from the spec under test. Without torch, or where torch cannot evaluate the call on the meta
device, the output stays unplaced with that reason."""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from aclnn_conformance.spec.enums import AclDataType

GOLDEN_API_TYPE = "function"      # the framework calls ``name`` itself; other api_types are executors
# an input the framework applies to the tensors itself (their storage format): no torch function
# takes it (ops-math math/mul/tests/st/aclnnMul/atk_aclnnMul.json names torch.mul with a ``format``)
FRAMEWORK_INPUTS = frozenset({"format"})
_TORCH_DTYPE_NAMES = {
    "FLOAT": "float32", "FLOAT16": "float16", "BF16": "bfloat16", "DOUBLE": "float64",
    "INT8": "int8", "INT16": "int16", "INT32": "int32", "INT64": "int64", "UINT8": "uint8",
    "UINT16": "uint16", "UINT32": "uint32", "UINT64": "uint64", "BOOL": "bool",
    "COMPLEX64": "complex64", "COMPLEX128": "complex128",
}
_ACL_BY_TORCH_NAME = {v: k for k, v in _TORCH_DTYPE_NAMES.items()}
NEEDS_TORCH = "evaluating the golden needs torch: pip install 'aclnn-conformance[torch]'"


@dataclass(frozen=True)
class GoldenOutput:
    """One tensor of the golden's result: what the framework makes the matching output from."""
    dtype: AclDataType
    shape: tuple[int, ...]


@dataclass(frozen=True)
class GoldenArgument:
    """One input of the case as the framework passes it: a tensor (dtype and shape), a list of
    tensors, or a plain value; ``name`` empty for a positional argument."""
    name: str
    tensor: tuple[AclDataType, tuple[int, ...]] | None = None
    tensors: tuple[tuple[AclDataType, tuple[int, ...]], ...] | None = None
    value: Any = None


def golden_name(doc: dict) -> str | None:
    """The torch function an ATK case's golden is, or None (an executor of the repository's own)."""
    name = str(doc.get("name") or "")
    if doc.get("api_type") != GOLDEN_API_TYPE or not name.startswith("torch."):
        return None
    return name


def _resolve(torch: Any, dotted: str) -> Callable[..., Any]:
    """``torch.nn.functional.elu`` -> the function (attribute by attribute from the torch module)."""
    target: Any = torch
    for part in dotted.split(".")[1:]:
        target = getattr(target, part)
    if not callable(target):
        raise TypeError(f"{dotted} is not callable")
    return target


def golden_outputs(name: str, arguments: Sequence[GoldenArgument]) -> tuple[GoldenOutput, ...] | str:
    """The golden's result tensors for these arguments, evaluated on torch's meta device; or why not
    (a sentence)."""
    try:
        torch = importlib.import_module("torch")
    except ImportError:
        return NEEDS_TORCH

    try:
        function = _resolve(torch, name)
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        for a in arguments:
            if a.name in FRAMEWORK_INPUTS:
                continue
            value = argument_value(torch, a)
            if a.name:
                kwargs[a.name] = value
            else:
                args.append(value)
        result = function(*args, **kwargs)
    except Exception as exc:   # noqa: BLE001 - any failure of the golden leaves the output unplaced, said why
        return f"the golden {name} could not be evaluated on torch's meta device ({type(exc).__name__}: {str(exc)[:120]})"
    return result_outputs(torch, result, f"the golden {name}")


def meta_tensor(torch: Any, spec: tuple[AclDataType, tuple[int, ...]]) -> Any:
    """A tensor of this dtype and shape on torch's meta device (no storage, no values)."""
    dtype, shape = spec
    torch_name = _TORCH_DTYPE_NAMES.get(dtype.name)
    if torch_name is None or not hasattr(torch, torch_name):
        raise LookupError(f"torch has no dtype for {dtype.name}")
    return torch.empty(shape, dtype=getattr(torch, torch_name), device="meta")


def argument_value(torch: Any, argument: GoldenArgument) -> Any:
    """What the framework passes the golden for one input: a meta tensor, a list of them, a value."""
    if argument.tensor is not None:
        return meta_tensor(torch, argument.tensor)
    if argument.tensors is not None:
        return [meta_tensor(torch, t) for t in argument.tensors]
    return argument.value


def result_outputs(torch: Any, result: Any, golden: str) -> tuple[GoldenOutput, ...] | str:
    """The golden's result (a tensor, or a tuple or list of them) as GoldenOutputs; or why not, the
    sentence starting with ``golden`` (who the golden is)."""
    results = result if isinstance(result, (tuple, list)) else (result,)
    outputs = []
    for r in results:
        if not isinstance(r, torch.Tensor):
            return f"{golden} returns a {type(r).__name__}, not a tensor"
        acl = _ACL_BY_TORCH_NAME.get(str(r.dtype).removeprefix("torch."))
        if acl is None:
            return f"{golden} returns {r.dtype}, which has no aclDataType here"
        outputs.append(GoldenOutput(AclDataType[acl], tuple(int(d) for d in r.shape)))
    return tuple(outputs)
