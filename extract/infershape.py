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
- ``return Ops::Base::InferShape4Reduce(context);`` of a function the checkout only declares
  (``OPBASE_API``, ops-math v9.0.0 common/inc/op_api/infershape_reduce_util.h:88): with an opbase
  checkout given, its definition there read as an op's own function (opbase src/op_common/op_host/
  infershape_reduce_util.cpp:23-56), the rule citing that body in hicann/opbase; without one, unread.
- the arg-with-value infer (ops-math math/arg_max_with_value/op_host/arg_common_base_infershape.cpp:
  41-69, 86-94): both outputs the reduction of input 0 over the one dim the int attribute 0 names,
  kept as 1 with the bool attribute 1; a rank-0 input gives its own shape.
Anything else, or an l0op that changes its result's shape after the inference otherwise than the two
blocks ``_after_inference`` names, is not read."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

from aclnn_conformance.extract.cpp import Function, SourceFile, match_close, read_source, split_args
from aclnn_conformance.extract.opbase import Citation, OpbaseSource, opbase_declarations
from aclnn_conformance.extract.shape_helpers import normalised, wraps_dim_by_rank

_COMMON = "common/inc/op_host/infershape_reduce_util.h"


@dataclass(frozen=True)
class ReduceInfer:
    """An op type's registered infer function, a reduction: how it treats empty dims (``"attr"``: its
    bool attribute 1 says whether they keep the shape; True: they keep it; False: they reduce every
    dim), where the dims come from (input 1, or the one int attribute 0) and how many outputs it
    gives that shape."""
    noop: str | bool
    path: str
    line: int
    dims_from: str = "input"   # "input": a tensor input 1; "attr": the int attribute 0
    outputs: int = 1
    keep_attr: bool = True     # False: the inference never keeps a dim (the l0op's keepdim block does)
    body: Citation | None = None   # the body read outside the checkout (in opbase), cited by its rule


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
    one_element: bool = False   # known only up to one-element shapes ([1] for [])
    wrapped_dim: bool = False   # its keepdim block indexes the shape by the dim as given: read only
                                # for a dim the caller has wrapped already
    body: Citation | None = None   # the inference's body when read outside the checkout (in opbase)


class InferShapeIndex:
    """The op_host infer functions of a checkout (``<family>/<op>/op_host/*_infershape.cpp``), read on
    first use."""

    def __init__(self, root: Path, opbase: OpbaseSource | None = None):
        self.root = root
        self.opbase = opbase   # where the functions the checkout only declares are defined
        self._registered: dict[str, ReduceInfer | None] | None = None
        self._functions: dict[str, Function | None] = {}   # the op_host functions, by name (two: none)
        self.common_helper_reads = _common_helper_reads(root)   # read once for every registration

    def reduce_infer(self, op_type: str) -> ReduceInfer | None:
        if self._registered is None:
            self._registered = {}
            sources = []
            for path in sorted(self.root.glob("*/*/op_host/*infershape*.cpp")):
                if "experimental" in path.parts:
                    continue
                src = read_source(str(path.relative_to(self.root)), path.read_text(errors="replace"))
                sources.append(src)
                for name, fn in src.functions.items():
                    self._functions[name] = None if name in self._functions else fn
            for src in sources:
                for m in re.finditer(r"IMPL_OP_INFERSHAPE\(\s*(\w+)\s*\)\s*\.\s*InferShape\(\s*(\w+)\s*\)",
                                     src.text):
                    op = m.group(1)
                    fn = src.functions.get(m.group(2)) or self._functions.get(m.group(2))
                    known = self._registered.get(op, "absent")
                    read = _reduce_infer(self, src, fn) if fn is not None else None
                    # one registration per op type; two are none
                    self._registered[op] = read if known == "absent" else None
        return self._registered.get(op_type)

    def function(self, name: str) -> Function | None:
        return self._functions.get(name)


def _reduce_infer(index: InferShapeIndex, src: SourceFile, fn: Function) -> ReduceInfer | None:
    arg = _arg_with_value_infer(index, fn) or _arg_infer(index, fn)
    if arg is not None:
        return arg
    body = re.sub(r"\s+", " ", fn.body).strip()
    m = re.fullmatch(r'return (?:\w+::)*InferShape4ReduceCommon\(\s*context\s*,\s*"[^"]*"\s*(?:,\s*(true|false)\s*)?\);',
                     body)
    if m:
        if not index.common_helper_reads:
            return None
        return ReduceInfer("attr" if m.group(1) in (None, "true") else False, src.path, fn.line)
    if _own_reduce_body(fn):
        return ReduceInfer(True, src.path, fn.line)
    return _declared_only_infer(index, src, fn, body)


def _declared_only_infer(index: InferShapeIndex, src: SourceFile, fn: Function, body: str) -> ReduceInfer | None:
    """``return F(context);`` of an F the checkout declares ``OPBASE_API``: F's opbase definition,
    read as an op's own reduce infer function."""
    m = re.fullmatch(r"return (?:\w+::)*(\w+)\(\s*context\s*\);", body)
    if m is None or index.opbase is None or m.group(1) not in opbase_declarations(index.root):
        return None
    found = index.opbase.definition(m.group(1))
    if found is None or not _own_reduce_body(found[1]):
        return None
    opbase_src, definition = found
    return ReduceInfer(True, src.path, fn.line, body=index.opbase.cite(opbase_src.path, definition.line))


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
                      ("keep", r"const bool ?\* ?(\w+) = attrs->GetAttrPointer<bool>\(0\);"),   # opbase spaces it ``bool *k``
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


def _arg_with_value_infer(index: InferShapeIndex, fn: Function) -> ReduceInfer | None:
    """``x = GetInputShape(0)``, two outputs, and a helper giving both the reduction of x over the int
    attribute 0 (one dim), kept with the bool attribute 1, x's own shape for a scalar."""
    b = re.sub(r"\s+", " ", fn.body)
    x = re.search(r"auto (\w+) = context->GetInputShape\(\w+\);", b)
    outs = re.findall(r"auto (\w+) = context->GetOutputShape\(\w+\);", b)
    call = re.search(r"return (\w+)\(context, (\w+), (\w+), (\w+)\);", b)
    if not (x and len(outs) == 2 and call and call.group(2) == x.group(1) and set(call.group(3, 4)) == set(outs)):
        return None
    helper = index.function(call.group(1))
    if helper is None or len(helper.params) != 4:
        return None
    _, hx, hi, hv = (re.escape(p) for p in helper.params)
    # statement logs dropped (a log inside a check's arguments stays)
    h = re.sub(r"\s+", " ", re.sub(r"([;{}])\s*OP_LOG\w*\([^;]*\);", r"\1", helper.body))
    dim = re.search(r"const auto\* (\w+) = attrs->GetAttrPointer<int64_t>\(0\);", h)
    keep = re.search(r"const auto\* (\w+) = attrs->GetAttrPointer<bool>\(1\);", h)
    flag = re.search(rf"bool (\w+) = \*{re.escape(keep.group(1))};", h) if keep else None
    if not (dim and flag):
        return None
    d, k = re.escape(dim.group(1)), re.escape(flag.group(1))
    needed = [rf"if \({hx}->IsScalar\(\)\) {{ \*{hi} = \*{hx}; \*{hv} = \*{hx}; return GRAPH_SUCCESS; }}",
              rf"if \({k}\) {{ \*{hv} = \*{hx}; OP_CHECK_IF\((?:\w+::)*ReduceDimsWithKeepDims<int64_t>\({hx}, {d}, 1, {hv}\)",
              rf"}} else {{ {hv}->SetDimNum\(0\); OP_CHECK_IF\((?:\w+::)*ReduceDimsWithoutKeepDims<int64_t>\({hx}, {d}, 1, {hv}\)",
              rf"\*{hi} = \*{hv}; return GRAPH_SUCCESS; $"]
    # the two successes above are its only ones (the failures are the checks')
    if not all(re.search(n, h) for n in needed) or len(re.findall(r"return (?:ge::)?GRAPH_SUCCESS", h)) != 2:
        return None
    return ReduceInfer(False, helper.path, helper.line, dims_from="attr", outputs=2)


def _arg_infer(index: InferShapeIndex, fn: Function) -> ReduceInfer | None:
    """``x = GetInputShape(..)``, one output, and a helper giving it the reduction of x over the one
    dim input 1 holds, never kept (ops-math math/arg_max_with_value/op_host/arg_common_base_infershape.
    cpp:23-39, 71-83): a rank of at most 1 gives rank 0, which is that reduction too."""
    b = normalised(fn)
    x = re.search(r"auto (\w+) = context->GetInputShape\(\w+\);", b)
    outs = re.findall(r"auto (\w+) = context->GetOutputShape\(\w+\);", b)
    call = re.search(r"return (\w+)\(context, (\w+), (\w+)\);$", b.strip())
    if not (x and len(outs) == 1 and call and call.group(2) == x.group(1) and call.group(3) == outs[0]):
        return None
    helper = index.function(call.group(1))
    if helper is None or len(helper.params) != 3:
        return None
    _, hx, ho = (re.escape(p) for p in helper.params)
    h = normalised(helper)

    def reduce(group: str, ctype: str) -> str:   # the dims' data of one dtype, reduced without keeping
        return (rf"auto\* (?P<{group}>\w+) = context->GetInputTensor\(\w+\)->GetData<{ctype}>\(\); "
                rf"return (?:\w+::)*ReduceDimsWithoutKeepDims<{ctype}>\({hx}, (?P={group}), 1, {ho}\);")
    by_int32, by_int64 = reduce("d32", "int32_t"), reduce("d64", "int64_t")
    whole = (rf"int64_t (?P<rank>\w+) = {hx}->GetDimNum\(\); if \((?P=rank) <= 1\) {{ {ho}->SetDimNum\(0\); "
             rf"return (?:ge::)?GRAPH_SUCCESS; }} auto (?P<dt>\w+) = context->GetInputTensor\(\w+\)->GetDataType\(\); "
             rf"if \((?P=dt) == (?:ge::)?DT_INT32\) {{ {by_int32} }} {by_int64}")
    if not re.fullmatch(whole, h):
        return None
    return ReduceInfer(False, helper.path, helper.line, outputs=1, keep_attr=False)


def kernel_reduce_shape(fn: Function, src: SourceFile, infers: InferShapeIndex) -> KernelReduceShape | None:
    """``fn`` (an l0op function) returns what its one INFER_SHAPE gives a reduction's output (or a
    tuple of its outputs), with their shapes unchanged after (but for the blocks ``_after_inference``
    reads); a rank-0 input returned as it is (its reduction is itself)."""
    calls = list(re.finditer(r"\bINFER_SHAPE\(", fn.body))
    if not calls:
        return _own_infer_kernel(fn, src)
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
        if arg.strip() == "OP_EMPTY_ARG":
            continue
        m = re.fullmatch(r"OP_(INPUT|OUTPUT|ATTR)\((.*)\)", arg.strip(), re.S)
        if not m:
            return None
        parts[m.group(1)] = [a.strip() for a in split_args(m.group(2))]
    inputs, outs, attrs = parts.get("INPUT", []), parts.get("OUTPUT", []), parts.get("ATTR", [])
    if infer is None or len(outs) != infer.outputs:
        return None
    wrapped_dim = False
    if infer.dims_from == "input" and not infer.keep_attr:
        if len(inputs) != 2 or attrs:
            return None
        data, axes_i, noop = inputs[0], _int_scalar_tensor_param(fn, inputs[1]), False
        kept = _keep_block(fn.body[close:], data, outs, fn.params[axes_i] if axes_i is not None else "")
        if kept is None:
            return None
        keep_expr, wrapped_dim, after = kept
        if any(re.search(rf"\b{re.escape(o)}\s*(?:->\s*Set\w*Shape|=(?!=))", after) for o in outs) \
                or not _returns(fn, src, outs, data):
            return None
        data_i, keep = _param(fn, data, _TENSOR), _flag(fn, keep_expr)
        if None in (data_i, axes_i, keep):
            return None
        # a rank-0 input: the block indexes a dim it does not have, so only one element is known
        return KernelReduceShape(data_i, axes_i, keep, False, infer.path, infer.line, True, wrapped_dim,
                                 infer.body)
    if infer.dims_from == "input" and len(inputs) == 2 and len(attrs) in (1, 2):
        data, axes_i, keep_expr = inputs[0], _axes_param(fn, inputs[1]), attrs[0]
        noop = (_flag(fn, attrs[1]) if len(attrs) == 2 else None) if infer.noop == "attr" else infer.noop
        dim_expr = None
        every = _every_dim_when_empty(fn, src, inputs[1], data)
        if axes_i is None and every is not None:
            axes_i, noop = every, False   # the dims tensor is never empty: empty dims are every dim
    elif infer.dims_from == "attr" and len(inputs) == 1 and len(attrs) == 2:
        data, axes_i, keep_expr, noop, dim_expr = inputs[0], _param(fn, attrs[0], _INT), attrs[1], False, attrs[0]
    else:
        return None
    axes_array = fn.params[axes_i] if axes_i is not None and re.search(_INT_ARRAY, fn.param_types[axes_i]) else None
    after, one_element = _after_inference(fn.body[close:], data, outs, keep_expr, dim_expr,
                                          axes_array if noop is True else None)
    if after is None or any(re.search(rf"\b{re.escape(o)}\s*(?:->\s*Set\w*Shape|=(?!=))", after) for o in outs):
        return None   # a result's shape changed after the inference
    if not _returns(fn, src, outs, data):
        return None
    data_i, keep = _param(fn, data, _TENSOR), _flag(fn, keep_expr)
    if None in (data_i, axes_i, keep, noop):
        return None
    return KernelReduceShape(data_i, axes_i, keep, noop, infer.path, infer.line, one_element, body=infer.body)


def _after_inference(after: str, data: str, outs: list[str], keep: str, dim: str | None,
                     axes: str | None = None) -> tuple[str | None, bool]:
    """The text after the inference without two blocks of the arg kernels (argmax_with_value.cpp:48-64),
    and whether one was there: results of a rank-1 input of rank 1 made rank 0 (one element for one
    element), and under ``keep`` every result set to the input's shape with the wrapped dim as 1 (what
    the inference gave under keepdim). With ``axes`` (the int array the dims tensor holds, for an
    inference that keeps the shape of empty dims), also the reduce kernels' block setting, under
    ``keep``, the input's shape with every wrapped dim of ``axes`` as 1 (reduce_sum_op.cpp:118-127):
    what the inference gave, so it is dropped and changes nothing."""
    x, o = re.escape(data), "|".join(re.escape(n) for n in outs)
    if axes is not None and len(outs) == 1:
        a, k = re.escape(axes), re.escape(keep)
        keep_axes = re.compile(
            rf"op::Shape (\w+) = {x}->GetViewShape\(\);\s*auto (\w+) = {a}->Size\(\);\s*"
            rf"size_t (\w+) = \1\.GetDimNum\(\);\s*if \({k}\) \{{\s*"
            rf"for \(uint64_t (\w+) = 0; \4 < \2; \4\+\+\) \{{\s*"
            rf"int64_t (\w+) = static_cast<int64_t>\(\(\*{a}\)\[\4\]\);\s*"
            rf"int64_t (\w+) = \5 >= 0 \? \5 : \5 \+ \3;\s*\1\.SetDim\(\6, 1\);\s*\}}\s*"
            rf"{o}->SetViewShape\(\1\);\s*\}}")
        m = keep_axes.search(after)
        if m:
            after = after[:m.start()] + after[m.end():]
    made_scalar = re.compile(
        rf"if\s*\(\s*{x}->GetViewShape\(\)\.GetDimNum\(\) == 1 && (?:{o})->GetViewShape\(\)\.GetDimNum\(\) == 1\s*\)"
        rf"\s*\{{((?:\s*(?:{o})\s*=\s*executor->AllocTensor\(op::Shape\(\{{\}}\)[^;]*\);)+)\s*\}}")
    m = made_scalar.search(after)
    found = False
    if m:
        if sorted(re.findall(rf"({o})\s*=", m.group(1))) != sorted(outs):
            return None, False
        after, found = after[:m.start()] + after[m.end():], True
    if dim is not None:
        d, k = re.escape(dim), re.escape(keep)
        kept = re.compile(
            rf"int64_t (\w+) = 0;\s*if \({k}\) \{{\s*op::Shape (\w+) = {x}->GetViewShape\(\);\s*"
            rf"if \({d} < 0\) \{{\s*\1 = {x}->GetViewShape\(\)\.GetDimNum\(\) \+ {d};\s*\}} else \{{\s*\1 = {d};\s*\}}"
            rf"\s*\2\.SetDim\(\1, 1\);((?:\s*(?:{o})->SetViewShape\(\2\);)+)\s*\}}")
        m = kept.search(after)
        if m:
            if sorted(re.findall(rf"({o})->SetViewShape", m.group(3))) != sorted(outs):
                return None, False
            after, found = after[:m.start()] + after[m.end():], True
    return after, found


def _own_infer_kernel(fn: Function, src: SourceFile) -> KernelReduceShape | None:
    """An l0op that infers its result's shape itself (ops-math math/reduce_mean/op_api/reduce_mean.cpp:
    141-186): ``op::Shape r; if (!H(x->GetViewShape(), dims, keepDim, r)) { return nullptr; }``, a rank-0
    input returned as it is, with a noop flag empty dims returning the input too, and the result
    allocated with shape r and returned; H a helper of the file reducing over the dims (every dim for
    none, each wrapped by max(rank, 1), a repeated one refused), a reduced dim kept as 1 with keepDim."""
    b = normalised(fn)
    x, d, k = (rf"(?P<{n}>\w+)" for n in ("x", "d", "k"))
    head = re.match(rf"op::Shape (?P<r>\w+); if \(!(?P<h>\w+)\({x}->GetViewShape\(\), {d}, {k}, (?P=r)\)\) "
                    rf"{{ return nullptr; }} if \((?P=x)->GetViewShape\(\)\.GetDimNum\(\) == 0\) {{ return (?P=x); }} "
                    rf"(?:if \((?P=d)->Size\(\) == 0 && (?P<n>\w+)\) {{ return (?P=x); }} )?"
                    rf"auto (?P<o>\w+) = executor->AllocTensor\((?P=r), (?P=x)->GetDataType\(\)\);", b)
    helper = src.functions.get(head.group("h")) if head else None
    if helper is None or not _reduces_over_dims(helper, src):
        return None
    if head.group("n"):   # the noop return, read above, is no return of the result
        noop_return = (rf"if\s*\(\s*{re.escape(head.group('d'))}\s*->\s*Size\(\)\s*==\s*0\s*&&\s*"
                       rf"{re.escape(head.group('n'))}\s*\)\s*\{{\s*return\s+{re.escape(head.group('x'))}\s*;\s*\}}")
        fn = replace(fn, body=re.sub(noop_return, "", fn.body, count=1))
    if not _returns(fn, src, [head.group("o")], head.group("x")):
        return None
    if re.search(rf"\b{re.escape(head.group('o'))}\s*(?:->\s*Set\w*Shape|=(?!=))", b[head.end():]):
        return None
    data_i, axes_i = _param(fn, head.group("x"), _TENSOR), _param(fn, head.group("d"), _INT_ARRAY)
    keep = _flag(fn, head.group("k"))
    noop = _flag(fn, head.group("n")) if head.group("n") else False
    if None in (data_i, axes_i, keep, noop):
        return None
    return KernelReduceShape(data_i, axes_i, keep, noop, helper.path, helper.line)


def _reduces_over_dims(helper: Function, src: SourceFile) -> bool:
    """``H(shape, dims, keepDims, out)``: a mask of the dims (every dim for none; each wrapped by a dim
    wrap of the file, a repeated one refused), then out given each dim of shape not in the mask, and
    a 1 for each in it with keepDims."""
    if len(helper.params) != 4:
        return False
    sh, dm, kp, out = (re.escape(p) for p in helper.params)
    m, i = r"(?P<m>\w+)", r"(?P<i>\w+)"
    pattern = (
        rf"uint64_t {m}\[(?P<len>\w+)\] = \{{0\}}; if \({dm}->Size\(\) == 0\) {{ for \(size_t {i} = 0; (?P=i) < (?P=len); "
        rf"(?P=i)\+\+\) {{ (?P=m)\[(?P=i)\] = 1; }} }} else {{ for \(size_t (?P<j>\w+) = 0; (?P=j) < {dm}->Size\(\); "
        rf"(?P=j)\+\+\) {{ int64_t (?P<ix>\w+) = (?P<wrap>\w+)\({dm}->operator\[\]\((?P=j)\), {sh}\.GetDimNum\(\)\); "
        rf"if \((?P=m)\[(?P=ix)\] == 1\) {{ return false; }} (?P=m)\[(?P=ix)\] = 1; }} }} "
        rf"for \(size_t (?P<l>\w+) = 0; (?P=l) < {sh}\.GetDimNum\(\); (?P=l)\+\+\) {{ if \({kp}\) {{ "
        rf"if \((?P=m)\[(?P=l)\] == 0\) {{ {out}\.AppendDim\({sh}\.GetDim\((?P=l)\)\); }} else {{ {out}\.AppendDim\(1\); }} "
        rf"}} else {{ if \((?P=m)\[(?P=l)\] == 0\) {{ {out}\.AppendDim\({sh}\.GetDim\((?P=l)\)\); }} }} }} return true;")
    found = re.fullmatch(pattern, normalised(helper))
    wrap = src.functions.get(found.group("wrap")) if found else None
    return wrap is not None and wraps_dim_by_rank(wrap) is not None


def _keep_block(after: str, data: str, outs: list[str], dim: str) -> tuple[str, bool, str] | None:
    """The l0op's keepdim block after an inference that never keeps a dim (argmax_v2.cpp:89-94,
    argmin.cpp): under a bool, the input's shape with the dim as 1 set as every result's shape.
    (the bool's name, whether the dim is used as given (not wrapped there), the text without the
    block); None when the block is not there or differs."""
    x, o, d = re.escape(data), "|".join(re.escape(n) for n in outs), re.escape(dim)
    sets = rf"((?:\s*(?:{o})->Set(?:View|Storage|Original)Shape\(\2\);)+)"
    as_given = re.compile(rf"if \((\w+)\) \{{\s*op::Shape (\w+) = {x}->GetViewShape\(\);\s*\2\.SetDim\({d}, 1\);"
                          rf"{sets}\s*\}}")
    wrapped = re.compile(
        rf"if \((\w+)\) \{{\s*op::Shape (\w+) = {x}->GetViewShape\(\);\s*(?:size_t|int64_t) (\w+) = {d};\s*"
        rf"if \({d} < 0\) \{{\s*\3 = \2\.GetDimNum\(\) \+ {d};\s*\}}\s*\2\.SetDim\(\3, 1\);"
        rf"((?:\s*(?:{o})->Set(?:View|Storage|Original)Shape\(\2\);)+)\s*\}}")
    for pattern, given in ((as_given, True), (wrapped, False)):
        found = list(pattern.finditer(after))
        if len(found) == 1:
            m = found[0]
            if not all(re.search(rf"\b{re.escape(n)}->SetViewShape\(", m.group(0)) for n in outs):
                return None
            return m.group(1), given, after[:m.start()] + after[m.end():]
    return None


def _int_scalar_tensor_param(fn: Function, name: str) -> int | None:
    """The int parameter a one-element tensor is made from once in ``fn`` (``auto dimTensor =
    executor->ConvertToTensor(executor->AllocScalar(dim), op::DataType::DT_INT64)``)."""
    sets = re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", fn.body)
    m = re.fullmatch(r"executor\s*->\s*ConvertToTensor\(\s*executor\s*->\s*AllocScalar\(\s*(\w+)\s*\)\s*,"
                     r"\s*(?:op::)?DataType::DT_INT64\s*\)", sets[0].strip()) if len(sets) == 1 else None
    return _param(fn, m.group(1), _INT) if m else None


def _param(fn: Function, name: str, ctype: str) -> int | None:
    """The index of parameter ``name`` when its C type matches ``ctype`` (a regular expression)."""
    if name in fn.params and re.search(ctype, fn.param_types[fn.params.index(name)]):
        return fn.params.index(name)
    return None


_INT, _TENSOR, _INT_ARRAY = r"int64_t|int32_t", r"aclTensor", r"aclIntArray"


def _axes_param(fn: Function, name: str) -> int | None:
    """The parameter the dims come from: a tensor parameter, or an int array parameter converted to a
    tensor once in ``fn`` (``auto dimList = executor->ConvertToTensor(dim, op::DataType::DT_INT64)``)."""
    if name in fn.params:
        t = fn.param_types[fn.params.index(name)]
        return fn.params.index(name) if "aclTensor" in t or "aclIntArray" in t else None
    sets = re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", fn.body)
    m = re.fullmatch(r"executor\s*->\s*ConvertToTensor\(\s*(\w+)\s*,(?:[^()]|\([^()]*\))*\)", sets[0].strip()) \
        if len(sets) == 1 else None
    if m and m.group(1) in fn.params and "aclIntArray" in fn.param_types[fn.params.index(m.group(1))]:
        return fn.params.index(m.group(1))
    return None


def _every_dim_when_empty(fn: Function, src: SourceFile, name: str, data: str) -> int | None:
    """The int array parameter ``name`` is made from by a helper of the file that converts it to a
    tensor, or, when it is empty, every dim of ``data`` (reduce_nansum.cpp:56-66)."""
    sets = re.findall(rf"\b{re.escape(name)}\s*=(?!=)\s*([^;]+);", fn.body)
    m = re.fullmatch(r"(\w+)\(\s*(\w+)\s*,\s*(\w+)\s*,\s*executor\s*\)", sets[0].strip()) if len(sets) == 1 else None
    helper = src.functions.get(m.group(1)) if m else None
    if helper is None or len(helper.params) != 3 or m.group(2) != data or _param(fn, m.group(3), _INT_ARRAY) is None:
        return None
    x, dim = (re.escape(p) for p in helper.params[:2])
    body = re.sub(r"\s+", " ", helper.body).strip()
    every = (rf"if \({dim}->Size\(\) == 0\) {{ FVector<int64_t> (\w+); "
             rf"for \(size_t (\w+) = 0; \2 < {x}->GetViewShape\(\)\.GetDimNum\(\); \2\+\+\) {{ \1\.emplace_back\(\2\); }} "
             rf"return executor->ConvertToTensor\(\1\.data\(\), \1\.size\(\), (?:op::)?DataType::DT_INT64\); }} "
             rf"return executor->ConvertToTensor\({dim}, (?:op::)?DataType::DT_INT64\);")
    return _param(fn, m.group(3), _INT_ARRAY) if re.fullmatch(every, body) else None



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


def _returns(fn: Function, src: SourceFile, outs: list[str], data: str) -> bool:
    """Every return gives the results (``out``; ``std::tuple<...>(a, b)`` of them, in any order),
    directly or through a function of the file returning the parameters it is passed them at, or
    nothing (``nullptr``, ``{}``); or ``data`` under ``if (data->GetViewShape().GetDimNum() == 0)``."""
    rank0 = re.compile(rf"if\s*\(\s*{re.escape(data)}\s*->\s*GetViewShape\(\)\s*\.\s*GetDimNum\(\)\s*==\s*0\s*\)"
                       rf"\s*\{{\s*return\s+{re.escape(data)}\s*;\s*\}}")
    body = rank0.sub("", fn.body) if len(outs) == 1 else fn.body
    for expr in re.findall(r"\breturn\s+([^;]+);", body):
        expr = expr.strip()
        given = _given(expr)
        if given is not None:
            if given and sorted(given) != sorted(outs):
                return False
            continue
        m = re.fullmatch(r"(\w+)\((.*)\)", expr, re.S)
        callee = src.functions.get(m.group(1)) if m else None
        if callee is None:
            return False
        args = [a.strip() for a in split_args(m.group(2))]
        cbody = re.sub(r"\breturn\s+nullptr\b(?!\s*;)", "", callee.body)   # a macro's ``return nullptr, "..."``
        backs = [_given(e.strip()) for e in re.findall(r"\breturn\s+([^;]+);", cbody)]
        if len(args) != len(callee.params) or any(b is None for b in backs):
            return False
        for back in backs:
            if back and (any(p not in callee.params for p in back)
                         or sorted(args[callee.params.index(p)] for p in back) != sorted(outs)):
                return False
    return True


def _given(expr: str) -> list[str] | None:
    """The names a return gives: ``x``, ``std::tuple<...>(a, b)``; [] for nothing (``nullptr``, ``{}``,
    a tuple of nullptrs, a macro's ``nullptr, "..."``); None for anything else."""
    if re.match(r"nullptr\b", expr) or expr == "{}":
        return []
    if re.fullmatch(r"\w+", expr):
        return [expr]
    m = re.fullmatch(r"std::tuple<[^()]*>\((.*)\)", expr, re.S)
    if m:
        names = [a.strip() for a in split_args(m.group(1))]
        if all(n == "nullptr" for n in names):
            return []
        return names if all(re.fullmatch(r"\w+", n) and n != "nullptr" for n in names) else None
    return None
