"""The output tensors of an ATK case. The file states inputs alone: the framework makes each output
from the golden's result (ops-nn norm/quantized_batch_norm/tests/st/aclnnQuantizedBatchNorm/
executor_aclnnQuantizedBatchNorm.py:187-190: ``convert_output_data`` of each entry of
``task_result.output_info_list``, appended after the inputs), so an output has the dtype and shape the
golden gives it for the case's inputs. Where the golden is a torch function (atk_golden) or an
executor's ``__call__`` the reader evaluates (executor_golden), torch gives them on its meta device;
else this reader takes them from the operator's code-read rules that tie an output to its inputs
(its shape: ``shapes_equal``, ``broadcast_equals``, ``reduced_shape``; its dtype: the values block's
``output_dtype``, ``dtypes_equal``, a ``castable`` from the inputs' promotion), never from a guess:
an output neither places stays unplaced, with the reason, and its case is not run."""
from __future__ import annotations

from typing import Any, Mapping

from aclnn_conformance.spec.dtype_promotion import promote_type
from aclnn_conformance.spec.enums import AclDataType
from aclnn_conformance.spec.operator_data import data_of
from aclnn_conformance.spec.registry import operator
from aclnn_conformance.spec.templates import broadcast_shape, reduced_shape, rule_dims
from aclnn_conformance.vendor.atk_golden import GoldenOutput
from aclnn_conformance.vendor.model import TensorRecipe, VendorCase, op_key_of
from aclnn_conformance.vendor.values import constant

# the framework's output buffer before the call; the judged values are what the call writes
OUTPUT_VALUES = constant(0)
UNPLACED = "the framework makes it from the golden's result, and no rule of the spec places it"


def _code_rules(key: str) -> list[Mapping[str, Any]]:
    """The operator's code-read rules without a guard (a guarded rule ties the output on one path)."""
    return [r for r in data_of(key).get("rules", ()) if "when" not in r.get("args", {})]


def _shape(out: str, rules, tensors: Mapping[str, TensorRecipe | None],
           attrs: Mapping[str, Any]) -> tuple[int, ...] | None:
    for r in rules:
        a, t = r["args"], r["template"]
        if t == "shapes_equal" and out in (a.get("param"), a.get("other")):
            other = tensors.get(a["other"] if a["param"] == out else a["param"])
            if other is not None:
                return other.shape
        if t == "broadcast_equals" and a.get("param") == out:
            shapes = [tensors[n].shape for n in a.get("of", ()) if tensors.get(n) is not None]
            if shapes and len(shapes) == len(a["of"]):
                shape: tuple[int, ...] | None = shapes[0]
                for s in shapes[1:]:
                    shape = None if shape is None else broadcast_shape(shape, s)
                if shape is not None:
                    return shape
        if t == "reduced_shape" and a.get("param") == out and tensors.get(a.get("of")) is not None:
            src = tensors[a["of"]].shape
            flag = lambda v: v if isinstance(v, bool) else bool(attrs.get(v))   # noqa: E731
            shape = reduced_shape(src, rule_dims(attrs, a.get("dims"), len(src)),
                                  flag(a.get("keepdim", False)), flag(a.get("noop", False)))
            if shape is not None:
                return shape
    return None


def _promoted(expr: Any, tensors: Mapping[str, TensorRecipe | None]) -> str | None:
    """``["of", X]`` and ``["promote", e1, e2]`` over the stated tensors (opbase PromoteType)."""
    if isinstance(expr, list) and len(expr) == 2 and expr[0] == "of" and tensors.get(expr[1]) is not None:
        return tensors[expr[1]].dtype.name
    if isinstance(expr, list) and len(expr) == 3 and expr[0] == "promote":
        x, y = _promoted(expr[1], tensors), _promoted(expr[2], tensors)
        return promote_type(x, y) if x and y else None
    return None


def _dtype(key: str, out: str, rules, tensors: Mapping[str, TensorRecipe | None]) -> str | None:
    said = ((data_of(key).get("values") or {}).get("output_dtype") or {}).get(out) or {}
    if said.get("rule") == "same_as" and tensors.get(said.get("of")) is not None:
        return tensors[said["of"]].dtype.name
    if said.get("rule") == "fixed" and said.get("dtype"):
        return str(said["dtype"])
    for r in rules:
        a, t = r["args"], r["template"]
        if t == "dtypes_equal" and out in (a.get("param"), a.get("other")):
            other = tensors.get(a["other"] if a["param"] == out else a["param"])
            if other is not None:
                return other.dtype.name
        if t == "castable" and a.get("to") == out and "from_expr" in a:
            found = _promoted(a["from_expr"], tensors)
            if found:
                return found
    return None


def place_outputs(api: str, tensors: dict[str, TensorRecipe | None], attrs: Mapping[str, Any],
                  unstated: frozenset[str], golden: tuple[GoldenOutput, ...] | str | None = None,
                  ) -> tuple[dict[str, TensorRecipe | None], list[str]]:
    """``tensors`` with each unstated output tensor made as the framework makes it, and a line per
    output left unplaced saying why. ``golden``: the golden's result tensors (a torch function's,
    atk_golden, or an executor's, executor_golden), else why they are not known, else None. An output takes the
    golden's dtype and shape (the golden's result, in the order of the outputs the case leaves
    unstated, is what the framework makes them from); where the golden is not known, the shape and
    dtype the spec's rules tie to the inputs."""
    key = op_key_of(api)
    if key is None:
        return tensors, []
    # a hand-written record states no code-read rules: its outputs come from the golden alone
    is_data = operator(key).modules[0].startswith("data:")
    rules = _code_rules(key) if is_data else []
    placed = dict(tensors)
    missing = [n for n in tensors if n in unstated and tensors[n] is None]
    if isinstance(golden, tuple) and len(golden) == len(missing):
        for name, out in zip(missing, golden):
            placed[name] = TensorRecipe(out.dtype, out.shape, values=OUTPUT_VALUES)
        return placed, []
    why = []
    for name in missing:
        shape, dtype = (_shape(name, rules, tensors, attrs), _dtype(key, name, rules, tensors)) if is_data \
            else (None, None)
        if shape is not None and dtype in AclDataType.__members__:
            placed[name] = TensorRecipe(AclDataType[dtype], tuple(shape), values=OUTPUT_VALUES)
        elif isinstance(golden, tuple):
            why.append(f"output {name}: the golden gives {len(golden)} tensors for {len(missing)} "
                       f"unstated outputs ({', '.join(missing)}), and no rule of the spec places it")
        elif isinstance(golden, str):
            why.append(f"output {name}: {golden}, and no rule of the spec places it")
    return placed, why


def unplaced(vc: VendorCase) -> list[str]:
    """The outputs of an ATK case the framework would make and this reader could not (not run)."""
    return sorted(n for n in vc.unstated if n in vc.tensors and vc.tensors[n] is None)
