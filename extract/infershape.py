"""The shape a reduction kernel gives its result: the l0op function's ``INFER_SHAPE(Op, OP_INPUT(x,
axes), OP_OUTPUT(y), OP_ATTR(keepDims[, noopWithEmptyAxes]))`` and the op_host infer function the
checkout registers for ``Op`` (``IMPL_OP_INFERSHAPE(Op).InferShape(Fn)``).

Two infer functions are read, both the reduction of input 0 over the dims input 1 holds, a reduced
dim kept as 1 with the bool attribute 0:
- ``return InferShape4ReduceCommon(context, "...")`` (ops-math common/inc/op_host/
  infershape_reduce_util.h:216-260): empty dims keep the shape when the bool attribute 1 is true,
  reduce every dim when it is false, or always when the third argument is ``false`` (no such attr);
- a function of the op's own file that sets the output to the input when the dims are empty and
  else returns ``ReduceDims<T>(in, axes, size, *keepDims, out)`` (reduce_nansum_infershape.cpp:24-60):
  empty dims keep the shape.
Anything else, or an l0op that changes its result's shape after the inference, is not read."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from .cpp import Function, SourceFile, match_close, read_source, split_args

_COMMON = "common/inc/op_host/infershape_reduce_util.h"


@dataclass(frozen=True)
class ReduceInfer:
    """How an op type's registered infer function treats empty dims: ``"attr"`` (its bool attribute
    1 says whether they keep the shape), True (they keep it) or False (they reduce every dim)."""
    noop: str | bool
    path: str
    line: int


@dataclass(frozen=True)
class KernelReduceShape:
    """A kernel whose result is the reduction of parameter ``data`` over parameter ``axes`` (an int
    array, or a tensor of one), ``keepdim`` and ``noop`` a parameter index or a literal."""
    data: int
    axes: int
    keepdim: int | bool
    noop: int | bool
    path: str
    line: int


class InferShapeIndex:
    """The op_host infer functions of a checkout (``<family>/<op>/op_host/*_infershape.cpp``), read on
    first use."""

    def __init__(self, root: Path):
        self.root = root
        self._registered: dict[str, ReduceInfer | None] | None = None

    def reduce_infer(self, op_type: str) -> ReduceInfer | None:
        if self._registered is None:
            self._registered = {}
            for path in sorted(self.root.glob("*/*/op_host/*infershape*.cpp")):
                if "experimental" in path.parts:
                    continue
                src = read_source(str(path.relative_to(self.root)), path.read_text(errors="replace"))
                for m in re.finditer(r"IMPL_OP_INFERSHAPE\(\s*(\w+)\s*\)\s*\.\s*InferShape\(\s*(\w+)\s*\)",
                                     src.text):
                    op, fn = m.group(1), src.functions.get(m.group(2))
                    known = self._registered.get(op, "absent")
                    read = _reduce_infer(self.root, src, fn) if fn is not None else None
                    # one registration per op type; two are none
                    self._registered[op] = read if known == "absent" else None
        return self._registered.get(op_type)


def _reduce_infer(root: Path, src: SourceFile, fn: Function) -> ReduceInfer | None:
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(r'return (?:\w+::)*InferShape4ReduceCommon\(\s*context\s*,\s*"[^"]*"\s*(?:,\s*(true|false)\s*)?\);',
                     body)
    if m:
        if not _common_helper_reads(root):
            return None
        return ReduceInfer("attr" if m.group(1) in (None, "true") else False, src.path, fn.line)
    return ReduceInfer(True, src.path, fn.line) if _own_reduce_body(fn) else None


def _common_helper_reads(root: Path) -> bool:
    """The checkout's common helper is the one described above: its signature, the noop attribute
    read as attribute 1, and empty dims handed to the noop-or-reduce-all branch."""
    path = root / _COMMON
    if not path.is_file():
        return False
    text = re.sub(r"\s+", " ", path.read_text(errors="replace"))
    return all(s in text for s in (
        "ge::graphStatus InferShape4ReduceCommon(gert::InferShapeContext* context, const char* opName, "
        "bool hasNoopAttr = true)",
        "attrs->GetAttrPointer<bool>(1)",
        "const bool* keepDims = attrs->GetAttrPointer<bool>(0)",
        "ProcessEmptyAxesWithNoopWithEmptyAxes(context, inShape, outShape, keepDims, noopWithEmptyAxes)"))


def _own_reduce_body(fn: Function) -> bool:
    """In, dims, out and keepDims read as input 0, input 1, output 0 and bool attribute 0; empty dims
    give the input shape; else ``ReduceDims`` over them (the two dims dtypes alike)."""
    b = re.sub(r"\s+", " ", fn.body)
    names = {}
    for role, pat in (("in", r"auto (\w+) = context->GetInputShape\(0\);"),
                      ("axes", r"auto (\w+) = context->GetInputTensor\(1\);"),
                      ("out", r"auto (\w+) = context->GetOutputShape\(0\);"),
                      ("keep", r"const bool\* (\w+) = attrs->GetAttrPointer<bool>\(0\);"),
                      ("size", r"auto (\w+) = static_cast<int32_t>\((\w+)->GetShapeSize\(\)\);")):
        m = re.search(pat, b)
        if not m:
            return False
        names[role] = m.group(1)
        if role == "size" and m.group(2) != names["axes"]:
            return False
    n = {k: re.escape(v) for k, v in names.items()}
    empty = re.search(rf"if \({n['size']} == 0\) {{ \*{n['out']} = \*{n['in']};[^{{}}]*return ge::GRAPH_SUCCESS; }}", b)
    reduce = re.findall(rf"return ReduceDims<int(?:32|64)_t>\({n['in']}, {n['axes']}, {n['size']}, "
                        rf"\*{n['keep']}, {n['out']}\);", b)
    returns = re.findall(r"\breturn\b", b)
    # every return: the empty-dims success, the two ReduceDims, the failures of the dims checks
    failures = re.findall(r"return ge::GRAPH_FAILED", b)
    return bool(empty) and len(reduce) == 2 and len(returns) == 1 + len(reduce) + len(failures)


def kernel_reduce_shape(fn: Function, src: SourceFile, infers: InferShapeIndex) -> KernelReduceShape | None:
    """``fn`` (an l0op function) returns the tensor its one INFER_SHAPE reads as a reduction's output,
    with its shape unchanged after; a rank-0 input returned as it is (its reduction is itself)."""
    calls = list(re.finditer(r"\bINFER_SHAPE\(", fn.body))
    if len(calls) != 1:
        return None
    start = calls[0].end() - 1
    close = match_close(fn.body, start)
    args = split_args(fn.body[start + 1:close]) if close > 0 else []
    if len(args) != 4:
        return None
    infer = infers.reduce_infer(args[0].strip())
    parts = {}
    for arg in args[1:]:
        m = re.fullmatch(r"OP_(INPUT|OUTPUT|ATTR)\((.*)\)", arg.strip(), re.S)
        if not m:
            return None
        parts[m.group(1)] = [a.strip() for a in split_args(m.group(2))]
    if infer is None or len(parts.get("INPUT", [])) != 2 or len(parts.get("OUTPUT", [])) != 1 \
            or len(parts.get("ATTR", [])) not in (1, 2):
        return None
    (data, axes), (out,), attrs = parts["INPUT"], parts["OUTPUT"], parts["ATTR"]
    after = fn.body[close:]
    if re.search(rf"\b{re.escape(out)}\s*(?:->\s*Set\w*Shape|=(?!=))", after):
        return None   # the result's shape changed after the inference
    if not _returns(fn, src, out, data):
        return None
    data_i = _tensor_param(fn, data)
    axes_i = _axes_param(fn, axes)
    keep = _flag(fn, attrs[0])
    if infer.noop == "attr":
        noop = _flag(fn, attrs[1]) if len(attrs) == 2 else None
    else:
        noop = infer.noop
    if None in (data_i, axes_i, keep, noop):
        return None
    return KernelReduceShape(data_i, axes_i, keep, noop, infer.path, infer.line)


def _tensor_param(fn: Function, name: str) -> int | None:
    if name in fn.params and "aclTensor" in fn.param_types[fn.params.index(name)]:
        return fn.params.index(name)
    return None


def _axes_param(fn: Function, name: str) -> int | None:
    """The parameter the dims come from: a tensor parameter, or an int array parameter converted to a
    tensor once in ``fn`` (``auto dimList = executor->ConvertToTensor(dim, op::DataType::DT_INT64)``)."""
    if name in fn.params:
        t = fn.param_types[fn.params.index(name)]
        return fn.params.index(name) if "aclTensor" in t or "aclIntArray" in t else None
    sets = re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", fn.body)
    m = re.fullmatch(r"executor\s*->\s*ConvertToTensor\(\s*(\w+)\s*,[^()]*\)", sets[0].strip()) \
        if len(sets) == 1 else None
    if m and m.group(1) in fn.params and "aclIntArray" in fn.param_types[fn.params.index(m.group(1))]:
        return fn.params.index(m.group(1))
    return None


def _flag(fn: Function, expr: str) -> int | bool | None:
    """A bool parameter's index, a literal, or a local set once to a literal."""
    if expr in ("true", "false"):
        return expr == "true"
    if expr in fn.params and "bool" in fn.param_types[fn.params.index(expr)]:
        return fn.params.index(expr)
    sets = re.findall(rf"\b{re.escape(expr)}\s*=(?!=)\s*([^;]+);", fn.body)
    if len(sets) == 1 and sets[0].strip() in ("true", "false"):
        return sets[0].strip() == "true"
    return None


def _returns(fn: Function, src: SourceFile, out: str, data: str) -> bool:
    """Every return gives ``out`` (directly, or through a function of the file returning the parameter
    it is passed at), ``nullptr``, or ``data`` under ``if (data->GetViewShape().GetDimNum() == 0)``."""
    rank0 = re.compile(rf"if\s*\(\s*{re.escape(data)}\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*==\s*0\s*\)"
                       rf"\s*\{{\s*return\s+{re.escape(data)}\s*;\s*\}}")
    body = rank0.sub("", fn.body)
    for expr in re.findall(r"\breturn\s+([^;]+);", body):
        expr = expr.strip()
        if re.match(r"nullptr\b", expr) or expr == out:
            continue
        m = re.fullmatch(r"(\w+)\((.*)\)", expr, re.S)
        callee = src.functions.get(m.group(1)) if m else None
        if callee is None:
            return False
        args = [a.strip() for a in split_args(m.group(2))]
        cbody = re.sub(r"\breturn\s+nullptr\b", "", callee.body)   # a macro's ``return nullptr, "..."`` too
        back = set(re.findall(r"\breturn\s+(\w+)\s*;", cbody))
        if len(args) != len(callee.params) or len(back) != 1 or re.search(r"\breturn\s+(?!\w+\s*;)", cbody):
            return False
        param = back.pop()
        if param not in callee.params or args[callee.params.index(param)] != out:
            return False
    return True
