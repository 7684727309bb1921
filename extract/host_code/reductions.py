"""Reductions: a reduction kernel's shape (``rshape``), the mask of dims seen in a dim loop (a
duplicate refused, a local wrapped by the rank, ``GetPosDim``), a reduced dim that must not be empty
outside rank 0, the infer-shape helpers of the checkout recognised by their whole body (mask form,
array form, npu output size), ``ToShapeVector`` and ``AllocIntArray`` of the dims held."""
from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from aclnn_conformance.extract.infershape import kernel_reduce_shape
from aclnn_conformance.extract.shape_helpers import reduced_dims_fill
from aclnn_conformance.extract.cpp import Function, SourceFile, Stmt, match_close
from aclnn_conformance.extract.host_code.model import (IGNORED_CALLS, Opaque, T, Unreadable, Walk, _args, _called, _check,
                                                       _flat, _lin, _loop, _strip)
from aclnn_conformance.extract.host_code.statements import _error_exit
from aclnn_conformance.extract.host_code.integers import _INT_TYPE, dim_range_checked
from aclnn_conformance.extract.host_code.shapes import _shape_expr_at, _shape_of
from aclnn_conformance.extract.host_code.nulls import _VACUOUS_ON_NULL
import aclnn_conformance.extract.host_code.reenter as reenter


def _kernel_shape(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """("rshape", tensor, dims, keepdim, noop) when the kernel's result is a reduction
    (extract/infershape.py) of a tensor with an API tensor's shape over the API's dims (None: every
    dim), its flags the API's bool arguments or literals; None otherwise."""
    ks = kernel_reduce_shape(fn, w.index.kernels.source_of(fn.name), w.index.kernels.infers)
    if ks is None or max(ks.data, ks.axes) >= len(args):
        return None
    tensor = reenter.shape_like(env.get(_strip(args[ks.data])))
    if tensor is None:
        return None
    dims = env.get(_strip(args[ks.axes]))
    if ks.wrapped_dim and not (isinstance(dims, tuple) and dims[:1] == ("wrapped-dim-max1",)):
        return None   # the kernel indexes the shape by the dim as given: a negative one is not read
    if isinstance(dims, T) and ("IntArray" in w.ptypes.get(dims.name, "")
                                or re.search(r"int(?:64|32)_t", w.ptypes.get(dims.name, ""))
                                and re.search(r"int(?:64|32)_t", fn.param_types[ks.axes])):
        dims = dims.name   # the API's int array, or its one int passed to a kernel's int
    elif isinstance(dims, tuple) and dims[:1] == ("all-dims",) and dims[1] == tensor:
        dims = None
    elif isinstance(dims, tuple) and dims[:1] == ("dims-of",):
        dims = dims[1]
    elif isinstance(dims, tuple) and dims[:1] == ("dims-from",) and dims[1] == tensor:
        dims = ("from", dims[2])   # the tensor's dims from k on
    elif isinstance(dims, tuple) and dims[:1] == ("wrapped-dim-max1",) and dims[2] == tensor \
            and re.search(r"int(?:64|32)_t", fn.param_types[ks.axes]):
        dims = dims[1]   # the API's one int, wrapped as the reduction wraps it (by max(rank, 1))
    elif isinstance(dims, tuple) and dims[:1] == ("every-if-empty",) and dims[2] == tensor:
        dims, ks = dims[1], replace(ks, noop=False)   # never empty: empty reduces every dim
    else:
        return None
    flags = []
    for flag in (ks.keepdim, ks.noop):
        if isinstance(flag, bool):
            flags.append(flag)
            continue
        if flag >= len(args):
            return None
        text, v = _strip(args[flag]), env.get(_strip(args[flag]))
        if isinstance(v, T) and w.ptypes.get(v.name, "").replace("const", "").strip() == "bool":
            flags.append(v.name)
        elif text in ("true", "false"):
            flags.append(text == "true")
        elif isinstance(v, bool):   # a literal passed down to a helper's parameter
            flags.append(v)
        else:
            return None
    # every dim named: a rank-0 tensor's list is empty and keeps its shape, which reducing it gives too
    shape = ("rshape", tensor, dims, flags[0], False if dims is None else flags[1])
    shape = shape + ("one-element",) if ks.one_element else shape
    if ks.body is not None:
        w.read_elsewhere[shape] = (ks.body,)
    return shape


# ---- duplicate dims of an integer array (a mask of the dims seen) ----

_VACUOUS_ON_NULL.add("attr_dims_unique")


def _mask_set(text: str, mask: str, idx: str) -> bool:
    return text in (f"{mask}[{idx}]=1", f"{mask}[{idx}]=true", f"{mask}.set({idx})")


def _mask_test(cond: str, idx: str) -> str | None:
    m = re.fullmatch(rf"([A-Za-z_]\w*)\[{re.escape(idx)}\](?:==(?:1|true))?|([A-Za-z_]\w*)\.test\({re.escape(idx)}\)",
                     cond)
    return m and (m.group(1) or m.group(2))


def _mask_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail of a dim loop's body that rejects a dim already seen, after wrapping a negative one by
    a rank local N: ``if (d < 0) { if (mask[N + d] == 1) fail; else mask[N + d] = 1; continue; }
    if (mask[d] == 1) fail; else mask[d] = 1;`` or ``index = GetPosDim(d, N); if (mask[index]) fail;
    mask.set(index);``. Returns (the statements before it, (N's value, wrap at rank 0 or None, code))."""
    def rank_local(expr):
        try:
            n = reenter.value(w, expr, env)
        except Unreadable:
            return None
        ln = _lin(n)
        return ln if ln and ln[2] == 1 and ln[3] == 0 else None

    def test_then_set(stmts, idx):
        """``if (mask[idx] == 1) fail; [else] mask[idx] = 1;`` as the whole of stmts: (mask, code)."""
        if not stmts or stmts[0].kind != "if":
            return None
        t, rest = stmts[0], list(stmts[1:])
        if len(t.orelse) == 1 and not rest:
            rest = [t.orelse[0]]
        elif t.orelse:
            return None
        mask = _mask_test(_flat(t.cond, elem), idx)
        code = _error_exit(t.then, fail)
        if mask is None or code is None or len(rest) != 1 or not _mask_set(_flat(rest[0].text, elem), mask, idx):
            return None
        return mask, code

    for k in (len(inner) - 1, len(inner) - 2):
        a = inner[k - 1] if k >= 1 else None
        if a is None or a.kind != "if" or a.orelse or _flat(a.cond, elem) != "@<0" or len(a.then) < 2 \
                or a.then[-1].text.strip() != "continue":
            continue
        tail = test_then_set(inner[k:], "@")
        first = a.then[0]
        m = first.kind == "if" and re.fullmatch(r"\w+\[(\w+)\+@\](?:==(?:1|true))?", _flat(first.cond, elem))
        if not (tail and m):
            continue
        ln = rank_local(m.group(1))
        neg = test_then_set(a.then[:-1], f"{m.group(1)}+@")
        if ln and neg == tail:
            return inner[:k - 1], (ln, ln[4], tail[1])
    if len(inner) >= 3:
        d, t, s = inner[-3], inner[-2], inner[-1]
        dm = re.fullmatch(r"(?:const)?(?:uint64_t|int64_t|size_t|auto)(\w+)=(?:op::)?(GetPosDim|GetPosDimWithStd)"
                          r"\(@,(\w+)\)", _flat(d.text, elem))
        if d.kind == "decl" and dm and t.kind == "if" and not t.orelse:
            idx = dm.group(1)
            mask = _mask_test(_flat(t.cond, elem), idx)
            code = _error_exit(t.then, fail)
            ln = rank_local(dm.group(3))
            fn = w.index.function(dm.group(2))
            # GetPosDim(dim, n): n <= 0 taken as 1, then dim + n for a negative dim (level2_base_caculation.h)
            if mask and code is not None and ln and fn is not None and _mask_set(_flat(s.text, elem), mask, idx) \
                    and _pos_dim_body(fn):
                return inner[:-3], (ln, ln[4] if ln[4] > 0 else 1, code)
            # ``return d >= 0 ? d : d + n;`` without the clamp (ops-math
            # conversion/strided_slice_v3/op_api/aclnn_slice_v2.cpp:40-43): wrapped by the rank as it is
            if mask and code is not None and ln and fn is not None and _mask_set(_flat(s.text, elem), mask, idx) \
                    and _plain_pos_dim_body(fn):
                return inner[:-3], (ln, ln[4], code)
            # a duplicate only logged (ops-math v9.1.0 aclnn_reduce_log_sum.cpp:97-100): the tail checks nothing
            if mask and _only_logs(t.then) and ln and fn is not None \
                    and _mask_set(_flat(s.text, elem), mask, idx) and _pos_dim_body(fn):
                return inner[:-3], None
    return inner, None


def _only_logs(stmts: tuple[Stmt, ...]) -> bool:
    return bool(stmts) and all(st.kind == "call" and IGNORED_CALLS.match(st.text.strip()) and "return" not in st.text
                               for st in stmts)


_VACUOUS_ON_NULL.update({"attr_dims_nonzero", "reduced_shape"})
_POS_DIM_DECL = re.compile(r"(?:const)?(?:uint64_t|int64_t|size_t|auto)(\w+)=(?:op::)?(GetPosDim|GetPosDimWithStd)"
                           r"\(@,(\w+)\)")


def _pos_dim_checks(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """``index = GetPosDim(d, N); ... if (!isScalar && shape.GetDim(index) == 0) fail;`` in a dim
    loop: the dim an element names must not be empty (``isScalar`` the flag set at rank 0 only).
    Returns the statements without those checks and (the index's declaration, [(stmt, tensor,
    code)]), or the statements unchanged and None."""
    for k, d in enumerate(inner):
        dm = _POS_DIM_DECL.fullmatch(_flat(d.text, elem)) if d.kind == "decl" else None
        fn = w.index.function(dm.group(2)) if dm else None
        if not dm or fn is None or not _pos_dim_body(fn):
            continue
        idx, found, keep = dm.group(1), [], list(inner[:k + 1])
        for st in inner[k + 1:]:
            flat = _flat(st.cond, elem) if st.kind == "if" else ""
            if flat and not st.orelse and re.search(rf"\b{idx}\b", flat) and not _mask_test(flat, idx):
                tensor, code = _empty_dim_test(flat, idx, env), _error_exit(st.then, fail)
                if tensor is None or code is None:
                    return inner, None
                found.append((st, tensor, code))
                continue
            keep.append(st)
        return (tuple(keep), (d, found)) if found else (inner, None)
    return inner, None


def _empty_dim_test(flat: str, idx: str, env: dict) -> str | None:
    """``!isScalar&&S.GetDim(idx)==0`` (S a tensor's view shape, or ``t->GetViewShape()``) with
    ``isScalar`` true at rank 0 only: the tensor whose dim is tested."""
    m = re.fullmatch(rf"!(\w+)&&(?:(\w+)\.|(\w+)->GetViewShape\(\)\.)GetDim\({re.escape(idx)}\)==0", flat)
    if not m:
        return None
    flag = env.get(m.group(1))
    shape = env.get(m.group(2)) if m.group(2) else ("shape-of", env[m.group(3)].name) \
        if isinstance(env.get(m.group(3)), T) else None
    if not (isinstance(flag, tuple) and flag[:1] == ("rank0-flag",) and flag[2] is True):
        return None
    if not (isinstance(shape, tuple) and shape[:1] == ("shape-of",) and shape[1] == flag[1]):
        return None
    return shape[1]


def _wrapped_local_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail ``x = d; if (d < 0) { x = d + N; } if (mask[x] == 1) fail; else mask[x] = 1;`` of a
    dim loop (a local wrapped by a rank local N, then a mask of the dims seen). Returns (the
    statements before it, (N's value, its value at rank 0, code)) or (inner, None)."""
    if len(inner) < 3:
        return inner, None
    d, b = inner[-3], inner[-2]
    dm = re.fullmatch(r"(?:const)?(?:auto|int64_t|int32_t|int)(\w+)=@", _flat(d.text, elem)) if d.kind == "decl" else None
    ln = _wrap_by_rank(w, b, dm.group(1), elem, env, from_element=True) if dm else None
    if ln is None:
        return inner, None
    t = inner[-1]
    if t.kind != "if" or len(t.orelse) != 1:
        return inner, None
    mask = _mask_test(_flat(t.cond, elem), dm.group(1))
    code = _error_exit(t.then, fail)
    if mask is None or code is None or not _mask_set(_flat(t.orelse[0].text, elem), mask, dm.group(1)):
        return inner, None
    return inner[:-3], (ln, ln[4], code)


def _wrap_by_rank(w: Walk, b: Stmt, name: str, elem: re.Pattern, env: dict, from_element: bool) -> tuple | None:
    """``if (x < 0) { x = x + N; }`` with N a rank local (its value, a ``lin``); with
    ``from_element`` the element ``@`` may stand for x in the test and the sum. None otherwise."""
    if b.kind != "if" or b.orelse or len(b.then) != 1:
        return None
    x = re.escape(name)
    ref = rf"(?:@|{x})" if from_element else x
    if not re.fullmatch(rf"{ref}<0", _flat(b.cond, elem)):
        return None
    am = re.fullmatch(rf"{x}=(?:{ref}\+(\w+)|(\w+)\+{ref})", _flat(b.then[0].text, elem))
    if not am:
        return None
    try:
        ln = _lin(reenter.value(w, am.group(1) or am.group(2), env))
    except Unreadable:
        return None
    return ln if ln and ln[2] == 1 and ln[3] == 0 else None


def _wrapped_alias_dup(w: Walk, inner: tuple, elem: re.Pattern, env: dict, fail: int | None):
    """The tail ``if (x < 0) { x = x + N; } if (mask[x]) fail; mask[x] = true;`` of a dim loop whose
    local ``x = d`` (the element, checked before the tail as itself) is wrapped in place by a rank
    local N (ops-math aclnn_std_mean_correction.cpp CheckDimValid). Returns (the statements before
    the tail, (N's value, its value at rank 0, code)) or (inner, None)."""
    alias = next((m.group(1) for st in inner if st.kind == "decl"
                  and (m := re.fullmatch(r"(?:const)?(?:auto|int64_t|int32_t|int)(\w+)=@", _flat(st.text, elem)))),
                 None)
    if alias is None or len(inner) < 4:
        return inner, None
    wrap, test, setter = inner[-3], inner[-2], inner[-1]
    ln = _wrap_by_rank(w, wrap, alias, elem, env, from_element=False)
    if ln is None or test.kind != "if" or test.orelse:
        return inner, None
    mask = _mask_test(_flat(test.cond, elem), alias)
    code = _error_exit(test.then, fail)
    if mask is None or code is None or not _mask_set(_flat(setter.text, elem), mask, alias):
        return inner, None
    return inner[:-3], (ln, ln[4], code)


def _pos_dim_body(fn: Function) -> bool:
    """``{ if (n <= 0) { n = 1; } return d >= 0 ? d : d + n; }`` exactly."""
    if len(fn.params) != 2:
        return False
    d, n = fn.params
    return re.sub(r"\s+", "", fn.body) == f"if({n}<=0){{{n}=1;}}return{d}>=0?{d}:{d}+{n};"


def _plain_pos_dim_body(fn: Function) -> bool:
    """``{ return d >= 0 ? d : d + n; }`` exactly."""
    if len(fn.params) != 2:
        return False
    d, n = fn.params
    return re.sub(r"\s+", "", fn.body) == f"return{d}>=0?{d}:{d}+{n};"


def _mask_helper_pattern(S: str, D: str, K: str, R: str, N: str | None) -> re.Pattern:
    """The mask form (amax, amin, logsumexp, max_v2's with ``N``, a no-op flag): reduce the dims of
    ``D`` (every dim when D is empty, or with N none), keep each as 1 with ``K``, append to ``R``."""
    s, d, k, r = (re.escape(x) for x in (S, D, K, R))
    mask = r"(?:std::)?bitset<\w+>(?P<m>\w+)=(?:std::)?bitset<\w+>\(\);"
    if N == "":      # no branch on an empty list: no dims mark nothing, so nothing is reduced
        empty = ""
    elif N is None:
        empty = rf"if\({d}->Size\(\)==0\)\{{(?P=m)\.flip\(\);\}}"
    else:
        n = re.escape(N)
        empty = (rf"if\({d}->Size\(\)==0\)\{{if\({n}\)\{{" + _loop("a", rf"{s}\.GetDimNum\(\)") +
                 rf"{r}\.AppendDim\({s}\.GetDim\((?P=a)\)\);\}}return;\}}else\{{if\({k}\)\{{" +
                 _loop("b", rf"{s}\.GetDimNum\(\)") + rf"{r}\.AppendDim\(1\);\}}\}}return;\}}\}}")
    elem = rf"(?:{d}->operator\[\]\((?P=i)\)|\(\*{d}\)\[(?P=i)\])"
    mark = (_loop("i", rf"{d}->Size\(\)") + rf"(?:int64_t|uint64_t|size_t|auto)(?P<x>\w+)=(?:op::)?"
            rf"(?P<pos>GetPosDim\w*)\({elem},{s}\.GetDimNum\(\)\);(?P=m)\.set\((?P=x)\);\}}")
    build = (_loop("j", rf"{s}\.GetDimNum\(\)") + rf"if\(!(?P=m)\[(?P=j)\]\)\{{{r}\.AppendDim\({s}\.GetDim"
             rf"\((?P=j)\)\);\}}elseif\({k}\)\{{{r}\.AppendDim\(1\);\}}\}}")
    return re.compile(mask + empty + mark + build)


def _array_helper_pattern(t: str, D: str, K: str) -> re.Pattern:
    """The array form (level2_base_caculation.h ReduceShapeGetWithVar): a bool per dim of ``t``,
    every dim reduced when ``D`` is null or empty, each reduced dim kept as 1 with ``K``."""
    t, d, k = (re.escape(x) for x in (t, D, K))
    return re.compile(
        rf"auto(?P<s>\w+)={t}->GetViewShape\(\);int64_t(?P<n>\w+)=(?P=s)\.GetDimNum\(\);"
        rf"bool(?P<a>\w+)\[\w+\]=\{{(?:false,)*false\}};int64_t(?P<x>\w+);op::Shape(?P<r>\w+);"
        rf"(?P=r)\.SetDimNum\(0\);if\({d}!=nullptr&&{d}->Size\(\)!=0\)\{{"
        + _loop("i", rf"static_cast<int64_t>\({d}->Size\(\)\)") +
        rf"(?P=x)={d}->operator\[\]\((?P=i)\);if\((?P=x)<0\)\{{(?P=x)=(?P=x)\+(?P=n);\}}(?P=a)\[(?P=x)\]=true;\}}"
        + _loop("j", "(?P=n)") +
        rf"if\(!(?P=a)\[(?P=j)\]\)\{{(?P=r)\.AppendDim\((?P=s)\.GetDim\((?P=j)\)\);\}}elseif\({k}\)\{{"
        rf"(?P=r)\.AppendDim\(1\);\}}\}}\}}elseif\({k}\)\{{" + _loop("k", "(?P=n)") +
        rf"(?P=r)\.AppendDim\(1\);\}}\}}return(?P=r);")


def _reduce_helper_roles(w: Walk, fn: Function) -> dict[str, Any] | None:
    """A function of the checkout that builds a reduction's shape, by its parameters' roles: the
    mask form ``(shape, dims, keepdim[, noop], out&)`` (without a branch on an empty list: no dims
    reduce nothing, ``noop`` True) or the array form ``(tensor, dims, keepdim)`` returning the
    shape; None for any other body (not read)."""
    body = re.sub(r"\s+", "", fn.body)
    p = fn.params
    if len(p) in (4, 5) and fn.returns.split()[-1] == "void":
        noop = p[3] if len(p) == 5 else None
        for form in ((noop, ""), ) if noop else ((None, ""), ("", "literal")):
            m = _mask_helper_pattern(p[0], p[1], p[2], p[-1], form[0]).fullmatch(body)
            pos = w.index.function(m.group("pos")) if m else None
            if m and pos is not None and _pos_dim_body(pos):
                extra = {"noop": 3} if noop else ({"noop": True} if form[1] else {})
                return {"shape": 0, "dims": 1, "keepdim": 2, "out": len(p) - 1, **extra}
    if len(p) == 3 and fn.returns.split()[-1].endswith("Shape") and _array_helper_pattern(*p).fullmatch(body):
        return {"tensor": 0, "dims": 1, "keepdim": 2}
    if len(p) == 3 and fn.returns.split()[-1].endswith("Shape") and _output_size_helper(w, fn):
        return {"tensor": 0, "dims": 1, "keepdim": 2}
    return None


def _output_size_helper(w: Walk, fn: Function) -> bool:
    """The npu-output-size form (reduce_all's ``output_shape``): a shape made of the vector a helper
    builds from ``t``'s dims, each one a mask of the dims marks erased (or kept as 1 with ``k``); the
    mask every dim when the dims are empty, else each dim wrapped by the rank (at least 1)."""
    t, d, k = fn.params
    nows = lambda f: re.sub(r"\s+", "", f.body)   # noqa: E731
    each_v, each_s = _loop("i", r"(?P=v)\.size\(\)"), _loop("i", r"(?P=s)\.GetDimNum\(\)")
    m = re.fullmatch(rf"op::Shape(?P<o>\w+);auto(?P<v>\w+)=(?P<h>\w+)\({t},{d},{k}\);(?P=o)\.SetDimNum\((?P=v)\.size\(\)\);"
                     rf"{each_v}(?P=o)\.SetDim\((?P=i),(?P=v)\.at\((?P=i)\)\);\}}return(?P=o);",
                     nows(fn))
    size = _called(w, m, "h", 3)
    if size is None:
        return False
    t2, d2, k2 = size.params
    m = re.fullmatch(
        rf"auto(?P<s>\w+)={t2}->GetViewShape\(\);int64_t(?P<n>\w+)={t2}->GetViewShape\(\)\.GetDimNum\(\);"
        rf"(?:std::)?bitset<\w+>(?P<m>\w+)=(?P<mk>\w+)\({d2},(?P=n)\);op::FVector<[\w:,]+>(?P<r>\w+);"
        rf"{each_s}(?P=r)\.push_back\((?P=s)\.GetDim\((?P=i)\)\);\}}"
        rf"for\(int(?P<x>\w+)=(?P=r)\.size\(\)-1;(?P=x)>=0;(?P=x)--\)\{{if\((?P=m)\[(?P=x)\]\)\{{if\({k2}\)\{{"
        rf"(?P=r)\[(?P=x)\]=1;\}}else\{{(?P=r)\.erase\((?P=r)\.begin\(\)\+(?P=x)\);\}}\}}\}}return(?P=r);", nows(size))
    mask = _called(w, m, "mk", 2)
    if mask is None:
        return False
    d3, n3 = mask.params
    m = re.fullmatch(rf"(?:std::)?bitset<\w+>(?P<m>\w+)=(?:std::)?bitset<\w+>\(\);if\({d3}\.empty\(\)\)\{{(?P=m)\.flip\(\);\}}"
                     rf"else\{{for\(int64_t(?P<x>\w+):{d3}\)\{{(?P=m)\.set\((?P<wrap>\w+)\((?P=x),{n3}\)\);\}}\}}return(?P=m);",
                     nows(mask))
    wrap = _called(w, m, "wrap", 2)
    if wrap is None:
        return False
    a, b = wrap.params
    return nows(wrap) == f"if({b}<=0){{{b}=1;}}if({a}<0){{{a}+={b};}}return{a};"


def _reduce_shape_value(w: Walk, fn: Function, args: list[str], env: dict) -> tuple | None:
    """``("rshape", tensor, dims, keepdim, noop)`` for a call of a reduction's shape helper whose
    arguments are the API's tensor (or its view shape), int array and bool flags (or literals)."""
    roles = _reduce_helper_roles(w, fn)
    if roles is None or len(args) != len(fn.params):
        return None
    if "shape" in roles:
        shape = _shape_of(w, args[roles["shape"]], env)
        tensor = shape[1] if shape and shape[0] == "shape-of" else None
    else:
        v = env.get(_strip(args[roles["tensor"]]))
        tensor = v.name if isinstance(v, T) else None
    dims = env.get(_strip(args[roles["dims"]]))
    if tensor is None or not isinstance(dims, T) or "IntArray" not in w.ptypes.get(dims.name, ""):
        return None
    flags = []
    for role in ("keepdim", "noop"):
        if role not in roles or isinstance(roles[role], bool):   # absent, or the helper's own
            flags.append(roles.get(role, False))
            continue
        text = _strip(args[roles[role]])
        v = env.get(text)
        if isinstance(v, T) and w.ptypes.get(v.name, "").strip() in ("bool", "const bool"):
            flags.append(v.name)
        elif text in ("true", "false"):
            flags.append(text == "true")
        else:
            return None
    return ("rshape", tensor, dims.name, flags[0], flags[1])


def _reduced_dims_call(w: Walk, fn: Function, args: list[str], env: dict) -> bool:
    """``F(x, ..., outShape, d, keepdim)`` with F pushing into outShape x's dims but the one d names
    (shape_helpers ``reduced_dims_fill``), called where the guards fix x's rank at the loop's bound and
    earlier checks keep d inside that rank: outShape holds ("dims-vector", the reduced shape), the
    helper's other reference arguments are unknown after it. False (nothing changed) otherwise."""
    fill = reduced_dims_fill(fn, w.index.constant) if len(args) == len(fn.params) else None
    if fill is None:
        return False
    arg = dict(zip(fn.params, (_strip(a) for a in args)))
    tensor = reenter.shape_like(env.get(arg[fill.of]))
    dim, keep = env.get(arg[fill.dim]), env.get(arg[fill.keepdim])
    if fill.wraps:   # the helper wraps the dim: the API's integer as given
        attr = dim.name if isinstance(dim, T) and _INT_TYPE.fullmatch(w.ptypes.get(dim.name, "").strip()) else None
    else:   # the dim as given: the API's integer wrapped by max(rank, 1), the rank here never 0
        attr = dim[1] if isinstance(dim, tuple) and dim[:1] == ("wrapped-dim-max1",) and dim[2] == tensor else None
    keepdim = keep.name if isinstance(keep, T) and w.ptypes.get(keep.name, "").replace("const", "").strip() == "bool" \
        else keep if isinstance(keep, bool) else None
    if tensor is None or attr is None or keepdim is None or not _rank_fixed(w.guards, tensor, fill.rank) \
            or not dim_range_checked(w, attr, tensor):
        return False
    for p, t in zip(fn.params, fn.param_types):
        if "&" in t and "const" not in t:
            env[arg[p]] = Opaque(f"{arg[p]}, set by {fn.name}")
    env[arg[fill.out]] = ("dims-vector", ("rshape", tensor, attr, keepdim, False))
    return True


def _rank_fixed(guards: list, tensor: str, rank: int) -> bool:
    """The guards the walk runs under hold only where ``tensor`` has rank ``rank``."""
    return any(g == ("rank", tensor, "==", rank) or (g[0] == "and" and _rank_fixed(list(g[1:]), tensor, rank))
               for g in guards)


def _shape_vector(w: Walk, rhs: str, env: dict) -> tuple | None:
    """``op::ToShapeVector(s)`` (opbase shape_utils.h:25: the dims of s in order) of a shape the walk
    holds: ("dims-vector", ("shape-expr", S))."""
    m = re.fullmatch(r"(?:op::)?ToShapeVector\((.*)\)", _strip(rhs), re.S)
    shape = _shape_expr_at(w, m.group(1), env) if m and match_close(_strip(rhs), _strip(rhs).index("(")) == \
        len(_strip(rhs)) - 1 else None
    return None if shape is None else ("dims-vector", ("shape-expr", shape))


def _vector_array(rhs: str, env: dict) -> tuple | None:
    """``executor->AllocIntArray(v.data(), v.size())`` of a vector the walk holds dims of: those dims."""
    m = re.fullmatch(r"(?:[\w.]+(?:\(\))?\s*->\s*)?AllocIntArray\(\s*(\w+)\s*\.\s*data\(\)\s*,\s*\1\s*\.\s*size\(\)\s*\)",
                     rhs)
    held = env.get(m.group(1)) if m else None
    return held if isinstance(held, tuple) and held[:1] == ("dims-vector",) else None


def _reduce_shape_call(w: Walk, fn: Function, args: list[str], env: dict) -> bool:
    """``Helper(self->GetViewShape(), dim, keepDim, reduceShape);``: ``reduceShape`` holds the
    reduced shape after it."""
    value = _reduce_shape_value(w, fn, args, env)
    out = _strip(args[-1]) if args else ""
    if value is None or not re.fullmatch(r"[A-Za-z_]\w*", out) or isinstance(env.get(out), T):
        return False
    env[out] = value
    return True


def _emit_dims_unique(w: Walk, src: SourceFile, stmt: Stmt, arr: T, dup) -> None:
    ln, rank0, code = dup
    kw = {} if rank0 == 0 else {"rank0": rank0}
    _check(w, src, stmt.offset, "attr_dims_unique", _args(attr=arr.name, tensor=ln[1], **kw), code,
           " ".join(stmt.text.split())[:160])


def _last_param_by_value(src: SourceFile, callee: str) -> bool:
    """The file's own function ``callee`` takes its last parameter by value (``int64_t n``): a local
    passed there is not changed by the call."""
    fn = src.functions.get(callee.split("::")[-1])
    if fn is None or not fn.params:
        return False
    head = src.text[:fn.body_offset]
    close = head.rfind(")")
    decl = head[:close].rsplit(",", 1)[-1] if close > 0 else ""
    return bool(re.fullmatch(rf"\s*(?:const\s+)?(?:u?int(?:64|32)_t|size_t|int)\s+{re.escape(fn.params[-1])}\s*", decl))
